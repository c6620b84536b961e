"""One build of a bank, or one command writing into it, at a time.

Two builds of one bank (a second terminal, an editor's save hook, CI jobs on a
shared checkout) would both read and rewrite ``ankibuild.lock`` and the
packages; a command that writes into the bank (``translations ok``,
``add-language``, ``import``...) while a build runs would have its work
overwritten by what the build read before. Each therefore holds an exclusive
lock on ``.ankibuild.build-lock`` in the bank folder from its first read to its
last write; a second one waits a little, then gives up with a clear message.
The operating system releases the lock when its process ends, however it
ends, so a killed build never leaves the bank locked.
"""

from __future__ import annotations

import errno
import math
import os
import stat
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import BinaryIO

from .errors import AnkibuildError, BuildLockedError
from .paths import UnsafePathError, check_writable

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


#: Never through a link (which could create or touch a file anywhere), never blocking on a pipe.
_LOCK_FLAGS = os.O_RDWR | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)


def _open_lock_file(path: Path) -> BinaryIO:
    """The lock file, created if missing; a link or anything but a regular file in its place is refused."""
    try:
        fd = os.open(path, _LOCK_FLAGS, 0o644)
    except OSError as err:
        if err.errno == errno.ELOOP:  # O_NOFOLLOW met a link
            raise AnkibuildError(f"{path} is a link: delete it, the build makes its own file") from err
        raise
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        raise AnkibuildError(f"{path} is not a regular file: delete it, the build makes its own file")
    return os.fdopen(fd, "r+b")


@contextmanager
def exclusive(bank: Path, *, wait: float = DEFAULT_WAIT) -> Iterator[None]:
    """Hold the bank's build lock for the duration of the block.

    Raises :class:`BuildLockedError` when another build still holds it after ``wait``
    seconds. The lock file stays: deleting it would let a waiting build and a
    new one each lock a different file.
    """
    if not (math.isfinite(wait) and wait >= 0):  # NaN compares false with everything: it would wait for ever
        raise AnkibuildError(f"cannot wait {wait} seconds: give a number of seconds, 0 or more")
    if not bank.is_dir():
        yield  # nothing to protect; validation reports the missing folder
        return
    path = bank / BUILD_LOCK_FILE
    try:
        handle = _open_lock_file(path)
    except OSError as err:
        raise AnkibuildError(f"cannot create {path}: {err.strerror}") from err
    with handle:
        deadline = time.monotonic() + wait
        while not _try_lock(handle):
            if time.monotonic() >= deadline:
                raise BuildLockedError(
                    f"another build of {bank} is running, or a command writing into it (it holds {path}); "
                    f"waited {wait:g} s. "
                    "Try again when it has finished, or wait longer with --wait SECONDS."
                )
            time.sleep(_POLL)
        yield


@contextmanager
def writing(bank: Path, *, wait: float = DEFAULT_WAIT) -> Iterator[None]:
    """The bank's lock (:func:`exclusive`), for a command that writes into the bank.

    A bank folder that is a link out of the folder holding it is refused first:
    not even the lock file is made elsewhere.
    """
    try:
        check_writable(bank, bank / BUILD_LOCK_FILE)
    except UnsafePathError as err:
        raise AnkibuildError(f"{err.message}: {err.hint}") from err
    with exclusive(bank, wait=wait):
        yield
