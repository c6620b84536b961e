"""Print the newest Python on this machine that is newer than the one running this; print nothing if none is.

pyenv runs only the versions selected: every version it has is selected for the look.
"""

from __future__ import annotations

import os
import subprocess
import sys

#: The newest minor version looked for: those past the newest released are simply not found.
NEWEST_MINOR = 20


def newest() -> str | None:
    """The path of the newest ``python3.N`` found, N above this Python's, that can make a virtual environment."""
    env = {**os.environ, **_all_of_pyenv()}
    for minor in range(NEWEST_MINOR, sys.version_info.minor, -1):
        try:
            found = subprocess.run(
                [f"python3.{minor}", "-c", "import sys, venv; print(sys.executable)"],
                env=env,
                capture_output=True,
                text=True,
                check=False,
            )
        except OSError:  # not on PATH
            continue
        if found.returncode == 0:
            return found.stdout.strip()
    return None


def _all_of_pyenv() -> dict[str, str]:
    """The environment that selects every version pyenv has; none where there is no pyenv."""
    try:
        listed = subprocess.run(["pyenv", "versions", "--bare"], capture_output=True, text=True, check=False)
    except OSError:
        return {}
    return {"PYENV_VERSION": ":".join(listed.stdout.split())} if listed.returncode == 0 else {}


if __name__ == "__main__":
    print(newest() or "")
