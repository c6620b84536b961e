"""A package's collection, kept in the cache between builds.

The next build of that package copies it and changes only the notes that
differ, instead of writing every note again; the pieces it was deflated in are
kept with it, so that the pieces that did not change are not deflated again.
"""

from __future__ import annotations

import contextlib
import itertools
import os
import re
import shutil
import stat
import sys
import time
from array import array
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any, NamedTuple

from ..atomic import write_parts
from ..cache import STALE_SECONDS, plain_bytes, plain_data, private_folder, unpack_views, write_packed
from ..digests import status
from ..paths import open_regular
from .deflate import Deflate
from .spec import NoteKey, NoteKeys, PackageSpec, Unlike


class Record(NamedTuple):
    """What a kept collection holds."""

    frame: str
    #: The digest of the package it was made for (see :attr:`PackageSpec.digest`).
    digest: str
    #: Its notes, a list per field of :class:`NoteKey` (see :func:`_packed`): any values, until looked at.
    columns: list[list[Any]]
    #: The digests of the collection's pieces, in order: what the kept file must still be.
    order: Sequence[bytes]
    #: The collection deflated in pieces, by digest (see :class:`Deflate`): views of the record read.
    pieces: Mapping[bytes, bytes | memoryview]
    #: The status of the collection file once kept, sealed (see :func:`seal`), or None: what tells that the file
    #: still holds the pieces of ``order`` without digesting them again.
    status: Sequence[int] | None

    def holds(self, info: os.stat_result) -> bool:
        """Whether the kept collection, opened with the status ``info``, surely holds the pieces of ``order``: it is
        as it was sealed (see :func:`_as_sealed`)."""
        return _as_sealed(info, self.status)

    def unlike(self, notes: NoteKeys) -> Unlike | None:
        """Its notes and ``notes`` with their positions, but those the same at the same position in both.

        Only the notes kept that differ are made and tested, a forged value of
        another type making it None: after an edit, nearly every note is the same.
        """
        old, common = self.columns, min(len(self.columns[0]), len(notes))
        unlike = _unlike(old, notes.columns, common)
        was = [(p, NoteKey(*(column[p - 1] for column in old))) for p in (*unlike, *range(common + 1, len(old[0]) + 1))]
        if not all(_typed(note) for _, note in was):
            return None
        now = [(p, notes[p - 1]) for p in (*unlike, *range(common + 1, len(notes) + 1))]
        return Unlike([(p, note._replace(cards=tuple(note.cards))) for p, note in was], now)


def _unlike(old: list[list[Any]], new: Sequence[Sequence[Any]], common: int) -> list[int]:
    """The positions up to ``common`` where the notes in columns ``old`` and ``new`` differ.

    A field the same for every note is passed over in one comparison.
    """
    *values, cards = new
    lists = [*map(list, values), list(map(list, cards))]  # as JSON gives them back: lists, a note's cards too
    found = {
        position
        for before, after in zip(old, lists, strict=True)
        if before[:common] != after[:common]
        for position in _differing(before, after, common)
    }
    return sorted(found)


#: Notes compared a block at a time, each block in one comparison, then one by one in a block that differs.
_BLOCK = 256


def _differing(before: list[Any], after: list[Any], common: int) -> Iterator[int]:
    """The positions up to ``common``, counted from 1, where ``before`` and ``after`` differ.

    After an edit, a field differs for a note or two: comparing its 10,000 values one by one took 2 ms.
    """
    for start in range(0, common, _BLOCK):
        end = min(start + _BLOCK, common)
        if before[start:end] != after[start:end]:
            yield from (place + 1 for place in range(start, end) if before[place] != after[place])


#: How to do something (a function and its arguments): at once (see :func:`now`), or later on a thread of its own.
Later = Callable[..., object]


def now(do: Callable[..., object], *args: object) -> None:
    do(*args)


#: The type of each of a note's values, in the order of :class:`NoteKey`'s fields, as a record holds them.
_NOTE_TYPES = (str, str, int, int, int, list)


def _typed(note: NoteKey) -> bool:
    """Whether a note read from a record holds values of the types a build keeps: the cache folder's entries may be
    forged. Its values are digested and compared."""
    return all(type(value) is kind for value, kind in zip(note, _NOTE_TYPES, strict=True)) and all(
        type(place) is int for place in note.cards
    )


def _holds(frame: object, digest: object, columns: object) -> bool:
    """Whether a record read holds what a build keeps, but for the notes' values (see :func:`_typed`).

    The digest names a file.
    """
    return (
        type(frame) is str
        and type(digest) is str
        and _DIGEST.fullmatch(digest) is not None
        and type(columns) is list
        and len(columns) == len(_NOTE_TYPES)
        and all(type(column) is list for column in columns)
        and len({len(column) for column in columns}) == 1
    )


def _packed(notes: NoteKeys) -> list[bytes] | None:
    """The notes as a record holds them, for :func:`_unpacked`: GUIDs and digests a line each, then every number
    as 8 bytes (times, decks, note types, how many cards each, the cards); None for a GUID with a line break.

    JSON took twice the time to write, and half as much again to read.
    """
    lines = ["\n".join(texts) for texts in (notes.guids, notes.digests)]
    if any(text.count("\n") != max(len(notes) - 1, 0) for text in lines):
        return None
    cards = [*map(len, notes.cards), *itertools.chain.from_iterable(notes.cards)]
    numbers = array("q", [*notes.mtimes, *notes.deck_ids, *notes.notetype_ids, *cards])
    if sys.byteorder == "big":  # the cache folder may be another machine's
        numbers.byteswap()
    return [*(text.encode("utf-8", "surrogatepass") for text in lines), numbers.tobytes()]


def _unpacked(notes: Sequence[memoryview], length: object) -> list[list[Any]] | None:
    """The columns of the ``length`` notes :func:`_packed` made, or None if they are not such notes.

    Raises ValueError or TypeError for some that are not.
    """
    guids, digests, numbers = notes
    read = array("q")
    read.frombytes(numbers)
    if sys.byteorder == "big":
        read.byteswap()
    values = read.tolist()
    if type(length) is not int or not 0 <= length <= len(values) // 4:
        return None
    counts, cards = values[3 * length : 4 * length], values[4 * length :]
    if (counts and min(counts) < 0) or sum(counts) != len(cards):
        return None
    texts = [str(blob, "utf-8", "surrogatepass").split("\n") if length else [] for blob in (guids, digests)]
    places = itertools.pairwise(itertools.accumulate(counts, initial=0))
    columns: list[list[Any]] = [*texts, *(values[start * length : (start + 1) * length] for start in range(3))]
    return [*columns, [cards[start:end] for start, end in places]]


#: How many of a record's byte strings hold its notes (see :func:`_packed`): its pieces follow.
_NOTE_BLOBS = 3


#: A package's digest (see :attr:`PackageSpec.digest`).
_DIGEST = re.compile(r"[0-9a-f]{64}")


def seal(path: Path) -> os.stat_result | None:
    """Seal the file ``path``, written and in its place: its modification time set a nanosecond back; its status.

    Setting a time sets the change time to the clock's, later than that, and any later write sets the
    modification time to the clock's again, any change of its times or its name the change time: while
    the file keeps that status (see :meth:`Record.holds`), its bytes are those it had when sealed, even
    were it written in the same tick of a coarse clock as it was sealed. None where files have no change
    time (Windows), or should it not be later (a clock set back). Done through the file opened, never
    through a link put in its place meanwhile.
    """
    if os.name != "posix" or os.utime not in os.supports_fd:
        return None
    with contextlib.suppress(OSError, ValueError), open_regular(path, follow=False) as file:
        written = os.fstat(file.fileno())
        os.utime(file.fileno(), ns=(written.st_atime_ns, written.st_mtime_ns - 1))
        sealed = os.fstat(file.fileno())
        return sealed if sealed.st_ctime_ns > sealed.st_mtime_ns else None
    return None


def _as_sealed(info: os.stat_result, sealed: Sequence[int] | None) -> bool:
    """Whether a file kept, opened with the status ``info``, surely holds what it held when it was sealed with the
    status ``sealed`` (see :func:`seal`).

    Its status is still the one sealed: any write since moved its modification time on. Only a regular
    file of no other name: not one a link or another name in the folder shows, whose status anyone may
    read without being able to read the file (a record may be forged, and names the status).
    """
    return sealed is not None and stat.S_ISREG(info.st_mode) and info.st_nlink == 1 and status(info) == list(sealed)


def _status_to_keep(kept: Path, sealed: os.stat_result | None) -> list[int] | None:
    """The status of the collection ``kept``, sealed as ``sealed`` before it was deflated, to keep in its record;
    None if it may have been changed since: then the next build digests it."""
    with contextlib.suppress(OSError):
        if sealed is not None and status(kept.lstat()) == status(sealed):
            return status(sealed)
    return None


#: How many numbers a file's status holds (see :func:`.digests.status`).
_STATUS = 5
#: The most a record's sealed status is read as: five numbers, written as JSON.
_SEALED_BYTES = 256


def _status_read(value: object) -> list[int] | None:
    """A sealed status read (see :func:`_status_to_keep`), if ``value`` is one; a forged one of another shape: None."""
    if type(value) is list and len(value) == _STATUS and all(type(part) is int for part in value):
        return value
    return None


#: What no build has kept again for this long (a package no longer built) is forgotten.
FORGET_SECONDS = 30 * 24 * 3600


class Kept:
    """Where a package's collection waits for the package's next build, with what it holds.

    The record names the collection file by the package's digest, and a file's
    bytes never change once written (only its times, sealed): a build that reads
    the record while another replaces it finds the old file whole, or none. A record or collection that is
    not as it was kept is not used, and a folder that cannot be written only
    means the package is made from nothing.
    """

    def __init__(self, folder: Path, name: str, later: Later = now) -> None:
        self.folder, self.name = folder, name
        self.record = folder / f"{name}.record"
        #: The status of the record, sealed once written (see :func:`seal`).
        self.sealed = folder / f"{name}.sealed"
        self._later = later

    def read(self) -> Record | None:
        try:
            packed, intact = self._packed()
            (frame, digest, order, length, sealed), blobs = unpack_views(packed, intact=intact)
            digests = [bytes.fromhex(piece) for piece in order]
            by_digest = dict(zip(digests, blobs[_NOTE_BLOBS:], strict=True))
            columns = _unpacked(blobs[:_NOTE_BLOBS], length)
            if columns is None or not _holds(frame, digest, columns):
                return None
            return Record(frame, digest, columns, digests, by_digest, _status_read(sealed))
        # None, damaged, or kept by another version in another shape: the package is made from nothing.
        except (OSError, ValueError, TypeError, IndexError, UnicodeDecodeError):
            return None

    def _packed(self) -> tuple[bytes, bool]:
        """The record's bytes, and whether they surely are those written: it still has the status it was sealed
        with. Then the 4.6 MB of a package of 10,000 notes are not digested again (4 ms)."""
        with open_regular(self.record, follow=False) as file:
            info = os.fstat(file.fileno())
            packed = file.read()
        with contextlib.suppress(OSError, ValueError), open_regular(self.sealed, follow=False) as file:
            return packed, _as_sealed(info, _status_read(plain_data(file.read(_SEALED_BYTES))))
        return packed, False

    def writable(self) -> bool:
        try:
            private_folder(self.folder)
        except OSError:
            return False
        return os.access(self.folder, os.W_OK)

    def collection(self, digest: str) -> Path:
        return self.folder / f"{self.name}-{digest[:32]}.anki2"

    def place(self, spec: PackageSpec, collection: Path) -> Path | None:
        """Move ``collection``, just made for ``spec``, where it is kept: where it is now; None if it cannot be.

        Moved out of the folder it was made in before it is sealed and deflated: a move changes
        its status (see :func:`seal`). The record naming it is written once it is deflated.
        """
        placed = self.collection(spec.digest)
        try:
            collection.replace(placed)  # in the same folder: a rename, whole or not at all
        except OSError:
            return None
        return placed

    def keep(self, spec: PackageSpec, deflated: Deflate, sealed: os.stat_result | None) -> None:
        """Keep the collection placed for ``spec`` (see :meth:`place`), deflated as ``deflated`` with the status
        ``sealed`` (see :func:`seal`), and forget any other.

        Its record is written later, as the folder was given.
        """
        self._later(self._keep, spec, deflated, sealed)

    def remove_later(self, scratch: Path) -> None:
        """Remove the folder ``scratch``, where a package was made beside the kept collections, later, as the
        folder was given: it is no part of the package."""
        self._later(shutil.rmtree, scratch, True)

    def _keep(self, spec: PackageSpec, deflated: Deflate, sealed: os.stat_result | None) -> None:
        """Write the record of the collection kept for ``spec`` and ``deflated``, sealed as ``sealed``, then
        forget any other."""
        order = [piece.hex() for piece in deflated.order]
        pieces = [deflated.pieces[d] for d in deflated.order]
        current = self.collection(spec.digest)
        notes = _packed(spec.notes)
        with contextlib.suppress(OSError):
            header = [spec.frame, spec.digest, order, len(spec.notes), _status_to_keep(current, sealed)]
            if notes is not None:
                self.sealed.unlink(missing_ok=True)  # a record not sealed anew is digested, not taken for the last
                write_packed(self.record, header, [*notes, *pieces])
                if record := seal(self.record):
                    write_parts(self.sealed, [plain_bytes(status(record))], durable=False)
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
