"""The ``ankibuild`` program, and ``python -m ankibuild``."""

import gc
import os
import sys
from pathlib import Path
from typing import NoReturn

from ankibuild import faults


def main() -> None:
    """The ``ankibuild`` command (:func:`.command.run`), its modules loaded with the cycle collector off.

    The command turns the collector off for good; off before they are loaded, it does not walk what
    loading them makes, some fourteen times (3 ms). Whatever stops it, at any moment, is said in one
    line (see :mod:`.faults`): the commands say what stops them themselves, this says the rest.
    """
    gc.disable()
    try:
        faults.stop_on_termination()
        _in_a_folder()
        from ankibuild.command import run

        run()
    except KeyboardInterrupt:
        _end(faults.INTERRUPTED_WORDS, faults.INTERRUPTED)
    except ImportError as missing:
        _end(f"Error: {faults.incomplete(missing)}", 1)
    except MemoryError:
        _end(f"Error: {faults.short_of('the memory it needs')}", 1)
    except OSError as err:
        _end(f"Error: {faults.of_system(err, os.fsdecode(err.filename) if err.filename else '')}", 1)
    except UnicodeEncodeError as err:
        if err.encoding.replace("-", "").lower() == "utf8":  # no fault of the machine's
            raise
        _end(f"Error: {faults.not_encoded(err.encoding)}", 1)


def _in_a_folder() -> None:
    """End the program if the folder it was started in was removed: every relative path is found from there."""
    try:
        Path.cwd()
    except FileNotFoundError:
        _end(f"Error: {faults.NO_FOLDER}", 1)


def _end(words: str, code: int) -> NoReturn:
    """End the program with ``code``, having said ``words`` (unless standard error is closed, or nobody reads it)."""
    try:
        cache = sys.modules.get("ankibuild.cache")  # loaded by then if a build made a private folder
        if cache is not None:
            cache.remove_scratch()
        faults.flush_output()
        if sys.stderr is not None:
            sys.stderr.write(f"{words}\n")
            sys.stderr.flush()
    finally:
        os._exit(code)  # what stopped it is said: nothing is left to tear down


if __name__ == "__main__":
    main()
