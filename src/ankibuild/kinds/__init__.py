"""The kinds of question a bank may hold, by the name its questions give in ``kind:``.

Adding a kind is a module of this package, one line here, its templates, its
docs and its tests (see ``docs/architecture.md``).
"""

from __future__ import annotations

from ..errors import NO_EXPLANATION
from .base import CardType, Kind, Reading
from .choice import Choice
from .cloze import Cloze
from .flashcard import Flashcard
from .truefalse import TrueFalse

#: Every kind, by name. A question without ``kind:`` is of the first.
KINDS: dict[str, Kind] = {kind.name: kind for kind in (Choice(), TrueFalse(), Flashcard(), Cloze())}
DEFAULT_KIND = "choice"
#: Every item-writing check, by name: what a question's ``allow`` accepts, whatever its kind.
CHECKS: tuple[str, ...] = (*dict.fromkeys(check for kind in KINDS.values() for check in kind.checks), NO_EXPLANATION)

__all__ = ["CHECKS", "DEFAULT_KIND", "KINDS", "CardType", "Kind", "Reading"]
