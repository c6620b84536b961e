"""A real git repository for a bank, driven the way a class drives theirs."""

from __future__ import annotations

import subprocess
from dataclasses import dataclass
from pathlib import Path

_IDENTITY = ("-c", "user.name=Student", "-c", "user.email=student@example.org", "-c", "init.defaultBranch=main")


@dataclass(frozen=True)
class Repo:
    path: Path

    def git(self, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            ["git", *_IDENTITY, *args], cwd=self.path, capture_output=True, text=True, check=check, timeout=60
        )

    def commit(self, message: str) -> str:
        self.git("add", "-A")
        self.git("commit", "-q", "-m", message)
        return self.head()

    def head(self) -> str:
        return self.git("rev-parse", "HEAD").stdout.strip()

    @classmethod
    def init_bare(cls, path: Path, default_branch: str = "main") -> Repo:
        """A remote whose default branch (the one a clone checks out) is ``default_branch``."""
        path.mkdir(parents=True)
        repo = cls(path)
        repo.git("init", "-q", "--bare")
        repo.git("symbolic-ref", "HEAD", f"refs/heads/{default_branch}")
        return repo

    def clone(self, path: Path) -> Repo:
        Repo(path.parent).git("clone", "-q", str(self.path), path.name)
        return Repo(path)

    def branch(self) -> str:
        return self.git("branch", "--show-current").stdout.strip()


def edit(repo: Repo, name: str, old: str, new: str) -> None:
    """Replace ``old`` with ``new`` in the question file ``name``, as GitHub's web editor would: nothing is built."""
    path = repo.path / "decks" / name
    text = path.read_text(encoding="utf-8")
    assert old in text, f"{old!r} not in {name}"
    path.write_text(text.replace(old, new, 1), encoding="utf-8")
