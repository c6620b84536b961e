"""After an edit, the edited question file is processed in a process of its own while the others are restored."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from ankibuild.load import deckfiles
from ankibuild.model import Bank

from ..conftest import Project

OLD = "Die arithmetische Intensität ist sehr niedrig"
EDITED = [("de", "elementwise-ops-memory-bound", "changed")]

forks = pytest.mark.skipif(not hasattr(os, "fork"), reason="processes are forked only where they can be")


def _processing(monkeypatch: pytest.MonkeyPatch, log: Path, *, in_child: Any = None) -> None:
    """Have every question file processed write down the process it was processed in; ``in_child`` is done
    first in any process but this one."""
    process, parent = deckfiles.process, os.getpid()

    def logged(bank: Bank, path: Path, *rest: Any, **options: Any) -> deckfiles.FileResult:
        if in_child is not None and os.getpid() != parent:
            in_child()
        with log.open("a") as written:
            written.write(f"{os.getpid()}\n")
        return process(bank, path, *rest, **options)

    monkeypatch.setattr(deckfiles, "process", logged)


@pytest.fixture
def two_files(project: Project) -> Project:
    """The bank with a second question file: one to restore while the other is processed."""
    text = (project.decks / "ai-hardware.yaml").read_text(encoding="utf-8")
    (project.decks / "more.yaml").write_text(text.replace("  - id: ", "  - id: copy-"), encoding="utf-8")
    return project


def _changes(project: Project) -> list[tuple[str, str, str]]:
    return [(c.lang, c.question, c.kind.value) for c in project.build().changes.items]


@forks
def test_the_edited_file_is_processed_in_another_process(
    two_files: Project, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    project = two_files
    project.build()
    log = tmp_path / "processes"
    _processing(monkeypatch, log)
    project.edit("ai-hardware.yaml", OLD, "Die Intensität ist gering")
    assert _changes(project) == EDITED
    processes = log.read_text().split()
    assert len(processes) == 1 and processes != [str(os.getpid())]


def _dies() -> None:
    os._exit(9)


def _fails() -> None:
    raise MemoryError


@forks
@pytest.mark.parametrize("failure", [_dies, _fails])
def test_work_the_other_process_could_not_do_is_done_by_the_build(
    two_files: Project, monkeypatch: pytest.MonkeyPatch, tmp_path: Path, failure: Any
) -> None:
    """Whatever made it fail then happens again in the build's process: an error of the bank is told there."""
    project = two_files
    project.build()
    log = tmp_path / "processes"
    _processing(monkeypatch, log, in_child=failure)
    project.edit("ai-hardware.yaml", OLD, "Die Intensität ist gering")
    assert _changes(project) == EDITED
    assert log.read_text().split() == [str(os.getpid())]
    monkeypatch.undo()
    assert _changes(project) == []  # what it made is what the next build finds
