"""Text put into the Markdown a class publishes (changelog, release notes, job summary): on one line, as typed.

Names and messages can come from anyone's file: a deck title, a package
published before, a file name in a pull request. Nothing such a text holds may
start a line, open a link or HTML, or close the code span it is shown in.
"""

from __future__ import annotations

import re
import unicodedata

#: Characters that end a line for Markdown, git or an editor, and the other control characters.
_BREAKS = frozenset(("Cc", "Zl", "Zp"))
_BACKTICKS = re.compile("`+")
#: What Markdown reads as a link, an image, HTML, an entity, emphasis, a table cell or an escape.
_MARKUP = re.compile(r"([\\`*_\[\]<>&!|~])")


def one_line(text: str) -> str:
    """``text`` with each control character and line break written as an escape: it cannot start a line."""
    return "".join(f"\\u{ord(char):04x}" if unicodedata.category(char) in _BREAKS else char for char in text)


def visible(text: str) -> str:
    """``text`` with every character a reader cannot see (format, private, unassigned ones too) as an escape."""
    return "".join(char if char.isprintable() or char == " " else f"\\u{ord(char):04x}" for char in text)


def plain(text: str) -> str:
    """``text`` on one line, each character Markdown would read as markup escaped: it shows as written."""
    return _MARKUP.sub(r"\\\1", one_line(text))


def code_span(text: str) -> str:
    """``text`` as Markdown inline code on one line, shown as it is whatever it holds."""
    shown = one_line(text)
    fence = "`" * (max((len(run) for run in _BACKTICKS.findall(shown)), default=0) + 1)
    # Markdown takes one space off each side of code that starts and ends with one: a space is added for it.
    edged = not shown.strip(" ") or shown[0] == "`" or shown[-1] == "`" or shown[0] == shown[-1] == " "
    return f"{fence} {shown} {fence}" if edged else f"{fence}{shown}{fence}"
