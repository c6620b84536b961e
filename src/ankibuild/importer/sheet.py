"""Read a spreadsheet saved as CSV or TSV, a question per row, its header naming the columns::

    question,A,B,C,D,answer,explanation
    Which command prints the working directory?,ls,pwd,cd,,B,Every shell has it.
    Which are shells?,bash,zsh,grep,,"A,B",

Columns are found by their header, in any order and case: ``question``; the
options as ``A`` … ``F``, ``option A`` or ``option 1``, or ``answer 1`` …
(as Kahoot's template names them); the correct ones as ``answer`` or
``correct`` (letters, or numbers from 1, several apart by commas or spaces);
``explanation``; and ``id`` or ``number`` to match translations. Other columns
(a time limit) are left aside. Cells are plain text and show as written; a
cell that holds a fenced code block (a line starting with three backticks) is
Markdown, so that its code keeps its indentation. The standard library's
``csv`` module reads the rows, in linear time.
"""

from __future__ import annotations

import csv
import io
from functools import partial
from pathlib import Path

from ..errors import Problems
from ..text.richtext import literal
from .quiz import LETTERS, Item, Quiz, Refusal


def read_csv_quiz(path: Path, text: str, problems: Problems) -> Quiz:
    """Every row of a CSV file (TSV when the file's name ends in .tsv) as a question."""
    return _read(path, text, "\t" if path.suffix.lower() == ".tsv" else ",", problems=problems)


def _read(path: Path, text: str, delimiter: str, *, problems: Problems) -> Quiz:
    quiz = Quiz(path, None)
    # A quoted cell may hold line breaks (code); csv's own limit keeps a cell below 128 KiB.
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter)
    try:
        header = next(reader, [])
        columns = _columns(header)
    except Refusal as refusal:
        problems.add(path, refusal.message, line=1, column=1, hint=refusal.hint)
        return quiz
    try:
        for row in reader:
            _add(quiz, path, reader.line_num, row=row, columns=columns, problems=problems)
    except csv.Error as err:
        problems.add(path, f"not a readable CSV row: {err}", line=reader.line_num, column=1, hint="fix the quoting")
    return quiz


def _columns(header: list[str]) -> dict[str, int]:
    """The role of each column the header names: "question", "A" … "F", "answer", "explanation", "number"."""
    columns: dict[str, int] = {}
    for index, cell in enumerate(header):
        role = _role(cell.strip().lower())
        if role and role not in columns:
            columns[role] = index
    if "question" not in columns or "A" not in columns or "answer" not in columns:
        raise Refusal(
            "the header names no question, option or answer column",
            "start the file with a header such as: question,A,B,C,D,answer,explanation",
        )
    return columns


def _role(name: str) -> str:
    for prefix in ("option ", "answer ", "choice "):
        rest = name.removeprefix(prefix).split(" ", 1)[0]
        if name.startswith(prefix) and rest.isdigit() and 1 <= int(rest) <= len(LETTERS):
            return LETTERS[int(rest) - 1]
        if name.startswith(prefix) and rest.upper() in LETTERS and len(rest) == 1:
            return rest.upper()
    if name.upper() in LETTERS and len(name) == 1:
        return name.upper()
    for role, names in _NAMES.items():
        if any(name.startswith(word) for word in names):
            return role
    return ""


#: Header words, by the role of their column (Kahoot's "Correct answer(s) - choose at least one" too).
_NAMES = {
    "question": ("question", "stem"),
    "answer": ("answer", "correct"),
    "explanation": ("explanation", "feedback"),
    "number": ("id", "number", "#"),
}


def _add(quiz: Quiz, path: Path, line: int, *, row: list[str], columns: dict[str, int], problems: Problems) -> None:
    if not any(cell.strip() for cell in row):
        return
    quiz.add(line, partial(_item, line, row, columns), problems)


def _item(line: int, row: list[str], columns: dict[str, int]) -> Item:
    def cell(role: str) -> str:
        index = columns.get(role)
        return row[index].strip() if index is not None and index < len(row) else ""

    cells = [cell(letter) for letter in LETTERS if letter in columns]
    while cells and not cells[-1]:
        cells.pop()  # a question with fewer options than the sheet has columns
    if "" in cells:
        raise Refusal("an empty option cell between two options", "fill the options from the first column on")
    options = tuple(_markdown(text) for text in cells)
    answer = _answer(cell("answer"), len(options))
    return Item(cell("number"), line, _markdown(cell("question")), options, answer, _markdown(cell("explanation")))


def _markdown(cell: str) -> str:
    """A cell as Markdown: as it is when it holds a code block (Markdown then), else plain text shown as typed."""
    fenced = any(line.lstrip(" ").startswith("```") for line in cell.split("\n"))
    return cell if fenced else literal(cell)


def _answer(written: str, count: int) -> tuple[str, ...]:
    """Letters (``B``, ``A,C``) or numbers from 1 (``2``, ``1,3``), as the correct options' letters."""
    parts = [part for part in written.replace(",", " ").replace(";", " ").split() if part]
    letters = [LETTERS[int(p) - 1] if p.isdigit() and 1 <= int(p) <= count else p.upper() for p in parts]
    if not letters or any(letter not in LETTERS[:count] for letter in letters):
        raise Refusal(
            f"the answer '{written}' names no option", f"write the correct letters (A to {LETTERS[count - 1]})"
        )
    return tuple(letter for letter in LETTERS if letter in letters)
