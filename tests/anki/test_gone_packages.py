"""With ``--split``, a question file renamed or deleted leaves a package that no build makes again.

Once the changelog told what it held, the build removes it: otherwise every
build would tell it again, and a classmate given the output folder would get
its questions back. Only a package named as ``--split`` names them, holding
nothing but the bank's own notes, is removed.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from ankibuild import build
from ankibuild.changelog import ChangeKind
from ankibuild.packagenames import no_longer_made
from ankibuild.summary import build_summary, would_change

from ..ankitools import collection, collection_notes, import_package
from ..conftest import ROOT, Project

LANGS = ("de", "fr", "en")
#: The questions of the file the tests delete or rename.
INFERENCE = {"gpu-on-chip-memory", "kv-cache-growth"}


@pytest.fixture
def project(project: Project) -> Project:
    """The project with a second question file, the sample's: with ``--split``, a package of its own each."""
    shutil.copy(ROOT / "decks" / "ai-inference.yaml", project.decks)
    return project


def _packages(project: Project, deck: str) -> list[Path]:
    return [project.out / f"ai-stack-{deck}-{lang}.apkg" for lang in sorted(LANGS)]


def _question_ids(packages: list[Path], col_path: Path) -> list[str]:
    """The question of each note a classmate has who imported every one of ``packages`` into a new profile."""
    with collection(col_path) as col:
        for package in packages:
            import_package(col, package)
        return sorted(fields.split("\x1f")[0] for fields in collection_notes(col).values())


@pytest.mark.parametrize("cache", ["kept", "empty"])
def test_a_deleted_files_packages_are_removed_once_the_changelog_told_what_they_held(
    project: Project, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, cache: str
) -> None:
    """From the cache, a package is known to hold nothing but the bank's notes from when it was made; with an
    empty cache, from reading it."""
    project.build(split=True)
    gone = _packages(project, "ai-inference")
    assert all(path.is_file() for path in gone)
    (project.decks / "ai-inference.yaml").unlink()
    if cache == "empty":
        monkeypatch.setenv("ANKIBUILD_CACHE_DIR", str(tmp_path / "empty-cache"))

    result = project.build(split=True)
    assert sorted(result.removed) == gone and not any(path.exists() for path in gone)
    told = {(c.lang, c.question) for c in result.changes.items if c.kind is ChangeKind.REMOVED}
    assert told == {(lang, question) for lang in LANGS for question in INFERENCE}
    assert f"  removed {gone[0]}: no question file makes it any more" in build_summary(result, dry_run=False)
    left = sorted(project.out.glob("*.apkg"))
    assert INFERENCE.isdisjoint(_question_ids(left, tmp_path / "classmate.anki2"))

    project.edit("ai-hardware.yaml", "Die arithmetische Intensität", "Die Intensität")
    again = project.build(split=True)
    assert again.removed == [] and [(c.lang, c.kind) for c in again.changes.items] == [("de", ChangeKind.CHANGED)]
    changelog = (project.out / "CHANGELOG.md").read_text(encoding="utf-8")
    assert changelog.count("- removed kv-cache-growth") == len(LANGS)  # told once in each language


def test_a_renamed_files_packages_give_way_to_those_of_its_new_name(project: Project) -> None:
    project.build(split=True)
    (project.decks / "ai-inference.yaml").rename(project.decks / "inference.yaml")
    result = project.build(split=True)
    assert sorted(result.removed) == _packages(project, "ai-inference")
    assert all(path.is_file() for path in _packages(project, "inference"))
    assert not any(c.kind is ChangeKind.REMOVED for c in result.changes.items)
    again = project.build(split=True)
    assert again.removed == [] and not again.changes.items


def test_a_package_that_cannot_be_removed_is_a_warning_and_the_next_build_tells_it_again(
    project: Project, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Not recorded, the build is not taken for the next one, which reads the package again, tells what it held
    that is gone and removes it: what a build with an empty cache does."""
    project.build(split=True)
    (project.decks / "ai-inference.yaml").unlink()
    stuck = project.out / "ai-stack-ai-inference-de.apkg"
    unlink = Path.unlink

    def refused(path: Path, missing_ok: bool = False) -> None:
        if path == stuck:
            raise PermissionError(1, "Operation not permitted", str(path))
        unlink(path, missing_ok=missing_ok)

    with monkeypatch.context() as patched:
        patched.setattr(Path, "unlink", refused)
        result = project.build(split=True)
    assert stuck.is_file() and sorted(result.removed) == [p for p in _packages(project, "ai-inference") if p != stuck]
    (warning,) = [w for w in result.warnings if w.file == str(stuck)]
    assert "cannot be removed (Operation not permitted)" in warning.message
    again = project.build(split=True)
    assert again.removed == [stuck] and not stuck.exists()
    assert {(c.lang, c.kind) for c in again.changes.items} == {("de", ChangeKind.REMOVED)}


def test_a_link_named_as_a_package_is_left_as_it_is(project: Project) -> None:
    """A build writes no link: one in the output folder was made by someone, for a reason of theirs."""
    project.build(split=True)
    link = project.out / "ai-stack-latest-de.apkg"
    link.symlink_to("ai-stack-ai-hardware-de.apkg")
    project.edit("ai-hardware.yaml", "Die arithmetische Intensität", "Die Intensität")
    assert project.build(split=True).removed == [] and link.is_symlink()


def test_a_dry_run_tells_what_it_would_remove_and_removes_nothing(project: Project) -> None:
    project.build(split=True)
    (project.decks / "ai-inference.yaml").unlink()
    result = project.build(split=True, dry_run=True)
    gone = _packages(project, "ai-inference")
    assert sorted(result.removed) == gone and all(path.is_file() for path in gone)
    assert would_change(result, dry_run=True)
    assert f"  would remove {gone[0]}: no question file makes it any more" in build_summary(result, dry_run=True)


def test_only_packages_of_nothing_but_the_banks_notes_named_as_split_names_them_are_removed(
    project: Project, tmp_path: Path
) -> None:
    """The packages of one per language, and those of another bank whose names look like the bank's, stay."""
    other = tmp_path / "other"
    shutil.copytree(project.decks, other / "decks")
    shutil.copytree(project.templates, other / "templates")
    bank = other / "decks" / "bank.yaml"
    bank.write_text(bank.read_text(encoding="utf-8").replace("id: ai-stack\n", "id: ai-stack-extra\n"), "utf-8")
    build(decks=other / "decks", out=other / "dist", split=True)
    project.out.mkdir()
    for package in (other / "dist").glob("*.apkg"):  # named ai-stack-extra-ai-hardware-de.apkg...
        shutil.copy(package, project.out)
    theirs = sorted(project.out.glob("ai-stack-extra-*.apkg"))
    assert len(theirs) == 2 * len(LANGS)
    project.build()  # one package per language, beside which --split makes one per deck
    project.build(split=True)
    (project.decks / "ai-inference.yaml").unlink()
    result = project.build(split=True)
    assert sorted(result.removed) == _packages(project, "ai-inference")
    assert all(path.is_file() for path in theirs)
    assert all((project.out / f"ai-stack-{lang}.apkg").is_file() for lang in LANGS)


def test_a_package_named_as_one_made_but_for_case_is_removed_unless_it_is_that_very_file(tmp_path: Path) -> None:
    """On a file system that ignores case, a file renamed in case only writes its package over the old one: the
    two names are one file (here, a hard link). Elsewhere they are two, and the old one is no longer made."""
    out = tmp_path / "dist"
    out.mkdir()
    made = out / "ai-stack-ai-inference-de.apkg"
    made.write_bytes(b"made")
    same, other = out / "ai-stack-AI-Inference-de.apkg", out / "ai-stack-Ai-Inference-de.apkg"
    same.hardlink_to(made)
    other.write_bytes(b"made before a rename in case only")
    found = [made, same, other, out / "ai-stack-old-de.apkg", out / "ai-stack-de.apkg"]
    assert no_longer_made(found, [made], bank_id="ai-stack", langs=["de"], split=True) == [
        other,
        out / "ai-stack-old-de.apkg",
    ]
    assert no_longer_made(found, [made], bank_id="ai-stack", langs=["de"], split=False) == []


def test_a_file_renamed_in_case_only_leaves_no_package_of_its_old_name(project: Project, tmp_path: Path) -> None:
    """On a file system that tells case, the packages of the old name are other files: removed, told once."""
    project.build(split=True)
    (project.decks / "ai-inference.yaml").rename(project.decks / "AI-Inference.yaml")
    result = project.build(split=True)
    assert sorted(result.removed) == _packages(project, "ai-inference")
    left = sorted(project.out.glob("*.apkg"))
    assert left == sorted([*_packages(project, "AI-Inference"), *_packages(project, "ai-hardware")])
    assert not any(c.kind is ChangeKind.REMOVED for c in result.changes.items)
    assert set(_question_ids(left, tmp_path / "classmate.anki2")) >= INFERENCE
    project.edit("AI-Inference.yaml", "- id: kv-cache-growth", "- id: kv-cache-grows")
    renamed = project.build(split=True)
    assert renamed.removed == []
    told = {(c.question, c.kind) for c in renamed.changes.items}
    assert told == {("kv-cache-growth", ChangeKind.REMOVED), ("kv-cache-grows", ChangeKind.NEW)}
    project.edit("ai-hardware.yaml", "Die arithmetische Intensität", "Die Intensität")
    again = project.build(split=True)
    assert [(c.lang, c.kind) for c in again.changes.items] == [("de", ChangeKind.CHANGED)]
