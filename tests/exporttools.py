"""What the tests of the exports share: the bank with every kind, built, and what it says as written."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import yaml

from .conftest import DATA, Project, use_scenario

#: Every kind in English and Hebrew, with an image, code, formulas, feedback, several answers,
#: a pinned option and hostile text; its bank asks for every export (see its bank.yaml).
SCENARIO = "exports"
BANK = "exports-sample"
LANGS = ("en", "he")
#: Questions no format but Moodle XML can hold (a cloze), and none but those with files (an image).
CLOZES = ("bits-per-byte", "hostile-gap")
PICTURE = "stack-picture"


def exported(project: Project, **options: Any) -> Path:
    """The output folder of a build of the bank with every kind."""
    use_scenario(project, SCENARIO)
    project.build(**options)
    return project.out


def written() -> dict[str, dict[str, Any]]:
    """Every question as the bank's files write it, by id: read with a YAML parser, not ankibuild's."""
    questions: dict[str, dict[str, Any]] = {}
    for path in sorted((DATA / SCENARIO).glob("*.yaml")):
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
        if "questions" in data:
            questions.update({question["id"]: question for question in data["questions"]})
    return questions


def letters(answer: str | list[str]) -> set[int]:
    """The places of the correct options, from a question's ``answer``."""
    return {"ABCDEF".index(letter) for letter in ([answer] if isinstance(answer, str) else answer)}


_ESCAPED = re.compile(r"\\(.)", re.DOTALL)


def gift_text(raw: str) -> str:
    """A GIFT text as Moodle stores it: the format prefix gone, each escape read (``\\n``: a line break)."""
    text = raw.strip().removeprefix("[html]")
    return _ESCAPED.sub(lambda m: "\n" if m.group(1) == "n" else m.group(1), text)
