"""File names and paths of any bytes: located errors, never a traceback.

A classmate's repository may hold names that are not UTF-8 (made on another
system, or on purpose), and a text may name an image with ``%00`` in it.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from ankibuild.cli import main

from ..conftest import DATA, Project, snapshot

#: The bytes of a name that no UTF-8 decoder reads.
NOT_UTF8 = b"\xff\xfe"
PAGE = DATA / "pages" / "bf16" / "es.txt"


def _run(*args: str) -> Result:
    return CliRunner().invoke(main, list(args))


def _json(result: Result) -> list[dict[str, object]]:
    problems = json.loads(result.stdout)
    assert isinstance(problems, list)
    return problems


def _place(folder: Path, name: bytes) -> Path:
    """A path below ``folder`` whose last part is the raw bytes ``name``."""
    return folder / os.fsdecode(name)


def test_a_nul_in_an_image_path_is_an_error_at_its_line(project: Project) -> None:
    """`![..](media/roof%00line.svg)`: check (text and JSON) and build report it where it is written."""
    project.edit("ai-hardware.yaml", "](media/roofline.svg)", "](media/roof%00line.svg)")
    checked = _run("check", "--format", "json")
    assert checked.exit_code == 1 and "Traceback" not in checked.output
    (error,) = [p for p in _json(checked) if p["severity"] == "error"]
    assert error["file"] == "decks/ai-hardware.yaml" and int(str(error["line"])) > 0
    assert "NUL character (%00)" in str(error["message"])
    for command in ("check", "build", "preview"):
        result = _run(command)
        assert result.exit_code == 1 and "roof%00line.svg" in result.output, result.output
    assert not project.out.exists()


@pytest.mark.parametrize("where", ["question file", "folder"])
def test_a_name_that_is_not_utf8_is_an_error_with_its_name_shown(project: Project, where: str) -> None:
    """check (text and JSON) and build name it, replaced bytes and all; status and translations export count it."""
    if where == "folder":
        folder = _place(project.decks, b"more" + NOT_UTF8)
        folder.mkdir()
        shutil.copy(project.decks / "ai-hardware.yaml", folder / "copy.yaml")
    else:
        shutil.copy(project.decks / "ai-hardware.yaml", _place(project.decks, b"copy" + NOT_UTF8 + b".yaml"))
    shown = "\ufffd\ufffd"
    checked = _run("check", "--format", "json")
    assert checked.exit_code == 1, checked.output
    (error,) = [p for p in _json(checked) if p["severity"] == "error"]
    assert shown in str(error["file"]) and "not valid UTF-8" in str(error["message"])
    for args in (["check"], ["build"], ["status"], ["translations", "export", "--lang", "fr", "-o", "fr.po"]):
        result = _run(*args)
        assert result.exception is None or isinstance(result.exception, SystemExit), (args, result.output)
        assert (shown if args[0] in ("check", "build") else "1 error(s)") in result.output, (args, result.output)
    assert not project.out.exists()
    assert "copy.yaml" not in Path("fr.po").read_text(encoding="utf-8")  # the file refused is not translated


def test_a_bank_folder_named_so_checks_builds_and_translates(project: Project) -> None:
    """Its name is the user's to choose: every command works, and names it with U+FFFD."""
    decks = project.decks.rename(_place(project.root, b"bank" + NOT_UTF8))
    folder = ("--decks", str(decks))
    checked = _run("check", *folder)
    assert checked.exit_code == 0 and "bank\ufffd\ufffd/bank.yaml" in checked.output, checked.output
    for args in (["check", "--format", "json"], ["build"], ["build"], ["preview"], ["status", "--format", "json"]):
        result = _run(*args, *folder)
        assert result.exit_code == 0, (args, result.output)
    assert _run("translations", "export", "--lang", "fr", "-o", "fr.po", *folder).exit_code == 0
    assert _run("translations", "import", "fr.po", *folder).exit_code == 0


def test_an_output_folder_named_so_is_built_into_twice(project: Project) -> None:
    """The second build reads the packages the first wrote there, as every build does."""
    out = str(_place(project.root, b"dist" + NOT_UTF8))
    for _ in range(2):
        result = _run("build", "--out", out)
        assert result.exit_code == 0, result.output


def test_other_files_with_such_names_build_as_before(project: Project) -> None:
    """An image nobody shows, a package in the output folder: a warning, or nothing; the build goes on."""
    first = _run("build")
    assert first.exit_code == 0, first.output
    _place(project.decks / "media", b"unused" + NOT_UTF8 + b".png").write_bytes(b"\x89PNG\r\n\x1a\n")
    _place(project.out, b"old" + NOT_UTF8 + b".apkg").write_bytes(b"not a package")
    for args in (["check"], ["build"], ["preview"]):
        result = _run(*args)
        assert result.exit_code == 0, (args, result.output)
        assert "unused\ufffd\ufffd.png" in result.output


@pytest.mark.parametrize("out", ["decks/.draft.yaml", "decks/.drafts/new.yaml"])
def test_import_refuses_a_hidden_question_file_the_build_would_never_read(project: Project, out: str) -> None:
    """It said it imported the page, yet the file it wrote is skipped by every build: refused, nothing written."""
    before = snapshot(project.root)
    result = _run("import", str(PAGE), "-o", out, "--topic", "ai-hardware", "--add-language")
    assert result.exit_code == 1, result.output
    assert "hidden" in result.output and "never reads" in result.output
    assert snapshot(project.root) == before
