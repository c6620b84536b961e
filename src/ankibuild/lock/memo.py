"""The lock a build wrote, kept parsed in the cache: the next build restores it instead of parsing the file."""

from __future__ import annotations

import contextlib
import hashlib
from dataclasses import astuple
from pathlib import Path

from ..cache import named_rows, private_folder, unpack_columns, write_columns
from ..version import code_fingerprint
from .format import Lock, NoteLock, NotetypeLock, holds

#: The last lock a build wrote, kept parsed in the cache's folder of things kept.
LOCK_MEMO = "lock.memo"


def remember(lock: Lock, sha: bytes, memo: Path) -> None:
    """Keep ``lock``, as written in the bytes of sha256 ``sha``, for :func:`recall` to restore quickly.

    The notes go in as columns (all GUIDs, all questions...): texts restore
    several times quicker than tens of thousands of small objects, or than JSON.
    """
    written = _memo_key(sha)
    *texts, mtimes = zip(*lock.notes.values(), strict=True) if lock.notes else [()] * len(NoteLock._fields)
    types = [list(astuple(t)) for t in lock.notetypes.values()]
    with contextlib.suppress(OSError):
        private_folder(memo.parent)
        # A part at a time: the memo of a large bank is some megabytes, which a build would otherwise hold twice.
        write_columns(memo, [written.hex(), lock.bank, types, mtimes], texts)


def _memo_key(sha: bytes) -> bytes:
    """The key of the memo of a lock file whose bytes have the sha256 ``sha``.

    The code is part of it: another version may keep the lock in another shape.
    """
    return hashlib.sha256(f"{code_fingerprint()}\0".encode() + sha).digest()


def recall(memo: Path, sha: bytes) -> Lock | None:
    """The lock kept in ``memo`` while the file's bytes still have the sha256 ``sha``, those it was kept for;
    else None."""
    try:
        (written, bank, types, mtimes), texts = unpack_columns(memo.read_bytes())
        if written != _memo_key(sha).hex() or not holds(bank, types, [*texts, mtimes]):
            return None
        notetypes = {t[0]: NotetypeLock(t[0], t[1], tuple(t[2]), tuple(t[3]), t[4], t[5]) for t in types}
        by_guid = dict(zip(texts[0], named_rows(NoteLock, *texts, mtimes), strict=True))
        return Lock(bank, notetypes, by_guid, recalled=True, sha=sha)
    except (OSError, ValueError, TypeError, IndexError):  # none, or damaged: the file is parsed instead
        return None
