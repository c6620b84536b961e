"""A flashcard: a question on the front, its answer on the back, and an optional explanation.

With ``reverse: true`` a note has a second card that asks the other way round
(the answer on the front). As in Anki's own "optional reversed card" note
type, that card's front is empty unless the note's Reverse field is filled, so
Anki makes it for reversed notes only; a build writes exactly those cards.
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
FIELDS: tuple[str, ...] = ("ID", "Question", "Answer", "Explanation", "Reverse")
#: What the Reverse field holds for a note that has the reverse card (empty otherwise).
REVERSED = "y"


class Flashcard(Kind):
    name = "flashcard"
    fields = FIELDS
    cards = (
        CardType("Flashcard", "flashcard-front.html", "flashcard-back.html"),
        CardType("Flashcard reversed", "flashcard-reverse-front.html", "flashcard-reverse-back.html"),
    )
    # Not the question: Anki's Browse window shows the sort field, and the question is the reverse card's answer.
    sort_field = "ID"
    question_keys: ClassVar[Mapping[str, bool]] = {"reverse": False}
    translation_keys: ClassVar[Mapping[str, bool]] = {"question": True, "answer": True, "explanation": False}

    def read_translation(
        self, check: Checker, data: Map, question: str, *, where: tuple[int, int]
    ) -> tuple[Translation, bool]:
        return read_texts(check, data, question, where=where, keys=self.translation_keys)

    def read_question(self, check: Checker, data: Map, question: str, *, texts: Mapping[str, Translation]) -> Reading:
        reverse = data.get("reverse", False)
        if not isinstance(reverse, bool):
            shown = f"'{reverse}'" if isinstance(reverse, str) else type_name(reverse)
            hint = "write true for a second card that asks the other way round, or false (without quotes)"
            check.report(data.at("reverse"), f"'reverse' must be true or false, not {shown}", hint, question=question)
            return Reading("", ok=False)
        return Reading("", ok=True, flags=frozenset({"reverse"} if reverse else ()))

    def schema_fragment(self) -> Fragment:
        """Whether there is a reverse card; the question, its answer and an optional explanation."""
        reverse: Schema = {
            "description": "A second card that asks the other way round: the answer on its front.",
            "type": "boolean",
        }
        return Fragment({"reverse": reverse}, {"question": TEXT, "answer": TEXT, "explanation": TEXT})

    def note_fields(self, question: Question, text: Translation, render: Render) -> tuple[str, ...]:
        front, back = render("Question", text.question), render("Answer", text.answer)
        explanation = render("Explanation", text.explanation) if text.explanation else ""
        return html.escape(question.id), front, back, explanation, REVERSED if "reverse" in question.flags else ""

    def card_ords(self, fields: Sequence[str]) -> tuple[int, ...]:
        return (0, 1) if fields[FIELDS.index("Reverse")] else (0,)

    def platform_question(self, fields: Sequence[str], *, shuffle: bool) -> PlatformQuestion:
        from .platform import PlatformQuestion, Shape  # loaded only by a build that exports

        _, question, answer, explanation, _ = fields
        return PlatformQuestion(Shape.ESSAY, question, explanation, answer=answer)
