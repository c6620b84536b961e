"""Validate stage: turn parsed YAML into a :class:`~ankibuild.model.Bank`.

Every check reports into one :class:`~ankibuild.errors.Problems` and carries on,
so a student sees all mistakes of all files in one run.
"""

from __future__ import annotations

import difflib
import re
from collections import Counter
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from .errors import Problems, Severity
from .itemchecks import CHECKS
from .languages import CODE_HINT, is_language
from .loader import Map, Seq, SourceFile
from .model import LETTERS, MAX_OPTIONS, MIN_OPTIONS, Bank, Deck, Question, Source, Translation, fallback

SLUG = re.compile(r"^[a-z0-9][a-z0-9_.-]*$")
TOPIC = re.compile(r"^[\w.-]+(::[\w.-]+)*$")

BANK_KEYS = {"id": True, "languages": True, "topics": True, "title": False, "shuffle": False}
FILE_KEYS = {"questions": True, "deck": False, "todo": False}
QUESTION_KEYS = {"id": True, "topics": True, "answer": True, "pin": False, "allow": False}
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
        hint = "write one 'key: value' per line, indented below it, or {key: value, ...}"
        self.report(where, f"{what} must be a mapping (key: value), not {_kind(value)}", hint, question)
        return None

    def sequence(self, value: Any, where: tuple[int, int], what: str, question: str = "") -> Seq | None:
        if isinstance(value, Seq):
            return value
        hint = "write one '- item' per line, indented below it, or [item, item]"
        self.report(where, f"{what} must be a list (- item), not {_kind(value)}", hint, question)
        return None

    def keys(
        self, data: Map, spec: dict[str, bool], what: str, question: str = "", languages: Sequence[str] = ()
    ) -> None:
        """Report missing required keys and unknown keys (with a suggestion).

        Language codes are keys only where ``languages`` (the bank's) are given, in a
        question: anywhere else, ``en:`` is a mistake; in a translation, one indented too far.
        """
        for key in data:
            if key not in spec and not (languages and is_language(key)):
                hint = _key_hint(key, [*spec, *languages], nested=spec is TRANSLATION_KEYS)
                self.report(data.at(key), f"unknown key '{key}' in {what}", hint, question)
        for key, required in spec.items():
            if required and key not in data:
                self.report((data.line, data.column), f"missing key '{key}' in {what}", f"add '{key}:'", question)

    def text(self, data: Map, key: str, question: str = "") -> str | None:
        value = data.get(key)
        if value is None and key not in data:
            return None  # reported as a missing key already
        return self.text_value(value, data.at(key), f"'{key}'", question)

    def text_value(self, value: Any, where: tuple[int, int], what: str, question: str = "") -> str | None:
        if value is None or (isinstance(value, str) and not value.strip()):
            self.report(where, f"{what} is empty", "write the text", question)
            return None
        if not isinstance(value, str):
            hint = "put it in quotes if it is meant as text" if isinstance(value, bool) else "write the text itself"
            self.report(where, f"{what} must be text, not {_kind(value)}", hint, question)
            return None
        control = _CONTROL.search(value)
        if control:
            # U+001F separates a note's fields inside Anki: such a text would corrupt the note
            message = f"{what} contains the invisible control character U+{ord(control.group()):04X}"
            self.report(where, message, "remove it; it comes from an escape such as \\x1f in quotes", question)
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
                self.report(data.at(lang), f"unknown language code '{lang}' in {what}", CODE_HINT)
                continue
            checked = self.text_value(text, data.at(lang), f"{what} in '{lang}'")
            if checked is not None:
                result[lang] = checked
        return result


#: Control characters other than tab and line break (YAML only lets them in through escapes).
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def _key_hint(key: str, allowed: list[str], nested: bool) -> str:
    close = difflib.get_close_matches(key, allowed, n=1)
    if close:
        return f"did you mean '{close[0]}'?"
    if nested and is_language(key):
        return "a translation sits directly under the question: is it indented too far?"
    return f"allowed: {', '.join(allowed)}"


def _kind(value: Any) -> str:
    if value is None:
        return "empty"
    if isinstance(value, bool):
        return str(value).lower()
    kinds: dict[type, str] = {Map: "a mapping", Seq: "a list", str: "text"}
    return kinds.get(type(value), type(value).__name__)


def _top(check: _Checker, source: SourceFile, what: str, hint: str) -> Map | None:
    """The mapping a file holds; nothing when it could not be parsed (already reported)."""
    if not source.parsed:
        return None
    if source.data is None:
        check.report((1, 1), "the file is empty", hint)
        return None
    return check.mapping(source.data, (1, 1), what)


def _slug(check: _Checker, data: Map, what: str, question: str = "") -> str | None:
    """The ``id`` of a bank or question: reported unless it is a slug."""
    value = check.text(data, "id", question)
    if value is not None and not SLUG.match(value):
        check.report(
            data.at("id"), f"{what} '{value}' is not a slug", "use lowercase letters, digits and - _ .", question
        )
    return value


def validate_bank_file(source: SourceFile, problems: Problems, released_id: str = "") -> Bank | None:
    """The bank's settings (id, languages, topics), without its decks yet.

    ``released_id`` is the id of the bank's previous build, which it must keep.
    """
    check = _Checker(source.path, problems)
    data = _top(check, source, "the bank file", "write the bank's id, languages and topics")
    if data is None:
        return None
    check.keys(data, BANK_KEYS, "the bank file")
    bank_id = _bank_id(check, data, released_id)
    languages = _languages(check, data)
    titles = check.localized(data["title"], data.at("title"), "'title'") if "title" in data else {}
    if titles:
        _stand_ins(check, data.at("title"), titles, languages, "the bank has no title", "under 'title'")
    topics = _topics(check, data, languages)
    shuffle = data.get("shuffle", True)
    if not isinstance(shuffle, bool):
        check.report(
            data.at("shuffle"), f"'shuffle' must be true or false, not {_kind(shuffle)}", "write true or false"
        )
    if bank_id is None or not SLUG.match(bank_id) or not languages:
        return None
    return Bank(bank_id, languages, titles, topics, (), source.path.parent, shuffle is True)


def _bank_id(check: _Checker, data: Map, released_id: str) -> str | None:
    bank_id = _slug(check, data, "bank id")
    if bank_id is not None and released_id and bank_id != released_id:
        check.report(
            data.at("id"),
            f"the bank id changed from '{released_id}' (in ankibuild.lock) to '{bank_id}'",
            f"change it back to '{released_id}': every note's identity derives from it, so classmates would "
            "get a second copy of every question; to start a new bank on purpose, delete ankibuild.lock",
        )
    elif bank_id is not None and "__" in bank_id:
        _ambiguous_bank_id(check, data, bank_id, released=bank_id == released_id)
    return bank_id


def _ambiguous_bank_id(check: _Checker, data: Map, bank_id: str, released: bool) -> None:
    """Refuse ``__`` in a bank id: a note's GUID joins the bank id and question id with it.

    Bank ``a__b`` with question ``c`` and bank ``a`` with question ``b__c`` would
    share GUIDs, and Anki would never add the second bank's note. Ruling it out of
    bank ids (question ids may keep it) leaves every released GUID as it was.
    A bank already released under such an id keeps it, with a warning.
    """
    message = f"the bank id '{bank_id}' has two underscores in a row"
    consequence = "another bank's notes could then share a note's identity and never reach a collection that has both"
    if released:
        check.report(data.at("id"), message, f"it was released, so it stays; {consequence}", severity=Severity.WARNING)
    else:
        check.report(data.at("id"), message, f"use one underscore or a hyphen: {consequence}")


def _languages(check: _Checker, data: Map) -> tuple[str, ...]:
    if "languages" not in data:
        return ()
    seq = check.sequence(data["languages"], data.at("languages"), "'languages'")
    if seq is None:
        return ()
    if not seq:
        check.report(data.at("languages"), "'languages' is empty", "list the languages to build, e.g. [de, fr, en]")
    result: list[str] = []
    for lang, where in zip(seq, seq.marks, strict=True):
        if _language(check, lang, where, result):
            result.append(lang)
    return tuple(result)


def _language(check: _Checker, lang: Any, where: tuple[int, int], listed: list[str]) -> bool:
    """True for a language code the bank can build and has not listed yet."""
    if not isinstance(lang, str):
        check.report(where, f"a language code must be text, not {_kind(lang)}", CODE_HINT)
    elif not is_language(lang):
        check.report(where, f"unknown language code '{lang}'", CODE_HINT)
    elif lang in QUESTION_KEYS:
        check.report(where, f"'{lang}' is also a key of every question", f"write it with its region, e.g. {lang}-ID")
    elif lang in listed:
        check.report(where, f"language '{lang}' is listed twice", "list each language once")
    else:
        return True
    return False


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
        if not topics[slug] and isinstance(names, Map) and languages:
            check.report(where, f"topic '{slug}' has no name", f"add '{languages[0]}: <name>' under it")
        _stand_ins(check, where, topics[slug], languages, f"topic '{slug}' has no name", "under it")
    return topics


def _stand_ins(
    check: _Checker, where: tuple[int, int], names: dict[str, str], languages: Sequence[str], what: str, place: str
) -> None:
    """Warn of each language without a name of its own, saying which name stands in (see :func:`fallback`)."""
    noun = "title" if "title" in what else "name"
    for lang in languages:
        used = fallback(names, lang, languages)
        if used is not None and used[0] != lang:
            check.report(
                where,
                f"{what} in '{lang}': its '{used[0]}' {noun} '{used[1]}' is used",
                f"add '{lang}: <name>' {place}",
                severity=Severity.WARNING,
            )


def validate_deck_file(source: SourceFile, bank: Bank, problems: Problems) -> Deck | None:
    """One question file as a deck; problems are reported, valid questions kept."""
    check = _Checker(source.path, problems)
    data = _top(check, source, "a question file", "add 'questions:' or delete the file")
    if data is None:
        return None
    check.keys(data, FILE_KEYS, "a question file")
    key = source.path.relative_to(bank.root).with_suffix("").as_posix()
    titles = _deck_titles(check, data, bank, key)
    _todo(check, data)
    questions = _questions(check, data, bank)
    valid = tuple(question for question, ok in questions if ok)
    drafts = tuple(question for question, ok in questions if not ok)
    return Deck(key, titles, valid, Source(source.path, data.line, data.column), drafts)


def _deck_titles(check: _Checker, data: Map, bank: Bank, key: str) -> dict[str, str]:
    titles = check.localized(data["deck"], data.at("deck"), "'deck'") if "deck" in data else {}
    _stand_ins(check, data.at("deck"), titles, bank.languages, "the deck has no title", "under 'deck'")
    for lang in bank.languages:
        if not titles:
            check.report(
                data.at("deck"),
                f"the deck has no title in '{lang}'; '{key}' is used",
                f"add '{lang}: <title>' under 'deck'",
                severity=Severity.WARNING,
            )
    return titles


def _todo(check: _Checker, data: Map) -> None:
    """Questions still to write (``{lang: [titles]}``) are not built, but must be well formed."""
    if "todo" not in data:
        return
    todo = check.mapping(data["todo"], data.at("todo"), "'todo'")
    for lang, titles in (todo or Map()).items():
        where = todo.at(lang) if todo is not None else (0, 0)
        if not is_language(lang):
            check.report(where, f"unknown language code '{lang}' in 'todo'", CODE_HINT)
        seq = check.sequence(titles, where, f"'todo' in '{lang}'")
        for title, at in zip(seq or (), seq.marks if seq else (), strict=True):
            check.text_value(title, at, f"a 'todo' title in '{lang}'")


def _questions(check: _Checker, data: Map, bank: Bank) -> list[tuple[Question, bool]]:
    """The file's questions, each with whether it is valid."""
    if "questions" not in data:
        return []
    seq = check.sequence(data["questions"], data.at("questions"), "'questions'")
    found = [
        _question(check, item, where, bank) for item, where in zip(seq or (), seq.marks if seq else (), strict=True)
    ]
    return [question for question in found if question is not None]


def _question(check: _Checker, item: Any, where: tuple[int, int], bank: Bank) -> tuple[Question, bool] | None:
    """A question, and whether it is valid; an invalid one keeps the texts that could be read."""
    data = check.mapping(item, where, "a question")
    if data is None:
        return None
    qid = _slug(check, data, "question id") or ""
    check.keys(data, QUESTION_KEYS, "a question", qid, languages=bank.languages)
    topics = _question_topics(check, data, bank, qid)
    answer = _answer(check, data, qid)
    translations, texts = _translations(check, data, bank, qid)
    agree = _options_agree(check, data, translations, answer, qid)
    _missing_translations(check, data, bank, qid)
    count = min((len(t.options) for t in translations.values()), default=len(LETTERS))
    pin = tuple(_names(check, data, "pin", LETTERS[:count], qid))
    allow = frozenset(_names(check, data, "allow", CHECKS, qid))
    source = Source(check.path, data.line, data.column)
    if not (qid and answer and topics and translations and agree):
        return Question(qid, topics or (), answer or "", texts, source, pin, allow), False
    return Question(qid, topics, answer, translations, source, pin, allow), True


def _names(check: _Checker, data: Map, key: str, allowed: Sequence[str], qid: str) -> list[str]:
    """The valid names listed under ``key`` (option letters to pin, checks to allow); others are reported."""
    if key not in data:
        return []
    seq = check.sequence(data[key], data.at(key), f"'{key}'", qid)
    names: list[str] = []
    for value, where in zip(seq or (), seq.marks if seq else (), strict=True):
        name = value.strip() if isinstance(value, str) else ""
        name = name.upper() if key == "pin" else name
        if name in allowed:
            names.append(name)
            continue
        close = difflib.get_close_matches(name, allowed, n=1)
        hint = f"did you mean '{close[0]}'?" if close else f"allowed: {', '.join(allowed)}"
        check.report(where, f"'{value}' is not allowed in '{key}'", hint, qid)
    return names


def _missing_translations(check: _Checker, data: Map, bank: Bank, qid: str) -> None:
    for lang in bank.languages:
        if lang not in data:
            check.report(
                (data.line, data.column),
                f"no '{lang}' translation: the question is left out of the '{lang}' deck",
                f"add the '{lang}:' section",
                qid,
                Severity.WARNING,
            )


def _question_topics(check: _Checker, data: Map, bank: Bank, qid: str) -> tuple[str, ...] | None:
    if "topics" not in data:
        return None
    seq = check.sequence(data["topics"], data.at("topics"), "'topics'", qid)
    if seq is None:
        return None
    if not seq:
        check.report(data.at("topics"), "'topics' is empty", "give at least one topic declared in bank.yaml", qid)
        return None
    slugs = [_topic(check, value, where, bank, qid) for value, where in zip(seq, seq.marks, strict=True)]
    valid = [slug for slug in slugs if slug is not None]
    return tuple(dict.fromkeys(valid)) if len(valid) == len(slugs) else None


def _topic(check: _Checker, value: Any, where: tuple[int, int], bank: Bank, qid: str) -> str | None:
    slug = check.text_value(value, where, "a topic", qid)
    if slug is None or slug in bank.topics:
        return slug
    close = difflib.get_close_matches(slug, sorted(bank.topics), n=1)
    hint = f"did you mean '{close[0]}'?" if close else "declare it under 'topics' in bank.yaml"
    check.report(where, f"undeclared topic '{slug}'", hint, qid)
    return None


def _answer(check: _Checker, data: Map, qid: str) -> str | None:
    if "answer" not in data:
        return None
    answer = data["answer"]
    letter = answer.strip().upper() if isinstance(answer, str) else ""
    if letter not in LETTERS:
        shown = f"'{answer}'" if isinstance(answer, str) else _kind(answer)
        hint = "the letter of the correct option: A is the first"
        check.report(data.at("answer"), f"answer must be one letter A-{LETTERS[-1]}, not {shown}", hint, qid)
        return None
    return letter


def _translations(
    check: _Checker, data: Map, bank: Bank, qid: str
) -> tuple[dict[str, Translation], dict[str, Translation]]:
    """The valid translations, and every translation with the texts that could be read."""
    result: dict[str, Translation] = {}
    texts: dict[str, Translation] = {}
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
        found = _translation(check, data[lang], data.at(lang), qid, lang)
        if found is not None:
            texts[lang] = found[0]
            if found[1]:
                result[lang] = found[0]
    return result, texts


def _translation(
    check: _Checker, value: Any, where: tuple[int, int], qid: str, lang: str
) -> tuple[Translation, bool] | None:
    """A translation, and whether it is valid; an invalid one keeps the texts that could be read."""
    data = check.mapping(value, where, f"the '{lang}' translation", qid)
    if data is None:
        return None
    check.keys(data, TRANSLATION_KEYS, f"the '{lang}' translation", qid)
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
        hint = f"give {MIN_OPTIONS} to {MAX_OPTIONS} options, one per letter {LETTERS[0]} to {LETTERS[-1]}"
        check.report(
            data.at("options"), f"{len(seq)} option(s); a question needs {MIN_OPTIONS} to {MAX_OPTIONS}", hint, qid
        )
        return None
    options = tuple(text for text in texts if text is not None)
    if len(options) != len(texts) or not _distinct(check, options, seq.marks, qid):
        return None
    return options


def _distinct(check: _Checker, options: tuple[str, ...], marks: list[tuple[int, int]], qid: str) -> bool:
    """Two identical options would make the answer ambiguous."""
    seen: dict[str, int] = {}
    for index, text in enumerate(options):
        if text in seen:
            letters = LETTERS[index], LETTERS[seen[text]]
            check.report(marks[index], "option {} repeats option {}".format(*letters), "every option must differ", qid)
        seen.setdefault(text, index)
    return len(seen) == len(options)


def _options_agree(
    check: _Checker, data: Map, translations: dict[str, Translation], answer: str | None, qid: str
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


def _count_differs(check: _Checker, data: Map, counts: dict[str, int], qid: str) -> None:
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


def check_unique_ids(questions: Iterable[tuple[Path, str, int, int]], problems: Problems) -> None:
    """A question id identifies notes in classmates' collections: it must be unique.

    ``questions`` are the bank's questions as (file, id, line, column), in order.
    """
    first: dict[str, tuple[Path, int, int]] = {}
    for path, question, line, column in questions:
        where = first.setdefault(question, (path, line, column))
        if where != (path, line, column):
            problems.add(
                path,
                f"duplicate question id '{question}': also at {problems.name(where[0])}:{where[1]}:{where[2]}",
                line=line,
                column=column,
                question=question,
                hint="give this question its own id; the other one keeps it, as classmates' notes use it",
            )
