"""Read a Markdown quiz written with task lists, the most common layout of quizzes kept in git::

    ## Git                                  the file's title: its first heading without options

    #### Q12. What does this command do?    a question: a heading, its number kept to match translations
    Text, a code block or an image.        more of the question, until the options

    ```bash
    git branch -D topic
    ```

    - [ ] Deletes a merged branch          the options: a task list; ticked ones are correct
    - [x] Deletes a branch, merged or not
      ```bash
      git branch -d topic                  an option goes on while its lines are indented
      ```

    **Explanation:** `-D` forces it.       after the options: the explanation (and [Reference](url) lines)

Lines are scanned once, by hand (no pattern that could backtrack), and code
blocks are kept exactly, indentation included: inside one, nothing is a heading
or an option. Only the first heading without options becomes a title.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from ..errors import Problems
from .htmltext import commonmark_text
from .quiz import LETTERS, Item, Quiz, checked

#: Labels an explanation paragraph may start with, which the card's own label replaces.
_LABELS = ("**explanation:**", "explanation:", "**explanation**:", "_explanation:_")


@dataclass(frozen=True)
class _Section:
    """A heading and the lines below it, up to the next heading (outside code)."""

    line: int  # index of the heading
    level: int
    title: str
    body: list[tuple[int, str]]


def read_tasklist_quiz(path: Path, text: str, problems: Problems) -> Quiz:
    """Every question of the file; those that cannot be read exactly are reported and left out."""
    sections = list(_sections(text.splitlines()))
    asking = {section.line for section in sections if _has_options(section.body)}
    level = min((section.level for section in sections if section.line in asking), default=0)
    first = min(asking, default=len(text))
    titled = next((s for s in sections if s.line < first and s.line not in asking), None)
    quiz = Quiz(path, titled.title if titled else None)
    for section in sections:
        if section.line in asking:
            item = _item(path, section, problems)
            found = checked(path, item, problems) if item else None
            quiz.items.extend([found] if found else [])
            quiz.refused += found is None
        elif section.level == level and section.line > first and _has_text(section.body):
            problems.add(
                path,
                "question refused: no options under it",
                line=section.line + 1,
                column=1,
                hint="list its options as a task list below it: '- [ ] wrong', '- [x] right'",
            )
            quiz.refused += 1
    return quiz


# -- lines ------------------------------------------------------------------------


def _heading(line: str) -> tuple[int, str] | None:
    """(level, text) of an ATX heading ("#### Q1. Text"); None for any other line."""
    stripped = line.lstrip(" ")
    if len(line) - len(stripped) > 3:
        return None
    level = len(stripped) - len(stripped.lstrip("#"))
    rest = stripped[level:]
    if not 1 <= level <= 6 or (rest and rest[0] not in " \t"):
        return None
    return level, rest.strip().rstrip("#").strip()


def _fence(line: str) -> str | None:
    """The fence a line opens or closes (```` ``` ```` or ``~~~``, any length), or None."""
    stripped = line.lstrip(" ")
    for mark in "`~":
        if stripped.startswith(mark * 3):
            return stripped[: len(stripped) - len(stripped.lstrip(mark))]
    return None


def _task(line: str) -> tuple[int, bool, str] | None:
    """(indent, ticked, text) of a task-list item ("- [x] text"); None for any other line."""
    stripped = line.lstrip(" ")
    indent = len(line) - len(stripped)
    if indent > 3 or len(stripped) < 5 or stripped[0] not in "-*+" or stripped[1] != " ":
        return None
    if stripped[2] != "[" or stripped[3] not in " xX" or stripped[4] != "]":
        return None
    rest = stripped[5:]
    if rest and rest[0] not in " \t":
        return None
    return indent, stripped[3] != " ", rest.strip()


def _unfenced(lines: list[tuple[int, str]]) -> Iterator[tuple[int, str, bool]]:
    """Each line with whether it is outside a code block (a fence line itself counts as inside)."""
    open_fence: str | None = None
    for index, line in lines:
        fence = _fence(line)
        if open_fence is None and fence is not None:
            open_fence = fence
            yield index, line, False
        elif open_fence is not None:
            if fence is not None and fence.startswith(open_fence) and not line.strip().strip(fence[0]):
                open_fence = None
            yield index, line, False
        else:
            yield index, line, True


def _sections(lines: list[str]) -> Iterator[_Section]:
    current: _Section | None = None
    for index, line, outside in _unfenced(list(enumerate(lines))):
        heading = _heading(line) if outside else None
        if heading is not None:
            if current is not None:
                yield current
            current = _Section(index, heading[0], heading[1], [])
        elif current is not None:
            current.body.append((index, line))
    if current is not None:
        yield current


def _has_options(body: list[tuple[int, str]]) -> bool:
    return any(outside and _task(line) for _, line, outside in _unfenced(body))


def _has_text(body: list[tuple[int, str]]) -> bool:
    return any(line.strip() for _, line in body)


# -- one question -----------------------------------------------------------------


def _item(path: Path, section: _Section, problems: Problems) -> Item | None:
    """The question of a section: its heading and text, its task list, then its explanation."""
    number, heading = _number(section.title)
    stem: list[str] = []
    options: list[list[str]] = []
    ticks: list[bool] = []
    after: list[str] = []
    indent = 0
    for index, line, outside in _unfenced(section.body):
        task = _task(line) if outside else None
        if task is not None and not after:
            indent = task[0]
            options.append([task[2]])
            ticks.append(task[1])
        elif task is not None:
            _refuse(problems, path, index, message="a second list of options after its text")
            return None
        elif options and not after and (not line.strip() or _inside_option(line, indent)):
            options[-1].append(line[indent + 2 :] if line.strip() else "")
        elif options:
            after.append(line)
        else:
            stem.append(line)
    body = _join(stem)
    question = commonmark_text("\n\n".join(part for part in (heading, body) if part))
    answer = tuple(LETTERS[i] for i, ticked in enumerate(ticks) if ticked and i < len(LETTERS))
    texts = tuple(commonmark_text(_join(option)) for option in options)
    return Item(number, section.line + 1, question, texts, answer, commonmark_text(_explanation(after)))


def _inside_option(line: str, indent: int) -> bool:
    """A line indented past the option's marker: more of the option (code, a second paragraph)."""
    return len(line) - len(line.lstrip(" ")) >= indent + 2


def _refuse(problems: Problems, path: Path, index: int, *, message: str) -> None:
    hint = "keep one task list per question: the options, then the explanation"
    problems.add(path, f"question refused: {message}", line=index + 1, column=1, hint=hint)


def _number(title: str) -> tuple[str, str]:
    """("12", "Text") from "Q12. Text", "12) Text" or "Question 12: Text"; ("", title) without a number."""
    rest = title
    for prefix in ("Question ", "question ", "Q", "q"):
        if rest.startswith(prefix) and rest[len(prefix) : len(prefix) + 1].isdigit():
            rest = rest[len(prefix) :]
            break
    digits = len(rest) - len(rest.lstrip("0123456789"))
    if not digits or rest[digits : digits + 1] not in (".", ")", ":"):
        return "", title
    return rest[:digits], rest[digits + 1 :].strip()


def _join(lines: list[str]) -> str:
    """Lines as one text: blank lines around it dropped, every other line kept as written."""
    start = next((i for i, line in enumerate(lines) if line.strip()), len(lines))
    end = len(lines) - next((i for i, line in enumerate(reversed(lines)) if line.strip()), len(lines))
    return "\n".join(lines[start:end])


def _explanation(lines: list[str]) -> str:
    """The text after the options, without a leading "Explanation:" label."""
    text = _join(lines)
    for label in _LABELS:
        if text[: len(label)].casefold() == label:
            return text[len(label) :].strip()
    return text
