"""Where each question of a file begins in its bytes, and a digest of the bytes of each.

After an edit, a question whose bytes, and the file's bytes before its first
question, are as they were the last time is the same question, at the same
place: what it gave then is what it gives now (see :class:`.earlier.Earlier`).
That holds only where a question's value is made of its own bytes alone: in a
block list (each item on lines of its own, after ``- ``), without an alias (``*``)
to a value written elsewhere, in a file whose lines are those YAML counts.
Anything else gives no digests, and every question is processed again.
"""

from __future__ import annotations

import hashlib
import re
from array import array
from collections.abc import Iterable

from ..yamlfiles.lines import has_other_breaks

#: The bytes of a question's digest: its bytes are compared with the same file's, edited.
SIZE = 16
#: What comes before a question on its line in a block list.
_ENTRY = re.compile(rb" *- +")
#: Bytes counted at first when looking for a line, at the least: the last question's length, unless fewer.
_STEP = 1 << 6


class Spans:
    """The beginnings of a file's questions, found one after the other; their digests once all are found."""

    def __init__(self, raw: bytes) -> None:
        self._raw = raw
        self._ok = not has_other_breaks(raw)  # YAML counts lines by them too, and they are not found by ``\n``
        self._at, self._line = 0, 1  # where the last line found begins, and its number (from 1)
        self._entry = b""  # a line break and what begins each question's line, once the first is found
        self._prefix: bytes | None = None  # what came before the last question on its line
        self.starts = array("q")  # eight bytes a question: a file may hold a million broken ones

    def begin(self, line: int, column: int) -> bool:
        """Find the question at ``line`` and ``column`` (from 1): whether it is one (see :attr:`ok`)."""
        if self._ok:
            start = self._find(line)
            prefix = self._raw[start : start + column - 1] if start >= 0 else b""
            # Most questions begin as the one before did: that is a block list's item, looked at once.
            self._ok = start >= 0 and (prefix == self._prefix or _ENTRY.fullmatch(prefix) is not None)
            if self._ok:
                self._entry = self._entry or b"\n" + prefix[: prefix.index(b"-") + 1]
                self._at, self._line, self._prefix = start, line, prefix
                self.starts.append(start)
        return self._ok

    def _find(self, line: int) -> int:
        """Where ``line`` begins, found from the last line found; -1 for a line not after it."""
        if line <= self._line and self.starts:
            return -1
        breaks = line - self._line
        if self._entry:  # most often the next question's line is the next line that begins as a question's
            found = self._raw.find(self._entry, self._at)
            if found >= 0 and self._raw.count(b"\n", self._at, found + 1) == breaks:
                return found + 1
        last = self._at - self.starts[-2] if len(self.starts) > 1 else 0  # the next is often as long
        return _after_breaks(self._raw, self._at, breaks, step=max(last, _STEP))

    def digest(self, index: int) -> bytes | None:
        """The digest of question ``index``'s bytes, up to where the next one begins (all found by then), or
        to the end; None for bytes holding an alias, whose value is written elsewhere."""
        end = self.starts[index + 1] if index + 1 < len(self.starts) else len(self._raw)
        return _digest(self._raw, self.starts[index], end)

    def head(self) -> bytes:
        """The digest of the file's bytes before its first question (found by then)."""
        return hashlib.sha256(memoryview(self._raw)[: self.starts[0]]).digest()[:SIZE]


def _digest(raw: bytes, start: int, end: int) -> bytes | None:
    if raw.find(b"*", start, end) >= 0:
        return None
    return hashlib.sha256(memoryview(raw)[start:end]).digest()[:SIZE]


def _after_breaks(raw: bytes, at: int, breaks: int, *, step: int) -> int:
    """Where the line begins ``breaks`` line breaks after ``at``, or -1 past the end.

    Counted a window at a time, growing, and the window holding it halved: a step per
    window, never one per line, whatever the lines of a file written to stall it.
    """
    if breaks == 0:
        return at
    end = len(raw)
    while True:
        stop = min(at + step, end)
        found = raw.count(b"\n", at, stop)
        if found >= breaks:
            break
        if stop == end:
            return -1
        at, breaks, step = stop, breaks - found, step * 2
    low, high = at, stop  # the break sought is at low or after it, and before high
    while high - low > 1:
        middle = (low + high) // 2
        before = raw.count(b"\n", low, middle)
        if before >= breaks:
            high = middle
        else:
            low, breaks = middle, breaks - before
    return low + 1


def digests(raw: bytes, items: Iterable[tuple[int, int]], questions: Iterable[tuple[str, int, int]]) -> bytes:
    """The head's digest, then each of ``questions``'s (id, line, column) in its order, of the bytes up to the
    next of ``items`` (where each question read began, valid or not, in order): nothing when one cannot be told."""
    spans = Spans(raw)
    if not all(spans.begin(line, column) for line, column in items) or not spans.starts:
        return b""
    found, read = [spans.head()], enumerate(items)
    for _, line, column in questions:  # a question's place is among those of the items, in the same order
        at = next((at for at, where in read if where == (line, column)), None)
        if at is None:
            return b""
        found.append(spans.digest(at) or bytes(SIZE))
    return b"".join(found)
