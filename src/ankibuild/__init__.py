"""ankibuild: multilingual multiple-choice Anki decks from a YAML question bank.

The public names are imported on first use, so that ``ankibuild build`` with
nothing to do does not pay for loading the whole pipeline.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from .version import __version__

if TYPE_CHECKING:
    from .api import build
    from .errors import AnkibuildError, BankError, Problem
    from .importer.bank import ImportResult, import_pages
    from .importer.quizbank import QuizImport, import_quizzes
    from .load.stage import check
    from .state import BuildResult, Output

_HOMES = {
    "AnkibuildError": "errors",
    "BankError": "errors",
    "BuildResult": "state",
    "ImportResult": "importer.bank",
    "Output": "state",
    "Problem": "errors",
    "build": "api",
    "check": "load.stage",
    "import_pages": "importer.bank",
    "QuizImport": "importer.quizbank",
    "import_quizzes": "importer.quizbank",
}
__all__ = [
    "AnkibuildError",
    "BankError",
    "BuildResult",
    "ImportResult",
    "Output",
    "Problem",
    "QuizImport",
    "__version__",
    "build",
    "check",
    "import_pages",
    "import_quizzes",
]


def __getattr__(name: str) -> Any:
    if name not in _HOMES:
        raise AttributeError(f"module 'ankibuild' has no attribute {name!r}")
    return getattr(importlib.import_module(f".{_HOMES[name]}", __name__), name)
