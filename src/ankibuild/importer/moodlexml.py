"""Read Moodle XML, the format Moodle exports a question bank in with everything it holds::

    <quiz>
      <question type="category"><category><text>$course$/top/Git</text></category></question>
      <question type="multichoice">                   also "truefalse" and "cloze" (:mod:`.embedded`)
        <shuffleanswers>false</shuffleanswers>        the options in order: shuffle: false
        <name><text>Q1</text></name>                  matches the question's translations
        <questiontext format="html"><text><![CDATA[<p>Which command lists branches?</p>]]></text>
          <file name="x.png" encoding="base64">…</file>   an image the text links as @@PLUGINFILE@@/x.png
        </questiontext>
        <generalfeedback format="html"><text>…</text></generalfeedback>    the explanation
        <answer fraction="100" format="html">         a positive fraction: a correct option
          <text>…</text><feedback format="html"><text>…</text></feedback>
        </answer>
      </question>
    </quiz>

The XML comes from outside, so it is parsed by defusedxml: a document type,
an entity declaration or an external reference is refused, so nothing expands
or is fetched, and the file is at most :data:`~.quiz.MAX_QUIZ_BYTES`. Each
question keeps its line, where a refusal points.
"""

from __future__ import annotations

import base64
import binascii
from functools import partial
from pathlib import Path
from xml.etree.ElementTree import Element

from ..errors import Problems
from ..text.media import MAX_IMAGE_BYTES
from . import multilang
from .embedded import gapped
from .gift import category_title
from .htmltext import as_markdown
from .quiz import LETTERS, Hole, Item, Quiz, Refusal, clozed, holed
from .xmlfile import LINE, parse_xml

#: Moodle's names of its text formats, as :func:`.htmltext.as_markdown` names them.
_FORMATS = {"html": "html", "moodle_auto_format": "moodle", "plain_text": "plain", "markdown": "markdown"}
#: The longest base64 text of an image the bank takes (4 characters per 3 bytes, and line breaks).
_MAX_BASE64 = MAX_IMAGE_BYTES * 3 // 2


def read_moodle_xml(path: Path, text: str, problems: Problems) -> Quiz:
    """Every question of a Moodle XML file; those that cannot be read exactly are reported and left out.
    A file in several languages (:mod:`.multilang`) is its first language's quiz, the others with it."""
    root = _parse(path, text, problems)
    if root is None:
        return Quiz(path, None)
    langs = multilang.languages(root)
    if not langs:
        return _quiz(path, root, problems)
    first, *others = (_quiz(path, multilang.in_language(root, lang), problems, lang=lang) for lang in langs)
    first.others = others
    return first


def _quiz(path: Path, root: Element, problems: Problems, *, lang: str | None = None) -> Quiz:
    quiz = Quiz(path, None, lang=lang)
    for element in root.iter("question"):
        kind = element.get("type", "")
        line = int(element.get(LINE, "0"))
        if kind == "category":
            quiz.title = quiz.title or category_title(_text_of(element.find("category")))
            continue
        quiz.add(line, partial(_question, element, kind, line), problems)
    return quiz


def _parse(path: Path, text: str, problems: Problems) -> Element | None:
    """The document's root, or None with the reason reported (the whole file is refused)."""
    again = "export the questions from Moodle again: its files declare no document type or entity"
    root = parse_xml(path, text, problems, question="question", again=again)
    if root is None:
        return None
    if root.tag != "quiz":
        problems.add(path, f"not a Moodle XML file: its root is <{root.tag}>, not <quiz>", hint="export it again")
        return None
    return root


def _question(element: Element, kind: str, line: int) -> Item:
    if kind not in ("multichoice", "truefalse", "cloze"):
        raise Refusal(f"a question of type '{kind}'", "the bank holds multiple-choice, true/false and cloze questions")
    number = _text_of(element.find("name"))
    idnumber = element.find("idnumber")
    ident = (idnumber.text or "").strip() if idnumber is not None else ""
    explanation = _formatted(element.find("generalfeedback"))
    files = _files(element)
    if kind == "cloze":
        text = _clozed(element.find("questiontext"))
        return Item(number, line, text, (), (), explanation, ident=ident, cloze=True, files=files)
    question = _formatted(element.find("questiontext"))
    answers = element.findall("answer")
    if kind == "truefalse":
        right = next((a for a in answers if _fraction(a) > 0), None)
        truth = _text_of(right).strip().lower() if right is not None else ""
        if truth not in ("true", "false"):
            raise Refusal("a true/false question without its true answer", "export it again from Moodle")
        return Item(number, line, question, (), (), explanation, truth=truth == "true", ident=ident, files=files)
    options = tuple(_formatted(answer) for answer in answers)
    feedback = tuple(_formatted(answer.find("feedback")) for answer in answers)
    correct = tuple(LETTERS[i] for i, answer in enumerate(answers) if _fraction(answer) > 0 and i < len(LETTERS))
    notes = feedback if any(feedback) else ()
    # Moodle writes "0" or "false" for options kept in order, as its versions and ankibuild's export do.
    shuffled = _text(element.find("shuffleanswers")).lower() not in ("0", "false")
    return Item(
        number, line, question, options, correct, explanation, notes, ident=ident, files=files, shuffled=shuffled
    )


def _files(question: Element) -> dict[str, bytes]:
    """The files Moodle keeps inside a question's texts (``<file name="x.png" encoding="base64">``), by the
    name ``@@PLUGINFILE@@/x.png`` links them by; the importer checks each as an image of the bank."""
    files: dict[str, bytes] = {}
    for found in question.iter("file"):
        name = found.get("name", "")
        if found.get("encoding", "base64") != "base64":
            raise Refusal(f"the file '{name}' is in the encoding '{found.get('encoding')}'", "export it again")
        if len(found.text or "") > _MAX_BASE64:
            size = MAX_IMAGE_BYTES // (1024 * 1024)
            raise Refusal(f"image '{name}' is larger than {size} MiB", "make it smaller: every classmate stores it")
        content = _decoded(name, found.text or "")
        if files.setdefault(name, content) != content:
            raise Refusal(f"two files named '{name}' that differ", "give each file its own name")
    return files


def _decoded(name: str, text: str) -> bytes:
    try:
        return base64.b64decode("".join(text.split()), validate=True)
    except binascii.Error:
        raise Refusal(f"the file '{name}' is not base64", "export it again from Moodle") from None


def _text(element: Element | None) -> str:
    """An element's own text, stripped; "" when there is none."""
    return (element.text or "").strip() if element is not None else ""


def _fraction(answer: Element) -> float:
    try:
        return float(answer.get("fraction", "0"))
    except ValueError:
        raise Refusal(f"the fraction '{answer.get('fraction')}' is not a number", "export it again") from None


def _text_of(element: Element | None) -> str:
    """The ``<text>`` of an element, as written."""
    found = element.find("text") if element is not None else None
    return found.text or "" if found is not None else ""


def _clozed(element: Element | None) -> str:
    """An embedded-answers text as Markdown with its gaps made clozes, converted whole (a gap may sit
    inside a paragraph's markup)."""
    parts = gapped(_text_of(element).strip()) if element is not None else []
    holes = [part for part in parts if isinstance(part, Hole)]
    form = _FORMATS.get(element.get("format", "html"), "html") if element is not None else "html"
    return clozed(as_markdown(holed(parts), form), holes)


def _formatted(element: Element | None) -> str:
    """The text of an element in its ``format``, as Markdown; an image Moodle keeps inside is refused."""
    if element is None:
        return ""
    text = _text_of(element).strip()
    return as_markdown(text, _FORMATS.get(element.get("format", "html"), "html")) if text else ""
