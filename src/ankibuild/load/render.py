"""Render stage: card templates per language, and the notes they show (each made by :mod:`.fields`).

Card templates are Anki templates (``{{Field}}``) with build-time placeholders
``[[name]]`` for the language's wording, so the card structure is written once
in ``default/`` and each language folder holds only its labels (and, when it
must, its own ``front.html`` or ``back.html``). A regional language (``pt-BR``)
falls back to its base language's folder (``pt``; ``zh-TW`` to ``zh-Hant``)
before the default; a bank's own folder is laid over the shipped defaults
(:mod:`.templatefolders`).

The card script ``card.js`` travels as a media file under a
content-hashed name, which the templates get as ``[[script]]``; the bank's
settings arrive the same way (``[[shuffle]]``).
"""

from __future__ import annotations

import hashlib
import html
import re
import struct
import zlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import NamedTuple

from ..cards import template as ankitemplate
from ..cards.assets import Asset
from ..cards.folders import DEFAULT, DEFAULTS, TemplateFolders
from ..cards.template import SPECIAL_FIELDS
from ..errors import Problems, Severity
from ..kinds import KINDS, Kind
from ..languages import is_rtl
from ..links import REPORT_LABEL, REPORT_TEXT
from ..model import Question, topic_tag
from ..paths import UnsafePathError, read_inside
from ..yamlfiles.checker import type_name
from ..yamlfiles.conflicts import report_conflict
from ..yamlfiles.reader import Map, Positions, YamlFile, load

STYLESHEET = "style.css"
SCRIPT = "card.js"
LABELS = "labels.yaml"
#: A template, stylesheet or script larger than this is not one a card can carry to every classmate.
MAX_TEMPLATE_BYTES = 1024 * 1024
#: The labels of a verdict, and those of the choices of a true/false card, which the verdict shows
#: above: a verdict worded as a choice ("Falsch" above the option "Falsch") contradicts itself.
VERDICT_LABELS = ("correct", "incorrect")
CHOICE_LABELS = ("true", "false")

_PLACEHOLDER = re.compile(r"\[\[\s*([a-z_]+)\s*\]\]")


class Side(NamedTuple):
    """One card type's templates, as the note type holds them."""

    name: str
    front: str
    back: str


@dataclass(frozen=True)
class CardTemplates:
    """What the note type of one kind in one language is made of."""

    lang: str
    kind: Kind
    #: Each card type's templates, in the kind's order.
    sides: tuple[Side, ...]
    css: str
    labels: Mapping[str, str] = field(default_factory=dict)
    media: tuple[Asset, ...] = ()

    @property
    def key(self) -> str:
        """The note type's key in the lock and in a build (see :meth:`Kind.notetype_key`)."""
        return self.kind.notetype_key(self.lang)

    @property
    def digest(self) -> str:
        return notetype_digest(self.sides, self.kind.fields, self.css, sort_field=self.kind.sort_field)


def notetype_digest(sides: Sequence[Side], fields: Sequence[str], css: str, *, sort_field: str) -> str:
    """What identifies a notetype's content: the lock's, and that of one read from a package.

    The sort field is part of it: a note type that sorts by another field must
    get a newer time, or Anki keeps the old one in every collection.
    """
    templates = (text for side in sides for text in (side.front, side.back))
    return _digest(*(side.name for side in sides), *fields, *templates, css, sort_field)


def note_digest(fields: Sequence[str], tags: str) -> tuple[str, str]:
    """A note's digest and its checksum per part (each field, then the tags, space-separated)."""
    encoded = list(map(str.encode, (*fields, tags)))  # once, for the checksums and the digest
    checksums = list(map(zlib.crc32, encoded))
    # One string, not a tuple of eleven: a large bank keeps this for every note. Each checksum
    # as 4 bytes in hex is its 8 digits: one call writes them all, a space between each two.
    parts = struct.pack(f">{len(checksums)}I", *checksums).hex(" ", 4)
    return _digest_of(encoded), parts


class NoteHead(NamedTuple):
    """A rendered note without its texts: what the lock, the changelog and a package's digest need.

    A build restores one for every note of the bank from the cache, and the
    texts only for the packages it makes.
    """

    guid: str
    question_id: str
    lang: str
    deck_key: str
    #: Packaged names of the images the fields show.
    media: tuple[str, ...]
    #: What identifies the content: tells whether the note changed at all.
    digest: str
    #: A checksum per field and one for the tags, space-separated: tells which parts changed.
    parts: str
    #: The name of its kind, whose note type it uses.
    kind: str
    #: Its cards, by their place among the note type's card types.
    cards: tuple[int, ...]


class RenderedNote(NamedTuple):
    """A question in one language, ready to be written as a note.

    A named tuple: a large bank has tens of thousands, read back from the
    cache on every build, and tuples are the cheapest objects to restore.
    """

    guid: str
    question_id: str
    lang: str
    deck_key: str
    fields: tuple[str, ...]
    tags: tuple[str, ...]
    #: Packaged names of the images the fields show.
    media: tuple[str, ...]
    #: What identifies the content: tells whether the note changed at all.
    digest: str
    #: A checksum per field and one for the tags, space-separated: tells which parts changed.
    parts: str
    kind: str
    cards: tuple[int, ...]

    @classmethod
    def of(
        cls, question: Question, lang: str, deck_key: str, *, fields: tuple[str, ...], media: tuple[str, ...], guid: str
    ) -> RenderedNote:
        """A note with its digest and checksums, computed once: the lock needs both for every note."""
        tags = tuple(sorted(map(topic_tag, question.topics)))
        digest, parts = note_digest(fields, " ".join(tags))
        cards = KINDS[question.kind].card_ords(fields)
        return cls(guid, question.id, lang, deck_key, fields, tags, media, digest, parts, question.kind, cards)

    @classmethod
    def join(cls, head: NoteHead, fields: tuple[str, ...], tags: tuple[str, ...]) -> RenderedNote:
        """The note a head and its texts were split from."""
        guid, question_id, lang, deck_key, media, digest, parts, kind, cards = head
        return cls(guid, question_id, lang, deck_key, fields, tags, media, digest, parts, kind, cards)

    @property
    def head(self) -> NoteHead:
        return NoteHead(
            self.guid,
            self.question_id,
            self.lang,
            self.deck_key,
            self.media,
            self.digest,
            self.parts,
            self.kind,
            self.cards,
        )


def _digest(*parts: str) -> str:
    return _digest_of([part.encode() for part in parts])


def _digest_of(parts: Sequence[bytes]) -> str:
    """The digest of texts as UTF-8, which encodes their join as the join of their encodings."""
    return hashlib.sha256(b"\x1f".join(parts)).hexdigest()[:16]


def load_templates(
    folders: TemplateFolders, kind: Kind, lang: str, *, problems: Problems, shuffle: bool = False
) -> CardTemplates:
    """The templates of one kind in one language, strict: unknown fields and labels are errors.

    ``shuffle`` is the bank's setting: the card script then shows the options
    in a random order per review.
    """
    return load_all_templates(TemplateFiles(folders, problems), [(kind, lang)], shuffle=shuffle)[0]


def load_all_templates(
    files: TemplateFiles, made: Sequence[tuple[Kind, str]], *, shuffle: bool = False
) -> list[CardTemplates]:
    """:func:`load_templates` of each kind and language in ``made``, every file read and checked once.

    The stylesheet, the script and the default templates and labels are the same for every
    language: read again for each, they were a third of what loading a bank's templates cost.
    """
    folders = files.folders
    labels: dict[str, dict[str, str]] = {}
    for lang in dict.fromkeys(lang for _, lang in made):
        if not folders.has_language(lang):
            files.problems.add(
                folders.place / lang,
                f"no templates for '{lang}': the default (English) wording is used",
                hint=f"create {lang}/{LABELS} in the bank's templates folder with the labels in that language",
                severity=Severity.WARNING,
            )
        labels[lang] = files.labels(lang)
    script = files.script()
    css = files.text(folders.shared(STYLESHEET)) or ""
    for said in labels.values():
        said.update(script=script.name if script else "", shuffle="true" if shuffle else "false")
    media = (script,) if script else ()
    return [
        CardTemplates(lang, kind, _sides(files, kind, lang, labels=labels[lang]), css, labels[lang], media)
        for kind, lang in made
    ]


def _sides(files: TemplateFiles, kind: Kind, lang: str, *, labels: Mapping[str, str]) -> tuple[Side, ...]:
    """Each card type's templates of ``kind`` in ``lang``, its labels put in."""
    return tuple(
        Side(
            card.name,
            *(files.template(files.folders.find(lang, name), labels, kind) for name in (card.front, card.back)),
        )
        for card in kind.cards
    )


def report_words(files: TemplateFiles, langs: Sequence[str]) -> dict[str, str]:
    """The report link's words in each of ``langs``, from its labels (read for the templates too)."""
    return {lang: files.labels(lang).get(REPORT_LABEL, REPORT_TEXT) for lang in langs}


class TemplateFiles:
    """The files of the template ``folders`` as one build reads them: each read, parsed and checked once.

    What is wrong with them is told to ``problems``, once: the report link's
    words read the labels before the notes are rendered, the templates later.
    """

    def __init__(self, folders: TemplateFolders, problems: Problems) -> None:
        self.folders, self.problems = folders, problems
        self._texts: dict[Path, str | None] = {}
        self._labels_files: dict[Path, YamlFile | None] = {}
        self._labels: dict[str, dict[str, str]] = {}
        self._checked: set[tuple[Path, Kind]] = set()

    def text(self, path: Path) -> str | None:
        """A template file's text (see :func:`_read`): None, reported, when it cannot be read."""
        if path not in self._texts:
            self._texts[path] = _read(path, self.folders.roots, self.problems)
        return self._texts[path]

    def labels(self, lang: str) -> dict[str, str]:
        """The labels of ``lang`` (see :func:`_labels`): a copy, the caller's to add to."""
        if lang not in self._labels:
            self._labels[lang] = _labels(self, lang)
        return dict(self._labels[lang])

    def labels_file(self, path: Path) -> YamlFile | None:
        """A labels file, parsed; None when there is none."""
        if path not in self._labels_files:
            self._labels_files[path] = load(path, self.problems, self.folders.roots) if path.is_file() else None
        return self._labels_files[path]

    def script(self) -> Asset | None:
        """The card script, as it travels: None when it cannot be read."""
        path = self.folders.shared(SCRIPT)
        text = self.text(path)
        return None if text is None else Asset.hashed(path, text.encode())

    def template(self, path: Path, labels: Mapping[str, str], kind: Kind) -> str:
        """The template in ``path`` of a card of ``kind``, checked, with ``labels`` put in."""
        text = self.text(path)
        if text is None:
            return ""
        if (path, kind) not in self._checked:
            self._checked.add((path, kind))
            check_template(path, text, kind.fields, problems=self.problems, cloze=kind.cloze)
        return _with_labels(path, text, labels, problems=self.problems)


def _read(path: Path, roots: Sequence[Path], problems: Problems) -> str | None:
    """A template file, which must lie inside one of the template folders ``roots``."""
    try:
        text = read_inside(path, roots, MAX_TEMPLATE_BYTES).decode("utf-8-sig")
    except FileNotFoundError:
        hint = "ankibuild's own templates are incomplete: reinstall ankibuild"
        problems.add(path, "template file is missing", hint=hint)
    except UnsafePathError as err:
        problems.add(path, err.message, hint=err.hint)
    except (OSError, UnicodeDecodeError) as err:
        problems.add(path, f"cannot read the template: {err}")
    else:
        return None if report_conflict(path, text, problems) else text
    return None


def _labels(files: TemplateFiles, lang: str) -> dict[str, str]:
    """Default wording overlaid with the language's own; the language and direction too."""
    labels: dict[str, str] = {"lang": lang, "dir": "rtl" if is_rtl(lang) else "ltr"}
    places: dict[str, tuple[Path, int, int]] = {}
    problems = files.problems
    for path in (folder / LABELS for folder in files.folders.folders(lang)):
        read = files.labels_file(path)
        if read is None:
            continue
        data = read.data
        if not isinstance(data, Map):
            problems.add(path, "labels must be a mapping of name: text", line=1, column=1)
            continue
        labels.update({str(k): v for k, v in data.items() if _label_ok(path, data, k, problems=problems)})
        places.update({str(k): (path, *data.at(k)) for k in data if k in VERDICT_LABELS + CHOICE_LABELS})
    _verdicts_apart(labels, places, problems)
    for kind in KINDS.values():
        labels.update(kind.own_labels(labels))
    return labels


def _label_ok(path: Path, data: Map, key: str, *, problems: Problems) -> bool:
    """Whether a label is text, else reported: a number or a list would show on every card as Python writes it.

    Text is then checked by each kind, for the labels its templates read.
    """
    value = data[key]
    line, column = data.at(key)
    if not isinstance(value, str):
        hint = 'write the words, in quotes if they could be read as something else: report: "Report a mistake"'
        problems.add(path, f"label '{key}' must be text, not {type_name(value)}", line=line, column=column, hint=hint)
        return False
    wrong = next(filter(None, (kind.label_problem(key, value) for kind in KINDS.values())), None)
    if wrong is not None:
        problems.add(path, wrong[0], line=line, column=column, hint=wrong[1])
    return wrong is None


def verdict_clashes(labels: Mapping[str, str]) -> list[tuple[str, str]]:
    """Each verdict label (and the choice label) that reads as a choice, letter case and punctuation aside."""

    def words(text: str) -> str:
        return "".join(c for c in text.casefold() if c.isalnum())

    choices = {words(labels[key]): key for key in CHOICE_LABELS if key in labels}
    said = {key: words(labels[key]) for key in VERDICT_LABELS if key in labels}
    return [(key, choices[text]) for key, text in said.items() if text in choices]


def _verdicts_apart(labels: Mapping[str, str], places: Mapping[str, tuple[Path, int, int]], problems: Problems) -> None:
    """Warn at the label, of the two, that a bank's own labels file wrote (the shipped ones never clash)."""
    for verdict, choice in verdict_clashes(labels):
        shipped = places[verdict][0].is_relative_to(DEFAULTS)
        path, line, column = places[choice] if shipped else places[verdict]
        problems.add(
            path,
            f"the verdict '{verdict}' reads '{labels[verdict]}', the words of the choice '{choice}'",
            line=line,
            column=column,
            hint="word the verdict as a verdict ('Richtig beantwortet', not 'Richtig'), so that it cannot be "
            "read as a choice",
            severity=Severity.WARNING,
        )


def _with_labels(path: Path, text: str, labels: Mapping[str, str], *, problems: Problems) -> str:
    """A template's ``text`` with its placeholders replaced by ``labels``: an unknown one is reported."""
    position = Positions(text)

    def label(match: re.Match[str]) -> str:
        key = match.group(1)
        if key not in labels:
            line, column = position(match.start())
            hint = f"define '{key}' in {DEFAULT}/{LABELS}"
            problems.add(path, f"unknown label [[{key}]]", line=line, column=column, hint=hint)
            return ""
        return html.escape(labels[key])

    return _PLACEHOLDER.sub(label, text)


def check_template(path: Path, text: str, fields: Sequence[str], *, problems: Problems, cloze: bool = False) -> None:
    """Anki would show a template error on every card, or the preview could not render it: catch it now.

    ``cloze``: the template is a cloze note type's.
    """
    position = Positions(text)
    for issue in ankitemplate.check(text, (*fields, *SPECIAL_FIELDS), cloze=cloze):
        line, column = position(issue.offset)
        problems.add(path, issue.message, line=line, column=column, hint=issue.hint)
