"""The Moodle XML export, read back by a Moodle XML parser that ankibuild does not contain."""

from __future__ import annotations

import base64
import re
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from moodle_xml_parser.parser import parse_bytes

from ..conftest import DATA, Project
from ..exporttools import BANK, CLOZES, LANGS, PICTURE, exported, letters, unmarked, written


def _file(out: Path, lang: str) -> bytes:
    return (out / f"{BANK}-{lang}.moodle.xml").read_bytes()


def _questions(content: bytes) -> dict[str, ET.Element]:
    """Every question of a file by its name, read with the standard library's XML parser."""
    root = ET.fromstring(content)
    return {q.findtext("name/text", ""): q for q in root.iter("question") if q.get("type") != "category"}


@pytest.mark.parametrize("lang", LANGS)
def test_every_multiple_choice_question_reads_back_as_the_bank_wrote_it(project: Project, lang: str) -> None:
    """Options, grades, feedback, the explanation and one-or-several, as the parser reads them: texts as typed,
    HTML, ]]>, GIFT's and Anki's syntaxes included."""
    found = parse_bytes(_file(exported(project), lang))["multichoice"]
    bank = written()
    choices = [qid for qid, question in bank.items() if "kind" not in question]
    assert [question.name for question in found] == choices
    for question in found:
        wrote = bank[question.name]
        text = wrote[lang]
        correct = letters(wrote["answer"])
        assert [unmarked(option.answer) for option in question.options] == text["options"]
        right, wrong = 100 / len(correct), (-100 / (len(text["options"]) - len(correct)) if len(correct) > 1 else 0)
        grades = [right if index in correct else wrong for index in range(len(text["options"]))]
        assert [option.score_fraction for option in question.options] == pytest.approx(grades, abs=1e-4)
        feedback = [text.get("feedback", {}).get(letter, "") for letter in "ABCDEF"[: len(text["options"])]]
        assert [unmarked(option.feedback or "") for option in question.options] == feedback
        assert question.single is (len(correct) == 1)
        assert unmarked(question.general_feedback) == text["explanation"]
        if question.name != PICTURE:
            assert unmarked(question.text_pre_parse) == text["question"]


def test_a_pinned_option_keeps_the_written_order_and_the_others_shuffle(project: Project) -> None:
    """Moodle shuffles all options or none: a question with a pinned one keeps its order, the bank's
    shuffle holds for the rest, and a question's own setting wins."""
    found = {q.name: q.shuffle_answers for q in parse_bytes(_file(exported(project), "en"))["multichoice"]}
    assert found == {"cache-line": False, "volatile-kinds": True, "stack-picture": False, "hostile-text": True}


def test_a_cloze_is_an_embedded_answers_question_with_a_gap_per_cloze(project: Project) -> None:
    """Each cloze a short-answer gap worth its part of the mark; a hint follows its gap, as on the card;
    a character that means something in a gap is escaped."""
    out = exported(project)
    gaps = {q.name: q for q in parse_bytes(_file(out, "he"))["cloze"]}
    assert list(gaps) == list(CLOZES)
    byte = gaps["bits-per-byte"]
    assert [(g.sub_type, [(o.answer, o.score) for o in g.options]) for g in byte.gaps] == [
        ("SHORTANSWER", [("8", 100)]),
        ("SHORTANSWER", [("256", 100)]),
    ]
    assert "[כמה ערכים?]" in byte.text_pre_parse
    hostile = parse_bytes(_file(out, "en"))["cloze"][1]
    # Moodle reads "\#" as "#"; this parser splits a gap's feedback off at any "#", so its raw gap is read.
    assert [gap.raw_content for gap in hostile.gaps] == [r"{1:SHORTANSWER:=a \# b}"]
    assert "<!-- this -->" in hostile.text_pre_parse


def test_true_false_and_flashcards_carry_their_answer(project: Project) -> None:
    """A statement's truth is the answer worth 100 %; a flashcard is an essay whose model answer is for the
    grader, its formula in Anki's notation and its code as code."""
    questions = _questions(_file(exported(project), "en"))
    truth = {a.findtext("text"): a.get("fraction") for a in questions["ssd-wear"].iter("answer")}
    assert truth == {"true": "100", "false": "0"}
    essay = questions["page-size"]
    assert essay.get("type") == "essay"
    assert r"\(2^{12} = 4096\)" in essay.findtext("graderinfo/text", "")
    assert re.search(r"<pre.*getconf PAGESIZE", essay.findtext("generalfeedback/text", ""), re.DOTALL)


def test_an_image_travels_inside_the_file_where_its_text_shows_it(project: Project) -> None:
    question = _questions(_file(exported(project), "he"))[PICTURE].find("questiontext")
    assert question is not None
    [file] = question.findall("file")
    name = file.get("name", "")
    assert f'src="@@PLUGINFILE@@/{name}"' in question.findtext("text", "")
    assert base64.b64decode(file.text or "") == (DATA / "exports" / "media" / "stack.svg").read_bytes()


def test_each_question_has_its_id_tags_and_the_category_of_its_deck(project: Project) -> None:
    root = ET.fromstring(_file(exported(project), "en"))
    categories = [q.findtext("category/text") for q in root.iter("question") if q.get("type") == "category"]
    # Moodle reads "//" in a category's path as a "/" of its name.
    assert categories == ["$course$/top/Exports/Storage // memory", "$course$/top/Exports/Syntax"]
    for name, question in _questions(ET.tostring(root)).items():
        assert question.findtext("idnumber") == name
        assert [tag.findtext("text") for tag in question.iter("tag")] == written()[name]["topics"]


def test_one_file_holds_every_language_for_moodle_s_multi_language_filter(project: Project) -> None:
    """Every text a run of spans, one per language; a cloze, whose gaps differ by language, is left out."""
    questions = _questions((exported(project) / f"{BANK}-mul.moodle.xml").read_bytes())
    assert sorted(questions) == sorted(set(written()) - set(CLOZES))
    option = questions["cache-line"].findall("answer")[3].findtext("text")
    assert option == (
        '<span lang="en" class="multilang">None of the above</span>'
        '<span lang="he" class="multilang"><div dir="rtl">אף אחת מהתשובות</div></span>'
    )


def test_a_right_to_left_language_reads_right_to_left_on_any_page(project: Project) -> None:
    """Each Hebrew text is marked as right to left: a Moodle site in another language shows it so."""
    question = _questions(_file(exported(project), "he"))["volatile-kinds"]
    texts = [question.findtext("questiontext/text", ""), *(a.findtext("text", "") for a in question.iter("answer"))]
    assert all(text.startswith('<div dir="rtl">') for text in texts), texts
