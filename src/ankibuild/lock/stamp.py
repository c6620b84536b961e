"""Stamping: a note or notetype keeps its time while its content stays, and gets a newer one when it changes."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace
from enum import Enum, auto
from typing import Protocol

from .clock import Clock
from .format import Lock, NoteLock, NotetypeLock


class Stamp(Enum):
    """Why a note was given a new time."""

    NEW = auto()
    CHANGED = auto()


class Stampable(Protocol):
    """A rendered note, as far as its lock entry goes."""

    @property
    def guid(self) -> str: ...
    @property
    def question_id(self) -> str: ...
    @property
    def lang(self) -> str: ...
    @property
    def digest(self) -> str: ...
    @property
    def parts(self) -> str: ...


def stamp_notes(notes: Iterable[Stampable], lock: Lock, clock: Clock) -> tuple[dict[str, NoteLock], dict[str, Stamp]]:
    """New lock entries for rendered notes, and the GUIDs of those given a new time, with why.

    A note whose content is as the lock has it keeps its entry: in a rebuild
    after an edit, nearly all of them.
    """
    known, notes = lock.notes, list(notes)
    # One pass for those, at C speed as far as it goes; the loop below sees only the rest.
    entries = {
        note.guid: old
        for note in notes
        if (old := known.get(note.guid)) is not None
        and old.digest == note.digest
        and old.question == note.question_id
        and old.lang == note.lang
    }
    stamped: dict[str, Stamp] = {}
    now: int | None = None
    for note in [note for note in notes if note.guid not in entries]:
        guid, question, lang, digest, parts = note.guid, note.question_id, note.lang, note.digest, note.parts
        old = known.get(guid)
        if old is not None and old.digest == digest:  # the same note, under another question or language
            entries[guid] = old._replace(question=question, lang=lang)
            continue
        if old is None:
            now = now if now is not None else (clock.first() if not known else clock.after(0))
            mtime, stamped[guid] = now, Stamp.NEW
        else:
            mtime, stamped[guid] = clock.after(old.mtime), Stamp.CHANGED
        entries[guid] = NoteLock(guid, question, lang, digest, parts, mtime)
    return entries, stamped


def stamp_notetype(
    key: str, type_id: int, fields: tuple[str, ...], *, cards: tuple[str, ...], digest: str, lock: Lock, clock: Clock
) -> NotetypeLock:
    old = lock.notetypes.get(key)
    if old is not None and old.digest == digest and old.id == type_id:
        return replace(old, fields=fields, cards=cards)
    mtime = clock.first() if old is None else clock.after(old.mtime)
    return NotetypeLock(key, type_id, fields, cards, digest, mtime)
