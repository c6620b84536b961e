"""Questions without an explanation, and banks translated file by file: they build, and say so in a few lines."""

from __future__ import annotations

import shutil
from pathlib import Path

from click.testing import CliRunner

from ankibuild.cli import main

from ..ankitools import imported_cards
from ..conftest import Project

BANK = """\
id: quizzes
languages: [en, de, fr]
topics:
  git: {en: Git, de: Git, fr: Git}
"""
#: Files of the large bank, questions in each: 500 questions.
FILES, PER_FILE = 20, 25


def _translation(lang: str, number: int, explained: bool) -> str:
    text = (
        f"  {lang}:\n"
        f"    question: 'Question {number} in {lang}: which command lists branches?'\n"
        f"    options: ['git branch {number}', 'git status {number}', 'git stash {number}']\n"
    )
    return text + (f"    explanation: 'It prints one line per branch ({lang}).'\n" if explained else "")


def _question(number: int, langs: tuple[str, ...], explained: bool = False) -> str:
    head = f"- id: q{number}\n  topics: [git]\n  answer: {'ABC'[number % 3]}\n"
    return head + "".join(_translation(lang, number, explained) for lang in langs)


def _file(first: int, count: int, langs: tuple[str, ...], only: str = "") -> str:
    questions = "".join(_question(n, langs) for n in range(first, first + count))
    deck = ", ".join(f"{lang}: Deck {first}" for lang in langs)
    return f"{only}deck: {{{deck}}}\nquestions:\n{questions}"


def _bank(project: Project) -> Path:
    """The project's bank emptied, with the bank file of these tests."""
    shutil.rmtree(project.decks)
    project.decks.mkdir()
    (project.decks / "bank.yaml").write_text(BANK, encoding="utf-8")
    return project.decks


def test_a_question_without_explanation_shows_no_explanation_section(project: Project) -> None:
    """In Anki, the back of a question without an explanation has no explanation box; one with it keeps its own."""
    decks = _bank(project)
    (decks / "git.yaml").write_text(
        "deck: {en: Git, de: Git, fr: Git}\nquestions:\n"
        + _question(1, ("en", "de", "fr"))
        + _question(2, ("en", "de", "fr"), explained=True),
        encoding="utf-8",
    )
    result = CliRunner().invoke(main, ["build", "--lang", "en", "-q"])
    assert result.exit_code == 0, result.output
    assert "no explanation: the back of the card shows only the answer" in result.stderr
    _, cards = imported_cards(project.root / "collection.anki2", [project.out / "quizzes-en.apkg"])
    backs = sorted(back for _, back in cards.values())
    unexplained = next(back for back in backs if "git branch 1<" in back)
    explained = next(back for back in backs if "git branch 2<" in back)
    assert "ab-explanation" not in unexplained
    assert "Question 1 in en: which command lists branches?" in unexplained
    assert 'class="ab-explanation"' in explained
    assert "It prints one line per branch (en)." in explained


def _five_hundred(project: Project, only: str = "") -> None:
    """No explanations anywhere, French in half the files (``only`` starts the others)."""
    decks = _bank(project)
    for index in range(FILES):
        langs, said = (("en", "de", "fr"), "") if index % 2 == 0 else (("en", "de"), only)
        (decks / f"part-{index:02}.yaml").write_text(_file(index * PER_FILE, PER_FILE, langs, said), encoding="utf-8")


def test_five_hundred_questions_translated_file_by_file_warn_in_a_few_lines(project: Project) -> None:
    """No explanations anywhere, French in half the files: the build says so in one line each."""
    _five_hundred(project)
    result = CliRunner().invoke(main, ["build", "-q"])
    assert result.exit_code == 0, result.output
    translations = [line for line in result.stderr.splitlines() if "no 'fr' translation" in line]
    assert translations == [
        "decks/part-01.yaml:3:3: warning: no 'fr' translation in 250 questions (the first is here): "
        "they are left out of the 'fr' deck"
    ]
    explanations = [line for line in result.stderr.splitlines() if "no explanation" in line]
    assert explanations == [
        "decks/part-00.yaml:3:3: warning: 500 questions have no explanation (the first is here): "
        "the back of their cards shows only the answer"
    ]
    verbose = CliRunner().invoke(main, ["check", "--verbose"])
    assert verbose.stderr.count("no 'fr' translation: the question is left out of the 'fr' deck") == 250


def test_a_file_may_say_it_is_in_only_some_languages(project: Project) -> None:
    """French left out on purpose (`languages: [en, de]`) is no missing translation and no missing deck title."""
    _five_hundred(project, only="languages: [en, de]\n")
    result = CliRunner().invoke(main, ["build", "-q"])
    assert result.exit_code == 0, result.output
    assert result.stderr.splitlines() == [
        "decks/part-00.yaml:3:3: warning: 500 questions have no explanation (the first is here): "
        "the back of their cards shows only the answer",
        "    hint: say why each answer is right under 'explanation:'; to leave one out on purpose, "
        "add 'allow: [no-explanation]' to its question",
    ]
