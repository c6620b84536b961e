"""Golden files: the front and back of one question in every language, as cards show them.

``tests/golden/<lang>/front.html`` and ``back.html`` hold what the preview's
renderer (which renders exactly as Anki, see test_ankitemplate.py) makes of
the question of ``tests/data/every-language``. A change to the templates or
labels shows up here as a readable diff. After an intended change, regenerate
them and review the diff:

    ANKIBUILD_REGENERATE=1 python -m pytest tests/test_golden.py

The card script's content-hashed file name is written as ``_ankibuild-HASH.js``
so that editing the script alone does not touch every golden file (its naming
is tested in test_cards.py).
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from ankibuild.preview import CardSides, render_cards
from ankibuild.templatefolders import DEFAULTS

from .conftest import DATA

GOLDEN = Path(__file__).resolve().parent / "golden"
LANGUAGES = ("de", "fr", "en", "es", "it", "pt", "nl", "pl", "ru", "ja", "zh", "zh-Hant", "ko", "ar", "he")
_ASSET = re.compile(r"_ankibuild-[0-9a-f]{12}\.js")


def _cards() -> dict[str, CardSides]:
    rendered = render_cards(decks=DATA / "every-language")
    return {card.lang: card for card in rendered.cards}


def test_every_language_with_labels_has_golden_files() -> None:
    """The sample covers each language that has its own labels, and nothing else is left behind."""
    labelled = {p.parent.name for p in DEFAULTS.glob("*/labels.yaml")} - {"default"}
    assert labelled == set(LANGUAGES)
    assert {p.name for p in GOLDEN.iterdir()} == set(LANGUAGES)


@pytest.mark.parametrize("lang", LANGUAGES)
def test_rendered_card_matches_its_golden_files(lang: str) -> None:
    """Front and back of the sample question in ``lang``, exactly as stored."""
    card = _cards()[lang]
    for name, text in (("front.html", card.front), ("back.html", card.back)):
        path = GOLDEN / lang / name
        actual = _ASSET.sub("_ankibuild-HASH.js", text)
        if os.environ.get("ANKIBUILD_REGENERATE"):
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(actual, encoding="utf-8")
        assert actual == path.read_text(encoding="utf-8"), f"{path} differs: see this file's docstring to regenerate"
