"""Work done in a process forked from the build, while the build goes on with other work.

The forked process shares what the build loaded and has made so far, and only
its answer comes back, pickled into a file in memory that only the two hold (a
process forked later closes it), its length told through a pipe between the two:
nothing else can write there. A second pipe tells the forked process when its
answer was taken, for what it may do only then. Where a system cannot fork, or
the process fails, the build does the work itself, and fails as it must.
"""

from __future__ import annotations

import contextlib
import mmap
import os
import pickle
import signal
from collections.abc import Callable, Iterable, Iterator
from typing import TYPE_CHECKING, Any, BinaryIO, NoReturn, TypeVar

from .faults import ENDING

if TYPE_CHECKING:
    from concurrent.futures import Executor, Future

T = TypeVar("T")

#: Whether work may be forked at all: a profile of the build keeps every stage in its own process.
ALLOWED = True


def can_fork() -> bool:
    return ALLOWED and hasattr(os, "fork")


def in_order(pool: Executor, work: Callable[..., T], *columns: Iterable[Any]) -> Iterator[T]:
    """What ``pool.map(work, *columns)`` gives, the work all handed to the pool at once; but the work not asked
    for yet is left for the pool's ``shutdown(cancel_futures=True)`` to cancel.

    ``map`` cancels it from this thread as soon as a result fails. Should a worker of a process pool have died
    (the machine out of memory, a signal to every process of the build), Python 3.11's pool ends the failed
    work meanwhile on its own thread, which the cancelling made fail: that thread stopped with a traceback
    before ending the other workers, which were left running once the command ended.
    """
    try:
        futures = [pool.submit(work, *arguments) for arguments in zip(*columns, strict=True)]
    except BaseException:  # stopped while the workers were being started
        pool_ended(pool, failed=True)
        raise
    futures.reverse()
    return _taken(pool, futures)


def _taken(pool: Executor, futures: list[Future[T]]) -> Iterator[T]:
    """The results of ``futures``, kept last first: the last one's first, each let go once it is taken (a
    package's bytes, a file's notes), as ``map`` lets them go."""
    while futures:
        yield _result(pool, futures.pop())


#: How long the build waits for a result of a pool before it looks whether a worker died meanwhile (seconds).
LOOK_AGAIN = 1.0


def _result(pool: Executor, future: Future[T]) -> T:
    """The result of ``future``, work of ``pool``; :class:`BrokenExecutor` once a worker of the pool is found dead.

    The kernel killing a worker out of memory as it sent its result left the pool's own thread waiting forever
    for the rest, the pool never found broken, and the build waiting for the result as long. A pool's workers
    live as long as it does (no pool here sets ``max_tasks_per_child``): one dead while work is due is a fault.
    """
    while True:
        try:
            # Only waits: the work's own error, a TimeoutError too (a file on a network disk), is given back, not
            # raised here, to be raised by result() below rather than taken for more waiting.
            future.exception(timeout=LOOK_AGAIN)
        except TimeoutError:
            if all(worker.is_alive() for worker in _workers(pool)):
                continue
            from concurrent.futures import BrokenExecutor

            raise BrokenExecutor("a worker of the pool ended before its work was done") from None
        return future.result()


def pool_ended(pool: Executor, *, failed: bool) -> None:
    """End ``pool``: once its work is all done, its workers leave and are waited for. Should the build have
    failed or been stopped first, the work not started is cancelled and the workers of a pool of processes are
    killed at once, the pool not waited for.

    A worker killed while it sent its result (a signal to every process of the build) left the pool's own
    thread waiting forever for the rest of it, and the build that waited for that thread.
    """
    if not failed:
        pool.shutdown()
        return
    # A pool of threads, or one shut down already, is waited for: a thread cannot be killed, nor leave a
    # result half sent.
    wait = getattr(pool, "_processes", None) is None
    for worker in _workers(pool):
        with contextlib.suppress(OSError, ValueError):  # ended already, or never started
            worker.kill()
    # The pool's thread reads the workers' results from a pipe this process holds open too: closed here, a
    # result cut short by a worker's end is an end there, not a wait for the rest for as long as this process
    # lives (a program that leaves the usual way waits for that thread).
    with contextlib.suppress(AttributeError, OSError):
        pool._result_queue._writer.close()  # type: ignore[attr-defined]
    pool.shutdown(wait=wait, cancel_futures=True)


def _workers(pool: Executor) -> list[Any]:
    """The processes of a pool of processes, as it keeps them (public only from Python 3.14 on, as its
    ``kill_workers``); none for a pool of threads."""
    processes: dict[int, Any] | None = getattr(pool, "_processes", None)
    return list((processes or {}).values())


class Forked:
    """``work`` done in a process forked at once; ``after`` done there once its answer is sent, and ``taken``
    once the caller took it, or can no longer (it ended): the process waits for that only to do ``taken``.

    The answer is asked for with :meth:`answer`; the process is waited for with :meth:`wait`.
    Where no process can be forked (a limit on processes, or on memory), there is no answer.
    """

    def __init__(
        self,
        work: Callable[[], object],
        *,
        after: Callable[[], object] = lambda: None,
        taken: Callable[[], object] | None = None,
    ) -> None:
        self._pid, self._reading, self._taking = 0, -1, -1
        pipe = os.pipe()
        try:
            told = os.pipe()
        except OSError:  # no file to be had: none left open
            for end in pipe:
                os.close(end)
            raise
        self._file = _memory_file()
        # Signals wait until each process is ready for them: the forked one must never run the caller's code.
        mask = signal.pthread_sigmask(signal.SIG_BLOCK, ENDING)
        try:
            self._fork(work, (after, taken), pipes=(pipe, told), mask=mask)
        finally:
            self._unmask(mask)

    def _fork(
        self,
        work: Callable[[], object],
        then: tuple[Callable[[], object], Callable[[], object] | None],
        *,
        pipes: tuple[tuple[int, int], tuple[int, int]],
        mask: Iterable[int],
    ) -> None:
        """Fork the process that does ``work``, then each of ``then`` (see :class:`Forked`), and hold it, its
        signals still held.

        Of the two pipes, the first takes its answer's length; the second tells it the answer was taken: this
        process closes its end then, and the forked one reads to the end of it.
        """
        (reading, writing), (waiting, taking) = pipes
        pid = -1
        with contextlib.suppress(OSError):  # no process to be had: the caller does the work
            pid = os.fork()
        if pid == 0:
            _answer(work, then, pipes=pipes, file=self._file, mask=mask)
        if pid > 0:
            self._pid, self._reading, self._taking = pid, reading, taking
            # From now on, a process forked has no use for them (see _forget_answers); held by one, the answer's
            # file would keep its memory, and the end telling it was taken would close only when that one ends.
            # (No thread of the build forks: one that forked between the pipe's making and here would hold it.)
            _ANSWERS.update(fd for fd in (self._file, taking) if fd >= 0)
        os.close(writing)
        os.close(waiting)
        if pid < 0:
            os.close(reading)
            os.close(taking)
            self._close_file()

    def _unmask(self, mask: Iterable[int]) -> None:
        """Let the signals held while forking come: a Ctrl-C pressed meanwhile is raised here, and the process,
        which its caller never gets, is stopped first (it did not see that Ctrl-C: it would go on working)."""
        try:
            signal.pthread_sigmask(signal.SIG_SETMASK, mask)
        except BaseException:
            self.stop()
            raise

    @property
    def pid(self) -> int:
        """The forked process's id; 0 where none was forked, or once it was waited for."""
        return self._pid

    def answer(self) -> object | None:
        """What the work made, once it is sent; None if it failed (for the build to do it itself).

        Only an answer taken is told to the process here: of one that failed, the caller decides whether the
        process does what it would once its answer was taken (it waits for it: see :meth:`wait`) or not (it
        stops it).
        """
        if self._reading < 0:
            return None
        reading, self._reading = self._reading, -1
        try:
            with os.fdopen(reading, "rb") as pipe:
                answer = _received(pipe.read(), self._file)
        except Exception:  # nothing sent, or not all of it: the process failed or was stopped
            return None
        finally:
            self._close_file()
        self._taken()
        return answer

    def _close_file(self) -> None:
        if self._file >= 0:
            _ANSWERS.discard(self._file)
            os.close(self._file)
            self._file = -1

    def _taken(self) -> None:
        """Tell the process its answer was taken (see :meth:`_fork`)."""
        if self._taking >= 0:
            _ANSWERS.discard(self._taking)
            os.close(self._taking)
            self._taking = -1

    def wait(self) -> None:
        """Wait for the process to end, after what it does once its answer is sent: its answer, not taken by
        now, can no longer be (see :class:`Forked`)."""
        self._taken()
        pid, self._pid = self._pid, 0
        if pid:
            with contextlib.suppress(ChildProcessError):  # ended and reaped already (children's ends ignored)
                os.waitpid(pid, 0)

    def stop(self) -> None:
        """Stop the work where it is, unless it is over, and wait for the process."""
        if self._pid:
            with contextlib.suppress(OSError):
                os.kill(self._pid, signal.SIGKILL)
            self.wait()
        if self._reading >= 0:  # the answer was not read
            os.close(self._reading)
            self._reading = -1
        self._close_file()


#: The files in memory of the answers of the processes forked from this one and not yet read, and the ends of the
#: pipes that tell each its answer was taken.
_ANSWERS: set[int] = set()


def _forget_answers() -> None:
    """In a process just forked: close the answer files and pipe ends it inherited, which are its parent's and
    another process's. Held open, each file would keep its answer's memory until this process ends too, and each
    pipe end would tell that process nothing until this one ended."""
    for file in _ANSWERS:
        with contextlib.suppress(OSError):
            os.close(file)
    _ANSWERS.clear()


os.register_at_fork(after_in_child=_forget_answers)

#: What an answer sent begins with: it is in the file in memory, its length follows; or it follows itself.
_IN_FILE, _IN_PIPE = b"F", b"P"


def _memory_file() -> int:
    """A file in memory only, for the answer, where the system has them (Linux); else -1.

    A package's 4 MB through a pipe of 64 KiB took 7 ms of the build's waiting (each side
    waits for the other some 60 times); from such a file under 1 ms, and the process goes on at once.
    """
    try:
        return os.memfd_create("ankibuild-answer", os.MFD_CLOEXEC)
    except (AttributeError, OSError):  # not on this system, or no file to be had: through the pipe
        return -1


def _answer(
    work: Callable[[], object],
    then: tuple[Callable[[], object], Callable[[], object] | None],
    *,
    pipes: tuple[tuple[int, int], tuple[int, int]],
    file: int,
    mask: Iterable[int],
) -> NoReturn:
    """In the forked process: send what ``work`` made, do ``then``'s first, its second once the answer was taken,
    and leave without running anything of the parent's (its signals, held until now, end this process alone)."""
    code, ((reading, writing), (waiting, taking)), (after, taken) = 1, pipes, then
    try:
        signal.pthread_sigmask(signal.SIG_SETMASK, mask)
        os.close(reading)
        os.close(taking)
        with os.fdopen(writing, "wb") as sending:
            _send(pickle.dumps(work(), pickle.HIGHEST_PROTOCOL), sending, file)
        after()
        if taken is not None:
            with os.fdopen(waiting, "rb") as told:
                told.read()  # nothing is written: it ends when the parent closes its end, or ends
            taken()
        code = 0
    finally:
        os._exit(code)  # leaving any other way would run the parent's cleanup a second time


def _send(answer: bytes, pipe: BinaryIO, file: int) -> None:
    """Send ``answer``: into ``file`` (see :func:`_memory_file`), its length through ``pipe``; through ``pipe``
    where there is no such file, or it could not be written (memory short)."""
    if file >= 0 and _written(answer, file):
        pipe.write(_IN_FILE + len(answer).to_bytes(8, "big"))
    else:
        pipe.write(_IN_PIPE)
        pipe.write(answer)


def _written(answer: bytes, file: int) -> bool:
    """Whether ``answer`` could be written whole into ``file``."""
    try:
        with os.fdopen(file, "wb", closefd=False) as written:
            written.write(answer)
    except OSError:
        return False
    return True


def _received(sent: bytes, file: int) -> object:
    """The answer :func:`_send` sent as ``sent``, read from ``file`` when it is there; raises an error for a part
    of one (the process ended while sending)."""
    how, told = sent[:1], sent[1:]
    if how == _IN_PIPE:
        return pickle.loads(told)
    if how != _IN_FILE or len(told) != 8 or file < 0:
        raise ValueError("no answer sent")
    length = int.from_bytes(told, "big")
    if os.fstat(file).st_size < length:  # read beyond its end, a mapped file ends the process
        raise ValueError("not all of the answer was written")
    # Unpickled where it lies: read into bytes of its own first, its pages were each faulted in anew (2 ms).
    with mmap.mmap(file, length, access=mmap.ACCESS_READ) as mapped:
        return pickle.loads(mapped)
