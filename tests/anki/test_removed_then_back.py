"""A question removed, then brought back by a revert, reaches a classmate as the bank has it again.

Anki keeps a note removed from the bank, with the time of the copy it last
took. A revert brings back the lock of before, with the question's older time;
no package in the output folder holds the question any more to raise it above
the classmate's copy. Its package was read all the same: a note of its
language that no package holds gets the time of now, and Anki takes it.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from anki.collection import Collection

import ankibuild
from ankibuild import BuildResult
from ankibuild.changelog import HEADER, Change, ChangeKind, Changelog, Told, section, told
from ankibuild.lock.clock import MAX_TIME, Clock

from ..ankitools import collection, import_package
from ..conftest import Project
from ..gitrepo import Repo

START = 1_750_000_000
QUESTION = "elementwise-ops-memory-bound"
FIRST = "Warum benötigen elementweise Operationen"
EDITED = "Wieso brauchen elementweise Operationen"


def _cut(project: Project, name: str, qid: str) -> None:
    """Take question ``qid`` out of the question file ``name``."""
    path = project.decks / name
    text = path.read_text(encoding="utf-8")
    start = text.index(f"  - id: {qid}\n")
    end = text.index("  - id: ", start + 1)
    path.write_text(text[:start] + text[end:], encoding="utf-8")


def _question(col: Collection, package: Path) -> str:
    """What the classmate's copy of the question asks, once they imported ``package``."""
    import_package(col, package)
    (nid,) = col.find_notes(f'"ID:{QUESTION}"')
    return str(col.get_note(nid)["Question"])


def test_a_question_edited_removed_and_brought_back_as_it_first_was_reaches_a_classmate(
    project: Project, tmp_path: Path
) -> None:
    repo = Repo(project.root)
    repo.git("init", "-q")
    (project.root / ".gitignore").write_text("dist/\ndecks/.ankibuild.build-lock\n", encoding="utf-8")
    hours = iter(range(1, 10))

    def build() -> BuildResult:
        at = START + 3600 * next(hours)
        return project.build(languages=("de",), clock=Clock(lambda: at))

    package = project.out / "ai-stack-de.apkg"
    with collection(tmp_path / "classmate.anki2") as col:
        build()
        first = repo.commit("Start the bank")
        assert _question(col, package).startswith(FIRST)
        project.edit("ai-hardware.yaml", FIRST, EDITED)
        build()
        repo.commit("Reword")
        assert _question(col, package).startswith(EDITED)
        _cut(project, "ai-hardware.yaml", QUESTION)
        build()
        repo.commit("Take the question out")
        import_package(col, package)  # the classmate keeps their copy: Anki never removes a note
        repo.git("checkout", "-q", first, "--", "decks")
        back = build()
        assert [(c.question, c.kind) for c in back.changes.items] == [(QUESTION, ChangeKind.NEW)]
        assert _question(col, package).startswith(FIRST)
        again = build()  # the time it got is in the lock: the next build changes nothing
        assert not again.changes.items and not any(output.written for output in again.outputs)


def test_a_question_added_on_one_computer_changes_no_lock_on_another(
    project: Project, tmp_path_factory: pytest.TempPathFactory
) -> None:
    """A new question is in no package of the other computer's output folder: it keeps the lock's time there,
    rather than each computer's build giving it its own."""
    first = Repo(project.root)
    first.git("init", "-q")
    (project.root / ".gitignore").write_text("dist/\ndecks/.ankibuild.build-lock\n", encoding="utf-8")
    elsewhere = tmp_path_factory.mktemp("class")
    origin = Repo.init_bare(elsewhere / "origin.git")
    hours = iter(range(1, 10))

    def build(repo: Repo) -> None:
        at = START + 3600 * next(hours)
        ankibuild.build(decks=repo.path / "decks", out=repo.path / "dist", clock=Clock(lambda: at))

    build(first)
    first.commit("Start the bank")
    first.git("push", "-q", str(origin.path), "HEAD:main")
    second = origin.clone(elsewhere / "second")
    build(second)
    path = project.decks / "ai-hardware.yaml"
    text = path.read_text(encoding="utf-8")
    start = text.index(f"  - id: {QUESTION}\n")
    block = text[start : text.index("  - id: ", start + 1)]
    path.write_text(text + block.replace(QUESTION, "elementwise-ops-again"), encoding="utf-8")
    build(first)
    first.commit("Ask again")
    first.git("push", "-q", str(origin.path), "HEAD:main")
    second.git("pull", "-q", "origin", "main")
    for repo in (second, first, second):
        build(repo)
        assert repo.git("status", "--porcelain").stdout == ""


def test_what_a_changelog_told_is_read_from_its_own_lines_and_no_time_beyond_a_year() -> None:
    """A section's time over a year ahead is no real time: a heading any text made could not set every fresh
    time to the last one a lock may hold, after which no edit would reach a classmate again."""
    changelog = section(
        Changelog([Change("de", "q1", ChangeKind.REMOVED), Change("en", "q2", ChangeKind.NEW)], 1_800_000_000)
    )
    forged = "## 2280-01-01 00:00 UTC\n\n### xx\n\n- removed q9\n"
    said = told(f"{HEADER}\n{forged}\n{changelog}", latest=1_800_000_000 + 365 * 86_400)
    assert said.langs == {"de", "en", "xx"} and said.removed == {("de", "q1"), ("xx", "q9")}
    assert said.latest == 1_800_000_000 // 60 * 60 + 59
    assert told("", latest=MAX_TIME) == Told(frozenset(), frozenset(), 0)
