"""Notes as a collection holds them, written while the question files are still being processed.

A new collection's notes used to be inserted only once every question file was
processed: each file's texts read back from the cache, decoded, turned into
rows and inserted, on the one core the interpreter lock left. Here the process
that renders a file also writes its notes as rows (ids, fields, tags, sort
field, card ids) into scratch databases of its own, one per language, beside
the kept collections; a collection made from nothing then copies them with one
statement per table, with the times, decks and places its plan gives them.

A row is copied only for a note of the plan with the same id, digest and sort
field, with all its cards; any other note is inserted from its texts as
before. ``VACUUM INTO`` writes the collection out the same either way.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import sqlite3
import tempfile
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from ..kinds import KINDS
from ..model import stable_int

if TYPE_CHECKING:
    from ..load.deckfiles import FileResult
    from ..load.render import NoteHead
    from .spec import PackageSpec

#: Tables without keys: rows are only ever appended, the quickest insert there is.
_SCHEMA = (
    "CREATE TABLE notes (id INTEGER, guid TEXT, digest TEXT, sort INTEGER, tags TEXT, flds TEXT, sfld)",
    "CREATE TABLE cards (id INTEGER, nid INTEGER, ord INTEGER)",
)
_NOTE = "INSERT INTO notes VALUES (?, ?, ?, ?, ?, ?, ?)"
_CARD = "INSERT INTO cards VALUES (?, ?, ?)"

#: The notes a package plans, with what each must have to be copied and what the plan gives it.
_PLANNED = "CREATE TEMP TABLE planned (nid INTEGER PRIMARY KEY, digest TEXT, sort INTEGER, mid, mod, did, due)"
#: A note found twice (a duplicate id, which fails the build anyway) is copied once. Rows go in by id:
#: appended to the tables where they can be, rather than all over them.
_COPY_NOTES = """INSERT OR IGNORE INTO main.notes
SELECT n.id, n.guid, p.mid, p.mod, -1, n.tags, n.flds, n.sfld, 0, 0, ''
FROM rows.notes n JOIN planned p ON p.nid = n.id AND p.digest = n.digest AND p.sort = n.sort ORDER BY n.id"""
#: The cards of the planned notes: those of a note not copied make the count of cards copied wrong.
_COPY_CARDS = """INSERT OR IGNORE INTO main.cards
SELECT c.id, c.nid, p.did, c.ord, p.mod, -1, 0, 0, p.due, 0, 0, 0, 0, 0, 0, 0, 0, ''
FROM rows.cards c JOIN planned p ON p.nid = c.nid ORDER BY c.id"""

#: This process's connection to each scratch database it writes, kept open from one file to the next.
_WRITING: dict[Path, sqlite3.Connection] = {}


def note_id(guid: str) -> int:
    return stable_int("note", guid)


def card_id(guid: str, ord_: int) -> int:
    return stable_int("card", guid, str(ord_))


def note_tags(tags: Sequence[str]) -> str:
    """A note's tags as its row holds them."""
    return f" {' '.join(tags)} " if tags else ""


def _sort_index(kind: str) -> int:
    """The place of the field Anki's browser sorts notes of ``kind`` by."""
    return KINDS[kind].fields.index(KINDS[kind].sort_field)


@dataclass(frozen=True)
class NoteRows:
    """Where the processes of one build write the rows of the notes they render: in ``folder``, a database
    per process and language (a package scans only its own language's).

    Called with a question file's result, in the process that rendered it; it
    is sent to worker processes as it is, a folder's name.
    """

    folder: Path

    def __call__(self, result: FileResult) -> dict[str, Path]:
        """Write the rows of ``result``'s notes, a database per language: where, by language (none on failure)."""
        sorts = {name: _sort_index(name) for name in {head.kind for head in result.notes}}
        written = {}
        for lang in result.texts:
            path, heads = self.folder / f"{os.getpid()}-{lang}.db", [head for head in result.notes if head.lang == lang]
            try:
                connection = _WRITING.get(path) or _open(path)
                with connection:  # committed at once: the collections read them from another connection
                    # The texts just made in this process, read as :func:`process` packed them.
                    texts = ((note.fields, note.tags) for note in result.rendered(lang))
                    connection.executemany(_NOTE, _note_rows(heads, texts, sorts))
                    cards = ((card_id(head.guid, o), note_id(head.guid), o) for head in heads for o in head.cards)
                    connection.executemany(_CARD, cards)
            except (OSError, ValueError, sqlite3.Error):  # a full disk: the notes are inserted from their texts
                _forget(path)
                return {}
            written[lang] = path
        return written


def _note_rows(
    heads: Sequence[NoteHead], texts: Iterable[tuple[Sequence[str], Sequence[str]]], sorts: dict[str, int]
) -> Iterator[tuple[int, str, str, int, str, str, str]]:
    """The rows of notes, one at a time: a large file's rows are never all held."""
    for head, (fields, tags) in zip(heads, texts, strict=True):
        sort = sorts[head.kind]
        yield note_id(head.guid), head.guid, head.digest, sort, note_tags(tags), "\x1f".join(fields), fields[sort]


def _open(path: Path) -> sqlite3.Connection:
    connection = sqlite3.connect(path)
    # Scratch: no journal, no syncing; a database another build left is never opened (a new folder each build).
    connection.execute("PRAGMA journal_mode=OFF")
    connection.execute("PRAGMA synchronous=OFF")
    for statement in _SCHEMA:
        connection.execute(statement)
    _WRITING[path] = connection
    return connection


def _forget(path: Path) -> None:
    """Remove a database that failed to take a file's rows: what it holds is copied from no more."""
    with contextlib.suppress(OSError, sqlite3.Error):
        if path in _WRITING:
            _WRITING.pop(path).close()
        path.unlink(missing_ok=True)


@contextlib.contextmanager
def note_rows(kept: Path) -> Iterator[NoteRows | None]:
    """A scratch folder for one build's rows beside the kept collections, removed afterwards; None if it cannot be.

    A folder named like :mod:`.package`'s scratch folders: one left by a killed build is tidied away later.
    """
    try:
        folder = Path(tempfile.mkdtemp(prefix=".ankibuild-", dir=kept))
    except OSError:
        yield None
        return
    try:
        yield NoteRows(folder)
    finally:
        for path in [path for path in _WRITING if path.parent == folder]:
            _WRITING.pop(path).close()
        shutil.rmtree(folder, ignore_errors=True)


def copy_rows(connection: sqlite3.Connection, spec: PackageSpec, sorts: dict[int, int]) -> set[str]:
    """Copy the rows written for ``spec``'s notes into the new collection open in ``connection``; their GUIDs.

    ``sorts`` is the sort field's place by note type id. A note is copied with
    all its cards; should one lack any, none is kept, and every note is
    inserted from its texts instead.
    """
    if not spec.rows:
        return set()
    connection.execute("PRAGMA temp_store = MEMORY")
    connection.execute(_PLANNED)
    planned = (
        (note_id(n.guid), n.digest, sorts[n.notetype_id], n.notetype_id, n.mtime, n.deck_id, position)
        for position, n in enumerate(spec.notes, start=1)
    )
    connection.executemany("INSERT INTO temp.planned VALUES (?, ?, ?, ?, ?, ?, ?)", sorted(planned))
    counts = [_copy(connection, path) for path in spec.rows]
    connection.execute("DROP TABLE temp.planned")
    if None not in counts:
        notes, cards = (sum(column) for column in zip(*filter(None, counts), strict=True))
        every = notes == len(spec.notes)  # as in a first build, else some files' notes only
        copied = {n.guid for n in spec.notes} if every else {g for (g,) in connection.execute("SELECT guid FROM notes")}
        if cards == sum(len(note.cards) for note in spec.notes if note.guid in copied):
            return copied
    connection.execute("DELETE FROM main.notes")
    connection.execute("DELETE FROM main.cards")
    return set()


def _copy(connection: sqlite3.Connection, path: Path) -> tuple[int, int] | None:
    """Copy the planned notes found in the rows at ``path``, with their cards; how many of each, or None."""
    connection.commit()  # a database is attached outside a transaction
    connection.execute("ATTACH DATABASE ? AS rows", (str(path),))
    try:
        return connection.execute(_COPY_NOTES).rowcount, connection.execute(_COPY_CARDS).rowcount
    except sqlite3.Error:  # rows gone meanwhile: the notes are inserted from their texts
        return None
    finally:
        connection.commit()
        connection.execute("DETACH DATABASE rows")
