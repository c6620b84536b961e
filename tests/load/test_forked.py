"""After an edit, the edited question file is processed in a process of its own while the others are restored."""

from __future__ import annotations

import contextlib
import errno
import os
import signal
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from ankibuild import forked
from ankibuild.anki import target
from ankibuild.load import deckfiles
from ankibuild.lock.plan import LockPlan
from ankibuild.model import Bank

from ..conftest import Project

OLD = "Die arithmetische Intensität ist sehr niedrig"
EDITED = [("de", "elementwise-ops-memory-bound", "changed")]

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="processes are forked only where they can be")


def _processing(monkeypatch: pytest.MonkeyPatch, log: Path, *, in_child: Any = None) -> None:
    """Have every question file processed write down the process it was processed in; ``in_child`` is done
    first in any process but this one."""
    process, parent = deckfiles.process, os.getpid()

    def logged(bank: Bank, path: Path, *rest: Any, **options: Any) -> deckfiles.FileResult:
        if in_child is not None and os.getpid() != parent:
            in_child()
        with log.open("a") as written:
            written.write(f"{os.getpid()}\n")
        return process(bank, path, *rest, **options)

    monkeypatch.setattr(deckfiles, "process", logged)


@pytest.fixture
def two_files(project: Project) -> Project:
    """The bank with a second question file: one to restore while the other is processed."""
    text = (project.decks / "ai-hardware.yaml").read_text(encoding="utf-8")
    (project.decks / "more.yaml").write_text(text.replace("  - id: ", "  - id: copy-"), encoding="utf-8")
    return project


def _changes(project: Project) -> list[tuple[str, str, str]]:
    return [(c.lang, c.question, c.kind.value) for c in project.build().changes.items]


def test_the_edited_file_is_processed_in_another_process(
    two_files: Project, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    project = two_files
    project.build()
    log = tmp_path / "processes"
    _processing(monkeypatch, log)
    project.edit("ai-hardware.yaml", OLD, "Die Intensität ist gering")
    assert _changes(project) == EDITED
    processes = log.read_text().split()
    assert len(processes) == 1 and processes != [str(os.getpid())]


def _dies() -> None:
    os._exit(9)


def _fails() -> None:
    raise MemoryError


@pytest.mark.parametrize("failure", [_dies, _fails])
def test_work_the_other_process_could_not_do_is_done_by_the_build(
    two_files: Project, monkeypatch: pytest.MonkeyPatch, tmp_path: Path, failure: Any
) -> None:
    """Whatever made it fail then happens again in the build's process: an error of the bank is told there."""
    project = two_files
    project.build()
    log = tmp_path / "processes"
    _processing(monkeypatch, log, in_child=failure)
    project.edit("ai-hardware.yaml", OLD, "Die Intensität ist gering")
    assert _changes(project) == EDITED
    assert log.read_text().split() == [str(os.getpid())]
    monkeypatch.undo()
    assert _changes(project) == []  # what it made is what the next build finds


def _open_files() -> int:
    """How many files this process has open, where the system tells (Linux); else 0."""
    listed = Path("/proc/self/fd")
    return len(list(listed.iterdir())) if listed.is_dir() else 0


def _edited(project: Project, monkeypatch: pytest.MonkeyPatch) -> Project:
    """``project`` built once, then edited: its next build makes its one package in a forked process too."""
    project.build()
    monkeypatch.setattr(target, "PROCESS_NOTES", 0)
    project.edit("ai-hardware.yaml", OLD, "Die Intensität ist gering")
    return project


@contextlib.contextmanager
def _signal(number: int, handler: Any) -> Iterator[None]:
    previous = signal.signal(number, handler)
    try:
        yield
    finally:
        signal.signal(number, previous)


def _no_process(*_: Any) -> int:
    raise BlockingIOError(11, "Resource temporarily unavailable")


def test_where_no_process_can_be_forked_the_build_does_the_work(
    two_files: Project, monkeypatch: pytest.MonkeyPatch
) -> None:
    """At a limit on processes or memory: the same changes, and no file left open."""
    project = _edited(two_files, monkeypatch)
    monkeypatch.setattr(os, "fork", _no_process)
    before = _open_files()
    assert _changes(project) == EDITED
    assert _open_files() == before


def test_a_build_whose_ended_children_are_never_waited_for_still_builds(
    two_files: Project, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Some launchers leave the ends of children ignored (SIGCHLD): the system then takes them at once."""
    project = _edited(two_files, monkeypatch)
    with _signal(signal.SIGCHLD, signal.SIG_IGN):
        assert _changes(project) == EDITED


def _fails_meanwhile(*_: Any, **__: Any) -> None:
    raise RuntimeError("stopped meanwhile")


def _hung(*_: Any) -> None:
    raise AssertionError("the build hung")


def test_a_build_stopped_while_its_package_is_made_elsewhere_stops(
    two_files: Project, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The forked process is stopped, not left waiting for its answer to be read while the build waits for it."""
    project = _edited(two_files, monkeypatch)
    monkeypatch.setattr(LockPlan, "kept", _fails_meanwhile)
    with _signal(signal.SIGALRM, _hung), pytest.raises(RuntimeError, match="stopped meanwhile"):
        signal.alarm(60)
        try:
            project.build()
        finally:
            signal.alarm(0)


#: An answer as large as a package: more than a pipe holds at once.
_LARGE = bytes(range(256)) * 20_000


def _no_memory_file(*_: Any) -> int:
    raise OSError(38, "Function not implemented")


def _memory_short(*_: Any) -> bool:
    return False


@pytest.mark.parametrize(
    ("name", "failing"), [(None, None), ("memfd_create", _no_memory_file), ("_written", _memory_short)]
)
def test_an_answer_comes_back_whole_in_a_file_in_memory_or_else_through_the_pipe(
    monkeypatch: pytest.MonkeyPatch, name: str | None, failing: Any
) -> None:
    """Where the system has no file in memory, or the process cannot write the answer into it, the pipe takes it."""
    if name == "memfd_create":
        monkeypatch.setattr(os, name, failing, raising=False)
    elif name is not None:
        monkeypatch.setattr(forked, name, failing)
    before = _open_files()
    work = forked.Forked(lambda: _LARGE)
    assert work.answer() == _LARGE
    work.wait()
    assert _open_files() == before


def test_a_process_that_ends_before_telling_its_answer_has_none(monkeypatch: pytest.MonkeyPatch) -> None:
    """Written into the file in memory but never told: the build does the work itself."""
    written = forked._written

    def ends(answer: bytes, file: int) -> bool:
        written(answer, file)
        os._exit(9)

    monkeypatch.setattr(forked, "_written", ends)
    before = _open_files()
    work = forked.Forked(lambda: _LARGE)
    assert work.answer() is None
    work.wait()
    assert _open_files() == before


def _answer_files() -> int:
    """How many files in memory for answers this process holds."""
    found = 0
    for file in Path("/proc/self/fd").iterdir():
        with contextlib.suppress(OSError):  # the one that listed them is closed by now
            found += "ankibuild-answer" in str(file.readlink())
    return found


@pytest.mark.skipif(not hasattr(os, "memfd_create") or not Path("/proc/self/fd").is_dir(), reason="Linux only")
def test_a_process_forked_later_does_not_hold_an_earlier_answer() -> None:
    """A process forked while another's answer is not yet read holds its own file alone: held by it too, the
    other's answer would keep its memory until both ended."""
    first = forked.Forked(lambda: _LARGE)
    second = forked.Forked(_answer_files)
    assert second.answer() == 1  # its own
    assert first.answer() == _LARGE
    for work in (first, second):
        work.wait()


def _once(path: Path) -> Callable[[], None]:
    """Work that leaves ``path`` behind, for the test to see it was done."""
    return path.touch


def _over(work: forked.Forked) -> bool:
    """Whether the process of ``work`` ended, waited for within some seconds; never when it waits for ever."""
    for _ in range(200):
        pid, _status = os.waitpid(work.pid, os.WNOHANG)
        if pid:
            return True
        time.sleep(0.05)
    return False


def test_what_a_process_does_once_its_answer_is_taken_waits_for_it(tmp_path: Path) -> None:
    """``after`` is done as soon as the answer is sent, ``taken`` only once the caller took it."""
    sent, taken, before = tmp_path / "sent", tmp_path / "taken", _open_files()
    work = forked.Forked(lambda: _LARGE, after=_once(sent), taken=_once(taken))
    for _ in range(200):
        if sent.exists():
            break
        time.sleep(0.05)
    time.sleep(0.2)
    assert sent.exists() and not taken.exists()
    assert work.answer() == _LARGE
    assert _over(work) and taken.exists()
    assert _open_files() == before


def test_a_process_forked_later_keeps_no_earlier_one_waiting_for_its_answer_to_be_taken(tmp_path: Path) -> None:
    """Held by a process forked after it, the end of the pipe that tells the first one its answer was taken
    would close only when that one ends: the first would wait for it."""
    first = forked.Forked(lambda: 1, taken=_once(tmp_path / "first"))
    second = forked.Forked(lambda: 2, taken=_once(tmp_path / "second"))
    assert first.answer() == 1
    assert _over(first) and (tmp_path / "first").exists()
    assert second.answer() == 2
    assert _over(second) and (tmp_path / "second").exists()


def test_a_process_stopped_before_its_answer_is_taken_does_nothing_more(tmp_path: Path) -> None:
    before = _open_files()
    work = forked.Forked(lambda: 1, taken=_once(tmp_path / "taken"))
    work.stop()
    assert work.pid == 0 and not (tmp_path / "taken").exists()
    assert _open_files() == before and not forked._ANSWERS


def test_a_process_waited_for_without_its_answer_taken_ends(tmp_path: Path) -> None:
    """Its answer can no longer be taken: it does what it would then, and ends, rather than wait for ever."""
    before = _open_files()
    work = forked.Forked(lambda: 1, taken=_once(tmp_path / "taken"))
    pid = work.pid
    work.wait()
    assert (tmp_path / "taken").exists()
    with pytest.raises(ChildProcessError):
        os.waitpid(pid, os.WNOHANG)
    work.stop()  # the answer never read: its file and pipe closed
    assert _open_files() == before and not forked._ANSWERS


def test_a_process_whose_answer_could_not_be_taken_is_not_told_it_was(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Its answer sent whole but not read back here, the process is stopped: it does nothing it would once taken."""

    def unreadable(*_: Any) -> object:
        raise ValueError("not all of the answer was written")

    taken = tmp_path / "taken"
    work = forked.Forked(lambda: 1, taken=_once(taken))
    monkeypatch.setattr(forked, "_received", unreadable)
    assert work.answer() is None
    time.sleep(0.3)
    assert not taken.exists()
    work.stop()
    assert not taken.exists()


#: Set once the pool of the test below was handed all its work (an event its forked workers share).
_HANDED_OUT: list[Any] = []


def _interrupting(number: int) -> int:
    """A pool's work: the first, in the worker that does it, interrupts the process that handed it out and
    dies, as every process of a build does at a signal to all of them; the others wait for a worker."""
    if number == 0:
        _HANDED_OUT[0].wait(60)
        os.kill(os.getppid(), signal.SIGINT)
        os._exit(1)
    time.sleep(0.001)
    return number


def test_a_pool_whose_workers_die_as_the_build_is_interrupted_ends_them_all(monkeypatch: pytest.MonkeyPatch) -> None:
    """Interrupted while its workers die, with work still waiting: the pool's own thread ends that work, nothing
    cancels it from the build's thread meanwhile, no worker is left, and that thread ends. (``Executor.map``
    cancelled it there: on Python 3.11 the pool's thread then stopped with an error before ending the workers,
    the threads taking turns as often as here.)"""
    import multiprocessing
    import threading
    from concurrent.futures import ProcessPoolExecutor

    failed: list[type[BaseException]] = []
    monkeypatch.setattr(threading, "excepthook", lambda args: failed.append(args.exc_type))
    context = multiprocessing.get_context("fork")
    monkeypatch.setattr(sys.modules[__name__], "_HANDED_OUT", [context.Event()])
    previous, interval = signal.signal(signal.SIGINT, signal.default_int_handler), sys.getswitchinterval()
    pool = ProcessPoolExecutor(2, mp_context=context)
    try:
        results = forked.in_order(pool, _interrupting, range(10000))
        workers = list(pool._processes.values())
        sys.setswitchinterval(1e-6)
        with pytest.raises(KeyboardInterrupt):
            _HANDED_OUT[0].set()
            for _ in results:
                pass
    finally:
        manager = getattr(pool, "_executor_manager_thread", None)  # the pool's own thread
        forked.pool_ended(pool, failed=True)
        sys.setswitchinterval(interval)
        signal.signal(signal.SIGINT, previous)
    if manager is not None:  # done ending the work of the dead worker, or stopped by an error
        manager.join(10)
    for worker in workers:
        worker.join(5)
    assert failed == []
    assert not any(worker.is_alive() for worker in workers)
    assert manager is None or not manager.is_alive()  # a program leaving the usual way waits for it


def _killed_while_sending(number: int) -> bytes:
    """A pool's work whose worker the kernel kills, out of memory, once it has sent half of its result."""
    from multiprocessing import connection

    send = connection.Connection._send  # type: ignore[attr-defined]

    def half_sent(self: connection.Connection, data: bytes, *args: Any) -> None:
        if len(data) > 1 << 19:
            os.write(self.fileno(), bytes(data)[: len(data) // 2])
            os.kill(os.getpid(), signal.SIGKILL)
        send(self, data, *args)

    connection.Connection._send = half_sent  # type: ignore[attr-defined]  # in the worker alone: it was forked
    return bytes(1 << 20)  # sent in two parts: its length, then itself


def _waited(take: Callable[[], object], seconds: float) -> tuple[bool, list[BaseException]]:
    """Whether ``take``, done on a thread of its own, ended within ``seconds``, and what it raised: a build that
    waits forever fails the test rather than hangs it."""
    import threading

    raised: list[BaseException] = []

    def taking() -> None:
        try:
            take()
        except BaseException as error:
            raised.append(error)

    waiting = threading.Thread(target=taking, daemon=True)
    waiting.start()
    waiting.join(seconds)
    return not waiting.is_alive(), raised


def test_a_pool_whose_worker_is_killed_while_it_sends_a_result_is_found_broken() -> None:
    """The pool's own thread waits for the rest of that result forever and never finds the pool broken: the
    build finds the worker gone while it waits, and the pool ends."""
    import multiprocessing
    import threading
    from concurrent.futures import BrokenExecutor, ProcessPoolExecutor

    pool = ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("fork"))
    # Looked at before the pool is ended below: ending it breaks the pool anyway.
    ended, raised = _waited(lambda: list(forked.in_order(pool, _killed_while_sending, [0])), 30)
    manager: threading.Thread | None = getattr(pool, "_executor_manager_thread", None)  # the pool's own thread
    forked.pool_ended(pool, failed=True)
    assert ended
    assert len(raised) == 1 and isinstance(raised[0], BrokenExecutor), raised
    assert manager is not None
    manager.join(10)
    assert not manager.is_alive()


def _timed_out(number: int) -> int:
    raise TimeoutError(errno.ETIMEDOUT, "timed out", f"/mnt/network/{number}.yaml")


def test_work_that_fails_with_a_timeout_fails_the_build_with_it() -> None:
    """A worker's own TimeoutError (a file on a network disk that timed out) is the work's error, raised as it is:
    not taken for a result still to come, waited for again and again."""
    from concurrent.futures import ThreadPoolExecutor

    def take() -> None:
        with ThreadPoolExecutor(1) as pool:
            list(forked.in_order(pool, _timed_out, [0]))

    ended, raised = _waited(take, 10)
    assert ended
    assert len(raised) == 1 and isinstance(raised[0], TimeoutError) and raised[0].filename, raised
