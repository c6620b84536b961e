"""True/false questions: what check refuses, where, and with which hint."""

from __future__ import annotations

import pytest

from ..conftest import Project
from ..kindtools import problems_after

QUESTION = "  - id: ram-is-volatile\n    kind: truefalse\n"


@pytest.mark.parametrize(("written", "shown"), [('"false"', "'false'"), ("no", "'no'"), ("0", "'0'"), ("", "empty")])
def test_an_answer_that_is_not_a_boolean_is_refused_where_it_is(project: Project, written: str, shown: str) -> None:
    """Only YAML's true and false: quoted, yes/no (text in YAML 1.2), numbers and nothing are refused."""
    problems = problems_after(project, ("    answer: false\n", f"    answer: {written}\n"))
    assert problems == [
        (
            "decks/kinds.yaml:8:5",
            f"the answer of a true/false question must be true or false, not {shown}",
            "write true or false, without quotes: whether the statement is right, in every language",
        )
    ]


def test_options_and_pinned_letters_belong_to_multiple_choice(project: Project) -> None:
    """Keys of another kind are refused with a hint that names the kind they belong to."""
    problems = problems_after(
        project,
        (QUESTION, QUESTION + "    pin: [A]\n"),
        ("      explanation: It is volatile;", "      options: [Yes, No]\n      explanation: It is volatile;"),
    )
    assert problems == [
        (
            "decks/kinds.yaml:7:5",
            "unknown key 'pin' in a question",
            "'pin' belongs to a question of kind choice: write 'kind: choice' or remove it",
        ),
        (
            "decks/kinds.yaml:12:7",
            "unknown key 'options' in the 'en' translation",
            "'options' belongs to a question of kind choice: write 'kind: choice' or remove it",
        ),
    ]


def test_a_statement_without_its_explanation_is_a_warning(project: Project) -> None:
    """Real quizzes rarely explain: the question builds, and check says what the back lacks."""
    problems = problems_after(project, ("      explanation: إنها متطايرة؛ أما ذاكرة الفلاش فتحتفظ بمحتواها.\n", ""))
    hint = "say why the answer is right, and why the others are wrong, under 'explanation:'"
    assert problems == [
        (
            "decks/kinds.yaml:5:5",
            "no explanation: the back of the card shows only the answer",
            f"{hint}; to keep it, add 'allow: [no-explanation]' to the question",
        )
    ]


def test_the_bank_the_edits_start_from_has_no_problem(project: Project) -> None:
    assert problems_after(project) == []
