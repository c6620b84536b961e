"""What an SVG image of a bank may contain: a picture, and nothing that runs or fetches.

An SVG file is a document: it can hold scripts, event handlers, embedded HTML
and references to other files or addresses. Anki shows it through ``<img>``,
where browsers run none of that, but the file also lands in every classmate's
media folder, where anything may open it. So an image is refused when it holds:

- a ``<script>``, ``<foreignObject>`` (HTML inside), ``<iframe>``, ``<embed>``,
  ``<object>``, ``<handler>`` or ``<listener>`` element;
- an event handler attribute (``onload``, ``onclick`` ...);
- a reference (``href``, ``xlink:href``, ``src``, CSS ``url()``) to anything
  but a part of the image itself (``#id``) or a PNG, JPEG, GIF or WebP image
  written into it (``data:image/png;base64,...``); or a CSS ``@import``;
- a document type or entity declaration, or a stylesheet processing
  instruction (which could fetch a file or expand without end).

The check parses the file once, in time linear in its size.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from xml.etree.ElementTree import Element

#: Elements that run code, hold HTML or embed another document.
_ACTIVE = frozenset({"script", "foreignobject", "iframe", "embed", "object", "handler", "listener"})
_REFERENCES = frozenset({"href", "src"})
#: Inside the image, or a raster image written into it.
_SAFE_TARGET = re.compile(r"\s*(#|data:image/(png|jpeg|gif|webp)[;,])", re.IGNORECASE)
_CSS_REFERENCE = re.compile(r"url\(\s*['\"]?(?!#|data:image/(png|jpeg|gif|webp)[;,])|@import", re.IGNORECASE)
_DECLARATIONS = re.compile(r"<!DOCTYPE|<!ENTITY|<\?xml-stylesheet", re.IGNORECASE)


def svg_refusal(content: bytes) -> str | None:
    """Why the SVG image ``content`` may not be packaged, or None."""
    try:
        # Read as UTF-8 whatever it declares: a declaration in another encoding cannot hide from the search.
        text = content.decode("utf-8-sig")
    except UnicodeDecodeError:
        return "is not UTF-8 text"
    if _DECLARATIONS.search(text):
        return "holds a document type, entity or stylesheet declaration"
    from xml.etree import ElementTree  # loaded only for a bank with SVG images

    try:
        root = ElementTree.fromstring(text)
    except ElementTree.ParseError as err:
        return f"is not well-formed XML ({err})"
    for element in root.iter():
        reason = _element_refusal(element)
        if reason:
            return reason
    return None


def _local(name: str) -> str:
    """A tag or attribute name without its namespace, in lower case."""
    return name.rsplit("}", 1)[-1].lower()


def _element_refusal(element: Element) -> str | None:
    tag = _local(str(element.tag))
    if tag in _ACTIVE:
        return f"holds a <{tag}> element"
    if tag == "style" and _CSS_REFERENCE.search(element.text or ""):
        return "has a style that loads another file or address"
    for name, value in element.attrib.items():
        attribute = _local(name)
        if attribute.startswith("on"):
            return f"has an event handler ({attribute})"
        if attribute in _REFERENCES and not _SAFE_TARGET.match(value):
            return f'refers to another file or address ({attribute}="{value[:60]}")'
        if attribute == "style" and _CSS_REFERENCE.search(value):
            return "has a style that loads another file or address"
    return None
