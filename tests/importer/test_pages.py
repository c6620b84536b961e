"""Reading pasted quiz pages by their structure, and telling their language."""

from __future__ import annotations

from pathlib import Path

import pytest

from ankibuild.errors import Problems
from ankibuild.importer import langguess
from ankibuild.importer.pages import Page, parse_page, read_page
from ankibuild.languages import is_language

from ..conftest import DATA

PAGES = DATA / "pages"
SEED_DE = PAGES / "seeds" / "000_86a80e67323d0661.txt"
SEED_FR = PAGES / "seeds" / "001_354c81ce52408e73.txt"
BF16 = ("es", "ja", "ar", "ru", "ko")


def _read(path: Path) -> Page:
    problems = Problems()
    page = read_page(path, problems)
    assert page is not None, [p.describe() for p in problems.items]
    return page


def test_german_seed_page_parts() -> None:
    """Topic, question, options without their letters, answer, explanation and further titles."""
    page = _read(SEED_DE)
    assert page.language == "de"
    assert page.topic == "KI-Hardware und Software-Stack"
    assert page.question.startswith("Warum benötigen elementweise Operationen") and page.question.endswith("Zeit?")
    assert page.options[0] == "Weil die ReLU-Berechnung mehr Operationen erfordert als ein Matrixprodukt"
    assert page.options[2] == "Weil sich elementweise Operationen auf der GPU nicht ausführen lassen"
    assert len(page.options) == 3 and page.answer == "B"
    assert page.explanation.startswith("ReLU liest jedes Element") and page.explanation.endswith("verringern.")
    assert "Dieses Thema" not in page.explanation and "Weitere Fragen" not in page.explanation
    assert len(page.further) == 5 and page.further[2].startswith("Was ist der Zweck der „Kalibrierung“")
    assert (page.question_line, page.answer_line) == (3, 10)


def test_french_seed_page_header_and_spaced_colon() -> None:
    """The header (language name, menu) is not the topic; ``Réponse : B.`` is the answer line."""
    page = _read(SEED_FR)
    assert page.language == "fr"
    assert page.topic == "Pile matérielle et logicielle de l'IA"
    assert page.question.startswith("Pourquoi les opérations élément par élément")
    assert page.answer == "B" and page.answer_line == 13
    assert "S'entraîner" not in page.explanation


@pytest.mark.parametrize("lang", BF16)
def test_pages_in_other_languages_and_scripts(lang: str) -> None:
    """Spanish, Japanese, Arabic, Russian and Korean pages give the same question shape."""
    page = _read(PAGES / "bf16" / f"{lang}.txt")
    assert page.language == lang
    assert page.answer == "B" and len(page.options) == 3 and len(page.further) == 3
    assert "BF16" in page.question and all("BF16" in option for option in page.options)
    # the title stands above the question and again in the heading of the further questions
    assert (
        page.topic is not None and (PAGES / "bf16" / f"{lang}.txt").read_text(encoding="utf-8").count(page.topic) == 2
    )


def test_japanese_full_width_answer_line_and_no_spaces() -> None:
    """``答え：B．text`` with full-width colon and dot, in a text without spaces."""
    page = _read(PAGES / "bf16" / "ja.txt")
    assert page.topic == "深層学習の数値フォーマット"
    assert page.question == "ニューラルネットワークの学習でBF16がFP16より優れている主な点はどれか？"
    assert page.options[1].startswith("BF16はFP32と同じ8ビットの指数部")
    assert page.explanation.endswith("どちらも16ビットである。")


def test_arabic_right_to_left_page() -> None:
    """Options of a right-to-left page keep their Latin letter glued in front, in logical order."""
    page = _read(PAGES / "bf16" / "ar.txt")
    assert page.topic == "الصيغ العددية للتعلم العميق"
    assert page.options[2] == "تشغل قيم BF16 نصف الذاكرة التي تشغلها قيم FP16"
    assert page.question.endswith("؟")


def test_explanation_paragraphs_are_kept_apart() -> None:
    """Two paragraphs become two paragraphs (a blank line between them), the navigation line is dropped."""
    page = _read(PAGES / "bf16" / "es.txt")
    first, second = page.explanation.split("\n\n")
    assert (
        first.startswith("BF16 conserva")
        and second == "Su precisión es menor que la de FP16; ambos formatos ocupan 16 bits."
    )


def test_topic_found_through_the_further_questions_heading() -> None:
    """A question of two paragraphs: the heading ``More questions on <topic>`` tells where the topic is."""
    text = SEED_DE.read_text(encoding="utf-8").replace(
        "\nWarum benötigen", "\nVorbemerkung zur Frage.\n\nWarum benötigen"
    )
    page = parse_page(SEED_DE, text, Problems())
    assert page is not None and page.topic == "KI-Hardware und Software-Stack"
    assert page.question.startswith("Vorbemerkung zur Frage.\n\nWarum benötigen")


@pytest.mark.parametrize(
    ("name", "line", "message"),
    [
        ("empty.txt", 1, "the page is empty"),
        ("no-options.txt", 5, "no options found"),
        ("no-question.txt", 1, "no question above the options"),
        ("no-answer-line.txt", 7, "no answer line after the options"),
        ("answer-letter-no-option.txt", 10, "the answer names D, but there are 3 options (A to C)"),
        ("answer-text-mismatch.txt", 13, "the answer's text does not match option B"),
        ("answer-without-text.txt", 10, "the answer line names B but not its text"),
        ("no-explanation.txt", 10, "no explanation after the answer line"),
        ("repeated-option.txt", 7, "option C repeats option A"),
    ],
)
def test_broken_page_names_what_is_missing_and_where(name: str, line: int, message: str) -> None:
    """Each broken page gives one error with its file and line, and no page."""
    problems = Problems()
    page = read_page(PAGES / "bad" / name, problems)
    assert page is None
    (problem,) = problems.items
    assert Path(problem.file).name == name
    assert (problem.line, problem.column) == (line, 1)
    assert message in problem.message


def test_page_that_is_not_utf8_is_reported(tmp_path: Path) -> None:
    """A page saved in another encoding is an error naming the file, not a traceback."""
    path = tmp_path / "cp1252.txt"
    path.write_bytes(SEED_DE.read_text(encoding="utf-8").encode("cp1252"))
    problems = Problems()
    assert read_page(path, problems) is None
    assert "not valid UTF-8" in problems.items[0].message


# -- language --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("header", "lang"),
    [(["Français", "Menu"], "fr"), (["日本語"], "ja"), (["العربية", "القائمة"], "ar"), ([" Deutsch "], "de")],
)
def test_language_named_in_the_header(header: list[str], lang: str) -> None:
    """A header line naming a language in that language decides."""
    assert langguess.from_header(header) == lang


def test_header_naming_several_languages_decides_nothing() -> None:
    """A language menu listing several languages is no answer."""
    assert langguess.from_header(["Deutsch", "English", "Français"]) is None


def test_every_endonym_is_a_language_code_of_the_bank() -> None:
    """Detected codes are always valid bank language codes."""
    codes = set(langguess.ENDONYMS.values())
    assert len(codes) > 10 and [code for code in codes if not is_language(code)] == []


@pytest.mark.parametrize("lang", BF16)
def test_language_told_from_the_text_alone(lang: str) -> None:
    """Without the header, the text itself tells the language (script, letters, common words)."""
    page = _read(PAGES / "bf16" / f"{lang}.txt")
    assert langguess.from_text(page.text) == lang


def test_seed_languages_told_from_the_text_alone() -> None:
    """German and French, both Latin script, are told apart by their common words."""
    assert langguess.from_text(_read(SEED_DE).text) == "de"
    assert langguess.from_text(_read(SEED_FR).text) == "fr"


@pytest.mark.parametrize(
    ("text", "lang"),
    [
        ("Це питання про пам'ять і її пропускну здатність.", "uk"),
        ("这个问题是关于内存带宽的。", "zh"),
        ("Αυτή η ερώτηση αφορά τη μνήμη.", "el"),
        ("این پرسش درباره پهنای باند حافظه است.", "fa"),
    ],
)
def test_letters_distinguish_languages_that_share_a_script(text: str, lang: str) -> None:
    """Ukrainian and Persian by their own letters, Chinese by having no kana, Greek by its script."""
    assert langguess.from_text(text) == lang


def test_unknown_language_is_not_guessed() -> None:
    """A Finnish page (no header, no table for it) is not forced into another language."""
    page = _read(PAGES / "bad" / "unknown-language.txt")
    assert page.language is None
