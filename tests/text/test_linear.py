"""Every text is scanned in time linear in its length, whatever it holds.

Times are never compared: the formula scanner's searches are counted, in
characters, and so are the problems found. Adversarial texts that once made the
scan quadratic (a formula opener repeated without its closer) are checked at
1 MB; ``python -m bench.worstcase`` times these and the other known worst cases.
"""

from __future__ import annotations

import html
import re
from collections.abc import Callable, Iterator

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from ankibuild.text import mathml, richtext
from ankibuild.text.formulas import closer_at
from ankibuild.text.richtext import REFUSED_TEX, to_html
from bench.worstcase import PATTERNS

from ..texttools import Recorder

pytestmark = pytest.mark.slow  # megabytes of adversarial text, scanned and counted

MB = 1024 * 1024


@pytest.fixture
def scanned(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[int]]:
    """The characters each search for a closing delimiter went through."""
    counts: list[int] = []
    monkeypatch.setattr(richtext, "search", _counting(richtext.search, counts))
    yield counts


def _counting(search: Callable[[str, str, int], int], counts: list[int]) -> Callable[[str, str, int], int]:
    """``search``, adding to ``counts`` the characters each call reads."""

    def counted(src: str, needle: str, start: int) -> int:
        at = search(src, needle, start)
        counts.append((len(src) if at == -1 else at + len(needle)) - start)
        return at

    return counted


@pytest.mark.parametrize("name", [name for name in PATTERNS if "formula" in name or "\\" in name or "$" in name])
def test_the_formula_scanner_reads_each_character_a_bounded_number_of_times(name: str, scanned: list[int]) -> None:
    """Searches for closers go through the text a few times at most (once per closer), at 64 KiB as at 256 KiB."""
    totals = []
    for size in (64 * 1024, 256 * 1024):
        scanned.clear()
        piece = PATTERNS[name]
        to_html((piece * (size // len(piece) + 1))[:size], Recorder())
        totals.append(sum(scanned))
        assert sum(scanned) <= 8 * size, (name, size, sum(scanned))  # once per kind of closer, block and inline
    assert totals[1] <= 4 * totals[0] + 16


@pytest.mark.parametrize("piece", ["\\(", "\\[\n"])
def test_a_megabyte_of_unclosed_formula_openers_is_read_once(piece: str, scanned: list[int]) -> None:
    """The text that once took minutes: every opener without its closer, 1 MB of them."""
    text = piece * (MB // len(piece))
    recorder = Recorder()
    rendered = to_html(text, recorder)
    assert sum(scanned) <= 8 * len(text)
    assert rendered.count(piece[1]) == len(text) // len(piece) and not recorder.errors  # each opener shown


#: Pieces of Markdown, formulas and Anki syntax that interact badly when repeated or mixed.
UNITS = [
    *PATTERNS.values(),
    *"\\()[]$*_`<>!|#&\n ",
    "\\)",
    "\\]",
    "$$",
    "\n\n",
    "    ",
    "- ",
    "> ",
    "1. ",
    "[/$]",
    "[$$]",
    "[/anki:tts]",
    "[latex]",
    "\\style{color:red}{x}",
    "\\\\",
    "a",
]
ADVERSARIAL = st.lists(st.sampled_from(UNITS), min_size=1, max_size=40).flatmap(
    lambda units: st.integers(1, 40).map(lambda times: "".join(units) * times)
)
#: What opens a formula for MathJax under Anki's configuration, and the closer it then looks for.
_OPENERS = {"\\(": "\\)", "\\[": "\\]"}
_COMMAND = re.compile(r"(?<!\\)(?:\\\\)*\\(" + "|".join(REFUSED_TEX) + r")(?![A-Za-z])")


def _typeset(rendered: str) -> Iterator[str]:
    """What MathJax would typeset: it reads text between elements, never across one (``<br>`` aside).

    Code counts as text here, as if MathJax's configuration did not skip it.
    """
    for chunk in re.split(r"<(?!br>)[^>]*>", rendered):
        yield from _formulas_in(html.unescape(chunk.replace("<br>", "\n")))


def _formulas_in(run: str) -> Iterator[str]:
    """Each formula MathJax finds in a run of text: from an opener to its closer at brace depth 0."""
    opener = re.compile(r"\\[(\[]")
    at = 0
    while (found := opener.search(run, at)) is not None:
        end = closer_at(run, found.end(), _OPENERS[found.group()])
        if end is None:
            at = found.end()
            continue
        yield run[found.end() : end]
        at = end + 2


@settings(max_examples=200, deadline=None)
@given(ADVERSARIAL)
@example("\\)`a\\(\\style{color:red}{x}" * 2)  # once found by chance: a formula opener inside code
@example("\\(x\\\\)\n\\style{color:red}{x} \\\\)")  # a formula ending in a backslash reads on into the text
@example("\\[ \\( \\] \\style{color:red}{x} \\\\).")  # a sign kept with a formula found inside another
@example("![\\\\( \\style{color:red}{x} \\\\).](p.png)")  # ... or inside an image's text
def test_adversarial_text_renders_inert_and_within_linear_work(text: str) -> None:
    """No Anki syntax survives; no formula MathJax would typeset holds a refused command unless it was reported."""
    recorder = Recorder()
    scanned: list[int] = []
    with pytest.MonkeyPatch.context() as patch:  # a fixture would not be reset between hypothesis's texts
        patch.setattr(richtext, "search", _counting(richtext.search, scanned))
        rendered = to_html(text, recorder)
    assert sum(scanned) <= 8 * len(text) + 64
    assert not re.search(r"\[(sound:|/?anki:|/?latex\]|/?\$\$?\])", rendered, re.IGNORECASE)
    if not recorder.errors:
        assert not [formula for formula in _typeset(rendered) if _COMMAND.search(formula)]


@pytest.mark.parametrize("piece", ["\\(", "\\[", "<pre ", "<CODE>", "\\(x\\) <pre>"])
def test_the_preview_looks_for_each_formula_or_code_closer_once(piece: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """A card of openers without closers (a template may hold any text) costs the preview a linear search."""
    scanned: list[int] = []

    def counted(card: str, kind: str, start: int) -> re.Match[str] | None:
        found = closing(card, kind, start)
        scanned.append((len(card) if found is None else found.end()) - start)
        return found

    closing = mathml.closing
    monkeypatch.setattr(mathml, "closing", counted)
    card = piece * (MB // len(piece))
    shown = mathml.formulas_to_mathml(card)
    assert shown == card if "x" not in piece else shown.count("<math") == card.count("\\(")
    assert sum(scanned) <= 2 * len(card)
