"""The sha256 of a file, read again only when its status says it may have changed.

Hashing the 31 MB of a large bank takes longer than the rest of a build with
nothing to do. A file's status (device, inode, size, modification and change
time in nanoseconds) is kept with the digest of its content, and a file whose
status is the same is not read again. A status is only kept when it is
*settled*: when its change time is older than that of a marker file on the same
file system, touched before the status was taken.

Why that is safe: every write to a file, and every change to its times, sets its
change time to the file system's clock at that moment, which no program can set
back. A write after the marker was touched gets a change time at least the
marker's, so never the one kept, which is older; the file is then read again.
Without the marker, a file written twice in one tick of a coarse clock (a few
milliseconds; a second on some file systems), once before it was read and once
after, would show the same status with another content. A file whose change
time is not older than the marker's is read again at every build until it is.
The marker lives in the cache folder, so a bank on another file system than the
cache, or on a system whose files have no change time (Windows), is hashed in
full every time. Content changed without its times changing (written through a
memory map) and a clock set back by hand are assumed away, as ``git`` does for
its index.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import stat
from collections.abc import Sequence
from pathlib import Path

from .paths import UnsafePathError, open_regular

#: A settled reading of a file: device, inode, size, modification and change time (ns), then the sha256
#: of the content.
Reading = list[int | str]


def status(info: os.stat_result) -> list[int]:
    """What tells a file's bytes apart from those it had before, as this module trusts it: device, inode, size,
    modification and change time (ns)."""
    return [info.st_dev, info.st_ino, info.st_size, info.st_mtime_ns, info.st_ctime_ns]


class Digests:
    """The digests of the files one build reads or checks, with the readings of those settled."""

    def __init__(self, marker: Path) -> None:
        self.marker = marker
        #: The readings a build kept, by path.
        self.known: dict[str, Sequence[object]] = {}
        #: The readings to keep for the next build: only settled ones, by path.
        self.settled: dict[str, Reading] = {}
        #: The paths whose digest was taken from their bytes here, not from a reading kept.
        self.hashed: set[str] = set()
        #: The files this build wrote, by path: the status of their bytes as written, and their sha256.
        self.written: dict[str, tuple[os.stat_result, str]] = {}
        self._clock: tuple[int, int] | None = None

    def learn(self, readings: object) -> None:
        """Take the readings a build kept (a record of another shape adds none)."""
        if isinstance(readings, dict):
            self.known.update(readings)

    def tick(self) -> None:
        """Touch the marker: a file whose change time is older than it now is settled once read."""
        self._clock = None
        if os.name != "posix":  # elsewhere the change time is the time a file was made
            return
        with contextlib.suppress(OSError):  # without a marker every file is read
            try:
                os.utime(self.marker)
            except FileNotFoundError:
                self.marker.touch()
            info = self.marker.stat()
            self._clock = (info.st_dev, info.st_ctime_ns)

    def sha(self, path: Path) -> str | None:
        """The sha256 of ``path``'s content, or None when it cannot be read (see :func:`~.cache.file_sha`)."""
        key = str(path)
        known = self.known.get(key)
        if known is not None:  # settled when kept: any write since has changed the status
            with contextlib.suppress(OSError, TypeError, IndexError):
                if status(path.stat()) == list(known[:5]) and isinstance(known[5], str):
                    self.settled[key] = list(known)  # type: ignore[arg-type]
                    return known[5]
        self.settled.pop(key, None)
        sha = self._as_written(path)
        if sha is not None:
            return sha
        try:
            with open_regular(path) as file:
                info = os.fstat(file.fileno())  # before reading: what was read is at least as new
                sha = hashlib.file_digest(file, "sha256").hexdigest()
            self.hashed.add(key)
        # A pipe or a device is never read, nor a path no file can have (a NUL byte, from a forged record): no digest.
        except (OSError, UnsafePathError, ValueError):
            return None
        self.keep(path, info, sha)
        return sha

    def held(self, path: Path) -> str | None:
        """The digest of the reading of ``path`` a build kept, while the file itself, not a link in its place,
        still has the status it was read with (see :meth:`sha`); None otherwise: nothing is read here."""
        known = self.known.get(str(path))
        with contextlib.suppress(OSError, TypeError, IndexError):
            if known is not None and status(path.lstat()) == list(known[:5]) and isinstance(known[5], str):
                return known[5]
        return None

    def wrote(self, path: Path, written: os.stat_result, sha: str) -> None:
        """Know the digest ``sha`` of the bytes this build wrote to ``path``, and their status ``written``.

        ``written`` is the file's status once its bytes were written and its mode
        set, before it was put in place (see :func:`.atomic.write_parts`): no one
        else knew of the file till then. When setting the mode, after the last
        write, changed the file at a later time than that write (its change time
        is later than its modification time), anyone who wrote to the file since
        changed its modification time too, to a later one: while the file keeps
        its place, size and modification time, its bytes are those written.
        """
        self.written[str(path)] = (written, sha)

    def _as_written(self, path: Path) -> str | None:
        """The digest of the bytes this build wrote to ``path``, while surely still there (see :meth:`wrote`)."""
        written, sha = self.written.get(str(path), (None, ""))
        # Not on Windows, whose change time is the time a file was made, nor where times may not be told apart.
        if written is None or self._clock is None or written.st_ctime_ns <= written.st_mtime_ns:
            return None
        try:
            info = path.lstat()  # a link in its place is read as any other, or refused
        except OSError:
            return None
        if not stat.S_ISREG(info.st_mode) or status(info)[:4] != status(written)[:4]:
            return None
        self.keep(path, info, sha)
        return sha

    def keep(self, path: Path, info: os.stat_result, sha: str) -> None:
        """Keep the reading of ``path`` whose content has ``sha``, its status ``info`` taken before it was read
        (here, or by a process of the build that read it to process it), if it is settled."""
        if self._clock is not None and info.st_dev == self._clock[0] and info.st_ctime_ns < self._clock[1]:
            self.settled[str(path)] = [*status(info), sha]
