"""Every command that writes into the bank keeps to it, and waits for a build of it.

A bank comes from a classmate's repository: a link in it (``templates/default``
pointing into a home folder) must never carry a write elsewhere on the machine.
And a command that writes into the bank while a build runs would have its work
written over by what the build read before: each takes the bank's lock.
"""

from __future__ import annotations

import math
import shutil
from collections.abc import Callable, Iterator
from pathlib import Path

import polib
import pytest
from click.testing import CliRunner, Result

from ankibuild import build
from ankibuild.buildlock import exclusive
from ankibuild.cli import main
from ankibuild.errors import AnkibuildError
from ankibuild.translations.record import TRANSLATIONS_FILE

from ..conftest import DATA, Project, snapshot

SECRET = "SECRET-SETTINGS-8d2e"
SAMPLE = "ai-hardware.yaml"
SAMPLE_ID = "elementwise-ops-memory-bound"
EN_QUESTION = "Why do elementwise operations such as ReLU"
PAGE = DATA / "pages" / "bf16" / "es.txt"


def _run(*args: str) -> Result:
    return CliRunner().invoke(main, list(args))


@pytest.fixture
def outside(tmp_path: Path) -> Iterator[Path]:
    """A folder outside the project, as a home folder's settings are, with a file in it."""
    folder = tmp_path.parent / f"{tmp_path.name}-outside"
    folder.mkdir()
    (folder / "front.html").write_text(SECRET, encoding="utf-8")
    yield folder
    shutil.rmtree(folder)


def _link(place: Path, outside: Path) -> None:
    """``place`` (a folder of the project, or none yet) becomes a link to ``outside``."""
    if place.is_dir():
        shutil.rmtree(place)
    place.parent.mkdir(parents=True, exist_ok=True)
    place.symlink_to(outside, target_is_directory=True)


#: A command that writes into the project, and the folder of it a classmate's repository makes a link.
LINKED: dict[str, tuple[tuple[str, ...], str]] = {
    "templates export --force, a language folder": (("templates", "export", "--force"), "templates/default"),
    "templates export, a language folder": (("templates", "export"), "templates/de"),
    "templates export, the folder itself": (("templates", "export"), "templates"),
    "init, the workflow's folder": (("init", "new"), "new/.github"),
    "init, the bank folder": (("init", "new"), "new/decks"),
    "add-language, the bank folder": (("add-language", "es"), "decks"),
}


@pytest.mark.parametrize("case", LINKED)
def test_no_write_follows_a_link_out_of_the_bank(project: Project, outside: Path, case: str) -> None:
    """The command refuses, naming the link; the folder it leads to is untouched, and so is the project."""
    args, place = LINKED[case]
    if place == "decks":  # the bank itself elsewhere: reading it is fine, writing into it is not
        shutil.copytree(project.decks, outside, dirs_exist_ok=True)
    _link(project.root / place, outside)
    before, project_before = snapshot(outside), snapshot(project.root)
    names = sorted(outside.rglob("*"))  # the build lock's file too
    result = _run(*args)
    assert result.exit_code == 1, result.output
    assert "link to a place outside" in result.output and "Traceback" not in result.output
    assert Path(place).name in result.output
    assert snapshot(outside) == before and sorted(outside.rglob("*")) == names
    assert snapshot(project.root) == project_before


@pytest.mark.parametrize("args", [("templates", "export"), ("init", "templates")])
def test_a_named_folder_that_is_a_link_out_is_said_once(project: Project, outside: Path, args: tuple[str, ...]) -> None:
    """It concerns every file the command would write: one problem, at the folder."""
    _link(project.templates, outside)
    result = _run(*args)
    assert result.exit_code == 1, result.output
    assert result.output.count("link to a place outside") == 1, result.output
    assert "templates: error: 'templates' is a link to a place outside the folder that holds it" in result.output


def test_links_that_stay_inside_are_written_through(project: Project) -> None:
    """A language folder that is a link to another folder of the templates is written as that folder."""
    shutil.rmtree(project.templates)
    (project.templates / "shared").mkdir(parents=True)
    (project.templates / "de").symlink_to("shared", target_is_directory=True)
    result = _run("templates", "export")
    assert result.exit_code == 0, result.output
    assert (project.templates / "shared" / "labels.yaml").is_file()


def _behind(project: Project) -> None:
    """The English text of the sample question changed in a build: German and French are behind."""
    project.edit(SAMPLE, EN_QUESTION, "Why do element-wise operations such as ReLU")
    project.build()
    assert (project.decks / TRANSLATIONS_FILE).read_text(encoding="utf-8").count(" behind en ") == 2


def test_translations_ok_during_a_build_waits_and_is_never_written_over(project: Project) -> None:
    """Run while a build writes its packages, `translations ok` waits for it rather than report work the build undoes.

    The build read the record (two languages behind) before; it writes it back at its end.
    """
    _behind(project)
    for package in project.out.glob("*.apkg"):  # something for the build to write
        package.unlink()
    during: list[Result] = []

    def meanwhile(stage: str, done: int, total: int) -> None:
        if stage.startswith("notes written") and not during:
            during.append(_run("translations", "ok", SAMPLE_ID, "--wait", "0"))

    build(decks=project.decks, out=project.out, progress=meanwhile)
    (refused,) = during
    assert refused.exit_code == 1, refused.output
    assert "another build of decks is running" in refused.output and "marked current" not in refused.output
    after = _run("translations", "ok", SAMPLE_ID)
    assert after.exit_code == 0 and "de, fr marked current" in after.output, after.output
    assert " behind " not in (project.decks / TRANSLATIONS_FILE).read_text(encoding="utf-8")
    assert project.build().warnings == []


def _po(project: Project) -> str:
    """A PO file whose French texts, behind the English edit, the translator confirmed."""
    assert _run("translations", "export", "--lang", "fr", "-o", "fr.po").exit_code == 0
    po = polib.pofile("fr.po")
    for entry in po.fuzzy_entries():
        entry.flags.remove("fuzzy")
    po.save()
    return "fr.po"


#: Every command that writes into the bank, as run from the project; a function makes what it needs first.
WRITERS: dict[str, Callable[[Project], tuple[str, ...]]] = {
    "translations ok": lambda p: ("translations", "ok", SAMPLE_ID),
    "translations import": lambda p: ("translations", "import", _po(p)),
    "add-language": lambda p: ("add-language", "es"),
    "import": lambda p: ("import", str(PAGE), "-o", "decks/formats.yaml", "--topic", "ai-hardware", "--add-language"),
    "templates export": lambda p: ("templates", "export", "--force"),
}


@pytest.mark.parametrize("writer", WRITERS)
def test_a_command_that_writes_into_the_bank_waits_for_its_build(project: Project, writer: str) -> None:
    """While the bank is locked it writes nothing and says why; once it is free, it does its work."""
    _behind(project)
    shutil.rmtree(project.templates / "de")  # for templates export to write
    args = WRITERS[writer](project)
    before = snapshot(project.root)
    with exclusive(project.decks, wait=0):
        waited = _run(*args, "--wait", "0")
    assert waited.exit_code == 1, waited.output
    assert "another build of decks is running" in waited.output and "--wait" in waited.output
    assert snapshot(project.root) == before
    done = _run(*args)
    assert done.exit_code == 0, done.output
    assert snapshot(project.root) != before


@pytest.mark.slow
def test_init_waits_for_a_build_of_a_bank_already_in_the_folder(project: Project, tmp_path: Path) -> None:
    """A folder with a bank folder already: init takes its lock like every other command that writes there."""
    (tmp_path / "new" / "decks").mkdir(parents=True)
    with exclusive(tmp_path / "new" / "decks", wait=0):
        waited = _run("init", "new")
    assert waited.exit_code == 1 and "another build of" in waited.output, waited.output
    assert not (tmp_path / "new" / "decks" / "bank.yaml").exists()
    assert _run("init", "new").exit_code == 0


@pytest.mark.parametrize("seconds", ["nan", "NaN", "inf", "-inf", "-1"])
@pytest.mark.parametrize("command", [("build",), ("translations", "ok", SAMPLE_ID), ("add-language", "es")])
def test_a_wait_that_is_no_number_of_seconds_is_refused(
    project: Project, command: tuple[str, ...], seconds: str
) -> None:
    """`--wait nan` waited for ever on a locked bank: it is refused at once, as a negative wait is."""
    with exclusive(project.decks, wait=0):
        result = _run(*command, "--wait", seconds)
    assert result.exit_code == 2, result.output
    assert "--wait" in result.output and "Traceback" not in result.output


@pytest.mark.parametrize("seconds", [math.nan, math.inf, -1.0])
def test_the_library_refuses_such_a_wait_too(project: Project, seconds: float) -> None:
    with exclusive(project.decks, wait=0), pytest.raises(AnkibuildError, match="give a number of seconds"):
        build(decks=project.decks, out=project.out, wait=seconds)
