"""Golden files: the front and back of one question in every language, as cards show them.

``tests/golden/languages/<lang>/front.html`` and ``back.html`` hold what the
preview's renderer (which renders exactly as Anki, see test_ankitemplate.py)
makes of the question of ``tests/data/every-language``;
``tests/golden/kinds/<kind>/<lang>/`` hold the cards of each other kind, from ``tests/data/more-kinds`` and
``tests/data/cloze``, named by question (and card, for a note with several: a
cloze card by its cloze number). A change to the templates or
labels shows up here as a readable diff. After an intended change, regenerate
them and review the diff:

    ANKIBUILD_REGENERATE=1 python -m pytest tests/cards/test_golden.py

The card script's content-hashed file name is written as ``_ankibuild-HASH.js``
so that editing the script alone does not touch every golden file (its naming
is tested in test_cards.py).
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from ankibuild.cards.folders import DEFAULTS
from ankibuild.kinds import DEFAULT_KIND, KINDS
from ankibuild.preview.target import CardSides, render_cards

from ..conftest import DATA, ROOT

GOLDEN = ROOT / "tests" / "golden"
#: One question in every language, and the cards of each kind, by kind.
BY_LANGUAGE, BY_KIND = GOLDEN / "languages", GOLDEN / "kinds"
LANGUAGES = ("de", "fr", "en", "es", "it", "pt", "nl", "pl", "ru", "ja", "zh", "zh-Hant", "ko", "ar", "he")
#: The test banks whose notes of the other kinds have golden files.
KIND_BANKS = ("more-kinds", "cloze")
_ASSET = re.compile(r"_ankibuild-[0-9a-f]{12}\.js")


def _cards() -> dict[str, CardSides]:
    rendered = render_cards(decks=DATA / "every-language")
    return {card.lang: card for card in rendered.cards}


def test_every_language_with_labels_has_golden_files() -> None:
    """The sample covers each language that has its own labels, and nothing else is left behind."""
    labelled = {p.parent.name for p in DEFAULTS.glob("*/labels.yaml")} - {"default"}
    assert labelled == set(LANGUAGES)
    assert {p.name for p in BY_LANGUAGE.iterdir()} == set(LANGUAGES)
    assert {p.name for p in BY_KIND.iterdir()} <= set(KINDS)


@pytest.mark.parametrize("lang", LANGUAGES)
def test_rendered_card_matches_its_golden_files(lang: str) -> None:
    """Front and back of the sample question in ``lang``, exactly as stored."""
    card = _cards()[lang]
    _compare(BY_LANGUAGE / lang, "", card)


def _compare(folder: Path, prefix: str, card: CardSides) -> None:
    for name, text in ((f"{prefix}front.html", card.front), (f"{prefix}back.html", card.back)):
        path = folder / name
        actual = _ASSET.sub("_ankibuild-HASH.js", text)
        if os.environ.get("ANKIBUILD_REGENERATE"):
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(actual, encoding="utf-8")
        assert actual == path.read_text(encoding="utf-8"), f"{path} differs: see this file's docstring to regenerate"


@pytest.mark.parametrize("kind", [name for name in KINDS if name != DEFAULT_KIND and (BY_KIND / name).exists()])
def test_every_card_of_the_other_kinds_matches_its_golden_files(kind: str) -> None:
    """Each card of each note of ``kind`` in the test banks of the other kinds, in a language of each direction
    (a cloze note's card is named by its cloze number)."""
    cards = []
    for bank in KIND_BANKS:
        rendered = render_cards(decks=DATA / bank)
        kinds = {note.question_id: note.kind for note in rendered.notes}
        cards += [card for card in rendered.cards if kinds[card.question_id] == kind]
    assert cards
    for card in cards:
        _compare(BY_KIND / kind / card.lang, f"{card.question_id}-{card.ord + 1}-", card)
    stored = {path.relative_to(BY_KIND / kind).as_posix() for path in (BY_KIND / kind).glob("*/*.html")}
    named = {f"{c.lang}/{c.question_id}-{c.ord + 1}-{side}.html" for c in cards for side in ("front", "back")}
    assert stored == named, "a golden file no card matches: delete it"


def test_several_answers_feedback_and_a_kept_order_match_their_golden_files() -> None:
    """Each multiple-choice card of ``tests/data/choice-features`` (several answers, feedback, shuffle: false),
    in English and Arabic, in ``golden/kinds/choice/<lang>/``."""
    cards = render_cards(decks=DATA / "choice-features").cards
    for card in cards:
        _compare(BY_KIND / DEFAULT_KIND / card.lang, f"{card.question_id}-", card)
    stored = {path.relative_to(BY_KIND / DEFAULT_KIND).as_posix() for path in (BY_KIND / DEFAULT_KIND).glob("*/*.html")}
    assert stored == {f"{c.lang}/{c.question_id}-{side}.html" for c in cards for side in ("front", "back")}
