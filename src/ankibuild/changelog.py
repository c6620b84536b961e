"""What changed for classmates between two builds, per language."""

from __future__ import annotations

import contextlib
import datetime as dt
from dataclasses import dataclass, field
from pathlib import Path

from .atomic import write_if_changed
from .errors import Problems
from .model import FIELDS
from .paths import UnsafePathError, read_inside

CHANGELOG_FILE = "CHANGELOG.md"
HEADER = "# Changelog\n"
#: Names of the lock's parts: one per field, then the tags.
PART_NAMES = (*FIELDS, "tags")
#: A first build adds every question: list that many, then count the rest.
MAX_LISTED = 50


@dataclass(frozen=True)
class Change:
    lang: str
    question: str
    kind: str  # new, changed, removed, templates, shape
    parts: tuple[int, ...] = ()

    def describe(self) -> str:
        if self.kind == "templates":
            return "card templates or stylesheet changed"
        if self.kind == "shape":
            return "note type fields changed: tick 'Merge note types' when importing"
        if self.kind == "changed":
            what = ", ".join(PART_NAMES[i] for i in self.parts if i < len(PART_NAMES))
            return f"changed {self.question} ({what})"
        if self.kind == "removed":
            return f"removed {self.question}"
        return f"added {self.question}"


@dataclass
class Changelog:
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

    def counts(self, lang: str) -> dict[str, int]:
        counts: dict[str, int] = {}
        for change in self.by_language().get(lang, []):
            counts[change.kind] = counts.get(change.kind, 0) + 1
        return counts


def section(log: Changelog, notetype_names: dict[str, str]) -> str:
    """The Markdown section of one build, for the top of ``CHANGELOG.md``."""
    stamp = dt.datetime.fromtimestamp(log.when, dt.UTC).strftime("%Y-%m-%d %H:%M UTC")
    lines = [f"## {stamp}", ""]
    for lang, changes in log.by_language().items():
        lines += [f"### {lang}", ""]
        added = [c for c in changes if c.kind == "new"]
        listed = {id(c) for c in added[:MAX_LISTED]}
        shown = [c for c in changes if c.kind != "new" or id(c) in listed]
        lines += [f"- {change.describe()}" for change in shown]
        if len(added) > MAX_LISTED:
            lines.append(f"- and {len(added) - MAX_LISTED} more questions added")
        removed = [c.question for c in changes if c.kind == "removed"]
        if removed:
            lines += ["", _removal_help(notetype_names.get(lang, lang), removed)]
        lines.append("")
    return "\n".join(lines)


def _removal_help(notetype_name: str, removed: list[str]) -> str:
    ids = " or ".join(f'"ID:{qid}"' for qid in removed)
    return (
        "Anki keeps removed questions when you import. To delete them, open Browse, "
        f'search for `"note:{notetype_name}" ({ids})`, select the notes and delete them.'
    )


def update_changelog(history: Path, log: Changelog, notetype_names: dict[str, str]) -> None:
    """Put this build's section at the top of the bank's changelog (newest first)."""
    try:
        previous = read_inside(history, (history.parent,)).decode("utf-8").removeprefix(HEADER).lstrip("\n")
    except FileNotFoundError:
        previous = ""
    text = f"{HEADER}\n{section(log, notetype_names)}\n{previous}".rstrip("\n") + "\n"
    write_if_changed(history, text.encode())


def publish_changelog(history: Path, out: Path) -> None:
    """Copy the bank's changelog beside the packages, so it ships with them.

    The history lives beside the lock and is committed with it: a build on a
    fresh checkout (CI) finds nothing new, yet still publishes every entry.
    """
    with contextlib.suppress(FileNotFoundError):
        write_if_changed(out / CHANGELOG_FILE, read_inside(history, (history.parent,)))


def check_changelog(history: Path, problems: Problems) -> None:
    """Report a changelog a build could not read or extend: it is published, so it must be the bank's own text."""
    try:
        read_inside(history, (history.parent,)).decode("utf-8")
    except FileNotFoundError:
        return
    except UnsafePathError as err:
        problems.add(history, err.message, hint=err.hint)
    except (OSError, UnicodeDecodeError) as err:
        problems.add(
            history, f"cannot read the changelog: {err}", hint=f"restore it from git (git checkout -- {history})"
        )
