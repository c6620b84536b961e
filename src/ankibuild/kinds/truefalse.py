"""True or false: a statement, whether it is true, and an explanation.

The card offers the two choices in the card's language; the student picks one,
flips, and the back says whether the choice was right and marks the true
answer (from the note's answer field alone when the card script cannot run).
"""

from __future__ import annotations

import html
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, ClassVar

from ..model import Question, Translation
from ..yamlfiles.checker import Checker, type_name
from ..yamlfiles.reader import Map
from .base import CardType, Kind, Reading, Render, read_texts
from .schema import TEXT, Fragment, Schema

if TYPE_CHECKING:
    from .platform import PlatformQuestion

#: The note type's fields, in order. Never change them after a release.
FIELDS: tuple[str, ...] = ("ID", "Question", "Answer", "Explanation")


class TrueFalse(Kind):
    name = "truefalse"
    fields = FIELDS
    cards = (CardType("True or false", "truefalse-front.html", "truefalse-back.html"),)
    sort_field = "Question"
    question_keys: ClassVar[Mapping[str, bool]] = {"answer": True}
    translation_keys: ClassVar[Mapping[str, bool]] = {"question": True, "explanation": False}
    wants_explanation = True

    def read_translation(
        self, check: Checker, data: Map, question: str, *, where: tuple[int, int]
    ) -> tuple[Translation, bool]:
        return read_texts(check, data, question, where=where, keys=self.translation_keys)

    def read_question(self, check: Checker, data: Map, question: str, *, texts: Mapping[str, Translation]) -> Reading:
        answer = data.get("answer")
        if "answer" not in data:
            return Reading("", ok=False)  # reported as a missing key already
        if not isinstance(answer, bool):
            shown = f"'{answer}'" if isinstance(answer, str) else type_name(answer)
            hint = "write true or false, without quotes: whether the statement is right, in every language"
            check.report(
                data.at("answer"),
                f"the answer of a true/false question must be true or false, not {shown}",
                hint,
                question=question,
            )
            return Reading("", ok=False)
        return Reading("true" if answer else "false", ok=True)

    def schema_fragment(self) -> Fragment:
        """Whether the statement is true; the statement and its explanation."""
        answer: Schema = {"description": "Whether the statement is true, in every language.", "type": "boolean"}
        return Fragment({"answer": answer}, {"question": TEXT, "explanation": TEXT})

    def note_fields(self, question: Question, text: Translation, render: Render) -> tuple[str, ...]:
        statement = render("Question", text.question)
        explanation = render("Explanation", text.explanation) if text.explanation else ""
        return html.escape(question.id), statement, question.answer, explanation

    def platform_question(self, fields: Sequence[str], *, shuffle: bool) -> PlatformQuestion:
        from .platform import PlatformQuestion, Shape  # loaded only by a build that exports

        _, statement, answer, explanation = fields
        return PlatformQuestion(Shape.TRUEFALSE, statement, explanation, truth=answer == "true")
