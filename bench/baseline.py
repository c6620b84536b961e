"""The naive baseline: the script a user would write with PyYAML and genanki.

The pure-Python safe loader reads every file, and genanki builds a deck per
question file and writes one package per language, its own way (its zip is
stored, not deflated). The only care taken is a GUID from the question id and
language, so that it could rebuild at all.

    python -m bench.baseline --decks DIR --out DIR
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import genanki
import yaml

from .plain import deck_name, notes, notetype, read_bank, script, stable_id


def build(*, decks: Path, out: Path) -> list[Path]:
    bank = read_bank(decks, yaml.SafeLoader)
    out.mkdir(parents=True, exist_ok=True)
    paths = []
    for lang in bank.languages:
        model = notetype(bank, lang)
        package_decks = []
        for key, data in bank.files:
            deck = genanki.Deck(stable_id("deck", bank.id, key, lang), deck_name(bank, key, data, lang))
            for note in notes(bank, data, lang):
                deck.add_note(genanki.Note(model=model, fields=note.fields, tags=note.tags, guid=note.guid))
            package_decks.append(deck)
        path = out / f"{bank.id}-{lang}.apkg"
        genanki.Package(package_decks).write_to_file(str(path))
        paths.append(path)
    return paths


def main(argv: Sequence[str] | None = None) -> None:
    script(build, "Build a bank the naive way: pure-Python YAML and genanki.", argv)


if __name__ == "__main__":
    main()
