"""What every export format needs of a rendered text (the images it shows, its plain text), and an XML file."""

from __future__ import annotations

import html
import re
import xml.etree.ElementTree as ET
from collections.abc import Callable

#: An image the build rendered (a bank's own ``<img`` is escaped text, never this).
_IMAGE = re.compile(r'(<img src=")([^"]*)(")')
_TAG = re.compile(r"<[^<>]*>")  # no "<" inside: a run of them is read once
#: Tags that end a line or a block: a space in plain text, where an inline tag is nothing.
_BREAK = re.compile(r"<(?:br|/p|/li|/div|/pre|/t[dh]|/h[1-6])\b[^<>]*>", re.IGNORECASE)  # as _TAG: no "<" inside


def images(text: str) -> list[str]:
    """The packaged names of the images a rendered text shows, in order, each once."""
    return list(dict.fromkeys(html.unescape(match.group(2)) for match in _IMAGE.finditer(text)))


def relink(text: str, link: Callable[[str], str]) -> str:
    """The text with each image's address made ``link(name)``: where the platform keeps the file."""
    return _IMAGE.sub(lambda m: m.group(1) + html.escape(link(html.unescape(m.group(2)))) + m.group(3), text)


def plain(text: str) -> str:
    """A rendered text as a student types it: without markup, entities read, spaces collapsed."""
    return " ".join(html.unescape(_TAG.sub("", _BREAK.sub(" ", text))).split())


def xml_document(root: ET.Element) -> bytes:
    """An XML file of ``root``, indented, in UTF-8: the same element gives the same bytes."""
    ET.indent(root)
    return ('<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n").encode()
