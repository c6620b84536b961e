"""The lines of a file as YAML counts them, kept as places in its bytes: what they cost follows its bytes.

A question file may hold 512 MiB, which is 500 million empty lines or comments: an
object, or even eight bytes, for each line would cost many times the file. Only
where each block of :data:`BLOCK` bytes begins and how many line breaks come before
it are kept; the lines of one block are found again when one of them is asked for.
Which lines hold a ``#`` is kept as a bit each.
"""

from __future__ import annotations

import codecs
import re
from array import array
from bisect import bisect_left
from collections.abc import Sequence
from typing import overload

#: Bytes per block of the index of lines: the most a line asked for costs to find again.
BLOCK = 1 << 10
#: Bytes looked at in one go for the lines that hold a ``#``.
CHUNK = 1 << 20

#: Every line break YAML counts (the marks of its events count lines by these), in UTF-8.
_ANY_BREAK = re.compile(rb"\r\n|[\r\n]|\xc2\x85|\xe2\x80[\xa8\xa9]")
_NEWLINE = re.compile(rb"\n")
#: The breaks besides ``\n``: a file without them (nearly every one) is counted the fast way.
_OTHER_BREAKS = (b"\r", b"\xc2\x85", b"\xe2\x80\xa8", b"\xe2\x80\xa9")
_OTHER_TEXT_BREAKS = ("\r", "\x85", "\u2028", "\u2029")
_SEPARATORS = re.compile(b"\xe2\x80[\xa8\xa9]")  # found faster than either, which share a frequent start
#: Every byte but ``\n`` and ``#``: what is left of a chunk without them says which lines hold a ``#``.
_NOT_HASH_OR_BREAK = bytes(byte for byte in range(256) if byte not in b"\n#")
_CONTINUING = range(0x80, 0xC0)  # the bytes of a character in UTF-8 after its first


class Lines(Sequence[str]):
    """The lines of a file as YAML counts them, without their breaks, each decoded only when asked for.

    A list of them would cost about twice the file again (a large one's text is two bytes a
    letter as soon as one letter needs it), held while the file's values are built; and
    only texts that span lines or sit beside a ``#`` ever need their lines.
    """

    def __init__(self, raw: bytes, *, other_breaks: bool | None = None) -> None:
        """``raw``: valid UTF-8 (a BOM is skipped); ``other_breaks``: whether it holds a break besides ``\\n``,
        looked for in it unless said."""
        self._raw = raw
        self._first = len(codecs.BOM_UTF8) if raw.startswith(codecs.BOM_UTF8) else 0
        self._other = has_other_breaks(raw) if other_breaks is None else other_breaks
        self._break = _ANY_BREAK if self._other else _NEWLINE
        self._count = self._breaks(0, len(raw)) + 1
        self._index: tuple[array[int], array[int]] | None = None  # made when a line is first asked for
        self._block = -1  # the block whose lines were found last
        self._begins: list[int] = []  # where they begin
        self._last = (0, self._first)  # the line asked for last, and where it begins
        self._next = (0, self._first)  # the line after it, and where it begins

    @classmethod
    def of(cls, raw: bytes, text: str) -> Lines:
        """The lines of ``raw``, whose text is ``text``: a break is found faster in the text (a character
        beyond the largest it holds is not looked for)."""
        return cls(raw, other_breaks=any(other in text for other in _OTHER_TEXT_BREAKS))

    def _blocks(self) -> tuple[array[int], array[int]]:
        """Where each block begins, and how many breaks come before it (one more block: the end)."""
        if self._index is not None:
            return self._index
        starts, before = array("q", [0]), array("q", [0])
        size, at, count = len(self._raw), 0, 0
        while at < size:
            end = self._cut(at + BLOCK)
            count += self._breaks(at, end)
            starts.append(end)
            before.append(count)
            at = end
        self._index = starts, before
        return self._index

    def _cut(self, at: int) -> int:
        """The first place from ``at`` that cuts neither a character nor a ``\\r\\n`` in two."""
        raw, size = self._raw, len(self._raw)
        while self._other and at < size and (raw[at] in _CONTINUING or raw[at - 1 : at + 1] == b"\r\n"):
            at += 1
        return min(at, size)

    def _breaks(self, start: int, end: int) -> int:
        raw = self._raw
        found = raw.count(b"\n", start, end)
        if self._other:
            found += sum(raw.count(other, start, end) for other in _OTHER_BREAKS) - raw.count(b"\r\n", start, end)
        return found

    def __len__(self) -> int:
        return self._count

    @overload
    def __getitem__(self, index: int) -> str: ...

    @overload
    def __getitem__(self, index: slice) -> list[str]: ...

    def __getitem__(self, index: int | slice) -> str | list[str]:
        if isinstance(index, slice):
            return [self[at] for at in range(self._count)[index]]
        if index < 0:
            index += self._count
        if not 0 <= index < self._count:
            raise IndexError("line out of range")
        start = self._start(index)
        self._last = (index, start)
        found = self._break.search(self._raw, start)
        if found is None:
            return self._raw[start:].decode("utf-8")
        self._next = (index + 1, found.end())
        return self._raw[start : found.start()].decode("utf-8")

    def _start(self, index: int) -> int:
        """Where line ``index`` begins: after the break numbered ``index`` (from 1).

        The lines of a text are asked for one after the other, and those above a line
        YAML could not read one before the other: each is found from the one asked for last.
        """
        if index == self._next[0]:
            return self._next[1]
        last, start = self._last
        if index == last - 1 and not self._other:
            return max(self._raw.rfind(b"\n", 0, start - 1) + 1, self._first)
        if index == 0:
            return self._first
        starts, before = self._blocks()
        block = bisect_left(before, index) - 1
        if block != self._block:
            found = self._break.finditer(self._raw, starts[block], starts[block + 1])
            self._block, self._begins = block, [each.end() for each in found]
        return self._begins[index - before[block] - 1]

    def commented(self) -> bytes:
        """The lines with a ``#`` in them, found in the bytes (a ``#`` is one byte in UTF-8): line ``n``
        (from 0) holds one when bit ``n % 8`` of byte ``n // 8`` is set.

        A chunk at a time, without a step per line: what is left of it without its other
        bytes, each run of ``#`` made one, is a ``\\n`` per line without one and ``#\\n`` per line with one.
        """
        raw, size = self._raw, len(self._raw)
        if b"#" not in raw:
            return bytes(-(-self._count // 8))
        bits, flags, carry, at = bytearray(), b"", b"", 0  # flags: '1' or '0' per line not yet made a bit
        while at < size:
            end = self._cut(at + CHUNK)
            if not carry and raw.find(b"#", at, end) == -1:
                flags += b"0" * self._breaks(at, end)
            else:
                marks = _one_hash_a_run(carry + self._newlines(raw[at:end]).translate(None, _NOT_HASH_OR_BREAK))
                last = marks.rfind(b"\n") + 1
                carry = marks[last:]  # the line the chunk ends in, which the next one goes on with
                flags += marks[:last].replace(b"#\n", b"1").replace(b"\n", b"0")
            whole = len(flags) - len(flags) % 8
            bits += _packed(flags[:whole])
            flags, at = flags[whole:], end
        flags += b"1" if carry else b"0"  # the last line, which no break ends
        bits += _packed(flags.ljust(-(-len(flags) // 8) * 8, b"0"))
        return bytes(bits)

    def _newlines(self, chunk: bytes) -> bytes:
        """``chunk`` with each of its breaks written ``\\n``."""
        if self._other:  # not by the pattern, which would make an object per break
            for other in (b"\r\n", *_OTHER_BREAKS):
                chunk = chunk.replace(other, b"\n")
        return chunk


def has_other_breaks(raw: bytes) -> bool:
    """Whether ``raw`` holds a break besides ``\\n`` (searching for one byte is the fastest search)."""
    return b"\r" in raw or (b"\x85" in raw and b"\xc2\x85" in raw) or _SEPARATORS.search(raw) is not None


def _one_hash_a_run(marks: bytes) -> bytes:
    """``marks`` with each run of ``#`` made one: each pass halves the longest run, without a step per run."""
    while b"##" in marks:
        marks = marks.replace(b"##", b"#")
    return marks


def _packed(flags: bytes) -> bytes:
    """Eight ``0``/``1`` flags a byte, the first one the lowest bit of the first byte."""
    return int(flags[::-1], 2).to_bytes(len(flags) // 8, "little") if flags else b""
