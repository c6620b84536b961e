"""The build cache: it saves work, and it can never serve what the files no longer say."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

import ankibuild
from ankibuild import paths
from ankibuild.cache import DamagedEntry, cache_root, pack, pack_columns, unpack, unpack_columns
from ankibuild.load import deckfiles
from ankibuild.load.deckfiles import FileResult, QuestionRef
from ankibuild.load.render import NoteHead
from ankibuild.model import Bank, Deck, Place
from ankibuild.state import BuildResult
from ankibuild.yamlfiles import reader

from ..conftest import Project

OLD = "Die arithmetische Intensität ist sehr niedrig"


def _same_size_edit(path: Path) -> None:
    """Change text without changing the file's size or modification time."""
    before = path.stat()
    text = path.read_text(encoding="utf-8")
    edited = text.replace(OLD, OLD.replace("niedrig", "NIEDRIG"), 1)
    assert edited != text and len(edited.encode()) == len(text.encode())
    path.write_text(edited, encoding="utf-8")
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert path.stat().st_size == before.st_size and path.stat().st_mtime_ns == before.st_mtime_ns


def test_an_edit_that_keeps_size_and_time_is_still_seen(project: Project) -> None:
    """The cache is keyed by content: an edit invisible to size and modification time still counts."""
    project.build()
    _same_size_edit(project.decks / "ai-hardware.yaml")
    result = project.build()
    changed = [(c.lang, c.question, c.kind) for c in result.changes.items]
    assert changed == [("de", "elementwise-ops-memory-bound", "changed")]
    assert [o.lang for o in result.outputs if o.written] == ["de"]


def _with_copy(project: Project) -> Path:
    """A second question file, ``more.yaml``: the sample's, its questions' ids changed."""
    second = project.decks / "more.yaml"
    shutil.copy(project.decks / "ai-hardware.yaml", second)
    text = second.read_text(encoding="utf-8").replace("  - id: ", "  - id: copy-")
    second.write_text(text, encoding="utf-8")
    return second


def test_only_the_edited_file_is_worked_on_again(
    project: Project, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """A rebuild after editing one question file loads, validates and renders that file alone."""
    _with_copy(project)
    project.build()
    worked = tmp_path / "worked"  # a file: the edited one is processed in a process of its own
    worked.touch()
    process = deckfiles.process

    def counted(bank: Bank, path: Path, *rest: Any, **options: Any) -> deckfiles.FileResult:
        with worked.open("a") as log:
            log.write(f"{path.name}\n")
        return process(bank, path, *rest, **options)

    monkeypatch.setattr(deckfiles, "process", counted)
    project.build()
    assert worked.read_text().split() == []
    project.edit("more.yaml", OLD, "Die Intensität ist gering")
    result = project.build()
    assert worked.read_text().split() == ["more.yaml"]
    assert [(c.question, c.kind) for c in result.changes.items] == [("copy-elementwise-ops-memory-bound", "changed")]


def test_a_damaged_cache_is_only_a_miss(project: Project) -> None:
    """Garbage in the cache folder is ignored: the build does the work again, correctly."""
    first = project.build()
    for entry in cache_root().rglob("*"):
        if entry.is_file():
            entry.write_bytes(b"not an entry")
    project.edit("ai-hardware.yaml", OLD, "Die Intensität ist gering")
    result = project.build()
    assert [o.lang for o in result.outputs if o.written] == ["de"]
    assert len(result.outputs) == len(first.outputs)


def test_the_cache_lives_outside_the_project(project: Project) -> None:
    """A shared repository or output folder can never carry a cache entry into a build."""
    project.build()
    assert any(cache_root().rglob("*.entry"))
    assert not any(p.suffix in {".entry", ".record", ".memo"} for p in project.root.rglob("*"))


def test_a_renamed_file_is_read_again_under_its_new_name(project: Project) -> None:
    """A file's place is part of its result (deck key, package name, images' folder): a move is seen."""
    project.build(split=True)
    (project.decks / "ai-hardware.yaml").rename(project.decks / "hw.yaml")
    result = project.build(split=True)
    assert sorted(o.path.name for o in result.outputs) == [f"ai-stack-hw-{lang}.apkg" for lang in ("de", "en", "fr")]
    assert all(o.written for o in result.outputs)


def test_an_image_outside_a_media_folder_that_changes_is_seen(project: Project) -> None:
    """Every image a file shows is checked on a cache hit, wherever it lives in the bank."""
    pictures = project.decks / "pics"
    pictures.mkdir()
    shutil.move(project.decks / "media" / "roofline.svg", pictures / "roofline.svg")
    text = (project.decks / "ai-hardware.yaml").read_text(encoding="utf-8")
    (project.decks / "ai-hardware.yaml").write_text(text.replace("media/roofline.svg", "pics/roofline.svg"), "utf-8")
    project.build()
    svg = pictures / "roofline.svg"
    svg.write_text(svg.read_text(encoding="utf-8").replace("</svg>", "<circle r='1'/></svg>"), encoding="utf-8")
    result = project.build()
    assert {(c.question, c.kind) for c in result.changes.items} == {("w4a16-decode", "changed")}
    assert all(o.written for o in result.outputs)


@pytest.mark.parametrize(
    "columns",
    [
        [],
        [[], []],
        [["a", "b"], ["c", "d"]],
        [["a\nb", ""], ["\udc80", "\ud800"]],
        [["", ""], ["\r", "\u2028"]],
        # Columns of few runs of one text, one of them with a line break, one of empty texts
        [[str(n) for n in range(8)], ["de"] * 5 + ["en"] * 3, ["a\nb"] * 4 + ["c"] * 4, [""] * 8],
        [[""] * 8, [""] * 8],
    ],
)
def test_columns_of_texts_come_back_as_they_were(columns: list[list[str]]) -> None:
    """Any text, a line break in it or not, is given back by the columns it was kept in."""
    assert unpack_columns(pack_columns({"a": 1}, columns)) == ({"a": 1}, columns)


@pytest.mark.parametrize(
    ("header", "blobs"),
    [
        ([{}, 2, [None, None], [None, None]], [b"a", b"b\nc"]),  # columns of different lengths
        ([{}, 1, [None], [None]], [b"\xff"]),  # not UTF-8
        ([{}, 1, [None], [None]], []),  # a column missing
        ([{}, 1, ["a"], [None]], [b""]),  # a list that is not one
        ([{}, "1", [None], [None]], [b"a"]),
        ([{}, 1, [None]], [b"a"]),  # without the counts of runs
        # Runs whose counts do not add up to the column's length, or count no text, or fewer than none, or not numbers
        ([{}, 4, [None, None], [None, [2, 3]]], [b"1\n2\n3\n4", b"a\nb"]),
        ([{}, 4, [None, None], [None, [4, 0]]], [b"1\n2\n3\n4", b"a\nb"]),
        ([{}, 4, [None, None], [None, [5, -1]]], [b"1\n2\n3\n4", b"a\nb"]),
        ([{}, 4, [None, None], [None, [2, 2, 0]]], [b"1\n2\n3\n4", b"a\nb"]),  # a count without its text
        ([{}, 4, [None, None], [None, [2.0, 2]]], [b"1\n2\n3\n4", b"a\nb"]),
        ([{}, 4, [None, None], [None, [True, 3]]], [b"1\n2\n3\n4", b"a\nb"]),
        ([{}, 4, [None, None], [None, {"2": 2}]], [b"1\n2\n3\n4", b"a\nb"]),
        # Far more texts than the first column holds, which is never in runs
        ([{}, 2**62, [None, None], [None, [2**61, 2**61]]], [b"1\n2\n3\n4", b"a\nb"]),
        ([{}, 2**62, [None], [[2**61, 2**61]]], [b"a\nb"]),
        ([{}, -1, [None], [None]], [b"a"]),
        ([{}, 1, [[7]], [None]], [b""]),  # a column kept as a list, of other than texts
        ({"a": 1}, [b"a"]),  # no columns at all
    ],
)
def test_columns_of_another_shape_are_damaged(header: object, blobs: list[bytes]) -> None:
    with pytest.raises(DamagedEntry):
        unpack_columns(pack(header, blobs))


@pytest.mark.parametrize(
    ("guid", "question", "digest"),
    [
        ("g1", "q1", "d1"),
        # A text that holds the character that joins a column's texts: that column is kept as a list
        ("g\0", "q1", "d1"),
        ("g1", "q1", "d\0"),
        # A note whose question is not among the file's: the notes' questions are kept as a list, not by place
        ("g1", "q0", "d1"),
        ("g1", "q\0", "d1"),
    ],
)
def test_a_result_comes_back_as_it_was_packed(guid: str, question: str, digest: str) -> None:
    """Its notes, questions and blocks, each kept as columns of texts (see ``FileResult.packed``)."""
    deck = Deck("deck", {"en": "Deck"}, (), Place(Path("decks/deck.yaml"), 1, 1))
    notes = (
        NoteHead(guid, question, "en", "deck", (), digest, "0a 1b", "choice", (0,)),
        NoteHead("g2", "q2", "en", "deck", (), "d2", "", "choice", (0,)),
    )
    questions = (QuestionRef("q1", 3, 5), QuestionRef("q2", 9, 5))
    blocks = (("q1", "q1:\n  en 00"), ("q2", "q2:\n  en 11"))
    result = FileResult("sha", deck, (), notes, {}, {}, {}, questions, "texts", (), blocks)
    restored = deckfiles.restore(unpack(result.packed()))
    assert (restored.notes, restored.questions, restored.blocks) == (notes, questions, blocks)


def test_a_question_file_the_build_processes_is_read_once_for_it(
    project: Project, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Besides the look at what changed, which hashes it, a file is read only to be processed."""
    reads: list[str] = []
    original = paths.read_inside

    def counted(path: Path, *args: Any) -> bytes:
        reads.append(path.name)
        return original(path, *args)

    monkeypatch.setattr(reader, "read_inside", counted)
    monkeypatch.setattr(deckfiles, "can_fork", lambda: False)  # every file processed in this process
    project.build()
    files = sorted(path.name for path in project.decks.glob("*.yaml") if path.name != "bank.yaml")
    assert sorted(name for name in reads if name in files) == files
    reads.clear()
    project.edit("ai-hardware.yaml", OLD, OLD.replace("niedrig", "gering"))
    project.build()
    assert [name for name in reads if name in files] == ["ai-hardware.yaml"]


#: The start of a question's English text in the sample: changed, its other languages fall behind it.
EN_QUESTION = "Why do elementwise operations such as ReLU"


def _outdated(result: BuildResult) -> list[str]:
    """Where each outdated translation is, and which language it is, as told (the date of the change aside)."""
    return [f"{w.location} {w.message.split(':')[0]}" for w in result.warnings if "may be outdated" in w.message]


def _copy_behind(project: Project) -> None:
    """The copy's question of :data:`EN_QUESTION` changed in English, once the copy was built."""
    _with_copy(project)
    project.build()
    project.edit("more.yaml", EN_QUESTION, "Why do element-wise operations such as ReLU")


def _other_edit(project: Project) -> None:
    """An edit of the sample file that changes none of its texts: it is processed again, the copy restored."""
    with (project.decks / "ai-hardware.yaml").open("a", encoding="utf-8") as file:
        file.write("# reviewed\n")


def test_a_file_restored_still_tells_its_translations_behind(project: Project) -> None:
    """The digests of a file's texts are read back from the cache for the questions with a translation behind."""
    _copy_behind(project)
    told = _outdated(project.build())
    assert len(told) == 2 and all("more.yaml" in warning for warning in told)
    _other_edit(project)
    assert _outdated(project.build()) == told


@pytest.mark.parametrize(
    "damaged",
    [
        b'[["q"],["de"],["0"],[1],["1"]]',
        b"copy-elementwise-ops-memory-bound\tde\n",
        b"copy-elementwise-ops-memory-bound\tde\tabc\tone\t5\n",
        b"copy-elementwise-ops-memory-bound\tde\tabc\t1\t5",
        b"",
    ],
)
def test_damaged_digests_of_a_file_restored_are_made_again(project: Project, damaged: bytes) -> None:
    """Digests of its texts that are not what a result packs, in an entry that is whole: the file is read again."""
    _copy_behind(project)
    told = _outdated(project.build())
    entry = next(path for path in cache_root().rglob("*.entry") if _of_copy(unpack(path.read_bytes())))
    header, blobs = unpack(entry.read_bytes())
    entry.write_bytes(pack(header, [*blobs[:-1], damaged]))
    _other_edit(project)
    assert _outdated(project.build()) == told
    assert unpack(entry.read_bytes())[1][-1].startswith(b"copy-elementwise-ops-memory-bound\tde\t")


def _of_copy(entry: tuple[Any, list[bytes]]) -> bool:
    """Whether an entry is the result of ``more.yaml`` (not its texts)."""
    header = entry[0]
    return isinstance(header, dict) and str(header["deck"][2][0]).endswith("more.yaml")


def _fingerprint_of(source: Path) -> str:
    """The code fingerprint of the package copied to ``source``, as a build run from it takes it."""
    run = subprocess.run(
        [sys.executable, "-c", "from ankibuild.version import code_fingerprint; print(code_fingerprint())"],
        env={**os.environ, "PYTHONPATH": str(source), "PYTHONDONTWRITEBYTECODE": "1"},
        capture_output=True,
        text=True,
        check=False,
    )
    assert run.returncode == 0, run.stderr
    return run.stdout.strip()


@pytest.mark.skipif(reader.LIBYAML is None, reason="PyYAML here has no libyaml")
def test_the_results_kept_are_those_of_the_yaml_parser_that_read(monkeypatch: pytest.MonkeyPatch) -> None:
    """A cache folder shared by a machine with libyaml and one without: PyYAML's own parser words a file's
    problems apart from libyaml, so neither takes the other's results."""
    bank = Bank(id="b", languages=("de",), titles={}, topics={}, decks=(), root=Path("decks"))
    monkeypatch.setattr(reader, "PARSER", reader.LIBYAML)
    with_libyaml = deckfiles._context(bank, b"id: b\n", ["de"])
    monkeypatch.setattr(reader, "PARSER", reader.PythonParser)
    assert deckfiles._context(bank, b"id: b\n", ["de"]) != with_libyaml


def test_the_cache_is_for_the_code_that_filled_it(tmp_path: Path) -> None:
    """An installed checkout edited keeps its version number: any change to its code or to what cards are made
    of keys the cache anew; compiled files, other files and links to folders elsewhere do not."""
    source = tmp_path / "src"
    shutil.copytree(Path(ankibuild.__file__).parent, source / "ankibuild", ignore=shutil.ignore_patterns("__pycache__"))
    first = _fingerprint_of(source)
    assert first == _fingerprint_of(source)
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "elsewhere.py").write_text("x = 1\n")
    (source / "ankibuild" / "load" / "linked").symlink_to(outside, target_is_directory=True)
    (source / "ankibuild" / "load" / "notes.txt").write_text("not code\n")
    (source / "ankibuild" / "load" / "__pycache__").mkdir()
    (source / "ankibuild" / "load" / "__pycache__" / "stage.cpython-311.pyc").write_bytes(b"compiled")
    assert _fingerprint_of(source) == first
    for edited in (source / "ankibuild" / "load" / "stage.py", source / "ankibuild" / "preview" / "page" / "page.css"):
        before = edited.read_bytes()
        edited.write_bytes(before + b"\n")
        assert _fingerprint_of(source) != first, edited
        edited.write_bytes(before)
    (source / "ankibuild" / "load" / "added.py").write_text("")
    assert _fingerprint_of(source) != first
