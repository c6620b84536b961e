"""What a kind of question is: the shape of its notes, how it is read, how it becomes fields.

A kind owns everything that differs from one kind to another: the keys a
question and its translations may have, how its answer is read and checked,
the note type its notes use (fields, card types, the template files of each
card), how a question's texts become those fields, and its part of the JSON
Schema. Everything else (ids, topics, languages, images, the lock, packages,
the preview) is the same for every kind and never asks which one it has.

A kind's note type, once released, never changes shape: Anki makes a copy of a
note type whose fields or card types differ, and stops updating every note of
the old one. Its ids and names are derived from the bank id, the language and
the kind's name, which therefore never change either.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar, Protocol

from ..errors import Problems
from ..model import Question, Translation, note_guid, notetype_id
from ..yamlfiles.checker import Checker
from ..yamlfiles.reader import Map
from .checks import FileChecks
from .schema import Fragment

if TYPE_CHECKING:
    from .platform import PlatformQuestion

#: What a kind's checks across the bank need of one question: plain data (JSON), which the cache keeps.
Fact = Sequence[object]


class Render(Protocol):
    """Renders one text of a question to HTML: the name of the field it fills (for the place of
    a problem), then the text as written. With ``clozes``, the text's cloze markers stay
    markers Anki reads (see :func:`..richtext.to_html`); in any other text they show as typed."""

    def __call__(self, field: str, text: str, /, *, clozes: bool = False) -> str: ...


@dataclass(frozen=True)
class CardType:
    """One card type of a note type: its name and the template files of its two sides."""

    name: str
    front: str
    back: str


@dataclass(frozen=True)
class Reading:
    """What a kind read of a question besides its texts."""

    #: The answer as the note's answer field holds it ("A", "A C", "true"), or "".
    answer: str
    ok: bool
    #: Letters of options that keep their place when the options are shuffled.
    pin: tuple[str, ...] = ()
    #: The question's own shuffle setting, over the bank's (None: the bank's).
    shuffle: bool | None = None
    #: The names of the question's own true/false settings that are on (a flashcard's "reverse").
    flags: frozenset[str] = frozenset()


class Kind(ABC):
    """A kind of question. Each is one module of this package, with one line in its registry."""

    #: The value of a question's ``kind:`` key.
    name: ClassVar[str]
    #: The note type's fields, in order. Never change them after a release.
    fields: ClassVar[tuple[str, ...]]
    #: The note type's card types, in order (a card's ``ord`` is its place here).
    cards: ClassVar[tuple[CardType, ...]]
    #: The field Anki's browser sorts by, and shows in its Sort Field column: it must give no card's answer away.
    sort_field: ClassVar[str]
    #: A field every card's back shows, last: the report link goes at its end (see :mod:`..links`).
    back_field: ClassVar[str] = "Explanation"
    #: Keys a question of this kind may have besides those of every question (True: required).
    question_keys: ClassVar[Mapping[str, bool]]
    #: Keys a translation of this kind has (True: required).
    translation_keys: ClassVar[Mapping[str, bool]]
    #: Anki's own cloze note type: a card for each cloze number.
    cloze: ClassVar[bool] = False
    #: How many options one of its questions may have (none, for a kind without options).
    option_counts: ClassVar[range] = range(0)
    #: The letters that name its options, in order.
    option_letters: ClassVar[tuple[str, ...]] = ()

    def option_texts(self, text: Translation) -> tuple[str, ...]:
        """The options of one of its translations, as written: none for a kind without options."""
        return ()

    #: Its back is meant to say why the answer is right: a question without an explanation is
    #: warned about (``no-explanation``), though it builds.
    wants_explanation: ClassVar[bool] = False
    #: The names of its own item-writing checks (see :mod:`.checks`), in the order a summary counts them.
    checks: ClassVar[tuple[str, ...]] = ()

    def check_question(
        self, checks: FileChecks, question: Question, fields: Mapping[str, Sequence[str]]
    ) -> Fact | None:
        """The item-writing checks of one of its questions of a file; what the checks across the file and the
        bank need of it (None: nothing).

        ``fields`` holds the question's note fields by language, in the order of its translations. A
        missing explanation is checked apart (see :attr:`wants_explanation`), after :meth:`check_end`.
        """
        return None

    def check_end(self, checks: FileChecks, facts: Sequence[Fact]) -> None:
        """Its item-writing checks across one file's questions, of the facts :meth:`check_question` gave of each."""
        return None  # a kind without such checks has nothing to compare

    def check_bank(self, bank_file: Path, facts: Sequence[Fact], files: int, *, problems: Problems) -> None:
        """Its item-writing checks across the bank's ``files`` question files, of the facts
        :meth:`check_question` gave in each (reported at ``bank_file``)."""
        return None  # a kind without such checks has nothing to compare

    def holds(self, facts: Sequence[object]) -> bool:
        """Whether each of ``facts``, plain data as the cache gave it back, is one :meth:`check_question` could give."""
        return not facts  # a kind that gives none: any is forged

    def label_problem(self, key: str, value: str) -> tuple[str, str] | None:
        """What is wrong with a card label its templates read (a message and a hint), or None.

        The labels of a language are shared by every kind: each checks those it reads.
        """
        return None

    def own_labels(self, labels: Mapping[str, str]) -> dict[str, str]:
        """Labels its templates read that are made from the written ones, by their placeholder's name."""
        return {}

    def notetype_key(self, lang: str) -> str:
        """What names its note type in ``lang`` in the lock and in a build."""
        return f"{lang}/{self.name}"

    def notetype_id(self, bank_id: str, lang: str) -> int:
        return notetype_id(bank_id, lang, self.name)

    def notetype_name(self, bank_id: str, lang: str) -> str:
        return f"{bank_id} {self.name} ({lang})"

    def note_guid(self, bank_id: str, question_id: str, lang: str) -> str:
        """The GUID of a question in one language (see :func:`..model.note_guid`).

        The kind is part of it: a question that changes kind becomes a note of
        another note type, which Anki could not update in place.
        """
        return note_guid(bank_id, question_id, lang, self.name)

    @abstractmethod
    def read_translation(
        self, check: Checker, data: Map, question: str, *, where: tuple[int, int]
    ) -> tuple[Translation, bool]:
        """A translation (its keys are checked already), and whether it is valid.

        ``where`` is the place of its language key. An invalid translation keeps
        the texts that could be read, for their own checks.
        """

    @abstractmethod
    def read_question(self, check: Checker, data: Map, question: str, *, texts: Mapping[str, Translation]) -> Reading:
        """The answer and settings of a question, checked against its valid translations ``texts``."""

    @abstractmethod
    def schema_fragment(self) -> Fragment:
        """Its part of the question files' JSON Schema: the schema of each key's value in its two tables."""

    @abstractmethod
    def note_fields(self, question: Question, text: Translation, render: Render) -> tuple[str, ...]:
        """The note's fields in one language, in the order of :attr:`fields`."""

    def card_ords(self, fields: Sequence[str]) -> tuple[int, ...]:
        """The cards a note with these fields has, by their place in :attr:`cards`."""
        return (0,)

    @abstractmethod
    def platform_question(self, fields: Sequence[str], *, shuffle: bool) -> PlatformQuestion:
        """The question a learning platform asks for a note with these fields (see :mod:`..export`).

        ``shuffle`` is the bank's setting, for a question that has none of its own.
        """


def read_texts(
    check: Checker, data: Map, question: str, *, where: tuple[int, int], keys: Mapping[str, bool]
) -> tuple[Translation, bool]:
    """A translation made of texts alone (``keys``: True for required), and whether it is valid.

    Each text goes into the field named after its key ("question" into
    "Question"), which is where a problem found while rendering it points.
    """
    texts = {key: check.text(data, key, question) for key in keys}
    valid = all(texts[key] is not None for key, required in keys.items() if required or key in data)
    marks = {key.capitalize(): data.at(key) for key in keys if key in data}
    text = {key: value or "" for key, value in texts.items()}
    translation = Translation(
        text.get("question", ""), text.get("explanation", ""), marks, where, answer=text.get("answer", "")
    )
    return translation, valid
