"""Add to a hand-written YAML file without changing a byte of what is there.

The file is never dumped again: comments, quoting, blank lines and key order
survive because new lines are only inserted, at the end of a block collection,
where the parsed document's marks (see :mod:`ankibuild.loader`) say it ends.
New content is written in the bank's own style: block mappings and lists
indented by two, long texts as ``>-`` blocks.
"""

from __future__ import annotations

import codecs
import contextlib
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeAlias

import yaml

from ..errors import AnkibuildError, BankError, Problems
from .reader import Map, Seq, decode, load

#: Indentation of new nested content.
STEP = 2
#: YAML's line breaks (the loader counts lines with them, so must we).
_LINE = re.compile(r"[^\r\n\x85\u2028\u2029]*(?:\r\n|[\r\n\x85\u2028\u2029])|[^\r\n\x85\u2028\u2029]+\Z")
_BREAKS = "\r\n\x85\u2028\u2029"
_DOCUMENT_END = re.compile(r"^(?:---|\.\.\.)(?:\s|$)")
#: ``key: []`` or ``key: {}``, maybe with a comment: an empty collection we may open up.
_EMPTY_FLOW = re.compile(r"^(?P<head>.*?:)\s*(?:\[\s*\]|\{\s*\})\s*(?P<comment>#.*)?$")


@dataclass(frozen=True)
class Block:
    """A text written as a ``>-`` block (``|-`` when it has line breaks) below its key."""

    text: str


@dataclass(frozen=True)
class Flow:
    """A short list of slugs written on one line: ``[a, b]``."""

    items: tuple[str, ...]


@dataclass(frozen=True)
class Noted:
    """A text followed by a comment for the reader: ``en: Name  # translate``."""

    text: str
    note: str


Value: TypeAlias = str | bool | Block | Flow | Noted | Sequence[str | Block] | Mapping[str, "Value"]


def scalar(text: str) -> str:
    """``text`` as a one-line YAML scalar: plain where YAML reads it back unchanged, else quoted."""
    for style in (None, '"'):
        dumped = yaml.safe_dump({"k": text}, allow_unicode=True, width=1 << 30, default_style=style)
        value = dumped.split(": ", 1)[1].removesuffix("\n")  # after "k: " or '"k": '
        if not any(ch in _BREAKS for ch in value):
            break
    return value


def mapping_lines(data: Mapping[str, Value], indent: int) -> list[str]:
    """A block mapping whose keys start at column ``indent``."""
    pad = " " * indent
    lines: list[str] = []
    for key, value in data.items():
        head = f"{pad}{scalar(key)}:"
        if isinstance(value, str):
            lines.append(f"{head} {scalar(value)}")
        elif isinstance(value, bool):
            lines.append(f"{head} {'true' if value else 'false'}")
        elif isinstance(value, Noted):
            lines.append(f"{head} {scalar(value.text)}  # {value.note}")
        elif isinstance(value, Flow):
            lines.append(f"{head} [{', '.join(scalar(item) for item in value.items)}]")
        elif isinstance(value, Block):
            lines.extend(_block(head, key, value.text, indent=indent + STEP))
        elif isinstance(value, Mapping):
            lines.extend([head, *mapping_lines(value, indent + STEP)])
        else:
            lines.extend([head, *(line for item in value for line in _list_item(item, indent + STEP))])
    return lines


def item_lines(data: Mapping[str, Value], dash: int) -> list[str]:
    """A mapping as a list item: ``- key: value`` with the dash at column ``dash``."""
    first, *rest = mapping_lines(data, dash + STEP)
    return [f"{' ' * dash}- {first[dash + STEP :]}", *rest]


def _block(head: str, key: str, text: str, *, indent: int) -> list[str]:
    """``key: >-`` and the text below it (``|-`` for several lines), or quoted where a block cannot hold it."""
    style = "|-" if "\n" in text else ">-"
    written = [f"{head} {style}", *(f"{' ' * indent}{line}" if line else "" for line in text.split("\n"))]
    # Blocks cannot hold every text (other line breaks, leading spaces): such text is quoted instead.
    with contextlib.suppress(yaml.YAMLError):
        if yaml.safe_load("\n".join([f"{key}: {style}", *written[1:]])) == {key: text}:
            return written
    return [f"{head} {scalar(text)}"]


def _list_item(item: str | Block, dash: int) -> list[str]:
    """One item of a block list: ``- text``, or a ``|-`` block below its dash (code in an option)."""
    if isinstance(item, str):
        return [f"{' ' * dash}- {scalar(item)}"]
    style = "|-" if "\n" in item.text else ">-"
    pad = " " * (dash + STEP)
    written = [f"{' ' * dash}- {style}", *(f"{pad}{line}" if line else "" for line in item.text.split("\n"))]
    with contextlib.suppress(yaml.YAMLError):
        if yaml.safe_load("\n".join(written)) == [item.text]:
            return written
    return [f"{' ' * dash}- {scalar(item.text)}"]


def split_lines(text: str) -> list[str]:
    """Lines with their line breaks, as YAML counts them."""
    return _LINE.findall(text)


def indent_of(line: str) -> int:
    return len(line) - len(line.lstrip(" "))


#: A key of a mapping or an index of a list, from the document's root.
Key: TypeAlias = str | int
Link: TypeAlias = tuple[Map | Seq, Key]


class Document:
    """A parsed YAML file's lines, collecting insertions and applying them all at once."""

    def __init__(self, text: str, root: Map, name: str, *, bom: bool = False) -> None:
        self.lines = split_lines(text)
        self.root = root
        self.name = name
        self.bom = bom
        self.edits: list[tuple[int, int, list[str]]] = []  # (at, lines replaced, new lines)

    def append(self, path: Sequence[Key], make: Callable[[int], list[str]]) -> None:
        """Add entries at the end of the collection at ``path``; ``make(indent)`` writes them.

        An empty ``path`` adds top-level keys at the end of the document. A key
        with no value, or with ``[]`` or ``{}``, is opened up into a block.
        """
        if not path:
            self.edits.append((self._back_off(self._document_end(), -1, 0), 0, make(0)))
            return
        chain = self._chain(path)
        line = _mark(*chain[-1])[0] - 1
        value = _get(*chain[-1])
        if value is None:
            self.edits.append((self._end(chain), 0, make(indent_of(self.lines[line]) + STEP)))
        elif isinstance(value, (Map, Seq)) and value and not self._flow(value):
            self.edits.append((self._end(chain), 0, make(self._entry_indent(value))))
        else:
            self._open(line, make(indent_of(self.lines[line]) + STEP))

    def append_items(self, path: Sequence[Key], texts: Sequence[str]) -> None:
        """Add ``texts`` at the end of the list at ``path``, a block list or one written ``[a, b]``."""
        value = _get(*self._chain(path)[-1])
        if not (isinstance(value, Seq) and value and self._flow(value)):
            self.append(path, lambda indent: [f"{' ' * indent}- {scalar(text)}" for text in texts])
            return
        line, column = value.marks[-1]
        for index in range(line - 1, len(self.lines)):
            start = column - 1 if index == line - 1 else 0
            content = self.lines[index].rstrip(_BREAKS)
            close = content.find("]", start)
            if close >= 0 and "#" not in content[start:close]:
                before = content[:close].rstrip()
                new = before + "".join(f", {scalar(text)}" for text in texts) + content[len(before) :]
                self.edits.append((index, 1, [new]))
                return
        raise AnkibuildError(f"{self.name}:{line}: the list is not closed with ']'")

    def replace(self, path: Sequence[Key], make: Callable[[int], list[str]]) -> None:
        """Write the entry at ``path`` (a key with its value, or a list item) anew: ``make(indent)`` writes it.

        Only that entry's lines change; the comments and blank lines after it stay with what follows.
        """
        chain = self._chain(path)
        line, column = _mark(*chain[-1])
        first = self.lines[line - 1]
        dash = isinstance(chain[-1][0], Seq) and first[: column - 1].rstrip().endswith("-")
        start = first[: column - 1].rstrip()[:-1] if dash else first[: column - 1]
        if start.strip():
            raise AnkibuildError(
                f"{self.name}:{line}: a value written on one line with others cannot be changed; "
                "write it as a block, one entry per line"
            )
        self.edits.append((line - 1, self._end(chain) - line + 1, make(len(start))))

    def spaced(self, path: Sequence[Key]) -> bool:
        """True when most items of the list at ``path`` are set apart by a blank line above them."""
        value = _get(*self._chain(path)[-1])
        if not isinstance(value, Seq) or len(value) < 2:
            return False
        apart = [self._blank_above(line - 1) for line, _ in value.marks[1:]]
        return sum(apart) * 2 > len(apart)

    def _blank_above(self, line: int) -> bool:
        """Whether an empty line precedes line index ``line`` and the comments just above it."""
        above = line - 1
        while above >= 0 and self.lines[above].lstrip().startswith("#"):
            above -= 1
        return above >= 0 and not self.lines[above].strip()

    def _open(self, line: int, new: list[str]) -> None:
        """``key: []`` or ``key: {}`` becomes ``key:`` with the new entries below it."""
        empty = _EMPTY_FLOW.match(self.lines[line].rstrip(_BREAKS))
        if empty is None:
            raise AnkibuildError(
                f"{self.name}:{line + 1}: entries cannot be added to a value written on one line; "
                "write it as a block, one entry per line"
            )
        comment = f"  {empty['comment']}" if empty["comment"] else ""
        self.edits.append((line, 1, [empty["head"] + comment, *new]))

    def _chain(self, path: Sequence[Key]) -> list[Link]:
        chain: list[Link] = []
        node: Map | Seq = self.root
        for key in path:
            chain.append((node, key))
            node = _get(node, key)
        return chain

    def _flow(self, value: Map | Seq) -> bool:
        return self.lines[value.line - 1][value.column - 1 : value.column] in ("[", "{")

    def _entry_indent(self, value: Map | Seq) -> int:
        if isinstance(value, Map):
            return next(iter(value.marks.values()))[1] - 1
        return indent_of(self.lines[value.marks[0][0] - 1])  # the dash of the first item

    def _end(self, chain: list[Link]) -> int:
        """The line index after the last line of the innermost value in ``chain``."""
        start = _mark(*chain[-1])[0] - 1
        following = next((line for link in reversed(chain) if (line := _next_line(*link)) is not None), None)
        end = self._document_end() if following is None else following
        return self._back_off(end, start, indent_of(self.lines[start]))

    def _back_off(self, end: int, start: int, floor: int) -> int:
        """Leave blank lines, and comments not indented deeper than ``floor``, to what follows."""
        while end > start + 1:
            line = self.lines[end - 1]
            if line.strip() and not (line.lstrip().startswith("#") and indent_of(line) <= floor):
                break
            end -= 1
        return end

    def _document_end(self) -> int:
        start = self.root.line - 1
        return next((i for i in range(start, len(self.lines)) if _DOCUMENT_END.match(self.lines[i])), len(self.lines))

    def text(self) -> str:
        """The file with every insertion made, in the file's own line breaks."""
        breaks = (line[len(line.rstrip(_BREAKS)) :] for line in self.lines)
        newline = next((b for b in breaks if b), "\n")
        lines = list(self.lines)
        if any(at == len(lines) for at, _, _ in self.edits) and lines and not lines[-1].endswith(tuple(_BREAKS)):
            lines[-1] += newline
        # From the last edit up, so earlier indexes stay right; at one index, in the order added.
        for _, (at, replaced, new) in sorted(enumerate(self.edits), key=lambda e: (e[1][0], e[0]), reverse=True):
            lines[at : at + replaced] = [line + newline for line in new]
        return "".join(lines)

    def content(self) -> bytes:
        """:meth:`text` as the file's bytes, with the byte-order mark it had."""
        return (codecs.BOM_UTF8 if self.bom else b"") + self.text().encode("utf-8")


def open_document(path: Path, root: Path) -> Document:
    """A YAML file of the bank ``root`` to add to or change; raises :class:`BankError` unless it reads as a mapping."""
    problems = Problems()
    source = load(path, problems, (root,))
    text = decode(path, source.raw, problems) if source.parsed else None
    if text is None or not isinstance(source.data, Map):
        problems.add(path, "cannot be changed: it is not a readable YAML mapping", hint="run 'ankibuild check'")
        raise BankError(problems.items)
    return Document(text, source.data, problems.name(path), bom=source.raw.startswith(codecs.BOM_UTF8))


def _get(container: Map | Seq, key: Key) -> Any:
    if isinstance(container, Seq):
        return container[int(key)]
    return container[str(key)]


def _mark(container: Map | Seq, key: Key) -> tuple[int, int]:
    if isinstance(container, Seq) and isinstance(key, int):
        return container.marks[key]
    assert isinstance(container, Map)
    return container.marks[str(key)]


def _next_line(container: Map | Seq, key: Key) -> int | None:
    """The line index where the entry after ``key`` starts, if there is one."""
    if isinstance(container, Seq):
        assert isinstance(key, int)
        return container.marks[key + 1][0] - 1 if key + 1 < len(container) else None
    keys = list(container.marks)
    position = keys.index(str(key)) + 1
    return container.marks[keys[position]][0] - 1 if position < len(keys) else None
