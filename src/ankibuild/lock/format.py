"""The lock file: what it holds, written one entry per line, and read back (in either format)."""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache
from itertools import compress
from operator import attrgetter, is_not, itemgetter
from pathlib import Path
from typing import Any, NamedTuple

from ..errors import BankError, Problems
from ..languages import is_language
from ..paths import MAX_RECORD_BYTES, UnsafePathError, open_inside, read_inside
from ..yamlfiles.conflicts import conflict_line
from .clock import MAX_TIME

LOCK_FILE = "ankibuild.lock"
#: The first line of a lock file, for whoever opens it.
HEADER = (
    "# When each note last changed, written by ankibuild: commit it with the bank. "
    "One entry per line, so git can merge it (decks/.gitattributes)."
)
VERSION = 2
#: The version of the first format, one JSON document, which is still read.
FIRST_VERSION = 1


class NoteLock(NamedTuple):
    """A note's entry (a tuple: a large bank has tens of thousands, read and written on every build)."""

    guid: str
    question: str
    lang: str
    digest: str
    #: A checksum per field and one for the tags, space-separated.
    parts: str
    mtime: int

    def as_json(self) -> str:
        return _note_lines([self])[0]


def _note_lines(notes: Sequence[NoteLock]) -> list[str]:
    """Each note's line in the lock file (see :meth:`NoteLock.as_json`), in order.

    Written by hand, not json.dumps, in one comprehension rather than a call per note: a large
    bank has tens of thousands of these lines, made in half the time. Only the GUID can hold
    characters JSON escapes (the rest are slugs, language codes and hexadecimal digits), which
    one search of them all tells; should one, the GUIDs are escaped first.
    """
    if not _PLAIN.fullmatch("".join(map(attrgetter("guid"), notes))):
        notes = [note._replace(guid=json.dumps(note.guid)[1:-1]) for note in notes]
    return [
        f'{{"guid": "{guid}", "question": "{question}", "lang": "{lang}", '
        f'"digest": "{digest}", "parts": "{parts}", "mtime": {mtime}}}'
        for guid, question, lang, digest, parts, mtime in notes
    ]


def changed_parts(old: str, new: str) -> tuple[int, ...]:
    """Which parts (fields, then the tags) differ between two notes' checksums."""
    return tuple(i for i, (a, b) in enumerate(zip(old.split(), new.split(), strict=False)) if a != b)


#: Printable ASCII but the quote and the backslash: written in JSON as they are.
_PLAIN = re.compile(r"[ !#-\[\]-~]*")


@dataclass(frozen=True)
class NotetypeLock:
    """A note type's entry."""

    #: Its key (see :meth:`Kind.notetype_key`): the language alone for multiple choice.
    key: str
    id: int
    fields: tuple[str, ...]
    cards: tuple[str, ...]
    digest: str
    mtime: int

    def as_json(self) -> str:
        return json.dumps(
            {
                "notetype": self.key,
                "id": self.id,
                "fields": list(self.fields),
                "cards": list(self.cards),
                "digest": self.digest,
                "mtime": self.mtime,
            }
        )  # every character not ASCII escaped: a text JSON reads may hold what UTF-8 cannot write


@dataclass
class Lock:
    """The lock: the bank's id, and the entry of each note type and note, by key and by GUID."""

    bank: str = ""
    notetypes: dict[str, NotetypeLock] = field(default_factory=dict)
    notes: dict[str, NoteLock] = field(default_factory=dict)
    #: Restored from what :func:`.memo.remember` kept, rather than parsed from the file.
    recalled: bool = field(default=False, compare=False, repr=False)
    #: The sha256 of the file's bytes, when recalled: of this very lock's :meth:`encoded`.
    sha: bytes = field(default=b"", compare=False, repr=False)
    #: When recalled: the key of the lock kept whole it was restored from, and the GUIDs of the notes
    #: that differ from that one's (see :func:`.memo.remember`).
    kept: tuple[str, frozenset[str]] | None = field(default=None, compare=False, repr=False)
    #: When recalled: no two notes are under one question and language, as kept (see :func:`one_each`).
    one_each: bool = field(default=False, compare=False, repr=False)

    def dumps(self) -> str:
        """A header, then one line per notetype and per note, each a JSON object complete in itself.

        Sorted by language and question, so a change shows as a small diff; and
        since no line depends on its neighbours, git can merge two branches'
        locks by keeping the lines of both (``merge=union``): :func:`read_lock`
        keeps the newest entry of a note that appears twice.
        """
        types = sorted(self.notetypes.values(), key=lambda t: t.key)
        # By language, then (stably) by question: the order of one sort by both, but
        # comparing strings rather than tuples made per note, a quarter of the time.
        notes = sorted(self.notes.values(), key=attrgetter("lang"))
        notes.sort(key=attrgetter("question"))
        head = json.dumps({"ankibuild-lock": VERSION, "bank": self.bank})
        return "\n".join([HEADER, head, *(t.as_json() for t in types), *_note_lines(notes)]) + "\n"

    def encoded(self, before: Lock | None = None, *, file: bytes = b"") -> bytes:
        """:meth:`dumps`, encoded: every line is ASCII (JSON escapes the rest).

        ``file`` is the lock file's bytes as they are now: while they are still those
        ``before`` was recalled from, only the lines of the notes that differ are
        replaced there, and the lock is never held as text (see :meth:`_rewritten`).
        """
        rewritten = self._rewritten(before, file) if before is not None and before.sha else None
        return rewritten if rewritten is not None else self.dumps().encode()

    def _rewritten(self, before: Lock, raw: bytes) -> bytes | None:
        """The bytes of :meth:`encoded`: ``before``'s, ``raw``, with the lines of the notes that changed replaced.

        Only where that gives the same text: the same bank, note types and notes
        (by GUID), each changed note under its question and language as before,
        no two notes under one question and language (whose order would follow
        the dictionaries'), and few enough changes that finding their lines is
        quicker than writing them all. Otherwise None. That last was kept with
        ``before`` (:attr:`one_each`), and holds of this lock then: its notes are
        under the same questions and languages.
        """
        old, notes = before.notes, self.notes
        if not before.one_each or (self.bank, self.notetypes) != (before.bank, before.notetypes):
            return None
        if notes.keys() != old.keys():
            return None
        changed = [(old[guid], notes[guid]) for guid in differing(old, notes)]
        if len(changed) > _MAX_REWRITTEN or any((a.question, a.lang) != (b.question, b.lang) for a, b in changed):
            return None
        if hashlib.sha256(raw).digest() != before.sha:
            return None
        pieces: list[bytes | memoryview] = []
        whole, end = memoryview(raw), 0  # pieces of it are joined as they are, not copied first
        lines = ((f"\n{a.as_json()}\n".encode(), b.as_json().encode()) for a, b in changed)
        for start, was, now in sorted((raw.find(was), was, now) for was, now in lines):
            if start < 0:
                return None
            pieces += [whole[end : start + 1], now]
            end = start + len(was) - 1
        return b"".join([*pieces, whole[end:]])


#: Above this many changed notes, writing every line is as quick as finding theirs.
_MAX_REWRITTEN = 16


def differing(old: Mapping[str, NoteLock], new: Mapping[str, NoteLock]) -> list[str]:
    """The GUIDs of the notes whose entries in ``new`` differ from those in ``old``.

    Stamping keeps the very entry of a note that did not change, and a build
    changes a few: those kept are passed over in C, and only the rest compared.
    """
    others = compress(new, map(is_not, new.values(), map(old.get, new)))
    return [guid for guid in others if old.get(guid) != new[guid]]


def one_each(notes: Collection[NoteLock]) -> bool:
    """Whether no two of ``notes`` are under one question and language (see :meth:`Lock._rewritten`)."""
    return len(set(map(itemgetter(1, 2), notes))) == len(notes)


def read_lock(path: Path, recall: Callable[[bytes], Lock | None] | None = None, *, known: str = "") -> Lock:
    """The lock of the previous build, or an empty one for a bank's first build.

    ``recall`` may restore the lock from the sha256 of the file's bytes instead
    of parsing them (see :func:`.memo.recall`). That digest is taken from the
    bytes, unless it is ``known`` already, in hexadecimal (see :meth:`.Digests.held`).
    """
    try:
        sha = (_from_hex(known) or _sha256_inside(path)) if recall else None
        recalled = recall(sha) if recall and sha else None
        if recalled is not None:
            return recalled
        raw = read_inside(path, (path.parent,), MAX_RECORD_BYTES)  # a line per note
    except FileNotFoundError:
        return Lock()
    except (UnsafePathError, OSError) as err:
        raise _unreadable(path, err) from err
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as err:
        raise _damaged(path, 0, f"not UTF-8 ({err.reason})") from err
    conflict = conflict_line(text)
    if conflict:
        raise _damaged(path, conflict, "merge conflict markers")
    return _parse_first(path, text) if text.startswith("{\n") else _parse(path, text)


def _from_hex(digest: str) -> bytes | None:
    """The bytes of a digest in hexadecimal (kept in the cache folder, where anyone may have written another text)."""
    try:
        return bytes.fromhex(digest) if len(digest) == 64 else None
    except ValueError:
        return None


#: How much of the lock file is hashed at a time.
_PIECE = 256 * 1024


def _sha256_inside(path: Path) -> bytes | None:
    """The sha256 of the lock file's bytes, read a piece at a time, where :func:`read_inside` would read them;
    None for a file larger than it reads (it tells why). Raises as it does.

    Only this digest is needed to recall the lock: read a piece at a time into one buffer, the 6 MB of a
    large bank's lock are not made into one bytes object here, each page of which would be a page fault,
    which costs more than hashing it (the lock's plan reads them whole, once the bank is loaded).
    """
    sha, left, piece = hashlib.sha256(), MAX_RECORD_BYTES + 1, memoryview(bytearray(_PIECE))
    with open_inside(path, (path.parent,)) as file:
        while size := file.readinto(piece[: min(left, _PIECE)]):
            sha.update(piece[:size])
            left -= size
    return sha.digest() if left else None


def _parse(path: Path, text: str) -> Lock:
    lines = [(number, line) for number, line in enumerate(text.splitlines(), 1) if line.strip() and line[0] != "#"]
    try:
        # One parse of them all is quicker than one per line; the slow way finds a damaged line.
        entries = json.loads(f"[{','.join(line for _, line in lines)}]")
    except (ValueError, RecursionError):
        entries = [_parsed_line(path, number, line) for number, line in lines]
    lock = Lock()
    for (number, _), entry in zip(lines, entries, strict=True):
        problem = _line_problem(entry)
        if problem:
            raise _damaged(path, number, problem)
        _add_entry(lock, entry)
    return lock


def _parsed_line(path: Path, number: int, line: str) -> Any:
    try:
        return json.loads(line)
    except (ValueError, RecursionError) as err:  # Python's JSON reader recurses once per level of nesting
        raise _damaged(path, number, _what_is_wrong(err)) from err


def _line_problem(entry: object) -> str | None:
    """What is wrong with one line's entry, or None when each of its values can be used."""
    if not isinstance(entry, dict):
        return "the line is not an object {...}"
    if "guid" in entry:
        problem = _entry_problem(entry, _NOTE)
        return f"the note {problem}" if problem else None
    if "notetype" in entry:
        problem = _entry_problem(entry, {"notetype": _is_text, **_NOTETYPE})
        return f"the note type {problem}" if problem else None
    if entry.get("ankibuild-lock") != VERSION:
        return "it was written by another version of ankibuild: build with that version"
    return None if isinstance(entry.get("bank"), str) else '"bank" is missing or not a text'


def _add_entry(lock: Lock, data: dict[str, Any]) -> None:
    """Add one line's entry; of two entries for one note or notetype (a merge kept both), the newest."""
    if "guid" in data:
        note = _note(data)
        old = lock.notes.get(note.guid)
        if old is None or note.mtime > old.mtime:
            lock.notes[note.guid] = note
    elif "notetype" in data:
        notetype = _notetype(data["notetype"], data)
        old_notetype = lock.notetypes.get(notetype.key)
        if old_notetype is None or notetype.mtime > old_notetype.mtime:
            lock.notetypes[notetype.key] = notetype
    else:
        lock.bank = data["bank"]


def _note(n: dict[str, Any]) -> NoteLock:
    # _make builds the tuple without the constructor's checks.
    return NoteLock._make((n["guid"], n["question"], n["lang"], n["digest"], n["parts"], n["mtime"]))


def _notetype(key: str, t: dict[str, Any]) -> NotetypeLock:
    return NotetypeLock(key, t["id"], tuple(t["fields"]), tuple(t["cards"]), t["digest"], t["mtime"])


def _parse_first(path: Path, text: str) -> Lock:
    """A lock in the first format: one JSON document (read, and written again in the current one)."""
    try:
        data = json.loads(text)
    except (ValueError, RecursionError) as err:
        raise _damaged(path, getattr(err, "lineno", 0), _what_is_wrong(err)) from err
    wrong = _wrong_value(data, text)
    if wrong is not None:
        raise _damaged(path, *wrong)
    notetypes = {key: _notetype(key, t) for key, t in data["notetypes"].items()}
    return Lock(data["bank"], notetypes, {n["guid"]: _note(n) for n in data["notes"]})


def _what_is_wrong(err: Exception) -> str:
    if isinstance(err, json.JSONDecodeError):
        return f"not valid JSON ({err.msg}, column {err.colno})"
    if isinstance(err, RecursionError):
        return "nested far deeper than any lock entry"
    return f"an entry is missing or of the wrong kind ({err!r})"


#: The largest notetype id: what a double holds exactly, far above any id Anki or ankibuild makes.
MAX_ID = 2**53


def _is_time(value: object) -> bool:
    return type(value) is int and 0 <= value <= MAX_TIME


def _is_id(value: object) -> bool:
    return type(value) is int and 1 <= value <= MAX_ID


def _is_text(value: object) -> bool:
    return isinstance(value, str)


def _are_texts(value: object) -> bool:
    return isinstance(value, list) and all(isinstance(item, str) for item in value)


def _is_slug(value: object) -> bool:
    return isinstance(value, str) and _slug().fullmatch(value) is not None


@cache
def _slug() -> re.Pattern[str]:
    from ..model import SLUG  # what a question id is; a build with nothing to do reads only the lock

    return SLUG


def _is_digest(value: object) -> bool:
    return isinstance(value, str) and _HEX.fullmatch(value) is not None


def _are_checksums(value: object) -> bool:
    return isinstance(value, str) and _CHECKSUMS.fullmatch(value) is not None


_HEX = re.compile(r"[0-9a-f]{1,64}")
_CHECKSUMS = re.compile(r"(?:[0-9a-f]{1,16}(?: [0-9a-f]{1,16})*)?")

_NOTETYPE = {"id": _is_id, "fields": _are_texts, "cards": _are_texts, "digest": _is_digest, "mtime": _is_time}
# A note's line is written as it is read, unescaped, but for its GUID: each value is of a shape JSON keeps as it is.
_NOTE = {
    "guid": _is_text,
    "question": _is_slug,
    "lang": is_language,
    "digest": _is_digest,
    "parts": _are_checksums,
    "mtime": _is_time,
}


#: A note type's entry's keys, in the order of :class:`NotetypeLock`'s fields.
_NOTETYPE_KEYS = ("notetype", *_NOTETYPE)


def holds(bank: object, notetypes: Sequence[object], notes: Sequence[Sequence[object]]) -> bool:
    """Whether a lock kept as values passes the checks its file's lines pass when read.

    ``notetypes`` are rows in the order of :class:`NotetypeLock`'s fields,
    ``notes`` columns in the order of :class:`NoteLock`'s: what is kept in the
    cache (see :mod:`.memo`) may have been written by anyone.
    """
    head = {"ankibuild-lock": VERSION, "bank": bank}
    if any(map(_line_problem, [head, *map(_notetype_entry, notetypes)])) or len(notes) != len(_NOTE):
        return False
    guids, questions, langs, digests, parts, mtimes = notes
    try:
        # A question's notes share its id, one per language: each id is matched once, not once per note.
        joined = [_lines(column) for column in (list(set(questions)), digests, parts)]
        known = all(map(is_language, set(langs)))
    except TypeError:  # a value that is no text
        return False
    # A lock recalled holds every note: each column is checked at once, at C speed, by the patterns a line's
    # values are, or by the set of its values' types and the bounds of its times.
    return (
        known
        and set(map(type, guids)) <= {str}
        and set(map(type, mtimes)) <= {int}
        and (not mtimes or (min(mtimes) >= 0 and max(mtimes) <= MAX_TIME))  # type: ignore[type-var, operator]
        and _every(_slug()).fullmatch(joined[0]) is not None
        and (_hex_groups(joined[1], DIGEST_DIGITS, b"\n") or _every(_HEX).fullmatch(joined[1]) is not None)
        and _all_checksums(joined[2])
    )


def _lines(column: Sequence[object]) -> str:
    """The texts of ``column``, each ended by a line break. Raises TypeError for anything else, or a line break."""
    joined = "\n".join(column) + "\n" if column else ""  # type: ignore[arg-type]  # join() refuses any other type
    if joined.count("\n") != len(column):
        raise TypeError("a text of several lines")
    return joined


#: The bytes a column of checksums is made of: hexadecimal digits, spaces and line breaks.
_CHECKSUM_BYTES = b"0123456789abcdef \n"
#: What :func:`_all_checksums` makes of each of those: its class.
_CLASSES = bytes.maketrans(_CHECKSUM_BYTES, b"xxxxxxxxxxxxxxxxsn")


def _all_checksums(joined: str) -> bool:
    """Whether every line of ``joined`` (each ended by a line break) is a note's checksums, as :data:`_CHECKSUMS`
    matches them: none or more runs of 1 to 16 hexadecimal digits, one space between each two.

    The same test as that pattern repeated, at a tenth of its cost: the engine takes a slow step per
    repeated group, some 300,000 for a lock of 30,000 notes. Here each byte becomes its class, and
    a few searches of the classes, each a pass in C, test their order. The checksums a build writes,
    each of 8 digits, pass a quicker test first.
    """
    if _hex_groups(joined, CHECKSUM_DIGITS, b" \n"):
        return True
    data = joined.encode("utf-8", "surrogatepass")
    classes = data.translate(_CLASSES)
    return (
        # Nothing but digits, spaces and line breaks: tested before the classes, whose letters a text may hold.
        not data.translate(None, _CHECKSUM_BYTES)
        and not classes.startswith(b"s")
        and not any(pair in classes for pair in (b"ss", b"sn", b"ns"))  # each space between two digits
        and b"x" * 17 not in classes
    )


#: How many hexadecimal digits a build writes for a note's digest, and for each of its checksums.
DIGEST_DIGITS, CHECKSUM_DIGITS = 16, 8
#: Every byte a hexadecimal digit is written with.
_HEX_BYTES = b"0123456789abcdef"


def _hex_groups(joined: str, digits: int, ends: bytes) -> bool:
    """Whether ``joined`` is nothing but groups of ``digits`` hexadecimal digits, each ended by one of the bytes of
    ``ends``, the last by a line break: the shape of the columns a build writes.

    Each group's end is at a place known beforehand: a slice takes them all, and a few passes in C, none a
    step per group, tell whether they are ends and the rest digits. A column of another shape may still be valid.
    """
    data = joined.encode("utf-8", "surrogatepass")
    after = data[digits :: digits + 1]
    return (
        len(data) == len(after) * (digits + 1)
        and data.endswith(b"\n")
        and not after.translate(None, ends)
        # Its bytes but the digits are those ends, and no others: every other byte is a digit.
        and data.translate(None, _HEX_BYTES) == after
    )


@cache
def _every(pattern: re.Pattern[str]) -> re.Pattern[str]:
    """``pattern`` repeated, each match ended by a line break (as :func:`_lines` ends each text)."""
    return re.compile(f"(?:(?:{pattern.pattern})\n)*", re.MULTILINE)


def _notetype_entry(row: object) -> dict[str, object] | None:
    """A note type's row as the line of the file that holds it has it; None for a row of another shape."""
    if isinstance(row, list) and len(row) == len(_NOTETYPE_KEYS):
        return dict(zip(_NOTETYPE_KEYS, row, strict=True))
    return None


def _entry_problem(entry: object, shape: Mapping[str, Callable[[object], bool]]) -> str | None:
    """What is wrong with one entry of the lock, or None."""
    if not isinstance(entry, dict):
        return "is not an object {...}"
    for key, valid in shape.items():
        if key not in entry:
            return f'has no "{key}"'
        if not valid(entry[key]):
            return f'has an impossible "{key}": {json.dumps(entry[key])[:40]}'
    return None


def _wrong_value(data: object, text: str) -> tuple[int, str] | None:
    """The line and what is wrong in a lock of the first format (``text``), or None when every value can be used."""
    if not isinstance(data, dict):
        return 1, "it is not an object {...}"
    if data.get("version", FIRST_VERSION) != FIRST_VERSION:
        return _line_of(text, '"version"'), "it was written by another version of ankibuild: build with that version"
    for key, kind in {"bank": str, "notetypes": dict, "notes": list}.items():
        if not isinstance(data.get(key), kind):
            what = "a text" if kind is str else "an " + kind.__name__
            return _line_of(text, f'"{key}"'), f'"{key}" is missing or not {what}'
    return _wrong_entry(data["notetypes"], data["notes"], text)


def _wrong_entry(notetypes: dict[object, object], notes: list[object], text: str) -> tuple[int, str] | None:
    for lang, entry in notetypes.items():
        problem = _entry_problem(entry, _NOTETYPE)
        if problem:
            return _line_of(text, f"{json.dumps(lang)}:"), f"the note type of {lang!r} {problem}"
    for number, entry in enumerate(notes, start=1):
        problem = _entry_problem(entry, _NOTE)
        if problem:
            return _element_line(text, "notes", number), f"note {number} {problem}"
    return None


def _element_line(text: str, key: str, number: int) -> int:
    """The line of the ``number``-th element (from 1) of the array under ``key``; 0 when it is not found."""
    decoder, start = json.JSONDecoder(), text.find(f'"{key}"')
    at = text.find("[", start) + 1 if start != -1 else 0
    for _ in range(number):
        while at and at < len(text) and text[at] in " \t\r\n,":
            at += 1
        start = at
        try:
            _, at = decoder.raw_decode(text, at)
        except ValueError:
            return 0
    return text.count("\n", 0, start) + 1


def _line_of(text: str, needle: str) -> int:
    """The line where ``needle`` first occurs in ``text``; 0 when it does not."""
    at = text.find(needle) if needle else -1
    return 0 if at == -1 else text.count("\n", 0, at) + 1


def _unreadable(path: Path, err: UnsafePathError | OSError) -> BankError:
    problems = Problems()
    message = err.message if isinstance(err, UnsafePathError) else f"cannot read the file: {err.strerror}"
    problems.add(path, f"the lock file is not read: {message}", hint=f"restore it from git (git checkout -- {path})")
    return BankError(problems.items)


def _damaged(path: Path, line: int, message: str) -> BankError:
    problems = Problems()
    problems.add(
        path,
        f"the lock file is damaged: {message}",
        line=line,
        column=1 if line else 0,
        hint=f"after a merge, delete only the <<<<<<<, ======= and >>>>>>> lines and keep both sides' entries "
        f"(the newest of each note counts); else restore it from git (git checkout -- {path}) and build again. "
        "Without it, classmates' decks stop updating.",
    )
    return BankError(problems.items)
