"""Read QTI 1.2, as Canvas and Blackboard export a question bank (and as ``ankibuild`` exports one)::

    <questestinterop><assessment ident="…"><section ident="root_section">
      <item ident="dns-port" title="…">                 the ident: the question's id when valid and unused
        <itemmetadata>… question_type: multiple_choice_question, multiple_answers_question,
                         true_false_question; others (an essay) are refused
        <presentation>
          <material><mattext texttype="text/html">&lt;p>Which port?&lt;/p></mattext></material>
          <response_lid ident="response1"><render_choice>
            <response_label ident="dns-port-A"><material><mattext>53</mattext></material></response_label>
        <resprocessing>
          <respcondition><conditionvar><varequal>dns-port-A</varequal></conditionvar>
            <setvar action="Set">100</setvar></respcondition>      a positive score: correct
          <respcondition><conditionvar><other/></conditionvar>
            <displayfeedback linkrefid="general_fb"/></respcondition>   shown to all: the explanation
        <itemfeedback ident="general_fb"><flow_mat><material><mattext>…

A package (``.qti.zip``) is read from memory, never unpacked: at most
:data:`MAX_ENTRIES` entries and :data:`MAX_UNPACKED` bytes in all, no name
that leaves the package, the manifest first, then the assessment it names.
Every XML is parsed by defusedxml, refusing a document type and any entity.
"""

from __future__ import annotations

import io
import zipfile
from collections import deque
from dataclasses import replace
from functools import partial
from pathlib import Path, PurePosixPath
from xml.etree.ElementTree import Element

from ..errors import Problems
from .htmltext import as_markdown
from .quiz import LETTERS, MAX_QUIZ_BYTES, Item, Quiz, Refusal
from .xmlfile import LINE, parse_xml

#: A package holds a manifest, an assessment and its images: more entries than this is not one.
MAX_ENTRIES = 1000
#: What a package's entries may hold in all, unpacked: a quiz and its images, not a zip bomb.
MAX_UNPACKED = 64 * 1024 * 1024
MANIFEST = "imsmanifest.xml"
_CHOICE_TYPES = ("multiple_choice_question", "multiple_answers_question", "true_false_question")


class PackageError(Exception):
    """A package that is not read at all: the message says why, the hint what to do."""

    def __init__(self, message: str, hint: str) -> None:
        super().__init__(message)
        self.message = message
        self.hint = hint


def read_qti(path: Path, text: str, problems: Problems) -> Quiz:
    """Every question of a bare QTI assessment file; those that cannot be read exactly are refused."""
    quiz = Quiz(path, None)
    root = _parse(path, text, problems)
    if root is None:
        return quiz
    if root.tag != "questestinterop":
        problems.add(path, f"not a QTI file: its root is <{root.tag}>, not <questestinterop>", hint="export it again")
        return quiz
    assessment = root.find("assessment")
    quiz.title = (assessment.get("title") or None) if assessment is not None else None
    for element in root.iter("item"):
        line = int(element.get(LINE, "0"))
        quiz.add(line, partial(_question, element, line), problems)
    return quiz


def read_qti_package(path: Path, raw: bytes, problems: Problems) -> Quiz:
    """Every question of a QTI package (a zip): its manifest's assessment, read as :func:`read_qti` reads one."""
    try:
        read = _assessment_text(path, raw, problems)
    except PackageError as err:
        problems.add(path, err.message, hint=err.hint)
        return Quiz(path, None)
    if read is None:
        return Quiz(path, None)
    text, files = read
    quiz = read_qti(path, text, problems)
    # The images the questions show (``media/x.png``) come from the package, as Moodle's own files do.
    quiz.items = [replace(item, files=files) for item in quiz.items]
    return quiz


def _assessment_text(path: Path, raw: bytes, problems: Problems) -> tuple[str, dict[str, bytes]] | None:
    """The text of the assessment the manifest names, and the package's other files by their path in it;
    None when an XML is reported not well-formed."""
    try:
        archive = zipfile.ZipFile(io.BytesIO(raw))
    except (zipfile.BadZipFile, ValueError, OSError, EOFError):  # what zipfile raises on a damaged directory
        raise PackageError("not a zip file", "export the QTI package again, or name the format with --format") from None
    with archive:
        files = _checked_entries(archive)
        if MANIFEST not in files:
            raise PackageError(f"the package has no {MANIFEST}", "export the package again: every QTI package has one")
        manifest = _parse(path, _entry_text(archive, files[MANIFEST]), problems)
        if manifest is None:
            return None
        href = _assessment_href(manifest)
        if href is None or _safe_name(href) not in files:
            raise PackageError("the manifest names no assessment in the package", "export the package again")
        others = {name: _entry_bytes(archive, entry) for name, entry in files.items() if not name.endswith(".xml")}
        return _entry_text(archive, files[_safe_name(href)]), others


def _checked_entries(archive: zipfile.ZipFile) -> dict[str, zipfile.ZipInfo]:
    """The package's entries by name, once every one is known to stay inside it and the whole to be small."""
    entries = archive.infolist()
    if len(entries) > MAX_ENTRIES:
        raise PackageError(f"more than {MAX_ENTRIES} entries in the package", "a quiz package holds a few files")
    # Each entry is read no further than its recorded size, so the sizes bound what is ever unpacked.
    if sum(entry.file_size for entry in entries) > MAX_UNPACKED:
        limit = MAX_UNPACKED // (1024 * 1024)
        raise PackageError(f"the package unpacks to more than {limit} MiB", "a quiz package is far smaller")
    files: dict[str, zipfile.ZipInfo] = {}
    for entry in entries:
        name = _safe_name(entry.filename)
        if not name:
            raise PackageError(f"the entry '{entry.filename}' leaves the package", "export the package again")
        files[name] = entry
    return files


def _safe_name(name: str) -> str:
    """The entry's path inside the package, or "" for one that could leave it (absolute, ``..``, a drive)."""
    if "\\" in name or "\0" in name or ":" in name:
        return ""
    parts = PurePosixPath(name).parts
    if not parts or parts[0] == "/" or ".." in parts:
        return ""
    return "/".join(part for part in parts if part != ".")


def _entry_bytes(archive: zipfile.ZipFile, entry: zipfile.ZipInfo) -> bytes:
    """An entry's bytes, no more than its recorded size (which :func:`_checked_entries` bounded)."""
    try:
        with archive.open(entry) as opened:
            return opened.read(entry.file_size + 1)
    except (zipfile.BadZipFile, OSError, NotImplementedError, RuntimeError) as err:
        raise PackageError(f"cannot unpack '{entry.filename}': {err}", "export the package again") from None


def _entry_text(archive: zipfile.ZipFile, entry: zipfile.ZipInfo) -> str:
    if entry.file_size > MAX_QUIZ_BYTES:
        limit = MAX_QUIZ_BYTES // (1024 * 1024)
        raise PackageError(f"'{entry.filename}' is larger than {limit} MiB", "a quiz's XML is far smaller")
    content = _entry_bytes(archive, entry)
    try:
        return content.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise PackageError(f"'{entry.filename}' is not UTF-8", "export the package again") from None


def _assessment_href(manifest: Element) -> str | None:
    """The file of the manifest's first QTI resource (``imsqti_xmlv1p2``, or Canvas's ``imsqti_…``)."""
    for resource in manifest.iter("resource"):
        if resource.get("type", "").startswith("imsqti"):
            return resource.get("href") or next((f.get("href") for f in resource.iter("file")), None)
    return None


def _parse(path: Path, text: str, problems: Problems) -> Element | None:
    """The document's root, tags without namespaces; None with the reason reported (the file is refused)."""
    again = "export the questions again: a QTI file declares no document type or entity"
    return parse_xml(path, text, problems, question="item", again=again)


# -- one item ---------------------------------------------------------------------


def _question(element: Element, line: int) -> Item:
    kind = _metadata(element).get("question_type", "")
    labels = element.findall("presentation/response_lid/render_choice/response_label")
    if kind and kind not in _CHOICE_TYPES:
        raise Refusal(f"a question of type '{kind}'", "the bank holds multiple-choice and true/false questions")
    if not labels:  # an essay or a typed answer that names no type
        raise Refusal("a question without options", "the bank holds multiple-choice and true/false questions")
    ident = element.get("ident", "").strip()
    question = _formatted(element.find("presentation/material/mattext"))
    idents = [label.get("ident", "") for label in labels]
    right, shown_for = _processing(element)
    feedback = _feedback(element)
    explanation = feedback.get(shown_for.get("", ""), "")
    if kind == "true_false_question":
        return Item(ident, line, question, (), (), explanation, truth=_truth(labels, right), ident=ident)
    options = tuple(_formatted(label.find("material/mattext")) for label in labels)
    correct = tuple(LETTERS[i] for i, name in enumerate(idents) if name in right and i < len(LETTERS))
    notes = tuple(feedback.get(shown_for.get(name, ""), "") for name in idents)
    # render_choice shuffle="No" keeps the written order, as Moodle's "shuffle the choices" off does.
    render = element.find("presentation/response_lid/render_choice")  # found: the labels are inside it
    shuffled = render is None or render.get("shuffle", "Yes").lower() != "no"
    notes = notes if any(notes) else ()
    return Item(ident, line, question, options, correct, explanation, notes, ident=ident, shuffled=shuffled)


def _metadata(element: Element) -> dict[str, str]:
    fields = element.findall("itemmetadata/qtimetadata/qtimetadatafield")
    return {(f.findtext("fieldlabel") or "").strip(): (f.findtext("fieldentry") or "").strip() for f in fields}


def _processing(element: Element) -> tuple[set[str], dict[str, str]]:
    """The choices a positive score names (each ``varequal`` not under a ``not``), and the feedback shown
    for each choice ("" for the one shown to every student)."""
    right: set[str] = set()
    shown_for: dict[str, str] = {}
    for condition in element.findall("resprocessing/respcondition"):
        test = condition.find("conditionvar")
        if test is None:
            continue
        chosen = _chosen(test)
        if any(_score(setvar) > 0 for setvar in condition.findall("setvar")):
            right.update(chosen)
        for shown in condition.findall("displayfeedback"):
            key = "" if test.find("other") is not None else chosen[0] if len(chosen) == 1 else None
            if key is not None:
                shown_for.setdefault(key, shown.get("linkrefid", ""))
    return right, shown_for


def _chosen(test: Element) -> list[str]:
    """The choices a condition asks for, in order: its ``varequal``s, through ``and``, never under ``not``."""
    found: list[str] = []
    # A queue, not recursion: an ``and`` nested thousands deep is read in one pass, never overflowing the stack.
    pending = deque(test)
    while pending:
        node = pending.popleft()
        if node.tag == "varequal":
            found.append((node.text or "").strip())
        elif node.tag in ("and", "or"):
            pending.extendleft(reversed(node))
    return found


def _score(setvar: Element) -> float:
    try:
        return float((setvar.text or "0").strip())
    except ValueError:
        raise Refusal(f"the score '{setvar.text}' is not a number", "export it again") from None


def _feedback(element: Element) -> dict[str, str]:
    """Each ``itemfeedback``'s text, as Markdown, by its ident."""
    return {found.get("ident", ""): _formatted(found.find(".//mattext")) for found in element.findall("itemfeedback")}


def _truth(labels: list[Element], right: set[str]) -> bool:
    """A true/false question's answer: its correct choice says "true" or "false" (its ident's end or its text)."""
    chosen = [label for label in labels if label.get("ident", "") in right]
    if len(labels) != 2 or len(chosen) != 1:
        raise Refusal("a true/false question without two choices, one correct", "export it again")
    ident = chosen[0].get("ident", "").lower()
    word = (chosen[0].findtext("material/mattext") or "").strip().lower()
    for value in ("true", "false"):
        if ident.endswith(value) or word == value:
            return value == "true"
    raise Refusal("a true/false question whose correct choice says neither true nor false", "export it again")


def _formatted(mattext: Element | None) -> str:
    """A ``mattext`` as Markdown: HTML as :func:`.htmltext.as_markdown` reads it, else plain text."""
    if mattext is None:
        return ""
    text = (mattext.text or "").strip()
    form = "html" if mattext.get("texttype", "text/plain") == "text/html" else "plain"
    return as_markdown(text, form) if text else ""
