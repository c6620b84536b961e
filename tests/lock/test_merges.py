"""Merges: what git leaves half-merged is an error naming the file and line, never published."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from ankibuild import build, check
from ankibuild.errors import BankError, Problems
from ankibuild.lock.format import LOCK_FILE, read_lock
from ankibuild.translations.record import TRANSLATIONS_FILE, Behind, Entry, dumps, parse

from ..conftest import Project, snapshot
from ..gitrepo import Repo

pytestmark = pytest.mark.slow  # git repositories, branches and merges

#: Every kind of file a build reads, and a line inside it to split into a conflict.
READ = [
    ("decks/bank.yaml", 5),
    ("decks/ai-hardware.yaml", 12),
    ("templates/default/front.html", 3),
    ("templates/default/back.html", 2),
    ("templates/style.css", 4),
    ("templates/card.js", 6),
    ("templates/de/labels.yaml", 2),
    (f"decks/{LOCK_FILE}", 3),
    ("decks/CHANGELOG.md", 3),
]


def _conflict(project: Project, relative: str, line: int) -> None:
    """Leave ``line`` of the file as git leaves a line two branches changed alike."""
    path = project.root / relative
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    lines[line - 1 : line] = ["<<<<<<< HEAD\n", lines[line - 1], "=======\n", lines[line - 1], ">>>>>>> topic\n"]
    path.write_text("".join(lines), encoding="utf-8")


@pytest.mark.parametrize(("relative", "line"), READ)
def test_conflict_markers_are_an_error_naming_file_and_line(project: Project, relative: str, line: int) -> None:
    """``check`` and ``build`` both stop at the first marker of each file; nothing reaches ``dist/``."""
    project.build()
    _conflict(project, relative, line)
    before = snapshot(project.out, project.decks)
    for run in (
        lambda: check(decks=project.decks, templates=project.templates),
        lambda: build(decks=project.decks, templates=project.templates, out=project.out),
    ):
        with pytest.raises(BankError) as caught:
            run()
        found = [p for p in caught.value.problems if "merge conflict markers" in p.message]
        assert [(p.file, p.line, p.column) for p in found] == [(relative, line, 1)]
        assert "<<<<<<<" in found[0].hint
    assert snapshot(project.out, project.decks) == before


def test_a_published_changelog_with_conflict_markers_is_never_extended(project: Project) -> None:
    """The changelog in dist/ is read back to be continued: markers in it stop the build, which writes nothing."""
    project.build()
    _conflict(project, "dist/CHANGELOG.md", 3)
    project.edit("ai-hardware.yaml", "Die arithmetische Intensität", "Die Intensität")
    before = snapshot(project.out, project.decks)
    with pytest.raises(BankError) as caught:
        project.build()
    found = [(p.file, p.line) for p in caught.value.problems if "merge conflict markers" in p.message]
    assert found == [("dist/CHANGELOG.md", 3)]
    assert snapshot(project.out, project.decks) == before


def _question(qid: str, text: str) -> str:
    """A new question, all three languages, to append to a question file."""
    body = "\n".join(
        f"    {lang}:\n      question: {text} ({lang})?\n      options: [Yes, 'No']\n      explanation: Because."
        for lang in ("de", "fr", "en")
    )
    return f"\n  - id: {qid}\n    topics: [ai-hardware]\n    answer: A\n{body}\n"


def _add_file(path: Path, qid: str, text: str) -> None:
    """A new question file (a deck) with one question."""
    titles = "{de: Extra, fr: Extra, en: Extra}"
    path.write_text(f"deck: {titles}\nquestions:{_question(qid, text)}", encoding="utf-8")


def test_two_branches_that_add_edit_and_remove_questions_merge_without_a_conflict(
    project: Project, tmp_path: Path
) -> None:
    """Each classmate builds and commits on a branch; the merge needs nobody, and CI's --frozen build accepts it.

    Their new questions sort next to each other at the end of the lock, and one
    removes a question whose lock lines neighbour those of one the other edits.
    """
    origin = Repo.init_bare(tmp_path / "origin.git")
    alice = origin.clone(tmp_path / "alice")
    shutil.copytree(project.decks, alice.path / "decks")
    shutil.copytree(project.templates, alice.path / "templates")
    (alice.path / ".gitignore").write_text("dist/\ndecks/.ankibuild.build-lock\n", encoding="utf-8")
    _build(alice)
    assert f"{LOCK_FILE} merge=union" in (alice.path / "decks" / ".gitattributes").read_text(encoding="utf-8")
    alice.commit("Start the bank")
    alice.git("push", "-q", "origin", "main")
    bob = origin.clone(tmp_path / "bob")

    alice.git("switch", "-q", "-c", "more")
    _add_file(alice.path / "decks" / "alice.yaml", "zz-alice", "Alice asks")
    _remove_question(alice.path / "decks" / "ai-hardware.yaml", "ptq-calibration")
    _build(alice)
    alice.commit("Add a question, drop another")
    alice.git("push", "-q", "origin", "more")

    _add_file(bob.path / "decks" / "bob.yaml", "zz-bob", "Bob asks")
    _edit(
        bob.path / "decks" / "ai-hardware.yaml",
        "    de:\n      question: Welche Aussage",
        "    de:\n      question: Was",
    )
    _build(bob)
    bob.commit("Add a question, fix another")
    bob.git("fetch", "-q", "origin")
    merged = bob.git("merge", "--no-edit", "origin/more", check=False)
    assert merged.returncode == 0, merged.stdout + merged.stderr
    assert bob.git("status", "--porcelain").stdout == ""

    result = build(decks=bob.path / "decks", templates=bob.path / "templates", out=bob.path / "dist", frozen=True)
    # Against what Bob last built: Alice's question is new, the one she removed is gone.
    assert {(change.question, change.kind) for change in result.changes.items} == {
        ("zz-alice", "new"),
        ("ptq-calibration", "removed"),
    }
    # The merge kept the removed question's lines beside the neighbour's edit: harmless, and gone at the next build.
    assert "ptq-calibration" in {note.question for note in read_lock(bob.path / "decks" / LOCK_FILE).notes.values()}
    tidy = build(decks=bob.path / "decks", templates=bob.path / "templates", out=bob.path / "dist")
    assert tidy.lock_written and not tidy.changes
    questions = {note.question for note in read_lock(bob.path / "decks" / LOCK_FILE).notes.values()}
    assert {"zz-alice", "zz-bob", "ptq-vs-qat"} <= questions and "ptq-calibration" not in questions


def _build(repo: Repo) -> None:
    build(decks=repo.path / "decks", templates=repo.path / "templates", out=repo.path / "dist")


def _edit(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert old in text
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


def _remove_question(path: Path, qid: str) -> None:
    text = path.read_text(encoding="utf-8")
    start = text.index(f"  - id: {qid}")
    end = text.find("\n  - id: ", start + 1)
    path.write_text(text[:start] + (text[end + 1 :] if end != -1 else ""), encoding="utf-8")


def test_a_translations_record_merged_line_by_line_reads_as_one_block_per_question(tmp_path: Path) -> None:
    """Both sides' lines of one question (git's union merge): one block, and a translation behind stays flagged."""
    digest, other = "0123456789abcdef", "fedcba9876543210"
    ours = {"q": {"de": Entry(digest), "en": Entry(other, Behind("de", digest, "2026-01-02"))}}
    theirs = {"q": {"de": Entry(other), "en": Entry(other)}, "r": {"de": Entry(digest)}}
    union = dumps(ours) + "".join(dumps(theirs).splitlines(keepends=True)[3:])
    problems = Problems()
    merged = parse(tmp_path / TRANSLATIONS_FILE, union, problems)
    assert not problems.items
    assert merged == {"q": {"de": Entry(other), "en": ours["q"]["en"]}, "r": {"de": Entry(digest)}}
