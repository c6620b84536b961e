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

#: A field's name as Anki allows it: no braces, no '#', '^', '/' first, no ':' (a filter).
_NAME = re.compile(r"[^#^/{}:!=\s][^{}:]*")
#: What Anki counts as an empty field: only ASCII whitespace and line breaks or divs
#: (a no-break space or an empty paragraph makes a field non-empty).
_EMPTY = re.compile(r"(?:[ \t\n\r\f\v]|</?(?:br|div) ?/?>)*", re.IGNORECASE)
#: Fields Anki fills in itself; a template may use them beside a note type's own.
#: Sections (``{{#Field}}``, ``{{^Field}}``) may hold one another this deep: Anki's own
#: templates use two or three levels, and rendering recurses once per level.
MAX_SECTIONS = 32
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
    """A field a card template shows (``{{Name}}``, or ``{{cloze:Name}}``) or a section tests."""

    name: str
    #: Shown through the cloze filter.
    cloze: bool = False


@dataclass(frozen=True)
class _Section:
    """A part of a card template shown when its field is filled (``{{#Name}}``), or when it is empty
    (``{{^Name}}``, ``inverted``)."""

    field: _Field
    inverted: bool
    body: tuple[_Node, ...]


_Node = str | _Field | _Section


def field_is_empty(text: str) -> bool:
    return _EMPTY.fullmatch(text) is not None


@dataclass(frozen=True)
class _Tag:
    """``{{...}}`` in a template: where it starts and ends, and what is between the braces, stripped."""

    start: int
    end: int
    text: str

    @property
    def name(self) -> str:
        """The field a tag names: ``{{#A}}`` and ``{{ A }}`` both name ``A``."""
        return self.text[1:].strip() if self.text[:1] in ("#", "^", "/") else self.text


def _tags(source: str) -> tuple[list[_Tag], int]:
    """Every tag in order, and where a ``{{`` that nothing closes starts (-1 if none).

    A tag closes at the first ``}}`` after its ``{{``. Once a ``{{`` has no ``}}``
    after it, no later one has: the source is read once, however it is written.
    """
    tags: list[_Tag] = []
    position = 0
    while (opening := source.find("{{", position)) != -1:
        closing = source.find("}}", opening + 2)
        if closing == -1:
            return tags, opening
        tags.append(_Tag(opening, closing + 2, source[opening + 2 : closing].strip()))
        position = closing + 2
    return tags, -1


class _Parser:
    """Reads a template once, into nodes, noting every issue rather than stopping at the first.

    Sections are kept on a list, not on Python's stack: however deeply a template
    nests them, reading it never recurses (a depth beyond :data:`MAX_SECTIONS` is an issue).
    """

    def __init__(self, source: str, fields: Collection[str], cloze: bool) -> None:
        self.source = source
        self.fields = fields
        self.cloze = cloze
        self.issues: list[Issue] = []

    def nodes(self) -> tuple[_Node, ...]:
        tags, stray = _tags(self.source)
        nodes = self._read(tags)
        if stray != -1:  # Anki would show a template error on every card
            self.issues.append(Issue(stray, "'{{' is never closed", "write {{Field}} with two braces on each side"))
        if self.cloze and not _shows_cloze(nodes):
            # Anki shows an error instead of the front of a cloze card whose template has no cloze
            # filter; a back without one would show the text unrevealed.
            hint = "show the text with {{cloze:Field}}, e.g. {{cloze:Text}}"
            self.issues.append(Issue(0, "a cloze card's template must show its text with the cloze filter", hint))
        return nodes

    def _read(self, tags: list[_Tag]) -> tuple[_Node, ...]:
        """The nodes of the whole template: each section's tag and its parent's nodes wait on ``open``."""
        current: list[_Node] = []
        open: list[tuple[_Tag, list[_Node]]] = []
        position = 0
        for tag in tags:
            current.append(self.source[position : tag.start])
            position = tag.end
            if tag.text.startswith("/"):
                if open and tag.name == open[-1][0].name:
                    current = self._close(*open.pop(), current)
                else:
                    self._closes_nothing(tag, open[-1][0] if open else None)
            elif tag.text[:1] in ("#", "^"):
                if len(open) == MAX_SECTIONS:
                    hint = "close a section before the next one opens: a card needs a few levels at most"
                    self.issues.append(Issue(tag.start, f"sections nested more than {MAX_SECTIONS} deep", hint))
                open.append((tag, current))
                current = []
            else:
                current.append(self._field(tag))
        current.append(self.source[position:])
        while open:
            tag, parent = open.pop()
            self.issues.append(
                Issue(tag.start, f"section {{{{{tag.text}}}}} is never closed", f"add {{{{/{tag.name}}}}}")
            )
            current = self._close(tag, parent, current)
        return _kept(current)

    def _close(self, tag: _Tag, parent: list[_Node], body: list[_Node]) -> list[_Node]:
        """``parent``, the section ``tag`` opened with ``body`` added."""
        parent.append(_Section(self._field(tag), tag.text[0] == "^", _kept(body)))
        return parent

    def _field(self, tag: _Tag) -> _Field:
        cloze = tag.text.startswith(_CLOZE) and self.cloze
        name = tag.text[len(_CLOZE) :].strip() if cloze else tag.name
        if tag.text.startswith(_CLOZE) and not self.cloze:
            hint = "the cloze filter shows a cloze note type's text: use it in a cloze kind's templates"
            self.issues.append(Issue(tag.start, f"{{{{{tag.text}}}}} is only for cloze cards", hint))
        elif not _NAME.fullmatch(name) or (":" in tag.text and not cloze):
            syntax = f"{_SYNTAX}, and {{{{cloze:Field}}}} on cloze cards" if self.cloze else _SYNTAX
            hint = f"ankibuild shows fields and sections only, as the preview renders them: {syntax}"
            self.issues.append(Issue(tag.start, f"{{{{{tag.text}}}}} is not supported", hint))
        elif name not in self.fields:
            hint = f"fields are: {', '.join(self.fields)}"
            self.issues.append(Issue(tag.start, f"unknown field '{name}' in {{{{{tag.text}}}}}", hint))
        return _Field(name, cloze)

    def _closes_nothing(self, tag: _Tag, section: _Tag | None) -> None:
        expected = f"{{{{/{section.name}}}}}" if section is not None else "nothing to close"
        message = f"{{{{{tag.text}}}}} closes a section that is not open"
        self.issues.append(Issue(tag.start, message, f"expected {expected}"))


def _kept(nodes: list[_Node]) -> tuple[_Node, ...]:
    return tuple(node for node in nodes if node)


def _shows_cloze(nodes: tuple[_Node, ...]) -> bool:
    waiting = list(nodes)
    while waiting:
        node = waiting.pop()
        if isinstance(node, _Field) and node.cloze:
            return True
        if isinstance(node, _Section):
            waiting.extend(node.body)
    return False


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
        return "".join(self._render(self._nodes, fields, card_ord, question=question))

    def _render(
        self, nodes: tuple[_Node, ...], fields: Mapping[str, str], card_ord: int, *, question: bool
    ) -> list[str]:
        # Only the preview renders cards: a build checks its templates, and needs no cloze reader for that.
        from ..text.clozemarkers import cloze_filter

        out: list[str] = []
        for node in nodes:
            if isinstance(node, str):
                out.append(node)
            elif isinstance(node, _Field):
                text = fields[node.name]
                out.append(cloze_filter(text, card_ord, question) if node.cloze else text)
            elif field_is_empty(fields[node.field.name]) == node.inverted:
                out.extend(self._render(node.body, fields, card_ord, question=question))
        return out
