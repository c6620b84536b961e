"""The identities and the note type shape that classmates' collections depend on.

If one of these tests fails, a change would break every classmate's updates:
revert it rather than update the expected values.
"""

from __future__ import annotations

import time

from ankibuild.model import CARD_NAME, FIELDS, deck_id, note_guid, notetype_id, stable_int

from .ankitools import collection, import_package
from .conftest import Project


def test_the_note_type_shape_never_changes() -> None:
    """Released field list and card type: Anki forks a note type whose shape differs."""
    assert FIELDS == ("ID", "Question", "A", "B", "C", "D", "E", "F", "Answer", "Explanation")
    assert CARD_NAME == "Multiple choice"


def test_ids_are_pure_functions_of_stable_names() -> None:
    """Note type, deck and note identities derive from names only, with released values."""
    assert notetype_id("ai-stack", "de") == 1378203495271
    assert deck_id("ai-stack", "ai-hardware", "de") == 1607622656183
    assert note_guid("ai-stack", "elementwise-ops-memory-bound", "de") == "K[zRzo(YX)"
    assert note_guid("ai-stack", "q1", "de") != note_guid("other-bank", "q1", "de")
    assert note_guid("ai-stack", "q1", "de") != note_guid("ai-stack", "q1", "fr")


def test_ids_look_like_past_timestamps() -> None:
    """Anki rewrites ids more than a day in the future; ours never are."""
    now_ms = int(time.time() * 1000)
    for name in ("a", "b", "note", "card", "x" * 100):
        assert 10**12 < stable_int(name) < now_ms


def test_imported_note_type_has_exactly_the_released_shape(project: Project, tmp_path: object) -> None:
    """What Anki sees after import: our fields, in order, and one card type."""
    project.build(languages=["de"])
    with collection(project.root / "c.anki2") as col:
        import_package(col, project.out / "ai-stack-de.apkg")
        model = col.models.get(notetype_id("ai-stack", "de"))  # type: ignore[arg-type]
        assert model is not None
        assert [f["name"] for f in model["flds"]] == list(FIELDS)
        assert [t["name"] for t in model["tmpls"]] == [CARD_NAME]
        assert model["name"] == "ai-stack (de)"
