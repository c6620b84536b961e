"""The cards in a real browser: choose, flip, and see the choice marked, as on each Anki client.

Headless Chromium (Debian's ``chromium`` package) is driven through the
DevTools protocol over a pipe (tests/cdp.py). The preview page flips a card by
loading its back as a new page, as AnkiDroid does; the card pages are also
loaded on their own from a local server (AnkiDroid's way again), and swapped
inside one page (Anki desktop's way). Screenshots go to tests/output/.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from ankibuild.preview.target import CardSides, card_document, render_cards

from ..browsertools import (
    ANKI_HR,
    OUTPUT,
    STATE,
    SWAP,
    PreviewCard,
    browser,
    only_local,
    page,
    published_scenario,
    served,
)
from ..cdp import Browser, Page, chromium
from ..conftest import DATA, ROOT

__all__ = ["browser", "page"]  # the fixtures, for the tests here

pytestmark = pytest.mark.skipif(
    chromium() is None, reason="no Chromium installed: apt-get install chromium (Debian) to run the browser tests"
)


#: A webview that refuses sessionStorage, as some do.
NO_SESSION_STORAGE = """Object.defineProperty(window, "sessionStorage", {
  get() { throw new DOMException("The operation is insecure.", "SecurityError"); }
});"""


@pytest.fixture(scope="module")
def every_language(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return published_scenario(tmp_path_factory.mktemp("every-language"), "every-language")


@pytest.fixture(scope="module")
def rtl_sample(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return published_scenario(tmp_path_factory.mktemp("rtl-sample"), "rtl-sample")


@pytest.mark.parametrize(
    ("lang", "tapped", "verdict"),
    [("de", "A", "Falsch beantwortet"), ("fr", "B", "Bonne réponse"), ("ja", "D", "不正解")],
)
def test_a_tapped_option_is_marked_after_the_flip(
    page: Page, every_language: Path, lang: str, tapped: str, verdict: str
) -> None:
    """Tap an option, show the answer (a new page): the choice is marked right or wrong, the answer right."""
    page.navigate(every_language.as_uri())
    card = PreviewCard(page, f"{lang}-closest-planet")
    card.wait("front")
    card.tap(".ab-option", "ABCD".index(tapped))
    front = card.state()
    card.screenshot(f"preview-{lang}-front")
    card.button("flip")
    back = card.state()
    card.screenshot(f"preview-{lang}-back")
    assert [mark for _, _, mark in front["options"]] == ["selected" if o == tapped else "plain" for o in "ABCD"]
    chosen = "right" if tapped == "B" else "wrong"
    assert [mark for _, _, mark in back["options"]] == [
        chosen if o == tapped else "right" if o == "B" else "plain" for o in "ABCD"
    ]
    assert back["verdict"] == verdict and back["explanation"]
    assert back["signs"] == ["\u2717" if o == tapped and o != "B" else "\u2713" if o == "B" else "" for o in "ABCD"]
    assert (front["verdict"], front["explanation"]) == ("", False)
    only_local(page)


def test_again_starts_a_new_review_without_the_old_choice(page: Page, every_language: Path) -> None:
    """After 'Again' the front is fresh, and flipping without choosing marks only the correct option."""
    page.navigate(every_language.as_uri())
    card = PreviewCard(page, "en-closest-planet")
    card.wait("front")
    card.tap(".ab-option", 0)
    card.button("flip")
    card.button("again")
    front = card.state()
    card.button("flip")
    back = card.state()
    assert [mark for _, _, mark in front["options"]] == ["plain"] * 4
    assert [mark for _, _, mark in back["options"]] == ["plain", "right", "plain", "plain"]
    assert back["verdict"] == ""
    only_local(page)


def test_number_keys_follow_the_shuffled_order_right_to_left(page: Page, rtl_sample: Path) -> None:
    """With shuffle, 2 and Alt+3 pick the second and third options shown; the back keeps the order."""
    page.navigate(rtl_sample.as_uri())
    card = PreviewCard(page, "ar-cpu-acronym")
    card.wait("front")
    card.tap(".ab-question")  # the keyboard now goes to the card
    page.press(2)
    second = card.state()
    page.press(3, alt=True)
    front = card.state()
    card.screenshot("preview-ar-shuffled-front")
    card.button("flip")
    back = card.state()
    card.screenshot("preview-ar-shuffled-back")
    order = [letter for letter, _, _ in front["options"]]
    assert sorted(order) == ["A", "B", "C"]
    assert [mark for _, _, mark in second["options"]] == ["plain", "selected", "plain"]
    assert [shown for _, shown, _ in front["options"]] == ["أ", "ب", "ج"]  # letters follow the places
    assert [letter for letter, _, _ in back["options"]] == order
    assert [shown for _, shown, _ in back["options"]] == ["أ", "ب", "ج"]
    right = "right" if order[2] == "A" else "wrong"
    assert [mark for _, _, mark in back["options"]] == [
        right if i == 2 else "right" if letter == "A" else "plain" for i, letter in enumerate(order)
    ]
    signs = {letter: sign for (letter, _, _), sign in zip(back["options"], back["signs"], strict=True)}
    assert signs == {letter: "\u2713" if letter == "A" else "\u2717" if letter == order[2] else "" for letter in order}
    assert (front["direction"], back["direction"]) == ("rtl", "rtl")
    assert back["verdict"] == ("إجابة صحيحة" if right == "right" else "إجابة خاطئة")
    only_local(page)


def test_every_language_fits_a_phone_and_night_mode_applies(browser: Browser, every_language: Path) -> None:
    """At 375 pixels no card scrolls sideways, front or back; night mode darkens every card."""
    page = browser.new_page(375, 800)
    try:
        page.navigate(every_language.as_uri())
        page.evaluate("document.getElementById('pv-night').click()")
        for lang in ("de", "fr", "en", "es", "it", "pt", "nl", "pl", "ru", "ja", "zh", "zh-Hant", "ko", "ar", "he"):
            card = PreviewCard(page, f"{lang}-closest-planet")
            card.wait("front")
            assert not card.state()["overflow"], lang
            card.button("flip")
            assert not card.state()["overflow"], lang
            assert page.evaluate(f"getComputedStyle({card.document}.body).backgroundColor") == "rgb(30, 30, 30)"
            if lang in ("de", "ja", "he"):
                card.screenshot(f"preview-{lang}-phone-night")
        only_local(page)
    finally:
        page.close()


@pytest.fixture(scope="module")
def card_pages(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """Each card's front and back as pages of their own on a local server, with the script as a file."""
    root = tmp_path_factory.mktemp("card-pages")
    rendered = render_cards(decks=DATA / "every-language")
    for card in rendered.cards:
        css = rendered.templates[card.lang].css
        (root / f"{card.lang}-front.html").write_text(card_document(css, card.front), encoding="utf-8")
        (root / f"{card.lang}-back.html").write_text(card_document(css, card.back), encoding="utf-8")
        (root / "empty.html").write_text(card_document(css, ""), encoding="utf-8")
    for asset in rendered.templates["de"].media:
        (root / asset.name).write_bytes(asset.content)
    with served(root) as url:
        yield url


def _document_state(page: Page) -> dict[str, Any]:
    state: dict[str, Any] = page.evaluate(f"({STATE})(document)")
    return state


def _tap_option(page: Page, index: int) -> None:
    x, y = page.evaluate(
        f"(() => {{ const box = document.querySelectorAll('.ab-quiz .ab-option')[{index}].getBoundingClientRect();"
        " return [box.x + box.width / 2, box.y + box.height / 2]; })()"
    )
    page.click(x, y)


@pytest.mark.parametrize("store", ["sessionStorage", "window.name"])
def test_the_choice_survives_a_reload_between_sides_as_on_ankidroid(page: Page, card_pages: str, store: str) -> None:
    """The back is a new page of the same origin: the choice comes back through storage alone."""
    if store == "window.name":
        page.send("Page.addScriptToEvaluateOnNewDocument", {"source": NO_SESSION_STORAGE})
    page.navigate(f"{card_pages}/de-front.html")
    assert page.evaluate("(() => { try { return !!sessionStorage; } catch (e) { return false; } })()") == (
        store == "sessionStorage"
    )
    _tap_option(page, 2)
    if store == "sessionStorage":
        page.evaluate("window.name = ''")
    page.navigate(f"{card_pages}/de-back.html")
    back = _document_state(page)
    page.screenshot(OUTPUT / f"ankidroid-de-back-{store.replace('.', '-')}.png")
    page.navigate(f"{card_pages}/fr-back.html")  # another card's back, never its front: nothing chosen there
    other = _document_state(page)
    assert [mark for _, _, mark in back["options"]] == ["plain", "right", "wrong", "plain"]
    assert back["verdict"] == "Falsch beantwortet"
    assert [mark for _, _, mark in other["options"]] == ["plain", "right", "plain", "plain"]
    assert other["verdict"] == ""
    assert page.errors() == []


def test_the_choice_survives_the_flip_as_on_anki_desktop(page: Page, card_pages: str) -> None:
    """One page whose content is swapped, scripts run again, without sessionStorage: a global keeps the choice.

    window.name is taken by another script here, and the card leaves it alone.
    """
    page.send("Page.addScriptToEvaluateOnNewDocument", {"source": NO_SESSION_STORAGE})
    page.navigate(f"{card_pages}/empty.html")
    page.evaluate("window.name = 'another script'")
    sides = {c.lang: c for c in render_cards(decks=DATA / "every-language").cards}

    def show(card: CardSides, side: str) -> None:
        page.evaluate(f"({SWAP})({json.dumps(card.front if side == 'front' else card.back)})")

    show(sides["ja"], "front")
    page.click(5, 5)  # the page has the keyboard, as Anki's card view does
    page.press(4)
    show(sides["ja"], "back")
    page.press(1)  # on the back the digits are Anki's rating keys: the card ignores them
    back = _document_state(page)
    page.screenshot(OUTPUT / "desktop-ja-back.png")
    show(sides["ja"], "front")  # the next review of the same card starts afresh
    again = _document_state(page)
    assert page.evaluate("(() => { try { sessionStorage; return false; } catch (e) { return true; } })()")
    assert page.evaluate("window.name") == "another script"
    assert [mark for _, _, mark in back["options"]] == ["plain", "right", "plain", "wrong"]
    assert back["verdict"] == "不正解"
    assert [mark for _, _, mark in again["options"]] == ["plain"] * 4
    assert page.errors() == []


def test_without_javascript_the_back_still_shows_the_answer(page: Page, card_pages: str) -> None:
    """Scripts off: the front lists the options; the back marks the correct one and explains it."""
    page.send("Emulation.setScriptExecutionDisabled", {"value": True})
    page.navigate(f"{card_pages}/he-front.html")
    front = page.evaluate("[...document.querySelectorAll('.ab-option')].map((li) => li.innerText.trim())")
    page.navigate(f"{card_pages}/he-back.html")
    page.send("Emulation.setScriptExecutionDisabled", {"value": False})  # to read the page, not to run the card
    back = _document_state(page)
    page.screenshot(OUTPUT / "no-script-he-back.png")
    assert front == ["א\nנוגה", "ב\nכוכב חמה", "ג\nמאדים", "ד\nכדור הארץ"]  # noqa: RUF001 (Hebrew letters)
    assert [mark for _, _, mark in back["options"]] == ["plain", "right", "plain", "plain"]
    assert back["signs"] == ["", "\u2713", "", ""] and back["explanation"] and back["verdict"] == ""
    assert back["direction"] == "rtl"


# -- every screen: phone and desktop, light and both night classes ------------------

#: How a card's page reads, measured: what sticks out sideways, and the contrast of
#: each option's border (with the page) and of its sign (with the option's own background).
AUDIT = """(() => {
  const view = window;
  const rgb = (colour) => (colour.match(/[\\d.]+/g) || [0, 0, 0, 0]).map(Number);
  const luminance = ([r, g, b]) => [r, g, b].map((v) => {
    v /= 255; return v <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4);
  }).reduce((sum, v, i) => sum + v * [0.2126, 0.7152, 0.0722][i], 0);
  const contrast = (a, b) => {
    const [x, y] = [luminance(rgb(a)), luminance(rgb(b))].sort((p, q) => q - p);
    return Math.round((x + 0.05) / (y + 0.05) * 100) / 100;
  };
  const page = getComputedStyle(document.body).backgroundColor;
  const ground = (element) => {
    const colour = getComputedStyle(element).backgroundColor;
    return rgb(colour)[3] === 0 ? page : colour;
  };
  const scrolls = (element) => {
    for (let node = element; node && node !== document.body; node = node.parentElement) {
      if (/auto|scroll/.test(getComputedStyle(node).overflowX)) return true;
    }
    return false;
  };
  const width = document.documentElement.clientWidth;
  const sticking = [...document.body.querySelectorAll("*")].filter(
    (e) => e.getBoundingClientRect().right > width + 0.5 && !scrolls(e)).map((e) => e.tagName + "." + e.className);
  const options = [...document.querySelectorAll(".ab-quiz .ab-option")].map((li) => {
    const after = getComputedStyle(li, "::after");
    const sign = after.content.replace(/^none$|"/g, "");
    return {
      letter: li.dataset.letter,
      border: contrast(getComputedStyle(li).borderTopColor, page),
      badge: contrast(getComputedStyle(li.querySelector(".ab-letter")).borderTopColor, ground(li)),
      sign: sign,
      signContrast: sign ? contrast(after.color, ground(li)) : 0,
    };
  });
  const verdict = document.querySelector(".ab-verdict");
  const visibleSpan = (v) => [...v.children].find((e) => getComputedStyle(e).display !== "none") || v;
  const shown = verdict && getComputedStyle(verdict).display !== "none";
  const code = [...document.querySelectorAll(".ab-code")];
  const colours = [...document.querySelectorAll(".ab-code [class^=ab-hl-], .ab-code")].map(
    (e) => contrast(getComputedStyle(e).color, getComputedStyle(e.closest(".ab-code")).backgroundColor));
  return {
    overflow: document.documentElement.scrollWidth > width,
    sticking: sticking,
    options: options,
    verdict: shown ? contrast(getComputedStyle(visibleSpan(verdict)).color, page) : 0,
    text: contrast(getComputedStyle(document.body).color, page),
    page: luminance(rgb(page)),
    codeWide: code.filter((pre) => pre.scrollWidth > pre.clientWidth + 1).length,
    codeHonest: code.every((pre) => {
      const style = getComputedStyle(pre);
      return /^pre/.test(style.whiteSpace) && !/wrap/.test(style.whiteSpace) && (pre.scrollWidth <= pre.clientWidth + 1
        || (style.overflowX === "auto" && (style.backgroundImage.match(/radial-gradient/g) || []).length === 2));
    }),
    codeContrast: Math.min(99, ...colours),
    codePage: Math.max(0, ...code.map((pre) => luminance(rgb(getComputedStyle(pre).backgroundColor)))),
    images: [...document.querySelectorAll(".ab-card img")].map((img) => getComputedStyle(img).backgroundColor),
    rules: [...document.querySelectorAll(".ab-card hr")].map((hr) => hr.getBoundingClientRect().height),
  };
})()"""

MODES = {"light": "", "nightMode": "nightMode", "night_mode": "night_mode"}


@pytest.fixture(scope="module")
def every_screen(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, list[CardSides]]]:
    """Every card of the test banks with labels and formulas, and of the sample bank (every kind), with the files
    they load."""
    root = tmp_path_factory.mktemp("every-screen")
    cards: list[CardSides] = []
    for decks in (DATA / "every-language", DATA / "formulas", ROOT / "decks"):
        rendered = render_cards(decks=decks)
        cards += rendered.cards
        for name, content in rendered.images.items():
            (root / name).write_bytes(content)
        for asset in rendered.templates[rendered.cards[0].lang].media:
            (root / asset.name).write_bytes(asset.content)
        css = next(iter(rendered.templates.values())).css
    # Anki's own style for hr, a 2-pixel full-width rule, as a reviewer puts it before the card's
    (root / "empty.html").write_text(card_document(ANKI_HR + css, ""), encoding="utf-8")
    with served(root) as url:
        yield url, cards


def _states(page: Page, card: CardSides) -> Iterator[tuple[str, str]]:
    """Show the card in each state a student meets (Anki desktop's way); yields each state's name and answer."""
    if 'data-answer="' not in card.back:  # nothing to choose (a flashcard): its front, then its back
        for name, side in (("front", card.front), ("back", card.back)):
            page.evaluate(f"({SWAP})({json.dumps(side)})")
            yield name, ""
        return
    answers = card.back.split('data-answer="', 1)[1].split('"', 1)[0].split()
    answer = answers[0]  # of several correct options, the first alone: the others are marked missed
    letters = [part.split('"', 1)[0] for part in card.front.split('class="ab-option" data-letter="')[1:]]
    wrong = next(letter for letter in letters if letter not in answers)
    swap = f"({SWAP})"
    for name, choice in (("chosen", wrong), ("right", answer), ("wrong", wrong), ("unanswered", "")):
        page.evaluate(f"{swap}({json.dumps(card.front)})")
        if choice:  # by its place as shown: a shuffled card has its own order
            shown = page.evaluate(
                "[...document.querySelectorAll('.ab-quiz .ab-option')].map((li) => li.dataset.letter)"
            )
            page.evaluate(f"window.ankibuildKey({shown.index(choice)})")
        if name != "chosen":
            page.evaluate(f"{swap}({json.dumps(card.back)})")
        yield name, answer


@pytest.mark.parametrize("width", [390, 1200])
def test_every_card_reads_on_every_screen_in_light_and_both_night_modes(
    browser: Browser, every_screen: tuple[str, list[CardSides]], width: int
) -> None:
    """Nothing sticks out sideways but inside a scrolling block; borders and signs keep 3:1; every state has a sign.

    Code keeps its lines and scrolls on its own, a shadow at its edge; under either night class the page, code
    and diagrams are recoloured.
    """
    url, cards = every_screen
    page = browser.new_page(width, 900)
    wide = 0
    try:
        page.navigate(f"{url}/empty.html")
        for card in cards:
            for state, answer in _states(page, card):
                for mode, night in MODES.items():
                    page.evaluate(f"document.body.className = 'card card1 {night}'")
                    seen = page.evaluate(AUDIT)
                    where = (card.lang, card.question_id, state, mode)
                    assert not seen["overflow"] and seen["sticking"] == [], (where, seen["sticking"])
                    assert all(o["border"] >= 3 for o in seen["options"]), (where, seen["options"])
                    assert all(o["signContrast"] >= 3 for o in seen["options"] if o["sign"]), (where, seen["options"])
                    assert seen["text"] >= 7 and seen["codeContrast"] >= 4.5, (where, seen)
                    signs = {o["letter"]: o["sign"] for o in seen["options"]}
                    if state in ("right", "wrong", "unanswered"):  # the back: the correct option has its tick
                        assert signs[answer] == "\u2713", where
                        wrong = {"\u2717"} if state == "wrong" else set()
                        assert set(signs.values()) - {"", "\u2713"} == wrong, (where, signs)
                        assert state == "unanswered" or seen["verdict"] >= 3, where
                    assert all(height <= 1 for height in seen["rules"]), where  # Anki's hr style stays out
                    # code keeps its lines (a wrapped one reads as a new statement): it scrolls, a shadow at the edge
                    assert seen["codeHonest"], where
                    wide += seen["codeWide"]
                    if night:
                        assert seen["page"] < 0.05 and seen["codePage"] < 0.05, where
                        assert all(colour == "rgb(255, 255, 255)" for colour in seen["images"]), where
                    if state == "wrong" and card.question_id in ("roofline", "conv-im2col-gemm") and card.lang == "fr":
                        page.screenshot(OUTPUT / f"screen-{width}-{card.question_id}-{card.lang}-{state}-{mode}.png")
        assert page.errors() == []
        assert wide or width > 500, "no code block of the sample is wider than a phone: the scrolling is not tested"
    finally:
        page.close()


def test_a_pinned_option_keeps_its_place_while_the_others_shuffle(page: Page, card_pages: str) -> None:
    """'None of the above', pinned, is last at every review; the other options take every order."""
    (card,) = render_cards(decks=DATA / "pinned").cards
    page.navigate(f"{card_pages}/empty.html")
    orders = set()
    for _ in range(40):
        page.evaluate(f"({SWAP})({json.dumps(card.front)})")
        orders.add(tuple(page.evaluate("[...document.querySelectorAll('.ab-option')].map((o) => o.dataset.letter)")))
    assert {order[-1] for order in orders} == {"E"}
    assert len(orders) > 6 and {order[0] for order in orders} == set("ABCD")
    assert page.errors() == []


# -- true/false ----------------------------------------------------------------------


@pytest.fixture(scope="module")
def truefalse_pages(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The true/false card of tests/data/more-kinds (its answer: false) in English and Arabic, side by side as pages."""
    root = tmp_path_factory.mktemp("truefalse-pages")
    rendered = render_cards(decks=DATA / "more-kinds")
    for card in rendered.cards:
        if card.question_id == "ram-is-volatile":
            css = rendered.templates[card.lang].css
            (root / f"{card.lang}-front.html").write_text(card_document(css, card.front), encoding="utf-8")
            (root / f"{card.lang}-back.html").write_text(card_document(css, card.back), encoding="utf-8")
            (root / "empty.html").write_text(card_document(css, ""), encoding="utf-8")
    for asset in rendered.templates["en"].media:
        (root / asset.name).write_bytes(asset.content)
    with served(root) as url:
        yield url


#: What each choice of the statement (false) makes of the back: the marks of True and False, and the verdict.
TRUEFALSE_BACKS = {
    ("en", "true"): (["wrong", "right"], ["\u2717", "\u2713"], "You answered incorrectly"),
    ("en", "false"): (["plain", "right"], ["", "\u2713"], "You answered correctly"),
    ("ar", "true"): (["wrong", "right"], ["\u2717", "\u2713"], "إجابة خاطئة"),
    ("ar", "false"): (["plain", "right"], ["", "\u2713"], "إجابة صحيحة"),
}


@pytest.mark.parametrize(("lang", "choice"), list(TRUEFALSE_BACKS))
def test_a_true_false_choice_is_judged_on_the_back_as_on_ankidroid(
    page: Page, truefalse_pages: str, lang: str, choice: str
) -> None:
    """Tap True or False, load the back as a new page: the choice is marked, the answer ticked, the verdict given."""
    page.navigate(f"{truefalse_pages}/{lang}-front.html")
    front = _document_state(page)
    _tap_option(page, ["true", "false"].index(choice))
    chosen = _document_state(page)
    page.navigate(f"{truefalse_pages}/{lang}-back.html")
    back = _document_state(page)
    page.screenshot(OUTPUT / f"ankidroid-truefalse-{lang}-{choice}-back.png")
    labels = {"en": ["A", "B"], "ar": ["أ", "ب"]}[lang]
    assert front["options"] == [["true", labels[0], "plain"], ["false", labels[1], "plain"]]
    assert [mark for _, _, mark in chosen["options"]] == [
        "selected" if o == choice else "plain" for o in ("true", "false")
    ]
    marks, signs, verdict = TRUEFALSE_BACKS[lang, choice]
    assert [mark for _, _, mark in back["options"]] == marks and back["signs"] == signs
    assert back["verdict"] == verdict and back["explanation"]
    assert (front["direction"], back["direction"]) == (("rtl", "rtl") if lang == "ar" else ("ltr", "ltr"))
    assert page.errors() == []


def test_a_true_false_choice_survives_the_flip_as_on_anki_desktop(page: Page, truefalse_pages: str) -> None:
    """One page whose content is swapped: the key 1 picks True, the back judges it; the next front starts afresh."""
    page.send("Page.addScriptToEvaluateOnNewDocument", {"source": NO_SESSION_STORAGE})
    page.navigate(f"{truefalse_pages}/empty.html")
    sides = {
        (c.lang, c.ord): c for c in render_cards(decks=DATA / "more-kinds").cards if c.question_id == "ram-is-volatile"
    }
    card = sides["en", 0]
    page.evaluate(f"({SWAP})({json.dumps(card.front)})")
    page.click(5, 5)
    page.press(1)
    chosen = _document_state(page)
    page.evaluate(f"({SWAP})({json.dumps(card.back)})")
    back = _document_state(page)
    page.screenshot(OUTPUT / "desktop-truefalse-en-back.png")
    page.evaluate(f"({SWAP})({json.dumps(card.front)})")
    again = _document_state(page)
    assert [mark for _, _, mark in chosen["options"]] == ["selected", "plain"]
    assert [mark for _, _, mark in back["options"]] == ["wrong", "right"] and back[
        "verdict"
    ] == "You answered incorrectly"
    assert [mark for _, _, mark in again["options"]] == ["plain", "plain"] and again["verdict"] == ""
    assert page.errors() == []


def test_without_javascript_a_true_false_back_still_shows_the_answer(page: Page, truefalse_pages: str) -> None:
    """Scripts off: the back ticks the true answer (False) from the note alone, and explains it."""
    page.send("Emulation.setScriptExecutionDisabled", {"value": True})
    page.navigate(f"{truefalse_pages}/ar-back.html")
    page.send("Emulation.setScriptExecutionDisabled", {"value": False})  # to read the page, not to run the card
    back = _document_state(page)
    page.screenshot(OUTPUT / "no-script-truefalse-ar-back.png")
    assert [mark for _, _, mark in back["options"]] == ["plain", "right"] and back["signs"] == ["", "\u2713"]
    assert back["verdict"] == "" and back["explanation"] and back["direction"] == "rtl"
