"""Numbers that right-to-left text shows reversed: ``check`` warns, and its fixes show them as meant."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from ankibuild import check
from ankibuild.preview.target import card_document, render_cards
from ankibuild.text.bidi import reversed_numbers

from ..browsertools import browser
from ..cdp import Browser, chromium
from ..conftest import DATA

__all__ = ["browser"]  # the fixture, shared with the other browser tests

#: A Hebrew option of each form: a sign typed as is, after a left-to-right mark, as code; a range with an en dash.
DASH = "\u2013"
OPTIONS = f'["-128 עד 127", "\\u200E-128 עד 127", "`-128` עד 127", "0 {DASH} 255"]'


def _bank(root: Path) -> Path:
    decks = root / "decks"
    shutil.copytree(DATA / "rtl-sample", decks)
    questions = decks / "basics.yaml"
    text = questions.read_text(encoding="utf-8")
    old = '      options: ["4", "16", "8", "32"]\n      explanation: בית'
    assert old in text
    questions.write_text(text.replace(old, f"      options: {OPTIONS}\n      explanation: בית"), encoding="utf-8")
    return decks


def test_check_warns_where_a_sign_or_a_range_shows_reversed(tmp_path: Path) -> None:
    """A warning at each option that shows reversed, with what the card shows and the fix; none for the fixed ones,
    and none for the right-to-left banks of the tests."""
    found = [p for p in check(decks=_bank(tmp_path)).items if "right-to-left" in p.message]
    assert [(p.line, p.column, p.severity.value, p.question, p.message) for p in found] == [
        (14, 17, "warning", "bits-per-byte", "in 'he', '-128' shows as '128-' in right-to-left text"),
        (14, 70, "warning", "bits-per-byte", f"in 'he', '0 {DASH} 255' shows as '255 {DASH} 0' in right-to-left text"),
    ]
    assert "\\u200E" in found[0].hint and "`-128`" in found[0].hint
    for bank in ("rtl-sample", "every-language", "choice-features", "more-kinds"):
        assert not [p for p in check(decks=DATA / bank).items if "right-to-left" in p.message], bank


@pytest.mark.parametrize(
    ("text", "found"),
    [
        ("מ-128 עד 127", []),  # a Hebrew prefix joined by a hyphen reads right
        ("ל-20", []),
        ("x = -3", [("-3", "3-")]),
        ("1 - 5", [("1 - 5", "5 - 1")]),
        ("1-5", []),  # a lone hyphen between digits keeps the range in order
        (f"3.5{DASH}4.25", [(f"3.5{DASH}4.25", f"4.25{DASH}3.5")]),
        ("\\(-1\\) $-2$ `-3`", []),
        ("```\n-1\n```", []),
    ],
)
def test_what_shows_reversed(text: str, found: list[tuple[str, str]]) -> None:
    assert reversed_numbers(text) == found


#: Where the sign of "-128" is drawn, against its digits, in each option of the card.
SIGN_SIDE = """(() => [...document.querySelectorAll(".ab-option .ab-text")].map((text) => {
  const walker = document.createTreeWalker(text, NodeFilter.SHOW_TEXT);
  let node, sign = null, digit = null;
  while ((node = walker.nextNode())) {
    const at = node.data.indexOf("-128");
    if (at >= 0) { sign = [node, at]; digit = [node, at + 1]; break; }
  }
  if (!sign) return "";
  const box = ([where, at]) => { const range = document.createRange(); range.setStart(where, at);
    range.setEnd(where, at + 1); return range.getBoundingClientRect().x; };
  return box(sign) < box(digit) ? "left" : "right";
}))()"""


@pytest.mark.skipif(chromium() is None, reason="no Chromium installed: apt-get install chromium (Debian)")
def test_the_fixes_show_the_sign_before_the_number(browser: Browser, tmp_path: Path) -> None:
    """In Chromium, "-128" typed as is has its sign drawn right of the digits (after them, read right to left);
    after a left-to-right mark, or as code, left of them, as meant."""
    rendered = render_cards(decks=_bank(tmp_path))
    card = next(c for c in rendered.cards if c.lang == "he" and c.question_id == "bits-per-byte")
    (tmp_path / "card.html").write_text(card_document(rendered.templates["he"].css, card.front), encoding="utf-8")
    page = browser.new_page(390, 640)
    try:
        page.send("Emulation.setScriptExecutionDisabled", {"value": True})  # the options in their written order
        page.navigate((tmp_path / "card.html").as_uri())
        page.send("Emulation.setScriptExecutionDisabled", {"value": False})
        sides = page.evaluate(SIGN_SIDE)
    finally:
        page.close()
    assert json.dumps(sides) == json.dumps(["right", "left", "left", ""])
