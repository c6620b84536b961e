"""The CI workflow `ankibuild init` writes, each step run as GitHub runs it: bash, with the workflow's env."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path
from typing import Any

import yaml


def workflow(bank: Path) -> dict[str, Any]:
    loaded: dict[str, Any] = yaml.safe_load((bank / ".github" / "workflows" / "decks.yml").read_text(encoding="utf-8"))
    return loaded


def step_index(bank: Path, job: str, name: str) -> int:
    """Where the step called ``name`` is in ``job``."""
    steps = workflow(bank)["jobs"][job]["steps"]
    (index,) = [i for i, step in enumerate(steps) if step.get("name") == name]
    return index


def run_step(bank: Path, job: str, index: int, before: str = "") -> subprocess.CompletedProcess[str]:
    """Step ``index`` of ``job``, after the shell lines ``before`` (e.g. a function standing in for a command)."""
    flow = workflow(bank)
    script = before + flow["jobs"][job]["steps"][index]["run"]
    env = {**os.environ, **flow["env"]}
    return subprocess.run(["bash", "-e", "-c", script], cwd=bank, env=env, capture_output=True, text=True, timeout=60)
