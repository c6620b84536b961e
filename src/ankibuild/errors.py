"""Problems found in a bank, and the exception that carries them to the CLI."""

from __future__ import annotations

import enum
import os
from bisect import insort
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import IO, Any, NoReturn, TypeVar


class Severity(enum.StrEnum):
    ERROR = "error"
    WARNING = "warning"


#: At most this many errors of one file are shown, and as many warnings: the first in the order they are
#: printed. A student fixes a file from its top and builds again; thousands of lines more would help no one,
#: and a file of broken questions would otherwise hold a problem per few bytes, many times its size.
SHOWN = 200
#: The check of the line that tells how many more problems of its severity a file has (see :data:`SHOWN`).
MORE = "more"
#: The checks whose problems are gathered into a line each (see :func:`gather`): all are kept, to be counted.
#: The warning of a question without one of the bank's languages, and of one without an explanation.
MISSING_TRANSLATION = "missing-translation"
NO_EXPLANATION = "no-explanation"
_GATHERED = frozenset({MISSING_TRANSLATION, NO_EXPLANATION})


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
    #: How many problems it stands for: one, but for the line of those not shown (see :data:`SHOWN`), and
    #: for the first of a file's of a gathered check, which carries the count of those not kept.
    count: int = field(default=1, compare=False)

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
    """Collects problems from every stage so they can be reported all at once.

    Of each file's errors, and of its warnings, those beyond the :data:`SHOWN` first
    (in the order they are printed) are counted, not kept: :attr:`items` ends with a
    line per file and severity telling how many. A gathered check's problems (see
    :func:`gather`) are kept so by file and message, the first of each carrying the
    count of the others (:attr:`Problem.count`). Problems of another collection joined
    with :meth:`extend` are counted as they were, those not shown too.
    """

    def __init__(self) -> None:
        #: Every problem kept, in the order found (a dict: one that drops out of the first is let go at once).
        self._kept: dict[Problem, None] = {}
        self._shown: dict[tuple[str, Severity], _Shown] = {}
        self._groups: dict[tuple[str, Severity, str, str], _Shown] = {}
        self._names: dict[Path, str] = {}

    @property
    def items(self) -> list[Problem]:
        """The problems kept, in the order found, then a line for each file and severity with more."""
        firsts = {min(group.order): 1 + group.more for group in self._groups.values() if group.more}
        more = [shown.line(file, severity) for (file, severity), shown in self._shown.items() if shown.more]
        if not firsts:
            return [*self._kept, *more]
        return [replace(p, count=firsts[p]) if p in firsts else p for p in self._kept] + more

    def name(self, path: Path) -> str:
        """The path as a student would type it: relative to where they build."""
        name = self._names.get(path)
        if name is None:  # once per file: a file of broken questions names it in each of their problems
            name = self._names[path] = _relative(path)
        return name

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
        name = self.name(path)
        shown = self._shown_with(name, severity, check=check, message=message)
        if not shown.counted((name, line, column, message, hint, question)):  # made only if it may be shown
            self._keep(Problem(name, line, column, message, hint, question, severity, check, detail), shown)

    def extend(self, problems: Iterable[Problem]) -> None:
        for problem in problems:
            shown = self._shown_with(problem.file, problem.severity, check=problem.check, message=problem.message)
            if problem.check == MORE:
                shown.more += problem.count
                continue
            if problem.count != 1:  # the first of a gathered check's, with the count of those not kept
                shown.more += problem.count - 1
                problem = replace(problem, count=1)
            if not shown.counted(_values(problem)):
                self._keep(problem, shown)

    def _keep(self, problem: Problem, shown: _Shown) -> None:
        # shared templates are checked once per language: a problem is listed once
        if problem not in self._kept:
            self._kept[problem] = None
            dropped = shown.take(problem)
            if dropped is not None:
                del self._kept[dropped]

    def _shown_with(self, file: str, severity: Severity, *, check: str, message: str) -> _Shown:
        """Those a problem is shown with, or counted with: its file's of its severity, or of its message."""
        if check in _GATHERED:
            return _of(self._groups, (file, severity, check, message))
        return _of(self._shown, (file, severity))

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
            raise BankError([replace(p, severity=Severity.ERROR) for p in self.items])
        raise BankError(self.items)


def _relative(path: Path) -> str:
    """``path`` relative to the working folder if it is below it, as a terminal can show it."""
    try:
        # abspath, not resolve(): a problem with a link names the link, not its target
        return printable(str(Path(os.path.abspath(path)).relative_to(Path.cwd())))  # noqa: PTH100
    except ValueError:
        return printable(str(path))


_Key = TypeVar("_Key")


def _of(shown: dict[_Key, _Shown], key: _Key) -> _Shown:
    """The problems shown under ``key``: made once, not for each problem found."""
    found = shown.get(key)
    if found is None:
        found = shown[key] = _Shown()
    return found


#: What a problem is told apart by, in the order problems are printed: file, line, column, message, hint, question.
_Values = tuple[str, int, int, str, str, str]


def _values(problem: Problem) -> _Values:
    return problem.file, problem.line, problem.column, problem.message, problem.hint, problem.question


class _Shown:
    """The problems of one file and severity that are shown: the :data:`SHOWN` first in printed order.

    Once there are as many, they are kept in that order too, so that one found after
    them is told apart by one comparison with the last: a file is mostly read in order.
    """

    def __init__(self) -> None:
        self.order: list[Problem] = []
        #: The values of the last of the first, once there are as many.
        self.largest: _Values | None = None
        #: How many more were found, not kept.
        self.more = 0
        #: The values of the last problem counted: a question's text written alike in two places finds it twice.
        self.last: _Values | None = None

    def counted(self, values: _Values) -> bool:
        """Whether a problem of ``values`` comes after the first: it is counted then (once if found twice in a row)."""
        if self.largest is None or values <= self.largest:
            return False
        if values != self.last:
            self.more += 1
        self.last = values
        return True

    def take(self, problem: Problem) -> Problem | None:
        """Keep a problem among the first: the one it puts out of them, if one (it is counted)."""
        if len(self.order) < SHOWN:
            self.order.append(problem)
            if len(self.order) == SHOWN:
                self.order.sort()
                self.largest = _values(self.order[-1])
            return None
        insort(self.order, problem)
        self.more += 1
        dropped = self.order.pop()
        self.largest = _values(self.order[-1])
        return dropped

    def line(self, file: str, severity: Severity) -> Problem:
        """The line telling how many more there are, in the student's words."""
        what = severity.value if self.more == 1 else f"{severity.value}s"
        return Problem(
            file,
            message=f"... and {self.more:,} more {what} in this file, not shown",
            hint="fix the ones above and build again: the next ones are shown then",
            severity=severity,
            check=MORE,
            count=self.more,
        )


def in_order(problems: Iterable[Problem]) -> list[Problem]:
    """``problems`` in the order they are printed: by file, then place; each file's lines of those not shown last."""
    return sorted(problems, key=_printed)


def _printed(problem: Problem) -> tuple[str, int, Problem]:
    rank = 0 if problem.check != MORE else 1 if problem.severity is Severity.ERROR else 2
    return problem.file, rank, problem


def tally(problems: Iterable[Problem], severity: Severity = Severity.ERROR) -> int:
    """How many problems of ``severity`` ``problems`` tell of, with those not shown."""
    return sum(p.count for p in problems if p.severity is severity)


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
    return others + [_gathered(group, say) for group in groups.values()]


def _gathered(group: Sequence[Problem], say: Gathered) -> Problem:
    """The line of a group of problems: the one if it is alone, else the first, told with their count."""
    count = sum(problem.count for problem in group)
    return group[0] if count == 1 else replace(say(min(group), count), count=1)


def one_each(problems: Iterable[Problem], check: str) -> list[Problem]:
    """``problems``, each of ``check`` on a line of its own: the count of those not kept that the first of
    a file carries (see :class:`Problems`) goes to the file's line of those not shown."""
    lines: list[Problem] = []
    for problem in problems:
        if problem.check != check or problem.count == 1:
            lines.append(problem)
            continue
        lines.append(replace(problem, count=1))
        lines.append(Problem(problem.file, severity=problem.severity, check=MORE, count=problem.count - 1))
    return lines


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
        self.problems = in_order(problems)
        super().__init__(f"{tally(problems)} error(s) in the question bank; nothing was written.")

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
    for problem in in_order(problems):
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
    errors = tally(problems)
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
