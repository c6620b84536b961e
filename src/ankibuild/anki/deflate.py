"""A zip entry deflated in pieces on two threads, each piece deflated once across builds.

A package made after one edit is mostly the deflating of one collection, which
one core did alone: here the stream is cut into pieces, each deflated on its own
and joined into one valid deflate stream whose bytes depend only on the input.
"""

from __future__ import annotations

import hashlib
import io
import itertools
import os
import zipfile
import zlib
from collections import deque
from collections.abc import Iterator, Mapping, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import NamedTuple, Protocol

from ..digests import status

#: Deflate's fastest level: a collection of 10,000 notes deflates in a quarter of the
#: default level's time to a file about 18 % larger (3.7 MB instead of 3.2 MB).
COMPRESS_LEVEL = 1
#: Deflate works on a stream in pieces this large, each primed with the window before it.
PIECE = 1 << 20
WINDOW = 1 << 15


def _digest(primer: bytes | memoryview, piece: bytes | memoryview, last: bool) -> bytes:
    """What identifies a piece, deflated: its bytes, the window before it, and how deflate ran."""
    key = hashlib.sha256(f"{zlib.ZLIB_RUNTIME_VERSION}/{COMPRESS_LEVEL}/{last}".encode())
    key.update(primer)
    key.update(piece)
    return key.digest()


def digests(content: bytes) -> list[bytes]:
    """The digests of a file's pieces, as :class:`Deflate` cuts them, from the file's ``content``."""
    view, full = memoryview(content), len(content) // PIECE
    found = [
        _digest(_primer(view, index), view[index * PIECE : (index + 1) * PIECE], last=False) for index in range(full)
    ]
    return [*found, _digest(_primer(view, full), view[full * PIECE :], last=True)]


def _primer(view: memoryview, index: int) -> memoryview:
    """The window before the piece at ``index`` of a stream, which deflate is primed with: none before the first."""
    start = index * PIECE
    return view[start - WINDOW if index else 0 : start]


class Content(Protocol):
    """A file's content, as :class:`Checked` compares it: bytes read, or the file itself (see :class:`Opened`)."""

    def __len__(self) -> int: ...

    def startswith(self, prefix: bytes | memoryview, start: int, /) -> bool: ...


class Opened:
    """The content of a file left open, a part read again only when compared, into one buffer.

    For a file whose status proves that nothing wrote it since its pieces were digested (see
    :meth:`.kept.Record.holds`): read whole, a collection of 15 MB cost 3,700 page faults, and 13 ms
    to digest again.
    """

    def __init__(self, file: io.BufferedReader, info: os.stat_result) -> None:
        self._file, self._info = file, info
        self._buffer = bytearray()

    def __len__(self) -> int:
        return self._info.st_size

    def unchanged(self) -> bool:
        """Whether the file still has the status it was opened with: nothing changed it since."""
        return status(os.fstat(self._file.fileno())) == status(self._info)

    def startswith(self, prefix: bytes | memoryview, start: int, /) -> bool:
        """Whether the file holds ``prefix`` at ``start``."""
        if len(self._buffer) < len(prefix):
            self._buffer = bytearray(len(prefix))
        view = memoryview(self._buffer)[: len(prefix)]
        self._file.seek(start)
        read = 0
        while read < len(view) and (size := self._file.readinto(view[read:])):
            read += size
        return read == len(view) and self._buffer.startswith(prefix)


class Checked(NamedTuple):
    """A file, whose pieces have the digests ``order`` (see :func:`digests`): those of its ``content``."""

    content: Content
    order: Sequence[bytes]

    def digest(self, index: int, primer: bytes, piece: memoryview | bytes) -> bytes | None:
        """The digest of a stream's piece at ``index`` primed with ``primer``, but its last, when its bytes and the
        window before them are those there in ``content``; else None.

        After an edit, a collection's pieces are mostly the bytes it had before: comparing them
        is some ten times quicker than digesting them again.
        """
        start = index * PIECE
        if len(piece) != PIECE or len(self.content) < start + PIECE or len(primer) != (WINDOW if index else 0):
            return None
        same = self.content.startswith(primer, start - len(primer)) and self.content.startswith(piece, start)
        return self.order[index] if same else None

    def opened(self) -> bool:
        """Whether ``content`` is the file itself, left open (see :class:`Opened`), not bytes read."""
        return isinstance(self.content, Opened)

    def unchanged(self) -> bool:
        """Whether ``content`` is still what the file holds: bytes read always are."""
        return not isinstance(self.content, Opened) or self.content.unchanged()


def _pieces(file: io.BufferedReader, *, buffers: int) -> Iterator[memoryview]:
    """The file's content a piece at a time, read into ``buffers`` buffers in turn: a piece's buffer is
    read into again that many pieces later.

    A new buffer for each piece was a block of its own from the system, each of its pages faulted in anew:
    reading a collection of 15 MB took 9-12 ms of processor time and 3,700 page faults, into one buffer 2.5 ms.
    """
    ring = [memoryview(bytearray(PIECE)) for _ in range(buffers)]
    for buffer in itertools.cycle(ring):
        size = file.readinto(buffer)
        if not size:
            return
        yield buffer[:size]


class Deflate:
    """Raw deflate of a stream in pieces on a pool of threads, joined into one deflate stream.

    Each piece is deflated on its own, primed with the 32 KiB before it and ended
    on a byte boundary (a sync flush), so the pieces join into one valid stream
    whose bytes depend only on the input. It stands in for the compressor of a
    zip entry.

    A piece deflated by the package's last build (``known``, by digest) is not
    deflated again: after an edit, most pages of a collection are as they were.
    A piece the same as in the collection that build made (``checked``) is not
    digested again either.
    """

    #: Pieces being deflated at once, at most: bounds the uncompressed ones held.
    AHEAD = 4

    def __init__(
        self, pool: ThreadPoolExecutor, known: Mapping[bytes, bytes | memoryview], checked: Checked | None = None
    ) -> None:
        self._pool, self._known, self._checked = pool, known, checked
        self._started = 0
        self._buffer = b""
        self._primer = b""
        self._running: deque[Future[tuple[bytes, bytes | memoryview]]] = deque()
        #: The stream's pieces, deflated, by digest, and their digests in order: kept for the next build.
        self.pieces: dict[bytes, bytes | memoryview] = {}
        self.order: list[bytes] = []

    def compress(self, data: bytes | memoryview) -> bytes:
        if not self._buffer and len(data) == PIECE:  # a whole piece, as read: deflated as it is
            self._start(data, last=False)
            return self._done(self.AHEAD)
        self._buffer += data
        while len(self._buffer) >= PIECE:
            piece, self._buffer = self._buffer[:PIECE], self._buffer[PIECE:]
            self._start(piece, last=False)
        return self._done(self.AHEAD)

    def flush(self) -> bytes:
        self._start(self._buffer, last=True)
        self._buffer = b""
        return self._done(0)

    def _done(self, running: int) -> bytes:
        """The pieces deflated, in order, until no more than ``running`` are being deflated."""
        done = []
        while len(self._running) > running:
            done.append(self._finish())
        return b"".join(done)

    def _start(self, piece: bytes | memoryview, last: bool) -> None:
        digest = self._checked.digest(self._started, self._primer, piece) if self._checked and not last else None
        self._running.append(self._pool.submit(_deflated, piece, self._primer, last, known=self._known, digest=digest))
        self._primer = bytes(piece[-WINDOW:])  # the piece's buffer is read into again
        self._started += 1

    def _finish(self) -> bytes | memoryview:
        digest, deflated = self._running.popleft().result()
        self.order.append(digest)
        self.pieces[digest] = deflated
        return deflated


def _deflated(
    piece: bytes | memoryview,
    primer: bytes,
    last: bool,
    *,
    known: Mapping[bytes, bytes | memoryview],
    digest: bytes | None = None,
) -> tuple[bytes, bytes | memoryview]:
    """A piece's digest (``digest``, when it is known) and the piece deflated: as known, if it is.

    On the pool: the pieces are digested two at once.
    """
    digest = digest or _digest(primer, piece, last)
    if digest in known:
        return digest, known[digest]
    deflate = zlib.compressobj(COMPRESS_LEVEL, zlib.DEFLATED, -zlib.MAX_WBITS, zdict=primer)
    return digest, deflate.compress(piece) + deflate.flush(zlib.Z_FINISH if last else zlib.Z_SYNC_FLUSH)


def write_deflated(
    archive: zipfile.ZipFile,
    entry: zipfile.ZipInfo,
    collection: Path,
    *,
    known: Mapping[bytes, bytes | memoryview],
    checked: Checked | None = None,
) -> Deflate:
    """Write the file ``collection`` into ``archive`` as ``entry``, deflated by a :class:`Deflate`.

    Returns it, for its pieces to be kept; ``known`` are the pieces kept by the last build, ``checked``
    the collection it made.
    """
    with (
        ThreadPoolExecutor(min(2, os.cpu_count() or 1)) as pool,
        collection.open("rb") as data,
        archive.open(entry, "w") as stream,
    ):
        deflate = Deflate(pool, known, checked)
        stream._compressor = deflate  # type: ignore[attr-defined]  # zipfile has no public way
        # A buffer is read into again once the piece in it is deflated: no more than AHEAD are deflated at once.
        for piece in _pieces(data, buffers=Deflate.AHEAD + 1):
            stream.write(piece)
    return deflate
