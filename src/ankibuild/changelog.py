"""What changed for classmates between two builds, per language."""

from __future__ import annotations

import datetime as dt
from collections import Counter
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import NamedTuple

from .atomic import Readied, ready_if_changed
from .errors import Problems, Severity
from .markdowntext import code_span, plain
from .paths import UnsafePathError, read_inside
from .search import notes_search
from .yamlfiles.conflicts import report_conflict

CHANGELOG_FILE = "CHANGELOG.md"
HEADER = "# Changelog\n"
#: A first build adds every question: list that many, then count the rest.
MAX_LISTED = 50


class ChangeKind(StrEnum):
    """What happened since the last published packages (its value is the word a summary counts it by)."""

    NEW = "new"
    CHANGED = "changed"
    MOVED = "moved"
    REMOVED = "removed"
    #: A language's card templates or stylesheet.
    TEMPLATES = "templates"
    #: A language's note type fields (allowed with --allow-shape-change).
    SHAPE = "shape"


class Change(NamedTuple):
    """One change for classmates (a tuple: a first build makes one for each of its notes)."""

    lang: str
    question: str
    kind: ChangeKind
    #: For a change: the names of the note's parts that changed (its fields, "tags").
    parts: tuple[str, ...] = ()
    #: For a move: the names of the deck it was in, and of the one it is in now.
    before: str = ""
    after: str = ""
    #: For a move or a removal: the name of the note's note type, which its search names.
    notetype: str = ""

    def describe(self) -> str:
        if self.kind is ChangeKind.TEMPLATES:
            return "card templates or stylesheet changed"
        if self.kind is ChangeKind.SHAPE:
            return "note type fields changed: tick 'Merge note types' when importing"
        if self.kind is ChangeKind.CHANGED:
            what = ", ".join(self.parts)
            return f"changed {self.question} ({what})"
        if self.kind is ChangeKind.REMOVED:
            return f"removed {self.question}"
        if self.kind is ChangeKind.MOVED:
            return f"moved {self.question} from {plain(self.before)} to {plain(self.after)}"
        return f"added {self.question}"


@dataclass
class Changelog:
    """What a build changed for classmates, note by note, and the newest time of its lock (seconds)."""

    items: list[Change] = field(default_factory=list)
    when: int = 0

    def add(self, change: Change) -> None:
        self.items.append(change)

    def __bool__(self) -> bool:
        return bool(self.items)

    def by_language(self) -> dict[str, list[Change]]:
        grouped: dict[str, list[Change]] = {}
        for change in self.items:
            grouped.setdefault(change.lang, []).append(change)
        return dict(sorted(grouped.items()))


def counts(changes: list[Change]) -> dict[ChangeKind, int]:
    """How many changes of each kind, in the order each kind first comes."""
    return dict(Counter(change.kind for change in changes))


def section(log: Changelog) -> str:
    """The Markdown section of one build, for the top of ``CHANGELOG.md``."""
    stamp = dt.datetime.fromtimestamp(log.when, dt.UTC).strftime("%Y-%m-%d %H:%M UTC")
    lines = [f"## {stamp}", ""]
    for lang, changes in log.by_language().items():
        lines += [f"### {lang}", ""]
        added = [c for c in changes if c.kind is ChangeKind.NEW]
        listed = {id(c) for c in added[:MAX_LISTED]}
        shown = [c for c in changes if c.kind is not ChangeKind.NEW or id(c) in listed]
        lines += [f"- {change.describe()}" for change in shown]
        if len(added) > MAX_LISTED:
            lines.append(f"- and {len(added) - MAX_LISTED} more questions added")
        for help_text in _move_help([c for c in changes if c.kind is ChangeKind.MOVED]):
            lines += ["", help_text]
        removed = [c for c in changes if c.kind is ChangeKind.REMOVED]
        if removed:
            lines += ["", _removal_help(removed)]
        lines.append("")
    return "\n".join(lines)


def _move_help(moved: list[Change]) -> list[str]:
    """What to do in Anki for each deck questions moved to: an import never moves a card."""
    targets: dict[tuple[str, str], list[Change]] = {}
    for change in moved:
        targets.setdefault((change.before, change.after), []).append(change)
    return [
        f"Anki leaves cards in their deck when you import. To move these from {code_span(before)}, open Browse, "
        f"search for {code_span(_search(changes))}, select all cards, "
        f"then Change Deck to {code_span(after)}. Delete {code_span(before)} once it is empty."
        for (before, after), changes in targets.items()
    ]


def _removal_help(removed: list[Change]) -> str:
    return (
        "Anki keeps removed questions when you import. To delete them, open Browse, "
        f"search for {code_span(_search(removed))}, select the notes and delete them."
    )


def _search(changes: list[Change]) -> str:
    """A search for exactly the notes of ``changes``, each by its question and the note type it has."""
    by_notetype: dict[str, list[str]] = {}
    for change in changes:
        by_notetype.setdefault(change.notetype, []).append(change.question)
    return notes_search(by_notetype)


def previous_changelog(out: Path, first: Path, problems: Problems) -> str:
    """The changelog published with the packages in ``out``, else the one ``first`` versions kept in the bank."""
    # A link planted in the output folder is not read, only replaced.
    found = read_changelog(out / CHANGELOG_FILE, problems, refused=Severity.WARNING)
    return read_changelog(first, problems) or "" if found is None else found


def read_changelog(path: Path, problems: Problems, refused: Severity = Severity.ERROR) -> str | None:
    """A changelog's text; None if there is none. One that cannot be read, or has conflict markers, is an error.

    It is published, so it must be the bank's own text. A link to a place
    outside its folder is reported with the severity ``refused``; as a warning,
    it counts as no changelog.
    """
    try:
        text = read_inside(path, (path.parent,)).decode("utf-8")
    except FileNotFoundError:
        return None
    except UnsafePathError as err:
        problems.add(path, err.message, hint=err.hint, severity=refused)
        return None if refused is Severity.WARNING else ""
    except (OSError, UnicodeDecodeError) as err:
        problems.add(path, f"cannot read the changelog: {err}", hint="delete it, or fetch the one last published")
        return ""
    return "" if report_conflict(path, text, problems) else text


def ready_changelog(out: Path, previous: str, log: Changelog) -> Readied | None:
    """``out/CHANGELOG.md`` readied to put in place (None where nothing is written): this build's section, if
    anything changed, on top of ``previous`` (newest first).

    It lives beside the packages and is published with them; the next build
    reads it back from there, so that no file in the bank has to be merged.
    """
    if not log and not previous:
        return None
    earlier = previous.removeprefix(HEADER).lstrip("\n")
    text = f"{HEADER}\n{section(log)}\n{earlier}" if log else f"{HEADER}\n{earlier}"
    return ready_if_changed(out / CHANGELOG_FILE, (text.rstrip("\n") + "\n").encode())
