"""Anki's card template syntax, the part ankibuild's templates may use: one parser for check, build and preview.

``{{Field}}`` inserts a field as it is (fields are HTML), ``{{#Field}}…{{/Field}}``
keeps its content only when the field is not empty, ``{{^Field}}…{{/Field}}``
only when it is, and ``{{FrontSide}}`` is one more field on the back. A cloze
note type's templates show its text with ``{{cloze:Field}}`` (see
:mod:`.clozes`), which each of them must use, as Anki asks of the front. Anki
accepts more (other filters such as ``{{text:Field}}`` or ``{{type:cloze:Field}}``,
changed delimiters); the preview could not show what Anki shows for those, so
they are refused here, which makes ``check``, ``build`` and ``preview`` refuse
them alike, naming the template's file and line.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping
from dataclasses import dataclass

from ..errors import AnkibuildError
from ..text.clozemarkers import cloze_filter

_TAG = re.compile(r"\{\{(.*?)\}\}", re.DOTALL)
#: A field's name as Anki allows it: no braces, no '#', '^', '/' first, no ':' (a filter).
_NAME = re.compile(r"[^#^/{}:!=\s][^{}:]*")
#: What Anki counts as an empty field: only ASCII whitespace and line breaks or divs
#: (a no-break space or an empty paragraph makes a field non-empty).
_EMPTY = re.compile(r"(?:[ \t\n\r\f\v]|</?(?:br|div) ?/?>)*", re.IGNORECASE)
#: Fields Anki fills in itself; a template may use them beside a note type's own.
SPECIAL_FIELDS = ("FrontSide", "Tags", "Type", "Deck", "Subdeck", "Card", "CardFlag", "CardID")
_SYNTAX = "write {{Field}}, {{#Field}}…{{/Field}} or {{^Field}}…{{/Field}}"
#: The one filter ankibuild renders, on cloze note types only.
_CLOZE = "cloze:"


class TemplateError(AnkibuildError):
    """Raised when a template that was never checked uses syntax ankibuild does not render."""


@dataclass(frozen=True)
class Issue:
    """A reason Anki (or the preview) could not show a template as written; ``offset`` is where, in characters."""

    offset: int
    message: str
    hint: str


@dataclass(frozen=True)
class _Field:
    name: str
    #: Shown through the cloze filter.
    cloze: bool = False


@dataclass(frozen=True)
class _Section:
    field: _Field
    inverted: bool
    body: tuple[_Node, ...]


_Node = str | _Field | _Section


def field_is_empty(text: str) -> bool:
    return _EMPTY.fullmatch(text) is not None


class _Parser:
    """Reads a template once, into nodes, noting every issue rather than stopping at the first."""

    def __init__(self, source: str, fields: Collection[str], cloze: bool) -> None:
        self.source = source
        self.fields = fields
        self.cloze = cloze
        self.issues: list[Issue] = []

    def nodes(self) -> tuple[_Node, ...]:
        nodes, _, _ = self._until(0, None)
        self._stray_braces()
        if self.cloze and not _shows_cloze(nodes):
            # Anki shows an error instead of the front of a cloze card whose template has no cloze
            # filter; a back without one would show the text unrevealed.
            hint = "show the text with {{cloze:Field}}, e.g. {{cloze:Text}}"
            self.issues.append(Issue(0, "a cloze card's template must show its text with the cloze filter", hint))
        return nodes

    def _until(self, start: int, section: re.Match[str] | None) -> tuple[tuple[_Node, ...], int, bool]:
        """Nodes from ``start`` to the end, or to the tag that closes ``section``; whether that tag was found."""
        nodes: list[_Node] = []
        position = start
        while (match := _TAG.search(self.source, position)) is not None:
            nodes.append(self.source[position : match.start()])
            position = match.end()
            tag = match.group(1).strip()
            if tag.startswith("/"):
                if section is not None and tag[1:].strip() == _name(section):
                    return tuple(n for n in nodes if n), position, True
                self._closes_nothing(match, section)
            elif tag[:1] in ("#", "^"):
                body, position, closed = self._until(position, match)
                if not closed:
                    hint = f"add {{{{/{_name(match)}}}}}"
                    self.issues.append(Issue(match.start(), f"section {{{{{tag}}}}} is never closed", hint))
                nodes.append(_Section(self._field(match), tag[0] == "^", body))
            else:
                nodes.append(self._field(match))
        nodes.append(self.source[position:])
        return tuple(n for n in nodes if n), len(self.source), False

    def _field(self, match: re.Match[str]) -> _Field:
        tag = match.group(1).strip()
        cloze = tag.startswith(_CLOZE) and self.cloze
        name = tag[len(_CLOZE) :].strip() if cloze else _name(match)
        if tag.startswith(_CLOZE) and not self.cloze:
            hint = "the cloze filter shows a cloze note type's text: use it in a cloze kind's templates"
            self.issues.append(Issue(match.start(), f"{{{{{tag}}}}} is only for cloze cards", hint))
        elif not _NAME.fullmatch(name) or (":" in tag and not cloze):
            syntax = f"{_SYNTAX}, and {{{{cloze:Field}}}} on cloze cards" if self.cloze else _SYNTAX
            hint = f"ankibuild shows fields and sections only, as the preview renders them: {syntax}"
            self.issues.append(Issue(match.start(), f"{{{{{tag}}}}} is not supported", hint))
        elif name not in self.fields:
            hint = f"fields are: {', '.join(self.fields)}"
            self.issues.append(Issue(match.start(), f"unknown field '{name}' in {{{{{tag}}}}}", hint))
        return _Field(name, cloze)

    def _closes_nothing(self, match: re.Match[str], section: re.Match[str] | None) -> None:
        expected = f"{{{{/{_name(section)}}}}}" if section is not None else "nothing to close"
        message = f"{{{{{match.group(1).strip()}}}}} closes a section that is not open"
        self.issues.append(Issue(match.start(), message, f"expected {expected}"))

    def _stray_braces(self) -> None:
        """A ``{{`` that no ``}}`` closes would show as a template error on every card."""
        stray = _TAG.sub(lambda match: " " * len(match.group(0)), self.source).find("{{")
        if stray != -1:
            self.issues.append(Issue(stray, "'{{' is never closed", "write {{Field}} with two braces on each side"))


def _shows_cloze(nodes: tuple[_Node, ...]) -> bool:
    return any(
        (isinstance(node, _Field) and node.cloze) or (isinstance(node, _Section) and _shows_cloze(node.body))
        for node in nodes
    )


def _name(match: re.Match[str]) -> str:
    """The field a tag names: ``{{#A}}`` and ``{{ A }}`` both name ``A``."""
    tag = match.group(1).strip()
    return tag[1:].strip() if tag[:1] in ("#", "^", "/") else tag


def check(source: str, fields: Collection[str], *, cloze: bool = False) -> list[Issue]:
    """Every issue of a template whose fields are ``fields`` (of a cloze note type if ``cloze``), in order."""
    parser = _Parser(source, fields, cloze)
    parser.nodes()
    return sorted(parser.issues, key=lambda issue: issue.offset)


class Template:
    """A template, parsed and checked once; ``name`` says which one in error messages."""

    def __init__(self, source: str, name: str, fields: Collection[str], *, cloze: bool = False) -> None:
        parser = _Parser(source, fields, cloze)
        self._nodes = parser.nodes()
        if parser.issues:
            first = min(parser.issues, key=lambda issue: issue.offset)
            line = source.count("\n", 0, first.offset) + 1
            raise TemplateError(f"{name}, line {line}: {first.message}")

    def render(self, fields: Mapping[str, str], *, card_ord: int = 0, question: bool = True) -> str:
        """The side of card ``card_ord`` (its place among the note type's cards, or its cloze number - 1):
        the front when ``question``, the back otherwise."""
        return "".join(self._render(self._nodes, fields, card_ord, question))

    def _render(self, nodes: tuple[_Node, ...], fields: Mapping[str, str], card_ord: int, question: bool) -> list[str]:
        out: list[str] = []
        for node in nodes:
            if isinstance(node, str):
                out.append(node)
            elif isinstance(node, _Field):
                text = fields[node.name]
                out.append(cloze_filter(text, card_ord, question) if node.cloze else text)
            elif field_is_empty(fields[node.field.name]) == node.inverted:
                out.extend(self._render(node.body, fields, card_ord, question))
        return out
