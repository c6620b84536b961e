"""Paths named inside a bank must stay inside the bank's folder, and files are read only there.

A bank comes from a classmate's repository: a file it names (a question file
reached through a link, an image a question shows) or holds (a template, the
lock, the changelog) must never make the build read something elsewhere on the
machine and pack it into a deck or publish it, nor read without end.
"""

from __future__ import annotations

import errno
import io
import os
import stat
from collections.abc import Sequence
from pathlib import Path, PurePosixPath, PureWindowsPath

#: The bank folder a command uses when none is named.
DECKS = Path("decks")
#: The folder a build writes its packages, changelog and exports into when none is named.
DIST = Path("dist")


class UnsafePathError(ValueError):
    """Raised when a path named in the bank would lead outside the bank's folder."""

    def __init__(self, message: str, hint: str) -> None:
        super().__init__(message)
        self.message = message
        self.hint = hint


class TooLargeError(UnsafePathError):
    """Raised for a file larger than what it may hold."""


def within(root: Path, path: Path) -> bool:
    """True when ``path``, with every link followed, is ``root`` or lies below it."""
    try:
        return real_place(path).is_relative_to(root.resolve())
    except (OSError, RuntimeError, ValueError):  # a link loop, a NUL, a name the system refuses: not provably inside
        return False


def real_place(path: Path) -> Path:
    """Where ``path`` is with every link followed; it need not exist. A link loop raises :class:`OSError` or
    :class:`RuntimeError`.

    Python 3.13's ``Path.resolve`` leaves a loop in the path where 3.11's raised (and the path then looks
    inside the bank): resolved strictly first, a loop raises on both, and a path that cannot be followed
    to its end otherwise (a name missing, a file where a folder would be) is resolved as far as it goes.
    """
    try:
        return path.resolve(strict=True)
    except OSError as err:
        if err.errno == errno.ELOOP:
            raise
        return path.resolve()


def written_place(path: Path) -> Path:
    """Where the file a build writes at ``path`` lies: its folder's links followed, not a link at its own name.

    The build replaces such a link with the file, perhaps while another thread names it; a link read as it
    is replaced fails (``EINVAL`` on Python 3.11 and 3.12), and what it pointed to was never the file's place.
    """
    return path.parent.resolve() / path.name


def check_writable(root: Path, path: Path) -> None:
    """Raise :class:`UnsafePathError` unless writing ``path`` keeps to ``root``, the folder a command writes into.

    Every folder on the way from ``root`` to ``path`` must lie inside ``root``
    once its links are followed, and ``root`` itself may be a link only within
    the folder that holds it: a bank can hold links, but none may carry a write
    elsewhere on the machine. ``path`` itself may be a link, which the write
    replaces (:func:`ankibuild.atomic.write_if_changed`).
    """
    check_folder(root)
    if not within(root, path.parent):
        raise UnsafePathError(f"'{path}' would be written through a link to a place outside '{root}'", _WRITE_HINT)


_WRITE_HINT = "delete the link and run the command again: ankibuild writes only inside the folder"


def check_folder(root: Path) -> None:
    """Raise :class:`UnsafePathError` when ``root``, a folder a command writes into, is a link out of its parent."""
    if root.is_symlink() and not within(root.absolute().parent, root):
        raise UnsafePathError(f"'{root}' is a link to a place outside the folder that holds it", _WRITE_HINT)


def inside(root: Path, name: str, *, base: Path | None = None) -> Path:
    """The file ``name``, written in the bank relative to ``base`` (default ``root``), as a path inside ``root``.

    Refuses absolute paths (POSIX or Windows, so a bank behaves the same on every
    machine) and any path that ends up outside ``root`` through ``..`` or a
    symbolic link. The file need not exist. Raises :class:`UnsafePathError`.
    """
    hint = "name a file inside the bank folder, relative to it, e.g. media/diagram.png"
    if not name.strip() or "\0" in name:
        raise UnsafePathError(f"{name!r} is not a file name", hint)
    if PurePosixPath(name).is_absolute() or PureWindowsPath(name).anchor:
        raise UnsafePathError(f"'{name}' is an absolute path", hint)
    path = (root if base is None else base) / name
    if not within(root, path):
        raise UnsafePathError(f"'{name}' leads outside the bank folder", hint)
    return path


#: The most a file read whole may hold (a bank's settings, a template, a PO file, a question file that
#: cannot be read a question at a time): its values take up to about seven times its size at once.
MAX_FILE_BYTES = 32 * 1024 * 1024
#: The most a question file read a question at a time may hold. 100,000 questions in three languages
#: take some 300 MiB and a build of them about 1 GB; a file at this limit needs about 2 GB,
#: which any machine a bank is built on has.
MAX_STREAMED_BYTES = 512 * 1024 * 1024
#: The most a record the build writes into the bank and reads back may hold (the lock: a line of
#: some 220 bytes per note, 64 MiB for 100,000 questions in three languages).
MAX_RECORD_BYTES = 512 * 1024 * 1024
#: Without blocking on a named pipe or becoming the controlling terminal; a link is followed
#: (:func:`read_inside` has checked where it leads).
_OPEN_FLAGS = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0) | getattr(os, "O_BINARY", 0)


def open_regular(path: Path, *, follow: bool = True) -> io.BufferedReader:
    """``path`` opened for reading, if it is a regular file (a link is followed, unless not ``follow``: then
    a link raises :class:`OSError`).

    A named pipe, a device (``/dev/zero``), a socket or a folder would make a
    build wait forever or read without end: each is refused with
    :class:`UnsafePathError`. Other failures raise :class:`OSError`.
    """
    fd = os.open(path, _OPEN_FLAGS if follow else _OPEN_FLAGS | getattr(os, "O_NOFOLLOW", 0))
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise UnsafePathError(
                f"'{path.name}' is not a regular file (a folder, a device, a pipe?)",
                "put an ordinary file in its place",
            )
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def open_inside(path: Path, roots: Sequence[Path]) -> io.BufferedReader:
    """``path`` opened for reading, if it is a regular file inside one of ``roots`` (see :func:`read_inside`).

    For a file read a piece at a time, so that what it costs follows what it holds.
    """
    if not any(within(root, path) for root in roots):
        if not path.exists() and not path.is_symlink():
            raise FileNotFoundError(errno.ENOENT, "No such file or directory", str(path))
        raise UnsafePathError(
            f"'{path.name}' is a link to a place outside its folder; it is not read",
            "put the file itself in its place: a link may only point inside the folder",
        )
    return open_regular(path)


def read_inside(path: Path, roots: Sequence[Path], limit: int | None = None) -> bytes:
    """The bytes of ``path``, which must be a regular file inside one of ``roots``.

    The one way every file of a bank, its templates and its lock is read: links
    are followed only while they end inside a root (the bank folder, a
    templates folder), so that nothing elsewhere on the machine is ever read,
    packaged or published; and no more than ``limit`` bytes (default :data:`MAX_FILE_BYTES`)
    are read, none of a file that says it holds more.
    Raises :class:`UnsafePathError` for a file refused, :class:`FileNotFoundError`
    for a missing one, :class:`OSError` for one that cannot be read.
    """
    limit = MAX_FILE_BYTES if limit is None else limit
    with open_inside(path, roots) as file:
        claimed = os.fstat(file.fileno()).st_size
        # As much as the file says it holds: reading the limit would set aside that much memory for any file.
        raw = file.read(claimed + 1) if claimed <= limit else b""
        if len(raw) > claimed:  # it grew since: read on, up to the limit
            raw += file.read(limit + 1 - len(raw))
    if claimed > limit or len(raw) > limit:
        raise _too_large(limit)
    return raw


def size_inside(path: Path, roots: Sequence[Path], limit: int | None = None) -> int:
    """The size of ``path`` without reading it, if :func:`read_inside` would read it (else what it raises)."""
    limit = MAX_FILE_BYTES if limit is None else limit
    with open_inside(path, roots) as file:
        claimed = os.fstat(file.fileno()).st_size
    if claimed > limit:
        raise _too_large(limit)
    return claimed


def _too_large(limit: int) -> TooLargeError:
    return TooLargeError(f"the file is larger than {size_of(limit)}", "make it smaller, or split it into several files")


def size_of(limit: int) -> str:
    """A limit in bytes as a reader says it (32 MiB, 64 KiB)."""
    return f"{limit // (1024 * 1024)} MiB" if limit >= 1024 * 1024 else f"{limit // 1024} KiB"
