"""Flashcards: what check refuses, where, and with which hint."""

from __future__ import annotations

from pathlib import Path

import polib
import yaml

from ankibuild.translations.po import export_po, import_po
from ankibuild.translations.status import add_language

from ..conftest import Project, use_scenario
from ..kindtools import FILE, SCENARIO, problems_after

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


def test_a_flashcards_answer_goes_through_a_po_file_and_back(project: Project, tmp_path: Path) -> None:
    """Export for a new language, translate every text, import: each flashcard gets its answer, and it builds."""
    use_scenario(project, SCENARIO)
    add_language("fr", project.decks)
    po_path = tmp_path / "fr.po"
    export_po("fr", po_path, source="en", decks=project.decks)
    po = polib.pofile(str(po_path))
    assert {"cpu-acronym:answer", "bytes-in-kib:answer"} <= {entry.msgctxt for entry in po}
    for entry in po:
        entry.msgstr = f"FR {entry.msgid}"
    po.save()
    assert import_po(po_path, decks=project.decks).written == len(po)
    questions = yaml.safe_load((project.decks / FILE).read_text(encoding="utf-8"))["questions"]
    texts = {question["id"]: question["fr"] for question in questions}
    assert texts["cpu-acronym"] == {
        "question": "FR What does `CPU` stand for?",
        "answer": "FR Central processing unit",
        "explanation": "FR It runs a program's instructions.",
    }
    assert texts["bytes-in-kib"] == {"question": "FR How many bytes are in a kibibyte?", "answer": "FR $2^{10} = 1024$"}
    result = project.build()
    assert {output.lang: output.notes for output in result.outputs}["fr"] == 3
