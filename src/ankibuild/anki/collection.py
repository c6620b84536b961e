"""A package's collection: the SQLite database inside the ``.apkg``, made from nothing or updated.

genanki provides the collection schema, the notetype and the deck records;
notes and cards are inserted here in bulk with their own modification times
and ids derived from their GUIDs, so nothing depends on the wall clock.

Either way the collection is written out with SQLite's ``VACUUM INTO``, whose
bytes depend only on what the database holds, never on how it got there: an
updated collection is the same file as one made from nothing.
"""

from __future__ import annotations

import contextlib
import json
import sqlite3
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .preset import add_preset
from .rows import card_id, copy_rows, note_id, note_tags
from .spec import NoteKey, Notetype, PackageSpec, Unlike

if TYPE_CHECKING:
    import genanki

    from ..load.render import CardTemplates

#: The schema cookie of every collection (before VACUUM INTO adds one to it).
SCHEMA_COOKIE = 100

#: The cache, in KiB, of a collection being made from nothing: bounded, as a large package's collection is large.
CREATE_CACHE_KIB = 16 * 1024

_NOTE = "INSERT INTO notes VALUES(?,?,?,?,-1,?,?,?,0,0,'')"
_CARD = "INSERT INTO cards VALUES(?,?,?,?,?,-1,0,0,?,0,0,0,0,0,0,0,0,'')"


def notetype(bank_id: str, templates: CardTemplates) -> Notetype:
    """The note type of one kind in one language: the kind's fields and card types, the language's templates."""
    kind, lang = templates.kind, templates.lang
    return Notetype(
        kind.notetype_id(bank_id, lang),
        kind.notetype_name(bank_id, lang),
        tuple(kind.fields),
        tuple((side.name, side.front, side.back) for side in templates.sides),
        templates.css,
        kind.fields.index(kind.sort_field),
        kind.cloze,
    )


def _card_ids(guid: str, cards: Sequence[int]) -> Iterator[tuple[int]]:
    return ((card_id(guid, ord_),) for ord_ in cards)


def _write_notes(cursor: sqlite3.Cursor, spec: PackageSpec, added: Sequence[tuple[int, NoteKey]]) -> None:
    """Insert notes at their positions, each with its cards.

    Notes go in as their texts are unpacked, a question file at a time, never
    all of a package's texts at once; the order they go in does not show in the
    collection written out with VACUUM INTO.
    """
    if not added:
        return
    place = {note.guid: note for _, note in added}
    sort_index = _sort_fields(spec)

    def notes() -> Iterator[tuple[int, str, int, int, str, str, str]]:
        for guid, (fields, tags) in spec.texts(None if len(place) == len(spec.notes) else place.values()):
            if guid in place:
                note = place[guid]
                mid, text = note.notetype_id, "\x1f".join(fields)
                yield note_id(guid), guid, mid, note.mtime, note_tags(tags), text, fields[sort_index[mid]]

    cursor.executemany(_NOTE, notes())
    _write_cards(cursor, added)


def _write_cards(cursor: sqlite3.Cursor, notes: Sequence[tuple[int, NoteKey]]) -> None:
    """Insert the cards of notes at their positions: new cards keep the bank's order through their due position."""
    cursor.executemany(
        _CARD,
        (
            (card_id(n.guid, o), note_id(n.guid), n.deck_id, o, n.mtime, position)
            for position, n in notes
            for o in n.cards
        ),
    )


def _sort_fields(spec: PackageSpec) -> dict[int, int]:
    """The place of the field Anki's browser sorts by, by note type id."""
    return {model.model_id: model.sort_field_index for model, _ in spec.notetypes}


def create(spec: PackageSpec, path: Path) -> None:
    """A new collection with every note of ``spec``."""
    with _connect(path) as conn:
        # Its notes' pages are written and split all over the file, then written out once: a cache of 2 MB
        # wrote them to the file again and again (10,000 notes copied, 15 MB: 196 ms of processor time, 173 now).
        conn.execute(f"PRAGMA cache_size = -{CREATE_CACHE_KIB}")
        cursor = conn.cursor()
        deck_ids = _frame(cursor, spec)
        if spec.preset:
            add_preset(cursor, spec.preset, deck_ids)
        if len(spec.notetypes) > 1:
            _note_type_times(cursor, spec)
        # The notes whose rows this build wrote as it processed their files are copied; the rest inserted.
        copied = copy_rows(conn, spec, _sort_fields(spec))
        numbered = enumerate(spec.notes, start=1)
        _write_notes(conn.cursor(), spec, [(position, n) for position, n in numbered if n.guid not in copied])


def _frame(cursor: sqlite3.Cursor, spec: PackageSpec) -> list[int]:
    """Write the schema, the decks and the note types as genanki writes them; the decks' ids.

    genanki reads back and writes again every deck and note type for each deck
    it adds: with 50 decks that cost more than the rest of the frame. The decks
    but the last two are added here at once, as genanki adds them; those two
    carry the note types, as every deck did: genanki reads back as text the
    number keys of the deck before's, and only the last two decks' show.
    """
    import genanki  # loaded on first use: a build with nothing to do never needs it

    decks = [genanki.Deck(deck.id, deck.name, deck.description) for deck in (*spec.parents, *spec.decks)]
    genanki.Package([]).write_to_db(cursor, spec.notetypes[0][1], iter(()))
    if decks[:-2]:  # genanki leaves the text of the decks as it is until it adds one
        (text,) = cursor.execute("SELECT decks FROM col").fetchone()
        cursor.execute("UPDATE col SET decks = ?", (json.dumps(json.loads(text) | _entries(decks[:-2])),))
    models = [notetype.model() for notetype, _ in spec.notetypes]
    for deck in decks[-2:]:
        for model in models:
            deck.add_model(model)
        deck.write_to_db(cursor, spec.notetypes[0][1], iter(()))
    return [deck.deck_id for deck in decks]


def _entries(decks: Sequence[genanki.Deck]) -> dict[str, Any]:
    """The decks as genanki writes them in a collection's ``decks``, by id."""
    return {str(deck.deck_id): deck.to_json() for deck in decks}


def _note_type_times(cursor: sqlite3.Cursor, spec: PackageSpec) -> None:
    """Give each note type its own time (genanki gives them all one): Anki updates only the one that changed."""
    (text,) = cursor.execute("SELECT models FROM col").fetchone()
    models = json.loads(text)
    for model, mtime in spec.notetypes:
        models[str(model.model_id)]["mod"] = mtime
    cursor.execute("UPDATE col SET models = ?", (json.dumps(models),))


def update(spec: PackageSpec, path: Path, unlike: Unlike) -> None:
    """Turn the collection at ``path`` into that of ``spec``'s notes: ``unlike`` are those it holds otherwise."""
    was, now = unlike
    before = {note.guid: (position, note) for position, note in was}
    gone = before.keys() - {note.guid for _, note in now}
    added = [(position, note) for position, note in now if note.guid not in before]
    kept = [(position, note) for position, note in now if before.get(note.guid, (position, note)) != (position, note)]
    edited = {n.guid: n for _, n in kept if before[n.guid][1][1:3] != n[1:3]}  # digest or time
    texts = dict(spec.texts(edited.values())) if edited else {}
    sort_index = _sort_fields(spec)
    # A note whose cards are others now (a cloze added or taken out) has its cards made again.
    recarded = [(p, n) for p, n in kept if before[n.guid][1].cards != n.cards]
    dropped = [*gone, *(n.guid for _, n in recarded)]
    with _connect(path) as conn:
        conn.executemany("DELETE FROM notes WHERE id = ?", ((note_id(guid),) for guid in gone))
        conn.executemany(
            "DELETE FROM cards WHERE id = ?", (card for g in dropped for card in _card_ids(g, before[g][1].cards))
        )
        _write_notes(conn.cursor(), spec, added)
        _write_cards(conn.cursor(), recarded)
        conn.executemany(
            "UPDATE notes SET mod = ?, tags = ?, flds = ?, sfld = ? WHERE id = ?",
            (
                (
                    n.mtime,
                    note_tags(texts[n.guid][1]),
                    "\x1f".join(texts[n.guid][0]),
                    texts[n.guid][0][sort_index[n.notetype_id]],
                    note_id(n.guid),
                )
                for _, n in kept
                if n.guid in edited
            ),
        )
        # A card holds its note's time, its deck and its place in the bank's order.
        conn.executemany(
            "UPDATE cards SET did = ?, mod = ?, due = ? WHERE id = ?",
            ((n.deck_id, n.mtime, position, card_id(n.guid, o)) for position, n in kept for o in n.cards),
        )


@contextlib.contextmanager
def _connect(path: Path) -> Iterator[sqlite3.Connection]:
    conn = sqlite3.connect(path)
    try:
        # A scratch file: no journal, no syncing to disk; only what it holds in the end matters.
        conn.execute("PRAGMA journal_mode=OFF")
        conn.execute("PRAGMA synchronous=OFF")
        yield conn
        conn.commit()
    finally:
        conn.close()


def vacuum(work: Path, made: Path) -> bool:
    """Write ``work`` out as ``made`` with VACUUM INTO; False if its schema cookie could not be fixed.

    VACUUM INTO copies the schema cookie, plus one: how often the schema changed
    before must not show in the bytes. Setting it is safe here, where nothing
    else has the file open, but an SQLite built to refuse it ignores it.
    """
    with _connect(work) as conn:
        # The pages are read and written once: a cache of a few (the least there is) spares the time to fill
        # and search one of 2 MB, for both files: 14 ms instead of 17 for a collection of 15 MB.
        conn.execute("PRAGMA cache_size = 10")
        conn.execute(f"PRAGMA schema_version = {SCHEMA_COOKIE}")
        fixed = conn.execute("PRAGMA schema_version").fetchone()[0] == SCHEMA_COOKIE
        conn.execute("VACUUM INTO ?", (str(made),))
    return bool(fixed)
