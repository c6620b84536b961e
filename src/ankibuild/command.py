"""The ``ankibuild`` program: a build is run and told without loading click, when it can be.

A command line that click parsed before gives the options it gave then
(:mod:`.commandline`): when the quick look (:meth:`.state.BuildState.unchanged`)
finds nothing changed, what click would print is printed, without it; else the
build runs, and what click would print is printed. Everything else goes
through click: another command or command line, warnings to colour and a bar
to draw on a terminal, output that is not UTF-8, and what stops a build.
"""

from __future__ import annotations

import gc
import os
import sys
from collections.abc import Callable
from functools import partial
from typing import NoReturn

from .api import built
from .commandline import end, ending, recall
from .errors import report_lines
from .options import BuildOptions
from .state import BuildResult, BuildState
from .summary import build_summary, would_change


def run() -> NoReturn:
    """The ``ankibuild`` command."""
    # One command, then the process ends without tearing anything down (see
    # commandline.end): the objects a build leaves would only be walked, all of
    # them, by the first collection after it (some 15 ms at 10,000 questions).
    gc.disable()
    ending()
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
        state = BuildState(options)
        result = state.unchanged()
    except Exception:  # options refused (a templates folder gone...): click goes the usual way and says why
        return None
    if result is not None:
        return _said(partial(_print, result, options.dry_run, quiet))
    # On a terminal, warnings are coloured and a bar shows the progress: click's.
    return None if sys.stderr.isatty() else _said(partial(_built, options, state, quiet))


def _said(command: Callable[[], int | None]) -> int | None:
    """The exit code of ``command``, or of what stopped it, shown as a command shows it (see :func:`.cli.ended`);
    None to go through click."""
    try:
        return command()
    except (Exception, KeyboardInterrupt) as error:
        from .cli import ended

        return ended(error)


def _built(options: BuildOptions, state: BuildState, quiet: bool) -> int:
    """The exit code of the build the options ask for, run without click, what it did printed.

    Loading click and the command line takes some 30 ms, which a build after
    one edit is spared; click is loaded only to say what stopped a build, or to
    take escapes out of what it prints.
    """
    result = built(options, state)
    code = _print(result, options.dry_run, quiet)
    if code is None:
        from .cli import told

        code = told(result, options.dry_run, quiet)
    return code


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
        sys.stdout.flush()  # a full disk or a closed pipe is said here, not lost as the process ends
    return int(would_change(result, dry_run))


def _utf8(stream: object) -> bool:
    return (getattr(stream, "encoding", None) or "").lower().replace("-", "") == "utf8"
