"""Read a GIFT file, the text format Moodle exports question banks in::

    // comments are left out
    $CATEGORY: $course$/top/Git           the file's title: the category's last part

    ::Q1::[html]<p>Which command lists branches?</p>{
        ~<p>git log</p>#<p>It lists commits.</p>     a wrong option, with its feedback
        =<p>git branch</p>                          the correct option
        ####<p>It lists the local branches.</p>      general feedback: the explanation
    }

    ::Q2::Git is written in C.{TRUE}             true or false

    ::Q3::Which are version control systems?{   several correct: positive weights
        ~%50%Git  ~%50%Mercurial  ~%-100%Make
    }

Questions are apart by a blank line. Each is scanned once, by hand, with
GIFT's escapes (``\\~ \\= \\# \\{ \\} \\:``); no pattern could backtrack on it. Text
in ``[html]`` (what Moodle writes) becomes Markdown when it uses only
paragraphs, line breaks, emphasis and code; other HTML, and the kinds of
question the bank has none of (short answer, numerical, matching, essay, a
gap in mid-sentence), are refused at the question's line.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from functools import partial
from pathlib import Path

from ..errors import Problems
from .htmltext import as_markdown
from .quiz import LETTERS, Hole, Item, Quiz, Refusal, clozed, holed

#: What a backslash escapes in GIFT; ``\\n`` is a line break.
_ESCAPED = "~=#{}:\\"


@dataclass(frozen=True)
class _Answer:
    """An answer of a GIFT question: whether it is right, its text and its feedback."""

    correct: bool
    text: str
    feedback: str


def read_gift_quiz(path: Path, text: str, problems: Problems) -> Quiz:
    """Every question of a GIFT file; those that cannot be read exactly are reported and left out."""
    quiz = Quiz(path, None)
    for line, block in _blocks(text):
        if block.startswith("$CATEGORY:"):
            quiz.title = quiz.title or category_title(block.removeprefix("$CATEGORY:"))
            continue
        quiz.add(line, partial(_question, line, block), problems)
    return quiz


def category_title(category: str) -> str | None:
    """The last part of a Moodle category, ``$course$/top/Git``: what the questions are about.

    Moodle writes a "/" inside a name as "//": only a single "/" parts the path.
    """
    last = category.strip().replace("//", "\0").rstrip("/").rsplit("/", 1)[-1].replace("\0", "/").strip()
    return None if not last or last.startswith("$") or last in ("top", "Default") else last


def _blocks(text: str) -> Iterator[tuple[int, str]]:
    """(first line, text) of each question: lines apart by a blank line outside braces, comments left out."""
    lines: list[str] = []
    first = depth = 0
    for number, line in enumerate(text.splitlines(), 1):
        if depth == 0 and line.lstrip().startswith("//"):
            continue
        if depth == 0 and not line.strip():
            if lines:
                yield first, "\n".join(lines).strip()
            lines = []
            continue
        first = first if lines else number
        lines.append(line)
        depth = max(0, depth + _braces(line))
    if lines:
        yield first, "\n".join(lines).strip()


def _braces(line: str) -> int:
    """How many unescaped braces a line opens, less those it closes."""
    depth = 0
    escaped = False
    for char in line:
        if escaped:
            escaped = False
        elif char == "\\":
            escaped = True
        elif char in "{}":
            depth += 1 if char == "{" else -1
    return depth


def _split(raw: str, stop: str, start: int = 0) -> int:
    """The index of the first unescaped ``stop`` from ``start``, or -1."""
    index = start
    while index < len(raw):
        if raw[index] == "\\":
            index += 2
            continue
        if raw.startswith(stop, index):
            return index
        index += 1
    return -1


def _unescape(raw: str) -> str:
    out: list[str] = []
    index = 0
    while index < len(raw):
        char = raw[index]
        following = raw[index + 1 : index + 2]
        if char == "\\" and following in _ESCAPED:
            out.append(following)
            index += 2
        elif char == "\\" and following == "n":
            out.append("\n")
            index += 2
        else:
            out.append(char)
            index += 1
    return "".join(out)


# -- one question -----------------------------------------------------------------


def _question(line: int, block: str) -> Item:
    title, rest = _title(block)
    opening = _split(rest, "{")
    if opening == -1:
        raise Refusal("no answers in braces: a description, not a question", "leave it out of the file")
    closing = _split(rest, "}", opening)
    if closing == -1:
        raise Refusal("the answers' '{' is never closed", "close it with '}' (write '\\}' for a brace in text)")
    form, stem = _format(rest[:opening])
    if rest[closing + 1 :].strip():
        return _missing_word(line, title, form, pieces=(stem, rest[opening + 1 : closing], rest[closing + 1 :]))
    question = _text(stem.strip(), form)
    # The title is what Moodle names the question by: it matches the question's translations.
    return _answers(line, title, question, raw=rest[opening + 1 : closing], form=form)


def _missing_word(line: int, number: str, form: str, *, pieces: tuple[str, str, str]) -> Item:
    """GIFT's missing word, ``The {=cat ~dog} sat.``: a cloze hiding the one right answer; the wrong
    ones are what the student picks from, so they go. A ``[hint]`` right after the braces is the
    cloze's hint, as ankibuild's own export writes it."""
    before, raw, after = pieces
    general = _split(raw, "####")
    explanation = _own_text(raw[general + 4 :].strip(), form) if general != -1 else ""
    body = raw[:general] if general != -1 else raw
    if _truth(body) is not None:
        raise Refusal("a true/false answer in the middle of the sentence", "move the answers to the end")
    right = [answer for answer in _options(body, form) if answer.correct]
    if len(right) != 1:
        found = "no right answer" if not right else "several accepted answers"
        raise Refusal(f"a missing word with {found}", "a cloze hides exactly one answer: mark one with '='")
    if right[0].feedback:
        raise Refusal("feedback on the missing word's answer", "a cloze shows none: move it to the explanation")
    hint, after = _gap_hint(after)
    if _split(after, "{") != -1:
        raise Refusal("a second set of answers in the sentence", "a missing word has one gap")
    text = as_markdown(holed([_unescape(before), Hole(right[0].text, hint), _unescape(after.rstrip())]), form)
    return Item(number, line, clozed(text, [Hole(right[0].text, hint)]), (), (), explanation, cloze=True)


def _gap_hint(after: str) -> tuple[str | None, str]:
    """The ``[hint]`` that starts the text after the braces (one space before it), and the rest."""
    start = 1 if after.startswith(" [") else 0
    if not after.startswith("[", start):
        return None, after
    end = _split(after, "]", start)
    inside = after[start + 1 : end] if end != -1 else ""
    if end == -1 or "[" in inside or "\n" in inside:
        return None, after
    return _unescape(inside).strip(), after[end + 1 :]


def _title(block: str) -> tuple[str, str]:
    if not block.startswith("::"):
        return "", block
    end = _split(block, "::", 2)
    if end == -1:
        raise Refusal("the title's '::' is never closed", "write ::title:: before the question")
    return _unescape(block[2:end]).strip(), block[end + 2 :].lstrip()


def _format(raw: str, default: str = "moodle") -> tuple[str, str]:
    """The text format ``[html]``, ``[markdown]``, ``[plain]``, ``[moodle]`` (else ``default``) and the text after."""
    stripped = raw.lstrip()
    if stripped.startswith("["):
        end = stripped.find("]")
        name = stripped[1:end] if end != -1 else ""
        if name in ("html", "markdown", "plain", "moodle"):
            return name, stripped[end + 1 :]
    return default, raw


def _answers(line: int, number: str, question: str, *, raw: str, form: str) -> Item:
    general = _split(raw, "####")
    explanation = _own_text(raw[general + 4 :].strip(), form) if general != -1 else ""
    body = raw[:general] if general != -1 else raw
    truth = _truth(body)
    if truth is not None:
        return Item(number, line, question, (), (), explanation, truth=truth)
    answers = _options(body, form)
    if not answers:
        raise Refusal("no options: an essay question", "the bank holds questions with options to choose from")
    if all(answer.correct for answer in answers):
        raise Refusal("no wrong option: a short-answer question", "add wrong options with '~'")
    letters = tuple(LETTERS[i] for i, answer in enumerate(answers) if answer.correct and i < len(LETTERS))
    texts = tuple(answer.text for answer in answers)
    feedback = tuple(answer.feedback for answer in answers)
    return Item(number, line, question, texts, letters, explanation, feedback if any(feedback) else ())


def _truth(body: str) -> bool | None:
    """True or false for ``{T}``, ``{FALSE#feedback}`` …; None for any other answers."""
    stated = _unescape(body[: _split(body, "#")] if _split(body, "#") != -1 else body).strip().upper()
    return {"T": True, "TRUE": True, "F": False, "FALSE": False}.get(stated)


def _options(body: str, form: str) -> list[_Answer]:
    """Each ``=right`` or ``~wrong`` answer (``~%50%`` counts as right), with its ``#feedback``."""
    if body.strip().startswith("#"):
        raise Refusal("a numerical question", "the bank holds questions with options to choose from")
    starts = list(_marks(body))
    if not starts:
        # An essay's empty braces: no answer to pair with the end of the body.
        if body.strip():
            raise Refusal("text before the first '=' or '~' in the answers", "start each answer with '=' or '~'")
        return []
    if body[: starts[0]].strip():
        raise Refusal("text before the first '=' or '~' in the answers", "start each answer with '=' or '~'")
    answers = []
    for start, end in zip(starts, [*starts[1:], len(body)], strict=True):
        answers.append(_answer(body[start], body[start + 1 : end], form))
    return answers


def _marks(body: str) -> Iterator[int]:
    index = 0
    while index < len(body):
        if body[index] == "\\":
            index += 2
            continue
        if body[index] in "=~":
            yield index
        index += 1


def _answer(mark: str, raw: str, form: str) -> _Answer:
    if _split(raw, "->") != -1:
        raise Refusal("a matching question", "the bank holds questions with options to choose from")
    weight, raw = _weight(raw.strip()) if raw.strip().startswith("%") else (None, raw)
    hash_at = _split(raw, "#")
    text, feedback = (raw[:hash_at], raw[hash_at + 1 :]) if hash_at != -1 else (raw, "")
    correct = mark == "=" or (weight is not None and weight > 0)
    return _Answer(correct, _own_text(text.strip(), form), _own_text(feedback.strip(), form))


def _weight(raw: str) -> tuple[float, str]:
    end = raw.find("%", 1)
    try:
        return float(raw[1:end]), raw[end + 1 :]
    except ValueError:
        raise Refusal(f"the weight '{raw[: end + 1]}' is not a number", "write it as %50% or %-100%") from None


# -- text -------------------------------------------------------------------------


def _text(raw: str, form: str) -> str:
    """GIFT text in its format, as Markdown that shows it."""
    return as_markdown(_unescape(raw), form)


def _own_text(raw: str, form: str) -> str:
    """An answer, a feedback or the general feedback: each may name its own format, as Moodle writes them,
    else it is in the question's."""
    own, text = _format(raw, form)
    return _text(text.strip(), own)
