"""A package made from its last build's collection is the same file as one made from nothing."""

from __future__ import annotations

import itertools
import os
import re
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from ankibuild import build, package
from ankibuild.lock import LOCK_FILE, Clock, read_lock

from .conftest import Project

FILE = "ai-hardware.yaml"


def _block(text: str, question: str) -> str:
    """A question's whole entry in a question file, up to the next one."""
    found = re.search(rf"^  - id: {question}\n.*?(?=^  - id: |\Z)", text, re.MULTILINE | re.DOTALL)
    assert found, question
    return found.group(0)


def _add_first(decks: Path) -> None:
    path = decks / FILE
    text = path.read_text(encoding="utf-8")
    copy = _block(text, "ptq-vs-qat").replace("id: ptq-vs-qat", "id: ptq-vs-qat-again")
    path.write_text(text.replace("questions:\n", f"questions:\n{copy}", 1), encoding="utf-8")


def _remove(decks: Path) -> None:
    path = decks / FILE
    text = path.read_text(encoding="utf-8")
    path.write_text(text.replace(_block(text, "conv-im2col-gemm"), ""), encoding="utf-8")


def _move_to_new_file(decks: Path) -> None:
    path = decks / FILE
    text = path.read_text(encoding="utf-8")
    moved = _block(text, "llm-outlier-channels")
    path.write_text(text.replace(moved, ""), encoding="utf-8")
    header = "deck:\n  de: Ausreißer\n  fr: Valeurs aberrantes\n  en: Outliers\nquestions:\n"
    (decks / "outliers.yaml").write_text(header + moved, encoding="utf-8")


def _move_to_other_file(decks: Path) -> None:
    path = decks / FILE
    text = path.read_text(encoding="utf-8")
    moved = _block(text, "w4a16-decode")
    path.write_text(text.replace(moved, ""), encoding="utf-8")
    with (decks / "outliers.yaml").open("a", encoding="utf-8") as other:
        other.write(moved)


def _edit(old: str, new: str) -> Callable[[Path], None]:
    def edit(decks: Path) -> None:
        path = decks / FILE
        text = path.read_text(encoding="utf-8")
        assert old in text
        path.write_text(text.replace(old, new, 1), encoding="utf-8")

    return edit


STEPS: dict[str, Callable[[Path], None]] = {
    "an explanation edited": _edit("Die arithmetische Intensität ist sehr niedrig", "Die Intensität ist niedrig"),
    "a question added before all others": _add_first,
    "a question removed": _remove,
    "topics changed": _edit("topics: [ai-hardware, ai-hardware::quantization]", "topics: [ai-hardware]"),
    "a question moved to a new file": _move_to_new_file,
    "a question moved to another file": _move_to_other_file,
    "a deck renamed": _edit("de: KI-Hardware und Software-Stack", "de: KI-Hardware"),
}


NEW_DECKS = {"a question moved to a new file", "a deck renamed"}


def _packages(out: Path) -> dict[str, bytes]:
    return {path.name: path.read_bytes() for path in sorted(out.glob("*.apkg"))}


def _from_nothing(project: Project, root: Path, cache: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, bytes]:
    """The packages of a copy of the bank (lock and all) built with an empty cache."""
    shutil.copytree(project.decks, root / "decks")
    kept_cache = os.environ["ANKIBUILD_CACHE_DIR"]
    monkeypatch.setenv("ANKIBUILD_CACHE_DIR", str(cache))
    build(decks=root / "decks", templates=project.templates, out=root / "dist")
    monkeypatch.setenv("ANKIBUILD_CACHE_DIR", kept_cache)
    return _packages(root / "dist")


def test_every_kind_of_change_gives_the_bytes_of_a_build_from_nothing(
    project: Project, tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Edit, add, remove, retag, move and rename: each rebuild from the kept collection matches a fresh one."""
    clock = Clock(itertools.count(1_700_000_000).__next__, lambda seconds: None)
    made: list[str] = []
    for name in ("_create", "_update"):
        original = getattr(package, name)

        def counted(*args: Any, _name: str = name, _original: Any = original) -> None:
            made.append(_name)
            _original(*args)

        monkeypatch.setattr(package, name, counted)
    project.build(clock=clock)
    assert made == ["_create"] * 3
    for step, change in STEPS.items():
        made.clear()
        change(project.decks)
        project.build(clock=clock)
        rebuilt = set(made)
        # The lock, written from the one kept in the cache, is as if written from scratch.
        lock_text = (project.decks / LOCK_FILE).read_text(encoding="utf-8")
        assert read_lock(project.decks / LOCK_FILE).dumps() == lock_text, step
        fresh = _from_nothing(project, tmp_path_factory.mktemp("fresh"), tmp_path_factory.mktemp("cache"), monkeypatch)
        assert _packages(project.out) == fresh, step
        # A new or renamed deck changes the collection's deck list: such a one is made anew.
        assert rebuilt == ({"_create"} if step in NEW_DECKS else {"_update"}), step


def test_a_cache_that_cannot_be_written_only_costs_time(project: Project, monkeypatch: pytest.MonkeyPatch) -> None:
    """With the cache folder impossible to create, every package is made from nothing, and the same."""
    project.build()
    expected = _packages(project.out)
    blocker = project.root / "not-a-folder"
    blocker.write_text("a file where the cache folder would go\n", encoding="utf-8")
    monkeypatch.setenv("ANKIBUILD_CACHE_DIR", str(blocker / "cache"))
    for path in project.out.glob("*.apkg"):
        path.unlink()
    result = project.build()
    assert [o.written for o in result.outputs] == [True] * 3
    assert _packages(project.out) == expected
