"""Print pip constraints that pin each runtime dependency to the oldest version pyproject.toml allows.

A user who already has those versions keeps them when installing ankibuild: CI tests them too.
"""

from __future__ import annotations

import tomllib
from pathlib import Path

from packaging.requirements import Requirement


def oldest(dependencies: list[str]) -> list[str]:
    """``name==version`` for each dependency with a lower bound."""
    pins = []
    for written in dependencies:
        requirement = Requirement(written)
        lowest = [spec.version for spec in requirement.specifier if spec.operator in (">=", "==", "~=")]
        if lowest:
            pins.append(f"{requirement.name}=={lowest[0]}")
    return pins


if __name__ == "__main__":
    project = tomllib.loads((Path(__file__).parent.parent / "pyproject.toml").read_text(encoding="utf-8"))
    print("\n".join(oldest(project["project"]["dependencies"])))
