"""A question as a learning platform holds it: what every export format writes, whatever the kind.

A kind makes one from a note's fields (:meth:`~ankibuild.kinds.base.Kind.platform_question`),
so the texts are the HTML the cards show, rendered once: text a bank writes is
escaped in it already, and a format only has to carry it without reading it.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, replace


class Shape(enum.StrEnum):
    """What a platform asks of the student."""

    #: Pick one option, or tick every correct one (:attr:`PlatformQuestion.several`).
    CHOICE = "choice"
    #: Judge a statement true or false.
    TRUEFALSE = "truefalse"
    #: Write an answer that a teacher grades: a flashcard's answer is free recall, which no
    #: automatic comparison judges fairly (a synonym, a formula written another way).
    ESSAY = "essay"
    #: Fill in the gaps of a text: its clozes (:mod:`ankibuild.clozes` reads them).
    CLOZE = "cloze"


@dataclass(frozen=True)
class PlatformOption:
    """One option of a multiple-choice question."""

    #: The option as the card shows it (HTML), without its feedback.
    text: str
    correct: bool
    #: Shown to a student who chose it (HTML); "" where there is none.
    feedback: str = ""
    #: Keeps its place when the options are shuffled ("None of the above").
    pinned: bool = False
    #: Its name in the question, the letter its kind gives it: a format may show it or name the option by it.
    letter: str = ""


@dataclass(frozen=True)
class PlatformQuestion:
    """A note's question for a platform: its texts as HTML, and what counts as its answer."""

    shape: Shape
    #: The question, the statement, or the text with its clozes (Anki's markers), as HTML.
    text: str
    #: Shown once the question is answered (HTML); "" where there is none.
    explanation: str = ""
    options: tuple[PlatformOption, ...] = ()
    #: The options in a new order for each student.
    shuffle: bool = False
    #: A true/false question's answer.
    truth: bool = False
    #: An essay's model answer, for the teacher who grades it (HTML).
    answer: str = ""

    @property
    def several(self) -> bool:
        """Whether several options are correct: the student then ticks all that apply."""
        return sum(option.correct for option in self.options) > 1

    @property
    def general_feedback(self) -> str:
        """What every student sees once they answered: an essay's model answer, then the explanation."""
        return "<br>".join(text for text in (self.answer, self.explanation) if text)

    def right_to_left(self) -> PlatformQuestion:
        """The question with each text marked as read from right to left: a platform shows it in the
        direction of the page around it, which may be another language's."""

        def marked(text: str) -> str:
            return f'<div dir="rtl">{text}</div>' if text else ""

        options = tuple(replace(o, text=marked(o.text), feedback=marked(o.feedback)) for o in self.options)
        return replace(
            self,
            text=marked(self.text),
            explanation=marked(self.explanation),
            answer=marked(self.answer),
            options=options,
        )

    def grade(self, option: PlatformOption) -> str:
        """An option's share of the question's mark, in percent, as Moodle writes it.

        With one correct option, that option 100 and the others 0, as Moodle's own
        single-answer questions. With several, each correct one 100 divided by their
        number and each wrong one minus 100 divided by the number of wrong ones, so
        that ticking every option scores nothing (a platform never lets a question's
        total fall below 0). Every share is one Moodle offers (50, 33.33333, -25...).
        """
        right = sum(each.correct for each in self.options)
        if right == 1:
            return "100" if option.correct else "0"
        share = 100 / right if option.correct else -100 / (len(self.options) - right)
        return f"{share:.5f}".rstrip("0").rstrip(".")


@dataclass(frozen=True)
class ExportedQuestion:
    """A platform question with what places it: its id, language, category and tags."""

    id: str
    #: Its language; several, space-separated, in a file for every language (:mod:`.multilang`).
    lang: str
    #: The bank's title and the deck's, in its language: where a platform files it.
    category: tuple[str, ...]
    #: Its topics, as the packages tag it.
    tags: tuple[str, ...]
    question: PlatformQuestion


@dataclass(frozen=True)
class Omission:
    """What a format cannot hold of a question (the question itself, or a part of it), to be warned about."""

    question_id: str
    lang: str
    #: What is lost and why, in a student's words.
    reason: str
    #: The whole question is left out of the file (else a part of it is lost).
    whole: bool = True
