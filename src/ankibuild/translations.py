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
import re
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from .errors import Problems, Severity
from .languages import is_language

if TYPE_CHECKING:
    from .model import Deck, Translation

TRANSLATIONS_FILE = "translations.lock"

_HEADER = (
    "# The text each translation was last checked against: a translation whose question\n"
    "# changed in another language since is flagged as possibly outdated. Written by\n"
    "# 'ankibuild build' and 'ankibuild translations'; commit it with the bank.\n"
)
_DIGEST = re.compile(r"^[0-9a-f]{16}$")
_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
_CONFLICT = re.compile(r"^(<{7}|={7}|>{7})( |$)")


class TextRef(NamedTuple):
    """A question's text in one language, as far as its freshness goes: a digest and where it is."""

    question: str
    lang: str
    digest: str
    path: Path
    line: int
    column: int


def text_digest(translation: Translation) -> str:
    """A digest of everything a translator translates: the question, each option, the explanation."""
    texts = (translation.question, *translation.options, translation.explanation)
    return hashlib.sha256("\x1f".join(texts).encode()).hexdigest()[:16]


def text_refs(deck: Deck) -> tuple[TextRef, ...]:
    """Every translation of every question of ``deck``."""
    path = deck.source.path
    return tuple(
        TextRef(question.id, lang, text_digest(text), path, *text.where)
        for question in deck.questions
        for lang, text in question.translations.items()
    )


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
    digest: str
    behind: Behind | None = None


#: Question id -> language -> entry.
Record = dict[str, dict[str, Entry]]


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


def _advance_question(old: Mapping[str, Entry], current: Mapping[str, str], date: str) -> dict[str, Entry]:
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


def mark_current(record: Record, question: str, langs: Iterable[str]) -> Record:
    """``record`` with the translations of ``question`` in ``langs`` up to date."""
    entries = dict(record.get(question, {}))
    for lang in langs:
        if lang in entries:
            entries[lang] = replace(entries[lang], behind=None)
    return {**record, question: entries}


def report_outdated(record: Record, refs: Iterable[TextRef], problems: Problems) -> None:
    """A warning for every translation ``record`` (advanced to the texts) has behind."""
    for ref in refs:
        entry = record.get(ref.question, {}).get(ref.lang)
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


def outdated(record: Record) -> dict[str, list[str]]:
    """The questions with a translation behind, by language."""
    found: dict[str, list[str]] = {}
    for question, entries in record.items():
        for lang, entry in entries.items():
            if entry.behind is not None:
                found.setdefault(lang, []).append(question)
    return found


# -- the file ------------------------------------------------------------------


def dumps(record: Record) -> str:
    """The file: a block per question (sorted by id), a line per language (sorted by code)."""
    blocks = []
    for question in sorted(record):
        lines = [f"{question}:"]
        for lang in sorted(record[question]):
            entry = record[question][lang]
            behind = entry.behind
            tail = ("behind", behind.lang, behind.digest, behind.date) if behind else ()
            lines.append(f"  {' '.join((lang, entry.digest, *tail))}".rstrip())
        blocks.append("\n".join(lines) + "\n")
    return _HEADER + "".join(f"\n{block}" for block in blocks)


def read_record(path: Path, problems: Problems) -> Record:
    """The record in ``path`` (empty when there is none); what cannot be read is reported."""
    from .loader import decode, read  # a build with nothing to do reads only this module's name

    if not path.is_file():
        return {}
    raw = read(path, problems, (path.parent,))  # the bank's own file, never one a link leads to elsewhere
    text = decode(path, raw, problems) if raw is not None else None
    return {} if text is None else parse(path, text, problems)


def parse(path: Path, text: str, problems: Problems) -> Record:
    from .validate import SLUG

    record: Record = {}
    question: str | None = None
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip() or line.startswith("#"):
            continue
        if _CONFLICT.match(line):
            _damaged(path, number, "merge conflict markers", problems)
            return {}
        if not line.startswith(" "):
            question = line.removesuffix(":")
            if not (line.endswith(":") and SLUG.match(question)) or question in record:
                _damaged(path, number, f"'{line}' is not a question id followed by ':', once", problems)
                return {}
            record[question] = {}
            continue
        entry = _entry(line.split())
        if question is None or entry is None or entry[0] in record[question]:
            _damaged(path, number, f"'{line.strip()}' is not 'language digest' below a question", problems)
            return {}
        record[question][entry[0]] = entry[1]
    return record


def _entry(words: Sequence[str]) -> tuple[str, Entry] | None:
    if len(words) == 2 and is_language(words[0]) and _DIGEST.match(words[1]):
        return words[0], Entry(words[1])
    if len(words) in (5, 6) and words[2] == "behind" and is_language(words[3]) and _DIGEST.match(words[4]):
        date = words[5] if len(words) == 6 else ""
        if _DIGEST.match(words[1]) and (not date or _DATE.match(date)):
            return words[0], Entry(words[1], Behind(words[3], words[4], date))
    return None


def _damaged(path: Path, line: int, message: str, problems: Problems) -> None:
    problems.add(
        path,
        f"the translations record is damaged: {message}",
        line=line,
        column=1,
        hint="after a merge conflict keep either side's lines for each question (or delete the "
        "question's block: its translations then count as current) and run 'ankibuild check'",
    )
