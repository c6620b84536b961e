"""Text of a format of elsewhere (Moodle's HTML, its own format, plain text) as Markdown that shows the same.

HTML becomes Markdown when it uses only paragraphs, line breaks, emphasis,
code (a ``<pre>`` block keeps every space) and images (``![alt](src)``, whose
file the importer then checks); any other element would be lost or changed,
and raises :class:`~.quiz.Refusal`. The text is scanned once, by hand.
"""

from __future__ import annotations

import html

from ..text.richtext import literal
from .quiz import Refusal

#: Markdown marks, escaped in text that HTML gave: they are the text's own characters. "[" is not among
#: them: the bank's "\[" opens a display formula; an escaped "]" alone keeps a "[...](...)" from linking.
_MARKS = "\\`*_]<>$|~#"


def as_markdown(text: str, form: str) -> str:
    """``text`` in its format (``html``, ``markdown``, ``plain``, or ``moodle``: plain that may hold HTML)."""
    if form == "markdown":
        return text
    if form == "html" or (form != "plain" and _looks_like_html(text)):
        return html_markdown(text)
    return literal(text)


def _looks_like_html(text: str) -> bool:
    """Moodle's own format lets HTML in: a tag such as ``<p>`` or ``</b>`` says the text is HTML."""
    index = text.find("<")
    while index != -1:
        following = text[index + 1 : index + 2]
        if following.isalpha() or following == "/":
            return True
        index = text.find("<", index + 1)
    return False


#: HTML elements and the Markdown they become (opening, closing); others are refused.
_INLINE = {"b": "**", "strong": "**", "i": "*", "em": "*"}
_BLOCKS = ("p", "div")
_IGNORED = ("span",)


def html_markdown(source: str) -> str:
    """HTML of paragraphs, line breaks, emphasis and code as Markdown that shows the same; other elements
    raise :class:`Refusal` (an image or a table would be lost)."""
    out: list[str] = []
    index = 0
    in_pre = in_code = False
    while index < len(source):
        opening = source.find("<", index)
        end = source.find(">", opening) if opening != -1 else -1
        if opening == -1 or end == -1:
            out.append(_html_text(source[index:], in_pre or in_code))
            break
        out.append(_html_text(source[index:opening], in_pre or in_code))
        tag = source[opening + 1 : end].strip()
        closing = tag.startswith("/")
        name = tag.lstrip("/").split(maxsplit=1)[0].rstrip("/").lower() if tag.lstrip("/") else ""
        if name == "img" and not (in_pre or in_code):
            out.append(_image(tag))
        else:
            in_pre, in_code = _element(out, name, closing, in_pre=in_pre, in_code=in_code)
        index = end + 1
    return _tidy("".join(out))


def _element(out: list[str], name: str, closing: bool, *, in_pre: bool, in_code: bool) -> tuple[bool, bool]:
    """Write the Markdown of one tag; whether code (a ``pre`` block, inline ``code``) is open after it."""
    if name == "pre":
        out.append("\n```\n" if closing else "\n\n```\n")
        return not closing, False
    if name == "code":
        if not in_pre:
            out.append("`")
        return in_pre, not closing and not in_pre
    if in_pre or name in _IGNORED:
        return in_pre, in_code
    if name == "br":
        out.append("\n")
    elif name in _BLOCKS:
        out.append("\n\n")
    elif name in _INLINE:
        out.append(_INLINE[name])
    else:
        raise Refusal(f"HTML the bank cannot show as written: <{name}>", "write it as text, or leave it out")
    return in_pre, in_code


def _image(tag: str) -> str:
    """An ``<img src="…" alt="…">`` as Markdown's image: the importer checks the file it names (Moodle's
    own files come with the question) as the bank checks every image."""
    attributes = attributes_of(tag)
    source = attributes.get("src", "")
    if not source or any(char.isspace() or char in "()<>" for char in source):
        raise Refusal(f"an image whose address the bank cannot link: '{source}'", "name the file without spaces")
    return f"![{_html_text(attributes.get('alt', ''), False).strip()}]({source})"


def attributes_of(tag: str) -> dict[str, str]:
    """A tag's attributes, ``name="value"``, ``name='value'`` or ``name=value``, by name; read in one pass."""
    found: dict[str, str] = {}
    index = tag.find(" ")
    while 0 <= index < len(tag):
        equals = tag.find("=", index)
        if equals == -1:
            break
        name = tag[index:equals].split()[-1].lower() if tag[index:equals].split() else ""
        quote = tag[equals + 1 : equals + 2]
        if quote in ('"', "'"):
            close = tag.find(quote, equals + 2)
            close = len(tag) if close == -1 else close
            value, index = tag[equals + 2 : close], close + 1
        else:
            close = tag.find(" ", equals + 1)
            close = len(tag) if close == -1 else close
            value, index = tag[equals + 1 : close], close
        found[name] = html.unescape(value)
    return found


def _html_text(text: str, code: bool) -> str:
    """Text between tags: entities decoded; outside code, spaces collapsed as HTML shows them and Markdown's
    marks escaped."""
    decoded = html.unescape(text)
    if code:
        return decoded
    collapsed = " ".join(decoded.split()) if decoded.strip() else (" " if decoded else "")
    if decoded[:1].isspace() and collapsed.strip():
        collapsed = " " + collapsed
    if decoded[-1:].isspace() and collapsed.strip():
        collapsed += " "
    return "".join(f"\\{char}" if char in _MARKS else char for char in collapsed)


def _tidy(markdown: str) -> str:
    """Paragraphs apart by one blank line, no spaces at their ends; code blocks exactly as they were (but for
    the line break HTML ignores right after ``<pre>``)."""
    lines: list[str] = []
    fenced = False
    for line in markdown.split("\n"):
        if line == "```":
            fenced = not fenced
            lines.append(line)
        elif fenced:
            if not (line == "" and lines[-1] == "```"):
                lines.append(line)
        elif line.strip() or (lines and lines[-1]):
            lines.append(line.strip())
    return "\n".join(lines).strip()


#: The longest entity reference CommonMark decodes (``&CounterClockwiseContourIntegral;``), and a margin.
_ENTITY = 40
#: HTML line breaks in Markdown from elsewhere, which the bank would show as typed.
_BREAKS = ("<br>", "<br/>", "<br />")


def commonmark_text(markdown: str) -> str:
    """Markdown written for CommonMark (GitHub), as the bank shows it alike: entity references (``&shy;``,
    ``&#8209;``) as their characters and ``<br>`` as a line break, outside code; the bank shows both as typed."""
    lines: list[str] = []
    fenced = False
    for line in markdown.split("\n"):
        if line.lstrip(" ").startswith(("```", "~~~")):
            fenced = not fenced
            lines.append(line)
        else:
            lines.append(line if fenced else _outside_code(line))
    return "\n".join(lines)


def _outside_code(line: str) -> str:
    """The parts of a line outside `code` spans decoded (an odd part between backticks is code)."""
    parts = line.split("`")
    return "`".join(part if index % 2 else _decoded(part) for index, part in enumerate(parts))


def _decoded(text: str) -> str:
    for brk in _BREAKS:
        text = text.replace(brk, "\n").replace(brk.upper(), "\n")
    out: list[str] = []
    index = 0
    while (amp := text.find("&", index)) != -1:
        end = text.find(";", amp, amp + _ENTITY)
        reference = text[amp : end + 1] if end != -1 else ""
        char = html.unescape(reference) if reference[1:-1].replace("#", "", 1).isalnum() else reference
        out += [text[index:amp], _escaped(char) if char != reference else "&"]
        index = end + 1 if char != reference else amp + 1
    return "".join([*out, text[index:]])


def _escaped(text: str) -> str:
    """Characters an entity stood for, escaped where Markdown would read them as marks."""
    return "".join(f"\\{char}" if char in _MARKS else char for char in text)
