"""GIFT: Moodle's plain-text question format, one question after another, a blank line between.

Every text is the card's HTML after ``[html]``, with GIFT's own characters
(``~ = # { } :`` and the backslash) escaped by a backslash and each line break
written ``\\n``, so that no text a bank writes can end a question or start an
answer: Moodle's importer reads every escape back. The question's id is its
name (``::id::``), which is all GIFT holds of it.

GIFT has no place for a file: a question that shows an image is left out, with
a warning, rather than asked without the picture it needs. A cloze of one gap
is GIFT's "missing word", a short answer inside its text; one of several gaps
is left out with a warning too. Grades follow :meth:`PlatformQuestion.grade`.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from ..kinds.platform import ExportedQuestion, Omission, PlatformQuestion, Shape
from ..text.clozemarkers import Gap, gaps
from .texts import images, plain

#: Escaped with a backslash wherever they stand: each means something to GIFT.
_SPECIALS = {character: "\\" + character for character in "\\~=#{}:"} | {"\n": "\\n", "\r": ""}


def gift(questions: Sequence[ExportedQuestion]) -> tuple[bytes, list[Omission]]:
    """The GIFT file of these questions, and what it cannot hold of them."""
    lines: list[str] = []
    left_out: list[Omission] = []
    category: tuple[str, ...] = ()
    for exported in questions:
        reason = _unsupported(exported.question)
        if reason:
            left_out.append(Omission(exported.id, exported.lang, reason))
            continue
        pinned = [option.letter for option in exported.question.options if option.pinned]
        if pinned and exported.question.shuffle:
            reason = f"option {', '.join(pinned)} may move: GIFT cannot pin an option (the quiz decides on shuffling)"
            left_out.append(Omission(exported.id, exported.lang, reason, whole=False))
        if exported.category != category:
            category = exported.category
            lines += [f"$CATEGORY: {_category(category)}", ""]
        lines += [*_question(exported), ""]
    return "\n".join(lines).encode(), left_out


def _unsupported(asked: PlatformQuestion) -> str:
    held = sum(isinstance(part, Gap) for part in gaps(asked.text)) if asked.shape is Shape.CLOZE else 1
    if held != 1:
        return f"the cloze question is left out: GIFT's missing word is one gap, and its text has {held}"
    shown = (asked.text, asked.explanation, asked.answer, *(t for o in asked.options for t in (o.text, o.feedback)))
    if any(images(text) for text in shown):
        return "the question is left out: GIFT cannot hold the image it shows"
    return ""


def _category(names: Sequence[str]) -> str:
    # Moodle splits a category path at "/", and reads "//" as a "/" of the name.
    return "/".join(("$course$", "top", *(" ".join(name.split()).replace("/", "//") for name in names)))


def _question(exported: ExportedQuestion) -> Iterator[str]:
    asked = exported.question
    before, answers, after = _parts(asked)
    yield f"::{escape(exported.id)}::{_html(before)}{{"
    yield from answers
    # Moodle reads the general feedback after the last "####": an essay's model answer goes there too.
    if asked.general_feedback:
        yield f"####{_html(asked.general_feedback)}"
    yield "}" + escape(after)


def _parts(asked: PlatformQuestion) -> tuple[str, list[str], str]:
    """The text before the answers, the answers' lines, and the text after them: a cloze of one gap is
    GIFT's missing word, a short answer in the middle of its text (its hint after it, as on the card)."""
    if asked.shape is not Shape.CLOZE:
        return asked.text + " ", list(_ANSWERS[asked.shape](asked)), ""
    parts = gaps(asked.text)
    [(index, gap)] = [(index, part) for index, part in enumerate(parts) if isinstance(part, Gap)]
    hint = f" [{gap.hint}]" if gap.hint is not None else ""
    # What the gap hides is what the student types: plain text.
    return (
        "".join(map(str, parts[:index])),
        [f"\t={escape(plain(gap.hidden))}"],
        hint + "".join(map(str, parts[index + 1 :])),
    )


def _choice(asked: PlatformQuestion) -> Iterator[str]:
    for option in asked.options:
        grade = asked.grade(option)
        # "=" marks the one correct option; weights make "several correct" (never 100 for one of them).
        mark = ("=" if option.correct else "~") if not asked.several else f"~%{grade}%"
        yield f"\t{mark}{_html(option.text)}" + (f"#{_html(option.feedback)}" if option.feedback else "")


def _truefalse(asked: PlatformQuestion) -> Iterator[str]:
    yield "TRUE" if asked.truth else "FALSE"


def _essay(asked: PlatformQuestion) -> Iterator[str]:
    """No answer at all: GIFT's essay."""
    yield from ()


_ANSWERS = {Shape.CHOICE: _choice, Shape.TRUEFALSE: _truefalse, Shape.ESSAY: _essay}


def _html(text: str) -> str:
    return "[html]" + escape(text)


def escape(text: str) -> str:
    """A text as GIFT reads it back unchanged."""
    return "".join(_SPECIALS.get(character, character) for character in text)
