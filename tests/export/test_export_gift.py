"""The GIFT export, read back by a GIFT parser that ankibuild does not contain."""

from __future__ import annotations

import re
from typing import Any

import pytest

from ..conftest import Project
from ..exporttools import BANK, LANGS, PICTURE, SEVERAL_GAPS, exported, gift_questions, gift_text, letters, written


def _parsed(project: Project, lang: str) -> dict[str, Any]:
    return gift_questions((exported(project) / f"{BANK}-{lang}.gift.txt").read_text(encoding="utf-8"))


@pytest.mark.parametrize("lang", LANGS)
def test_every_question_gift_can_hold_reads_back_as_the_bank_wrote_it(project: Project, lang: str) -> None:
    """Options, weights, feedback and the explanation of multiple choice: texts as typed once Moodle has read
    GIFT's escapes, HTML, ]]>, GIFT's own characters and Anki's syntaxes included."""
    found = _parsed(project, lang)
    bank = written()
    assert list(found) == [qid for qid in bank if qid not in {SEVERAL_GAPS, PICTURE}]
    for qid, question in found.items():
        assert question.valid, qid
        assert question.markup == "html"
        wrote = bank[qid]
        if "kind" in wrote:
            continue  # below
        text = wrote[lang]
        assert gift_text(question.text) == text["question"]
        assert gift_text(question.generalFeedback) == text["explanation"]
        options = question.answers.answers
        assert [gift_text(option.answer) for option in options] == text["options"]
        feedback = [text.get("feedback", {}).get(letter, "") for letter in "ABCDEF"[: len(options)]]
        assert [gift_text(option.feedback) for option in options] == feedback
        correct = letters(wrote["answer"])
        if len(correct) == 1:
            assert [option.select for option in options] == [index in correct for index in range(len(options))]
        else:
            assert [option.fraction for option in options] == [50, -50, 50, -50]


def test_true_false_and_flashcards(project: Project) -> None:
    """A statement's truth; a flashcard is an essay whose model answer shows with the explanation."""
    found = _parsed(project, "he")
    assert found["ssd-wear"].answers.answer is True
    essay = found["page-size"]
    assert type(essay.answers).__name__ == "Essay"
    assert gift_text(essay.generalFeedback).startswith(r"\(2^{12} = 4096\) בתים")


def test_code_keeps_its_line_breaks(project: Project) -> None:
    """A line break inside a code block is written as GIFT's escape: a blank line would end the question."""
    feedback = gift_text(_parsed(project, "en")["page-size"].generalFeedback)
    assert re.search(r"<pre[^>]*><code[^>]*>.*getconf PAGESIZE\n</code></pre>", feedback, re.DOTALL)


def test_a_cloze_of_one_gap_is_a_missing_word(project: Project) -> None:
    """GIFT's short answer inside its text: the student types what the cloze hides, escaped as GIFT needs."""
    question = _parsed(project, "en")["hostile-gap"]
    assert [(gift_text(answer.answer), answer.fraction) for answer in question.answers.answers] == [("a # b", 100)]
    assert gift_text(question.text) == "In C,"
    assert gift_text(question.tail) == "is not a comment, but <!-- this --> is HTML."
