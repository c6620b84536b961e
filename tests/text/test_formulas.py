"""Where MathJax ends a formula: what would move the end is refused with its fix, what would not is accepted.

tests/text/test_mathjax.py runs Anki's MathJax over these cases and many more; here
each rule is checked on its own, without a browser.
"""

from __future__ import annotations

import pytest

from ankibuild.text.formulas import closer_at, end_problem, mathjax_end
from ankibuild.text.richtext import to_html

from ..texttools import Recorder

#: Each way of writing a formula in a text, around ``{}``.
WRITTEN = ["\\({}\\)", "\\[{}\\]", "${}$", "$${}$$", "\n\n$$\n{}\n$$\n\n"]


#: Formula contents MathJax would read past, what check says and the start of its fix.
PAST = [
    ("x\\", "ends in a backslash", "remove the last backslash"),
    ("x\\\\\\", "ends in a backslash", "remove the last backslash"),
    ("x^{2", "'{' in the formula is never closed", "close each { with }"),
    ("}{x", "'{' in the formula is never closed", "close each { with }"),
    ("a % {", "'{' in the formula is never closed", "close each { with }"),
]


# In ``$x\$`` the backslash escapes the dollar (no formula), and a block's last line break stands between
# a trailing backslash and its closer: neither reaches MathJax as a formula ending in a backslash.
@pytest.mark.parametrize(
    ("formula", "tex", "said", "fix"),
    [(f, *case) for f in WRITTEN for case in PAST if not (case[0].endswith("\\") and f in (WRITTEN[2], WRITTEN[4]))],
)
def test_a_formula_mathjax_would_read_past_is_refused_with_the_fix(formula: str, tex: str, said: str, fix: str) -> None:
    recorder = Recorder()
    to_html("See " + formula.format(tex) + " then \\href{javascript:alert(1)}{x} }\\\\)\\\\]", recorder)
    assert len(recorder.errors) == 1 and said in recorder.errors[0], recorder.errors
    closer = "\\]" if formula.startswith(("\\[", "$$", "\n")) else "\\)"
    problem = end_problem(tex, closer)
    assert problem is not None and fix in problem[1]


@pytest.mark.parametrize(("text", "closer"), [("$a\\)b$", "\\)"), ("$$a\\]b$$", "\\]")])
def test_a_closer_inside_a_formula_is_refused(text: str, closer: str) -> None:
    """MathJax would end the formula there and show the rest of it as text."""
    recorder = Recorder()
    to_html(text, recorder)
    assert len(recorder.errors) == 1 and f"holds {closer}" in recorder.errors[0]


@pytest.mark.parametrize("formula", WRITTEN)
@pytest.mark.parametrize("tex", ["x \\\\", "x % comment", "\\{ x", "x \\}", "a \\\\[2pt] b", "x \\\ny", "\\frac{a}{b}"])
def test_a_formula_that_ends_where_written_is_accepted(formula: str, tex: str) -> None:
    r"""An even run of backslashes, a comment, escaped braces, ``\\[2pt]``, a backslash before a line break."""
    recorder = Recorder()
    to_html("See " + formula.format(tex) + " here", recorder)
    assert recorder.errors == []


def test_mathjax_skips_a_backslash_with_what_follows_unless_it_is_a_line_break() -> None:
    assert mathjax_end("a\\", "\\)") is None  # "\\" then ")": the closer is gone
    assert mathjax_end("a\\\n", "\\)") == 3
    assert mathjax_end("a\\\u2028", "\\)") == 3  # JavaScript's "." stops at every line terminator
    assert closer_at("\\(x}}\\)", 2, "\\)") == 5  # a "}" with no "{" open is not counted


def test_only_an_unmatched_close_brace_is_left_to_the_warning() -> None:
    """MathJax ends ``x}`` where written; TeX then shows it as an error, which check warns about."""
    recorder = Recorder()
    to_html("\\(x}\\)", recorder)
    assert recorder.errors == [] and len(recorder.warnings) == 1


@pytest.mark.parametrize(
    "text",
    [
        "`\\(x\\)` and `\\[y\\]`",
        "```\n\\(x\\) \\[y\\]\n```",
        '```python\nr"\\(x\\)" + "\\[y\\]"\n```',
        '![\\\\( y](p.png "\\\\[ t")',
        '[a link](https://e.org "\\\\( t")',
    ],
)
def test_nothing_but_a_formula_writes_an_opener_into_the_card(text: str) -> None:
    r"""Code, an image's text and title, a link's title: ``\(`` shows as typed, but is no opener in the HTML.

    MathJax skips code only by a setting, and Anki's cloze filter looks for
    formulas in the raw HTML, attributes included, stripping tags up to the closer.
    """
    rendered = to_html(text, Recorder())
    assert "\\(" not in rendered and "\\[" not in rendered
    assert "<span>\\</span>" in rendered or "&#92;" in rendered
