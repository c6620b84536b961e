"""Flashcards: what check refuses, where, and with which hint."""

from __future__ import annotations

from .conftest import Project
from .kindtools import problems_after

QUESTION = "  - id: cpu-acronym\n    kind: flashcard\n"


def test_a_flashcard_without_its_answer_is_refused_in_each_language(project: Project) -> None:
    """A missing answer and an empty one: each where it is, in its language."""
    problems = problems_after(
        project,
        ("      answer: Central processing unit\n", ""),
        ("      answer: وحدة المعالجة المركزية\n", '      answer: ""\n'),
    )
    assert problems == [
        ("decks/kinds.yaml:20:7", "missing key 'answer' in the 'en' translation", "add 'answer:'"),
        ("decks/kinds.yaml:24:7", "'answer' is empty", "write the text"),
    ]


def test_reverse_is_true_or_false(project: Project) -> None:
    problems = problems_after(project, ("    reverse: true\n", "    reverse: both\n"))
    assert problems == [
        (
            "decks/kinds.yaml:18:5",
            "'reverse' must be true or false, not 'both'",
            "write true for a second card that asks the other way round, or false (without quotes)",
        )
    ]


def test_keys_of_other_kinds_and_levels_are_refused_with_where_they_belong(project: Project) -> None:
    """An answer at the question's level, options, and feedback: each hint says where the key belongs."""
    problems = problems_after(
        project,
        (QUESTION, QUESTION + "    answer: A\n"),
        ("      explanation: It runs", "      options: [a, b]\n      explanation: It runs"),
    )
    assert problems == [
        (
            "decks/kinds.yaml:17:5",
            "unknown key 'answer' in a question",
            "in a question of kind flashcard, 'answer' goes in each translation",
        ),
        (
            "decks/kinds.yaml:23:7",
            "unknown key 'options' in the 'en' translation",
            "'options' belongs to a question of kind choice: write 'kind: choice' or remove it",
        ),
    ]
