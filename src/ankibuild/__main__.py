"""The ``ankibuild`` program, and ``python -m ankibuild``."""

import gc
import sys
from typing import NoReturn


def main() -> None:
    """The ``ankibuild`` command (:func:`.command.run`), its modules loaded with the cycle collector off.

    The command turns the collector off for good; off before they are loaded, it does not walk what
    loading them makes, some fourteen times (3 ms).
    """
    gc.disable()
    try:
        from ankibuild.command import run

        run()
    except ImportError as missing:
        _incomplete(missing)


def _incomplete(missing: ImportError) -> NoReturn:
    """An installation that lacks a module the command loads (installed without its dependencies, or one of them
    removed since) is a fault of the machine: said in one line, not a traceback, with how to mend it. Whatever
    the command had begun is left as any stopped command leaves it: every file as it was, or whole and new."""
    name = f"the module {missing.name!r}" if missing.name else "a module it needs"
    if sys.stderr is None:  # started with it closed: the exit code alone tells
        sys.exit(1)
    sys.stderr.write(
        f"Error: ankibuild cannot load {name} ({missing}): its installation is incomplete. Install it again with "
        "its dependencies (pip install --force-reinstall ankibuild), then run the command again.\n"
    )
    sys.exit(1)


if __name__ == "__main__":
    main()
