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
from collections.abc import Callable
from typing import NoReturn

#: Whether work may be forked at all: a profile of the build keeps every stage in its own process.
ALLOWED = True


def can_fork() -> bool:
    return ALLOWED and hasattr(os, "fork")


class Forked:
    """``work`` done in a process forked at once; ``after`` done there once its answer is sent.

    The answer is asked for with :meth:`answer`; the process is waited for with :meth:`wait`.
    """

    def __init__(self, work: Callable[[], object], *, after: Callable[[], object] = lambda: None) -> None:
        reading, writing = os.pipe()
        self._pid = os.fork()
        if self._pid == 0:
            os.close(reading)
            _answer(writing, work, after)
        os.close(writing)
        self._reading = reading

    def answer(self) -> object | None:
        """What the work made, once it is sent; None if it failed (for the build to do it itself)."""
        reading, self._reading = self._reading, -1
        with os.fdopen(reading, "rb") as pipe:
            sent = pipe.read()
        try:
            answer: object = pickle.loads(sent)
            return answer
        except Exception:  # nothing sent, or not all of it: the process failed or was stopped
            return None

    def wait(self) -> None:
        """Wait for the process to end, after what it does once its answer is sent."""
        pid, self._pid = self._pid, 0
        if pid:
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


def _answer(writing: int, work: Callable[[], object], after: Callable[[], object]) -> NoReturn:
    """In the forked process: send what ``work`` made, do ``after``, and leave without running anything
    of the parent's."""
    code = 1
    try:
        with os.fdopen(writing, "wb") as pipe:
            pipe.write(pickle.dumps(work(), pickle.HIGHEST_PROTOCOL))
        after()
        code = 0
    finally:
        os._exit(code)  # leaving any other way would run the parent's cleanup a second time
