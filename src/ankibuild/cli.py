"""The command line: options in, a library call, a summary out."""

from __future__ import annotations

import contextlib
import json
import math
import shlex
import sys
from collections.abc import Callable, Iterator
from concurrent.futures import BrokenExecutor
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn, TypeVar

import click

from . import commandline, faults
from .api import build_with
from .buildlock import DEFAULT_WAIT
from .cards.folders import TemplateFolders
from .errors import AnkibuildError, BankError, Severity, in_order, report, tally
from .options import FORMATS, BuildOptions
from .paths import DECKS, DIST
from .progress import for_terminal
from .state import BuildResult
from .summary import build_summary, would_change
from .version import __version__

if TYPE_CHECKING:
    from .importer.bank import ImportResult
    from .load.stage import CheckResult
    from .newbank import NewBank, Origin
    from .translations.status import BankStatus, LanguageStatus

_F = TypeVar("_F", bound=Callable[..., object])


def _folder(name: str, default: Path, help: str) -> Callable[[_F], _F]:
    return click.option(
        name, type=click.Path(file_okay=False, path_type=Path), default=default, show_default=True, help=help
    )


_decks = _folder("--decks", DECKS, "The question bank folder.")
_templates = click.option(
    "--templates",
    type=click.Path(file_okay=False, path_type=Path),
    help="The bank's own card templates, laid over the defaults. Default: templates/ beside the bank folder, if any.",
)


def _format(help: str) -> Callable[[_F], _F]:
    return click.option(
        "--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True, help=help
    )


_strict = click.option("--strict", is_flag=True, help="Treat warnings (e.g. missing translations) as errors.")
_verbose = click.option(
    "-v", "--verbose", is_flag=True, help="A warning per question where one line counts many (missing translations)."
)


class _Seconds(click.FloatRange):
    """A number of seconds, 0 or more: FloatRange lets NaN through (it compares false with both bounds)."""

    name = "seconds"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        seconds = super().convert(value, param, ctx)
        if not math.isfinite(seconds):
            self.fail(f"{value!r} is not a number of seconds: give one such as 30", param, ctx)
        return seconds


_wait = click.option(
    "--wait",
    type=_Seconds(min=0),
    default=DEFAULT_WAIT,
    show_default=True,
    metavar="SECONDS",
    help="How long to wait for a build of the same bank, or another command writing into it, to finish.",
)


class _Failure(click.ClickException):
    """An error the user can fix (:class:`AnkibuildError`), shown and ended as click shows and ends its own."""

    def __init__(self, error: AnkibuildError) -> None:
        super().__init__(error.format_message())
        self.error = error
        self.exit_code = error.exit_code  # type: ignore[misc]  # click's is one per class; each error has its own

    def show(self, file: Any = None) -> None:
        shown = getattr(self.error, "show", None)  # the problems of a bank are listed as every command lists them
        if shown is None:
            super().show(file)
        else:
            shown(file)


class _Commands(click.Group):
    """Every command: a fault of the machine (a full disk, a read-only folder) ends in one line, not a traceback."""

    def invoke(self, ctx: click.Context) -> object:
        try:
            with _in_words():
                return super().invoke(ctx)
        except AnkibuildError as err:
            raise _Failure(err) from None


def ended(error: Exception | KeyboardInterrupt) -> int:
    """Show ``error``, which stopped a build run without click (see :mod:`.command`), as a command shows it.

    Returns the exit code; an error no command expects goes on, to end in its traceback.
    """
    try:
        try:
            with _in_words():
                raise error
        except AnkibuildError as err:
            raise _Failure(err) from None
    except click.exceptions.Exit as done:
        return done.exit_code
    except click.ClickException as failure:
        failure.show()
        return failure.exit_code


def told(result: BuildResult, dry_run: bool, quiet: bool) -> int:
    """Print what a build run without click did, as its command prints it; its exit code."""
    _summary(result, dry_run, quiet)
    return int(would_change(result, dry_run))


@contextlib.contextmanager
def _in_words() -> Iterator[None]:
    """A command's interruption and the machine's faults, said in words: an exit, or an :class:`AnkibuildError`."""
    try:
        yield
    except KeyboardInterrupt:
        click.echo(faults.INTERRUPTED_WORDS, err=True)
        raise click.exceptions.Exit(faults.INTERRUPTED) from None
    except BrokenPipeError:  # `ankibuild build | head -1`: what was asked is done, only the summary is cut
        raise AnkibuildError("the standard output was closed before everything was printed") from None
    except BrokenExecutor:  # a worker process ended before its work was done: killed, or out of memory
        raise AnkibuildError(faults.PROCESS_STOPPED) from None
    except OSError as err:
        name = click.format_filename(err.filename) if err.filename else ""
        raise AnkibuildError(faults.of_system(err, name)) from None
    except MemoryError:
        raise AnkibuildError(faults.short_of("the memory it needs")) from None
    except RuntimeError as error:  # a limit on processes or memory: the system refuses the build a thread
        if not faults.thread_refused(error):
            raise
        raise AnkibuildError(faults.short_of("a thread")) from None


@click.group(cls=_Commands, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="ankibuild")
def main() -> None:
    """Build multilingual multiple-choice Anki decks from a YAML question bank."""


@main.command("build")
@_decks
@_templates
@_folder("--out", DIST, "Where the .apkg files go.")
@click.option("--lang", "languages", multiple=True, metavar="CODE", help="Build only this language (repeatable).")
@click.option("--split", is_flag=True, help="One .apkg per deck and language instead of one per language.")
@click.option(
    "--export",
    "exports",
    multiple=True,
    type=click.Choice(FORMATS),
    help="Also write this file for learning platforms (repeatable), instead of the bank's 'exports'.",
)
@_strict
@_verbose
@click.option("--frozen", is_flag=True, help="Fail instead of updating the lock file (for CI).")
@click.option(
    "--check", "dry_run", is_flag=True, help="Write nothing; exit 1 if the outputs or the lock file would change."
)
@click.option(
    "--allow-shape-change",
    is_flag=True,
    help="Allow changing a released note type's fields (classmates must merge note types).",
)
@_wait
@click.option("-q", "--quiet", is_flag=True, help="Print only warnings and errors: no progress, no summary.")
def build_command(quiet: bool, **options: Any) -> None:
    """Validate the bank and write one .apkg per language."""
    asked = BuildOptions(**options)  # the options above are named as the build's
    commandline.remember(asked, quiet)
    result = build_with(asked, progress=for_terminal(quiet))
    _summary(result, asked.dry_run, quiet)
    if would_change(result, asked.dry_run):
        raise SystemExit(1)


def _file(name: str, envvar: str, help: str) -> Callable[[_F], _F]:
    return click.option(name, type=click.Path(dir_okay=False, path_type=Path), envvar=envvar, help=help)


@main.command("publish")
@_decks
@_templates
@click.option(
    "--last",
    required=True,
    type=click.Path(file_okay=False, path_type=Path),
    help="The last publication: its .apkg files and CHANGELOG.md (a missing or empty folder before the first).",
)
@click.option(
    "--out",
    required=True,
    type=click.Path(file_okay=False, path_type=Path),
    help="A new or empty folder for the publication (or the review).",
)
@click.option("--review", is_flag=True, help="Publish nothing: the changes and a preview of the changed cards only.")
@_file("--summary", "GITHUB_STEP_SUMMARY", "Add the release notes to this file. [$GITHUB_STEP_SUMMARY]")
@_file("--outputs", "GITHUB_OUTPUT", "Write publish=true or publish=false to this file. [$GITHUB_OUTPUT]")
def publish_command(outputs: Path | None, **options: Any) -> None:
    """Make the next publication from the last one: what CI runs on every push and pull request."""
    from .publish import publish  # each command loads only what it uses

    made = publish(**options)  # the options above are named as its arguments
    report(made.warnings)
    click.echo(made.report)
    ready = made.new and not made.review
    if outputs is not None:
        with outputs.open("a", encoding="utf-8") as file:
            file.write(f"publish={'true' if ready else 'false'}\n")
    where = click.format_filename(made.out)
    if made.review:
        click.echo(f"Review written to {where}: nothing is published.")
    else:
        click.echo(f"To publish: every file in {where}." if ready else "Nothing to publish: nothing was written.")


@main.command("check")
@_decks
@_templates
@_strict
@_verbose
@_format("json prints every problem as an object, for editors and CI.")
def check_command(decks: Path, templates: Path | None, strict: bool, *, verbose: bool, fmt: str) -> None:
    """Validate the bank and the templates; write nothing."""
    from .load.stage import check  # each command loads only what it uses

    checked: CheckResult | None = None
    try:
        checked = check(decks=decks, templates=templates, strict=strict, verbose=verbose)
        problems = checked.items
    except BankError as err:
        problems = err.problems
    if fmt == "json":
        click.echo(json.dumps([p.as_dict() for p in in_order(problems)], ensure_ascii=False, indent=2))
    else:
        report(problems, wrote=False)
        from .kinds import CHECKS  # loaded by the check already
        from .kinds.checks import summary

        counted = summary(problems, CHECKS)
        if counted:
            click.echo(counted, err=True)
        if checked is not None:
            click.echo(_checked(checked, decks, TemplateFolders.for_bank(decks, templates).describe()))
    if checked is None:
        raise SystemExit(1)


def _checked(checked: CheckResult, decks: Path, templates: str) -> str:
    """What ``check`` looked at, and what it found there."""
    from .yamlfiles.reader import BANK_FILE  # loaded by the check already

    warnings = tally(checked.warnings, Severity.WARNING)
    found = f"no errors, {warnings} warning(s) (above)" if warnings else "no problems"
    return (
        f"Checked {click.format_filename(decks / BANK_FILE)}, {checked.files} question file(s) with "
        f"{checked.questions} question(s) in {', '.join(checked.languages)}, "
        f"and the card templates ({templates}): {found}."
    )


@main.command("preview")
@_decks
@_templates
@_folder("--out", DIST / "preview", "Where the page (index.html) goes.")
@_folder("--packages", DIST, "Where 'ankibuild build' wrote the .apkg files the page links to.")
@click.option("--lang", "languages", multiple=True, metavar="CODE", help="Only this language (repeatable).")
@click.option("--split", is_flag=True, help="Link the packages of 'ankibuild build --split'.")
@_strict
@click.option("--show-ids", is_flag=True, help="Show each question's id above its card (for authors).")
def preview_command(**options: Any) -> None:
    """Write a static page with every card, front and back, and links to the packages."""
    from .preview.target import write_preview  # each command loads only what it uses

    result = write_preview(**options)  # the options above are named as its arguments
    for warning in result.warnings:
        click.secho(f"warning: {warning}", fg="yellow", err=True)
    state = "wrote" if result.written else "unchanged"
    click.echo(f"Preview of {len(result.cards)} card(s) -> {result.path} ({state})")


_IMPORT_HELP = """Import quiz pages copied from the web, or whole quiz files.

\b
A page copied from a quiz site (any other file name): one question, a page per language.
  ankibuild import de.txt fr.txt -o decks/imported.yaml
\b
A Markdown quiz (.md): every question of the file, into a new question file;
several files are one quiz in several languages, the first language first,
matched by question number.
  ankibuild import git.md git.de.md --lang en --lang de -o decks/git.yaml
\b
    ## Git                      the title: names the deck and the topic
    #### Q1. Which command lists branches?
    - [ ] `git log`
    - [x] `git branch`          ticked: correct (tick several for "select all")
    **Explanation:** it lists them.

\b
A GIFT file (.gift or ankibuild's .gift.txt; --format gift for Moodle's .txt): the same, in Moodle's format.
  ankibuild import shell.gift --lang en -o decks/shell.yaml
\b
    $CATEGORY: $course$/top/Shell          the title
    ::Q1::Which command prints the directory?{
        ~ls  =pwd#Right.  ~cd              = correct, ~ wrong (~%50% one of several), #feedback
        ####Every shell has it.            the explanation
    }
    ::Q2::rm -r asks before each file.{FALSE}

\b
A Moodle XML export (.xml): multichoice, truefalse and cloze questions (a gap with one
correct answer), parsed hardened; images it carries go into media/ beside the new file,
and a file of multilang spans is read as each of its languages.
In GIFT, a missing word becomes a cloze too.
  ankibuild import questions.xml --lang en -o decks/networks.yaml
\b
    <question type="multichoice"><name><text>Q1</text></name>
      <questiontext format="html"><text>&lt;p>Which run over UDP?&lt;/p></text></questiontext>
      <answer fraction="50"><text>DNS</text></answer>          a positive fraction: correct
      <answer fraction="-100"><text>SSH</text></answer>
    </question>

\b
A QTI 1.2 package (.qti.zip, .zip) as Canvas, Blackboard and ankibuild export it, or its
assessment alone (.xml, told by its root <questestinterop>): choice and true/false items.
  ankibuild import networks-en.qti.zip --lang en --topic networks -o decks/networks.yaml
\b
    <item ident="udp-apps">                          the ident: the question's id
      <presentation><material><mattext>Which run over UDP?</mattext></material>
        <response_lid><render_choice><response_label ident="A">…   the options
      <resprocessing><respcondition><conditionvar><varequal>A</varequal>…
        <setvar action="Set">100</setvar>            a positive score: correct

\b
An Aiken file (.aiken; --format aiken for a .txt), or a spreadsheet (.csv, .tsv) whose
header names the columns (question, A..F or answer 1..6, answer or correct, explanation):
  ankibuild import ports.csv --lang en --topic networks -o decks/ports.yaml
\b
    Which port does HTTPS use?          question,A,B,C,answer,explanation
    A. 80                               Which are mail ports?,25,22,587,"A,C",SMTP.
    B. 443
    ANSWER: B

A question that cannot be read exactly is refused at its line; the others are imported.
"""


@main.command("import", help=_IMPORT_HELP)
@click.argument("pages", nargs=-1, required=True, type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option(
    "-o",
    "--out",
    required=True,
    type=click.Path(dir_okay=False, path_type=Path),
    help="The question file a new question goes to (created if missing).",
)
@click.option("--id", "question_id", metavar="ID", help="The question's id. Default: from the first page's question.")
@click.option(
    "--lang", "languages", multiple=True, metavar="CODE", help="Each page's language, in order. Default: detected."
)
@click.option("--topic", metavar="SLUG", help="The question's topic. Default: the bank's topic named like the pages'.")
@click.option(
    "--add-language",
    is_flag=True,
    help="Add the pages' languages the bank does not build yet to its 'languages' (else they are refused).",
)
@click.option("--dry-run", is_flag=True, help="Quiz files: show what would be written, and write nothing.")
@click.option(
    "--format",
    "form",
    type=click.Choice(["page", "markdown", "gift", "moodle-xml", "aiken", "csv", "qti"]),
    help="The files' format. Default: .md is markdown, .gift and .gift.txt gift, .xml moodle-xml (qti by its root), "
    ".aiken aiken, .csv and .tsv csv, .qti.zip and .zip qti, any other a page.",
)
@_decks
@_wait
def import_command(pages: tuple[Path, ...], dry_run: bool, form: str | None, **options: Any) -> None:
    from .importer.quizbank import format_of  # each command loads only what it uses

    if form != "page" and (form or all(format_of(page) for page in pages)):
        _import_quizzes(pages, dry_run, form, **options)
        return
    from .importer.bank import import_pages  # each command loads only what it uses

    result = import_pages(pages, **options)  # the options above are named as its arguments
    _import_summary(result)


def _import_quizzes(
    files: tuple[Path, ...],
    dry_run: bool,
    form: str | None,
    *,
    out: Path,
    decks: Path,
    question_id: str | None,
    languages: tuple[str, ...],
    topic: str | None,
    add_language: bool,
    wait: float,
) -> None:
    from .importer.quizbank import import_quizzes  # each command loads only what it uses

    if question_id or add_language:
        raise click.UsageError("--id and --add-language are for pages; a quiz file gives each question its id")
    result = import_quizzes(
        files, out=out, decks=decks, languages=languages, topic=topic, dry_run=dry_run, form=form, wait=wait
    )
    report([*result.refused, *result.warnings], wrote=False)
    where = click.format_filename(result.path)
    refused = f"; {len(result.refused)} refused (above)" if result.refused else ""
    if dry_run:
        for path, content in result.files.items():
            if path.suffix in (".yaml", ".yml"):
                click.echo(f"--- {click.format_filename(path)}\n{content.decode()}")
        click.echo(
            f"Would import {result.questions} question(s) ({', '.join(result.languages)}) into {where}{refused}."
        )
        return
    topic_said = f", topic '{result.topic}'" + (" (new in bank.yaml)" if result.new_topic else "")
    click.echo(
        f"Imported {result.questions} question(s) ({', '.join(result.languages)}) into {where}{topic_said}{refused}."
    )
    if result.refused:
        raise SystemExit(1)


def _import_summary(result: ImportResult) -> None:
    report(list(result.warnings))
    where = click.format_filename(result.path)
    if result.new_languages:
        added = ", ".join(result.new_languages)
        click.echo(f"Added {added} to the bank's languages: 'ankibuild status' shows what is left to translate.")
    if result.added:
        topic = f", topic '{result.topic}'" if result.topic else ""
        topic += " (new in bank.yaml)" if result.new_topic else ""
        click.echo(f"Imported '{result.question}' ({', '.join(result.added)}) into {where}{topic}.")
    if result.kept:
        click.echo(f"'{result.question}' in {where} already has {', '.join(result.kept)}: left as it was.")
    for lang, titles in result.todo.items():
        click.echo(f"  todo: {len(titles)} further question title(s) in {lang}")
    if not result.written:
        click.echo("Nothing written: the bank already holds these pages.")


def _origin(ctx: click.Context, param: click.Parameter, value: str | None) -> Origin | None:
    from .newbank import parse_origin

    try:
        return None if value is None else parse_origin(value)
    except ValueError as err:
        raise click.BadParameter(str(err)) from None


@main.command("init")
@click.argument("folder", default=".", type=click.Path(file_okay=False, path_type=Path))
@click.option("--lang", "languages", multiple=True, metavar="CODE", help="A language of the bank (repeatable). [en]")
@click.option("--id", "bank_id", metavar="ID", help="The bank's id, forever. Default: from the folder's name.")
@click.option(
    "--from",
    "origin",
    metavar="URL@REF",
    callback=_origin,
    help="Where CI installs ankibuild from: its git repository and a tag or commit. "
    "Default: the one this ankibuild was installed from, if others can reach it.",
)
def init_command(folder: Path, languages: tuple[str, ...], bank_id: str | None, *, origin: Origin | None) -> None:
    """Start a bank: a git repository that checks, publishes, and reviews pull requests at once."""
    from .newbank import init  # each command loads only what it uses

    made = init(folder, languages=languages, bank_id=bank_id, origin=origin)
    click.echo(f"Bank '{made.bank_id}' in {', '.join(made.languages)}: wrote {len(made.files)} files in {folder}.")
    for line in _origin_advice(made):
        click.secho(line, fg="yellow")
    where = "" if folder == Path() else f"cd {shlex.quote(str(folder))} && "
    click.echo(_git_advice(made.git, where))


def _origin_advice(made: NewBank) -> list[str]:
    """What to set when no origin others can reach is known, naming each field as its file spells it."""
    if made.origin.is_set:
        return []
    source = made.unreachable
    return [
        *([f"ankibuild was installed from {source.git}, which GitHub cannot reach."] if source else []),
        "Set ANKIBUILD_GIT and ANKIBUILD_REF under env: in .github/workflows/decks.yml (ankibuild's git repository"
        " and a tag or commit of it): until then, CI stops at its first step and says so ('init --from URL@REF'"
        " writes them). The hook in .pre-commit-config.yaml runs the ankibuild installed on each"
        " computer; its comment says how to pin it with repo: and rev:.",
    ]


def _git_advice(state: str, where: str) -> str:
    """The next steps, starting with ``git init`` when init could not run it."""
    said = {"missing": "git is not installed: install it. ", "failed": "'git init' failed. "}.get(state)
    start = f"{where}git init && " if said else where
    done = "Made it a git repository. " if state == "made" else said or ""
    return (
        f"{done}Next: {start}ankibuild check && ankibuild preview, then commit everything but dist/ and push it"
        " to a new GitHub repository: CI publishes every commit of its default branch."
    )


@main.group("templates")
def templates_group() -> None:
    """The card templates: ankibuild's defaults, and a bank's own."""


@templates_group.command("export")
@click.argument("folder", default="templates", type=click.Path(file_okay=False, path_type=Path))
@click.option("--force", is_flag=True, help="Replace files the folder has already.")
@_decks
@_wait
def templates_export_command(folder: Path, force: bool, decks: Path, *, wait: float) -> None:
    """Copy the default templates into FOLDER (templates/ beside the bank) to change them."""
    from .cards.folders import export_defaults  # each command loads only what it uses

    try:
        written = export_defaults(folder, replace=force, decks=decks, wait=wait)
    except OSError as err:
        raise click.ClickException(f"{err.filename or folder}: cannot write here: {err.strerror}") from None
    click.echo(f"Wrote {len(written)} file(s) into {click.format_filename(folder)}.")
    click.echo("Keep only the files you change: the others then follow ankibuild's own improvements.")


@main.command("status")
@_decks
@_format("json prints the same as one object, for scripts and CI.")
def status_command(decks: Path, fmt: str) -> None:
    """Per language: questions translated, missing and possibly outdated; names and titles missing."""
    from .translations.status import status

    result = status(decks)
    if fmt == "json":
        click.echo(json.dumps(result.as_dict(), ensure_ascii=False, indent=2))
    else:
        _status_table(result)


#: More question ids than this are counted, not listed.
MAX_LISTED_IDS = 8


def _listed(what: str, ids: tuple[str, ...]) -> str:
    shown = ", ".join(ids[:MAX_LISTED_IDS]) + (
        f" and {len(ids) - MAX_LISTED_IDS} more" if len(ids) > MAX_LISTED_IDS else ""
    )
    return f"{len(ids)} {what}: {shown}"


def _left(status: LanguageStatus) -> list[str]:
    """What is left to translate in one language, a line each."""
    left = [
        _listed(what, ids)
        for what, ids in (
            ("question(s) to translate", status.missing),
            ("possibly outdated", status.outdated),
            ("topic name(s)", status.topic_names),
            ("deck title(s)", status.deck_titles),
        )
        if ids
    ]
    return [*left, "the bank's title"] if status.title else left


def _status_table(result: BankStatus) -> None:
    click.echo(f"Bank '{result.bank}': {result.questions} question(s).")
    head = ("language", "translated", "missing", "outdated", "topic names", "deck titles")
    click.echo("  ".join(f"{name:>11}" for name in head))
    for status in result.languages:
        counts = (len(status.translated), len(status.missing), len(status.outdated))
        names = (len(status.topic_names), len(status.deck_titles))
        click.echo("  ".join(f"{value:>11}" for value in (status.lang, *counts, *names)))
    for status in result.languages:
        for line in _left(status):
            click.echo(f"  {status.lang}: {line}")
    if result.errors:
        click.secho(
            f"The bank has {result.errors} error(s), which may hide questions: run 'ankibuild check'.", fg="red"
        )


@main.command("add-language")
@click.argument("code")
@_decks
@_wait
def add_language_command(code: str, decks: Path, wait: float) -> None:
    """Add a language to bank.yaml and say what is left to translate."""
    from .translations.status import add_language

    status = add_language(code, decks, wait=wait)
    click.echo(f"Added '{code}' to {click.format_filename(decks / 'bank.yaml')}. Left to translate:")
    for line in _left(status) or ["nothing"]:
        click.echo(f"  {line}")
    click.echo(
        f"The bank builds its other languages meanwhile. To translate in a PO editor: "
        f"ankibuild translations export --lang {code} -o {code}.po"
    )


@main.group("translations")
def translations_group() -> None:
    """Keep translations true: mark them current, and exchange PO files with translators."""


@translations_group.command("ok")
@click.argument("questions", nargs=-1, required=True, metavar="ID...")
@click.option("--lang", "languages", multiple=True, metavar="CODE", help="Only this language (repeatable).")
@_decks
@_wait
def ok_command(questions: tuple[str, ...], languages: tuple[str, ...], decks: Path, *, wait: float) -> None:
    """Mark translations that may be outdated as current: they still say the same."""
    from .translations.status import confirm

    for question, marked in confirm(questions, languages, decks, wait=wait).items():
        if marked:
            click.echo(f"{question}: {', '.join(marked)} marked current.")
        else:
            click.echo(f"{question}: nothing was outdated.")


@translations_group.command("export")
@click.option("--lang", required=True, metavar="CODE", help="The language to translate into.")
@click.option("--from", "source", metavar="CODE", help="The language to translate from. Default: the bank's first.")
@click.option("-o", "--out", required=True, type=click.Path(dir_okay=False, path_type=Path), help="The PO file.")
@_decks
def export_command(lang: str, source: str | None, out: Path, *, decks: Path) -> None:
    """Write a gettext PO file to translate the bank in a PO editor."""
    from .translations.po import export_po

    result = export_po(lang, out, source=source, decks=decks)
    click.echo(
        f"Wrote {click.format_filename(result.path)}: {result.entries} text(s) from '{result.source}' to "
        f"'{result.lang}', {result.translated} translated ({result.fuzzy} marked fuzzy: may be outdated)."
    )
    if result.errors:
        click.secho(
            f"The bank has {result.errors} error(s); questions they hide are not in the file: run 'ankibuild check'.",
            fg="yellow",
            err=True,
        )


@translations_group.command("import")
@click.argument("po_file", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@_decks
@_wait
def import_po_command(po_file: Path, decks: Path, wait: float) -> None:
    """Write the translations of a PO file into the question files."""
    from .translations.po import import_po

    result = import_po(po_file, decks=decks, wait=wait)
    report(result.warnings)
    files = ", ".join(click.format_filename(path) for path in result.files) or "no file changed"
    click.echo(f"Imported {result.written} '{result.lang}' text(s): {files}.")
    if result.skipped:
        click.echo(f"  {len(result.skipped)} text(s) left out: untranslated, fuzzy, or of a question not complete yet.")


@main.command("schema")
@click.option("--bank", is_flag=True, help="The schema of bank.yaml instead of a question file.")
def schema_command(bank: bool) -> None:
    """Print the JSON Schema of a question file (or of bank.yaml), for editors."""
    from .load.schema import schema_text  # each command loads only what it uses

    click.echo(schema_text(bank=bank), nl=False)


def _summary(result: BuildResult, dry_run: bool, quiet: bool) -> None:
    """What the build wrote, and what changed for classmates: each said once."""
    report(result.warnings)
    if not quiet:
        for line in build_summary(result, dry_run):
            click.echo(line)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())


def run() -> NoReturn:
    """The ``ankibuild`` command through click (see :mod:`.command`), then the end of the process.

    A crash still ends the usual way, with its traceback.
    """
    commandline.parsing = sys.argv[1:]
    try:
        main()
    except SystemExit as done:
        code = done.code
    else:  # click ends every command with SystemExit; this is in case it one day does not
        code = 0
    if isinstance(code, str):
        print(code, file=sys.stderr)
    commandline.end(code)
