"""Searches for Anki's browser that find exactly the notes they name.

In a search, ``*`` and ``_`` are wildcards, ``:`` ends a field's name and ``"``
ends a quoted term: a question id like ``layer_norm`` searched as typed would
also find ``layer-norm``. Each of these, and the backslash, is escaped with a
backslash; inside double quotes nothing else is special.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

_SPECIAL = frozenset('\\"*_:')


def term(key: str, value: str) -> str:
    """``key:value`` as one quoted term that matches ``value`` literally and whole."""
    escaped = "".join(f"\\{char}" if char in _SPECIAL else char for char in value)
    return f'"{key}:{escaped}"'


def notes_search(notetype_names: Sequence[str], question_ids: Iterable[str]) -> str:
    """A search for the notes of the note types named whose ``ID`` field is one of ``question_ids``."""
    ids = " OR ".join(term("ID", qid) for qid in question_ids)
    return f"{_any_of(notetype_names)} ({ids})"


def retired_search(notetype_names: Sequence[str], question_ids: Iterable[str]) -> str:
    """A search for the notes of the note types named whose ``ID`` field is none of ``question_ids``.

    Given every question of the bank now, it selects each question a classmate
    still has that was removed, in whatever publication, however many they
    skipped: it needs no history, and a question added back simply leaves it.
    The regular expression is one term, whatever the size of the bank; inside
    quotes Anki passes it on as written (``"`` aside, which no id holds).
    """
    ids = "|".join(re.escape(qid) for qid in sorted(set(question_ids)))
    return f'{_any_of(notetype_names)} -"ID:re:^(?:{ids})$"'


def _any_of(notetype_names: Sequence[str]) -> str:
    types = " OR ".join(term("note", name) for name in notetype_names)
    return types if len(notetype_names) == 1 else f"({types})"
