"""One build of a bank at a time.

Two builds of one bank (a second terminal, an editor's save hook, CI jobs on a
shared checkout) would both read and rewrite ``ankibuild.lock`` and the
packages. A build therefore holds an exclusive lock on ``.ankibuild.build-lock``
in the bank folder; a second build waits a little, then gives up with a clear
message. The operating system releases the lock when its process ends, however
it ends, so a killed build never leaves the bank locked.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import BinaryIO

from .errors import AnkibuildError, BuildLockedError

BUILD_LOCK_FILE = ".ankibuild.build-lock"
#: Seconds a build waits for another build of the same bank to finish.
DEFAULT_WAIT = 10.0
_POLL = 0.05


if sys.platform == "win32":
    import msvcrt

    def _try_lock(handle: BinaryIO) -> bool:
        try:
            msvcrt.locking(handle.fileno(), msvcrt.LK_NBLCK, 1)
        except OSError:
            return False
        return True

else:
    import fcntl

    def _try_lock(handle: BinaryIO) -> bool:
        try:
            fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return False
        return True


@contextmanager
def exclusive(bank: Path, *, wait: float = DEFAULT_WAIT) -> Iterator[None]:
    """Hold the bank's build lock for the duration of the block.

    Raises :class:`BuildLockedError` when another build still holds it after ``wait``
    seconds. The lock file stays: deleting it would let a waiting build and a
    new one each lock a different file.
    """
    if not bank.is_dir():
        yield  # nothing to protect; validation reports the missing folder
        return
    path = bank / BUILD_LOCK_FILE
    try:
        handle = path.open("a+b")
    except OSError as err:
        raise AnkibuildError(f"cannot create {path}: {err.strerror}") from err
    with handle:
        deadline = time.monotonic() + wait
        while not _try_lock(handle):
            if time.monotonic() >= deadline:
                raise BuildLockedError(
                    f"another build of {bank} is running (it holds {path}); waited {wait:g} s. "
                    "Try again when it has finished, or wait longer with --wait SECONDS."
                )
            time.sleep(_POLL)
        yield
