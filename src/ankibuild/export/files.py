"""The files each export format makes of the bank's questions, by the format's name."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from ..kinds import KINDS
from ..kinds.platform import ExportedQuestion, Omission
from ..languages import is_rtl
from ..load.render import RenderedNote
from ..model import Bank, Deck
from ..options import FORMATS
from .gift import gift
from .moodle import moodle_xml
from .multilang import EVERY_LANGUAGE, merged
from .qti import qti_package

#: The questions of each language built, in the bank's order of languages and questions.
ByLanguage = Mapping[str, Sequence[ExportedQuestion]]


@dataclass(frozen=True)
class Exportable:
    """What the formats make their files of."""

    bank_id: str
    #: The bank's title in each language built ("" for none).
    titles: Mapping[str, str]
    questions: ByLanguage
    #: The images the questions show, by packaged name.
    media: Mapping[str, bytes]
    #: The card labels of each language: a format that spells out true and false uses the cards' words.
    labels: Mapping[str, Mapping[str, str]]


def exported(bank: Bank, decks: Mapping[str, Deck], note: RenderedNote) -> ExportedQuestion:
    """A note as the formats ask it: its kind's platform question, filed under its deck."""
    asked = KINDS[note.kind].platform_question(note.fields, shuffle=bank.shuffle)
    asked = asked.right_to_left() if is_rtl(note.lang) else asked
    # The packages' deck, parent and all: a platform files the question in a category of that name.
    category = tuple(bank.deck_name(decks[note.deck_key], note.lang).split("::"))
    return ExportedQuestion(note.question_id, note.lang, category, note.tags, asked)


@dataclass(frozen=True)
class ExportFile:
    """One file an export format makes, named in the output folder."""

    name: str
    lang: str
    content: bytes
    #: How many questions it holds, and in how many categories (decks).
    questions: int
    categories: int
    left_out: tuple[Omission, ...] = ()


def _moodle_files(bank: Exportable) -> list[ExportFile]:
    """A file per language, and one with every language for a course that shows each student theirs."""
    bank_id, questions, media = bank.bank_id, bank.questions, bank.media
    files = [
        _file(f"{bank_id}-{lang}.moodle.xml", lang, moodle_xml(each, media), held=each)
        for lang, each in questions.items()
    ]
    if len(questions) > 1:
        together, left_out = _every_language(questions)
        name = f"{bank_id}-{EVERY_LANGUAGE}.moodle.xml"
        files.append(_file(name, EVERY_LANGUAGE, moodle_xml(together, media), held=together, left_out=left_out))
    return files


def _every_language(questions: ByLanguage) -> tuple[list[ExportedQuestion], list[Omission]]:
    """Each question in every language it has, in the order of the bank's first language that has it."""
    by_id: dict[str, list[ExportedQuestion]] = {}
    for each in questions.values():
        for exported in each:
            by_id.setdefault(exported.id, []).append(exported)
    together: list[ExportedQuestion] = []
    left_out: list[Omission] = []
    for question_id, each in by_id.items():
        one = merged(each)
        if one is None:
            reason = "the cloze question is left out: its gaps differ by language; each language's file holds it"
            left_out.append(Omission(question_id, EVERY_LANGUAGE, reason))
        else:
            together.append(one)
    return together, left_out


def _gift_files(bank: Exportable) -> list[ExportFile]:
    files = []
    for lang, each in bank.questions.items():
        content, left_out = gift(each)
        files.append(
            _file(f"{bank.bank_id}-{lang}.gift.txt", lang, content, held=_held(each, left_out), left_out=left_out)
        )
    return files


def _qti_files(bank: Exportable) -> list[ExportFile]:
    files = []
    for lang, each in bank.questions.items():
        ident = f"{bank.bank_id}-{lang}"
        title = bank.titles.get(lang) or bank.bank_id
        content, left_out = qti_package(ident, title, each, media=bank.media, words=bank.labels.get(lang, {}))
        files.append(_file(f"{ident}.qti.zip", lang, content, held=_held(each, left_out), left_out=left_out))
    return files


def _held(questions: Sequence[ExportedQuestion], left_out: Sequence[Omission]) -> list[ExportedQuestion]:
    """The questions a file holds: those it does not leave out."""
    gone = {omission.question_id for omission in left_out if omission.whole}
    return [exported for exported in questions if exported.id not in gone]


def _file(
    name: str, lang: str, content: bytes, *, held: Sequence[ExportedQuestion], left_out: Sequence[Omission] = ()
) -> ExportFile:
    categories = len({exported.category for exported in held})
    return ExportFile(name, lang, content, len(held), categories, tuple(left_out))


#: The formats by name, as check knows them: one more name there and this line fails, before any build.
MOODLE_XML, GIFT, QTI = FORMATS
#: What makes a format's files, by the format's name: every format has a maker.
MAKERS: dict[str, Callable[[Exportable], list[ExportFile]]] = {
    MOODLE_XML: _moodle_files,
    GIFT: _gift_files,
    QTI: _qti_files,
}
