"""What a multiple-choice question is made of besides its texts: its options, named by their letters."""

from __future__ import annotations

from ...model import Question


def several_correct(question: Question) -> bool:
    """Whether a multiple-choice question has several correct options (their letters, space-separated)."""
    return " " in question.answer
