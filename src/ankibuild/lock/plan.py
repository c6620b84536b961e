"""The lock a build writes: planned with the packages whose times it holds, saved after every other file.

A build stopped before the lock is saved is simply done again by the next one.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property, partial
from pathlib import Path
from typing import TYPE_CHECKING

from ..atomic import Ahead, Readied, ready, remove_stale_temporaries
from ..errors import LockChangedError
from ..paths import MAX_RECORD_BYTES, read_inside
from .format import LOCK_FILE, Lock
from .gitattributes import ask_git_to_merge
from .memo import LOCK_MEMO, remember

if TYPE_CHECKING:
    from ..options import BuildOptions


def check_frozen(old: Lock, new: Lock, options: BuildOptions) -> None:
    """Refuse, in a frozen build, a lock that lacks an entry the build needs, or has it otherwise.

    Order, format and entries of notes no longer in the bank do not count: a
    merge that keeps both sides' lines may bring back those of a removed note.
    """
    if not options.frozen:
        return
    known = old.notes.get
    if (old.bank, old.notetypes) != (new.bank, new.notetypes) or any(
        known(guid) != entry for guid, entry in new.notes.items()
    ):
        raise LockChangedError(f"{options.decks / LOCK_FILE} would change: run 'ankibuild build' and commit it.")


@dataclass(frozen=True)
class LockPlan:
    """The lock a build writes, with the bank's it was made from; encoded when first needed (see :attr:`data`)."""

    lock: Lock
    #: The bank's lock, and the bytes of its file as the build found them.
    before: Lock
    file: bytes

    @classmethod
    def of(cls, lock: Lock, options: BuildOptions, *, before: Lock) -> LockPlan:
        """The plan to write ``lock``, which the build made from the bank's lock ``before``."""
        return cls(lock, before, _current(options.decks / LOCK_FILE))

    @cached_property
    def data(self) -> bytes:
        """The lock encoded: a build has it done while its packages are made (see :meth:`kept`)."""
        return self.lock.encoded(self.before, file=self.file)

    @cached_property
    def sha(self) -> bytes:
        """The sha256 of :attr:`data`: the memo's key, and the lock's digest in the build's record once written."""
        return hashlib.sha256(self.data).digest()

    @property
    def changed(self) -> bool:
        """Whether the lock differs from the bank's."""
        return self.data != self.file

    @property
    def recalled(self) -> bool:
        """The bank's lock was recalled parsed from the cache (see :func:`read_lock`)."""
        return self.before.recalled

    def save(self, options: BuildOptions, ahead: Ahead | None = None) -> os.stat_result | None:
        """Write the lock if it changed; the status of its bytes as written, or None (its memo is :meth:`kept`).

        A dry run writes nothing, and a build that leaves the bank (CI) only
        clears what an interrupted build left behind. The lock written ``ahead``
        (see :meth:`ahead`) is put in its place.
        """
        written = (ahead or self.ahead(options)).put()
        if written is not None:
            ask_git_to_merge(options.decks)
        return written

    def ahead(self, options: BuildOptions) -> Ahead:
        """The lock to write, readied while the packages are made: their bytes wait for the disk then, not after."""
        return Ahead(partial(self._ready, options))

    def _ready(self, options: BuildOptions) -> Readied | None:
        decks = options.decks
        if options.dry_run:
            return None
        remove_stale_temporaries(decks / LOCK_FILE)
        if options.leaves_bank or not self.changed:
            return None
        # Compared with the file's bytes already (``file``): some megabytes not read again to tell the same.
        return ready(decks / LOCK_FILE, (self.data,))

    def kept(self, options: BuildOptions, *, meanwhile: Callable[[], object] = lambda: None) -> None:
        """Keep the lock parsed in the cache for the next build, unless the build writes no lock.

        When it is unchanged and was recalled from the cache, what is kept is this
        very lock. Kept before the lock is saved, it is only ever recalled for a
        file that holds these very bytes (see :func:`~.memo.recall`).
        ``meanwhile`` is done before the memo is kept, and after the lock is encoded
        where one is kept: the build readies its records then, the lock among them,
        on another thread.
        """
        if options.dry_run or options.leaves_bank:
            meanwhile()
            return
        remembered = self.changed or not self.recalled  # encoded here, by this thread, first
        meanwhile()
        if remembered:
            remember(self.lock, self.sha, options.cache.kept / LOCK_MEMO, before=self.before)


def _current(path: Path) -> bytes:
    """The bytes of a file of the bank as they are now, or none."""
    try:
        return read_inside(path, (path.parent,), MAX_RECORD_BYTES)
    except FileNotFoundError:
        return b""
