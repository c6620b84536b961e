"""A question file's questions are rendered and checked as each is read: its problems come as over the whole file."""

from __future__ import annotations

import contextlib
import gc
import sqlite3
from pathlib import Path

import pytest

from ankibuild.anki import rows
from ankibuild.anki.rows import NoteRows
from ankibuild.errors import Problems
from ankibuild.load import deckfiles
from ankibuild.load.deckfiles import FileResult, process
from ankibuild.load.validate import validate_bank_file
from ankibuild.model import Bank
from ankibuild.yamlfiles.reader import parse_file

BANK = b"""\
id: processed
shuffle: false
languages: [en, ar]
topics: {math: {en: Mathematics, ar: Riyadiyat}}
"""


def _choice(qid: str, options: str, *, explained: bool = True) -> str:
    explanation = ", explanation: Because." if explained else ""
    return f"""\
  - id: {qid}
    topics: [math]
    answer: A
    en: {{question: Which?, options: {options}{explanation}}}
"""


def _process(tmp_path: Path, questions: str, *, sink: NoteRows | None = None, after: str = "") -> FileResult:
    """The file of ``questions``, with ``after`` them at its end."""
    problems = Problems()
    bank = validate_bank_file(parse_file(tmp_path / "bank.yaml", BANK, problems), problems)
    assert bank is not None, problems.items
    bank = Bank(**{**bank.__dict__, "root": tmp_path})
    raw = f"deck: {{en: Sums, ar: Sums}}\nlanguages: [en]\nquestions:\n{questions}{after}".encode()
    return process(bank, tmp_path / "deck.yaml", raw, langs=bank.languages, sink=sink)


def test_each_kinds_checks_come_together_in_the_order_its_first_question_does(tmp_path: Path) -> None:
    """Each question's item checks, those across the file, then missing explanations: kind by kind."""
    truefalse = "  - {id: tf, kind: truefalse, topics: [math], answer: true, en: {question: Right?}}\n"
    longest = '[An answer that is far longer than the other, "No"]'
    choices = [_choice(f"c{n}", "[Yes, No]", explained=n > 2) for n in range(6)]
    draft = "  - {id: draft, topics: [nope], answer: A, en: {question: '![x](gone.png)', options: [a, b]}}\n"
    result = _process(tmp_path, truefalse + _choice("long", longest) + "".join(choices) + draft)
    said = [(p.question, p.check or p.message.split(" ")[0]) for p in result.problems]
    assert said == [
        ("draft", "undeclared"),
        ("draft", "image"),
        ("tf", "no-explanation"),
        ("long", "longest-correct"),
        ("", "answer-letter"),
        ("", "often-longest"),
        ("c0", "no-explanation"),
        ("c1", "no-explanation"),
        ("c2", "no-explanation"),
    ]


def test_an_id_twice_in_a_file_is_checked_with_its_own_fields(tmp_path: Path) -> None:
    """Each question whose id repeats is checked as written, with fewer options than the other too."""
    longest = '[An answer that is far longer than the others, "No", "Not"]'
    result = _process(tmp_path, _choice("twice", longest) + _choice("twice", '["Yes", "No"]'))
    assert [p.check for p in result.problems] == ["longest-correct"]
    assert result.problems[0].line == 7  # at the first question's options, not the second's
    assert len(result.notes) == 2
    assert result.facts == {"choice": [["A", True, []], ["A", True, []]]}  # "Yes" is longer than "No"


@pytest.mark.parametrize("repeated", [False, True], ids=["streamed", "read-whole"])
def test_a_files_work_is_freed_with_the_collector_paused(tmp_path: Path, repeated: bool) -> None:
    """A build pauses the cycle collector: the work of a file, every note's texts with it, must hold nothing
    that holds it, or it is never freed (the notes of a file of 20,000 questions: 110 MB)."""
    gc.collect()
    gc.disable()
    try:
        result = _process(tmp_path, _choice("one", "[Yes, No]") + _choice("one" if repeated else "two", "[Si, No]"))
        kept = [thing for thing in gc.get_objects() if isinstance(thing, deckfiles._FileWork)]
    finally:
        gc.enable()
    assert kept == []
    assert result.questions


def test_a_large_files_texts_are_read_a_note_at_a_time_as_they_are_held(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    result = _process(tmp_path, "".join(_choice(f"c{n}", f"[Yes {n}, No]") for n in range(5)))
    held = list(result.rendered("en"))
    monkeypatch.setattr(deckfiles, "HELD_TEXTS", 0)
    assert list(result.rendered("en")) == held
    assert [note.fields[2] for note in held] == [f"Yes {n}" for n in range(5)]


DEEP = b"[" * 200_000 + b"]" * 200_000


@pytest.mark.parametrize("held", [0, deckfiles.HELD_TEXTS])
@pytest.mark.parametrize(
    "texts",
    [
        b'[["a"],["t"]]\n',
        b'[["a"],["t"]]\n[["b"],["t"]]',
        b'[["a"],["t"]]\n[["b"],[7]]\n',
        b'[["a"],["t"]]\n[["b"],["t"]]\n[["c"],["t"]]\n',
        b"[1, 2]\n[3, 4]\n",
        b"{}\n{}\n",
        DEEP + b"\n" + DEEP + b"\n",
        b"not json\n\n",
        b"\x1fa\x1et\n\x1fb\n",  # no tags after the second note's fields
        b"\x1fa\x1et\n\x1f\xff\x1et\n",  # not UTF-8
    ],
)
def test_texts_of_another_shape_are_refused(monkeypatch: pytest.MonkeyPatch, held: int, texts: bytes) -> None:
    monkeypatch.setattr(deckfiles, "HELD_TEXTS", held)
    with pytest.raises(ValueError):
        list(deckfiles._checked(texts, 2))


@pytest.mark.parametrize("held", [0, deckfiles.HELD_TEXTS])
def test_texts_come_back_as_they_were_whatever_they_hold(monkeypatch: pytest.MonkeyPatch, held: int) -> None:
    """Notes whose texts hold what separates them in a line, or a line break, come back too (as JSON)."""
    notes = [
        (["a", "", "b"], ["t", "u"]),
        (["a"], []),
        ([""], ["t"]),
        ([], ["t"]),
        (["a"], [""]),
        (["a", ""], ["", "t"]),
        (["[a]", "b\nc"], ["t"]),
        (["a\x1fb", "c"], ["t"]),
        (["a\x1eb"], ["t\x1fu"]),
        (["\u2028 ü"], ["t\r"]),
    ]
    texts = deckfiles._Texts()
    for fields, tags in notes:
        texts.add(fields, tags)
    monkeypatch.setattr(deckfiles, "HELD_TEXTS", held)
    assert list(deckfiles._checked(texts.packed(), len(notes))) == [[f, t] for f, t in notes]


def _rows(written: Path) -> list[tuple[str, str]]:
    with contextlib.closing(sqlite3.connect(written)) as connection:
        return connection.execute("select guid, flds from notes").fetchall()


def test_a_processed_files_notes_become_note_rows(tmp_path: Path) -> None:
    """The rows of its notes are written where it is processed, as they are rendered: fields as its texts hold them."""
    (tmp_path / "rows").mkdir()
    result = _process(
        tmp_path, "".join(_choice(f"c{n}", f"[Yes {n}, No]") for n in range(3)), sink=NoteRows(tmp_path / "rows")
    )
    assert list(result.rows) == ["en"]  # "ar" has no notes
    assert _rows(result.rows["en"]) == [(note.guid, "\x1f".join(note.fields)) for note in result.rendered("en")]


@pytest.mark.parametrize(
    ("questions", "after"),
    [
        (_choice("twice", "[Yes, No]") + _choice("other", "[Yes, No]") + _choice("twice", "[Oui, Non]"), ""),
        (_choice("c0", "[Yes, No]") + _choice("c1", "[Yes, No]"), "languages: [en, ar]\n"),
    ],
    ids=["an id twice", "languages after the questions"],
)
def test_the_rows_of_notes_rendered_as_a_file_was_read_are_taken_back_when_it_is_read_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, questions: str, after: str
) -> None:
    """Read again whole, a file's rows are those of its notes as read the second time, each once."""
    monkeypatch.setattr(rows, "_CHUNK", 1)  # each note's row inserted as soon as it is rendered
    (tmp_path / "rows").mkdir()
    result = _process(tmp_path, questions, sink=NoteRows(tmp_path / "rows"), after=after)
    assert _rows(result.rows["en"]) == [(note.guid, "\x1f".join(note.fields)) for note in result.rendered("en")]
