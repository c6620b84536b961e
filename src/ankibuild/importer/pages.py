"""Read a quiz page as copied from a browser, by its structure alone.

A page, top to bottom::

    Français                        optional header: short lines (language, menu)
    Menu
    Topic title
    The question?
      1. AFirst option              numbered options, the letter glued to the text
      2. BSecond option
    Show the answer                 anything, skipped
    Answer: B. Second option        label, colon (any width), letter, that option's text
                                    (or, when several are correct, their letters: "Answer: A, C")
    Explanation paragraph(s).
    Practise this topic             navigation: short lines that end no sentence
    More questions on Topic title   the heading of the last numbered list
      1. A further question title

No word of any language is looked for. The options are the first numbered list
whose items start with A, B, C …; the answer line is the first line after them
shaped ``label: LETTER. text`` whose text is that option's, or ``label: A, C``
naming several options by their letters alone; the further
questions are the last numbered list after it, and its heading is the line
before it. The topic title is the line of the heading that names it (``More
questions on <title>``), else the line just above the question's paragraph.
"""

from __future__ import annotations

import re
import string
import unicodedata
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from ..errors import Problems
from ..kinds import DEFAULT_KIND, KINDS
from ..paths import UnsafePathError, read_inside
from ..yamlfiles.reader import decode
from . import langguess

#: How many options a page's question may have: it becomes a multiple-choice question.
MIN_OPTIONS, MAX_OPTIONS = KINDS[DEFAULT_KIND].option_counts[0], KINDS[DEFAULT_KIND].option_counts[-1]
#: ``1. AText``, ``2) BText``, ``3．Cテキスト``: a number, a dot or bracket, the item.
_ITEM = re.compile(r"^(\d{1,3})\s*[.)．）、]\s*(\S.*)$")
#: ``Answer: B. text``, ``Réponse : B. text``, ``答え：B．テキスト``: a label, a colon of any
#: width, one letter, then (after a dot, a bracket or a space) the text of that option.
_ANSWER = re.compile(
    r"^(?P<label>[^:：﹕]{1,40}?)\s*[:：﹕]\s*(?P<letter>[A-ZＡ-Ｚ])(?:[.．)）、]\s*|\s+|$)(?P<text>.*)$"
)
#: ``Answer: A, C``, ``答え：A、C``, ``Answer: A C``: a label, a colon, two or more letters alone.
_SEVERAL = re.compile(
    r"^(?P<label>[^:：﹕]{1,40}?)\s*[:：﹕]\s*(?P<letters>[A-ZＡ-Ｚ](?:\s*[,，、;；]\s*[A-ZＡ-Ｚ]|\s+[A-ZＡ-Ｚ])+)\s*[.．]?$"
)
#: What ends a sentence in the scripts a quiz is written in.
_SENTENCE_END = ".!?…。！？؟۔।॥．"
#: Closing quotes and brackets that may follow the end of a sentence.
_CLOSERS = "\"'»«”’」』)）]"
#: Navigation lines ("Practise this topic  Back to the topic") are at most this long.
NAVIGATION_WIDTH = 80
#: The heading of the further questions ("More questions on <topic>") is at most this long.
HEADING_WIDTH = 200

_OPTIONS_HINT = (
    "options are a numbered list whose items start with their letter: '1. AFirst option', '2. BSecond option'"
)
_ANSWER_HINT = (
    "after the options, a line gives a label, a colon, the letter and that option's text: 'Answer: B. Second'"
)


@dataclass(frozen=True)
class Page:
    """One question in one language, as a page shows it."""

    path: Path
    #: From a header line naming the language, else guessed from the text; None if unknown.
    language: str | None
    #: The topic title; None when the page shows none.
    topic: str | None
    question: str
    options: tuple[str, ...]
    #: The letter of the correct option; the letters of several, separated by spaces ("A C").
    answer: str
    explanation: str
    #: Titles of further questions on the topic (their options are not on the page).
    further: tuple[str, ...]
    question_line: int
    answer_line: int

    @property
    def text(self) -> str:
        """Everything the question says, to tell its language from."""
        return "\n".join((self.question, *self.options, self.explanation))


#: A page copied from a browser is kilobytes; anything far larger is not one.
MAX_PAGE_BYTES = 4 * 1024 * 1024


def read_page(path: Path, problems: Problems) -> Page | None:
    """The question a pasted page shows, or None with every problem found reported."""
    try:
        raw = read_inside(path, (path.parent,), MAX_PAGE_BYTES)
    except UnsafePathError as err:
        problems.add(path, err.message, hint=err.hint)
        return None
    except OSError as err:
        problems.add(path, f"cannot read the page: {err.strerror}")
        return None
    text = decode(path, raw, problems)
    return None if text is None else parse_page(path, text, problems)


def parse_page(path: Path, text: str, problems: Problems) -> Page | None:
    """The question in ``text`` (the contents of ``path``); problems are reported with its lines."""
    return _Reader(path, text, problems).page()


def same_text(a: str, b: str) -> bool:
    """Equal once width, case and runs of white space are set aside (as copying changes them)."""
    return _norm(a) == _norm(b)


def _norm(text: str) -> str:
    return " ".join(unicodedata.normalize("NFKC", text).casefold().split())


class _Reader:
    """The parts of one page, found by position and shape; problems go to ``problems``."""

    def __init__(self, path: Path, text: str, problems: Problems) -> None:
        self.path = path
        self.problems = problems
        self.failed = False
        self.lines = [unicodedata.normalize("NFC", line).strip() for line in text.splitlines()]

    def error(self, index: int, message: str, hint: str = "") -> None:
        self.failed = True
        self.problems.add(self.path, message, line=index + 1, column=1, hint=hint)

    def item(self, index: int) -> str:
        match = _ITEM.match(self.lines[index])
        assert match is not None  # only called for lines _numbered_lists found
        return match.group(2)

    def page(self) -> Page | None:
        if not any(self.lines):
            self.error(0, "the page is empty", "copy the whole quiz page into the file")
            return None
        lists = _numbered_lists(self.lines)
        choices = next((items for items in lists if _lettered([self.item(i) for i in items])), None)
        if choices is None:
            self.error(lists[0][0] if lists else 0, "no options found", _OPTIONS_HINT)
            return None
        options = self.options(choices)
        answer = self.answer(choices[-1], options) if options else None
        after = answer[0] if answer else choices[-1]
        further = next((items for items in reversed(lists) if items[0] > after), [])
        heading = _previous(self.lines, further[0]) if further else None
        heading = heading if heading is not None and heading > after else None
        header, topic, question = self.top(choices[0], self.lines[heading] if heading is not None else "")
        end = heading if heading is not None else len(self.lines)
        explanation = self.explanation(after, end) if answer else ""
        if self.failed or options is None or answer is None:
            return None
        return self.result(
            header,
            topic,
            question,
            options=options,
            answer=answer,
            explanation=explanation,
            further=[self.item(i) for i in further],
        )

    def result(
        self,
        header: list[str],
        topic: str | None,
        question: tuple[int, str],
        *,
        options: tuple[str, ...],
        answer: tuple[int, str],
        explanation: str,
        further: list[str],
    ) -> Page:
        text = "\n".join((question[1], *options, explanation))
        language = langguess.from_header(header) or langguess.from_text(text)
        return Page(
            self.path,
            language,
            topic,
            question[1],
            options,
            answer[1],
            explanation,
            tuple(further),
            question[0] + 1,
            answer[0] + 1,
        )

    def options(self, choices: list[int]) -> tuple[str, ...] | None:
        """The options' texts without their letters; their number and that they differ is checked."""
        texts = tuple(self.item(i)[1:].strip() for i in choices)
        if not MIN_OPTIONS <= len(texts) <= MAX_OPTIONS:
            self.error(choices[0], f"{len(texts)} option(s); a question has {MIN_OPTIONS} to {MAX_OPTIONS}")
            return None
        for later, text in enumerate(texts):
            earlier = next(i for i, other in enumerate(texts) if same_text(other, text))
            if earlier != later:
                letters = string.ascii_uppercase
                self.error(choices[later], f"option {letters[later]} repeats option {letters[earlier]}")
        return None if self.failed else texts

    def answer(self, last_option: int, options: tuple[str, ...]) -> tuple[int, str] | None:
        """The first answer line whose letter and text name an option, or whose letters name several;
        else a problem about the first candidate."""
        several = _several(self.lines, last_option + 1, len(options))
        candidates = list(_answer_lines(self.lines, last_option + 1))
        for index, letter, text in candidates:
            position = string.ascii_uppercase.index(letter)
            if several and several[0] < index:
                break
            if position < len(options) and same_text(text, options[position]):
                return index, letter
        if several:
            return several
        if not candidates:
            self.error(last_option, "no answer line after the options", _ANSWER_HINT)
            return None
        self.wrong_answer(*candidates[0], options=options)
        return None

    def wrong_answer(self, index: int, letter: str, text: str, *, options: tuple[str, ...]) -> None:
        position = string.ascii_uppercase.index(letter)
        last = string.ascii_uppercase[len(options) - 1]
        if position >= len(options):
            self.error(index, f"the answer names {letter}, but there are {len(options)} options (A to {last})")
        elif not text:
            self.error(index, f"the answer line names {letter} but not its text", _ANSWER_HINT)
        else:
            self.error(
                index,
                f"the answer's text does not match option {letter}: '{text}' vs '{options[position]}'",
                "the line after the letter must repeat the text of the option it names",
            )

    def explanation(self, answer: int, end: int) -> str:
        """The paragraphs after the answer line, without the navigation lines that follow them."""
        blocks = list(_blocks(self.lines, range(answer + 1, end)))
        while blocks and _navigation([self.lines[i] for i in blocks[-1]]):
            blocks.pop()
        if not blocks:
            self.error(answer, "no explanation after the answer line", "the explanation is the paragraph after it")
        return self.join(blocks)

    def top(self, first_option: int, heading: str) -> tuple[list[str], str | None, tuple[int, str]]:
        """Header lines, topic title and question (first line, text) above the options."""
        above = [i for i in range(first_option) if self.lines[i]]
        if not above:
            self.error(first_option, "no question above the options", "the question is the paragraph before them")
            return [], None, (first_option, "")
        blocks = list(_blocks(self.lines, range(first_option)))
        earlier = [i for block in blocks[:-1] for i in block]
        # A heading is one short line: looked for in a longer one, each line above would cost its length.
        folded = _norm(heading) if len(heading) <= HEADING_WIDTH else ""
        named = [i for i in above[:-1] if folded and _names(folded, self.lines[i])]
        topic = named[-1] if named else (earlier[-1] if earlier else None)
        start = -1 if topic is None else topic
        question = [[i for i in block if i > start] for block in blocks]
        header = [self.lines[i] for i in above if i < start]
        first = next(i for i in above if i > start)
        return header, None if topic is None else self.lines[topic], (first, self.join(question))

    def join(self, blocks: Sequence[Sequence[int]]) -> str:
        """Lines of a paragraph keep their breaks; paragraphs are separated by a blank line."""
        return "\n\n".join("\n".join(self.lines[i] for i in block) for block in blocks if block)


def _numbered_lists(lines: list[str]) -> list[list[int]]:
    """Indexes of runs of lines numbered 1, 2, 3 … (blank lines between items allowed)."""
    lists: list[list[int]] = []
    current: list[int] | None = None
    for index, line in enumerate(lines):
        if not line:
            continue
        match = _ITEM.match(line)
        number = int(match.group(1)) if match else 0
        if current is not None and number == len(current) + 1:
            current.append(index)
        elif number == 1:
            current = [index]
            lists.append(current)
        else:
            current = None
    return lists


def _lettered(items: list[str]) -> bool:
    """Items that start with A, B, C … glued to their text: a question's options."""
    letters = string.ascii_uppercase
    return len(items) <= len(letters) and all(
        len(item) > 1 and unicodedata.normalize("NFKC", item[0]) == letters[k] for k, item in enumerate(items)
    )


def _answer_lines(lines: list[str], start: int) -> Iterator[tuple[int, str, str]]:
    """(index, letter, text) of every line from ``start`` shaped like an answer line."""
    for index in range(start, len(lines)):
        match = _ANSWER.match(lines[index])
        if match and match.group("label").strip():
            yield index, unicodedata.normalize("NFKC", match.group("letter")), match.group("text").strip()


def _several(lines: list[str], start: int, count: int) -> tuple[int, str] | None:
    """(index, "A C") of the first line from ``start`` naming two or more of ``count`` options by letter alone."""
    for index in range(start, len(lines)):
        match = _SEVERAL.match(lines[index])
        if not match or not match.group("label").strip():
            continue
        letters = re.findall(r"[A-Z]", unicodedata.normalize("NFKC", match.group("letters")))
        if len(set(letters)) == len(letters) and all(string.ascii_uppercase.index(c) < count for c in letters):
            return index, " ".join(sorted(letters))
    return None


def _previous(lines: list[str], index: int) -> int | None:
    """The nearest non-blank line above ``index``."""
    return next((i for i in range(index - 1, -1, -1) if lines[i]), None)


def _blocks(lines: list[str], indexes: range) -> Iterator[list[int]]:
    """Paragraphs: runs of non-blank lines."""
    block: list[int] = []
    for index in indexes:
        if lines[index]:
            block.append(index)
        elif block:
            yield block
            block = []
    if block:
        yield block


def _navigation(block: list[str]) -> bool:
    """A single short line that ends no sentence: a link such as "Back to the topic"."""
    return len(block) == 1 and len(block[0]) <= NAVIGATION_WIDTH and not _ends_sentence(block[0])


def _ends_sentence(line: str) -> bool:
    return line.rstrip(_CLOSERS)[-1:] in tuple(_SENTENCE_END)


def _names(folded: str, line: str) -> bool:
    """The heading of the further questions, ``folded`` by :func:`_norm`, names the topic: ``More questions on <line>``.

    Only a short heading is looked in (see :data:`HEADING_WIDTH`).
    """
    return len(_norm(line)) >= 2 and _norm(line) in folded
