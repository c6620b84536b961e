"""Measuring one contender: a separate process, its wall time, processor time and peak memory.

Wall time covers the whole process, interpreter start-up included, since that
is what a user waits for. Processor time is the user and system time of the
process and of every process it waited for (a worker it forked), from
``os.wait4``: on two cores a run takes at least half of it in wall time. Peak
memory is the child's own high-water mark, from ``os.wait4`` too:
``getrusage(RUSAGE_CHILDREN)`` would report the largest child so far. Linux
also counts the memory of the process that spawned a child into the child's
peak (the spawner's pages are the child's until ``exec``), so each contender
is started by a tiny launcher process instead of this one, which may have
grown: the launcher is smaller than any Python program.

A contender that fails, or writes packages that are missing, broken or short of
notes, stops the benchmark: a broken build must never look fast.
"""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
import tempfile
import zipfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

#: ``ru_maxrss`` is in kilobytes on Linux and in bytes on macOS.
_MAXRSS_PER_MB = 1024 * 1024 if sys.platform == "darwin" else 1024
#: Started with ``-I -S``: it imports next to nothing, so it stays a few megabytes.
#: argv: the file to report to, then the command. Reports seconds, exit code, maxrss, processor seconds.
_LAUNCHER = """
import os, sys, time
start = time.perf_counter()
pid = os.posix_spawnp(sys.argv[2], sys.argv[2:], os.environ)
_, status, usage = os.wait4(pid, 0)
seconds = time.perf_counter() - start
with open(sys.argv[1], "w") as report:
    processor = usage.ru_utime + usage.ru_stime
    report.write(f"{seconds} {os.waitstatus_to_exitcode(status)} {usage.ru_maxrss} {processor}")
"""
#: Collection names inside an .apkg, newest first (``anki21b`` is compressed, not read here).
_COLLECTIONS = ("collection.anki21", "collection.anki2")


class ContenderFailed(RuntimeError):
    """Raised when a contender exits with an error or writes unusable packages."""


@dataclass(frozen=True)
class Sample:
    """One run of one contender."""

    seconds: float
    peak_mb: float
    #: User and system time of the process and of those it waited for.
    processor_seconds: float

    def said(self) -> str:
        """The run in a few words, for the progress printed as the benchmark goes."""
        return f"{self.seconds:.2f} s ({self.processor_seconds:.2f} s of processor), {self.peak_mb:.0f} MB"


def run_process(command: Sequence[str], *, cwd: Path, env: Mapping[str, str], log: Path) -> Sample:
    """Run ``command`` to completion; its output goes to ``log``.out/.err.

    Raises :class:`ContenderFailed` (with the end of its error output) if it
    exits with a non-zero status.
    """
    log.parent.mkdir(parents=True, exist_ok=True)
    out_path, err_path, usage_path = (log.with_suffix(s) for s in (".out", ".err", ".usage"))
    usage_path.unlink(missing_ok=True)
    launcher = [sys.executable, "-I", "-S", "-c", _LAUNCHER, str(usage_path), *command]
    with out_path.open("wb") as out, err_path.open("wb") as err:
        subprocess.run(launcher, cwd=cwd, env=dict(env), stdout=out, stderr=err, check=False)
    try:
        seconds, status, maxrss, processor = usage_path.read_text(encoding="utf-8").split()
    except FileNotFoundError:  # the launcher itself failed: its error is in the log
        seconds, status, maxrss, processor = "0", "unknown", "0", "0"
    if status != "0":
        tail = err_path.read_text(encoding="utf-8", errors="replace")[-2000:]
        raise ContenderFailed(f"{' '.join(command)} exited with status {status} (log: {err_path}):\n{tail}")
    return Sample(float(seconds), int(maxrss) / _MAXRSS_PER_MB, float(processor))


def check_packages(paths: Sequence[Path], *, notes: int) -> int:
    """Every package exists, is a zip whose collection has ``notes`` notes and cards; their total size.

    Raises :class:`ContenderFailed` otherwise.
    """
    total = 0
    for path in paths:
        if not path.is_file():
            raise ContenderFailed(f"{path} was not written")
        try:
            found = _note_count(path)
        except (zipfile.BadZipFile, sqlite3.DatabaseError) as err:
            raise ContenderFailed(f"{path} is not a readable package: {err}") from err
        if found != (notes, notes):
            raise ContenderFailed(f"{path} holds {found[0]} notes and {found[1]} cards, expected {notes} of each")
        total += path.stat().st_size
    return total


def _note_count(path: Path) -> tuple[int, int]:
    with zipfile.ZipFile(path) as archive:
        names = set(archive.namelist())
        name = next((n for n in _COLLECTIONS if n in names), None)
        if name is None:
            raise zipfile.BadZipFile(f"no {' or '.join(_COLLECTIONS)} inside")
        handle, temporary = tempfile.mkstemp(suffix=".anki2")
        try:
            with os.fdopen(handle, "wb") as out, archive.open(name) as collection:
                while chunk := collection.read(1 << 20):
                    out.write(chunk)
            return _count(Path(temporary))
        finally:
            Path(temporary).unlink()


def _count(collection: Path) -> tuple[int, int]:
    conn = sqlite3.connect(f"file:{collection}?mode=ro", uri=True)
    try:
        notes, cards = conn.execute("SELECT (SELECT count(*) FROM notes), (SELECT count(*) FROM cards)").fetchone()
        return int(notes), int(cards)
    finally:
        conn.close()
