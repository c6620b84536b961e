"""Each file's first problems are kept and shown, in the order they always were; the others are counted."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from ankibuild import errors
from ankibuild.errors import (
    MISSING_TRANSLATION,
    MORE,
    SHOWN,
    Problem,
    Problems,
    Severity,
    gather,
    in_order,
    one_each,
    report_lines,
    tally,
)

SEVERITIES = (Severity.ERROR, Severity.WARNING)


def _problem(file: str, line: int, severity: Severity = Severity.ERROR) -> Problem:
    return Problem(file, line, 1, f"wrong at {line}", "fix it", severity=severity)


def test_a_bank_of_many_files_with_a_few_problems_each_shows_every_one() -> None:
    problems = Problems()
    found = [_problem(f"decks/{file}.yaml", line) for file in range(2 * SHOWN) for line in range(1, 6)]
    problems.extend(found)
    assert problems.items == found
    assert report_lines(problems.items) == report_lines(found)


@pytest.mark.parametrize("seed", range(20))
def test_the_first_of_each_file_and_severity_are_kept_wherever_they_were_found(
    seed: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Found in any order, in several collections joined: shown as the first lines printed of all, with the count."""
    shown = 10
    monkeypatch.setattr(errors, "SHOWN", shown)
    rng = random.Random(seed)
    found = list(
        {
            _problem(rng.choice(("a.yaml", "b.yaml")), rng.randrange(1, 200), rng.choice(SEVERITIES)): None
            for _ in range(rng.randrange(0, 120))
        }
    )
    rng.shuffle(found)
    parts = [Problems() for _ in range(rng.randrange(1, 4))]
    for problem in found:
        rng.choice(parts).extend([problem])
    joined = Problems()
    for part in parts:
        joined.extend(part.items)
    items = joined.items
    for file in ("a.yaml", "b.yaml"):
        for severity in SEVERITIES:
            everything = sorted(p for p in found if p.file == file and p.severity is severity)
            kept = [p for p in in_order(items) if p.file == file and p.severity is severity]
            assert [p for p in kept if p.check != MORE] == everything[:shown]
            assert tally(kept, severity) == len(everything)
    assert report_lines(items)[-1:] == report_lines(found)[-1:]  # the count of every error


def test_errors_are_shown_however_many_warnings_come_before_them() -> None:
    warnings = [_problem("a.yaml", line, Severity.WARNING) for line in range(1, 3 * SHOWN)]
    problems = Problems()
    problems.extend([*warnings, _problem("a.yaml", 5000), _problem("a.yaml", 5001)])
    lines = report_lines(problems.items)
    assert f"a.yaml: warning: ... and {len(warnings) - SHOWN} more warnings in this file, not shown" in lines
    assert "a.yaml:5000:1: error: wrong at 5000" in lines and "a.yaml:5001:1: error: wrong at 5001" in lines
    assert tally(problems.items) == 2 and tally(problems.items, Severity.WARNING) == len(warnings)


def test_the_line_of_those_not_shown_ends_its_file() -> None:
    problems = Problems()
    problems.extend(_problem("a.yaml", line) for line in range(SHOWN + 1, 0, -1))
    problems.extend([_problem("b.yaml", 1)])
    lines = report_lines(problems.items)
    assert lines[2 * SHOWN - 2 : 2 * SHOWN + 5] == [
        f"a.yaml:{SHOWN}:1: error: wrong at {SHOWN}",
        "    hint: fix it",
        "a.yaml: error: ... and 1 more error in this file, not shown",
        "    hint: fix the ones above and build again: the next ones are shown then",
        "",
        "b.yaml:1:1: error: wrong at 1",
        "    hint: fix it",
    ]
    assert lines[-1] == f"{SHOWN + 2} error(s); nothing was written."


def test_a_problem_found_twice_is_counted_once() -> None:
    problems = Problems()
    for line in range(1, 2 * SHOWN):
        problems.extend([_problem("a.yaml", line), _problem("a.yaml", line)])
    assert tally(problems.items) == 2 * SHOWN - 1


def test_a_gathered_check_counts_every_problem_of_a_file_and_shows_its_first() -> None:
    """Gathered into one line, every question is counted; listed, the first are shown and the others counted."""
    problems = Problems()
    problems.add(Path("a.yaml"), "a mistake", line=1, column=1)
    missing = "no 'de' translation"
    problems.extend(
        Problem("a.yaml", line, 1, missing, severity=Severity.WARNING, check=MISSING_TRANSLATION)
        for line in range(2, 1000)
    )
    joined = Problems()
    joined.extend(problems.items)
    items = joined.items
    assert len(items) == 1 + SHOWN
    told = gather(items, MISSING_TRANSLATION, lambda first, count: Problem(first.file, message=f"{count}"))
    assert [p.message for p in told] == ["a mistake", "998"]
    listed = Problems()
    listed.extend(one_each(items, MISSING_TRANSLATION))
    lines = report_lines(listed.items)
    assert sum(f"warning: {missing}" in line for line in lines) == SHOWN
    assert f"a.yaml: warning: ... and {998 - SHOWN} more warnings in this file, not shown" in lines
