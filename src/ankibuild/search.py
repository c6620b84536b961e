"""Searches for Anki's browser that find exactly the notes they name.

In a search, ``*`` and ``_`` are wildcards, ``:`` ends a field's name and ``"``
ends a quoted term: a question id like ``layer_norm`` searched as typed would
also find ``layer-norm``. Each of these, and the backslash, is escaped with a
backslash; inside double quotes nothing else is special.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence

_SPECIAL = frozenset('\\"*_:')


def term(key: str, value: str) -> str:
    """``key:value`` as one quoted term that matches ``value`` literally and whole."""
    escaped = "".join(f"\\{char}" if char in _SPECIAL else char for char in value)
    return f'"{key}:{escaped}"'


def notes_search(by_notetype: Mapping[str, Sequence[str]]) -> str:
    """A search for the notes of each note type named whose ``ID`` field is one of the question ids it maps to.

    A question may have a note of each kind it has been (a removed one, the
    live one), so each id is searched under its own note type.
    """
    groups = [
        f"{term('note', name)} ({' OR '.join(term('ID', qid) for qid in ids)})" for name, ids in by_notetype.items()
    ]
    return groups[0] if len(groups) == 1 else " OR ".join(f"({group})" for group in groups)


def retired_search(by_notetype: Mapping[str, Iterable[str]]) -> str:
    """A search for the notes of each note type named whose ``ID`` field is none of the ids it maps to.

    Given every question of the bank now, under the note type of its kind, it
    selects each question a classmate still has that was removed (or whose
    kind changed), in whatever publication, however many they skipped: it
    needs no history, and a question added back simply leaves it. Each regular
    expression is one term, whatever the size of the bank; inside quotes Anki
    passes it on as written (``"`` aside, which no id holds).
    """
    groups = [f'{term("note", name)} -"ID:re:^(?:{_alternatives(ids)})$"' for name, ids in by_notetype.items()]
    return groups[0] if len(groups) == 1 else " OR ".join(f"({group})" for group in groups)


def _alternatives(question_ids: Iterable[str]) -> str:
    """The ids, sorted, as the alternatives of a regular expression that each match literally.

    Escaped as one text, joined by NUL (which ``re.escape`` leaves as it is):
    half the time of escaping 10,000 ids one by one, and the same text.
    """
    ids = sorted(set(question_ids))
    joined = "\0".join(ids)
    if joined.count("\0") != max(len(ids) - 1, 0):  # an id holding NUL itself: each is escaped alone
        return "|".join(map(re.escape, ids))
    return re.escape(joined).replace("\0", "|")
