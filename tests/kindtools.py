"""What the tests of the kinds other than multiple choice share: their bank, and check's verdict on an edit of it."""

from __future__ import annotations

import json

from click.testing import CliRunner

from ankibuild.cli import main

from .conftest import Project, use_scenario

#: The bank with a question of each of these kinds, in English and Arabic (see its bank.yaml).
SCENARIO = "more-kinds"
FILE = "kinds.yaml"


def problems_after(project: Project, *edits: tuple[str, str]) -> list[tuple[str, str, str]]:
    """Check the bank after each ``(old, new)`` replacement: every problem as location, message and hint."""
    use_scenario(project, SCENARIO)
    for old, new in edits:
        project.edit(FILE, old, new)
    result = CliRunner().invoke(main, ["check", "--format", "json"])
    found = json.loads(result.stdout)
    assert result.exit_code == (1 if any(p["severity"] == "error" for p in found) else 0), result.output
    return [(f"{p['file']}:{p['line']}:{p['column']}", p["message"], p["hint"]) for p in found]
