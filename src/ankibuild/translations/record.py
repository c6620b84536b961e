"""Translations that fall behind: which text each translation was last checked against.

A bank is written in one language and translated over time. When a question's
text changes in one language, its other languages may now say something else:
they are *possibly outdated* until their own text is edited, someone marks them
current, or the change is undone.

What was last seen is kept in ``translations.lock`` beside the bank, committed
with it: for each question and language a digest of its text and, for a
translation that fell behind, the language that changed, that language's digest
when this translation was last current, and the date the change was recorded.
A build records what it finds; ``check`` works out the same from the file and
the texts without writing it. Each question is a block of its own, separated by
a blank line, so that two branches editing different questions change lines
git can merge without a conflict.
"""

from __future__ import annotations

import hashlib
import itertools
import re
import time
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from operator import add
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from .. import paths
from ..atomic import Readied, holds, ready_if_changed, remove_stale_temporaries
from ..errors import Problems, Severity
from ..languages import is_language
from ..yamlfiles.conflicts import conflict_line

if TYPE_CHECKING:
    from ..model import Deck, Question, Translation
    from ..options import BuildOptions

TRANSLATIONS_FILE = "translations.lock"

_HEADER = (
    "# The text each translation was last checked against: a translation whose question\n"
    "# changed in another language since is flagged as possibly outdated. Written by\n"
    "# 'ankibuild build' and 'ankibuild translations'; commit it with the bank.\n"
)
_DIGEST = re.compile(r"^[0-9a-f]{16}$")
_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
#: Where a question's block starts: after the line break before a line that is neither indented nor a comment.
_BLOCK = re.compile(r"\n(?=[^\s#])")


class TextRef(NamedTuple):
    """A question's text in one language, as far as its freshness goes: a digest and where it is."""

    question: str
    lang: str
    digest: str
    path: Path
    line: int
    column: int


def text_digest(translation: Translation) -> str:
    """A digest of everything a translator translates (see :meth:`Translation.texts`)."""
    texts = [text for _, text in translation.texts()]  # a list: join() would make one of a generator first
    return hashlib.sha256("\x1f".join(texts).encode()).hexdigest()[:16]


def text_refs(deck: Deck) -> tuple[TextRef, ...]:
    """Every translation of every question of ``deck``."""
    return tuple(ref for question in deck.questions for ref in question_refs(deck.place.path, question))


def question_refs(path: Path, question: Question) -> list[TextRef]:
    """Every translation of one question of the file at ``path``."""
    translations = question.translations.items()
    return [TextRef(question.id, lang, text_digest(text), path, *text.where) for lang, text in translations]


@dataclass(frozen=True)
class Behind:
    """Why a translation may be outdated: another language's text changed after it was last current."""

    #: The language whose text changed.
    lang: str
    #: The digest of that language's text when this translation was last current: back to it, all is well.
    digest: str
    #: When the change was recorded (YYYY-MM-DD); empty while only ``check`` has seen it.
    date: str = ""

    def describe(self) -> str:
        when = f"on {self.date}" if self.date else "since the last build"
        return f"the '{self.lang}' text changed {when}"


@dataclass(frozen=True)
class Entry:
    """A translation as the record has it: the digest of its text, and why it may be outdated, if it may."""

    digest: str
    behind: Behind | None = None


#: Question id -> language -> entry.
Record = dict[str, dict[str, Entry]]
#: The texts of the questions of the ids given (see :class:`TextRef`), in the bank's order, each in its languages'.
RefsOf = Callable[[Collection[str]], Iterable[TextRef]]


def today(epoch: float | None = None) -> str:
    """A date to record a change with (UTC, so that every machine writes the same)."""
    return time.strftime("%Y-%m-%d", time.gmtime(time.time() if epoch is None else epoch))


def by_question(refs: Iterable[TextRef]) -> dict[str, dict[str, str]]:
    """Question id -> language -> digest of its text."""
    texts: dict[str, dict[str, str]] = {}
    for ref in refs:
        texts.setdefault(ref.question, {})[ref.lang] = ref.digest
    return texts


def advance(record: Record, texts: Mapping[str, Mapping[str, str]], date: str) -> Record:
    """The record after seeing ``texts`` (question -> language -> digest): what changed leaves the rest behind.

    A translation edited while it was current leads: every other unedited
    language of the question falls behind it. One edited while it was behind
    has caught up. A language new to a question, or a question new to the
    bank, starts current. Questions gone from the bank are forgotten.
    """
    return {question: _advance_question(record.get(question, {}), current, date) for question, current in texts.items()}


def _advance_question(old: dict[str, Entry], current: Mapping[str, str], date: str) -> dict[str, Entry]:
    if old.keys() == current.keys() and all(old[lang].digest == digest for lang, digest in current.items()):
        return old  # as recorded: in a large bank, nearly every question
    edited = {lang for lang, digest in current.items() if lang in old and old[lang].digest != digest}
    leader = next((lang for lang in current if lang in edited and old[lang].behind is None), None)
    entries: dict[str, Entry] = {}
    for lang, digest in current.items():
        behind = None if lang in edited or lang not in old else old[lang].behind
        if behind is None and leader is not None and lang not in edited and lang in old:
            behind = Behind(leader, old[leader].digest, date)
        if behind is not None and current.get(behind.lang, behind.digest) == behind.digest:
            behind = None  # the change was undone, or that language is gone
        entries[lang] = Entry(digest, behind)
    return entries


def dated(entries: Mapping[str, Entry], date: str) -> dict[str, Entry]:
    """A question's entries with the changes not dated yet dated ``date``."""
    return {
        lang: replace(entry, behind=replace(entry.behind, date=date))
        if entry.behind is not None and not entry.behind.date
        else entry
        for lang, entry in entries.items()
    }


def mark_current(record: Record, question: str, langs: Iterable[str]) -> Record:
    """``record`` with the translations of ``question`` in ``langs`` up to date."""
    entries = dict(record.get(question, {}))
    for lang in langs:
        if lang in entries:
            entries[lang] = replace(entries[lang], behind=None)
    return {**record, question: entries}


def report_outdated(record: Record, refs: RefsOf, problems: Problems, *, date: str = "") -> None:
    """A warning for every translation ``record`` (advanced to the texts) has behind.

    A change not dated yet is told as of ``date``, where the record is written with it (see :meth:`Seen.text`).
    """
    if not record:
        return
    told = {question: dated(entries, date) for question, entries in record.items()} if date else record
    # The record holds only questions with a translation behind, a few: only their texts are asked for.
    for ref in refs(told.keys()):
        entry = told[ref.question].get(ref.lang)
        if entry is None or entry.behind is None:
            continue
        problems.add(
            ref.path,
            f"the '{ref.lang}' text may be outdated: {entry.behind.describe()}",
            line=ref.line,
            column=ref.column,
            question=ref.question,
            hint=f"update it, or if it still says the same, run "
            f"'ankibuild translations ok {ref.question} --lang {ref.lang}'",
            severity=Severity.WARNING,
        )


# -- the file ------------------------------------------------------------------


def block(question: str, entries: Mapping[str, Entry]) -> str:
    """One question's lines: its id, then a line per language (sorted by code)."""
    lines = [f"{question}:"]
    for lang in sorted(entries):
        entry = entries[lang]
        behind = entry.behind
        tail = ("behind", behind.lang, behind.digest, behind.date) if behind else ()
        lines.append(_line(lang, entry.digest, *tail))
    return "\n".join(lines)


def _line(*words: str) -> str:
    return f"  {' '.join(words)}".rstrip()


def current_block(question: Question, refs: Iterable[TextRef]) -> tuple[str, str]:
    """A question with its block as it is when every translation is current (:func:`block` of entries none behind).

    ``refs`` are its :func:`question_refs`: their digests spare hashing every text a second time.
    Its lines are written from them, without an entry each: a build writes the block of every question.
    """
    digests = {ref.lang: ref.digest for ref in refs}
    return question.id, "\n".join([f"{question.id}:", *(_line(lang, digests[lang]) for lang in sorted(digests))])


def dumps(record: Record) -> str:
    return _text(block(question, record[question]) for question in sorted(record))


def _text(blocks: Iterable[str]) -> str:
    """The file: a block per question (sorted by id), each after a blank line."""
    return _HEADER + "".join(f"\n{text}\n" for text in blocks)


def _read(path: Path, problems: Problems) -> str:
    from ..yamlfiles.reader import decode, read  # a build with nothing to do reads only this module's name

    if not path.is_file():
        return ""
    # The bank's own file, never one a link leads to elsewhere; a block per question, written by the build.
    raw = read(path, problems, (path.parent,), limit=paths.MAX_RECORD_BYTES)
    text = decode(path, raw, problems) if raw is not None else None
    return "" if text is None else text.replace("\r\n", "\n")  # as a checkout with autocrlf leaves it


def _chunks(path: Path, text: str, problems: Problems) -> dict[str, tuple[int, str]]:
    """The file's blocks as written, with the line each starts on, by question id."""
    conflict = conflict_line(text)
    if conflict:
        _damaged(path, conflict, "merge conflict markers", problems=problems)
        return {}
    # Split after a line break: a search for it is many times quicker than one for the start of a line.
    before, *pieces = _BLOCK.split(f"\n{text}")
    if before.strip("\n")[:1] not in ("", "#"):  # the header's comments, or nothing
        _damaged(
            path, len(before) - len(before.lstrip("\n")), "expected a question id followed by ':'", problems=problems
        )
        return {}
    # Each block's first line, its text and its id, a pass over them all at a time, in C: a bank has
    # thousands. The loop of _merged sees them only for a file with a damaged or repeated block.
    new_line, colon, one = itertools.repeat("\n"), itertools.repeat(":"), itertools.repeat(1)
    breaks = map(add, map(str.count, [before, *pieces], new_line), one)  # and the one split at
    lines = list(itertools.accumulate(breaks, initial=0))[1:-1]
    written = list(map(str.strip, pieces, new_line))
    heads = [head for head, _, _ in map(str.partition, written, new_line)]
    found = dict(zip(map(str.removesuffix, heads, colon), zip(lines, written, strict=True), strict=True))
    if len(found) == len(written) and all(map(str.endswith, heads, colon)):
        return found
    return _merged(path, zip(lines, written, strict=True), problems)


def _merged(path: Path, blocks: Iterable[tuple[int, str]], problems: Problems) -> dict[str, tuple[int, str]]:
    """:func:`_chunks` of the blocks with their first lines: a question's as one, or none if one is damaged."""
    found: dict[str, tuple[int, str]] = {}
    # A block starts at each question id, blank line or not: git's union merge may leave none between two.
    for line, written in blocks:
        head, _, entries = written.partition("\n")
        if not head.endswith(":"):
            _damaged(path, line, "expected a question id followed by ':'", problems=problems)
            return {}
        question = head.removesuffix(":")
        # Twice after such a merge (both sides changed it): one block, with both sides' lines.
        found[question] = (
            (found[question][0], f"{found[question][1]}\n{entries}".rstrip("\n"))
            if question in found
            else (line, written)
        )
    return found


def read_record(path: Path, problems: Problems) -> Record:
    """The record in ``path`` (empty when there is none); a damaged one is reported, and read as empty."""
    return parse(path, _read(path, problems), problems)


def parse(path: Path, text: str, problems: Problems) -> Record:
    record: Record = {}
    for question, (line, chunk) in _chunks(path, text, problems).items():
        entries = _entries(path, line, chunk, problems=problems)
        if entries is None:
            return {}
        record[question] = entries
    return record


def _entries(path: Path, line: int, chunk: str, *, problems: Problems) -> dict[str, Entry] | None:
    """The entries of one question's block (starting on ``line``), or None, reported, if it is damaged."""
    from ..model import SLUG

    head, *lines = chunk.split("\n")
    if not (head.endswith(":") and SLUG.fullmatch(head[:-1])):
        _damaged(path, line, "expected a question id followed by ':'", problems=problems)
        return None
    entries: dict[str, Entry] = {}
    for number, text in enumerate(lines, start=line + 1):
        words = text.split()
        entry = Entry(words[1]) if len(words) == 2 else _behind(words)
        if not text.startswith(" ") or entry is None:
            _damaged(path, number, "expected 'language digest' below a question", problems=problems)
            return None
        if words[0] not in entries or entries[words[0]].behind is None:  # of both sides of a merge, one behind stays
            entries[words[0]] = entry  # a wrong language or digest only matches no text
    return entries


def _behind(words: Sequence[str]) -> Entry | None:
    """An entry of a translation that is behind: ``lang digest behind lang digest [date]``."""
    if len(words) in (5, 6) and words[2] == "behind" and is_language(words[3]) and _DIGEST.match(words[4]):
        date = words[5] if len(words) == 6 else ""
        if not date or _DATE.match(date):
            return Entry(words[1], Behind(words[3], words[4], date))
    return None


def _damaged(path: Path, line: int, message: str, *, problems: Problems) -> None:
    problems.add(
        path,
        f"the translations record is damaged: {message}",
        line=line,
        column=1,
        hint="after a merge conflict keep either side's lines for each question (or delete the "
        "question's block: its translations then count as current) and run 'ankibuild check'",
    )


# -- in a build ----------------------------------------------------------------------


@dataclass(frozen=True)
class Seen:
    """The record as a build brings it up to date: each question's block, and the questions with one behind.

    A bank's questions are nearly all as recorded, and current: their block is
    the one the file has, compared as text, never parsed.
    """

    blocks: dict[str, str]
    #: Changes only ``check`` has seen are undated.
    behind: Record

    def text(self, date: str) -> str:
        """The file to write, changes not dated yet dated ``date``."""
        blocks = {**self.blocks, **{q: block(q, dated(entries, date)) for q, entries in self.behind.items()}}
        return _text(blocks[question] for question in sorted(blocks))


def observe(path: Path, current: Iterable[tuple[str, str]], refs: RefsOf, *, problems: Problems) -> Seen:
    """The record in ``path`` after the texts: ``current`` has each question's block when all is current.

    ``refs`` gives the texts of the questions whose block is not the one recorded, a few at most.
    """
    text = _read(path, problems)
    written = _chunks(path, text, problems)
    blocks: dict[str, str] = {}
    others: dict[str, tuple[int, str]] = {}
    for question, now in current:
        found = written.get(question)
        if found is None or found[1] == now:  # new to the record, or as recorded
            blocks[question] = now
        else:
            others[question] = found
    digests = by_question(refs(others.keys())) if others else {}
    behind: Record = {}
    for question, (line, written_block) in others.items():
        entries = _advance_question(_entries(path, line, written_block, problems=problems) or {}, digests[question], "")
        blocks[question] = block(question, entries)
        if any(entry.behind for entry in entries.values()):
            behind[question] = entries
    return Seen(blocks, behind)


def records_translations(options: BuildOptions) -> bool:
    """Whether a build with ``options`` writes the record (see :func:`ready_seen`)."""
    return not (options.dry_run or options.leaves_bank)


def record_behind(text: str, options: BuildOptions) -> bool:
    """Whether the bank's record is not ``text``, what a build made of it (see :meth:`Seen.text`)."""
    return not holds(options.decks / TRANSLATIONS_FILE, text.encode())


def ready_seen(text: str, options: BuildOptions) -> Readied | None:
    """What a build saw of each translation (:meth:`Seen.text`), readied to put in place: so that a change is
    still known once committed. None where nothing is written.

    A dry run writes nothing, and a build that leaves the bank (CI) leaves the
    record too, its checkout being thrown away: it only clears what an
    interrupted build left behind.
    """
    if options.dry_run:
        return None
    path = options.decks / TRANSLATIONS_FILE
    remove_stale_temporaries(path)
    return ready_if_changed(path, text.encode()) if records_translations(options) else None
