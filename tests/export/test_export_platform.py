"""A platform question's grades: the shares Moodle offers, summing to the whole mark."""

from __future__ import annotations

import pytest

from ankibuild.kinds.platform import PlatformOption, PlatformQuestion, Shape

#: The grades Moodle's question editor offers, in percent (its list of fractions): a grade outside it
#: is imported, but the question cannot be saved again in Moodle without changing it.
MOODLE_GRADES = {
    "100", "90", "83.33333", "80", "75", "70", "66.66667", "60", "50", "40", "33.33333", "30", "25", "20",
    "16.66667", "14.28571", "12.5", "11.11111", "10", "5", "0",
}  # fmt: skip


def _question(options: int, correct: int) -> PlatformQuestion:
    choices = tuple(PlatformOption(f"option {index}", index < correct) for index in range(options))
    return PlatformQuestion(Shape.CHOICE, "?", options=choices)


@pytest.mark.parametrize(("options", "correct"), [(n, k) for n in range(2, 7) for k in range(1, n + 1)])
def test_every_grade_is_one_moodle_offers_and_the_correct_ones_make_the_mark(options: int, correct: int) -> None:
    question = _question(options, correct)
    grades = [question.grade(option) for option in question.options]
    assert all(grade.removeprefix("-") in MOODLE_GRADES for grade in grades), grades
    assert sum(float(grade) for grade in grades[:correct]) == pytest.approx(100, abs=1e-3)
    wrong = [float(grade) for grade in grades[correct:]]
    # One correct: a wrong choice costs nothing, as in Moodle's own; several: ticking all scores nothing.
    assert sum(wrong) == pytest.approx(0 if correct == 1 else -100 if wrong else 0, abs=1e-3)
