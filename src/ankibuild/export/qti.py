"""QTI 1.2: a zip of a question bank with its manifest, as Canvas imports it ("QTI .zip file"), and Blackboard.

The package holds ``imsmanifest.xml``, which lists the assessment and every
image, the assessment itself (``<id>/<id>.xml``: an IMS QTI 1.2
``questestinterop``) and the images under ``media/``, which the texts refer to
by that relative path. Every text is the card's HTML as the content of a
``<mattext texttype="text/html">``, escaped by the XML library. Each item's
``ident`` is the question's id, and each option's the id and its letter, so a
platform can match a new import with the last.

Multiple choice (one or several correct), true or false and flashcards (as an
essay) are written; a cloze is left out with a warning. With several correct
options, the score is all or nothing: exactly the correct options ticked.
"""

from __future__ import annotations

import html
import io
import xml.etree.ElementTree as ET
import zipfile
from collections.abc import Iterator, Mapping, Sequence

from ..anki.package import zip_entry
from ..kinds.platform import ExportedQuestion, Omission, PlatformQuestion, Shape
from .texts import images, relink, xml_document

#: Where the images go in the package, and how the texts refer to them.
MEDIA = "media/"
_NAMESPACE = "http://www.imsglobal.org/xsd/ims_qtiasiv1p2"
_MANIFEST_NAMESPACE = "http://www.imsglobal.org/xsd/imscp_v1p1"
#: The response every item has: the student's choice.
_RESPONSE = "response1"
_TYPES = {
    Shape.CHOICE: "multiple_choice_question",
    Shape.TRUEFALSE: "true_false_question",
    Shape.ESSAY: "essay_question",
}


def qti_package(
    ident: str,
    title: str,
    questions: Sequence[ExportedQuestion],
    *,
    media: Mapping[str, bytes],
    words: Mapping[str, str],
) -> tuple[bytes, list[Omission]]:
    """The package of these questions, and those it leaves out.

    ``ident`` names the assessment; ``words`` are the card's labels in the
    questions' language, for the two choices of a true/false question.
    """
    held = [exported for exported in questions if exported.question.shape in _TYPES]
    left_out = [
        Omission(e.id, e.lang, "the cloze question is left out: QTI's gaps are not Anki's clozes")
        for e in questions
        if e.question.shape not in _TYPES
    ]
    shown = sorted({image for exported in held for text in _texts(exported.question) for image in images(text)})
    assessment = _assessment(ident, title, held, words=words)
    files = {f"{ident}/{ident}.xml": assessment, **{MEDIA + name: media[name] for name in shown}}
    files = {"imsmanifest.xml": _manifest(ident, list(files)), **files}
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for name, content in files.items():
            archive.writestr(zip_entry(name), content)
    return buffer.getvalue(), left_out


def _texts(asked: PlatformQuestion) -> Iterator[str]:
    yield from (asked.text, asked.explanation, asked.answer)
    for option in asked.options:
        yield from (option.text, option.feedback)


def _assessment(ident: str, title: str, held: Sequence[ExportedQuestion], *, words: Mapping[str, str]) -> bytes:
    root = ET.Element("questestinterop", xmlns=_NAMESPACE)
    assessment = ET.SubElement(root, "assessment", ident=ident, title=title)
    section = ET.SubElement(assessment, "section", ident="root_section")
    for exported in held:
        section.append(_item(exported, words))
    return xml_document(root)


def _item(exported: ExportedQuestion, words: Mapping[str, str]) -> ET.Element:
    asked = exported.question
    item = ET.Element("item", ident=exported.id, title=exported.id)
    several = asked.shape is Shape.CHOICE and asked.several
    kind = "multiple_answers_question" if several else _TYPES[asked.shape]
    _metadata(ET.SubElement(item, "itemmetadata"), {"question_type": kind, "points_possible": "1.0"})
    presentation = ET.SubElement(item, "presentation")
    _material(presentation, asked.text)
    choices = _choices(exported, words)
    if choices:
        lid = ET.SubElement(
            presentation, "response_lid", ident=_RESPONSE, rcardinality="Multiple" if several else "Single"
        )
        render = ET.SubElement(lid, "render_choice", shuffle="Yes" if _shuffled(asked) else "No")
        for ident, text, _, _ in choices:
            _material(ET.SubElement(render, "response_label", ident=ident), text)
    else:
        answer = ET.SubElement(presentation, "response_str", ident=_RESPONSE, rcardinality="Single")
        ET.SubElement(ET.SubElement(answer, "render_fib"), "response_label", ident="answer1", rshuffle="No")
    _processing(item, asked, choices)
    return item


#: A choice: its ident, its text (HTML), whether it is correct, its feedback (HTML).
Choice = tuple[str, str, bool, str]


def _choices(exported: ExportedQuestion, words: Mapping[str, str]) -> list[Choice]:
    asked = exported.question
    if asked.shape is Shape.TRUEFALSE:
        return [
            # A label is text, the cards' word for the choice: HTML-escaped like every text.
            (f"{exported.id}-{value}", html.escape(words.get(value, value)), (value == "true") is asked.truth, "")
            for value in ("true", "false")
        ]
    return [
        (f"{exported.id}-{option.letter}", option.text, option.correct, option.feedback) for option in asked.options
    ]


def _shuffled(asked: PlatformQuestion) -> bool:
    # QTI 1.2 can keep an option in place while shuffling the others, but neither Canvas nor
    # Blackboard reads that: a question with a pinned option keeps its written order.
    return asked.shuffle and not any(option.pinned for option in asked.options)


def _processing(item: ET.Element, asked: PlatformQuestion, choices: Sequence[Choice]) -> None:
    processing = ET.SubElement(item, "resprocessing")
    outcomes = ET.SubElement(processing, "outcomes")
    ET.SubElement(outcomes, "decvar", maxvalue="100", minvalue="0", varname="SCORE", vartype="Decimal")
    feedback = {"general_fb": asked.general_feedback, **{f"{ident}_fb": text for ident, _, _, text in choices}}
    if asked.general_feedback:
        _show(processing, None, "general_fb")
    for ident, _, _, text in choices:
        if text:
            _show(processing, ident, f"{ident}_fb")
    if choices:
        condition = ET.SubElement(processing, "respcondition", attrib={"continue": "No"})
        _exactly(ET.SubElement(condition, "conditionvar"), choices)
        setvar = ET.SubElement(condition, "setvar", action="Set", varname="SCORE")
        setvar.text = "100"
    for ident, text in feedback.items():
        if text:
            flow = ET.SubElement(ET.SubElement(item, "itemfeedback", ident=ident), "flow_mat")
            _material(flow, text)


def _show(processing: ET.Element, choice: str | None, feedback: str) -> None:
    """Show a feedback: to everyone (``choice`` None), or to a student who chose ``choice``."""
    condition = ET.SubElement(processing, "respcondition", attrib={"continue": "Yes"})
    test = ET.SubElement(condition, "conditionvar")
    if choice is None:
        ET.SubElement(test, "other")
    else:
        ET.SubElement(test, "varequal", respident=_RESPONSE).text = choice
    ET.SubElement(condition, "displayfeedback", feedbacktype="Response", linkrefid=feedback)


def _exactly(test: ET.Element, choices: Sequence[Choice]) -> None:
    """Full marks for exactly the correct choices: each correct one chosen, and no other."""
    right = [ident for ident, _, correct, _ in choices if correct]
    if len(right) == 1:
        ET.SubElement(test, "varequal", respident=_RESPONSE).text = right[0]
        return
    every = ET.SubElement(test, "and")
    for ident, _, correct, _ in choices:
        parent = every if correct else ET.SubElement(every, "not")
        ET.SubElement(parent, "varequal", respident=_RESPONSE).text = ident


def _material(parent: ET.Element, text: str) -> None:
    mattext = ET.SubElement(ET.SubElement(parent, "material"), "mattext", texttype="text/html")
    mattext.text = relink(text, lambda image: MEDIA + image)


def _metadata(parent: ET.Element, fields: Mapping[str, str]) -> None:
    metadata = ET.SubElement(parent, "qtimetadata")
    for label, entry in fields.items():
        field = ET.SubElement(metadata, "qtimetadatafield")
        ET.SubElement(field, "fieldlabel").text = label
        ET.SubElement(field, "fieldentry").text = entry


def _manifest(ident: str, files: Sequence[str]) -> bytes:
    """The package's table of contents: the assessment, and each image as web content it depends on."""
    root = ET.Element("manifest", identifier=f"{ident}-manifest", xmlns=_MANIFEST_NAMESPACE)
    ET.SubElement(root, "organizations")
    resources = ET.SubElement(root, "resources")
    assessment, *shown = files
    resource = ET.SubElement(resources, "resource", identifier=ident, type="imsqti_xmlv1p2", href=assessment)
    ET.SubElement(resource, "file", href=assessment)
    for index in range(len(shown)):
        ET.SubElement(resource, "dependency", identifierref=f"{ident}-media-{index}")
    for index, name in enumerate(shown):
        image = ET.SubElement(resources, "resource", identifier=f"{ident}-media-{index}", type="webcontent", href=name)
        ET.SubElement(image, "file", href=name)
    return xml_document(root)
