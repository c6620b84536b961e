"""How problems reach a student: all at once, grouped by file, coloured only on a terminal."""

from __future__ import annotations

import json
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from ankibuild.cli import main

from ..ankitools import collection, import_package
from ..conftest import Project, use_scenario


def test_problems_of_every_file_are_reported_together_grouped_by_file(project: Project) -> None:
    """Three files with mistakes: one run lists them all, each file's problems together, files in order."""
    use_scenario(project, "mistakes-in-three-files")
    result = CliRunner().invoke(main, ["check"])
    assert result.exit_code == 1
    lines = [line for line in result.stderr.splitlines() if ": error" in line]
    files = [line.split(":", 1)[0] for line in lines]
    assert files == sorted(files) and sorted(set(files)) == [
        "decks/bank.yaml",
        "decks/memory.yaml",
        "decks/more/bandwidth.yaml",
    ]
    assert "decks/bank.yaml:4:1: error: 'shuffle' must be true or false, not text" in lines
    assert "decks/memory.yaml:5:5: error [hbm-stands-for]: answer C is not among the 2 options" in lines
    assert "decks/more/bandwidth.yaml:4:22: error [roofline-ridge]: undeclared topic 'compute'" in lines
    blocks = result.stderr.split("\n\n")
    assert [block.split(":", 1)[0] for block in blocks] == sorted(set(files))
    assert result.stderr.rstrip().endswith("3 error(s).")  # check never writes: it does not say it did not


def test_colours_only_on_a_terminal(project: Project) -> None:
    """Piped output has no escape codes; a terminal gets red errors."""
    use_scenario(project, "mistakes-in-three-files")
    piped = CliRunner().invoke(main, ["check"])
    terminal = CliRunner().invoke(main, ["check"], color=True)
    assert "\x1b[" not in piped.output
    assert "\x1b[31m" in terminal.stderr and "error" in terminal.stderr
    assert click.unstyle(terminal.stderr) == piped.stderr


def test_check_format_json_lists_every_problem_as_an_object(project: Project) -> None:
    """`--format json` prints a list of objects with file, line, column, severity, question, message, hint, check."""
    use_scenario(project, "mistakes-in-three-files")
    result = CliRunner().invoke(main, ["check", "--format", "json"])
    assert result.exit_code == 1
    problems = json.loads(result.stdout)
    assert len(problems) == 3
    keys = ("file", "line", "column", "severity", "question", "message", "hint", "check", "detail")
    assert {tuple(p) for p in problems} == {keys}
    assert problems[1] == {
        "file": "decks/memory.yaml",
        "line": 5,
        "column": 5,
        "severity": "error",
        "question": "hbm-stands-for",
        "message": "answer C is not among the 2 options",
        "hint": "use a letter from A to B",
        "check": "",
        "detail": "",
    }


def test_check_format_json_of_a_valid_bank_is_an_empty_list(project: Project) -> None:
    """A clean bank prints `[]` and exits 0, so editors can parse every run."""
    result = CliRunner().invoke(main, ["check", "--format", "json"])
    assert (result.exit_code, json.loads(result.stdout)) == (0, [])


def test_missing_translation_is_a_warning_that_strict_makes_an_error(project: Project) -> None:
    """Without --strict the build goes on without the question in 'en'; with it, check and build fail."""
    use_scenario(project, "missing-translation")
    lenient = CliRunner().invoke(main, ["check", "--format", "json"])
    assert lenient.exit_code == 0
    (warning,) = json.loads(lenient.stdout)
    assert (warning["severity"], warning["line"]) == ("warning", 3)
    built = CliRunner().invoke(main, ["build"])
    assert built.exit_code == 0
    assert "de: 1 notes" in built.output and "en: 0 notes" in built.output
    assert "decks/memory.yaml:3:5: warning [hbm-stands-for]: no 'en' translation" in built.stderr
    for command in ("check", "build"):
        strict = CliRunner().invoke(main, [command, "--strict"])
        assert strict.exit_code == 1
        assert "decks/memory.yaml:3:5: error [hbm-stands-for]: no 'en' translation" in strict.stderr
        assert "1 error(s)" in strict.stderr


@pytest.mark.parametrize(
    "arguments",
    [["build", "--no-such-option"], ["check", "--format", "xml"], ["build", "--lang", "xx"], ["build", "--wait", "-1"]],
    ids=["unknown-option", "bad-choice", "language-not-in-bank", "negative-wait"],
)
def test_usage_errors_exit_2_and_write_nothing(project: Project, arguments: list[str]) -> None:
    """A wrong command line is exit code 2, not 1: the sources are fine."""
    result = CliRunner().invoke(main, arguments)
    assert result.exit_code == 2, result.output
    assert not project.out.exists()


def test_a_bom_at_the_start_of_a_file_is_accepted(project: Project, tmp_path: Path) -> None:
    """Files saved by editors that write a UTF-8 byte-order mark build, and no stray character reaches a card."""
    use_scenario(project, "utf8-bom")
    assert (project.decks / "memory.yaml").read_bytes().startswith(b"\xef\xbb\xbf")
    result = CliRunner().invoke(main, ["build"])
    assert result.exit_code == 0, result.output
    with collection(tmp_path / "c.anki2") as col:
        import_package(col, project.out / "ai-stack-en.apkg")
        (nid,) = col.find_notes("")
        assert col.get_note(nid)["Question"] == "What does HBM stand for?"
        assert "Memory" in {d.name for d in col.decks.all_names_and_ids()}


def test_yes_no_and_numbers_stay_the_text_written(project: Project, tmp_path: Path) -> None:
    """`[Yes, No]` and `[0.10, 0.80]` are options as typed, not booleans or 0.1 (YAML 1.2 scalars)."""
    use_scenario(project, "yes-no-options")
    result = CliRunner().invoke(main, ["build"])
    assert result.exit_code == 0, result.output
    with collection(tmp_path / "c.anki2") as col:
        import_package(col, project.out / "ai-stack-en.apkg")
        (stacked,) = col.find_notes('"ID:hbm-is-stacked"')
        (bandwidth,) = col.find_notes('"ID:hbm3-bandwidth"')
        assert [col.get_note(stacked)[letter] for letter in "AB"] == ["Yes", "No"]
        assert [col.get_note(bandwidth)[letter] for letter in "AB"] == ["0.10", "0.80"]


def test_an_option_joined_to_the_one_above_is_never_silent(project: Project) -> None:
    """One language, so no count differs and answer C still exists: the joined line is a warning, --strict an error."""
    use_scenario(project, "option-joined-silently")
    lenient = CliRunner().invoke(main, ["check"])
    assert lenient.exit_code == 0
    assert lenient.stderr.startswith(
        "decks/questions.yaml:12:11: warning: this '-' is indented more than the list item above, "
        "so YAML joined both into one item: '\\( n! \\) - \\( 2^n \\)'\n"
        "    hint: to make it an item of its own, start its '-' at column 9 like the item above;"
    )
    strict = CliRunner().invoke(main, ["check", "--strict"])
    assert strict.exit_code == 1
    assert "decks/questions.yaml:12:11: error: this '-' is indented more" in strict.stderr
    assert CliRunner().invoke(main, ["build", "--strict"]).exit_code == 1
    assert not project.out.exists()


def test_a_question_with_an_error_gets_every_other_check_in_the_same_run(project: Project) -> None:
    """A misspelt key leaves the question unbuilt, but its missing image is reported in the same run."""
    use_scenario(project, "every-problem-of-a-question")
    for command in ("check", "build"):
        result = CliRunner().invoke(main, [command])
        assert result.exit_code == 1
        assert "decks/questions.yaml:7:7: error [gauss-sum]: image 'media/pairs.svg' not found" in result.stderr
        assert "decks/questions.yaml:9:7: error [gauss-sum]: unknown key 'explaination'" in result.stderr


def test_yaml_errors_keep_the_parsers_words_as_a_detail_line(project: Project) -> None:
    """The writer's words first, the fix as the hint, then what the parser said."""
    use_scenario(project, "colon-in-text")
    result = CliRunner().invoke(main, ["check"])
    assert result.exit_code == 1
    assert result.stderr.splitlines()[:3] == [
        "decks/questions.yaml:9:42: error: a ': ' inside unquoted text, which YAML reads as a new key: "
        "explanation: Pair the terms (Gauss): 1 + 100, 2 + 99, and so on.",
        "    hint: put the text in quotes: explanation: 'Pair the terms (Gauss): 1 + 100, 2 + 99, and so on.'",
        "    detail: YAML: mapping values are not allowed in this context",
    ]
