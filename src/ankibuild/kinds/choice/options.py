"""What a multiple-choice question is made of besides its texts: its options, named by their letters."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from ...model import Question, Translation

#: The letters that name a question's options, in order (at most six).
LETTERS: tuple[str, ...] = ("A", "B", "C", "D", "E", "F")


@dataclass(frozen=True)
class Options:
    """The options of a multiple-choice translation, and a short text per option shown beside it once
    answered ("" where there is none): the translation's own texts (:attr:`Translation.own`)."""

    texts: tuple[str, ...]
    feedback: tuple[str, ...] = ()

    def leading(self) -> Iterator[tuple[str, str]]:
        """Each option, after the question."""
        for letter, option in zip(LETTERS, self.texts, strict=False):
            yield f"option-{letter}", option

    def trailing(self) -> Iterator[tuple[str, str]]:
        """Each option's feedback, where there is one, last."""
        for letter, feedback in zip(LETTERS, self.feedback, strict=False):
            if feedback:
                yield f"feedback-{letter}", feedback


_NONE = Options(())


def written_options(text: Translation) -> Options:
    """A translation's options (none, for a translation of another kind)."""
    return text.own if isinstance(text.own, Options) else _NONE


def several_correct(question: Question) -> bool:
    """Whether a multiple-choice question has several correct options (their letters, space-separated)."""
    return " " in question.answer
