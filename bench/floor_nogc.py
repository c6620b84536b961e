"""The floor with Python's cycle collector off while it builds.

The same script as :mod:`bench.floor`; only ``gc.disable()`` around the build
differs. A build that pauses the collector is measured against this one too,
so that it cannot come in under the floor by that alone.

    python -m bench.floor_nogc --decks DIR --out DIR
"""

from __future__ import annotations

import gc
from collections.abc import Sequence
from pathlib import Path

from . import floor
from .plain import script


def build(*, decks: Path, out: Path) -> list[Path]:
    gc.disable()
    try:
        return floor.build(decks=decks, out=out)
    finally:
        gc.enable()


def main(argv: Sequence[str] | None = None) -> None:
    script(build, "The floor, with the garbage collector off during the build.", argv)


if __name__ == "__main__":
    main()
