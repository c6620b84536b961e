"""Rich text: Markdown in every question text, with formulas, code and images.

Texts are CommonMark with tables, turned into HTML once, at build time, so a
card needs no script. Raw HTML written in a text is shown as text and never
run; links markdown-it deems unsafe (``javascript:``, ``vbscript:``,
``file:``, most ``data:``) stay text. A text that is one plain paragraph
renders exactly as before Markdown existed here (escaped, line breaks as
``<br>``, no ``<p>`` around it), so the notes already in classmates'
collections keep their content and are not sent again.

Formulas are left for Anki's MathJax: ``\\(...\\)`` and ``\\[...\\]`` pass
through untouched, and ``$...$`` / ``$$...$$`` become them. Code is coloured
with Pygments into a few classes that ``templates/style.css`` colours for day
and night mode.

Text is inert: Anki reads more than HTML in a field, and none of it may come
from plain text. Its bracket syntaxes (``[sound:...]``, ``[anki:tts]...``,
``[latex]``, ``[$]``, ``[$$]``) get their ``[`` as an entity, which shows the
same but is no longer the syntax; a ``\\(`` or ``\\[`` that is text (written
``\\\\(``) or code gets its backslash in an element of its own, and MathJax
never reads a formula across an element (in an image's text and a link's
title, the backslash is ``&#92;``). Inside formulas, the MathJax commands that make links, set styles
or attributes, or load extensions (:data:`REFUSED_TEX`) are refused with the
text's file and line, and so is a formula whose end MathJax would see
elsewhere than where it is written (:mod:`.formulas`): text after it would
become part of it. A formula that cannot be read at all (:mod:`.mathml`) is a
warning there.

Every scan is linear in the text: a closing delimiter is searched for once
from each place, whatever the number of openers left unclosed.
"""

from __future__ import annotations

import bisect
import html
import itertools
import re
from collections.abc import Sequence
from functools import cache
from typing import TYPE_CHECKING, Protocol
from urllib.parse import unquote

from .clozes import ENV_KEY as _CLOZES
from .clozes import ClozeReading, anki_markers, install_clozes
from .formulas import end_problem
from .mathml import problem as formula_problem

if TYPE_CHECKING:
    # markdown-it and Pygments are loaded when a text first needs them: a plain
    # text, or a build with nothing to do, never does.
    from markdown_it import MarkdownIt
    from markdown_it.renderer import RendererHTML
    from markdown_it.rules_block import StateBlock
    from markdown_it.rules_inline import StateInline
    from markdown_it.token import Token
    from markdown_it.utils import EnvType, OptionsDict
    from pygments.lexer import Lexer
    from pygments.token import _TokenType


class Resources(Protocol):
    """What rendering needs from the rest of the build: images, and somewhere to warn."""

    def image(self, reference: str) -> str | None:
        """The packaged file name of an image reference; None when it cannot be used (reported)."""

    def warn(self, message: str, hint: str) -> None:
        """Tell the author about something that renders, but not as they meant."""

    def refuse(self, message: str, hint: str) -> None:
        """Tell the author about something that must not be in a text (an error)."""


_RESOURCES = "ankibuild.resources"
_LANG = "ankibuild.lang"

#: Closing delimiter of each formula opener, ``$$`` before ``$``.
_MATH = {"\\(": "\\)", "\\[": "\\]", "$$": "$$", "$": "$"}
#: Openers of display formulas (the others are inline).
_DISPLAY = ("\\[", "$$")
#: MathJax commands (all loaded on demand by the full build Anki ships) that
#: make a link (``\href``), set CSS or attributes (``\style``, ``\class``,
#: ``\cssId``, ``\data``, ``\bbox``, ``\mmlToken``, ``\unicode``'s font) or
#: load an extension (``\require``), and ``\csname``, which could spell one.
REFUSED_TEX = ("href", "style", "class", "cssId", "data", "bbox", "mmlToken", "unicode", "require", "csname")
#: A command of :data:`REFUSED_TEX` after an odd number of backslashes (``\\href`` is a line break and a word).
_REFUSED = re.compile(r"(?<!\\)((?:\\\\)*)\\(" + "|".join(REFUSED_TEX) + r")(?![A-Za-z])")
#: Anki's own syntaxes in a field: sound and video, text to speech, LaTeX images.
_ANKI_SYNTAX = re.compile(r"\[(?=sound:|/?anki:|/?latex\]|/?\$\$?\])", re.IGNORECASE)
#: Anki's ``[$]``, ``[$$]``, ``[/$]`` and ``[/$$]`` seen from two characters before their first ``$``.
_ANKI_DOLLAR = re.compile(r".?\[/?\$\$?\]")
#: A formula opener in text that is not a formula.
_TEXT_OPENER = re.compile(r"\\(?=[(\[])")
#: Where ``env`` keeps the closers already searched for (see :func:`_find`).
_FOUND = "ankibuild.found"


@cache
def _highlight_classes() -> dict[_TokenType, str]:
    """Highlight classes by Pygments token type; a type not listed takes its parent's."""
    from pygments.token import Comment, Keyword, Name, Number, Operator, String

    return {
        Comment: "ab-hl-comment",
        Comment.Preproc: "ab-hl-keyword",
        Keyword: "ab-hl-keyword",
        Operator.Word: "ab-hl-keyword",
        String: "ab-hl-string",
        Number: "ab-hl-number",
        Name.Builtin: "ab-hl-builtin",
        Name.Function: "ab-hl-function",
        Name.Class: "ab-hl-function",
        Name.Decorator: "ab-hl-function",
    }


#: A one-line text without markup characters (:func:`_has_markup`), nor one of :data:`_MARKUP_START`
#: at its start, renders as plain escaped text; Markdown is not run on it, which keeps large banks
#: fast (tests prove both agree).
_MARKUP_START = re.compile(r"[#>+\-=~|]|\d{1,9}[.)](?:\s|$)")
#: The characters :data:`_MARKUP_START` can start with, but a digit.
_START_SIGNS = frozenset("#>+-=~|")


def to_html(text: str, resources: Resources, lang: str = "", *, clozes: bool = False) -> str:
    """A question text in ``lang`` as card HTML: Markdown rendered, formulas kept for MathJax.

    With ``clozes``, its clozes become the markers Anki reads, and nothing else
    in it does (see :mod:`.clozetext`); its problems are :func:`read_clozes`'.
    """
    if clozes:
        return anki_markers(markdown_html(text, resources, lang, more={_CLOZES: ClozeReading()}))
    plain = without_markdown(text, lang)
    return markdown_html(text, resources, lang) if plain is None else plain


def without_markdown(text: str, lang: str) -> str | None:
    """What :func:`to_html` makes of a text with no Markdown in it, which needs no resources; else None."""
    if _has_markup(text) or _starts_markup(text):
        return None
    text = typography(text, lang)
    return text.replace(">", "&gt;") if ">" in text else text  # no "&", "<" nor line break to escape


def _has_markup(text: str) -> bool:
    """Whether ``text`` has a line break, or a character that may be markup wherever it stands.

    Each ``in`` looks for one character with ``memchr``: the eleven cost a third of one regular
    expression search for them all, which tries every character in turn (every text of a bank is looked at).
    """
    return (
        "\n" in text
        or "\r" in text
        or "\0" in text
        or "\\" in text
        or "`" in text
        or "*" in text
        or "_" in text
        or "[" in text
        or "<" in text
        or "$" in text
        or "&" in text
    )


def _starts_markup(text: str) -> bool:
    """Whether ``text`` starts with what may be markup at the start of a line: its first character tells most."""
    first = text[:1]
    return (first in _START_SIGNS or first.isdecimal()) and _MARKUP_START.match(text) is not None


def read_clozes(text: str) -> ClozeReading:
    """The clozes of a cloze text, and what is wrong with them, as :func:`to_html` reads them."""
    reading = ClozeReading()
    _markdown().parse(text, {_CLOZES: reading})
    return reading


#: French sets a no-break space before ``:`` and inside guillemets, a narrow one before ``; ! ?``
#: (the Imprimerie nationale's rule), so that the sign never starts a line: each run of spaces
#: (``[ \t]+``, whole) after ``«`` becomes a no-break space, and so does one before ``:`` or ``»``;
#: one before ``; ! ?`` a narrow one; every other run stays as written.
_AFTER_GUILLEMET = re.compile(r"«[ \t]+")
#: The signs of that rule, each with the space a run of spaces right before it becomes.
_SIGN_SPACES = {":": "\u00a0", "»": "\u00a0", ";": "\u202f", "!": "\u202f", "?": "\u202f"}
#: Punctuation at the start of the text after an inline formula, which must not start the next line.
_SIGN = re.compile(r"[\u00a0\u202f]?[.,;:!?)\]»…]+")


def typography(text: str, lang: str) -> str:
    """Plain text with the spaces its language's typography asks for (French: no-break ones)."""
    if lang != "fr" and not lang.startswith("fr-"):
        return text
    if "«" in text:
        text = _AFTER_GUILLEMET.sub("«\u00a0", text)
    # Most texts have no sign: a search for each (see :func:`_has_markup`), not a try at every space.
    if not (":" in text or "»" in text or ";" in text or "!" in text or "?" in text):
        return text
    for sign, space in _SIGN_SPACES.items():
        if sign in text:
            text = _spaced_before(text, sign, space)
    return text


def _spaced_before(text: str, sign: str, space: str) -> str:
    """``text`` with each run of spaces right before ``sign`` made ``space``.

    A text has a sign or two: the end of each stretch before one is looked at, where a
    pattern that starts at a run of spaces would try at every space.
    """
    stretches = text.split(sign)
    for index, stretch in enumerate(stretches[:-1]):
        kept = stretch.rstrip(" \t")
        if len(kept) < len(stretch):
            stretches[index] = kept + space
    return sign.join(stretches)


#: Characters that may start markup anywhere in a line, and at the start of a line only.
#: ``]`` is escaped rather than ``[``: it breaks links as well, and ``\[`` would open a formula.
_INLINE_MARKS = re.compile(r"[\\`*_\]<>$|~]")
_LINE_MARKS = re.compile(r"^[#+\-=:]", re.MULTILINE)  # ":-" under a line makes a table
_LIST_NUMBER = re.compile(r"^(\d{1,9})(?=[.)])", re.MULTILINE)


def literal(text: str) -> str:
    """Markdown that shows ``text`` exactly as written, for text that is not Markdown (a web page's).

    Paragraphs (apart by a blank line) stay paragraphs. A paragraph Markdown
    would show otherwise gets its markup characters escaped with ``\\``; every
    other one is kept as it is, so ordinary text is stored unchanged. Lines are
    taken without leading or trailing spaces, as a page's are.
    """
    return "\n\n".join(_literal_paragraph(paragraph) for paragraph in text.split("\n\n"))


def _literal_paragraph(text: str) -> str:
    if to_html(text, Unpackaged()) == _plain_html(text):
        return text
    escaped = _LINE_MARKS.sub(r"\\\g<0>", _INLINE_MARKS.sub(r"\\\g<0>", text))
    return _LIST_NUMBER.sub(r"\1\\", escaped)  # "1." starts a list, "1\." does not


class Unpackaged:
    """Resources for telling whether a text is plain: images are not packaged, nothing is reported."""

    def image(self, reference: str) -> str | None:
        return None

    def warn(self, message: str, hint: str) -> None:
        return None

    def refuse(self, message: str, hint: str) -> None:
        return None


def markdown_html(text: str, resources: Resources, lang: str = "", *, more: EnvType | None = None) -> str:
    """``to_html`` without its shortcut for text that has no Markdown in it; ``more`` joins the parser's ``env``."""
    env: EnvType = {_RESOURCES: resources, _LANG: lang, **(more or {})}
    markdown = _markdown()
    tokens = markdown.parse(text, env)
    if [token.type for token in tokens] == ["paragraph_open", "inline", "paragraph_close"]:
        tokens = tokens[1:2]  # inline text stays inline, as it always was
    rendered = str(markdown.renderer.render(tokens, markdown.options, env)).rstrip("\n")
    return _ANKI_SYNTAX.sub("&#91;", rendered)


def _plain_html(text: str, lang: str = "") -> str:
    """Text shown exactly as written, line breaks kept: the rendering before Markdown."""
    return html.escape(typography(text, lang), quote=False).replace("\n", "<br>")


def search(src: str, needle: str, start: int) -> int:
    """Where ``needle`` first occurs in ``src`` from ``start`` on, or -1: every search for a closing delimiter."""
    return src.find(needle, start)


def _find(env: EnvType, src: str, needle: str, *, start: int, stop: int) -> int:
    """``src.find(needle, start, stop)``, in time linear in ``src`` over every call of one parse.

    The first ``needle`` at or after a place is also the first after any later
    place before it, and so is its absence: each stretch of ``src`` is searched once,
    however many openers are left unclosed.
    """
    found: dict[tuple[str, str], tuple[int, int]] = env.setdefault(_FOUND, {})
    searched_from, at = found.get((src, needle), (len(src) + 1, -1))
    if not (searched_from <= start and (at == -1 or start <= at)):
        searched_from, at = start, search(src, needle, start)
        found[src, needle] = (searched_from, at)
    return at if at != -1 and at + len(needle) <= stop else -1


def _math_inline(state: StateInline, silent: bool) -> bool:
    opener = next((o for o in _MATH if state.src.startswith(o, state.pos)), None)
    if opener is not None and _ANKI_DOLLAR.match(state.src, max(state.pos - 2, 0)):
        return False  # Anki's [$]...[/$], shown as typed
    close = None if opener is None else _closer(state, opener)
    if opener is None or close is None:
        return False
    if not silent:
        token = state.push("math_display" if opener in _DISPLAY else "math_inline", "math", 0)
        token.content = state.src[state.pos + len(opener) : close]
    state.pos = close + len(_MATH[opener])
    return True


def _closer(state: StateInline, opener: str) -> int | None:
    """Where the formula opened at the state's place closes; None when it is no formula."""
    src, start, stop = state.src, state.pos, state.posMax
    if opener == "$":
        return _dollar_closer(src, start, stop)
    close = _find(state.env, src, _MATH[opener], start=start + len(opener), stop=stop)
    if close == -1 or not src[start + len(opener) : close].strip():
        return None
    return close


def _dollar_closer(src: str, start: int, stop: int) -> int | None:
    """``$...$`` by pandoc's rule, so that prices stay text ("$5 and $10").

    The opening ``$`` is not followed by whitespace; the next unescaped ``$``
    closes, and only if it is not preceded by whitespace nor followed by a digit.
    """
    if start + 1 >= stop or src[start + 1].isspace():
        return None
    close = start + 1
    while close < stop and src[close] != "$":
        close += 2 if src[close] == "\\" else 1
    if close >= stop or src[close - 1].isspace() or (close + 1 < stop and src[close + 1].isdigit()):
        return None
    return close


def _math_block(state: StateBlock, start_line: int, end_line: int, silent: bool) -> bool:
    """A display formula that starts a line is taken whole, blank lines and all.

    Markdown must not read its lines as lists or headings; it ends at the first
    closer, which must end its line (otherwise the inline rule handles it).
    """
    begin = state.bMarks[start_line] + state.tShift[start_line]
    opener = next((o for o in _DISPLAY if state.src.startswith(o, begin)), None)
    if opener is None or state.is_code_block(start_line):
        return False
    close = _find(state.env, state.src, _MATH[opener], start=begin + len(opener), stop=len(state.src))
    line = bisect.bisect_left(state.eMarks, close, start_line, end_line)  # the line it closes on
    if close == -1 or line >= end_line or state.src[close + len(_MATH[opener]) : state.eMarks[line]].strip():
        return False
    if not silent:
        token = state.push("math_display", "math", 0)
        token.block = True
        token.content = state.src[begin + len(opener) : close]
        token.map = [start_line, line + 1]
    state.line = line + 1
    return True


def _render_math(self: RendererHTML, tokens: Sequence[Token], idx: int, options: OptionsDict, env: EnvType) -> str:
    token = tokens[idx]
    opener, closer = ("\\[", "\\]") if token.type == "math_display" else ("\\(", "\\)")
    _check_formula(token.content, closer, env[_RESOURCES])
    formula = f"{opener}{html.escape(token.content, quote=False)}{closer}"
    if token.block:
        return formula + "\n"
    sign = _sign_after(tokens, idx, env) if token.type == "math_inline" else ""
    return f'<span class="ab-keep">{formula}{sign}</span>' if sign else formula


def _check_formula(tex: str, closer: str, resources: Resources) -> None:
    """Refuse what would make a link or a style, or move where MathJax ends the formula; warn of what cannot be read."""
    for match in _REFUSED.finditer(tex):
        resources.refuse(
            f"the formula uses \\{match.group(2)}, which would make a link, a style or a script on every card",
            "remove it: a formula may only set mathematics (write a link or a colour as plain text)",
        )
    moved = end_problem(tex, closer)
    if moved:
        resources.refuse(*moved)
    unreadable = formula_problem(tex)
    if unreadable and not moved:
        resources.warn(
            f"the formula '{tex.strip()}' cannot be read: {unreadable}",
            "Anki shows it as a red error on the card: check the command names and that each { has its }",
        )


def _sign_after(tokens: Sequence[Token], idx: int, env: EnvType) -> str:
    """The punctuation the text after an inline formula starts with, taken from that text to stay with the formula.

    A sign that starts a line reads as a mistake (". and so on"); both go into one
    element that never breaks. Only the text token right after the formula is
    looked at, so nothing but the formula and its sign is ever inside that element.
    """
    following = tokens[idx + 1] if idx + 1 < len(tokens) else None
    if following is None or following.type != "text":
        return ""
    text = typography(following.content, env.get(_LANG, ""))  # French spaces first: a no-break one joins too
    sign = _SIGN.match(text)
    if sign is None:
        return ""
    following.content = text[sign.end() :]
    return sign.group(0)


def _render_fence(self: RendererHTML, tokens: Sequence[Token], idx: int, options: OptionsDict, env: EnvType) -> str:
    token = tokens[idx]
    words = token.info.split(maxsplit=1)  # the language, then anything else the author wrote
    return _code_block(token.content, words[0] if words else "", env[_RESOURCES])


#: The longest code block coloured, in characters. Some of Pygments' languages (c, cuda, python, java...) take a
#: time that grows with the square of a block on some texts, such as a run of blank lines: 0.1-0.17 s for 2,000
#: characters, 1-2 s for 8,000, 10 s for 20,000. A longer block is shown uncoloured, with a warning.
MAX_COLOURED = 2000


def _code_block(code: str, lang: str, resources: Resources) -> str:
    """A block of code, coloured when its language is named and known to Pygments, and it is not too long."""
    lexer = _lexer(lang, resources) if lang else None
    if lexer is not None and len(code) > MAX_COLOURED:
        resources.warn(
            f"this {lang} code block is longer than {MAX_COLOURED:,} characters: it is shown without colours",
            f"shorten it, or split it into blocks of at most {MAX_COLOURED:,} characters (a card shows a screenful)",
        )
        lexer = None
    if lexer is None:
        return f'<pre class="ab-code"><code>{_inert(html.escape(code, quote=False))}</code></pre>\n'
    return f'<pre class="ab-code" data-lang="{html.escape(lang)}"><code>{_highlight(code, lexer)}</code></pre>\n'


def _lexer(lang: str, resources: Resources) -> Lexer | None:
    from pygments.lexers import get_lexer_by_name
    from pygments.util import ClassNotFound

    try:
        # No stripping or added newline: the code comes out exactly as written.
        return get_lexer_by_name(lang, stripnl=False, ensurenl=False)
    except ClassNotFound:
        resources.warn(
            f"unknown code language '{lang}': the code is shown without colours",
            "use a Pygments language name such as python, c, cuda, cpp or bash",
        )
        return None


def _highlight(code: str, lexer: Lexer) -> str:
    """Pygments tokens as spans of a few classes; neighbours of one class share a span."""
    out: list[str] = []
    tokens = lexer.get_tokens(code)
    for css, group in itertools.groupby(tokens, key=lambda token: _css_class(token[0])):
        text = _inert(html.escape("".join(value for _, value in group), quote=False))
        out.append(f'<span class="{css}">{text}</span>' if css else text)
    return "".join(out)


def _css_class(kind: _TokenType) -> str:
    classes = _highlight_classes()
    while kind not in classes and kind.parent is not None:
        kind = kind.parent
    return classes.get(kind, "")


def _render_image(self: RendererHTML, tokens: Sequence[Token], idx: int, options: OptionsDict, env: EnvType) -> str:
    token = tokens[idx]
    resources: Resources = env[_RESOURCES]
    name = resources.image(unquote(str(token.attrGet("src") or "")))
    if name is None:
        return ""
    alt = _inert_attribute(html.escape(self.renderInlineAsText(token.children, options, env)))
    title = token.attrGet("title")
    title_attr = f' title="{_inert_attribute(html.escape(str(title)))}"' if title else ""
    return f'<img src="{html.escape(name)}" alt="{alt}"{title_attr}>'


def _render_text(self: RendererHTML, tokens: Sequence[Token], idx: int, options: OptionsDict, env: EnvType) -> str:
    return _inert(html.escape(typography(tokens[idx].content, env.get(_LANG, "")), quote=False))


def _inert(escaped: str) -> str:
    """HTML text in which nothing opens a formula: a ``\\`` before ``(`` or ``[`` stands in an element of its own.

    MathJax reads no formula across an element (only ``<br>`` and comments are
    let through), and Anki's own search for formulas (in cloze notes) needs the
    two characters side by side. Code gets this too: MathJax skips ``<code>`` and
    ``<pre>`` only as long as its configuration says so.
    """
    return _TEXT_OPENER.sub("<span>\\\\</span>", escaped)


def _inert_attribute(escaped: str) -> str:
    """An attribute's escaped value in which nothing opens a formula: the backslash as ``&#92;``, shown the same."""
    return _TEXT_OPENER.sub("&#92;", escaped)


def _render_link_open(self: RendererHTML, tokens: Sequence[Token], idx: int, options: OptionsDict, env: EnvType) -> str:
    """markdown-it's own ``<a ...>``, with a formula opener in its title made inert as in an image's."""
    from markdown_it.common.utils import escapeHtml

    attributes = "".join(
        f' {escapeHtml(name)}="{_inert_attribute(escapeHtml(str(value)))}"' for name, value in tokens[idx].attrItems()
    )
    return f"<a{attributes}>"


def _render_code_inline(
    self: RendererHTML, tokens: Sequence[Token], idx: int, options: OptionsDict, env: EnvType
) -> str:
    from markdown_it.common.utils import escapeHtml

    return f"<code>{_inert(escapeHtml(tokens[idx].content))}</code>"


def _render_break(self: RendererHTML, tokens: Sequence[Token], idx: int, options: OptionsDict, env: EnvType) -> str:
    return "<br>"  # every line break is kept, as in the plain rendering


@cache
def _markdown() -> MarkdownIt:
    """CommonMark with tables; raw HTML off, so HTML in a text shows as text.

    Entities are off too: ``&amp;`` stays as typed, like every other character.
    """
    from markdown_it import MarkdownIt

    md = MarkdownIt("commonmark", {"html": False}).enable("table").disable("entity")
    md.inline.ruler.before("escape", "math", _math_inline)
    md.block.ruler.before("fence", "math_block", _math_block, {"alt": ["paragraph", "blockquote", "list"]})
    install_clozes(md)
    for name, rule in {
        "math_inline": _render_math,
        "math_display": _render_math,
        "fence": _render_fence,
        "code_block": _render_fence,
        "image": _render_image,
        "text": _render_text,
        "code_inline": _render_code_inline,
        "link_open": _render_link_open,
        "softbreak": _render_break,
        "hardbreak": _render_break,
    }.items():
        md.add_render_rule(name, rule)
    return md
