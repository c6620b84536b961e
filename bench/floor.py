"""The floor: the least work that turns a bank into the same packages.

The libyaml C loader reads every file; the notes and cards go straight into
the collection with one ``executemany`` each in one transaction; the
collection is deflated like ankibuild's packages. One language after the
other, and nothing tuned beyond that (no parallelism, no cache): a plain fast
script, for the build to be measured against.

    python -m bench.floor --decks DIR --out DIR
"""

from __future__ import annotations

import json
import os
import sqlite3
import tempfile
import time
import zipfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import genanki
import yaml
from genanki.apkg_col import APKG_COL
from genanki.apkg_schema import APKG_SCHEMA

from ankibuild.anki.deflate import COMPRESS_LEVEL

from .plain import PlainBank, deck_name, notes, notetype, read_bank, script, stable_id

NoteRow = tuple[int, str, int, int, int, str, str, str, int, int, str]


def build(*, decks: Path, out: Path) -> list[Path]:
    bank = read_bank(decks, yaml.CSafeLoader)
    out.mkdir(parents=True, exist_ok=True)
    paths = []
    for lang in bank.languages:
        path = out / f"{bank.id}-{lang}.apkg"
        write_package(bank, lang, path)
        paths.append(path)
    return paths


def write_package(bank: PlainBank, lang: str, path: Path) -> None:
    handle, name = tempfile.mkstemp(suffix=".anki2")
    os.close(handle)
    try:
        conn = sqlite3.connect(name)
        try:
            _fill(conn.cursor(), bank, lang)
            conn.commit()
        finally:
            conn.close()
        with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED, compresslevel=COMPRESS_LEVEL) as archive:
            archive.write(name, "collection.anki2")
            archive.writestr("media", "{}")
    finally:
        Path(name).unlink()


def _fill(cursor: sqlite3.Cursor, bank: PlainBank, lang: str) -> None:
    now = int(time.time())
    model = notetype(bank, lang)
    decks: dict[str, Any] = {}
    note_rows: list[NoteRow] = []
    card_rows: list[tuple[int, ...]] = []
    next_id = now * 1000
    for key, data in bank.files:
        did = stable_id("deck", bank.id, key, lang)
        decks[str(did)] = genanki.Deck(did, deck_name(bank, key, data, lang)).to_json()
        for note in notes(bank, data, lang):
            next_id += 1
            tags = f" {' '.join(note.tags)} "
            fields = "\x1f".join(note.fields)
            note_rows.append((next_id, note.guid, model.model_id, now, -1, tags, fields, note.fields[1], 0, 0, ""))
            card_rows.append((next_id, next_id, did, 0, now, -1, 0, 0, len(card_rows) + 1, 0, 0, 0, 0, 0, 0, 0, 0))
    cursor.executescript(APKG_SCHEMA)
    cursor.executescript(APKG_COL)
    (defaults,) = cursor.execute("SELECT decks FROM col").fetchone()
    first_deck = int(next(iter(decks), "1"))  # the notetype's default deck
    models = {model.model_id: model.to_json(now, first_deck)}
    cursor.execute(
        "UPDATE col SET models = ?, decks = ?", (json.dumps(models), json.dumps(json.loads(defaults) | decks))
    )
    cursor.executemany("INSERT INTO notes VALUES(?,?,?,?,?,?,?,?,?,?,?)", note_rows)
    cursor.executemany("INSERT INTO cards VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,'')", card_rows)


def main(argv: Sequence[str] | None = None) -> None:
    script(build, "Build a bank the fastest plain way: C loader, bulk sqlite, deflate.", argv)


if __name__ == "__main__":
    main()
