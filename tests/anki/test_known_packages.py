"""A package known to be as the last build made it is not read again, and the build comes out as if it were.

After an edit in one language, the packages of the others hold their notes
as the lock has them: reading them changes no time and tells no change. Each
scenario's last build is made twice from the same files, once so and once
reading every package, and must leave the same lock, packages and changelog.
"""

from __future__ import annotations

import contextlib
import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from ankibuild import BuildResult
from ankibuild.anki import published, target
from ankibuild.lock.clock import Clock

from ..conftest import Project

pytestmark = pytest.mark.slow  # several builds of the sample bank, the last one twice

START = 1_750_000_000
FILE = "ai-hardware.yaml"
DE = ("Die arithmetische Intensität ist sehr niedrig", "Die Intensität ist niedrig")
LANGS = ("de", "fr", "en")
EN = ("ReLU merely reads each element", "ReLU only reads each element")


class Builds:
    """The project's builds, each a minute after the one before."""

    def __init__(self, project: Project) -> None:
        self.project, self.step = project, 0

    def __call__(self) -> BuildResult:
        self.step += 1
        at = START + 60 * self.step
        return self.project.build(clock=Clock(lambda: at))


def _everything(project: Project, result: BuildResult) -> dict[str, object]:
    """What a build leaves that anyone sees: the files it writes beside the bank and in the output folder."""
    files = [*sorted(project.out.iterdir()), project.decks / "ankibuild.lock", project.decks / "CHANGELOG.md"]
    seen: dict[str, object] = {path.name: path.read_bytes() for path in files if path.is_file()}
    return {**seen, "changes": result.changes, "warnings": [warning.as_dict() for warning in result.warnings]}


@contextlib.contextmanager
def _reading(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """The names of the published packages read meanwhile."""
    read: list[str] = []
    original = published._read_file

    def spy(path: Path, *args: Any, **options: Any) -> published.Published:
        read.append(path.name)
        return original(path, *args, **options)

    with monkeypatch.context() as patch:
        patch.setattr(published, "_read_file", spy)
        yield read


def _both_ways(project: Project, builds: Builds, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The next build as it is, asserted to leave what one reading every package leaves; the packages it read."""
    cache = Path(os.environ["ANKIBUILD_CACHE_DIR"])
    saved = project.root.parent / f"{project.root.name}-saved"
    shutil.copytree(project.root, saved / "project", symlinks=True)
    shutil.copytree(cache, saved / "cache", symlinks=True)
    with _reading(monkeypatch) as read:
        made = _everything(project, builds())
    monkeypatch.chdir(saved)  # the build runs from the project's folder, which is put back as it was
    for copy, place in ((saved / "project", project.root), (saved / "cache", cache)):
        shutil.rmtree(place)
        shutil.copytree(copy, place, symlinks=True)
    monkeypatch.chdir(project.root)
    shutil.rmtree(saved)
    builds.step -= 1
    with monkeypatch.context() as patch:
        patch.setattr(target.AnkiTarget, "_known", lambda self, packages: {})
        reference = _everything(project, builds())
    assert made == reference
    return read


def test_after_an_edit_in_one_language_only_its_package_is_read(
    project: Project, monkeypatch: pytest.MonkeyPatch
) -> None:
    builds = Builds(project)
    builds()
    builds()
    project.edit(FILE, *DE)
    assert _both_ways(project, builds, monkeypatch) == ["ai-stack-de.apkg"]


def test_an_edit_undone_in_one_language_while_another_is_edited(
    project: Project, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The undone note gets a time after its published copy's; the other language is not read."""
    builds = Builds(project)
    builds()
    project.edit(FILE, *EN)
    builds()
    project.edit(FILE, *reversed(EN))
    project.edit(FILE, *DE)
    assert sorted(_both_ways(project, builds, monkeypatch)) == ["ai-stack-de.apkg", "ai-stack-en.apkg"]


def test_an_older_package_in_the_output_folder_has_every_package_read(
    project: Project, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An older copy of a note as it is now, with an older time, must not take the place of the package's copy."""
    builds = Builds(project)
    builds()
    older = project.out.parent / "older-en.apkg"
    shutil.copyfile(project.out / "ai-stack-en.apkg", older)
    project.edit(FILE, *EN)
    builds()
    project.edit(FILE, *reversed(EN))
    builds()  # the note is as in the older package again, with a newer time
    shutil.move(older, project.out / "older-en.apkg")
    project.edit(FILE, *DE)
    assert set(_both_ways(project, builds, monkeypatch)) == {f"ai-stack-{lang}.apkg" for lang in LANGS} | {older.name}


def test_a_lock_put_back_as_it_was_has_the_packages_it_no_longer_made_read(
    project: Project, monkeypatch: pytest.MonkeyPatch
) -> None:
    """After the lock is reverted, the times it holds are not those of the packages: each is followed again."""
    builds = Builds(project)
    builds()
    lock = project.decks / "ankibuild.lock"
    reverted = lock.read_bytes()
    project.edit(FILE, *EN)
    builds()
    lock.write_bytes(reverted)
    project.edit(FILE, *DE)
    assert sorted(_both_ways(project, builds, monkeypatch)) == ["ai-stack-de.apkg", "ai-stack-en.apkg"]
