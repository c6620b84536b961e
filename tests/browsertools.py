"""What the tests in a browser share: Chromium and a page, the preview's cards served, and a tap on an option."""

from __future__ import annotations

import json
import shutil
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from functools import partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from ankibuild import build
from ankibuild.preview.target import write_preview

from .cdp import Browser, Page, chromium, launch
from .conftest import DATA

OUTPUT = Path(__file__).resolve().parent / "output"


#: Anki desktop's way of showing a side: the card's HTML goes into the page
#: that is already there, and each script is run again (external ones loaded).
SWAP = """async (html) => {
  const qa = document.getElementById("qa");
  qa.innerHTML = html;
  for (const old of [...qa.querySelectorAll("script")]) {
    const fresh = document.createElement("script");
    for (const attribute of old.attributes) fresh.setAttribute(attribute.name, attribute.value);
    fresh.text = old.text;
    const loaded = fresh.src ? new Promise((done, failed) => { fresh.onload = done; fresh.onerror = failed; }) : null;
    old.replaceWith(fresh);
    await loaded;
  }
  return true;
}"""


@pytest.fixture(scope="module")
def browser(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Browser]:
    executable = chromium()
    assert executable is not None
    with launch(executable, tmp_path_factory.mktemp("profile")) as running:
        yield running


@pytest.fixture
def page(browser: Browser) -> Iterator[Page]:
    opened = browser.new_page(900, 1000)
    yield opened
    opened.close()


def published_scenario(root: Path, scenario: str) -> Path:
    """A scenario bank built and previewed as a student would publish it; the page's path."""
    shutil.copytree(DATA / scenario, root / "decks")
    build(decks=root / "decks", out=root / "dist")
    return write_preview(decks=root / "decks", out=root / "dist" / "preview", packages=root / "dist").path


@dataclass
class PreviewCard:
    """A card of the preview page, driven as a person would: taps, keys and buttons."""

    page: Page
    id: str

    @property
    def _article(self) -> str:
        return f"document.getElementById({json.dumps(self.id)})"

    @property
    def document(self) -> str:
        return f"{self._article}.querySelector('iframe').contentDocument"

    def wait(self, side: str) -> None:
        self.page.evaluate(f"{self._article}.scrollIntoView()")
        self.page.wait_for(f"{self._article}.dataset.ready === 'true' && {self._article}.dataset.side === '{side}'")
        self.page.evaluate(f"{self._article}.scrollIntoView()")

    def state(self) -> dict[str, Any]:
        state: dict[str, Any] = self.page.evaluate(f"({STATE})({self.document})")
        return state

    def tap(self, selector: str, index: int = 0) -> None:
        """A click in the middle of an element of the card, through its frame."""
        x, y = self.page.evaluate(
            f"(() => {{ const frame = {self._article}.querySelector('iframe').getBoundingClientRect();"
            f" const box = {self.document}.querySelectorAll({json.dumps(selector)})[{index}].getBoundingClientRect();"
            " return [frame.x + box.x + box.width / 2, frame.y + box.y + box.height / 2]; })()"
        )
        self.page.click(x, y)

    def button(self, name: str) -> None:
        x, y = self.page.evaluate(
            f"(() => {{ const box = {self._article}.querySelector('.pv-{name}').getBoundingClientRect();"
            " return [box.x + box.width / 2, box.y + box.height / 2]; })()"
        )
        self.page.click(x, y)
        self.wait("back" if name == "flip" else "front")

    def screenshot(self, name: str) -> None:
        self.page.screenshot(OUTPUT / f"{name}.png", f"[id={json.dumps(self.id)}]")


@contextmanager
def served(root: Path) -> Iterator[str]:
    """The files of ``root`` on a local server, as AnkiDroid loads a card's page; its address."""
    (root / "favicon.ico").write_bytes(b"")  # asked for by the browser, not by the card

    class Quiet(SimpleHTTPRequestHandler):
        def log_message(self, format: str, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), partial(Quiet, directory=str(root)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        thread.join()
        server.server_close()


ANKI_HR = "hr { height: 2px; border: 0; background-color: #888; width: 100%; }\n"


def tap_letter(page: Page, letter: str) -> None:
    """A click on the option with ``letter``, wherever the shuffle put it."""
    x, y = page.evaluate(
        f"(() => {{ const box = document.querySelector('.ab-quiz .ab-option[data-letter={letter}]')"
        ".getBoundingClientRect(); return [box.x + box.width / 2, box.y + box.height / 2]; })()"
    )
    page.click(x, y)


#: What a person sees of a card, read from its page: each option (field letter,
#: letter shown, and how its border is marked), the sign after each option, the verdict.
STATE = """(doc) => {
  const view = doc.defaultView;
  const colour = (name) => {
    const probe = doc.createElement("span");
    probe.style.color = "var(" + name + ")";
    doc.body.appendChild(probe);
    const value = view.getComputedStyle(probe).color;
    probe.remove();
    return value;
  };
  const marks = {right: colour("--ab-right"), wrong: colour("--ab-wrong"), selected: colour("--ab-accent")};
  const mark = (li) => Object.keys(marks).find((k) => marks[k] === view.getComputedStyle(li).borderTopColor) || "plain";
  const visible = (element) => !!element && view.getComputedStyle(element).display !== "none";
  const verdict = doc.querySelector(".ab-verdict");
  return {
    options: [...doc.querySelectorAll(".ab-quiz .ab-option")].map(
      (li) => [li.dataset.letter, li.querySelector(".ab-letter").textContent, mark(li)]),
    verdict: visible(verdict) ? verdict.innerText.trim() : "",
    signs: [...doc.querySelectorAll(".ab-quiz .ab-option")].map(
      (li) => view.getComputedStyle(li, "::after").content.replace(/^none$|"/g, "")),
    explanation: visible(doc.querySelector(".ab-explanation")),
    direction: view.getComputedStyle(doc.querySelector(".ab-quiz")).direction,
    overflow: doc.documentElement.scrollWidth > doc.documentElement.clientWidth,
  };
}"""


def only_local(page: Page) -> None:
    """No script error, and nothing fetched but the page itself and what it carries inside."""
    assert page.errors() == []
    assert all(url.split(":")[0] in ("file", "data", "about", "http") for url in page.requested())
    assert not [url for url in page.requested() if url.startswith("http") and "127.0.0.1" not in url]
