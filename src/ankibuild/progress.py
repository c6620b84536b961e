"""Progress of a long build, shown on a terminal and nowhere else."""

from __future__ import annotations

import sys
import time
from typing import Protocol, TextIO

#: A build quicker than this shows no bar at all.
DELAY_SECONDS = 1.0


class Progress(Protocol):
    def __call__(self, stage: str, done: int, total: int) -> None:
        """``done`` of ``total`` units of ``stage`` (files parsed, notes written) are finished."""


def silent(stage: str, done: int, total: int) -> None:
    """The progress of a library call, or of a quiet or redirected run: nobody is watching."""


class TerminalBar:
    """One line per stage on a terminal, redrawn in place, once the build has taken a second."""

    def __init__(self, stream: TextIO = sys.stderr, delay: float = DELAY_SECONDS, width: int = 28) -> None:
        self.stream, self.delay, self.width = stream, delay, width
        self.started = time.monotonic()

    def __call__(self, stage: str, done: int, total: int) -> None:
        if time.monotonic() - self.started < self.delay:
            return
        filled = self.width * done // total if total else self.width
        bar = "#" * filled + "." * (self.width - filled)
        end = "\n" if done >= total else ""
        self.stream.write(f"\r{stage:<24} [{bar}] {done}/{total}{end}")
        self.stream.flush()


def for_terminal(quiet: bool, stream: TextIO | None = None) -> Progress:
    """A bar when someone watches a terminal, else nothing (also when standard error was closed)."""
    stream = stream or sys.stderr
    return TerminalBar(stream) if not quiet and stream is not None and stream.isatty() else silent
