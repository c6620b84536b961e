"""How far each language of a bank is translated, and adding a language to it.

For every language the bank builds: the questions that have it, the questions
that lack it, those whose text may be outdated (see :mod:`.translations`), and
the topic names and deck titles it still needs.
"""

from __future__ import annotations

import difflib
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from ..atomic import write_inside
from ..buildlock import DEFAULT_WAIT, writing
from ..errors import AnkibuildError, BankError, Problems, tally
from ..languages import CODE_HINT, is_language
from ..model import Bank
from ..paths import DECKS
from ..yamlfiles.reader import BANK_FILE
from ..yamlfiles.writer import open_document
from .record import (
    TRANSLATIONS_FILE,
    Record,
    TextRef,
    advance,
    by_question,
    dumps,
    mark_current,
    read_record,
    text_refs,
    today,
)


@dataclass(frozen=True)
class LanguageStatus:
    """What one language has and lacks."""

    lang: str
    translated: tuple[str, ...]
    missing: tuple[str, ...]
    outdated: tuple[str, ...]
    topic_names: tuple[str, ...]
    deck_titles: tuple[str, ...]
    title: bool

    @property
    def complete(self) -> bool:
        return not (self.missing or self.outdated or self.topic_names or self.deck_titles or self.title)

    def as_dict(self) -> dict[str, object]:
        return {
            "translated": len(self.translated),
            "missing": len(self.missing),
            "outdated": len(self.outdated),
            "missing_questions": list(self.missing),
            "outdated_questions": list(self.outdated),
            "missing_topic_names": list(self.topic_names),
            "missing_deck_titles": list(self.deck_titles),
            "missing_title": self.title,
        }


@dataclass(frozen=True)
class BankStatus:
    """How far each language's translations are, over the bank's questions, and the problems found."""

    bank: str
    questions: int
    languages: tuple[LanguageStatus, ...]
    #: Problems that stop a build; what they hide is not counted.
    errors: int = 0
    warnings: list[str] = field(default_factory=list, compare=False)

    def as_dict(self) -> dict[str, object]:
        return {
            "bank": self.bank,
            "questions": self.questions,
            "errors": self.errors,
            "languages": {status.lang: status.as_dict() for status in self.languages},
        }


@dataclass(frozen=True)
class BankTexts:
    """A bank loaded for translating, whatever its problems, with its translations' record brought up to date."""

    bank: Bank
    problems: Problems
    refs: tuple[TextRef, ...]
    record: Record


def load_texts(decks: Path, date: str = "") -> BankTexts:
    """The bank as it is; raises :class:`BankError` only when not even ``bank.yaml`` can be read."""
    from ..load.stage import load_bank  # the pipeline checks translations itself: loaded on use

    problems = Problems()
    bank = load_bank(decks, problems)
    if bank is None:
        raise BankError(problems.items)
    refs = tuple(ref for deck in bank.decks for ref in text_refs(deck))
    record = advance(read_record(decks / TRANSLATIONS_FILE, problems), by_question(refs), date)
    return BankTexts(bank, problems, refs, record)


def status(decks: Path = DECKS) -> BankStatus:
    """How far each of the bank's languages is translated."""
    texts = load_texts(decks)
    bank = texts.bank
    return BankStatus(
        bank.id,
        sum(len(deck.questions) for deck in bank.decks),
        tuple(language_status(texts, lang) for lang in bank.languages),
        tally(texts.problems.errors),
    )


def language_status(texts: BankTexts, lang: str) -> LanguageStatus:
    bank = texts.bank
    questions = [question for deck in bank.decks for question in deck.questions]
    return LanguageStatus(
        lang,
        tuple(q.id for q in questions if lang in q.translations),
        tuple(q.id for q in questions if lang not in q.translations),
        tuple(q.id for q in questions if (e := texts.record.get(q.id, {}).get(lang)) and e.behind),
        tuple(slug for slug, names in bank.topics.items() if lang not in names),
        tuple(deck.key for deck in bank.decks if lang not in deck.titles),
        bool(bank.titles) and lang not in bank.titles,
    )


def add_language(code: str, decks: Path = DECKS, *, wait: float = DEFAULT_WAIT) -> LanguageStatus:
    """Add ``code`` to the languages of ``bank.yaml``, keeping the file as written; what is left to translate.

    The bank must be without errors before: they would hide what the new language needs.
    It is read and written under the bank's lock, waiting up to ``wait`` seconds for a build.
    """
    if not is_language(code):
        raise AnkibuildError(f"'{code}' is not a language code: {CODE_HINT}")
    with writing(decks, wait=wait):
        texts = load_texts(decks)
        if code in texts.bank.languages:
            raise AnkibuildError(f"the bank already has '{code}': see what is left with 'ankibuild status'")
        if texts.problems.errors:
            raise BankError(texts.problems.errors)
        document = open_document(decks / BANK_FILE, decks)
        document.append_items(("languages",), [code])
        write_inside(decks, {decks / BANK_FILE: document.content()})
    return language_status(texts, code)


def load_valid(decks: Path) -> BankTexts:
    """The bank, which must be without errors: a record written from part of it would forget the rest."""
    texts = load_texts(decks, today())
    if texts.problems.errors:
        raise BankError(texts.problems.errors)
    return texts


def write_record(decks: Path, record: Record) -> None:
    write_inside(decks, {decks / TRANSLATIONS_FILE: dumps(record).encode()})


def confirm(
    questions: Sequence[str], languages: Sequence[str] = (), decks: Path = DECKS, *, wait: float = DEFAULT_WAIT
) -> dict[str, list[str]]:
    """Mark the translations of ``questions`` in ``languages`` (default: every one behind) as current.

    Returns the languages that were behind and are now current, by question. The
    record is read and written under the bank's lock, waiting up to ``wait``
    seconds for a build, which would otherwise write over it what it read before.
    """
    with writing(decks, wait=wait):
        return _confirm(questions, languages, decks)


def _confirm(questions: Sequence[str], languages: Sequence[str], decks: Path) -> dict[str, list[str]]:
    texts = load_valid(decks)
    have = {question: list(langs) for question, langs in by_question(texts.refs).items()}
    record, marked = texts.record, {}
    for question in questions:
        if question not in have:
            close = difflib.get_close_matches(question, list(have), n=1)
            hint = f"did you mean '{close[0]}'?" if close else "give the id of a question of the bank"
            raise AnkibuildError(f"no question '{question}' in the bank: {hint}")
        for lang in languages:
            if lang not in have[question]:
                raise AnkibuildError(f"question '{question}' has no '{lang}' text: it has {', '.join(have[question])}")
        entries = record[question]
        chosen = languages or [lang for lang, entry in entries.items() if entry.behind]
        marked[question] = [lang for lang in chosen if entries[lang].behind]
        record = mark_current(record, question, chosen)
    write_record(decks, record)
    return marked
