"""The loader: values straight from libyaml's events, each with the place it was written."""

from __future__ import annotations

import codecs
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any
from unittest.mock import patch

import pytest
import yaml
from hypothesis import given
from hypothesis import strategies as st

from ankibuild import paths
from ankibuild.errors import Problems
from ankibuild.yamlfiles import lines as lines_module
from ankibuild.yamlfiles import reader
from ankibuild.yamlfiles.checker import CONTROL
from ankibuild.yamlfiles.lines import Lines
from ankibuild.yamlfiles.reader import Map, Seq, parse

from ..yamltools import PARSERS

DOCUMENT = b"""\
base: &base
  answer: A
  topics: [x]
questions:
  - id: one
    <<: *base
    answer: B
  - id: two
    options:
      - Yes
      - 0.10
      - {nested: true}
"""


def _parse(raw: bytes) -> tuple[object, Problems]:
    problems = Problems()
    return parse(Path("q.yaml"), raw, problems), problems


def test_every_key_and_item_knows_where_it_was_written() -> None:
    """Lines and columns of keys, and of list items that are mappings (where they begin, not end)."""
    data, problems = _parse(DOCUMENT)
    assert not problems.items and isinstance(data, Map)
    questions = data["questions"]
    assert isinstance(questions, Seq)
    assert questions.marks == [(5, 5), (8, 5)]
    assert (questions[1].line, questions[1].column) == (8, 5)
    assert questions[1].at("options") == (9, 5)
    assert questions[1]["options"].marks == [(10, 9), (11, 9), (12, 9)]


def test_merge_keys_fill_in_and_own_keys_win() -> None:
    """``<<: *base`` copies the anchored keys; a key the mapping writes itself overrides them."""
    data, _ = _parse(DOCUMENT)
    assert isinstance(data, Map)
    first = data["questions"][0]
    assert dict(first) == {"answer": "B", "topics": ["x"], "id": "one"}
    assert first.at("answer") == (7, 5) and first.at("topics") == (3, 3)


def test_scalars_follow_yaml_1_2() -> None:
    """'Yes' and '0.10' stay text as written; only true/false and empty values are not text."""
    data, _ = _parse(DOCUMENT)
    assert isinstance(data, Map)
    assert data["questions"][1]["options"] == ["Yes", "0.10", {"nested": True}]
    empty, _ = _parse(b"a:\nb: ~\nc: 'true'\n")
    assert empty == {"a": None, "b": None, "c": "true"}


def test_a_duplicate_key_is_reported_with_both_lines() -> None:
    """PyYAML would keep the last value silently; the loader names both places."""
    _, problems = _parse(b"id: a\nanswer: A\nid: b\n")
    (problem,) = problems.items
    assert (problem.line, problem.column) == (3, 1)
    assert "duplicate key 'id' (first at line 1)" in problem.message


def test_only_a_plain_double_angle_merges() -> None:
    """``<<: *base`` merges; a quoted ``'<<'`` is an ordinary key."""
    data, _ = _parse(b"base: &b {k: v}\nm:\n  '<<': *b\n")
    assert isinstance(data, Map) and data["m"] == {"<<": {"k": "v"}}


def test_an_alias_inside_the_value_it_names_is_refused_with_its_reason() -> None:
    """A value cannot contain itself: the message says so instead of 'undefined alias'."""
    _, problems = _parse(b"a: &a [*a]\n")
    (problem,) = problems.items
    assert "inside the value it names" in problem.message and (problem.line, problem.column) == (1, 8)


def test_every_line_break_yaml_knows_keeps_the_lines_of_a_text_in_step() -> None:
    """NEL and the Unicode separators end lines for YAML too: a text beside them is looked at, never past the end."""
    for brk in ("\x85", "\u2028", "\u2029", "\r"):
        raw = f"a: one two{brk}  - three # four{brk}b: x # y".encode()
        data, problems = _parse(raw)
        assert isinstance(data, Map) and data["b"] == "x"
        messages = [p.message for p in problems.items]
        assert any("joins it to the line above" in message for message in messages), (brk, messages)
    assert _parse("\x850".encode())[0] == "0"


def test_a_comment_written_as_one_is_not_taken_for_text_cut_short() -> None:
    """`name  # translate it` is a comment on purpose; `exercise #3` is text that YAML cut short."""
    _, problems = _parse(b"en: Getting started  # translate it\nde: siehe Aufgabe #3 im Blatt\n")
    (problem,) = problems.items
    assert (problem.line, problem.column) == (2, 19)
    assert problem.message == "the text stops before ' #': YAML reads '#3 im Blatt' as a comment and leaves it out"
    assert problem.hint == "put the text in quotes: de: 'siehe Aufgabe #3 im Blatt'"


def test_every_character_a_text_may_not_hold_is_unprintable() -> None:
    """A text is searched for them only when it is not printable (str.isprintable)."""
    held = [code for code in range(0x110000) if CONTROL.match(chr(code)) and chr(code).isprintable()]
    assert not held


#: What YAML counts as a line break (its marks count lines by these).
BREAK = re.compile("\r\n|[\r\n\x85\u2028\u2029]")


@given(st.text(alphabet="ab#é€\n\r\x85\u2028 -:", max_size=40), st.booleans(), st.integers(1, 9), st.integers(1, 9))
def test_lines_read_from_the_bytes_are_the_lines_of_the_text(text: str, bom: bool, block: int, chunk: int) -> None:
    """A file's lines, kept as places in its bytes, are those YAML counts, with those that hold a '#',
    whatever the blocks and chunks they are found in a piece at a time."""
    raw = (codecs.BOM_UTF8 if bom else b"") + text.encode()
    with patch.object(lines_module, "BLOCK", block), patch.object(lines_module, "CHUNK", chunk):
        lines = Lines(raw)
        commented = lines.commented()
    expected = BREAK.split(text)
    assert list(lines) == expected and len(lines) == len(expected)
    assert [lines[-index] for index in range(1, len(lines) + 1)] == expected[::-1]
    assert len(commented) == -(-len(lines) // 8)
    assert {number for number in range(len(lines)) if commented[number // 8] >> (number % 8) & 1} == {
        number for number, line in enumerate(expected) if "#" in line
    }


def test_a_large_file_keeps_no_text_of_its_lines() -> None:
    """Only where lines begin is kept while values are built: a list of them would cost twice the file."""
    raw = b"questions:\n" + b"  - id: q\n    en: {question: \xc5\x93uvre}\n" * 1000
    assert Lines(raw)[2] == "    en: {question: œuvre}"


@pytest.mark.parametrize("parser", PARSERS.values(), ids=PARSERS.keys())
@pytest.mark.parametrize(
    ("line", "column", "message"),
    [
        ('path: "C:\\Users\\me"', 14, "'\\U' is no escape: in double quotes, '\\U' takes 8 hexadecimal digits"),
        ('regex: "\\d+ digits"', 13, "'\\d' is no escape: in double quotes, a backslash starts one"),
        ('text: "Größe \\x4 mm"', 18, "'\\x4' is no escape: in double quotes, '\\x' takes 2 hexadecimal digits"),
        ('text: "a \\\\\\q"', 16, "'\\q' is no escape"),
        ('text: "far \\U00110000 off"', 16, "'\\U00110000' is no character: Unicode ends at U+10FFFF"),
    ],
)
def test_a_backslash_that_starts_no_escape_is_named_where_it_is(
    parser: Callable[[bytes], Any], line: str, column: int, message: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Either parser: PyYAML's own stopped on a ValueError for an escape past U+10FFFF, and both used to be
    told as a quote never closed, the quote being the character after the backslash."""
    monkeypatch.setattr(reader, "PARSER", parser)
    raw = f"questions:\n  - id: one\n    {line}\n".encode()
    data, problems = _parse(raw)
    (problem,) = problems.items
    assert data is None
    assert (problem.line, problem.column) == (3, column)
    assert problem.message.startswith(message)
    assert "backslash" in problem.hint or "hexadecimal" in problem.hint


@pytest.mark.parametrize("parser", PARSERS.values(), ids=PARSERS.keys())
def test_half_a_surrogate_pair_written_as_an_escape_is_no_character(
    parser: Callable[[bytes], Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    """libyaml refuses it while parsing; PyYAML's own parser lets it through for the checker to name."""
    monkeypatch.setattr(reader, "PARSER", parser)
    data, problems = _parse(b'text: "\\ud800"\n')
    if parser is reader.PythonParser:
        assert data == {"text": "\ud800"} and not problems.items
    else:
        (problem,) = problems.items
        assert problem.message == "'\\ud800' is no character: it is half of a surrogate pair, which only UTF-16 uses"


def _events(parser: Callable[[bytes], Any], raw: bytes) -> list[tuple[Any, ...]] | None:
    """What a parser makes of ``raw``, as the loader uses it: each event, its value and where it starts (where
    each ends left out, the end of the file among them, and where a value written as nothing is: the parsers
    put it a column apart after a '? ' in brackets); None when it stops on an error."""
    events, reading = [], parser(raw)
    try:
        while (event := reading.get_event()) is not None and not isinstance(event, yaml.StreamEndEvent):
            scalar = isinstance(event, yaml.ScalarEvent)
            nothing = scalar and event.value == "" and not event.style  # an empty key or value, written as nothing
            ends = isinstance(event, (yaml.CollectionEndEvent, yaml.DocumentEndEvent))
            start = None if ends or nothing else (event.start_mark.line, event.start_mark.column)
            value = (event.value, event.implicit, event.style or None) if scalar else None
            events.append((type(event).__name__, value, getattr(event, "anchor", None), start))
    except yaml.YAMLError:
        return None
    return events


#: What a bank's files are written with: text in every style, in lists and mappings of both kinds, with tabs,
#: comments, anchors, and the characters that end text in one style and not in another.
PIECES = ["a", "b", "é", " ", "  ", "\t", "\n", "\n  ", "\n    ", "- ", ": ", ":", "?", "? ", ",", "#", " #"]
PIECES += ["[", "]", "{", "}", '"', "'", "\\", "&x ", "*x", "<<: ", "|", ">-", "--- ", "..."]
BANKISH = st.lists(st.sampled_from(PIECES), max_size=30).map("".join)


@pytest.mark.skipif(reader.LIBYAML is None, reason="compared with libyaml, which this PyYAML lacks")
@given(BANKISH)
def test_pyyamls_own_parser_reads_a_file_as_libyaml_does(text: str) -> None:
    """Where PyYAML has no libyaml its own parser reads the bank, and must find in it what libyaml finds: the same
    values where they are, or an error in both. Three differences are left out: a block scalar's ``|`` directly
    followed by ``#``, which only libyaml lets by; a tab that starts the first line of a block scalar (after blank
    lines or not), which only libyaml refuses; and where a file ends without a line break, where libyaml counts
    one more line."""
    if re.search(r"[|>][-+0-9]*(#|[^\n]*(\n *)+\t)", text):
        return
    raw = f"{text}\n".encode()
    assert _events(reader.PythonParser, raw) == _events(reader.LIBYAML, raw)  # type: ignore[arg-type]


def test_a_file_larger_than_pyyamls_own_parser_reads_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    """PyYAML's own parser holds some sixteen times a file of blank lines: one larger than a file read whole is
    refused, with the fix, rather than read one question at a time."""
    monkeypatch.setattr(reader, "PARSER", reader.PythonParser)
    monkeypatch.setattr(paths, "MAX_FILE_BYTES", 1000)
    data, problems = _parse(b"questions:\n" + b"  - id: one\n" * 100)
    (problem,) = problems.items
    assert data is None and (problem.line, problem.column) == (1, 1)
    assert "only libyaml reads, and this PyYAML was installed without it" in problem.message
    assert "split the file" in problem.hint


@pytest.mark.parametrize("parser", PARSERS.values(), ids=PARSERS.keys())
def test_a_tab_in_the_indentation_is_named_whichever_parser_reads(
    parser: Callable[[bytes], Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    """PyYAML's own parser reads a tab as a space where libyaml does (see :class:`PythonParser`), and stops
    at one in the indentation as libyaml does."""
    monkeypatch.setattr(reader, "PARSER", parser)
    data, problems = _parse(b"questions:\n  - id: one\n    en:\n      question: Why?\n\t  options: [a, b]\n")
    (problem,) = problems.items
    assert data is None
    assert (problem.line, problem.message) == (5, "a tab in the indentation: YAML indents with spaces only")
