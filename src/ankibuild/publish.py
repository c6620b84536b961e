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

import re
import shutil
import tempfile
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from .api import build_with
from .changelog import CHANGELOG_FILE, HEADER, ChangeKind, Changelog
from .errors import AnkibuildError, BankError, Problem, Problems, Severity
from .lock.clock import Clock
from .options import BuildOptions
from .paths import UnsafePathError, read_inside
from .state import BuildResult
from .translations.status import LanguageStatus, status

#: The release notes of a publication: its changes and what lags behind.
NOTES_FILE = "RELEASE_NOTES.md"
#: What a review writes for the reviewer, beside the preview.
REVIEW_FILE = "REVIEW.md"
#: The preview of the changed cards, in a review.
PREVIEW_FOLDER = "preview"
#: A published package or changelog larger than this is not taken from the last publication.
MAX_PUBLISHED = 2**30
#: The release notes give the searches for retired questions only up to this length, all languages together.
MAX_SEARCHES = 60_000
_TOO_LARGE = "use the search each release's changelog gives for the questions it removed."
#: What Markdown (or HTML within it) reads as more than text.
_MARKDOWN_SIGN = re.compile(r"[\\`*_{}\[\]()#+\-.!|<>~&]")
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
    #: The packages or the changelog differ from the last publication's.
    new: bool = False
    #: The files written into ``out``.
    written: list[Path] = field(default_factory=list)
    #: Per language published, the search that selects every question removed from the bank a classmate has.
    retired: dict[str, str] = field(default_factory=dict)
    #: The class preset each language's decks carry, by language (none when the bank sets no study options).
    presets: dict[str, str] = field(default_factory=dict)

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
        lagging = _lagging_table(self.lagging, self.languages)
        parts = [head, said.rstrip("\n"), "", *(shown if self.review else []), *_presets(self.presets)]
        parts += [*_retired(self.retired), *lagging]
        return "\n".join(parts).rstrip() + "\n"


def publish(
    *,
    decks: Path = Path("decks"),
    templates: Path | None = None,
    last: Path,
    out: Path,
    review: bool = False,
    summary: Path | None = None,
    clock: Clock | None = None,
) -> Publication:
    """Make the publication that follows the one in ``last`` (missing or empty before the first) into ``out``.

    ``out`` gets the packages, ``CHANGELOG.md`` and the release notes, only when
    they differ from the last publication; with ``review``, only the notes and
    a preview of the changed cards, nothing that would be published. The bank
    folder is left as it is. ``summary`` (a job summary) gets the notes, or
    every problem when the bank has errors: then :class:`BankError` is raised
    and nothing is written into ``out``.
    """
    try:
        _refuse_used(out)
        found = status(decks)
        langs = tuple(s.lang for s in found.languages if s.translated) or tuple(s.lang for s in found.languages)
        with _workspace(last) as work:
            options = BuildOptions(decks=decks, templates=templates, out=work, languages=langs, leave_bank=True)
            result = build_with(options, clock=clock)
            made = _publication(result, work, last, out, review, found.languages)
            made.written = _write(made, work, options)
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
def _workspace(last: Path) -> Iterator[Path]:
    """A new folder with the last publication's packages and changelog, for the build to read and replace.

    The last publication is downloaded: only its regular files are taken, never
    a link, and a file that cannot be read counts as not published.
    """
    with tempfile.TemporaryDirectory(prefix="ankibuild-publication-") as name:
        work = Path(name)
        names = sorted(p.name for p in last.iterdir()) if last.is_dir() else []
        for wanted in (n for n in names if n.endswith(".apkg") or n == CHANGELOG_FILE):
            try:
                (work / wanted).write_bytes(read_inside(last / wanted, (last,), MAX_PUBLISHED))
            except (OSError, UnsafePathError):
                continue
        yield work


def _publication(
    result: BuildResult, work: Path, last: Path, out: Path, review: bool, every: Sequence[LanguageStatus]
) -> Publication:
    """What the build in ``work`` makes of the last publication, compared with it."""
    lagging = [s for s in every if s.missing or s.outdated]
    langs = tuple(output.lang for output in result.outputs)
    made = Publication(out, review, result.changes, _newest_section(work, result.changes), langs, lagging)
    made.warnings = list(result.warnings)
    made.presets = {output.lang: output.preset for output in result.outputs if output.preset}
    made.retired = {lang: result.retired_searches[lang] for lang in langs if lang in result.retired_searches}
    made.new = any(_differs(path, last / path.name) for path in _published_files(work))
    return made


def _published_files(work: Path) -> list[Path]:
    return sorted(p for p in work.iterdir() if p.suffix == ".apkg" or p.name == CHANGELOG_FILE)


def _differs(path: Path, before: Path) -> bool:
    try:
        return path.read_bytes() != read_inside(before, (before.parent,), MAX_PUBLISHED)
    except (OSError, UnsafePathError):
        return True


def _newest_section(work: Path, changes: Changelog) -> str:
    """The section this build put on top of the changelog, if it changed anything."""
    if not changes:
        return ""
    text = (work / CHANGELOG_FILE).read_text(encoding="utf-8").removeprefix(HEADER).lstrip("\n")
    return text.split("\n## ", 1)[0].rstrip("\n") + "\n"


def _write(made: Publication, work: Path, options: BuildOptions) -> list[Path]:
    """Write the publication, or the review, into its folder; nothing at all when nothing is new."""
    out = made.out
    if made.review:
        return _write_review(made, out, options)
    if not made.new:
        return []
    out.mkdir(parents=True, exist_ok=True)
    written = [out / path.name for path in _published_files(work)]
    for path in _published_files(work):
        shutil.copyfile(path, out / path.name)
    (out / NOTES_FILE).write_text(made.report, encoding="utf-8")
    return [*written, out / NOTES_FILE]


def _write_review(made: Publication, out: Path, options: BuildOptions) -> list[Path]:
    from .preview import write_preview  # loaded only for a review

    out.mkdir(parents=True, exist_ok=True)
    shown = {(c.lang, c.question) for c in made.changes.items if c.kind in _SHOWN}
    preview = write_preview(
        decks=options.decks,
        templates=options.templates,
        out=out / PREVIEW_FOLDER,
        packages=out,
        languages=made.languages,
        only=shown,
    )
    (out / REVIEW_FILE).write_text(made.report, encoding="utf-8")
    return [preview.path, out / REVIEW_FILE]


def _demoted(section: str) -> str:
    """A changelog section one heading level down, under the report's own heading."""
    return "\n".join("#" + line if line.startswith("##") else line for line in section.splitlines()) + "\n"


def _presets(presets: Mapping[str, str]) -> list[str]:
    """What a classmate ticks to get the class's study options, when the decks carry them."""
    if not presets:
        return []
    names = sorted({f"*{_plain(name)}*" for name in presets.values()})
    return [
        "### Study options",
        "",
        f"The decks carry the class's study options, as the preset {', '.join(names)}. To use them, tick "
        "**Import any deck presets** when you import; leave it off to keep your own deck options.",
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
        *(f"- {lang}: `{search}`" for lang, search in searches.items()),
        "",
    ]


def _plain(text: str) -> str:
    """A bank's text as typed in Markdown: every sign Markdown or HTML would read escaped."""
    return _MARKDOWN_SIGN.sub(r"\\\g<0>", " ".join(text.split()))


def _lagging_table(lagging: Sequence[LanguageStatus], published: Sequence[str]) -> list[str]:
    """Per language that lags: how many questions lack it, how many may be outdated, whether it is published."""
    if not lagging:
        return ["Every language is translated."]
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
    ]


def _failure(err: AnkibuildError) -> str:
    """Why nothing is published, for the job summary: every error of the bank, each with its place and fix."""
    if not isinstance(err, BankError):
        return f"## Not published\n\n{err.format_message()}\n"
    errors = [p for p in err.problems if p.severity is Severity.ERROR]
    lines = [f"## Not published: {len(errors)} error(s)", ""]
    lines += [f"- `{p.location}`: {p.message}" + (f" ({p.hint})" if p.hint else "") for p in sorted(errors)]
    return "\n".join(lines) + "\n"


def _append(summary: Path | None, text: str) -> None:
    """Add ``text`` to a job summary, which other steps may write to as well."""
    if summary is not None:
        with summary.open("a", encoding="utf-8") as file:
            file.write(text + "\n")
