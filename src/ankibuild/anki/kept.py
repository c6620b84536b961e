"""A package's collection, kept in the cache between builds.

The next build of that package copies it and changes only the notes that
differ, instead of writing every note again; the pieces it was deflated in are
kept with it, so that the pieces that did not change are not deflated again.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import NamedTuple

from ..cache import STALE_SECONDS, private_folder, unpack_views, write_packed
from .deflate import Deflate
from .spec import NoteKey, PackageSpec


class Record(NamedTuple):
    """What a kept collection holds."""

    frame: str
    #: The digest of the package it was made for (see :attr:`PackageSpec.digest`).
    digest: str
    #: Its notes.
    notes: Sequence[NoteKey]
    #: The digests of the collection's pieces, in order: what the kept file must still be.
    order: Sequence[bytes]
    #: The collection deflated in pieces, by digest (see :class:`Deflate`): views of the record read.
    pieces: Mapping[bytes, bytes | memoryview]


#: What no build has kept again for this long (a package no longer built) is forgotten.
FORGET_SECONDS = 30 * 24 * 3600


class Kept:
    """Where a package's collection waits for the package's next build, with what it holds.

    The record names the collection file by the package's digest, and a file is
    never changed once written: a build that reads the record while another
    replaces it finds the old file whole, or none. A record or collection that is
    not as it was kept is not used, and a folder that cannot be written only
    means the package is made from nothing.
    """

    def __init__(self, folder: Path, name: str) -> None:
        self.folder, self.name = folder, name
        self.record = folder / f"{name}.record"

    def read(self) -> Record | None:
        try:
            (frame, digest, notes, order), pieces = unpack_views(self.record.read_bytes())
            digests = [bytes.fromhex(piece) for piece in order]
            by_digest = dict(zip(digests, pieces, strict=True))
            keys = [NoteKey._make((*note[:5], tuple(note[5]))) for note in notes]
            return Record(frame, digest, keys, digests, by_digest)
        # None, damaged, or kept by another version in another shape: the package is made from nothing.
        except (OSError, ValueError, TypeError, IndexError):
            return None

    def writable(self) -> bool:
        try:
            private_folder(self.folder)
        except OSError:
            return False
        return os.access(self.folder, os.W_OK)

    def collection(self, digest: str) -> Path:
        return self.folder / f"{self.name}-{digest[:32]}.anki2"

    def keep(self, spec: PackageSpec, collection: Path, deflated: Deflate) -> None:
        """Keep ``collection``, just made for ``spec`` and ``deflated``, and forget any other."""
        order = [piece.hex() for piece in deflated.order]
        pieces = [deflated.pieces[d] for d in deflated.order]
        current = self.collection(spec.digest)
        with contextlib.suppress(OSError):
            collection.replace(current)  # in the same folder: a rename, whole or not at all
            write_packed(self.record, [spec.frame, spec.digest, spec.notes, order], pieces)
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
