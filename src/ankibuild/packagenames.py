"""Where a build's packages go, and the decks each one holds: what every target that names them agrees on.

A package holds every question file of a language, or (with ``--split``) one
question file each; the Anki target writes them and the preview links to them.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable
from pathlib import Path

from .errors import Problems
from .model import Bank, Deck
from .options import BuildOptions


def package_groups(bank: Bank, lang: str, out: Path, *, split: bool) -> list[tuple[Path, list[Deck]]]:
    """Where a language's packages go and the decks each holds: all, or one each with ``split``."""
    if split:
        return [(out / f"{bank.id}-{d.key.replace('/', '-')}-{lang}.apkg", [d]) for d in bank.decks]
    return [(out / f"{bank.id}-{lang}.apkg", list(bank.decks))]


def check_names(bank: Bank, options: BuildOptions, problems: Problems) -> None:
    """With ``--split``, two question files must not write one package (nor differ only in case)."""
    if not options.split:
        return
    seen: dict[str, Deck] = {}
    for path, (deck,) in package_groups(bank, "<lang>", Path(), split=True):
        other = seen.setdefault(path.name.lower(), deck)
        if other is not deck:
            problems.add(
                deck.place.path,
                f"with --split, this file and {problems.name(other.place.path)} would both write {path.name}",
                line=deck.place.line,
                column=deck.place.column,
                hint="rename one of the two files",
            )


def no_longer_made(
    found: Iterable[Path], made: Iterable[Path], *, bank_id: str, langs: Collection[str], split: bool
) -> list[Path]:
    """The packages of ``found`` named as a ``--split`` build names them, that this build does not make: those
    of question files renamed or deleted since. ``found`` holds only packages of nothing but the bank's notes.

    Only when this build splits: the packages of one per language and those of one per deck may be made side
    by side. Never a package made: one named as it is, or as it is but for case and the very same file (on a
    file system that ignores case, the package just written; elsewhere, that of a file renamed in case only,
    another file). Never a link: a build writes none, someone made it.
    """
    if not split:
        return []
    names = {path.name for path in made}
    folded = {path.name.casefold(): path for path in made}
    return sorted(
        path
        for path in found
        if path.name not in names
        and not _same_file(path, folded.get(path.name.casefold()))
        and any(_split_named(path.name, bank_id, lang) for lang in langs)
        and not path.is_symlink()
    )


def _same_file(path: Path, other: Path | None) -> bool:
    """Whether ``other`` is ``path`` under another name: False when either is missing."""
    try:
        return other is not None and path.samefile(other)
    except OSError:
        return False


def _split_named(name: str, bank_id: str, lang: str) -> bool:
    """Whether ``name`` is that of a package a ``--split`` build of ``bank_id`` makes in ``lang``, of some deck."""
    head, tail = f"{bank_id}-", f"-{lang}.apkg"
    return name.startswith(head) and name.endswith(tail) and len(name) > len(head) + len(tail)
