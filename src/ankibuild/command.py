"""The ``ankibuild`` program: a build with nothing to do is told before click is loaded.

A command line that click parsed before gives the options it gave then
(:mod:`.commandline`): when the quick look (:meth:`.state.BuildState.unchanged`)
finds nothing changed, what click would print is printed, without it.
Everything else goes through click: another command or command line, a build
with work to do, warnings to colour on a terminal, output that is not UTF-8.
"""

from __future__ import annotations

import os
import sys
from typing import NoReturn

from .commandline import end, recall
from .errors import report_lines
from .state import BuildResult, BuildState
from .summary import build_summary, would_change


def run() -> NoReturn:
    """The ``ankibuild`` command."""
    code = _told(sys.argv[1:])
    if code is None:
        from .cli import run as through_click

        through_click()
    end(code)


def _told(argv: list[str]) -> int | None:
    """The exit code of a build with nothing to do, its summary printed; None to go through click."""
    if os.name != "posix" or not all(_utf8(stream) for stream in (sys.stdout, sys.stderr)):
        return None  # click knows Windows consoles and streams of other encodings
    recalled = recall(argv)
    if recalled is None:
        return None
    options, quiet = recalled
    try:
        result = BuildState(options).unchanged()
    except Exception:  # options refused (a templates folder gone...): click goes the usual way and says why
        return None
    return None if result is None else _print(result, options.dry_run, quiet)


def _print(result: BuildResult, dry_run: bool, quiet: bool) -> int | None:
    """Print what click would: warnings without colour, as click prints them off a terminal."""
    warnings = report_lines(result.warnings)
    said = [] if quiet else build_summary(result, dry_run)
    if (warnings and sys.stderr.isatty()) or any("\x1b" in line for line in (*warnings, *said)):
        return None  # colours on a terminal, or escapes click takes out elsewhere
    if warnings:
        sys.stderr.write("".join(f"{line}\n" for line in warnings))
    if said:
        sys.stdout.write("".join(f"{line}\n" for line in said))
    return int(would_change(result, dry_run))


def _utf8(stream: object) -> bool:
    return (getattr(stream, "encoding", None) or "").lower().replace("-", "") == "utf8"
