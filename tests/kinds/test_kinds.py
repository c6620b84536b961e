"""Every kind of question in one bank, in a left-to-right and a right-to-left language, through Anki.

One package per language holds a note type per kind. A student imports both,
studies every card, and imports the build after an edit of a question of each
kind: each edited note updates in place, every review is kept, nothing is
added twice and no note type is copied ("Name+").
"""

from __future__ import annotations

import re
from pathlib import Path

from anki.collection import Collection

from ankibuild import build

from ..ankitools import TEMPLATE_ERROR, collection, import_package, review_every_card, review_log

BANK = """\
id: every-kind
languages: [en, he]
title: {en: Every kind, he: כל הסוגים}
topics:
  computing: {en: Computing, he: מחשוב}
"""

QUESTIONS = """\
deck: {en: Kinds, he: סוגים}
questions:
  - id: one-answer
    topics: [computing]
    answer: B
    en:
      question: Which part runs a program's instructions?
      options: [The disk, The processor, The screen]
      explanation: The processor runs instructions; the disk keeps files.
    he:
      question: איזה רכיב מריץ את הוראות התוכנית?
      options: [הדיסק, המעבד, המסך]
      explanation: המעבד מריץ הוראות; הדיסק שומר קבצים.
  - id: several-answers
    topics: [computing]
    answer: [A, C]
    shuffle: false
    en:
      question: Which of these are memories?
      options: [RAM, A keyboard, Flash]
      explanation: RAM and flash hold data; a keyboard is for typing.
      feedback: {B: A keyboard only types.}
    he:
      question: אילו מאלה הם זיכרונות?
      options: [RAM, מקלדת, Flash]
      explanation: RAM ופלאש שומרים נתונים; מקלדת משמשת להקלדה.
      feedback: {B: מקלדת רק מקלידה.}
  - id: ram-is-volatile
    kind: truefalse
    topics: [computing]
    answer: true
    en:
      question: RAM loses its contents when the power is off.
      explanation: RAM is volatile memory.
    he:
      question: זיכרון RAM מאבד את תוכנו כשהחשמל כבה.
      explanation: RAM הוא זיכרון נדיף.
  - id: cpu-acronym
    kind: flashcard
    topics: [computing]
    reverse: true
    en:
      question: What does CPU stand for?
      answer: Central processing unit
    he:
      question: מה פירוש הקיצור CPU?
      answer: יחידת עיבוד מרכזית
  - id: cpu-parts
    kind: cloze
    topics: [computing]
    en:
      question: The {{c1::control unit}} directs the {{c2::arithmetic logic unit::ALU}}.
      explanation: Both are parts of the processor.
    he:
      question: "{{c1::יחידת הבקרה}} מכוונת את {{c2::היחידה האריתמטית-לוגית::ALU}}."
      explanation: שתיהן חלקים של המעבד.
"""

#: An edit of one question of each kind, in one language or the other: (old text, new text).
EDITS = [
    ("the disk keeps files.", "the disk keeps files for later."),
    ("A keyboard only types.", "A keyboard only sends keys."),
    ("RAM הוא זיכרון נדיף.", "RAM הוא זיכרון נדיף מאוד."),
    ("answer: Central processing unit", "answer: Central processing unit (processor)"),
    ("directs the {{c2::", "controls the {{c2::"),
]


def _write_bank(root: Path) -> Path:
    decks = root / "decks"
    decks.mkdir(parents=True)
    (decks / "bank.yaml").write_text(BANK, encoding="utf-8")
    (decks / "kinds.yaml").write_text(QUESTIONS, encoding="utf-8")
    return decks


def _packages(out: Path) -> list[Path]:
    return [out / "every-kind-en.apkg", out / "every-kind-he.apkg"]


def _visible(html: str) -> str:
    """A side of a card as the student reads it, roughly: without elements, styles and scripts."""
    html = re.sub(r"<(style|script)[^>]*>.*?</\1>", " ", html, flags=re.S)
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html))


def _cards(col: Collection) -> dict[tuple[str, str, int], tuple[str, str]]:
    """Every card's front and back as text, by its note's ID field, its note type's name and its ord."""
    cards = {}
    for card_id in col.find_cards(""):
        card = col.get_card(card_id)
        note = card.note()
        output = card.render_output(reload=True)
        assert TEMPLATE_ERROR not in output.question_text + output.answer_text
        notetype = note.note_type()
        assert notetype is not None
        cards[note["ID"], notetype["name"], card.ord] = (_visible(output.question_text), _visible(output.answer_text))
    return cards


def _notetype_names(col: Collection) -> list[str]:
    return sorted(entry.name for entry in col.models.all_names_and_ids())


def test_every_kind_imports_with_the_right_content_in_two_languages(tmp_path: Path) -> None:
    """Each kind's cards in English and Hebrew: the right front and back, and as many cards as Anki makes."""
    decks = _write_bank(tmp_path)
    build(decks=decks, out=tmp_path / "dist")
    with collection(tmp_path / "student.anki2") as col:
        logs = [import_package(col, package) for package in _packages(tmp_path / "dist")]
        assert [log.new for log in logs] == [5, 5]
        cards = _cards(col)
        # One card each, two for a reversed flashcard and for two clozes: as Anki itself counts them.
        assert len(cards) == 2 * (1 + 1 + 1 + 2 + 2)
        assert col.db is not None
        assert not col.db.list("select id from cards where nid not in (select id from notes)")
        names = _notetype_names(col)
    assert len([name for name in names if name.startswith("every-kind")]) == 4 * 2  # a note type per kind and language
    en = {(qid, ord_): sides for (qid, name, ord_), sides in cards.items() if name.endswith("(en)")}
    he = {(qid, ord_): sides for (qid, name, ord_), sides in cards.items() if name.endswith("(he)")}
    front, back = en["one-answer", 0]
    assert "Which part runs" in front and "The processor" in front and "the disk keeps files" in back
    front, back = en["several-answers", 0]
    # The front holds the feedback hidden (the browser tests show what each side shows).
    assert "Which of these are memories?" in front and "A keyboard only types." in back
    front, back = he["ram-is-volatile", 0]
    assert "זיכרון RAM מאבד" in front and "RAM הוא זיכרון נדיף." in back
    assert en["cpu-acronym", 0][0].count("What does CPU stand for?") == 1
    assert "Central processing unit" not in en["cpu-acronym", 0][0]
    assert "Central processing unit" in en["cpu-acronym", 0][1]
    assert "Central processing unit" in en["cpu-acronym", 1][0] and "What does CPU" not in en["cpu-acronym", 1][0]
    front, back = en["cpu-parts", 0]
    assert "control unit" not in front and "[...]" in front and "control unit" in back
    front, back = en["cpu-parts", 1]
    assert "control unit" in front and "[ALU]" in front and "arithmetic logic unit" in back
    front, back = he["cpu-parts", 1]
    assert "[ALU]" in front and "היחידה האריתמטית-לוגית" in back


def test_an_edit_of_each_kind_updates_in_place_and_keeps_every_review(tmp_path: Path) -> None:
    """Study every card, edit one question of each kind, rebuild, import: updated, nothing new, nothing lost."""
    decks = _write_bank(tmp_path)
    out = tmp_path / "dist"
    build(decks=decks, out=out)
    with collection(tmp_path / "student.anki2") as col:
        for package in _packages(out):
            import_package(col, package)
        notes = sorted(col.find_notes(""))
        intervals = review_every_card(col)
        reviews = review_log(col)
        names = _notetype_names(col)
        text = (decks / "kinds.yaml").read_text(encoding="utf-8")
        for old, new in EDITS:
            assert text.count(old) == 1, old
            text = text.replace(old, new)
        (decks / "kinds.yaml").write_text(text, encoding="utf-8")
        build(decks=decks, out=out)
        logs = [import_package(col, package) for package in _packages(out)]
        assert [(log.new, log.conflicting) for log in logs] == [(0, 0), (0, 0)]
        # Anki logs a note it already has as it is as a "duplicate": it adds nothing.
        assert [(log.updated, log.duplicate) for log in logs] == [(4, 1), (1, 4)]
        assert sorted(col.find_notes("")) == notes
        assert review_log(col) == reviews
        assert {card_id: col.get_card(card_id).ivl for card_id in col.find_cards("")} == intervals
        assert _notetype_names(col) == names and not [name for name in names if "+" in name]
        cards = _cards(col)
    assert "the disk keeps files for later." in cards["one-answer", "every-kind (en)", 0][1]
    assert "A keyboard only sends keys." in cards["several-answers", "every-kind (en)", 0][1]
    assert "RAM הוא זיכרון נדיף מאוד." in cards["ram-is-volatile", "every-kind truefalse (he)", 0][1]
    assert "Central processing unit (processor)" in cards["cpu-acronym", "every-kind flashcard (en)", 1][0]
    assert "controls the" in cards["cpu-parts", "every-kind cloze (en)", 0][0]
