"""Validate stage: turn parsed YAML into a :class:`~ankibuild.model.Bank`.

Every check reports into one :class:`~ankibuild.errors.Problems` and carries on,
so a student sees all mistakes of all files in one run.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from .errors import Problems, Severity
from .languages import is_language
from .loader import Map, Seq, SourceFile
from .model import LETTERS, MAX_OPTIONS, MIN_OPTIONS, Bank, Deck, Question, Source, Translation

SLUG = re.compile(r"^[a-z0-9][a-z0-9_.-]*$")
TOPIC = re.compile(r"^[\w.-]+(::[\w.-]+)*$")

BANK_KEYS = {"id": True, "languages": True, "topics": True, "title": False, "shuffle": False}
FILE_KEYS = {"questions": True, "deck": False, "todo": False}
QUESTION_KEYS = {"id": True, "topics": True, "answer": True}
TRANSLATION_KEYS = {"question": True, "options": True, "explanation": True}


class _Checker:
    """Type and shape checks for one file, reporting with the file's positions."""

    def __init__(self, path: Path, problems: Problems) -> None:
        self.path = path
        self.problems = problems

    def report(
        self,
        where: tuple[int, int],
        message: str,
        hint: str = "",
        question: str = "",
        severity: Severity = Severity.ERROR,
    ) -> None:
        line, column = where
        self.problems.add(
            self.path,
            message,
            line=line,
            column=column,
            hint=hint,
            question=question,
            severity=severity,
        )

    def mapping(self, value: Any, where: tuple[int, int], what: str, question: str = "") -> Map | None:
        if isinstance(value, Map):
            return value
        self.report(where, f"{what} must be a mapping (key: value), not {_kind(value)}", question=question)
        return None

    def sequence(self, value: Any, where: tuple[int, int], what: str, question: str = "") -> Seq | None:
        if isinstance(value, Seq):
            return value
        self.report(where, f"{what} must be a list (- item), not {_kind(value)}", question=question)
        return None

    def keys(
        self,
        data: Map,
        spec: dict[str, bool],
        what: str,
        question: str = "",
        extra: Iterable[str] = (),
    ) -> None:
        """Report missing required keys and unknown keys (with a suggestion)."""
        allowed = set(spec) | set(extra)
        for key in data:
            if key not in allowed and not is_language(key):
                close = difflib.get_close_matches(key, sorted(allowed), n=1)
                hint = f"did you mean '{close[0]}'?" if close else f"allowed: {', '.join(sorted(spec))}"
                self.report(data.at(key), f"unknown key '{key}' in {what}", hint, question)
        for key, required in spec.items():
            if required and key not in data:
                self.report((data.line, data.column), f"missing key '{key}' in {what}", question=question)

    def text(self, data: Map, key: str, question: str = "") -> str | None:
        value = data.get(key)
        if value is None and key not in data:
            return None  # reported as a missing key already
        return self.text_value(value, data.at(key), f"'{key}'", question)

    def text_value(self, value: Any, where: tuple[int, int], what: str, question: str = "") -> str | None:
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            value = str(value)  # "answer: 42" means the text 42
        if not isinstance(value, str):
            self.report(where, f"{what} must be text, not {_kind(value)}", question=question)
            return None
        if not value.strip():
            self.report(where, f"{what} is empty", "write the text or remove the key", question)
            return None
        return value.strip()

    def localized(self, value: Any, where: tuple[int, int], what: str) -> dict[str, str]:
        """A ``{lang: text}`` mapping, such as a deck title or a topic name."""
        data = self.mapping(value, where, what)
        if data is None:
            return {}
        result: dict[str, str] = {}
        for lang, text in data.items():
            if not is_language(lang):
                self.report(data.at(lang), f"unknown language code '{lang}' in {what}", _LANG_HINT)
                continue
            checked = self.text_value(text, data.at(lang), f"{what} in '{lang}'")
            if checked is not None:
                result[lang] = checked
        return result


_LANG_HINT = "use an ISO 639-1 code such as de, fr, en, or a regional one such as pt-BR"


def _kind(value: Any) -> str:
    if value is None:
        return "empty"
    return {Map: "a mapping", Seq: "a list", str: "text", bool: "true/false"}.get(type(value), type(value).__name__)


def validate_bank_file(source: SourceFile, problems: Problems) -> Bank | None:
    """The bank's settings (id, languages, topics), without its decks yet."""
    check = _Checker(source.path, problems)
    data = check.mapping(source.data, (1, 1), "the bank file")
    if data is None:
        return None
    check.keys(data, BANK_KEYS, "the bank file")
    bank_id = check.text(data, "id")
    if bank_id is not None and not SLUG.match(bank_id):
        check.report(data.at("id"), f"bank id '{bank_id}' is not a slug", "use lowercase letters, digits and - _ .")
    languages = _languages(check, data)
    titles = check.localized(data["title"], data.at("title"), "'title'") if "title" in data else {}
    topics = _topics(check, data, languages)
    shuffle = data.get("shuffle", False)
    if not isinstance(shuffle, bool):
        check.report(data.at("shuffle"), "'shuffle' must be true or false")
    if bank_id is None or not languages:
        return None
    return Bank(bank_id, languages, titles, topics, (), source.path.parent, shuffle is True)


def _languages(check: _Checker, data: Map) -> tuple[str, ...]:
    if "languages" not in data:
        return ()
    seq = check.sequence(data["languages"], data.at("languages"), "'languages'")
    if seq is None:
        return ()
    result: list[str] = []
    for lang, where in zip(seq, seq.marks, strict=True):
        if not is_language(lang):
            check.report(where, f"unknown language code '{lang}'", _LANG_HINT)
        elif lang in result:
            check.report(where, f"language '{lang}' is listed twice")
        else:
            result.append(lang)
    if not seq:
        check.report(data.at("languages"), "'languages' is empty", "list the languages to build, e.g. [de, fr, en]")
    return tuple(result)


def _topics(check: _Checker, data: Map, languages: tuple[str, ...]) -> dict[str, dict[str, str]]:
    if "topics" not in data:
        return {}
    declared = check.mapping(data["topics"], data.at("topics"), "'topics'")
    if declared is None:
        return {}
    topics: dict[str, dict[str, str]] = {}
    for slug, names in declared.items():
        where = declared.at(slug)
        if not TOPIC.match(slug):
            hint = "use letters, digits, - _ . and :: for hierarchy, no spaces"
            check.report(where, f"topic '{slug}' is not a valid tag", hint)
            continue
        topics[slug] = check.localized(names, where, f"topic '{slug}'")
        for lang in languages:
            if lang not in topics[slug]:
                check.report(where, f"topic '{slug}' has no name in '{lang}'", f"add '{lang}: <name>' under it")
    return topics


def validate_deck_file(source: SourceFile, bank: Bank, problems: Problems) -> Deck | None:
    """One question file as a deck; problems are reported, valid questions kept."""
    check = _Checker(source.path, problems)
    data = check.mapping(source.data, (1, 1), "a question file")
    if data is None:
        if source.data is None and not problems.errors:
            check.report((1, 1), "the file is empty", "add 'questions:' or delete the file")
        return None
    check.keys(data, FILE_KEYS, "a question file")
    key = source.path.relative_to(bank.root).with_suffix("").as_posix()
    titles = check.localized(data["deck"], data.at("deck"), "'deck'") if "deck" in data else {}
    for lang in bank.languages:
        if lang not in titles:
            check.report(
                data.at("deck"),
                f"the deck has no title in '{lang}'; '{key}' is used",
                f"add '{lang}: <title>' under 'deck'",
                severity=Severity.WARNING,
            )
    questions: list[Question] = []
    seq = None
    if "questions" in data:
        seq = check.sequence(data["questions"], data.at("questions"), "'questions'")
    for item, where in zip(seq or (), seq.marks if seq else (), strict=True):
        question = _question(check, item, where, bank)
        if question is not None:
            questions.append(question)
    return Deck(key, titles, tuple(questions), Source(source.path, data.line, data.column))


def _question(check: _Checker, item: Any, where: tuple[int, int], bank: Bank) -> Question | None:
    data = check.mapping(item, where, "a question")
    if data is None:
        return None
    qid = check.text(data, "id") or ""
    check.keys(data, QUESTION_KEYS, "a question", qid)
    if qid and not SLUG.match(qid):
        hint = "use lowercase letters, digits and - _ ."
        check.report(data.at("id"), f"question id '{qid}' is not a slug", hint, qid)
    topics = _question_topics(check, data, bank, qid)
    answer = _answer(check, data, qid)
    translations = _translations(check, data, bank, qid)
    _check_options(check, data, translations, answer, qid)
    for lang in bank.languages:
        if lang not in data:
            check.report(
                (data.line, data.column),
                f"no '{lang}' translation: the question is left out of the '{lang}' deck",
                f"add a '{lang}:' section",
                qid,
                Severity.WARNING,
            )
    if not qid or answer is None or topics is None or not translations:
        return None
    return Question(qid, topics, answer, translations, Source(check.path, data.line, data.column))


def _question_topics(check: _Checker, data: Map, bank: Bank, qid: str) -> tuple[str, ...] | None:
    if "topics" not in data:
        return None
    seq = check.sequence(data["topics"], data.at("topics"), "'topics'", qid)
    if seq is None:
        return None
    if not seq:
        check.report(data.at("topics"), "'topics' is empty", "give at least one topic declared in bank.yaml", qid)
        return None
    ok = True
    for slug, where in zip(seq, seq.marks, strict=True):
        if slug not in bank.topics:
            close = difflib.get_close_matches(str(slug), sorted(bank.topics), n=1)
            hint = f"did you mean '{close[0]}'?" if close else "declare it under 'topics' in bank.yaml"
            check.report(where, f"undeclared topic '{slug}'", hint, qid)
            ok = False
    return tuple(dict.fromkeys(seq)) if ok else None


def _answer(check: _Checker, data: Map, qid: str) -> str | None:
    if "answer" not in data:
        return None
    answer = data["answer"]
    if not isinstance(answer, str) or answer.strip().upper() not in LETTERS:
        check.report(data.at("answer"), f"answer must be one letter A-{LETTERS[-1]}, not {answer!r}", question=qid)
        return None
    return answer.strip().upper()


def _translations(check: _Checker, data: Map, bank: Bank, qid: str) -> dict[str, Translation]:
    result: dict[str, Translation] = {}
    for lang in data:
        if not is_language(lang) or lang in QUESTION_KEYS:
            continue
        if lang not in bank.languages:
            check.report(
                data.at(lang),
                f"'{lang}' is not among the bank's languages; it is not built",
                "add it to 'languages' in bank.yaml",
                qid,
                Severity.WARNING,
            )
            continue
        translation = _translation(check, data[lang], data.at(lang), qid, lang)
        if translation is not None:
            result[lang] = translation
    return result


def _translation(check: _Checker, value: Any, where: tuple[int, int], qid: str, lang: str) -> Translation | None:
    data = check.mapping(value, where, f"the '{lang}' translation", qid)
    if data is None:
        return None
    check.keys(data, TRANSLATION_KEYS, f"the '{lang}' translation", qid)
    question = check.text(data, "question", qid)
    explanation = check.text(data, "explanation", qid)
    options = _options(check, data, qid)
    if question is None or explanation is None or options is None:
        return None
    marks = {"Question": data.at("question"), "Explanation": data.at("explanation")}
    marks.update(zip(LETTERS, data["options"].marks, strict=False))
    return Translation(question, options, explanation, marks)


def _options(check: _Checker, data: Map, qid: str) -> tuple[str, ...] | None:
    if "options" not in data:
        return None
    seq = check.sequence(data["options"], data.at("options"), "'options'", qid)
    if seq is None:
        return None
    texts = [
        check.text_value(v, w, f"option {i + 1}", qid) for i, (v, w) in enumerate(zip(seq, seq.marks, strict=True))
    ]
    if not MIN_OPTIONS <= len(seq) <= MAX_OPTIONS:
        check.report(
            data.at("options"), f"{len(seq)} option(s); a question needs {MIN_OPTIONS} to {MAX_OPTIONS}", question=qid
        )
        return None
    seen: dict[str, int] = {}
    for index, text in enumerate(texts):
        if text is not None and text in seen:
            check.report(
                seq.marks[index],
                f"option {LETTERS[index]} repeats option {LETTERS[seen[text]]}",
                "every option must be different",
                qid,
            )
        elif text is not None:
            seen[text] = index
    if None in texts or len(seen) != len(texts):
        return None
    return tuple(t for t in texts if t is not None)


def _check_options(
    check: _Checker, data: Map, translations: dict[str, Translation], answer: str | None, qid: str
) -> None:
    """Every language offers the same number of options, and the answer is one of them."""
    counts = {lang: len(t.options) for lang, t in translations.items()}
    if len(set(counts.values())) > 1:
        listed = ", ".join(f"{lang}: {n}" for lang, n in counts.items())
        check.report(
            (data.line, data.column),
            f"the languages have different numbers of options ({listed})",
            "every translation lists the same options in the same order",
            qid,
        )
        translations.clear()
    elif answer is not None and counts and LETTERS.index(answer) >= min(counts.values()):
        check.report(
            data.at("answer"),
            f"answer {answer} is not among the {min(counts.values())} options",
            f"use a letter from A to {LETTERS[min(counts.values()) - 1]}",
            qid,
        )
        translations.clear()


def check_unique_ids(decks: Iterable[Deck], problems: Problems) -> None:
    """A question id identifies notes in classmates' collections: it must be unique."""
    first: dict[str, Question] = {}
    for deck in decks:
        for question in deck.questions:
            earlier = first.setdefault(question.id, question)
            if earlier is not question:
                where = earlier.source
                problems.add(
                    question.source.path,
                    f"duplicate question id '{question.id}'",
                    line=question.source.line,
                    column=question.source.column,
                    question=question.id,
                    hint=f"first used at {problems.name(where.path)}:{where.line}; give each question its own id",
                )
