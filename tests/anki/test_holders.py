"""The question files whose texts a package made from its last build unpacks: those of the notes that changed."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, cast

import pytest

from ankibuild.anki.spec import NoteKey
from ankibuild.anki.target import _holders
from ankibuild.load.deckfiles import FileResult


class _File:
    """A question file's result with the notes of the given GUIDs; one not to be looked at fails the test."""

    def __init__(self, guids: Sequence[str], *, looked_at: bool = True) -> None:
        self._guids, self._looked_at = guids, looked_at

    @property
    def notes(self) -> tuple[Any, ...]:
        if not self._looked_at:
            pytest.fail("the notes of a file that holds none of those wanted were looked at")
        return tuple(NoteKey(guid, "", 0, 0, 0, ()) for guid in self._guids)


def _file(guids: Sequence[str], *, looked_at: bool = True) -> FileResult:
    return cast(FileResult, _File(guids, looked_at=looked_at))


def _note(guid: str, deck: int) -> NoteKey:
    return NoteKey(guid, "digest", 1, deck, 7, (0,))


def test_the_file_of_a_notes_deck_is_found_without_looking_at_the_others() -> None:
    """After one edit, a process forked to make the package looks only at the one file's notes."""
    edited = _file(["b1", "b2"])
    files = {1: _file(["a1"], looked_at=False), 2: edited, 3: _file([], looked_at=False)}
    assert _holders(files, [_note("b2", 2)]) == [edited]


def test_a_note_not_in_its_decks_file_is_looked_for_in_every_file() -> None:
    """A cache entry forged to put a note in another deck does not lose the note's texts."""
    holder = _file(["b1"])
    files = {1: _file(["a1"]), 2: holder, 3: _file(["c1"])}
    assert _holders(files, [_note("b1", 3)]) == [holder]
    assert _holders(files, [_note("b1", 99)]) == [holder]  # a deck the package does not have
