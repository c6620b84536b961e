"""``ankibuild publish``: the next publication of a bank, made from the last one, as CI makes it.

What classmates have is the last publication: its packages and its changelog,
which the workflow downloads from the release into a folder (``last``). This
is the record a publication needs, not the lock committed with the bank: the
build raises every changed note's time above its published copy, gives an
unchanged note its published time, and writes a changelog section with what
changed since that publication alone. So a commit made in the web editor,
without any local build, is published like any other, and a local build's
``dist/`` never reaches classmates.

Every language with at least one question translated is published; what lags
behind is listed per language, never a reason to stop. A review (a pull
request) makes the same publication and keeps only what a reviewer reads: the
section it would add and a preview of the cards it changes.
"""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from .api import build_with
from .changelog import CHANGELOG_FILE, ChangeKind, Changelog, section
from .errors import AnkibuildError, BankError, Problem, Problems, Severity, in_order, tally
from .export.multilang import EVERY_LANGUAGE
from .languages import is_language
from .lock.clock import Clock
from .markdowntext import code_span, plain, visible
from .options import BuildOptions
from .paths import DECKS, UnsafePathError, read_inside
from .state import BuildResult
from .translations.record import TRANSLATIONS_FILE
from .translations.status import LanguageStatus, status

#: The release notes of a publication: its changes and what lags behind.
NOTES_FILE = "RELEASE_NOTES.md"
#: What a review writes for the reviewer, beside the preview.
REVIEW_FILE = "REVIEW.md"
#: The preview of the changed cards, in a review.
PREVIEW_FOLDER = "preview"
#: How the names of the packages and exports a publication holds end (the workflow fetches and uploads these).
PUBLISHED_SUFFIXES = (".apkg", ".moodle.xml", ".gift.txt", ".qti.zip")
#: The files of the last publication this one no longer holds, a name a line, for the workflow to take out of the
#: release: named by the publication, never guessed from the release, where a teacher may have attached others.
DROPPED_FILE = "NO_LONGER_PUBLISHED.txt"
#: A published package or changelog larger than this is not taken from the last publication.
MAX_PUBLISHED = 2**30
#: The release notes give the searches for retired questions only up to this length, all languages together.
MAX_SEARCHES = 60_000
_TOO_LARGE = "use the search each release's changelog gives for the questions it removed."
#: The changes whose cards a reviewer sees.
_SHOWN = (ChangeKind.NEW, ChangeKind.CHANGED, ChangeKind.MOVED)


@dataclass
class Publication:
    """What :func:`publish` made."""

    out: Path
    review: bool
    #: What changed since the last publication, per language.
    changes: Changelog
    #: The changelog section this publication adds ("" when nothing changed).
    section: str
    #: The languages whose packages are published.
    languages: tuple[str, ...]
    #: Every language that lags behind its source (missing or possibly outdated translations).
    lagging: list[LanguageStatus]
    warnings: list[Problem] = field(default_factory=list)
    #: The packages, the changelog or the exports differ from the last publication's.
    new: bool = False
    #: Per language published, the search that selects every question removed from the bank a classmate has.
    retired: dict[str, str] = field(default_factory=dict)
    #: The class preset each language's decks carry, by language (none when the bank sets no study options).
    presets: dict[str, str] = field(default_factory=dict)
    #: The bank holds its translations' record: without it, no translation is known to be outdated.
    recorded: bool = True
    #: The packages and exports of the last publication that this one no longer holds, by name.
    dropped: list[str] = field(default_factory=list)

    @property
    def report(self) -> str:
        """The Markdown that says what this publication is: the release notes, the job summary."""
        if self.review:
            head = "## What this change would publish\n"
        elif self.new:
            head = "## Published\n"
        else:
            head = "## Nothing to publish\n"
        said = _demoted(self.section) if self.section else "No question changed.\n"
        shown = [f"The cards it adds or changes: `{PREVIEW_FOLDER}/index.html` in the review's files.", ""]
        lagging = _lagging_table(self.lagging, self.languages, recorded=self.recorded)
        parts = [head, said.rstrip("\n"), "", *(shown if self.review else []), *_presets(self.presets)]
        parts += [*_retired(self.retired), *_no_longer(self.dropped), *lagging]
        return "\n".join(parts).rstrip() + "\n"


def publish(
    *,
    decks: Path = DECKS,
    templates: Path | None = None,
    last: Path,
    out: Path,
    review: bool = False,
    summary: Path | None = None,
    clock: Clock | None = None,
) -> Publication:
    """Make the publication that follows the one in ``last`` (missing or empty before the first) into ``out``.

    ``out`` gets the packages, ``CHANGELOG.md``, the exports the bank asks for
    and the release notes, only when they differ from the last publication;
    with ``review``, only the notes and a preview of the changed cards, nothing
    that would be published. The bank folder is left as it is. ``summary`` (a job summary) gets the notes, or
    every problem when the bank has errors: then :class:`BankError` is raised
    and nothing is written into ``out``.
    """
    try:
        _refuse_used(out)
        found = status(decks)
        langs = tuple(s.lang for s in found.languages if s.translated) or tuple(s.lang for s in found.languages)
        unread = Problems()
        with _workspace(last, unread) as work:
            options = BuildOptions(decks=decks, templates=templates, out=work, languages=langs, leave_bank=True)
            result = build_with(options, clock=clock)
            files = _published_files(work, result)
            made = _publication(result, files, last, out=out, review=review, every=found.languages)
            made.warnings = [*unread.warnings, *made.warnings]
            made.recorded = (decks / TRANSLATIONS_FILE).is_file()
            _write(made, files, options)
    except AnkibuildError as err:
        _append(summary, _failure(err))
        raise
    _append(summary, made.report)
    return made


def _refuse_used(out: Path) -> None:
    """``out`` must be new or empty: what it holds is published as a whole."""
    if out.exists() and not (out.is_dir() and not any(out.iterdir())):
        problems = Problems()
        problems.add(out, "this folder is not empty", hint="name a new or empty folder for the publication")
        problems.fail()


@contextmanager
def _workspace(last: Path, problems: Problems) -> Iterator[Path]:
    """A new folder with the last publication's packages and changelog, for the build to read and replace.

    The last publication is downloaded: only its regular files are taken, never
    a link, and a file that cannot be read counts as not published, with a
    warning in ``problems`` that names it.
    """
    with tempfile.TemporaryDirectory(prefix="ankibuild-publication-") as name:
        work = Path(name)
        names = sorted(p.name for p in last.iterdir()) if last.is_dir() else []
        for wanted in (n for n in names if n.endswith(".apkg") or n == CHANGELOG_FILE):
            try:
                (work / wanted).write_bytes(_published(last / wanted))
            except UnsafePathError as err:
                problems.add(last / wanted, err.message, hint=_UNREAD_HINT, severity=Severity.WARNING)
            except OSError as err:
                message = f"cannot be read ({err.strerror or err})"
                problems.add(last / wanted, message, hint=_UNREAD_HINT, severity=Severity.WARNING)
        yield work


#: What a warning about a file of the last publication that is not taken tells to do.
_UNREAD_HINT = "it counts as not published; put the release's own file there, as a regular file"


def _published(path: Path) -> bytes:
    """A file of the last publication: a regular file, never a link, even to a file beside it."""
    if path.is_symlink():
        raise UnsafePathError("is a link; it is not read", _UNREAD_HINT)
    return read_inside(path, (path.parent,), MAX_PUBLISHED)


def _publication(
    result: BuildResult, files: Sequence[Path], last: Path, *, out: Path, review: bool, every: Sequence[LanguageStatus]
) -> Publication:
    """What the build makes of the last publication: its ``files`` compared with the last one's."""
    lagging = [s for s in every if s.missing or s.outdated]
    langs = tuple(output.lang for output in result.outputs)
    # The section is made from the changes, as the changelog's was: never read back from a file a name could shape.
    said = section(result.changes).rstrip("\n") + "\n" if result.changes else ""
    made = Publication(out, review, result.changes, said, langs, lagging)
    made.warnings = list(result.warnings)
    made.presets = {output.lang: output.preset for output in result.outputs if output.preset}
    made.retired = {lang: result.retired_searches[lang] for lang in langs if lang in result.retired_searches}
    # Alone, a file no longer held publishes nothing: the release keeps it until the next publication, whose
    # workflow takes it out (a workflow written before that never does, and would publish at every run).
    made.dropped = _dropped(files, last, result.bank_id)
    made.new = any(_differs(path, last / path.name) for path in files)
    return made


def _published_files(work: Path, result: BuildResult) -> list[Path]:
    """What a publication is made of: the packages and the changelog, then the exports for learning platforms.

    The packages the build made, not every one of the last publication: one it no longer makes (of a language
    none of whose questions is translated any more) would be published again and again, unchanged.
    """
    changelog = [work / CHANGELOG_FILE] if (work / CHANGELOG_FILE).is_file() else []
    published = sorted([*(output.path for output in result.outputs), *changelog])
    return [*published, *(export.path for export in result.exports)]


def _dropped(files: Sequence[Path], last: Path, bank_id: str) -> list[str]:
    """The packages and exports of the last publication that this one no longer holds, by name.

    Only files named as a publication of ``bank_id`` names them: any other (a deck a teacher attached to the
    release by hand) is no publication's to take out.
    """
    names = {path.name for path in files}
    held = sorted(path.name for path in last.iterdir()) if last.is_dir() else []
    return [name for name in held if _named_by(name, bank_id) and name not in names]


def _named_by(name: str, bank_id: str) -> bool:
    """Whether ``name`` is that of a package or export a publication of ``bank_id`` makes, in some language."""
    head = f"{bank_id}-"
    for suffix in PUBLISHED_SUFFIXES:
        if name.startswith(head) and name.endswith(suffix):
            tag = name[len(head) : len(name) - len(suffix)]
            return tag == EVERY_LANGUAGE or is_language(tag)
    return False


def _differs(path: Path, before: Path) -> bool:
    try:
        return path.read_bytes() != read_inside(before, (before.parent,), MAX_PUBLISHED)
    except (OSError, UnsafePathError):
        return True


def _write(made: Publication, files: Sequence[Path], options: BuildOptions) -> None:
    """Write the publication (``files`` and the notes), or the review, into its folder; nothing when nothing is new."""
    out = made.out
    if made.review:
        _write_review(made, out, options)
    elif made.new:
        out.mkdir(parents=True, exist_ok=True)
        for path in files:
            shutil.copyfile(path, out / path.name)
        (out / NOTES_FILE).write_text(made.report, encoding="utf-8")
        if made.dropped:
            (out / DROPPED_FILE).write_text("".join(f"{name}\n" for name in made.dropped), encoding="utf-8")


def _write_review(made: Publication, out: Path, options: BuildOptions) -> None:
    from .preview.target import write_preview  # loaded only for a review

    out.mkdir(parents=True, exist_ok=True)
    shown = {(c.lang, c.question) for c in made.changes.items if c.kind in _SHOWN}
    write_preview(
        decks=options.decks,
        templates=options.templates,
        out=out / PREVIEW_FOLDER,
        packages=None,  # a review publishes no package: there is none to link
        languages=made.languages,
        only=shown,
    )
    (out / REVIEW_FILE).write_text(made.report, encoding="utf-8")


def _demoted(section: str) -> str:
    """A changelog section one heading level down, under the report's own heading."""
    return "\n".join("#" + line if line.startswith("##") else line for line in section.splitlines()) + "\n"


def _presets(presets: Mapping[str, str]) -> list[str]:
    """What a classmate ticks to get the class's study options, when the decks carry them."""
    if not presets:
        return []
    names = sorted({f"*{plain(name)}*" for name in presets.values()})
    return [
        "### Study options",
        "",
        f"The decks carry the class's study options, as the preset {', '.join(names)}. To use them, tick "
        "**Import any deck presets** when you import; leave it off to keep your own deck options.",
        "",
    ]


def _no_longer(dropped: Sequence[str]) -> list[str]:
    """The files the last publication held that this one does not: a classmate keeps what they imported."""
    if not dropped:
        return []
    names = ", ".join(code_span(name) for name in dropped)
    return [
        "### No longer published",
        "",
        f"{names}: the bank makes no such file any more (a language none of whose questions is translated now, "
        "or an export no longer asked for). The first publication with something new takes it out of the "
        "release. What you imported from it stays, and no longer changes.",
        "",
    ]


def _retired(searches: Mapping[str, str]) -> list[str]:
    """One search per language for every question removed from the bank: whatever releases a classmate skipped."""
    if not searches:
        return []
    said = "Anki keeps a question removed from the bank when you import."
    if sum(map(len, searches.values())) > MAX_SEARCHES:
        # GitHub refuses release notes longer than 125,000 characters: the publication must not fail for it.
        return ["### Retired questions", "", f"{said} The bank is too large for one search: {_TOO_LARGE}", ""]
    return [
        "### Retired questions",
        "",
        f"{said} To delete every one you still have, whatever releases you skipped, open Browse, search for "
        "the line of your language, select all the notes and delete them. A question added back later is not "
        "selected.",
        "",
        *(f"- {lang}: {code_span(search)}" for lang, search in searches.items()),
        "",
    ]


def _lagging_table(lagging: Sequence[LanguageStatus], published: Sequence[str], *, recorded: bool) -> list[str]:
    """Per language that lags: how many questions lack it, how many may be outdated, whether it is published.

    Which translations may be outdated only the bank's translations record
    tells: without one, no more is said than that none is missing.
    """
    unknown = [] if recorded else ["", f"Without `decks/{TRANSLATIONS_FILE}`, outdated translations are not counted."]
    if not lagging:
        return ["Every language is translated." if recorded else "No translation is missing."]
    rows = [
        f"| {s.lang} | {len(s.missing)} | {len(s.outdated)} | {'yes' if s.lang in published else 'not yet'} |"
        for s in lagging
    ]
    return [
        "### Translations behind",
        "",
        "| language | not translated | possibly outdated | published |",
        "|---|---|---|---|",
        *rows,
        "",
        "A question is published in the languages it has; `ankibuild status` lists them all.",
        *unknown,
    ]


def _failure(err: AnkibuildError) -> str:
    """Why nothing is published, for the job summary: every error of the bank, each with its place and fix."""
    if not isinstance(err, BankError):
        return f"## Not published\n\n{err.format_message()}\n"
    errors = [p for p in err.problems if p.severity is Severity.ERROR]
    lines = [f"## Not published: {tally(errors)} error(s)", ""]
    return "\n".join([*lines, *(_problem_line(p) for p in in_order(errors))]) + "\n"


def _problem_line(problem: Problem) -> str:
    """One problem as one list item: a file name or message from a pull request can neither break it nor close it."""
    hint = f" ({plain(visible(problem.hint))})" if problem.hint else ""
    return f"- {code_span(visible(problem.location))}: {plain(visible(problem.message))}{hint}"


def _append(summary: Path | None, text: str) -> None:
    """Add ``text`` to a job summary, which other steps may write to as well."""
    if summary is not None:
        with summary.open("a", encoding="utf-8") as file:
            file.write(text + "\n")
