"""True/false and flashcard notes in a real Anki collection: every card, and a rebuild that updates them.

The bank ``tests/data/more-kinds`` has a true/false question, a flashcard with
its reverse card and one without, in English and Arabic (right to left).
"""

from __future__ import annotations

import shutil
from pathlib import Path

from anki.collection import Collection

from ..ankitools import TEMPLATE_ERROR, collection, import_package, render, review_every_card, review_log
from ..conftest import ROOT, Project, use_scenario

LANGS = ("en", "ar")


def _import_all(col: Collection, out: Path) -> tuple[int, int, int]:
    """New, updated and conflicting notes, over the packages of every language."""
    logs = [import_package(col, out / f"more-kinds-{lang}.apkg") for lang in LANGS]
    return sum(log.new for log in logs), sum(log.updated for log in logs), sum(log.conflicting for log in logs)


def _cards(col: Collection) -> dict[tuple[str, str, int], tuple[str, str]]:
    """Front and back of every card, by its note's note type name and ID, and the card's ord."""
    cards = {}
    for card_id in col.find_cards(""):
        card = col.get_card(card_id)
        note = card.note()
        cards[note.note_type()["name"], note["ID"], card.ord] = render(col, card_id)  # type: ignore[index]
    return cards


def test_every_card_of_both_kinds_renders_in_anki(project: Project, tmp_path: Path) -> None:
    """One true/false card and three flashcards per language, each with its own front and back."""
    use_scenario(project, "more-kinds").build()
    with collection(tmp_path / "student.anki2") as col:
        assert _import_all(col, project.out) == (6, 0, 0)
        cards = _cards(col)
        names = sorted(m["name"] for m in col.models.all() if m["name"].startswith("more-kinds"))
    assert not [key for key, (front, back) in cards.items() if TEMPLATE_ERROR in front + back]
    assert sorted(cards) == sorted(
        (f"more-kinds {kind} ({lang})", qid, ord_)
        for lang in LANGS
        for kind, qid, ord_ in [
            ("truefalse", "ram-is-volatile", 0),
            ("flashcard", "cpu-acronym", 0),
            ("flashcard", "cpu-acronym", 1),
            ("flashcard", "bytes-in-kib", 0),
        ]
    )
    assert names == sorted(f"more-kinds {kind} ({lang})" for lang in LANGS for kind in ("flashcard", "truefalse"))

    front, back = cards["more-kinds truefalse (en)", "ram-is-volatile", 0]
    assert "<strong>RAM</strong> keeps its contents" in front and ">True<" in front and ">False<" in front
    assert "Explanation" not in front and 'data-answer="false"' in back and "It is volatile" in back
    front, back = cards["more-kinds truefalse (ar)", "ram-is-volatile", 0]
    assert 'dir="rtl"' in front and ">صح<" in front and ">خطأ<" in front and "إنها متطايرة" in back

    front, back = cards["more-kinds flashcard (en)", "cpu-acronym", 0]
    assert "<code>CPU</code>" in front and "Central processing unit" not in front
    assert "Central processing unit" in back and "It runs a program" in back
    front, back = cards["more-kinds flashcard (en)", "cpu-acronym", 1]
    assert "Central processing unit" in front and "<code>CPU</code>" not in front and "<code>CPU</code>" in back
    front, back = cards["more-kinds flashcard (ar)", "cpu-acronym", 1]
    assert 'dir="rtl"' in front and "وحدة المعالجة المركزية" in front and "ماذا يعني" in back
    front, back = cards["more-kinds flashcard (en)", "bytes-in-kib", 0]
    assert r"\(2^{10} = 1024\)" in back and "Explanation" not in back


def test_a_rebuild_updates_both_kinds_in_place_and_keeps_every_review(project: Project, tmp_path: Path) -> None:
    """Review every card, edit each kind's question and add a reverse card, rebuild: updated, nothing lost."""
    use_scenario(project, "more-kinds").build()
    with collection(tmp_path / "student.anki2") as col:
        _import_all(col, project.out)
        intervals = review_every_card(col)
        reviews = review_log(col)
        assert len(reviews) == 8 and all(intervals.values())

        project.edit("kinds.yaml", "keeps its contents when the power is off", "keeps its data without power")
        project.edit("kinds.yaml", "What does `CPU` stand for?", "What is a `CPU`?")
        project.edit(
            "kinds.yaml",
            "  - id: bytes-in-kib\n    kind: flashcard\n",
            "  - id: bytes-in-kib\n    kind: flashcard\n    reverse: true\n",
        )
        project.build()

        assert _import_all(col, project.out) == (0, 4, 0)
        cards = _cards(col)
        assert col.note_count() == 6
        assert review_log(col) == reviews
        assert {cid: col.get_card(cid).ivl for cid in intervals} == intervals
        assert not [m["name"] for m in col.models.all() if "+" in m["name"]]
    assert "keeps its data without power" in cards["more-kinds truefalse (en)", "ram-is-volatile", 0][0]
    assert "What is a <code>CPU</code>?" in cards["more-kinds flashcard (en)", "cpu-acronym", 0][0]
    assert "What is a <code>CPU</code>?" in cards["more-kinds flashcard (en)", "cpu-acronym", 1][1]
    assert ("more-kinds flashcard (ar)", "bytes-in-kib", 1) in cards  # the new reverse card arrived


def test_the_sample_banks_true_false_and_flashcards_build_and_import_beside_multiple_choice(
    project: Project, tmp_path: Path
) -> None:
    """decks/more-kinds.yaml with the rest of the sample: each package holds its cards of both kinds, and only those."""
    shutil.copy(ROOT / "decks" / "more-kinds.yaml", project.decks / "more-kinds.yaml")
    project.build()
    for lang in ("de", "fr", "en"):
        with collection(tmp_path / f"{lang}.anki2") as col:
            assert import_package(col, project.out / f"ai-stack-{lang}.apkg").new == 6 + 3
            cards = _cards(col)
        assert not [key for key, (front, back) in cards.items() if TEMPLATE_ERROR in front + back]
        assert sorted(key for key in cards if key[0] != f"ai-stack ({lang})") == [
            (f"ai-stack flashcard ({lang})", "arithmetic-intensity", 0),
            (f"ai-stack flashcard ({lang})", "arithmetic-intensity", 1),
            (f"ai-stack flashcard ({lang})", "int8-range", 0),
            (f"ai-stack truefalse ({lang})", "hbm-beside-the-gpu", 0),
        ]
    front, back = cards["ai-stack flashcard (en)", "arithmetic-intensity", 1]
    assert r"\(I = \frac{\text{FLOPs}}{\text{bytes}}\)" in front and "What is the ratio" in back
    front, back = cards["ai-stack truefalse (en)", "hbm-beside-the-gpu", 0]
    assert "HBM memory sits stacked" in front and 'data-answer="true"' in back
