"""A language is added to a bank step by step: the complete languages build all along."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from ankibuild.cli import main
from ankibuild.model import fallback

from ..ankitools import collection, import_package
from ..conftest import Project

SPANISH = """    es:
      question: ¿Por qué las operaciones elemento a elemento tardan tanto?
      options:
        - Porque ReLU necesita más operaciones que un producto de matrices
        - Porque calculan poco por cada dato leído y escrito, y manda el ancho de banda de memoria
        - Porque no se pueden ejecutar en una GPU
      explanation: Su intensidad aritmética es muy baja.
"""


def _add_spanish(project: Project) -> None:
    project.edit("bank.yaml", "languages: [de, fr, en]", "languages: [de, fr, en, es]")


def test_adding_a_language_warns_and_check_passes(project: Project) -> None:
    """Only `es` added to `languages`: check exits 0 and says, as warnings, what stands in for what is missing."""
    _add_spanish(project)
    result = CliRunner().invoke(main, ["check", "--format", "json"])
    assert result.exit_code == 0, result.output
    problems = json.loads(result.stdout)
    assert {p["severity"] for p in problems} == {"warning"}
    messages = [p["message"] for p in problems]
    assert "topic 'ai-hardware::quantization' has no name in 'es': its 'de' name 'Quantisierung' is used" in messages
    assert "the bank has no title in 'es': its 'de' title 'KI-Quiz' is used" in messages
    assert "the deck has no title in 'es': its 'de' title 'KI-Hardware und Software-Stack' is used" in messages
    # one line for the language, not one per question: a bank translated file by file would repeat it thousands of times
    assert [m for m in messages if "no 'es' translation" in m] == [
        "no 'es' translation in 6 questions (the first is here): they are left out of the 'es' deck"
    ]
    verbose = json.loads(CliRunner().invoke(main, ["check", "--format", "json", "--verbose"]).stdout)
    assert sum("no 'es' translation" in p["message"] for p in verbose) == 6
    strict = CliRunner().invoke(main, ["check", "--strict"])
    assert strict.exit_code == 1
    lines = (project.decks / "bank.yaml").read_text(encoding="utf-8").splitlines()
    line = lines.index("  ai-hardware::quantization:") + 1
    assert f"decks/bank.yaml:{line}:3: error: topic 'ai-hardware::quantization' has no name in 'es'" in strict.stderr


def test_the_new_language_builds_with_the_questions_that_have_it(project: Project, tmp_path: Path) -> None:
    """The other languages build as before; `es` gets the translated question, under the first language's titles."""
    _add_spanish(project)
    empty = CliRunner().invoke(main, ["build"])
    assert empty.exit_code == 0, empty.output
    assert "es: 0 notes in 1 deck(s) -> dist/ai-stack-es.apkg (wrote)" in empty.output
    assert "de: 6 notes in 1 deck(s) -> dist/ai-stack-de.apkg (wrote)" in empty.output
    project.edit("ai-hardware.yaml", "  - id: conv-im2col-gemm\n", SPANISH + "  - id: conv-im2col-gemm\n")
    result = CliRunner().invoke(main, ["build"])
    assert result.exit_code == 0, result.output
    assert "es: 1 notes in 1 deck(s) -> dist/ai-stack-es.apkg (wrote)" in result.output
    with collection(tmp_path / "c.anki2") as col:
        import_package(col, project.out / "ai-stack-es.apkg")
        (nid,) = col.find_notes("")
        note = col.get_note(nid)
        assert note["ID"] == "elementwise-ops-memory-bound"
        assert note["Question"].startswith("¿Por qué las operaciones")
        deck = col.decks.name(col.get_card(note.card_ids()[0]).did)
        assert deck == "KI-Quiz::KI-Hardware und Software-Stack"


def test_the_stand_in_is_the_first_language_that_has_a_name() -> None:
    """The rule other commands build on: a language's own name, else the bank's first language's, else the next."""
    names = {"fr": "Mémoire", "en": "Memory"}
    assert fallback(names, "en", ("de", "fr", "en")) == ("en", "Memory")
    assert fallback(names, "es", ("de", "fr", "en", "es")) == ("fr", "Mémoire")
    assert fallback({}, "es", ("de", "es")) is None
