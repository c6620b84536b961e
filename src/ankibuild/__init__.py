"""ankibuild: multilingual multiple-choice Anki decks from a YAML question bank."""

from __future__ import annotations

from .build import BuildResult, Output, build, check
from .errors import AnkibuildError, BankError, Problem

__all__ = ["AnkibuildError", "BankError", "BuildResult", "Output", "Problem", "build", "check"]
__version__ = "0.1.0"
