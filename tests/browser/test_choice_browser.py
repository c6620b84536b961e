"""Several correct answers, feedback and a question's own shuffle setting, driven in headless Chromium.

The cards of ``tests/data/choice-features`` (English and Arabic) are shown as
Anki desktop shows them (one page, its content swapped at the flip) and as
AnkiDroid does (a new page per side, the choice carried by storage), and
without any script.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from ankibuild.preview.target import CardSides, card_document, render_cards

from ..browsertools import OUTPUT, SWAP, PreviewCard, browser, page, published_scenario, served, tap_letter
from ..cdp import Page, chromium
from ..conftest import DATA

__all__ = ["browser", "page"]  # the fixtures, shared with the other browser tests

pytestmark = pytest.mark.skipif(
    chromium() is None, reason="no Chromium installed: apt-get install chromium (Debian) to run the browser tests"
)

FEATURES = DATA / "choice-features"

#: Each option as a student sees it (in the order shown): its letter, how it is marked
#: and with which sign, the words beside it, and whether its feedback shows; the verdict.
STATE = """(doc) => {
  const view = doc.defaultView;
  const shown = (element) => !!element && view.getComputedStyle(element).display !== "none";
  const verdict = doc.querySelector(".ab-verdict");
  return {
    options: [...doc.querySelectorAll(".ab-quiz .ab-option")].map((li) => ({
      letter: li.dataset.letter,
      mark: ["ab-right", "ab-wrong", "ab-missed", "ab-selected"].filter((c) => li.classList.contains(c)).join(" "),
      dashed: view.getComputedStyle(li).borderTopStyle === "dashed",
      sign: view.getComputedStyle(li, "::after").content.replace(/^none$|"/g, ""),
      role: li.getAttribute("role"),
      missed: [...li.querySelectorAll(".ab-missed-label")].map((e) => e.textContent).join(),
      feedback: shown(li.querySelector(".ab-feedback")) ? li.querySelector(".ab-feedback").innerText.trim() : "",
    })),
    selectAll: shown(doc.querySelector(".ab-select-all")) ? doc.querySelector(".ab-select-all").innerText : "",
    verdict: shown(verdict) ? verdict.innerText.trim() : "",
    explained: [...doc.querySelectorAll(".ab-explanation .ab-feedback")].filter(shown).map(
      (e) => view.getComputedStyle(e, "::before").content.replace(/"/g, "") + e.innerText.trim()),
  };
}"""


def _sides() -> dict[tuple[str, str], CardSides]:
    return {(card.question_id, card.lang): card for card in render_cards(decks=FEATURES).cards}


def _state(page: Page, document: str = "document") -> dict[str, Any]:
    state: dict[str, Any] = page.evaluate(f"({STATE})({document})")
    return state


@pytest.fixture(scope="module")
def card_pages(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """Each card's sides as pages of their own on a local server (AnkiDroid's way), and an empty page."""
    root = tmp_path_factory.mktemp("choice-pages")
    rendered = render_cards(decks=FEATURES)
    css = rendered.templates["en"].css
    for card in rendered.cards:
        for side, html in (("front", card.front), ("back", card.back)):
            (root / f"{card.question_id}-{card.lang}-{side}.html").write_text(
                card_document(css, html), encoding="utf-8"
            )
    (root / "empty.html").write_text(card_document(css, ""), encoding="utf-8")
    for asset in rendered.templates["en"].media:
        (root / asset.name).write_bytes(asset.content)
    with served(root) as url:
        yield url


def _by_letter(state: dict[str, Any], key: str) -> dict[str, Any]:
    return {option["letter"]: option[key] for option in state["options"]}


def test_ticking_several_as_on_anki_desktop(page: Page, card_pages: str) -> None:
    """Tick A, B and D, untick D, flip: A right, B wrongly chosen with its feedback, C missed; the whole is wrong."""
    card = _sides()["reliable-transports", "en"]
    page.navigate(f"{card_pages}/empty.html")
    page.evaluate(f"({SWAP})({json.dumps(card.front)})")
    for letter in "ABDD":
        tap_letter(page, letter)
    front = _state(page)
    page.evaluate(f"({SWAP})({json.dumps(card.back)})")
    back = _state(page)
    page.screenshot(OUTPUT / "desktop-en-several-back.png")
    assert _by_letter(front, "mark") == {"A": "ab-selected", "B": "ab-selected", "C": "", "D": ""}
    assert set(_by_letter(front, "role").values()) == {"checkbox"}
    assert front["selectAll"] == "Select all that apply"
    assert set(_by_letter(front, "feedback").values()) == {""}  # feedback is for the back
    assert _by_letter(back, "mark") == {"A": "ab-right", "B": "ab-wrong", "C": "ab-missed", "D": ""}
    assert _by_letter(back, "sign") == {"A": "\u2713", "B": "\u2717", "C": "\u2713", "D": ""}
    assert _by_letter(back, "missed") == {"A": "", "B": "", "C": "Missed", "D": ""}
    assert _by_letter(back, "dashed") == {"A": False, "B": False, "C": True, "D": False}
    assert _by_letter(back, "feedback") == {
        "A": "",
        "B": "UDP sends datagrams with no retransmission.",
        "C": "",
        "D": "ICMP carries error and control messages.",
    }
    assert back["verdict"] == "You answered incorrectly"
    assert page.errors() == []


def test_ticking_all_the_correct_ones_as_on_ankidroid(page: Page, card_pages: str) -> None:
    """In Arabic, tick A and C on the front page, then load the back page: both right, none missed, right."""
    page.navigate(f"{card_pages}/reliable-transports-ar-front.html")
    tap_letter(page, "C")
    tap_letter(page, "A")
    page.navigate(f"{card_pages}/reliable-transports-ar-back.html")
    back = _state(page)
    page.screenshot(OUTPUT / "ankidroid-ar-several-back.png")
    assert _by_letter(back, "mark") == {"A": "ab-right", "B": "", "C": "ab-right", "D": ""}
    assert _by_letter(back, "missed") == dict.fromkeys("ABCD", "")
    assert back["verdict"] == "إجابة صحيحة"
    assert _by_letter(back, "feedback")["B"] == "يرسل UDP رزمًا دون إعادة إرسال."
    assert page.errors() == []


def test_one_correct_option_is_not_enough(page: Page, card_pages: str) -> None:
    """Only A ticked of A and C: A is right, C missed, the answer as a whole wrong."""
    page.navigate(f"{card_pages}/reliable-transports-en-front.html")
    tap_letter(page, "A")
    page.navigate(f"{card_pages}/reliable-transports-en-back.html")
    back = _state(page)
    assert _by_letter(back, "mark") == {"A": "ab-right", "B": "", "C": "ab-missed", "D": ""}
    assert back["verdict"] == "You answered incorrectly"


def test_a_single_answer_keeps_radio_buttons_and_shows_feedback_beside_the_choice(page: Page, card_pages: str) -> None:
    """One correct option: a second tap replaces the first; the chosen wrong option shows its feedback."""
    page.navigate(f"{card_pages}/port-numbers-en-front.html")
    tap_letter(page, "C")
    tap_letter(page, "A")
    front = _state(page)
    page.navigate(f"{card_pages}/port-numbers-en-back.html")
    back = _state(page)
    assert set(_by_letter(front, "role").values()) == {"radio"} and front["selectAll"] == ""
    assert _by_letter(back, "mark") == {"A": "ab-wrong", "B": "", "C": "", "D": ""}
    assert _by_letter(back, "sign") == {"A": "\u2717", "B": "\u2713", "C": "", "D": ""}
    assert _by_letter(back, "feedback")["A"] == "Port 80 is plain HTTP."
    assert back["verdict"] == "You answered incorrectly"


def test_without_javascript_the_back_marks_every_correct_option(page: Page, card_pages: str) -> None:
    """Scripts off: the front still says to select all that apply; the back ticks A and C, with the feedback."""
    page.send("Emulation.setScriptExecutionDisabled", {"value": True})
    page.navigate(f"{card_pages}/reliable-transports-ar-front.html")
    page.send("Emulation.setScriptExecutionDisabled", {"value": False})  # to read the page, not to run the card
    front = _state(page)
    page.send("Emulation.setScriptExecutionDisabled", {"value": True})
    page.navigate(f"{card_pages}/reliable-transports-ar-back.html")
    page.send("Emulation.setScriptExecutionDisabled", {"value": False})
    back = _state(page)
    page.screenshot(OUTPUT / "no-script-ar-several-back.png")
    assert front["selectAll"] == "اختر كل الإجابات الصحيحة"
    assert _by_letter(back, "sign") == {"A": "\u2713", "B": "", "C": "\u2713", "D": ""}
    assert back["explained"] == ["ب\u00a0يرسل UDP رزمًا دون إعادة إرسال.", "د\u00a0يحمل ICMP رسائل الأخطاء والتحكم."]
    assert back["verdict"] == ""


def test_a_question_turns_shuffling_off_over_the_banks_setting(page: Page, card_pages: str) -> None:
    """The bank shuffles: the question with ``shuffle: false`` keeps its order at every review, the other does not."""
    sides = _sides()
    page.navigate(f"{card_pages}/empty.html")
    orders: dict[str, set[str]] = {"port-numbers": set(), "reliable-transports": set()}
    for _ in range(25):
        for question, found in orders.items():
            page.evaluate(f"({SWAP})({json.dumps(sides[question, 'en'].front)})")
            found.add(
                page.evaluate("[...document.querySelectorAll('.ab-option')].map((o) => o.dataset.letter).join('')")
            )
    assert orders["port-numbers"] == {"ABCD"}
    assert len(orders["reliable-transports"]) > 3


def test_in_the_preview_the_order_kept_and_the_pin_hold(page: Page, tmp_path: Path) -> None:
    """The preview shows the card as Anki does: ``shuffle: false`` keeps A-D through reviews; ticks are marked."""
    page.navigate(published_scenario(tmp_path, "choice-features").as_uri())
    kept = PreviewCard(page, "en-port-numbers")
    several = PreviewCard(page, "ar-reliable-transports")
    orders = set()
    for _ in range(4):
        kept.wait("front")
        orders.add("".join(option["letter"] for option in _state(page, kept.document)["options"]))
        kept.button("flip")
        kept.button("again")
    several.wait("front")
    letters = [option["letter"] for option in _state(page, several.document)["options"]]
    several.tap(".ab-option", letters.index("A"))
    several.tap(".ab-option", letters.index("C"))
    several.button("flip")
    back = _state(page, several.document)
    assert orders == {"ABCD"}
    assert back["verdict"] == "إجابة صحيحة"
    assert _by_letter(back, "mark") == {"A": "ab-right", "B": "", "C": "ab-right", "D": ""}
    assert page.errors() == []


def test_a_question_shuffles_in_a_bank_that_does_not_and_its_pin_holds(
    page: Page, card_pages: str, tmp_path: Path
) -> None:
    """``shuffle: true`` on a question of a bank with ``shuffle: false``: "None of the above" stays last."""
    shutil.copytree(DATA / "pinned", tmp_path / "decks")
    bank = tmp_path / "decks" / "bank.yaml"
    bank.write_text(bank.read_text(encoding="utf-8") + "shuffle: false\n", encoding="utf-8")
    questions = tmp_path / "decks" / "colours.yaml"
    questions.write_text(
        questions.read_text(encoding="utf-8").replace("    pin: [E]\n", "    pin: [E]\n    shuffle: true\n")
    )
    (card,) = render_cards(decks=tmp_path / "decks").cards
    assert 'data-shuffle="false"' in card.front
    page.navigate(f"{card_pages}/empty.html")
    orders = set()
    for _ in range(30):
        page.evaluate(f"({SWAP})({json.dumps(card.front)})")
        orders.add(page.evaluate("[...document.querySelectorAll('.ab-option')].map((o) => o.dataset.letter).join('')"))
    assert {order[-1] for order in orders} == {"E"} and len(orders) > 4
    assert page.errors() == []
