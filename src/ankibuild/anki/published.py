"""What classmates already have: the notes of the packages last published.

A note's time in the lock comes back with every ``git revert`` or reset of the
lock, and Anki takes a note only when its time is newer than its own. What was
published cannot be reverted: the packages in the output folder, as the last
build left them (or as a CI job fetched them from the last release). A build
reads them before replacing them, so that every note whose content differs
from its published copy gets a newer time than that copy, and so that the
changelog tells what changed since, whatever git did in between.
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import json
import sqlite3
import zipfile
import zlib
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from operator import attrgetter
from pathlib import Path
from typing import Any, NamedTuple

from ..atomic import write_if_changed
from ..changelog import Change, ChangeKind
from ..errors import Problems, Severity
from ..kinds import KINDS
from ..lock.clock import Clock
from ..lock.format import Lock, NoteLock, changed_parts
from ..paths import UnsafePathError, read_inside
from ..render import CardTemplates, NoteHead, Side, note_digest, notetype_digest
from ..version import code_fingerprint
from .spec import COLLECTION

#: The key and the language of each note type a build makes, by its id.
Types = Mapping[int, tuple[str, str]]

#: A published collection larger than this is not read: it is no package of ours.
MAX_COLLECTION = 2**30
#: What reading a file that is a package in form only raises: any file may lie in the output folder.
_UNREADABLE = (
    OSError,
    UnsafePathError,
    zipfile.BadZipFile,
    zlib.error,
    EOFError,
    NotImplementedError,  # a compression method or zip feature Python cannot read
    RuntimeError,  # an encrypted entry
    sqlite3.Error,
    ValueError,
    KeyError,
    TypeError,
    AttributeError,  # a column or JSON value of another type than a package's
)


class PublishedNote(NamedTuple):
    """A published note: its entry as the lock would have it, and where its card is."""

    entry: NoteLock
    #: The name of the deck its card was published in.
    deck: str


@dataclass(frozen=True)
class PublishedNotetype:
    digest: str
    mtime: int


@dataclass
class Published:
    """The notes and notetypes of the bank's published packages, for the languages asked for.

    A note found in several packages (``--split`` and not) counts with its newest copy.
    """

    notes: dict[str, PublishedNote] = field(default_factory=dict)
    notetypes: dict[str, PublishedNotetype] = field(default_factory=dict)

    def add(self, other: Published) -> None:
        for guid, note in other.notes.items():
            if guid not in self.notes or note.entry.mtime > self.notes[guid].entry.mtime:
                self.notes[guid] = note
        for key, notetype in other.notetypes.items():
            if key not in self.notetypes or notetype.mtime > self.notetypes[key].mtime:
                self.notetypes[key] = notetype


def read_published(
    out: Path, bank_id: str, templates: Mapping[str, CardTemplates], problems: Problems, kept: Path | None = None
) -> Published:
    """The published notes of ``bank_id`` of the note types of ``templates``, from every ``.apkg`` directly in ``out``.

    A package that cannot be read is reported as a warning and left out: the
    notes it held then follow the lock alone. What was found in a package is
    kept in the folder ``kept``, by the package's content, for the next build
    (which usually finds the very packages the last one wrote: see :func:`keep`).
    """
    types = notetype_keys(bank_id, templates)
    published = Published()
    for path in sorted(out.glob("*.apkg")) if out.is_dir() else ():
        try:
            raw = _package_bytes(path)  # read once: what was kept of it is known by its bytes
            published.add(_recalled(path, raw, types, kept) or _read_package(path, raw, types, kept))
        except _UNREADABLE as err:
            problems.add(
                path,
                f"cannot read this published package ({err}): its notes' times follow the lock only",
                hint="fetch the packages last published into this folder, or delete it if it is not one",
                severity=Severity.WARNING,
            )
    return published


def notetype_keys(bank_id: str, templates: Mapping[str, CardTemplates]) -> Types:
    """The key and language of each note type of ``templates``, by its id."""
    return {t.kind.notetype_id(bank_id, t.lang): (key, t.lang) for key, t in templates.items()}


def keep(kept: Path, path: Path, content: bytes, types: Types, found: Published) -> None:
    """Keep ``found``, the notes of the package ``path`` that holds ``content``, for :func:`read_published`.

    Plain JSON in columns, never pickle: the cache folder may be shared.
    """
    rows = ((*note.entry, note.deck) for note in found.notes.values())
    notes = [list(column) for column in zip(*rows, strict=True)]
    notetypes = {key: [t.digest, t.mtime] for key, t in found.notetypes.items()}
    with contextlib.suppress(OSError):  # without it the next build only reads the package
        kept.mkdir(parents=True, exist_ok=True)
        text = json.dumps({"key": _key(content, types), "notes": notes, "notetypes": notetypes})
        write_if_changed(_memo(kept, path), text.encode(), durable=False)


def _memo(kept: Path, path: Path) -> Path:
    return kept / f"published-{hashlib.sha256(str(path.resolve()).encode()).hexdigest()[:16]}.json"


def _key(content: bytes, types: Types) -> str:
    # The code is part of it: another version may read a package otherwise.
    return hashlib.sha256(f"{code_fingerprint()}\0{sorted(types.items())}\0".encode() + content).hexdigest()


def _recalled(path: Path, raw: bytes, types: Types, kept: Path | None) -> Published | None:
    if kept is None:
        return None
    try:
        data = json.loads(_memo(kept, path).read_bytes())
        if data["key"] != _key(raw, types):
            return None
        rows = zip(*data["notes"], strict=True)
        notes = {row[0]: PublishedNote(NoteLock._make(row[:-1]), row[-1]) for row in rows}
        notetypes = {key: PublishedNotetype(digest, mtime) for key, (digest, mtime) in data["notetypes"].items()}
        return Published(notes, notetypes)
    except Exception:  # none, or damaged: the package is read instead
        return None


def _package_bytes(path: Path) -> bytes:
    """A package in the output folder: a link planted there is not followed outside it."""
    return read_inside(path, (path.parent,), MAX_COLLECTION)


def _read_package(path: Path, raw: bytes, types: Types, kept: Path | None) -> Published:
    with zipfile.ZipFile(io.BytesIO(raw)) as archive:
        if archive.getinfo(COLLECTION).file_size > MAX_COLLECTION:
            raise ValueError(f"{COLLECTION} is larger than {MAX_COLLECTION} bytes")
        content = archive.read(COLLECTION)
    conn = sqlite3.connect(":memory:")
    try:
        conn.deserialize(content)
        models, decks = conn.execute("SELECT models, decks FROM col").fetchone()
        rows = conn.execute(
            "SELECT n.guid, n.mid, n.mod, n.flds, n.tags, c.did FROM notes n JOIN cards c ON c.nid = n.id"
        ).fetchall()
    finally:
        conn.close()
    names = {int(did): deck["name"] for did, deck in json.loads(decks).items()}
    notes = (_note(row, types, names) for row in rows if row[1] in types)
    found = Published({note.entry.guid: note for note in notes}, dict(_notetypes(json.loads(models), types)))
    if kept is not None:
        keep(kept, path, raw, types, found)
    return found


def _note(row: tuple[Any, ...], types: Types, decks: Mapping[int, str]) -> PublishedNote:
    guid, mid, mtime, flds, tags, did = row
    fields = flds.split("\x1f")
    digest, parts = note_digest(fields, tags.strip())
    return PublishedNote(NoteLock(guid, fields[0], types[mid][1], digest, parts, int(mtime)), decks.get(did, ""))


def _notetypes(models: Mapping[str, Any], types: Types) -> Iterator[tuple[str, PublishedNotetype]]:
    for mid, model in models.items():
        if int(mid) in types:
            sides = [Side(side["name"], side["qfmt"], side["afmt"]) for side in model["tmpls"]]
            digest = notetype_digest(sides, [f["name"] for f in model["flds"]], model["css"])
            yield types[int(mid)][0], PublishedNotetype(digest, int(model["mod"]))


def raise_times(lock: Lock, published: Published, clock: Clock) -> Lock:
    """``lock`` with the published copy's time where the content is the same, and a newer one where it differs.

    This is what carries a revert to classmates: the reverted note's content
    differs from what they have, so it gets a time after theirs.
    """
    notes = dict(lock.notes)
    known = notes.get
    # Only a note not newer than its published copy, or as published but newer, may need another time:
    # one pass for the rest.
    for guid, copy in [
        (g, c.entry)
        for g, c in published.notes.items()
        if (e := known(g)) is not None and (e.mtime <= c.entry.mtime or e.digest == c.entry.digest)
    ]:
        entry = notes[guid]
        mtime = _newer(entry.mtime, entry.digest == copy.digest, copy.mtime, clock)
        if mtime != entry.mtime:
            notes[guid] = entry._replace(mtime=mtime)
    notetypes = {
        key: replace(entry, mtime=_newer(entry.mtime, entry.digest == shipped.digest, shipped.mtime, clock))
        if (shipped := published.notetypes.get(key)) is not None
        else entry
        for key, entry in lock.notetypes.items()
    }
    return Lock(lock.bank, notetypes, notes)


def _newer(mtime: int, same: bool, published: int, clock: Clock) -> int:
    """The time of a note or note type whose published copy has the time ``published``.

    The same content keeps the published time even where the lock has a newer
    one (a lock not committed, or an edit undone): classmates have that very
    note, and another time would update it for nothing and make a publication
    of a build that changed nothing.
    """
    if same:
        return published
    return mtime if mtime > published else clock.after(published)


def changes_since(
    published: Published, notes: Sequence[tuple[NoteHead, str]], templates: Mapping[str, CardTemplates]
) -> list[Change]:
    """What changed since the published packages: the notes added, changed, moved and removed.

    ``notes`` are the bank's notes with the names of their decks; ``templates``
    those of each note type built, by key.
    """
    changed = (
        t.lang
        for key, t in templates.items()
        if (shipped := published.notetypes.get(key)) is not None and shipped.digest != t.digest
    )
    changes = [Change(lang, "", ChangeKind.TEMPLATES) for lang in dict.fromkeys(changed)]
    known = published.notes.get
    # One pass for the notes as published, nearly all of them; the loop sees only the rest.
    for head, deck in [
        (h, d) for h, d in notes if (c := known(h.guid)) is None or (c.entry.digest, c.deck) != (h.digest, d)
    ]:
        changes += _note_changes(known(head.guid), head, deck)
    gone = [published.notes[guid].entry for guid in published.notes.keys() - {head.guid for head, _ in notes}]
    built = {t.lang for t in templates.values()}
    gone = [copy for copy in gone if copy.lang in built]
    changes += [
        Change(c.lang, c.question, ChangeKind.REMOVED) for c in sorted(gone, key=attrgetter("question", "lang"))
    ]
    return changes


def _note_changes(copy: PublishedNote | None, head: NoteHead, deck: str) -> list[Change]:
    if copy is None:
        return [Change(head.lang, head.question_id, ChangeKind.NEW)]
    changes = []
    if copy.entry.digest != head.digest:
        names = (*KINDS[head.kind].fields, "tags")
        parts = tuple(names[i] for i in changed_parts(copy.entry.parts, head.parts) if i < len(names))
        changes.append(Change(head.lang, head.question_id, ChangeKind.CHANGED, parts))
    if copy.deck != deck:
        changes.append(Change(head.lang, head.question_id, ChangeKind.MOVED, before=copy.deck, after=deck))
    return changes
