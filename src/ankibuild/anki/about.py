"""What a top deck's description says (``description: true``): the bank, its version, its news, its links.

Anki replaces a deck's description on every import, and shows it above the
deck's study button: that is where a student looks to know which build they
have. Everything in it comes from the bank's settings and the notes' times,
never from the wall clock or from what was published, so an unchanged bank
describes itself in the same bytes, build after build. Its words are the
labels of the deck's language, as a card's are; they and the bank's texts are
escaped: the description shows them as typed.
"""

from __future__ import annotations

import datetime as dt
import html
import re
from collections.abc import Mapping, Sequence

from ..links import REPORT_LABEL
from ..model import Bank

#: What the description's labels may have filled in: the version's time, the count, the link's words.
_PLACEHOLDER = re.compile(r"\{(time|count|report)\}")


def description(bank: Bank, lang: str, times: Sequence[int], *, labels: Mapping[str, str]) -> str:
    """The description of the bank's top decks in ``lang``, whose notes and note types have ``times``.

    ``labels`` are the language's card labels, which word it.
    """
    if not bank.describe:
        return ""
    newest = max(times, default=0)
    day = _day(newest)
    changed = sum(1 for time in times if _day(time) == day)
    title = bank.name_in(bank.titles, lang) or bank.id
    lines = [
        f"<b>{html.escape(title)}</b>",
        _said(labels["about_version"], time=_when(newest), count=str(changed)),
    ]
    if bank.home:
        lines.append(f'<a href="{html.escape(bank.home, quote=True)}">{html.escape(labels["about_changes"])}</a>')
    if bank.report:
        lines.append(_said(labels["about_report"], report=f"<i>{html.escape(labels[REPORT_LABEL])}</i>"))
    return "<br>".join(lines)


def _said(label: str, **values: str) -> str:
    """``label`` escaped, with its placeholders filled in once (a value is never read for placeholders)."""
    return _PLACEHOLDER.sub(lambda found: values.get(found.group(1), found.group(0)), html.escape(label))


def _day(time: int) -> str:
    return dt.datetime.fromtimestamp(time, dt.UTC).strftime("%Y-%m-%d")


def _when(time: int) -> str:
    return dt.datetime.fromtimestamp(time, dt.UTC).strftime("%Y-%m-%d %H:%M:%S UTC")
