"""Every kind's cards as Anki shows them, on a phone and a desktop, light and night, in every language.

The packages are imported into a real collection and each card is rendered by
the ``anki`` library (its question and answer HTML and its note type's CSS);
headless Chromium shows them as Anki desktop does (one page whose content is
swapped at the flip), options tapped with real input events and reached with
real key presses. The banks: the sample bank (every kind, long real questions)
and a bank of every kind in every language with card labels.
"""

from __future__ import annotations

import json
import re
import shutil
from collections.abc import Iterator
from dataclasses import dataclass
from html import unescape
from pathlib import Path
from typing import Any
from urllib.parse import quote

import anki.collection  # noqa: F401  imported first: anki.cards depends on it
import pytest

from anki.cards import Card  # isort: skip

from ankibuild import build
from ankibuild.preview.target import card_document

from ..ankitools import collection, import_package
from ..browsertools import ANKI_HR, OUTPUT, SWAP, browser, published_scenario, served, tap_letter
from ..cardtools import CARD_LANGUAGES, wording
from ..cdp import Browser, Page, chromium
from ..conftest import ROOT

__all__ = ["browser"]  # the fixture, shared with the other browser tests

pytestmark = pytest.mark.skipif(
    chromium() is None, reason="no Chromium installed: apt-get install chromium (Debian) to run the browser tests"
)

SCREENS = {"phone": (390, 640), "desktop": (1024, 768)}
MODES = {"light": "", "night": "nightMode"}


def _every_kind_bank(decks: Path) -> None:
    """A question of each kind, with numbers for texts, in every language with card labels."""
    decks.mkdir(parents=True)
    langs = ", ".join(CARD_LANGUAGES)
    topic = "".join(f"    {lang}: Numbers\n" for lang in CARD_LANGUAGES)
    title = "".join(f"  {lang}: Numbers\n" for lang in CARD_LANGUAGES)
    (decks / "bank.yaml").write_text(
        f"id: every-kind\nlanguages: [{langs}]\nshuffle: false\ntitle:\n{title}topics:\n  numbers:\n{topic}",
        encoding="utf-8",
    )
    texts = {
        "several": "      question: \u2265 10?\n      options: ['12', '7', '30', '3']\n"
        "      explanation: 12 \u2265 10, 30 \u2265 10.\n      feedback:\n        B: 7 < 10\n",
        "statement": "      question: 2 + 2 = 5\n      explanation: 2 + 2 = 4\n",
        "product": "      question: 7 \u00d7 8\n      answer: '56'\n      explanation: 7 \u00d7 8 = 56\n",
        "gap": "      question: 7 \u00d7 8 = {{c1::56}}\n      explanation: 56 = 2\u00b3 \u00d7 7\n",
    }
    heads = {
        "several": "  - id: several\n    topics: [numbers]\n    answer: [A, C]\n",
        "statement": "  - id: statement\n    kind: truefalse\n    topics: [numbers]\n    answer: false\n",
        "product": "  - id: product\n    kind: flashcard\n    reverse: true\n    topics: [numbers]\n",
        "gap": "  - id: gap\n    kind: cloze\n    topics: [numbers]\n",
    }
    body = "".join(heads[key] + "".join(f"    {lang}:\n{texts[key]}" for lang in CARD_LANGUAGES) for key in heads)
    (decks / "numbers.yaml").write_text(f"deck:\n{title}questions:\n{body}", encoding="utf-8")


@dataclass(frozen=True)
class AnkiCard:
    """One card as the ``anki`` library renders it, and where it comes from."""

    bank: str
    lang: str
    question_id: str
    ord: int
    question: str
    answer: str
    css: str

    @property
    def name(self) -> str:
        return f"{self.bank}/{self.lang}/{self.question_id}/{self.ord}"


def _rendered(root: Path) -> tuple[list[AnkiCard], Path]:
    """Every card of the two banks, rendered by Anki, and the collection's media folder (the card script)."""
    cards: list[AnkiCard] = []
    shutil.copytree(ROOT / "decks", root / "sample" / "decks")
    _every_kind_bank(root / "every-kind" / "decks")
    with collection(root / "collection.anki2") as col:
        for bank in ("sample", "every-kind"):
            build(decks=root / bank / "decks", out=root / bank / "dist")
            seen = set(col.find_cards(""))
            for package in sorted((root / bank / "dist").glob("*.apkg")):
                import_package(col, package)
            cards += [_render(col.get_card(card_id), bank) for card_id in col.find_cards("") if card_id not in seen]
        media = Path(col.media.dir())
    return cards, media


def _render(card: Card, bank: str) -> AnkiCard:
    note = card.note()
    notetype = note.note_type()
    assert notetype is not None
    lang = notetype["name"].rsplit("(", 1)[1].rstrip(")")  # "ai-stack (de)", "ai-stack flashcard (de)"
    output = card.render_output(reload=True)
    return AnkiCard(bank, lang, note["ID"], card.ord, output.question_text, output.answer_text, output.css)


@pytest.fixture(scope="module")
def anki_cards(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, list[AnkiCard]]]:
    root = tmp_path_factory.mktemp("anki-cards")
    cards, media = _rendered(root)
    pages = root / "pages"
    shutil.copytree(media, pages)
    for index, css in enumerate(sorted({card.css for card in cards})):
        (pages / f"empty-{index}.html").write_text(card_document(ANKI_HR + css, ""), encoding="utf-8")
    with served(pages) as url:
        yield url, cards


def _empty_page(url: str, cards: list[AnkiCard], card: AnkiCard) -> str:
    return f"{url}/empty-{sorted({c.css for c in cards}).index(card.css)}.html"


#: What matters on a phone, measured: sideways overflow, where each option and the
#: back's verdict and named answer end, what the verdict says, the flashcard's answer area.
LAYOUT = """(() => {
  const bottom = (element) => element ? element.getBoundingClientRect().bottom + scrollY : 0;
  const shown = (element) => !!element && getComputedStyle(element).display !== "none"
    && element.getBoundingClientRect().height > 0;
  const verdict = document.querySelector(".ab-verdict");
  const keyed = [...document.querySelectorAll(".ab-key-option, .ab-statement > span")].filter(shown);
  const answer = document.querySelector(".ab-answer");
  const explanation = document.querySelector(".ab-explanation");
  const asked = document.querySelector(".ab-flash > .ab-label");
  return {
    asked: asked ? asked.innerText.trim() : "",
    explanation: explanation ? {
      heading: explanation.querySelector(".ab-label").tagName,
      measure: explanation.getBoundingClientRect().width / parseFloat(getComputedStyle(explanation).fontSize),
    } : null,
    overflow: document.documentElement.scrollWidth > document.documentElement.clientWidth,
    options: [...document.querySelectorAll(".ab-quiz .ab-option")].map(bottom),
    smallest: Math.min(...[...document.querySelectorAll(".ab-quiz .ab-option")].map(
      (e) => e.getBoundingClientRect().height)),
    verdict: shown(verdict) ? verdict.innerText.trim() : "",
    verdictBottom: bottom(verdict),
    key: keyed.map((e) => e.innerText.trim().replace(/\\s+/g, " ")),
    keyBottom: Math.max(0, ...keyed.map(bottom)),
    answerArea: answer ? {
      label: answer.querySelector(".ab-label").innerText.trim(),
      edge: getComputedStyle(answer).borderInlineStartWidth,
      ground: getComputedStyle(answer).backgroundColor,
    } : null,
  };
})()"""


def _show(page: Page, html: str, night: str) -> dict[str, Any]:
    page.evaluate(f"({SWAP})({json.dumps(html)})")
    page.evaluate(f"document.body.className = 'card card1 {night}'; window.scrollTo(0, 0)")
    layout: dict[str, Any] = page.evaluate(LAYOUT)
    return layout


def _answer_of(card: AnkiCard) -> list[str]:
    return card.answer.split('class="ab-back" data-answer="', 1)[1].split('"', 1)[0].split()


def _letters_of(card: AnkiCard) -> list[str]:
    return [part.split('"', 1)[0] for part in card.question.split('class="ab-option" data-letter="')[1:]]


@pytest.mark.parametrize("screen", SCREENS)
def test_every_card_fits_and_names_its_answer_on_every_screen(
    browser: Browser, anki_cards: tuple[str, list[AnkiCard]], screen: str
) -> None:
    """Front: no sideways overflow, every option of the sample bank on screen, each at least 44 px tall. Back,
    after a real tap on a wrong option: the verdict and the correct option's letter and text on screen, and the
    verdict no choice's words."""
    url, cards = anki_cards
    width, height = SCREENS[screen]
    page = browser.new_page(width, height)
    try:
        shown = ""
        for card in cards:
            if _empty_page(url, cards, card) != shown:  # the note type's CSS, in the page's head
                shown = _empty_page(url, cards, card)
                page.navigate(shown)
            for mode, night in MODES.items():
                where = (card.name, screen, mode)
                front = _show(page, card.question, night)
                assert not front["overflow"], where
                if card.bank == "every-kind" and card.question_id == "product":  # the reverse card asks with the answer
                    assert front["asked"] == ("" if card.ord == 0 else wording(card.lang)["answer"]), (where, front)
                if card.bank == "sample":
                    assert max(front["options"], default=0) <= height, (where, front["options"])
                assert not front["options"] or front["smallest"] >= 44, (where, front["smallest"])  # a finger's size
                if 'class="ab-back" data-answer="' in card.answer:
                    shot = screen == "phone" and card.bank == "sample" and not night
                    _check_judged_back(page, card, night, height, where)
                    if shot:
                        page.screenshot(OUTPUT / f"phone-{card.lang}-{card.question_id}-back.png")
                else:
                    _check_flashcard_back(page, card, night, where)
        assert page.errors() == []
    finally:
        page.close()


def _check_judged_back(page: Page, card: AnkiCard, night: str, height: int, where: tuple[str, ...]) -> None:
    answer = _answer_of(card)
    wrong = next(letter for letter in _letters_of(card) if letter not in answer)
    tap_letter(page, wrong)
    back = _show(page, card.answer, night)
    labels = wording(card.lang)
    assert not back["overflow"], where
    assert back["verdict"] and back["verdictBottom"] <= height, (where, back)
    assert back["verdict"].strip("\u2713\u2717\u00a0 ") == labels["incorrect"], (where, back["verdict"])
    assert back["key"] and back["keyBottom"] <= height, (where, back)
    if answer[0] in ("true", "false"):
        assert back["key"] == [labels[f"statement_{answer[0]}"]], (where, back["key"])
    else:  # each correct option by the letter it was shown with, and its text
        assert len(back["key"]) == len(answer), (where, back["key"])
    assert back["explanation"]["heading"] == "H2" and back["explanation"]["measure"] <= 36.5, (where, back)
    assert not {labels["true"], labels["false"]} & {back["verdict"].strip("\u2713\u2717\u00a0 "), *back["key"]}, where


def _check_flashcard_back(page: Page, card: AnkiCard, night: str, where: tuple[str, ...]) -> None:
    back = _show(page, card.answer, night)
    area = back["answerArea"]
    if area is None:  # a cloze: its back shows the text with the clozes filled in
        assert not back["overflow"], where
        return
    labels = wording(card.lang)
    assert area["label"] == (labels["question"] if card.ord == 1 else labels["answer"]), (where, area)
    assert area["edge"] != "0px" and area["ground"] != "rgba(0, 0, 0, 0)", (where, area)
    assert not back["overflow"], where


def _key(page: Page, key: str, code: str, keycode: int) -> None:
    """A real key press, as the keyboard sends it."""
    params = {"key": key, "code": code, "windowsVirtualKeyCode": keycode}
    page.send("Input.dispatchKeyEvent", {"type": "rawKeyDown", **params})
    if key == " ":
        page.send("Input.dispatchKeyEvent", {"type": "char", "text": " ", **params})
    page.send("Input.dispatchKeyEvent", {"type": "keyUp", **params})


def _tree(page: Page) -> list[dict[str, Any]]:
    """Chromium's accessibility tree: each node's role, name, and the properties asked for."""
    nodes = page.send("Accessibility.getFullAXTree")["nodes"]
    found = []
    for node in nodes:
        if node.get("ignored"):
            continue
        props = {p["name"]: p["value"].get("value") for p in node.get("properties", [])}
        found.append({"role": node["role"]["value"], "name": node.get("name", {}).get("value", ""), **props})
    return found


#: The keys said under the options, where shown.
HINT = """(() => { const hint = document.querySelector(".ab-keys");
  return hint && getComputedStyle(hint).display !== "none" ? hint.innerText.trim() : ""; })()"""


@pytest.mark.parametrize("question_id", ["several", "statement"])
@pytest.mark.parametrize("lang", CARD_LANGUAGES)
def test_options_are_named_controls_reached_and_chosen_by_keyboard(
    browser: Browser, anki_cards: tuple[str, list[AnkiCard]], question_id: str, lang: str
) -> None:
    """Tab reaches each option, Space and Enter choose; the tree names the group and every option, with its state;
    the back's verdict is a live region."""
    url, cards = anki_cards
    card = next(c for c in cards if (c.bank, c.lang, c.question_id) == ("every-kind", lang, question_id))
    page = browser.new_page(*SCREENS["phone"])
    try:
        page.navigate(_empty_page(url, cards, card))
        page.send("Accessibility.enable")
        _show(page, card.question, "")
        focused = []
        for _ in _letters_of(card):
            _key(page, "Tab", "Tab", 9)
            focused.append(page.evaluate("document.activeElement.dataset.letter || ''"))
        _key(page, " ", "Space", 32)  # the last option
        page.evaluate("document.querySelector('.ab-option').focus()")
        _key(page, "Enter", "Enter", 13)  # the first
        hints = [page.evaluate(HINT)]
        page.send("Emulation.setTouchEmulationEnabled", {"enabled": True, "maxTouchPoints": 1})  # a touch screen
        hints.append(page.evaluate(HINT))
        page.send("Emulation.setTouchEmulationEnabled", {"enabled": False})
        tree = _tree(page)
        role = "checkbox" if question_id == "several" else "radio"
        group = next(n for n in tree if n["role"] in ("group", "radiogroup") and n["name"])
        options = [n for n in tree if n["role"] == role]
        page.evaluate(f"({SWAP})({json.dumps(card.answer)})")
        live = [n for n in _tree(page) if n.get("live") == "polite"]
    finally:
        page.close()
    assert focused == _letters_of(card)
    assert group["name"].startswith({"several": "\u2265 10?", "statement": "2 + 2 = 5"}[question_id]), group
    assert len(options) == len(focused) and all(n["name"] and n.get("focusable") for n in options), options
    checked = [n.get("checked") for n in options]
    assert checked == (["true", "false", "false", "true"] if role == "checkbox" else ["true", "false"]), checked
    assert live, "the verdict is announced"
    assert hints == [wording(lang)["keys"], ""], "the keys are said where there is a keyboard alone"


#: Feedback written in tests/data/choice-features, in English and Arabic.
FEEDBACK = ("UDP sends datagrams", "ICMP carries error", "Port 80 is plain HTTP", "يرسل UDP رزمًا", "المنفذ 80 هو")


def test_nothing_of_the_answer_shows_in_anki_outside_the_review(tmp_path: Path) -> None:
    """Anki's Browse columns and sort field show no feedback, explanation or answer of any card of any kind: its
    question side (HTML stripped, as Browse shows it) holds none, nor does the note's sort field."""
    with collection(tmp_path / "c.anki2") as col:
        for scenario in ("choice-features", "more-kinds", "cloze"):
            shutil.copytree(ROOT / "tests" / "data" / scenario, tmp_path / scenario / "decks")
            build(decks=tmp_path / scenario / "decks", out=tmp_path / scenario / "dist")
            for package in sorted((tmp_path / scenario / "dist").glob("*.apkg")):
                import_package(col, package)
        assert col.db is not None
        seen = {}
        for card_id in col.find_cards(""):
            card = col.get_card(card_id)
            note = card.note()
            front = card.render_output(reload=True).question_text
            browsed = _plain(front) + " " + str(col.db.scalar("select sfld from notes where id = ?", note.id))
            seen[note["ID"], card.ord, note.note_type()["name"]] = [s for s in _secrets(card, front) if s in browsed]  # type: ignore[index]
    # Among them a flashcard's reverse card, a cloze's second card and a true/false card.
    assert {("cpu-acronym", 1), ("byte-bits", 1), ("ram-is-volatile", 0)} <= {key[:2] for key in seen}
    assert len(seen) > 10 and not any(seen.values()), seen


def _secrets(card: Card, front: str) -> list[str]:
    """What a card shows only once turned, as Browse would show it: feedback, explanation and its answer."""
    note = card.note()
    back = note["Extra"] if "Extra" in note else note["Explanation"]
    secrets = [_plain(part) for part in back.split('data-letter="')] + list(FEEDBACK)
    if "Reverse" in note:  # a flashcard: each of its cards answers with what the other one asks
        secrets.append(_plain(note["Answer" if card.ord == 0 else "Question"]))
    # A cloze card's answers: Anki keeps them on the front, in an attribute Browse does not show.
    secrets += [_plain(unescape(answer)) for answer in re.findall(r'data-cloze="([^"]*)"', front)]
    return [secret for secret in secrets if secret]


def _plain(html: str) -> str:
    """A text as Browse shows it: no tags, no leading letter of a feedback element (``B">``)."""
    text = re.sub(r"<[^>]+>", " ", re.sub(r'^[A-F]">', "", html))
    return " ".join(unescape(text).split())


#: Every control of the preview page a finger taps, with its size, and each package name's lines.
TARGETS = """(() => {
  const controls = [...document.querySelectorAll("a, button:not([hidden]), label")].map((e) => {
    const box = e.getBoundingClientRect();
    return {text: e.textContent.trim(), width: box.width, height: box.height};
  });
  const names = [...document.querySelectorAll(".pv-downloads td a")].map((a) => a.getClientRects().length);
  return {controls, names, overflow: document.documentElement.scrollWidth > innerWidth};
})()"""


def test_the_preview_on_a_phone_has_44_pixel_targets_and_whole_names(browser: Browser, tmp_path: Path) -> None:
    """At 390 px every link, button and checkbox label is at least 44 px each way, and no package name breaks."""
    page = browser.new_page(*SCREENS["phone"])
    try:
        page.navigate(published_scenario(tmp_path, "every-language").as_uri())
        page.evaluate("document.querySelector('.pv-card').scrollIntoView()")  # its frame is made near the screen
        page.wait_for("document.querySelectorAll('.pv-card[data-ready]').length > 0")
        page.evaluate("window.scrollTo(0, 0)")
        seen = page.evaluate(TARGETS)
    finally:
        page.close()
    small = [c for c in seen["controls"] if c["width"] < 44 or c["height"] < 44]
    assert len(seen["controls"]) > 30 and small == [], small
    assert len(seen["names"]) == 15 and set(seen["names"]) == {1}, seen["names"]
    assert not seen["overflow"]


#: The cards of each kind shown in docs/cards/: the sample bank's, in English, and the every-kind bank's in Hebrew.
SHOWN = {
    "choice": ("w4a16-decode", 0, "several"),
    "truefalse": ("hbm-beside-the-gpu", 0, "statement"),
    "flashcard": ("arithmetic-intensity", 1, "product"),
    "cloze": ("roofline-bound", 0, "gap"),
}


def _pane(page: Page, card: AnkiCard, night: str) -> str:
    """The card's back after a wrong tap (a flashcard's or cloze's back as it is), as a PNG in a data URL."""
    _show(page, card.question, night)
    if 'class="ab-back" data-answer="' in card.answer:
        tap_letter(page, next(letter for letter in _letters_of(card) if letter not in _answer_of(card)))
    _show(page, card.answer, night)
    shot = page.send("Page.captureScreenshot", {"format": "png"})["data"]
    return f"data:image/png;base64,{shot}"


def _find(cards: list[AnkiCard], bank: str, lang: str, question_id: str, ord_: int) -> list[AnkiCard]:
    return [c for c in cards if (c.bank, c.lang, c.question_id, c.ord) == (bank, lang, question_id, ord_)]


def _screen(page: Page, width: int) -> None:
    page.send(
        "Emulation.setDeviceMetricsOverride", {"width": width, "height": 640, "deviceScaleFactor": 1, "mobile": False}
    )


def test_screenshots_of_each_kind_on_a_phone(browser: Browser, anki_cards: tuple[str, list[AnkiCard]]) -> None:
    """One sheet per kind in tests/output/ (copied to docs/cards/ when the cards change): the back at 390 x 640 in
    English, light and night, and in Hebrew (right to left)."""
    url, cards = anki_cards
    page = browser.new_page(*SCREENS["phone"])
    try:
        for kind, (sample_id, ord_, hebrew_id) in SHOWN.items():
            (english,) = _find(cards, "sample", "en", sample_id, ord_)
            shown = [(english, ""), (english, "nightMode")]
            shown += [(card, "") for card in _find(cards, "every-kind", "he", hebrew_id, ord_)]
            panes = []
            for card, night in shown:
                page.navigate(_empty_page(url, cards, card))
                panes.append(_pane(page, card, night))
            sheet = "".join(f'<img src="{pane}" width="390" height="640">' for pane in panes)
            _screen(page, 400 * len(panes))
            page.navigate("data:text/html," + quote(f'<body style="margin:0;display:flex;gap:10px">{sheet}'))
            page.screenshot(OUTPUT / f"kind-{kind}.png")
            _screen(page, SCREENS["phone"][0])
            assert len(panes) == 3
        assert page.errors() == []
    finally:
        page.close()
