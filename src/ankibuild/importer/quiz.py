"""What a whole quiz file holds, whatever its format: questions read exactly, or refused at their line.

Each reader (:mod:`.tasklist`, :mod:`.gift`) turns a file into a :class:`Quiz`;
what every format shares is checked here, once: two to six options, at least
one correct, none empty or repeated. A question that cannot be read exactly is
refused with its line and the reason, and the others are kept.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

from ..errors import Problems
from ..kinds import DEFAULT_KIND, KINDS

#: How many options a quiz's question may have: it becomes a multiple-choice question.
MIN_OPTIONS, MAX_OPTIONS = KINDS[DEFAULT_KIND].option_counts[0], KINDS[DEFAULT_KIND].option_counts[-1]
#: The letters that name those options, in order.
LETTERS = KINDS[DEFAULT_KIND].option_letters
#: A quiz file is text of a few megabytes at most; anything far larger is not one.
MAX_QUIZ_BYTES = 8 * 1024 * 1024


@dataclass(frozen=True)
class Item:
    """One question of a quiz file, its texts as Markdown."""

    #: What names it in the file ("12" for "Q12."), to match its translations; "" when nothing does.
    number: str
    line: int
    question: str
    options: tuple[str, ...]
    #: The letters of the correct options.
    answer: tuple[str, ...]
    explanation: str = ""
    #: A short text per option ("" where none), as the bank's ``feedback``.
    feedback: tuple[str, ...] = ()
    #: A true/false statement: whether it is true (it then has no options); None for multiple choice.
    truth: bool | None = None
    #: The id the file gives the question (Moodle's ID number), kept when it is a valid, unused id.
    ident: str = ""
    #: A cloze question: its question holds its clozes, ``{{c1::answer}}``, and it has no options.
    cloze: bool = False
    #: False when the file keeps the options in their written order (Moodle's "Shuffle the choices" off).
    shuffled: bool = True
    #: Files the quiz carries inside itself, by the name its texts link them by (Moodle's own files).
    files: Mapping[str, bytes] = field(default_factory=dict)


@dataclass
class Quiz:
    """The questions of one file, in one language."""

    path: Path
    #: The title the file gives itself (its first heading), if it gives one.
    title: str | None
    items: list[Item] = field(default_factory=list)
    #: Questions refused, by line.
    refused: int = 0
    #: The language the file names for itself (a file in every language names each), as it writes it.
    lang: str | None = None
    #: The same file's questions in its further languages, when it holds several.
    others: list[Quiz] = field(default_factory=list)

    def add(self, line: int, read: Callable[[], Item], problems: Problems) -> None:
        """The question ``read`` gives, checked; refused, its reason is reported at ``line`` instead."""
        try:
            item = read()
        except Refusal as refusal:
            problems.add(self.path, f"question refused: {refusal.message}", line=line, column=1, hint=refusal.hint)
            self.refused += 1
            return
        found = checked(self.path, item, problems)
        self.items.extend([found] if found else [])
        self.refused += found is None


class Refusal(Exception):
    """Raised by a reader when a question cannot be read exactly: the message says why, the hint what to do."""

    def __init__(self, message: str, hint: str = "") -> None:
        super().__init__(message)
        self.message = message
        self.hint = hint


def checked(path: Path, item: Item, problems: Problems) -> Item | None:
    """``item`` with options that carry their own letter ("A. Paris") without it; None, with the reason
    reported at its line, when it is not a question the bank can hold."""
    if not item.question.strip():  # of any kind: the bank refuses an empty question, and would refuse the file
        reason: tuple[str, str] | None = ("the question has no text", "write its text")
    else:
        reason = None if item.truth is not None or item.cloze else _refusal(item)
    if reason is not None:
        message, hint = reason
        problems.add(path, f"question refused: {message}", line=item.line, column=1, hint=hint)
        return None
    return _without_own_letters(item)


def _refusal(item: Item) -> tuple[str, str] | None:
    count = len(item.options)
    if not MIN_OPTIONS <= count <= MAX_OPTIONS:
        return f"{count} option(s); a question has {MIN_OPTIONS} to {MAX_OPTIONS}", "give it 2 to 6 options"
    if not item.answer:
        return "no option is marked correct", "mark the correct option (in Markdown: '- [x]')"
    empty = next((LETTERS[i] for i, option in enumerate(item.options) if not option.strip()), None)
    if empty:
        return f"option {empty} is empty", "write its text, or remove it"
    for index, option in enumerate(item.options):
        first = item.options.index(option)
        if first != index:
            return f"option {LETTERS[index]} repeats option {LETTERS[first]}", "make every option differ"
    return None


def _without_own_letters(item: Item) -> Item:
    """Options written "A. Paris", "B. Lyon": the card shows its own letters (shuffled), so these go."""
    stripped = _own_letters(item.options)
    if stripped is None:
        return item
    return replace(item, options=stripped)


def _own_letters(options: Sequence[str]) -> tuple[str, ...] | None:
    """The options without "A. ", "B) " … when every one starts with its own letter so; else None."""
    rest: list[str] = []
    for letter, option in zip(LETTERS, options, strict=False):
        if len(option) < 4 or option[0] != letter or option[1] not in ".)" or option[2] != " ":
            return None
        rest.append(option[3:].lstrip())
    return tuple(rest)


#: What stands for a gap while the text around it becomes Markdown: characters of Unicode's private use
#: area, which no converter escapes and no quiz writes.
_HOLE = "\ue000{}\ue001"


@dataclass(frozen=True)
class Hole:
    """A gap read from a quiz's text: the answer it hides and the hint shown in its place, as Markdown."""

    answer: str
    hint: str | None


def holed(parts: Sequence[str | Hole]) -> str:
    """The text with each gap's place marked, to be converted as a whole (a gap may sit inside markup);
    a text that already holds the marks is refused, since a gap could not be told from them."""
    texts = [part for part in parts if isinstance(part, str)]
    if any("\ue000" in text or "\ue001" in text for text in texts):
        raise Refusal("the text holds characters of Unicode's private use area", "remove them")
    holes = iter(range(len(parts)))
    return "".join(part if isinstance(part, str) else _HOLE.format(next(holes)) for part in parts)


def clozed(markdown: str, holes: Sequence[Hole]) -> str:
    """The converted text with each gap's mark made a cloze, numbered in order: a card per gap.

    One pass over the text's pieces between marks, so a text of many gaps takes no longer than its size."""
    if not holes:
        raise Refusal("a cloze question without a gap", "write a gap, {1:SHORTANSWER:=answer}")
    first, *pieces = markdown.split("\ue000")
    out = [first]
    for number, piece in enumerate(pieces, 1):
        index, mark, rest = piece.partition("\ue001")
        if not mark or index != str(number - 1) or number > len(holes):
            raise Refusal("a gap inside markup the text loses as Markdown", "move the gap out of it")
        out.append(_cloze(number, holes[number - 1]) + rest)
    if len(pieces) != len(holes):
        raise Refusal("a gap inside markup the text loses as Markdown", "move the gap out of it")
    return "".join(out)


def _cloze(number: int, hole: Hole) -> str:
    if "}}" in hole.answer or "::" in hole.answer or "}}" in (hole.hint or ""):
        raise Refusal("a gap whose answer or hint holds '}}' or '::'", "reword it: a cloze ends at them")
    if not hole.answer.strip():
        raise Refusal("a gap with an empty answer", "write what the gap hides")
    hint = f"::{hole.hint}" if hole.hint is not None else ""
    return f"{{{{c{number}::{hole.answer}{hint}}}}}"
