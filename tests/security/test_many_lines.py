"""A large question file of many short lines costs what its bytes cost, not an object per line.

A file of 512 MiB may hold 500 million empty lines or comments: what is kept of each
line while it is read must be bits, not objects. The limits are lowered here so that
a file of a few MiB is read a question at a time, as a file of hundreds of MiB is.
"""

from __future__ import annotations

import tracemalloc
from pathlib import Path

import pytest

from ankibuild import paths
from ankibuild.errors import Problems
from ankibuild.yamlfiles.reader import Map, parse_file

SIZE = 1024 * 1024
#: What parsing may hold at its peak besides the file's bytes: its text once, and a little.
AT_MOST = 3

BEFORE = b"questions:\n  - id: a\n"
INDENTED = (5, 1, "this line is indented more than the lines it belongs with, so YAML cannot tell where it goes")
HOSTILE: dict[str, tuple[bytes, list[tuple[int, int, str]]]] = {
    "comments": (BEFORE + b"#\n" * (SIZE // 2), []),
    "comments, then a text": (
        BEFORE + b"#\n" * (SIZE // 2) + b"  - q: a\n    - b\n",
        [(SIZE // 2 + 4, *INDENTED[::2])],
    ),
    "empty lines, then a text": (BEFORE + b"\n" * SIZE + b"  - q: a\n    - b\n", [(SIZE + 4, *INDENTED[::2])]),
    "carriage returns": (
        BEFORE.replace(b"\n", b"\r") + b"#x\r" * (SIZE // 3) + b"  - q: a\r    - b\r",
        [(SIZE // 3 + 4, *INDENTED[::2])],
    ),
    "Windows lines": (
        BEFORE.replace(b"\n", b"\r\n") + b"# x\r\n" * (SIZE // 5) + b"  - q: a\r\n    - b\r\n",
        [(SIZE // 5 + 4, *INDENTED[::2])],
    ),
    "comments, then an error": (
        BEFORE + b"#\n" * (SIZE // 8) + b"  - a: b: c\n",
        [(SIZE // 8 + 3, 9, "a ': ' inside unquoted text, which YAML reads as a new key: - a: b: c")],
    ),
}


def _taken(data: Map, item: object, where: tuple[int, int]) -> None:
    """A question read: nothing is kept of it."""


@pytest.mark.parametrize(("raw", "expected"), HOSTILE.values(), ids=HOSTILE)
def test_many_short_lines_cost_their_bytes(
    raw: bytes, expected: list[tuple[int, int, str]], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Parsed a question at a time, with the same problems at the same places, holding a few times its size."""
    monkeypatch.setattr(paths, "MAX_FILE_BYTES", 64 * 1024)
    problems = Problems()
    tracemalloc.start()
    try:
        file = parse_file(Path("q.yaml"), raw, problems, take=_taken)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert file.handed_over == (not expected)
    assert [(problem.line, problem.column, problem.message) for problem in problems.items] == expected
    assert peak < AT_MOST * len(raw)
