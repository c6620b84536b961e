"""The notes a kept record holds: written as lines and numbers, read back as they were, or not at all."""

from __future__ import annotations

from array import array
from pathlib import Path

import pytest

from ankibuild.anki.kept import Kept, _differing, _packed
from ankibuild.anki.spec import NoteKey, NoteKeys
from ankibuild.cache import write_packed

NOTES = [
    NoteKey("a\ud800b", "0" * 64, 1_700_000_000, 1 << 62, 7, (0,)),
    NoteKey("c,d\"e'", "1" * 64, 0, -3, 7, ()),
    NoteKey("ü", "2" * 64, 5, 2, 8, (0, 1, 4)),
]
ORDER = [bytes(32).hex()]


def _read(tmp_path: Path, length: object, notes: list[bytes]) -> list[list[object]] | None:
    write_packed(tmp_path / "p.record", ["frame", "d" * 64, ORDER, length, None], [*notes, b"piece"])
    record = Kept(tmp_path, "p").read()
    return None if record is None else record.columns


@pytest.mark.parametrize("notes", [NOTES, NOTES[:1], []])
def test_notes_are_read_back_as_they_were_kept(notes: list[NoteKey], tmp_path: Path) -> None:
    packed = _packed(NoteKeys.of(notes))
    assert packed is not None
    columns = [[*column] for column in zip(*notes, strict=True)] or [[] for _ in range(6)]
    assert _read(tmp_path, len(notes), packed) == [*columns[:5], [list(cards) for cards in columns[5]]]


def test_a_guid_with_a_line_break_is_not_kept() -> None:
    assert _packed(NoteKeys.of([NOTES[0]._replace(guid="a\nb")])) is None


def _numbers(*values: int) -> bytes:
    return array("q", values).tobytes()


@pytest.mark.parametrize(
    ("length", "notes"),
    [
        (2, [b"a\nb", b"d\ne", _numbers(1, 2, 3, 1)]),  # fewer numbers than two notes have
        (1, [b"a\nb", b"d", _numbers(1, 2, 3, 1, 0)]),  # two GUIDs for one note
        (1, [b"a", b"d", _numbers(1, 2, 3, 2, 0)]),  # fewer cards than counted
        (1, [b"a", b"d", _numbers(1, 2, 3, -1, 0, 0)]),  # a count below none
        (1, [b"a", b"d", _numbers(1, 2, 3, 1, 0)[:-1]]),  # a number cut short
        (1, [b"a", b"\xff", _numbers(1, 2, 3, 1, 0)]),  # not a text
        (1.0, [b"a", b"d", _numbers(1, 2, 3, 1, 0)]),  # not a number of notes
        (-1, [b"a", b"d", _numbers(1, 2, 3, 1, 0)]),
        (1, [b"a", b"d"]),  # notes of another shape: the piece taken for numbers
    ],
)
def test_notes_not_as_kept_make_the_record_unused(length: object, notes: list[bytes], tmp_path: Path) -> None:
    assert _read(tmp_path, 1, [b"a", b"d", _numbers(1, 2, 3, 1, 0)]) == [["a"], ["d"], [1], [2], [3], [[0]]]
    assert _read(tmp_path, length, notes) is None


@pytest.mark.parametrize("changed", [[], [1], [256], [257], [256, 257, 513], [700], [1000]])
def test_the_notes_that_differ_are_found_in_any_block(changed: list[int]) -> None:
    """Compared a block at a time: a note that differs at either end of a block, or in the last, short one."""
    before = [[place] for place in range(1000)]
    after = [[-place - 1] if place + 1 in changed else [place] for place in range(1000)]
    assert list(_differing(before, after, 1000)) == changed
    assert list(_differing(before, after, 600)) == [place for place in changed if place <= 600]
