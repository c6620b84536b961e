"""A question file larger than a file read whole is read a question at a time; one that cannot be is refused.

The limits are lowered here to a few KiB: the sample bank's files then cross them
as a file of 100,000 questions crosses the real ones.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest
from click.testing import CliRunner

from ankibuild import paths
from ankibuild.cli import main
from ankibuild.errors import BankError, Problems
from ankibuild.importer.bank import import_pages
from ankibuild.lock.format import read_lock
from ankibuild.translations.record import read_record

from ..ankitools import collection, import_package
from ..conftest import DATA, Project
from .test_hostile import _refused

#: What a file read whole may hold, here; each of the sample's questions is smaller.
WHOLE = 8 * 1024
FILE = "decks/ai-hardware.yaml"


@pytest.fixture
def whole(project: Project, monkeypatch: pytest.MonkeyPatch) -> Project:
    """The sample bank, with files read whole limited to :data:`WHOLE`, which its largest question file exceeds."""
    monkeypatch.setattr(paths, "MAX_FILE_BYTES", WHOLE)
    assert (project.root / FILE).stat().st_size > 3 * WHOLE
    return project


def test_a_question_file_larger_than_a_file_read_whole_builds(whole: Project, monkeypatch: pytest.MonkeyPatch) -> None:
    """Built as before, a question at a time, and imported into Anki."""
    built = CliRunner().invoke(main, ["build"])
    assert built.exit_code == 0, built.output
    with collection(whole.root / "c.anki2") as col:
        import_package(col, whole.out / "ai-stack-de.apkg")
        notes = [col.get_note(nid) for nid in col.find_notes("")]
    assert len(notes) == 6
    assert {"elementwise-ops-memory-bound", "conv-im2col-gemm", "ptq-vs-qat"} <= {note["ID"] for note in notes}
    assert "Warum benötigen elementweise" in next(n["Question"] for n in notes if n["ID"].startswith("elementwise"))
    # What the build wrote into the bank, a line per note or a block per question, is read back whatever its size.
    monkeypatch.setattr(paths, "MAX_FILE_BYTES", 512)
    lock, record = whole.decks / "ankibuild.lock", whole.decks / "translations.lock"
    assert min(lock.stat().st_size, record.stat().st_size) > 512
    assert len(read_lock(lock).notes) == 18
    problems = Problems()
    assert len(read_record(record, problems)) == 6 and not problems.items


def _change(project: Project, change: Callable[[str], str]) -> None:
    path = project.root / FILE
    path.write_text(change(path.read_text(encoding="utf-8")), encoding="utf-8")


def _replace(old: str, new: str) -> Callable[[str], str]:
    return lambda text: text.replace(old, new, 1)


READ_WHOLE: dict[str, tuple[Callable[[str], str], str]] = {
    "languages after": (lambda text: text + "languages: [en]\n", "'languages' comes after the questions"),
    "languages twice": (
        _replace("deck:\n", "languages: [de]\nlanguages: [en]\ndeck:\n"),
        "'languages' is written twice",
    ),
    "questions twice": (lambda text: text + "questions:\n  - id: other\n", "'questions' is written twice"),
    "merged keys": (_replace("deck:\n", "<<: {todo: {}}\ndeck:\n"), "it merges keys into the file with '<<'"),
}


@pytest.mark.parametrize(("change", "said"), READ_WHOLE.values(), ids=READ_WHOLE)
def test_a_large_file_that_would_be_read_whole_is_refused(
    whole: Project, change: Callable[[str], str], said: str
) -> None:
    """Read whole, its values would take several times its size: refused with the reason, nothing written."""
    _change(whole, change)
    expected = f"the file is larger than 8 KiB, so its questions are read one at a time, but {said}"
    assert _refused(whole, FILE) == [expected]
    assert not (whole.decks / "ankibuild.lock").exists()


def test_a_question_id_written_twice_in_a_large_file_is_refused(whole: Project) -> None:
    """Its checks would need the whole file: refused at the second question, which names the first."""
    _change(whole, _replace("  - id: ptq-vs-qat\n", "  - id: conv-im2col-gemm\n"))
    assert _refused(whole, FILE) == [
        "duplicate question id 'conv-im2col-gemm' (first at line 33) in a file larger than 8 KiB,"
        " whose questions are read one at a time"
    ]


NOT_STREAMED = "the file is larger than 8 KiB, and only its questions could be read one at a time"
HELD = "more than 8 KiB of the file would be held at once: a question, the settings, anchored values"
HELD_WHOLE: dict[str, tuple[Callable[[str], str], str]] = {
    "anchored list": (_replace("questions:\n", "questions: &all\n"), NOT_STREAMED),
    "no list of questions": (_replace("questions:\n", "todo:\n"), NOT_STREAMED),
    "one question too large": (_replace("    answer: B\n", f"    answer: B\n    todo: {'x' * WHOLE}\n"), HELD),
    "every question anchored": (lambda text: text.replace("  - id: ", "  - &question\n    id: "), HELD),
}


@pytest.mark.parametrize(("change", "said"), HELD_WHOLE.values(), ids=HELD_WHOLE)
def test_a_large_file_that_would_be_held_whole_is_refused_as_it_is_read(
    whole: Project, change: Callable[[str], str], said: str
) -> None:
    """More of it than a file read whole would be held at once: refused there, before it is."""
    _change(whole, change)
    assert _refused(whole, FILE) == [said]


def test_a_bank_file_larger_than_a_file_read_whole_is_refused(whole: Project) -> None:
    """Only question files are read a question at a time."""
    with (whole.decks / "bank.yaml").open("a", encoding="utf-8") as file:
        file.write("# " + "x" * WHOLE + "\n")
    assert _refused(whole, "decks/bank.yaml") == ["the file is larger than 8 KiB"]


def test_a_question_file_larger_than_its_own_limit_is_refused_unread(project: Project) -> None:
    """Above the limit of a file read a question at a time, nothing of it is read: it says it holds too much."""
    with (project.decks / "huge.yaml").open("wb") as file:
        file.truncate(paths.MAX_STREAMED_BYTES + 1)  # a hole, which the file system need not store
    assert _refused(project, "decks/huge.yaml") == ["the file is larger than 512 MiB"]


def test_a_question_file_too_large_to_read_whole_is_not_added_to(whole: Project) -> None:
    """Importing a question into it would read it whole: refused with its size, nothing written."""
    before = (whole.root / FILE).read_bytes()
    seeds = sorted((DATA / "pages" / "seeds").glob("*.txt"))
    with pytest.raises(BankError) as raised:
        import_pages(seeds, out=whole.root / FILE, decks=whole.decks, question_id="elementwise-ops-memory-bound")
    assert "the file is larger than 8 KiB" in [problem.message for problem in raised.value.problems]
    assert (whole.root / FILE).read_bytes() == before
