"""ankibuild: multilingual multiple-choice Anki decks from a YAML question bank."""

from __future__ import annotations

from .build import BuildResult, Output, build, check
from .errors import AnkibuildError, BankError, Problem
from .importer import ImportResult, import_pages

__all__ = [
    "AnkibuildError",
    "BankError",
    "BuildResult",
    "ImportResult",
    "Output",
    "Problem",
    "build",
    "check",
    "import_pages",
]
__version__ = "0.1.0"
