"""Multiple choice, the first kind: a question, two to six options, one correct, an explanation.

Its note type is the one every bank released before there were other kinds:
its fields, its card type, its ids and its lock key never change. Its GUIDs and
note type ids have no kind name in them, and its lock key is the language alone.
"""

from __future__ import annotations

import html
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import ClassVar

from ..checker import Checker, type_name
from ..loader import Map, Seq
from ..model import LETTERS, Question, Translation, note_guid, notetype_id
from ..schemaparts import TEXT, Fragment, Schema, padded
from .base import CardType, Kind, Reading, Render

#: The note type's fields, in order. Never change this list after a release:
#: Anki forks a note type whose fields differ ("Name+") and stops updating every
#: note that uses it. ``tests/test_model.py`` guards it.
FIELDS: tuple[str, ...] = ("ID", "Question", *LETTERS, "Answer", "Explanation")
#: The note type's single card type; its name is part of the note type's shape too.
CARD_NAME = "Multiple choice"
MAX_OPTIONS = len(LETTERS)
MIN_OPTIONS = 2
#: Starts an option that keeps its place when the card script shuffles the others: the
#: note type's fields never change, so the option's own text carries the mark.
PIN_MARK = '<span class="ab-pin"></span>'


class Choice(Kind):
    name = "choice"
    fields = FIELDS
    cards = (CardType(CARD_NAME, "front.html", "back.html"),)
    sort_field = "Question"
    question_keys: ClassVar[Mapping[str, bool]] = {"answer": True, "pin": False}
    translation_keys: ClassVar[Mapping[str, bool]] = {"question": True, "options": True, "explanation": True}
    has_options = True

    def notetype_key(self, lang: str) -> str:
        return lang

    def notetype_id(self, bank_id: str, lang: str) -> int:
        return notetype_id(bank_id, lang)

    def notetype_name(self, bank_id: str, lang: str) -> str:
        return f"{bank_id} ({lang})"

    def note_guid(self, bank_id: str, question_id: str, lang: str) -> str:
        return note_guid(bank_id, question_id, lang)

    def read_translation(
        self, check: Checker, data: Map, question: str, where: tuple[int, int]
    ) -> tuple[Translation, bool]:
        return _translation(check, data, question, where)

    def read_question(self, check: Checker, data: Map, question: str, texts: Mapping[str, Translation]) -> Reading:
        answer = _answer(check, data, question)
        agree = _options_agree(check, data, texts, answer, question)
        count = min((len(t.options) for t in texts.values()), default=len(LETTERS))
        pin = tuple(check.names(data, "pin", LETTERS[:count], question, upper=True))
        return Reading(answer or "", bool(answer and agree), pin)

    def schema_fragment(self) -> Fragment:
        """An answer letter and pinned letters; a question, its options and an explanation."""
        letter: Schema = {"type": "string", "pattern": padded(*LETTERS, *(letter.lower() for letter in LETTERS))}
        question: dict[str, Schema] = {
            "answer": {"description": "The letter of the correct option, shared by all languages.", **letter},
            "pin": {
                "description": "Letters of options that keep their place when the bank shuffles the options, "
                "such as 'None of the above'.",
                "type": "array",
                "items": letter,
            },
        }
        options = f"{MIN_OPTIONS} to {MAX_OPTIONS} different options, in the same order in every language."
        translation: dict[str, Schema] = {
            "question": TEXT,
            "options": {
                "description": options,
                "type": "array",
                "minItems": MIN_OPTIONS,
                "maxItems": MAX_OPTIONS,
                "uniqueItems": True,
                "items": TEXT,
            },
            "explanation": TEXT,
        }
        return Fragment(question, translation)

    def note_fields(self, question: Question, text: Translation, render: Render) -> tuple[str, ...]:
        options = [
            (PIN_MARK if letter in question.pin else "") + render(letter, option)
            for letter, option in zip(LETTERS, text.options, strict=False)
        ]
        options += [""] * (len(LETTERS) - len(options))
        explanation = render("Explanation", text.explanation)
        return (html.escape(question.id), render("Question", text.question), *options, question.answer, explanation)


def options_of(fields: Sequence[str]) -> tuple[str, ...]:
    """The options of a multiple-choice note's fields, without the unused letters."""
    first = FIELDS.index(LETTERS[0])
    return tuple(option for option in fields[first : first + len(LETTERS)] if option)


def _answer(check: Checker, data: Map, qid: str) -> str | None:
    if "answer" not in data:
        return None
    answer = data["answer"]
    letter = answer.strip().upper() if isinstance(answer, str) else ""
    if letter not in LETTERS:
        shown = f"'{answer}'" if isinstance(answer, str) else type_name(answer)
        hint = "the letter of the correct option: A is the first"
        check.report(data.at("answer"), f"answer must be one letter A-{LETTERS[-1]}, not {shown}", hint, qid)
        return None
    return letter


def _translation(check: Checker, data: Map, qid: str, where: tuple[int, int]) -> tuple[Translation, bool]:
    """A translation, and whether it is valid; an invalid one keeps the texts that could be read."""
    question = check.text(data, "question", qid)
    explanation = check.text(data, "explanation", qid)
    options = _options(check, data, qid)
    marks = {"Question": data.at("question"), "Explanation": data.at("explanation")}
    written = data.get("options")
    if isinstance(written, Seq):
        marks.update(zip(LETTERS, written.marks, strict=False))
    if question is None or explanation is None or options is None:
        readable = tuple(text if isinstance(text, str) else "" for text in written) if isinstance(written, Seq) else ()
        return Translation(question or "", readable, explanation or "", marks, where), False
    return Translation(question, options, explanation, marks, where), True


def _options(check: Checker, data: Map, qid: str) -> tuple[str, ...] | None:
    if "options" not in data:
        return None
    seq = check.sequence(data["options"], data.at("options"), "'options'", qid)
    if seq is None:
        return None
    texts = [
        check.text_value(v, w, f"option {i + 1}", qid) for i, (v, w) in enumerate(zip(seq, seq.marks, strict=True))
    ]
    if not MIN_OPTIONS <= len(seq) <= MAX_OPTIONS:
        hint = f"give {MIN_OPTIONS} to {MAX_OPTIONS} options, one per letter {LETTERS[0]} to {LETTERS[-1]}"
        check.report(
            data.at("options"), f"{len(seq)} option(s); a question needs {MIN_OPTIONS} to {MAX_OPTIONS}", hint, qid
        )
        return None
    options = tuple(text for text in texts if text is not None)
    if len(options) != len(texts) or not _distinct(check, options, seq.marks, qid):
        return None
    return options


def _distinct(check: Checker, options: tuple[str, ...], marks: list[tuple[int, int]], qid: str) -> bool:
    """Two identical options would make the answer ambiguous."""
    seen: dict[str, int] = {}
    for index, text in enumerate(options):
        if text in seen:
            letters = LETTERS[index], LETTERS[seen[text]]
            check.report(marks[index], "option {} repeats option {}".format(*letters), "every option must differ", qid)
        seen.setdefault(text, index)
    return len(seen) == len(options)


def _options_agree(
    check: Checker, data: Map, translations: Mapping[str, Translation], answer: str | None, qid: str
) -> bool:
    """Every language offers the same number of options, and the answer is one of them."""
    counts = {lang: len(t.options) for lang, t in translations.items()}
    if len(set(counts.values())) > 1:
        _count_differs(check, data, counts, qid)
        return False
    if answer is not None and counts and LETTERS.index(answer) >= min(counts.values()):
        check.report(
            data.at("answer"),
            f"answer {answer} is not among the {min(counts.values())} options",
            f"use a letter from A to {LETTERS[min(counts.values()) - 1]}",
            qid,
        )
        return False
    return True


def _count_differs(check: Checker, data: Map, counts: dict[str, int], qid: str) -> None:
    """Point at the options of each language whose count differs from most (on a tie, from the first)."""
    tally = Counter(counts.values())
    usual = max(tally, key=lambda n: (tally[n], n == next(iter(counts.values()))))
    agree = next(lang for lang, n in counts.items() if n == usual)
    listed = ", ".join(f"{lang}: {n}" for lang, n in counts.items())
    for lang, count in counts.items():
        if count != usual:
            check.report(
                data[lang].at("options"),
                f"the '{lang}' translation has {count} options, but '{agree}' has {usual} ({listed})",
                "every translation lists the same options in the same order; an option indented further than "
                "the one above it is joined to it",
                qid,
            )
