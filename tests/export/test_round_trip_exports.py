"""Every exported file imported back with ``ankibuild import`` is the same questions on the same cards.

The bank with every kind (``tests/data/exports``) is built with its Moodle XML,
GIFT and QTI exports; each language's file, and the two files of one format together, are
imported into a new bank made with the same ``bank.yaml`` and built. Each
note's fields in the packages of both banks are then compared, question by
question: its id, the question, the options in order, the correct letters,
each option's feedback and the explanation, as the cards show them.

What a format cannot hold is named below with the reason, never skipped in
silence. Beyond the note's fields, one import makes one question file: the
questions of both decks land in one deck, under the topic of the file's first
category, and the bank's ``allow`` of an item-writing check is not exported.
The Moodle XML file with every language
(``-mul.moodle.xml``) is imported alone: its multilang spans give each
language's questions, all but the clozes it leaves out.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

from ankibuild import build
from ankibuild.cli import main

from ..ankitools import package_notes
from ..conftest import DATA, Project
from ..exporttools import BANK, CLOZES, LANGS, PICTURE, SCENARIO, SEVERAL_GAPS, exported, written

#: Each format's file name after the bank's name and the language.
SUFFIXES = {"moodle-xml": "moodle.xml", "gift": "gift.txt", "qti": "qti.zip"}
_FLASHCARD = "page-size"
_ONE_GAP = "hostile-gap"
#: The questions a round trip loses, by format, with the reason; the export warns about each.
LOST = {
    "moodle-xml": {
        _FLASHCARD: "a flashcard is exported as an essay, which has no options to import",
    },
    "gift": {
        PICTURE: "GIFT cannot hold an image: the export leaves the question out",
        SEVERAL_GAPS: "GIFT's missing word has one gap: the export leaves the question out",
        _FLASHCARD: "a flashcard is exported as an essay, which has no options to import",
    },
    "qti": {
        _FLASHCARD: "a flashcard is exported as an essay, which has no options to import",
        SEVERAL_GAPS: "QTI's gaps are not Anki's clozes: the export leaves the question out",
        _ONE_GAP: "QTI's gaps are not Anki's clozes: the export leaves the question out",
    },
}
#: Questions the export leaves out of the file, so that the importer never sees them.
NOT_EXPORTED = {"moodle-xml": set[str](), "gift": {PICTURE, SEVERAL_GAPS}, "qti": {SEVERAL_GAPS, _ONE_GAP}}
#: A pinned option's mark on its field. No format pins one option: Moodle XML and QTI keep the whole
#: question in order, GIFT says nothing of order; the option comes back, unpinned, in its place.
PIN = '<span class="ab-pin"></span>'
#: The mark of a question whose options stay in order, on its question field: Moodle XML's
#: "Shuffle the choices" off and QTI's shuffle="No", which is how each keeps a pinned option in place,
#: come back as it.
IN_ORDER = '<span class="ab-in-order"></span>'
#: Which files are imported together: each language alone, then both.
IMPORTS = [("en",), ("he",), ("en", "he")]


def _notes(package: Path) -> dict[str, list[str]]:
    """Every note's fields in a package, by the question's id (its first field)."""
    fields = [joined.split("\x1f") for joined in package_notes(package).values()]
    return {note[0]: note for note in fields}


def _unpinned(fields: list[str], form: str) -> list[str]:
    """The fields as an import of ``form`` gives them back: no option pinned; in Moodle XML and QTI, the
    question that had one kept in order."""
    unpinned = [field.replace(PIN, "", 1) for field in fields]
    if form in ("moodle-xml", "qti") and unpinned != fields:
        unpinned[1] = IN_ORDER + unpinned[1]
    return unpinned


def _imported(project: Project, form: str, langs: tuple[str, ...]) -> Path:
    """A new bank with the bank's ``bank.yaml``, the exported files of ``langs`` imported into it, built."""
    back = project.root / f"back-{form}-{'-'.join(langs)}"
    (back / "decks").mkdir(parents=True)
    shutil.copy(DATA / SCENARIO / "bank.yaml", back / "decks" / "bank.yaml")
    files = [str(project.out / f"{BANK}-{lang}.{SUFFIXES[form]}") for lang in langs]
    result = CliRunner().invoke(
        main, ["import", *files, "--decks", str(back / "decks"), "-o", str(back / "decks" / "new.yaml")]
    )
    lost = set(LOST[form]) - NOT_EXPORTED[form]
    # Each lost question is refused once in each file.
    assert result.exit_code == 1, result.output
    assert f"; {len(lost) * len(langs)} refused (above)" in result.stdout, result.output
    build(decks=back / "decks", out=back / "dist")
    return back


def _ids(back: Path, form: str) -> dict[str, str]:
    """The id each question came back with, by its id in the bank."""
    imported = yaml.safe_load((back / "decks" / "new.yaml").read_text(encoding="utf-8"))
    new = [question["id"] for question in imported["questions"]]
    kept = [qid for qid in written() if qid not in LOST[form]]
    assert len(new) == len(kept)
    return dict(zip(kept, new, strict=True))


@pytest.mark.parametrize("langs", IMPORTS, ids="+".join)
@pytest.mark.parametrize("form", list(SUFFIXES))
def test_every_exported_question_imports_back_as_the_same_cards(
    project: Project, form: str, langs: tuple[str, ...]
) -> None:
    exported(project)
    back = _imported(project, form, langs)
    ids = _ids(back, form)
    # Moodle XML keeps each id as the question's ID number, QTI as the item's ident; GIFT has none, only
    # a name a teacher may edit, so its ids are made from the question's first words, as for any GIFT file.
    assert all(qid == new for qid, new in ids.items()) == (form in ("moodle-xml", "qti"))
    for lang in langs:
        original = _notes(project.out / f"{BANK}-{lang}.apkg")
        found = _notes(back / "dist" / f"{BANK}-{lang}.apkg")
        expected = {
            ids[qid]: [ids[qid], *_unpinned(fields, form)[1:]] for qid, fields in original.items() if qid in ids
        }
        assert found == expected
        assert set(original) - set(ids) == set(LOST[form])


def test_the_moodle_file_in_every_language_imports_back_as_each_language(project: Project) -> None:
    """The file with every language is split back by its spans: one file, each language's questions."""
    exported(project)
    back = project.root / "back-mul"
    (back / "decks").mkdir(parents=True)
    shutil.copy(DATA / SCENARIO / "bank.yaml", back / "decks" / "bank.yaml")
    mul = str(project.out / f"{BANK}-mul.moodle.xml")
    result = CliRunner().invoke(
        main, ["import", mul, "--decks", str(back / "decks"), "-o", str(back / "decks" / "new.yaml")]
    )
    # The export leaves the clozes out of this file (their gaps differ by language); the essay is refused.
    assert result.exit_code == 1, result.output
    assert "(en, he)" in result.stdout and "; 1 refused (above)" in result.stdout, result.output
    build(decks=back / "decks", out=back / "dist")
    lost = {_FLASHCARD, *CLOZES}
    for lang in LANGS:
        original = _notes(project.out / f"{BANK}-{lang}.apkg")
        found = _notes(back / "dist" / f"{BANK}-{lang}.apkg")
        expected = {qid: _unpinned(fields, "moodle-xml") for qid, fields in original.items() if qid not in lost}
        assert found == expected
