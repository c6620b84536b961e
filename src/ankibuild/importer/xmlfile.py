"""Reading a quiz file's XML safely, with the line each question starts on.

Moodle XML and QTI are read by defusedxml's parser: a document type, an
entity or an external reference refuses the whole file, since a quiz file
never needs one and each can make a small file expand or reach outside it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any
from xml.etree.ElementTree import Element, ParseError, TreeBuilder

from defusedxml import DefusedXmlException
from defusedxml.ElementTree import DefusedXMLParser

from ..errors import Problems

#: Where each question element starts, kept on it under this attribute (no XML name can hold a space).
LINE = "line number"


class _Lines(TreeBuilder):
    """A tree builder that drops namespaces from tags and notes the line each question element starts on."""

    def __init__(self, question: str) -> None:
        super().__init__()
        self.question = question
        self.parser: Any = None

    def start(self, tag: str, attrs: dict[str, str]) -> Element:
        # Files use a namespace or none; the tags' local names are what the readers ask for.
        local = tag.rsplit("}", 1)[-1]
        element = super().start(local, attrs)
        if local == self.question and self.parser is not None:
            element.set(LINE, str(self.parser.parser.CurrentLineNumber))
        return element


def parse_xml(path: Path, text: str, problems: Problems, *, question: str, again: str) -> Element | None:
    """The document's root, each ``question`` element with its :data:`LINE`; None with the reason
    reported (the whole file is refused). ``again`` is the hint for a file declaring a document type."""
    builder = _Lines(question)
    parser = DefusedXMLParser(target=builder, forbid_dtd=True, forbid_entities=True, forbid_external=True)
    builder.parser = parser
    try:
        parser.feed(text)
        root: Element = parser.close()
    except DefusedXmlException:
        problems.add(path, "the XML declares a document type or an entity, which is never read", hint=again)
        return None
    except ParseError as err:
        line, column = err.position
        problems.add(path, f"not well-formed XML: {err.msg}", line=line, column=column + 1, hint="fix the XML there")
        return None
    return root
