"""Clozes in a question's Markdown: read with the rest of the text, checked, and written as Anki's markers.

A cloze text is Markdown like any other (see :mod:`.richtext`) in which
``{{c1::answer}}`` and ``{{c1::answer::hint}}`` are clozes. They are read by
the Markdown parser itself, as part of a line's inline text, so that Markdown
decides what is code and what is a formula: a ``}}`` or ``::`` inside code or
a formula in a cloze (``{{c1::`std::map`}}``) is the code's, not a marker. The
text inside a cloze, and its hint, are rendered like any other text.

While rendering, each marker is a placeholder that no text can hold (NUL,
which the parser replaces in any text it reads). Once the HTML is done, every
brace in it becomes an entity, and so does a colon that would make ``::`` with
the next character: Anki reads markers in the HTML of a field, and none may
come from text. Only then do the placeholders become Anki's markers.

A cloze lies within one paragraph (or heading, list item, table cell), holds
no other cloze, and does not cross Markdown markup: ``**{{c1::a**}}`` would
leave the card's HTML broken. Markers inside code or formulas show as typed.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from .clozemarkers import MAX_CARD

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

    from markdown_it import MarkdownIt
    from markdown_it.renderer import RendererHTML
    from markdown_it.rules_core import StateCore
    from markdown_it.rules_inline import StateInline
    from markdown_it.token import Token
    from markdown_it.utils import EnvType, OptionsDict

#: Where ``env`` keeps the reading of a cloze text; without it, nothing here acts.
ENV_KEY = "ankibuild.clozes"
#: Anki makes a card for each number up to this one (a larger number makes this card).
#: What may be an opening marker: ``{{c`` (or a mistaken ``{{C``), a short word, ``::``.
_OPENER = re.compile(r"\{\{([cC])([^:{}\s]{0,12})::")
_OPEN, _HINT, _CLOSE = "cloze_open", "cloze_hint", "cloze_close"
_MARKERS = {_HINT: "::", _CLOSE: "}}"}
_PLACEHOLDER = re.compile("\0(o[0-9]+|h|c)\0")
_BRACES = re.compile(r"[{}]")
#: A colon that would make ``::`` with the next colon, or with a hint's marker.
_COLON = re.compile(":(?=:|\0h\0)")


@dataclass
class ClozeReading:
    """What a cloze text holds: the number of each cloze, in order, and each problem as (message, hint)."""

    numbers: list[int] = field(default_factory=list)
    problems: list[tuple[str, str]] = field(default_factory=list)


def install_clozes(md: MarkdownIt) -> None:
    """Teach the parser clozes, for the texts whose ``env`` holds :data:`ENV_KEY`."""
    md.inline.ruler.before("escape", "cloze", _marker)
    md.core.ruler.after("inline", "cloze_pairs", _pair)
    for name in (_OPEN, _HINT, _CLOSE):
        md.add_render_rule(name, _render)


def anki_markers(rendered: str) -> str:
    """Rendered HTML with its placeholders made Anki's markers, and no other marker Anki could read."""
    rendered = _BRACES.sub(lambda brace: "&#123;" if brace.group() == "{" else "&#125;", rendered)
    rendered = _COLON.sub("&#58;", rendered)
    return _PLACEHOLDER.sub(_anki_marker, rendered)


def _anki_marker(placeholder: re.Match[str]) -> str:
    name = placeholder.group(1)
    return {"h": "::", "c": "}}"}.get(name) or f"{{{{c{name[1:]}::"


def _marker(state: StateInline, silent: bool) -> bool:
    """An opening marker, ``::`` or ``}}``, each a token; :func:`_pair` decides what each is."""
    if ENV_KEY not in state.env:
        return False
    opener = _OPENER.match(state.src, state.pos, state.posMax)
    if opener is not None:
        kind, length = _OPEN, len(opener.group())
    else:
        pair = state.src[state.pos : min(state.pos + 2, state.posMax)]
        kind = next((name for name, marker in _MARKERS.items() if marker == pair), "")
        length = 2
    if not kind:
        return False
    if not silent:
        token = state.push(kind, "", 0)
        token.content = state.src[state.pos : state.pos + length]
        token.meta = {"letter": opener.group(1), "number": opener.group(2)} if opener else {}
    state.pos += length
    return True


@dataclass
class _Open:
    """A cloze being read: its opening token, the nesting of markup around it, what it holds so far."""

    token: Token
    level: int
    lowest: int
    hinted: bool = False
    answer: bool = False
    hint: bool = False


class _Pairing:
    """Pairs the markers of one paragraph's inline tokens; markers that pair with nothing are text."""

    def __init__(self, reading: ClozeReading) -> None:
        self.reading = reading
        self.open: _Open | None = None
        self.level = 0

    def tokens(self, tokens: Sequence[Token]) -> None:
        for token in tokens:
            if token.type == _OPEN:
                self._opens(token)
            elif token.type == _HINT and self.open is not None and not self.open.hinted:
                self._hint_starts()
            elif token.type == _CLOSE and self.open is not None:
                self._closes()
            elif token.type in _MARKERS:
                _as_text(token)
            else:
                self._holds(token)
        if self.open is not None:
            written = self.open.token.content
            self._problem(
                f"the cloze '{written}' is never closed",
                "end it with }} in the same paragraph: a cloze cannot span a blank line, a list item or a table cell",
            )

    def _opens(self, token: Token) -> None:
        if self.open is not None:
            outer = self.open.token.content
            self._problem(
                f"the cloze '{token.content}' is inside the cloze '{outer}'",
                "close the first cloze with }} before the next one starts",
            )
            _as_text(token)
            return
        number = _number(token, self._problem)
        if number is None:
            _as_text(token)
            return
        self.reading.numbers.append(number)
        self.open = _Open(token, self.level, self.level)

    def _hint_starts(self) -> None:
        assert self.open is not None
        if not self.open.answer:
            self._problem(f"the cloze '{self.open.token.content}' hides nothing", "write the hidden text before '::'")
        self.open.hinted = True

    def _closes(self) -> None:
        assert self.open is not None
        written, cloze = self.open.token.content, self.open
        if not cloze.answer and not cloze.hinted:
            self._problem(f"the cloze '{written}' hides nothing", f"write the hidden text: {written}text}}}}")
        if cloze.hinted and not cloze.hint:
            self._problem(f"the hint of the cloze '{written}' is empty", "write the hint after '::', or leave '::' out")
        if cloze.lowest < cloze.level or self.level != cloze.level:
            self._problem(
                f"the cloze '{written}…}}}}' starts inside Markdown markup (bold, italics, a link) and ends "
                "outside it, or the other way round",
                "put the markup wholly inside the cloze ({{c1::**word**}}) or the cloze wholly inside it "
                "(**{{c1::word}}**)",
            )
        self.open = None

    def _holds(self, token: Token) -> None:
        """Follows the markup's nesting, and notes whether an open cloze holds anything."""
        self.level += token.nesting
        if token.type == "image" and any(child.type == _OPEN for child in token.children or ()):
            self._problem("a cloze in an image's description never shows", "put the cloze in the text beside the image")
        for child in token.children or ():
            if child.type in (_OPEN, *_MARKERS):
                _as_text(child)
        if self.open is None:
            return
        self.open.lowest = min(self.open.lowest, self.level)
        if token.type != "text" or token.content.strip():
            if self.open.hinted:
                self.open.hint = True
            else:
                self.open.answer = True

    def _problem(self, message: str, hint: str) -> None:
        self.reading.problems.append((message, hint))


def _number(token: Token, problem: Callable[[str, str], None]) -> int | None:
    """The number of an opening marker, or None (reported) when it is none Anki reads."""
    letter, written = token.meta["letter"], token.meta["number"]
    fix = "number clozes c1, c2, …, one number each: each number is a card, and clozes of one number share it"
    if letter != "c":
        problem(f"'{token.content}' is no cloze: Anki reads a lower-case c", f"write {{{{c{written}::…}}}}")
    elif not written.isascii() or not written.isdigit():
        problem(f"'{token.content}' has no cloze number", fix)
    elif not 1 <= int(written) <= MAX_CARD:
        problem(f"'{token.content}': cloze numbers go from 1 to {MAX_CARD}", fix)
    else:
        return int(written)
    return None


def _as_text(token: Token) -> None:
    token.type, token.tag, token.meta = "text", "", {}


def _pair(state: StateCore) -> None:
    reading: ClozeReading | None = state.env.get(ENV_KEY)
    if reading is None:
        return
    for token in state.tokens:
        if token.type == "inline":
            _Pairing(reading).tokens(token.children or ())
    for token in (*state.tokens, *(child for block in state.tokens for child in block.children or ())):
        _formula(token, reading)


def _formula(token: Token, reading: ClozeReading) -> None:
    """A cloze marker inside a formula is part of the formula, as typed; its author meant a cloze."""
    if token.type in ("math_inline", "math_display") and _OPENER.search(token.content):
        reading.problems.append(
            (
                "a cloze inside a formula is part of the formula, not a cloze",
                "put the whole formula in the cloze: {{c1::\\(x^2\\)}}",
            )
        )


def _render(self: RendererHTML, tokens: Sequence[Token], idx: int, options: OptionsDict, env: EnvType) -> str:
    token = tokens[idx]
    if token.type == _OPEN:
        return f"\0o{int(token.meta['number'])}\0"
    return "\0h\0" if token.type == _HINT else "\0c\0"
