"""What the files' JSON Schemas and each kind's part of them share (see :mod:`.schema`)."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

#: A JSON Schema, or a part of one.
Schema = dict[str, Any]

#: Text as a card shows it; defined once in the questions schema.
TEXT: Schema = {"$ref": "#/$defs/text"}


@dataclass(frozen=True)
class Fragment:
    """A kind's part of the questions schema: the schema of the value of each key of its tables.

    ``question`` covers the keys the kind adds to a question, ``translation`` every
    key of its translations; which are required comes from the tables themselves.
    """

    question: Mapping[str, Schema]
    translation: Mapping[str, Schema]


def padded(*words: str) -> str:
    """A pattern for one of ``words``, with the spaces around it that ``check`` ignores."""
    return rf"^\s*(?:{'|'.join(re.escape(word) for word in words)})\s*$"
