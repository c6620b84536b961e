"""Cloze: a text with parts hidden, ``{{c1::…}}``, a card for each cloze number, in Anki's own cloze note type.

A translation's ``question`` is the text with its clozes, ``explanation`` an
optional text shown on the back. Clozes may hold Markdown, code and formulas,
and a hint (``{{c1::answer::hint}}``); see :mod:`..clozetext` for how they are
read and written. Every translation hides the same cloze numbers: a number is a
card, and a translation that dropped or added one would give its language a
card more or less than the others, which is a mistake of translation (each
language's note is its own, so Anki would not mind).

The note type is Anki's cloze type: one card type whose templates show the
text with ``{{cloze:Text}}``, and a card for each number the note's fields hold
(Anki counts the numbers in every field, so the other fields hold none).

The cloze readers are loaded by the methods that read and render a text, which only a process that
processes a question file calls: a build's own process needs the kind, and not them, when a worker
processes its files or none is processed (see :mod:`ankibuild.load.fields`).
"""

from __future__ import annotations

import html
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, ClassVar

from ..model import Question, Translation
from ..yamlfiles.checker import Checker
from ..yamlfiles.reader import Map
from .base import CardType, Kind, Reading, Render, read_texts
from .schema import TEXT, Fragment, Schema

if TYPE_CHECKING:
    from .platform import PlatformQuestion

#: The note type's fields, in order: never change them once released.
FIELDS = ("ID", "Text", "Extra")
#: The first marker of a cloze, as the schema finds it in a text.
_A_CLOZE = r"\{\{c[1-9][0-9]*::"


class Cloze(Kind):
    name = "cloze"
    fields = FIELDS
    cards = (CardType("Cloze", "cloze-front.html", "cloze-back.html"),)
    # Not the text: Anki's Browse window shows the sort field, and the text holds every cloze's answer.
    sort_field = "ID"
    back_field = "Extra"
    question_keys: ClassVar[Mapping[str, bool]] = {}
    translation_keys: ClassVar[Mapping[str, bool]] = {"question": True, "explanation": False}
    cloze = True

    def read_translation(
        self, check: Checker, data: Map, question: str, *, where: tuple[int, int]
    ) -> tuple[Translation, bool]:
        read, valid = read_texts(check, data, question, where=where, keys=self.translation_keys)
        marks = {"Text": data.at("question"), "Extra": data.at("explanation")}
        clozes_ok = bool(read.question) and _clozes_ok(check, data, read.question, question=question)
        return replace(read, marks=marks), valid and clozes_ok

    def read_question(self, check: Checker, data: Map, question: str, *, texts: Mapping[str, Translation]) -> Reading:
        from ..text.richtext import read_clozes  # where files are processed only (see the module's help)

        numbers = {lang: frozenset(read_clozes(text.question).numbers) for lang, text in texts.items()}
        usual = Counter(numbers.values()).most_common(1)[0][0] if numbers else frozenset()
        agree = next((lang for lang, found in numbers.items() if found == usual), "")
        for lang, found in numbers.items():
            if found != usual:
                check.report(
                    data[lang].at("question"),
                    f"the '{lang}' text has clozes {_listed(found)}, but '{agree}' has {_listed(usual)}",
                    "every translation hides the same cloze numbers: each number is a card in every language",
                    question=question,
                )
        return Reading("", ok=all(found == usual for found in numbers.values()))

    def schema_fragment(self) -> Fragment:
        """No keys of its own on a question; a text with a cloze and an optional explanation."""
        text: Schema = {
            "description": "The text with its clozes: {{c1::hidden}} or {{c1::hidden::hint}}; "
            "each cloze number is a card, the same numbers in every language.",
            "allOf": [TEXT, {"type": "string", "pattern": _A_CLOZE}],
        }
        return Fragment({}, {"question": text, "explanation": TEXT})

    def note_fields(self, question: Question, text: Translation, render: Render) -> tuple[str, ...]:
        from ..text.clozes import anki_markers  # where files are processed only (see the module's help)

        # Its braces inert: Anki counts the clozes of every field, and the Extra field must make no card.
        extra = anki_markers(render("Extra", text.explanation)) if text.explanation else ""
        return html.escape(question.id), render("Text", text.question, clozes=True), extra

    def card_ords(self, fields: Sequence[str]) -> tuple[int, ...]:
        from ..text.clozemarkers import card_ords  # where files are processed only (see the module's help)

        return card_ords(fields)

    def platform_question(self, fields: Sequence[str], *, shuffle: bool) -> PlatformQuestion:
        from .platform import PlatformQuestion, Shape  # loaded only by a build that exports

        _, text, extra = fields
        return PlatformQuestion(Shape.CLOZE, text, extra)


def _clozes_ok(check: Checker, data: Map, text: str, *, question: str) -> bool:
    """Whether the text's clozes are sound, each problem reported at the text."""
    from ..text.richtext import read_clozes  # where files are processed only (see the module's help)

    reading = read_clozes(text)
    for message, hint in reading.problems:
        check.report(data.at("question"), message, hint, question=question)
    if not reading.numbers and not reading.problems:
        check.report(
            data.at("question"),
            "the text has no cloze",
            "hide a part of it as {{c1::hidden part}}; a second one as {{c2::…}}",
            question=question,
        )
    return bool(reading.numbers) and not reading.problems


def _listed(numbers: frozenset[int]) -> str:
    return ", ".join(f"c{number}" for number in sorted(numbers)) or "none"
