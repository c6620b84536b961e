"""A bank read the plain way: what the baseline and the floor both start from.

Both produce the notes ankibuild produces (the same fields, HTML-escaped text,
topic tags, deck names and GUIDs), so that the three are compared on the same
work. Neither validates anything: they trust the bank, which ankibuild cannot.
"""

from __future__ import annotations

import argparse
import html
import zlib
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import genanki
import yaml

FIELDS = ("ID", "Question", "A", "B", "C", "D", "E", "F", "Answer", "Explanation")
LETTERS = FIELDS[2:8]
#: A small card: the templates are fixed costs, the notes are what scales.
FRONT = "{{Question}}<ol>{{#A}}<li>{{A}}</li>{{/A}}{{#B}}<li>{{B}}</li>{{/B}}{{#C}}<li>{{C}}</li>{{/C}}</ol>"
BACK = "{{FrontSide}}<hr id=answer>{{Answer}}<p>{{Explanation}}</p>"

Loader = type[yaml.SafeLoader] | type[yaml.CSafeLoader]


@dataclass(frozen=True)
class PlainBank:
    id: str
    languages: list[str]
    titles: dict[str, str]
    #: (deck key, parsed question file) in path order
    files: list[tuple[str, dict[str, Any]]]


@dataclass(frozen=True)
class PlainNote:
    guid: str
    fields: list[str]
    tags: list[str]


def read_bank(decks: Path, loader: Loader) -> PlainBank:
    """Parse ``bank.yaml`` and every question file with the given YAML loader."""
    settings = _load(decks / "bank.yaml", loader)
    paths = sorted(p for p in decks.rglob("*.yaml") if p.name != "bank.yaml")
    files = [(p.relative_to(decks).with_suffix("").as_posix(), _load(p, loader)) for p in paths]
    return PlainBank(settings["id"], settings["languages"], settings.get("title", {}), files)


def _load(path: Path, loader: Loader) -> Any:
    with path.open(encoding="utf-8") as file:
        return yaml.load(file, Loader=loader)


def deck_name(bank: PlainBank, key: str, data: dict[str, Any], lang: str) -> str:
    title = data.get("deck", {}).get(lang, key)
    parent = bank.titles.get(lang)
    return f"{parent}::{title}" if parent else str(title)


def stable_id(*names: str) -> int:
    """An id for a notetype or deck: any stable number does, Anki matches decks by name."""
    return 1_500_000_000_000 + zlib.crc32("\x1f".join(names).encode())


def notetype(bank: PlainBank, lang: str) -> genanki.Model:
    return genanki.Model(
        stable_id("notetype", bank.id, lang),
        f"{bank.id} ({lang})",
        fields=[{"name": name} for name in FIELDS],
        templates=[{"name": "Multiple choice", "qfmt": FRONT, "afmt": BACK}],
        sort_field_index=1,
    )


def notes(bank: PlainBank, data: dict[str, Any], lang: str) -> Iterator[PlainNote]:
    """The notes of one question file in one language."""
    for question in data["questions"]:
        text = question[lang]
        options = [html.escape(option, quote=False) for option in text["options"]]
        fields = [
            html.escape(question["id"]),
            html.escape(text["question"], quote=False),
            *options,
            *[""] * (len(LETTERS) - len(options)),
            question["answer"],
            html.escape(text["explanation"], quote=False),
        ]
        guid = genanki.guid_for("ankibuild", bank.id, question["id"], lang)
        yield PlainNote(guid, fields, sorted(question["topics"]))


def script(build: Callable[..., list[Path]], description: str, argv: Sequence[str] | None = None) -> None:
    """The command line of the baseline and the floor: ``--decks DIR --out DIR``."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--decks", type=Path, required=True, help="the bank folder")
    parser.add_argument("--out", type=Path, required=True, help="where the .apkg files go")
    args = parser.parse_args(argv)
    for path in build(decks=args.decks, out=args.out):
        print(path)
