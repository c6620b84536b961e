"""Work done in a process forked from the build, while the build goes on with other work.

The forked process shares what the build loaded and has made so far, and only
its answer comes back, pickled through a pipe between the two: nothing else can
write there. Where a system cannot fork, or the process fails, the build does
the work itself, and fails as it must.
"""

from __future__ import annotations

import contextlib
import os
import pickle
import signal
from collections.abc import Callable, Iterable
from typing import NoReturn

#: Whether work may be forked at all: a profile of the build keeps every stage in its own process.
ALLOWED = True


def can_fork() -> bool:
    return ALLOWED and hasattr(os, "fork")


class Forked:
    """``work`` done in a process forked at once; ``after`` done there once its answer is sent.

    The answer is asked for with :meth:`answer`; the process is waited for with :meth:`wait`.
    Where no process can be forked (a limit on processes, or on memory), there is no answer.
    """

    def __init__(self, work: Callable[[], object], *, after: Callable[[], object] = lambda: None) -> None:
        self._pid, self._reading = 0, -1
        pipe = os.pipe()
        # Signals wait until each process is ready for them: the forked one must never run the caller's code.
        mask = signal.pthread_sigmask(signal.SIG_BLOCK, _HELD)
        try:
            self._fork(work, after, pipe=pipe, mask=mask)
        finally:
            self._unmask(mask)

    def _fork(
        self, work: Callable[[], object], after: Callable[[], object], *, pipe: tuple[int, int], mask: Iterable[int]
    ) -> None:
        """Fork the process that does ``work``, and hold it, its signals still held."""
        reading, writing = pipe
        pid = -1
        with contextlib.suppress(OSError):  # no process to be had: the caller does the work
            pid = os.fork()
        if pid == 0:
            _answer(work, after, pipe=pipe, mask=mask)
        if pid > 0:
            self._pid, self._reading = pid, reading
        os.close(writing)
        if pid < 0:
            os.close(reading)

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
        """What the work made, once it is sent; None if it failed (for the build to do it itself)."""
        if self._reading < 0:
            return None
        reading, self._reading = self._reading, -1
        with os.fdopen(reading, "rb") as pipe:
            sent = pipe.read()
        try:
            answer: object = pickle.loads(sent)
        except Exception:  # nothing sent, or not all of it: the process failed or was stopped
            return None
        return answer

    def wait(self) -> None:
        """Wait for the process to end, after what it does once its answer is sent."""
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


#: Signals held while a process is forked (see :class:`Forked`).
_HELD = {signal.SIGINT, signal.SIGTERM}


def _answer(
    work: Callable[[], object], after: Callable[[], object], *, pipe: tuple[int, int], mask: Iterable[int]
) -> NoReturn:
    """In the forked process: send what ``work`` made, do ``after``, and leave without running anything
    of the parent's (its signals, held until now, end this process alone)."""
    code, (reading, writing) = 1, pipe
    try:
        signal.pthread_sigmask(signal.SIG_SETMASK, mask)
        os.close(reading)
        with os.fdopen(writing, "wb") as sending:
            sending.write(pickle.dumps(work(), pickle.HIGHEST_PROTOCOL))
        after()
        code = 0
    finally:
        os._exit(code)  # leaving any other way would run the parent's cleanup a second time
