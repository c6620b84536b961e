"""Multiple choice, the first kind: a question, two to six options, one or several correct, and an explanation
(which may be missing: real quizzes rarely have one).

Its note type is the one every bank released before there were other kinds:
its fields, its card type, its ids and its lock key never change. Its GUIDs and
note type ids have no kind name in them, and its lock key is the language alone.

Everything added since lives within those fields, so that a note released
before updates in place: several correct answers are the letters in the Answer
field ("A C"); feedback on an option is an element, naming the option's letter,
at the end of the Explanation field, which only the back reads (the card script
puts it beside its option; Anki's Browse columns show the front, which must
give nothing away); a question's own shuffle setting and "select all that
apply" are empty elements at the start of the Question field, which the card
script and stylesheet read. A question with one answer and neither makes
exactly the fields it made before.
"""

from __future__ import annotations

import html
import re
from collections import Counter
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar, cast

from ...errors import Problems, Severity
from ...links import REPORT_START
from ...model import Question, Translation, note_guid, notetype_id
from ...yamlfiles.checker import Checker, type_name
from ...yamlfiles.reader import Map, Seq
from ..base import CardType, Fact, Kind, Reading, Render
from ..checks import FileChecks
from ..schema import TEXT, Fragment, Schema, padded
from .itemchecks import CHECKS, ItemChecker, check_bank, holds
from .options import LETTERS, Options, several_correct, written_options

if TYPE_CHECKING:
    from ..platform import PlatformQuestion

#: The note type's fields, in order. Never change this list after a release:
#: Anki forks a note type whose fields differ ("Name+") and stops updating every
#: note that uses it. ``tests/load/test_model.py`` guards it.
FIELDS: tuple[str, ...] = ("ID", "Question", *LETTERS, "Answer", "Explanation")
#: The note type's single card type; its name is part of the note type's shape too.
CARD_NAME = "Multiple choice"
MAX_OPTIONS = len(LETTERS)
MIN_OPTIONS = 2
#: The label with the six letters shown before the options, space-separated
#: (``A B C D E F``; Arabic ``أ ب ج د هـ و``); templates get one per option as ``[[letter_a]]``.
LETTERS_LABEL = "letters"
#: Starts an option that keeps its place when the card script shuffles the others: the
#: note type's fields never change, so the option's own text carries the mark.
PIN_MARK = '<span class="ab-pin"></span>'
#: Start the Question field of a question with several correct answers: the front then
#: asks to select all that apply, and the card script lets the student tick several.
SEVERAL_MARK = '<span class="ab-several"></span>'
#: Start the Question field of a question with its own shuffle setting, over the bank's.
SHUFFLE_MARKS = {True: '<span class="ab-shuffle"></span>', False: '<span class="ab-in-order"></span>'}
#: Wraps the feedback on the option of a letter, at the end of the Explanation field: the
#: front never holds it. No text a bank writes can hold this element (text shows as typed).
FEEDBACK_START = '<div class="ab-feedback" data-letter="{letter}">'
FEEDBACK_END = "</div>"


class Choice(Kind):
    name = "choice"
    fields = FIELDS
    cards = (CardType(CARD_NAME, "front.html", "back.html"),)
    sort_field = "Question"
    question_keys: ClassVar[Mapping[str, bool]] = {"answer": True, "pin": False, "shuffle": False}
    translation_keys: ClassVar[Mapping[str, bool]] = {
        "question": True,
        "options": True,
        "explanation": False,
        "feedback": False,
    }
    option_counts = range(MIN_OPTIONS, MAX_OPTIONS + 1)
    option_letters = LETTERS
    wants_explanation = True
    checks = CHECKS

    def notetype_key(self, lang: str) -> str:
        return lang

    def notetype_id(self, bank_id: str, lang: str) -> int:
        return notetype_id(bank_id, lang)

    def notetype_name(self, bank_id: str, lang: str) -> str:
        return f"{bank_id} ({lang})"

    def note_guid(self, bank_id: str, question_id: str, lang: str) -> str:
        return note_guid(bank_id, question_id, lang)

    def option_texts(self, text: Translation) -> tuple[str, ...]:
        return written_options(text).texts

    def label_problem(self, key: str, value: str) -> tuple[str, str] | None:
        """Six letters, one per option; else one error at the label rather than one per missing letter later."""
        if key != LETTERS_LABEL or len(value.split()) == len(LETTERS):
            return None
        message = f"'{LETTERS_LABEL}' must list {len(LETTERS)} letters separated by spaces"
        return message, "one per option, e.g. A B C D E F"

    def own_labels(self, labels: Mapping[str, str]) -> dict[str, str]:
        """Each option's letter as ``letter_a`` ... ``letter_f``, from the ``letters`` label."""
        letters = labels.get(LETTERS_LABEL, "").split()
        return {f"letter_{letter.lower()}": shown for letter, shown in zip(LETTERS, letters, strict=False)}

    def read_translation(
        self, check: Checker, data: Map, question: str, *, where: tuple[int, int]
    ) -> tuple[Translation, bool]:
        return _translation(check, data, question, where=where)

    def read_question(self, check: Checker, data: Map, question: str, *, texts: Mapping[str, Translation]) -> Reading:
        answer = _answer(check, data, question)
        agree = _options_agree(check, data, texts, answer=answer, qid=question)
        count = min((len(written_options(t).texts) for t in texts.values()), default=len(LETTERS))
        pin = tuple(check.names(data, "pin", LETTERS[:count], question=question, upper=True))
        shuffle, shuffle_ok = _shuffle(check, data, question)
        return Reading(" ".join(answer or ()), bool(answer and agree and shuffle_ok), pin, shuffle)

    def schema_fragment(self) -> Fragment:
        """Correct letters, pinned letters and a shuffle setting; a question, its options, an explanation and
        feedback on options."""
        letter: Schema = {"type": "string", "pattern": padded(*LETTERS, *(letter.lower() for letter in LETTERS))}
        question: dict[str, Schema] = {
            "answer": {
                "description": "The letter of the correct option, or a list of the letters of several correct "
                "options (the student then ticks all that apply); shared by all languages.",
                "oneOf": [letter, {"type": "array", "items": letter, "minItems": 1, "uniqueItems": True}],
            },
            "pin": {
                "description": "Letters of options that keep their place when the options are shuffled, "
                "such as 'None of the above'.",
                "type": "array",
                "items": letter,
            },
            "shuffle": {
                "description": "Show this question's options in a new random order at each review (true) or as "
                "written (false), whatever the bank's 'shuffle'.",
                "type": "boolean",
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
            "feedback": {
                "description": "A short text on an option, by its letter, shown beside it on the back of the card.",
                "type": "object",
                "propertyNames": letter,
                "additionalProperties": TEXT,
            },
        }
        return Fragment(question, translation)

    def note_fields(self, question: Question, text: Translation, render: Render) -> tuple[str, ...]:
        own = written_options(text)
        shown = [
            (PIN_MARK if letter in question.pin else "") + render(letter, option)
            for letter, option in zip(LETTERS, own.texts, strict=False)
            if option
        ]
        shown += [""] * (len(LETTERS) - len(shown))
        marks = (SEVERAL_MARK if several_correct(question) else "") + (
            "" if question.shuffle is None else SHUFFLE_MARKS[question.shuffle]
        )
        explanation = (render("Explanation", text.explanation) if text.explanation else "") + _feedback_html(
            own.feedback, render
        )
        stem = marks + render("Question", text.question)
        return (html.escape(question.id), stem, *shown, question.answer, explanation)

    def check_question(self, checks: FileChecks, question: Question, fields: Mapping[str, Sequence[str]]) -> Fact:
        """Its options as the front shows them, each with the checks of item writing."""
        shown = {lang: options_of(note) for lang, note in fields.items()}
        return ItemChecker(checks.place, checks.problems, checks.shuffle).question_facts(question, shown)

    def check_end(self, checks: FileChecks, facts: Sequence[Fact]) -> None:
        ItemChecker(checks.place, checks.problems, checks.shuffle).file_patterns(facts)

    def check_bank(self, bank_file: Path, facts: Sequence[Fact], files: int, *, problems: Problems) -> None:
        check_bank(bank_file, facts, files, problems=problems)

    def holds(self, facts: Sequence[object]) -> bool:
        return holds(facts)

    def platform_question(self, fields: Sequence[str], *, shuffle: bool) -> PlatformQuestion:
        from ..platform import PlatformOption, PlatformQuestion, Shape  # loaded only by a build that exports

        stem = fields[FIELDS.index("Question")].removeprefix(SEVERAL_MARK)
        own = next((value for value, mark in SHUFFLE_MARKS.items() if stem.startswith(mark)), None)
        stem = stem.removeprefix(SHUFFLE_MARKS[own]) if own is not None else stem
        correct = fields[FIELDS.index("Answer")].split()
        explanation, feedback = explanation_and_feedback(fields)
        options = tuple(
            PlatformOption(
                field.removeprefix(PIN_MARK),
                letter in correct,
                feedback.get(letter, ""),
                field.startswith(PIN_MARK),
                letter,
            )
            for letter, field in zip(LETTERS, fields[FIELDS.index(LETTERS[0]) :], strict=False)
            if field
        )
        return PlatformQuestion(Shape.CHOICE, stem, explanation, options, shuffle if own is None else own)


def _feedback_html(feedback: Sequence[str], render: Render) -> str:
    """Each option's feedback, by its letter, for the end of the Explanation field."""
    if not feedback:  # most questions: no generator to make and join
        return ""
    return "".join(
        FEEDBACK_START.format(letter=letter) + render(f"feedback-{letter}", text) + FEEDBACK_END
        for letter, text in zip(LETTERS, feedback, strict=False)
        if text
    )


#: Where a feedback element starts in the Explanation field, and the letter it names.
_FEEDBACK_AT = re.compile(re.escape(FEEDBACK_START).replace(r"\{letter\}", "([A-F])"))


def explanation_and_feedback(fields: Sequence[str]) -> tuple[str, dict[str, str]]:
    """The explanation of a multiple-choice note's fields, and each option's feedback by its letter.

    No text a bank writes can hold a feedback element's start (text shows as typed), so each
    feedback runs from its start to the next one's, or to the end of the field.
    """
    # The report link comes last, after the feedback (see :func:`..links.with_report_link`).
    field = fields[FIELDS.index("Explanation")].partition(REPORT_START)[0]
    starts = list(_FEEDBACK_AT.finditer(field))
    bounds = [match.start() for match in starts] + [len(field)]
    feedback = {
        match.group(1): field[match.end() : bounds[index + 1]].removesuffix(FEEDBACK_END)
        for index, match in enumerate(starts)
    }
    return field[: bounds[0]], feedback


def options_of(fields: Sequence[str]) -> tuple[str, ...]:
    """The options of a multiple-choice note's fields as the front shows them, without the unused letters."""
    return tuple(filter(None, fields[_OPTIONS]))  # filtered in C: the checks ask for every note's


#: Where a multiple-choice note's fields hold its options.
_OPTIONS = slice(FIELDS.index(LETTERS[0]), FIELDS.index(LETTERS[0]) + len(LETTERS))


def _answer(check: Checker, data: Map, qid: str) -> tuple[str, ...] | None:
    """The letters of the correct options, in the options' order: one letter, or a list of them.

    A list of one letter is the same answer as the letter alone, and makes the same note.
    """
    if "answer" not in data:
        return None
    answer = data["answer"]
    if isinstance(answer, Seq):
        return _answer_list(check, answer, data.at("answer"), qid=qid)
    letter = _letter(answer)
    if letter is None:
        shown = f"'{answer}'" if isinstance(answer, str) else type_name(answer)
        hint = "the letter of the correct option (A is the first), or a list of letters such as [A, C]"
        check.report(data.at("answer"), f"answer must be one letter A-{LETTERS[-1]}, not {shown}", hint, question=qid)
        return None
    return (letter,)


def _answer_list(check: Checker, answer: Seq, where: tuple[int, int], *, qid: str) -> tuple[str, ...] | None:
    """Several correct options: each a letter, none twice."""
    if not answer:
        check.report(
            where, "the answer list is empty", "list the letters of the correct options, such as [A, C]", question=qid
        )
        return None
    letters: list[str] = []
    for index, (value, at) in enumerate(zip(answer, answer.marks, strict=True)):
        letter = _letter(value)
        if letter is None:
            shown = f"'{value}'" if isinstance(value, str) else type_name(value)
            check.report(
                at, f"{shown} in the answer list is not a letter A-{LETTERS[-1]}", "write one letter", question=qid
            )
        elif letter in letters:
            # The same letter written alike twice is a mistake (the schema says so too); written otherwise
            # (' b ' after B), it still names one option, as the schema, which compares what is written, allows.
            alike = value in answer[:index]
            severity = Severity.ERROR if alike else Severity.WARNING
            message = f"letter {letter} is twice in the answer list"
            check.report(at, message, "list each correct option once", question=qid, severity=severity)
            letter = None if alike else letter
        if letter not in letters:
            letters.append(letter or "")
    if "" in letters:
        return None
    return tuple(sorted(letters, key=LETTERS.index))


def _letter(value: object) -> str | None:
    letter = value.strip().upper() if isinstance(value, str) else ""
    return letter if letter in LETTERS else None


def _shuffle(check: Checker, data: Map, qid: str) -> tuple[bool | None, bool]:
    """The question's own shuffle setting (None: the bank's), and whether it is valid."""
    value = data.get("shuffle")
    if "shuffle" not in data or isinstance(value, bool):
        return value, True
    hint = "write true to shuffle its options at each review, false to keep them as written"
    check.report(data.at("shuffle"), f"'shuffle' must be true or false, not {type_name(value)}", hint, question=qid)
    return None, False


def _translation(check: Checker, data: Map, qid: str, *, where: tuple[int, int]) -> tuple[Translation, bool]:
    """A translation, and whether it is valid; an invalid one keeps the texts that could be read."""
    question = check.text(data, "question", qid)
    explanation = check.text(data, "explanation", qid) if "explanation" in data else ""
    texts = _options(check, data, qid)
    marks = {"Question": data.at("question"), "Explanation": data.at("explanation")}
    written = data.get("options")
    if isinstance(written, Seq):
        marks.update(zip(LETTERS, written.marks, strict=False))
    count = len(written) if isinstance(written, Seq) else len(LETTERS)
    feedback, feedback_ok = _feedback(check, data, count, qid=qid, marks=marks)
    if question is None or explanation is None or texts is None or not feedback_ok:
        readable = tuple(text if isinstance(text, str) else "" for text in written) if isinstance(written, Seq) else ()
        return Translation(question or "", explanation or "", marks, where, own=Options(readable, feedback)), False
    return Translation(question, explanation, marks, where, own=Options(texts, feedback)), True


def _feedback(
    check: Checker, data: Map, count: int, *, qid: str, marks: dict[str, tuple[int, int]]
) -> tuple[tuple[str, ...], bool]:
    """Feedback by option letter (``feedback: {B: text}``), one per option ("" where none), and whether valid.

    The place of each text goes into ``marks`` as ``feedback-B``, where a problem found
    while rendering it points.
    """
    if "feedback" not in data:
        return (), True
    given = check.mapping(data["feedback"], data.at("feedback"), "'feedback'", question=qid)
    if given is None:
        return (), False
    texts = [""] * count
    ok = True
    for key, value in given.items():
        letter = _letter(key)
        text = check.text_value(value, given.at(key), f"the feedback on option {key}", question=qid)
        if letter is None or LETTERS.index(letter) >= count:
            hint = f"name an option by its letter, A to {_last(count)}" if count else "name an option's letter"
            check.report(
                given.at(key), f"feedback on '{key}', which is not one of the {count} options", hint, question=qid
            )
            ok = False
        elif text is not None:
            texts[LETTERS.index(letter)] = text
            marks[f"feedback-{letter}"] = given.at(key)
        ok = ok and text is not None
    return tuple(texts), ok


def _last(count: int) -> str:
    """The letter of the last of ``count`` options, or of the last there may be (too many is told apart)."""
    return LETTERS[min(count, len(LETTERS)) - 1]


def _options(check: Checker, data: Map, qid: str) -> tuple[str, ...] | None:
    if "options" not in data:
        return None
    seq = check.sequence(data["options"], data.at("options"), "'options'", question=qid)
    if seq is None:
        return None
    names = _OPTION_NAMES[: len(seq)] if len(seq) <= len(_OPTION_NAMES) else map(_option_name, range(len(seq)))
    texts = check.text_values(seq, seq.marks, names, question=qid)
    if not MIN_OPTIONS <= len(seq) <= MAX_OPTIONS:
        hint = f"give {MIN_OPTIONS} to {MAX_OPTIONS} options, one per letter {LETTERS[0]} to {LETTERS[-1]}"
        check.report(
            data.at("options"),
            f"{len(seq)} option(s); a question needs {MIN_OPTIONS} to {MAX_OPTIONS}",
            hint,
            question=qid,
        )
        return None
    if None in texts:
        return None
    options = cast("tuple[str, ...]", tuple(texts))  # none is None
    return options if _distinct(check, options, seq.marks, qid=qid) else None


def _name(index: int) -> str:
    """An option by its letter, as every message names it; past the last letter, by its place."""
    return LETTERS[index] if index < len(LETTERS) else f"{index + 1} (after {LETTERS[-1]})"


def _option_name(index: int) -> str:
    return f"option {_name(index)}"


#: Each option as a problem names it, made once rather than for every option read.
_OPTION_NAMES = tuple(map(_option_name, range(len(LETTERS))))


def _distinct(check: Checker, options: tuple[str, ...], marks: list[tuple[int, int]], *, qid: str) -> bool:
    """Two identical options would make the answer ambiguous."""
    if len(set(options)) == len(options):
        return True  # as nearly always: told in C, without a step per option
    seen: dict[str, int] = {}
    for index, text in enumerate(options):
        if text in seen:
            letters = LETTERS[index], LETTERS[seen[text]]
            check.report(
                marks[index], "option {} repeats option {}".format(*letters), "every option must differ", question=qid
            )
        seen.setdefault(text, index)
    return len(seen) == len(options)


def _options_agree(
    check: Checker, data: Map, translations: Mapping[str, Translation], *, answer: tuple[str, ...] | None, qid: str
) -> bool:
    """Every language offers the same number of options, and every correct letter is one of them."""
    counts = {lang: len(written_options(t).texts) for lang, t in translations.items()}
    if len(set(counts.values())) > 1:
        _count_differs(check, data, counts, qid=qid)
        return False
    if answer is None or not counts:
        return True
    count = min(counts.values())
    written = data["answer"]
    places = dict(zip((_letter(v) for v in written), written.marks, strict=True)) if isinstance(written, Seq) else {}
    missing = [letter for letter in answer if LETTERS.index(letter) >= count]
    for letter in missing:
        check.report(
            places.get(letter, data.at("answer")),
            f"answer {letter} is not among the {count} options",
            f"use a letter from A to {_last(count)}",
            question=qid,
        )
    return not missing


def _count_differs(check: Checker, data: Map, counts: dict[str, int], *, qid: str) -> None:
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
                question=qid,
            )
