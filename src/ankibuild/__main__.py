"""The ``ankibuild`` program, and ``python -m ankibuild``."""

import gc


def main() -> None:
    """The ``ankibuild`` command (:func:`.command.run`), its modules loaded with the cycle collector off.

    The command turns the collector off for good; off before they are loaded, it does not walk what
    loading them makes, some fourteen times (3 ms).
    """
    gc.disable()
    from ankibuild.command import run

    run()


if __name__ == "__main__":
    main()
