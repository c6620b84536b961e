"""Nothing is lost: a build killed at any write, or racing another build, leaves usable outputs.

The builds here are real processes. To stop one exactly mid-write, the child
replaces ``os.replace`` with a version that stops the process (SIGSTOP) once
the new content sits complete in its temporary file, just before the rename;
the test then kills it (SIGKILL), interrupts it (Ctrl-C) or lets it go on.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Iterator, Sequence
from concurrent.futures import Executor, Future
from pathlib import Path

import pytest
from click.testing import CliRunner

import ankibuild
from ankibuild import atomic
from ankibuild.anki import target
from ankibuild.cli import main
from ankibuild.faults import INTERRUPTED
from ankibuild.lock.format import LOCK_FILE
from ankibuild.translations.record import TRANSLATIONS_FILE

from ..ankitools import TEMPLATE_ERROR, collection, import_package, render
from ..conftest import Project, snapshot

QUESTIONS = 300
LANGS = ("de", "en")

PAUSING_BUILD = """
import glob, os, signal, sys, time
from ankibuild.cli import main
from ankibuild.faults import INTERRUPTED

# Ctrl-C as in a terminal: a test runner's worker may ignore SIGINT, and a child inherits that.
signal.signal(signal.SIGINT, signal.default_int_handler)
# The kernel hands a Ctrl-C to any thread that does not block it, and Python raises it in the main
# thread at its next check: taken by another thread, it could come after the rename. Every thread
# the build starts inherits this block; only the paused thread lifts it, so the test knows when it lands.
signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
target, readied = sys.argv.pop(1), [name for name in sys.argv.pop(1).split(",") if name]
real_replace = os.replace

def ready_or_not():
    # The records are written ahead on a thread of their own while the packages are made: the pause waits
    # for their temporary files (a few seconds at most), so that what the test finds does not depend on the load.
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and not all(
        glob.glob(f"*/.{glob.escape(name)}.*.tmp") for name in readied
    ):
        time.sleep(0.01)

def replace_after_a_pause(source, destination):
    if os.path.basename(os.fspath(destination)) == target:
        ready_or_not()
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
        os.kill(os.getpid(), signal.SIGSTOP)
    real_replace(source, destination)

os.replace = replace_after_a_pause
main()
"""


def _environment() -> dict[str, str]:
    """The child processes import this ankibuild, not another installed copy."""
    source = str(Path(ankibuild.__file__).resolve().parent.parent)
    return {**os.environ, "PYTHONPATH": os.pathsep.join([source, os.environ.get("PYTHONPATH", "")])}


def _write_bank(decks: Path, explanation: str) -> None:
    """A bank of QUESTIONS questions in two languages: large enough that a build takes a moment."""
    (decks / "bank.yaml").write_text("id: big\nlanguages: [de, en]\ntopics:\n  t: {de: Thema, en: Topic}\n")
    lines = ["deck: {de: Viele Fragen, en: Many questions}", "questions:"]
    for number in range(QUESTIONS):
        lines += [f"  - id: q{number}", "    topics: [t]", "    answer: A"]
        for lang in LANGS:
            lines += [
                f"    {lang}:",
                f"      question: Question {number} ({lang})?",
                f"      options: [right {number}, wrong {number}, also wrong {number}]",
                f"      explanation: {explanation} {number}.",
            ]
    (decks / "many.yaml").write_text("\n".join(lines) + "\n")


@pytest.fixture
def released(project: Project) -> Iterator[Project]:
    """A generated bank built once (the previous build), then edited so that every output changes."""
    shutil.rmtree(project.decks)
    project.decks.mkdir()
    _write_bank(project.decks, "First wording")
    assert CliRunner().invoke(main, ["build"]).exit_code == 0
    _write_bank(project.decks, "Second wording")
    yield project


def _start(
    project: Project, *arguments: str, pause_at: str = "", readied: Sequence[str] = ()
) -> subprocess.Popen[bytes]:
    """``ankibuild build`` in a new process; with ``pause_at``, stopped just before that file is renamed, once the
    temporary files of those ``readied`` are written."""
    command = ["-c", PAUSING_BUILD, pause_at, ",".join(readied)] if pause_at else ["-m", "ankibuild"]
    process = subprocess.Popen(
        [sys.executable, *command, "build", *arguments],
        cwd=project.root,
        env=_environment(),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    if pause_at:
        _, status = os.waitpid(process.pid, os.WUNTRACED)
        assert os.WIFSTOPPED(status), f"the build ended before writing {pause_at}"
    return process


def _temporaries(project: Project) -> list[Path]:
    return sorted(path for folder in (project.out, project.decks) for path in folder.glob(".*.tmp"))


def _imports(package: Path, collection_path: Path) -> str:
    """Import a package into a fresh collection: every note arrives and a card renders; its explanation."""
    with collection(collection_path) as col:
        log = import_package(col, package)
        assert (log.new, col.note_count()) == (QUESTIONS, QUESTIONS)
        (card_id,) = col.find_cards('"ID:q7"')
        front, back = render(col, card_id)
        assert TEMPLATE_ERROR not in front + back
        return str(col.get_card(card_id).note()["Explanation"])


#: The order in which a build renames its files into place: packages, changelog, translations record, lock.
#: Each is in its temporary file before the first is renamed.
WRITES = ("big-de.apkg", "big-en.apkg", "CHANGELOG.md", TRANSLATIONS_FILE, LOCK_FILE)


@pytest.mark.parametrize("target", WRITES)
def test_a_build_killed_mid_write_leaves_every_output_whole(released: Project, tmp_path: Path, target: str) -> None:
    """SIGKILL with a complete temporary file not yet renamed: files before it are new, it and those after are old.

    Every package still imports, the lock file is the previous one, and the next
    build removes the stale temporary file and completes the work.
    """
    previous = snapshot(released.out, released.decks)
    waiting = WRITES[WRITES.index(target) :]
    process = _start(released, pause_at=target, readied=[name for name in waiting if name != target])
    temporaries = {temporary.name[1:].rsplit(".", 2)[0]: temporary for temporary in _temporaries(released)}
    assert sorted(temporaries) == sorted(waiting) and temporaries[target].stat().st_size > 0
    process.kill()
    assert process.wait() == -signal.SIGKILL

    done = WRITES[: WRITES.index(target)]
    for path, (content, mtime) in previous.items():
        changed = (path.read_bytes(), path.stat().st_mtime_ns) != (content, mtime)
        assert changed == (path.name in done), path
    for lang in LANGS:
        explanation = _imports(released.out / f"big-{lang}.apkg", tmp_path / f"killed-{lang}.anki2")
        assert explanation == ("Second wording 7." if f"big-{lang}.apkg" in done else "First wording 7.")

    rebuilt = CliRunner().invoke(main, ["build"])
    assert rebuilt.exit_code == 0, rebuilt.output
    assert _temporaries(released) == []
    assert _imports(released.out / "big-de.apkg", tmp_path / "rebuilt.anki2") == "Second wording 7."
    settled = snapshot(released.out, released.decks)
    assert CliRunner().invoke(main, ["build"]).exit_code == 0
    assert snapshot(released.out, released.decks) == settled  # the lock and the outputs agree


def test_ctrl_c_mid_write_removes_the_temporary_file_and_keeps_the_previous_outputs(released: Project) -> None:
    """Ctrl-C (SIGINT) during a write: the build stops, cleans up its temporary file, changes nothing."""
    previous = snapshot(released.out, released.decks)
    process = _start(released, pause_at="big-de.apkg")
    process.send_signal(signal.SIGINT)
    process.send_signal(signal.SIGCONT)
    _, stderr = process.communicate()
    assert process.returncode == INTERRUPTED, stderr
    assert stderr.decode().splitlines() == [
        "Interrupted: every file is as it was or whole and new; run the command again."
    ]
    assert _temporaries(released) == []
    assert snapshot(released.out, released.decks) == previous


def test_ctrl_c_while_the_records_are_written_ahead_leaves_no_temporary_file(
    released: Project, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Ctrl-C while the build waits for the records it writes ahead (a busy disk, still writing them): the build
    stops once they are written, removes them, and keeps the previous records beside the bank."""
    records = [released.out / "CHANGELOG.md", released.decks / TRANSLATIONS_FILE, released.decks / LOCK_FILE]
    previous = {path: path.read_bytes() for path in records}
    readying = atomic.Ahead.ready

    def slowly(ahead: atomic.Ahead) -> None:
        time.sleep(0.3)
        readying(ahead)

    def interrupted(pool: Executor, done: list[Future[object]]) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(atomic.Ahead, "ready", slowly)
    monkeypatch.setattr(target, "_joined", interrupted)
    result = CliRunner().invoke(main, ["build"])
    assert result.exit_code == INTERRUPTED, result.output
    assert _temporaries(released) == []
    assert {path: path.read_bytes() for path in records} == previous


def test_a_second_build_waits_then_gives_up_with_a_clear_message(released: Project) -> None:
    """While one build holds the bank, another waits `--wait` seconds and exits 1; afterwards it runs."""
    holder = _start(released, pause_at="big-de.apkg")
    try:
        waiting = _start(released, "--wait", "0.2")
        _, stderr = waiting.communicate()
        assert waiting.returncode == 1
        assert b"another build of decks is running" in stderr and b"--wait" in stderr
    finally:
        holder.send_signal(signal.SIGCONT)
    holder.communicate()
    assert holder.returncode == 0
    again = _start(released)
    stdout, _ = again.communicate()
    assert again.returncode == 0 and b"No changes since the last build." in stdout


def test_two_builds_started_together_both_succeed_and_agree(released: Project, tmp_path: Path) -> None:
    """Two real builds at once: one waits for the other; the outputs import and the lock matches them."""
    first, second = _start(released), _start(released)
    for process in (first, second):
        _, stderr = process.communicate()
        assert process.returncode == 0, stderr
    assert _temporaries(released) == []
    assert _imports(released.out / "big-en.apkg", tmp_path / "c.anki2") == "Second wording 7."
    settled = snapshot(released.out, released.decks)
    assert CliRunner().invoke(main, ["build"]).exit_code == 0
    assert snapshot(released.out, released.decks) == settled
