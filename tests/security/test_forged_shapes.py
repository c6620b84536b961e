"""A cached entry whose digest holds but whose values are of another type or beyond bounds is a miss.

The cache's digest tells a damaged entry, not a forged one: whoever can write a
shared cache folder can write an entry the cache's way, holding values of any
type. Each case below writes one such entry, then builds after an edit: the
build does the work again and succeeds, as without the entry.
"""

from __future__ import annotations

import copy
import shutil
from collections.abc import Callable
from typing import Any

import pytest

from ankibuild.cache import Cache, pack, pack_columns, unpack, unpack_columns
from ankibuild.load.deckfiles import _SHARED, _TEXT_COLUMNS
from ankibuild.lock.clock import MAX_TIME
from ankibuild.lock.format import LOCK_FILE, read_lock

from ..conftest import KIND_EXAMPLES, ROOT, Project

EDIT = ("ai-hardware.yaml", "Die arithmetische Intensität", "Die Intensität")
#: Far beyond any time a lock or package holds: 2**62 seconds.
FAR_AHEAD = 2**62

Change = Callable[[list[Any]], list[Any]]


def _lock_memo(change: Change) -> Callable[[Project], None]:
    """The kept lock, its header (key, bank, note types, times) changed."""

    def forge(project: Project) -> None:
        memo = Cache(project.decks).kept / "lock.memo"
        header, texts = unpack_columns(memo.read_bytes())
        memo.write_bytes(pack_columns(change(list(header)), texts))

    return forge


def _lock_memo_checksums(parts: str) -> Callable[[Project], None]:
    """The kept lock, every note's checksums (the last of its columns of texts) made ``parts``."""

    def forge(project: Project) -> None:
        memo = Cache(project.decks).kept / "lock.memo"
        header, texts = unpack_columns(memo.read_bytes())
        *others, checksums = texts
        memo.write_bytes(pack_columns(header, [*others, [parts] * len(checksums)]))

    return forge


def _published(change: Change) -> Callable[[Project], None]:
    """Each kept reading of a package, its header (key, times, note types) changed."""
    return _kept_entries("published-*.memo", change, columns=True)


def _kept_record(change: Change) -> Callable[[Project], None]:
    """Each package's kept record, its header (frame, digest, order of pieces, number of notes) changed.

    Its notes' lines and numbers forged are read in ``tests/anki/test_kept_record.py``.
    """
    return _kept_entries("*.record", change, columns=False)


def _kept_entries(pattern: str, change: Change, *, columns: bool) -> Callable[[Project], None]:
    """Each entry of the kept folder that ``pattern`` names, its header changed; ``columns``: packed in columns."""
    read: Callable[[bytes], tuple[Any, Any]] = unpack_columns if columns else unpack
    write: Callable[[Any, Any], bytes] = pack_columns if columns else pack

    def forge(project: Project) -> None:
        entries = list(Cache(project.decks).kept.glob(pattern))
        assert entries
        for entry in entries:
            header, rest = read(entry.read_bytes())
            entry.write_bytes(write(change(list(header)), rest))

    return forge


def _file_results(change: Callable[[dict[str, Any]], object]) -> Callable[[Project], None]:
    """Each question file's cached result changed in place."""
    return _file_entries(lambda header, _: change(header))


def _file_entries(change: Callable[[dict[str, Any], list[bytes]], object]) -> Callable[[Project], None]:
    """Each question file's cached result changed in place, its byte strings too."""

    def forge(project: Project) -> None:
        forged = 0
        for entry in Cache(project.decks).folder.glob("*.entry"):
            header, blobs = unpack(entry.read_bytes())
            if isinstance(header, dict):  # a result; the texts are a list
                header = copy.deepcopy(header)
                change(header, blobs)
                entry.write_bytes(pack(header, blobs))
                forged += 1
        assert forged

    return forge


#: A result's groups of columns of texts: its notes' own (GUID, digest, checksums), its questions' ids,
#: its blocks (ids, texts), each a byte string, unless written as a list in the header for a text that holds the
#: character that joins them.
NOTES, QUESTIONS, BLOCKS = range(3)
#: Which of a result's byte strings tells each note's question by its place among the result's, 4 bytes each.
PLACES = sum(_TEXT_COLUMNS)


def _listed(group: int, index: int, value: object) -> Callable[[dict[str, Any]], None]:
    """A column of texts of ``group`` written as a list of ``value``, as many as the group's length."""

    def change(header: dict[str, Any]) -> None:
        length, lists, _ = header["columns"][group]
        lists[index] = [value] * length

    return change


def _texts_said(group: int, change_said: Callable[[list[Any]], list[Any]]) -> Callable[[dict[str, Any]], None]:
    """What the header says of the columns of texts of ``group`` (their length, lists, runs) changed."""

    def change(header: dict[str, Any]) -> None:
        header["columns"][group] = change_said(header["columns"][group])

    return change


def _shared(place: int, value: object) -> Callable[[dict[str, Any]], None]:
    """The notes' values of a column kept in runs at ``place`` of ``NoteHead`` (language, kind...) made ``value``."""

    def change(header: dict[str, Any]) -> None:
        runs = header["notes"][list(_SHARED).index(place)]
        runs[0] = [value] * len(runs[0])

    return change


def _runs(change_runs: Callable[[list[Any], list[Any]], tuple[object, object]]) -> Callable[[dict[str, Any]], None]:
    """The runs of the notes' kinds (their values and counts) changed."""

    def change(header: dict[str, Any]) -> None:
        kinds = list(_SHARED).index(7)
        header["notes"][kinds] = list(change_runs(*header["notes"][kinds]))

    return change


def _blob(index: int, value: Callable[[bytes], bytes]) -> Callable[[dict[str, Any], list[bytes]], None]:
    """The byte string at ``index`` made ``value`` of it."""

    def change(_: dict[str, Any], blobs: list[bytes]) -> None:
        blobs[index] = value(blobs[index])

    return change


def _set(name: str, value: object) -> Callable[[dict[str, Any]], None]:
    def change(header: dict[str, Any]) -> None:
        header[name] = value

    return change


def _deck_key(value: object) -> Callable[[dict[str, Any]], None]:
    def change(header: dict[str, Any]) -> None:
        if header["deck"] is not None:
            header["deck"][0] = value

    return change


def _facts(value: object) -> Callable[[dict[str, Any]], None]:
    def change(header: dict[str, Any]) -> None:
        header["facts"] = [[kind, value] for kind, _ in header["facts"]]

    return change


FORGERIES: dict[str, Callable[[Project], None]] = {
    "lock memo: a note type as an object": _lock_memo(lambda h: [h[0], h[1], [{"a": 1}], *h[3:]]),
    "lock memo: times as texts": _lock_memo(lambda h: [*h[:3], [str(t) for t in h[3]], *h[4:]]),
    "lock memo: times far ahead": _lock_memo(lambda h: [*h[:3], [FAR_AHEAD] * len(h[3]), *h[4:]]),
    "lock memo: the bank id as a number": _lock_memo(lambda h: [h[0], 7, *h[2:]]),
    # Whether two notes share a question and language: only True itself lets an edit's lock be patched
    "lock memo: one note each as a text": _lock_memo(lambda h: [*h[:4], "yes"]),
    # Letters no checksum holds, and a line of the file may not: the test of the whole column must refuse them too
    "lock memo: checksums of letters": _lock_memo_checksums("1s2x"),
    "published memo: times as texts": _published(lambda h: [h[0], [str(t) for t in h[1]], h[2]]),
    "published memo: times far ahead": _published(lambda h: [h[0], [FAR_AHEAD] * len(h[1]), h[2]]),
    # Times are checked a column at a time: by the set of their types, then the least and the greatest
    "published memo: times as booleans": _published(lambda h: [h[0], [True] * len(h[1]), h[2]]),
    "published memo: a time before 1970": _published(lambda h: [h[0], [*h[1][:-1], -1], h[2]]),
    "published memo: a time as a fraction": _published(lambda h: [h[0], [*h[1][:-1], 1.5], h[2]]),
    "published memo: note type times far ahead": _published(
        lambda h: [h[0], h[1], {key: [digest, FAR_AHEAD] for key, (digest, _) in h[2].items()}]
    ),
    "kept record: the digest as a number": _kept_record(lambda h: [h[0], 7, h[2], h[3]]),
    "kept record: pieces named by numbers": _kept_record(lambda h: [h[0], h[1], [7] * len(h[2]), h[3]]),
    "kept record: the number of notes as a text": _kept_record(lambda h: [h[0], h[1], h[2], str(h[3])]),
    "kept record: the number of notes as a fraction": _kept_record(lambda h: [h[0], h[1], h[2], h[3] + 0.5]),
    "kept record: a note more than it holds": _kept_record(lambda h: [h[0], h[1], h[2], h[3] + 1]),
    "kept record: a note less than it holds": _kept_record(lambda h: [h[0], h[1], h[2], h[3] - 1]),
    "file result: GUIDs as numbers": _file_results(_listed(NOTES, 0, 7)),
    "file result: digests as null": _file_results(_listed(NOTES, 1, None)),
    "file result: block texts as lists": _file_results(_listed(BLOCKS, 1, ["a block"])),
    # The columns of texts, each split from a byte string: the header says how many texts each holds, and whether
    # in runs (never the first of a group)
    "file result: GUIDs not UTF-8": _file_entries(_blob(0, lambda _: b"\xff\xfe")),
    "file result: a GUID fewer than said": _file_entries(_blob(0, lambda _: b"")),
    "file result: a note more than the texts hold": _file_results(_texts_said(NOTES, lambda s: [s[0] + 1, *s[1:]])),
    "file result: the number of notes as a text": _file_results(_texts_said(NOTES, lambda s: [str(s[0]), *s[1:]])),
    "file result: columns of texts as an object": _file_results(_set("columns", {"notes": []})),
    "file result: a group of columns of texts left out": _file_results(
        lambda header: header.update(columns=header["columns"][:-1])
    ),
    "file result: a column of texts left out": _file_results(
        _texts_said(NOTES, lambda s: [s[0], s[1][:-1], s[2][:-1]])
    ),
    "file result: question ids in runs": _file_results(_texts_said(QUESTIONS, lambda s: [s[0], s[1], [[s[0]]]])),
    "file result: the notes' digests in runs of another length": _file_results(
        _texts_said(NOTES, lambda s: [s[0], s[1], [None, [1], None]])
    ),
    # Each note's question, by its place among the result's questions (4 bytes each), or listed
    "file result: a note's question beyond the result's": _file_entries(
        _blob(PLACES, lambda places: places[:-4] + (10**6).to_bytes(4, "little"))
    ),
    "file result: the notes' questions cut short": _file_entries(_blob(PLACES, lambda places: places[:-1])),
    "file result: a note's question fewer": _file_entries(_blob(PLACES, lambda places: places[:-4])),
    "file result: the notes' questions listed, as numbers": _file_results(
        lambda header: header.update(asked=[7] * header["columns"][NOTES][0])
    ),
    "file result: the notes' questions listed as an object": _file_results(_set("asked", {"q": 1})),
    "file result: a question's line more than its ids": _file_results(lambda header: header["questions"][0].append(1)),
    "file result: an unknown kind": _file_results(_shared(7, "no-such-kind")),
    "file result: media as a text": _file_results(_shared(4, "image.png")),
    "file result: cards as numbers": _file_results(_shared(8, 0)),
    "file result: a language as null": _file_results(_shared(2, None)),
    # Runs of kinds that hold more or fewer notes than there are, or a count of none, or of a text
    "file result: runs of one note too many": _file_results(_runs(lambda v, c: (v, [*c[:-1], c[-1] + 1]))),
    "file result: runs of a note less": _file_results(_runs(lambda v, c: (v, [*c[:-1], c[-1] - 1]))),
    "file result: a run of minus one note": _file_results(_runs(lambda v, c: ([*v, v[-1]], [*c[:-1], c[-1] + 1, -1]))),
    "file result: a run's count as a text": _file_results(_runs(lambda v, c: (v, [str(count) for count in c]))),
    "file result: runs as an object": _file_results(_runs(lambda v, c: (v, {"0": c}))),
    "file result: a run without its count": _file_results(_runs(lambda v, c: ([*v, v[-1]], c))),
    "file result: the deck key as a number": _file_results(_deck_key(7)),
    "file result: facts as texts": _file_results(_facts(["a fact"])),
    "file result: facts of numbers": _file_results(_facts([[7, 7, 7]])),
    "file result: facts of another length": _file_results(_facts([["A", True]])),
    "file result: the sha as a number": _file_results(_set("sha", 7)),
    "file result: an error that stands for none": _file_results(
        _set("problems", [["decks/bank.yaml", 1, 1, "forged", "", "", "error", "", "", 0]])
    ),
}


@pytest.mark.parametrize("forge", list(FORGERIES), ids=list(FORGERIES))
def test_a_forged_entry_of_another_type_is_a_miss(project: Project, forge: str) -> None:
    """The whole sample bank, every kind in it, built; one entry forged; the next build succeeds.

    The lock it writes passes the checks of a lock read from its file alone, and holds no time
    as late as a lock may hold: no forged value went into it.
    """
    for name in KIND_EXAMPLES:
        shutil.copy(ROOT / "decks" / name, project.decks / name)
    expected = project.build()
    FORGERIES[forge](project)
    project.edit(*EDIT)
    result = project.build()
    lock = read_lock(project.decks / LOCK_FILE)
    times = [note.mtime for note in lock.notes.values()] + [notetype.mtime for notetype in lock.notetypes.values()]
    assert max(times) < MAX_TIME
    assert [(o.path, o.notes) for o in result.outputs] == [(o.path, o.notes) for o in expected.outputs]
