"""Shape checks of parsed YAML that report with the file's positions, and carry on.

Shared by the validation of a bank's files and by each question kind's reading
of its own keys, so that every kind words its problems alike.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from ..errors import Problems, Severity
from ..languages import CODE_HINT, is_language
from .reader import Map, Seq


class Checker:
    """Type and shape checks for one file, reporting with the file's positions."""

    def __init__(self, path: Path, problems: Problems) -> None:
        self.path = path
        self.problems = problems

    def report(
        self,
        where: tuple[int, int],
        message: str,
        hint: str = "",
        *,
        question: str = "",
        severity: Severity = Severity.ERROR,
        check: str = "",
    ) -> None:
        line, column = where
        self.problems.add(
            self.path,
            message,
            line=line,
            column=column,
            hint=hint,
            question=question,
            severity=severity,
            check=check,
        )

    def mapping(self, value: Any, where: tuple[int, int], what: str, *, question: str = "") -> Map | None:
        if isinstance(value, Map):
            return value
        hint = "write one 'key: value' per line, indented below it, or {key: value, ...}"
        self.report(where, f"{what} must be a mapping (key: value), not {type_name(value)}", hint, question=question)
        return None

    def sequence(self, value: Any, where: tuple[int, int], what: str, *, question: str = "") -> Seq | None:
        if isinstance(value, Seq):
            return value
        hint = "write one '- item' per line, indented below it, or [item, item]"
        self.report(where, f"{what} must be a list (- item), not {type_name(value)}", hint, question=question)
        return None

    def keys(
        self,
        data: Map,
        spec: Mapping[str, bool],
        what: str,
        *,
        question: str = "",
        languages: Sequence[str] = (),
        nested: bool = False,
        elsewhere: Mapping[str, str] | None = None,
    ) -> None:
        """Report missing required keys and unknown keys (with a suggestion).

        Language codes are keys only where ``languages`` (the bank's) are given, in a
        question: anywhere else, ``en:`` is a mistake; in a translation (``nested``),
        one indented too far. ``elsewhere`` gives the hint for a key that belongs
        somewhere else (to another kind of question).
        """
        for key in data:
            if key not in spec and not (languages and is_language(key)):
                hint = (elsewhere or {}).get(key) or _key_hint(key, [*spec, *languages], nested=nested)
                self.report(data.at(key), f"unknown key '{key}' in {what}", hint, question=question)
        for key, required in spec.items():
            if required and key not in data:
                self.report(
                    (data.line, data.column), f"missing key '{key}' in {what}", f"add '{key}:'", question=question
                )

    def text(self, data: Map, key: str, question: str = "") -> str | None:
        value = data.get(key)
        if type(value) is str and value.isprintable() and (text := value.strip()):
            return text  # as text_value has it, without first making its place and name
        if value is None and key not in data:
            return None  # reported as a missing key already
        return self.text_value(value, data.at(key), f"'{key}'", question=question)

    def text_value(self, value: Any, where: tuple[int, int], what: str, *, question: str = "") -> str | None:
        # Nearly every text: printable (so without any character CONTROL finds, a test says) and not blank.
        if isinstance(value, str) and value.isprintable() and (text := value.strip()):
            return text
        if value is None or (isinstance(value, str) and not value.strip()):
            self.report(where, f"{what} is empty", "write the text", question=question)
            return None
        if not isinstance(value, str):
            hint = "put it in quotes if it is meant as text" if isinstance(value, bool) else "write the text itself"
            self.report(where, f"{what} must be text, not {type_name(value)}", hint, question=question)
            return None
        control = CONTROL.search(value)
        if control:
            # U+001F separates a note's fields inside Anki; XML (Moodle, QTI) cannot hold the others at all
            message = f"{what} contains {_unheld(control.group())}"
            self.report(where, message, "remove it; it comes from an escape such as \\x1f in quotes", question=question)
            return None
        return value.strip()

    def text_values(
        self, values: Sequence[Any], marks: Sequence[tuple[int, int]], whats: Iterable[str], *, question: str = ""
    ) -> list[str | None]:
        """:meth:`text_value` of each of ``values`` (a list's items, each at its place in ``marks``, each named
        by one of ``whats``): those that are valid, as nearly all are, without a call each."""
        return [
            text
            if type(value) is str and value.isprintable() and (text := value.strip())
            else self.text_value(value, where, what, question=question)
            for value, where, what in zip(values, marks, whats, strict=True)
        ]

    def localized(self, value: Any, where: tuple[int, int], what: str) -> dict[str, str]:
        """A ``{lang: text}`` mapping, such as a deck title or a topic name."""
        data = self.mapping(value, where, what)
        if data is None:
            return {}
        result: dict[str, str] = {}
        for lang, text in data.items():
            if not is_language(lang):
                self.report(data.at(lang), f"unknown language code '{lang}' in {what}", CODE_HINT)
                continue
            checked = self.text_value(text, data.at(lang), f"{what} in '{lang}'")
            if checked is not None and self._one_line(checked, data.at(lang), f"{what} in '{lang}'"):
                result[lang] = checked
        return result

    def _one_line(self, text: str, where: tuple[int, int], what: str) -> bool:
        """A title is one line: a break in it would start a line of its own in the changelog and release notes."""
        found = LINE_BREAK.search(text)
        if found:
            message = f"{what} holds a line break (U+{ord(found.group()):04X})"
            self.report(where, message, "write the title on one line, without \\n or a block scalar (| or >)")
        return found is None

    def names(self, data: Map, key: str, allowed: Sequence[str], *, question: str, upper: bool = False) -> list[str]:
        """The valid names listed under ``key`` (option letters to pin, checks to allow); others are reported."""
        if key not in data:
            return []
        seq = self.sequence(data[key], data.at(key), f"'{key}'", question=question)
        names: list[str] = []
        for value, where in zip(seq or (), seq.marks if seq else (), strict=True):
            name = value.strip() if isinstance(value, str) else ""
            name = name.upper() if upper else name
            if name in allowed:
                names.append(name)
                continue
            close = closest(name, allowed)
            hint = f"did you mean '{close}'?" if close else f"allowed: {', '.join(allowed)}"
            self.report(where, f"'{value}' is not allowed in '{key}'", hint, question=question)
        return names


#: Control characters other than tab and line break, and what else XML 1.0 cannot hold: surrogates, U+FFFE and
#: U+FFFF (YAML only lets them in through escapes). A raw pattern: the bank's JSON schema spells it the same.
CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\ud800-\udfff\ufffe\uffff]")


def _unheld(char: str) -> str:
    """A character CONTROL finds, named in a student's words."""
    code = f"U+{ord(char):04X}"
    if "\ud800" <= char <= "\udfff":
        return f"{code}, half of a surrogate pair, which is no character on its own"
    return f"the invisible control character {code}" if char < "\ufffe" else f"{code}, a noncharacter XML cannot hold"


#: Line breaks left after CONTROL: a title may hold none of them.
LINE_BREAK = re.compile(r"[\n\u2028\u2029]")


def _key_hint(key: str, allowed: list[str], nested: bool) -> str:
    close = closest(key, allowed)
    if close:
        return f"did you mean '{close}'?"
    if nested and is_language(key):
        return "a translation sits directly under the question: is it indented too far?"
    return f"allowed: {', '.join(allowed)}"


def type_name(value: Any) -> str:
    """How a problem names what was written instead: "a list", "text", "true", "empty"."""
    if value is None:
        return "empty"
    if isinstance(value, bool):
        return str(value).lower()
    names: dict[type, str] = {Map: "a mapping", Seq: "a list", str: "text"}
    return names.get(type(value), type(value).__name__)


def closest(name: str, allowed: Sequence[str]) -> str | None:
    """The allowed name closest to ``name``, if one is close enough to hint at (did you mean ...?)."""
    import difflib  # loaded only for a name refused: a bank without mistakes never needs it

    close = difflib.get_close_matches(name, allowed, n=1)
    return close[0] if close else None
