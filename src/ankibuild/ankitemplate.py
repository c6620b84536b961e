"""Anki's card template syntax, the part the card templates use, rendered strictly.

``{{Field}}`` inserts a field as it is (fields are HTML), ``{{#Field}}…{{/Field}}``
keeps its content only when the field is not empty, ``{{^Field}}…{{/Field}}``
only when it is, and ``{{FrontSide}}`` is one more field on the back. Anything
else, such as filters (``{{text:Field}}``), is an error, as is an unknown field:
the preview must show what Anki shows, or say why it cannot.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

from .errors import AnkibuildError

_TAG = re.compile(r"\{\{(.*?)\}\}", re.DOTALL)
#: What Anki counts as an empty field: only ASCII whitespace and line breaks or divs
#: (a no-break space or an empty paragraph makes a field non-empty).
_EMPTY = re.compile(r"(?:[ \t\n\r\f\v]|</?(?:br|div) ?/?>)*", re.IGNORECASE)


class TemplateError(AnkibuildError):
    """Raised when a template uses syntax the preview does not render, or an unknown field."""


@dataclass(frozen=True)
class _Field:
    name: str
    offset: int  # where the tag starts, for error messages


@dataclass(frozen=True)
class _Section:
    field: _Field
    inverted: bool
    body: tuple[_Node, ...]


_Node = str | _Field | _Section


def field_is_empty(text: str) -> bool:
    return _EMPTY.fullmatch(text) is not None


class Template:
    """A parsed template; ``name`` says which one in error messages."""

    def __init__(self, source: str, name: str) -> None:
        self.name = name
        self._source = source
        self._nodes = self._parse(0, "")[0]

    def render(self, fields: Mapping[str, str]) -> str:
        return "".join(self._render(self._nodes, fields))

    def _render(self, nodes: tuple[_Node, ...], fields: Mapping[str, str]) -> list[str]:
        out: list[str] = []
        for node in nodes:
            if isinstance(node, str):
                out.append(node)
            elif isinstance(node, _Field):
                out.append(self._value(node, fields))
            elif field_is_empty(self._value(node.field, fields)) == node.inverted:
                out.extend(self._render(node.body, fields))
        return out

    def _value(self, node: _Field, fields: Mapping[str, str]) -> str:
        if node.name not in fields:
            raise self._error(node.offset, f"unknown field '{node.name}' (fields are: {', '.join(fields)})")
        return fields[node.name]

    def _parse(self, start: int, section: str) -> tuple[tuple[_Node, ...], int, str]:
        """Nodes from ``start`` to the end, or to the tag closing ``section``; that tag's name."""
        nodes: list[_Node] = []
        position = start
        while (match := _TAG.search(self._source, position)) is not None:
            nodes.append(self._source[position : match.start()])
            position = match.end()
            tag = match.group(1).strip()
            kind, name = (tag[0], tag[1:].strip()) if tag[:1] in "#^/" else ("", tag)
            if kind == "/":
                if name != section:
                    raise self._error(match.start(), f"{{{{/{name}}}}} closes a section that is not open")
                return tuple(n for n in nodes if n), position, name
            if not re.fullmatch(r"[^#^/{}:]+", name):
                raise self._error(match.start(), f"{{{{{tag}}}}} is not supported by the preview (only fields)")
            if kind:
                body, position, closed = self._parse(position, name)
                if closed != name:
                    raise self._error(match.start(), f"section {{{{{tag}}}}} is never closed")
                nodes.append(_Section(_Field(name, match.start()), kind == "^", body))
            else:
                nodes.append(_Field(name, match.start()))
        nodes.append(self._source[position:])
        return tuple(n for n in nodes if n), len(self._source), ""

    def _error(self, offset: int, message: str) -> TemplateError:
        line = self._source.count("\n", 0, offset) + 1
        return TemplateError(f"{self.name}, line {line}: {message}")
