"""The official Anki library, used the way Anki desktop imports a shared deck."""

from __future__ import annotations

import sqlite3
import time
import zipfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from anki.collection import Collection  # imported first: anki.cards depends on it

from anki.cards import CardId  # isort: skip
from anki.import_export_pb2 import ImportAnkiPackageOptions, ImportAnkiPackageRequest

TEMPLATE_ERROR = "template-errors"  # Anki links to its help page inside a broken card


@dataclass(frozen=True)
class ImportLog:
    new: int
    updated: int
    duplicate: int
    conflicting: int


@contextmanager
def collection(path: Path) -> Iterator[Collection]:
    col = Collection(str(path))
    try:
        yield col
    finally:
        col.close()


def import_package(col: Collection, package: Path) -> ImportLog:
    """Import with Anki desktop's defaults on a new profile (update if newer, no merge)."""
    response = col.import_anki_package(
        ImportAnkiPackageRequest(package_path=str(package.resolve()), options=ImportAnkiPackageOptions())
    )
    col._clear_caches()
    log = response.log
    return ImportLog(len(log.new), len(log.updated), len(log.duplicate), len(log.conflicting))


def review_every_card(col: Collection) -> dict[CardId, int]:
    """Answer every card "easy", as a student would in a review; each card's interval after it."""
    for card_id in col.find_cards(""):
        _answer(col, card_id, 4)
    return {card_id: col.get_card(card_id).ivl for card_id in col.find_cards("")}


def review_log(col: Collection) -> list[int]:
    """Ids of every review ever made in the collection."""
    assert col.db is not None
    return list(col.db.list("select id from revlog order by id"))


def render(col: Collection, card_id: CardId) -> tuple[str, str]:
    output = col.get_card(card_id).render_output(reload=True)
    return output.question_text, output.answer_text


def render_all_cards(col: Collection) -> dict[str, tuple[str, str]]:
    """Front and back of every card, by the GUID of its note (one card per note)."""
    rendered = {}
    for card_id in col.find_cards(""):
        rendered[col.get_card(card_id).note().guid] = render(col, card_id)
    return rendered


def imported_cards(path: Path, packages: list[Path]) -> tuple[list[ImportLog], dict[str, tuple[str, str]]]:
    """Import ``packages`` in turn into a new collection at ``path``: each import's log, and every card rendered.

    No card may show a template error.
    """
    with collection(path) as col:
        logs = [import_package(col, package) for package in packages]
        cards = render_all_cards(col)
    assert not [guid for guid, (front, back) in cards.items() if TEMPLATE_ERROR in front + back]
    return logs, cards


def review_new_cards(col: Collection) -> None:
    """Answer every card not studied yet "good", as a student does between two imports."""
    for card_id in col.find_cards("is:new"):
        _answer(col, card_id, 3)


def _answer(col: Collection, card_id: CardId, ease: Literal[1, 2, 3, 4]) -> None:
    """Answer a card, in a millisecond of its own, as a student does.

    Anki ids a review by its millisecond, and one made within the millisecond of the last by that one's id
    plus one: should that cross into the next second, the review's second is not the one the card keeps as
    its last review, and Anki's database check mends the card (4 collections of 120, 30 cards answered in a loop).
    """
    assert col.db is not None
    last = col.db.scalar("select max(id) from revlog") or 0
    while int(time.time() * 1000) <= last:  # the millisecond Anki takes
        time.sleep(0.001)
    card = col.get_card(card_id)
    card.start_timer()
    col.sched.answerCard(card, ease)


def collection_notes(col: Collection) -> dict[str, str]:
    """Every note's fields (joined as Anki keeps them), by GUID; no GUID may be there twice."""
    assert col.db is not None
    rows = col.db.all("SELECT guid, flds FROM notes")
    assert len({guid for guid, _ in rows}) == len(rows)
    return {str(guid): str(fields) for guid, fields in rows}


def package_notes(package: Path) -> dict[str, str]:
    """Every note's fields in a package, read straight from the file, by GUID."""
    with zipfile.ZipFile(package) as archive:
        content = archive.read("collection.anki2")
    conn = sqlite3.connect(":memory:")
    try:
        conn.deserialize(content)
        return {str(guid): str(fields) for guid, fields in conn.execute("SELECT guid, flds FROM notes")}
    finally:
        conn.close()
