"""What a new user gets: the wheel, installed in a fresh environment far from this repository, works alone.

No editable install, no ``templates/`` folder around, no package of this
machine's Python: the wheel and the newest dependencies its metadata allows.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import venv
import zipfile
from pathlib import Path

import pytest

from ankibuild.cards.folders import default_files

from ..ankitools import imported_cards
from ..conftest import ROOT
from ..workflow import run_step

#: Words a build backend prints when something it was given will stop working.
WARNINGS = ("Warning", "deprecated", "!!")


def _quiet_env() -> dict[str, str]:
    """This process's environment without what would tie the new one to this repository or this venv."""
    leaks = {"PYTHONPATH", "VIRTUAL_ENV", "ANKIBUILD_CACHE_DIR", "PYTHONHOME"}
    return {name: value for name, value in os.environ.items() if name not in leaks}


def _run(*command: str | Path, cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    done = subprocess.run([str(part) for part in command], cwd=cwd, env=env, capture_output=True, text=True)
    assert done.returncode == 0, f"{command}\n{done.stdout}\n{done.stderr}"
    return done


#: What a checkout may hold besides its sources: environments, outputs, caches.
NOT_SOURCES = shutil.ignore_patterns(
    ".git", ".venv", "dist", "build", "*.egg-info", "__pycache__", ".*_cache", ".hypothesis", "output"
)


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """The wheel built from a copy of this repository's sources, and what the build backend printed.

    A copy, because the build backend works in a ``build/`` folder beside the sources,
    which another test process may be building in at the same time.
    """
    out = tmp_path_factory.mktemp("wheel")
    sources = out / "sources"
    shutil.copytree(ROOT, sources, ignore=NOT_SOURCES)
    command: list[str | Path] = [sys.executable, "-m", "pip", "wheel", "--no-deps", "-v", "-w", out, sources]
    built = _run(*command, cwd=out, env=_quiet_env())
    (found,) = out.glob("ankibuild-*.whl")
    return found, built.stdout + built.stderr


def test_the_wheel_builds_without_warnings_and_carries_the_templates(wheel: tuple[Path, str]) -> None:
    """setuptools has nothing to warn about, and every default template and starter file is in the wheel."""
    path, log = wheel
    backend = [line for line in log.splitlines() if any(word in line for word in WARNINGS)]
    assert backend == []
    names = set(zipfile.ZipFile(path).namelist())
    assert {f"ankibuild/templates/{relative.as_posix()}" for relative in default_files()} <= names
    assert {"ankibuild/starter/workflow.yml", "ankibuild/starter/pre-commit-local.yaml", "ankibuild/py.typed"} <= names


def test_a_fresh_install_starts_checks_builds_and_previews_a_bank(
    wheel: tuple[Path, str], tmp_path_factory: pytest.TempPathFactory
) -> None:
    """init, check --strict, build and preview in an empty folder; the packages import into Anki and render.

    Installed from a wheel, init knows no origin for CI: the workflow it writes stops at its first step."""
    home = tmp_path_factory.mktemp("new-user")
    venv.create(home / "venv", with_pip=True)
    python = home / "venv" / "bin" / "python"
    env = {**_quiet_env(), "HOME": str(home), "XDG_CACHE_HOME": str(home / "cache")}
    _run(python, "-m", "pip", "install", "--quiet", "--disable-pip-version-check", wheel[0], cwd=home, env=env)
    ankibuild = home / "venv" / "bin" / "ankibuild"
    bank = home / "quiz"
    _run(ankibuild, "init", bank, "--lang", "de", "--lang", "ar", "--lang", "en", cwd=home, env=env)
    # No origin known from a wheel: CI stops at its first step, with one line saying what to set.
    first = run_step(bank, "publish", 0)
    assert first.returncode == 1 and len(first.stdout.splitlines()) == 1 and "ANKIBUILD_GIT" in first.stdout
    for command in (["check", "--strict"], ["build"], ["preview"]):
        _run(ankibuild, *command, cwd=bank, env=env)
    where = _run(python, "-c", "import ankibuild; print(ankibuild.__file__)", cwd=home, env=env).stdout
    assert Path(where.strip()).is_relative_to(home / "venv")
    assert (bank / "dist" / "preview" / "index.html").is_file()
    packages = sorted((bank / "dist").glob("*.apkg"))
    assert [p.name for p in packages] == ["quiz-ar.apkg", "quiz-de.apkg", "quiz-en.apkg"]
    logs, cards = imported_cards(home / "c.anki2", packages)
    assert [log.new for log in logs] == [1, 1, 1] and len(cards) == 3


def test_ci_runs_the_readmes_two_commands_in_a_fresh_environment() -> None:
    """The commands at the top of the README are the ones CI runs, word for word, after removing any old venv."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    commands = readme.split("```sh\n", 1)[1].split("```", 1)[0].splitlines()
    assert len(commands) == 2 and "python3 -m venv .venv" in commands[0]
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()
    assert ci.index(commands[0]) + 1 == ci.index(commands[1])
    assert ci.index("rm -rf .venv") < ci.index(commands[0])
