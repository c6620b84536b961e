"""A classmate's collection of a release from before several answers, feedback and shuffle control.

They imported ``tests/data/released/*.apkg`` (the sample bank as built by the
version before those features) and reviewed every card. A build of the current
version, from the same bank plus the sample's questions that use them,
must update their multiple-choice notes and note types in place: the same note
ids, every review kept, no duplicate, no copy of a note type ("Name+"). Then a
teacher turns a released question's one answer into several, and the note
updates in place once more.

Likewise a release of cloze and flashcard notes that sorted by their text
(``tests/data/released-kinds``) takes the sort field that shows no answer.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import yaml
from anki.collection import Collection

from ankibuild import build
from ankibuild.kinds.choice import SEVERAL_MARK
from ankibuild.lock.clock import Clock

from ..ankitools import TEMPLATE_ERROR, ImportLog, collection, import_package, render, review_every_card, review_log
from ..conftest import RELEASED, RELEASED_SAMPLE, ROOT

LANGS = ("de", "en", "fr")
#: The sample's multiple-choice questions that use what came since the release:
#: several answers, feedback, a kept order.
ADDITIONS = ROOT / "decks" / "ai-inference.yaml"
#: After every time in the released lock; each rebuild a minute later.
NOW = 1_800_000_000


def _notes(col: Collection) -> dict[str, tuple[int, int, list[str]]]:
    """Every note by GUID: its id, its note type's id and its fields."""
    notes: dict[str, tuple[int, int, list[str]]] = {}
    for note_id in col.find_notes(""):
        note = col.get_note(note_id)
        notes[note.guid] = (note.id, note.mid, list(note.fields))
    return notes


def _import(col: Collection, out: Path) -> tuple[int, int, int, int]:
    """New, updated, duplicate and conflicting notes over the packages of every language."""
    logs = [import_package(col, out / f"ai-stack-{lang}.apkg") for lang in LANGS]
    new, updated, duplicate, conflicting = (
        sum(getattr(log, kind) for log in logs) for kind in ("new", "updated", "duplicate", "conflicting")
    )
    return new, updated, duplicate, conflicting


def _intact(col: Collection) -> None:
    """No note type was copied, and no card shows a template error."""
    names = [model["name"] for model in col.models.all()]
    assert not [name for name in names if name.endswith("+")], names
    cards = [render(col, card_id) for card_id in col.find_cards("")]
    assert not [front for front, back in cards if TEMPLATE_ERROR in front + back]


def _questions(path: Path) -> int:
    return len(yaml.safe_load(path.read_text(encoding="utf-8"))["questions"])


def test_a_released_collection_updates_in_place_to_the_new_features(tmp_path: Path) -> None:
    decks, out = tmp_path / "decks", tmp_path / "dist"
    shutil.copytree(RELEASED_SAMPLE, decks)
    shutil.copy(ADDITIONS, decks / ADDITIONS.name)
    released, added = _questions(RELEASED_SAMPLE / "ai-hardware.yaml"), _questions(ADDITIONS)
    with collection(tmp_path / "classmate.anki2") as col:
        for lang in LANGS:
            import_package(col, RELEASED / f"ai-stack-{lang}.apkg")
        intervals = review_every_card(col)
        reviews = review_log(col)
        before = _notes(col)
        notetypes = {model["id"]: model["mod"] for model in col.models.all() if model["name"].startswith("ai-stack")}
        assert len(before) == released * len(LANGS) and len(reviews) == len(before)

        build(decks=decks, out=out, clock=Clock(lambda: NOW))
        new, updated, duplicate, conflicting = _import(col, out)
        after = _notes(col)
        assert (new, conflicting) == (added * len(LANGS), 0)
        assert updated + duplicate == released * len(LANGS)  # unchanged notes: found, not copied
        assert {guid: after[guid] for guid in before} == before  # same ids, note types and fields
        assert len(after) == len(before) + new
        assert {mid for _, mid, _ in after.values()} == set(notetypes)  # the new questions use the same note types
        for model in col.models.all():
            if model["id"] in notetypes:  # the templates were replaced in place, by a newer note type
                assert "ab-select-all" in model["tmpls"][0]["qfmt"] and model["mod"] > notetypes[model["id"]]
        several = [fields for _, _, fields in after.values() if fields[0] == "gpu-on-chip-memory"]
        assert [fields[8] for fields in several] == ["A B D"] * len(LANGS)
        assert all(fields[1].startswith(SEVERAL_MARK) for fields in several)
        assert review_log(col) == reviews
        assert {card_id: col.get_card(card_id).ivl for card_id in intervals} == intervals
        _intact(col)

        # The teacher: "answer: B" becomes "answer: [B, C]" on a released question.
        text = (decks / "ai-hardware.yaml").read_text(encoding="utf-8")
        head = "  - id: elementwise-ops-memory-bound\n    topics: [ai-hardware, ai-hardware::memory-bandwidth]\n"
        edited = text.replace(f"{head}    answer: B\n", f"{head}    answer: [B, C]\n")
        assert edited != text
        (decks / "ai-hardware.yaml").write_text(edited, encoding="utf-8")
        build(decks=decks, out=out, clock=Clock(lambda: NOW + 60))
        assert _import(col, out)[:2] == (0, len(LANGS))
        changed = {guid: note for guid, note in _notes(col).items() if note != after[guid]}
        assert sorted(fields[0] for _, _, fields in changed.values()) == ["elementwise-ops-memory-bound"] * len(LANGS)
        for guid, (note_id, mid, fields) in changed.items():
            assert (note_id, mid) == after[guid][:2]
            assert fields[8] == "B C" and fields[1] == SEVERAL_MARK + after[guid][2][1]
        assert len(_notes(col)) == len(after)
        assert review_log(col) == reviews
        _intact(col)


#: A bank of a cloze and two flashcards, and its package as released when their notes sorted by a text.
RELEASED_KINDS = RELEASED_SAMPLE.parent / "released-kinds"
RELEASED_KINDS_PACKAGE = RELEASED / "kinds" / "released-kinds-en.apkg"


def _sort_fields(col: Collection) -> dict[str, str]:
    """Every note's sort field, as Anki's Browse window shows it, by question id."""
    assert col.db is not None
    return {str(flds).split("\x1f")[0]: str(sfld) for flds, sfld in col.db.all("SELECT flds, sfld FROM notes")}


def test_a_released_collection_takes_the_sort_field_that_shows_no_answer(tmp_path: Path) -> None:
    """A cloze or flashcard note type that sorted by its text is updated in place to sort by the ID: Anki takes the
    newer note type's sort field and sorts the notes it has by it, with no copy of the note type and every review
    kept, though not one note changed."""
    decks = tmp_path / "decks"
    shutil.copytree(RELEASED_KINDS, decks)
    with collection(tmp_path / "classmate.anki2") as col:
        assert import_package(col, RELEASED_KINDS_PACKAGE).new == 3
        intervals = review_every_card(col)
        reviews = review_log(col)
        notes = _notes(col)
        released = {model["id"]: model["mod"] for model in col.models.all() if model["name"].startswith("released")}
        assert _sort_fields(col)["cpu-acronym"] == "What does CPU stand for?"  # the reverse card's answer
        assert "{{c2::256" in _sort_fields(col)["byte-bits"]  # every cloze's answer

        build(decks=decks, out=tmp_path / "dist", clock=Clock(lambda: NOW))
        assert import_package(col, tmp_path / "dist" / RELEASED_KINDS_PACKAGE.name) == ImportLog(0, 0, 3, 0)
        models = {model["id"]: model for model in col.models.all() if model["id"] in released}
        assert len(models) == len(released) == 2
        assert all(m["sortf"] == 0 and m["flds"][0]["name"] == "ID" for m in models.values())
        assert all(m["mod"] > released[mid] for mid, m in models.items())  # a newer note type: the change arrives
        assert _sort_fields(col) == {question: question for question in ("byte-bits", "cpu-acronym", "bytes-in-kib")}
        assert _notes(col) == notes
        assert review_log(col) == reviews
        assert {card_id: col.get_card(card_id).ivl for card_id in intervals} == intervals
        _intact(col)
