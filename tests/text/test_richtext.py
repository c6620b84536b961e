"""Markdown in question texts: plain text unchanged, formulas intact, code coloured, HTML never run."""

from __future__ import annotations

import html
import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ankibuild.text.richtext import MAX_COLOURED, literal, markdown_html, to_html, typography, without_markdown

from ..texttools import Recorder


def render(text: str) -> str:
    return to_html(text, Recorder())


def shown(rendered: str) -> str:
    """The HTML as a reader sees it: a backslash alone in its element and ``&#91;`` look as typed."""
    return rendered.replace("<span>\\</span>", "\\").replace("&#91;", "[")


def before_markdown(text: str) -> str:
    """How every field was rendered before texts were Markdown."""
    return html.escape(text, quote=False).replace("\n", "<br>")


PLAIN = [
    "a < b & c",
    "a &amp; b stays as typed, &copy; too",
    "5 * 3 = 15, and 5 * 3 * 2 = 30",
    "snake_case_name and max_len_2 keep their underscores",
    'He said "fast" and it\'s done',
    "first line\nsecond line\nthird",
    "Costs $5 and $10, or $5/$10",
    "K\u00d7K filter, K\u00b2 times larger, (LLM.int8()), 4x faster, W8A8!",
    "<b>bold</b> and <img src=x onerror=alert(1)>",
    "1 + 1 = 2 - 0",
]


@pytest.mark.parametrize("text", PLAIN)
def test_plain_text_renders_exactly_as_before_markdown(text: str) -> None:
    """Existing notes keep their fields byte for byte, so no classmate gets a needless update."""
    assert render(text) == before_markdown(text)
    assert markdown_html(text, Recorder()) == before_markdown(text)


_ALPHABET = st.sampled_from(
    [
        *"aZ0129 .,;:!?'\"()-+=/#>|~&<*_`[]{}@%^$\\\t\n\r\0\x0b\x0c\u2028\u00a0\u202f\u2003\u00e9\u00d7\u00b2«»…",
        *"\u0663\u05e9\u0639\u200f",  # an Arabic-Indic digit, Hebrew and Arabic letters, a right-to-left mark
    ]
)
#: Languages with typography of their own, and without.
_LANGUAGES = st.sampled_from(["", "en", "fr", "fr-CA", "fra", "ar"])


@given(st.text(_ALPHABET, min_size=1, max_size=40).map(str.strip).filter(bool), _LANGUAGES)
def test_the_shortcut_for_plain_text_agrees_with_markdown(text: str, lang: str) -> None:
    """Text that skips Markdown for speed renders exactly as Markdown would render it."""
    assert to_html(text, Recorder(), lang) == markdown_html(text, Recorder(), lang)


#: Plain texts with what could look like markup, HTML or typography, which the shortcut takes.
SHORTCUT = [
    "Rate > 5 and 'quoted' \"text\" stay as typed >",
    "Qu'est-ce ? « Rien » : tout ; vraiment ! Et\t?",
    "Espaces\u00a0insécables\u202fet fines ?",
    "עברית 123 ومرحبا 4.5 \u200f-7",
    "Version 2. is out, 3) too; a # b + c - d = e ~ f | g > h",
    "Page\x0bbreak\x0cand\u2028line separator",
    "x",
]


@pytest.mark.parametrize("text", SHORTCUT)
@pytest.mark.parametrize("lang", ["en", "fr", "ar"])
def test_the_shortcut_takes_plain_text_as_markdown_renders_it(text: str, lang: str) -> None:
    """The texts of nearly every question skip Markdown: their HTML must be the one Markdown makes."""
    plain = without_markdown(text, lang)
    assert plain is not None
    assert plain == markdown_html(text, Recorder(), lang) == to_html(text, Recorder(), lang)


@pytest.mark.parametrize("char", [*"\n\r\0\\`*_[<$&"])
def test_the_shortcut_leaves_a_text_with_markup_anywhere_to_markdown(char: str) -> None:
    assert without_markdown(f"a{char}b", "fr") is None


@pytest.mark.parametrize("start", [*"#>+-=~|", "12.", "\u0663)"])
def test_the_shortcut_leaves_a_text_that_may_start_with_markup_to_markdown(start: str) -> None:
    assert without_markdown(f"{start} a", "fr") is None
    assert without_markdown(f"a {start} a", "fr") is not None


def french_spaces(text: str) -> str:
    """The French rule run by run: what follows a run of spaces, and what precedes it, decide."""

    def run(match: re.Match[str]) -> str:
        before, after = text[match.start() - 1 : match.start()], text[match.end() : match.end() + 1]
        if before == "«" or (after and after in ":»"):
            return "\u00a0"
        return "\u202f" if after and after in ";!?" else match.group(0)

    return re.sub(r"[ \t]+", run, text)


@given(st.text(st.sampled_from([*" \t\u00a0«»:;!?a"]), max_size=30), _LANGUAGES)
def test_typography_changes_each_run_of_spaces_by_its_neighbours(text: str, lang: str) -> None:
    """Only a run of spaces that the rule changes is changed, whole, whatever its length."""
    assert typography(text, lang) == (french_spaces(text) if lang.split("-")[0] == "fr" else text)


def test_emphasis_markers_around_words_are_markdown() -> None:
    """CommonMark reads ``*a*`` as emphasis (accepted); ``*`` between spaces stays a star."""
    assert render("2*3*4 and *fast*") == "2<em>3</em>4 and <em>fast</em>"
    assert render("5 * 3") == "5 * 3"
    assert render(r"\*not emphasis\*") == "*not emphasis*"


def test_several_paragraphs_lists_and_tables_become_blocks() -> None:
    """Only a single paragraph is kept inline; anything else is real HTML structure."""
    assert render("one\n\ntwo") == "<p>one</p>\n<p>two</p>"
    assert render("- a\n- b") == "<ul>\n<li>a</li>\n<li>b</li>\n</ul>"
    table = render("| x | y |\n|---|---|\n| 1 | 2 |")
    assert table.startswith("<table>") and "<th>x</th>" in table and "<td>2</td>" in table


@pytest.mark.parametrize(
    ("source", "shown"),
    [
        ("<script>alert(1)</script>", "&lt;script&gt;alert(1)&lt;/script&gt;"),
        ("<img src=x onerror=alert(1)>", "&lt;img src=x onerror=alert(1)&gt;"),
        ('<a href="#" onclick="alert(1)">x</a>', '&lt;a href="#" onclick="alert(1)"&gt;x&lt;/a&gt;'),
        (
            "Note:\n\n<div onmouseover=alert(1)>x</div>",
            "<p>Note:</p>\n<p>&lt;div onmouseover=alert(1)&gt;x&lt;/div&gt;</p>",
        ),
    ],
)
def test_html_in_markdown_is_shown_as_text(source: str, shown: str) -> None:
    """Raw HTML is never passed through: tags and event handlers arrive as visible text."""
    assert render(source) == shown


@pytest.mark.parametrize(
    "source",
    [
        "[click](javascript:alert(1))",
        "[click](JavaScript:alert(1))",
        "[click](java&#115;cript:alert(1))",
        "[click](vbscript:msgbox(1))",
        "<javascript:alert(1)>",
        "[click](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==)",
    ],
)
def test_script_links_are_refused(source: str) -> None:
    """markdown-it's validateLink refuses script URLs: no link is made, the text stays."""
    out = render(source)
    assert "<a" not in out and "href" not in out
    assert "alert" in out or "msgbox" in out or "base64" in out


def test_ordinary_links_work() -> None:
    """A web link is a link; its attributes are escaped."""
    assert render('[docs](https://example.org/a?b=1&c=2 "T")') == (
        '<a href="https://example.org/a?b=1&amp;c=2" title="T">docs</a>'
    )


@pytest.mark.parametrize(
    "source",
    [
        r"Intensity \( I = \frac{\text{FLOPs}}{\text{bytes}} \) is low",
        r"\(a_b * c_d\) and \(x^*\) and \(\{a\}\)",
        r"\[ \sum_{i=1}^{n} a_i \]",
        r"**Bold** then \[ \int_0^1 x\,dx = \tfrac{1}{2} \]",
    ],
)
def test_anki_formulas_pass_through_untouched(source: str) -> None:
    """Backslashes, underscores and stars inside \\( \\) and \\[ \\] are not Markdown."""
    formulas = re.findall(r"\\[(\[].*?\\[)\]]", source)
    out = render(source)
    assert formulas and all(formula in out for formula in formulas)


@pytest.mark.parametrize(
    ("source", "html_out"),
    [
        ("so $x^2_1$ grows", r"so \(x^2_1\) grows"),
        ("$$E = mc^2$$", r"\[E = mc^2\]"),
        ("see $$a * b * c$$ here", r"see \[a * b * c\] here"),
        (r"$a < b \$ c$", r"\(a &lt; b \$ c\)"),
        ("`$x$` is code", "<code>$x$</code> is code"),
    ],
)
def test_dollar_formulas_become_anki_delimiters(source: str, html_out: str) -> None:
    """$...$ and $$...$$ turn into \\( \\) and \\[ \\]; only < & > are escaped inside."""
    assert render(source) == html_out


@pytest.mark.parametrize(
    "text",
    ["It costs $5 and $10.", "from $5/$10 up", "$ 5 and 6 $", "one $", r"\$x\$ is not math", "$20,000 to $30,000"],
)
def test_a_dollar_in_ordinary_text_is_not_a_formula(text: str) -> None:
    """Pandoc's rule: no space after the opening $, none before the closing one, no digit after it."""
    out = render(text)
    assert "\\(" not in out and "\\[" not in out
    assert out.count("$") == text.count("$")


def test_a_display_formula_on_its_own_lines_is_taken_whole() -> None:
    """Lines inside $$ ... $$ that look like lists, headings or blank lines stay in the formula."""
    source = "Then\n\n$$\n- x\n# y\n\n+ z\n$$\nand \\[\na + b\n\\] inline"
    assert render(source) == "<p>Then</p>\n\\[\n- x\n# y\n\n+ z\n\\]\n<p>and \\[\na + b\n\\] inline</p>"


def test_fenced_code_is_coloured_with_classes_not_inline_styles() -> None:
    """Pygments tokens become a few ab-hl-* classes, which the stylesheet colours for night mode too."""
    out = render('```python\nimport torch  # fast\nx = "a<b" + 42\n```')
    assert out.startswith('<pre class="ab-code" data-lang="python"><code>')
    assert '<span class="ab-hl-keyword">import</span> torch  ' in out
    assert '<span class="ab-hl-comment"># fast</span>' in out
    assert '<span class="ab-hl-string">"a&lt;b"</span>' in out
    assert '<span class="ab-hl-number">42</span>' in out
    assert "style=" not in out and "<script" not in out


def test_code_keeps_its_text_exactly() -> None:
    """Whatever the colours, the code reads exactly as written: indentation, blank lines, symbols."""
    code = "__global__ void k(float *x) {\n\n    x[threadIdx.x] *= 2;  // <&>\n}\n"
    out = render(f"```cuda\n{code}```")
    assert '<span class="ab-hl-keyword">' in out
    text = out.split("<code>", 1)[1].split("</code>", 1)[0]
    assert html.unescape(re.sub(r"</?span[^>]*>", "", text)) == code


def test_code_in_an_unknown_language_is_shown_plain_with_a_warning() -> None:
    """A typo in the language name is worth a warning, not a failed build."""
    recorder = Recorder()
    out = to_html("```pyhton\nprint(1)\n```", recorder)
    assert out == '<pre class="ab-code"><code>print(1)\n</code></pre>'
    assert recorder.warnings == ["unknown code language 'pyhton': the code is shown without colours"]


def test_a_code_block_too_long_to_colour_is_shown_plain_with_a_warning() -> None:
    """Colouring some languages' blank lines takes the square of their length: a longer block is not coloured."""
    recorder = Recorder()
    lines, comment = "x = 1\n" * (MAX_COLOURED // 6 - 1), "#" * (MAX_COLOURED % 6 + 5)
    longest = f"{lines}{comment}\n"
    assert len(longest) == MAX_COLOURED
    assert '<span class="ab-hl-number">1</span>' in to_html(f"```python\n{longest}```", recorder)
    assert recorder.warnings == []
    out = to_html(f"```python\n{lines}#{comment}\n```", recorder)
    assert out == f'<pre class="ab-code"><code>{lines}#{comment}\n</code></pre>'
    assert recorder.warnings == ["this python code block is longer than 2,000 characters: it is shown without colours"]


def test_code_without_language_and_inline_code_are_escaped() -> None:
    """No guessing at languages; < and & inside code are text."""
    assert render("```\na < b && c\n```") == '<pre class="ab-code"><code>a &lt; b &amp;&amp; c\n</code></pre>'
    assert render("use `x <= y` here") == "use <code>x &lt;= y</code> here"


def test_images_are_handed_to_the_build_and_point_at_the_packaged_name() -> None:
    """The build resolves each image; the <img> carries the name it returns, and escaped alt text."""
    recorder = Recorder()
    out = to_html('See ![a "roof" *line*](media/roof%20line.svg "Roofline")', recorder)
    assert out == 'See <img src="packaged-roof line.svg" alt="a &quot;roof&quot; line" title="Roofline">'
    assert recorder.images == ["media/roof line.svg"]


#: Lines as a web page gives them: no leading or trailing spaces, any markup characters.
PAGE_CHARS = st.sampled_from([*"aZ09 .,;:!?'\"()-+=/#>|~&<*_`[]$\\\t\u00a0\u2003\u00e9\u00d7\u00b2"])
PAGE_LINE = st.text(PAGE_CHARS, min_size=1).map(str.strip).filter(bool)


@given(st.lists(PAGE_LINE, min_size=1, max_size=4).map("\n".join))
def test_literal_text_shows_as_written(text: str) -> None:
    """Text that is not Markdown (a quiz page's) is stored so that it renders exactly as written."""
    assert shown(render(literal(text))) == before_markdown(text)


@pytest.mark.parametrize(
    ("text", "stored"),
    [
        ("5 * 3 = 15 and snake_case stay", "5 * 3 = 15 and snake_case stay"),
        ("*not emphasis*", "\\*not emphasis\\*"),
        ("1. not a list", "1\\. not a list"),
        ("[not](a link) nor $x$", "[not\\](a link) nor \\$x\\$"),
        ("first\n\n# second", "first\n\n\\# second"),
    ],
)
def test_literal_escapes_only_what_markdown_would_change(text: str, stored: str) -> None:
    """Plain paragraphs are kept as they are; a paragraph that reads as markup gets backslashes."""
    assert literal(text) == stored
