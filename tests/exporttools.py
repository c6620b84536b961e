"""What the tests of the exports share: the bank with every kind, built, and what it says as written."""

from __future__ import annotations

import html
import io
from pathlib import Path
from typing import Any

import yaml
from pygiftparser.parser import parseFile

from .conftest import DATA, Project, use_scenario

#: Every kind in English and Hebrew, with an image, code, formulas, feedback, several answers,
#: a pinned option and hostile text; its bank asks for every export (see its bank.yaml).
SCENARIO = "exports"
BANK = "exports-sample"
LANGS = ("en", "he")
#: The cloze questions, which QTI cannot hold, and GIFT only with one gap (as its "missing word").
CLOZES = ("bits-per-byte", "hostile-gap")
SEVERAL_GAPS = "bits-per-byte"
#: The question with an image, which GIFT cannot hold.
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


def unmarked(text: str) -> str:
    """A text as written, without the mark of its direction: a right-to-left language's texts are each in
    a ``<div dir="rtl">``, so that a platform's page in another language shows them right to left."""
    return text.removeprefix('<div dir="rtl">').removesuffix("</div>")


def letters(answer: str | list[str]) -> set[int]:
    """The places of the correct options, from a question's ``answer``."""
    return {"ABCDEF".index(letter) for letter in ([answer] if isinstance(answer, str) else answer)}


#: GIFT's escapes, each made a character of its own before a text is parsed, as Moodle's importer does
#: (a parser that splits at "}" or "#" then never splits at an escaped one), and read back after.
_ESCAPES = {"\\\\": "\\", "\\:": ":", "\\#": "#", "\\=": "=", "\\{": "{", "\\}": "}", "\\~": "~", "\\n": "\n"}
_MARKS = {escape: chr(0xE000 + index) for index, escape in enumerate(_ESCAPES)}


def gift_questions(text: str) -> dict[str, Any]:
    """The questions of a GIFT file by their names, read by a GIFT parser after Moodle's first step."""
    for escape, mark in _MARKS.items():
        text = text.replace(escape, mark)
    return {question.title: question for question in parseFile(io.StringIO(text))}


def gift_text(raw: str) -> str:
    """A text of a parsed GIFT question as a student reads it: the format prefix gone, each escape its
    character (``\\n`` a line break), then the HTML's entities read."""
    text = raw.strip().removeprefix("[html]")
    for escape, mark in _MARKS.items():
        text = text.replace(mark, _ESCAPES[escape])
    return unmarked(html.unescape(text))
