"""The JSON Schemas editors use: valid draft 2020-12, true to the sample bank, and of check's verdict.

Generated files, valid and with one mistake of shape each, are judged by ``check``'s
reading and validation and by the schema: both accept exactly the same ones. What only
check can see (a bank's declared topics and languages, unique ids, the same options in
every translation) is kept right in every generated file.
"""

from __future__ import annotations

import copy
import itertools
import json
import re
import string
from functools import cache, partial
from pathlib import Path
from typing import Any

import jsonschema
import pytest
import yaml
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ankibuild.cli import main
from ankibuild.errors import Problems
from ankibuild.kinds import CHECKS, DEFAULT_KIND, KINDS
from ankibuild.kinds.choice import MAX_OPTIONS, MIN_OPTIONS
from ankibuild.kinds.choice.options import LETTERS
from ankibuild.languages import is_language
from ankibuild.load.schema import schema_text
from ankibuild.load.validate import validate_bank_file, validate_deck_file
from ankibuild.model import TOPIC, Bank
from ankibuild.yamlfiles.reader import YamlFile, load, parse_file

from ..conftest import ROOT

QUESTION = {
    "id": "q1",
    "topics": ["ai-hardware"],
    "answer": "B",
    "de": {"question": "Frage?", "options": ["Eins", "Zwei"], "explanation": "Weil."},
    "en": {"question": "Question?", "options": ["One", "Two"], "explanation": "Because."},
}


@cache
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
        _question_file(en={"question": "?", "options": ["a", "b"], "explanation": ""}),
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
        "empty-explanation",
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


#: Values a mistake puts anywhere: every type, blank, padded and invisible text, a letter and
#: a slug that are none, lists of too few, too many and repeated items, mappings of unknown keys.
ODD: list[Any] = [
    *(None, True, False, 0, 7, -1, 1.5),
    *("", " ", "x", "id", "G", "A", " b ", "Q 1", "a__b", "x\x1f", " longest-correct "),
    *([], ["x"], [None], [f"o{number}" for number in range(MAX_OPTIONS + 1)], ["same", "same"]),
    *({}, {"x": 1}, {"de": "x"}),
]
#: Keys a mistake adds: misspelt, misplaced, and words that are no language code. (A code the
#: bank does not build, such as fr, only makes check skip that translation, which is no mistake.)
UNKNOWN_KEYS = ["answers", "Deck", "explanation", "options", "de", "id", "todo", "pin", "kind", "xx", "german"]
UNKNOWN_KEYS += ["has space", "a/b", "größe"]
LANGUAGES = ("de", "en")


def _leaves(value: Any) -> list[Any]:
    """The texts, numbers and empty values in ``value``."""
    if isinstance(value, dict):
        return [leaf for item in value.values() for leaf in _leaves(item)]
    if isinstance(value, list):
        return [leaf for item in value for leaf in _leaves(item)]
    return [value]


#: Every word a file may give as a topic is declared, so that only a topic's shape can make it wrong
#: (the schema cannot know bank.yaml's topics).
TOPICS = ["memory", "gpu::cores", "2024"]
TOPICS += [
    str(word).strip()
    for word in _leaves(ODD)
    if isinstance(word, str | int | float) and not isinstance(word, bool) and TOPIC.match(str(word).strip())
]
TOPICS = list(dict.fromkeys(TOPICS))
BANK = {"id": "ai-stack", "languages": list(LANGUAGES), "topics": {topic: {"de": topic} for topic in TOPICS}}

AGREE = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])

#: Texts as they are written: words, markup, other scripts, numbers (text to ankibuild).
texts = st.one_of(
    st.sampled_from(["One", "Two", "Three", "Four", "Five", "Six", "Yes", "No", "<b>&</b>", "Größe", "日本語"]),
    st.integers(min_value=100),
)
localized = st.dictionaries(st.sampled_from(LANGUAGES), texts, max_size=2)
named = st.dictionaries(st.sampled_from(LANGUAGES), texts, min_size=1, max_size=2)


def _letters(count: int) -> st.SearchStrategy[str]:
    """A letter among ``count`` options, in either case, sometimes quoted with spaces."""
    letter = st.sampled_from(LETTERS[:count])
    return st.one_of(letter, letter.map(str.lower), letter.map(lambda written: f" {written} "))


@st.composite
def _question(draw: st.DrawFn, qid: str | int) -> dict[str, Any]:
    """A valid question: every language has the same number of options; the answer and pins are among them."""
    count = draw(st.integers(MIN_OPTIONS, MAX_OPTIONS))
    topic = st.sampled_from(["memory", "gpu::cores", " memory ", 2024])
    question: dict[str, Any] = {"id": qid, "topics": draw(st.lists(topic, min_size=1, max_size=2))}
    several = st.lists(st.sampled_from(LETTERS[:count]), min_size=1, max_size=count, unique=True)
    question["answer"] = draw(st.one_of(_letters(count), several))
    optional: dict[str, st.SearchStrategy[Any]] = {
        "pin": st.lists(_letters(count), max_size=2),
        "allow": st.lists(st.sampled_from(CHECKS), max_size=2),
        "shuffle": st.booleans(),
        "kind": st.sampled_from(["choice", " choice "]),
    }
    question.update(draw(st.fixed_dictionaries({}, optional=optional)))
    translation = st.fixed_dictionaries(
        {
            "question": texts,
            "options": st.lists(texts, min_size=count, max_size=count, unique_by=str),
            "explanation": texts,
        }
    )
    question.update(draw(st.fixed_dictionaries({}, optional=dict.fromkeys(LANGUAGES, translation))))
    return question


@st.composite
def question_files(draw: st.DrawFn) -> dict[str, Any]:
    """A valid question file. Its ids are unique and unlike any word a mistake writes."""
    ids = st.one_of(st.from_regex(r"q[0-9]{1,3}", fullmatch=True), st.integers(100))
    document: dict[str, Any] = {
        "questions": [draw(_question(qid)) for qid in draw(st.lists(ids, max_size=3, unique_by=str))]
    }
    todo = st.dictionaries(st.sampled_from(LANGUAGES), st.lists(texts, max_size=2), max_size=2)
    document.update(draw(st.fixed_dictionaries({}, optional={"deck": localized, "todo": todo})))
    return document


banks = st.fixed_dictionaries(
    {
        "id": st.sampled_from(["ai-stack", "bank.2", "7"]),
        "languages": st.lists(
            st.sampled_from(["de", "en", "fr", "pt-BR", "zh-Hant"]), min_size=1, max_size=3, unique=True
        ),
        "topics": st.dictionaries(st.sampled_from(TOPICS), named, max_size=3),
    },
    optional={"title": localized, "shuffle": st.booleans()},
)


def _places(value: Any, path: tuple[str | int, ...] = ()) -> list[tuple[str | int, ...]]:
    """The path to every value in a document, itself first."""
    inner: list[tuple[Any, Any]] = []
    if isinstance(value, dict):
        inner = list(value.items())
    elif isinstance(value, list):
        inner = list(enumerate(value))
    return [path, *(place for key, item in inner for place in _places(item, (*path, key)))]


#: One mistake: where (a path of keys and indexes), what ("replace", "drop", "add" a key, "append" an item), with what.
Mistake = tuple[tuple[str | int, ...], str, Any]


def _mistakes(document: Any) -> list[Mistake]:
    """Every mistake one edit can make in ``document``: any value replaced by any odd one or dropped,
    any unknown key added to any mapping, any odd item to any list.

    No option is dropped or added: every translation lists as many, which only check can see.
    Whether a mistake leaves the file valid is for check and the schema to say.
    """
    mistakes: list[Mistake] = []
    for path in _places(document):
        value = _at(document, path)
        mistakes += [(path, "replace", odd) for odd in ODD]
        if path and path[-2:-1] != ("options",):
            mistakes.append((path, "drop", None))
        if isinstance(value, dict):
            mistakes += [(path, "add", key) for key in UNKNOWN_KEYS]
        if isinstance(value, list) and path[-1:] != ("options",):
            mistakes += [(path, "append", odd) for odd in ODD]
    return mistakes


def _at(document: Any, path: tuple[str | int, ...]) -> Any:
    for key in path:
        document = document[key]
    return document


def _made(document: Any, mistake: Mistake) -> Any:
    """A copy of ``document`` with ``mistake`` made."""
    path, change, argument = mistake
    if change == "replace" and not path:
        return copy.deepcopy(argument)
    made = copy.deepcopy(document)
    value = _at(made, path)
    if change == "add":  # with a value that key's neighbours have, so that only the key can be wrong
        value[argument] = copy.deepcopy(next(iter(value.values()), "x"))
    elif change == "append":
        value.append(copy.deepcopy(argument))
    elif change == "drop":
        del _at(made, path[:-1])[path[-1]]
    else:
        _at(made, path[:-1])[path[-1]] = copy.deepcopy(argument)
    return made


def _one_mistake(documents: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    """A document with one of the mistakes it can have."""
    return documents.flatmap(lambda document: st.sampled_from(_mistakes(document)).map(partial(_made, document)))


def _check_accepts(document: Any, *, bank: bool = False) -> tuple[bool, list[str]]:
    """Whether ``check`` finds no error in the file, with the errors it found."""
    problems = Problems()
    if bank:
        validate_bank_file(_parsed("bank.yaml", document, problems), problems)
    else:
        validate_deck_file(_parsed("deck.yaml", document, problems), _bank(), problems)
    return not problems.errors, [problem.message for problem in problems.errors]


@cache
def _bank() -> Bank:
    problems = Problems()
    read = validate_bank_file(_parsed("bank.yaml", BANK, problems), problems)
    assert read is not None, problems.errors
    return read


def _parsed(name: str, document: Any, problems: Problems) -> YamlFile:
    """``document`` written as YAML and read as check reads it."""
    text = yaml.safe_dump(document, allow_unicode=True, sort_keys=False)
    return parse_file(Path("bank", name), text.encode(), problems)


def _agree(document: Any, *, bank: bool) -> bool:
    """Whether check and the schema agree on ``document``."""
    checked, _ = _check_accepts(document, bank=bank)
    return checked == _validator(bank=bank).is_valid(document)


def _verdicts(document: Any, *, bank: bool) -> str:
    """The file, what check says and what the schema says, to read when they disagree."""
    refused = [error.message for error in _validator(bank=bank).iter_errors(document)]
    errors = _check_accepts(document, bank=bank)[1]
    return f"{yaml.safe_dump(document, allow_unicode=True)}check: {errors}\nschema: {refused}"


@pytest.mark.slow
@AGREE
@given(document=st.one_of(question_files(), _one_mistake(question_files())))
def test_the_question_schema_accepts_exactly_what_check_accepts(document: Any) -> None:
    """Valid question files, and ones with one mistake of shape: the schema and check give the same verdict."""
    assert _agree(document, bank=False), _verdicts(document, bank=False)


@pytest.mark.slow
@AGREE
@given(document=st.one_of(banks, _one_mistake(banks)))
def test_the_bank_schema_accepts_exactly_what_check_accepts(document: Any) -> None:
    """The same for bank.yaml (the id it was released under is check's alone)."""
    assert _agree(document, bank=True), _verdicts(document, bank=True)


#: A question of each kind with every key, its texts written as words, numbers and other scripts.
EVERY_KEY = {
    "choice": {
        **QUESTION,
        "topics": ["memory", 2024],
        "kind": "choice",
        "answer": ["A", "c"],
        "pin": ["A"],
        "shuffle": False,
        "allow": ["option-order"],
        "de": {"question": "Frage?", "options": ["Eins", 42, "Größe"], "explanation": "Weil.", "feedback": {"B": 7}},
        "en": {"question": "Question?", "options": ["One", 42, "Size"], "explanation": "Because."},
    },
    "truefalse": {
        "id": "q2",
        "topics": ["memory"],
        "kind": "truefalse",
        "answer": False,
        "allow": ["option-order"],
        "de": {"question": "Größe 42.", "explanation": "Weil."},
        "en": {"question": "Size 42.", "explanation": 7},
    },
    "flashcard": {
        "id": "q3",
        "topics": ["memory"],
        "kind": "flashcard",
        "reverse": True,
        "allow": ["option-order"],
        "de": {"question": "Frage?", "answer": 42, "explanation": "Weil."},
        "en": {"question": "Question?", "answer": "Size", "explanation": "Because."},
    },
    "cloze": {
        "id": "q4",
        "topics": ["memory", 2024],
        "kind": "cloze",
        "allow": ["option-order"],
        "de": {"question": "{{c1::Speicher}} und {{c2::Rechnen::Hinweis}}", "explanation": "Weil."},
        "en": {"question": "{{c1::Memory}} and {{c2::compute::a hint}}", "explanation": 42},
    },
}
EVERY_BANK_KEY = {
    "id": "ai-stack",
    "languages": ["de", "en"],
    "title": {"de": "KI", "en": "AI"},
    "topics": {"memory": {"de": "Speicher", "en": "Memory"}, "gpu::cores": {"de": "Kerne"}},
    "shuffle": False,
}


@pytest.mark.slow
@pytest.mark.parametrize(
    ("kind", "bank"), [*((kind, False) for kind in KINDS), (DEFAULT_KIND, True)], ids=[*KINDS, "bank"]
)
def test_every_mistake_in_a_file_with_every_key_gets_the_same_verdict(kind: str, bank: bool) -> None:
    """Each odd value at each place, each place dropped, each unknown key and item added: same verdict.

    Every kind has its question with every key here (a new kind's KeyError says to write one).
    """
    question = EVERY_KEY[kind]
    files = {"deck": {"de": "Speicher", "en": 2024}, "questions": [question], "todo": {"de": ["Später"]}}
    document = EVERY_BANK_KEY if bank else files
    assert _check_accepts(document, bank=bank) == (True, [])
    differ = [mistake for mistake in _mistakes(document) if not _agree(_made(document, mistake), bank=bank)]
    assert differ == [], "\n".join(_verdicts(_made(document, mistake), bank=bank) for mistake in differ[:5])


@pytest.mark.slow
@AGREE
@given(document=question_files(), bank=banks)
def test_the_generated_files_are_valid(document: Any, bank: Any) -> None:
    """The files mistakes start from pass check: a verdict of "both refuse" means a mistake made both refuse."""
    assert _check_accepts(document) == (True, [])
    assert _check_accepts(bank, bank=True) == (True, [])


def test_the_language_pattern_is_the_validators() -> None:
    """Every two-letter code, alone and with a region or script, is a language for both or for neither."""
    pattern = re.compile(json.loads(schema_text(bank=True))["$defs"]["language"]["pattern"])
    pairs = ("".join(pair) for pair in itertools.product(string.ascii_lowercase, repeat=2))
    for code in itertools.chain.from_iterable((p, f"{p}-BR", f"{p}-Hant", f"{p}-br") for p in pairs):
        assert bool(pattern.match(code)) == is_language(code), code


def test_the_topic_pattern_is_the_validators() -> None:
    """Every ASCII character and other scripts' letters and digits, in a topic: a tag for both or for neither.

    (Symbols beyond ASCII, such as €, pass the schema: an editor's patterns have no class for them.)
    """
    pattern = re.compile(json.loads(schema_text(bank=True))["properties"]["topics"]["propertyNames"]["pattern"])
    characters = [*map(chr, range(128)), *"éßπж日٣"]
    for topic in (form.format(character) for character in characters for form in ("{}", "a{}b", "a::{}", "{}::")):
        assert bool(pattern.match(topic)) == bool(TOPIC.match(topic)), repr(topic)


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
