"""What a command says when the machine stops it: one line, with what to do about it.

Nothing here loads another module of the program: :mod:`ankibuild.__main__`
says these at any moment, even while the program's modules are loading, and
the commands say them through click (see :func:`ankibuild.cli.ended`).
"""

from __future__ import annotations

import contextlib
import errno
import os
import signal
import sys
from types import FrameType
from typing import NoReturn

#: The exit code of a command interrupted (Ctrl-C, or a signal to end it), as shells report a process SIGINT ended.
INTERRUPTED = 130
#: What a command interrupted says: the files it was writing are removed, or were put in place whole.
INTERRUPTED_WORDS = "Interrupted: every file is as it was or whole and new; run the command again."
_WHOLE = "Every file is as it was or whole and new"
#: What a command says when a process of the build ended before its work was done: killed, or out of memory.
PROCESS_STOPPED = (
    "a process of the build stopped before its work was done (killed, or the machine ran out of memory). "
    f"{_WHOLE}; free some memory, then run the command again."
)

_RIGHTS = "get the right to read and write there (chmod, or ask its owner), or choose another folder"
#: What to do about an error of the system, by its name; the others ask to mend what it says.
_NAMED = {
    "ENOSPC": "make room on the disk",
    "EDQUOT": "make room within your disk quota",
    "EFBIG": "raise the limit on a file's size (ulimit -f) or make room",
    "EROFS": "choose a folder on a disk that can be written",
    "EACCES": _RIGHTS,
    "EPERM": _RIGHTS,
    "EMFILE": "raise the limit on open files (ulimit -n)",
    "ENFILE": "close some programs: the system has too many files open",
    "ENOMEM": "free some memory",
    "EISDIR": "move the folder that stands where the file goes",
    "ENOTDIR": "move the file that stands where a folder should be",
}
#: The same by number, for the names this system has.
_REMEDIES = {getattr(errno, name): remedy for name, remedy in _NAMED.items() if hasattr(errno, name)}


def flush_output() -> None:
    """Flush standard output and error before the process ends at once: whatever was printed is said first.
    Either may be closed (None when the command was started so) or refuse its bytes (a full disk)."""
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(OSError, ValueError, AttributeError):
            stream.flush()


#: The signals that end a command: Ctrl-C, and those of a CI job cancelled and a terminal closed (Windows has
#: no SIGHUP).
ENDING = tuple(getattr(signal, name) for name in ("SIGINT", "SIGTERM", "SIGHUP") if hasattr(signal, name))


def stop_on_termination() -> None:
    """End on SIGTERM and SIGHUP (a CI job cancelled, a terminal closed) as on Ctrl-C: the files being written
    are removed rather than left beside the bank. A signal the program was started to ignore stays ignored.

    A process forked from the command ends at once on any of them (see :func:`_as_forked`).
    """
    for number in ENDING[1:]:
        if signal.getsignal(number) is signal.SIG_DFL:
            signal.signal(number, _interrupt)
    if hasattr(os, "register_at_fork"):
        os.register_at_fork(after_in_child=_as_forked)


def _interrupt(number: int, frame: FrameType | None) -> NoReturn:
    raise KeyboardInterrupt


def _as_forked() -> None:
    """In a process just forked from the command (a worker, a package's process): the signals that end the
    command end it at once, as any process. Raised there as Ctrl-C is, they would run the command's code in it:
    a worker waiting for work printed a traceback, and one at work sent the interruption back as its result and
    went on, left running once the command ended, holding the bank's lock. The command alone says what
    stopped it, and ends its processes.

    Nothing is held around the fork here: a signal the command was sent meanwhile would come in a hook, which
    drops what it raises. :class:`.forked.Forked` holds them itself.
    """
    for number in ENDING:
        if signal.getsignal(number) in (_interrupt, signal.default_int_handler):
            signal.signal(number, signal.SIG_DFL)


def of_system(err: OSError, name: str) -> str:
    """What to say of ``err``, which the system gave about the file ``name`` ("" for none)."""
    where = f"{name}: " if name else ""
    remedy = _REMEDIES.get(err.errno or 0, "mend what it says")
    return f"{where}{err.strerror or err}. {_WHOLE}; {remedy}, then run the command again."


def short_of(what: str) -> str:
    """What to say when the machine would not give the command ``what`` (memory, a thread)."""
    return (
        f"the machine would not give the command {what} (memory short, or a limit on memory or processes). "
        f"{_WHOLE}; free some memory or raise the limit (ulimit -v, ulimit -u), then run the command again."
    )


def thread_refused(error: RuntimeError) -> bool:
    """Whether ``error`` is the one Python raises when the system refuses it a thread."""
    return str(error) == "can't start new thread"


def not_encoded(encoding: str) -> str:
    """What to say when a file's name or a text cannot be said in the system's ``encoding`` (a locale without
    UTF-8, with Python's UTF-8 mode turned off)."""
    return (
        f"a file's name or a text cannot be written in this system's encoding ({encoding}). {_WHOLE}; "
        "use a UTF-8 locale (for instance LC_ALL=C.UTF-8), then run the command again."
    )


def incomplete(missing: ImportError) -> str:
    """What to say when a module the command loads is missing: installed without its dependencies, or one of them
    removed since."""
    name = f"the module {missing.name!r}" if missing.name else "a module it needs"
    return (
        f"ankibuild cannot load {name} ({missing}): its installation is incomplete. Install it again with "
        "its dependencies (pip install --force-reinstall ankibuild), then run the command again."
    )


#: What to say when the folder the command was started in was removed: no relative path can be found from it.
NO_FOLDER = (
    "the folder this command was started in no longer exists (it was removed or moved): go to your bank's folder "
    "again (cd), then run the command again."
)
