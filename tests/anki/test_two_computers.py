"""A bank built on two computers, each with its own output folder: neither rewrites the lock the other wrote.

A note's time follows the packages in the output folder, which each computer
has of its own: a note one of them holds gets its time there. A question added
on one computer is in no package of the other's, and keeps the lock's time.
"""

from __future__ import annotations

import pytest

import ankibuild
from ankibuild.lock.clock import Clock

from ..conftest import Project
from ..gitrepo import Repo

START = 1_750_000_000
QUESTION = "elementwise-ops-memory-bound"


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
