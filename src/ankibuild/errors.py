"""Problems found in a bank, and the exception that carries them to the CLI."""

from __future__ import annotations

import enum
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

import click


class Severity(str, enum.Enum):
    ERROR = "error"
    WARNING = "warning"


@dataclass(frozen=True, order=True)
class Problem:
    """One thing wrong in the sources, located precisely enough to fix it."""

    file: str
    line: int = 0
    column: int = 0
    message: str = ""
    hint: str = ""
    question: str = ""
    severity: Severity = field(default=Severity.ERROR, compare=False)

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
        }


class Problems:
    """Collects problems from every stage so they can be reported all at once."""

    def __init__(self) -> None:
        self.items: list[Problem] = []

    def name(self, path: Path) -> str:
        """The path as a student would type it: relative to where they build."""
        try:
            return str(path.resolve().relative_to(Path.cwd().resolve()))
        except ValueError:
            return str(path)

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
    ) -> None:
        self.items.append(Problem(self.name(path), line, column, message, hint, question, severity))

    def extend(self, problems: Iterable[Problem]) -> None:
        self.items.extend(problems)

    @property
    def errors(self) -> list[Problem]:
        return [p for p in self.items if p.severity is Severity.ERROR]

    @property
    def warnings(self) -> list[Problem]:
        return [p for p in self.items if p.severity is Severity.WARNING]


class AnkibuildError(click.ClickException):
    """Raised for anything a user can fix; the CLI prints it without a traceback."""

    exit_code = 1


class BankError(AnkibuildError):
    """Raised when the sources have errors; carries every problem found."""

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


def report(problems: list[Problem]) -> None:
    """Print problems to stderr grouped by file; colours only on a terminal."""
    current = None
    for problem in sorted(problems):
        if problem.file != current:
            current = problem.file
            click.secho(problem.file, bold=True, err=True)
        colour = "red" if problem.severity is Severity.ERROR else "yellow"
        where = f"{problem.line}:{problem.column}" if problem.line else "-"
        about = f"[{problem.question}] " if problem.question else ""
        hint = f"\n      hint: {problem.hint}" if problem.hint else ""
        label = click.style(problem.severity.value, fg=colour, bold=True)
        click.echo(f"  {where:>8}  {label}: {about}{problem.message}{hint}", err=True)
    errors = sum(p.severity is Severity.ERROR for p in problems)
    if errors:
        click.secho(f"{errors} error(s); nothing was written.", fg="red", err=True)


class ShapeChangeError(AnkibuildError):
    """Raised when a build would change the fields or card types of a released notetype."""


class LockChangedError(AnkibuildError):
    """Raised by --frozen or --check when the build would change the lock or outputs."""
