"""The lock a build wrote, kept parsed in the cache: the next build restores it instead of parsing the file.

After an edit, the lock differs from the one restored by a few notes: those
that differ from the lock kept whole are kept beside it (``lock.memo.patch``),
rather than the whole lock rewritten, some megabytes for a large bank.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
from collections.abc import Sequence
from dataclasses import astuple
from pathlib import Path
from typing import Any

from ..cache import named_rows, private_folder, read_kept, unpack_columns, write_columns
from ..version import code_fingerprint
from .format import Lock, NoteLock, NotetypeLock, differing, holds, one_each

#: The last lock a build wrote, kept parsed in the cache's folder of things kept.
LOCK_MEMO = "lock.memo"
#: A lock is kept whole again once more than one note in this many differs from the lock kept whole.
_PATCHED_SHARE = 8


def remember(lock: Lock, sha: bytes, memo: Path, *, before: Lock | None = None) -> None:
    """Keep ``lock``, as written in the bytes of sha256 ``sha``, for :func:`recall` to restore quickly.

    The notes go in as columns (all GUIDs, all questions...): texts restore
    several times quicker than tens of thousands of small objects, or than JSON.
    ``before`` is the lock the build made ``lock`` from: when it was recalled,
    and ``lock`` holds the same notes with few of them other than in the lock
    kept whole, only those few are kept, beside it.
    """
    written = _memo_key(sha).hex()
    patch = _patch(lock, before)
    with contextlib.suppress(OSError):
        private_folder(memo.parent)
        if patch is not None:
            base, notes = patch
            *texts, mtimes = _columns(notes)
            write_columns(_patch_file(memo), [written, base, mtimes], texts)
            # Still in use: the kept folder forgets what was not written for weeks (see Kept).
            os.utime(memo)
            return
        *texts, mtimes = _columns(list(lock.notes.values()))
        types = [list(astuple(t)) for t in lock.notetypes.values()]
        # A part at a time: the memo of a large bank is some megabytes, which a build would otherwise hold twice.
        # Whether two notes share a question and language is told once here, not at each edit (see recall).
        write_columns(memo, [written, lock.bank, types, mtimes, one_each(lock.notes.values())], texts)


def _columns(notes: Sequence[NoteLock]) -> list[Sequence[Any]]:
    """The notes' values, a column per field of :class:`NoteLock`."""
    return list(zip(*notes, strict=True)) if notes else [()] * len(NoteLock._fields)


def _patch(lock: Lock, before: Lock | None) -> tuple[str, list[NoteLock]] | None:
    """The key of the lock kept whole that ``before`` was restored from, and the notes of ``lock`` that differ
    from that one's; None when ``lock`` is to be kept whole."""
    if before is None or before.kept is None or (lock.bank, lock.notetypes) != (before.bank, before.notetypes):
        return None
    base, differ = before.kept
    old, notes = before.notes, lock.notes
    if notes.keys() != old.keys():
        return None
    changed = differ.union(differing(old, notes))
    if len(changed) * _PATCHED_SHARE > len(notes):
        return None
    return base, [notes[guid] for guid in changed]


def _patch_file(memo: Path) -> Path:
    return memo.with_name(f"{memo.name}.patch")


def _memo_key(sha: bytes) -> bytes:
    """The key of the memo of a lock file whose bytes have the sha256 ``sha``.

    The code is part of it: another version may keep the lock in another shape.
    """
    return hashlib.sha256(f"{code_fingerprint()}\0".encode() + sha).digest()


def recall(memo: Path, sha: bytes) -> Lock | None:
    """The lock kept in ``memo`` while the file's bytes still have the sha256 ``sha``, those it was kept for;
    else None.

    Kept as the notes that differ from the lock kept whole, it is that lock with
    those notes: each part was kept for the other (by key), and each passes the
    checks a lock file's lines pass.
    """
    key = _memo_key(sha).hex()
    try:
        patch = _patched_notes(_patch_file(memo), key)
        base = key if patch is None else patch[0]
        (written, bank, types, mtimes, unique), texts = unpack_columns(read_kept(memo))
        if written != base or not holds(bank, types, [*texts, mtimes]):
            return None
        notetypes = {t[0]: NotetypeLock(t[0], t[1], tuple(t[2]), tuple(t[3]), t[4], t[5]) for t in types}
        by_guid = dict(zip(texts[0], named_rows(NoteLock, *texts, mtimes), strict=True))
        differ: frozenset[str] = frozenset()
        if patch is not None:
            columns = patch[1]
            if not holds(bank, types, columns):
                return None
            differ = frozenset(columns[0])
            if not differ <= by_guid.keys():  # the notes a lock kept whole lacks are no change of it
                return None
            unique = unique is True and not _moved(by_guid, columns)
            by_guid.update(zip(columns[0], named_rows(NoteLock, *columns), strict=True))
        return Lock(bank, notetypes, by_guid, recalled=True, sha=sha, kept=(base, differ), one_each=unique is True)
    except (OSError, ValueError, TypeError, IndexError):  # none, or damaged: the file is parsed instead
        return None


def _moved(notes: dict[str, NoteLock], columns: list[Sequence[Any]]) -> bool:
    """Whether a note of the patch ``columns`` is under another question or language than in ``notes``: whether two
    notes of the lock patched may share one where none of the lock kept whole did."""
    guids, questions, langs = columns[:3]
    return any(
        (notes[guid].question, notes[guid].lang) != (question, lang)
        for guid, question, lang in zip(guids, questions, langs, strict=True)
    )


def _patched_notes(path: Path, key: str) -> tuple[str, list[Sequence[Any]]] | None:
    """The key of the lock kept whole and the columns of the notes that differ, kept in ``path`` for the lock of
    memo key ``key``; None when there are none for it (none kept, or for another lock, or damaged)."""
    try:
        (written, base, mtimes), texts = unpack_columns(read_kept(path))
    except (OSError, ValueError, TypeError):
        return None
    if written != key or not isinstance(base, str):
        return None
    return base, [*texts, mtimes]
