"""Notes copied from the rows written as their files were processed: the same packages as from their texts."""

from __future__ import annotations

import os
import re
import shutil
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from ankibuild.anki import collection, package, published, rows, target
from ankibuild.cache import Cache
from ankibuild.load import deckfiles
from ankibuild.lock.clock import Clock

from ..ankitools import imported_cards
from ..conftest import Project

pytestmark = pytest.mark.slow  # every package built twice or more

FILE = "ai-hardware.yaml"


def _move_to_new_file(decks: Path, question: str) -> None:
    """Move a question of the one question file into a second one."""
    text = (decks / FILE).read_text(encoding="utf-8")
    found = re.search(rf"^  - id: {question}\n.*?(?=^  - id: |\Z)", text, re.MULTILINE | re.DOTALL)
    assert found, question
    (decks / FILE).write_text(text.replace(found.group(0), ""), encoding="utf-8")
    header = "deck:\n  de: Ausreißer\n  fr: Valeurs aberrantes\n  en: Outliers\nquestions:\n"
    (decks / "outliers.yaml").write_text(header + found.group(0), encoding="utf-8")


def _packages(out: Path) -> dict[str, bytes]:
    return {path.name: path.read_bytes() for path in sorted(out.glob("*.apkg"))}


def _copied(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """How many notes each collection made from nothing copies from rows, from now on."""
    counts: list[int] = []
    original = rows.copy_rows

    def counted(*args: Any) -> set[str]:
        copied = original(*args)
        counts.append(len(copied))
        return copied

    monkeypatch.setattr(collection, "copy_rows", counted)
    return counts


def _from_texts(project: Project) -> dict[str, bytes]:
    """The packages made again from the notes' texts: every file from the cache, no collection kept."""
    shutil.rmtree(Cache(project.decks).kept)
    shutil.rmtree(project.out)
    project.build()
    return _packages(project.out)


@pytest.mark.parametrize("workers", [False, True])
def test_a_first_build_copies_every_note_and_makes_the_packages_its_texts_make(
    project: Project, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, workers: bool
) -> None:
    """Rows written here or by worker processes: the packages are byte for byte those made from the texts."""
    if workers:
        monkeypatch.setattr(deckfiles, "PARALLEL_BYTES", 0)
    copied = _copied(monkeypatch)
    result = project.build()
    assert sorted(copied) == sorted(output.notes for output in result.outputs)
    first = _packages(project.out)
    copied.clear()
    assert _from_texts(project) == first
    assert copied == [0, 0, 0]  # every file's result came from the cache: no rows to copy
    assert not list(Cache(project.decks).kept.glob(".ankibuild-*"))  # the rows went with their build
    _, cards = imported_cards(tmp_path / "collection.anki2", [project.out / "ai-stack-de.apkg"])
    assert len(cards) == result.outputs[0].notes


def test_packages_made_in_processes_of_their_own_are_those_made_on_threads(
    project: Project, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With enough notes to write, each package is made in a forked process: the same bytes as on threads."""
    project.build()
    expected = _packages(project.out)
    shutil.rmtree(Cache(project.decks).folder)
    shutil.rmtree(project.out)
    monkeypatch.setattr(target, "PROCESS_NOTES", 0)
    monkeypatch.setattr(deckfiles, "PARALLEL_BYTES", 0)
    makers, keepers = project.root / "makers", project.root / "keepers"
    makers.mkdir()
    keepers.mkdir()
    made, kept = package.package_bytes, published.keep

    def making(*args: Any) -> bytes:
        (makers / str(os.getpid())).touch()  # what a forked process does is seen only in the files it writes
        return made(*args)

    def keeping(*args: Any, **kwargs: Any) -> Callable[[], None]:
        (keepers / str(os.getpid())).touch()
        return kept(*args, **kwargs)

    monkeypatch.setattr(target, "package_bytes", making)
    monkeypatch.setattr(target, "keep", keeping)
    result = project.build()
    assert [output.written for output in result.outputs] == [True] * 3
    assert _packages(project.out) == expected
    assert len({path.name for path in makers.iterdir()} - {str(os.getpid())}) == 3
    assert len(list(Cache(project.decks).kept.glob("*.record"))) == 3  # each process kept its collection
    # Each kept the notes of its package as published, for the next build to read: not this process, after them.
    assert {path.name for path in keepers.iterdir()} == {path.name for path in makers.iterdir()}
    assert len(list(Cache(project.decks).kept.glob("published-*.memo"))) == 3


def test_rows_of_some_files_are_copied_and_the_other_notes_inserted(
    project: Project, monkeypatch: pytest.MonkeyPatch
) -> None:
    """One file processed again, the other restored from the cache: its notes copied, the other's inserted."""
    _move_to_new_file(project.decks, "llm-outlier-channels")
    project.build()
    project.edit(FILE, "Die arithmetische Intensität ist sehr niedrig", "Die Intensität ist niedrig")
    shutil.rmtree(Cache(project.decks).kept)  # every package made from nothing
    copied = _copied(monkeypatch)
    result = project.build()
    german = next(output for output in result.outputs if output.lang == "de")
    assert len(copied) == 1  # the one package that changed
    assert 0 < copied[0] < german.notes
    assert _from_texts(project) == _packages(project.out)


def test_rows_missing_a_card_are_not_copied(project: Project, monkeypatch: pytest.MonkeyPatch) -> None:
    """A note whose cards were not all found: no note is copied, every one is inserted from its texts."""
    project.build()
    expected = _from_texts(project)
    shutil.rmtree(Cache(project.decks).folder)
    shutil.rmtree(project.out)
    monkeypatch.setattr(rows, "_COPY_CARDS", f"{rows._COPY_CARDS} LIMIT -1 OFFSET 1")  # one card of each left out
    copied = _copied(monkeypatch)
    project.build()
    assert copied == [0, 0, 0]
    assert _packages(project.out) == expected


def test_rows_that_cannot_be_written_only_cost_time(project: Project, monkeypatch: pytest.MonkeyPatch) -> None:
    """No room for the rows (a full disk): the notes are inserted from their texts, into the same packages."""
    project.build()
    expected = _from_texts(project)
    shutil.rmtree(Cache(project.decks).folder)
    shutil.rmtree(project.out)

    def full(path: Path) -> sqlite3.Connection:
        raise sqlite3.OperationalError("database or disk is full")

    monkeypatch.setattr(rows, "_open", full)
    copied = _copied(monkeypatch)
    project.build()
    assert copied == [0, 0, 0]  # no package had rows to copy
    assert _packages(project.out) == expected


def _edit_built(project: Project, *, fork: bool, monkeypatch: pytest.MonkeyPatch) -> dict[str, bytes]:
    """The packages of a build after one edit from a copy of the bank and cache as ``project`` has them now."""
    with monkeypatch.context() as patched:
        patched.setattr(target, "can_fork", lambda: fork)
        project.edit(FILE, "Die arithmetische Intensität ist sehr niedrig", "Die Intensität ist gering")
        result = project.build(clock=Clock(lambda: 2_000_000_000))
    assert [output.written for output in result.outputs] == [True, False, False]
    return _packages(project.out)


def _put_back(copy: Path, place: Path) -> None:
    """``place`` as ``copy`` holds it, the folder itself kept: the tests work in it."""
    for entry in place.iterdir():
        shutil.rmtree(entry) if entry.is_dir() else entry.unlink()
    shutil.copytree(copy, place, dirs_exist_ok=True)


@pytest.mark.parametrize("dies", [False, True])
def test_one_package_made_in_a_process_of_its_own_is_the_one_made_on_a_thread(
    project: Project, monkeypatch: pytest.MonkeyPatch, tmp_path_factory: pytest.TempPathFactory, dies: bool
) -> None:
    """After one edit, the one package to make is made in a forked process; one that dies leaves it to the build."""
    project.build()
    cache, copies = Cache(project.decks).folder, tmp_path_factory.mktemp("copies")
    shutil.copytree(project.root, copies / "bank")
    shutil.copytree(cache, copies / "cache")
    on_thread = _edit_built(project, fork=False, monkeypatch=monkeypatch)
    for copy, place in ((copies / "bank", project.root), (copies / "cache", cache)):
        _put_back(copy, place)
    monkeypatch.setattr(target, "PROCESS_NOTES", 0)
    makers, parent, made = project.root / "makers", os.getpid(), package.package_bytes
    makers.mkdir()

    def making(*args: Any) -> bytes:
        if dies and os.getpid() != parent:
            os._exit(9)
        (makers / str(os.getpid())).touch()  # what a forked process does is seen only in the files it writes
        return made(*args)

    monkeypatch.setattr(target, "package_bytes", making)
    assert _edit_built(project, fork=True, monkeypatch=monkeypatch) == on_thread
    assert [path.name == str(parent) for path in makers.iterdir()] == [dies]
    assert len(list(Cache(project.decks).kept.glob("*.record"))) == 3  # it kept its collection
