"""A new collection's frame: its note types and decks as genanki writes them."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import genanki
import pytest

from ankibuild.anki.collection import create
from ankibuild.anki.spec import DeckInfo, Notetype, PackageSpec

CARD = ("Card", "{{Front}}", "{{Back}}")
NOTETYPE = Notetype(1_500_000_000_001, "basic (en)", ("Front", "Back"), (CARD,), "", 0, False)
MTIME = 1_600_000_000


@pytest.mark.parametrize("decks", [0, 1, 2, 3, 5])
def test_note_types_and_decks_are_those_genanki_writes_with_every_deck_carrying_every_note_type(
    decks: int, tmp_path: Path
) -> None:
    """genanki's note types show how many decks carried them (one note type: nothing rewrites them)."""
    infos = [DeckInfo(1_500_000_000_100 + n, f"Bank::Topic {n}", f"Über {n} «»") for n in range(decks)]
    spec = PackageSpec([(NOTETYPE, MTIME)], infos, [], lambda wanted: iter(()))
    create(spec, tmp_path / "made.anki2")
    expected = sqlite3.connect(":memory:")
    every = [genanki.Deck(info.id, info.name, info.description) for info in infos]
    for deck in every:
        deck.add_model(NOTETYPE.model())
    genanki.Package(every).write_to_db(expected.cursor(), MTIME, iter(()))
    made = sqlite3.connect(tmp_path / "made.anki2")
    query = "SELECT models, decks FROM col"
    assert made.execute(query).fetchone() == expected.execute(query).fetchone()
