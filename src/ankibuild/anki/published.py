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
import os
import re
import sqlite3
import tempfile
import zipfile
import zlib
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import partial
from itertools import compress, repeat
from operator import attrgetter, ne, not_
from pathlib import Path
from typing import Any, NamedTuple

from ..atomic import write_if_changed
from ..cache import named_rows, pack_columns, read_kept, unpack_columns
from ..changelog import Change, ChangeKind
from ..errors import Problems, Severity
from ..kinds import KINDS
from ..load.render import CardTemplates, NoteHead, Side, note_digest, notetype_digest
from ..lock.clock import MAX_TIME, Clock
from ..lock.format import MAX_ID, Lock, NoteLock, changed_parts
from ..model import SLUG
from ..paths import UnsafePathError, open_inside, written_place
from ..version import code_fingerprint
from .spec import COLLECTION

#: The clock a build reads the time from, unless it has its own.
_CLOCK = Clock()


class NotetypeOf(NamedTuple):
    """What a note type of the bank is to a build: its key (see :meth:`Kind.notetype_key`), language and name."""

    key: str
    lang: str
    name: str


#: Each note type of every kind in the languages built, by its id.
Types = Mapping[int, NotetypeOf]

#: A published package or collection larger than this is not read: it is no package of ours.
MAX_COLLECTION = 2**30
#: How many times its deflated size a collection may hold: a real one a few times, a zip bomb a thousand.
MAX_INFLATION = 100
#: What any collection may hold, whatever its deflated size (an empty one is mostly zeros).
MIN_ALLOWED = 16 * 2**20
#: How many SQLite steps reading a collection may take per byte it holds, and at least: a real one takes
#: about 10 a note, a hundredth of a step per byte, so a join that multiplies rows stops long before it stalls a build.
STEPS_PER_BYTE = 1
MIN_STEPS = 10**6
#: How far ahead of this computer's clock a published time may be (a fast clock built it); later is no real time.
AHEAD = 366 * 86_400
#: The pieces a file is copied in: reading a package costs this much memory, not its size.
_PIECE = 2**20


class OddPackageError(ValueError):
    """Raised for a published package holding what no build of ours writes: it is treated as absent."""


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
    #: The name of its note type, which a search for it names.
    notetype: str


@dataclass(frozen=True)
class PublishedNotetype:
    """A note type as a published package holds it: its digest, as its lock entry has it, and its time."""

    digest: str
    mtime: int


@dataclass
class Published:
    """The notes and notetypes of the bank's published packages, for the languages asked for.

    A note found in several packages (``--split`` and not) counts with its newest copy.
    """

    notes: dict[str, PublishedNote] = field(default_factory=dict)
    notetypes: dict[str, PublishedNotetype] = field(default_factory=dict)
    #: The languages whose packages were not read, each known to hold the build's notes as the lock has them.
    unread: frozenset[str] = frozenset()
    #: The package read holds a note type, or a note, of another bank or of a language not asked for.
    foreign: bool = False
    #: The packages read that hold nothing else than the bank's note types and notes in the languages asked for.
    own: frozenset[Path] = frozenset()

    def add(self, other: Published) -> None:
        self.own |= other.own
        if not self.notes:  # the first package read, nearly always the only one: its notes as they are, in C
            self.notes.update(other.notes)
        else:
            for guid, note in other.notes.items():
                if guid not in self.notes or note.entry.mtime > self.notes[guid].entry.mtime:
                    self.notes[guid] = note
        for key, notetype in other.notetypes.items():
            if key not in self.notetypes or notetype.mtime > self.notetypes[key].mtime:
                self.notetypes[key] = notetype


class Known(NamedTuple):
    """A published package the build knows as its own: it holds what the build would make of the lock as it is."""

    lang: str
    #: The newest time it holds.
    latest: int


def read_published(
    out: Path,
    bank_id: str,
    templates: Mapping[str, CardTemplates],
    *,
    problems: Problems,
    kept: Path | None = None,
    clock: Clock = _CLOCK,
    known: Mapping[Path, Known] | None = None,
) -> Published:
    """The published notes of ``bank_id`` in the languages of ``templates``, from every ``.apkg`` directly in ``out``.

    A package that cannot be read is reported as a warning and left out: the
    notes it held then follow the lock alone. What was found in a package is
    kept in the folder ``kept``, by the package's content, for the next build
    (which usually finds the very packages the last one wrote: see :func:`keep`).

    A package is anyone's file: only its real tables are read, with a bounded
    number of steps, and a time later than a year after ``clock``'s, or an id
    no build makes, leaves the whole package out with a warning.

    The packages ``known`` hold every note of their language as the lock has it:
    each copy has the lock's digest and time, and changes nothing. A language
    whose every package is known is not read (see :attr:`Published.unread`), unless
    another package holds its notes or note types, whose copies would compete.
    """
    types = notetype_keys(bank_id, templates)
    latest = min(clock.now() + AHEAD, MAX_TIME)
    paths = sorted(out.glob("*.apkg")) if out.is_dir() else []
    unread = _unread(paths, known or {}, latest=latest)
    found = Problems()
    published = _read_all([path for path in paths if path not in unread], types, found, latest=latest, kept=kept)
    langs = frozenset(unread.values())
    key_langs = {notetype.key: notetype.lang for notetype in types.values()}
    # Whether a note read is of a language not read: in C, a pass over every note read.
    if not langs.isdisjoint(map(_LANG_OF, map(_ENTRY, published.notes.values()))) or langs & {
        key_langs[key] for key in published.notetypes
    }:
        return _read_all(paths, types, problems, latest=latest, kept=kept)
    problems.extend(found.items)
    return replace(published, unread=langs)


def _unread(paths: Sequence[Path], known: Mapping[Path, Known], *, latest: int) -> dict[Path, str]:
    """The known packages of ``paths``, with their languages, but those of a language with a package that a
    reading would not take as it is: one with a time over a year ahead (left out, with a warning), or a link."""
    odd = {package.lang for path, package in known.items() if package.latest > latest or path.is_symlink()}
    return {path: known[path].lang for path in paths if path in known and known[path].lang not in odd}


def _read_all(paths: Sequence[Path], types: Types, problems: Problems, *, latest: int, kept: Path | None) -> Published:
    """The notes of the packages ``paths``, as :func:`read_published` reads each."""
    published = Published()
    for path in paths:
        try:
            # A link planted in the output folder is not followed outside it; the file is read once, a piece at a time.
            with open_inside(path, (path.parent,)) as file:
                published.add(_read_file(path, file, types, latest=latest, kept=kept))
        except _UNREADABLE as err:
            problems.add(
                path,
                f"cannot read this published package ({err}): its notes' times follow the lock only",
                hint="fetch the packages last published into this folder, or delete it if it is not one",
                severity=Severity.WARNING,
            )
    return published


def notetype_keys(bank_id: str, templates: Mapping[str, CardTemplates]) -> Types:
    """Each note type of every kind in the languages of ``templates``, by its id.

    Every kind, not only those built: a question that changed kind leaves a
    published note of a note type the build may no longer make, which is
    removed all the same.
    """
    langs = sorted({t.lang for t in templates.values()})
    return {
        kind.notetype_id(bank_id, lang): NotetypeOf(kind.notetype_key(lang), lang, kind.notetype_name(bank_id, lang))
        for kind in KINDS.values()
        for lang in langs
    }


class Columns(NamedTuple):
    """What a memo keeps of a package's notes (see :func:`keep`), a column each, in the package's order."""

    #: Each note's entry as the lock would have it.
    entries: Sequence[NoteLock]
    #: The names of the decks their cards were published in.
    decks: Sequence[str]
    #: The names of their note types.
    names: Sequence[str]
    notetypes: Mapping[str, PublishedNotetype]
    #: The package holds a note type or note of another bank or language too (see :attr:`Published.foreign`).
    foreign: bool = False

    @classmethod
    def of(cls, found: Published) -> Columns:
        notes = found.notes.values()
        entries = [note.entry for note in notes]
        names = [note.notetype for note in notes]
        return cls(entries, [note.deck for note in notes], names, found.notetypes, found.foreign)


def keep(kept: Path, path: Path, content: bytes, *, types: Types, found: Columns) -> Callable[[], None]:
    """What keeps ``found``, the notes of the package ``path`` that holds ``content``, for :func:`read_published`:
    made ready here, written when called."""
    key = _hasher(types)
    key.update(content)
    return _memo_writer(kept, path, key.hexdigest(), found=found)


def _memo_writer(kept: Path, path: Path, key: str, *, found: Columns) -> Callable[[], None]:
    """What keeps ``found`` under ``key`` (see :func:`_hasher`): its bytes made here, written when called.

    Plain data in columns (see :func:`pack_columns`), never pickle: the cache folder may be shared.
    """
    guids, questions, langs, digests, parts, mtimes = list(zip(*found.entries, strict=True)) or [()] * 6
    notetypes = {key: [t.digest, t.mtime] for key, t in found.notetypes.items()}
    texts = [guids, questions, langs, digests, parts, found.decks, found.names]
    packed = pack_columns([key, mtimes, notetypes, found.foreign], texts)
    return partial(_write_memo, kept, _memo(kept, path), packed)


def _write_memo(kept: Path, memo: Path, packed: bytes) -> None:
    with contextlib.suppress(OSError):  # without it the next build only reads the package
        kept.mkdir(parents=True, exist_ok=True)
        write_if_changed(memo, packed, durable=False)


def _memo(kept: Path, path: Path) -> Path:
    return kept / f"published-{hashlib.sha256(os.fsencode(written_place(path))).hexdigest()[:16]}.memo"


def _hasher(types: Types) -> hashlib._Hash:
    """What a package's memo is keyed by, to be fed its bytes.

    The code is part of it: another version may read a package otherwise.
    """
    return hashlib.sha256(f"{code_fingerprint()}\0{sorted(types.items())}\0".encode())


def _read_file(path: Path, file: io.BufferedReader, types: Types, *, latest: int, kept: Path | None) -> Published:
    """The notes of the package open in ``file``: kept from its last reading, else read and kept."""
    if os.fstat(file.fileno()).st_size > MAX_COLLECTION:
        raise OddPackageError(f"it is larger than {MAX_COLLECTION} bytes")
    key = hashlib.file_digest(file, lambda: _hasher(types)).hexdigest()
    if kept is None:
        found = _read_package(file, types, latest)
    else:
        before = _status(_memo(kept, path))
        recalled = _recalled(path, key, kept, latest=latest)
        found = recalled or _read_package(file, types, latest)
        # Should what this package's replacement holds have been kept meanwhile, it stays: kept over by
        # what the package replaced held, it would never be recalled, and every build would read anew.
        if recalled is None and _status(_memo(kept, path)) == before:
            _memo_writer(kept, path, key, found=Columns.of(found))()
    return replace(found, own=frozenset() if found.foreign else frozenset({path}))


def _status(memo: Path) -> tuple[int, int, int] | None:
    """What tells whether ``memo`` was written since (a memo is replaced by a new file), None if there is none."""
    try:
        info = memo.lstat()
    except OSError:
        return None
    return info.st_ino, info.st_mtime_ns, info.st_size


def _recalled(path: Path, key: str, kept: Path, *, latest: int) -> Published | None:
    """What :func:`_keep` kept of the package whose bytes give ``key``; None when there is none of its shape.

    The kept folder may be shared: its times pass the checks of a package's (see :func:`_time`).
    """
    try:
        (kept_key, mtimes, notetypes, foreign), texts = unpack_columns(read_kept(_memo(kept, path)))
        if kept_key != key or type(foreign) is not bool:
            return None
        guids, questions, langs, digests, parts, decks, names = texts
        entries = named_rows(NoteLock, guids, questions, langs, digests, parts, _times(mtimes, latest))
        notes = dict(zip(guids, named_rows(PublishedNote, entries, decks, names), strict=True))
        types = {
            key: PublishedNotetype(_text(digest), _time(mtime, latest)) for key, (digest, mtime) in notetypes.items()
        }
        return Published(notes, types, foreign=foreign)
    except Exception:  # none, or damaged: the package is read instead
        return None


def _read_package(file: io.BufferedReader, types: Types, latest: int) -> Published:
    """What the package in ``file`` holds: its collection is copied into a private folder and read there.

    Copied a piece at a time, and read by SQLite from the file, it costs memory
    in proportion to the notes found, not to its size.
    """
    file.seek(0)
    with zipfile.ZipFile(file) as archive, tempfile.TemporaryDirectory(prefix="ankibuild-") as folder:
        collection = Path(folder) / COLLECTION
        _inflate(archive, collection)
        models, decks, rows = _rows(collection)
    names = {_id(did): _text(deck["name"]) for did, deck in json.loads(decks).items()}
    ours = (_note(row, types, names, latest=latest) for row in rows if row[1] in types)
    notes = {note.entry.guid: note for note in ours}
    held = json.loads(models)
    notetypes = dict(_notetypes(held, types, latest))
    foreign = not {row[1] for row in rows} | set(map(_id, held)) <= types.keys()
    return Published(notes, notetypes, foreign=foreign)


def _inflate(archive: zipfile.ZipFile, to: Path) -> None:
    """The package's collection written to ``to``, refused once it grows past what a real one could."""
    info = archive.getinfo(COLLECTION)
    allowed = min(MAX_COLLECTION, max(MIN_ALLOWED, MAX_INFLATION * info.compress_size))
    written = 0
    with archive.open(info) as entry, to.open("wb") as copy:
        while piece := entry.read(_PIECE):
            written += len(piece)
            if written > allowed:
                raise OddPackageError(f"its collection inflates to more than {allowed} bytes")
            copy.write(piece)


#: The tables read, as ``sqlite_master`` has them when they are real ones.
_TABLES = ("col", "notes", "cards")
_QUERIES = (
    "SELECT models, decks FROM col",
    "SELECT n.guid, n.mid, n.mod, n.flds, n.tags, c.did FROM notes n JOIN cards c ON c.nid = n.id",
)


def _rows(collection: Path) -> tuple[Any, Any, list[tuple[Any, ...]]]:
    """The note types, decks and notes of ``collection``, read with a bounded number of steps."""
    size = collection.stat().st_size
    budget = _Budget(max(MIN_STEPS, STEPS_PER_BYTE * size))
    conn = sqlite3.connect(f"{collection.as_uri()}?mode=ro&immutable=1", uri=True)
    try:
        conn.setlimit(sqlite3.SQLITE_LIMIT_LENGTH, max(size, 1))  # no value longer than the file: none is made up
        conn.execute("PRAGMA trusted_schema = OFF")
        tables = conn.execute(
            "SELECT name, sql FROM sqlite_master WHERE type = 'table' AND name IN (?, ?, ?)", _TABLES
        ).fetchall()
        if sorted(name for name, sql in tables if str(sql).upper().startswith("CREATE TABLE")) != sorted(_TABLES):
            raise OddPackageError("its notes, cards or col are not plain tables")
        conn.set_progress_handler(budget.step, _Budget.EVERY)
        (models, decks), rows = conn.execute(_QUERIES[0]).fetchone(), conn.execute(_QUERIES[1]).fetchall()
    except sqlite3.OperationalError as err:
        if budget.spent:
            raise OddPackageError("it takes more work to read than any real one") from err
        raise
    finally:
        conn.close()
    return models, decks, rows


class _Budget:
    """SQLite's progress handler: stops a query once it has taken the steps it may."""

    #: SQLite calls it every this many steps.
    EVERY = 1000

    def __init__(self, steps: int) -> None:
        self.left = steps
        self.spent = False

    def step(self) -> int:
        self.left -= self.EVERY
        self.spent = self.left < 0
        return int(self.spent)  # not zero: SQLite stops the query


def _note(row: tuple[Any, ...], types: Types, decks: Mapping[int, str], *, latest: int) -> PublishedNote:
    guid, mid, mtime, flds, tags, did = row
    fields = _text(flds).split("\x1f")
    if not (isinstance(guid, str) and _GUID.fullmatch(guid)):
        raise OddPackageError(f"a note's GUID is none a build makes: {guid!r:.40}")
    if not SLUG.fullmatch(fields[0]):
        raise OddPackageError(f"a note's ID is no question id: {fields[0]!r:.40}")
    digest, parts = note_digest(fields, _text(tags).strip())
    notetype = types[mid]
    entry = NoteLock(guid, fields[0], notetype.lang, digest, parts, _time(mtime, latest))
    return PublishedNote(entry, decks.get(did, ""), notetype.name)


def _notetypes(models: Mapping[str, Any], types: Types, latest: int) -> Iterator[tuple[str, PublishedNotetype]]:
    for mid, model in models.items():
        if _id(mid) in types:
            sides = [Side(_text(side["name"]), _text(side["qfmt"]), _text(side["afmt"])) for side in model["tmpls"]]
            fields = [_text(f["name"]) for f in model["flds"]]
            digest = notetype_digest(sides, fields, _text(model["css"]), sort_field=_sort_field(model, fields))
            yield types[int(mid)].key, PublishedNotetype(digest, _time(model["mod"], latest))


def _sort_field(model: Mapping[str, Any], fields: Sequence[str]) -> str:
    """The name of the field a note type read from a package sorts by."""
    index = model.get("sortf", 0)
    if type(index) is not int or not 0 <= index < len(fields):
        raise OddPackageError(f"a note type sorts by field {index!r:.20}, which it does not have")
    return fields[index]


#: A GUID as genanki makes them: printable ASCII, no space, quote or backslash.
_GUID = re.compile(r"[!#-\[\]-~]{1,64}")


def _time(value: object, latest: int) -> int:
    """A time a note or note type may have been published with: from 1970 to ``latest``."""
    if type(value) is not int or not 0 <= value <= latest:
        raise OddPackageError(f"a time is {value!r:.20}, not one between 1970 and a year from now")
    return value


def _times(values: list[Any], latest: int) -> list[int]:
    """:func:`_time` of each of ``values``, checked as a whole: the set of their types, then their bounds."""
    if values and not (set(map(type, values)) <= {int} and min(values) >= 0 and max(values) <= latest):
        raise OddPackageError("a time is not one between 1970 and a year from now")
    return values


def _id(value: object) -> int:
    """An id of a deck or note type, written as a JSON key: digits, within what a lock may hold."""
    if not (isinstance(value, str) and value.isascii() and value.isdigit() and 0 < int(value) <= MAX_ID):
        raise OddPackageError(f"an id is {str(value)[:20]!r}, which no build makes")
    return int(value)


def _text(value: object) -> str:
    if not isinstance(value, str):
        raise OddPackageError(f"a text is a {type(value).__name__}")
    return value


#: What the passes in C over every note take of a note, a published copy and a note's head.
_ENTRY = attrgetter("entry")
_DIGEST_AND_DECK = attrgetter("entry.digest", "deck")
_LANG_OF, _GUID_OF, _DIGEST_OF, _DECK_OF = (
    attrgetter("lang"),
    attrgetter("guid"),
    attrgetter("digest"),
    attrgetter("deck_key", "lang"),
)
#: The copy of a note not published: None, which no note's digest or deck's name is.
_UNPUBLISHED = PublishedNote._make([NoteLock._make([None] * 6), None, None])


def raise_times(lock: Lock, published: Published, clock: Clock) -> Lock:
    """``lock`` with the published copy's time where the content is the same, and a newer one where it differs.

    This is what carries a revert to classmates: the reverted note's content
    differs from what they have, so it gets a time after theirs. Where no time
    changes, ``lock`` itself.
    """
    copies = list(map(_ENTRY, published.notes.values()))
    entries = list(map(lock.notes.get, published.notes))
    # Only a note as published but with another time, or changed but not newer, gets another time
    # (see _newer). A note whose entry is its copy's to the letter is neither: nearly every note,
    # passed over in C; the comprehension sees only the rest.
    moved = [
        (g, c, e)
        for g, c, e in compress(zip(published.notes, copies, entries, strict=True), map(ne, entries, copies))
        if e is not None and (e.mtime != c.mtime if e.digest == c.digest else e.mtime <= c.mtime)
    ]
    raised = {
        guid: entry._replace(mtime=_newer(entry.mtime, entry.digest == copy.digest, copy.mtime, clock=clock))
        for guid, copy, entry in moved
    }
    notetypes = {
        key: replace(entry, mtime=_newer(entry.mtime, entry.digest == shipped.digest, shipped.mtime, clock=clock))
        if (shipped := published.notetypes.get(key)) is not None
        else entry
        for key, entry in lock.notetypes.items()
    }
    if not raised and notetypes == lock.notetypes:
        return lock
    return Lock(lock.bank, notetypes, {**lock.notes, **raised})


def _newer(mtime: int, same: bool, published: int, *, clock: Clock) -> int:
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
    published: Published,
    heads: Sequence[NoteHead],
    templates: Mapping[str, CardTemplates],
    *,
    decks: Mapping[tuple[str, str], str],
) -> list[Change]:
    """What changed since the published packages: the notes added, changed, moved and removed.

    ``heads`` are the bank's notes; ``templates`` those of each note type built,
    by key; ``decks`` the name of each deck, by its key and language. The
    languages not read have no changes.
    """
    unread = published.unread
    changed = (
        t.lang
        for key, t in templates.items()
        if (shipped := published.notetypes.get(key)) is not None and shipped.digest != t.digest
    )
    changes = [Change(lang, "", ChangeKind.TEMPLATES) for lang in dict.fromkeys(changed)]
    if unread:  # after an edit, most notes: left out in C
        heads = list(compress(heads, map(not_, map(unread.__contains__, map(_LANG_OF, heads)))))
    if not published.notes:  # nothing published: every note is new, none removed
        return changes + [Change(h.lang, h.question_id, ChangeKind.NEW) for h in heads]
    names = list(map(decks.__getitem__, map(_DECK_OF, heads)))
    copies = map(published.notes.get, map(_GUID_OF, heads), repeat(_UNPUBLISHED))
    # One pass in C for the notes as published, nearly all of them; the loop sees only the rest.
    differ = map(ne, map(_DIGEST_AND_DECK, copies), zip(map(_DIGEST_OF, heads), names, strict=True))
    for head, deck in compress(zip(heads, names, strict=True), differ):
        changes += _note_changes(published.notes.get(head.guid), head, deck)
    gone = [published.notes[guid] for guid in published.notes.keys() - map(_GUID_OF, heads)]
    built = {t.lang for t in templates.values()}
    changes += [
        Change(c.entry.lang, c.entry.question, ChangeKind.REMOVED, notetype=c.notetype)
        for c in sorted(gone, key=lambda copy: (copy.entry.question, copy.entry.lang))
        if c.entry.lang in built
    ]
    return changes


def _note_changes(copy: PublishedNote | None, head: NoteHead, deck: str) -> list[Change]:
    if copy is None:
        return [Change(head.lang, head.question_id, ChangeKind.NEW)]
    changes = []
    if copy.entry.digest != head.digest:
        fields = (*KINDS[head.kind].fields, "tags")
        parts = tuple(fields[i] for i in changed_parts(copy.entry.parts, head.parts) if i < len(fields))
        changes.append(Change(head.lang, head.question_id, ChangeKind.CHANGED, parts))
    if copy.deck != deck:
        # The same GUID: the same kind and language, so the same note type.
        changes.append(
            Change(head.lang, head.question_id, ChangeKind.MOVED, before=copy.deck, after=deck, notetype=copy.notetype)
        )
    return changes
