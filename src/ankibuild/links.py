"""The bank's links for its class: its home page and where to report a mistake (``home:``, ``report:``).

A link is built only from the bank's own settings and the ids, each filled in
URL-encoded and the whole escaped for HTML: whatever a pull request writes in
``bank.yaml``, the card shows a plain link, never markup or script.
"""

from __future__ import annotations

import hashlib
import html
import re
from collections.abc import Sequence
from typing import Any
from urllib.parse import quote

from .yamlfiles.checker import Checker, type_name
from .yamlfiles.reader import Map

#: What a report link's template may have filled in.
PLACEHOLDERS = ("id", "lang", "version")
#: A web address as a student's browser opens it: no space, quote, angle bracket or backslash.
_URL = re.compile(r"^https?://[^\s\"'<>`\\{}\x00-\x1f\x7f]+$")
_PLACEHOLDER = re.compile(r"\{([^{}]*)\}")
MAX_URL = 2000
#: The label of the link's words, in each language's ``labels.yaml``.
REPORT_LABEL = "report"
#: The link's words where no label gives them (the default labels say the same).
REPORT_TEXT = "Report a mistake"
#: Where the report link starts in its field: no text a bank writes can hold it (text shows as typed).
REPORT_START = '<p class="ab-report">'


def read_url(check: Checker, data: Map, key: str, *, placeholders: Sequence[str] = ()) -> str:
    """The web address under ``key``, with ``placeholders`` allowed in it; "" when absent or wrong (reported)."""
    if key not in data:
        return ""
    value: Any = data[key]
    where = data.at(key)
    if not isinstance(value, str):
        check.report(where, f"'{key}' must be a web address, not {type_name(value)}", "write https://...")
        return ""
    unknown = [name for name in _PLACEHOLDER.findall(value) if name not in placeholders]
    if unknown:
        allowed = ", ".join(f"{{{name}}}" for name in placeholders) or "none"
        check.report(where, f"'{key}' has an unknown placeholder {{{unknown[0]}}}", f"placeholders: {allowed}")
        return ""
    bare = _PLACEHOLDER.sub("x", value.strip())
    if len(bare) > MAX_URL or not _URL.match(bare):
        hint = "write a web address starting with https://, with no spaces, quotes or angle brackets"
        check.report(where, f"'{key}' is not a web address a card can open", hint)
        return ""
    return value.strip()


def question_version(fields: Sequence[str]) -> str:
    """A short name of a note's text, to tell which text a report is about (it changes with the text)."""
    return hashlib.sha256("\x1f".join(fields).encode()).hexdigest()[:8]


def report_url(template: str, question_id: str, lang: str, *, version: str) -> str:
    """The report link of one note: each placeholder filled in, URL-encoded."""
    values = {"id": question_id, "lang": lang, "version": version}
    return _PLACEHOLDER.sub(lambda found: quote(values[found.group(1)], safe=""), template)


def with_report_link(
    template: str, field: int, question_id: str, *, lang: str, fields: tuple[str, ...], words: str = REPORT_TEXT
) -> tuple[str, ...]:
    """``fields`` with the report link at the end of the one at ``field``, which the back of the card shows.

    A plain link: Anki desktop and the phone apps open it in the browser, with no script.
    ``words`` are the card's language's (a label): shown as typed.
    """
    if not template:
        return fields
    url = html.escape(report_url(template, question_id, lang, version=question_version(fields)), quote=True)
    link = f'{REPORT_START}<a href="{url}">{html.escape(words)}</a></p>'
    return (*fields[:field], fields[field] + link, *fields[field + 1 :])
