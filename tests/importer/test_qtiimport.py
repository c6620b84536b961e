"""QTI 1.2 packages and assessments imported, built and opened in Anki; hostile packages refused at the file.

The assessment below was written for these tests, in the shape Canvas exports:
numbered idents, a true/false question whose choices say True and False, an
``and`` of chosen and ``not`` chosen options for several correct, feedback per
option and for everyone, an essay the reader must refuse, and an ident that is
no question id.
"""

from __future__ import annotations

import io
import zipfile
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import CliRunner

from ankibuild.cli import main
from ankibuild.errors import Problems
from ankibuild.importer.qti import MAX_ENTRIES, MAX_UNPACKED, read_qti

from ..conftest import Project
from .test_quizimport import _bank, _cards, _feedback, _text

_HEAD = '<?xml version="1.0" encoding="UTF-8"?>\n'
ASSESSMENT = (
    _HEAD
    + """<questestinterop xmlns="http://www.imsglobal.org/xsd/ims_qtiasiv1p2">
<assessment ident="g100" title="Kitchen chemistry"><section ident="root_section">
<item ident="boiling-salt" title="Question">
<itemmetadata><qtimetadata><qtimetadatafield><fieldlabel>question_type</fieldlabel>
<fieldentry>multiple_choice_question</fieldentry></qtimetadatafield></qtimetadata></itemmetadata>
<presentation><material><mattext texttype="text/html">&lt;p&gt;Salt in the pot makes water boil&lt;/p&gt;</mattext>
</material><response_lid ident="response1" rcardinality="Single"><render_choice>
<response_label ident="4411"><material><mattext texttype="text/plain">a little hotter</mattext></material>
</response_label>
<response_label ident="4412"><material><mattext texttype="text/plain">much colder</mattext></material></response_label>
<response_label ident="4413"><material><mattext texttype="text/plain">at once</mattext></material></response_label>
</render_choice></response_lid></presentation>
<resprocessing><outcomes><decvar maxvalue="100" minvalue="0" varname="SCORE" vartype="Decimal"/></outcomes>
<respcondition continue="Yes"><conditionvar><other/></conditionvar>
<displayfeedback feedbacktype="Response" linkrefid="general_fb"/></respcondition>
<respcondition continue="Yes"><conditionvar><varequal respident="response1">4412</varequal></conditionvar>
<displayfeedback feedbacktype="Response" linkrefid="4412_fb"/></respcondition>
<respcondition continue="No"><conditionvar><varequal respident="response1">4411</varequal></conditionvar>
<setvar action="Set" varname="SCORE">100</setvar></respcondition></resprocessing>
<itemfeedback ident="general_fb"><flow_mat><material><mattext texttype="text/html">&lt;p&gt;Dissolved salt raises the
boiling point by a fraction of a degree.&lt;/p&gt;</mattext></material></flow_mat></itemfeedback>
<itemfeedback ident="4412_fb"><flow_mat><material>
<mattext texttype="text/plain">Colder is what ice and salt do.</mattext>
</material></flow_mat></itemfeedback>
</item>
<item ident="5a1f" title="Question">
<itemmetadata><qtimetadata><qtimetadatafield><fieldlabel>question_type</fieldlabel>
<fieldentry>multiple_answers_question</fieldentry></qtimetadatafield></qtimetadata></itemmetadata>
<presentation><material><mattext texttype="text/plain">Which of these are acids?</mattext></material>
<response_lid ident="response1" rcardinality="Multiple"><render_choice>
<response_label ident="71"><material><mattext texttype="text/plain">vinegar</mattext></material></response_label>
<response_label ident="72"><material><mattext texttype="text/plain">baking soda</mattext></material></response_label>
<response_label ident="73"><material><mattext texttype="text/plain">lemon juice</mattext></material></response_label>
</render_choice></response_lid></presentation>
<resprocessing><respcondition continue="No"><conditionvar><and>
<varequal respident="response1">71</varequal><not><varequal respident="response1">72</varequal></not>
<varequal respident="response1">73</varequal></and></conditionvar>
<setvar action="Set" varname="SCORE">100</setvar></respcondition></resprocessing>
</item>
<item ident="Oil &amp; water!" title="Question">
<itemmetadata><qtimetadata><qtimetadatafield><fieldlabel>question_type</fieldlabel>
<fieldentry>true_false_question</fieldentry></qtimetadatafield></qtimetadata></itemmetadata>
<presentation><material><mattext texttype="text/plain">Oil floats on water.</mattext></material>
<response_lid ident="response1" rcardinality="Single"><render_choice>
<response_label ident="901"><material><mattext texttype="text/plain">True</mattext></material></response_label>
<response_label ident="902"><material><mattext texttype="text/plain">False</mattext></material></response_label>
</render_choice></response_lid></presentation>
<resprocessing><respcondition continue="No"><conditionvar><varequal respident="response1">901</varequal>
</conditionvar><setvar action="Set" varname="SCORE">100</setvar></respcondition></resprocessing>
</item>
<item ident="why-bread-rises" title="Question">
<itemmetadata><qtimetadata><qtimetadatafield><fieldlabel>question_type</fieldlabel>
<fieldentry>essay_question</fieldentry></qtimetadatafield></qtimetadata></itemmetadata>
<presentation><material><mattext texttype="text/plain">Why does bread rise?</mattext></material>
<response_str ident="response1" rcardinality="Single"><render_fib/></response_str></presentation>
</item>
</section></assessment></questestinterop>
"""
)
#: The line of the essay's ``<item>`` in the assessment, where its refusal points.
ESSAY_LINE = ASSESSMENT.splitlines().index('<item ident="why-bread-rises" title="Question">') + 1
MANIFEST = (
    _HEAD
    + """<manifest identifier="m1" xmlns="http://www.imsglobal.org/xsd/imscp_v1p1"><resources>
<resource identifier="g100" type="imsqti_xmlv1p2" href="g100/g100.xml"><file href="g100/g100.xml"/></resource>
</resources></manifest>
"""
)


def _package(path: Path, files: dict[str, str | bytes]) -> Path:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, content in files.items():
            archive.writestr(name, content)
    path.write_bytes(buffer.getvalue())
    return path


def _import(*args: str) -> tuple[int, str, BaseException | None]:
    result = CliRunner().invoke(main, ["import", *args, "--lang", "en", "--topic", "shell", "-o", "decks/qti.yaml"])
    return result.exit_code, result.output, result.exception


@pytest.mark.parametrize("bare", [False, True], ids=["package", "assessment"])
def test_a_canvas_qti_quiz_shows_in_anki_as_written(project: Project, bare: bool) -> None:
    _bank(project)
    if bare:
        source = project.root / "kitchen.xml"
        source.write_text(ASSESSMENT, encoding="utf-8")
    else:
        source = _package(project.root / "kitchen.qti.zip", {"imsmanifest.xml": MANIFEST, "g100/g100.xml": ASSESSMENT})
    code, said, _ = _import(str(source))
    assert code == 1, said  # the essay is refused, the others come in
    assert "Imported 3 question(s) (en) into decks/qti.yaml" in said
    assert f"{source.name}:{ESSAY_LINE}:1: error: question refused: a question of type 'essay_question'" in said
    assert CliRunner().invoke(main, ["build", "-q", "--lang", "en"]).exit_code == 0
    cards = _cards(project, "en")
    front, back, fields = cards["boiling-salt"]
    assert "Salt in the pot makes water boil" in _text(front)
    assert fields["Answer"] == "A" and "Colder is what ice and salt do." in _text(_feedback(fields)["B"])
    assert "Dissolved salt raises the boiling point by a fraction of a degree." in _text(back)
    # An ident that is a valid id is kept, as Canvas's are; one that is no id gives way to the question's words.
    assert cards["5a1f"][2]["Answer"] == "A C"
    assert cards["oil-floats-on-water"][2]["Answer"] == "true"


def test_the_help_shows_qti_with_an_example() -> None:
    said = CliRunner().invoke(main, ["import", "--help"]).output
    assert "A QTI 1.2 package (.qti.zip, .zip)" in said and '<setvar action="Set">100</setvar>' in said


def _zip_bomb() -> dict[str, str | bytes]:
    # Zeros deflate a thousandfold: a small file that unpacks past the bound.
    return {"imsmanifest.xml": MANIFEST, "g100/g100.xml": ASSESSMENT, "media/zeros.png": bytes(MAX_UNPACKED)}


#: Each hostile package's entries, and the one message that refuses it at the file.
HOSTILE: dict[str, tuple[Callable[[], dict[str, str | bytes]], str]] = {
    "a zip bomb": (_zip_bomb, f"the package unpacks to more than {MAX_UNPACKED // (1024 * 1024)} MiB"),
    "an entry that climbs out": (
        lambda: {"imsmanifest.xml": MANIFEST, "g100/g100.xml": ASSESSMENT, "../../escaped.png": b"x"},
        "the entry '../../escaped.png' leaves the package",
    ),
    "an absolute entry": (
        lambda: {"imsmanifest.xml": MANIFEST, "/etc/g100.xml": ASSESSMENT},
        "the entry '/etc/g100.xml' leaves the package",
    ),
    "too many entries": (
        lambda: {f"media/{n}.png": b"" for n in range(MAX_ENTRIES + 1)},
        f"more than {MAX_ENTRIES} entries in the package",
    ),
    "no manifest": (lambda: {"g100/g100.xml": ASSESSMENT}, "the package has no imsmanifest.xml"),
    "a manifest naming nothing there": (
        lambda: {"imsmanifest.xml": MANIFEST, "other.xml": ASSESSMENT},
        "the manifest names no assessment in the package",
    ),
    "an entity declaration": (
        lambda: {
            "imsmanifest.xml": MANIFEST,
            "g100/g100.xml": '<!DOCTYPE q [<!ENTITY a "aaaaaaaa"><!ENTITY b "&a;&a;&a;&a;">]><questestinterop/>',
        },
        "the XML declares a document type or an entity, which is never read",
    ),
    "an entity in the manifest": (
        lambda: {"imsmanifest.xml": '<!DOCTYPE m [<!ENTITY s SYSTEM "file:///etc/passwd">]><manifest>&s;</manifest>'},
        "the XML declares a document type or an entity, which is never read",
    ),
}


@pytest.mark.parametrize("case", HOSTILE)
def test_a_hostile_package_is_refused_at_the_file_and_nothing_is_written(project: Project, case: str) -> None:
    _bank(project)
    make, message = HOSTILE[case]
    source = _package(project.root / "hostile.qti.zip", make())
    code, said, raised = _import(str(source))
    assert code == 1 and isinstance(raised, SystemExit), said  # a message, never a traceback
    assert f"hostile.qti.zip: error: {message}" in said
    assert not (project.decks / "qti.yaml").exists()
    assert not (project.root / "escaped.png").exists() and not list(project.root.rglob("zeros.png"))


def test_a_package_refused_whole_says_why_even_when_its_language_is_not_given(project: Project) -> None:
    _bank(project)
    source = _package(project.root / "hostile.qti.zip", {"../escaped.xml": ASSESSMENT})
    result = CliRunner().invoke(main, ["import", str(source), "-o", "decks/qti.yaml"])
    assert result.exit_code == 1 and isinstance(result.exception, SystemExit)
    assert "hostile.qti.zip: error: the entry '../escaped.xml' leaves the package" in result.output


def test_a_file_that_is_not_a_zip_is_refused_as_one(project: Project) -> None:
    _bank(project)
    source = project.root / "broken.qti.zip"
    source.write_bytes(b"PK\x03\x04 not really")
    code, said, raised = _import(str(source))
    assert code == 1 and isinstance(raised, SystemExit) and "broken.qti.zip: error: not a zip file" in said


REFUSED = {
    "no options": ("<presentation><material><mattext>Why?</mattext></material></presentation>", "without options"),
    "no correct choice": (
        "<presentation><material><mattext>Which?</mattext></material><response_lid><render_choice>"
        '<response_label ident="1"><material><mattext>a</mattext></material></response_label>'
        '<response_label ident="2"><material><mattext>b</mattext></material></response_label>'
        "</render_choice></response_lid></presentation>",
        "no option is marked correct",
    ),
    "a score that is no number": (
        "<presentation><material><mattext>Which?</mattext></material><response_lid><render_choice>"
        '<response_label ident="1"><material><mattext>a</mattext></material></response_label>'
        "</render_choice></response_lid></presentation><resprocessing><respcondition><conditionvar>"
        "<varequal>1</varequal></conditionvar><setvar>lots</setvar></respcondition></resprocessing>",
        "the score 'lots' is not a number",
    ),
}


@pytest.mark.parametrize("case", REFUSED)
def test_a_question_the_reader_cannot_read_exactly_is_refused_at_its_line(tmp_path: Path, case: str) -> None:
    body, message = REFUSED[case]
    problems = Problems()
    text = f"<questestinterop>\n<assessment>\n\n<item ident='q'>{body}</item>\n</assessment></questestinterop>"
    quiz = read_qti(tmp_path / "q.xml", text, problems)
    assert quiz.items == []
    assert [(p.line, p.message.split(":", 1)[0]) for p in problems.items] == [(4, "question refused")]
    assert message in problems.items[0].message


def test_a_moodle_file_is_not_read_as_qti_nor_qti_as_moodle(tmp_path: Path) -> None:
    from ankibuild.importer.quizbank import xml_root

    assert xml_root(_HEAD + "<!-- made by hand -->\n<quiz>") == "quiz"
    assert xml_root(ASSESSMENT) == "questestinterop"
    assert xml_root("<qti:questestinterop xmlns:qti='x'/>") == "questestinterop"
    problems = Problems()
    read_qti(tmp_path / "q.xml", "<quiz></quiz>", problems)
    assert [p.message for p in problems.items] == ["not a QTI file: its root is <quiz>, not <questestinterop>"]


ADVERSARIAL = ["<questestinterop>", "<item ident='a'>", "<response_label ident='1'>", "<varequal>", "<and>", "&lt;"]


def test_the_reader_ends_with_questions_or_reasons_on_any_text(tmp_path: Path) -> None:
    """Pieces of QTI repeated and mixed, 200 KB of them: read to the end, never a crash."""
    for shift in range(len(ADVERSARIAL)):
        text = "".join(ADVERSARIAL[(i * 7 + shift) % len(ADVERSARIAL)] * (i % 3 + 1) for i in range(20_000))
        problems = Problems()
        quiz = read_qti(tmp_path / "quiz", text, problems)
        assert all(item.line >= 1 for item in quiz.items) and all(p.message for p in problems.items)
