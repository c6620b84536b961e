"""JSON Schemas (draft 2020-12) of the bank's files, so editors complete keys and flag mistakes.

The schemas are generated from the validator's own rules: its key tables
(which keys a file, a question and a translation have, and which are required),
its slug and topic patterns, the option counts and answer letters, the names of
the item-writing checks ``allow`` may list and the language codes. A rule
changed in :mod:`.validate` changes the schema with it, and
``tests/load/test_schema.py`` holds the two to the same verdict on generated files.

The question part is made of fragments, one per kind of question
(:meth:`.kinds.Kind.schema_fragment`): the schema of the value of each key a kind
adds to a question and of each key of its translations. ``kind:`` chooses the
fragment; a question without it is of the default kind, multiple choice.

A schema sees one file at a time, as an editor reads it, so ``ankibuild check``
remains the authority on:

- what spans files: that a question's topics are declared in ``bank.yaml``, that
  question ids are unique in the bank, that translations are in the bank's
  languages (``check`` skips, with a warning, a translation in another language);
- what spans a question's translations: the same number of options in every
  language, and an answer and pinned letters among those options;
- what a number was written as: ankibuild reads ``id: 42`` or ``1.50`` as the
  text written, an editor as a number, whose written form the schema cannot see
  (so ``1`` and ``"1"``, or ``" a"`` and ``"a"``, are two options to it, one to ``check``);
- everything beyond shape: templates, formulas, Markdown, images, the
  item-writing checks, a bank id that was released with two underscores in a row.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from ..kinds import CHECKS, DEFAULT_KIND, KINDS, Kind
from ..kinds.schema import TEXT, Schema, padded
from ..languages import ISO_639_1, REGION, is_language
from ..model import SLUG, TOPIC
from ..options import FORMATS
from ..study import MAX_STEPS, SETTINGS, STUDY_KEYS
from ..yamlfiles.checker import CONTROL
from .validate import BANK_KEYS, EVERY_QUESTION_KEY, FILE_KEYS, QUESTION_KEYS

DIALECT = "https://json-schema.org/draft/2020-12/schema"

LANGUAGE: Schema = {"$ref": "#/$defs/language"}
LOCALIZED: Schema = {"$ref": "#/$defs/localized"}
SLUG_REF: Schema = {"$ref": "#/$defs/slug"}


@dataclass(frozen=True)
class Keys:
    """The keys of a mapping, each with the schema of its value, and those it requires."""

    properties: dict[str, Schema]
    required: tuple[str, ...]


def keyed(table: Mapping[str, bool], values: Mapping[str, Schema]) -> Keys:
    """The keys of one of the validator's tables (True: required), with the schema of each value.

    A key of the table without a schema is a KeyError: the schema cannot forget a key.
    """
    return Keys({key: values[key] for key in table}, tuple(key for key, required in table.items() if required))


def _one_of(names: Iterable[str]) -> Schema:
    """One of ``names``, offered for completion, or written with spaces around it (which ``check`` ignores)."""
    listed = list(names)
    return {"anyOf": [{"enum": listed}, {"type": "string", "pattern": padded(*listed)}]}


def _language_pattern(reserved: tuple[str, ...] = ()) -> str:
    """A language code as :func:`.languages.is_language` accepts it, except the ``reserved`` ones."""
    refused = "".join(f"(?!{code}$)" for code in reserved)
    return f"^{refused}(?:{'|'.join(sorted(ISO_639_1))})(?:-(?:{REGION}))?$"


def _text(pattern: str) -> Schema:
    """Text as ``check`` reads it: no control character, the spaces around it stripped, then ``pattern`` (``^...$``)."""
    assert pattern.startswith("^") and pattern.endswith("$"), pattern
    return {"type": "string", "pattern": rf"^\s*(?:{pattern[1:-1]})\s*$", "not": {"pattern": CONTROL.pattern}}


def _topic_pattern() -> str:
    """The validator's topic pattern, written so that an editor's regular expressions agree with it.

    ``\\w`` means an ASCII letter, digit or ``_`` to an editor (ECMA-262), but any
    script's to Python: the class here is ASCII's ``[\\w.-]`` and every character
    beyond ASCII except spaces (only symbols beyond ASCII then pass the schema).
    """
    word = r"[^\x00-,/:-@\[-^`{-\x9f\s]"
    pattern = TOPIC.pattern.replace(r"[\w.-]", word)
    assert word in pattern, "the topic pattern changed: write its editor version again"
    return pattern


def _shared_defs() -> dict[str, Schema]:
    """The definitions both schemas use."""
    return {
        "text": {
            "description": "Text, shown on the card exactly as written (HTML is shown as text). Not empty.",
            "anyOf": [{"type": "string", "pattern": r"\S", "not": {"pattern": CONTROL.pattern}}, {"type": "number"}],
        },
        "slug": {
            "description": "Lowercase letters, digits and - _ . ; starts with a letter or digit.",
            "anyOf": [_text(SLUG.pattern), {"type": "number", "minimum": 0}],
        },
        "language": {
            "description": "An ISO 639-1 language code (de, fr, en), optionally with a region or script "
            "(pt-BR, zh-Hant).",
            "type": "string",
            "pattern": _language_pattern(),
        },
        "localized": {
            "description": "The same text in each language: {language code: text}.",
            "type": "object",
            "propertyNames": LANGUAGE,
            "additionalProperties": TEXT,
        },
    }


def _question_keys() -> Keys:
    """The keys every question has, whatever its kind."""
    values: dict[str, Schema] = {
        "id": {
            **SLUG_REF,
            "description": "Unique in the bank; identifies the question's notes in every classmate's collection. "
            "Edit the text freely, never the id.",
        },
        "topics": {
            "description": "Topics declared in bank.yaml.",
            "type": "array",
            "minItems": 1,
            "items": {"anyOf": [_text(_topic_pattern()), {"type": "number"}]},
        },
        "allow": {
            "description": "Item-writing checks this question is exempt from "
            "(see the format documentation for the reason of each).",
            "type": "array",
            "items": _one_of(CHECKS),
        },
        "kind": {"description": "The kind of question; multiple choice when left out.", **_one_of(KINDS)},
    }
    return keyed(QUESTION_KEYS, values)


def _kind_defs(kind: Kind, common: Keys) -> dict[str, Schema]:
    """A question of one kind and its translation: closed mappings of the common keys and the kind's."""
    fragment = kind.schema_fragment()
    own, translation = keyed(kind.question_keys, fragment.question), keyed(kind.translation_keys, fragment.translation)
    name = kind.name
    properties = {**common.properties, **own.properties}
    translation_keys = _language_pattern(tuple(key for key in properties if is_language(key)))
    return {
        name: {
            "type": "object",
            "required": [*common.required, *own.required],
            "properties": properties,
            "patternProperties": {translation_keys: {"$ref": f"#/$defs/{name}-translation"}},
            "additionalProperties": False,
        },
        f"{name}-translation": {
            "description": "The question in one language.",
            "type": "object",
            "required": list(translation.required),
            "additionalProperties": False,
            "properties": translation.properties,
        },
    }


def _question(names: Iterable[str]) -> Schema:
    """A question: ``kind`` names the definition it follows; without it, the default kind's."""
    cases = [
        {
            "if": {
                "properties": {"kind": {"type": "string", "pattern": padded(name)}},
                **({} if name == DEFAULT_KIND else {"required": ["kind"]}),
            },
            "then": {"$ref": f"#/$defs/{name}"},
        }
        for name in names
    ]
    return {"type": "object", "properties": {"kind": _one_of(KINDS)}, "allOf": cases}


def questions_schema() -> Schema:
    """The schema of a question file."""
    common = _question_keys()
    defs = {**_shared_defs(), "question": _question(KINDS)}
    for kind in KINDS.values():
        defs.update(_kind_defs(kind, common))
    values = {
        "deck": {**LOCALIZED, "description": "The deck's title in each language."},
        "questions": {"type": "array", "items": {"$ref": "#/$defs/question"}},
        "todo": {
            "description": "Questions still to write, not built: {language code: [titles]}.",
            "type": "object",
            "propertyNames": LANGUAGE,
            "additionalProperties": {"type": "array", "items": TEXT},
        },
        "languages": {
            "description": "The bank's languages this file is written in, when not all of them: the others "
            "are not warned about.",
            "type": "array",
            "items": LANGUAGE,
            "uniqueItems": True,
        },
    }
    return {
        "$schema": DIALECT,
        "$id": "urn:ankibuild:schema:questions",
        "title": "ankibuild question file",
        "description": "A deck of questions, each written in the bank's languages: multiple choice unless "
        "a question names another kind.",
        **_closed(keyed(FILE_KEYS, values)),
        "$defs": defs,
    }


def bank_schema() -> Schema:
    """The schema of ``bank.yaml``."""
    question_keys = [key for key in EVERY_QUESTION_KEY if is_language(key)]
    values = {
        "id": {
            **SLUG_REF,
            "not": {"type": "string", "pattern": "__"},
            "description": "Namespaces every note, note type and deck of the bank. "
            "Never change it after the first release.",
        },
        "languages": {
            "description": "The languages to build, e.g. [de, fr, en].",
            "type": "array",
            "minItems": 1,
            "uniqueItems": True,
            "items": {"allOf": [LANGUAGE, {"not": {"enum": question_keys}}]},
        },
        "title": {**LOCALIZED, "description": "A parent deck; each question file's deck goes below it."},
        "topics": {
            "description": "Every topic: {slug: {language code: name}}. The slug becomes the Anki tag; "
            ":: makes a hierarchy.",
            "type": "object",
            "propertyNames": {"pattern": _topic_pattern()},
            "additionalProperties": {**LOCALIZED, "minProperties": 1},
        },
        **_class_values(),
        "shuffle": {
            "type": "boolean",
            "default": True,
            "description": "Show the options in a new random order at each review (the default), so that students "
            "learn the answer, not its place; false keeps the order as written.",
        },
        "exports": {
            "description": "Files for learning platforms that every build writes beside the packages.",
            "type": "array",
            "uniqueItems": True,
            "items": {"enum": list(FORMATS)},
        },
    }
    return {
        "$schema": DIALECT,
        "$id": "urn:ankibuild:schema:bank",
        "title": "ankibuild bank file (bank.yaml)",
        "description": "The bank's id, the languages it builds, the parent deck title and the topics.",
        **_closed(keyed(BANK_KEYS, values)),
        "$defs": _shared_defs(),
    }


def _class_values() -> dict[str, Schema]:
    """The schema of what a bank sets for its class in Anki (:data:`.validate.CLASS_KEYS`)."""
    steps = {"type": "array", "minItems": 1, "maxItems": MAX_STEPS}
    study = {}
    for setting in SETTINGS:
        number: Schema = {"type": "integer" if setting.shape == "whole" else "number"}
        number |= {"minimum": setting.low, "maximum": setting.high}
        study[setting.key] = {**steps, "items": number} if setting.shape == "steps" else number
    return {
        "study": {
            "description": "The class's study options: a deck options preset of the bank's own, which Anki adds "
            "only when a student ticks 'Import any deck presets'. Steps are in minutes.",
            **_closed(keyed(STUDY_KEYS, study)),
        },
        "report": {
            "type": "string",
            "pattern": "^https?://",
            "description": "Where to report a mistake, e.g. an issue form: the back of every card links to it, "
            "with {id}, {lang} and {version} filled in.",
        },
        "home": {"type": "string", "pattern": "^https?://", "description": "The bank's home page (its changelog)."},
        "description": {
            "type": "boolean",
            "default": False,
            "description": "Each top deck's description in Anki shows the bank's title, version and news.",
        },
    }


def _closed(keys: Keys) -> Schema:
    """A mapping with exactly these keys."""
    return {
        "type": "object",
        "required": list(keys.required),
        "additionalProperties": False,
        "properties": keys.properties,
    }


def schema_text(*, bank: bool = False) -> str:
    """The schema of a question file, or of ``bank.yaml`` with ``bank``, as JSON text."""
    schema = bank_schema() if bank else questions_schema()
    return json.dumps(schema, indent=2, ensure_ascii=False) + "\n"
