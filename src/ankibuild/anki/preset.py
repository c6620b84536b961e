"""The class preset: a deck options preset carrying the bank's study options (see :mod:`..study`).

Anki adds a package's preset only when the student ticks "Import any deck
presets", and only under an id it has never seen: an existing preset is never
updated. So the id is made from the bank, the language, the settings and the
name, and changed settings arrive as a new preset, whose name says them.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Collection
from dataclasses import dataclass
from typing import Any

from ..model import stable_int
from ..study import SETTINGS, Study, describe


@dataclass(frozen=True)
class Preset:
    """A deck options preset as a package's collection holds it (Anki's legacy JSON)."""

    id: int
    name: str
    #: The preset's JSON, canonical (its keys sorted), so that it reads the same in every build.
    config: str


def class_preset(bank_id: str, lang: str, title: str, *, study: Study) -> Preset | None:
    """The preset of a bank's package in ``lang``, named after the bank's ``title``; none without study options."""
    if not study:
        return None
    settings = json.dumps({key: study[key] for key in sorted(study)})
    name = f"{title} ({describe(study)})"
    # The name too: a new title would otherwise never reach those who have the preset.
    preset_id = stable_int("preset", bank_id, lang, settings, name)
    config = _defaults(preset_id, name)
    for setting in SETTINGS:
        if setting.key in study:
            *section, key = setting.anki
            value = study[setting.key]
            _section(config, section)[key] = list(value) if isinstance(value, tuple) else value
    return Preset(preset_id, name, json.dumps(config, sort_keys=True))


def _section(config: dict[str, Any], path: list[str]) -> dict[str, Any]:
    for key in path:
        config = config[key]
    return config


def _defaults(preset_id: int, name: str) -> dict[str, Any]:
    """Anki's own defaults for every option the bank leaves out, in the form Anki reads from a package.

    Every section is written whole: Anki replaces a section it cannot read with
    its defaults, and would drop the bank's settings in it with the rest.
    """
    return {
        "id": preset_id,
        "name": name,
        "mod": 0,
        "usn": 0,
        "maxTaken": 60,
        "autoplay": True,
        "timer": 0,
        "replayq": True,
        "dyn": False,
        "desiredRetention": 0.9,
        "new": {
            "bury": False,
            "delays": [1.0, 10.0],
            "initialFactor": 2500,
            "ints": [1, 4, 0],
            "order": 1,
            "perDay": 20,
        },
        "rev": {"bury": False, "ease4": 1.3, "ivlFct": 1.0, "maxIvl": 36500, "perDay": 200, "hardFactor": 1.2},
        "lapse": {"delays": [10.0], "leechAction": 1, "leechFails": 8, "minInt": 1, "mult": 0.0},
    }


def add_preset(cursor: sqlite3.Cursor, preset: Preset, deck_ids: Collection[int]) -> None:
    """Put ``preset`` into the collection genanki wrote, and give it to the decks ``deck_ids``."""
    (presets, decks) = (json.loads(text) for text in cursor.execute("SELECT dconf, decks FROM col").fetchone())
    presets[str(preset.id)] = json.loads(preset.config)
    for deck_id in deck_ids:
        decks[str(deck_id)]["conf"] = preset.id
    cursor.execute("UPDATE col SET dconf = ?, decks = ?", (json.dumps(presets), json.dumps(decks)))
