"""The lock a build writes: planned with the packages whose times it holds, saved after every other file.

A build stopped before the lock is saved is simply done again by the next one.
"""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass, field
from functools import cached_property, partial
from pathlib import Path
from typing import TYPE_CHECKING

from ..atomic import Ahead, Readied, ready, remove_stale_temporaries
from ..errors import LockChangedError
from ..forked import Aside
from ..paths import MAX_RECORD_BYTES, read_inside
from .format import LOCK_FILE, Lock
from .gitattributes import ask_git_to_merge
from .memo import LOCK_MEMO, remember, remove_stale

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


#: From this many notes, a lock is encoded, and its memo kept, by a process of its own (see :meth:`LockPlan.of`).
ASIDE_NOTES = 3000
#: A lock's bytes and their sha256.
_Encoded = tuple[bytes, bytes]


@dataclass(frozen=True)
class LockPlan:
    """The lock a build writes, with the bank's it was made from; encoded when first needed (see :attr:`data`)."""

    lock: Lock
    #: The bank's lock, and the bytes of its file as the build found them.
    before: Lock
    file: bytes
    #: The process encoding the lock and keeping its memo meanwhile, if it was handed to one (see :meth:`of`).
    aside: Aside[_Encoded] | None = field(default=None, compare=False, repr=False)

    @classmethod
    def of(cls, lock: Lock, options: BuildOptions, *, before: Lock, aside: bool = False) -> LockPlan:
        """The plan to write ``lock``, which the build made from the bank's lock ``before``.

        A large lock planned ``aside`` is encoded, and its memo kept, by a process forked for it, while
        the build goes on (some 40 ms of a large bank's edit): the build asks for its bytes when it
        writes, and should it no longer want them, stops it (:meth:`stop`).
        """
        file = _current(options.decks / LOCK_FILE)
        handed = None
        if aside and not options.dry_run and len(lock.notes) >= ASIDE_NOTES:  # a dry run never encodes it
            memo = options.cache.kept / LOCK_MEMO
            handed = Aside(
                partial(_encoded_and_kept, lock, before, file, options=options), stopped=partial(remove_stale, memo)
            )
        return cls(lock, before, file, handed)

    @cached_property
    def _encoded(self) -> _Encoded:
        """:attr:`data` and :attr:`sha`: from the process the lock was handed to, or made here."""
        if self.aside is not None:
            return self.aside.result()
        return _encoded(self.lock, self.before, self.file)

    @property
    def data(self) -> bytes:
        """The lock encoded: a build has it done while its packages are made (see :meth:`kept`)."""
        return self._encoded[0]

    @property
    def sha(self) -> bytes:
        """The sha256 of :attr:`data`: the memo's key, and the lock's digest in the build's record once written."""
        return self._encoded[1]

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

    def kept(self, options: BuildOptions) -> None:
        """Keep the lock parsed in the cache for the next build, unless the build writes no lock.

        When it is unchanged and was recalled from the cache, what is kept is this
        very lock. Kept before the lock is saved, it is only ever recalled for a
        file that holds these very bytes (see :func:`~.memo.recall`). A lock handed
        to a process of its own was kept there, or is kept here once it failed.
        """
        if not _keeps(options):
            return
        encoded = self._encoded  # handed to a process: kept there (or here, should it have failed) by now
        if self.aside is None:
            _keep(self.lock, self.before, self.file, encoded=encoded, options=options)

    def stop(self) -> None:
        """Stop the process the lock was handed to, should the build stop, or plan another lock."""
        if self.aside is not None:
            self.aside.stop()


def _encoded(lock: Lock, before: Lock, file: bytes) -> _Encoded:
    """``lock`` encoded (made from ``before``, the lock file's bytes being ``file``), and its sha256."""
    data = lock.encoded(before, file=file)
    return data, hashlib.sha256(data).digest()


def _keeps(options: BuildOptions) -> bool:
    """Whether a build keeps the memo of the lock it writes: not one that writes none."""
    return not (options.dry_run or options.leaves_bank)


def _keep(lock: Lock, before: Lock, file: bytes, *, encoded: _Encoded, options: BuildOptions) -> None:
    """What :meth:`LockPlan.kept` does, for ``lock`` encoded as ``encoded``, the lock file's bytes being ``file``."""
    data, sha = encoded
    if data != file or not before.recalled:
        remember(lock, sha, options.cache.kept / LOCK_MEMO, before=before)


def _encoded_and_kept(lock: Lock, before: Lock, file: bytes, *, options: BuildOptions) -> _Encoded:
    """:func:`_encoded`, its memo kept (see :meth:`LockPlan.kept`): the work of a process the lock is handed to."""
    encoded = _encoded(lock, before, file)
    if _keeps(options):
        _keep(lock, before, file, encoded=encoded, options=options)
    return encoded


def _current(path: Path) -> bytes:
    """The bytes of a file of the bank as they are now, or none."""
    try:
        return read_inside(path, (path.parent,), MAX_RECORD_BYTES)
    except FileNotFoundError:
        return b""
