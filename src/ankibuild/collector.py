"""Pausing Python's cycle collector around work that makes many objects and no cycles."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def paused() -> Iterator[None]:
    """Pause the cycle collector, then restore it as it was.

    Parsing a bank and building from it make hundreds of thousands of small
    objects (values, notes, lock entries) that never form cycles: the collector
    would walk them over and over for nothing to free (some 8 % of a rebuild
    after one edit).
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()
