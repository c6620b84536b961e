"""Adding to YAML files by inserting lines: new values read back exactly, old bytes stay."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from hypothesis import given
from hypothesis import strategies as st

from ankibuild.errors import AnkibuildError, Problems
from ankibuild.yamlfiles.reader import Map, parse
from ankibuild.yamlfiles.writer import Block, Document, Flow, Noted, item_lines, mapping_lines, scalar, split_lines

from ..texttools import only_inserted

#: Text as pages hold it: any printable characters, line breaks included.
TEXT = st.text(
    st.characters(exclude_categories=("Cs", "Cc")) | st.sampled_from("\n\r\x85\u2028\t #:-'\"[]{}&*!|>%@`"), min_size=1
)


@given(TEXT)
def test_scalar_reads_back_as_written(text: str) -> None:
    """Any text written as a one-line scalar loads back unchanged."""
    written = scalar(text)
    assert "\n" not in written
    assert yaml.safe_load(f"k: {written}") == {"k": text}


@given(TEXT)
def test_block_reads_back_as_written(text: str) -> None:
    """Any explanation written below its key (``>-``/``|-`` or quoted) loads back unchanged."""
    lines = mapping_lines({"explanation": Block(text)}, 4)
    assert yaml.safe_load("\n".join(line[4:] if line.startswith("    ") else line for line in lines)) == {
        "explanation": text
    }


def test_new_content_in_the_bank_style() -> None:
    """Two-space indentation, ``>-`` blocks, flow lists of slugs, notes as comments."""
    lines = item_lines(
        {
            "id": "q",
            "topics": Flow(("a", "b::c")),
            "de": {"question": "Wer: ich?", "options": ["x", "y"], "explanation": Block("Weil.")},
            "en": Noted("Name", "translate it"),
        },
        2,
    )
    assert lines == [
        "  - id: q",
        "    topics: [a, b::c]",
        "    de:",
        "      question: 'Wer: ich?'",
        "      options:",
        "        - x",
        "        - y",
        "      explanation: >-",
        "        Weil.",
        "    en: Name  # translate it",
    ]


def _document(text: str) -> Document:
    root = parse(Path("f.yaml"), text.encode(), Problems())
    assert isinstance(root, Map)
    return Document(text, root, "f.yaml")


FILE = """\
# comment at the top
questions:
  - id: a   # keep this comment
    answer: B
    de:
      question: "quoted"
      explanation: |-
        two
        lines

  # a comment before what follows
# about todo
todo:
  de:
    - first
"""


def test_append_item_and_keys_keeps_every_line() -> None:
    """An item goes after the last question, a key at the end of its mapping, titles below theirs."""
    document = _document(FILE)
    document.append(("questions",), lambda indent: item_lines({"id": "b"}, indent))
    document.append(("questions", 0), lambda indent: mapping_lines({"fr": {"question": "q"}}, indent))
    document.append(("todo", "de"), lambda indent: [" " * indent + "- second"])
    document.append(("todo",), lambda indent: mapping_lines({"fr": ["premier"]}, indent))
    new = document.text()
    assert only_inserted(FILE, new) == [
        "    fr:\n",
        "      question: q\n",
        "  - id: b\n",
        "    - second\n",
        "  fr:\n",
        "    - premier\n",
    ]
    assert yaml.safe_load(new) == {
        "questions": [
            {
                "id": "a",
                "answer": "B",
                "de": {"question": "quoted", "explanation": "two\nlines"},
                "fr": {"question": "q"},
            },
            {"id": "b"},
        ],
        "todo": {"de": ["first", "second"], "fr": ["premier"]},
    }


def test_new_item_lands_after_the_items_comment_lines() -> None:
    """The new question follows the comment indented inside ``questions``, before the top-level comment."""
    document = _document(FILE)
    document.append(("questions",), lambda indent: item_lines({"id": "b"}, indent))
    lines = split_lines(document.text())
    assert lines.index("  - id: b\n") == lines.index("  # a comment before what follows\n") + 1
    assert lines[lines.index("  - id: b\n") + 1] == "# about todo\n"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("questions:\ntodo:\n", "questions:\ntodo:\n  de:\n    - t\n"),
        ("todo: {}  # later\nquestions: []\n", "todo:  # later\n  de:\n    - t\nquestions: []\n"),
        ("questions: []\n", "questions: []\ntodo:\n  de:\n    - t\n"),
    ],
)
def test_empty_todo_is_opened_up(text: str, expected: str) -> None:
    """``todo:``, ``todo: {}`` and no ``todo`` at all become a block with the new titles."""
    document = _document(text)
    path = ("todo",) if "todo" in document.root else ()
    data = {"de": ["t"]} if path else {"todo": {"de": ["t"]}}
    document.append(path, lambda indent: mapping_lines(data, indent))
    assert document.text() == expected


def test_line_breaks_bom_and_missing_final_newline_are_kept() -> None:
    """A CRLF file without a final newline gets CRLF lines; its own lines are untouched."""
    text = "questions:\r\n  - id: a\r\n    answer: B"
    document = _document(text)
    document.bom = True
    document.append(("questions",), lambda indent: item_lines({"id": "b"}, indent))
    assert document.content() == b"\xef\xbb\xbf" + b"questions:\r\n  - id: a\r\n    answer: B\r\n  - id: b\r\n"


def test_value_written_inline_is_refused() -> None:
    """``todo: {de: [a]}`` cannot take new lines; the error names the file and line."""
    document = _document("questions: []\ntodo: {de: [a]}\n")
    with pytest.raises(AnkibuildError) as caught:
        document.append(("todo",), lambda indent: mapping_lines({"fr": ["b"]}, indent))
    assert "f.yaml:2" in caught.value.message and "block" in caught.value.message


def test_document_end_marker_stays_last() -> None:
    """New top-level keys go before a ``...`` that ends the document."""
    document = _document("questions: []\n...\n")
    document.append((), lambda indent: mapping_lines({"todo": {"de": ["t"]}}, indent))
    assert document.text() == "questions: []\ntodo:\n  de:\n    - t\n...\n"
