"""Progress of a long build: reported by the library, drawn only on a terminal."""

from __future__ import annotations

import io

from click.testing import CliRunner

from ankibuild.cli import main
from ankibuild.progress import TerminalBar, for_terminal, silent

from ..conftest import Project


def test_the_build_reports_files_read_and_notes_written_per_language(project: Project) -> None:
    """Every file read and every package's notes are counted, ending at the totals."""
    heard: list[tuple[str, int, int]] = []
    project.build(progress=lambda stage, done, total: heard.append((stage, done, total)))
    files = [h for h in heard if h[0] == "files read"]
    assert files[-1] == ("files read", 1, 1)
    notes = [h for h in heard if h[0].startswith("notes written")]
    assert [h[0] for h in notes] == ["notes written (de)", "notes written (fr)", "notes written (en)"]
    assert [h[1] for h in notes] == [6, 12, 18] and {h[2] for h in notes} == {18}


def test_a_terminal_sees_a_bar_once_a_second_has_passed() -> None:
    """Quick builds draw nothing; after the delay each stage is one line, redrawn in place."""
    stream = io.StringIO()
    TerminalBar(stream, delay=3600)("files read", 1, 2)
    assert stream.getvalue() == ""
    bar = TerminalBar(stream, delay=0, width=4)
    bar("files read", 1, 2)
    bar("files read", 2, 2)
    assert stream.getvalue() == "\r" + f"{'files read':<24} [##..] 1/2" + "\r" + f"{'files read':<24} [####] 2/2\n"


def test_no_bar_when_quiet_or_not_on_a_terminal() -> None:
    """Redirected output (cron, CI) and -q get no progress at all."""
    assert for_terminal(quiet=False, stream=io.StringIO()) is silent

    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    assert isinstance(for_terminal(quiet=False, stream=Terminal()), TerminalBar)
    assert for_terminal(quiet=True, stream=Terminal()) is silent


def test_quiet_prints_nothing_when_all_is_well(project: Project) -> None:
    """`ankibuild build -q` is silent on success: fit for cron."""
    result = CliRunner().invoke(main, ["build", "-q"], catch_exceptions=False)
    assert result.exit_code == 0 and result.output == ""
    assert (project.out / "ai-stack-de.apkg").is_file()
