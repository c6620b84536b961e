"""The JSON Schemas editors use: valid draft 2020-12, true to the sample bank and to the validator."""

from __future__ import annotations

import itertools
import json
import re
import string
from pathlib import Path
from typing import Any

import jsonschema
import pytest
import yaml
from click.testing import CliRunner

from ankibuild.cli import main
from ankibuild.errors import Problems
from ankibuild.kinds.choice import MAX_OPTIONS, MIN_OPTIONS, Choice
from ankibuild.languages import is_language
from ankibuild.loader import load
from ankibuild.model import LETTERS
from ankibuild.schema import schema_text
from ankibuild.validate import BANK_KEYS, FILE_KEYS, QUESTION_KEYS

from .conftest import ROOT

QUESTION = {
    "id": "q1",
    "topics": ["ai-hardware"],
    "answer": "B",
    "de": {"question": "Frage?", "options": ["Eins", "Zwei"], "explanation": "Weil."},
    "en": {"question": "Question?", "options": ["One", "Two"], "explanation": "Because."},
}


def _validator(*, bank: bool) -> jsonschema.Draft202012Validator:
    schema = json.loads(schema_text(bank=bank))
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema)


def _loaded(path: Path) -> Any:
    """A file as ankibuild reads it (YAML 1.2 scalars), so the schema sees what the build sees."""
    source = load(path, Problems())
    assert source.parsed
    return source.data


@pytest.mark.parametrize("bank", [False, True], ids=["questions", "bank"])
def test_schema_command_prints_a_draft_2020_12_schema(bank: bool) -> None:
    """`ankibuild schema [--bank]` prints the shipped schema, itself valid under the 2020-12 metaschema."""
    result = CliRunner().invoke(main, ["schema", "--bank"] if bank else ["schema"])
    assert result.exit_code == 0
    schema = json.loads(result.output)
    jsonschema.Draft202012Validator.check_schema(schema)
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    assert ("bank.yaml" in schema["title"]) is bank


def test_the_sample_bank_is_valid_under_the_schemas() -> None:
    """decks/bank.yaml and every sample question file pass their schema without a single error."""
    assert list(_validator(bank=True).iter_errors(_loaded(ROOT / "decks" / "bank.yaml"))) == []
    files = [path for path in (ROOT / "decks").glob("*.yaml") if path.name != "bank.yaml"]
    assert files
    for path in files:
        assert list(_validator(bank=False).iter_errors(_loaded(path))) == [], path


def _question_file(**changes: Any) -> dict[str, Any]:
    question = {**QUESTION, **changes}
    return {"deck": {"de": "Deck", "en": "Deck"}, "questions": [{k: v for k, v in question.items() if v is not None}]}


@pytest.mark.parametrize(
    "document",
    [
        {"questions": [], "decks": {"de": "Tippfehler"}},
        {"deck": {"de": "Ohne Fragen"}},
        _question_file(answer="G"),
        _question_file(id="Not A Slug"),
        _question_file(topics=[]),
        _question_file(answer=None),
        _question_file(xx={"question": "?", "options": ["a", "b"], "explanation": "x"}),
        _question_file(en={"question": "   ", "options": ["a", "b"], "explanation": "x"}),
        _question_file(en={"question": "?", "options": ["only one"], "explanation": "x"}),
        _question_file(en={"question": "?", "options": list("abcdefg"), "explanation": "x"}),
        _question_file(en={"question": "?", "options": ["same", "same"], "explanation": "x"}),
        _question_file(en={"question": "?", "options": ["a", "b"], "explanation": "x", "fr": {}}),
        _question_file(en={"question": "?", "options": ["a", "b"]}),
        _question_file(en={"question": True, "options": ["a", "b"], "explanation": "x"}),
    ],
    ids=[
        "unknown-key",
        "no-questions",
        "answer-letter",
        "id-not-slug",
        "no-topics",
        "no-answer",
        "unknown-language",
        "blank-text",
        "one-option",
        "seven-options",
        "same-options",
        "translation-too-deep",
        "no-explanation",
        "boolean-text",
    ],
)
def test_the_question_schema_rejects_mistakes(document: dict[str, Any]) -> None:
    """Mistakes an editor can see in one file are flagged by the schema, as `check` flags them."""
    assert _validator(bank=False).is_valid(_question_file())
    assert not _validator(bank=False).is_valid(document)


@pytest.mark.parametrize(
    "change",
    [
        {"languages": []},
        {"languages": ["de", "xx"]},
        {"languages": ["de", "de"]},
        {"languages": ["id"]},
        {"shuffle": "yes"},
        {"topics": {"has space": {"de": "x"}}},
        {"topics": {"t": {"de": ""}}},
        {"title": {"german": "Titel"}},
        {"owner": "me"},
    ],
    ids=str,
)
def test_the_bank_schema_rejects_mistakes(change: dict[str, Any]) -> None:
    """bank.yaml mistakes: empty or unknown languages, a non-boolean shuffle, bad topics, unknown keys."""
    valid = {"id": "ai-stack", "languages": ["de", "en"], "topics": {"t": {"de": "T", "en": "T"}}}
    assert _validator(bank=True).is_valid(valid)
    assert not _validator(bank=True).is_valid({**valid, **change})


def test_the_schemas_agree_with_the_validator() -> None:
    """Keys, required keys, option counts and answer letters are the validator's own."""
    bank = json.loads(schema_text(bank=True))
    questions = json.loads(schema_text())
    question, translation = questions["$defs"]["choice"], questions["$defs"]["choice-translation"]
    for spec, schema in [
        (BANK_KEYS, bank),
        (FILE_KEYS, questions),
        ({**QUESTION_KEYS, **Choice.question_keys}, question),
        (Choice.translation_keys, translation),
    ]:
        assert set(schema["properties"]) == set(spec)
        assert set(schema.get("required", [])) == {key for key, required in spec.items() if required}
    options = translation["properties"]["options"]
    assert (options["minItems"], options["maxItems"]) == (MIN_OPTIONS, MAX_OPTIONS)
    answer = re.compile(question["properties"]["answer"]["pattern"])
    assert [letter for letter in string.ascii_uppercase if answer.match(letter)] == list(LETTERS)


def test_the_language_pattern_is_the_validators() -> None:
    """Every two-letter code, alone and with a region or script, is a language for both or for neither."""
    pattern = re.compile(json.loads(schema_text(bank=True))["$defs"]["language"]["pattern"])
    pairs = ("".join(pair) for pair in itertools.product(string.ascii_lowercase, repeat=2))
    for code in itertools.chain.from_iterable((p, f"{p}-BR", f"{p}-Hant", f"{p}-br") for p in pairs):
        assert bool(pattern.match(code)) == is_language(code), code


def test_the_pre_commit_hook_runs_check_on_bank_and_template_changes() -> None:
    """.pre-commit-hooks.yaml offers `ankibuild-check`, run once per commit when a bank or template file changes."""
    (hook,) = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text(encoding="utf-8"))
    assert (hook["id"], hook["entry"], hook["language"], hook["pass_filenames"]) == (
        "ankibuild-check",
        "ankibuild check",
        "python",
        False,
    )
    files = re.compile(hook["files"])
    changed = ["decks/bank.yaml", "decks/more/x.yml", "templates/default/front.html", "templates/style.css"]
    assert all(files.search(path) for path in [*changed, "decks/ankibuild.lock"])
    assert not any(files.search(path) for path in ["README.md", "src/ankibuild/cli.py"])
