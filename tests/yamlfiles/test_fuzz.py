"""Random banks never crash the tool: every run ends in success or in reported errors.

Hypothesis writes random YAML structures (shaped like a bank, with random
values and keys) and random Unicode into a fresh folder per example, then runs
``check`` and ``build``. Exit 0, or exit 1 with the problems listed, is fine;
a traceback is a bug.
"""

from __future__ import annotations

import tempfile
import traceback
from collections.abc import Callable
from pathlib import Path
from typing import Any
from unittest.mock import patch

import pytest
import yaml
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ankibuild.cli import main
from ankibuild.yamlfiles import reader

from ..yamltools import PARSERS

pytestmark = pytest.mark.slow  # hundreds of random banks

KEYS = (
    "id languages topics title shuffle deck questions todo answer question options explanation de en fr xx id-ID <<"
).split()
WORDS = ["A", "b", "G", "ai-stack", "memory", "de", "en", "no", "yes", "~", "", " ", "1.50", "true", "q1", "::", "*"]

texts = st.text(max_size=12)
scalars = st.one_of(st.none(), st.booleans(), st.integers(), st.floats(), st.sampled_from(WORDS), texts)
keys = st.one_of(st.sampled_from(KEYS), texts)
values = st.recursive(
    scalars,
    lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(keys, inner, max_size=4)),
    max_leaves=12,
)


def _mostly(valid: dict[str, st.SearchStrategy[Any]]) -> st.SearchStrategy[dict[str, Any]]:
    """A valid mapping with a few keys replaced by anything, added or dropped.

    Small mutations of valid banks get past the first checks, so that every stage,
    down to writing packages of random Unicode, is exercised.
    """

    def mutate(base: dict[str, Any], mutated: bool, replaced: dict[str, Any], dropped: set[str]) -> dict[str, Any]:
        if not mutated:
            return base
        return {key: value for key, value in {**base, **replaced}.items() if key not in dropped}

    return st.builds(
        mutate,
        st.fixed_dictionaries(valid),
        st.sampled_from([False] * 5 + [True]),  # each level mutated now and then, so some banks stay valid
        st.dictionaries(st.one_of(st.sampled_from(sorted(valid)), keys), values, max_size=2),
        st.sets(st.sampled_from(sorted(valid)), max_size=1),
    )


def _usually(valid: Any, other: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    """``valid`` three times in four, else ``other``: a list may hold anything, without every bank breaking."""
    return st.builds(lambda broken, value: value if broken else valid, st.sampled_from([False] * 3 + [True]), other)


#: Text with something to show: random Unicode, and words YAML 1.1 would have turned into other things.
#: (Control characters are refused in any text: keys, values and raw files still bring them.)
visible = st.text(alphabet=st.characters(blacklist_categories=("Cs", "Cc")), min_size=1, max_size=12)
content = st.one_of(st.sampled_from(["One", "Two", "Yes", "No", "0.10", "<b>&</b>"]), visible.filter(str.strip))
translation = _mostly(
    {
        "question": content,
        "options": st.lists(content, min_size=2, max_size=3, unique_by=str.strip),
        "explanation": content,
    }
)
question = _mostly(
    {
        "id": st.sampled_from(["q1", "q2", "q3", "q4", "q5", "q6"]),
        "topics": _usually(["memory"], st.lists(st.one_of(st.just("memory"), values), min_size=1, max_size=3)),
        "answer": st.sampled_from(["A", "b"]),
        "de": translation,
        "en": translation,
    }
)
question_file = _mostly(
    {
        "deck": st.just({"de": "Speicher", "en": "Memory"}),
        "questions": st.lists(question, min_size=1, max_size=3, unique_by=lambda q: str(q.get("id"))),
    }
)
bank = _mostly(
    {
        "id": st.just("ai-stack"),
        "languages": _usually(["de", "en"], st.lists(st.one_of(st.sampled_from(["de", "en"]), values))),
        "topics": st.just({"memory": {"de": "Speicher", "en": "Memory"}}),
    }
)
#: A file as YAML text: a structure dumped by PyYAML, or any Unicode at all.
documents = st.one_of(values.map(yaml.safe_dump), texts.map(str), st.text(max_size=200))

FUZZ = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _run_everything(files: dict[str, str]) -> None:
    """Write the files into a fresh bank folder, then check and build it: no command may crash."""
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        for name, text in files.items():
            (root / "decks" / name).parent.mkdir(parents=True, exist_ok=True)
            (root / "decks" / name).write_text(text, encoding="utf-8")
        folders = ["--decks", str(root / "decks")]
        for arguments in (["check", *folders], ["build", *folders, "--out", str(root / "dist")]):
            result = CliRunner().invoke(main, arguments)
            crash = "".join(traceback.format_exception(*result.exc_info)) if result.exc_info else ""
            assert result.exception is None or isinstance(result.exception, SystemExit), crash
            assert result.exit_code in (0, 1), result.output
            assert result.exit_code == 0 or "error" in result.output, result.output


@FUZZ
@given(bank=bank, questions=st.lists(question_file, min_size=1, max_size=2))
def test_random_bank_shaped_structures_end_in_success_or_reported_errors(
    bank: dict[str, Any], questions: list[dict[str, Any]]
) -> None:
    """Banks with the right shape and random contents: validation goes deep and never crashes."""
    files = {"bank.yaml": yaml.safe_dump(bank, allow_unicode=True)}
    files.update({f"deck{number}.yaml": yaml.safe_dump(q, allow_unicode=True) for number, q in enumerate(questions)})
    _run_everything(files)


@pytest.mark.parametrize("parser", PARSERS.values(), ids=PARSERS.keys())
@FUZZ
@given(bank_text=documents, question_text=documents)
def test_random_yaml_and_unicode_end_in_success_or_reported_errors(
    parser: Callable[[bytes], Any], bank_text: str, question_text: str
) -> None:
    """Any text at all as bank.yaml and as a question file: reported, never a traceback, whichever parser reads."""
    with patch.object(reader, "PARSER", parser):
        _run_everything({"bank.yaml": bank_text, "questions.yaml": question_text})
