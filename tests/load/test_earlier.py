"""A question file edited is processed again, its questions as they were given what they gave the last time:
the result is the one processing it whole gives, field by field, whatever the edit."""

from __future__ import annotations

import hashlib
import random
import sqlite3
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any, NamedTuple

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ankibuild.anki.rows import NoteRows
from ankibuild.cache import Cache, pack, unpack
from ankibuild.errors import Problems
from ankibuild.load import deckfiles
from ankibuild.load.deckfiles import FileResult, _Job, _process_job, _real_place, _Recipe, process
from ankibuild.load.spans import Spans
from ankibuild.load.validate import Questions, validate_bank_file
from ankibuild.model import Bank, Question
from ankibuild.yamlfiles.reader import Map, parse_file
from bench.generate import generate_bank


@pytest.fixture(scope="module")
def bank_file(tmp_path_factory: pytest.TempPathFactory) -> tuple[Bank, Path]:
    """A bank of the benchmark's, its questions in two files, and the first of them (100 questions, 3 languages)."""
    decks = generate_bank(tmp_path_factory.mktemp("bank") / "decks", questions=200, topics=2).decks
    problems = Problems()
    bank = validate_bank_file(parse_file(decks / "bank.yaml", (decks / "bank.yaml").read_bytes(), problems), problems)
    assert bank is not None, problems.items
    (decks / "seen.png").write_bytes(b"\x89PNG\r\n\x1a\n" + bytes(40))
    return replace(bank, root=decks), decks / "topic-01.yaml"


class _Question(NamedTuple):
    """Where the question an edit is made to is in the file's lines: its first, the one after it, a text of it."""

    first: int
    end: int
    text: int
    other: int  # the first line of another question


def _alias(lines: list[str], at: _Question) -> None:
    lines[at.first + 1] = "    topics: &t [topic-01]"
    lines[at.end + 1 if at.end + 1 < len(lines) else at.first + 1] = "    topics: *t"


#: Each edit, made to a question: what an author does to a file between two builds.
EDITS: dict[str, Callable[[list[str], _Question], None]] = {
    "text": lambda lines, at: lines.__setitem__(at.text, lines[at.text] + " Neu"),
    "line above": lambda lines, at: lines.insert(at.first, "  # a note"),
    "line gone": lambda lines, at: lines.__delitem__(at.first + 1),  # its topics
    "question added": lambda lines, at: lines.__setitem__(
        slice(at.end, at.end), [line.replace("  - id: ", "  - id: z") for line in lines[at.first : at.end]]
    ),
    "question gone": lambda lines, at: lines.__delitem__(slice(at.first, at.end)),
    "invalid": lambda lines, at: lines.__setitem__(at.first + 2, "    answer: Z"),
    "same id": lambda lines, at: lines.__setitem__(at.first, lines[at.other]),
    "image": lambda lines, at: lines.__setitem__(at.text, lines[at.text] + " ![x](seen.png)"),
    "image missing": lambda lines, at: lines.__setitem__(at.text, lines[at.text] + " ![x](gone.png)"),
    "longest option": lambda lines, at: lines.__setitem__(at.text + 2, "        - " + "a far longer option " * 8),
    "alias": _alias,
    "id a number": lambda lines, at: lines.__setitem__(at.first, "  - id: 12"),
    "not a question": lambda lines, at: lines.insert(at.first, "  - a text"),
}


def _edited(raw: bytes, edit: str, at: int) -> bytes:
    """``raw`` with one edit made to the question ``at`` chooses."""
    lines = raw.decode().split("\n")
    starts = [n for n, line in enumerate(lines) if line.startswith("  - id: ")]
    first = starts[at % len(starts)]
    end = next((n for n in starts if n > first), len(lines))
    texts = [n for n in range(first, end) if lines[n].startswith("      question: ")]
    text = texts[at % len(texts)] if texts else first + 1
    EDITS[edit](lines, _Question(first, end, text, starts[(at + 1) % len(starts)]))
    return "\n".join(lines).encode()


def _processed(bank: Bank, path: Path, raw: bytes, rows: Path) -> FileResult:
    rows.mkdir()
    return process(bank, path, raw, langs=bank.languages, keep_texts=False, sink=NoteRows(rows), with_spans=True)


def _built(bank: Bank, path: Path, raw: bytes, cache: Cache, rows: Path) -> FileResult:
    """The file processed as a build does, stored in ``cache``, with what it gave the last time if stored there."""
    rows.mkdir()
    sha = hashlib.sha256(raw).hexdigest()
    recipe = _Recipe(bank, path, bank.languages, cache, "", context="context", place=_real_place(path)).of(sha)
    job = _Job(sha, raw, len(raw))
    packed, written, _ = _process_job(path, job, recipe, bank=bank, langs=bank.languages, sink=NoteRows(rows))
    stored = deckfiles.restore(unpack(packed))
    # The texts' digests, read from the cache only when asked for, are all asked for here.
    translated = tuple(stored.translated)
    return replace(stored, texts=deckfiles._CachedTexts(recipe, stored), rows=written, translated=translated)


def _rows(rows: FileResult) -> dict[str, list[tuple[object, ...]]]:
    found = {}
    for lang, path in rows.rows.items():
        with sqlite3.connect(path) as db:
            found[lang] = db.execute("SELECT * FROM notes ORDER BY rowid").fetchall()
    return found


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(edits=st.lists(st.tuples(st.sampled_from(list(EDITS)), st.integers(0, 10_000)), min_size=1, max_size=3))
def test_an_edited_file_gives_what_processing_it_whole_gives(
    bank_file: tuple[Bank, Path], tmp_path_factory: pytest.TempPathFactory, edits: list[tuple[str, int]]
) -> None:
    """Edit after edit, each built with what the last build gave: notes, texts, rows, problems in their order,
    facts, references, blocks, images, as processing the edited file whole gives them."""
    bank, path = bank_file
    folder = tmp_path_factory.mktemp("edits")
    cache = Cache(folder / "bank")
    raw = path.read_bytes()
    _built(bank, path, raw, cache, folder / "rows")
    for number, (edit, at) in enumerate(edits):
        raw = _edited(raw, edit, at)
        whole = _processed(bank, path, raw, folder / f"whole-{number}")
        built = _built(bank, path, raw, cache, folder / f"built-{number}")
        # The texts and where the rows are, compared below; the digests, kept beside the result, are not in it.
        assert replace(built, texts={}, rows={}) == replace(
            whole, texts={}, rows={}, texts_sha=built.texts_sha, spans=b""
        )
        langs = list(whole.texts)  # none for a file without a deck
        assert [list(built.rendered(lang)) for lang in langs] == [list(whole.rendered(lang)) for lang in langs]
        assert _rows(built) == _rows(whole)


def test_the_questions_an_edit_left_alone_are_not_validated_and_rendered_again(
    bank_file: tuple[Bank, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Of 100 questions, the one edited is read again, and after a line added, those whose place moved and the
    one whose bytes it ends; the others are given what they gave."""
    bank, path = bank_file
    cache = Cache(tmp_path / "bank")
    raw = path.read_bytes()
    _built(bank, path, raw, cache, tmp_path / "rows")
    validated: list[str] = []
    rendered: list[str] = []
    validate, render = Questions.__call__, deckfiles._FileWork.render

    def counted_validate(read: Questions, data: Map, item: Any, where: tuple[int, int]) -> None:
        validated.append(item["id"])
        validate(read, data, item, where)

    def counted_render(work: deckfiles._FileWork, question: Question) -> dict[str, tuple[str, ...]]:
        rendered.append(question.id)
        return render(work, question)

    monkeypatch.setattr(Questions, "__call__", counted_validate)
    monkeypatch.setattr(deckfiles._FileWork, "render", counted_render)
    edited = _edited(raw, "text", 7)
    _built(bank, path, edited, cache, tmp_path / "edited")
    assert validated == rendered == [f"q{7:06d}"]
    validated.clear()
    rendered.clear()
    _built(bank, path, _edited(edited, "line above", 50), cache, tmp_path / "shifted")
    assert validated == rendered == [f"q{n:06d}" for n in range(49, 100)]


@pytest.mark.parametrize(
    ("raw", "found"),
    [
        (b"questions:\n  - id: a\n  - id: b\n", True),
        (b"questions:\r\n  - id: a\r\n  - id: b\r\n", False),  # YAML counts lines that \n alone does not tell
        (b"questions: [\n  {id: a,\n  x: y}, {id: b}]\n", False),  # a flow list: a question's line holds another's
    ],
)
def test_questions_are_found_in_a_block_list_only(raw: bytes, found: bool) -> None:
    """Where a question's bytes may be another's, or its lines are not those of the bytes, none is told."""
    deck = parse_file(Path("deck.yaml"), raw, Problems()).data
    spans = Spans(raw)
    places = [(item.line, item.column) for item in deck["questions"]]
    assert all(spans.begin(*place) for place in places) is found


def test_lines_are_found_without_a_step_per_line() -> None:
    """Far into a file of a million lines, a question's line is where YAML counts it."""
    rng = random.Random(0)
    lines = ["x" * rng.randrange(0, 30) for _ in range(1_000_000)]
    raw = ("\n".join(lines) + "\n  - id: a\n").encode()
    spans = Spans(raw)
    assert spans.begin(len(lines) + 1, 5)
    assert list(spans.starts) == [len(raw) - len(b"  - id: a\n")]


class _Counted(bytes):
    """Bytes that add up how many of them line breaks were counted in."""

    counted = 0

    def count(self, sub: Any, start: Any = None, end: Any = None) -> int:
        _Counted.counted += (len(self) if end is None else end) - (start or 0)
        return super().count(sub, start, end)


def test_lines_are_counted_about_as_far_as_the_questions_go() -> None:
    """Where the quick search misses every question (a quoted text whose next line begins as an item), the lines
    are counted in windows about a question long: a few times the file, not a window of kilobytes a question."""
    raw = _Counted(b"questions:\n" + b'  - x: "a\n  - b"\n' * 20_000)
    places = [(item.line, item.column) for item in parse_file(Path("d.yaml"), bytes(raw), Problems()).data["questions"]]
    _Counted.counted = 0
    spans = Spans(raw)
    assert all(spans.begin(*place) for place in places)
    assert _Counted.counted < 16 * len(raw)  # each question's: a window twice its length, halved, and the search


@pytest.mark.parametrize("named", ["../../outside", 12, "a" * 40])
def test_a_last_result_named_by_another_entry_is_read_only_from_the_cache(
    bank_file: tuple[Bank, Path], tmp_path: Path, named: object
) -> None:
    """The entry that names a file's last result may be anyone's (the cache folder may be shared): one that names
    anything but an entry of the cache, or one it does not hold, recalls nothing, and the file is read whole."""
    bank, path = bank_file
    cache = Cache(tmp_path / "bank")
    (cache.folder / "outside.entry").write_bytes(b"")
    recipe = _Recipe(bank, path, bank.languages, cache, "", context="context", place=_real_place(path))
    cache.put(deckfiles._last_key("context", recipe.place), pack([named], [b""]))
    assert recipe.recalled() is None


def test_a_last_result_whose_texts_digests_are_damaged_recalls_nothing(
    bank_file: tuple[Bank, Path], tmp_path: Path
) -> None:
    """The digests of a last result's texts, read only when asked for, are read when it is recalled: damaged
    (the cache folder may be shared), nothing is recalled and the file is read whole, rather than the build
    failing on every edit until the cache is emptied."""
    bank, path = bank_file
    cache = Cache(tmp_path / "bank")
    raw = path.read_bytes()
    _built(bank, path, raw, cache, tmp_path / "rows")
    recipe = _Recipe(bank, path, bank.languages, cache, "", context="context", place=_real_place(path))
    assert recipe.recalled() is not None
    entry = cache.folder / f"{recipe.of(hashlib.sha256(raw).hexdigest()).key}.entry"
    header, blobs = unpack(entry.read_bytes())
    entry.write_bytes(pack(header, [*blobs[:-1], b"not the texts' digests"]))  # well checksummed
    assert recipe.recalled() is None
    edited = _edited(raw, "text", 3)
    built, whole = _built(bank, path, edited, cache, tmp_path / "again"), _processed(bank, path, edited, tmp_path / "w")
    assert replace(built, texts={}, rows={}) == replace(whole, texts={}, rows={}, texts_sha=built.texts_sha, spans=b"")
