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
import functools
import os
import shutil
import sqlite3
import tempfile
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from ..kinds import KINDS
from ..model import stable_int

if TYPE_CHECKING:
    from ..load.render import RenderedNote
    from .spec import PackageSpec

#: Tables without keys: rows are only ever appended, the quickest insert there is.
_SCHEMA = (
    "CREATE TABLE notes (id INTEGER, guid TEXT, digest TEXT, sort INTEGER, tags TEXT, flds TEXT, sfld)",
    "CREATE TABLE cards (id INTEGER, nid INTEGER, ord INTEGER)",
)
_NOTE = "INSERT INTO notes VALUES (?, ?, ?, ?, ?, ?, ?)"
_CARD = "INSERT INTO cards VALUES (?, ?, ?)"
#: Notes of a language held until their rows are inserted, together.
_CHUNK = 500

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


@functools.cache
def _sort_index(kind: str) -> int:
    """The place of the field Anki's browser sorts notes of ``kind`` by."""
    return KINDS[kind].fields.index(KINDS[kind].sort_field)


@dataclass(frozen=True)
class NoteRows:
    """Where the processes of one build write the rows of the notes they render: in ``folder``, a database
    per process and language (a package scans only its own language's).

    It is sent to worker processes as it is, a folder's name; each question
    file processed there gets its own :class:`FileRows`.
    """

    folder: Path

    def file(self) -> FileRows:
        return FileRows(self.folder)


class FileRows:
    """One question file's notes written as rows as they are rendered, in the process that renders them.

    The fields are taken as rendering made them: decoding them again from the
    texts packed for the cache cost as much as writing the rows. Rows go in a
    few hundred at a time, never a large file's all at once, and are committed
    when the file is done (see :meth:`done`); a file read again, or one that
    failed, has its rows taken back (see :meth:`drop`).
    """

    def __init__(self, folder: Path) -> None:
        self._folder = folder
        self._waiting: dict[str, list[RenderedNote]] = {}
        #: The databases this file's rows went into, each with its language.
        self._written: dict[Path, str] = {}
        self._failed = False

    def add(self, note: RenderedNote) -> None:
        waiting = self._waiting.setdefault(note.lang, [])
        waiting.append(note)
        if len(waiting) >= _CHUNK:
            self._insert(note.lang)

    def done(self) -> dict[str, Path]:
        """Commit the file's rows: where they are, by language (none at all if any failed to go in)."""
        for lang in list(self._waiting):
            self._insert(lang)
        if self._failed:
            self.drop()
            return {}
        try:
            for path in self._written:
                _WRITING[path].commit()  # the collections read them from another connection
        except sqlite3.Error:  # a full disk: the notes are inserted from their texts
            self._failed = True
            self.drop()
            return {}
        written, self._written = self._written, {}
        return {lang: path for path, lang in written.items()}

    def drop(self) -> None:
        """Take back the rows not committed yet (nothing once :meth:`done`)."""
        self._waiting.clear()
        for path in self._written:
            try:
                _WRITING[path].rollback()
            except sqlite3.Error:
                _forget(path)
        self._written.clear()

    def _insert(self, lang: str) -> None:
        notes = self._waiting.pop(lang)
        if self._failed:
            return
        path = self._folder / f"{os.getpid()}-{lang}.db"
        try:
            connection = _WRITING.get(path) or _open(path)
            self._written[path] = lang
            rows = list(map(_note_row, notes))  # each note's id worked out once, for its row and its cards
            connection.executemany(_NOTE, rows)
            cards = (
                (card_id(note.guid, o), row[0], o) for note, row in zip(notes, rows, strict=True) for o in note.cards
            )
            connection.executemany(_CARD, cards)
        except (OSError, ValueError, sqlite3.Error):  # a full disk: the notes are inserted from their texts
            self._failed = True
            self._written.pop(path, None)
            _forget(path)


def _note_row(note: RenderedNote) -> tuple[int, str, str, int, str, str, str]:
    sort = _sort_index(note.kind)
    fields = note.fields
    return note_id(note.guid), note.guid, note.digest, sort, note_tags(note.tags), "\x1f".join(fields), fields[sort]


def _open(path: Path) -> sqlite3.Connection:
    connection = sqlite3.connect(path)
    # Scratch: no syncing; a database another build left is never opened (a new folder each build).
    # A journal in memory only, to take back a file's rows: rows are only appended, it holds a few pages.
    connection.execute("PRAGMA journal_mode=MEMORY")
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
