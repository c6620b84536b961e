"""What ``ankibuild build`` prints when it is done, the same whether click prints it or not (see :mod:`.command`)."""

from __future__ import annotations

import os

from .changelog import counts
from .state import BuildResult

#: More changes than this in one language are counted, not listed.
MAX_LISTED_CHANGES = 12


def shown(path: os.PathLike[str] | str) -> str:
    """A file name as ``click.format_filename`` shows it: what is not UTF-8 shows as U+FFFD."""
    return os.fspath(path).encode("utf-8", "surrogateescape").decode("utf-8", "replace")


def build_summary(result: BuildResult, dry_run: bool) -> list[str]:
    """What the build wrote, and what changed for classmates: each said once."""
    lines = [f"Bank '{result.bank_id}': {result.decks} deck(s), {result.questions} question(s); {result.templates}."]
    verb = "would write" if dry_run else "wrote"
    for output in (*result.outputs, *result.exports):
        state = verb if output.written else "unchanged"
        lines.append(
            f"  {output.lang}: {output.notes} notes in {output.decks} deck(s) -> {shown(output.path)} ({state})"
        )
    removing = "would remove" if dry_run else "removed"
    lines += [f"  {removing} {shown(path)}: no question file makes it any more" for path in result.removed]
    lines += [f"  {line}" for line in _changes(result)]
    if result.lock_written:
        lines.append(f"  {verb} the lock file (every note's time of change): commit it with the bank")
    return lines


def would_change(result: BuildResult, dry_run: bool) -> bool:
    """Whether ``build --check`` fails: the build would change an output or the lock."""
    written = any(o.written for o in (*result.outputs, *result.exports))
    return dry_run and bool(result.changes or written or result.removed)


def _changes(result: BuildResult) -> list[str]:
    """The changes, languages with the same ones together (a first build adds the same everywhere)."""
    together: dict[tuple[str, ...], list[str]] = {}
    for lang, changes in result.changes.by_language().items():
        if len(changes) <= MAX_LISTED_CHANGES:
            described = tuple(change.describe() for change in changes)
        else:  # too many to read: counted, the changelog lists them
            counted = ", ".join(f"{kind} {n}" for kind, n in counts(changes).items())
            described = (f"{counted} (see the changelog)",)
        together.setdefault(described, []).append(lang)
    lines = [f"{', '.join(langs)} changes: " + "; ".join(described) for described, langs in together.items()]
    if lines:
        return lines
    if any(output.written for output in result.outputs):
        return ["No question changed since the last build: the packages that were missing or altered are made again."]
    return ["No changes since the last build."]
