"""Output targets: what a build makes of the loaded bank, behind one small interface.

A target takes the bank as the loading stage gives it (:class:`~ankibuild.load.LoadedBank`:
read, validated and rendered) and plans everything it would write before
anything is written, so that a problem any target finds leaves every file as it
was. The plan then writes each file to its temporary, and the build puts them
all in place once every one is written. The Anki packages (:mod:`ankibuild.anki.target`) and
the preview page (:mod:`ankibuild.preview`) are targets; another output is one
more class with these two methods, and no edit of the stages before it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol, TypeVar

if TYPE_CHECKING:
    from .atomic import Waiting
    from .errors import Problems
    from .load.stage import LoadedBank
    from .model import Bank

#: What a target says it wrote.
Written = TypeVar("Written", covariant=True)


class Plan(Protocol[Written]):
    """Everything one target will write, computed; nothing written yet."""

    def write(self, waiting: Waiting) -> Written:
        """Ready what was planned in ``waiting``, leaving alone every file whose bytes would not change: the build
        puts the files of every target in place together, once all are readied."""
        ...


class Target(Protocol[Written]):
    """An output of the bank."""

    def check(self, bank: Bank, problems: Problems) -> None:
        """Add what this target finds wrong with the bank, to be reported with every other problem."""
        ...

    def plan(self, loaded: LoadedBank) -> Plan[Written]:
        """What this target would write for the loaded bank; raises :class:`BankError` when it cannot."""
        ...
