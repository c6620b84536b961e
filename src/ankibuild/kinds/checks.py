"""What every kind's item-writing checks share: their warnings, and the check of a missing explanation.

An item-writing check warns about a question whose form gives its answer away,
or leaves the student without the reason for it. Each has a name; a question
exempts itself from one with ``allow: [name]``. A kind names its own checks
(:attr:`~ankibuild.kinds.base.Kind.checks`) and runs them on each question file
(:meth:`~ankibuild.kinds.base.Kind.check_question`, then
:meth:`~ankibuild.kinds.base.Kind.check_end`); a kind whose back says why the
answer is right is checked here for questions without an explanation.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import replace

from ..errors import NO_EXPLANATION, Problem, Problems, Severity, gather
from ..model import Place, Question

_UNEXPLAINED = "no explanation: the back of the card shows only the answer"


class FileChecks:
    """The item-writing checks of one question file (``place``: its top), reporting into ``problems``."""

    def __init__(self, place: Place, problems: Problems, shuffle: bool) -> None:
        self.place = place
        self.path = place.path
        self.problems = problems
        #: The bank's setting: whether options are shuffled where a question does not say.
        self.shuffle = shuffle

    def report(
        self, check: str, where: Place | tuple[int, int], message: str, *, hint: str, question: str = ""
    ) -> None:
        line, column = (where.line, where.column) if isinstance(where, Place) else where
        silence = f"to keep it, add 'allow: [{check}]' to the question" if question else ""
        self.problems.extend(
            [
                Problem(
                    self.problems.name(self.path),
                    line,
                    column,
                    message,
                    "; ".join(part for part in (hint, silence) if part),
                    question,
                    Severity.WARNING,
                    check,
                )
            ]
        )

    def explained(self, question: Question) -> None:
        """A question has an explanation in every language (gathered: see :func:`explanations_in_summary`)."""
        if NO_EXPLANATION in question.allow:
            return
        if any(not text.explanation for text in question.translations.values()):
            hint = "say why the answer is right, and why the others are wrong, under 'explanation:'"
            self.report(NO_EXPLANATION, question.place, _UNEXPLAINED, hint=hint, question=question.id)


def explanations_in_summary(problems: Sequence[Problem]) -> list[Problem]:
    """Questions without an explanation, in one warning: real quizzes rarely have one, and a line per
    question would hide every other warning."""
    return gather(problems, NO_EXPLANATION, _unexplained)


def _unexplained(first: Problem, count: int) -> Problem:
    return replace(
        first,
        message=f"{count:,} questions have no explanation (the first is here): "
        "the back of their cards shows only the answer",
        hint=f"say why each answer is right under 'explanation:'; to leave one out on purpose, "
        f"add 'allow: [{NO_EXPLANATION}]' to its question",
        question="",
    )


def summary(problems: Iterable[Problem], checks: Sequence[str]) -> str:
    """One line counting the item-writing warnings by check (``checks``, in order); empty when there are none."""
    counts = Counter(p.check for p in problems if p.check in checks)
    if not counts:
        return ""
    listed = ", ".join(f"{name} {counts[name]}" for name in checks if counts[name])
    return f"{sum(counts.values())} item-writing warning(s): {listed}."
