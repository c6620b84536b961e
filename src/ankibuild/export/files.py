"""The files each export format makes of the bank's questions, by the format's name."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from .gift import gift
from .moodle import moodle_xml
from .multilang import EVERY_LANGUAGE, merged
from .platform import ExportedQuestion, Omission

#: The questions of each language built, in the bank's order of languages and questions.
ByLanguage = Mapping[str, Sequence[ExportedQuestion]]


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


def _moodle_files(bank_id: str, questions: ByLanguage, media: Mapping[str, bytes]) -> list[ExportFile]:
    """A file per language, and one with every language for a course that shows each student theirs."""
    files = [
        _file(f"{bank_id}-{lang}.moodle.xml", lang, moodle_xml(each, media), each) for lang, each in questions.items()
    ]
    if len(questions) > 1:
        together, left_out = _every_language(questions)
        name = f"{bank_id}-{EVERY_LANGUAGE}.moodle.xml"
        files.append(_file(name, EVERY_LANGUAGE, moodle_xml(together, media), together, left_out))
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


def _gift_files(bank_id: str, questions: ByLanguage, media: Mapping[str, bytes]) -> list[ExportFile]:
    files = []
    for lang, each in questions.items():
        content, left_out = gift(each)
        kept = [exported for exported in each if exported.id not in {o.question_id for o in left_out if o.whole}]
        files.append(_file(f"{bank_id}-{lang}.gift.txt", lang, content, kept, left_out))
    return files


def _file(
    name: str, lang: str, content: bytes, held: Sequence[ExportedQuestion], left_out: Sequence[Omission] = ()
) -> ExportFile:
    categories = len({exported.category for exported in held})
    return ExportFile(name, lang, content, len(held), categories, tuple(left_out))


#: What makes a format's files: the bank's id, its questions by language, the images by packaged name.
Maker = Callable[[str, ByLanguage, Mapping[str, bytes]], list[ExportFile]]

MAKERS: dict[str, Maker] = {"moodle-xml": _moodle_files, "gift": _gift_files}
