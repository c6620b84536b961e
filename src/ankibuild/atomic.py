"""Writing files so that a reader only ever sees the old content or the new, whole."""

from __future__ import annotations

import contextlib
import errno
import glob
import os
import stat
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path

from .errors import BankError, Problems
from .paths import UnsafePathError, check_folder, check_writable


def _temporaries(path: Path) -> str:
    """The names of :func:`write_if_changed`'s temporary files for ``path``, as a glob pattern."""
    return f".{glob.escape(path.name)}.*.tmp"


def remove_stale_temporaries(path: Path) -> None:
    """Delete what a write of ``path`` killed half-way left behind.

    Only while no other process may be writing ``path`` (the build holds the bank's lock).
    """
    for stale in path.parent.glob(_temporaries(path)):
        stale.unlink(missing_ok=True)


def write_if_changed(path: Path, content: bytes, *, durable: bool = True) -> bool:
    """Atomically replace ``path`` with ``content``; False when it already holds it.

    The content goes to a new temporary file beside the target and is renamed
    over it, so an interrupted build leaves the previous file whole, and a link
    in the target's place is replaced rather than followed. Only a ``durable``
    file waits to be on disk: a cache entry lost to a power cut is only a miss.
    """
    readied = ready_if_changed(path, content, durable=durable)
    if readied is not None:
        readied.put()
    return readied is not None


def ready_if_changed(path: Path, content: bytes, *, durable: bool = True) -> Readied | None:
    """:func:`write_if_changed` but for the rename: ``content`` readied to replace ``path``, None when it holds it."""
    return None if holds(path, content) else ready(path, (content,), durable=durable)


def holds(path: Path, content: bytes) -> bool:
    """Whether ``path`` is a regular file that holds ``content``.

    A link or anything but a regular file in its place holds nothing: it is replaced, never written through.
    """
    with contextlib.suppress(OSError):
        info = path.lstat()
        return stat.S_ISREG(info.st_mode) and info.st_size == len(content) and path.read_bytes() == content
    return False


def write_parts(path: Path, parts: Iterable[bytes | memoryview], *, durable: bool = True) -> os.stat_result:
    """Atomically replace ``path`` with ``parts`` one after the other, never joined in memory.

    The status returned is the file's once its bytes were written and its
    mode set, before it was put in place (see :meth:`.digests.Digests.wrote`).
    """
    return ready(path, parts, durable=durable).put()


class Readied:
    """A file's new bytes in a temporary file beside it, to be put in its place (renamed) later.

    A build readies what it writes last while its packages are made, and puts it in place after them:
    the files are renamed in the same order as ever, and what waited for the disk waited meanwhile.
    A plain class: a dataclass takes longer to define than a build takes to use it.
    """

    __slots__ = ("path", "status", "temporary")

    def __init__(self, path: Path, temporary: Path, status: os.stat_result) -> None:
        self.path, self.temporary = path, temporary
        #: The status of the bytes written (see :func:`write_parts`).
        self.status = status

    def put(self) -> os.stat_result:
        """Rename the temporary file over the file; it is removed should that fail."""
        try:
            self.temporary.replace(self.path)
        except OSError as err:  # a full disk, a read-only folder: name the file, not its temporary
            self.discard()
            raise _named(err, self.path) from err
        except BaseException:
            self.discard()
            raise
        return self.status

    def discard(self) -> None:
        """Remove the temporary file: the file stays as it was."""
        self.temporary.unlink(missing_ok=True)


class Waiting:
    """Files readied (see :func:`ready`), to be put in their places together, in order, by :meth:`put`; those not
    put are removed on leaving (``with``). A build readies every file it writes before it puts the first in place:
    one that cannot write a file changes none."""

    __slots__ = ("_files",)

    def __init__(self) -> None:
        self._files: list[Readied] = []

    def add(self, readied: Readied | None) -> bool:
        """Add ``readied`` to the files to put in place; whether there was one (a file's bytes that change)."""
        if readied is not None:
            self._files.append(readied)
        return readied is not None

    def put(self) -> None:
        """Put each file in its place, in the order they were added."""
        while self._files:
            self._files[0].put()  # removed should the rename fail, as those after it are on leaving
            del self._files[0]

    def __enter__(self) -> Waiting:
        return self

    def __exit__(self, *_: object) -> None:
        for readied in self._files:
            readied.discard()
        self._files.clear()


class Ahead:
    """A file written ahead of its turn: to its temporary file by :meth:`ready`, put in its place in its turn by
    :meth:`put`. Readying fails as writing would (a full disk, a read-only folder), before the build puts any
    file in place; a file never readied is written by :meth:`put`."""

    __slots__ = ("_readied", "_write")

    def __init__(self, write: Callable[[], Readied | None]) -> None:
        #: Writes the file to its temporary: None where there is nothing to write.
        self._write = write
        #: What :meth:`ready` readied, once it did.
        self._readied: list[Readied | None] = []

    def ready(self) -> None:
        self._readied = [self._write()]

    def put(self) -> os.stat_result | None:
        """Put the file in its place; the status of its bytes as written, or None where nothing is written."""
        readied = self._readied[0] if self._readied else self._write()
        self._readied = []  # removed should the rename fail
        return None if readied is None else readied.put()

    def discard(self) -> None:
        """Remove what was readied and not put in place: the file stays as it was."""
        for readied in self._readied:
            if readied is not None:
                readied.discard()
        self._readied = []


def ready(path: Path, parts: Iterable[bytes | memoryview], *, durable: bool = True) -> Readied:
    """``parts`` one after the other in a new temporary file beside ``path``, which only :meth:`Readied.put`
    puts in its place. Only a ``durable`` file waits to be on disk (see :func:`write_if_changed`)."""
    try:
        return _readied(path, parts, durable=durable)
    except OSError as err:  # a full disk, a read-only folder: name the file, not its temporary
        raise _named(err, path) from err


def _named(err: OSError, path: Path) -> OSError:
    return OSError(err.errno, err.strerror, str(path))


def _readied(path: Path, parts: Iterable[bytes | memoryview], *, durable: bool) -> Readied:
    path.parent.mkdir(parents=True, exist_ok=True)
    with contextlib.suppress(FileNotFoundError):  # a folder in its place would refuse the rename, after the rest
        if stat.S_ISDIR(path.lstat().st_mode):
            raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR), str(path))
    import tempfile  # not loaded by a build with nothing to write

    handle, name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    temporary = Path(name)
    try:
        with os.fdopen(handle, "wb") as out:
            out.writelines(parts)
            if durable:
                out.flush()
                os.fsync(out.fileno())
        temporary.chmod(0o644)
        written = temporary.stat()  # its change time is the chmod's, after every write
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise
    return Readied(path, temporary, written)


def refuse_links_out(root: Path, paths: Iterable[Path], problems: Problems) -> None:
    """Add a problem to ``problems`` for each of ``paths`` a link would carry outside ``root``.

    When ``root`` itself is a link out, that is the one problem: it concerns every path.
    """
    try:
        check_folder(root)
    except UnsafePathError as err:
        problems.add(root, err.message, hint=err.hint)
        return
    for path in paths:
        try:
            check_writable(root, path)
        except UnsafePathError as err:
            problems.add(path, err.message, hint=err.hint)


def write_inside(root: Path, files: Mapping[Path, bytes]) -> list[Path]:
    """Write each of ``files`` whose content changed, every one inside ``root``; the files written.

    Every path is checked before any file is written: when a link would carry one
    outside ``root``, :class:`BankError` names each such path and nothing is written.
    """
    problems = Problems()
    refuse_links_out(root, files, problems)
    if problems.items:
        raise BankError(problems.items)
    return [path for path, content in files.items() if write_if_changed(path, content)]


def write_new(files: Mapping[Path, bytes]) -> None:
    """Write files that do not exist yet, all or none: on a failure, what was written is removed.

    Raises the :class:`OSError` that stopped it, after removing the files and the
    folders it made.
    """
    made: list[Path] = []
    try:
        for path, content in files.items():
            made += [folder for folder in reversed(path.parents) if not folder.exists()]
            path.parent.mkdir(parents=True, exist_ok=True)
            write_if_changed(path, content)
            made.append(path)
    except OSError:
        for done in reversed(made):
            with contextlib.suppress(OSError):
                if done.is_dir():
                    done.rmdir()
                else:
                    done.unlink()
        raise
