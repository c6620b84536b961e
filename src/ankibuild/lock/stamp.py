"""Stamping: a note or notetype keeps its time while its content stays, and gets a newer one when it changes."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import replace
from enum import Enum, auto
from itertools import compress, repeat
from operator import attrgetter, eq, itemgetter
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple, Protocol

from ..errors import Problems, Severity
from .clock import ANKI_EPOCH, WRONG_CLOCK, Clock
from .format import LOCK_FILE, Lock, NoteLock, NotetypeLock

if TYPE_CHECKING:
    from ..model import Bank

#: A warning names this many notes, then says there are more.
MAX_NAMED = 10


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
    if not known:
        return _first_stamps(notes, clock)
    entries = _kept_entries(notes, known)
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


#: What a note's entry takes from the note: all but its time.
_ENTRY_FIELDS = attrgetter("guid", "question_id", "lang", "digest", "parts")
#: What tells a note's entry (found by its GUID) is kept as it is: its question, language and digest, of the
#: note and of the entry.
_SAME_NOTE, _SAME_ENTRY = attrgetter("question_id", "lang", "digest"), itemgetter(slice(1, 4))
_GUID = attrgetter("guid")


def _kept_entries(notes: list[Stampable], known: Mapping[str, NoteLock]) -> dict[str, NoteLock]:
    """The entries of ``known`` that ``notes`` keep as they are, by GUID: those of the same question,
    language and digest.

    In one pass in C, each compared as a tuple: after an edit, nearly every note of the bank, for which a
    comparison per note in Python took most of stamping. A GUID the lock lacks is compared with an empty
    tuple, the same as no note.
    """
    guids = list(map(_GUID, notes))
    olds = list(map(known.get, guids, repeat(())))
    same = list(map(eq, map(_SAME_ENTRY, olds), map(_SAME_NOTE, notes)))
    return dict(zip(compress(guids, same), compress(olds, same), strict=True))


def _first_stamps(notes: list[Stampable], clock: Clock) -> tuple[dict[str, NoteLock], dict[str, Stamp]]:
    """What :func:`stamp_notes` gives for a lock with no notes: every note new, all at one time.

    Without the comparisons a rebuild needs, the fields taken in C: a cold
    build's stamping in half the time.
    """
    if not notes:
        return {}, {}
    now = clock.first()
    entries = {
        guid: NoteLock(guid, question, lang, digest, parts, now)
        for guid, question, lang, digest, parts in map(_ENTRY_FIELDS, notes)
    }
    return entries, dict.fromkeys(entries, Stamp.NEW)


class Shape(NamedTuple):
    """A notetype as its lock entry has it, but for the time."""

    id: int
    fields: tuple[str, ...]
    cards: tuple[str, ...]
    digest: str
    #: The language of its notes: a build of other languages leaves their notes' entries as they are.
    lang: str


def stamp_lock(
    bank: Bank, notes: Iterable[Stampable], shapes: Mapping[str, Shape], *, old: Lock, clock: Clock, problems: Problems
) -> Lock:
    """The new lock: times for every note and notetype, moved where the content differs from ``old``'s.

    A changed note whose previous time came from a wrong clock is warned about in ``problems``.
    """
    entries, stamped = stamp_notes(notes, old, clock)
    gone = old.notes.keys() - entries.keys()
    built = {shape.lang for shape in shapes.values()}
    kept = {guid: old.notes[guid] for guid in gone if old.notes[guid].lang not in built}  # other languages'
    new = Lock(bank.id, dict(old.notetypes), {**kept, **entries} if kept else entries)
    for key, shape in shapes.items():
        new.notetypes[key] = stamp_notetype(key, shape, lock=old, clock=clock)
    changed = [old.notes[guid] for guid, stamp in stamped.items() if stamp is Stamp.CHANGED]
    _wrong_times(changed, clock, problems, path=bank.root / LOCK_FILE)
    return new


def stamp_notetype(key: str, shape: Shape, *, lock: Lock, clock: Clock) -> NotetypeLock:
    old = lock.notetypes.get(key)
    if old is not None and old.digest == shape.digest and old.id == shape.id:
        return replace(old, fields=shape.fields, cards=shape.cards)
    mtime = clock.first() if old is None else clock.after(old.mtime)
    return NotetypeLock(key, shape.id, shape.fields, shape.cards, shape.digest, mtime)


def _wrong_times(changed: list[NoteLock], clock: Clock, problems: Problems, *, path: Path) -> None:
    """A warning naming the changed notes whose previous time came from a wrong clock.

    Their new times continue from the old ones (a second later) rather than from
    this clock, so that they still reach classmates; see :class:`Clock`.
    """
    now = clock.now()
    # A time of this very second is no wrong clock: a note edited and built again within it.
    odd = [entry for entry in changed if not ANKI_EPOCH <= entry.mtime <= now]
    if not odd:
        return
    names = ", ".join(f"{e.question} ({e.lang})" for e in odd[:MAX_NAMED]) + (" ..." if len(odd) > MAX_NAMED else "")
    problems.add(
        path,
        f"{len(odd)} changed note(s) had a time ahead of this computer's clock, or before 2006: {names}",
        hint="their new times are one second after the old ones; check the clock of the computer that built them",
        severity=Severity.WARNING,
        check=WRONG_CLOCK,
    )
