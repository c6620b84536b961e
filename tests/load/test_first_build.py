"""A first build leaves the hashing of each question file to the process that reads it to process it."""

from __future__ import annotations

import hashlib
import json
import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from ankibuild.cache import Cache
from ankibuild.digests import Digests
from ankibuild.load import deckfiles
from ankibuild.model import Bank

from ..conftest import Project

EDIT = ("ai-hardware.yaml", "Die arithmetische Intensität ist sehr niedrig", "Die Intensität ist niedrig")


def _saved_while_read(monkeypatch: pytest.MonkeyPatch, save: Callable[[], object]) -> None:
    """Once the build has read the edited question file to process it, ``save`` (only the first time)."""
    process, saved = deckfiles.process, list[object]()

    def saved_after(bank: Bank, path: Path, raw: bytes, **options: Any) -> deckfiles.FileResult:
        result = process(bank, path, raw, **options)
        if path.name == EDIT[0] and not saved:
            saved.append(save())
        return result

    monkeypatch.setattr(deckfiles, "process", saved_after)


def _records(project: Project) -> list[Path]:
    return list(Cache(project.decks).folder.glob("build-*.json"))


def test_a_first_build_reads_each_question_file_once(project: Project, monkeypatch: pytest.MonkeyPatch) -> None:
    """Nothing is recorded and nothing cached: no question file is hashed before it is processed."""
    hashed: list[Path] = []
    sha = Digests.sha

    def noted(digests: Digests, path: Path) -> str | None:
        hashed.append(path)
        return sha(digests, path)

    monkeypatch.setattr(Digests, "sha", noted)
    project.build()
    assert {path.name for path in hashed if path.parent == project.decks and path.suffix == ".yaml"} == {"bank.yaml"}
    assert _records(project)  # recorded with the digest of each file as processed
    hashed.clear()
    assert not any(output.written for output in project.build().outputs)
    assert project.decks / EDIT[0] in hashed  # the next build's quick look reads them


def test_a_question_file_saved_while_a_first_build_runs_is_not_taken_as_built(
    project: Project, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The record holds the digest of the bytes the build read: the next build sees the file changed since."""
    with monkeypatch.context() as patched:
        _saved_while_read(patched, lambda: project.edit(*EDIT))
        project.build()
    assert _records(project)
    result = project.build()
    assert [(c.question, c.kind.value) for c in result.changes.items] == [("elementwise-ops-memory-bound", "changed")]
    assert not any(output.written for output in project.build().outputs)


def test_a_first_build_during_which_another_file_changed_is_not_recorded(
    project: Project, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The bank's settings were hashed at the start, and are compared at the end."""
    settings = project.decks / "bank.yaml"
    _saved_while_read(monkeypatch, lambda: settings.write_text(f"{settings.read_text()}\n# saved meanwhile\n"))
    project.build()
    assert not _records(project)


def _clock_past(folder: Path) -> None:
    """Wait until the file system's clock is past the change time of every file in ``folder``."""
    newest = max(path.stat().st_ctime_ns for path in folder.iterdir())
    probe = folder.parent / "clock-probe"
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        probe.touch()
        if probe.stat().st_ctime_ns > newest:
            return
        time.sleep(0.01)
    raise AssertionError("the file system's clock did not move on")


@pytest.mark.skipif(os.name != "posix", reason="only POSIX file systems keep a change time")
def test_a_first_build_keeps_the_readings_its_question_files_were_hashed_with(project: Project) -> None:
    """Taken as each was read to be processed: the next build's quick look does not read them again."""
    _clock_past(project.decks)
    project.build()
    (record,) = _records(project)
    reading = json.loads(record.read_text())["readings"][str(project.decks / EDIT[0])]
    assert reading[-1] == hashlib.sha256((project.decks / EDIT[0]).read_bytes()).hexdigest()


@pytest.mark.skipif(not hasattr(os, "symlink"), reason="links are made where the system can")
def test_a_first_build_of_a_bank_whose_questions_are_also_reached_through_a_link_is_recorded(
    project: Project,
) -> None:
    """The build reads such a file once, by its real place: the link, another name for it, is hashed at the start."""
    (project.decks / "a-link.yaml").symlink_to(EDIT[0])
    project.build()
    assert _records(project)
    assert not any(output.written for output in project.build().outputs)


def test_a_first_build_of_a_bank_with_a_bank_file_in_a_subfolder_is_recorded(project: Project) -> None:
    """The load stage reads no file named bank.yaml below the bank folder: the quick look must not leave one to it.

    Left unhashed for the build, which never reads it, it looked changed at the end of every build, and no build
    was ever recorded: each one a first build again.
    """
    (project.decks / "notes").mkdir()
    (project.decks / "notes" / "bank.yaml").write_text("# an old copy, not read\n", encoding="utf-8")
    project.build()
    assert list(Cache(project.decks).folder.glob("build-*.json"))
    assert not any(output.written for output in project.build().outputs)
