"""Anki's own MathJax, in a browser, over cards of adversarial formulas and text: text never joins a formula.

MathJax reads a card's text (between elements, ``<br>`` aside) and typesets from
each ``\\(`` or ``\\[`` to its closer. A formula whose end MathJax sees elsewhere
than the build wrote it would take in the text after it, where ``\\href`` or
``\\style`` is allowed, as mathematics. These tests build a bank of generated
texts, import it into Anki, load every card's front and back into one page with
MathJax 3.2.2 under Anki's configuration (tests/mathjax.py), and compare what
MathJax typeset with the formulas the build wrote.
"""

from __future__ import annotations

import json
import os
import random
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from ankibuild import build
from ankibuild.cli import main
from ankibuild.text.formulas import end_problem
from ankibuild.text.richtext import read_clozes, to_html

from ..ankitools import collection, import_package
from ..cdp import chromium, launch
from ..conftest import Project
from ..mathjax import ANKI_CONFIG, Unavailable, mathjax_script
from ..texttools import FIELDS, LINES, Recorder, inert_bank

pytestmark = pytest.mark.skipif(
    chromium() is None, reason="no Chromium installed: apt-get install chromium (Debian) to run the browser tests"
)

#: What text outside a formula would do if MathJax read it as mathematics: a link, a colour, a class, an id.
PAYLOADS = [
    "\\href{https://pwn.example/}{L}",
    "\\style{color:rgb(1,2,3)}{S}",
    "\\class{pwn}{C}",
    "\\cssId{pwn}{I}",
]
#: Formula contents that could move where MathJax sees the formula end.
BODIES = [
    "x\\",
    "x\\\\\\",
    "x\\\\",
    "{",
    "x{y",
    "}{",
    "\\{",
    "\\}",
    "x%",
    "%{",
    "a\\)b",
    "a\\]b",
    "\\(",
    "\\[",
    "a\\\\[2pt]b",
    "\\text{a",
    "x^2",
    "\\frac{a}{b}",
]
#: Each way of writing a formula, around ``{}``.
FORMULAS = ["\\({}\\)", "\\[{}\\]", "${}$", "$${}$$", "\n\n$$\n{}\n$$\n\n", "\n\n\\[\n{}\n\\]\n\n"]
#: Text that closes formulas or braces, or opens them, written so that it shows as typed.
TEXT = [
    "\\\\)",
    "\\\\]",
    "\\\\(",
    "\\\\[",
    "}",
    "{",
    "\\\\",
    "\n",
    "\n\n",
    ". ",
    "), ",
    " : ",
    "`a\\(b` ",
    "```\n\\(x\\)\n```\n",
    "![\\\\( y \\\\).](media/p.png) ",
    '[a link](https://e.org "\\\\( y") ',
    *PAYLOADS,
]
#: Texts found by hand, each of which once made text a formula.
KNOWN = [
    "\\(x\\\\)\n" + PAYLOADS[0] + " \\\\)",
    "\\[ \\( \\] " + PAYLOADS[1] + " \\\\).",
    "![\\\\( " + PAYLOADS[0] + " \\\\).](media/p.png)",
    "![\\\\(](media/p.png) " + PAYLOADS[2] + " \\\\).",
    "\\\\)`a\\\\(\\\\style{color:red}{x}" * 2,
    '[a link](https://e.org "\\\\(") \\\\(' + PAYLOADS[0] + "\\\\)",
]
PNG = bytes.fromhex(
    "89504e470d0a1a0a0000000d4948445200000001000000010806000000"
    "1f15c4890000000d49444154789c6360000002000100e221bc330000000049454e44ae426082"
)


def _texts() -> list[str]:
    """Every body in every way of writing a formula, text around it, and random mixes (always the same)."""
    texts = [*KNOWN]
    for body in BODIES:
        for formula in FORMULAS:
            texts.append(f"{formula.format(body)} {' '.join(PAYLOADS)} }}}} \\\\) \\\\] .")
            texts.append(f"{PAYLOADS[0]} {{ {formula.format(body)}, {PAYLOADS[1]} \\\\)")
    rng = random.Random(24)
    formulas = [f.format(b) for f in FORMULAS for b in BODIES]
    accepted = [formula for formula in formulas if not _formulas(formula)[1]]  # twice as likely, so more texts pass
    pieces = [*TEXT, *formulas, *accepted]
    texts += ["".join(rng.choices(pieces, k=rng.randint(2, 8))) for _ in range(600)]
    return texts


def _formulas(text: str, clozes: bool = False) -> tuple[list[str], bool]:
    """The contents of the formulas the build writes for ``text``, and whether it refuses the text."""
    written: list[str] = []

    def recorded(tex: str, closer: str) -> tuple[str, str] | None:
        written.append(tex)
        return end_problem(tex, closer)

    recorder = Recorder()
    with pytest.MonkeyPatch.context() as patch:  # every formula the renderer writes is checked by end_problem
        patch.setattr("ankibuild.text.richtext.end_problem", recorded)
        to_html(text, recorder, clozes=clozes)
    return written, bool(recorder.errors)


#: What a cloze question makes of a text, so that Anki's cloze filter (which strips HTML inside formulas) runs
#: over it: a cloze after it, or the text hidden on its own card and shown inactive on the other.
CLOZES = ["{} {{{{c1::z}}}}", "{{{{c2::{}}}}} {{{{c1::z}}}}"]


def _a_cloze(text: str) -> bool:
    """Whether ``text`` is a cloze question the build accepts (its cloze may have been taken into code or a formula)."""
    reading = read_clozes(text)
    return bool(reading.numbers) and not reading.problems and not _formulas(text, clozes=True)[1]


def _write_bank(folder: Path, questions: list[list[str]], clozes: list[str]) -> None:
    """A multiple-choice question per four texts (question, two options, explanation), and a cloze per text."""
    (folder / "media").mkdir(parents=True)
    (folder / "media" / "p.png").write_bytes(PNG)
    (folder / "bank.yaml").write_text("id: mj\nlanguages: [en]\ntopics:\n  t: {en: T}\n", encoding="utf-8")
    lines = ["deck: {en: Formulas}", "questions:"]
    for number, (question, first, second, explanation) in enumerate(questions):
        lines += [
            f"  - id: q{number}",
            "    topics: [t]",
            "    answer: A",
            "    en:",
            f"      question: {json.dumps(question)}",
            "      options:",
            f"        - {json.dumps(first + ' (first)')}",
            f"        - {json.dumps(second + ' (second)')}",
            f"      explanation: {json.dumps(explanation)}",
        ]
    for number, text in enumerate(clozes):
        lines += [
            f"  - id: c{number}",
            "    kind: cloze",
            "    topics: [t]",
            f"    en: {{question: {json.dumps(text)}}}",
        ]
    (folder / "q.yaml").write_text("\n".join(lines) + "\n", encoding="utf-8")


@pytest.fixture(scope="module")
def mathjax() -> Path:
    """MathJax's script; under CI its absence fails the run, elsewhere it skips these tests with the reason."""
    try:
        return mathjax_script()
    except Unavailable as err:
        if os.environ.get("CI", "").lower() in ("1", "true", "yes"):
            pytest.fail(f"MathJax is needed under CI: {err}")
        pytest.skip(str(err))


#: Typesets every card side in one page, as Anki's reviewer does each, and reports what MathJax made of it.
TYPESET = """async (sides) => {
  await MathJax.startup.promise;
  const qa = document.getElementById("qa");
  const boxes = sides.map((html) => {
    const box = document.createElement("div");
    box.innerHTML = html;
    qa.appendChild(box);
    return box;
  });
  await MathJax.typesetPromise([qa]);
  const styled = (box) => [...box.querySelectorAll("mjx-container *")].filter(
    (e) => getComputedStyle(e).color === "rgb(1, 2, 3)").length;
  return boxes.map((box) => ({
    math: MathJax.startup.document.getMathItemsWithin(box).map((item) => item.math),
    live: box.querySelectorAll("mjx-container a, mjx-container [href], [href*=pwn], .pwn, #pwn").length + styled(box),
  }));
}"""


def _typeset(script: Path, folder: Path, sides: list[str]) -> list[dict[str, Any]]:
    """Every side in one page of a fresh Chromium, typeset by MathJax ``script`` under Anki's configuration."""
    page_file = folder / "cards.html"
    page_file.write_text(
        f'<!doctype html><meta charset="utf-8"><script>{ANKI_CONFIG}</script>'
        f'<script src="{script.as_uri()}"></script><div id="qa"></div>',
        encoding="utf-8",
    )
    executable = chromium()
    assert executable is not None
    with launch(executable, folder / "profile") as browser:
        page = browser.new_page()
        page.navigate(page_file.as_uri())
        result: list[dict[str, Any]] = page.evaluate(f"({TYPESET})({json.dumps(sides)})")
        return result


def test_text_never_becomes_part_of_a_formula_in_anki(
    mathjax: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every formula MathJax typesets on a card is one the build wrote, and every one the build wrote is typeset."""
    accepted, written = [], {}
    for text in _texts():
        formulas, refused = _formulas(text)
        if not refused:
            accepted.append(text)
            written[text] = formulas
    clozes = [c for n, text in enumerate(accepted) if _a_cloze(c := CLOZES[n % 2].format(text))]
    written |= {text: _formulas(text, clozes=True)[0] for text in clozes}
    assert len(accepted) > 300 and len(clozes) > 200, (len(accepted), len(clozes))
    questions = [accepted[at : at + 4] for at in range(0, len(accepted) - 3, 4)]
    _write_bank(tmp_path / "decks", questions, clozes)
    monkeypatch.chdir(tmp_path)
    build(decks=tmp_path / "decks", out=tmp_path / "dist")
    sides, expected = [], []
    with collection(tmp_path / "c.anki2") as col:
        import_package(col, tmp_path / "dist" / "mj-en.apkg")
        for card_id in col.find_cards(""):
            card = col.get_card(card_id)
            key = card.note()["ID"]
            texts = [clozes[int(key[1:])]] if key[0] == "c" else questions[int(key[1:])]
            output = card.render_output(reload=True)
            for side in (output.question_text, output.answer_text):
                sides.append(side)
                expected.append({tex for text in texts for tex in written[text]})
    results = _typeset(mathjax, tmp_path, sides)
    joined = [(sorted(set(r["math"]) - e), side) for r, e, side in zip(results, expected, sides, strict=True)]
    joined = [(math, side) for math, side in joined if math]
    assert not joined, (len(joined), joined[:2])
    live = [side for r, side in zip(results, sides, strict=True) if r["live"]]
    assert not live, (len(live), live[:2])
    typeset = {tex for r in results for tex in r["math"]}
    assert set().union(*expected) <= typeset


def test_a_formula_that_ends_in_a_backslash_is_refused_at_its_line(project: Project) -> None:
    r"""``\(x\\)`` hides its closer from MathJax, which would read on into the text, ``\href`` included.

    ``check --strict`` once passed it, and the link was live on every card.
    """
    texts = dict.fromkeys(FIELDS, "fine \\(x^2\\)")
    texts["question"] = "\\(x\\\\)\n\\href{javascript:alert(1)}{click} \\\\)"
    inert_bank(project.decks, texts)
    result = CliRunner().invoke(main, ["check", "--strict", "--format", "json"])
    assert result.exit_code == 1
    problems = json.loads(result.stdout)
    assert [(p["file"], p["line"], p["severity"]) for p in problems] == [("decks/q.yaml", LINES["question"], "error")]
    assert "ends in a backslash" in problems[0]["message"] and "remove the last backslash" in problems[0]["hint"]
