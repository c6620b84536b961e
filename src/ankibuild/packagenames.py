"""Where a build's packages go, and the decks each one holds: what every target that names them agrees on.

A package holds every question file of a language, or (with ``--split``) one
question file each; the Anki target writes them and the preview links to them.
"""

from __future__ import annotations

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
