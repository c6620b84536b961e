"""A new collection's frame: its note types and decks as genanki writes them."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import genanki
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from ankibuild.anki.collection import create
from ankibuild.anki.spec import DeckInfo, NoteKey, NoteKeys, Notetype, PackageSpec

CARD = ("Card", "{{Front}}", "{{Back}}")
NOTETYPE = Notetype(1_500_000_000_001, "basic (en)", ("Front", "Back"), (CARD,), "", 0, False)
MTIME = 1_600_000_000


@pytest.mark.parametrize("decks", [0, 1, 2, 3, 5])
def test_note_types_and_decks_are_those_genanki_writes_with_every_deck_carrying_every_note_type(
    decks: int, tmp_path: Path
) -> None:
    """genanki's note types show how many decks carried them (one note type: nothing rewrites them)."""
    infos = [DeckInfo(1_500_000_000_100 + n, f"Bank::Topic {n}", f"Über {n} «»") for n in range(decks)]
    spec = PackageSpec([(NOTETYPE, MTIME)], infos, NoteKeys.of([]), lambda wanted: iter(()))
    create(spec, tmp_path / "made.anki2")
    expected = sqlite3.connect(":memory:")
    every = [genanki.Deck(info.id, info.name, info.description) for info in infos]
    for deck in every:
        deck.add_model(NOTETYPE.model())
    genanki.Package(every).write_to_db(expected.cursor(), MTIME, iter(()))
    made = sqlite3.connect(tmp_path / "made.anki2")
    query = "SELECT models, decks FROM col"
    assert made.execute(query).fetchone() == expected.execute(query).fetchone()


#: Notes a forged cache entry could hold: GUIDs with tabs or beyond ASCII, numbers beyond eight bytes.
_KEYS = st.lists(
    st.builds(
        NoteKey,
        st.sampled_from(["a", "b", "a\tb", "", "é", "\udc80", "('a',)"]),
        st.sampled_from(["0123", "a\tb", ""]),
        st.sampled_from([MTIME, MTIME + 1, 2**64]),
        st.sampled_from([1, 2]),
        st.just(NOTETYPE.model_id),
        st.sampled_from([(), (0,), (1,), (0, 1), (2**63,)]),
    ),
    max_size=3,
)


def _key(guid: str, digest: str = "0123") -> NoteKey:
    return NoteKey(guid, digest, MTIME, 1, NOTETYPE.model_id, (0,))


@settings(max_examples=300, deadline=None)
@given(_KEYS, _KEYS)
@example([_key("a\tb"), _key("c")], [_key("a"), _key("b\tc")])  # joined by tabs, the GUIDs would be one text
@example([_key("a", "0\t1"), _key("b", "2")], [_key("a", "0"), _key("b", "1\t2")])
@example([_key("a\tb")], [_key("('a\\tb',)")])  # written by repr, or a GUID that looks it
def test_two_packages_have_one_digest_only_when_their_notes_are_the_same(
    one: list[NoteKey], other: list[NoteKey]
) -> None:
    """The digest tells whether a package changed: each column written whole is told apart from every other."""

    def digest(notes: list[NoteKey]) -> str:
        return PackageSpec([(NOTETYPE, MTIME)], [], NoteKeys.of(notes), lambda wanted: iter(())).digest

    assert (digest(one) == digest(other)) == (one == other)
