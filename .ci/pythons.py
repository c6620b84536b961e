"""Print the Pythons, besides the one running this, that the suite must pass on too, a path a line.

The one a class's build runs on (the ``python-version`` of the workflow a new bank
starts with), and the newest this machine has, as a new user's often is: each if
this machine has it and it is not the one running this. pyenv runs only the
versions selected: every version it has is selected for the look.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

#: The newest minor version looked for: those past the newest released are simply not found.
NEWEST_MINOR = 20
#: The workflow of a new bank: its builds and publications run on the Python it names.
WORKFLOW = Path(__file__).parent.parent / "src" / "ankibuild" / "starter" / "workflow.yml"


def pythons() -> list[str]:
    """The paths of the Pythons to test on besides this one, the class's first."""
    env = {**os.environ, **_all_of_pyenv()}
    class_minor = _workflow_minor()
    class_python = _path(class_minor, env) if class_minor != sys.version_info.minor else None
    if class_python is None and class_minor != sys.version_info.minor:
        print(f"Python 3.{class_minor}, which a class's builds run on, is not on this machine", file=sys.stderr)
    newer = (_path(minor, env) for minor in range(NEWEST_MINOR, sys.version_info.minor, -1))
    newest = next((path for path in newer if path is not None), None)
    return [path for path in dict.fromkeys((class_python, newest)) if path is not None]


def _workflow_minor() -> int:
    found = re.findall(r'python-version: "3\.(\d+)"', WORKFLOW.read_text(encoding="utf-8"))
    if len(set(found)) != 1:
        raise SystemExit(f"{WORKFLOW} should name one Python 3 version; it names {sorted(set(found))}")
    return int(found[0])


def _path(minor: int, env: dict[str, str]) -> str | None:
    """Where ``python3.<minor>`` is, if it runs and can make a virtual environment."""
    try:
        found = subprocess.run(
            [f"python3.{minor}", "-c", "import sys, venv; print(sys.executable)"],
            env=env,
            capture_output=True,
            text=True,
            check=False,
        )
    except OSError:  # not on PATH
        return None
    return found.stdout.strip() if found.returncode == 0 else None


def _all_of_pyenv() -> dict[str, str]:
    """The environment that selects every version pyenv has; none where there is no pyenv."""
    try:
        listed = subprocess.run(["pyenv", "versions", "--bare"], capture_output=True, text=True, check=False)
    except OSError:
        return {}
    return {"PYENV_VERSION": ":".join(listed.stdout.split())} if listed.returncode == 0 else {}


if __name__ == "__main__":
    print("\n".join(pythons()))
