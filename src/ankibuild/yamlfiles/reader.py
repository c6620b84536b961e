"""Load stage: find the bank's files and read them safely, keeping where every key was written.

libyaml parses when PyYAML has it (about ten times faster than pure Python).
The values are then built straight from the parser's events, in one loop
without recursion, so that, before anything else is built, it can refuse what
a question bank never needs and a hostile file would use: YAML tags, alias
expansion bombs, absurd nesting. Only text, lists, mappings, ``true``/``false``
and empty values come out, and every mapping remembers the line of each key; a
key written twice is caught instead of silently merged.

Scalars follow YAML 1.2: ``yes``, ``no``, ``on``, ``off``, ``1.50`` and
``2024-01-01`` stay text exactly as written (options such as "Yes" and "No",
or "0.10", must not turn into booleans or ``0.1``).
"""

from __future__ import annotations

import bisect
import io
import sys
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any, NoReturn, TypeVar

import yaml

from .. import paths
from ..collector import paused
from ..errors import Problems, Severity
from ..paths import UnsafePathError, read_inside, real_place, size_inside, size_of, within
from .conflicts import report_conflict
from .lines import Lines
from .words import Explained, cut_by_comment, explain, item_key, joined_items, missing_dash


class PythonParser(yaml.reader.Reader, yaml.scanner.Scanner, yaml.parser.Parser):
    """PyYAML's own parser, for a PyYAML built without libyaml, made to read a bank as libyaml reads it.

    Where they differ, a method is PyYAML's with the characters it looks at shown as libyaml takes them
    (see :meth:`_peeking`), which leaves the text read as it is.
    """

    def __init__(self, raw: bytes) -> None:
        # Read as a stream, a part decoded at a time: given the bytes, it would hold them decoded whole.
        yaml.reader.Reader.__init__(self, io.BytesIO(raw))
        yaml.scanner.Scanner.__init__(self)
        yaml.parser.Parser.__init__(self)

    def scan_flow_scalar_non_spaces(self, double: bool, start_mark: yaml.Mark) -> list[str]:
        """As PyYAML scans it, but an escape of no character (``\\U00110000``) is refused as libyaml refuses it,
        where PyYAML stops on a ValueError. Half of a surrogate pair (``\\ud800``), which libyaml refuses too,
        is let through: the checker names it (see :data:`.checker.CONTROL`)."""
        try:
            chunks: list[str] = super().scan_flow_scalar_non_spaces(double, start_mark)
        except ValueError:  # from chr(), the digits of the escape still ahead: where libyaml says it is
            problem = "found invalid Unicode character escape code"
            raise yaml.scanner.ScannerError(
                "while parsing a quoted scalar", start_mark, problem, self.get_mark()
            ) from None
        return chunks

    def scan_plain(self) -> yaml.ScalarToken:
        """As PyYAML scans unquoted text, but with libyaml's characters: a tab is a space there, outside the
        indentation (PyYAML's own ends the text at it), and a ``?`` inside ``[...]`` or ``{...}`` is text
        (``{question: Why?, answer: B}``), where PyYAML's own ends the text, then finds no key."""
        with self._peeking(self._peek_in_text):
            return super().scan_plain()

    def _peek_in_text(self, index: int = 0) -> str:
        found: str = yaml.reader.Reader.peek(self, index)
        if found == "\t":  # but in the indentation of the text's next line, where libyaml refuses it too
            return " " if self.flow_level or self.column + index > self.indent else found
        return "." if found == "?" and self.flow_level else found

    def scan_to_next_token(self) -> None:
        """As PyYAML skips what is between tokens, and tabs as libyaml skips them: wherever they cannot be
        indentation (inside ``[...]`` or ``{...}``, or after a key's ``:``), as after ``question: Why?`` pasted
        with a tab at its end. PyYAML's own skips only spaces, and stops at such a tab."""
        with self._peeking(self._peek_between_tokens):
            super().scan_to_next_token()

    def scan_block_scalar_indicators(self, start_mark: yaml.Mark) -> tuple[bool | None, int | None]:
        """As PyYAML reads what follows a ``|`` or ``>``, a tab there read as libyaml reads it: a space."""
        with self._peeking(self._peek_tab_as_space):
            return super().scan_block_scalar_indicators(start_mark)

    def scan_block_scalar_ignored_line(self, start_mark: yaml.Mark) -> None:
        """As PyYAML reads the rest of the line of a ``|`` or ``>``, a tab there a space (``explanation: >-``
        pasted with a tab at its end)."""
        with self._peeking(self._peek_tab_as_space):
            super().scan_block_scalar_ignored_line(start_mark)

    def _peek_tab_as_space(self, index: int = 0) -> str:
        found: str = yaml.reader.Reader.peek(self, index)
        return " " if found == "\t" else found

    def _peek_between_tokens(self, index: int = 0) -> str:
        found: str = yaml.reader.Reader.peek(self, index)
        return " " if found == "\t" and (self.flow_level or not self.allow_simple_key) else found

    @contextmanager
    def _peeking(self, peek: Callable[[int], str]) -> Iterator[None]:
        """``peek`` in place of PyYAML's while the block runs: set on the instance, it hides the method."""
        self.peek = peek  # type: ignore[method-assign,assignment]
        try:
            yield
        finally:
            del self.peek

    def dispose(self) -> None:
        """Nothing to free: only libyaml's parser holds memory outside Python."""


def _libyaml() -> Callable[[bytes], Any] | None:
    try:
        from yaml._yaml import CParser
    except ImportError:  # PyYAML built without libyaml
        return None
    return CParser


#: libyaml's parser, where PyYAML has it: many times quicker than PyYAML's own.
LIBYAML = _libyaml()
#: What every file is read with.
PARSER: Callable[[bytes], Any] = LIBYAML or PythonParser


T = TypeVar("T")

#: A bank needs six levels (file, questions, question, language, options, text).
MAX_DEPTH = 64
#: Aliases (``*name``) may repeat as many values as the file writes out, plus this;
#: a "billion laughs" document repeats billions from a few lines.
ALIAS_ALLOWANCE = 100_000
#: A value counts once more for each this many characters written in it: a short file that repeats a long text
#: thousands of times holds few values, but each copy is checked and rendered again.
CHARACTERS_PER_VALUE = 64

BANK_FILE = "bank.yaml"
YAML_SUFFIXES = (".yaml", ".yml")

_CORE = "tag:yaml.org,2002:"
#: Tags a file may write explicitly: ``!!str "42"`` is harmless, everything else
#: (``!!python/object``, ``!!binary``, ``!local``) is refused.
_EXPLICIT_TAGS = frozenset({"!", _CORE + "str", _CORE + "seq", _CORE + "map"})
_COLLECTION_TAGS = _EXPLICIT_TAGS - {_CORE + "str"}
#: YAML 1.2 core schema: the only plain words that are not text. Numbers stay text.
_PLAIN_WORDS: dict[str, Any] = {
    **dict.fromkeys(("true", "True", "TRUE"), True),
    **dict.fromkeys(("false", "False", "FALSE"), False),
    **dict.fromkeys(("~", "null", "Null", "NULL", ""), None),
}
_MERGE_KEY = "<<"


class Map(dict[str, Any]):
    """A YAML mapping that knows the line and column of itself and of each key."""

    line: int = 0
    column: int = 0
    marks: dict[str, tuple[int, int]]

    def at(self, key: str) -> tuple[int, int]:
        try:
            return self.marks[key]
        except KeyError:  # rare: the mapping's own place is the default, made only then
            return self.line, self.column


class Seq(list[Any]):
    """A YAML sequence that knows the position of each item."""

    line: int = 0
    column: int = 0
    marks: list[tuple[int, int]]


class RefusedError(yaml.MarkedYAMLError):
    """Raised while loading for YAML that is valid but has no place in a question bank."""

    def __init__(self, problem: str, mark: Any, hint: str) -> None:
        super().__init__(problem=problem, problem_mark=mark)
        self.hint = hint


class HeldTooMuchError(RefusedError):
    """Raised while loading a large file of which more would be held at once than a file read whole may hold."""


def _too_deep(mark: Any) -> RefusedError:
    hint = "a bank needs a handful of levels: check the brackets and the indentation"
    return RefusedError(f"nested more than {MAX_DEPTH} levels deep", mark, hint)


def _in_our_words(err: yaml.MarkedYAMLError) -> yaml.MarkedYAMLError:
    """PyYAML 6.0.4 and later stop deep flow nesting in the scanner, before the builder
    counts levels: the writer gets the same message whichever stopped it."""
    if "maximum nesting depth" in str(err.problem):
        return _too_deep(err.problem_mark)
    return err


def _mark(event: Any) -> tuple[int, int]:
    return event.start_mark.line + 1, event.start_mark.column + 1


def _refuse_key(event: Any) -> NoReturn:
    hint = "write 'key: value' with a plain word as the key"
    raise RefusedError("a key must be text, not a list or mapping", event.start_mark, hint)


_SCALAR = yaml.ScalarEvent
_MAP_START, _SEQ_START = yaml.MappingStartEvent, yaml.SequenceStartEvent
_MAP_END, _SEQ_END = yaml.MappingEndEvent, yaml.SequenceEndEvent


class _Open:
    """A mapping or list being filled, with what its next value needs."""

    __slots__ = ("anchor", "at", "is_map", "items", "key", "key_mark", "marks", "merges", "start", "value")

    def __init__(self, value: Map | Seq, anchor: str | None, start: int, *, at: int) -> None:
        self.is_map = isinstance(value, Map)
        self.value: Any = value  # a Map when is_map, else a Seq
        self.marks: Any = value.marks  # here too: found faster than on the value, once per item
        self.items: Any = value  # what a list's items are added to (see _HandOver)
        self.anchor = anchor
        self.start = start  # values built before it: its size is what it adds to that
        self.at = at  # where it begins in the file (the index of a character)
        self.key: Any = None  # the event of the key waiting for its value
        self.key_mark = (0, 0)
        self.merges: list[tuple[Any, Any]] = []  # (value, the '<<' key's event)


#: Takes each question of a file as soon as it is read: the file's mapping so far, the question, its place.
Take = Callable[["Map", Any, tuple[int, int]], None]
#: The key of a question file's questions.
QUESTIONS = "questions"


class _HandOver:
    """Stands in for both the items of a list of questions and their places: each item,
    once its place is added after it, goes to ``take`` instead of into the list."""

    __slots__ = ("item", "take", "top")

    def __init__(self, take: Take, top: Map) -> None:
        self.take, self.top = take, top
        self.item: Any = _NOTHING

    def append(self, value: Any) -> None:
        if self.item is _NOTHING:
            self.item = value
            return
        item, self.item = self.item, _NOTHING
        self.take(self.top, item, value)


_NOTHING = object()  # no item waiting for its place (an item may be None)


class _Builder:
    """Builds one document from parser events: bounded, positioned, with duplicates noted.

    With ``take``, the items of the top mapping's list of questions are handed to it
    one at a time instead of being kept (see :func:`parse_file`).
    """

    def __init__(self, parser: Any, lines: Lines, take: Take | None = None) -> None:
        self.parser = parser
        self.lines = lines
        self.take = take
        self.stop_at = sys.maxsize  # past this place in the file, what is held is looked at again (_HeldBuilder)
        self.kept = 0  # what is held besides the part being read: the settings before the questions, anchored values
        self.after = 0  # where the list of questions handed over ends, once it has
        self.stack: list[_Open] = []  # the mappings and lists being filled, the outermost first
        self.top: _Open | None = None  # the outermost mapping or list
        #: What the outermost value goes in, as an item of a list: it is the value of none (see :meth:`_look`).
        outermost = Seq()
        outermost.marks = []
        self.root = _Open(outermost, None, 0, at=0)
        self.root.value = None
        self.handed_over = 0  # lists of questions whose items went to ``take``
        #: The lines with a ``#``, beside which a text may have been cut short by a comment: a bit each
        #: (:meth:`Lines.commented`), tested where a text ends, as a set was (a method would cost twice that).
        self.commented = lines.commented()
        self.bits = 8 * len(self.commented)
        #: (key, where, where it was first written, where its mapping's first key was written)
        self.duplicates: list[tuple[str, tuple[int, int], tuple[int, int], tuple[int, int]]] = []
        #: What YAML read differently from how the lines look.
        self.surprises: list[Explained] = []
        self.anchors: dict[str, Any] = {}
        self.sizes: dict[str, int] = {}
        self.values = 0
        self.repeated = 0

    def document(self) -> Any:
        """The single document of the stream (None for an empty file)."""
        get = self.parser.get_event
        get()  # stream start
        if isinstance(self.parser.peek_event(), yaml.StreamEndEvent):
            return None
        start = get().start_mark  # document start
        value = self._value()
        get()  # document end
        event: Any = self.parser.peek_event()
        if not isinstance(event, yaml.StreamEndEvent):
            raise yaml.composer.ComposerError(
                "expected a single document in the stream", start, "but found another document", event.start_mark
            )
        return value

    def _value(self) -> Any:
        """Build values event by event until the outermost one is complete.

        A large file brings hundreds of thousands of events, most of them texts:
        the loop builds texts itself and calls as few methods per event as it can.
        """
        stack, root = self.stack, self.root
        top, done = root, root.items  # the innermost mapping or list being filled; done once the root has its item
        get = self._events()
        commented, bits, plain_words = self.commented, self.bits, _PLAIN_WORDS
        while not done:
            event = get()
            kind = type(event)
            if kind is _SCALAR:  # a text, true, false or nothing
                self.values += 1
                value, tag = event.value, event.tag
                value = plain_words.get(value, value) if tag is None and event.implicit[0] else value
                start, end = event.start_mark, event.end_mark.line
                if (
                    tag is not None
                    or event.anchor is not None
                    or end != start.line
                    or (not event.style and end < bits and commented[end >> 3] >> (end & 7) & 1)  # a '#' on its line
                ):
                    self._marked(event, value, top.value)
                where = start.line + 1, start.column + 1
            elif kind is _MAP_START or kind is _SEQ_START:
                top = self._open(event, len(stack))
                stack.append(top)
                continue
            elif kind is _MAP_END or kind is _SEQ_END:
                value = self._close(stack.pop(), event)
                top = stack[-1] if stack else root
                where = value.line, value.column  # a list or mapping item's place is where it began
            else:  # an alias
                value, where = self._alias(event), _mark(event)
            if not top.is_map:
                top.items.append(value)
                top.marks.append(where)
            elif top.key is None:  # a key: its text as written ('no' is Norwegian, not false)
                top.key = event if kind is _SCALAR else _refuse_key(event)
                top.key_mark = where
            else:
                self._set(top, top.key, value)
                top.key = None
        return done[0]

    # Events are typed Any: libyaml's and PyYAML's event classes differ in their stubs.
    def _events(self) -> Callable[[], Any]:
        """What gives the parser's events one at a time."""
        return self.parser.get_event  # type: ignore[no-any-return]

    def _marked(self, event: Any, value: Any, parent: Map | Seq | None) -> None:
        """A text with a tag (refused, ``!!str`` aside) or an anchor (named, for aliases), or one that may surprise."""
        if event.tag is not None:
            self._check_tag(event, _EXPLICIT_TAGS)
        if event.anchor is not None:
            written = event.end_mark.index - event.start_mark.index
            self.anchors[event.anchor] = value
            self.sizes[event.anchor] = 1 + written // CHARACTERS_PER_VALUE
            self._keep(written)
        self._look(event, value, parent)

    def _look(self, event: Any, value: Any, parent: Map | Seq | None) -> None:
        """Note what YAML reads into a text unlike how its lines look (only texts on several
        lines or beside a ``#`` can surprise, so most texts never get here)."""
        if not isinstance(value, str):
            return  # true, false or empty: one word
        item_column = parent.column if isinstance(parent, Seq) else None
        joined = joined_items(event, value, self.lines, item_column=item_column) if event.style != "|" else None
        cut = cut_by_comment(event, value, self.lines) if not event.style else None
        if joined is not None:
            self.surprises.append(joined)
        if cut is not None:
            self.surprises.append(cut)

    def _open(self, event: Any, depth: int) -> _Open:
        if depth >= MAX_DEPTH:
            raise _too_deep(event.start_mark)
        if event.tag is not None:
            self._check_tag(event, _COLLECTION_TAGS)
        value: Map | Seq
        if type(event) is _MAP_START:
            value = Map()
            value.marks = {}
        else:
            value = Seq()
            value.marks = []
        start = event.start_mark
        value.line, value.column = start.line + 1, start.column + 1  # as _mark has it, without a call
        self.values += 1
        if event.anchor is not None:
            self.anchors[event.anchor] = value  # known, not yet complete: see _alias
        at = start.index
        opened = _Open(value, event.anchor, self.values, at=at)
        if depth == 0:
            self.top = opened
        elif depth == 1 and self.take is not None and self.top is not None and _hands_over(self.top, opened):
            opened.items = opened.marks = _HandOver(self.take, self.top.value)
            self.handed_over += 1
            self._keep(at - self.after)  # the settings before it stay
        return opened

    def _keep(self, size: int) -> None:
        """Count ``size`` characters of the file as held until its end."""
        self.kept += size
        self.stop_at -= size

    def why_read_whole(self) -> Explained | None:
        """Why the questions handed over are not those the file holds, read with the settings written before
        them; None when they are.

        So when ``questions`` or ``languages`` is written twice, when ``languages``
        comes after the questions, or when a ``<<`` merges keys into the file's mapping.
        """
        top = self.top
        if top is None or not top.is_map:  # never so, with questions handed over
            return _why("it is not a mapping", "write 'questions:' at the top of the file", (1, 1))
        if top.merges:
            return _why("it merges keys into the file with '<<'", "write those keys out", _mark(top.merges[0][1]))
        place = (top.value.line, top.value.column)
        for key, where, _, at in self.duplicates:
            if key in (QUESTIONS, "languages") and at == place:
                return _why(f"'{key}' is written twice", f"write '{key}:' once", where)
        marks = top.marks
        if self.handed_over != 1:  # never so without 'questions' written twice, found above
            return _why(f"'{QUESTIONS}' is written twice", f"write '{QUESTIONS}:' once", marks[QUESTIONS])
        if "languages" in marks and marks["languages"] > marks[QUESTIONS]:
            return _why(
                "'languages' comes after the questions", "move 'languages:' above 'questions:'", marks["languages"]
            )
        return None

    def _close(self, open_: _Open, event: Any) -> Any:
        value = open_.value
        if open_.merges and isinstance(value, Map):
            _merge(value, open_.merges)
        if open_.anchor is not None:
            written = event.end_mark.index - open_.at
            self.anchors[open_.anchor] = value
            # Its values (those its own aliases repeat among them), and the characters written in it.
            self.sizes[open_.anchor] = self.values - open_.start + 1 + written // CHARACTERS_PER_VALUE
            self._keep(written)
        if open_.items is not value:  # the list of questions handed over: what comes after it is held
            self.after = event.end_mark.index
        return value

    def _alias(self, event: Any) -> Any:
        """What an alias names, counted, so that a small file cannot expand into billions of values, nor into
        gigabytes of text (see :data:`CHARACTERS_PER_VALUE`)."""
        anchor = str(event.anchor)
        if anchor not in self.sizes:
            hint = "an alias may only name a value written completely before it"
            if anchor in self.anchors:
                raise RefusedError(f"the alias *{anchor} is inside the value it names", event.start_mark, hint)
            raise yaml.composer.ComposerError(None, None, f"found undefined alias '{anchor}'", event.start_mark)
        size = self.sizes[anchor]
        self.values += size
        self.repeated += size
        written = self.values - self.repeated + event.start_mark.index // CHARACTERS_PER_VALUE
        if self.repeated > ALIAS_ALLOWANCE + written:
            hint = "write the values out, or use far fewer anchors and aliases (&name / *name)"
            raise RefusedError("aliases (*name) repeat too many values", event.start_mark, hint)
        return self.anchors[anchor]

    def _set(self, open_: _Open, key: Any, value: Any) -> None:
        """Put a value under its key in the mapping, noting a key written twice."""
        target, marks, name = open_.value, open_.marks, key.value
        if name == _MERGE_KEY and key.tag is None and key.implicit[0]:  # a plain <<, not '<<'
            open_.merges.append((value, key))
            return
        if name in target:
            self.duplicates.append((name, open_.key_mark, marks[name], (target.line, target.column)))
        marks[name] = open_.key_mark
        target[name] = value

    def _check_tag(self, event: Any, allowed: frozenset[str]) -> None:
        if event.tag in allowed:
            return
        shown = str(event.tag).replace(_CORE, "!!", 1)
        hint = "a question bank holds only text, lists and mappings: remove the tag"
        raise RefusedError(f"tag '{shown}' is not allowed", event.start_mark, hint)


class _HeldBuilder(_Builder):
    """A builder for a file larger than a file read whole, which holds no more than ``held`` characters
    of it as values at once (see :meth:`_look_at_held`): checked at each value, which costs only such files."""

    def __init__(self, parser: Any, lines: Lines, take: Take | None, *, held: int) -> None:
        super().__init__(parser, lines, take)
        self.held = self.stop_at = held

    def _events(self) -> Callable[[], Any]:
        """The parser's events, each text and each mapping or list that begins past :attr:`stop_at` looked at
        before it is built: the base's loop, which builds texts itself, then need not ask."""
        get = super()._events()

        def checked() -> Any:
            event = get()
            kind = type(event)
            if kind is _SCALAR and event.end_mark.index > self.stop_at:
                self._look_at_held(event.start_mark.index, event.end_mark.index, event)
            elif (kind is _MAP_START or kind is _SEQ_START) and event.start_mark.index > self.stop_at:
                self._look_at_held(event.start_mark.index, event.start_mark.index, event)
            return event

        return checked

    def _look_at_held(self, start: int, end: int, event: Any) -> None:
        """Refuse to hold more than ``held`` characters of the file at once; else look again that much further.

        Only the part being read is held, besides what :meth:`_keep` counted: the question
        being read, in a list of questions handed over; else all that is not in such a
        list. ``start`` and ``end`` are where the value of ``event`` begins and ends.
        """
        stack = self.stack
        if len(stack) > 1 and stack[1].items is not stack[1].value:  # in the list of questions handed over
            begun = stack[2].at if len(stack) > 2 else start
        else:
            begun = self.after
        if end - begun + self.kept > self.held:
            raise _held_too_much(event, self.held, streamed=self.handed_over > 0)
        self.stop_at = begun + self.held - self.kept


def _why(message: str, hint: str, where: tuple[int, int]) -> Explained:
    return Explained(message, hint, where[0], where[1], "")


def _held_too_much(event: Any, held: int, *, streamed: bool) -> HeldTooMuchError:
    size, mark = size_of(held), event.start_mark
    if streamed:
        problem = f"more than {size} of the file would be held at once: a question, the settings, anchored values"
        hint = f"split the file into files of at most {size}, or write fewer anchors (&name)"
        return HeldTooMuchError(problem, mark, hint)
    problem = f"the file is larger than {size}, and only its questions could be read one at a time"
    hint = (
        f"split it into files of at most {size}, or write its questions as a list under 'questions:'"
        " at the top of the file, without an anchor (&name)"
    )
    return HeldTooMuchError(problem, mark, hint)


def _hands_over(top: _Open, opened: _Open) -> bool:
    """Whether ``opened``, just inside ``top``, is the list of questions of a question file
    (an anchored list, which an alias could name again, is kept whole)."""
    key = top.key
    return not opened.is_map and opened.anchor is None and key is not None and key.value == QUESTIONS


def _merge(target: Map, merges: list[tuple[Any, Any]]) -> None:
    """Apply ``<<: *base`` keys: the mapping's own keys win, then the first merged mapping."""
    merged: list[Map] = []
    for value, key_event in merges:
        items = value if isinstance(value, Seq) else [value]
        if not all(isinstance(item, Map) for item in items):
            hint = "'<<' takes a mapping (<<: *name) or a list of them"
            raise RefusedError("expected a mapping or list of mappings for merging", key_event.start_mark, hint)
        merged.extend(items)
    own, own_marks = dict(target), dict(target.marks)
    target.clear()
    for mapping in reversed(merged):
        target.update(mapping)
        target.marks.update(mapping.marks)
    target.update(own)
    target.marks.update(own_marks)


@dataclass
class YamlFile:
    """One YAML file of the bank; ``parsed`` is False when it could not be read or parsed.

    ``handed_over`` is True when its questions went, one at a time, to the ``take`` given
    to :func:`parse_file`: its ``questions`` list is then empty.
    """

    path: Path
    data: Any = None
    raw: bytes = field(default=b"", repr=False)
    parsed: bool = False
    handed_over: bool = False


def text_position(text: str, offset: int) -> tuple[int, int]:
    """Line and column (from 1) of a character offset."""
    line_start = text.rfind("\n", 0, offset) + 1
    return text.count("\n", 0, offset) + 1, offset - line_start + 1


class Positions:
    """:func:`text_position` of many offsets in one text: its lines are found once, on the first call.

    Counting from the start for each would cost the text's length per problem, and
    a text may have as many problems as characters.
    """

    def __init__(self, text: str) -> None:
        self.text = text
        self._starts: list[int] = []

    def __call__(self, offset: int) -> tuple[int, int]:
        starts = self._starts
        if not starts:
            starts.append(0)
            while (found := self.text.find("\n", starts[-1])) != -1:
                starts.append(found + 1)
        line = bisect.bisect_right(starts, offset)
        return line, offset - starts[line - 1] + 1


def decode(path: Path, raw: bytes, problems: Problems) -> str | None:
    """UTF-8 text of a file (a BOM is accepted), or None with a problem reported."""
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as err:
        before = raw[: err.start].decode("utf-8-sig")  # valid up to the first bad byte
        line, column = text_position(before, len(before))
        problems.add(
            path,
            f"not valid UTF-8 (byte 0x{raw[err.start]:02x})",
            line=line,
            column=column,
            hint="save the file with UTF-8 encoding",
        )
        return None


def parse(path: Path, raw: bytes, problems: Problems) -> Any:
    """The YAML document in ``raw``, or None with every problem reported."""
    return parse_file(path, raw, problems).data


def parse_file(path: Path, raw: bytes, problems: Problems, *, take: Take | None = None) -> YamlFile:
    """The YAML document in ``raw`` as a file of the bank; when it cannot be had, every problem is reported.

    With ``take``, a question file's questions are handed to it as each is read and
    not kept: a large file's values are never all held at once. When the file turns
    out to be one whose questions cannot be read that way (see
    :meth:`_Builder.why_read_whole`), it is read again whole, with
    ``handed_over`` False: what ``take`` was given is then not the file's.
    A file larger than :data:`~ankibuild.paths.MAX_FILE_BYTES` is never read whole:
    it is refused instead, with the reason.
    """
    if PARSER is not LIBYAML and len(raw) > paths.MAX_FILE_BYTES:
        return _refuse_without_libyaml(path, raw, problems)
    text = decode(path, raw, problems)
    if text is None or report_conflict(path, text, problems):
        return YamlFile(path, raw=raw)
    lines = Lines.of(raw, text)
    del text  # as large as the values about to be built, or twice: made again if the file cannot be read
    file = _build(path, raw, lines, problems=problems, take=take)
    return file or _build(path, raw, lines, problems=problems, take=None) or YamlFile(path, raw=raw)


def _build(path: Path, raw: bytes, lines: Lines, *, problems: Problems, take: Take | None) -> YamlFile | None:
    """:func:`parse_file` of a file found valid UTF-8 without conflict markers; None for one to read again whole."""
    whole = paths.MAX_FILE_BYTES
    try:
        parser = PARSER(raw)  # the bytes, valid UTF-8 now: a str would only be encoded back to them
        try:
            builder = (
                _HeldBuilder(parser, lines, take, held=whole) if len(raw) > whole else _Builder(parser, lines, take)
            )
            with paused():
                data = builder.document()
        finally:
            parser.dispose()
    except yaml.MarkedYAMLError as raised:
        _report_yaml(path, _in_our_words(raised), raw, lines=lines, problems=problems)
        return YamlFile(path, raw=raw)
    except yaml.reader.ReaderError as err:  # PyYAML's own parser finds one in the first characters already
        # The reader stops at the first such character (libyaml counts its position in bytes)
        text = raw.decode("utf-8-sig")
        line, column = text_position(text, text.find(chr(err.character)))
        hint = "remove the character: it is invisible and has no place in text"
        problems.add(path, f"YAML: character U+{err.character:04X} is not allowed", line=line, column=column, hint=hint)
        return YamlFile(path, raw=raw)
    reason = builder.why_read_whole() if builder.handed_over else None
    if reason is not None:
        return None if len(raw) <= whole else _refuse_whole(path, raw, reason, problems=problems)
    _report_duplicates(path, builder, problems)
    for found in builder.surprises:
        problems.add(
            path,
            found.message,
            line=found.line,
            column=found.column,
            hint=found.hint,
            severity=Severity.WARNING,
            detail=found.detail,
        )
    return YamlFile(path, data, raw, parsed=True, handed_over=bool(builder.handed_over))


def _refuse_whole(path: Path, raw: bytes, reason: Explained, *, problems: Problems) -> YamlFile:
    """A file too large to be read whole, whose questions could not be read one at a time, refused."""
    size = size_of(paths.MAX_FILE_BYTES)
    problems.add(
        path,
        f"the file is larger than {size}, so its questions are read one at a time, but {reason.message}",
        line=reason.line,
        column=reason.column,
        hint=f"{reason.hint}, or split the file into files of at most {size}",
    )
    return YamlFile(path, raw=raw)


def _refuse_without_libyaml(path: Path, raw: bytes, problems: Problems) -> YamlFile:
    """A file too large for PyYAML's own parser, refused: it holds some sixteen times a file of blank lines."""
    size = size_of(paths.MAX_FILE_BYTES)
    problems.add(
        path,
        f"the file is larger than {size}, which only libyaml reads, and this PyYAML was installed without it",
        line=1,
        column=1,
        hint=f"split the file into files of at most {size}, or install PyYAML with libyaml "
        "(pip install --force-reinstall pyyaml, where a wheel is published for this system)",
    )
    return YamlFile(path, raw=raw)


def _report_duplicates(path: Path, builder: _Builder, problems: Problems) -> None:
    """Keys written twice in one mapping; a list item begun without its ``- `` is one problem, not one per key."""
    merged: dict[tuple[int, int], int] = {}  # a mapping's first key: the line from which its keys are another item's
    # Each mapping's first line is read once, not once per key written again: a line of one flow mapping that
    # repeats a key thousands of times would otherwise be read as many times.
    items: dict[int, str | None] = {}
    for key, (line, column), (first, _), opening in builder.duplicates:
        if line > merged.get(opening, line):
            continue
        if opening[0] not in items:
            items[opening[0]] = item_key(builder.lines, opening[0])
        found = missing_dash(key, line, column, first=opening[0], item=items[opening[0]])
        if found is not None:
            merged[opening] = line
            problems.add(path, found.message, line=line, column=column, hint=found.hint, detail=found.detail)
            continue
        hint = "a key may appear once per mapping; YAML would keep only the last"
        problems.add(path, f"duplicate key '{key}' (first at line {first})", line=line, column=column, hint=hint)


def _report_yaml(path: Path, err: yaml.MarkedYAMLError, raw: bytes, *, lines: Lines, problems: Problems) -> None:
    """A parser error in the writer's words; what the loader itself refused is in its words already."""
    if isinstance(err, RefusedError):
        mark = err.problem_mark
        line, column = (mark.line + 1, mark.column + 1) if mark is not None else (0, 0)
        said = str(err.problem) if isinstance(err, HeldTooMuchError) else f"YAML: {err.problem}"
        problems.add(path, said, line=line, column=column, hint=err.hint)
        return
    found = explain(err, raw.decode("utf-8-sig"), lines)
    problems.add(path, found.message, line=found.line, column=found.column, hint=found.hint, detail=found.detail)


def read(path: Path, problems: Problems, roots: Sequence[Path] = (), *, limit: int | None = None) -> bytes | None:
    """The bytes of a file inside one of ``roots`` (default: its own folder), or None, reported in ``problems``.

    ``limit``: the most it may hold, :data:`~ankibuild.paths.MAX_FILE_BYTES` unless said (a question
    file, whose questions are read one at a time, may hold more: see :func:`parse_file`).
    """
    return _reported(partial(read_inside, path, roots or (path.parent,), limit), path, problems)


def size(path: Path, problems: Problems, roots: Sequence[Path], *, limit: int) -> int | None:
    """The size of a file :func:`read` would read, without reading it, or None, reported as :func:`read` does."""
    return _reported(partial(size_inside, path, roots, limit), path, problems)


def _reported(reading: Callable[[], T], path: Path, problems: Problems) -> T | None:
    try:
        return reading()
    except UnsafePathError as err:
        problems.add(path, err.message, hint=err.hint)
    except OSError as err:
        problems.add(path, f"cannot read the file: {err.strerror}")
    return None


def read_pending(
    path: Path, pending: Mapping[Path, bytes], problems: Problems, *, root: Path, limit: int | None = None
) -> bytes | None:
    """A file's bytes (a file of the bank ``root``) as about to be written (``pending``), else as on disk
    (see :func:`read` for ``limit``)."""
    return pending[path] if path in pending else read(path, problems, (root,), limit=limit)


def load(path: Path, problems: Problems, roots: Sequence[Path] = ()) -> YamlFile:
    """A YAML file inside one of ``roots`` (default: its own folder), parsed."""
    raw = read(path, problems, roots)
    return YamlFile(path) if raw is None else parse_file(path, raw, problems)


def bank_files(root: Path, problems: Problems) -> tuple[Path | None, list[Path]]:
    """The bank file and the question files of a bank folder, in a stable order.

    Hidden files and folders (``.git``, editors' backups) are skipped. A link is
    followed only while it stays inside the bank folder; a file reached twice
    through links is read once, under its real place in the folder.
    """
    if not root.is_dir():
        hint = "run from the folder that holds it, or name it with --decks"
        if (Path.cwd() / BANK_FILE).is_file():
            hint = (
                f"this folder is a bank itself (it holds {BANK_FILE}): run ankibuild from the folder above it (cd ..)"
            )
        problems.add(root, "no bank folder", hint=hint)
        return None, []
    real_root = root.resolve()
    found: set[Path] = set()
    _collect(root, real_root, found, problems=problems)
    files = sorted(root / real.relative_to(real_root) for real in found if real.suffix in YAML_SUFFIXES)
    questions = [path for path in files if path.name != BANK_FILE]
    bank = root / BANK_FILE
    if not within(root, bank):
        return None, questions  # reported as a link leading outside
    if not bank.is_file():
        problems.add(bank, "no bank file", hint="create bank.yaml with id, languages and topics")
        return None, questions
    return bank, questions


def _collect(folder: Path, root: Path, found: set[Path], *, problems: Problems) -> None:
    """Add the real paths of the folders and YAML files below ``folder`` to ``found``."""
    try:
        entries = sorted(entry for entry in folder.iterdir() if not entry.name.startswith("."))
    except OSError as err:
        problems.add(folder, f"cannot list the folder: {err.strerror}")
        return
    for entry in entries:
        wanted = entry.suffix in YAML_SUFFIXES or entry.is_dir()
        if not wanted or not _named_in_utf8(entry, problems):
            continue
        real = _inside(root, entry, problems)
        if real is None:
            continue
        if real in found:
            continue  # reached again through a link
        if entry.is_dir():
            found.add(real)
            _collect(entry, root, found, problems=problems)
        elif entry.is_file():
            found.add(real)
        else:
            problems.add(entry, "is not a file that can be read (a broken link?)")


def _inside(root: Path, entry: Path, problems: Problems) -> Path | None:
    """The real place of ``entry``, with every link followed, while it is ``root`` (a real place) or lies below
    it, as :func:`.paths.within` tells; else None, with the problem reported.

    Its place is found once, and the bank folder's is known already: following links takes a system call per
    folder on the way, which the build made three times over for each file before any was read.
    """
    try:
        place = real_place(entry)
    except (OSError, RuntimeError):  # a link loop: OSError from Python 3.13 on, RuntimeError before
        hint = "delete the link, or point it at a file or folder inside the bank folder"
        problems.add(entry, "is a link that leads back to itself; it is not read", hint=hint)
        return None
    if not place.is_relative_to(root):
        hint = "move it into the bank folder: a link may only point inside it"
        problems.add(entry, "is a link to a place outside the bank folder; it is not read", hint=hint)
        return None
    return place


def _named_in_utf8(entry: Path, problems: Problems) -> bool:
    """False, with the problem reported, for a name that is not UTF-8: no lock, record or PO file could hold it."""
    try:
        entry.name.encode("utf-8")
    except UnicodeEncodeError:
        hint = "rename it with letters your system writes as UTF-8 (git and every other machine expect it)"
        problems.add(entry, "the name is not valid UTF-8; it is not read", hint=hint)
        return False
    return True
