"""A question file's questions are validated as each is read, then let go: found exactly as when read whole."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from ankibuild.errors import Problem, Problems
from ankibuild.load.validate import Questions, validate_bank_file, validate_deck_file
from ankibuild.model import Bank, Deck
from ankibuild.yamlfiles.reader import parse_file

BANK = b"""\
id: streamed
languages: [en, es]
topics: {math: {en: Mathematics, es: Matematicas}}
"""
SETTINGS = b"deck: {en: Sums}\n"
QUESTIONS = b"""\
questions:
  - id: gauss
    topics: [math]
    answer: B
    en: {question: Sum of 1 to 100?, options: ["100", "5050"], explanation: Pair the terms.}
  - id: one
    topics: [nope]
    answer: A
    en: {question: One?, options: ["1", "2"]}
  - &shared
    id: shared
    topics: [math]
    answer: A
    en:
      question: Shared?
      options: [a, b]
      explanation: see the sheet #3 again
    es: {question: Compartida?, options: [a, b], explanation: Es asi.}
"""
PATH = Path("bank", "deck.yaml")


def _bank() -> Bank:
    problems = Problems()
    bank = validate_bank_file(parse_file(Path("bank", "bank.yaml"), BANK, problems), problems)
    assert bank is not None, problems.items
    return bank


def _whole(raw: bytes) -> tuple[Deck | None, list[Problem]]:
    problems = Problems()
    return validate_deck_file(parse_file(PATH, raw, problems), _bank(), problems), problems.items


def _streamed(raw: bytes) -> tuple[Deck | None, list[Problem], bool]:
    problems = Problems()
    read = Questions(PATH, _bank())
    file = parse_file(PATH, raw, problems, take=read)
    return validate_deck_file(file, _bank(), problems, read=read), problems.items, file.handed_over


def test_each_question_is_handed_over_as_it_is_read_and_not_kept() -> None:
    taken: list[tuple[Any, tuple[int, int], list[str]]] = []
    file = parse_file(
        PATH, SETTINGS + QUESTIONS, Problems(), take=lambda data, item, at: taken.append((item, at, [*data]))
    )
    assert file.handed_over and file.data["questions"] == []
    assert [(item["id"], at, keys) for item, at, keys in taken] == [
        ("gauss", (3, 5), ["deck"]),
        ("one", (7, 5), ["deck"]),
        ("shared", (11, 5), ["deck"]),
    ]


ALIKE = {
    "settings first": SETTINGS + QUESTIONS,
    "settings after": QUESTIONS + SETTINGS,
    "languages first": b"languages: [en]\n" + QUESTIONS,
    "an alias to a question": QUESTIONS + b"  - *shared\n",
    "a mistake in a later key": QUESTIONS + b"todo: {xx: [a]}\nwhat: 1\n",
    "a key twice in a question": QUESTIONS + b"    answer: B\n",
    "a YAML error after the questions": QUESTIONS + b'deck: "\n',
    "an empty item": QUESTIONS + b"  -\n",
}
READ_WHOLE = {
    "languages after the questions": QUESTIONS + b"languages: [en]\n",
    "languages twice": b"languages: [en]\n" + QUESTIONS + b"languages: [es]\n",
    "questions twice": QUESTIONS + b"questions:\n  - id: other\n",
    "keys merged into the file": b"base: &base {deck: {en: B}}\n" + QUESTIONS + b"<<: *base\n",
}


@pytest.mark.parametrize("raw", [*ALIKE.values(), *READ_WHOLE.values()], ids=[*ALIKE, *READ_WHOLE])
def test_questions_read_one_at_a_time_are_found_as_when_read_whole(raw: bytes) -> None:
    """The same deck and the same problems, in the same order; read again whole where the settings
    after the questions could change how they read, or where they are not the file's questions."""
    deck, problems, handed_over = _streamed(raw)
    assert (deck, problems) == _whole(raw)
    assert problems  # something to find, found alike
    assert handed_over is (raw in ALIKE.values() and b'deck: "' not in raw)


def test_an_anchored_list_of_questions_is_kept_whole() -> None:
    """An alias may name the list again: it is the file's, not handed over."""
    raw = SETTINGS + QUESTIONS.replace(b"questions:\n", b"questions: &all\n") + b"again: *all\n"
    deck, problems, handed_over = _streamed(raw)
    assert not handed_over and (deck, problems) == _whole(raw)
