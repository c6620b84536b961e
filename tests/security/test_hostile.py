"""A bank from someone else's repository: nothing in it runs, explodes or reads outside it."""

from __future__ import annotations

import json
import re
from html.parser import HTMLParser
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from ankibuild.cli import main
from ankibuild.paths import MAX_FILE_BYTES
from ankibuild.yamlfiles.reader import MAX_DEPTH

from ..ankitools import TEMPLATE_ERROR, collection, import_package, render
from ..conftest import DATA, Project, snapshot, use_scenario


def _check(project: Project) -> tuple[Result, list[dict[str, object]]]:
    result = CliRunner().invoke(main, ["check", "--format", "json"])
    return result, json.loads(result.stdout)


def _refused(project: Project, file: str) -> list[str]:
    """Messages of the errors reported for ``file``; check exits 1 and build writes nothing."""
    result, problems = _check(project)
    assert result.exit_code == 1, result.output
    built = CliRunner().invoke(main, ["build"])
    assert built.exit_code == 1 and not project.out.exists()
    return [str(p["message"]) for p in problems if p["file"] == file and p["severity"] == "error"]


def test_a_python_tag_is_refused_and_never_run(project: Project) -> None:
    """`!!python/object/apply:os.system` would create a marker file if it were constructed: it is not."""
    use_scenario(project, "python-tag")
    marker = project.root / "ankibuild-was-here"
    messages = _refused(project, "decks/memory.yaml")
    assert messages == ["YAML: tag '!!python/object/apply:os.system' is not allowed"]
    assert not marker.exists()


@pytest.mark.parametrize(
    ("value", "tag"),
    [("!!binary aGVsbG8=", "!!binary"), ("!!set {a, b}", "!!set"), ("!!int 3", "!!int"), ("!local x", "!local")],
)
def test_every_other_tag_is_refused_too(project: Project, value: str, tag: str) -> None:
    """Only plain text, lists and mappings come out of a bank file; explicit tags are refused by name."""
    project.edit("ai-hardware.yaml", "deck:\n", f"extra: {value}\ndeck:\n")
    assert _refused(project, "decks/ai-hardware.yaml") == [f"YAML: tag '{tag}' is not allowed"]


def test_the_billion_laughs_document_is_refused_before_it_expands(project: Project) -> None:
    """Nine levels of nine aliases (9**9 strings once expanded) stop at the first alias that repeats too much."""
    use_scenario(project, "billion-laughs")
    assert (DATA / "billion-laughs" / "memory.yaml").stat().st_size < 1024
    assert _refused(project, "decks/memory.yaml") == ["YAML: aliases (*name) repeat too many values"]


def test_one_big_list_repeated_by_many_aliases_is_refused(project: Project) -> None:
    """A flat bomb: a 2,000-item list repeated 2,000 times (four million values from a 40 kB file)."""
    items = ", ".join(f"o{i}" for i in range(2000))
    aliases = ", ".join(["*big"] * 2000)
    (project.decks / "bomb.yaml").write_text(f"big: &big [{items}]\nall: [{aliases}]\nquestions: []\n")
    assert _refused(project, "decks/bomb.yaml") == ["YAML: aliases (*name) repeat too many values"]


def test_one_long_text_repeated_by_many_aliases_is_refused(project: Project) -> None:
    """A 64 kB text repeated 200 times: few values, but 13 MB of text to check and render from a 66 kB file."""
    text = " ".join(["word"] * 13_000)
    aliases = ", ".join(["*long"] * 200)
    (project.decks / "bomb.yaml").write_text(f"long: &long {text}\nall: [{aliases}]\nquestions: []\n")
    assert _refused(project, "decks/bomb.yaml") == ["YAML: aliases (*name) repeat too many values"]


def test_anchors_and_merge_keys_used_sparingly_are_fine(project: Project) -> None:
    """Options shared between languages through an anchor, and a merged mapping, still build."""
    project.edit(
        "ai-hardware.yaml",
        "questions:\n",
        "questions:\n"
        "  - &shared\n    id: shared-options\n    topics: [ai-hardware]\n    answer: A\n"
        "    de: {question: Was ist HBM?, options: &hbm [High Bandwidth Memory, Hybrid Bus Module], explanation: x}\n"
        "    fr: {question: Qu'est-ce que HBM ?, options: *hbm, explanation: x}\n"
        "    en: {question: What is HBM?, options: *hbm, explanation: x}\n"
        "  - <<: *shared\n    id: merged-question\n",
    )
    result, problems = _check(project)
    assert (result.exit_code, problems) == (0, [])


@pytest.mark.parametrize("nesting", ["[" * 100_000 + "]" * 100_000, "- " * 50_000 + "x"], ids=["flow", "block"])
def test_absurd_nesting_is_refused_without_crashing(project: Project, nesting: str) -> None:
    """libyaml's composer would overflow the C stack on these; the depth is checked first."""
    (project.decks / "deep.yaml").write_text(nesting)
    assert _refused(project, "decks/deep.yaml") == [f"YAML: nested more than {MAX_DEPTH} levels deep"]


def test_an_oversized_file_is_refused_without_being_parsed(project: Project) -> None:
    """A file read whole over the limit is read no further than the limit and reported with a hint
    (a question file, read a question at a time, may hold more: tests/security/test_large_files.py)."""
    with (project.decks / "bank.yaml").open("ab") as file:
        file.write(b"# " + b"x" * (MAX_FILE_BYTES - 1) + b"\n")
    assert _refused(project, "decks/bank.yaml") == ["the file is larger than 32 MiB"]


def test_control_characters_are_located(project: Project) -> None:
    """An invisible control character pasted into a question is reported at its line and column."""
    project.edit("ai-hardware.yaml", "Why do elementwise", "Why do\x00 elementwise")
    _, problems = _check(project)
    (problem,) = problems
    assert problem["message"] == "YAML: character U+0000 is not allowed"
    assert (problem["line"], problem["column"]) == (26, 23)


def test_a_control_character_written_as_an_escape_is_refused(project: Project) -> None:
    """`"\\x1f"` in quotes is valid YAML, but U+001F separates a note's fields inside Anki: refused."""
    project.edit(
        "ai-hardware.yaml", "      question: Why do elementwise", '      question: "Why\\x1f do" # elementwise'
    )
    _, problems = _check(project)
    (problem,) = problems
    assert problem["message"] == "'question' contains the invisible control character U+001F"
    assert (problem["line"], problem["column"], problem["question"]) == (26, 7, "elementwise-ops-memory-bound")


def test_a_question_file_linked_from_outside_is_refused(project: Project, tmp_path: Path) -> None:
    """A link in the bank to a file elsewhere is an error naming the link; the file is never read."""
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.yaml").write_text("questions: [")  # would be a syntax error if it were read
    (project.decks / "linked.yaml").symlink_to(outside / "secret.yaml")
    messages = _refused(project, "decks/linked.yaml")
    assert messages == ["is a link to a place outside the bank folder; it is not read"]
    _, problems = _check(project)
    assert not [p for p in problems if "secret" in str(p["file"])]


def test_a_folder_linked_from_outside_is_refused(project: Project, tmp_path: Path) -> None:
    """A linked folder leading out of the bank is not walked into."""
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "q.yaml").write_text("questions: [")
    (project.decks / "shared").symlink_to(outside, target_is_directory=True)
    assert _refused(project, "decks/shared") == ["is a link to a place outside the bank folder; it is not read"]


def test_a_bank_file_linked_from_outside_is_refused(project: Project, tmp_path: Path) -> None:
    """bank.yaml itself may not come from elsewhere either."""
    moved = tmp_path / "bank.yaml"
    (project.decks / "bank.yaml").rename(moved)
    (project.decks / "bank.yaml").symlink_to(moved)
    assert _refused(project, "decks/bank.yaml") == ["is a link to a place outside the bank folder; it is not read"]


def test_links_inside_the_bank_are_followed_once(project: Project) -> None:
    """A linked file or folder inside the bank is read once, under its real place; a link loop ends."""
    (project.decks / "again.yaml").symlink_to(project.decks / "ai-hardware.yaml")
    (project.decks / "sub").mkdir()
    (project.decks / "sub" / "up").symlink_to(project.decks, target_is_directory=True)
    result, problems = _check(project)
    assert (result.exit_code, problems) == (0, [])
    built = project.build()
    assert (built.decks, built.questions) == (1, 6)  # the file reached through links is read once


def test_a_link_loop_is_refused_as_one_on_every_python(project: Project) -> None:
    """Python 3.13 follows a link loop without a word, to a place that looks inside the bank; 3.11 raised."""
    (project.decks / "loop.yaml").symlink_to(project.decks / "loop.yaml")
    (project.decks / "one.yaml").symlink_to(project.decks / "two.yaml")
    (project.decks / "two.yaml").symlink_to(project.decks / "one.yaml")
    said = "is a link that leads back to itself; it is not read"
    for link in ("loop.yaml", "one.yaml", "two.yaml"):
        assert _refused(project, f"decks/{link}") == [said]


def test_hidden_files_and_folders_are_not_question_files(project: Project) -> None:
    """`.git`, CI workflows and editors' backups beside the questions are not read."""
    (project.decks / ".github" / "workflows").mkdir(parents=True)
    (project.decks / ".github" / "workflows" / "ci.yml").write_text("on: push\n")
    (project.decks / ".#ai-hardware.yaml").write_text("questions: [")
    result, problems = _check(project)
    assert (result.exit_code, problems) == (0, [])


class _Tags(HTMLParser):
    """Every element and attribute a rendered card really contains."""

    def __init__(self) -> None:
        super().__init__()
        self.tags: set[str] = set()
        self.attributes: list[tuple[str, str]] = []
        self.scripts: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.add(tag)
        self.attributes += [(name, value or "") for name, value in attrs]
        if tag == "script":
            self.scripts.append(dict(attrs).get("src") or "inline")


def _elements(html_text: str) -> _Tags:
    parser = _Tags()
    parser.feed(html_text)
    return parser


def test_html_in_text_is_shown_as_text_in_anki(project: Project, tmp_path: Path) -> None:
    """`<script>`, `onerror=` and `javascript:` links in a question render as visible text, never as markup."""
    use_scenario(project, "html-in-text")
    before = snapshot(project.templates)
    project.build()
    for lang in ("de", "en"):
        with collection(tmp_path / f"{lang}.anki2") as col:
            import_package(col, project.out / f"ai-stack-{lang}.apkg")
            (card_id,) = col.find_cards("")
            front, back = render(col, card_id)
            assert TEMPLATE_ERROR not in front + back
            for side in (front, back):
                elements = _elements(side)
                assert not elements.tags & {"img", "a", "b"}, elements.tags  # the elements written in the text
                assert all(re.fullmatch(r"_ankibuild-[0-9a-f]{12}\.js", src) for src in elements.scripts)  # card.js
                assert not [name for name, _ in elements.attributes if name.startswith("on")]
                assert not [value for _, value in elements.attributes if "javascript:" in value]
            assert "&lt;script&gt;alert(" in front
            assert "&lt;img src=x onerror=alert(1)&gt;" in front
            assert '&lt;a href="javascript:alert(2)"&gt;' in front
            assert "&lt;b onmouseover=alert(3)&gt;Text&lt;/b&gt; &amp;" in back
    assert snapshot(project.templates) == before


@pytest.mark.parametrize("brk", ["\\n", "\\u2028", "\\u2029"])
@pytest.mark.parametrize(
    ("file", "old", "title"),
    [
        ("ai-hardware.yaml", "  en: AI hardware and software stack\n", "  en: {}\n"),
        ("bank.yaml", "  en: AI Quiz\n", "  en: {}\n"),
        ("bank.yaml", "    en: Memory bandwidth\n", "    en: {}\n"),
    ],
    ids=["deck", "bank", "topic"],
)
def test_a_title_holding_a_line_break_is_refused_at_its_line(
    project: Project, brk: str, file: str, old: str, title: str
) -> None:
    """A title with a break in it would start a line of its own in the changelog and the release notes."""
    project.edit(file, old, title.format(f'"Evil{brk}## Published <img src=x onerror=alert(1)>"'))
    messages = _refused(project, f"decks/{file}")
    assert len(messages) == 1 and "holds a line break" in messages[0], messages
    _, problems = _check(project)
    line = next(n for n, text in enumerate((project.decks / file).read_text().splitlines(), 1) if "Evil" in text)
    assert [p["line"] for p in problems if p["file"] == f"decks/{file}" and p["severity"] == "error"] == [line]
