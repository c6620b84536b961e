"""The QTI 1.2 package, opened as Canvas opens it: the manifest, then the assessment it names.

No maintained reader of QTI 1.2 is published for Python, so the package is read
with the standard library's zip and XML parsers, by the rules of QTI 1.2: the
correct choices are those that set the full score, feedback is what a choice's
condition displays.
"""

from __future__ import annotations

import html
import zipfile
from pathlib import Path
from typing import NamedTuple
from xml.etree import ElementTree as ET

import pytest

from ..conftest import DATA, Project
from ..exporttools import BANK, CLOZES, LANGS, PICTURE, exported, letters, unmarked, written

QTI = "{http://www.imsglobal.org/xsd/ims_qtiasiv1p2}"
MANIFEST = "{http://www.imsglobal.org/xsd/imscp_v1p1}"


class Item(NamedTuple):
    kind: str
    text: str
    choices: list[str]
    correct: set[int]
    feedback: dict[str, str]


def _mattext(element: ET.Element | None) -> str:
    assert element is not None
    return element.findtext(f".//{QTI}mattext") or ""


def _items(package: Path) -> tuple[dict[str, Item], zipfile.ZipFile]:
    archive = zipfile.ZipFile(package)
    manifest = ET.fromstring(archive.read("imsmanifest.xml"))
    [assessment] = [r for r in manifest.iter(f"{MANIFEST}resource") if r.get("type") == "imsqti_xmlv1p2"]
    root = ET.fromstring(archive.read(assessment.get("href", "")))
    items = {}
    for item in root.iter(f"{QTI}item"):
        labels = [label.get("ident", "") for label in item.iter(f"{QTI}response_label")]
        scoring = [c for c in item.iter(f"{QTI}respcondition") if c.find(f"{QTI}setvar") is not None]
        chosen = {v.text for c in scoring for v in c.iter(f"{QTI}varequal")}
        unchosen = {v.text for c in scoring for n in c.iter(f"{QTI}not") for v in n.iter(f"{QTI}varequal")}
        feedback = {f.get("ident", ""): _mattext(f) for f in item.iter(f"{QTI}itemfeedback")}
        kind = item.findtext(f".//{QTI}fieldentry") or ""
        texts = [
            _mattext(label) for label in item.iter(f"{QTI}response_label") if label.find(f"{QTI}material") is not None
        ]
        correct = {labels.index(ident) for ident in chosen - unchosen if ident}
        items[item.get("ident", "")] = Item(kind, _mattext(item.find(f"{QTI}presentation")), texts, correct, feedback)
    return items, archive


@pytest.mark.parametrize("lang", LANGS)
def test_every_question_qti_holds_reads_back_as_the_bank_wrote_it(project: Project, lang: str) -> None:
    items, _ = _items(exported(project) / f"{BANK}-{lang}.qti.zip")
    bank = written()
    assert list(items) == [qid for qid in bank if qid not in CLOZES]
    for qid, item in items.items():
        wrote = bank[qid]
        text = wrote[lang]
        if wrote.get("kind") == "truefalse":
            assert (item.kind, item.correct) == ("true_false_question", {0 if wrote["answer"] else 1})
            continue
        if "kind" in wrote:
            assert item.kind == "essay_question"
            continue
        several = isinstance(wrote["answer"], list)
        assert item.kind == ("multiple_answers_question" if several else "multiple_choice_question")
        assert [unmarked(html.unescape(choice)) for choice in item.choices] == text["options"]
        assert item.correct == letters(wrote["answer"])
        assert unmarked(html.unescape(item.feedback["general_fb"])) == text["explanation"]
        for letter, note in text.get("feedback", {}).items():
            assert unmarked(html.unescape(item.feedback[f"{qid}-{letter}_fb"])) == note
        if qid != PICTURE:
            assert unmarked(html.unescape(item.text)) == text["question"]


def test_true_and_false_are_the_cards_words(project: Project) -> None:
    items, _ = _items(exported(project) / f"{BANK}-he.qti.zip")
    assert items["ssd-wear"].choices == ["נכון", "לא נכון"]


def test_an_image_is_inside_the_package_where_its_text_finds_it(project: Project) -> None:
    items, archive = _items(exported(project) / f"{BANK}-en.qti.zip")
    source = items[PICTURE].text.split('src="', 1)[1].split('"', 1)[0]
    assert archive.read(source) == (DATA / "exports" / "media" / "stack.svg").read_bytes()
    manifest = ET.fromstring(archive.read("imsmanifest.xml"))
    assert source in {file.get("href") for file in manifest.iter(f"{MANIFEST}file")}
