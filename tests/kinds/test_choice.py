"""Multiple choice with several correct answers, feedback on options and a question's own shuffle setting.

Everything lives within the released note type's fields: a classmate's notes of
a build from before update in place (see test_upgrade.py), and a question with
one answer and none of the new keys makes exactly the fields it made before.
"""

from __future__ import annotations

import re
import shutil
from dataclasses import replace
from pathlib import Path

import pytest

from ankibuild import build, check
from ankibuild.errors import BankError, Problem
from ankibuild.importer.bank import import_pages
from ankibuild.kinds.choice import FEEDBACK_START, SEVERAL_MARK, SHUFFLE_MARKS, explanation_and_feedback
from ankibuild.kinds.choice.options import Options
from ankibuild.model import Translation

from ..ankitools import collection, import_package, render
from ..conftest import DATA, Project

FEATURES = DATA / "choice-features"

BANK = """id: mc
languages: [en, fr]
topics:
  t: {en: T, fr: T}
"""

#: A question whose lines the mistakes below replace; its answer is on line 5.
QUESTION = """questions:
  - id: q
    topics: [t]
    kind: choice
    answer: A
    en:
      question: Which?
      options: [one, two, three]
      explanation: Because.
    fr:
      question: Laquelle ?
      options: [un, deux, trois]
      explanation: Parce que.
"""


def _problems(root: Path, old: str, new: str) -> list[Problem]:
    """The errors of a bank whose question has ``old`` replaced by ``new``."""
    assert old in QUESTION
    (root / "decks").mkdir()
    (root / "decks" / "bank.yaml").write_text(BANK, encoding="utf-8")
    (root / "decks" / "q.yaml").write_text(QUESTION.replace(old, new, 1), encoding="utf-8")
    with pytest.raises(BankError) as raised:
        check(decks=root / "decks")
    return [problem for problem in raised.value.problems if problem.severity.name == "ERROR"]


@pytest.mark.parametrize(
    ("old", "new", "location", "message"),
    [
        ("answer: A", "answer: []", "q.yaml:5:5", "the answer list is empty"),
        ("answer: A", "answer: [A, D]", "q.yaml:5:17", "answer D is not among the 3 options"),
        ("answer: A", "answer: [A, A]", "q.yaml:5:17", "letter A is twice in the answer list"),
        ("answer: A", "answer: [A, 3]", "q.yaml:5:17", "'3' in the answer list is not a letter A-F"),
        ("answer: A", "answer: [A, B, C, D, E, F, G]", "q.yaml:5:32", "'G' in the answer list is not a letter"),
        ("answer: A", "answer: {A: yes}", "q.yaml:5:5", "answer must be one letter A-F, not a mapping"),
        ("answer: A", "answer: A\n    shuffle: maybe", "q.yaml:6:5", "'shuffle' must be true or false, not text"),
        (
            "      explanation: Because.\n",
            "      explanation: Because.\n      feedback: {D: Nope}\n",
            "q.yaml:10:18",
            "feedback on 'D', which is not one of the 3 options",
        ),
        (
            "      explanation: Because.\n",
            "      explanation: Because.\n      feedback: [Nope]\n",
            "q.yaml:10:7",
            "'feedback' must be a mapping",
        ),
        (
            "      explanation: Because.\n",
            "      explanation: Because.\n      feedback: {B: ''}\n",
            "q.yaml:10:18",
            "the feedback on option B is empty",
        ),
    ],
    ids=[
        "empty-list",
        "letter-beyond-options",
        "letter-twice",
        "not-a-letter",
        "more-than-the-options",
        "mapping",
        "shuffle-not-a-boolean",
        "feedback-on-missing-option",
        "feedback-not-a-mapping",
        "feedback-empty",
    ],
)
def test_each_mistake_is_reported_at_its_place(tmp_path: Path, old: str, new: str, location: str, message: str) -> None:
    problems = _problems(tmp_path, old, new)
    assert problems and problems[0].location.removeprefix(str(tmp_path / "decks") + "/") == location
    assert message in problems[0].message
    assert problems[0].hint


def test_a_letter_written_twice_in_two_ways_is_a_warning_and_counts_once(tmp_path: Path) -> None:
    """``[A, a]`` names one option: the bank's schema, which compares what is written, accepts it, and so does check."""
    (tmp_path / "decks").mkdir()
    (tmp_path / "decks" / "bank.yaml").write_text(BANK, encoding="utf-8")
    (tmp_path / "decks" / "q.yaml").write_text(QUESTION.replace("answer: A", "answer: [A, a]", 1), encoding="utf-8")
    problems = check(decks=tmp_path / "decks").warnings
    assert [(p.location.rsplit("/", 1)[1], p.message) for p in problems if "twice" in p.message] == [
        ("q.yaml:5:17", "letter A is twice in the answer list")
    ]


def test_feedback_on_a_kind_without_options_names_the_kinds_that_have_it(tmp_path: Path) -> None:
    """Another kind refuses ``feedback`` as unknown, and says which kind it belongs to."""
    (problem,) = _problems_of_kind_without_options(tmp_path)
    assert problem.message == "unknown key 'feedback' in the 'en' translation"
    assert "choice" in problem.hint


def _problems_of_kind_without_options(root: Path) -> list[Problem]:
    from ankibuild.kinds import KINDS

    other = KINDS["truefalse"]
    decks = root / "decks"
    decks.mkdir()
    (decks / "bank.yaml").write_text(BANK.replace("[en, fr]", "[en]"), encoding="utf-8")
    texts = "".join(f"      {key}: Some text.\n" for key, required in other.translation_keys.items() if required)
    answers = "".join(f"    {key}: true\n" for key, required in other.question_keys.items() if required)
    question = f"questions:\n  - id: q\n    topics: [t]\n    kind: {other.name}\n{answers}    en:\n{texts}"
    (decks / "q.yaml").write_text(question + "      feedback: {A: x}\n", encoding="utf-8")
    with pytest.raises(BankError) as raised:
        check(decks=decks)
    return [p for p in raised.value.problems if "feedback" in p.message]


def test_one_letter_in_a_list_is_the_same_answer_as_the_letter(tmp_path: Path) -> None:
    """``answer: [A]`` makes exactly the note ``answer: A`` makes."""
    notes = []
    for answer in ("A", "[A]"):
        root = tmp_path / answer.strip("[]") / ("list" if "[" in answer else "letter")
        (root / "decks").mkdir(parents=True)
        (root / "decks" / "bank.yaml").write_text(BANK, encoding="utf-8")
        (root / "decks" / "q.yaml").write_text(QUESTION.replace("answer: A", f"answer: {answer}"), encoding="utf-8")
        build(decks=root / "decks", out=root / "dist")
        with collection(root / "c.anki2") as col:
            import_package(col, root / "dist" / "mc-en.apkg")
            notes.append([col.get_note(n).fields for n in col.find_notes("")])
    assert notes[0] == notes[1]
    assert notes[0][0][8] == "A"


@pytest.fixture(scope="module")
def imported(tmp_path_factory: pytest.TempPathFactory) -> dict[tuple[str, str], tuple[str, str, list[str]]]:
    """The feature bank built and imported into Anki: each card's front, back and fields by (question, language)."""
    root = tmp_path_factory.mktemp("features")
    shutil.copytree(FEATURES, root / "decks")
    build(decks=root / "decks", out=root / "dist")
    cards = {}
    with collection(root / "collection.anki2") as col:
        for lang in ("en", "ar"):
            log = import_package(col, root / "dist" / f"choice-features-{lang}.apkg")
            assert (log.new, log.updated) == (2, 0)
        for card_id in col.find_cards(""):
            note = col.get_card(card_id).note()
            front, back = render(col, card_id)
            found = re.search(r'lang="([a-z]+)"', front)
            assert found is not None
            cards[note["ID"], found.group(1)] = (front, back, list(note.fields))
    return cards


def _text(html: str) -> str:
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html))


@pytest.mark.parametrize("lang", ["en", "ar"])
def test_several_answers_in_anki(imported: dict[tuple[str, str], tuple[str, str, list[str]]], lang: str) -> None:
    """The front asks to select all that apply; the back holds both letters, and each feedback named by its option."""
    front, back, fields = imported["reliable-transports", lang]
    assert fields[1].startswith(SEVERAL_MARK)
    assert fields[8] == "A C"
    select_all = {"en": "Select all that apply", "ar": "اختر كل الإجابات الصحيحة"}[lang]
    assert f'<p class="ab-select-all">{select_all}</p>' in front
    assert 'data-answer="A C"' in back
    feedback = {"en": "UDP sends datagrams with no retransmission.", "ar": "يرسل UDP رزمًا دون إعادة إرسال."}[lang]
    assert f"{FEEDBACK_START.format(letter='B')}{feedback}</div>" in back and feedback not in front
    assert fields[3] == "UDP" and f"{FEEDBACK_START.format(letter='B')}{feedback}</div>" in fields[9]
    assert ("ltr" if lang == "en" else "rtl") in front


@pytest.mark.parametrize("lang", ["en", "ar"])
def test_explanation_and_feedback_come_apart_from_the_field_anki_holds(
    imported: dict[tuple[str, str], tuple[str, str, list[str]]], lang: str
) -> None:
    """What reads a note (the exports) gets the explanation alone and each feedback by its letter."""
    explanation, feedback = explanation_and_feedback(imported["reliable-transports", lang][2])
    assert FEEDBACK_START.format(letter="B") not in explanation and explanation.startswith(("TCP", "يعيد"))
    assert {letter: _text(text).strip() for letter, text in feedback.items()} == {
        "en": {"B": "UDP sends datagrams with no retransmission.", "D": "ICMP carries error and control messages."},
        "ar": {"B": "يرسل UDP رزمًا دون إعادة إرسال.", "D": "يحمل ICMP رسائل الأخطاء والتحكم."},
    }[lang]
    assert explanation_and_feedback(imported["port-numbers", lang][2])[1].keys() == {"A"}


@pytest.mark.parametrize("lang", ["en", "ar"])
def test_own_shuffle_setting_and_pin_in_anki(
    imported: dict[tuple[str, str], tuple[str, str, list[str]]], lang: str
) -> None:
    """``shuffle: false`` over the bank's true is a mark the card script reads; the pinned option keeps its mark."""
    front, back, fields = imported["port-numbers", lang]
    assert fields[1].startswith(SHUFFLE_MARKS[False]) and SEVERAL_MARK not in fields[1]
    assert fields[5].startswith('<span class="ab-pin"></span>')
    assert fields[8] == "B"
    assert 'data-shuffle="true"' in front
    assert 'data-answer="B"' in back
    assert fields[2] == "80"
    assert fields[9].endswith(
        FEEDBACK_START.format(letter="A")
        + {"en": "Port 80 is plain HTTP.", "ar": "المنفذ 80 هو HTTP العادي."}[lang]
        + "</div>"
    )


def test_a_translation_names_its_texts_by_letter_in_order() -> None:
    """What translators get and the translations record hashes: each option, then each feedback there is.

    A translation that could not be read keeps every option written, but only six have a letter.
    """
    text = Translation("Which?", "Because.", own=Options(tuple("abcdefg"), ("", "not b", "", "", "", "", "not g")))
    assert list(text.texts()) == [
        ("question", "Which?"),
        *((f"option-{letter}", letter.lower()) for letter in "ABCDEF"),
        ("explanation", "Because."),
        ("feedback-B", "not b"),
    ]


def test_feedback_goes_to_translators_and_back(tmp_path: Path) -> None:
    """A PO export lists each feedback; its translation comes back into the language's ``feedback``."""
    import polib

    from ankibuild.kinds.choice.options import Options
    from ankibuild.model import Translation
    from ankibuild.translations.po import export_po, import_po
    from ankibuild.translations.record import text_digest

    plain = Translation("Which?", "Because.", own=Options(("one", "two")))
    edited = replace(plain, own=Options(("one", "two"), ("", "Not two.")))
    assert text_digest(plain) != text_digest(edited)  # an edit makes others outdated
    decks = tmp_path / "decks"
    decks.mkdir()
    (decks / "bank.yaml").write_text(BANK, encoding="utf-8")
    english = "      explanation: Because.\n      feedback:\n        B: Not two.\n        C: Not three.\n"
    (decks / "q.yaml").write_text(QUESTION.replace("      explanation: Because.\n", english, 1), encoding="utf-8")
    assert not [problem for problem in check(decks=decks).items if "deck has no title" not in problem.message]
    result = export_po("fr", tmp_path / "fr.po", source="en", decks=decks)
    po = polib.pofile(str(tmp_path / "fr.po"))
    by_context = {entry.msgctxt: entry for entry in po}
    assert {"q:feedback-B", "q:feedback-C"} <= set(by_context) and result.entries == len(po)
    assert by_context["q:feedback-B"].msgid == "Not two." and not by_context["q:feedback-B"].msgstr
    by_context["q:feedback-B"].msgstr = "Pas deux."
    by_context["q:feedback-C"].msgstr = "Pas trois."
    po.save()
    imported = import_po(tmp_path / "fr.po", decks=decks)
    assert imported.written == 2
    written = (decks / "q.yaml").read_text(encoding="utf-8")
    assert written.endswith(
        "      explanation: Parce que.\n      feedback:\n        B: Pas deux.\n        C: Pas trois.\n"
    )

    by_context["q:feedback-C"].msgstr = "Ni trois."
    po.save()
    assert import_po(tmp_path / "fr.po", decks=decks).written == 1
    assert (decks / "q.yaml").read_text(encoding="utf-8") == written.replace("Pas trois.", "Ni trois.")
    build(decks=decks, out=tmp_path / "dist")
    with collection(tmp_path / "c.anki2") as col:
        import_package(col, tmp_path / "dist" / "mc-fr.apkg")
        (note_id,) = col.find_notes("")
        note = col.get_note(note_id)
        assert (note["C"], note["Explanation"]) == (
            "trois",
            f"Parce que.{FEEDBACK_START.format(letter='B')}Pas deux.</div>"
            f"{FEEDBACK_START.format(letter='C')}Ni trois.</div>",
        )


PAGE = """AI hardware and software stack

Which of these memories sit on the GPU chip itself?

  1. ARegisters
  2. BHBM
  3. CL2 cache
Show the answer

Answer: A, C

Registers and the L2 cache are SRAM on the chip; HBM sits beside it in the same package.
"""


@pytest.mark.parametrize("line", ["Answer: A, C", "Answer: A C", "Answer：Ａ、Ｃ"])  # noqa: RUF001 (full width, as pasted)
def test_a_page_with_several_answers_imports_as_a_list(project: Project, line: str) -> None:
    """A quiz page whose answer line names several letters becomes ``answer: [A, C]``, which builds."""
    page = project.root / "page.txt"
    page.write_text(PAGE.replace("Answer: A, C", line), encoding="utf-8")
    import_pages([page], out=project.decks / "imported.yaml", decks=project.decks, languages=["en"])
    written = (project.decks / "imported.yaml").read_text(encoding="utf-8")
    assert "    answer: [A, C]\n" in written
    project.build()


def test_a_page_whose_letters_name_a_missing_option_is_refused(project: Project) -> None:
    """Letters beyond the options make no answer line: the page is refused at the options."""
    page = project.root / "page.txt"
    page.write_text(PAGE.replace("Answer: A, C", "Answer: A, D"), encoding="utf-8")
    with pytest.raises(BankError) as raised:
        import_pages([page], out=project.decks / "imported.yaml", decks=project.decks, languages=["en"])
    assert [p.message for p in raised.value.problems] == ["no answer line after the options"]


@pytest.mark.parametrize(("bank", "own", "warned"), [("true", "false", False), ("false", "true", True)])
def test_an_option_that_refers_to_the_others_is_judged_by_the_questions_own_shuffle(
    tmp_path: Path, bank: str, own: str, warned: bool
) -> None:
    """An unpinned "None of the above" matters where the options are shuffled: by the question's setting first."""
    (tmp_path / "decks").mkdir()
    (tmp_path / "decks" / "bank.yaml").write_text(BANK + f"shuffle: {bank}\n", encoding="utf-8")
    question = QUESTION.replace("answer: A", f"answer: A\n    shuffle: {own}").replace("three]", "None of the above]")
    (tmp_path / "decks" / "q.yaml").write_text(question, encoding="utf-8")
    checks = [problem.check for problem in check(decks=tmp_path / "decks").items]
    assert ("all-of-the-above" in checks) is warned


def test_feedback_on_no_letter_of_a_question_with_too_many_options_is_reported(tmp_path: Path) -> None:
    """The hint names the last letter there is, whatever the number of options written."""
    seven = "[one, two, three, four, five, six, seven]"
    old = "      options: [one, two, three]\n      explanation: Because.\n"
    new = f"      options: {seven}\n      explanation: Because.\n      feedback: {{G: No}}\n"
    problems = _problems(tmp_path, old, new)
    said = [problem for problem in problems if "feedback on 'G'" in problem.message]
    assert said and said[0].hint == "name an option by its letter, A to F"
