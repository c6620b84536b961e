"""The report link in a browser: on the back of the card, visible on a phone's width, left alone by the card script."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from ankibuild import build
from ankibuild.preview.target import write_preview

from ..browsertools import PreviewCard, browser, only_local  # noqa: F401  (the fixture, by its name)
from ..cdp import Browser, chromium
from ..conftest import DATA

pytestmark = pytest.mark.skipif(chromium() is None, reason="no Chromium installed")

REPORT = "https://example.org/new?title={id}&lang={lang}"
#: The link as a person sees it on the back: its text, where it goes, and whether any of it is off the screen.
LINK = """(() => {
  const doc = DOC;
  const link = doc.querySelector(".ab-report a");
  if (!link) return null;
  const box = link.getBoundingClientRect();
  const shown = doc.defaultView.getComputedStyle(link).display !== "none" && box.width > 0 && box.height > 0;
  return [link.textContent, link.getAttribute("href"), shown, box.right <= doc.documentElement.clientWidth];
})()"""


def test_the_back_shows_the_link_and_the_front_does_not_on_a_phone(browser: Browser, tmp_path: Path) -> None:  # noqa: F811
    shutil.copytree(DATA / "every-language", tmp_path / "decks")
    bank = tmp_path / "decks" / "bank.yaml"
    bank.write_text(bank.read_text(encoding="utf-8") + f'report: "{REPORT}"\n', encoding="utf-8")
    build(decks=tmp_path / "decks", out=tmp_path / "dist", languages=["de"])
    preview = write_preview(decks=tmp_path / "decks", out=tmp_path / "dist" / "preview", packages=tmp_path / "dist")
    page = browser.new_page(360, 800)
    try:
        page.navigate(preview.path.as_uri())
        card = PreviewCard(page, "de-closest-planet")
        card.wait("front")
        assert page.evaluate(LINK.replace("DOC", card.document)) is None
        card.button("flip")
        text, href, shown, inside = page.evaluate(LINK.replace("DOC", card.document))
        assert (text, href, shown, inside) == (
            "Fehler melden",  # the German deck's own words (templates/de/labels.yaml)
            "https://example.org/new?title=closest-planet&lang=de",
            True,
            True,
        )
        only_local(page)
    finally:
        page.close()
