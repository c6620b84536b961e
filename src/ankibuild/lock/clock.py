"""The times a build gives notes and notetypes: whole seconds, never waiting for the clock."""

from __future__ import annotations

import os
import time
from collections.abc import Callable

#: 2006-01-01: no note of a real build is older than Anki itself.
ANKI_EPOCH = 1_136_073_600
#: The latest time a lock may hold, in seconds (the year 2286): Anki keeps times as 64-bit integers.
MAX_TIME = 10**10
#: The check that warns of changed notes whose previous time came from a wrong clock (see :mod:`.stamp`).
WRONG_CLOCK = "wrong-clock"


class Clock:
    """Hands out modification times in whole seconds, and never waits.

    A changed note's time must be newer than its previous one. That one may lie
    ahead of this computer's clock (a classmate's clock was fast, or this one is
    slow): the new time then continues from it rather than waiting for the clock
    to catch up, which could take days while the build holds the bank's lock.

    ``SOURCE_DATE_EPOCH`` fixes the time of a bank's first build, so that it is
    reproducible from a clean checkout.
    """

    def __init__(self, now: Callable[[], float] = time.time) -> None:
        self._now = now

    def now(self) -> int:
        return int(self._now())

    def first(self) -> int:
        epoch = os.environ.get("SOURCE_DATE_EPOCH", "")
        # isdigit() alone lets through digits int() refuses, like '²'; a time the lock would refuse is no time
        seconds = int(epoch) if epoch.isascii() and epoch.isdigit() else None
        return seconds if seconds is not None and ANKI_EPOCH <= seconds <= MAX_TIME else self.now()

    def after(self, previous: int) -> int:
        """The current time, or the second after ``previous`` if that is not before it.

        Never past :data:`MAX_TIME`, which a lock may hold but never exceed: the
        next build must read what this one writes.
        """
        return min(max(self.now(), previous + 1), MAX_TIME)
