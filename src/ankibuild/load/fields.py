"""A question's note rendered: its fields made from its texts, in one language.

Apart from :mod:`.render`, which the build's own process needs for the notes' shape and the card
templates: this one, and the renderers it loads (Markdown, formulas, clozes), only a process that
processes a question file does, which after one edit is a worker (see :class:`.deckfiles._Computing`).
"""

from __future__ import annotations

from dataclasses import dataclass

from ..errors import Problems, Severity
from ..kinds import KINDS
from ..links import REPORT_TEXT, with_report_link
from ..model import Bank, Question
from ..text.media import Media, MediaError
from ..text.richtext import to_html, without_markdown
from .render import RenderedNote


@dataclass
class _FieldResources:
    """Images and warnings of one text, reported at the line it was written on."""

    media: Media
    problems: Problems
    question: Question
    where: tuple[int, int]
    used: list[str]

    def image(self, reference: str) -> str | None:
        try:
            file = self.media.image(reference, self.question.place.path.parent)
        except MediaError as err:
            self._report(err.message, err.hint, Severity.ERROR)
            return None
        self.used.append(file.name)
        return file.name

    def warn(self, message: str, hint: str) -> None:
        self._report(message, hint, Severity.WARNING)

    def refuse(self, message: str, hint: str) -> None:
        self._report(message, hint, Severity.ERROR)

    def _report(self, message: str, hint: str, severity: Severity) -> None:
        line, column = self.where
        self.problems.add(
            self.question.place.path,
            message,
            line=line,
            column=column,
            hint=hint,
            question=self.question.id,
            severity=severity,
        )


def render_note(
    bank: Bank, deck_key: str, question: Question, *, lang: str, media: Media, problems: Problems
) -> RenderedNote:
    """A question's note in one language; image and code problems go to ``problems``."""
    text = question.translations[lang]
    used: list[str] = []

    def render(name: str, value: str, *, clozes: bool = False) -> str:
        plain = None if clozes else without_markdown(value, lang)
        if plain is not None:
            return plain
        where = text.marks.get(name, (question.place.line, question.place.column))
        return to_html(value, _FieldResources(media, problems, question, where, used), lang, clozes=clozes)

    kind = KINDS[question.kind]
    fields = kind.note_fields(question, text, render)
    if bank.report:  # most banks link to no report: nothing to look up for every note
        words = bank.report_words.get(lang, REPORT_TEXT)
        fields = with_report_link(
            bank.report, kind.fields.index(kind.back_field), question.id, lang=lang, fields=fields, words=words
        )
    guid = kind.note_guid(bank.id, question.id, lang)
    images = tuple(sorted(set(used))) if used else ()  # most notes show no image
    return RenderedNote.of(question, lang, deck_key, fields=fields, media=images, guid=guid)
