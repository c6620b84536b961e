"""Problems found in a bank, and the exception that carries them to the CLI."""

from __future__ import annotations

import enum
import os
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import IO, Any, NoReturn


class Severity(enum.StrEnum):
    ERROR = "error"
    WARNING = "warning"


@dataclass(frozen=True, order=True)
class Problem:
    """One thing wrong in the bank's files, located precisely enough to fix it."""

    file: str
    line: int = 0
    column: int = 0
    message: str = ""
    hint: str = ""
    question: str = ""
    severity: Severity = field(default=Severity.ERROR, compare=False)
    #: The check that found it, if one did: an item-writing check (see :mod:`.kinds.checks`), or a
    #: check whose problems are gathered into one line (see :func:`gather`).
    check: str = field(default="", compare=False)
    #: The words of the tool that found it (the YAML parser's), for whoever wants them.
    detail: str = field(default="", compare=False)

    @property
    def location(self) -> str:
        if not self.line:
            return self.file
        return f"{self.file}:{self.line}:{self.column}"

    def describe(self) -> str:
        """One line for a terminal: location, severity, question, message, hint."""
        about = f" [{self.question}]" if self.question else ""
        hint = f" ({self.hint})" if self.hint else ""
        return f"{self.location}: {self.severity.value}{about}: {self.message}{hint}"

    def as_dict(self) -> dict[str, object]:
        return {
            "file": self.file,
            "line": self.line,
            "column": self.column,
            "severity": self.severity.value,
            "question": self.question,
            "message": self.message,
            "hint": self.hint,
            "check": self.check,
            "detail": self.detail,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Problem:
        """The problem :meth:`as_dict` described."""
        fields = {**data, "severity": Severity(data["severity"])}
        return cls(**fields)


def printable(name: str) -> str:
    """A file name as a terminal or JSON can show it: bytes that are not UTF-8 become U+FFFD.

    Python keeps such bytes of a name as lone surrogates, which no UTF-8 output takes.
    """
    try:
        return name.encode("utf-8", "surrogateescape").decode("utf-8", "replace")
    except UnicodeEncodeError:  # a surrogate no file name makes: from a text, shown as its escape
        return name.encode("utf-8", "backslashreplace").decode("utf-8")


class Problems:
    """Collects problems from every stage so they can be reported all at once."""

    def __init__(self) -> None:
        self.items: list[Problem] = []
        self._seen: set[Problem] = set()

    def name(self, path: Path) -> str:
        """The path as a student would type it: relative to where they build."""
        try:
            # abspath, not resolve(): a problem with a link names the link, not its target
            return printable(str(Path(os.path.abspath(path)).relative_to(Path.cwd())))  # noqa: PTH100
        except ValueError:
            return printable(str(path))

    def add(
        self,
        path: Path,
        message: str,
        *,
        line: int = 0,
        column: int = 0,
        hint: str = "",
        question: str = "",
        severity: Severity = Severity.ERROR,
        detail: str = "",
        check: str = "",
    ) -> None:
        # shared templates are checked once per language: a problem is listed once
        self.extend([Problem(self.name(path), line, column, message, hint, question, severity, check, detail)])

    def extend(self, problems: Iterable[Problem]) -> None:
        for problem in problems:
            if problem not in self._seen:
                self._seen.add(problem)
                self.items.append(problem)

    @property
    def errors(self) -> list[Problem]:
        return [p for p in self.items if p.severity is Severity.ERROR]

    @property
    def warnings(self) -> list[Problem]:
        return [p for p in self.items if p.severity is Severity.WARNING]

    def raise_for(self, *, strict: bool = False) -> None:
        """Raise :class:`BankError` when there are errors (or, with ``strict``, warnings)."""
        if self.errors or (strict and self.warnings):
            self.fail(strict=strict)

    def fail(self, *, strict: bool = False) -> NoReturn:
        """Raise :class:`BankError` with every problem; with ``strict``, warnings count as errors."""
        if strict:
            self.items = [replace(p, severity=Severity.ERROR) for p in self.items]
        raise BankError(self.items)


#: Words a gathered problem is told in: the first problem of its group, and how many there are.
Gathered = Callable[[Problem, int], Problem]


def gather(problems: Sequence[Problem], check: str, say: Gathered) -> list[Problem]:
    """``problems`` with those of ``check`` gathered: one line per message, at the first one's place.

    Some problems are true of thousands of questions at once (a language nobody
    translated yet): a line each would hide every other problem. A message found
    once stays as it was.
    """
    groups: dict[str, list[Problem]] = {}
    for problem in problems:
        if problem.check == check:
            groups.setdefault(problem.message, []).append(problem)
    others = [p for p in problems if p.check != check]
    return others + [group[0] if len(group) == 1 else say(min(group), len(group)) for group in groups.values()]


class AnkibuildError(Exception):
    """Raised for anything a user can fix; the CLI prints it without a traceback, as click's own errors.

    Not a ``click.ClickException``: a build with nothing to do is told without loading click.
    """

    exit_code = 1

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message

    def format_message(self) -> str:
        return self.message

    def __str__(self) -> str:
        return self.message


class BankError(AnkibuildError):
    """Raised when the bank's files have errors; carries every problem found."""

    def __init__(self, problems: list[Problem]) -> None:
        self.problems = sorted(problems)
        count = len([p for p in problems if p.severity is Severity.ERROR])
        super().__init__(f"{count} error(s) in the question bank; nothing was written.")

    def format_message(self) -> str:
        lines = [p.describe() for p in self.problems]
        return "\n".join([*lines, self.message])

    def show(self, file: IO[Any] | None = None) -> None:
        """Every problem, grouped by file, errors in red and warnings in yellow."""
        report(self.problems)


def report(problems: list[Problem], *, wrote: bool = True) -> None:
    """Print problems to stderr grouped by file, each with its full location; colours only on a terminal.

    Every command reports this way. ``wrote`` is False for a command that never
    writes, which then does not say that it wrote nothing.
    """
    import click  # not needed by a build with nothing to do (see report_lines)

    for line in report_lines(problems, wrote=wrote, style=click.style):
        click.echo(line, err=True)


def _plain(text: str, **style: object) -> str:
    return text


def report_lines(problems: list[Problem], *, wrote: bool = True, style: Callable[..., str] = _plain) -> list[str]:
    """The lines :func:`report` prints, each part given to ``style`` (``click.style``'s arguments) to colour it."""
    lines: list[str] = []
    current = None
    for problem in sorted(problems):
        if current is not None and problem.file != current:
            lines.append("")
        current = problem.file
        colour = "red" if problem.severity is Severity.ERROR else "yellow"
        about = f" [{problem.question}]" if problem.question else ""
        label = style(problem.severity.value, fg=colour, bold=True)
        lines.append(f"{style(problem.location, bold=True)}: {label}{about}: {problem.message}")
        if problem.hint:
            lines.append(f"    hint: {problem.hint}")
        if problem.detail:
            lines.append(f"    detail: {problem.detail}")
    errors = sum(p.severity is Severity.ERROR for p in problems)
    if errors:
        lines.append(style(f"{errors} error(s)" + ("; nothing was written." if wrote else "."), fg="red"))
    return lines


class ShapeChangeError(AnkibuildError):
    """Raised when a build would change the fields or card types of a released notetype."""


class LockChangedError(AnkibuildError):
    """Raised by --frozen or --check when the build would change the lock or outputs."""


class UnknownLanguageError(AnkibuildError):
    """Raised when asked to build a language the bank does not have: a usage error."""

    exit_code = 2


class BuildLockedError(AnkibuildError):
    """Raised when another build of the same bank is still running after the wait."""


class CacheChangedError(AnkibuildError):
    """Raised when an entry of the build cache vanished while a build was using it."""
