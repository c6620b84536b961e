"""Helpers for the tests of texts: what a renderer reports, and what an edit of a file inserts."""

from __future__ import annotations

import difflib
import json
import shutil
from pathlib import Path

from ankibuild.yamlfiles.writer import split_lines


class Recorder:
    """Stands in for the build: every image becomes ``packaged-<name>``, warnings are kept."""

    def __init__(self) -> None:
        self.images: list[str] = []
        self.warnings: list[str] = []
        self.errors: list[str] = []

    def image(self, reference: str) -> str | None:
        self.images.append(reference)
        return "packaged-" + reference.rsplit("/", 1)[-1]

    def warn(self, message: str, hint: str) -> None:
        self.warnings.append(message)

    def refuse(self, message: str, hint: str) -> None:
        self.errors.append(message)


def only_inserted(old: str, new: str) -> list[str]:
    """The lines ``new`` adds to ``old``; fails if any line of ``old`` changed or moved."""
    a, b = split_lines(old), split_lines(new)
    added: list[str] = []
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(a=a, b=b, autojunk=False).get_opcodes():
        assert tag in ("equal", "insert"), (tag, a[i1:i2], b[j1:j2])
        added += b[j1:j2] if tag == "insert" else []
    return added


#: Each field a text fills, with the YAML path to it in the question below.
FIELDS = ["question", "option A", "option B", "explanation"]


def inert_bank(folder: Path, texts: dict[str, str]) -> None:
    """A one-question bank whose fields hold ``texts`` (by field), each on a line of its own."""
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    (folder / "bank.yaml").write_text("id: inert\nlanguages: [en]\ntopics:\n  t: {en: T}\n", encoding="utf-8")
    lines = [
        "deck: {en: Inert}",
        "questions:",
        "  - id: q",
        "    topics: [t]",
        "    answer: A",
        "    en:",
        f"      question: {json.dumps(texts['question'])}",
        "      options:",
        f"        - {json.dumps(texts['option A'] + ' (first)')}",
        f"        - {json.dumps(texts['option B'] + ' (second)')}",
        f"      explanation: {json.dumps(texts['explanation'])}",
    ]
    (folder / "q.yaml").write_text("\n".join(lines) + "\n", encoding="utf-8")


#: The line of each field in the file :func:`inert_bank` writes.
LINES = {"question": 7, "option A": 9, "option B": 10, "explanation": 11}
