"""The kinds of question a bank may hold, by the name its questions give in ``kind:``.

Adding a kind is a module of this package, one line here, its templates, its
docs and its tests (see ``docs/architecture.md``).
"""

from __future__ import annotations

from .base import CardType, Kind, Reading
from .choice import Choice
from .cloze import Cloze
from .flashcard import Flashcard
from .truefalse import TrueFalse

#: Every kind, by name. A question without ``kind:`` is of the first.
KINDS: dict[str, Kind] = {kind.name: kind for kind in (Choice(), TrueFalse(), Flashcard(), Cloze())}
DEFAULT_KIND = "choice"

__all__ = ["DEFAULT_KIND", "KINDS", "CardType", "Kind", "Reading"]
