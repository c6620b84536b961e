"""The command line: exit codes, --check, --frozen and the note type shape guard."""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
import weakref
from pathlib import Path

import click
import pytest
from click.testing import CliRunner, Result

from ankibuild import commandline
from ankibuild.cli import main
from ankibuild.lock.format import LOCK_FILE

from ..conftest import Project

EDIT = ("ai-hardware.yaml", "Die arithmetische Intensität ist sehr niedrig", "Die Intensität ist niedrig")


def _run(*args: str) -> Result:
    return CliRunner().invoke(main, list(args), catch_exceptions=False)


def _snapshot(project: Project) -> dict[Path, str]:
    files = [*project.out.glob("*"), project.decks / LOCK_FILE]
    return {p: hashlib.sha256(p.read_bytes()).hexdigest() for p in files if p.exists()}


def test_build_writes_a_package_per_language_and_says_so(project: Project) -> None:
    """`ankibuild build` exits 0 and summarises decks, notes per language and files."""
    result = _run("build")
    assert result.exit_code == 0, result.output
    assert "Bank 'ai-stack': 1 deck(s), 6 question(s);" in result.output
    for lang in ("de", "fr", "en"):
        assert f"{lang}: 6 notes in 1 deck(s) -> dist/ai-stack-{lang}.apkg (wrote)" in result.output
        assert (project.out / f"ai-stack-{lang}.apkg").is_file()


def test_lang_and_split_choose_the_packages(project: Project) -> None:
    """--lang builds only that language; --split writes one package per deck."""
    assert _run("build", "--lang", "fr", "--split", "--out", "out").exit_code == 0
    assert sorted(p.name for p in (project.root / "out").glob("*.apkg")) == ["ai-stack-ai-hardware-fr.apkg"]


def test_an_unknown_language_is_an_error_not_a_traceback(project: Project) -> None:
    """Asking for a language the bank does not build is a usage error (exit 2) listing the languages."""
    result = _run("build", "--lang", "es")
    assert result.exit_code == 2
    assert "es not in the bank; it builds de, fr, en" in result.output


def test_check_exits_1_when_a_build_would_change_something_and_writes_nothing(project: Project) -> None:
    """--check: 1 before the first build and after an edit, 0 when up to date; never writes."""
    assert _run("build", "--check").exit_code == 1
    assert not project.out.exists() and not (project.decks / LOCK_FILE).exists()
    assert _run("build").exit_code == 0
    assert _run("build", "--check").exit_code == 0
    project.edit(*EDIT)
    before = _snapshot(project)
    result = _run("build", "--check")
    assert result.exit_code == 1
    assert "changed elementwise-ops-memory-bound (Explanation)" in result.output
    assert _snapshot(project) == before


def test_frozen_refuses_to_change_the_lock(project: Project) -> None:
    """--frozen (for CI) fails when the lock file is out of date, and writes nothing."""
    assert _run("build").exit_code == 0
    assert _run("build", "--frozen").exit_code == 0
    project.edit(*EDIT)
    before = _snapshot(project)
    result = _run("build", "--frozen")
    assert result.exit_code == 1
    assert "would change: run 'ankibuild build' and commit it" in result.output
    assert _snapshot(project) == before


def _old_shape(project: Project) -> None:
    """Pretend the released note types had one field fewer than this version's."""
    path = project.decks / LOCK_FILE
    lines = [
        line.replace('"Answer", "Explanation"]', '"Answer"]') if line.startswith('{"notetype": ') else line
        for line in path.read_text(encoding="utf-8").splitlines()
    ]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def test_shape_guard_stops_a_build_that_would_fork_released_note_types(project: Project) -> None:
    """A field list that differs from the released one stops the build and explains why."""
    assert _run("build").exit_code == 0
    _old_shape(project)
    before = _snapshot(project)
    result = _run("build")
    assert result.exit_code == 1
    assert "Everyone who imported the deck would get a copy of the note type" in result.output
    assert "--allow-shape-change" in result.output
    assert _snapshot(project) == before


def test_allowed_shape_change_tells_classmates_to_merge_note_types(project: Project) -> None:
    """With --allow-shape-change the build goes on and the changelog asks for a merge."""
    assert _run("build").exit_code == 0
    _old_shape(project)
    result = _run("build", "--allow-shape-change")
    assert result.exit_code == 0, result.output
    changelog = (project.out / "CHANGELOG.md").read_text(encoding="utf-8")
    assert changelog.count("tick 'Merge note types' when importing") == 3
    assert '"Explanation"]' in (project.decks / LOCK_FILE).read_text(encoding="utf-8")
    assert _run("build").exit_code == 0  # the lock now records the new shape


def test_python_dash_m_runs_the_same_cli() -> None:
    """`python -m ankibuild` is the same program as `ankibuild`."""
    result = subprocess.run([sys.executable, "-m", "ankibuild", "--version"], capture_output=True, text=True)
    assert result.returncode == 0 and result.stdout.startswith("ankibuild, version")


#: The program as its script starts it, telling on stderr each time the cycle collector runs once it starts.
_COLLECTIONS_TOLD = """
import gc, sys
from ankibuild.__main__ import main
gc.callbacks.append(lambda phase, info: phase == "start" and sys.stderr.write("collected\\n"))
sys.argv = ["ankibuild", "--version"]
main()
"""


def test_the_program_loads_its_modules_with_the_cycle_collector_off() -> None:
    """The program turns the collector off for good: off before its modules are loaded, it never runs."""
    result = subprocess.run([sys.executable, "-c", _COLLECTIONS_TOLD], capture_output=True, text=True)
    assert result.returncode == 0 and result.stdout.startswith("ankibuild, version")
    assert "collected" not in result.stderr


def test_only_the_program_keeps_a_builds_objects_to_its_end(monkeypatch: pytest.MonkeyPatch) -> None:
    """The program ends at once and need not free them; a library caller goes on and gets its memory back."""

    class Bank:
        pass

    monkeypatch.setattr(commandline, "_left", None)  # a library caller's
    freed = Bank()
    gone = weakref.ref(freed)
    commandline.outlive(freed)
    del freed
    assert gone() is None
    commandline.ending()  # the program's
    kept = Bank()
    still = weakref.ref(kept)
    commandline.outlive(kept)
    del kept
    assert still() is not None


@pytest.mark.slow
def test_the_process_ends_with_the_commands_exit_code_and_all_its_output(project: Project) -> None:
    """The process skips the interpreter's teardown, but not its exit code or its buffered output."""
    command = [sys.executable, "-m", "ankibuild", "build", "--decks"]
    built = subprocess.run([*command, "decks"], capture_output=True, text=True, cwd=project.root)
    assert built.returncode == 0
    assert "Bank 'ai-stack': 1 deck(s), 6 question(s);" in built.stdout  # piped: block-buffered, then flushed
    assert built.stdout.rstrip().endswith("commit it with the bank")  # the last line too
    failed = subprocess.run([*command, "missing"], capture_output=True, text=True, cwd=project.root)
    assert failed.returncode == 1 and "no bank folder" in failed.stderr
    usage = subprocess.run([*command[:-2], "bogus"], capture_output=True, text=True, cwd=project.root)
    assert usage.returncode == 2 and "No such command 'bogus'" in usage.stderr


@pytest.mark.slow
def test_output_cut_short_by_a_closed_pipe_is_not_a_crash(project: Project) -> None:
    """`ankibuild build | head -1`: the reader goes away early, and no traceback follows."""
    build = subprocess.Popen(
        [sys.executable, "-m", "ankibuild", "build", "--decks", "decks"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=project.root,
    )
    assert build.stdout is not None and build.stderr is not None
    build.stdout.close()  # before the build writes a line
    errors = build.stderr.read().decode()
    assert build.wait() == 1  # click's answer to a closed pipe, after the build is done
    assert "Traceback" not in errors
    assert len(list(project.out.glob("*.apkg"))) == 3


def _commands(group: click.Group, prefix: tuple[str, ...] = ()) -> list[tuple[str, ...]]:
    """Every command line that names a command or a group of them, the program's own first."""
    found = [prefix]
    for name, command in group.commands.items():
        if isinstance(command, click.Group):
            found += _commands(command, (*prefix, name))
        else:
            found.append((*prefix, name))
    return found


def test_dash_h_is_help_for_every_command() -> None:
    """`-h` works like `--help` on the program, on each command and on each group of commands."""
    commands = _commands(main)
    assert ("import",) in commands and len(commands) > 8
    for command in commands:
        result = _run(*command, "-h")
        assert result.exit_code == 0, (command, result.output)
        assert result.output.startswith(f"Usage: main {' '.join(command)}".rstrip())


def test_check_says_what_it_checked_and_never_that_it_wrote_nothing(project: Project) -> None:
    """A clean bank: the files, questions and languages looked at; `check` never speaks of writing."""
    result = _run("check")
    assert result.exit_code == 0
    assert result.output.startswith(
        "Checked decks/bank.yaml, 1 question file(s) with 6 question(s) in de, fr, en, and the card templates ("
    )
    assert result.output.endswith("): no problems.\n")
    project.edit("bank.yaml", "languages: [de, fr, en]", "languages: [de, fr, en, es]")
    warned = _run("check")
    assert warned.exit_code == 0 and "in de, fr, en, es, and the card templates (" in warned.stdout
    # the six questions without 'es' are one warning, not six
    assert warned.stdout.endswith("): no errors, 7 warning(s) (above).\n")
    assert "written" not in warned.output


def test_the_first_build_says_once_what_it_wrote_and_what_changed(project: Project) -> None:
    """Every language added the same questions: one line says so; the lock file written is named."""
    result = _run("build")
    assert result.exit_code == 0
    assert result.output.count("added w4a16-decode") == 1
    assert "  de, en, fr changes: added elementwise-ops-memory-bound; added conv-im2col-gemm;" in result.output
    assert "  wrote the lock file" in result.output
    again = _run("build")
    assert again.output.endswith("  No changes since the last build.\n")
    assert "lock file" not in again.output


def test_packages_made_again_are_not_called_no_change(project: Project) -> None:
    """With the lock of a released bank and no dist/, the packages are written: the summary never says 'No changes'."""
    assert _run("build").exit_code == 0
    for package in project.out.glob("*.apkg"):
        package.unlink()
    result = _run("build")
    assert result.output.count("(wrote)") == 3
    assert "No changes" not in result.output and "lock file" not in result.output


def _ankibuild(project: Project, *args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "ankibuild", *args]
    return subprocess.run(command, capture_output=True, text=True, cwd=cwd or project.root)


@pytest.mark.slow
def test_an_output_folder_that_cannot_be_made_is_named_not_a_traceback(project: Project) -> None:
    """A file where dist/ should be: the path and what happened, exit 1, no traceback."""
    (project.root / "blocker").write_text("", encoding="utf-8")
    preview = _ankibuild(project, "preview", "--out", "blocker/preview")
    assert preview.returncode == 1 and "Traceback" not in preview.stderr
    (line,) = preview.stderr.splitlines()
    assert line.startswith("Error: blocker/preview/index.html: Not a directory.")
    build = _ankibuild(project, "build", "--out", "blocker/dist")
    assert build.returncode == 1 and "Traceback" not in build.stderr
    assert build.stderr.startswith("blocker/dist/CHANGELOG.md: error: ") and "Not a directory" in build.stderr


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() == 0, reason="root may write anywhere")
def test_a_read_only_output_folder_is_one_line_not_a_traceback(project: Project) -> None:
    """dist/ that may not be written: its path and 'Permission denied', exit 1, the sources untouched."""
    project.out.mkdir()
    project.out.chmod(0o555)
    try:
        result = _ankibuild(project, "build")
    finally:
        project.out.chmod(0o755)
    assert result.returncode == 1 and "Traceback" not in result.stderr
    (line,) = result.stderr.splitlines()
    assert line.startswith("Error: dist/") and "Permission denied" in line


def test_inside_the_bank_folder_it_says_what_to_type(project: Project) -> None:
    """Run from decks/ (where bank.yaml is): the hint says to run from the folder above."""
    result = _ankibuild(project, "build", cwd=project.decks)
    assert result.returncode == 1 and "Traceback" not in result.stderr
    assert "this folder is a bank itself (it holds bank.yaml): run ankibuild from the folder above it (cd ..)" in (
        result.stderr
    )


def _program(project: Project, *args: str, importtime: bool = False) -> subprocess.CompletedProcess[str]:
    """``python -m ankibuild`` in the project's folder, its output piped."""
    command = [sys.executable, *(["-X", "importtime"] if importtime else []), "-m", "ankibuild", *args]
    return subprocess.run(
        command, capture_output=True, text=True, cwd=project.root, env={**os.environ, "LC_ALL": "C.UTF-8"}
    )


def _forget_command_lines() -> None:
    """Forget the options click made of every command line: the next command goes through click."""
    for memo in Path(os.environ["ANKIBUILD_CACHE_DIR"]).glob("command-*.json"):
        memo.unlink()


@pytest.mark.slow
@pytest.mark.parametrize("args", [("build",), ("build", "--check"), ("build", "-q", "--lang", "de", "--split")])
def test_a_build_with_nothing_to_do_says_what_click_says_without_loading_it(
    project: Project, args: tuple[str, ...]
) -> None:
    """The same command line again is answered from the options click made of it the last time, word for word."""
    longest = "die Speicherbandbreite das Tempo bestimmt"
    project.edit(EDIT[0], longest, f"{longest}, und zwar bei jeder einzelnen Operation dieser Art im ganzen Netz")
    built = _program(project, *(arg for arg in args if arg != "--check"))  # --check keeps no record
    assert built.returncode == 0, built.stderr
    _forget_command_lines()
    through_click = _program(project, *args)  # parsed by click, and its options kept
    quick = _program(project, *args)
    said = (through_click.returncode, through_click.stdout, through_click.stderr)
    assert (quick.returncode, quick.stdout, quick.stderr) == said
    assert through_click.returncode == 0 and "clearly the longest" in quick.stderr
    assert "-q" in args or "No changes since the last build." in quick.stdout
    imported = _program(project, *args, importtime=True).stderr
    assert " click" not in imported and "ankibuild.cli" not in imported and "ankibuild.state" in imported


def _twin(project: Project, folder: Path) -> Project:
    """A copy of ``project``'s bank and templates in ``folder``, not built yet."""
    for name in ("decks", "templates"):
        shutil.copytree(project.root / name, folder / name)
    return Project(folder)


#: An edit each twin gets: one that the build takes, and one that stops it with an error in the bank.
TWIN_EDITS = {"an edit": (EDIT[0], EDIT[1], EDIT[2]), "an error": (EDIT[0], "answer: B\n", "answer: Z\n")}


@pytest.mark.slow
@pytest.mark.parametrize("edit", list(TWIN_EDITS))
@pytest.mark.parametrize("args", [("build",), ("build", "--check"), ("build", "-q", "--lang", "de", "--split")])
def test_a_build_with_work_to_do_says_what_click_says_without_loading_it(
    project: Project, tmp_path_factory: pytest.TempPathFactory, args: tuple[str, ...], edit: str
) -> None:
    """Twin banks, built and edited alike: the one whose command line click parsed before is built without click,
    and says word for word what click says for the other (or what stopped the build), with the same exit code."""
    twin = _twin(project, tmp_path_factory.mktemp("twin"))
    for each in (twin, project):
        assert _program(each, "build").returncode == 0
    _forget_command_lines()
    assert _program(project, *args).returncode == 0  # nothing to do, through click: its options are kept
    for each in (twin, project):
        each.edit(*TWIN_EDITS[edit])
    through_click, quick = _program(twin, *args), _program(project, *args)
    assert (quick.returncode, quick.stdout, quick.stderr) == (
        through_click.returncode,
        through_click.stdout,
        through_click.stderr,
    )
    assert (quick.returncode == 0) is (edit == "an edit" and "--check" not in args)
    assert "Traceback" not in quick.stderr and ("warning" in quick.stderr or "error" in quick.stderr)
    if edit == "an edit":
        if "--check" not in args:  # built: the edit undone is one more
            project.edit(EDIT[0], EDIT[2], EDIT[1])
        imported = _program(project, *args, importtime=True).stderr
        assert " click" not in imported and "ankibuild.cli" not in imported and "ankibuild.pipeline" in imported
