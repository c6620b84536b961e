"""The searches the changelog gives find exactly the notes they name, in a real collection."""

from __future__ import annotations

from pathlib import Path

from ankibuild.search import notes_search

from .ankitools import collection

#: Ids that Anki's search would read as wildcards, field separators, quotes or escapes.
TRICKY = [
    "layer_norm",
    "layer-norm",
    "layerxnorm",
    "a*b",
    "axb",
    "a:b",
    "a\\b",
    'a"b',
    "ä_ö",
    "Ä_Ö",
    "a b",
    "(x)",
    "-x",
]


def test_a_search_finds_exactly_the_ids_it_names_whatever_they_hold(tmp_path: Path) -> None:
    """Each id alone, and all but one together, under a note type whose name has an underscore."""
    with collection(tmp_path / "c.anki2") as col:
        for name in ("my_bank (de)", "myXbank (de)"):
            model = col.models.new(name)
            for field in ("ID", "Question"):
                col.models.add_field(model, col.models.new_field(field))
            template = col.models.new_template("Card")
            template["qfmt"], template["afmt"] = "{{Question}}", "{{Question}}"
            col.models.add_template(model, template)
            col.models.add(model)
            for qid in TRICKY:
                note = col.new_note(col.models.by_name(name))  # type: ignore[arg-type]
                note["ID"], note["Question"] = qid, qid
                col.add_note(note, col.decks.id("Default") or 1)  # type: ignore[arg-type]

        def found(ids: list[str]) -> list[tuple[str, str]]:
            notes = map(col.get_note, col.find_notes(notes_search(["my_bank (de)"], ids)))
            return sorted((note.note_type()["name"], note["ID"]) for note in notes)  # type: ignore[index]

        for qid in TRICKY:
            assert found([qid]) == [("my_bank (de)", qid)]
        assert found(TRICKY[1:]) == sorted(("my_bank (de)", qid) for qid in TRICKY[1:])
