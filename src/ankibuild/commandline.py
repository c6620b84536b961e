"""The options click made of the program's command line, kept for the next time it is the same.

Loading click and the modules behind the command line takes longer than a
build that finds nothing changed. The options of a build's command line are
kept by the command line itself and the working folder, for this very code:
the same command line gives the same options, so :mod:`.command` can look
whether anything changed at once, before loading click.
"""

from __future__ import annotations

import contextlib
import json
import os
from dataclasses import fields
from pathlib import Path
from typing import Any, NoReturn

from .atomic import write_if_changed
from .cache import cache_root, digest, plain_data, read_kept, refusal, remove_scratch
from .faults import flush_output
from .options import BuildOptions
from .version import code_fingerprint

#: The program's own command line while click parses it (see :func:`.cli.run`); None for any other caller of click.
parsing: list[str] | None = None
#: What the program's command leaves to the end of the process (see :func:`outlive`); None for any other caller.
_left: list[object] | None = None


def remember(options: BuildOptions, quiet: bool) -> None:
    """Keep the options click made of the program's command line, for the next time it is the same."""
    argv = parsing
    memo = _memo(argv) if argv is not None else None
    if argv is None or memo is None:
        return
    values = {option.name: _plain(getattr(options, option.name)) for option in fields(options)}
    data = {"code": code_fingerprint(), "for": _for(argv), "quiet": quiet, "options": values}
    with contextlib.suppress(OSError):  # without it the next run only takes longer
        write_if_changed(memo, json.dumps(data).encode(), durable=False)


def recall(argv: list[str]) -> tuple[BuildOptions, bool] | None:
    """The options and the ``--quiet`` of ``argv`` as click made them the last time, if they are kept."""
    memo = _memo(argv)
    try:
        data = plain_data(read_kept(memo)) if memo is not None else None
        # Its name is only a digest: the command line and folder it was made for are checked too.
        if data is None or data["code"] != code_fingerprint() or data["for"] != _for(argv):
            return None
        values: dict[str, Any] = {name: _restored(value) for name, value in data["options"].items()}
        return BuildOptions(**values), data["quiet"] is True
    except (OSError, ValueError, TypeError, KeyError, AttributeError):  # none, or of another shape
        return None


def ending() -> None:
    """The process runs one command, then :func:`end` ends it: what :func:`outlive` is given is kept till then."""
    global _left
    _left = []


def outlive(*objects: object) -> None:
    """Keep ``objects`` to the end of the process when :func:`end` ends it; else leave them to be freed.

    Freeing a build's bank and plans, object by object, as the build returns
    takes 15 to 20 ms at 10,000 questions, which nobody needs when the process
    ends at once. A library caller goes on: its memory is freed as usual.
    """
    if _left is not None:
        _left.extend(objects)


def end(code: object) -> NoReturn:
    """End the process without tearing down the interpreter, once its output is flushed.

    Freeing every loaded module and object one by one takes some 20 ms, a fifth
    of a build with nothing to do; by the time a command returns, everything it
    wrote is closed and its workers are gone.
    """
    flush_output()
    remove_scratch()
    os._exit(code if isinstance(code, int) else int(code is not None))


def _for(argv: list[str]) -> list[str]:
    """What the options kept for ``argv`` were made of: the working folder and the command line."""
    return [str(Path.cwd()), *argv]


def _memo(argv: list[str]) -> Path | None:
    """Where the options of ``argv`` run from this folder are kept: in the cache folder, if it is safe."""
    if argv[:1] != ["build"]:
        return None
    root = cache_root()
    return None if refusal(root) else root / f"command-{digest(*_for(argv))[:16]}.json"


def _plain(value: object) -> object:
    """An option's value as JSON holds it: a path is marked as one, a tuple is a list."""
    return {"path": str(value)} if isinstance(value, Path) else list(value) if isinstance(value, tuple) else value


def _restored(value: object) -> object:
    """An option's value as :func:`_plain` kept it."""
    if isinstance(value, dict):
        return Path(value["path"])
    return tuple(value) if isinstance(value, list) else value
