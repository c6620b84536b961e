"""A cache of work already done, keyed by the content it was done on.

Entries live in the user's cache folder (``$ANKIBUILD_CACHE_DIR``, else
``$XDG_CACHE_HOME/ankibuild``, else ``~/.cache/ankibuild``, those two only
where absolute), never in the bank or the output folder: a repository that
someone shares cannot plant one.
A key is a digest of every input of the work, never a file's size or time, so
an entry is either exactly right or not found. A damaged entry is a miss.

A cache folder may be shared (a lab machine's ``/tmp``, a CI cache), so an
entry is plain data: JSON and byte strings, which no loader can turn into code,
with a digest of the whole that tells a damaged entry. A folder that another
user owns or may write to is not used at all: whoever can write it could change
what a build packages. The build then keeps its work in a private folder of its
own, forgotten when it ends, and says so.
"""

from __future__ import annotations

import atexit
import contextlib
import hashlib
import json
import os
import stat
import time
from collections.abc import Iterable, Iterator, Sequence
from functools import partial
from itertools import chain, groupby, islice, repeat
from operator import ne
from pathlib import Path
from typing import Any, TypeVar

from .atomic import write_if_changed, write_parts
from .paths import UnsafePathError, open_regular

#: Changes whenever what is cached changes shape; old entries are then never read.
FORMAT = "2"
#: What every entry starts with, before the digest of the rest.
MAGIC = b"ankibuild cache 2\n"
_LENGTH = 8
#: A temporary file this old was left by a build that was killed.
STALE_SECONDS = 3600


def cache_root() -> Path:
    explicit = os.environ.get("ANKIBUILD_CACHE_DIR")
    if explicit:
        return Path(explicit)
    base = os.environ.get("XDG_CACHE_HOME", "")
    if not Path(base).is_absolute():  # a relative one is ignored, as XDG asks: it would be in the bank
        try:
            home = Path.home()
        except RuntimeError:  # no HOME and no user name (a container's user by number): a cache for this build
            return _private_scratch()
        if not home.is_absolute():  # HOME set to a relative path: the same
            return _private_scratch()
        base = str(home / ".cache")
    return Path(base) / "ankibuild"


def digest(*parts: bytes | str) -> str:
    """A digest of several inputs, each length-prefixed so that no two sequences collide."""
    hasher = hashlib.blake2b(digest_size=20)
    for part in parts:
        # A file name's bytes that are not UTF-8 (kept by Python as lone surrogates) are digested as they are.
        data = part.encode("utf-8", "surrogateescape") if isinstance(part, str) else part
        hasher.update(len(data).to_bytes(8, "little"))
        hasher.update(data)
    return hasher.hexdigest()


def file_sha(path: Path) -> str | None:
    """The sha256 of a file's content, or None when it cannot be read."""
    try:
        with open_regular(path) as file:
            return hashlib.file_digest(file, "sha256").hexdigest()
    except (OSError, UnsafePathError):  # a pipe or a device is never read: it has no digest
        return None


def read_kept(path: Path) -> bytes:
    """The bytes of a file the cache folder keeps, which must be a regular file, not a link.

    Whoever wrote there may have put a named pipe in its place, which a build would wait on
    forever, or a link to a device that reads without end (``/dev/zero``). Raises
    :class:`OSError`, or :class:`UnsafePathError` for a file of another kind.
    """
    with open_regular(path, follow=False) as file:
        return file.read()


class DamagedEntry(ValueError):
    """An entry that is not as :func:`pack` wrote it."""


def pack(header: object, blobs: Sequence[bytes] = ()) -> bytes:
    """Plain data (what JSON holds) and byte strings, as one entry with a digest of the whole.

    Byte strings (images, deflated collections) travel beside the JSON rather than
    inside it, so that they are neither escaped nor copied into a text.
    """
    parts = _body(header, blobs)
    return b"".join([MAGIC, _digest(parts), *parts])  # joined once: a large file's texts are not copied twice


def packed_digest(packed: bytes) -> str:
    """The digest :func:`pack` put in front of what it packed: :func:`unpack` checks the rest against it."""
    return packed[len(MAGIC) : len(MAGIC) + 32].hex()


def write_packed(path: Path, header: object, blobs: Sequence[bytes | memoryview]) -> None:
    """Write what :func:`pack` makes of ``header`` and ``blobs`` to ``path`` (not durably), a part at a time.

    For large byte strings, such as a collection's deflated pieces: joined, and
    joined again behind the digest, they would be held twice more.
    """
    parts = _body(header, blobs)
    write_parts(path, [MAGIC, _digest(parts), *parts], durable=False)


def _digest(parts: Sequence[bytes | memoryview]) -> bytes:
    """The sha256 of ``parts`` joined, without joining them."""
    whole = hashlib.sha256()
    for part in parts:
        whole.update(part)
    return whole.digest()


def _body(header: object, blobs: Sequence[bytes | memoryview]) -> list[bytes | memoryview]:
    head = plain_bytes(header)
    parts: list[bytes | memoryview] = [len(head).to_bytes(_LENGTH, "little"), head]
    for blob in blobs:
        parts += [len(blob).to_bytes(_LENGTH, "little"), blob]
    return parts


def plain_bytes(data: object) -> bytes:
    """Plain data (what JSON holds) as the bytes :func:`plain_data` gives it back from."""
    try:
        return json.dumps(data, ensure_ascii=False, separators=(",", ":")).encode()
    except UnicodeEncodeError:  # a path whose name is not UTF-8: escaped, JSON gives it back as it was
        return json.dumps(data, separators=(",", ":")).encode()


def plain_data(text: bytes | str) -> Any:
    """The JSON of a file anyone who can write the cache folder may have written.

    Raises ValueError for anything but JSON, nesting too deep for Python's
    reader (which recurses once per level) included.
    """
    try:
        return json.loads(text)
    except RecursionError as err:
        raise ValueError("nested too deeply") from err


def unpack(packed: bytes) -> tuple[Any, list[bytes]]:
    """What :func:`pack` packed: its plain data and its byte strings. Raises :class:`DamagedEntry`."""
    header, views = unpack_views(packed)
    return header, [bytes(view) for view in views]


def unpack_views(packed: bytes, *, intact: bool = False) -> tuple[Any, list[memoryview]]:
    """:func:`unpack`, its byte strings left in ``packed``: only those a caller needs are copied out.

    With ``intact``, the caller knows the bytes are those written (see :meth:`.anki.kept.Kept.read`):
    their digest is not checked again. Raises :class:`DamagedEntry`.
    """
    start = len(MAGIC) + 32
    view = memoryview(packed)
    damaged = not intact and hashlib.sha256(view[start:]).digest() != packed[len(MAGIC) : start]
    if packed[: len(MAGIC)] != MAGIC or damaged:
        raise DamagedEntry("not an entry of this version, or damaged")
    pieces: list[memoryview] = []
    while start < len(packed):
        size = int.from_bytes(view[start : start + _LENGTH], "little")
        start += _LENGTH
        pieces.append(view[start : start + size])
        start += size
    if not pieces:
        raise DamagedEntry("an entry without its data")
    try:
        return plain_data(bytes(pieces[0])), pieces[1:]
    except ValueError as err:
        raise DamagedEntry(str(err)) from err


def pack_columns(header: object, columns: Sequence[Sequence[str]]) -> bytes:
    """Plain data and columns of texts, all of one length, as one entry for :func:`unpack_columns`
    (the columns as :func:`text_columns` keeps them)."""
    return pack(*_columns_entry(header, columns))


def write_columns(path: Path, header: object, columns: Sequence[Sequence[str]]) -> None:
    """Write what :func:`pack_columns` makes to ``path`` (not durably), a part at a time, never whole."""
    write_packed(path, *_columns_entry(header, columns))


#: A column goes in runs when it has at most one run per this many items.
_ITEMS_PER_RUN = 4


def _columns_entry(header: object, columns: Sequence[Sequence[str]]) -> tuple[list[object], list[bytes]]:
    said, blobs = text_columns(columns)
    return [header, *said], blobs


def text_columns(columns: Sequence[Sequence[str]], *, sep: str = "\n") -> tuple[list[object], list[bytes]]:
    """Columns of texts, all of one length, as plain data and a byte string per column, for :func:`texts_of`.

    Each column is one text, its items joined by ``sep``: tens of thousands of
    short texts split from it several times quicker than JSON gives them back.
    A column with ``sep`` in one of its texts goes into the plain data as a list.
    A column but the first, of few runs of equal texts (a language per note),
    holds each run's text once, and the plain data how many items each run holds.
    """
    # Never the first column: each of its texts takes a byte at least, which bounds the length a reader accepts.
    in_runs = [runs(column) if place and _few_runs(column) else None for place, column in enumerate(columns)]
    texts = [column if ran is None else ran[0] for column, ran in zip(columns, in_runs, strict=True)]
    blobs = [_lines(column, sep) for column in texts]
    lists = [list(column) if blob is None else None for column, blob in zip(texts, blobs, strict=True)]
    counts = [None if ran is None else ran[1] for ran in in_runs]
    length = len(columns[0]) if columns else 0
    return [length, lists, counts], [blob or b"" for blob in blobs]


def _few_runs(column: Sequence[str]) -> bool:
    """Whether ``column`` has at most one run of equal texts per :data:`_ITEMS_PER_RUN` texts, counted in C:
    among its first texts, then among all (a column of other texts is seldom read to its end)."""
    parts = (column[:_FIRST], column)
    return bool(column) and all(
        (1 + sum(map(ne, part, islice(part, 1, None)))) * _ITEMS_PER_RUN <= len(part) for part in parts
    )


#: How many texts of a column :func:`_few_runs` counts the runs of first.
_FIRST = 256


def _lines(texts: Sequence[str], sep: str) -> bytes | None:
    joined = sep.join(texts)
    if joined.count(sep) != max(len(texts) - 1, 0):
        return None
    return joined.encode("utf-8", "surrogatepass")  # any text, as it is


def unpack_columns(packed: bytes) -> tuple[Any, list[list[str]]]:
    """What :func:`pack_columns` packed. Raises :class:`DamagedEntry`."""
    header, blobs = unpack_views(packed)  # each decoded from the entry, never copied first
    if not (isinstance(header, list) and header):
        raise DamagedEntry("columns of another shape")
    return header[0], texts_of(header[1:], blobs)


def texts_of(said: Any, blobs: Sequence[bytes | memoryview], *, sep: str = "\n") -> list[list[str]]:
    """The columns of texts :func:`text_columns` made (``said`` its plain data). Raises :class:`DamagedEntry`."""
    try:
        length, lists, counts = said  # any plain data: of another shape, a TypeError or ValueError
        # The first column, never in runs, holds as many texts as it says before a run is made that long.
        if type(length) is not int or counts[:1] not in ([], [None]):
            raise DamagedEntry("columns of another shape")
        columns: list[list[str]] = []
        for listed, blob, counted in zip(lists, blobs, counts, strict=True):
            columns.append(_column(listed, blob, counted, length=length, sep=sep))
            if type(columns[-1]) is not list or len(columns[-1]) != length:
                raise DamagedEntry("columns of another length")
    except (UnicodeDecodeError, TypeError, ValueError) as err:
        raise DamagedEntry(str(err)) from err
    return columns


def _column(listed: object, blob: bytes | memoryview, counts: object, *, length: int, sep: str) -> Any:
    """One column of :func:`texts_of`. Raises TypeError or ValueError for one of another shape."""
    if listed is not None and not (type(listed) is list and set(map(type, listed)) <= {str}):
        raise TypeError("a column of texts that are not texts")
    if counts is None:
        return listed if listed is not None else str(blob, "utf-8", "surrogatepass").split(sep) if length else []
    if not isinstance(counts, list):
        raise TypeError("counts of runs that are not a list")
    values = listed if listed is not None else str(blob, "utf-8", "surrogatepass").split(sep) if counts else []
    return list(repeated(values, counts, length=length))


def runs(column: Iterable[Any]) -> tuple[list[Any], list[int]]:
    """``column`` as runs of equal values: each run's value, and how many values each run holds."""
    found = [(value, len(list(run))) for value, run in groupby(column)]
    return [value for value, _ in found], [count for _, count in found]


def repeated(values: object, counts: list[Any], *, length: int) -> Iterator[Any]:
    """The ``length`` values of :func:`runs` (each value as many times as its count).

    Raises ValueError for counts that are not numbers of at least one, one per value, adding up to ``length``:
    neither more values than said nor a count that takes all the memory.
    """
    if not (isinstance(values, list) and len(values) == len(counts) and set(map(type, counts)) <= {int}):
        raise ValueError("runs of another type")
    if (counts and min(counts) < 1) or sum(counts) != length:  # each at most ``length``
        raise ValueError("runs of another length")
    return chain.from_iterable(map(repeat, values, counts))


_Row = TypeVar("_Row", bound=tuple[Any, ...])


def named_rows(kind: type[_Row], *columns: Iterable[Any]) -> Iterator[_Row]:
    """Each row of ``columns`` as a ``kind``, a named tuple, made in C (all columns of one length).

    A named tuple's own constructor is a Python function: a build restores tens of thousands of rows.
    """
    return map(partial(tuple.__new__, kind), zip(*columns, strict=True))


def private_folder(folder: Path) -> None:
    """Make ``folder`` and each missing folder above it the user's alone (mode 0700), whatever the umask.

    ``mkdir(mode=...)`` is masked by the umask, and makes the folders above with
    the umask alone: under umask 000 they would be anyone's to write.
    Raises :class:`OSError` when a folder cannot be made.
    """
    if folder.is_dir():
        return
    missing = [above for above in reversed(folder.parents) if not above.exists()]
    for made in [*missing, folder]:
        try:
            made.mkdir(mode=0o700)
        except FileExistsError:  # made meanwhile, or ``folder`` itself: left as it is
            continue
        made.chmod(0o700)


def refusal(folder: Path) -> str | None:
    """Why ``folder`` cannot hold a cache safely, or None: it is made, private (mode 0700), if missing."""
    try:
        private_folder(folder)
        info = folder.stat()
    except OSError as err:
        return f"it cannot be created ({err.strerror})"
    if not stat.S_ISDIR(info.st_mode):
        return "it is not a folder"
    if os.name != "posix":  # elsewhere a user's own folders are private by default
        return None
    if info.st_uid != os.geteuid():
        return "it belongs to another user"
    if info.st_mode & (stat.S_IWGRP | stat.S_IWOTH):
        return f"other users may write to it (chmod 700 {folder})"
    return None


#: The folder :func:`_private_scratch` made, until :func:`remove_scratch` removes it.
_SCRATCH: list[Path] = []


def _private_scratch() -> Path:
    """A folder only this process uses, for a build whose cache folder is refused; made once, removed at exit
    (see :func:`remove_scratch`)."""
    if not _SCRATCH:
        import tempfile  # loaded only for a folder of this kind, which is rare

        _SCRATCH.append(Path(tempfile.mkdtemp(prefix="ankibuild-cache-")))
        atexit.register(remove_scratch)
    return _SCRATCH[0]


def remove_scratch() -> None:
    """Remove the private folders this process made for its builds.

    The program ends without running what is registered to run at exit (see
    :func:`.commandline.end`): it calls this itself, or every build whose
    cache folder is refused would leave its work behind in the temporary folder.
    """
    import shutil

    while _SCRATCH:  # a build after this one makes a folder again
        shutil.rmtree(_SCRATCH.pop(), ignore_errors=True)


class Cache:
    """Entries for one bank folder, in a folder of their own."""

    def __init__(self, bank: Path) -> None:
        root = cache_root()
        name = digest(FORMAT, str(bank.resolve()))[:16]
        #: Why the cache folder is not used, or None when it is.
        self.refused = refusal(root) or refusal(root / name)
        self.folder = (_private_scratch() if self.refused else root) / name
        #: What the last build left for the next, one of each, replaced each time:
        #: the lock it wrote and its packages' collections (not entries by key).
        self.kept = self.folder / "kept"
        with contextlib.suppress(OSError):  # made here, private: a cache that cannot be written only costs time
            private_folder(self.kept)

    def warnings(self) -> list[str]:
        """What to tell the user about the cache folder: why it is refused, if it is."""
        if not self.refused:
            return []
        return [
            f"the cache folder {cache_root()} is not used: {self.refused}; this build keeps nothing for the next "
            "(give it a folder of your own with ANKIBUILD_CACHE_DIR)"
        ]

    def _path(self, key: str) -> Path:
        return self.folder / f"{key}.entry"

    def get(self, key: str) -> tuple[Any, list[bytes]] | None:
        """The plain data and byte strings stored under ``key``, or None."""
        packed = self.get_bytes(key)
        try:
            return None if packed is None else unpack(packed)
        except DamagedEntry:  # a damaged entry is only a miss
            return None

    def get_bytes(self, key: str) -> bytes | None:
        """What is stored under ``key``, packed, or None."""
        try:
            return read_kept(self._path(key))
        except (OSError, UnsafePathError):  # none, or no file: only a miss
            return None

    def put(self, key: str, packed: bytes) -> None:
        """Store a value :func:`pack` made."""
        with contextlib.suppress(OSError):  # a cache that cannot be written only costs time
            write_if_changed(self._path(key), packed, durable=False)

    def empty(self) -> bool:
        """Whether nothing is stored by key (a first build, an emptied cache): no entry is to be looked up."""
        with contextlib.suppress(OSError):
            return next(self.folder.glob("*.entry"), None) is None
        return True

    def keep_only(self, keys: Iterable[str]) -> None:
        """Forget entries the last build did not use, so the cache does not grow forever."""
        wanted = {f"{key}.entry" for key in keys}
        with contextlib.suppress(OSError):
            for entry in self.folder.glob("*.entry"):
                if entry.name not in wanted:
                    entry.unlink(missing_ok=True)
            # What a build killed while writing an entry left; a running one's is younger.
            for entry in self.folder.glob(".*.tmp"):
                if time.time() - entry.stat().st_mtime > STALE_SECONDS:
                    entry.unlink(missing_ok=True)
