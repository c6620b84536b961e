"""Cloze markers in a note's field, read the way Anki reads them.

A cloze note type has a card for each cloze number its fields hold, and its
templates show a field through the ``{{cloze:Field}}`` filter, which hides the
card's own cloze on the front (``[...]``, or ``[hint]``) and reveals it on the
back. This module reads a field's markers exactly as Anki does, to say which
cards a note has and how the preview shows each card:

- ``{{c`` then digits and commas then ``::`` opens a cloze (``{{c1,2::`` counts
  for cards 1 and 2); ``}}`` closes the innermost open one (elsewhere it is
  text); clozes nest, ten deep at most;
- inside a cloze, the first ``::`` of a stretch of text starts its hint;
- number 0 makes no card; a number above 500 makes card 500;
- the filter's output on the front keeps the hidden text in ``data-cloze``, and
  strips the HTML inside formulas (``\\(...\\)``, ``\\[...\\]``), keeping entities.

The texts ankibuild writes hold only the markers their authors wrote as clozes
(see :mod:`.richtext`); reading what Anki would read keeps the card count and
the preview true to Anki whatever a field holds.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

#: An opening marker; its numbers (deduplicated and sorted by Anki) are group 1.
_OPEN = re.compile(r"\{\{c([\d,]*)::")
_TOKEN = re.compile(r"\{\{c[\d,]*::|\}\}")
#: Anki keeps at most this many clozes open at once; deeper ones are dropped (their closers still close).
_DEPTH = 10
#: Anki gives a cloze number above this the card of this number.
MAX_CARD = 500
#: What opens a formula for MathJax, and what closes one (either kind closes either).
_MATHJAX_OPENER = re.compile(r"\\[(\[]")
_MATHJAX_CLOSER = re.compile(r"\\[)\]]")
#: A tag; a ``<`` ends the search for its ``>``, so that a text of ``<`` is read once.
_TAG = re.compile(r"<[^<>]*>")


@dataclass
class _Cloze:
    """A cloze as read: its numbers, what it holds (text and the clozes inside it), and its hint."""

    numbers: tuple[int, ...]
    nodes: list[str | _Cloze] = field(default_factory=list)
    hint: str | None = None

    def clozed_text(self) -> str:
        return "".join(node if isinstance(node, str) else node.clozed_text() for node in self.nodes)


def _numbers(written: str) -> tuple[int, ...] | None:
    numbers = sorted({int(part) for part in written.split(",") if part})
    return tuple(numbers) or None


def _parse(text: str) -> list[str | _Cloze]:
    """The field as text and clozes, nested as Anki nests them."""
    output: list[str | _Cloze] = []
    open_clozes: list[_Cloze] = []
    position = 0
    for match in _TOKEN.finditer(text):
        opener = _OPEN.fullmatch(match.group())
        numbers = _numbers(opener.group(1)) if opener else None
        if opener and numbers is None:
            continue  # "{{c,::" opens nothing: it stays text
        _text(text[position : match.start()], open_clozes, output)
        position = match.end()
        if numbers is not None:
            if len(open_clozes) < _DEPTH:
                open_clozes.append(_Cloze(numbers))
        elif open_clozes:
            closed = open_clozes.pop()
            (open_clozes[-1].nodes if open_clozes else output).append(closed)
        else:
            output.append("}}")
    _text(text[position:], open_clozes, output)
    return output


def _text(text: str, open_clozes: list[_Cloze], output: list[str | _Cloze]) -> None:
    if not text:
        return
    if not open_clozes:
        output.append(text)
        return
    cloze = open_clozes[-1]
    if not text.startswith("image-occlusion:") and "::" in text:
        text, cloze.hint = text.split("::", 1)
    cloze.nodes.append(text)


def cloze_numbers(text: str) -> set[int]:
    """The cloze numbers of a field, 0 left out: each makes a card."""
    found: set[int] = set()
    nodes = _parse(text)
    while nodes:
        node = nodes.pop()
        if isinstance(node, _Cloze):
            found.update(number for number in node.numbers if number)
            nodes.extend(node.nodes)
    return found


@dataclass(frozen=True)
class Gap:
    """A cloze as a platform asks it: what it hides (HTML, without the markers of clozes inside it), and
    its hint (None: none)."""

    hidden: str
    hint: str | None


def gaps(text: str) -> list[str | Gap]:
    """A field as text and gaps: each outermost cloze is one gap, whatever its numbers (a platform
    asks every gap of a text at once, where Anki makes a card per number)."""
    return [node if isinstance(node, str) else Gap(node.clozed_text(), node.hint) for node in _parse(text)]


def card_ords(fields: Sequence[str]) -> tuple[int, ...]:
    """The cards Anki generates for a cloze note with these fields: each number's ``ord`` (number - 1)."""
    numbers = set().union(*(cloze_numbers(text) for text in fields))
    return tuple(sorted({min(number, MAX_CARD) - 1 for number in numbers}))


def cloze_filter(text: str, card_ord: int, question: bool) -> str:
    """What ``{{cloze:Field}}`` shows of ``text`` on card ``card_ord``'s front (``question``) or back.

    Empty when the field has no cloze of that card, as in Anki.
    """
    number = card_ord + 1
    out: list[str] = []
    found = False
    for node in _parse(text):
        if isinstance(node, str):
            out.append(node)
        else:
            found |= _reveal(node, number, question, out=out)
    if not found:
        return ""
    return _untagged_formulas("".join(out))


def _untagged_formulas(text: str) -> str:
    """``text`` without tags inside its formulas (a cloze's spans), as MathJax needs to read them.

    A formula ends at the first closer after its opener; once an opener has
    none, no later one has, and the rest of the text is left as it is.
    """
    parts: list[str] = []
    done = 0
    while (opener := _MATHJAX_OPENER.search(text, done)) is not None:
        closer = _MATHJAX_CLOSER.search(text, opener.end())
        if closer is None:
            break
        parts += [text[done : opener.end()], _TAG.sub("", text[opener.end() : closer.start()]), closer.group()]
        done = closer.end()
    parts.append(text[done:])
    return "".join(parts)


_NAMED = {"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;"}


def _attribute(text: str) -> str:
    """An attribute value escaped as Anki escapes ``data-cloze``: every character below 256 but ASCII letters
    and digits, most as ``&#xHH;``."""
    return "".join(
        character
        if ord(character) > 0xFF or (character.isascii() and character.isalnum())
        else _NAMED.get(character, f"&#x{ord(character):02X};")
        for character in text
    )


def _reveal(cloze: _Cloze, number: int, question: bool, *, out: list[str]) -> bool:
    """Writes one cloze as the card shows it; whether it, or one inside it, is the card's."""
    active = number in cloze.numbers
    ordinals = ",".join(map(str, cloze.numbers))
    inner: list[str] = []
    found = active
    for node in cloze.nodes:
        if isinstance(node, str):
            inner.append(node)
        else:
            found |= _reveal(node, number, question, out=inner)
    content = "".join(inner)
    if question and active:
        hidden = _attribute(content)
        hint = cloze.hint if cloze.hint is not None else "..."
        out.append(f'<span class="cloze" data-cloze="{hidden}" data-ordinal="{ordinals}">[{hint}]</span>')
    else:
        css = "cloze" if active else "cloze-inactive"
        out.append(f'<span class="{css}" data-ordinal="{ordinals}">{content}</span>')
    return found
