"""No reader recurses on the depth of what it reads: deep input is refused at its line, or read without recursion.

Python's stack holds about a thousand calls, so a reader that recursed once
per level ended, on a few kilobytes of nesting, in a ``RecursionError``
traceback. What ``check`` accepts, ``build`` and ``preview`` handle.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

import pytest

from ankibuild import BankError, check
from ankibuild.cards.template import MAX_SECTIONS, Template
from ankibuild.lock.format import read_lock
from ankibuild.preview.target import render_cards, write_preview
from ankibuild.text.mathml import MAX_FORMULA_DEPTH, nesting, problem, to_mathml
from ankibuild.text.richtext import to_html

from ..conftest import Project
from ..texttools import Recorder

T = TypeVar("T")
#: The sample's question whose German text the tests below replace.
QUESTION = "      question: Warum benötigen elementweise Operationen wie ReLU"


def _front_with(project: Project, inserted: str) -> None:
    """The default front template with ``inserted`` as its third line."""
    front = project.templates / "default" / "front.html"
    lines = front.read_text(encoding="utf-8").splitlines()
    lines.insert(2, inserted)
    front.write_text("\n".join(lines) + "\n", encoding="utf-8")


@pytest.mark.parametrize("depth", [MAX_SECTIONS + 1, 5000])
def test_sections_nested_too_deep_are_refused_at_their_line_by_check_build_and_preview(
    project: Project, depth: int
) -> None:
    """Thousands of nested sections once ended in a RecursionError: all three name the line of the first too deep."""
    _front_with(project, "{{#Question}}" * depth + "x" + "{{/Question}}" * depth)
    found = []
    for attempt in (lambda: check(decks=project.decks), project.build, lambda: render_cards(decks=project.decks)):
        with pytest.raises(BankError) as raised:
            attempt()
        found.append({(p.file, p.line, p.column, p.message) for p in raised.value.problems})
    column = 1 + MAX_SECTIONS * len("{{#Question}}")
    deep = ("templates/default/front.html", 3, column, f"sections nested more than {MAX_SECTIONS} deep")
    assert found[0] == found[1] == found[2] == {deep}
    assert not project.out.exists()


def test_sections_as_deep_as_allowed_render() -> None:
    """The deepest template accepted renders in the preview, each section judged as Anki judges it."""
    source = "{{#A}}" * MAX_SECTIONS + "{{B}}" + "{{/A}}" * MAX_SECTIONS
    template = Template(source, "front.html", ["A", "B"])
    assert template.render({"A": "x", "B": "shown"}) == "shown"
    assert template.render({"A": "", "B": "shown"}) == ""


#: Formulas that nest without end, each with the depth it is repeated to.
DEEP_FORMULAS = {
    "square roots of square roots": lambda n: "\\sqrt" * n + " x",
    "square roots in braces": lambda n: "\\sqrt{" * n + "x" + "}" * n,
    "fractions": lambda n: "\\frac{1}{" * n + "x" + "}" * n,
    "delimiters": lambda n: "\\left(" * n + "x" + "\\right)" * n,
    "braces": lambda n: "{" * n + "x" + "}" * n,
    "roots of roots": lambda n: "\\sqrt[" * n + "3" + "]{2}" * n,
}


@pytest.mark.parametrize("shape", DEEP_FORMULAS)
def test_a_formula_nested_hundreds_deep_is_a_warning_at_its_line_and_the_preview_shows_it(
    project: Project, shape: str
) -> None:
    """Hundreds of nested square roots once ended the preview in a RecursionError."""
    formula = DEEP_FORMULAS[shape](500)
    project.edit("ai-hardware.yaml", QUESTION, f"      question: 'Wurzel \\( {formula} \\)' #")
    warnings = [(p.file, p.line, p.message) for p in check(decks=project.decks).warnings]
    deep = f"it is nested more than {MAX_FORMULA_DEPTH} levels deep"
    assert [(file, line) for file, line, message in warnings if message.endswith(deep)] == [
        ("decks/ai-hardware.yaml", 10)
    ]
    page = write_preview(decks=project.decks, templates=project.templates, out=project.out / "preview")
    assert formula[:200].replace("\\", "\\\\") in page.path.read_text(encoding="utf-8")  # as written, in the JSON


def test_a_bank_whose_formula_check_warns_about_builds(project: Project) -> None:
    """What check accepts with a warning, build packages: the formula as written, for Anki's MathJax."""
    formula = DEEP_FORMULAS["square roots of square roots"](500)
    project.edit("ai-hardware.yaml", QUESTION, f"      question: 'Wurzel \\( {formula} \\)' #")
    result = project.build()
    deep = f"it is nested more than {MAX_FORMULA_DEPTH} levels deep"
    assert [(w.file, w.line) for w in result.warnings if w.message.endswith(deep)] == [("decks/ai-hardware.yaml", 10)]
    assert all(output.path.is_file() for output in result.outputs) and result.outputs


def _called_deep(frames: int, call: Callable[[], T]) -> T:
    """``call()`` with ``frames`` more calls on the stack than here, as a deep caller would make it."""
    return _called_deep(frames - 1, call) if frames else call()


@pytest.mark.parametrize("shape", DEEP_FORMULAS)
def test_a_formula_as_deep_as_allowed_converts_even_from_a_deep_caller(shape: str) -> None:
    """The limit leaves room on the stack: the deepest formula accepted becomes MathML, 200 calls down."""
    formula = DEEP_FORMULAS[shape](MAX_FORMULA_DEPTH - 1)
    assert nesting(formula) <= MAX_FORMULA_DEPTH
    assert problem(formula) == ""
    assert _called_deep(200, lambda: to_mathml(formula, display=True)) is not None


def test_random_formulas_within_the_limit_never_exhaust_the_stack() -> None:
    """Pieces that nest, mixed at random: whatever nesting() lets through converts without a RecursionError."""
    pieces = ["\\sqrt", "\\sqrt{", "{", "}", "\\frac{1}{", "\\left(", "\\right)", "x", "^{", "_", "\\sqrt[", "]"]
    pieces += ["\\begin{matrix}", "\\end{matrix}", "\\hat", "\\overline{", "\\text{", "\\mathbf{"]
    rng = random.Random(24)
    tried = 0
    while tried < 300:
        units = "".join(rng.choice(pieces) for _ in range(rng.randint(1, 6))) * rng.randint(1, 60) + "x"
        formula = units + "}" * units.count("{")
        if nesting(formula) <= MAX_FORMULA_DEPTH:
            tried += 1
            _called_deep(200, lambda: (problem(formula), to_mathml(formula, display=False)))  # noqa: B023


@pytest.mark.parametrize(
    "text",
    ["> " * 20000 + "a", "- " * 20000 + "a", "1. " * 20000 + "a", "[" * 20000 + "a" + "](x)" * 20000, "*" * 40000],
    ids=["quotes", "lists", "numbered lists", "links", "emphasis"],
)
def test_markdown_nested_thousands_deep_renders(text: str) -> None:
    """markdown-it stops nesting blocks at a fixed depth and reads inline markup without recursing."""
    to_html(text, Recorder())


def test_a_lock_line_nested_thousands_deep_is_a_damaged_line(tmp_path: Path) -> None:
    """Python's JSON reader recurses once per level: a deep line is reported as damaged, at its number."""
    lock = tmp_path / "ankibuild.lock"
    lock.write_text('# lock\n{"ankibuild-lock": 2, "bank": "b"}\n' + "[" * 100_000 + "\n", encoding="utf-8")
    with pytest.raises(BankError) as raised:
        read_lock(lock)
    assert [(p.line, p.message) for p in raised.value.problems] == [
        (3, "the lock file is damaged: nested far deeper than any lock entry")
    ]
