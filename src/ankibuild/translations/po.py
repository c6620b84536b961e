"""Files for translators: gettext PO files out of the bank, and their translations back in.

Translators work in Poedit, Weblate, Crowdin or Lokalize, which all read PO
files, not YAML. An export holds one entry per text: each question's question,
options and explanation, and the bank's title, topic names and deck titles.
Its context (``msgctxt``) names the text (``question-id:option-B``, ``@topic
ai-hardware``), its ``msgid`` is the text in the language translated from,
its ``msgstr`` the translation the bank has (marked fuzzy when it may be
outdated). An import writes the confirmed translations back where they belong,
keeping each file's comments and layout (:mod:`.yamltext`); it refuses the
whole file if a source text changed since the export, and writes nothing until
the bank as it would be is valid.
"""

from __future__ import annotations

import re
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING

from ..atomic import write_if_changed, write_inside
from ..buildlock import DEFAULT_WAIT, writing
from ..errors import AnkibuildError, BankError, Problem, Problems, Severity, tally
from ..languages import CODE_HINT, is_language
from ..model import Bank, Deck, Question, Translation
from ..paths import DECKS
from ..yamlfiles.reader import BANK_FILE, Map, decode, read
from ..yamlfiles.writer import Block, Document, Value, mapping_lines, open_document
from .record import Entry, Record, advance, by_question, text_refs, today
from .status import BankTexts, load_texts, write_record

if TYPE_CHECKING:
    import polib

#: The most lines an entry of a PO file may have (its comments, context, texts and their
#: continuation lines): an exported one has a few dozen, a text of a hundred lines a few hundred.
MAX_ENTRY_LINES = 2000
#: The header field that names the language the ``msgid`` texts are in.
SOURCE_HEADER = "X-Source-Language"
_OPTION = re.compile(r"^option-([A-F])$")
_FEEDBACK = re.compile(r"^feedback-([A-F])$")
_SYNTAX_LINE = re.compile(r"\(line (\d+)\)")


@dataclass(frozen=True)
class Text:
    """One text to translate: where it goes, and what it says in both languages."""

    context: str
    source: str
    target: str | None
    #: The file and line of the source text, for the translator's reference.
    place: tuple[Path, int]
    outdated: bool = False
    comment: str = ""


def _question_texts(texts: BankTexts, question: Question, source: str, *, lang: str) -> Iterator[Text]:
    if source not in question.translations:
        return
    theirs = dict(question.translations[lang].texts()) if lang in question.translations else {}
    entry = texts.record.get(question.id, {}).get(lang)
    outdated = entry is not None and entry.behind is not None
    path = question.place.path
    marks = question.translations[source].marks
    correct = question.answer.split()
    article = "the" if len(correct) == 1 else "a"
    for name, text in question.translations[source].texts():
        letter = name.removeprefix("option-")
        comment = f"option {letter}, {article} correct answer" if letter in correct else ""
        # options are marked by letter, feedback by its name, the other texts by their field
        mark = marks.get(letter) or marks.get(name) or marks.get(name.capitalize(), (question.place.line, 0))
        line = mark[0]
        yield Text(f"{question.id}:{name}", text, theirs.get(name), (path, line), outdated, comment)


def _bank_texts(bank: Bank, source: str, lang: str) -> Iterator[Text]:
    """The bank's own texts: its title, its topic names, each deck's title."""
    bank_file = bank.root / BANK_FILE
    if source in bank.titles:
        yield Text("@title", bank.titles[source], bank.titles.get(lang), (bank_file, 0))
    for slug, names in bank.topics.items():
        if source in names:
            yield Text(f"@topic {slug}", names[source], names.get(lang), (bank_file, 0), comment="a topic name")
    for deck in bank.decks:
        if source in deck.titles:
            place = (deck.place.path, 0)
            yield Text(f"@deck {deck.key}", deck.titles[source], deck.titles.get(lang), place, comment="a deck title")


def all_texts(texts: BankTexts, source: str, lang: str) -> list[Text]:
    found = list(_bank_texts(texts.bank, source, lang))
    for deck in texts.bank.decks:
        for question in deck.questions:
            found.extend(_question_texts(texts, question, source, lang=lang))
    return found


def _languages(bank: Bank, lang: str, source: str | None) -> str:
    """The language to translate from: ``source``, else the bank's first other language."""
    if not is_language(lang):
        raise AnkibuildError(f"--lang '{lang}' is not a language code: {CODE_HINT}")
    chosen = source or next((code for code in bank.languages if code != lang), "")
    if chosen not in bank.languages or chosen == lang:
        raise AnkibuildError(
            f"--from '{chosen}' is not a language to translate '{lang}' from: use one of "
            + ", ".join(code for code in bank.languages if code != lang)
        )
    return chosen


@dataclass(frozen=True)
class ExportResult:
    """A PO file exported: its place, the languages translated from and into, and how many entries it holds,
    translated and fuzzy."""

    path: Path
    source: str
    lang: str
    entries: int
    translated: int
    fuzzy: int
    #: Errors in the bank: a question they hide is not in the file.
    errors: int = 0


def export_po(lang: str, out: Path, *, source: str | None = None, decks: Path = DECKS) -> ExportResult:
    """Write a PO file to translate the bank into ``lang`` from ``source``."""
    import polib

    texts = load_texts(decks)
    source = _languages(texts.bank, lang, source)
    po = polib.POFile(wrapwidth=78)
    po.header = f"The bank '{texts.bank.id}' to translate from '{source}' into '{lang}'; import it with\n"
    po.header += "ankibuild translations import. A fuzzy entry may be outdated: check it, then unmark it."
    po.metadata = {
        "Project-Id-Version": texts.bank.id,
        "PO-Revision-Date": time.strftime("%Y-%m-%d %H:%M+0000", time.gmtime()),
        "Last-Translator": "none",
        "Language-Team": "none",
        "Language": lang,
        "MIME-Version": "1.0",
        "Content-Type": "text/plain; charset=UTF-8",
        "Content-Transfer-Encoding": "8bit",
        SOURCE_HEADER: source,
    }
    found = all_texts(texts, source, lang)
    problems = Problems()
    for text in found:
        path, line = text.place
        po.append(
            polib.POEntry(
                msgctxt=text.context,
                msgid=text.source,
                msgstr=text.target or "",
                occurrences=[(problems.name(path), str(line) if line else "")],
                comment=text.comment,
                flags=["fuzzy"] if text.outdated and text.target else [],
            )
        )
    write_if_changed(out, str(po).encode())
    translated = [text for text in found if text.target]
    fuzzy = sum(text.outdated for text in translated)
    return ExportResult(out, source, lang, len(found), len(translated), fuzzy, tally(texts.problems.errors))


# -- import ----------------------------------------------------------------------


@dataclass
class ImportResult:
    """What reading a PO file into the bank did: the texts written, the entries left out, the files changed."""

    path: Path
    lang: str
    #: Texts written into the bank, and questions whose translation counts as current now.
    written: int = 0
    current: list[str] = field(default_factory=list)
    #: Entries left out: untranslated, fuzzy, or of questions not complete in a new language.
    skipped: list[str] = field(default_factory=list)
    files: list[Path] = field(default_factory=list)
    #: Entries of texts no longer in the bank, each at its line of the PO file.
    warnings: list[Problem] = field(default_factory=list)


def _read_po(path: Path, problems: Problems) -> polib.POFile | None:
    import polib

    raw = read(path, problems)
    text = decode(path, raw, problems) if raw is not None else None
    if text is None:
        return None
    crowded = _crowded_line(text)
    if crowded:
        hint = "an entry's text takes a few lines: export the file again, or open and save it in a PO editor (Poedit)"
        problems.add(path, f"more than {MAX_ENTRY_LINES} lines without a msgid", line=crowded, column=1, hint=hint)
        return None
    try:
        # polib takes a string without a line break for a file name: the text always has one
        return polib.pofile(text if "\n" in text else text + "\n", encoding="utf-8")
    except (OSError, ValueError) as err:
        found = _SYNTAX_LINE.search(str(err))
        hint = "open and save it in a PO editor (Poedit), or export it again"
        line = int(found[1]) if found else 0
        problems.add(path, "not a PO file that can be read", line=line, column=1 if line else 0, hint=hint)
        return None


def _crowded_line(text: str) -> int:
    """The first line of more than :data:`MAX_ENTRY_LINES` lines that no ``msgid`` starts; 0 if there are none.

    polib adds each line of an entry to the text read so far, which costs the
    square of an entry's length: bounding every entry keeps a file's cost linear.
    """
    start = count = 0
    for number, line in enumerate(text.splitlines(), start=1):
        if line.startswith(("msgid ", "#~ msgid ")):
            count = 0
        elif line.strip():
            start, count = (number, 1) if count == 0 else (start, count + 1)
            if count > MAX_ENTRY_LINES:
                return start
    return 0


def _header(po: polib.POFile, path: Path, bank: Bank, *, problems: Problems) -> tuple[str, str] | None:
    """The language translated into and from, as the export wrote them in the header."""
    lang, source = po.metadata.get("Language", ""), po.metadata.get(SOURCE_HEADER, "")
    if source not in bank.languages:
        hint = "translate a file written by 'ankibuild translations export'"
        problems.add(path, f"the header does not name a language of the bank in '{SOURCE_HEADER}'", hint=hint)
    elif lang not in bank.languages:
        hint = f"add it first: ankibuild add-language {lang}" if is_language(lang) else "set the header's Language"
        problems.add(path, f"the bank has no language '{lang}' (the header's Language)", hint=hint)
    else:
        return lang, source
    return None


def _accepted(po: polib.POFile, path: Path, texts: list[Text], *, lang: str, problems: Problems) -> dict[str, str]:
    """The confirmed translations, by context; an entry whose source text changed is an error."""
    known = {text.context: text for text in texts}
    accepted: dict[str, str] = {}
    for entry in po:
        if entry.obsolete:
            continue
        text = known.get(entry.msgctxt or "")
        if text is None:
            context = entry.msgctxt or ""
            shown = context if context.isprintable() else ascii(context)  # the file's text, not the terminal's
            message = f"'{shown}' is not in the bank any more: left out"
            problems.add(path, message, line=entry.linenum or 0, column=1, severity=Severity.WARNING)
        elif text.source != entry.msgid:
            problems.add(
                path,
                f"the source text of '{entry.msgctxt}' changed since the export",
                line=entry.linenum or 0,
                column=1,
                hint=f"export it again (ankibuild translations export --lang {lang}) and translate the new text",
            )
        elif entry.msgstr.strip() and not entry.fuzzy:
            accepted[text.context] = entry.msgstr.strip()
    return accepted


def import_po(path: Path, *, decks: Path = DECKS, wait: float = DEFAULT_WAIT) -> ImportResult:
    """Write the confirmed translations of a PO file into the bank.

    Nothing is written when an entry's source text changed since the export, or
    when the bank as it would be has an error: every problem is raised at once.
    The bank may lack what the file brings (a new language's topic names) before.
    The bank is read and written under its lock, waiting up to ``wait`` seconds for a build.
    """
    with writing(decks, wait=wait):
        return _import_po(path, decks)


def _import_po(path: Path, decks: Path) -> ImportResult:
    texts = load_texts(decks, today())
    problems = Problems()
    po = _read_po(path, problems)
    languages = _header(po, path, texts.bank, problems=problems) if po is not None else None
    if po is None or languages is None:
        raise BankError(problems.items)
    lang, source = languages
    found = all_texts(texts, source, lang)
    accepted = _accepted(po, path, found, lang=lang, problems=problems)
    problems.raise_for()
    result = ImportResult(path, lang, warnings=problems.warnings)
    plan = _Plan(texts.bank, lang, accepted, result=result)
    pending = plan.pending()
    record = _record(texts, decks, pending, lang=lang, current=result.current)
    result.files.extend(write_inside(decks, pending))
    write_record(decks, record)
    result.skipped.extend(context for context in (t.context for t in found) if context not in accepted)
    return result


class _Plan:
    """The changes an import makes, file by file, as documents with their edits."""

    def __init__(self, bank: Bank, lang: str, accepted: dict[str, str], *, result: ImportResult) -> None:
        self.bank, self.lang, self.accepted, self.result = bank, lang, accepted, result
        self.documents: dict[Path, Document] = {}

    def document(self, path: Path) -> Document:
        if path not in self.documents:
            self.documents[path] = open_document(path, self.bank.root)
        return self.documents[path]

    def pending(self) -> dict[Path, bytes]:
        self._bank_texts()
        for deck in self.bank.decks:
            self._set(deck.place.path, ("deck",), deck.titles, context=f"@deck {deck.key}")
            for question in deck.questions:
                self._question(deck, question)
        return {path: document.content() for path, document in self.documents.items()}

    def _bank_texts(self) -> None:
        path = self.bank.root / BANK_FILE
        if self.bank.titles:
            self._set(path, ("title",), self.bank.titles, context="@title")
        for slug, names in self.bank.topics.items():
            self._set(path, ("topics", slug), names, context=f"@topic {slug}")

    def _set(self, path: Path, where: tuple[str, ...], names: dict[str, str], *, context: str) -> None:
        """A title or name in the language: added, or changed where it differs."""
        new = self.accepted.get(context)
        if new is None or names.get(self.lang) == new:
            return
        document = self.document(path)
        if self.lang in names:
            document.replace((*where, self.lang), partial(mapping_lines, {self.lang: new}))
        else:
            document.append(where, partial(mapping_lines, {self.lang: new}))
        self.result.written += 1

    def _question(self, deck: Deck, question: Question) -> None:
        prefix = f"{question.id}:"
        given = {key.removeprefix(prefix): text for key, text in self.accepted.items() if key.startswith(prefix)}
        if not given:
            return
        document = self.document(deck.place.path)
        # By its id: a question with errors before it is in the file but not among the deck's questions.
        items = document.root["questions"]
        where = (
            "questions",
            next(i for i, item in enumerate(items) if isinstance(item, Map) and item.get("id") == question.id),
        )
        have = question.translations.get(self.lang)
        names = [name for name, _ in next(iter(question.translations.values())).texts()]
        if have is None:
            if len(given) < len(names):
                return  # a new translation needs every text: its entries are listed as left out
            document.append(where, partial(mapping_lines, {self.lang: _translation(given, names)}))
            self.result.written += len(given)
        else:
            self.result.written += _update(document, (*where, self.lang), have, given=given)
        if len(given) == len(names):
            self.result.current.append(question.id)


#: The keys of a translation that hold one text each, in the order a question file lists them.
_TEXT_KEYS = ("question", "answer", "explanation")


def _translation(given: dict[str, str], names: list[str]) -> dict[str, Value]:
    """A new translation with the texts its question's kind has (a cloze question has no options, a
    flashcard has an answer, an explanation may be left out), its options after the question."""
    options: dict[str, Value] = {"options": [given[name] for name in names if _OPTION.match(name)]}
    texts = {key: _text_value(key, given[key]) for key in _TEXT_KEYS if key in names}
    feedback: dict[str, Value] = {"feedback": _feedback(given, names)}
    question = {"question": texts.pop("question")}
    return {
        **question,
        **(options if options["options"] else {}),
        **texts,
        **(feedback if feedback["feedback"] else {}),
    }


def _text_value(key: str, text: str) -> Value:
    """An explanation, and any text of several lines, as a block."""
    return Block(text) if key == "explanation" or "\n" in text else text


def _feedback(texts: dict[str, str], names: Iterable[str]) -> dict[str, Value]:
    """The feedback among ``texts`` (by PO name) as a translation writes it, by option letter."""
    return {match.group(1): texts[name] for name in names if (match := _FEEDBACK.match(name)) and name in texts}


def _update(document: Document, where: tuple[str | int, ...], have: Translation, *, given: dict[str, str]) -> int:
    """Change the texts of an existing translation that differ; how many did."""
    old = dict(have.texts())
    changed = {name: text for name, text in given.items() if old.get(name) != text}
    for key in _TEXT_KEYS:
        if key in changed:
            lines = partial(mapping_lines, {key: _text_value(key, changed[key])})
            if key in old:
                document.replace((*where, key), lines)
            else:  # an optional text the translation had left out
                document.append(where, lines)
    if any(_OPTION.match(name) for name in changed):
        options = [given.get(name, text) for name, text in old.items() if _OPTION.match(name)]
        document.replace((*where, "options"), partial(mapping_lines, {"options": options}))
    if any(_FEEDBACK.match(name) for name in changed):
        feedback = _feedback({**old, **given}, sorted({*old, *given}))
        make = partial(mapping_lines, {"feedback": feedback})
        if any(_FEEDBACK.match(name) for name in old):
            document.replace((*where, "feedback"), make)
        else:
            document.append(where, make)
    return len(changed)


def _record(texts: BankTexts, decks: Path, pending: dict[Path, bytes], *, lang: str, current: list[str]) -> Record:
    """The translations record after the import, checking the bank as it would be: an error stops it all.

    A translation made from the source text as it is now is current; one the
    import changed only in part keeps whatever it was behind.
    """
    from ..load.stage import load_bank

    problems = Problems()
    bank = load_bank(decks, problems, pending)
    if bank is None or problems.errors:
        raise BankError(problems.errors)
    after = by_question(ref for deck in bank.decks for ref in text_refs(deck))
    record = {question: dict(entries) for question, entries in texts.record.items()}
    for question, entries in after.items():
        if lang in entries and entries[lang] != record.get(question, {}).get(lang, Entry("")).digest:
            old = record.setdefault(question, {}).get(lang)
            record[question][lang] = Entry(entries[lang], None if old is None else old.behind)
    for question in current:
        record[question][lang] = Entry(after[question][lang])
    return advance(record, after, today())
