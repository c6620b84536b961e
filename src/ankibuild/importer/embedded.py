"""Read the gaps of Moodle's *Embedded answers (Cloze)* question, written in its text::

    A byte holds {1:SHORTANSWER:=8} bits, and {1:MULTICHOICE:=256~%0%255} [how many values?] values.

A gap is ``{weight:TYPE:answers}``; its answers are ``=right`` or ``%100%right``,
``~``-separated, each with an optional ``#feedback``; ``\\}``, ``\\#``, ``\\~``,
``\\/``, ``\\"`` and ``\\\\`` stand for themselves. A gap becomes a cloze when it has
exactly one answer that is right: what it hides is that answer. A multiple-choice
gap's wrong answers are what the student picks from, not part of the answer, so
they go. Anything the bank's cloze cannot hold is refused: several accepted
answers, partial credit, a numerical tolerance, feedback on the right answer.
A ``[hint]`` right after a gap is its hint, as ankibuild's own export writes it.

Each ``{`` is looked at once, and a gap's end is found by one scan forward, so
reading a text takes time in proportion to its length.
"""

from __future__ import annotations

import html

from .quiz import Hole, Refusal

#: Moodle's names of the gap types a cloze can hold, by the kind of answer they take.
_TYPES = {
    **dict.fromkeys(("SHORTANSWER", "SA", "MW", "SHORTANSWER_C", "SAC", "MWC"), "short"),
    **dict.fromkeys(("MULTICHOICE", "MC", "MCV", "MCH", "MCS", "MCVS", "MCHS"), "choice"),
    **dict.fromkeys(("MULTICHOICE_V", "MULTICHOICE_H", "MULTICHOICE_S", "MULTICHOICE_VS", "MULTICHOICE_HS"), "choice"),
    **dict.fromkeys(("NUMERICAL", "NM"), "number"),
}
#: The longest hint read after a gap: what follows a gap is looked at this far, and no farther.
_MAX_HINT = 200
_SPECIALS = '}#~/"\\'


def gapped(text: str) -> list[str | Hole]:
    """The text (HTML) cut at each gap: the pieces between gaps as written, each gap as its answer."""
    parts: list[str | Hole] = []
    start = index = 0
    while (index := text.find("{", index)) != -1:
        head = _head(text, index)
        if head is None:
            index += 1
            continue
        kind, body = head
        end = _end(text, body)
        if end == -1:
            raise Refusal("a gap's '{' is never closed", "close it with '}'")
        parts.append(text[start:index])
        hole, start = _hole(kind, text[body:end]), end + 1
        hint, start = _hint(text, start)
        parts.append(Hole(hole, hint))
        index = start
    parts.append(text[start:])
    return parts


def _head(text: str, index: int) -> tuple[str, int] | None:
    """The gap type and where its answers start, for a ``{`` that opens a gap; else None."""
    at = index + 1
    while at < len(text) and text[at].isdigit():
        at += 1
    if not text.startswith(":", at):
        return None
    colon = at + 1
    at = colon
    while at < len(text) and (text[at].isalpha() or text[at] == "_"):
        at += 1
    if at == colon or not text.startswith(":", at):
        return None
    name = text[colon:at]
    kind = _TYPES.get(name.upper())
    if kind is None:
        raise Refusal(f"a gap of type '{name}'", "the bank's cloze holds short-answer and multiple-choice gaps")
    return kind, at + 1


def _end(text: str, start: int) -> int:
    """The index of the gap's unescaped ``}``, or -1."""
    at = start
    while at < len(text):
        if text[at] == "\\":
            at += 2
        elif text[at] == "}":
            return at
        else:
            at += 1
    return -1


def _pieces(body: str, stop: str) -> list[str]:
    """``body`` cut at each unescaped ``stop``."""
    pieces, current, at = [], [], 0
    while at < len(body):
        char = body[at]
        if char == "\\":
            current.append(body[at : at + 2])
            at += 2
            continue
        if char == stop:
            pieces.append("".join(current))
            current = []
        else:
            current.append(char)
        at += 1
    return [*pieces, "".join(current)]


def _unescaped(raw: str) -> str:
    """An answer as the student sees it: Moodle's escapes undone, then the HTML's entities."""
    out, at = [], 0
    while at < len(raw):
        if raw[at] == "\\" and raw[at + 1 : at + 2] in _SPECIALS and at + 1 < len(raw):
            out.append(raw[at + 1])
            at += 2
        else:
            out.append(raw[at])
            at += 1
    return html.unescape("".join(out)).strip()


def _hole(kind: str, body: str) -> str:
    """The one right answer of a gap's answers, or the reason it has none the bank can hold."""
    right: list[str] = []
    for answer in _pieces(body, "~"):
        text, feedback = _feedback(answer)
        weight, text = _weight(text)
        if weight == 0:
            continue
        if weight != 100:
            raise Refusal(f"a gap's answer worth {weight:g} %", "a cloze holds one answer, fully right")
        if feedback:
            raise Refusal("feedback on a gap's right answer", "a cloze shows none: move it to the explanation")
        right.append(text)
    if len(right) != 1:
        found = "no right answer" if not right else "several accepted answers"
        raise Refusal(f"a gap with {found}", "a cloze hides exactly one answer")
    if kind == "number" and _tolerance(right[0]):
        raise Refusal("a numerical gap with a tolerance", "a cloze hides one exact answer")
    return _unescaped(right[0])


def _feedback(answer: str) -> tuple[str, str]:
    parts = _pieces(answer, "#")
    return parts[0], "#".join(parts[1:]).strip()


def _weight(answer: str) -> tuple[float, str]:
    """An answer's weight in percent (``=`` is 100, none is 0) and its text."""
    stripped = answer.strip()
    if stripped.startswith("="):
        return 100.0, stripped[1:]
    if stripped.startswith("%"):
        end = stripped.find("%", 1)
        try:
            return float(stripped[1:end]), stripped[end + 1 :]
        except ValueError:
            raise Refusal(f"the weight '{stripped[: end + 1]}' is not a number", "write it as %100%") from None
    return 0.0, stripped


def _tolerance(answer: str) -> bool:
    """Whether a numerical answer, ``3.14:0.01``, accepts more than its value."""
    _, colon, tolerance = _unescaped(answer).partition(":")
    try:
        return bool(colon) and float(tolerance) != 0
    except ValueError:
        return True


def _hint(text: str, start: int) -> tuple[str | None, int]:
    """The ``[hint]`` right after a gap (one space between), and where the text goes on."""
    at = start + 1 if text.startswith(" [", start) else start
    if not text.startswith("[", at):
        return None, start
    end = text.find("]", at, at + _MAX_HINT)
    inside = text[at + 1 : end] if end != -1 else ""
    if end == -1 or "[" in inside or "<" in inside or "\n" in inside:
        return None, start
    return html.unescape(inside).strip(), end + 1
