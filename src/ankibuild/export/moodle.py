"""Moodle XML: a question bank file that Moodle's question import reads ("Moodle XML format").

Every text is the card's HTML, carried as the content of ``<text>`` by an XML
library that escapes it: what a bank writes as text stays text on Moodle too.
Images travel inside the file, as Moodle exports them: base64 ``<file>``
elements in the text that shows them, referred to as ``@@PLUGINFILE@@/name``.
Formulas stay in Anki's notation, ``\\(...\\)`` and ``\\[...\\]``, which Moodle's
MathJax filter reads.

Grades are :meth:`PlatformQuestion.grade`'s.
"""

from __future__ import annotations

import base64
import xml.etree.ElementTree as ET
from collections.abc import Mapping, Sequence

from ..kinds.platform import ExportedQuestion, PlatformQuestion, Shape
from ..text.clozemarkers import Gap, gaps
from .texts import images, plain, relink, xml_document

#: Where Moodle keeps the files of a text, as its own exports write it.
PLUGINFILE = "@@PLUGINFILE@@/"
#: The share of the mark a wrong try costs in Moodle's interactive mode: its own default.
PENALTY = "0.3333333"
#: Characters that mean something in a gap of an embedded-answers question, escaped with a backslash.
_GAP_SPECIALS = '\\}#~/"'


def moodle_xml(questions: Sequence[ExportedQuestion], media: Mapping[str, bytes]) -> bytes:
    """The Moodle XML file of these questions, each after the category of its deck."""
    quiz = ET.Element("quiz")
    category: tuple[str, ...] = ()
    for exported in questions:
        if exported.category != category:
            category = exported.category
            quiz.append(_category(category))
        quiz.append(_question(exported, media))
    return xml_document(quiz)


def _category(names: Sequence[str]) -> ET.Element:
    """A category element: questions after it go into that category, made if need be."""
    question = ET.Element("question", type="category")
    # Moodle splits a category path at "/", and reads "//" as a "/" of the name.
    path = "/".join(("$course$", "top", *(name.replace("/", "//") for name in names)))
    _text(ET.SubElement(question, "category"), path)
    return question


def _question(exported: ExportedQuestion, media: Mapping[str, bytes]) -> ET.Element:
    asked = exported.question
    element = ET.Element("question", type=_TYPES[asked.shape])
    _text(ET.SubElement(element, "name"), exported.id)
    text = _cloze_text(asked.text) if asked.shape is Shape.CLOZE else asked.text
    _html(element, "questiontext", text, media=media)
    _html(element, "generalfeedback", asked.explanation, media=media)
    _value(element, "defaultgrade", "1")
    _value(element, "penalty", "1" if asked.shape is Shape.TRUEFALSE else PENALTY)
    _value(element, "hidden", "0")
    # What a new import is matched on: Moodle keeps one question per id number in a category.
    _value(element, "idnumber", exported.id)
    _BODIES[asked.shape](element, asked, media)
    tags = ET.SubElement(element, "tags")
    for tag in exported.tags:
        _text(ET.SubElement(tags, "tag"), tag)
    return element


def _choice(element: ET.Element, asked: PlatformQuestion, media: Mapping[str, bytes]) -> None:
    _value(element, "single", "false" if asked.several else "true")
    # Moodle shuffles all options or none: a pinned option keeps its place only in the written order.
    shuffled = asked.shuffle and not any(option.pinned for option in asked.options)
    _value(element, "shuffleanswers", "true" if shuffled else "false")
    _value(element, "answernumbering", "abc")
    _value(element, "showstandardinstruction", "1" if asked.several else "0")
    for name in ("correctfeedback", "partiallycorrectfeedback", "incorrectfeedback"):
        _html(element, name, "", media=media)
    for option in asked.options:
        answer = _html(element, "answer", option.text, media=media, fraction=asked.grade(option))
        _html(answer, "feedback", option.feedback, media=media)


def _truefalse(element: ET.Element, asked: PlatformQuestion, media: Mapping[str, bytes]) -> None:
    for value in (True, False):
        answer = ET.SubElement(element, "answer", fraction="100" if value is asked.truth else "0")
        answer.set("format", "moodle_auto_format")
        _text(answer, "true" if value else "false")
        _html(answer, "feedback", "", media=media)


def _essay(element: ET.Element, asked: PlatformQuestion, media: Mapping[str, bytes]) -> None:
    for name, value in (("responseformat", "editor"), ("responserequired", "1"), ("responsefieldlines", "5")):
        _value(element, name, value)
    for name in ("attachments", "attachmentsrequired"):
        _value(element, name, "0")
    # The model answer is for the teacher who grades, never shown to the student.
    _html(element, "graderinfo", asked.answer, media=media)
    _html(element, "responsetemplate", "", media=media)


def _cloze(element: ET.Element, asked: PlatformQuestion, media: Mapping[str, bytes]) -> None:
    """Nothing but the text: an embedded-answers question's gaps are written in it."""


def _cloze_text(text: str) -> str:
    """The text with each cloze made a short-answer gap, numbered 1 to n in the order they come."""
    return "".join(part if isinstance(part, str) else _gap(part) for part in gaps(text))


def _gap(gap: Gap) -> str:
    """A gap the student fills in by typing what the cloze hides, as plain text; its hint follows it,
    as a card shows it."""
    answer = "".join(f"\\{character}" if character in _GAP_SPECIALS else character for character in plain(gap.hidden))
    # What stays of the hidden text's markup is plain text again: escape it for the HTML it goes in.
    shown = f"{{1:SHORTANSWER:={_escape(answer)}}}"
    return shown + (f" [{gap.hint}]" if gap.hint is not None else "")


def _escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


_TYPES = {Shape.CHOICE: "multichoice", Shape.TRUEFALSE: "truefalse", Shape.ESSAY: "essay", Shape.CLOZE: "cloze"}
_BODIES = {Shape.CHOICE: _choice, Shape.TRUEFALSE: _truefalse, Shape.ESSAY: _essay, Shape.CLOZE: _cloze}


def _html(parent: ET.Element, name: str, text: str, *, media: Mapping[str, bytes], **attributes: str) -> ET.Element:
    """A text area: the HTML, its images linked to the files written inside it."""
    element = ET.SubElement(parent, name, attributes)
    element.set("format", "html")
    _text(element, relink(text, lambda image: PLUGINFILE + image))
    for image in images(text):
        file = ET.SubElement(element, "file", name=image, path="/", encoding="base64")
        file.text = base64.b64encode(media[image]).decode("ascii")
    return element


def _text(parent: ET.Element, text: str) -> None:
    ET.SubElement(parent, "text").text = text


def _value(parent: ET.Element, name: str, value: str) -> None:
    ET.SubElement(parent, name).text = value
