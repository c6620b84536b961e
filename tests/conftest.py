"""Shared fixtures: a copy of the sample bank to edit, and real Anki collections."""

from __future__ import annotations

import inspect
import os
import shutil
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from ankibuild import BuildResult, build
from ankibuild.buildlock import BUILD_LOCK_FILE
from ankibuild.cards.folders import DEFAULTS

ROOT = Path(__file__).resolve().parent.parent
DATA = Path(__file__).resolve().parent / "data"
#: Packages as a release made them, which every later build must keep importing onto.
RELEASED = DATA / "released"
#: The sample bank's files as they were when the packages in RELEASED were built.
RELEASED_SAMPLE = DATA / "released-sample"
#: The sample bank's files that hold the examples of kinds other than multiple choice, and of
#: multiple choice beyond one answer (several answers, feedback, a question's own shuffle).
KIND_EXAMPLES = ("cloze.yaml", "more-kinds.yaml", "ai-inference.yaml")


@dataclass
class Project:
    """A bank, its templates and an output folder, all inside ``tmp_path``."""

    root: Path

    @property
    def decks(self) -> Path:
        return self.root / "decks"

    @property
    def templates(self) -> Path:
        return self.root / "templates"

    @property
    def out(self) -> Path:
        return self.root / "dist"

    def build(self, **options: Any) -> BuildResult:
        """``ankibuild.build`` on this project's folders (its templates are found beside the bank)."""
        return build(decks=self.decks, out=self.out, **options)

    def edit(self, relative: str, old: str, new: str) -> None:
        path = self.decks / relative
        text = path.read_text(encoding="utf-8")
        assert old in text, f"{old!r} not in {relative}"
        path.write_text(text.replace(old, new, 1), encoding="utf-8")


@pytest.fixture(autouse=True)
def own_cache(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    """Each test has its own build cache: none reads what another left behind, or the user's."""
    monkeypatch.setenv("ANKIBUILD_CACHE_DIR", str(tmp_path_factory.mktemp("cache")))


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Project:
    """The sample bank's multiple-choice questions and the templates, without a lock: a bank's first build.

    The files with the examples of the other kinds are left out: the tests of
    the sample count, edit and review its multiple-choice questions, and each
    kind's example is tested with its kind.
    """
    # Not the lock, and not what a build of the sample left in the folder (its build lock).
    left_out = ("ankibuild.lock", ".*", *KIND_EXAMPLES)
    shutil.copytree(ROOT / "decks", tmp_path / "decks", ignore=shutil.ignore_patterns(*left_out))
    shutil.copytree(DEFAULTS, tmp_path / "templates")
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("SOURCE_DATE_EPOCH", raising=False)
    return Project(tmp_path)


def use_scenario(project: Project, name: str) -> Project:
    """Put the test bank ``tests/data/<name>`` in place of the project's sample bank.

    A ``templates/`` folder in the scenario is laid over the project's templates.
    """
    shutil.rmtree(project.decks)
    shutil.copytree(DATA / name, project.decks, ignore=shutil.ignore_patterns("templates"))
    if (DATA / name / "templates").is_dir():
        shutil.copytree(DATA / name / "templates", project.templates, dirs_exist_ok=True)
    return project


def put_pipe(path: Path) -> None:
    """A named pipe in place of the file: a build that opened it to read would wait for a writer forever."""
    path.unlink()
    os.mkfifo(path)


def put_endless(path: Path) -> None:
    """A link to a device that reads without end in place of the file."""
    path.unlink()
    path.symlink_to("/dev/zero")


def snapshot(*folders: Path) -> dict[Path, tuple[bytes, int]]:
    """Every file below ``folders`` with its bytes and modification time, to prove nothing was written.

    The build's inter-process lock file is left out: taking the lock is not writing an output.
    """
    return {
        path: (path.read_bytes(), path.stat().st_mtime_ns)
        for folder in folders
        for path in sorted(folder.rglob("*"))
        if path.is_file() and path.name != BUILD_LOCK_FILE
    }


@cache
def _uses(module: ModuleType, library: str) -> bool:
    """Whether ``module`` imports ``library``, itself or through a helper module of these tests."""
    for value in vars(module).values():
        found = value if isinstance(value, ModuleType) else inspect.getmodule(value)
        name = found.__name__ if found else ""
        if name == library or name.startswith(f"{library}."):
            return True
        if found is not None and found is not module and name.startswith("tests.") and _uses(found, library):
            return True
    return False


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Mark what a test needs, found from what it uses: Anki's library (``anki``), a browser (``browser``).

    ``pytest -m "not anki and not browser and not slow"`` is then the quick subset (see the README).
    """
    for item in items:
        module = getattr(item, "module", None)
        if module is not None and _uses(module, "anki"):
            item.add_marker(pytest.mark.anki)
        if module is not None and _uses(module, "tests.cdp"):
            item.add_marker(pytest.mark.browser)
