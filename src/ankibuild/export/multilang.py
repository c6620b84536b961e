"""One question in every language, for a Moodle course that shows each student their own.

Moodle's multi-language content filter shows, of a run of
``<span lang="xx" class="multilang">`` elements, the one in the student's
language. The filter reads exactly those two attributes, so no other (not even
``dir``) can go on the span. A question's languages share its answer, its
options' order and its settings; only the texts differ, and each becomes such a
run. Clozes cannot: each language's text has its own gaps, which Moodle would
ask one after the other. Categories keep the names of the bank's first
language: Moodle filters category names only where a site filters every text.
"""

from __future__ import annotations

import html
from collections.abc import Sequence
from dataclasses import replace

from ..kinds.platform import ExportedQuestion, PlatformQuestion, Shape

#: The language of a file for every language: ISO 639's code for several.
EVERY_LANGUAGE = "mul"


def moodle_lang(code: str) -> str:
    """A language code as Moodle names its language packs: ``pt-BR`` is ``pt_br``."""
    return code.lower().replace("-", "_")


def spans(texts: Sequence[tuple[str, str]]) -> str:
    """One text per language, as the filter reads it; languages without a text are left out."""
    return "".join(
        f'<span lang="{html.escape(moodle_lang(lang))}" class="multilang">{text}</span>' for lang, text in texts if text
    )


def merged(each: Sequence[ExportedQuestion]) -> ExportedQuestion | None:
    """A question's languages (in the bank's order) as one question; None for a cloze."""
    first = each[0]
    if first.question.shape is Shape.CLOZE:
        return None
    langs = [exported.lang for exported in each]
    asked = [exported.question for exported in each]

    def joined(text: Sequence[str]) -> str:
        return spans(list(zip(langs, text, strict=True)))

    options = tuple(
        replace(
            option,
            text=joined([q.options[index].text for q in asked]),
            feedback=joined([q.options[index].feedback for q in asked]),
        )
        for index, option in enumerate(first.question.options)
    )
    question: PlatformQuestion = replace(
        first.question,
        text=joined([q.text for q in asked]),
        explanation=joined([q.explanation for q in asked]),
        answer=joined([q.answer for q in asked]),
        options=options,
    )
    # Category names in the first language: Moodle filters them only where a site asks for it.
    return replace(first, lang=" ".join(langs), question=question)
