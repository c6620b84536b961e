"""Loading stage: the bank, its lock and templates, read, validated and rendered, before anything is written.

Every problem found on the way is collected; the stage then fails once, with
all of them (see :class:`~ankibuild.errors.Problems`).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import cache as cache_call
from functools import partial
from itertools import chain, groupby
from operator import attrgetter
from pathlib import Path
from typing import Protocol

from .. import paths
from ..cache import Cache
from ..cards.folders import TemplateFolders
from ..changelog import CHANGELOG_FILE, read_changelog
from ..errors import BankError, Problems, UnknownLanguageError
from ..kinds import DEFAULT_KIND, KINDS, Kind
from ..kinds.checks import explanations_in_summary
from ..lock.format import LOCK_FILE, Lock, read_lock
from ..lock.memo import LOCK_MEMO, recall
from ..model import Bank
from ..options import BuildOptions
from ..paths import DECKS
from ..progress import Progress, silent
from ..text.media import report_unused
from ..translations.record import TRANSLATIONS_FILE, Seen, TextRef, observe, report_outdated
from ..yamlfiles.reader import BANK_FILE, Map, bank_files, parse_file, read_pending
from .deckfiles import FileResult, NoteSink, process_all
from .render import CardTemplates, NoteHead, RenderedNote, TemplateFiles, load_all_templates, report_words
from .validate import check_released_id, check_unique_ids, missing_in_summary, validate_bank_file

#: A check an output makes of the loaded bank, adding what it finds to the problems.
BankCheck = Callable[[Bank, Problems], None]


def load_bank(
    decks: Path, problems: Problems, pending: Mapping[Path, bytes] | None = None, *, released_id: str = ""
) -> Bank | None:
    """Load and validate a bank folder: settings first, then every question file.

    ``pending`` holds files (by their path below ``decks``) as they are about to
    be written, new or changed: they are read from there instead of the disk, so
    that a bank can be checked before anything is written to it. ``released_id``
    is the bank id of the previous build (from the lock file), if any.
    """
    loaded = _load(decks, problems, langs=(), pending=pending or {}, released=lambda: released_id, cache=None)
    return loaded[0] if loaded else None


def _load(
    decks: Path,
    problems: Problems,
    *,
    langs: Sequence[str],
    pending: Mapping[Path, bytes],
    released: Callable[[], str],
    cache: Cache | None,
    progress: Progress = silent,
    known: Mapping[Path, str] | None = None,
    hashed: Collection[Path] = (),
    verbose: bool = False,
    templates: TemplateFiles | None = None,
    sink: NoteSink | None = None,
    meanwhile: Callable[[], object] = lambda: None,
) -> tuple[Bank, dict[Path, FileResult]] | None:
    """The bank with its decks, and each question file's result with its notes in ``langs``.

    ``verbose`` keeps a warning per question where a summary line tells many at once.
    ``templates`` hold the labels the report link is worded with (the defaults, their problems left to a
    build, when None).
    ``sink`` is given each file processed anew (see :func:`process_all`).
    ``released`` gives the id of the bank's previous build, which it must keep: asked for while
    the question files are processed, it may be read meanwhile, as ``meanwhile`` is done.
    """
    bank_path, found = bank_files(decks, problems)
    files = sorted({*found, *pending} - {decks / BANK_FILE})
    bank_raw = read_pending(bank_path, pending, problems, root=decks) if bank_path else None
    bank_file = parse_file(bank_path, bank_raw, problems) if bank_path and bank_raw is not None else None
    # The id the bank was released under is checked once it is known (see ``released``).
    bank = validate_bank_file(bank_file, problems, None) if bank_file else None
    if bank is None or bank_raw is None or bank_file is None:
        if bank_file:
            check_released_id(bank_file, problems, released())
        for path in files:  # without the bank's settings, their syntax can still be checked
            raw = read_pending(path, pending, problems, root=decks, limit=paths.MAX_STREAMED_BYTES)
            if raw is not None:
                parse_file(path, raw, problems, take=_let_go)  # a question at a time, as a build reads it
        return None
    if bank.report:
        # The link is part of each note's back field, so its words are rendered with the note.
        labels = templates or TemplateFiles(TemplateFolders(), Problems())
        bank = replace(bank, report_words=report_words(labels, bank.languages))

    def during() -> None:  # while the question files are processed
        meanwhile()
        released()

    results = process_all(
        bank,
        bank_raw,
        files,
        langs=langs or bank.languages,
        problems=problems,
        pending=pending,
        cache=cache,
        progress=progress,
        known=known,
        hashed=hashed,
        sink=sink,
        meanwhile=during,
    )
    check_released_id(bank_file, problems, released())
    told = [problem for result in results.values() for problem in result.problems]
    problems.extend(explanations_in_summary(missing_in_summary(told, verbose=verbose)))
    decks_found = tuple(result.deck for result in results.values() if result.deck is not None)
    check_unique_ids(
        [(deck.place.path, result.questions) for result in results.values() if (deck := result.deck)], problems
    )
    for kind in KINDS.values():
        facts = [fact for result in results.values() for fact in result.facts.get(kind.name, ())]
        kind.check_bank(bank_path or decks / BANK_FILE, facts, len(decks_found), problems=problems)
    return replace(bank, decks=decks_found), results


class CheckResult(Problems):
    """The warnings :func:`check` found (it raises for errors), and what it looked at."""

    def __init__(self, found: Problems, files: int, questions: int, *, languages: tuple[str, ...]) -> None:
        super().__init__()
        self.extend(found.items)
        self.files = files
        self.questions = questions
        self.languages = languages


def _let_go(data: Map, item: object, where: tuple[int, int]) -> None:
    """A question read for its syntax alone: nothing is kept of it."""


def check(
    *, decks: Path = DECKS, templates: Path | None = None, strict: bool = False, verbose: bool = False
) -> CheckResult:
    """Validate a bank, its lock file, its templates and its texts without writing anything.

    ``templates`` is the bank's own templates folder (default: ``templates/`` beside
    the bank folder, if there is one), laid over the shipped defaults. ``verbose``
    lists every question a summary line counts (such as those without a language).
    Raises :class:`BankError` when there are errors (or warnings, if ``strict``);
    returns the warnings otherwise, with what was checked.
    """
    loaded = load_all(BuildOptions(decks=decks, templates=templates, strict=strict, verbose=verbose))
    return CheckResult(loaded.problems, len(loaded.files), loaded.questions, languages=loaded.bank.languages)


class Observed(Protocol):
    """What observes the translations record once (see :func:`_observed`): ``failing`` in a build that fails for
    a reason the problems do not hold (an error raised while planning)."""

    def __call__(self, *, failing: bool = False) -> Seen: ...


@dataclass(frozen=True)
class LoadedBank:
    """Everything a build reads, validated and rendered, before anything is written."""

    bank: Bank
    templates: dict[str, CardTemplates]
    #: The notes of the languages asked for (language by language, in the bank's order), without their texts.
    notes: list[NoteHead]
    #: The images the notes show, by packaged name.
    media: dict[str, bytes]
    problems: Problems
    #: The previous build's lock file.
    lock: Lock
    questions: int
    files: list[FileResult]
    #: The sha256 of the bytes each question file was read as, by path.
    used: dict[Path, str]
    #: The translations record after this build's texts, observed when first asked for (see :func:`load_all`).
    observed: Observed
    #: The status of each question file this build was the first to hash, taken before it read it.
    read_as: dict[Path, os.stat_result] = field(default_factory=dict)

    @property
    def translations(self) -> Seen:
        """The translations record after this build's texts (see :mod:`.translations`)."""
        return self.observed()

    def rendered(self, lang: str) -> list[RenderedNote]:
        """The notes of one language with their texts, in the bank's order."""
        return [note for result in self.files for note in result.rendered(lang)]


def load_all(
    options: BuildOptions,
    progress: Progress = silent,
    known: Mapping[Path, str] | None = None,
    *,
    hashed: Collection[Path] = (),
    checks: Sequence[BankCheck] = (),
    sink: NoteSink | None = None,
    meanwhile: Callable[[], object] = lambda: None,
    lock_sha: str = "",
    observed_later: bool = False,
    recorded_on: str = "",
) -> LoadedBank:
    """The valid bank and lock, the templates and notes of the languages asked for, and the warnings found.

    ``known`` has the sha256 of question files just read, which need not be read again;
    those of ``hashed`` were taken from their bytes, and are read only to be processed.
    ``checks`` add what the outputs find wrong with the bank, to be reported with the rest.
    ``sink`` is given each question file processed anew, in the process that processed it.
    ``meanwhile`` is done while the question files are processed.
    ``lock_sha`` is the sha256 of the lock file's bytes in hexadecimal, when known without reading them.
    Raises :class:`BankError` with every problem when there are errors (or warnings, if ``strict``).
    With ``observed_later``, the translations record is observed when first asked for (see
    :attr:`LoadedBank.observed`), unless the build fails already: what it finds is added to the problems
    and raised with them then, as it is here otherwise. A build has it done once the package an edit
    changes is being made (some 10 ms less before).
    ``recorded_on`` is the date a build that writes the record dates the changes it sees first with: they are
    told by it, as every build after tells them. Without it they are told as changed since the last build.
    """
    decks, languages, strict = options.decks, options.languages, options.strict
    problems, cache = Problems(), options.cache
    templates = TemplateFiles(options.folders, problems)
    # Read while the question files are processed, when there are some to process (see :func:`_load`).
    lock = cache_call(partial(_read_lock, decks / LOCK_FILE, problems, cache.kept / LOCK_MEMO, sha=lock_sha))
    read_changelog(decks / CHANGELOG_FILE, problems)  # read by a build that finds none published
    langs = tuple(dict.fromkeys(languages))
    loaded = _load(
        decks,
        problems,
        langs=langs,
        pending={},
        released=lambda: lock().bank,
        cache=cache,
        progress=progress,
        known=known,
        hashed=hashed,
        verbose=options.verbose,
        templates=templates,
        sink=sink,
        meanwhile=meanwhile,
    )
    if loaded is None:
        lock()  # what is wrong with it is told with the rest
        problems.fail(strict=strict)
    bank, by_path = loaded
    results = list(by_path.values())
    langs = _languages(bank, languages)
    kinds = _kinds(results)
    card_templates = _load_templates(templates, langs, kinds, shuffle=bank.shuffle)
    notes = _by_language(results, langs)
    media = {name: content for result in results for name, content in result.media.items()}
    if set(langs) == set(bank.languages) and not problems.errors:
        # Only now is every image reference known: a file with errors may be the one that shows it.
        report_unused(bank.root, {path for result in results for path in result.referenced}, problems)
    for bank_check in checks:
        bank_check(bank, problems)
    observed = _observed(decks / TRANSLATIONS_FILE, results, problems, strict=strict, date=recorded_on)
    if not observed_later or problems.errors or (strict and problems.warnings):
        observed()  # the build fails: with what the record tells too
    questions = sum(len(result.questions) for result in results)
    used = {path: result.sha for path, result in by_path.items()}
    read_as = {path: result.read_as for path, result in by_path.items() if result.read_as}
    return LoadedBank(bank, card_templates, notes, media, problems, lock(), questions, results, used, observed, read_as)


def _observed(path: Path, results: Sequence[FileResult], problems: Problems, *, strict: bool, date: str) -> Observed:
    """The translations record in ``path`` after the texts of ``results``, observed once, when first asked for.

    What it finds is added to ``problems``, and raised with every other problem should it fail the build.
    A change seen first is told as of ``date`` (see :func:`.load_all`), by a build that does not fail: one
    that does records nothing, and tells it as changed since the last build.
    """

    def translated(questions: Collection[str]) -> list[TextRef]:
        return [ref for result in results for ref in result.translated_of(questions)]

    found: list[Seen] = []

    def seen(failing: bool) -> Seen:
        current = (item for result in results for item in result.blocks)
        translations = observe(path, current, translated, problems=problems)
        fails = failing or bool(problems.errors) or (strict and bool(problems.warnings or translations.behind))
        report_outdated(translations.behind, translated, problems, date="" if fails else date)
        return translations

    def observed(*, failing: bool = False) -> Seen:
        if not found:
            found.append(seen(failing))
        problems.raise_for(strict=strict)
        return found[0]

    return observed


def _kinds(results: Sequence[FileResult]) -> list[Kind]:
    """The kinds of the bank's notes: multiple choice always (every bank released before other kinds had
    its note type), then the others in the order of :data:`KINDS`."""
    used = {note.kind for result in results for note in result.notes}
    return [kind for name, kind in KINDS.items() if name == DEFAULT_KIND or name in used]


def _by_language(results: Sequence[FileResult], langs: Sequence[str]) -> list[NoteHead]:
    """The notes of ``langs``, language by language, each in the order of the files and in the file's.

    A file's notes come by language (see :attr:`FileResult.notes`): each run of one language is taken
    whole, in C, rather than every note looked at once per language.
    """
    by_lang: dict[str, list[NoteHead]] = {lang: [] for lang in langs}
    for result in results:
        for lang, run in groupby(result.notes, attrgetter("lang")):
            if lang in by_lang:
                by_lang[lang].extend(run)
    return list(chain.from_iterable(by_lang.values()))


def _load_templates(
    files: TemplateFiles, langs: Sequence[str], kinds: Sequence[Kind], *, shuffle: bool
) -> dict[str, CardTemplates]:
    """The templates of each note type the build makes, by its key (see :meth:`Kind.notetype_key`)."""
    own = files.folders.own
    if own is not None and not own.is_dir():
        hint = "name the folder that holds your own templates, or leave --templates out to use the defaults"
        files.problems.add(own, "no templates folder here", hint=hint)
        return {}
    loaded = load_all_templates(files, [(kind, lang) for lang in langs for kind in kinds], shuffle=shuffle)
    return {templates.key: templates for templates in loaded}


def _read_lock(path: Path, problems: Problems, memo: Path, *, sha: str) -> Lock:
    try:
        return read_lock(path, partial(recall, memo), known=sha)
    except BankError as err:
        problems.extend(err.problems)
        return Lock()


def _languages(bank: Bank, requested: Sequence[str]) -> tuple[str, ...]:
    unknown = [lang for lang in requested if lang not in bank.languages]
    if unknown:
        raise UnknownLanguageError(
            f"language(s) {', '.join(unknown)} not in the bank; it builds {', '.join(bank.languages)}"
        )
    return tuple(dict.fromkeys(requested)) or bank.languages
