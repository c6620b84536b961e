"""Formulas as MathML, for the preview, and the check that a formula can be read at all.

Anki sets ``\\(...\\)`` and ``\\[...\\]`` with MathJax, a script the preview
does not ship. The preview converts each formula to MathML at build time
instead (every current browser shows MathML), with latex2mathml. Its output is
rebuilt from an allowlist of MathML elements and attributes, with every text
escaped: a formula is bank text, and ``\\text{<img onerror=...>}`` must stay text.

A formula latex2mathml cannot read (an unknown command, a missing argument,
braces that do not pair) is one MathJax shows as a red error on the card, so
``check`` warns about it with the text's file and line.
"""

from __future__ import annotations

import html
import re
from functools import cache
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Callable
    from xml.etree.ElementTree import Element

#: What the preview shows of a formula: MathML elements that only lay out mathematics.
_ELEMENTS = frozenset(
    "math mrow mi mn mo ms mtext mspace msup msub msubsup mfrac msqrt mroot mover munder munderover "
    "mtable mtr mtd mstyle mpadded mphantom menclose semantics annotation".split()
)
_ATTRIBUTES = frozenset(
    "display mathvariant stretchy fence form separator lspace rspace largeop movablelimits symmetric "
    "minsize maxsize accent accentunder linethickness displaystyle scriptlevel width height depth "
    "columnalign rowalign columnspacing rowspacing columnlines rowlines frame notation mathsize".split()
)
_MATHML = "{http://www.w3.org/1998/Math/MathML}"
#: Commands MathJax knows that latex2mathml does not, as latex2mathml can set them.
_MATHJAX_ONLY = {"arg": "\\operatorname{arg}", "notag": "", "nonumber": ""}
_MATHJAX_ONLY_COMMAND = re.compile(r"\\(arg|notag|nonumber)(?![A-Za-z])")
_UNKNOWN = re.compile(r">\\([A-Za-z]+)")
#: The deepest formula converted: far beyond any formula a card needs, and well within
#: Python's recursion limit for latex2mathml and :func:`_clean` together.
MAX_FORMULA_DEPTH = 40
#: What :func:`nesting` reads: commands, escaped characters, and any other character but space.
_NESTING = re.compile(r"\\[A-Za-z]+|\\.|\S", re.DOTALL)
_OPENS = frozenset(("{", "[", "\\left", "\\begin"))
_CLOSES = frozenset(("}", "]", "\\right", "\\end"))
#: What opens a formula as the build writes it into a card, or code, where MathJax reads none.
_OPENER = re.compile(r"<(?:pre|code)\b|\\\(|\\\[", re.IGNORECASE)
#: What closes each opener, by the opener in lower case.
_CLOSERS = {
    "<pre": re.compile("</pre>", re.IGNORECASE),
    "<code": re.compile("</code>", re.IGNORECASE),
    "\\(": re.compile(re.escape("\\)")),
    "\\[": re.compile(re.escape("\\]")),
}


def problem(tex: str) -> str:
    """What keeps a formula from being read, in a few words; empty when it reads."""
    if nesting(tex) > MAX_FORMULA_DEPTH:
        return f"it is nested more than {MAX_FORMULA_DEPTH} levels deep"
    depth = 0
    for brace in re.findall(r"\\.|[{}]", tex, re.DOTALL):
        depth += {"{": 1, "}": -1}.get(brace, 0)
        if depth < 0:
            return "a '}' closes no '{'"
    if depth:
        return "a '{' is never closed"
    try:
        converted = _convert(tex, display=False)
    except RecursionError:  # not a wrong formula: nesting() must keep every formula it lets through below this
        raise
    except Exception as err:  # latex2mathml has no common base for the ways a formula can be wrong
        return _in_words(err)
    unknown = _UNKNOWN.search(converted)
    return f"unknown command \\{unknown.group(1)}" if unknown else ""


def nesting(tex: str) -> int:
    """How deeply a formula nests, counted so that latex2mathml's recursion stays below it.

    Groups (``{``, ``[``, ``\\left``, ``\\begin``) count a level each, and so does
    each command in a row of them (``\\sqrt\\sqrt x`` nests without braces).
    """
    groups = row = deepest = 0
    for token in _NESTING.findall(tex):
        if token in _OPENS:
            groups, row = groups + 1, 0
        elif token in _CLOSES:
            groups, row = max(groups - 1, 0), 0
        else:
            row = row + 1 if token[0] in "\\^_" else 0
        deepest = max(deepest, groups + row)
    return deepest


def _in_words(err: Exception) -> str:
    """latex2mathml's exception class names say what is wrong: MissingEndError -> 'missing end'."""
    words = re.sub(r"(?<!^)(?=[A-Z])", " ", type(err).__name__.removesuffix("Error")).lower()
    return f"{words} ({err})" if str(err) else words


def _convert(tex: str, display: bool) -> str:
    tex = _MATHJAX_ONLY_COMMAND.sub(lambda m: _MATHJAX_ONLY[m.group(1)], tex)
    converted: str = _converter()(tex, display="block" if display else "inline")
    return converted


@cache
def _converter() -> Callable[..., str]:
    from latex2mathml.converter import convert  # loaded only where there are formulas

    return convert


def to_mathml(tex: str, display: bool) -> str | None:
    """A formula as MathML made only of elements that lay out mathematics; None if it cannot be read."""
    from xml.etree import ElementTree  # loaded only for the preview: a build checks formulas without it

    if problem(tex):
        return None
    try:
        root = ElementTree.fromstring(_convert(tex, display))
    except ElementTree.ParseError:  # markup inside \text{...}: the formula is shown as written
        return None
    return _clean(root)


def _clean(element: Element) -> str:
    name = element.tag.removeprefix(_MATHML)
    if name not in _ELEMENTS:
        return html.escape("".join(element.itertext()), quote=False)
    attributes = "".join(
        f' {key}="{html.escape(value)}"' for key, value in sorted(element.attrib.items()) if key in _ATTRIBUTES
    )
    inner = html.escape(element.text or "", quote=False) + "".join(
        _clean(child) + html.escape(child.tail or "", quote=False) for child in element
    )
    return f"<{name}{attributes}>{inner}</{name}>"


def formulas_to_mathml(card: str) -> str:
    """A card's HTML with each formula as MathML, as MathJax would set it; code is left alone.

    A formula that cannot be converted stays as written, as MathJax would show it.
    Linear in the card's length: once an opener has no closer after it, no later
    opener of its kind is looked for a closer again.
    """
    parts: list[str] = []
    done = at = 0
    unclosed: set[str] = set()
    while (opener := _OPENER.search(card, at)) is not None:
        kind = opener.group(0).lower()
        # A formula holds at least one character; code may be empty.
        closer = None if kind in unclosed else closing(card, kind, opener.end() + kind.startswith("\\"))
        if closer is None:
            unclosed.add(kind)
            at = opener.start() + 1
            continue
        whole = card[opener.start() : closer.end()]
        if kind.startswith("\\"):
            converted = to_mathml(html.unescape(card[opener.end() : closer.start()]), kind == "\\[")
            whole = whole if converted is None else converted
        parts += [card[done : opener.start()], whole]
        done = at = closer.end()
    parts.append(card[done:])
    return "".join(parts)


def closing(card: str, kind: str, start: int) -> re.Match[str] | None:
    """The first closer of the opener ``kind`` in ``card`` from ``start``."""
    return _CLOSERS[kind].search(card, start)
