"""JSON Schemas (draft 2020-12) of the bank's files, so editors complete keys and flag mistakes.

They describe the shape of a file; ``ankibuild check`` remains the authority on
what spans files (declared topics, unique ids, the same number of options in
every language).
"""

from __future__ import annotations

from importlib import resources

QUESTIONS_SCHEMA = "questions.schema.json"
BANK_SCHEMA = "bank.schema.json"


def schema_text(*, bank: bool = False) -> str:
    """The schema of a question file, or of ``bank.yaml`` with ``bank``, as JSON text."""
    name = BANK_SCHEMA if bank else QUESTIONS_SCHEMA
    return (resources.files("ankibuild") / "schemas" / name).read_text(encoding="utf-8")
