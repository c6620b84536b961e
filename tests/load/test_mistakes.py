"""The catalogue of mistakes: each is reported where it is, with a hint, and nothing is written.

Every scenario is a small bank in ``tests/data/<scenario>/`` (a ``templates/``
folder there is laid over the project's templates). ``check`` must name the
file, line and column; ``build`` must fail the same way and leave the previous
build's packages, changelog and lock file exactly as they were.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

import pytest
from click.testing import CliRunner

from ankibuild.cli import main
from ankibuild.lock.format import LOCK_FILE

from ..conftest import Project, snapshot, use_scenario

pytestmark = pytest.mark.slow  # a whole build for each of the catalogue's mistakes


@dataclass(frozen=True)
class Mistake:
    scenario: str
    location: str  # file:line:column as reported, relative to where the build runs
    message: str  # a fragment of the message
    hint: str = ""  # a fragment of the hint, where the hint is the point
    options: tuple[str, ...] = ()
    remove: tuple[str, ...] = ()  # template files the scenario deletes
    checked: bool = True  # False: only a build with these options can see it
    detail: str = ""  # a fragment of the detail: the parser's own words, kept
    name: str = ""  # tells apart two mistakes of one scenario

    @property
    def id(self) -> str:
        return self.name or self.scenario


MISTAKES = [
    Mistake(
        "yaml-syntax-error",
        "decks/memory.yaml:11:17",
        'the quote " opened here is never closed',
        'end the text with "',
        detail="while scanning a quoted scalar",
    ),
    Mistake(
        "unclosed-bracket",
        "decks/questions.yaml:8:16",
        "the '[' opened here is not closed with ']'",
        "close it with ']' after the last item",
        detail="did not find expected ',' or ']'",
    ),
    Mistake(
        "option-indented-too-far",
        "decks/questions.yaml:20:11",
        "joined both into one item: '\\( 2^n \\) - \\( n! \\)'",
        "start its '-' at column 9 like the item above",
        options=("--strict",),
        name="option-indented-too-far-is-named",
    ),
    Mistake(
        "option-indented-too-far",
        "decks/questions.yaml:16:7",
        "the 'es' translation has 3 options, but 'en' has 4",
        "indented further than the one above it is joined to it",
        name="option-count-points-at-the-language-that-differs",
    ),
    Mistake(
        "colon-in-text",
        "decks/questions.yaml:9:42",
        "a ': ' inside unquoted text, which YAML reads as a new key: explanation: Pair the terms (Gauss): 1 + 100",
        "put the text in quotes: explanation: 'Pair the terms (Gauss): 1 + 100, 2 + 99, and so on.'",
        detail="mapping values are not allowed",
    ),
    Mistake(
        "hash-in-text",
        "decks/questions.yaml:9:49",
        "the text stops before ' #': YAML reads '#3 of the sheet.' as a comment",
        "put the text in quotes: explanation: 'Pair the terms, see exercise #3 of the sheet.'",
        options=("--strict",),
    ),
    Mistake(
        "tab-indentation",
        "decks/questions.yaml:8:1",
        "a tab in the indentation: YAML indents with spaces only",
        "replace the tab with spaces",
        detail="tab",
    ),
    Mistake(
        "key-indented-too-far",
        "decks/questions.yaml:8:9",
        "'options:' is indented more than 'question:' on line 7",
        "start 'options:' at column 7",
        detail="mapping values are not allowed",
    ),
    Mistake(
        "key-indented-too-little",
        "decks/questions.yaml:11:6",
        "this line is indented less than the lines it belongs with",
        "start it at column 7 (like line 8) or at column 5 (like line 6)",
        detail="did not find expected key",
    ),
    Mistake(
        "missing-dash-before-question",
        "decks/questions.yaml:11:5",
        "'id:' again in the same item (first on line 3): a new list item needs '- ' in front",
        "write '- ' in place of the two spaces before 'id:'",
        detail="duplicate key 'id'",
    ),
    Mistake(
        "every-problem-of-a-question",
        "decks/questions.yaml:9:7",
        "unknown key 'explaination'",
        "did you mean 'explanation'?",
        name="every-problem-of-a-question-unknown-key",
    ),
    Mistake(
        "every-problem-of-a-question",
        "decks/questions.yaml:7:7",
        "image 'media/pairs.svg' not found",
        "no file decks/media/pairs.svg",
        name="every-problem-of-a-question-image",
    ),
    Mistake("empty-file", "decks/empty.yaml:1:1", "the file is empty"),
    Mistake("top-level-not-a-mapping", "decks/memory.yaml:1:1", "a question file must be a mapping"),
    Mistake("unknown-key", "decks/memory.yaml:13:7", "unknown key 'explenation'", "did you mean 'explanation'?"),
    Mistake("missing-required-key", "decks/memory.yaml:3:5", "missing key 'answer' in a question"),
    Mistake("wrong-type", "decks/memory.yaml:12:7", "'options' must be a list (- item), not text"),
    Mistake("empty-text", "decks/memory.yaml:11:7", "'question' is empty"),
    Mistake("duplicate-key", "decks/memory.yaml:10:7", "duplicate key 'explanation' (first at line 9)"),
    Mistake(
        "duplicate-question-id",
        "decks/more/bandwidth.yaml:3:5",
        "duplicate question id 'hbm-stands-for': also at decks/memory.yaml:3:5",
    ),
    Mistake(  # each checked with its own options: the other's, fewer, once raised an IndexError
        "duplicate-question-id-in-one-file",
        "decks/memory.yaml:14:5",
        "duplicate question id 'hbm-stands-for': also at decks/memory.yaml:3:5",
    ),
    Mistake("answer-not-among-options", "decks/memory.yaml:5:5", "answer C is not among the 2 options"),
    Mistake("too-few-options", "decks/memory.yaml:8:7", "1 option(s); a question needs 2 to 6"),
    Mistake("too-many-options", "decks/memory.yaml:12:7", "7 option(s); a question needs 2 to 6"),
    Mistake("identical-options", "decks/memory.yaml:12:40", "option B repeats option A"),
    Mistake("option-count-differs", "decks/memory.yaml:12:7", "the 'en' translation has 2 options, but 'de' has 3"),
    Mistake("missing-translation", "decks/memory.yaml:3:5", "no 'en' translation", options=("--strict",)),
    Mistake("undeclared-topic", "decks/memory.yaml:4:14", "undeclared topic 'memmory'", "did you mean 'memory'?"),
    Mistake(
        "topic-without-name",
        "decks/bank.yaml:5:3",
        "topic 'memory' has no name in 'en': its 'de' name 'Speicher' is used",
        "add 'en: <name>' under it",
        options=("--strict",),
    ),
    Mistake("unknown-language-code", "decks/bank.yaml:3:21", "unknown language code 'xx'", "ISO 639-1"),
    Mistake("unknown-language-in-question", "decks/memory.yaml:10:5", "unknown key 'eng'", "did you mean 'en'?"),
    Mistake(
        "translation-indented-too-far", "decks/memory.yaml:10:7", "unknown key 'en' in the 'de' translation", "indented"
    ),
    Mistake("question-id-not-a-slug", "decks/memory.yaml:3:5", "question id 'HBM stands for' is not a slug"),
    Mistake("invalid-utf8", "decks/memory.yaml:7:20", "not valid UTF-8 (byte 0xfc)", "UTF-8"),
    Mistake("bank-id-changed", "decks/bank.yaml:2:1", "the bank id changed from 'ai-stack'", "change it back"),
    Mistake("lock-merge-conflict", "decks/ankibuild.lock:1:1", "merge conflict markers", "git checkout"),
    Mistake(
        "split-name-collision",
        "decks/a-b.yaml:1:1",
        "this file and decks/a/b.yaml would both write ai-stack-a-b-<lang>.apkg",
        options=("--split",),
        checked=False,
    ),
    Mistake("template-unknown-field", "templates/default/front.html:3:24", "unknown field 'Hint'", "fields are"),
    Mistake("template-unbalanced-section", "templates/default/back.html:3:1", "section {{#A}} is never closed"),
    Mistake("python-tag", "decks/memory.yaml:2:7", "tag '!!python/object/apply:os.system' is not allowed"),
    Mistake("billion-laughs", "decks/memory.yaml:7:8", "aliases (*name) repeat too many values"),
]


@pytest.fixture
def released(project: Project) -> Project:
    """The sample bank built once: ``dist/`` and the lock file hold a previous build."""
    project.build()
    return project


def _introduce(project: Project, mistake: Mistake) -> None:
    """Swap in the scenario's bank, keeping the previous build's lock file unless it brings its own."""
    lock = (project.decks / LOCK_FILE).read_bytes()
    use_scenario(project, mistake.scenario)
    if not (project.decks / LOCK_FILE).exists():
        (project.decks / LOCK_FILE).write_bytes(lock)
    for name in mistake.remove:
        (project.templates / name).unlink()


def _location(problem: dict[str, object]) -> str:
    return f"{problem['file']}:{problem['line']}:{problem['column']}" if problem["line"] else str(problem["file"])


@pytest.mark.parametrize("mistake", [m for m in MISTAKES if m.checked], ids=lambda m: m.id)
def test_check_names_file_line_column_and_a_hint(released: Project, mistake: Mistake) -> None:
    """`ankibuild check --format json` exits 1 and locates the mistake, with a hint a student can act on."""
    _introduce(released, mistake)
    before = snapshot(released.decks, released.templates, released.out)
    result = CliRunner().invoke(main, ["check", "--format", "json", *mistake.options])
    assert result.exit_code == 1, result.output
    problems = json.loads(result.stdout)
    found = [p for p in problems if _location(p) == mistake.location and mistake.message in str(p["message"])]
    assert len(found) == 1, problems
    assert found[0]["severity"] == "error"
    assert mistake.hint in str(found[0]["hint"]) and found[0]["hint"]
    assert mistake.detail in str(found[0]["detail"])
    assert snapshot(released.decks, released.templates, released.out) == before


@pytest.mark.parametrize("mistake", MISTAKES, ids=lambda m: m.id)
def test_build_reports_the_mistake_and_writes_nothing(released: Project, mistake: Mistake) -> None:
    """`ankibuild build` exits 1 with the located error; the previous packages and lock keep their bytes and mtimes."""
    _introduce(released, mistake)
    before = snapshot(released.out, released.decks)
    result = CliRunner().invoke(main, ["build", *mistake.options])
    assert result.exit_code == 1, result.output
    assert f"{mistake.location}: error" in result.output
    assert mistake.message in result.output
    assert "Traceback" not in result.output and result.exception is not None
    assert isinstance(result.exception, SystemExit)
    assert snapshot(released.out, released.decks) == before
    assert sorted(p.name for p in released.out.iterdir()) == [
        "CHANGELOG.md",
        "ai-stack-de.apkg",
        "ai-stack-en.apkg",
        "ai-stack-fr.apkg",
    ]
