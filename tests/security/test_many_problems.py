"""A question file of thousands of broken questions: each file's first problems are shown, the others counted.

A file of 512 MiB may hold millions of questions a line long, each with a problem or
two: kept and printed, their problems would take hundreds of times the file's size.
"""

from __future__ import annotations

import tracemalloc

import pytest
from click.testing import CliRunner

from ankibuild import errors, paths
from ankibuild.cli import main
from ankibuild.errors import SHOWN, Problems, Severity, tally
from ankibuild.load.deckfiles import process
from ankibuild.load.stage import load_bank

from ..conftest import Project, snapshot

FILE = "decks/broken.yaml"
#: What processing a file of broken questions may hold at its peak, by byte of the file.
AT_MOST = 4


def _broken(count: int) -> str:
    """A question file of ``count`` questions with an id alone: each misses its answer and topics, and its texts."""
    return "questions:\n" + "".join(f"  - id: q{number}\n" for number in range(count))


def _blocks(output: str) -> dict[str, list[str]]:
    """The lines printed of each file, by its name (the count of every error after them left out)."""
    problems = output.rstrip("\n").rsplit("\n", 1)[0]
    return {block.split(":", 1)[0]: block.splitlines() for block in problems.split("\n\n")}


def test_a_file_of_many_broken_questions_shows_its_first_problems_then_how_many_more(
    project: Project, monkeypatch: pytest.MonkeyPatch, tmp_path_factory: pytest.TempPathFactory
) -> None:
    """The first problems printed as they were, then a line with the count of the others; nothing written."""
    (project.root / FILE).write_text(_broken(3000), encoding="utf-8")
    before = snapshot(project.root)
    shown = CliRunner().invoke(main, ["build"])
    assert shown.exit_code == 1
    assert snapshot(project.root) == before
    monkeypatch.setattr(errors, "SHOWN", 10**9)  # every problem, as before there was a limit
    monkeypatch.setenv("ANKIBUILD_CACHE_DIR", str(tmp_path_factory.mktemp("cache")))
    every = CliRunner().invoke(main, ["build"])
    assert every.exit_code == 1
    lines, all_lines = _blocks(shown.stderr)[FILE], _blocks(every.stderr)[FILE]
    errors_found = sum(": error" in line for line in all_lines)
    assert errors_found > 2 * SHOWN
    assert sum(": error" in line for line in lines) == SHOWN + 1
    more = errors_found - SHOWN
    assert lines[-2:] == [
        f"{FILE}: error: ... and {more:,} more errors in this file, not shown",
        "    hint: fix the ones above and build again: the next ones are shown then",
    ]
    assert lines[:-2] == all_lines[: len(lines) - 2]
    # The bank's other files and the count of every error are told as before.
    assert shown.stderr.split(f"{FILE}:", 1)[0] == every.stderr.split(f"{FILE}:", 1)[0]
    assert shown.stderr.splitlines()[-1] == every.stderr.splitlines()[-1]
    assert every.stderr.splitlines()[-1].startswith(f"{errors_found} error(s)")


def test_the_questions_without_a_translation_are_all_counted(project: Project) -> None:
    """Those of a file beyond the first shown are still counted in the line that gathers them."""
    (project.root / FILE).write_text(_broken(3 * SHOWN), encoding="utf-8")
    checked = CliRunner().invoke(main, ["check"])
    assert checked.exit_code == 1
    assert f"{FILE}:2:5: warning: no 'de' translation in {3 * SHOWN:,} questions (the first is here)" in checked.stderr
    verbose = CliRunner().invoke(main, ["check", "--verbose"])
    lines = _blocks(verbose.stderr)[FILE]
    assert sum("no 'de' translation: the question is left out" in line for line in lines) == SHOWN
    more = f"{FILE}: warning: ... and {3 * 2 * SHOWN:,} more warnings in this file, not shown"  # de, fr and en
    assert more in lines


def test_a_file_of_many_broken_questions_is_processed_in_memory_its_size_bounds(
    project: Project, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Its problems beyond the first are counted, not kept: what is held follows the file's bytes."""
    monkeypatch.setattr(paths, "MAX_FILE_BYTES", 64 * 1024)  # read a question at a time, as a large file is
    bank = load_bank(project.decks, Problems())
    assert bank is not None
    questions = 40_000
    raw = _broken(questions).encode()
    path = project.root / FILE
    path.write_bytes(raw)
    tracemalloc.start()
    try:
        result = process(bank, path, raw, langs=bank.languages, keep_texts=False)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert tally(result.problems) == 2 * questions
    assert sum(p.severity is Severity.ERROR for p in result.problems) == SHOWN + 1
    assert len(result.problems) < 5 * SHOWN
    assert peak < AT_MOST * len(raw)
