"""Validate stage: turn parsed YAML into a :class:`~ankibuild.model.Bank`.

Every check reports into one :class:`~ankibuild.errors.Problems` and carries on,
so a student sees all mistakes of all files in one run.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from functools import cache
from itertools import chain
from operator import itemgetter
from pathlib import Path
from typing import Any

from ..errors import MISSING_TRANSLATION, Problem, Problems, Severity, gather, one_each
from ..kinds import CHECKS, DEFAULT_KIND, KINDS, Kind, Reading
from ..languages import CODE_HINT, is_language
from ..links import PLACEHOLDERS, read_url
from ..model import SLUG, TOPIC, Bank, Deck, Place, Question, Translation, fallback
from ..options import FORMATS
from ..study import read_study
from ..yamlfiles.checker import Checker, closest, type_name
from ..yamlfiles.reader import Map, YamlFile

#: What a bank may set for the class that lives with its decks in Anki (see :mod:`.study`, :mod:`.links`).
CLASS_KEYS = {"study": False, "report": False, "home": False, "description": False}


BANK_KEYS = {
    "id": True,
    "languages": True,
    "topics": True,
    "title": False,
    "shuffle": False,
    "exports": False,
    **CLASS_KEYS,
}
FILE_KEYS = {"questions": True, "deck": False, "todo": False, "languages": False}
#: The keys of every question, whatever its kind; each kind adds its own (see :mod:`.kinds`).
QUESTION_KEYS = {"id": True, "topics": True, "kind": False, "allow": False}
#: The keys of a question of any kind: no language code may be one of them.
EVERY_QUESTION_KEY = {key: False for kind in KINDS.values() for key in (*QUESTION_KEYS, *kind.question_keys)}
#: The keys of a question of each kind, by its name.
_KIND_KEYS = {name: {**QUESTION_KEYS, **kind.question_keys} for name, kind in KINDS.items()}


def _top(check: Checker, file: YamlFile, what: str, *, hint: str) -> Map | None:
    """The mapping a file holds; nothing when it could not be parsed (already reported)."""
    if not file.parsed:
        return None
    if file.data is None:
        check.report((1, 1), "the file is empty", hint)
        return None
    return check.mapping(file.data, (1, 1), what)


def _slug(check: Checker, data: Map, what: str, *, question: str = "") -> str | None:
    """The ``id`` of a bank or question: reported unless it is a slug."""
    value = check.text(data, "id", question)
    if value is not None and not SLUG.fullmatch(value):  # a line break after it too, which '$' lets through
        check.report(
            data.at("id"),
            f"{what} {value!r} is not a slug",
            "use lowercase letters, digits and - _ .",
            question=question,
        )
    return value


def validate_bank_file(file: YamlFile, problems: Problems, released_id: str | None = "") -> Bank | None:
    """The bank's settings (id, languages, topics), without its decks yet.

    ``released_id`` is the id of the bank's previous build, which it must keep;
    None when it is not known yet, to be checked by :func:`check_released_id` once it is.
    """
    check = Checker(file.path, problems)
    data = _top(check, file, "the bank file", hint="write the bank's id, languages and topics")
    if data is None:
        return None
    check.keys(data, BANK_KEYS, "the bank file")
    bank_id = _slug(check, data, "bank id")
    if released_id is not None:
        _released(check, data, bank_id, released_id=released_id)
    languages = _languages(check, data)
    titles = check.localized(data["title"], data.at("title"), "'title'") if "title" in data else {}
    _stand_ins(
        check, data.at("title"), titles, languages=languages, what="the bank has no title", place="under 'title'"
    )
    topics = _topics(check, data, languages)
    shuffle = _flag(check, data, "shuffle", default=True)
    exports = tuple(dict.fromkeys(check.names(data, "exports", FORMATS, question="")))
    for_class = _class_settings(check, data)
    if bank_id is None or not SLUG.fullmatch(bank_id) or not languages:
        return None
    return Bank(bank_id, languages, titles, topics, (), file.path.parent, shuffle, exports, **for_class)


def _class_settings(check: Checker, data: Map) -> dict[str, Any]:
    """What the bank sets for its class in Anki (:data:`CLASS_KEYS`), by the :class:`Bank` field each fills."""
    return {
        "study": read_study(check, data),
        "report": read_url(check, data, "report", placeholders=PLACEHOLDERS),
        "home": read_url(check, data, "home"),
        "describe": _flag(check, data, "description", default=False),
    }


def _flag(check: Checker, data: Map, key: str, *, default: bool) -> bool:
    """A setting of the bank that is true or false (``default`` when absent, or reported)."""
    value = data.get(key, default)
    if isinstance(value, bool):
        return value
    check.report(data.at(key), f"'{key}' must be true or false, not {type_name(value)}", "write true or false")
    return default


def check_released_id(file: YamlFile, problems: Problems, released_id: str) -> None:
    """What :func:`validate_bank_file` checks of the bank id when given ``released_id``, for one given None."""
    told = Checker(file.path, Problems())  # what else the file holds was reported when it was validated
    data = _top(told, file, "the bank file", hint="")
    if data is not None:
        _released(Checker(file.path, problems), data, _slug(told, data, "bank id"), released_id=released_id)


def _released(check: Checker, data: Map, bank_id: str | None, *, released_id: str) -> None:
    """Refuse a bank id other than ``released_id``, the one the bank was released under, if any."""
    if bank_id is not None and released_id and bank_id != released_id:
        check.report(
            data.at("id"),
            f"the bank id changed from '{released_id}' (in ankibuild.lock) to '{bank_id}'",
            f"change it back to '{released_id}': every note's identity derives from it, so classmates would "
            "get a second copy of every question; to start a new bank on purpose, delete ankibuild.lock",
        )
    elif bank_id is not None and "__" in bank_id:
        _ambiguous_bank_id(check, data, bank_id, released=bank_id == released_id)


def _ambiguous_bank_id(check: Checker, data: Map, bank_id: str, *, released: bool) -> None:
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


def _languages(check: Checker, data: Map) -> tuple[str, ...]:
    if "languages" not in data:
        return ()
    seq = check.sequence(data["languages"], data.at("languages"), "'languages'")
    if seq is None:
        return ()
    if not seq:
        check.report(data.at("languages"), "'languages' is empty", "list the languages to build, e.g. [de, fr, en]")
    result: list[str] = []
    for lang, where in zip(seq, seq.marks, strict=True):
        if _language(check, lang, where, listed=result):
            result.append(lang)
    return tuple(result)


def _language(check: Checker, lang: Any, where: tuple[int, int], *, listed: list[str]) -> bool:
    """True for a language code the bank can build and has not listed yet."""
    if not isinstance(lang, str):
        check.report(where, f"a language code must be text, not {type_name(lang)}", CODE_HINT)
    elif not is_language(lang):
        check.report(where, f"unknown language code {lang!r}", CODE_HINT)
    elif lang in EVERY_QUESTION_KEY:
        check.report(where, f"'{lang}' is also a key of every question", f"write it with its region, e.g. {lang}-ID")
    elif lang in listed:
        check.report(where, f"language '{lang}' is listed twice", "list each language once")
    else:
        return True
    return False


def _topics(check: Checker, data: Map, languages: tuple[str, ...]) -> dict[str, dict[str, str]]:
    if "topics" not in data:
        return {}
    declared = check.mapping(data["topics"], data.at("topics"), "'topics'")
    if declared is None:
        return {}
    topics: dict[str, dict[str, str]] = {}
    for slug, names in declared.items():
        where = declared.at(slug)
        if not TOPIC.fullmatch(slug):  # a tag: a line break after it would reach every note's tags
            hint = "use letters, digits, - _ . and :: for hierarchy, no spaces"
            check.report(where, f"topic {slug!r} is not a valid tag", hint)
            continue
        topics[slug] = check.localized(names, where, f"topic '{slug}'")
        if not topics[slug] and isinstance(names, Map) and languages:
            check.report(where, f"topic '{slug}' has no name", f"add '{languages[0]}: <name>' under it")
        _stand_ins(
            check, where, topics[slug], languages=languages, what=f"topic '{slug}' has no name", place="under it"
        )
    return topics


def _stand_ins(
    check: Checker, where: tuple[int, int], names: dict[str, str], *, languages: Sequence[str], what: str, place: str
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


class Questions:
    """A question file's questions, each validated as soon as it is read (the ``take`` of
    :func:`~ankibuild.yamlfiles.reader.parse_file`), so that its values can go at once.

    Their problems are kept apart until :func:`validate_deck_file` has reported the
    file's own, which come first. Each question, with whether it is valid, is given
    to ``then`` as it is found; with ``keep``, it is kept for the deck too.
    """

    def __init__(
        self, path: Path, bank: Bank, *, then: Callable[[Question, bool], None] | None = None, keep: bool = True
    ) -> None:
        self.path, self.bank = path, bank
        self.problems = Problems()
        self.found: list[tuple[Question, bool]] = []
        self._written: tuple[str, ...] | None = None
        self._then, self._keep = then, keep

    def __call__(self, data: Map, item: Any, where: tuple[int, int]) -> None:
        """Validate one question; ``data`` is the file's mapping as read so far, with every setting before it."""
        if self._written is None:  # reported with the file's own problems
            self._written = _file_languages(Checker(self.path, Problems()), data, self.bank)
        found = _question(Checker(self.path, self.problems), item, where, bank=self.bank, written=self._written)
        if found is None:
            return
        if self._then is not None:
            self._then(*found)
        if self._keep:
            self.found.append(found)


def deck_key(bank: Bank, path: Path) -> str:
    """The key of the deck a question file of ``bank`` makes: its path in the bank, without the suffix."""
    return path.relative_to(bank.root).with_suffix("").as_posix()


def validate_deck_file(file: YamlFile, bank: Bank, problems: Problems, *, read: Questions | None = None) -> Deck | None:
    """One question file as a deck; problems are reported, valid questions kept.

    ``read``: the :class:`Questions` the file's questions were handed to as it was parsed, if they were.
    """
    check = Checker(file.path, problems)
    data = _top(check, file, "a question file", hint="add 'questions:' or delete the file")
    if data is None:
        return None
    check.keys(data, FILE_KEYS, "a question file")
    key = deck_key(bank, file.path)
    written = _file_languages(check, data, bank)
    titles = _deck_titles(check, data, replace(bank, languages=written), key=key)
    _todo(check, data)
    questions = _questions(check, data, bank, written=written)
    if file.handed_over and read is not None:
        problems.extend(read.problems.items)
        questions = read.found
    valid = tuple(question for question, ok in questions if ok)
    drafts = tuple(question for question, ok in questions if not ok)
    return Deck(key, titles, valid, Place(file.path, data.line, data.column), drafts)


def _file_languages(check: Checker, data: Map, bank: Bank) -> tuple[str, ...]:
    """The bank's languages the file is written in (``languages:``, else all): a language it leaves out on
    purpose is no translation missing."""
    if "languages" not in data:
        return bank.languages
    listed = check.names(data, "languages", bank.languages, question="")
    return tuple(lang for lang in bank.languages if lang in listed)


def _deck_titles(check: Checker, data: Map, bank: Bank, *, key: str) -> dict[str, str]:
    titles = check.localized(data["deck"], data.at("deck"), "'deck'") if "deck" in data else {}
    _stand_ins(
        check, data.at("deck"), titles, languages=bank.languages, what="the deck has no title", place="under 'deck'"
    )
    if not titles:  # else each language without its own title has the warning of a stand-in
        for lang in bank.languages:
            check.report(
                data.at("deck"),
                f"the deck has no title in '{lang}'; '{key}' is used",
                f"add '{lang}: <title>' under 'deck'",
                severity=Severity.WARNING,
            )
    return titles


def _todo(check: Checker, data: Map) -> None:
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


def _questions(check: Checker, data: Map, bank: Bank, *, written: tuple[str, ...]) -> list[tuple[Question, bool]]:
    """The file's questions, each with whether it is valid; ``written``: the languages each should have."""
    if "questions" not in data:
        return []
    seq = check.sequence(data["questions"], data.at("questions"), "'questions'")
    found = [
        _question(check, item, where, bank=bank, written=written)
        for item, where in zip(seq or (), seq.marks if seq else (), strict=True)
    ]
    return [question for question in found if question is not None]


def _question(
    check: Checker, item: Any, where: tuple[int, int], *, bank: Bank, written: tuple[str, ...]
) -> tuple[Question, bool] | None:
    """A question, and whether it is valid; an invalid one keeps the texts that could be read."""
    data = check.mapping(item, where, "a question")
    if data is None:
        return None
    qid = _slug(check, data, "question id") or ""
    kind = _kind(check, data, qid)
    check.keys(
        data,
        _KIND_KEYS[kind.name] if kind else EVERY_QUESTION_KEY,
        "a question",
        question=qid,
        languages=bank.languages,
        elsewhere=_elsewhere(kind, False),
    )
    topics = _question_topics(check, data, bank, qid=qid)
    translations, texts = _translations(check, data, bank, qid=qid, kind=kind) if kind else ({}, {})
    _missing_translations(check, data, written, qid=qid)
    reading = kind.read_question(check, data, qid, texts=translations) if kind else Reading("", ok=False)
    allow = frozenset(check.names(data, "allow", CHECKS, question=qid))
    place = Place(check.path, data.line, data.column)
    valid = bool(qid and reading.ok and topics and translations)
    name = kind.name if kind else DEFAULT_KIND
    found = translations if valid else texts
    settings = reading.pin, allow, name, reading.shuffle, reading.flags
    return Question(qid, topics or (), reading.answer, found, place, *settings), valid


def _kind(check: Checker, data: Map, qid: str) -> Kind | None:
    """The question's kind: the one it names, else multiple choice; None for a name that is no kind."""
    if "kind" not in data:
        return KINDS[DEFAULT_KIND]
    value = data["kind"]
    name = value.strip() if isinstance(value, str) else ""
    if name in KINDS:
        return KINDS[name]
    close = closest(name, list(KINDS))
    hint = f"did you mean '{close}'?" if close else f"write one of: {', '.join(KINDS)}"
    shown = f"'{value}'" if isinstance(value, str) else type_name(value)
    check.report(data.at("kind"), f"there is no kind of question {shown}", hint, question=qid)
    return None


@cache
def _elsewhere(kind: Kind | None, translation: bool) -> Mapping[str, str]:
    """A hint for each key that other kinds of question have, in a question or (``translation``) in a translation."""
    if kind is None:
        return {}
    owners: dict[str, list[str]] = {}
    for other in KINDS.values():
        for key in other.translation_keys if translation else other.question_keys:
            owners.setdefault(key, []).append(other.name)
    hints = {
        key: f"'{key}' belongs to a question of kind {' or '.join(names)}: write 'kind: {names[0]}' or remove it"
        for key, names in owners.items()
    }
    level, there = (kind.question_keys, "the question") if translation else (kind.translation_keys, "each translation")
    hints.update({key: f"in a question of kind {kind.name}, '{key}' goes in {there}" for key in level})
    return hints


def _missing_translations(check: Checker, data: Map, languages: tuple[str, ...], *, qid: str) -> None:
    for lang in languages:
        if lang not in data:
            check.report(
                (data.line, data.column),
                _missing_message(lang),
                f"add the '{lang}:' section",
                question=qid,
                severity=Severity.WARNING,
                check=MISSING_TRANSLATION,
            )


def _missing_message(lang: str) -> str:
    return f"no '{lang}' translation: the question is left out of the '{lang}' deck"


def missing_in_summary(problems: Sequence[Problem], *, verbose: bool = False) -> list[Problem]:
    """One line per language for the questions without it (``verbose``: a line per question, up to
    :data:`~ankibuild.errors.SHOWN` of a file, then how many more).

    A bank translated file by file would otherwise repeat the same warning for
    every question on every build.
    """
    if verbose:
        return one_each(problems, MISSING_TRANSLATION)
    return gather(problems, MISSING_TRANSLATION, _missing_summary)


def _missing_summary(first: Problem, count: int) -> Problem:
    lang = first.message.split("'")[1]  # the message _missing_message made: "no 'de' translation: ..."
    return replace(
        first,
        message=f"no '{lang}' translation in {count:,} questions (the first is here): "
        f"they are left out of the '{lang}' deck",
        hint=f"add their '{lang}:' sections; 'ankibuild check --verbose' lists every one",
        question="",
    )


def _question_topics(check: Checker, data: Map, bank: Bank, *, qid: str) -> tuple[str, ...] | None:
    if "topics" not in data:
        return None
    seq = check.sequence(data["topics"], data.at("topics"), "'topics'", question=qid)
    if seq is None:
        return None
    if not seq:
        check.report(
            data.at("topics"), "'topics' is empty", "give at least one topic declared in bank.yaml", question=qid
        )
        return None
    slugs = [_topic(check, value, where, bank=bank, qid=qid) for value, where in zip(seq, seq.marks, strict=True)]
    valid = [slug for slug in slugs if slug is not None]
    return tuple(dict.fromkeys(valid)) if len(valid) == len(slugs) else None


def _topic(check: Checker, value: Any, where: tuple[int, int], *, bank: Bank, qid: str) -> str | None:
    slug = check.text_value(value, where, "a topic", question=qid)
    if slug is None or slug in bank.topics:
        return slug
    close = closest(slug, sorted(bank.topics))
    hint = f"did you mean '{close}'?" if close else "declare it under 'topics' in bank.yaml"
    check.report(where, f"undeclared topic '{slug}'", hint, question=qid)
    return None


def _translations(
    check: Checker, data: Map, bank: Bank, *, qid: str, kind: Kind
) -> tuple[dict[str, Translation], dict[str, Translation]]:
    """The valid translations, and every translation with the texts that could be read."""
    result: dict[str, Translation] = {}
    texts: dict[str, Translation] = {}
    for lang in data:
        if lang in EVERY_QUESTION_KEY or not is_language(lang):
            continue
        if lang not in bank.languages:
            check.report(
                data.at(lang),
                f"'{lang}' is not among the bank's languages; it is not built",
                "add it to 'languages' in bank.yaml",
                question=qid,
                severity=Severity.WARNING,
            )
            continue
        what = f"the '{lang}' translation"
        translation = check.mapping(data[lang], data.at(lang), what, question=qid)
        if translation is None:
            continue
        check.keys(
            translation, kind.translation_keys, what, question=qid, nested=True, elsewhere=_elsewhere(kind, True)
        )
        texts[lang], valid = kind.read_translation(check, translation, qid, where=data.at(lang))
        if valid:
            result[lang] = texts[lang]
    return result, texts


def check_unique_ids(files: Sequence[tuple[Path, Sequence[tuple[str, int, int]]]], problems: Problems) -> None:
    """A question id identifies notes in classmates' collections: it must be unique.

    ``files`` are the bank's question files, each with its questions as (id, line, column), in order.
    """
    each = [questions for _, questions in files]
    # Nearly always each id once, told by a set made in C: the loop below is for a bank with a repeated id.
    if len(set(map(itemgetter(0), chain.from_iterable(each)))) == sum(map(len, each)):
        return
    first: dict[str, tuple[Path, int, int]] = {}
    for path, questions in files:
        for question, line, column in questions:
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
