"""A link or a special file in place of any file ankibuild reads or writes: refused or replaced, never followed out.

Every file is read the same way (``ankibuild.paths.read_inside``): a regular
file inside its root, links followed only while they stay inside, of bounded
size. Every file is written the same way (``ankibuild.atomic.write_if_changed``):
a new file renamed into place, which replaces a link instead of writing
through it.
"""

from __future__ import annotations

import errno
import os
import signal
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from ankibuild.cli import main

from ..conftest import Project

pytestmark = pytest.mark.slow  # a build for each file replaced by a link or a special file

SECRET = "SECRET-TOKEN-4f1c9a"

#: Every file a build reads, by where it lies in the project.
READ = [
    "decks/bank.yaml",
    "decks/ai-hardware.yaml",
    "decks/media/roofline.svg",
    "decks/ankibuild.lock",
    "decks/CHANGELOG.md",
    "templates/default/front.html",
    "templates/style.css",
    "templates/card.js",
    "templates/de/labels.yaml",
]


@pytest.fixture(autouse=True)
def never_hangs() -> Iterator[None]:
    """A build that waited on a pipe would hang the suite: it fails instead."""

    def stalled(*_: object) -> None:
        raise TimeoutError("the build waited on a file for 60 s")

    previous = signal.signal(signal.SIGALRM, stalled)
    signal.alarm(60)
    yield
    signal.alarm(0)
    signal.signal(signal.SIGALRM, previous)


@pytest.fixture
def secret(tmp_path: Path) -> Path:
    """A file outside the project, as CI secrets or a home folder's files are."""
    path = tmp_path.parent / f"{tmp_path.name}-secret.txt"
    path.write_text(f"{SECRET}\n", encoding="utf-8")
    return path


def _built(project: Project) -> Project:
    """The project after a first build: the lock and the changelog exist."""
    assert _run("build").exit_code == 0
    return project


def _run(*args: str) -> Result:
    return CliRunner().invoke(main, list(args))


def _everything(project: Project) -> bytes:
    """Every byte the project holds after a build: what could be published."""
    return b"".join(p.read_bytes() for p in sorted(project.root.rglob("*")) if p.is_file() and not p.is_symlink())


def _link_out(path: Path, secret: Path) -> None:
    path.unlink()
    path.symlink_to(secret)


def _fifo(path: Path, _: Path) -> None:
    path.unlink()
    os.mkfifo(path)


def _device(path: Path, _: Path) -> None:
    path.unlink()
    path.symlink_to("/dev/zero")


PLACES: dict[str, Callable[[Path, Path], None]] = {"link-out": _link_out, "fifo": _fifo, "device": _device}


@pytest.mark.parametrize("kind", PLACES)
@pytest.mark.parametrize("name", READ)
def test_nothing_outside_the_bank_is_read_and_nothing_waits_for_ever(
    project: Project, secret: Path, name: str, kind: str
) -> None:
    """check and build refuse it with a message naming it, or use the default in its place; never a traceback."""
    _built(project)
    before = {p: p.read_bytes() for p in project.out.glob("*")}
    PLACES[kind](project.root / name, secret)
    checked, built = _run("check"), _run("build")
    for result in (checked, built):
        assert result.exception is None or isinstance(result.exception, SystemExit), result.output
        assert "Traceback" not in result.output
    assert SECRET.encode() not in _everything(project)
    if checked.exit_code == 0:  # a template file that is no file: the default takes its place
        assert name.startswith("templates/") and kind != "link-out", checked.output
        return
    assert checked.exit_code == built.exit_code == 1, checked.output
    assert Path(name).name in checked.output, checked.output  # an image: named where it is shown
    assert {p: p.read_bytes() for p in project.out.glob("*")} == before


@pytest.mark.parametrize("name", ["dist/CHANGELOG.md", "dist/ai-stack-de.apkg"])
def test_an_output_that_is_a_link_is_replaced_never_written_through(project: Project, secret: Path, name: str) -> None:
    """A link planted where the build writes is replaced by the file; what it pointed at is untouched."""
    _built(project)
    target = project.root / name
    _link_out(target, secret)
    project.edit("ai-hardware.yaml", "Die arithmetische Intensität", "Die Intensität")
    assert _run("build").exit_code == 0
    assert not target.is_symlink() and target.stat().st_size > 0
    assert secret.read_text(encoding="utf-8") == f"{SECRET}\n"


def test_a_package_that_is_a_link_is_replaced_without_its_link_being_read(
    project: Project, secret: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The build replaces a link at a package's name while a thread names the package's records: a link read
    as it is replaced fails (EINVAL, as every read of it does here), so nothing reads it."""
    _built(project)
    target = project.root / "dist" / "ai-stack-de.apkg"
    _link_out(target, secret)
    readlink = os.readlink

    def replaced(path: str) -> str:
        if Path(path).name == target.name:
            raise OSError(errno.EINVAL, os.strerror(errno.EINVAL), path)
        return readlink(path)

    monkeypatch.setattr(os, "readlink", replaced)
    project.edit("ai-hardware.yaml", "Die arithmetische Intensität", "Die Intensität")
    result = _run("build")
    assert result.exit_code == 0, result.output
    assert not target.is_symlink() and target.stat().st_size > 0


@pytest.mark.parametrize("kind", ["link to a missing file", "link to a file", "fifo"])
def test_a_build_lock_file_that_is_no_file_of_its_own_is_refused(project: Project, secret: Path, kind: str) -> None:
    """The build's lock file is opened without following a link: nothing is created or touched elsewhere."""
    lock = project.decks / ".ankibuild.build-lock"
    elsewhere = secret.with_name(f"{secret.name}.created")
    if kind == "fifo":
        os.mkfifo(lock)
    else:
        lock.symlink_to(elsewhere if kind == "link to a missing file" else secret)
    result = _run("build")
    assert result.exit_code == 1
    assert ".ankibuild.build-lock" in result.output and "Traceback" not in result.output
    assert not elsewhere.exists()
    assert secret.read_text(encoding="utf-8") == f"{SECRET}\n"
    assert not project.out.exists()


def test_a_page_to_import_must_be_a_regular_file(project: Project, tmp_path: Path) -> None:
    """A pipe named as a page is refused at once rather than waited on."""
    page = tmp_path / "page.txt"
    os.mkfifo(page)
    result = _run("import", str(page), "-o", "decks/new.yaml")
    assert result.exit_code == 1
    assert "not a regular file" in result.output and "Traceback" not in result.output
