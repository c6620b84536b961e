"""A package's collection: the SQLite database inside the ``.apkg``, made from nothing or updated.

genanki provides the collection schema, the notetype and the deck records;
notes and cards are inserted here in bulk with their own modification times
and ids derived from their GUIDs, so nothing depends on the wall clock.

Either way the collection is written out with SQLite's ``VACUUM INTO``, whose
bytes depend only on what the database holds, never on how it got there: an
updated collection is the same file as one made from nothing.
"""

from __future__ import annotations

import contextlib
import sqlite3
from collections.abc import Iterator, Sequence
from pathlib import Path

from ..model import stable_int
from .spec import NoteKey, PackageSpec

#: The schema cookie of every collection (before VACUUM INTO adds one to it).
SCHEMA_COOKIE = 100

_NOTE = "INSERT INTO notes VALUES(?,?,?,?,-1,?,?,?,0,0,'')"
_CARD = "INSERT INTO cards VALUES(?,?,?,0,?,-1,0,0,?,0,0,0,0,0,0,0,0,'')"


def _note_id(guid: str) -> int:
    return stable_int("note", guid)


def _card_id(guid: str) -> int:
    return stable_int("card", guid, "0")


def _write_notes(cursor: sqlite3.Cursor, spec: PackageSpec, added: Sequence[tuple[int, NoteKey]]) -> None:
    """Insert notes at their positions, each with its one card (the notetype has one card type).

    Notes go in as their texts are unpacked, a question file at a time, never
    all of a package's texts at once; the order they go in does not show in the
    collection written out with VACUUM INTO.
    """
    if not added:
        return
    place = {note.guid: (position, note) for position, note in added}
    model, sort_index = spec.notetype, spec.notetype.sort_field_index
    cards: list[tuple[int, int, int, int, int]] = []

    def notes() -> Iterator[tuple[int, str, int, int, str, str, str]]:
        for guid, (fields, tags) in spec.texts(None if len(place) == len(spec.notes) else place):
            if guid in place:
                position, note = place[guid]
                note_id = _note_id(guid)
                # New cards keep the bank's order through their due position.
                cards.append((_card_id(guid), note_id, note.deck_id, note.mtime, position))
                yield note_id, guid, model.model_id, note.mtime, _tags(tags), "\x1f".join(fields), fields[sort_index]

    cursor.executemany(_NOTE, notes())
    cursor.executemany(_CARD, cards)


def _tags(tags: tuple[str, ...]) -> str:
    return f" {' '.join(tags)} " if tags else ""


def create(spec: PackageSpec, path: Path) -> None:
    """A new collection with every note of ``spec``."""
    import genanki  # loaded on first use: a build with nothing to do never needs it

    with _connect(path) as conn:
        cursor = conn.cursor()
        # genanki writes the schema, decks and notetype; the notes follow in bulk.
        decks = [genanki.Deck(deck.id, deck.name, deck.description) for deck in spec.decks]
        for deck in decks:
            deck.add_model(spec.notetype)
        genanki.Package(decks).write_to_db(cursor, spec.notetype_mtime, iter(()))
        _write_notes(cursor, spec, list(enumerate(spec.notes, start=1)))


def update(spec: PackageSpec, path: Path, old: Sequence[tuple[str, str, int, int]]) -> None:
    """Turn the collection of ``old`` notes at ``path`` into that of ``spec``'s notes."""
    before = {note[0]: (position, note) for position, note in enumerate(old, start=1)}
    now = list(enumerate(spec.notes, start=1))
    gone = before.keys() - {note.guid for note in spec.notes}
    added = [(position, note) for position, note in now if note.guid not in before]
    kept = [(position, note) for position, note in now if before.get(note.guid, (position, note)) != (position, note)]
    edited = {n.guid for _, n in kept if before[n.guid][1][1:3] != n[1:3]}  # digest or time
    texts = dict(spec.texts(edited)) if edited else {}
    sort_index = spec.notetype.sort_field_index
    with _connect(path) as conn:
        conn.executemany("DELETE FROM notes WHERE id = ?", ((_note_id(guid),) for guid in gone))
        conn.executemany("DELETE FROM cards WHERE id = ?", ((_card_id(guid),) for guid in gone))
        _write_notes(conn.cursor(), spec, added)
        conn.executemany(
            "UPDATE notes SET mod = ?, tags = ?, flds = ?, sfld = ? WHERE id = ?",
            (
                (
                    n.mtime,
                    _tags(texts[n.guid][1]),
                    "\x1f".join(texts[n.guid][0]),
                    texts[n.guid][0][sort_index],
                    _note_id(n.guid),
                )
                for _, n in kept
                if n.guid in edited
            ),
        )
        # A card holds its note's time, its deck and its place in the bank's order.
        conn.executemany(
            "UPDATE cards SET did = ?, mod = ?, due = ? WHERE id = ?",
            ((n.deck_id, n.mtime, position, _card_id(n.guid)) for position, n in kept),
        )


@contextlib.contextmanager
def _connect(path: Path) -> Iterator[sqlite3.Connection]:
    conn = sqlite3.connect(path)
    try:
        # A scratch file: no journal, no syncing to disk; only what it holds in the end matters.
        conn.execute("PRAGMA journal_mode=OFF")
        conn.execute("PRAGMA synchronous=OFF")
        yield conn
        conn.commit()
    finally:
        conn.close()


def vacuum(work: Path, target: Path) -> bool:
    """Write ``work`` out as ``target`` with VACUUM INTO; False if its schema cookie could not be fixed.

    VACUUM INTO copies the schema cookie, plus one: how often the schema changed
    before must not show in the bytes. Setting it is safe here, where nothing
    else has the file open, but an SQLite built to refuse it ignores it.
    """
    with _connect(work) as conn:
        conn.execute(f"PRAGMA schema_version = {SCHEMA_COOKIE}")
        fixed = conn.execute("PRAGMA schema_version").fetchone()[0] == SCHEMA_COOKIE
        conn.execute("VACUUM INTO ?", (str(target),))
    return bool(fixed)
