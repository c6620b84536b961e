"""Read an Aiken file, the plainest quiz format Moodle imports::

    Which command prints the working directory?     the question: one line
    A. ls                                           the options: a letter, a dot or bracket, the text
    B. pwd
    C. cd
    ANSWER: B                                       the correct letter

Questions are apart by their ANSWER line (blank lines between them are
optional). Texts are plain: they show as written. Lines are read once, by
hand; a question that does not have this shape is refused at its line.
"""

from __future__ import annotations

from functools import partial
from pathlib import Path

from ..errors import Problems
from ..text.richtext import literal
from .quiz import LETTERS, Item, Quiz, Refusal

_ANSWER = "ANSWER:"


def read_aiken_quiz(path: Path, text: str, problems: Problems) -> Quiz:
    """Every question of an Aiken file; those that cannot be read exactly are reported and left out."""
    quiz = Quiz(path, None)
    lines: list[tuple[int, str]] = []
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip() and not lines:
            continue
        lines.append((number, line.strip()))
        if line.strip().upper().startswith(_ANSWER):
            _add(quiz, path, lines, problems=problems)
            lines = []
    if any(line for _, line in lines):
        hint = "end every question with its 'ANSWER: B' line"
        problems.add(path, "question refused: no ANSWER line", line=lines[0][0], column=1, hint=hint)
        quiz.refused += 1
    return quiz


def _add(quiz: Quiz, path: Path, lines: list[tuple[int, str]], *, problems: Problems) -> None:
    quiz.add(lines[0][0], partial(_question, [(number, line) for number, line in lines if line]), problems)


def _question(lines: list[tuple[int, str]]) -> Item:
    """The question line, the option lines A, B, C … in order, and the answer line."""
    if len(lines) < 2:
        raise Refusal("an ANSWER line without its question", "write the question, its options, then the ANSWER line")
    (first, question), *options, (_, answer) = lines
    if not options:
        raise Refusal("no options between the question and its ANSWER line", "list them as 'A. text', 'B. text'")
    texts = []
    for place, (_, option) in enumerate(options):
        letter = LETTERS[place] if place < len(LETTERS) else "?"
        if len(option) < 3 or option[0] != letter or option[1] not in ".)" or option[2] != " ":
            raise Refusal(
                f"'{option[:40]}' is not option {letter}: a question is one line, then 'A. text', 'B. text' …",
                "join the question's lines into one; start each option with its letter, a dot and a space",
            )
        texts.append(literal(option[3:].strip()))
    letter = answer[len(_ANSWER) :].strip().upper()
    if letter not in LETTERS[: len(texts)] or len(letter) != 1:
        raise Refusal(f"the ANSWER '{letter}' names no option", f"write one letter, A to {LETTERS[len(texts) - 1]}")
    return Item("", first, literal(question), tuple(texts), (letter,))
