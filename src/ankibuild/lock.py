"""The lock file: when each note's and notetype's content last changed.

Anki updates an imported note only when the incoming modification time is newer
than its own, and never compares content. So a note's time must move exactly
when its content changes, and stay put otherwise, across builds on any machine:
it is kept here, committed beside the bank.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import astuple, dataclass, field, replace
from operator import attrgetter
from pathlib import Path
from typing import NamedTuple, Protocol

from .atomic import write_if_changed
from .cache import pack, unpack
from .errors import BankError, Problems
from .paths import UnsafePathError, read_inside
from .version import code_fingerprint

LOCK_FILE = "ankibuild.lock"
VERSION = 1


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
        # Written by hand, not json.dumps: a large bank has tens of thousands of these
        # lines. Only the GUID can hold characters JSON escapes; the rest are slugs,
        # language codes and hexadecimal digits.
        return (
            f'{{"guid": {_quoted(self.guid)}, "question": "{self.question}", "lang": "{self.lang}", '
            f'"digest": "{self.digest}", "parts": "{self.parts}", "mtime": {self.mtime}}}'
        )


#: Printable ASCII but the quote and the backslash: written in JSON as they are.
_PLAIN = re.compile(r"[ !#-\[\]-~]*")


def _quoted(text: str) -> str:
    """``text`` as a JSON string, without the encoder's cost for the plain GUIDs notes have."""
    return f'"{text}"' if _PLAIN.fullmatch(text) else json.dumps(text)


@dataclass(frozen=True)
class NotetypeLock:
    lang: str
    id: int
    fields: tuple[str, ...]
    cards: tuple[str, ...]
    digest: str
    mtime: int

    def as_json(self) -> str:
        return json.dumps(
            {
                "id": self.id,
                "fields": list(self.fields),
                "cards": list(self.cards),
                "digest": self.digest,
                "mtime": self.mtime,
            },
            ensure_ascii=False,
        )


@dataclass
class Lock:
    bank: str = ""
    notetypes: dict[str, NotetypeLock] = field(default_factory=dict)
    notes: dict[str, NoteLock] = field(default_factory=dict)
    #: Restored from what :func:`remember` kept, rather than parsed from the file.
    recalled: bool = field(default=False, compare=False, repr=False)

    def dumps(self) -> str:
        """One line per note, in a stable order, so a change shows as a small diff."""
        types = sorted(self.notetypes.values(), key=lambda t: t.lang)
        notes = sorted(self.notes.values(), key=attrgetter("question", "lang"))
        lines = [
            "{",
            f'"version": {VERSION},',
            f'"bank": {json.dumps(self.bank)},',
            '"notetypes": {',
            ",\n".join(f"  {json.dumps(t.lang)}: {t.as_json()}" for t in types),
            "},",
            '"notes": [',
            ",\n".join(f"  {n.as_json()}" for n in notes),
            "]",
            "}",
        ]
        return "\n".join(line for line in lines if line) + "\n"


def read_lock(path: Path, memo: Path | None = None) -> Lock:
    """The lock of the previous build, or an empty one for a bank's first build.

    ``memo`` is where :func:`remember` kept the lock a build wrote: while the
    file is still that one, the lock is restored from there instead of parsed.
    """
    try:
        raw = read_inside(path, (path.parent,))
    except FileNotFoundError:
        return Lock()
    except (UnsafePathError, OSError) as err:
        raise _unreadable(path, err) from err
    recalled = _recall(memo, raw) if memo else None
    if recalled is not None:
        return recalled
    try:
        text = raw.decode("utf-8")
        data = json.loads(text)
    except ValueError as err:
        raise _damaged(path, raw, err) from err
    wrong = _wrong_value(data, text)
    if wrong is not None:
        raise _lock_problem(path, *wrong)
    try:
        return Lock(
            data["bank"],
            {
                lang: NotetypeLock(lang, t["id"], tuple(t["fields"]), tuple(t["cards"]), t["digest"], t["mtime"])
                for lang, t in data["notetypes"].items()
            },
            {
                # _make builds the tuple without the constructor's checks.
                n["guid"]: NoteLock._make((n["guid"], n["question"], n["lang"], n["digest"], n["parts"], n["mtime"]))
                for n in data["notes"]
            },
        )
    except (ValueError, KeyError, TypeError, AttributeError) as err:
        raise _damaged(path, raw, err) from err


def remember(lock: Lock, text: bytes, memo: Path) -> None:
    """Keep ``lock``, as written in ``text``, for :func:`read_lock` to restore quickly.

    The notes go in as columns (all GUIDs, all questions...): strings restore
    several times quicker than tens of thousands of small objects, or than JSON.
    """
    written = _memo_key(text)
    columns = list(zip(*lock.notes.values(), strict=True)) if lock.notes else []
    types = [list(astuple(t)) for t in lock.notetypes.values()]
    with contextlib.suppress(OSError):
        memo.parent.mkdir(parents=True, exist_ok=True)
        write_if_changed(memo, pack([written.hex(), lock.bank, types, columns]), durable=False)


def _memo_key(text: bytes) -> bytes:
    # The code is part of it: another version may keep the lock in another shape.
    return hashlib.sha256(code_fingerprint().encode() + b"\0" + text).digest()


def _recall(memo: Path, raw: bytes) -> Lock | None:
    try:
        (written, bank, types, columns), _ = unpack(memo.read_bytes())
        if written != _memo_key(raw).hex():
            return None
        notetypes = {t[0]: NotetypeLock(t[0], t[1], tuple(t[2]), tuple(t[3]), t[4], t[5]) for t in types}
        notes = map(NoteLock._make, zip(*columns, strict=True))
        return Lock(bank, notetypes, dict(zip(columns[0], notes, strict=True)) if columns else {}, recalled=True)
    except (OSError, ValueError, TypeError, IndexError):  # none, or damaged: the file is parsed instead
        return None


#: The latest time a lock may hold, in seconds (the year 2286): Anki keeps times as 64-bit integers.
MAX_TIME = 10**10
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


_NOTETYPE = {"id": _is_id, "fields": _are_texts, "cards": _are_texts, "digest": _is_text, "mtime": _is_time}
_NOTE = {
    "guid": _is_text,
    "question": _is_text,
    "lang": _is_text,
    "digest": _is_text,
    "parts": _is_text,
    "mtime": _is_time,
}


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
    """The line and what is wrong in a parsed lock file (``text``), or None when every value can be used."""
    if not isinstance(data, dict):
        return 1, "it is not an object {...}"
    if data.get("version", VERSION) != VERSION:
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


def _lock_problem(path: Path, line: int, message: str) -> BankError:
    problems = Problems()
    problems.add(
        path,
        f"the lock file is damaged: {message}",
        line=line,
        column=1 if line else 0,
        hint=f"restore it from git (git checkout -- {path}); after a merge conflict, keep either side "
        "and build again. Without it, classmates' decks stop updating.",
    )
    return BankError(problems.items)


def _unreadable(path: Path, err: UnsafePathError | OSError) -> BankError:
    problems = Problems()
    message = err.message if isinstance(err, UnsafePathError) else f"cannot read the file: {err.strerror}"
    problems.add(path, f"the lock file is not read: {message}", hint=f"restore it from git (git checkout -- {path})")
    return BankError(problems.items)


def _damaged(path: Path, raw: bytes, err: Exception) -> BankError:
    text = raw.decode("utf-8", errors="replace")
    conflict = re.search(r"^<<<<<<< ", text, re.MULTILINE)
    if conflict:
        line, message = text.count("\n", 0, conflict.start()) + 1, "merge conflict markers"
    elif isinstance(err, json.JSONDecodeError):
        line, message = err.lineno, f"not valid JSON ({err.msg}, column {err.colno})"
    else:
        line, message = 0, f"an entry is missing or of the wrong kind ({err!r})"
    return _lock_problem(path, line, message)


class Clock:
    """Hands out modification times: whole seconds, never in the future.

    ``SOURCE_DATE_EPOCH`` fixes the time of a bank's first build, so that it is
    reproducible from a clean checkout.
    """

    def __init__(self, now: Callable[[], float] = time.time, sleep: Callable[[float], None] = time.sleep) -> None:
        self._now = now
        self._sleep = sleep

    def first(self) -> int:
        epoch = os.environ.get("SOURCE_DATE_EPOCH", "")
        return int(epoch) if epoch.isdigit() else int(self._now())

    def after(self, previous: int) -> int:
        """A time strictly newer than ``previous``: waits out the current second if needed."""
        while int(self._now()) <= previous:
            self._sleep(previous + 1 - self._now())
        return int(self._now())


@dataclass(frozen=True, slots=True)
class Stamped:
    """What happened to a note whose content is new or changed, and its new time."""

    mtime: int
    status: str  # "new" or "changed"
    changed_parts: tuple[int, ...] = ()


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


def stamp_notes(notes: Iterable[Stampable], lock: Lock, clock: Clock) -> tuple[dict[str, NoteLock], dict[str, Stamped]]:
    """New lock entries for rendered notes, and stamps for those that are not the same.

    A note whose content is as the lock has it keeps its entry, and gets no stamp:
    in a rebuild after an edit, nearly all of them.
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
    stamps: dict[str, Stamped] = {}
    now: int | None = None
    for note in [note for note in notes if note.guid not in entries]:
        guid, question, lang, digest, parts = note.guid, note.question_id, note.lang, note.digest, note.parts
        old = known.get(guid)
        if old is not None and old.digest == digest:  # the same note, under another question or language
            entries[guid] = old._replace(question=question, lang=lang)
            continue
        if old is None:
            now = now if now is not None else (clock.first() if not known else clock.after(0))
            mtime, status, diff = now, "new", tuple[int, ...]()
        else:
            mtime = clock.after(old.mtime)
            status = "changed"
            diff = tuple(i for i, (a, b) in enumerate(zip(old.parts.split(), parts.split(), strict=False)) if a != b)
        entries[guid] = NoteLock(guid, question, lang, digest, parts, mtime)
        stamps[guid] = Stamped(mtime, status, diff)
    return entries, stamps


def stamp_notetype(
    lang: str, type_id: int, fields: tuple[str, ...], cards: tuple[str, ...], digest: str, lock: Lock, clock: Clock
) -> NotetypeLock:
    old = lock.notetypes.get(lang)
    if old is not None and old.digest == digest and old.id == type_id:
        return replace(old, fields=fields, cards=cards)
    mtime = clock.first() if old is None else clock.after(old.mtime)
    return NotetypeLock(lang, type_id, fields, cards, digest, mtime)
