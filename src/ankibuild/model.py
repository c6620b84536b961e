"""The validated bank, and the stable identities derived from it.

Every id here is a pure function of names that never change (the bank id, a
question id, a language code), so a rebuild lands on the same notes, notetypes
and decks in a classmate's collection.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

from .study import Study

#: What a question id (and a bank id) may be: it names notes, GUIDs and lock entries.
SLUG = re.compile(r"^[a-z0-9][a-z0-9_.-]*$")
#: What a topic may be: Anki's tags, ``::`` between the levels of a hierarchy.
TOPIC = re.compile(r"^[\w.-]+(::[\w.-]+)*$")
_ID_FLOOR = 1_000_000_000_000  # 2001-09-09 in milliseconds
_ID_SPAN = 700_000_000_000  # up to 2023-11
#: The digits of a GUID, in the order of genanki's ``guid_for``, which made the released ones:
#: a GUID is the first 8 bytes of a SHA-256, written in base 91 with these.
_GUID_DIGITS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789!#$%&()*+,-./:;<=>?@[]^_`{|}~"
_GUID_PAIRS = [high + low for high in _GUID_DIGITS for low in _GUID_DIGITS]
_GUID_PAIR_COUNT = len(_GUID_PAIRS)


@dataclass(frozen=True)
class Place:
    """Where something was written in the bank, to point a student at it."""

    path: Path
    line: int = 0
    column: int = 0


class OwnTexts(Protocol):
    """The texts of a translation that only its kind has (a multiple-choice question's options), which
    that kind alone reads; the rest of the code sees them only as what a translator translates."""

    def leading(self) -> Iterator[tuple[str, str]]:
        """Those a translator reads after the question, by name, in order."""
        ...

    def trailing(self) -> Iterator[tuple[str, str]]:
        """Those a translator reads last, by name, in order."""
        ...


@dataclass(frozen=True)
class Translation:
    """A question's text in one language."""

    question: str
    explanation: str
    #: Line and column of each text, by the note field it fills ("Question",
    #: "Explanation", and those of its kind), to point at a problem found while rendering.
    marks: Mapping[str, tuple[int, int]] = field(default_factory=dict, compare=False)
    #: Line and column of its language key, to point at the translation as a whole.
    where: tuple[int, int] = field(default=(0, 0), compare=False)
    #: The answer as a text of its own (a flashcard's back), for kinds that have one.
    answer: str = ""
    #: The texts only its kind has, read by that kind (see :mod:`.kinds`); None for a kind without.
    own: OwnTexts | None = None

    def texts(self) -> Iterator[tuple[str, str]]:
        """What a translator translates, by name, in order: the question, the texts its kind leads with
        (a multiple-choice question's options), the explanation, a text answer and the rest of its kind's
        (each option's feedback), where there is one."""
        yield "question", self.question
        if self.own is not None:
            yield from self.own.leading()
        if self.explanation:
            yield "explanation", self.explanation
        if self.answer:
            yield "answer", self.answer
        if self.own is not None:
            yield from self.own.trailing()


@dataclass(frozen=True)
class Question:
    """One question: its id, topics and answer, and its text in each language it is translated into."""

    id: str
    topics: tuple[str, ...]
    #: The answer as the note holds it: an option's letter, letters, true or false; "" for kinds without.
    answer: str
    translations: dict[str, Translation]
    place: Place
    #: Letters of options that keep their place when the options are shuffled ("None of the above").
    pin: tuple[str, ...] = ()
    #: Names of item-writing checks this question is exempt from.
    allow: frozenset[str] = frozenset()
    #: The name of its kind (see :mod:`.kinds`).
    kind: str = "choice"
    #: Its own setting for shuffling its options, over the bank's (None: the bank's).
    shuffle: bool | None = None
    #: The names of its own true/false settings that are on (a flashcard's "reverse"), read by its kind.
    flags: frozenset[str] = frozenset()


@dataclass(frozen=True)
class Deck:
    """One question file: a deck with a title per language."""

    key: str
    titles: dict[str, str]
    questions: tuple[Question, ...]
    place: Place
    #: Questions with errors, with the texts that could be read: never built, but their
    #: texts get every check of a text, so that one run shows all of a question's problems.
    drafts: tuple[Question, ...] = ()


@dataclass(frozen=True)
class Bank:
    """The whole bank: its id, languages, titles and topics, its question files, and the settings of ``bank.yaml``."""

    id: str
    languages: tuple[str, ...]
    titles: dict[str, str]
    topics: dict[str, dict[str, str]]
    decks: tuple[Deck, ...]
    root: Path
    shuffle: bool = False
    #: The export formats it asks every build for (see :mod:`.export`).
    exports: tuple[str, ...] = ()
    #: The class's study options (``study:``), for a preset of its own; empty: none.
    study: Study = field(default_factory=dict)
    #: Where to report a mistake (``report:``): a web address with placeholders; "" for no link.
    report: str = ""
    #: The bank's home page (``home:``), where classmates find the changelog; "" for none.
    home: str = ""
    #: Whether each top deck's description says what the deck is (``description: true``).
    describe: bool = False
    #: The report link's words in each language, from its labels (only read when the bank sets ``report``).
    report_words: dict[str, str] = field(default_factory=dict)

    def deck_name(self, deck: Deck, lang: str) -> str:
        title = self.name_in(deck.titles, lang) or deck.key
        parent = self.name_in(self.titles, lang)
        return f"{parent}::{title}" if parent else title

    def name_in(self, names: Mapping[str, str], lang: str) -> str | None:
        """A deck's or topic's name in ``lang``, by :func:`fallback`."""
        found = fallback(names, lang, self.languages)
        return found[1] if found else None


def fallback(names: Mapping[str, str], lang: str, languages: Sequence[str]) -> tuple[str, str] | None:
    """The language and name to show in ``lang``: its own, else the first of ``languages`` that has one.

    A language is added to a bank step by step: until a title or topic name is
    translated, the name in the bank's first language stands in for it (with a
    warning), so the languages that are complete build all along.
    """
    for code in (lang, *languages):
        if names.get(code):
            return code, names[code]
    return None


def stable_int(*parts: str) -> int:
    """A positive integer from names, for notetype, deck, note and card ids.

    It lies between 2001 and 2023 read as a millisecond timestamp, like the ids
    Anki makes itself: Anki rewrites ids that lie more than a day in the future.
    """
    digest = hashlib.sha256("\x1f".join(parts).encode()).digest()
    return _ID_FLOOR + int.from_bytes(digest[:8], "big") % _ID_SPAN


def note_guid(bank_id: str, question_id: str, lang: str, *kind: str) -> str:
    """The GUID of a question in one language: never depends on the text.

    The bank id namespaces it so that two banks with a question ``q1`` never
    collide in one collection. Multiple choice, the first kind, has none in its
    GUIDs; every later kind adds its name (see :mod:`.kinds`).
    """
    digest = hashlib.sha256("__".join(("ankibuild", bank_id, question_id, lang, *kind)).encode()).digest()
    return _base91(int.from_bytes(digest[:8], "big"))


def _base91(number: int) -> str:
    """A number below 2**64 in the digits of a GUID, without leading zeros (none at all for 0).

    Two digits at a time, and the five pairs that 64 bits need at most (91**10 > 2**64) made
    without a loop: every note of a bank has a GUID made.
    """
    rest, fifth = divmod(number, _GUID_PAIR_COUNT)
    rest, fourth = divmod(rest, _GUID_PAIR_COUNT)
    rest, third = divmod(rest, _GUID_PAIR_COUNT)
    first, second = divmod(rest, _GUID_PAIR_COUNT)
    pairs = _GUID_PAIRS
    return (pairs[first] + pairs[second] + pairs[third] + pairs[fourth] + pairs[fifth]).lstrip(_GUID_DIGITS[0])


def notetype_id(bank_id: str, lang: str, *kind: str) -> int:
    return stable_int("notetype", bank_id, lang, *kind)


def deck_id(bank_id: str, deck_key: str, lang: str) -> int:
    return stable_int("deck", bank_id, deck_key, lang)


def parent_deck_id(bank_id: str, lang: str) -> int:
    """The id of the bank's parent deck (its title): no question file's key is empty."""
    return deck_id(bank_id, "", lang)


def topic_tag(slug: str) -> str:
    """Topic slugs are validated as Anki-safe, so the tag is the slug itself."""
    return slug
