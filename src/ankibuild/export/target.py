"""The export target: the files for learning platforms that a bank asks for, beside the packages.

A bank asks in ``bank.yaml`` (``exports: [moodle-xml, gift, qti]``), and a
build may ask instead (``ankibuild build --export gift``). Every file is made
before any is written, and a file whose bytes would not change is left alone:
the same bank gives the same bytes.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from ..atomic import Waiting, ready_if_changed, remove_stale_temporaries
from ..errors import Problem, Problems, Severity
from ..load.stage import LoadedBank
from ..model import Bank, Place
from ..options import BuildOptions
from ..state import Output
from ..yamlfiles.checker import closest

if TYPE_CHECKING:
    from collections.abc import Callable

    from ..kinds.platform import Omission
    from .files import Exportable, ExportFile


@dataclass(frozen=True)
class ExportResult:
    """The files written (or found unchanged), and what they left out."""

    outputs: list[Output] = field(default_factory=list)
    warnings: list[Problem] = field(default_factory=list)


@dataclass(frozen=True)
class ExportTarget:
    """The exports of a build: those ``options`` name, else those the bank asks for."""

    options: BuildOptions

    def check(self, bank: Bank, problems: Problems) -> None:
        """The formats a build names itself (the bank's are checked with the bank): each must be one there is.

        Every question can be exported, or is left out with a warning: the
        questions need no check here.
        """
        for name in self.options.exports:
            if name not in _makers():
                problems.add(self.options.decks, f"unknown export format '{name}'", hint=_formats_hint(name))

    def plan(self, loaded: LoadedBank) -> ExportPlan:
        formats = self.options.exports or loaded.bank.exports
        if not formats:
            return ExportPlan(self.options.out, [], [], dry_run=self.options.dry_run)
        exportable = _exportable(loaded)
        files = [file for name in formats for file in _makers()[name](exportable)]
        problems = Problems()
        places = _places(loaded)
        for file in files:
            for omission in file.left_out:
                _warn(problems, places, file, omission=omission)
        problems.raise_for(strict=self.options.strict)
        return ExportPlan(self.options.out, files, problems.warnings, dry_run=self.options.dry_run)


@dataclass(frozen=True)
class ExportPlan:
    """The files, made; each written only if its bytes change."""

    out: Path
    files: list[ExportFile]
    warnings: list[Problem]
    dry_run: bool

    def write(self, waiting: Waiting) -> ExportResult:
        result = ExportResult(warnings=self.warnings)
        for file in self.files:
            path = self.out / file.name
            if self.dry_run:
                written = not path.is_file() or path.read_bytes() != file.content
            else:
                remove_stale_temporaries(path)
                written = waiting.add(ready_if_changed(path, file.content))
            result.outputs.append(Output(path, file.lang, file.categories, file.questions, written))
        return result


def _formats_hint(name: str) -> str:
    close = closest(name, list(_makers()))
    return f"{f'did you mean {close!r}? ' if close else ''}The formats: {', '.join(_makers())}"


def _makers() -> Mapping[str, Callable[[Exportable], list[ExportFile]]]:
    """Each format's maker, loaded only by a build that exports or names a format: packages need none."""
    from .files import MAKERS

    return MAKERS


def _exportable(loaded: LoadedBank) -> Exportable:
    """Every note of the languages built as a platform question, by language, with what the formats need."""
    from .files import Exportable, exported  # loaded only by a build that exports (see _makers)

    bank = loaded.bank
    decks = {deck.key: deck for deck in bank.decks}
    langs = dict.fromkeys(note.lang for note in loaded.notes)
    questions = {lang: [exported(bank, decks, note) for note in loaded.rendered(lang)] for lang in langs}
    labels = {templates.lang: templates.labels for templates in loaded.templates.values()}
    titles = {lang: bank.name_in(bank.titles, lang) or "" for lang in langs}
    return Exportable(bank.id, titles, questions, loaded.media, labels)


def _places(loaded: LoadedBank) -> dict[str, Place]:
    """Where each question was written, to point a warning at it."""
    return {
        question.id: Place(result.deck.place.path, question.line, question.column)
        for result in loaded.files
        if result.deck is not None
        for question in result.questions
    }


def _warn(problems: Problems, places: Mapping[str, Place], file: ExportFile, *, omission: Omission) -> None:
    place = places.get(omission.question_id, Place(Path(file.name)))
    problems.add(
        place.path,
        f"{file.name}: {omission.reason}",
        line=place.line,
        column=place.column,
        hint="the packages and the other exports hold it; see the export's page in the docs for what it can hold",
        question=omission.question_id,
        severity=Severity.WARNING,
    )
