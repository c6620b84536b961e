"""Package stage: write ``.apkg`` files that are byte-for-byte reproducible.

genanki provides the collection schema, the notetype and the deck records;
notes and cards are inserted here in bulk with their own modification times
and ids derived from their GUIDs, so nothing depends on the wall clock.

A package's collection is kept between builds (in the cache): the next build
of that package copies it and changes only the notes that differ, instead of
writing every note again. Either way the collection is written out with
SQLite's ``VACUUM INTO``, whose bytes depend only on what the database holds,
never on how it got there: an updated collection is the same file as one made
from nothing.
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import io
import json
import os
import shutil
import sqlite3
import tempfile
import time
import zipfile
import zlib
from collections import deque
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from .atomic import write_if_changed
from .cache import STALE_SECONDS, pack, unpack
from .model import stable_int
from .version import code_fingerprint

if TYPE_CHECKING:
    import genanki

#: Deflate's fastest level: a collection of 10,000 notes deflates in a quarter of the
#: default level's time to a file about 18 % larger (3.7 MB instead of 3.2 MB).
COMPRESS_LEVEL = 1
#: Every zip entry gets this time: the earliest a zip file can record.
ZIP_TIME = (1980, 1, 1, 0, 0, 0)

#: The schema cookie of every collection (before VACUUM INTO adds one to it).
SCHEMA_COOKIE = 100
#: A note's fields and tags.
Texts = tuple[tuple[str, ...], tuple[str, ...]]


class NoteKey(NamedTuple):
    """A note as a package holds it, short of its texts (which change only with its digest)."""

    guid: str
    #: Identifies the fields and tags (the note's digest in the lock).
    digest: str
    mtime: int
    deck_id: int


@dataclass(frozen=True)
class DeckInfo:
    id: int
    name: str
    description: str = ""


@dataclass(frozen=True)
class PackageSpec:
    """Everything one ``.apkg`` holds."""

    notetype: genanki.Model
    notetype_mtime: int
    decks: Sequence[DeckInfo]
    #: Its notes, in the order their new cards come up.
    notes: Sequence[NoteKey]
    #: The texts of (at least) the notes asked for, or of all for None, with their
    #: GUIDs, as they are unpacked: a package made from its previous collection
    #: reads only those of the notes that changed.
    texts: Callable[[Collection[str] | None], Iterable[tuple[str, Texts]]]
    media: Sequence[tuple[str, bytes]] = ()

    @cached_property
    def frame(self) -> str:
        """Everything in the collection but its notes and cards, as text to compare with a kept one."""
        model = self.notetype
        templates = [(t["name"], t["qfmt"], t["afmt"]) for t in model.templates]
        decks = [(deck.id, deck.name, deck.description) for deck in self.decks]
        return json.dumps(
            [code_fingerprint(), model.model_id, model.name, templates, model.css, self.notetype_mtime, decks]
        )

    @cached_property
    def contents(self) -> str:
        """A digest of everything the package's bytes are made from, known without the notes' texts."""
        rows = "\n".join(f"{guid}\x1f{digest}\x1f{mtime}\x1f{did}" for guid, digest, mtime, did in self.notes)
        media = [(name, hashlib.sha256(content).hexdigest()) for name, content in self.media]
        return hashlib.sha256(f"{self.frame}\n{media}\n{rows}".encode()).hexdigest()


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


def _create(spec: PackageSpec, path: Path) -> None:
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


def _update(spec: PackageSpec, path: Path, old: Sequence[tuple[str, str, int, int]]) -> None:
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


class _Record(NamedTuple):
    """What a kept collection holds."""

    frame: str
    contents: str
    #: Its notes, as :class:`NoteKey` fields (plain tuples restore quicker).
    notes: Sequence[tuple[str, str, int, int]]
    #: The digests of the collection's pieces, in order: what the kept file must still be.
    order: Sequence[bytes]
    #: The collection deflated in pieces, by digest (see :class:`_Deflate`).
    pieces: Mapping[bytes, bytes]


#: What no build has kept again for this long (a package no longer built) is forgotten.
FORGET_SECONDS = 30 * 24 * 3600


class Kept:
    """Where a package's collection waits for the package's next build, with what it holds.

    The record names the collection file by the package's contents, and a file is
    never changed once written: a build that reads the record while another
    replaces it finds the old file whole, or none. A record or collection that is
    not as it was kept is not used, and a folder that cannot be written only
    means the package is made from nothing.
    """

    def __init__(self, folder: Path, name: str) -> None:
        self.folder, self.name = folder, name
        self.record = folder / f"{name}.record"

    def read(self) -> _Record | None:
        try:
            (frame, contents, notes, order), pieces = unpack(self.record.read_bytes())
            digests = [bytes.fromhex(piece) for piece in order]
            by_digest = dict(zip(digests, pieces, strict=True))
            return _Record(frame, contents, [tuple(note) for note in notes], digests, by_digest)
        except (OSError, ValueError, TypeError):  # none, or damaged: the package is made from nothing
            return None

    def writable(self) -> bool:
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
        except OSError:
            return False
        return os.access(self.folder, os.W_OK)

    def collection(self, contents: str) -> Path:
        return self.folder / f"{self.name}-{contents[:32]}.anki2"

    def keep(self, spec: PackageSpec, collection: Path, deflated: _Deflate) -> None:
        """Keep ``collection``, just made for ``spec`` and ``deflated``, and forget any other."""
        order = [piece.hex() for piece in deflated.order]
        record = pack([spec.frame, spec.contents, spec.notes, order], [deflated.pieces[d] for d in deflated.order])
        current = self.collection(spec.contents)
        with contextlib.suppress(OSError):
            collection.replace(current)  # in the same folder: a rename, whole or not at all
            write_if_changed(self.record, record, durable=False)
            for other in self.folder.glob(f"{self.name}-*.anki2"):
                if other != current:
                    other.unlink(missing_ok=True)
            self._tidy()

    def _tidy(self) -> None:
        now = time.time()
        for entry in self.folder.iterdir():
            age = now - entry.stat().st_mtime
            leftover = entry.name.startswith(".") and age > STALE_SECONDS  # scratch folders, temporary files
            if (leftover or age > FORGET_SECONDS) and entry.is_dir():
                shutil.rmtree(entry, ignore_errors=True)
            elif leftover or age > FORGET_SECONDS:
                entry.unlink(missing_ok=True)


def _collection(spec: PackageSpec, base: tuple[Path, _Record] | None, scratch: Path) -> Path:
    """The package's collection, canonical: from the kept one (``base``) when it can be, else from nothing."""
    work, target = scratch / "work.anki2", scratch / "collection.anki2"
    if base and base[1].frame == spec.frame and _from_kept(spec, base[0], base[1], work, target):
        return target
    for path in (work, target):
        path.unlink(missing_ok=True)
    _create(spec, work)
    _vacuum(work, target)  # a new collection's cookie is always the same, set or not
    return target


def _from_kept(spec: PackageSpec, base: Path, record: _Record, work: Path, target: Path) -> bool:
    """Make ``target`` from the kept collection ``base`` of ``record``; False when it cannot be used."""
    try:
        shutil.copyfile(base, work)
        if _digests(work) != list(record.order):  # damaged since it was kept
            return False
        _update(spec, work, record.notes)
        return _vacuum(work, target)
    except (OSError, sqlite3.Error):  # gone meanwhile, or damaged: made from nothing instead
        return False


def _vacuum(work: Path, target: Path) -> bool:
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


def _entry(name: str) -> zipfile.ZipInfo:
    info = zipfile.ZipInfo(name, date_time=ZIP_TIME)
    info.compress_type = zipfile.ZIP_DEFLATED
    info._compresslevel = COMPRESS_LEVEL  # type: ignore[attr-defined]  # no public setter before 3.13
    info.create_system = 3  # the same on every platform
    info.external_attr = 0o644 << 16
    return info


#: Deflate works on a stream in pieces this large, each primed with the window before it.
PIECE = 1 << 20
WINDOW = 1 << 15


def _digest(primer: bytes, piece: bytes, last: bool) -> bytes:
    """What identifies a piece, deflated: its bytes, the window before it, and how deflate ran."""
    key = hashlib.sha256(f"{zlib.ZLIB_RUNTIME_VERSION}/{COMPRESS_LEVEL}/{last}".encode())
    key.update(primer)
    key.update(piece)
    return key.digest()


def _digests(path: Path) -> list[bytes]:
    """The digests of a file's pieces, as :class:`_Deflate` cuts them."""
    digests, primer = [], b""
    with path.open("rb") as file:
        piece = file.read(PIECE)
        while len(piece) == PIECE:
            digests.append(_digest(primer, piece, last=False))
            primer, piece = piece[-WINDOW:], file.read(PIECE)
    return [*digests, _digest(primer, piece, last=True)]


class _Deflate:
    """Raw deflate of a stream in pieces on two threads, joined into one deflate stream.

    Each piece is deflated on its own, primed with the 32 KiB before it and ended
    on a byte boundary (a sync flush), so the pieces join into one valid stream
    whose bytes depend only on the input. It stands in for the compressor of a
    zip entry: a package made after one edit is mostly the deflating of one
    collection, which one core did alone.

    A piece deflated by the package's last build (``known``, by digest) is not
    deflated again: after an edit, most pages of a collection are as they were.
    """

    #: Pieces being deflated at once, at most: bounds the uncompressed ones held.
    AHEAD = 4

    def __init__(self, pool: ThreadPoolExecutor, known: Mapping[bytes, bytes]) -> None:
        self._pool, self._known = pool, known
        self._buffer = b""
        self._primer = b""
        self._running: deque[tuple[bytes, Future[bytes]]] = deque()
        #: The stream's pieces, deflated, by digest, and their digests in order: kept for the next build.
        self.pieces: dict[bytes, bytes] = {}
        self.order: list[bytes] = []

    def compress(self, data: bytes) -> bytes:
        self._buffer += data
        while len(self._buffer) >= PIECE:
            piece, self._buffer = self._buffer[:PIECE], self._buffer[PIECE:]
            self._start(piece, last=False)
        done = []
        while len(self._running) > self.AHEAD:
            done.append(self._finish())
        return b"".join(done)

    def flush(self) -> bytes:
        self._start(self._buffer, last=True)
        self._buffer = b""
        done = []
        while self._running:
            done.append(self._finish())
        return b"".join(done)

    def _start(self, piece: bytes, last: bool) -> None:
        digest = _digest(self._primer, piece, last)
        if digest in self._known:
            future: Future[bytes] = Future()
            future.set_result(self._known[digest])
        else:
            future = self._pool.submit(_deflate, piece, self._primer, last)
        self._running.append((digest, future))
        self.order.append(digest)
        self._primer = piece[-WINDOW:]

    def _finish(self) -> bytes:
        digest, future = self._running.popleft()
        self.pieces[digest] = future.result()
        return self.pieces[digest]


def _deflate(piece: bytes, primer: bytes, last: bool) -> bytes:
    deflate = zlib.compressobj(COMPRESS_LEVEL, zlib.DEFLATED, -zlib.MAX_WBITS, zdict=primer)
    return deflate.compress(piece) + deflate.flush(zlib.Z_FINISH if last else zlib.Z_SYNC_FLUSH)


def package_bytes(spec: PackageSpec, kept: Kept | None = None) -> bytes:
    """The whole ``.apkg``: fixed entry order and times, deflated.

    With ``kept``, the package's collection is made from the one kept there by
    its last build, and kept there in turn; if that fails (a full or odd cache
    disk), the package is made again without it. The collection is streamed
    into the zip from its file.
    """
    if kept is not None and kept.writable():
        with contextlib.suppress(OSError, sqlite3.Error):
            return _package(spec, kept)
    try:
        return _package(spec, None)
    except sqlite3.Error as err:  # the temporary folder's disk is full, or read-only, too
        where = tempfile.gettempdir()
        raise OSError(errno.EIO, f"cannot write a temporary collection there ({err})", where) from err


def _package(spec: PackageSpec, kept: Kept | None) -> bytes:
    buffer = io.BytesIO()
    record = kept.read() if kept else None
    # Made beside the kept collections, to take the place of the old one with a rename.
    with (
        tempfile.TemporaryDirectory(prefix=".ankibuild-", dir=kept.folder if kept else None) as scratch,
        zipfile.ZipFile(buffer, "w") as archive,
    ):
        base = (kept.collection(record.contents), record) if kept and record else None
        collection = _collection(spec, base, Path(scratch))
        with (
            ThreadPoolExecutor(min(2, os.cpu_count() or 1)) as pool,
            collection.open("rb") as source,
            archive.open(_entry("collection.anki2"), "w") as target,
        ):
            deflate = _Deflate(pool, record.pieces if record else {})
            target._compressor = deflate  # type: ignore[attr-defined]  # zipfile has no public way
            shutil.copyfileobj(source, target, PIECE)
        names = {str(index): name for index, (name, _) in enumerate(spec.media)}
        archive.writestr(_entry("media"), json.dumps(names, sort_keys=True))
        for index, (_, content) in enumerate(spec.media):
            archive.writestr(_entry(str(index)), content)
        if kept:
            kept.keep(spec, collection, deflate)
    return buffer.getvalue()
