"""Split a Moodle XML file in every language back into one file per language.

ankibuild's export for every language, like Moodle's *Multi-language content*
filter, writes each text as a run of spans, one per language::

    <span lang="en" class="multilang">Which?</span><span lang="he" class="multilang">איזה?</span>

Each language's copy of the document keeps, in every ``<text>``, its own span's
content; a text that is not such a run (a name, a category) stays as it is. A
span may hold spans of its own: the run is read by counting them, once over the
text, so a text takes time in proportion to its length.
"""

from __future__ import annotations

from copy import deepcopy
from xml.etree.ElementTree import Element

from .htmltext import attributes_of

_MARK = 'class="multilang"'


def languages(root: Element) -> list[str]:
    """The languages of the first text written as a run of spans, in its order; [] for a file in one."""
    for text in root.iter("text"):
        run = _run(text.text or "") if _MARK in (text.text or "") else None
        if run:
            return [lang for lang, _ in run]
    return []


def in_language(root: Element, lang: str) -> Element:
    """A copy of the document with each text in ``lang`` alone ("" where the run has none)."""
    copy = deepcopy(root)
    for text in copy.iter("text"):
        run = _run(text.text or "") if _MARK in (text.text or "") else None
        if run is not None:
            text.text = dict(run).get(lang, "")
    return copy


def _run(text: str) -> list[tuple[str, str]] | None:
    """Each span's language and content, when ``text`` is nothing but multilang spans; else None."""
    found: list[tuple[str, str]] = []
    index = 0
    while index < len(text):
        if text[index].isspace():
            index += 1
            continue
        end = text.find(">", index)
        if not text.startswith("<span", index) or end == -1:
            return None
        attributes = attributes_of(text[index + 1 : end])
        if attributes.get("class") != "multilang" or not attributes.get("lang"):
            return None
        close = _closing(text, end + 1)
        if close == -1:
            return None
        found.append((attributes["lang"], text[end + 1 : close]))
        index = close + len("</span>")
    return found or None


def _closing(text: str, start: int) -> int:
    """Where the ``</span>`` that closes a span opened before ``start`` is, spans within counted; or -1.
    Each next opening and closing is searched for once, from past the last, so the text is read once."""
    depth = 1
    opening = text.find("<span", start)
    closing = text.find("</span>", start)
    while closing != -1:
        if opening != -1 and opening < closing:
            depth += 1
            opening = text.find("<span", opening + 1)
            continue
        depth -= 1
        if depth == 0:
            return closing
        closing = text.find("</span>", closing + 1)
    return -1
