"""What a multiple-choice question is made of besides its texts: its options, named by their letters."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from operator import itemgetter

from ...model import Question, Translation

#: The letters that name a question's options, in order (at most six).
LETTERS: tuple[str, ...] = ("A", "B", "C", "D", "E", "F")
#: Each option's name among a translation's texts, and that of its feedback: made once, as a
#: build goes over the texts of every translation (to hash them for the translations record).
_OPTION_NAMES = tuple(f"option-{letter}" for letter in LETTERS)
_FEEDBACK_NAMES = tuple(f"feedback-{letter}" for letter in LETTERS)


@dataclass(frozen=True)
class Options:
    """The options of a multiple-choice translation, and a short text per option shown beside it once
    answered ("" where there is none): the translation's own texts (:attr:`Translation.own`)."""

    texts: tuple[str, ...]
    feedback: tuple[str, ...] = ()

    def leading(self) -> Iterator[tuple[str, str]]:
        """Each option, after the question."""
        return zip(_OPTION_NAMES, self.texts, strict=False)

    def trailing(self) -> Iterator[tuple[str, str]]:
        """Each option's feedback, where there is one, last."""
        return filter(itemgetter(1), zip(_FEEDBACK_NAMES, self.feedback, strict=False))


_NONE = Options(())


def written_options(text: Translation) -> Options:
    """A translation's options (none, for a translation of another kind)."""
    return text.own if isinstance(text.own, Options) else _NONE


def several_correct(question: Question) -> bool:
    """Whether a multiple-choice question has several correct options (their letters, space-separated)."""
    return " " in question.answer
