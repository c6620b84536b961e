"""The class's study options: ``study:`` in ``bank.yaml``, read and checked.

A teacher who sets them gets a deck options preset in every package (see
:mod:`.anki.preset`); a bank without them carries none, and a student's own
options are never touched.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from .yamlfiles.checker import Checker, type_name
from .yamlfiles.reader import Map

#: A setting's value: a whole number, a fraction, or a list of steps in minutes.
Value = int | float | tuple[float, ...]
#: The study options a bank sets, by their key in ``bank.yaml``, in the order of :data:`SETTINGS`.
Study = Mapping[str, Value]

#: Learning steps a preset may have: more would be a mistake, not a plan.
MAX_STEPS = 10


@dataclass(frozen=True)
class Setting:
    """One study option: its key, what a student reads in the preset's name, its range and where Anki keeps it."""

    key: str
    #: How the preset's name says it, with ``{}`` for the value.
    says: str
    low: float
    high: float
    #: Where it goes in Anki's deck options (a key of the preset, then of its section).
    anki: tuple[str, ...]
    #: "whole" (a count), "fraction" (a share), or "steps" (a list of minutes).
    shape: str = "whole"


SETTINGS: tuple[Setting, ...] = (
    Setting("new-cards-per-day", "{} new a day", 0, 9999, ("new", "perDay")),
    Setting("maximum-reviews-per-day", "{} reviews a day", 0, 9999, ("rev", "perDay")),
    Setting("desired-retention", "retention {}", 0.7, 0.99, ("desiredRetention",), "fraction"),
    Setting("maximum-interval", "intervals up to {} days", 1, 36500, ("rev", "maxIvl")),
    Setting("learning-steps", "learning steps {} min", 0.01, 525600, ("new", "delays"), "steps"),
    Setting("relearning-steps", "relearning steps {} min", 0.01, 525600, ("lapse", "delays"), "steps"),
)
#: The keys ``study:`` may hold (none is required).
STUDY_KEYS = {setting.key: False for setting in SETTINGS}


def read_study(check: Checker, data: Map) -> Study:
    """The study options under ``study:``, each one checked; nothing when the bank has none."""
    if "study" not in data:
        return {}
    study = check.mapping(data["study"], data.at("study"), "'study'")
    if study is None:
        return {}
    check.keys(study, STUDY_KEYS, "'study'")
    found = {s.key: _value(check, s, study[s.key], where=study.at(s.key)) for s in SETTINGS if s.key in study}
    return {key: value for key, value in found.items() if value is not None}


def _value(check: Checker, setting: Setting, value: Any, *, where: tuple[int, int]) -> Value | None:
    if setting.shape != "steps":
        return _number(check, setting, value, where=where)
    steps = check.sequence(value, where, f"'{setting.key}'")
    if steps is None:
        return None
    if not 1 <= len(steps) <= MAX_STEPS:
        check.report(where, f"'{setting.key}' has {len(steps)} steps", f"list 1 to {MAX_STEPS} steps in minutes")
        return None
    numbers = [_number(check, setting, step, where=mark) for step, mark in zip(steps, steps.marks, strict=True)]
    return tuple(float(n) for n in numbers if n is not None) if None not in numbers else None


def _number(check: Checker, setting: Setting, value: Any, *, where: tuple[int, int]) -> int | float | None:
    """A number within the setting's range (YAML gives every number as the text written)."""
    number = _parse(value, whole=setting.shape == "whole")
    if number is None or not setting.low <= number <= setting.high:
        what = "a whole number" if setting.shape == "whole" else "a number"
        written = f"'{value}'" if isinstance(value, str) else type_name(value)
        hint = f"write {what} from {_shown(setting.low)} to {_shown(setting.high)}"
        check.report(where, f"'{setting.key}' cannot be {written}", hint)
        return None
    return number


def _parse(value: Any, whole: bool) -> int | float | None:
    if not isinstance(value, str):
        return None
    try:
        number = int(value) if whole else float(value)
    except ValueError:
        return None
    return number if math.isfinite(number) else None


def _shown(number: float) -> str:
    """A number as a teacher writes it: 9999, not 9999.0."""
    return str(int(number)) if number == int(number) else str(number)


def describe(study: Study) -> str:
    """The settings as the preset's name shows them, in a fixed order: "20 new a day, retention 0.9"."""
    said = []
    for setting in SETTINGS:
        if setting.key in study:
            value = study[setting.key]
            shown = " ".join(map(_shown, value)) if isinstance(value, tuple) else _shown(value)
            said.append(setting.says.format(shown))
    return ", ".join(said)
