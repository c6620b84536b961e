"""The options of a build: one frozen object, made once from the command line or a library call.

Every stage reads the same object, and the record of a build keeps it as it
is (:meth:`BuildOptions.record`), so an option added here reaches all of them.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from functools import cached_property
from pathlib import Path

from .buildlock import DEFAULT_WAIT
from .cache import Cache
from .cards.folders import TemplateFolders
from .paths import DECKS, DIST

#: The export formats, by the name a bank's ``exports`` and ``ankibuild build --export`` give.
FORMATS: tuple[str, ...] = ("moodle-xml", "gift", "qti")
#: Marks an option that changes how a build goes, never what it makes (see :meth:`BuildOptions.record`).
_HOW = {"how": True}


@dataclass(frozen=True)
class BuildOptions:
    """What a build is asked to do, as ``ankibuild build`` and :func:`ankibuild.build` take it."""

    #: The bank folder.
    decks: Path = DECKS
    #: The bank's own templates folder as named; None looks for ``templates/`` beside the bank folder.
    templates: Path | None = None
    #: Where the packages and the changelog go.
    out: Path = DIST
    #: Only these languages; none means every language of the bank.
    languages: tuple[str, ...] = ()
    #: One package per deck and language instead of one per language.
    split: bool = False
    #: The exports to make (see :mod:`.export`); none means those the bank asks for.
    exports: tuple[str, ...] = ()
    #: Warnings fail the build as errors do.
    strict: bool = False
    #: A warning per question where a summary line would count them (it changes the warnings recorded).
    verbose: bool = False
    #: Fail instead of changing the lock (for CI).
    frozen: bool = field(default=False, metadata=_HOW)
    #: Write nothing into the bank folder (a publication is made from the commit as it is).
    leave_bank: bool = field(default=False, metadata=_HOW)
    #: Compute everything and write nothing.
    dry_run: bool = field(default=False, metadata=_HOW)
    #: Let a released note type change its fields or card types.
    allow_shape_change: bool = field(default=False, metadata=_HOW)
    #: Seconds to wait for another build of the same bank to finish.
    wait: float = field(default=DEFAULT_WAIT, metadata=_HOW)

    @cached_property
    def folders(self) -> TemplateFolders:
        """The template folders, looked for once: every stage of a build uses the same."""
        return TemplateFolders.for_bank(self.decks, self.templates)

    @cached_property
    def cache(self) -> Cache:
        """The bank's cache folder, made once: every stage of a build keeps and finds its entries there."""
        return Cache(self.decks)

    @property
    def leaves_bank(self) -> bool:
        """Whether the build leaves the lock and the translations record as they are."""
        return self.frozen or self.leave_bank

    def record(self) -> dict[str, object]:
        """The options that decide what a build makes, with their folders as absolute paths.

        The others are left out: a build that only checks (``dry_run``), that may not
        change the lock (``frozen``) or that may change a note type's shape makes,
        when it succeeds, the same packages as one without, so the build after it can
        still find that nothing changed. A new option counts unless it is marked as
        changing only how a build goes.
        """
        return {option.name: self._recorded(option.name) for option in fields(self) if not option.metadata.get("how")}

    def _recorded(self, name: str) -> object:
        if name == "templates":  # the folders as laid, whether named or found beside the bank
            return [str(root.resolve()) for root in self.folders.roots]
        value = getattr(self, name)
        return str(value.resolve()) if isinstance(value, Path) else value
