"""Modification times: moved exactly when content changes, always forward, never waiting."""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from ankibuild.cache import write_columns
from ankibuild.errors import BankError, Problems
from ankibuild.load.render import NoteHead
from ankibuild.lock import format
from ankibuild.lock.clock import WRONG_CLOCK, Clock
from ankibuild.lock.format import LOCK_FILE, Lock, NoteLock, read_lock
from ankibuild.lock.memo import _memo_key as memo_key
from ankibuild.lock.memo import recall, remember
from ankibuild.lock.plan import LockPlan
from ankibuild.lock.stamp import Stamp, _wrong_times, stamp_notes
from ankibuild.options import BuildOptions

from ..conftest import Project


def _row(guid: str, digest: str) -> NoteHead:
    return NoteHead(guid, "q", "de", "deck", (), digest, digest[:8], "choice", (0,))


def test_a_change_in_the_same_second_gets_the_next_second_at_once() -> None:
    """Two builds in one second: the edited note's time still moves forward, without waiting."""
    clock = Clock(lambda: 1_000.2)
    entries, _ = stamp_notes([_row("g", "aaaa")], Lock(notes={}), clock)
    assert entries["g"].mtime == 1_000
    entries, stamps = stamp_notes([_row("g", "bbbb")], Lock(notes=entries), clock)
    assert entries["g"].mtime == 1_001 and stamps == {"g": Stamp.CHANGED}


@pytest.mark.parametrize("skew", [86_400, -86_400, -1_700_000_000])
def test_a_wrong_clock_never_makes_a_time_go_backwards(skew: int) -> None:
    """A lock written by a clock a day ahead, or behind, or stuck in 1970: each change is newer, at once."""
    now = 1_800_000_000
    ahead = Clock(lambda: now + skew)
    entries, _ = stamp_notes([_row("g", "aaaa")], Lock(notes={}), ahead)
    right = Clock(lambda: now)
    for digest in ("bbbb", "cccc", "aaaa"):  # an edit, another, and a revert
        previous = entries["g"].mtime
        entries, stamps = stamp_notes([_row("g", digest)], Lock(notes=entries), right)
        assert entries["g"].mtime == max(now, previous + 1) and stamps == {"g": Stamp.CHANGED}


def test_unchanged_content_keeps_its_time_and_new_notes_get_now() -> None:
    """Only changed or new notes get a new time; the rest keep theirs."""
    lock = Lock(notes=stamp_notes([_row("g", "aaaa")], Lock(), Clock(lambda: 100))[0])
    entries, stamps = stamp_notes([_row("g", "aaaa"), _row("h", "cccc")], lock, Clock(lambda: 5_000))
    assert entries["g"].mtime == 100 and "g" not in stamps
    assert entries["h"].mtime == 5_000 and stamps == {"h": Stamp.NEW}


def test_a_note_keeps_its_very_entry_until_its_digest_question_or_language_differs() -> None:
    """The entry of a note as the lock has it is kept, the object itself (later passes tell a change by
    identity); one moved under another question or language keeps its time there; a changed one is restamped."""
    old = {guid: NoteLock(guid, "q", "de", guid * 4, "p", 100) for guid in "abcd"}
    notes = [
        _row("a", "aaaa"),
        _row("b", "bbbb")._replace(question_id="r"),
        _row("c", "cccc")._replace(lang="fr"),
        _row("d", "eeee"),
        _row("e", "eeee"),
    ]
    entries, stamps = stamp_notes(notes, Lock(notes=old), Clock(lambda: 5_000))
    assert entries["a"] is old["a"]
    assert entries["b"] == old["b"]._replace(question="r") and entries["c"] == old["c"]._replace(lang="fr")
    assert (entries["d"].mtime, entries["e"].mtime) == (5_000, 5_000)
    assert stamps == {"d": Stamp.CHANGED, "e": Stamp.NEW} and list(entries) == ["a", "b", "c", "d", "e"]


def test_source_date_epoch_sets_only_the_first_build(monkeypatch: pytest.MonkeyPatch) -> None:
    """SOURCE_DATE_EPOCH makes a first build reproducible; later changes use the clock."""
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1700000000")
    clock = Clock(lambda: 1_800_000_000.0)
    first, _ = stamp_notes([_row("g", "aaaa")], Lock(), clock)
    assert first["g"].mtime == 1_700_000_000
    later, _ = stamp_notes([_row("g", "bbbb"), _row("h", "cccc")], Lock(notes=first), clock)
    assert later["g"].mtime == later["h"].mtime == 1_800_000_000


@pytest.mark.parametrize("epoch", ["²", "\u0661\u0667" + "\u0660" * 8, "99999999999999999999", "-1", "17e8", ""])
def test_a_source_date_epoch_that_is_no_time_is_the_clock(epoch: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Whatever the environment holds, the first build gets a time the lock accepts, never a traceback."""
    monkeypatch.setenv("SOURCE_DATE_EPOCH", epoch)
    first, _ = stamp_notes([_row("g", "aaaa")], Lock(), Clock(lambda: 1_800_000_000.0))
    assert first["g"].mtime == 1_800_000_000


def test_lock_file_is_one_line_per_note_in_a_stable_order(project: Project) -> None:
    """The lock diffs and merges well: a comment, a header, then one JSON object per notetype and note, sorted."""
    project.build()
    text = (project.decks / LOCK_FILE).read_text(encoding="utf-8")
    comment, *lines = text.splitlines()
    assert comment.startswith("# ")
    entries = [json.loads(line) for line in lines]
    assert entries[0] == {"ankibuild-lock": 2, "bank": "ai-stack"}
    assert [e["notetype"] for e in entries[1:4]] == ["de", "en", "fr"]
    keys = [(n["question"], n["lang"]) for n in entries[4:]]
    assert len(keys) == 18 and keys == sorted(keys)
    assert read_lock(project.decks / LOCK_FILE).dumps() == text


def test_a_lock_merged_line_by_line_keeps_the_newest_entry_of_each_note(tmp_path: Path) -> None:
    """What git's union merge leaves (both sides' lines, in any order) reads as the newest of each."""
    ours = Lock("b", {}, {"g": NoteLock("g", "q", "de", "aaaa", "aa", 5), "h": NoteLock("h", "r", "de", "cc", "c", 7)})
    theirs = Lock("b", {}, {"g": NoteLock("g", "q", "de", "bbbb", "bb", 9), "i": NoteLock("i", "s", "de", "d", "d", 3)})
    ours_lines, theirs_lines = ours.dumps().splitlines(), theirs.dumps().splitlines()
    path = tmp_path / LOCK_FILE
    path.write_text("\n".join([*ours_lines, *theirs_lines[2:][::-1]]) + "\n", encoding="utf-8")
    merged = read_lock(path)
    assert merged.notes == {**ours.notes, **theirs.notes}
    assert merged.notes["g"].mtime == 9


def _first_format(lock: Lock) -> str:
    """``lock`` as the first version wrote it: one JSON document, a line per note."""
    kinds = {t.key: json.loads(t.as_json()) for t in lock.notetypes.values()}
    for kind in kinds.values():
        del kind["notetype"]
    types = ",\n".join(f"  {json.dumps(lang)}: {json.dumps(kind)}" for lang, kind in kinds.items())
    notes = ",\n".join(f"  {n.as_json()}" for n in lock.notes.values())
    return f'{{\n"version": 1,\n"bank": "{lock.bank}",\n"notetypes": {{\n{types}\n}},\n"notes": [\n{notes}\n]\n}}\n'


def test_a_lock_in_the_first_format_is_read_and_written_anew(project: Project) -> None:
    """A bank locked by an earlier version keeps every time; its next build writes the line format."""
    project.build()
    path = project.decks / LOCK_FILE
    lock = read_lock(path)
    path.write_text(_first_format(lock), encoding="utf-8")
    assert read_lock(path) == lock
    result = project.build()
    assert result.lock_written and not result.changes
    assert read_lock(path) == lock and path.read_text(encoding="utf-8") == lock.dumps()


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
    remember(lock, _sha(path), memo)
    kept = partial(recall, memo)
    with monkeypatch.context() as parsing:
        parsing.setattr(json, "loads", partial(_refuse_lock_text, json.loads))  # restored, not parsed
        assert read_lock(path, kept) == lock
        assert read_lock(path, kept).recalled
    edited = Lock("bank", {}, {"g": NoteLock("g", "q", "de", "aaaa", "aa", 6)})
    path.write_text(edited.dumps(), encoding="utf-8")  # by hand: not the lock kept
    assert read_lock(path, kept) == edited
    assert not read_lock(path, kept).recalled
    remember(edited, _sha(path), memo)
    memo.write_bytes(memo.read_bytes()[:-8])  # the same file, but what was kept for it is damaged
    assert read_lock(path, kept) == edited
    assert not read_lock(path, kept).recalled


@pytest.mark.parametrize("known", ["", "not hexadecimal" * 4 + "abcd", "ab" * 32])
def test_a_lock_whose_digest_is_known_is_recalled_without_reading_the_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, known: str
) -> None:
    """Given its digest, the lock kept for it is recalled as it is; without a digest that can be one, the file is
    hashed to recall it; given another lock's digest, it is read: a digest known is of the file's bytes now."""
    lock = Lock("bank", {}, {"g": NoteLock("g", "q", "de", "aaaa", "aa", 5)})
    path, memo = tmp_path / LOCK_FILE, tmp_path / "kept" / "lock.memo"
    path.write_text(lock.dumps(), encoding="utf-8")
    remember(lock, _sha(path), memo)
    assert read_lock(path, partial(recall, memo), known=known) == lock
    assert read_lock(path, partial(recall, memo), known=known).recalled == (known != "ab" * 32)
    monkeypatch.setattr(format, "_sha256_inside", _not_read)
    monkeypatch.setattr(format, "read_inside", _not_read)
    assert read_lock(path, partial(recall, memo), known=_sha(path).hex()).recalled


def _not_read(path: Path, *_: object) -> None:
    raise AssertionError(f"{path} was read")


def _sha(path: Path) -> bytes:
    return hashlib.sha256(path.read_bytes()).digest()


def _refuse_lock_text(loads: Callable[[str | bytes], Any], text: str | bytes) -> Any:
    """``json.loads``, except for the text of a lock file (the kept lock is JSON too)."""
    if b'"version"' in (text.encode() if isinstance(text, str) else text):
        raise AssertionError("the lock file was parsed")
    return loads(text)


@pytest.mark.parametrize(
    "edit",
    [
        {"b": NoteLock("b", "q2", "de", "bbbb", "bb", 9)},  # one note changed
        {"a": NoteLock("a", "q1", "de", "cccc", "cc", 9), "c": NoteLock("c", "q3", "fr", "dddd", "dd", 9)},
        {"b": NoteLock("b", "q9", "de", "bbbb", "bb", 9)},  # moved to another question: another line order
        {"d": NoteLock("d", "q0", "de", "eeee", "ee", 9)},  # a note added
        {"e": NoteLock("e", "q2", "de", "eeee", "ee", 9)},  # two notes under one question and language
        {},
    ],
)
def test_a_lock_made_from_a_recalled_one_is_written_as_from_nothing(tmp_path: Path, edit: dict[str, NoteLock]) -> None:
    """The lines of the notes that changed, replaced in the kept lock's text, give the very text of a full write."""
    notes = [NoteLock("a", "q1", "de", "aaaa", "aa", 5), NoteLock("b", "q2", "de", "bbbb", "bb", 5)]
    lock = Lock("bank", {}, {n.guid: n for n in [*notes, NoteLock("c", "q3", "fr", "cccc", "cc", 5)]})
    path, memo = tmp_path / LOCK_FILE, tmp_path / "kept" / "lock.memo"
    path.write_text(lock.dumps(), encoding="utf-8")
    remember(lock, _sha(path), memo)
    before = read_lock(path, partial(recall, memo))
    assert before.recalled
    edited = Lock("bank", {}, {**dict(reversed(before.notes.items())), **edit})  # in another order
    assert edited.encoded(before, file=path.read_bytes()) == edited.dumps().encode()


#: Notes under few questions and languages: two under one are frequent.
_NOTES = st.lists(
    st.tuples(st.sampled_from(["q1", "q2", "q3"]), st.sampled_from(["de", "fr"]), st.sampled_from(["aa", "bb"])),
    min_size=1,
    max_size=6,
)
#: An edit: which note, its digest, whether its entry goes last, the question it goes under (None: its own).
_Edit = tuple[int, str, bool, str | None]
_EDITS = st.tuples(st.integers(0, 5), st.sampled_from(["aa", "cc"]), st.booleans(), st.sampled_from([None, "q1", "q4"]))


@settings(max_examples=150, deadline=None)
@given(notes=_NOTES, edits=st.lists(_EDITS))
# A note moved under another's question, kept in the memo's patch: two notes under one question from then on.
@example(notes=[("q1", "de", "aa"), ("q2", "de", "aa")], edits=[(1, "aa", False, "q1"), (0, "cc", True, None)])
def test_a_lock_edited_after_edits_is_written_as_from_nothing(
    notes: list[tuple[str, str, str]], edits: list[_Edit]
) -> None:
    """Build after build, each lock made from the recalled one (whole, or patched) has the very bytes of a full write.

    Each edit changes a note's digest, and with it its time, or keeps the note as it was (a new entry
    all the same, as stamping makes when a note moves), and may move it to another question; several
    notes may be under one question and language, before an edit or after it.
    """
    with tempfile.TemporaryDirectory() as folder:
        _edit_again_and_again(Path(folder), notes, edits)


def _edit_again_and_again(tmp_path: Path, notes: list[tuple[str, str, str]], edits: list[_Edit]) -> None:
    # Others, each under a question of its own: enough for the memo to keep an edit's notes as a patch.
    notes = [*notes, *((f"r{n}", "de", "aa") for n in range(16))]
    lock = Lock("bank", {}, {f"g{n}": NoteLock(f"g{n}", q, lang, d, d, 5) for n, (q, lang, d) in enumerate(notes)})
    path, memo = tmp_path / LOCK_FILE, tmp_path / "kept" / "lock.memo"
    path.write_text(lock.dumps(), encoding="utf-8")
    remember(lock, _sha(path), memo)
    for at, digest, moved, question in edits:
        before = read_lock(path, partial(recall, memo))
        assert before.recalled
        guid = list(before.notes)[at % len(before.notes)]
        old = before.notes[guid]
        entry = old._replace(digest=digest, mtime=old.mtime + 1) if old.digest != digest else old._replace()
        entry = entry._replace(question=question or entry.question)
        # Stamping puts the notes given a new entry last.
        others = {key: value for key, value in before.notes.items() if key != guid}
        edited = Lock("bank", {}, {**others, guid: entry} if moved else {**before.notes, guid: entry})
        plan = LockPlan.of(edited, BuildOptions(decks=tmp_path), before=before)
        assert plan.data == edited.dumps().encode()
        remember(edited, plan.sha, memo, before=before)
        path.write_bytes(plan.data)


def test_only_the_lines_of_the_notes_that_changed_are_replaced_while_the_file_is_the_one_recalled(
    tmp_path: Path,
) -> None:
    notes = [NoteLock("a", "q1", "de", "aaaa", "aa", 5), NoteLock("b", "q2", "de", "bbbb", "bb", 5)]
    lock = Lock("bank", {}, {note.guid: note for note in notes})
    path, memo = tmp_path / LOCK_FILE, tmp_path / "kept" / "lock.memo"
    path.write_text(lock.dumps(), encoding="utf-8")
    remember(lock, _sha(path), memo)
    before = read_lock(path, partial(recall, memo))
    edited = Lock("bank", {}, {**before.notes, "b": NoteLock("b", "q2", "de", "cccc", "cc", 6)})
    rewritten = edited._rewritten(before, path.read_bytes())
    assert rewritten == edited.dumps().encode()
    # The file changed since it was read (its first line here): every line is written.
    assert edited._rewritten(before, path.read_bytes().replace(b"#", b"%", 1)) is None


def test_a_changed_lock_of_the_same_size_is_written_without_reading_the_file_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The plan holds the file's bytes: the lock is compared with them, not with the file read once more."""
    lock = Lock("bank", {}, {"a": NoteLock("a", "q1", "de", "aaaa", "aa", 5)})
    path = tmp_path / LOCK_FILE
    path.write_bytes(lock.dumps().encode())
    edited = Lock("bank", {}, {"a": NoteLock("a", "q1", "de", "bbbb", "bb", 6)})
    plan = LockPlan.of(edited, BuildOptions(decks=tmp_path), before=lock)
    read: list[Path] = []
    original = Path.read_bytes

    def spy(self: Path) -> bytes:
        read.append(self)
        return original(self)

    monkeypatch.setattr(Path, "read_bytes", spy)
    assert plan.save(BuildOptions(decks=tmp_path))
    assert path not in read
    assert path.read_bytes() == edited.dumps().encode() and len(plan.data) == len(plan.file)


@pytest.mark.parametrize("guid", ["plain", "a\nb", "\ud800\udfff", "\udc80", "é\u2028", ""])
def test_a_kept_lock_gives_back_any_guid(tmp_path: Path, guid: str) -> None:
    """Whatever a GUID holds, the kept lock restores it as it was."""
    lock = Lock(
        "bank", {}, {guid: NoteLock(guid, "q", "de", "aaaa", "aa", 5), "g": NoteLock("g", "r", "de", "b", "", 6)}
    )
    path, memo = tmp_path / LOCK_FILE, tmp_path / "kept" / "lock.memo"
    path.write_text(lock.dumps(), encoding="utf-8")
    remember(lock, _sha(path), memo)
    kept = read_lock(path, partial(recall, memo))
    assert kept == lock
    assert kept.recalled


@pytest.mark.parametrize("odd", ['a"b', "c\\d", "é", "\x01", "\u2028", "\U0001f600", "\ud800"])
def test_each_note_line_is_the_json_of_its_entry_whatever_its_guid(tmp_path: Path, odd: str) -> None:
    """The lines written by hand are JSON's own, with or without a GUID to escape among plain ones."""
    notes = {guid: NoteLock(guid, "q", "de", "ab", "01 02", 7) for guid in ("plain", odd, "g")}
    path = tmp_path / LOCK_FILE
    for lock in (Lock("bank", {}, notes), Lock("bank", {}, {"plain": notes["plain"]})):
        assert lock.dumps().splitlines()[2:] == [json.dumps(note._asdict()) for note in lock.notes.values()]
        path.write_bytes(lock.encoded())
        assert read_lock(path) == lock


@pytest.mark.parametrize(("before", "warned"), [(1_800_000_000, False), (1_800_000_001, True), (100, True)])
def test_only_a_time_ahead_of_the_clock_or_before_anki_is_a_wrong_clock(before: int, warned: bool) -> None:
    """A note built in this very second and edited again within it had no wrong clock: no warning then."""
    problems = Problems()
    changed = [NoteLock("g", "q1", "de", "aaaa", "", before)]
    _wrong_times(changed, Clock(lambda: 1_800_000_000.4), problems, path=Path(LOCK_FILE))
    assert [("clock" in p.hint) for p in problems.items] == ([True] if warned else [])


def test_a_wrong_clock_is_told_by_the_build_that_changes_the_note_not_by_the_one_after(project: Project) -> None:
    """The warning is of what a build did: a rebuild that finds nothing changed did nothing, and tells nothing of it,
    as a build of the same bank with an empty cache does not."""
    project.build(clock=Clock(lambda: 1_800_000_000))  # a computer whose clock runs years ahead
    project.edit("ai-hardware.yaml", "Die arithmetische Intensität ist sehr niedrig", "Die Intensität ist niedrig")
    slow = Clock(lambda: 1_700_000_000)
    assert [w.check for w in project.build(clock=slow).warnings if w.check == WRONG_CLOCK] == [WRONG_CLOCK]
    assert [w for w in project.build(clock=slow).warnings if w.check == WRONG_CLOCK] == []


def _notes(count: int, mtime: int = 5) -> dict[str, NoteLock]:
    return {f"g{i}": NoteLock(f"g{i}", f"q{i:02}", "de", f"{i:04x}", "aa", mtime) for i in range(count)}


def _kept_and_restored(path: Path, memo: Path, lock: Lock, before: Lock | None) -> Lock:
    """``lock`` written and kept as a build keeps it, then restored as the next build restores it, never parsed."""
    path.write_text(lock.dumps(), encoding="utf-8")
    remember(lock, _sha(path), memo, before=before)
    with pytest.MonkeyPatch.context() as parsing:
        parsing.setattr(json, "loads", partial(_refuse_lock_text, json.loads))
        restored = read_lock(path, partial(recall, memo))
    assert restored == lock and restored.recalled
    return restored


def test_after_an_edit_only_the_notes_that_differ_from_the_lock_kept_whole_are_kept(tmp_path: Path) -> None:
    path, memo = tmp_path / LOCK_FILE, tmp_path / "kept" / "lock.memo"
    before = _kept_and_restored(path, memo, Lock("bank", {}, _notes(20)), None)
    whole = memo.read_bytes()
    one = Lock("bank", {}, {**before.notes, "g3": NoteLock("g3", "q03", "de", "ffff", "bb", 9)})
    before = _kept_and_restored(path, memo, one, before)
    two = Lock("bank", {}, {**before.notes, "g7": NoteLock("g7", "q07", "de", "eeee", "", 9)})
    before = _kept_and_restored(path, memo, two, before)  # the first edit's note is kept again, beside the second's
    assert memo.read_bytes() == whole and before.kept is not None and before.kept[1] == {"g3", "g7"}
    # Many notes changed: the lock is kept whole again.
    _kept_and_restored(path, memo, Lock("bank", {}, _notes(20, mtime=9)), before)
    assert memo.read_bytes() != whole


def test_the_lock_kept_whole_stays_young_while_edits_keep_notes_beside_it(tmp_path: Path) -> None:
    """The kept folder forgets what was not written for weeks: the lock kept whole is in use while notes are kept
    beside it, and must not be forgotten under them (every build after would parse the lock file again)."""
    path, memo = tmp_path / LOCK_FILE, tmp_path / "kept" / "lock.memo"
    before = _kept_and_restored(path, memo, Lock("bank", {}, _notes(20)), None)
    os.utime(memo, (1, 1))
    one = Lock("bank", {}, {**before.notes, "g3": NoteLock("g3", "q03", "de", "ffff", "bb", 9)})
    _kept_and_restored(path, memo, one, before)
    assert memo.stat().st_mtime > time.time() - 60


def test_notes_kept_for_another_lock_kept_whole_are_not_restored(tmp_path: Path) -> None:
    """Another lock kept whole since (another bank built with the same cache): the lock file is parsed."""
    path, memo = tmp_path / LOCK_FILE, tmp_path / "kept" / "lock.memo"
    before = _kept_and_restored(path, memo, Lock("bank", {}, _notes(20)), None)
    edited = Lock("bank", {}, {**before.notes, "g3": NoteLock("g3", "q03", "de", "ffff", "bb", 9)})
    _kept_and_restored(path, memo, edited, before)
    other = Lock("other", {}, _notes(3))
    remember(other, hashlib.sha256(other.dumps().encode()).digest(), memo)
    restored = read_lock(path, partial(recall, memo))
    assert restored == edited and not restored.recalled


@pytest.mark.parametrize(
    "notes",
    [
        [NoteLock("g3", "q03", "de", "ffff", "bb", 9)],  # as the build kept them: restored
        [NoteLock("g3", "q03", "de", "not hex", "bb", 9)],  # a value a lock file's line may not hold
        [NoteLock("g99", "q99", "de", "ffff", "bb", 9)],  # a note the lock kept whole lacks
        [NoteLock("g3", "q03", "de", "ffff", "bb", -1)],
    ],
)
def test_notes_kept_beside_the_lock_that_a_file_could_not_hold_are_not_restored(
    tmp_path: Path, notes: list[NoteLock]
) -> None:
    """What is kept beside the lock kept whole passes the checks a lock file's lines pass, and changes only notes."""
    path, memo = tmp_path / LOCK_FILE, tmp_path / "kept" / "lock.memo"
    before = _kept_and_restored(path, memo, Lock("bank", {}, _notes(20)), None)
    edited = Lock("bank", {}, {**before.notes, "g3": NoteLock("g3", "q03", "de", "ffff", "bb", 9)})
    _kept_and_restored(path, memo, edited, before)
    key, base = (
        memo_key(_sha(path)).hex(),
        memo_key(hashlib.sha256(Lock("bank", {}, _notes(20)).dumps().encode()).digest()),
    )
    *texts, mtimes = zip(*notes, strict=True)
    write_columns(memo.with_name("lock.memo.patch"), [key, base.hex(), list(mtimes)], texts)
    restored = read_lock(path, partial(recall, memo))
    assert restored == edited and restored.recalled == (notes == [edited.notes["g3"]])
