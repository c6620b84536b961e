"""The searches the changelog gives find exactly the notes they name, in a real collection."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from ankibuild import build
from ankibuild.kinds import KINDS
from ankibuild.search import notes_search

from ..ankitools import collection, import_package

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
            notes = map(col.get_note, col.find_notes(notes_search({"my_bank (de)": ids})))
            return sorted((note.note_type()["name"], note["ID"]) for note in notes)  # type: ignore[index]

        for qid in TRICKY:
            assert found([qid]) == [("my_bank (de)", qid)]
        assert found(TRICKY[1:]) == sorted(("my_bank (de)", qid) for qid in TRICKY[1:])
        both = map(col.get_note, col.find_notes(notes_search({"my_bank (de)": ["a*b"], "myXbank (de)": ["a:b"]})))
        assert sorted((note.note_type()["name"], note["ID"]) for note in both) == [  # type: ignore[index]
            ("myXbank (de)", "a:b"),
            ("my_bank (de)", "a*b"),
        ]


BANK = """\
id: kinds-bank
languages: [en, de]
topics:
  sky: {en: Sky, de: Himmel}
"""
CHANGES_KIND = {
    "truefalse": """\
  - id: sky-colour
    kind: truefalse
    topics: [sky]
    answer: true
    en: {question: A clear daytime sky looks blue., explanation: Air scatters blue light most.}
    de: {question: Ein klarer Himmel am Tag sieht blau aus., explanation: Luft streut blaues Licht am stärksten.}
""",
    "flashcard": """\
  - id: sky-colour
    kind: flashcard
    topics: [sky]
    en: {question: What colour is a clear daytime sky?, answer: Blue}
    de: {question: Welche Farbe hat ein klarer Himmel am Tag?, answer: Blau}
""",
}
MOVES = """\
  - id: sky-at-night
    kind: flashcard
    topics: [sky]
    en: {question: What colour is a clear night sky?, answer: Black}
    de: {question: Welche Farbe hat ein klarer Himmel in der Nacht?, answer: Schwarz}
"""


STAYS = """\
  - id: sun-is-a-star
    kind: truefalse
    topics: [sky]
    answer: true
    en: {question: The Sun is a star., explanation: It is the nearest one.}
    de: {question: Die Sonne ist ein Stern., explanation: Sie ist der nächste.}
"""


def _write_bank(decks: Path, kind: str, moved: bool, stays: str) -> None:
    decks.mkdir(exist_ok=True)
    (decks / "bank.yaml").write_text(BANK, encoding="utf-8")
    first, second = "deck: {en: First, de: Erste}\nquestions:\n", "deck: {en: Second, de: Zweite}\nquestions:\n"
    (decks / "first.yaml").write_text(first + CHANGES_KIND[kind] + stays + ("" if moved else MOVES), encoding="utf-8")
    (decks / "second.yaml").write_text(second + MOVES if moved else second + "  []\n", encoding="utf-8")


@pytest.mark.parametrize("stays", [STAYS, ""], ids=["old-kind-still-built", "old-kind-gone"])
def test_the_changelog_searches_select_exactly_the_notes_removed_or_moved_when_a_kind_changes(
    tmp_path: Path, stays: str
) -> None:
    """A question turned from true/false into a flashcard, another moved: each search finds its notes alone, in Anki.

    Whether another true/false question keeps that note type in the build or not.
    """
    decks, out = tmp_path / "decks", tmp_path / "dist"
    with collection(tmp_path / "c.anki2") as col:
        for kind, moved in (("truefalse", False), ("flashcard", True)):
            _write_bank(decks, kind, moved, stays)
            build(decks=decks, out=out)
            for package in sorted(out.glob("*.apkg")):
                import_package(col, package)
        newest = (out / "CHANGELOG.md").read_text(encoding="utf-8").split("\n## ")[1]
        for lang, text in re.findall(r"### (\w+)\n(.*?)(?=\n### |\Z)", newest, re.DOTALL):
            (removal,) = re.findall(r"search for `([^`]+)`, select the notes and delete them", text)
            (move,) = re.findall(r"search for `([^`]+)`, select all cards", text)
            guids = {col.get_note(nid).guid: nid for nid in col.find_notes("")}
            old = guids[KINDS["truefalse"].note_guid("kinds-bank", "sky-colour", lang)]
            assert col.find_notes(removal) == [old]
            assert col.find_notes(move) == [guids[KINDS["flashcard"].note_guid("kinds-bank", "sky-at-night", lang)]]
