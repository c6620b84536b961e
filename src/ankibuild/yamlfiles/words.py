"""YAML in the words of someone writing questions: its complaints, and its surprises.

The parser says *what* it could not read ("mapping values are not allowed in
this context"); a writer needs to know *why* their line reads that way and what
to type instead. Each explanation names the line, says what YAML made of it and
shows the fix; the parser's own words are kept as the detail.

Some mistakes YAML reads without complaint, into something else than what was
meant: a list item indented too far joins the item above, text after `` #``
vanishes as a comment, a question without its ``- `` merges into the one above.
Those are named too, where the raw lines show them.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import yaml

#: ``key: value`` at the start of a line, possibly as a list item.
_KEY = re.compile(r"^(?P<indent> *)(?P<dash>- +)?(?P<key>[^\s:#'\"\[\]{},&*!|>%@`-][^:#]*?):(?: +|$)")
#: Characters that cannot start unquoted text (``@`` and backquote are reserved by YAML).
_RESERVED_START = "@`"


@dataclass(frozen=True)
class Explained:
    """A parser error as the writer should read it."""

    message: str
    hint: str
    line: int
    column: int
    detail: str


def explain(err: yaml.MarkedYAMLError, text: str, lines: Sequence[str]) -> Explained:
    """The writer's words for ``err``, raised while parsing ``text``, whose lines as YAML counts them are ``lines``."""
    line, column = _position(err, text)
    at = _Where(str(err.problem), str(err.context), err, lines, line, column)
    for explainer in _EXPLAINERS:
        found = explainer(at)
        if found is not None:
            return Explained(*found, _parser_words(err))
    message = f"YAML cannot read this: {err.problem or err.context}"
    return Explained(message, _GENERIC_HINT, line, column, _parser_words(err))


@dataclass(frozen=True)
class _Where:
    """A parser error with the file's lines around it."""

    problem: str
    context: str
    err: yaml.MarkedYAMLError
    lines: Sequence[str]
    line: int
    column: int

    @property
    def row(self) -> str:
        """The text of the error's line."""
        return self.lines[self.line - 1] if 0 < self.line <= len(self.lines) else ""


_GENERIC_HINT = "check the indentation, colons and quotes on this line and the one before"


def _parser_words(err: yaml.MarkedYAMLError) -> str:
    words = f"{err.problem}" if err.problem else f"{err.context}"
    if err.context and err.problem and err.context_mark is not None:
        where = f"line {err.context_mark.line + 1}, column {err.context_mark.column + 1}"
        words = f"{err.context} ({where}): {err.problem}"
    return f"YAML: {words}"


def _position(err: yaml.MarkedYAMLError, text: str) -> tuple[int, int]:
    """Where to look: the problem, unless it is the end of the file (an unclosed quote or
    bracket), then where the unfinished thing began."""
    mark = err.problem_mark
    if mark is None or (mark.index >= len(text.rstrip()) and err.context_mark is not None):
        mark = err.context_mark
    return (mark.line + 1, mark.column + 1) if mark is not None else (0, 0)


_Found = tuple[str, str, int, int] | None


def _indent(row: str) -> int:
    return len(row) - len(row.lstrip(" "))


def _colon(at: _Where) -> _Found:
    """``mapping values are not allowed``: a ``: `` inside text, or a key indented too far."""
    if "mapping values are not allowed" not in at.problem:
        return None
    key = _KEY.match(at.row)
    above = _line_above(at.lines, at.line)
    if key and key.end("key") + 1 == at.column and above is not None:
        found = _KEY.match(at.lines[above - 1])
        if found and _indent(at.row) > found.start("key"):
            name, expected = key.group("key"), found.start("key") + 1
            message = (
                f"'{name}:' is indented more than '{found.group('key')}:' on line {above}, "
                "so YAML reads this line as more of the text above"
            )
            hint = f"start '{name}:' at column {expected}, like '{found.group('key')}:'"
            return message, hint, at.line, key.start("key") + 1
    shown = at.row.strip()
    message = f"a ': ' inside unquoted text, which YAML reads as a new key: {shown}"
    return message, _quote_hint(at.row, key), at.line, at.column


def _quote_hint(row: str, key: re.Match[str] | None) -> str:
    """How to write the line's text so that YAML takes it as it is: in quotes."""
    if key is None or not row[key.end() :].strip():
        return "put the whole text in quotes, or write it as a block: 'key: >-' with the text on the lines below"
    value = row[key.end() :].strip()
    # Single quotes keep all but themselves (doubled); double quotes read as typed where no '"' or '\\' is inside
    plain = "'" in value and not {'"', "\\"} & set(value)
    quoted = f'"{value}"' if plain else "'" + value.replace("'", "''") + "'"
    return f"put the text in quotes: {row[: key.end()].strip()} {quoted}"


def _line_above(lines: Sequence[str], line: int) -> int | None:
    """The number of the nearest line above ``line`` that holds something other than a comment."""
    for number in range(line - 1, 0, -1):
        stripped = lines[number - 1].strip()
        if stripped and not stripped.startswith("#"):
            return number
    return None


def _tab(at: _Where) -> _Found:
    if "tab" not in at.problem and at.row[at.column - 1 : at.column] != "\t":
        return None
    tab = at.row.find("\t")
    hint = "replace the tab with spaces (most editors can insert spaces when Tab is pressed)"
    return (
        "a tab in the indentation: YAML indents with spaces only",
        hint,
        at.line,
        (tab if tab >= 0 else at.column - 1) + 1,
    )


def _reserved(at: _Where) -> _Found:
    char = at.row[at.column - 1 : at.column]
    if "cannot start any token" not in at.problem or char not in _RESERVED_START:
        return None
    return f"unquoted text cannot start with '{char}'", _quote_hint(at.row, _KEY.match(at.row)), at.line, at.column


#: The escapes that take hexadecimal digits, and how many.
_HEX_ESCAPES = {"x": 2, "u": 4, "U": 8}
_HEX_DIGITS = "0123456789abcdefABCDEF"
_ESCAPE_HINT = "write a backslash as \\\\, or put the text in single quotes, where a backslash is just a backslash"


def _bad_escape(at: _Where) -> _Found:
    """A backslash in double quotes that starts no escape YAML knows (``"C:\\Users"``, ``"\\d"``), or one of no
    character (``"\\ud800"``): the parser's words name neither the backslash nor where it is."""
    if "quoted scalar" not in at.context or not ("escape" in at.problem or "hexdecimal" in at.problem):
        return None
    # The parsers point at the backslash, at the letter after it, or at the digits after that.
    start = at.row.rfind("\\", max(at.column - 3, 0), at.column)
    if start < 0:
        return None
    letter = at.row[start + 1 : start + 2]
    digits = _HEX_ESCAPES.get(letter, 0)
    found = at.row[start + 2 : start + 2 + digits]
    written = at.row[start : start + 2] + found[: len(found) - len(found.lstrip(_HEX_DIGITS))]
    if "invalid Unicode" in at.problem:
        message = f"'{written}' is no character: {_why_no_character(written[2:])}"
        hint = "write the character itself, or its code in hexadecimal: \\u and 4 digits, \\U and 8 beyond U+FFFF"
        return message, hint, at.line, start + 1
    if digits:
        message = f"'{written}' is no escape: in double quotes, '\\{letter}' takes {digits} hexadecimal digits"
    else:
        message = f"'{written}' is no escape: in double quotes, a backslash starts one (such as \\n or \\\")"
    return message, _ESCAPE_HINT, at.line, start + 1


def _why_no_character(digits: str) -> str:
    if 0xD800 <= int(digits or "0", 16) <= 0xDFFF:
        return "it is half of a surrogate pair, which only UTF-16 uses"
    return "Unicode ends at U+10FFFF"


def _unclosed_quote(at: _Where) -> _Found:
    if "quoted scalar" not in at.context:
        return None
    quote = at.row[at.column - 1 : at.column] or '"'
    inside = "''" if quote == "'" else '\\"'
    message = f"the quote {quote} opened here is never closed"
    hint = f"end the text with {quote}; a {quote} inside the text is written {inside}"
    return message, hint, at.line, at.column


def _unclosed_bracket(at: _Where) -> _Found:
    if "flow sequence" not in at.context and "flow mapping" not in at.context:
        return None
    opening, closing = ("[", "]") if "sequence" in at.context else ("{", "}")
    start = at.err.context_mark
    line, column = (start.line + 1, start.column + 1) if start is not None else (at.line, at.column)
    message = f"the '{opening}' opened here is not closed with '{closing}', or a ',' is missing"
    hint = (
        f"close it with '{closing}' after the last item; an item that holds a comma, '[', ']', '{{' or '}}' "
        "goes in quotes"
    )
    return message, hint, line, column


def _misplaced(at: _Where) -> _Found:
    """A line at a column that matches no level above (``did not find expected key``), or text after a quote."""
    if "block mapping" not in at.context and "block collection" not in at.context:
        return None
    if at.column - 1 > _indent(at.row):
        message = "text after the closing quote: a quoted text must end with its quote"
        return message, _quote_hint(at.row, _KEY.match(at.row)), at.line, at.column
    levels = _levels_above(at.lines, at.line, at.column - 1)
    if not levels:
        return None
    (same_line, same), *parent = levels
    what = "more" if at.column - 1 > same else "less"
    message = f"this line is indented {what} than the lines it belongs with, so YAML cannot tell where it goes"
    choices = [f"column {same + 1} (like line {same_line})"]
    choices += [f"column {indent + 1} (like line {number})" for number, indent in parent]
    return message, "start it at " + " or at ".join(choices), at.line, at.column


def _levels_above(lines: Sequence[str], line: int, indent: int) -> list[tuple[int, int]]:
    """The nearest lines above at the two levels ``indent`` may have been meant for: deeper and shallower."""
    deeper: tuple[int, int] | None = None
    for number in range(line - 1, 0, -1):
        text = lines[number - 1]
        if not text.strip() or text.strip().startswith("#"):
            continue
        level = _indent(text)
        if level > indent and (deeper is None or level < deeper[1]):
            deeper = (number, level)
        elif level <= indent:
            return [*([deeper] if deeper else []), (number, level)]
    return [deeper] if deeper else []


#: What YAML makes of text that starts with one of these characters.
_INDICATORS = {"alias": ("*", "an alias (*name)"), "anchor": ("&", "an anchor (&name)"), "tag": ("!", "a tag (!name)")}


def _indicator(at: _Where) -> _Found:
    """Text starting with ``*``, ``&`` or ``!`` (Markdown emphasis, an image) read as YAML syntax."""
    kind = next(
        (kind for kind in _INDICATORS if f"scanning an {kind}" in at.context or f"a {kind}" in at.context), None
    )
    if kind is None and "undefined alias" in at.problem:
        kind = "alias"
    if kind is None:
        return None
    char, what = _INDICATORS[kind]
    message = f"unquoted text that starts with '{char}' is read as {what}"
    start = at.err.context_mark if at.err.context_mark is not None else at.err.problem_mark
    line, column = (start.line + 1, start.column + 1) if start is not None else (at.line, at.column)
    return message, _quote_hint(at.row, _KEY.match(at.row)), line, column


def _document(at: _Where) -> _Found:
    if "another document" not in at.problem:
        return None
    hint = "a file holds one YAML document: move what follows '---' to a file of its own"
    return "a second document ('---') in the file", hint, at.line, at.column


_EXPLAINERS = (
    _tab,
    _colon,
    _reserved,
    _indicator,
    _bad_escape,
    _unclosed_quote,
    _unclosed_bracket,
    _misplaced,
    _document,
)


# -- what YAML reads differently from how it looks --------------------------

#: A line that starts like a Markdown or outline list item.
_LIST_ITEM = re.compile(r"^( *)(- |\* |\+ |\d{1,9}[.)] )")
#: Comments start at a ``#`` after white space; one glued to a word (``#3``, ``#include``)
#: was meant as text, while ``  # note`` is how a comment is written on purpose.
_COMMENT = re.compile(r"[ \t]+#(?=\S)")
#: How much of a joined text to show on each side of the join.
_SHOWN = 24


def joined_items(event: Any, value: str, lines: Sequence[str], *, item_column: int | None) -> Explained | None:
    """Lines of one text that look like list items but were joined to the line above.

    An option pasted two spaces too far becomes part of the option above it,
    and every answer letter after it shifts: the line is named, with the fix.
    ``item_column`` is the column of the list's ``-`` when the text is a list item.
    """
    start, end = event.start_mark, event.end_mark
    folded = event.style == ">"
    last = min(end.line if end.column > 0 else end.line - 1, len(lines) - 1)
    first = start.line + (2 if folded else 1)  # a block's first line joins nothing
    if first > last:
        return None  # a block of one line, such as most explanations
    base = _indent(lines[start.line + 1]) if folded and start.line + 1 < len(lines) else 0
    row = lines[first - 1]
    for number in range(first, last + 1):  # each line asked for once, in order: a large file's are found again
        above, row = row, lines[number]
        item = _LIST_ITEM.match(row)
        if item is None or not above.strip() or (folded and {_indent(row), _indent(above)} != {base}):
            continue  # after an empty line, or kept as written (more indented in a '>' block)
        return _joined(item, _around(value, row.strip()), number + 1, item_column=item_column, folded=folded)
    return None


def _around(value: str, line: str) -> str:
    """The part of ``value`` where ``line`` was joined on, or all of a short one."""
    value = value.strip().replace("\n", " ")
    if len(value) <= 3 * _SHOWN:
        return value
    at = max(value.find(line[:_SHOWN]), 0)
    return f"…{value[max(at - _SHOWN, 0) : at + _SHOWN]}…"


def _joined(item: re.Match[str], joined: str, line: int, *, item_column: int | None, folded: bool) -> Explained:
    marker = item.group(2).strip()
    column = item.end(1) + 1
    detail = "YAML: a line that continues a text is joined to it with a space"
    if item_column is not None and marker == "-":
        message = f"this '-' is indented more than the list item above, so YAML joined both into one item: '{joined}'"
        hint = (
            f"to make it an item of its own, start its '-' at column {item_column} like the item above; "
            "if it belongs to the text above, put that whole text in quotes"
        )
        return Explained(message, hint, line, column, detail)
    message = f"this line starts like a list item ('{marker}'), but YAML joins it to the line above: '{joined}'"
    block = "write '|' instead of '>'" if folded else "write the text as a block: 'key: |' with its lines below"
    hint = f"to keep its lines apart, {block}; if it belongs to the text above, put that whole text in quotes"
    return Explained(message, hint, line, column, detail)


def cut_by_comment(event: Any, value: str, lines: Sequence[str]) -> Explained | None:
    """Unquoted text followed by `` #word``: YAML drops the rest of the line as a comment."""
    end = event.end_mark
    if " " not in value or event.start_mark.line != end.line or end.line >= len(lines):
        return None  # one word, such as 'answer: B  # the second', is not prose cut short
    row = lines[end.line]
    comment = _COMMENT.match(row, end.column)
    if comment is None:
        return None
    dropped = row[comment.end() - 1 :].strip()
    message = f"the text stops before ' #': YAML reads '{dropped}' as a comment and leaves it out"
    detail = "YAML: '#' after a space starts a comment"
    return Explained(message, _quote_hint(row, _KEY.match(row)), end.line + 1, comment.end(), detail)


def item_key(lines: Sequence[str], first: int) -> str | None:
    """The first key of the list item begun on line ``first`` (``- key:``); None where none begins there."""
    start = _KEY.match(lines[first - 1]) if 0 < first <= len(lines) else None
    return start.group("key") if start is not None and start.group("dash") is not None else None


def missing_dash(key: str, line: int, column: int, *, first: int, item: str | None) -> Explained | None:
    """A mapping's first key written again: a new list item that lacks its ``- ``.

    Without the dash, the next question's keys all land in the one above, each
    a duplicate; one problem at the line where the new item should begin says so.
    ``item`` is the first key of the list item begun on line ``first`` (see :func:`item_key`).
    """
    if item != key:
        return None
    message = f"'{key}:' again in the same item (first on line {first}): a new list item needs '- ' in front"
    hint = f"write '- ' in place of the two spaces before '{key}:', so that its '-' lines up with line {first}'s"
    return Explained(message, hint, line, column, f"YAML: duplicate key '{key}'")
