"""Modification times: moved exactly when content changes, never into the future."""

from __future__ import annotations

import json
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

import pytest

from ankibuild.errors import BankError
from ankibuild.lock import LOCK_FILE, Clock, Lock, NoteLock, read_lock, remember, stamp_notes
from ankibuild.render import NoteHead

from .conftest import Project


class FakeTime:
    """A wall clock that only moves when someone sleeps."""

    def __init__(self, now: float) -> None:
        self.now = now
        self.slept = 0.0

    def time(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.slept += seconds
        self.now += seconds


def _row(guid: str, digest: str) -> NoteHead:
    return NoteHead(guid, "q", "de", "deck", (), digest, digest[:8])


def test_a_change_in_the_same_second_waits_for_a_strictly_newer_time() -> None:
    """Two builds in one second: the edited note's time still moves forward, not into the future."""
    fake = FakeTime(1_000.2)
    clock = Clock(fake.time, fake.sleep)
    entries, _ = stamp_notes([_row("g", "aaaa")], Lock(notes={}), clock)
    lock = Lock(notes=entries)
    assert entries["g"].mtime == 1_000
    entries, stamps = stamp_notes([_row("g", "bbbb")], lock, clock)
    assert entries["g"].mtime == 1_001 and stamps["g"].status == "changed"
    assert fake.now >= 1_001 and fake.slept > 0  # it waited rather than stamping the future


def test_unchanged_content_keeps_its_time_and_new_notes_get_now() -> None:
    """Only changed or new notes get a new time; the rest keep theirs."""
    fake = FakeTime(5_000)
    lock = Lock(notes=stamp_notes([_row("g", "aaaa")], Lock(), Clock(lambda: 100, fake.sleep))[0])
    entries, stamps = stamp_notes([_row("g", "aaaa"), _row("h", "cccc")], lock, Clock(fake.time, fake.sleep))
    assert entries["g"].mtime == 100 and "g" not in stamps
    assert (entries["h"].mtime, stamps["h"].status) == (5_000, "new")
    assert fake.slept == 0


def test_source_date_epoch_sets_only_the_first_build(monkeypatch: pytest.MonkeyPatch) -> None:
    """SOURCE_DATE_EPOCH makes a first build reproducible; later changes use the clock."""
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1700000000")
    clock = Clock(lambda: 1_800_000_000.0)
    first, _ = stamp_notes([_row("g", "aaaa")], Lock(), clock)
    assert first["g"].mtime == 1_700_000_000
    later, _ = stamp_notes([_row("g", "bbbb"), _row("h", "cccc")], Lock(notes=first), clock)
    assert later["g"].mtime == later["h"].mtime == 1_800_000_000


def test_lock_file_is_one_line_per_note_in_a_stable_order(project: Project) -> None:
    """The lock diffs well: one line per note, sorted by question and language."""
    project.build()
    text = (project.decks / LOCK_FILE).read_text(encoding="utf-8")
    data = json.loads(text)
    note_lines = [line for line in text.splitlines() if '"guid"' in line]
    assert len(note_lines) == len(data["notes"]) == 18
    keys = [(n["question"], n["lang"]) for n in data["notes"]]
    assert keys == sorted(keys)
    assert read_lock(project.decks / LOCK_FILE).dumps() == text


def test_a_damaged_lock_is_an_error_that_says_how_to_recover(project: Project) -> None:
    """A lock that is not JSON stops the build with advice instead of restarting every time."""
    (project.decks / LOCK_FILE).write_text("{ not json", encoding="utf-8")
    with pytest.raises(BankError) as caught:
        project.build()
    (problem,) = caught.value.problems
    assert (problem.file, problem.line, problem.column) == (f"decks/{LOCK_FILE}", 1, 1)
    assert f"git checkout -- {project.decks / LOCK_FILE}" in problem.hint


def test_a_kept_lock_is_restored_only_while_the_file_is_the_one_kept(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The parsed lock kept in the cache stands in for the file only while the file is byte for byte the same."""
    lock = Lock("bank", {}, {"g": NoteLock("g", "q", "de", "aaaa", "aa", 5)})
    path, memo = tmp_path / LOCK_FILE, tmp_path / "kept" / "lock.memo"
    path.write_text(lock.dumps(), encoding="utf-8")
    remember(lock, path.read_bytes(), memo)
    with monkeypatch.context() as parsing:
        parsing.setattr(json, "loads", partial(_refuse_lock_text, json.loads))  # restored, not parsed
        assert read_lock(path, memo) == lock
        assert read_lock(path, memo).recalled
    edited = Lock("bank", {}, {"g": NoteLock("g", "q", "de", "aaaa", "aa", 6)})
    path.write_text(edited.dumps(), encoding="utf-8")  # by hand: not the lock kept
    assert read_lock(path, memo) == edited
    assert not read_lock(path, memo).recalled
    remember(edited, path.read_bytes(), memo)
    memo.write_bytes(memo.read_bytes()[:-8])  # the same file, but what was kept for it is damaged
    assert read_lock(path, memo) == edited
    assert not read_lock(path, memo).recalled


def _refuse_lock_text(loads: Callable[[str | bytes], Any], text: str | bytes) -> Any:
    """``json.loads``, except for the text of a lock file (the kept lock is JSON too)."""
    if b'"version"' in (text.encode() if isinstance(text, str) else text):
        raise AssertionError("the lock file was parsed")
    return loads(text)
