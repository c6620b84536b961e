"""Numbers that a right-to-left card would show reversed: a warning, with the fix.

In a Hebrew or Arabic paragraph the Unicode bidirectional algorithm lays a
number out left to right, but the characters around it right to left: a sign
typed before a number (``-128``) ends up after it (``128-``), and a range
written with an en dash or with spaces (``1 - 5``) shows its ends
swapped. Nothing is wrong in the text as typed, so only a look at the text can
tell: a left-to-right mark before the number, or the number written as code
(which the cards lay out left to right on its own), shows it as meant.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import Path

from ..errors import Problems, Severity
from ..languages import is_rtl
from ..model import Question

#: A sign right before a digit, where no letter or digit is glued to its left ("ל-20" reads right).
_SIGNED = re.compile(r"(?<![\w\u200e\u2066\u202a.,])([-+\u2212])(\d[\d.,]*\d|\d)")
#: Two numbers joined by a dash other than a lone hyphen, or by a hyphen with a space beside it; none
#: after a left-to-right mark, which lays the whole range out left to right.
#: A number starts only where no digit, point or comma is glued to its left: each run of them is read from its start.
_RANGE = re.compile(
    r"(?<![\d.,\u200e\u2066\u202a])(\d[\d.,]*\d|\d)(\s*[\u2010-\u2015\u2212~]\s*|\s+-\s*|\s*-\s+)(\d[\d.,]*\d|\d)"
)
#: What opens a stretch the cards lay out left to right whatever the card's direction: code and formulas.
_LEFT_TO_RIGHT_OPENER = re.compile(r"`+|~~~|\\\(|\\\[|\$\$?")
_CLOSER = {"\\(": "\\)", "\\[": "\\]"}
#: Each text of a translation, by its name there, and the field whose place points at it.
_FIELD_OF = {"question": "Question", "explanation": "Explanation", "answer": "Answer"}


def reversed_numbers(text: str) -> list[tuple[str, str]]:
    """The signed numbers and ranges a right-to-left card shows reversed: each as written in ``text``, and as
    the card shows it."""
    plain = _without_left_to_right(text)
    signed = [(m.group(0), m.group(2) + m.group(1)) for m in _SIGNED.finditer(plain)]
    return signed + [(m.group(0), m.group(3) + m.group(2) + m.group(1)) for m in _RANGE.finditer(plain)]


def _without_left_to_right(text: str) -> str:
    """``text`` with its code and formulas each a space: what is left is laid out in the card's direction.

    Linear in ``text``: each opener's closer is looked for once, and the text up to
    it is skipped; an opener that nothing closes is remembered, so that the same
    opener later (or a longer run of backquotes, which holds the shorter) is not
    looked for again.
    """
    parts: list[str] = []
    done = at = 0
    unclosed: dict[str, int] = {}
    while (opener := _LEFT_TO_RIGHT_OPENER.search(text, at)) is not None:
        token, at = opener.group(), opener.end()
        kind = token[0] if token[0] == "`" else token
        if len(token) >= unclosed.get(kind, len(text) + 1):
            continue
        end = _closed_at(text, token, at)
        if end is None:
            unclosed[kind] = len(token)
        elif end > at:
            parts += [text[done : opener.start()], " "]
            done = at = end
    return "".join([*parts, text[done:]])


def _closed_at(text: str, token: str, start: int) -> int | None:
    """Just after the closer of the stretch ``token`` opens at ``start``; None when nothing after closes it.

    A single ``$`` opens a formula only when text without a line break follows before the next ``$``:
    otherwise ``start`` is returned, and the next ``$`` is looked at in turn.
    """
    closer = _CLOSER.get(token, token)
    end = text.find(closer, start)
    if end == -1:
        return None
    if token == "$" and (end == start or "\n" in text[start:end]):
        return start
    return end + len(closer)


def check_question(path: Path, question: Question, problems: Problems) -> None:
    """Warn about each text of a right-to-left translation that holds a number shown reversed."""
    for lang in (lang for lang in question.translations if is_rtl(lang)):
        _check_texts(path, question, lang, problems=problems)


def _check_texts(path: Path, question: Question, lang: str, *, problems: Problems) -> None:
    translation = question.translations[lang]
    for name, text in translation.texts():
        found = reversed_numbers(text)
        if not found:
            continue
        field = _FIELD_OF.get(name, name.removeprefix("option-"))
        line, column = translation.marks.get(field, (question.place.line, question.place.column))
        problems.add(
            path,
            f"in '{lang}', {_listed(found)} in right-to-left text",
            line=line,
            column=column,
            hint='put a left-to-right mark before the number (write "\\u200E" in a double-quoted YAML string), '
            "or write it as code between backticks: `-128`",
            question=question.id,
            severity=Severity.WARNING,
        )


def _listed(found: Iterable[tuple[str, str]]) -> str:
    return ", ".join(f"'{written}' shows as '{shown}'" for written, shown in found)
