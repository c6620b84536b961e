"""What a top deck's description says (``description: true``): the bank, its version, its news, its links.

Anki replaces a deck's description on every import, and shows it above the
deck's study button: that is where a student looks to know which build they
have. Everything in it comes from the bank's settings and the notes' times,
never from the wall clock or from what was published, so an unchanged bank
describes itself in the same bytes, build after build. The bank's texts are
escaped: the description shows them as typed.
"""

from __future__ import annotations

import datetime as dt
import html
from collections.abc import Sequence

from ..model import Bank


def description(bank: Bank, lang: str, times: Sequence[int]) -> str:
    """The description of the bank's top decks in ``lang``, whose notes and note types have ``times``."""
    if not bank.describe:
        return ""
    newest = max(times, default=0)
    day = _day(newest)
    changed = sum(1 for time in times if _day(time) == day)
    title = bank.name_in(bank.titles, lang) or bank.id
    lines = [
        f"<b>{html.escape(title)}</b>",
        f"Version {_when(newest)}: {changed} question(s) or card layout(s) added or changed that day.",
    ]
    if bank.home:
        lines.append(f'<a href="{html.escape(bank.home, quote=True)}">What changed, version by version</a>')
    if bank.report:
        lines.append("Found a mistake? Tap <i>Report a mistake</i> on the back of its card.")
    return "<br>".join(lines)


def _day(time: int) -> str:
    return dt.datetime.fromtimestamp(time, dt.UTC).strftime("%Y-%m-%d")


def _when(time: int) -> str:
    return dt.datetime.fromtimestamp(time, dt.UTC).strftime("%Y-%m-%d %H:%M:%S UTC")
