"""Whole quiz files imported, built and opened in Anki: every card as the source wrote it, code indentation included.

The quizzes in ``tests/data/quizzes/`` were written for these tests, never
copied: an English Markdown quiz with code in questions and options, an image
linked with ``?raw=true``, several correct options, options that carry their
own letter, a true/false question, and two questions the reader must refuse;
its German translation, with one question whose answer does not match; a GIFT
file in the layout Moodle exports, with its German translation; a Moodle XML
file; an Aiken file; and spreadsheets as CSV and as TSV with Kahoot's header.
"""

from __future__ import annotations

import base64
import html
import re
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from ankibuild.cli import main
from ankibuild.errors import BankError, Problems
from ankibuild.importer.gift import category_title, read_gift_quiz
from ankibuild.importer.htmltext import as_markdown
from ankibuild.importer.moodlexml import read_moodle_xml
from ankibuild.importer.quizbank import format_of, import_quizzes
from ankibuild.importer.tasklist import read_tasklist_quiz
from ankibuild.kinds.choice import FIELDS, explanation_and_feedback

from ..ankitools import collection, import_package, render
from ..conftest import DATA, Project

QUIZZES = DATA / "quizzes"
ENGLISH, GERMAN = QUIZZES / "git.md", QUIZZES / "git.de.md"
GIFT, GIFT_GERMAN = QUIZZES / "shell.gift", QUIZZES / "shell.de.gift"
MOODLE_XML = QUIZZES / "network.xml"
PORTS = """ports = {"http": 80, "https": 443}
for name, port in sorted(ports.items()):
    if port > 100:
        print(name)"""
SCRIPT = """for n in 1 2 3; do
    if [ $n -gt 1 ]; then
        echo "$n"
    fi
done"""
BANK = "id: git-quiz\nlanguages: [en, de]\ntopics:\n  shell: {en: Shell, de: Shell}\n"
TOTAL = """def total(n):
    result = 0
    for i in range(n):
        if i % 2 == 0:
            result += i
    return result"""
_TAG = re.compile(r"<[^>]*>")


def _bank(project: Project) -> None:
    shutil.rmtree(project.decks)
    project.decks.mkdir()
    (project.decks / "bank.yaml").write_text(BANK, encoding="utf-8")


def _text(card_html: str) -> str:
    """What a card shows as text: tags removed, entities decoded, white space as it is."""
    return html.unescape(_TAG.sub("", card_html))


def _cards(project: Project, lang: str, bank: str = "git-quiz") -> dict[str, tuple[str, str, dict[str, str]]]:
    """Front, back and fields of every card of the built ``lang`` package, by question id, as Anki renders them."""
    cards = {}
    with collection(project.root / f"{lang}.anki2") as col:
        import_package(col, project.out / f"{bank}-{lang}.apkg")
        for note_id in col.find_notes(""):
            note = col.get_note(note_id)
            front, back = render(col, note.card_ids()[0])
            cards[note["ID"]] = (front, back, dict(note.items()))
    return cards


def _feedback(fields: dict[str, str]) -> dict[str, str]:
    """Each option's feedback by its letter, from the end of the Explanation field where the note keeps it."""
    return explanation_and_feedback([fields[name] for name in FIELDS])[1]


def test_a_markdown_quiz_in_two_languages_shows_in_anki_as_written(project: Project) -> None:
    _bank(project)
    result = CliRunner().invoke(main, ["import", str(ENGLISH), str(GERMAN), "-o", "decks/git.yaml"])
    assert result.exit_code == 1, result.output  # some questions were refused; the others are in
    assert "Imported 6 question(s) (en, de) into decks/git.yaml, topic 'working-with-git'" in result.stdout
    assert CliRunner().invoke(main, ["build", "-q"]).exit_code == 0
    english, german = _cards(project, "en"), _cards(project, "de")
    assert len(english) == 6 and len(german) == 3

    front, back, fields = english["look-at-this-function-what-does-total-4"]
    assert "Look at this function. What does total(4) return?" in _text(front)
    assert TOTAL in _text(front)  # every line keeps its indentation
    assert [fields[letter] for letter in "ABCD"] == ["6", "2", "4", "10"] and fields["Answer"] == "B"
    assert "range(4) gives 0, 1, 2 and 3; only 0 and 2 are even." in _text(back)
    assert 'href="https://docs.python.org/3/library/stdtypes.html#range"' in back
    assert TOTAL in _text(german["look-at-this-function-what-does-total-4"][0])

    front, back, fields = english["which-loop-prints-the-numbers-1-to-3"]
    assert "A loop that starts at ze\u00adro:" in _text(fields["A"])  # &shy; as CommonMark reads it
    assert "for i in range(1, 4):\n    print(i)" in _text(fields["B"])
    assert "for i in range(3):\n    print(i)" in _text(front)

    front, back, fields = english["which-commands-delete-the-branch-topic"]
    assert fields["Answer"] == "A B"
    assert (_text(fields["A"]), _text(fields["B"])) == ("git branch -d topic", "git branch -D topic")

    front, _, fields = english["what-does-this-diagram-show-two"]
    assert '<img src="branches-93048625f48d.png" alt="Two branches">' in front
    assert [fields[letter] for letter in "ABC"] == [
        "Two branches that share a commit",
        "A merge conflict",
        "A detached HEAD",
    ]
    assert (project.decks / "media" / "branches.png").read_bytes() == (QUIZZES / "images" / "branches.png").read_bytes()

    _, back, fields = english["which-command-lists-the-local-branches"]
    assert fields["Explanation"] == "" and "ab-explanation" not in back
    assert _text(fields["B"]) == "git branch"
    assert [german["git-pull-fetches-and-then-merges-nothing"][2][letter] for letter in "AB"] == ["Wahr", "Falsch"]
    front = english["git-pull-fetches-and-then-merges-nothing"][0]
    assert "git pull</code> fetches<br>and then merges &amp; nothing else." in front  # <br> breaks the line


def test_refused_questions_are_named_at_their_line_with_the_reason(project: Project) -> None:
    _bank(project)
    result = import_quizzes([ENGLISH, GERMAN], out=project.decks / "git.yaml", decks=project.decks)
    said = sorted((Path(p.file).name, p.line, p.message) for p in result.refused)
    assert said == [
        ("git.de.md", 28, "'de' translation refused: answer A, but the first file's question has A B"),
        ("git.md", 64, "question refused: no option is marked correct"),
        ("git.md", 69, "question refused: the image 'https://example.org/rebase.png' is on the web"),
    ]


def test_a_dry_run_shows_the_file_and_writes_nothing(project: Project) -> None:
    _bank(project)
    before = sorted(project.root.rglob("*"))
    result = CliRunner().invoke(main, ["import", str(ENGLISH), "--lang", "en", "-o", "decks/git.yaml", "--dry-run"])
    assert "--- decks/git.yaml\n" in result.stdout and "            result += i\n" in result.stdout
    assert "Would import 6 question(s) (en) into decks/git.yaml" in result.stdout
    assert sorted(project.root.rglob("*")) == before


@pytest.mark.parametrize(
    ("written", "line", "message"),
    [
        ("#### Q1. Two?\n\n- [x] same\n- [ ] same\n", 3, "option B repeats option A"),
        ("#### Q1. One?\n\n- [x] only\n", 3, "1 option(s); a question has 2 to 6"),
        ("#### Q1. Here?\n\n- [x] a\n- [ ] b\n\nText.\n\n- [ ] c\n", 10, "a second list of options after its text"),
        ("#### Q1. Empty?\n\n- [x] a\n- [ ]\n", 3, "option B is empty"),
    ],
)
def test_what_cannot_be_read_exactly_is_refused(tmp_path: Path, written: str, line: int, message: str) -> None:
    """Refused at the question's line (or the line at fault), with the reason; the next question is kept."""
    problems = Problems()
    text = f"## T\n\n{written}\n#### Q2. Kept?\n\n- [x] yes\n- [ ] no\n"
    quiz = read_tasklist_quiz(tmp_path / "quiz.md", text, problems)
    assert [(p.line, p.message) for p in problems.items] == [(line, f"question refused: {message}")]
    assert [item.question for item in quiz.items] == ["Kept?"]


def test_an_image_outside_the_quiz_folder_is_refused(project: Project, tmp_path: Path) -> None:
    """A link that climbs out of the quiz's folder reads nothing there: the question is refused."""
    _bank(project)
    (tmp_path / "secret.png").write_bytes((QUIZZES / "images" / "branches.png").read_bytes())
    (tmp_path / "quiz").mkdir()
    quiz = tmp_path / "quiz" / "q.md"
    quiz.write_text("## T\n\n#### Q1. Where?\n\n![x](../secret.png)\n\n- [x] a\n- [ ] b\n", encoding="utf-8")
    with pytest.raises(BankError) as raised:
        import_quizzes([quiz], out=project.decks / "q.yaml", decks=project.decks, languages=["en"])
    assert [(p.line, p.message) for p in raised.value.problems] == [
        (0, "no question of the quiz could be imported"),
        (3, "question refused: image '../secret.png' is outside the bank folder"),
    ]
    assert not (project.decks / "media").exists() and not (project.decks / "q.yaml").exists()


def test_code_is_no_heading_and_no_option(tmp_path: Path) -> None:
    """Inside a code block, '# comment' is no heading and '- [x]' no option."""
    text = "## T\n\n#### Q1. Which?\n\n```bash\n# list them\n- [x] not an option\n```\n\n- [x] a\n- [ ] b\n"
    quiz = read_tasklist_quiz(tmp_path / "q.md", text, Problems())
    (item,) = quiz.items
    assert item.question == "Which?\n\n```bash\n# list them\n- [x] not an option\n```"
    assert item.options == ("a", "b") and item.answer == ("A",)


def test_a_gift_quiz_in_two_languages_shows_in_anki_as_written(project: Project) -> None:
    """Moodle's HTML becomes Markdown: code keeps its indentation, feedback goes beside its option."""
    _bank(project)
    files = [str(GIFT), str(GIFT_GERMAN), "--lang", "en", "--lang", "de"]
    result = CliRunner().invoke(main, ["import", *files, "-o", "decks/shell.yaml"])
    assert "Imported 5 question(s) (en, de) into decks/shell.yaml, topic 'shell-basics'" in result.stdout
    refused = [line for line in result.stderr.splitlines() if "refused" in line]
    assert [line.split("/")[-1] for line in refused] == [
        "shell.de.gift:17:1: error: 'de' translation refused: true or false differs from the first file's question",
        "shell.gift:30:1: error: question refused: no wrong option: a short-answer question",
        "shell.gift:35:1: error: question refused: the image 'prompt.png' is not among the question's files",
    ]
    assert CliRunner().invoke(main, ["build", "-q"]).exit_code == 0
    english, german = _cards(project, "en"), _cards(project, "de")
    assert len(english) == 5 and len(german) == 2

    front, back, fields = english["which-command-prints-the-working"]
    assert "Which command prints the working directory?" in _text(front)
    assert [_text(fields[letter]) for letter in "ABC"] == ["ls", "pwd", "cd"]
    assert "It lists the files." in _text(_feedback(fields)["A"])
    assert "Every shell has pwd built in." in _text(back)
    assert "Jede Shell hat pwd eingebaut." in _text(german["which-command-prints-the-working"][1])

    front, _, fields = english["what-does-this-script-print-for-n-in-1-2"]
    assert SCRIPT in _text(front)
    assert fields["Answer"] == "A" and _text(fields["A"]) == "2 and 3, one per line"

    assert english["which-of-these-are-shells"][2]["Answer"] == "A B"
    front, back, fields = english["the-command-rm-r-asks-before-each-file"]
    assert fields["Answer"] == "false" and "Only rm -ri asks." in _text(back)
    _, _, fields = english["which-sign-starts-a-comment-in-a-shell"]
    assert "It is also an escape in GIFT: #." in _text(fields["Question"])
    assert [_text(fields[letter]) for letter in "ABC"] == ["#", "//", "--"]


def test_the_help_lists_every_format_with_an_example() -> None:
    said = CliRunner().invoke(main, ["import", "--help"]).output
    assert "A Markdown quiz (.md)" in said and "- [x] `git branch`" in said
    assert "A GIFT file (.gift" in said and "::Q1::Which command prints the directory?{" in said
    assert "An Aiken file (.aiken" in said and "question,A,B,C,answer,explanation" in said
    assert "A Moodle XML export (.xml)" in said and '<answer fraction="50"><text>DNS</text></answer>' in said


def test_a_moodle_xml_quiz_shows_in_anki_as_written(project: Project) -> None:
    """Moodle's XML export: code with its indentation, weighted options, true/false, feedback, explanations."""
    _bank(project)
    result = CliRunner().invoke(main, ["import", str(MOODLE_XML), "--lang", "en", "-o", "decks/net.yaml"])
    assert "Imported 4 question(s) (en) into decks/net.yaml, topic 'networks'" in result.stdout
    refused = [line.split("/")[-1] for line in result.stderr.splitlines() if "refused" in line]
    assert refused == [
        "network.xml:99:1: error: question refused: a question of type 'shortanswer'",
    ]
    # The image Moodle keeps inside the question is unpacked beside the new file.
    assert (project.decks / "media" / "topology.png").read_bytes() == b"\x89PNG\r\n\x1a\n"
    assert CliRunner().invoke(main, ["build", "-q", "--lang", "en"]).exit_code == 0
    cards = _cards(project, "en", bank="git-quiz")
    front, back, fields = cards["what-does-this-python-snippet-print"]
    assert PORTS in _text(front)
    assert fields["Answer"] == "B" and "Port 80 is not above 100." in _text(_feedback(fields)["A"])
    assert "Only https has a port above 100." in _text(back)
    assert cards["which-protocols-run-over-udp"][2]["Answer"] == "A C"
    assert "<strong>UDP</strong>" in cards["which-protocols-run-over-udp"][0]
    front, back, fields = cards["a-tcp-segment-20-bytes-long-has-no-room"]
    assert fields["Answer"] == "true"
    assert "A TCP segment < 20 bytes long has no room for its header." in _text(front)


@pytest.mark.parametrize(
    "declared",
    [
        '<!DOCTYPE quiz [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;">]>',
        '<!DOCTYPE quiz [<!ENTITY secret SYSTEM "file:///etc/passwd">]>',
        '<!DOCTYPE quiz SYSTEM "https://example.org/quiz.dtd">',
    ],
)
def test_xml_that_declares_entities_or_a_document_type_is_never_expanded(tmp_path: Path, declared: str) -> None:
    """An entity bomb, a file or web reference: refused before anything is expanded or fetched."""
    problems = Problems()
    text = f'<?xml version="1.0"?>\n{declared}\n<quiz><question type="truefalse"></question></quiz>'
    quiz = read_moodle_xml(tmp_path / "q.xml", text, problems)
    assert quiz.items == []
    assert [p.message for p in problems.items] == ["the XML declares a document type or an entity, which is never read"]


def test_xml_that_is_not_well_formed_is_refused_at_its_line(tmp_path: Path) -> None:
    problems = Problems()
    read_moodle_xml(tmp_path / "q.xml", "<quiz>\n<question type='truefalse'>\n</quiz>", problems)
    assert [(p.line, p.message.split(":")[0]) for p in problems.items] == [(3, "not well-formed XML")]


def test_aiken_files_and_spreadsheets_show_in_anki_as_written(project: Project) -> None:
    """Plain text shows exactly as typed, a cell with a code block is Markdown; numbers name options in Kahoot's
    sheet."""
    _bank(project)
    for name in ("ports.aiken", "ports.tsv", "ports.csv"):
        args = [str(QUIZZES / name), "--lang", "en", "--topic", "shell", "-o", f"decks/{name.replace('.', '-')}.yaml"]
        CliRunner().invoke(main, ["import", *args])
    assert CliRunner().invoke(main, ["build", "-q", "--lang", "en"]).exit_code == 0
    cards = _cards(project, "en")
    assert len(cards) == 7
    _, _, fields = cards["which-tool-resolves-a-host-name"]
    assert (fields["A"], fields["B"], fields["Answer"]) == ("dig", "ping", "A")
    front, _, fields = cards["what-a-b-c-means-in-code-stays-as-typed"]
    assert "What a_b * c means in <code> stays as typed?" in _text(front)
    assert cards["which-ports-are-for-mail"][2]["Answer"] == "A C"
    assert [cards["which-ports-are-for-mail"][2][letter] for letter in "ABC"] == ["25", "22", "587"]
    front, back, fields = cards["what-does-this-print-python-for-port"]
    assert "for port in (80, 443):\n    if port > 100:\n        print(port)" in _text(front)
    assert fields["Answer"] == "B" and "Only 443 is above 100." in _text(back)


def test_aiken_and_sheets_refuse_at_the_line(tmp_path: Path, project: Project) -> None:
    _bank(project)
    refused = []
    for name in ("ports.aiken", "ports.tsv"):
        out = project.decks / f"{name.replace('.', '-')}.yaml"
        result = import_quizzes([QUIZZES / name], out=out, decks=project.decks, languages=["en"], topic="shell")
        refused += [(Path(p.file).name, p.line, p.message) for p in result.refused]
    assert refused == [
        ("ports.aiken", 16, "question refused: the ANSWER 'E' names no option"),
        ("ports.tsv", 4, "question refused: an empty option cell between two options"),
    ]


@pytest.mark.parametrize(
    ("name", "text"),
    [
        ("blank.csv", 'question,A,B,answer\n" ",a,b,A\nWhich port does SSH use?,22,80,A\n'),
        ("blank.gift", "::blank::{=a ~c}\n\n::ssh:: Which port does SSH use? {=22 ~80}\n"),
        ("blank.gift", "::blank::[html]{TRUE}\n\n::ssh:: Which port does SSH use? {=22 ~80}\n"),
    ],
)
def test_a_question_without_text_is_refused_at_its_line_and_the_others_come_in(
    tmp_path: Path, project: Project, name: str, text: str
) -> None:
    """Of any kind, true/false too: the bank refuses an empty question, which would stop the whole import."""
    _bank(project)
    (tmp_path / name).write_text(text, encoding="utf-8")
    out = project.decks / "ssh.yaml"
    result = import_quizzes([tmp_path / name], out=out, decks=project.decks, languages=["en"], topic="shell")
    assert [(p.line, p.message) for p in result.refused] == [
        (1 if name.endswith("gift") else 2, "question refused: the question has no text")
    ]
    assert result.questions == 1 and (project.decks / "ssh.yaml").exists()


ADVERSARIAL = {
    "markdown": ["#### Q1. ", "- [x] ", "```", "![", "](", "  - [ ] ", "\n", "~~~", "# "],
    "gift": ["::", "{", "\\", "~%", "%", "#", "####", "=", "<p>", "<", "<pre>", "\n\n", "->"],
    "moodle-xml": ["<quiz>", "<question type='multichoice'>", "<answer fraction='x'>", "<text>", "&lt;", "]]>"],
    "aiken": ["A. ", "ANSWER: ", "\n", "B) ", "ANSWER:"],
    "csv": ['"', ",", "\n", "question,A,answer\n", '""', "\t"],
}


@pytest.mark.parametrize("form", sorted(ADVERSARIAL))
def test_every_reader_ends_with_questions_or_reasons_on_any_text(form: str, tmp_path: Path) -> None:
    """Pieces of each format's syntax repeated and mixed, 200 KB of them: read to the end, never a crash."""
    from ankibuild.importer.quizbank import READERS

    pieces = ADVERSARIAL[form]
    for shift in range(len(pieces)):
        text = "".join(pieces[(i * 7 + shift) % len(pieces)] * (i % 3 + 1) for i in range(20_000))
        problems = Problems()
        quiz = READERS[form](tmp_path / "quiz", text, problems)
        assert all(item.line >= 1 for item in quiz.items)
        assert all(p.message for p in problems.items)


def test_a_translation_that_is_the_first_files_text_or_has_other_options_is_refused(project: Project) -> None:
    """Matched by number: an untranslated question, another number of options, a number the first file lacks."""
    _bank(project)
    first = project.root / "q.md"
    first.write_text("## T\n\n#### Q1. Which?\n\n- [x] a\n- [ ] b\n\n#### Q2. Where?\n\n- [x] c\n- [ ] d\n")
    other = project.root / "q.de.md"
    other.write_text(
        "## T\n\n#### Q1. Which?\n\n- [x] a\n- [ ] b\n\n#### Q2. Wo?\n\n- [x] c\n- [ ] d\n- [ ] e\n"
        "\n#### Q3. Was?\n\n- [x] f\n- [ ] g\n"
    )
    result = import_quizzes(
        [first, other], out=project.decks / "q.yaml", decks=project.decks, languages=["en", "de"], topic="shell"
    )
    assert [(p.line, p.message) for p in result.refused] == [
        (3, "'de' translation refused: its question is the first file's text, untranslated"),
        (8, "'de' translation refused: 3 options, but the first file's question has 2"),
        (14, "'de' translation refused: the first file has no question of this number"),
    ]
    assert result.questions == 2


def test_gift_answers_in_their_own_format_and_an_essay(tmp_path: Path) -> None:
    """Each answer, feedback and general feedback may name its format, as Moodle and ankibuild write them;
    an essay's empty braces are refused as an essay, never a crash."""
    problems = Problems()
    text = (
        "::q1::[html]<p>Which?</p> {\n\t=[html]<b>a</b>#[html]<i>so</i>\n\t~[html]b\n####[html]<p>Why.</p>\n}\n\n"
        "::q2::[html]Tell. {}\n"
    )
    quiz = read_gift_quiz(tmp_path / "q.gift", text, problems)
    (item,) = quiz.items
    assert (item.options, item.feedback, item.explanation) == (("**a**", "b"), ("*so*", ""), "Why.")
    assert [(p.line, p.message) for p in problems.items] == [(7, "question refused: no options: an essay question")]


def test_a_slash_in_a_category_name_is_doubled() -> None:
    """Moodle writes a "/" of a category's name as "//": the last name is whole."""
    assert category_title("$course$/top/Exports/Storage // memory") == "Storage / memory"
    assert category_title("$course$/top/Git/") == "Git"


def test_brackets_from_html_show_as_written_and_never_open_a_formula() -> None:
    """The bank's "\\[" opens a display formula: a "[" of the text stays bare, a "]" escaped breaks a link."""
    assert as_markdown("[sound:a.mp3] and [x](y)", "html") == "[sound:a.mp3\\] and [x\\](y)"


def test_moodle_ids_and_ankibuild_gift_files_are_known(tmp_path: Path) -> None:
    """Moodle's ID number is kept as the question's id; ankibuild's GIFT export, .gift.txt, is GIFT."""
    text = (
        '<quiz><question type="truefalse"><name><text>n</text></name><idnumber>ssd-wear</idnumber>'
        '<questiontext format="html"><text>Wears?</text></questiontext>'
        '<answer fraction="100"><text>true</text></answer><answer fraction="0"><text>false</text></answer>'
        "</question></quiz>"
    )
    (item,) = read_moodle_xml(tmp_path / "q.xml", text, Problems()).items
    assert item.ident == "ssd-wear"
    assert format_of(Path("bank-en.gift.txt")) == "gift" and format_of(Path("de.txt")) is None


def _cloze_xml(*texts: str) -> str:
    """A Moodle XML file of embedded-answers questions, one per line from line 2."""
    questions = "".join(
        f'<question type="cloze"><name><text>c{n}</text></name>'
        f'<questiontext format="html"><text><![CDATA[<p>{text}</p>]]></text></questiontext></question>\n'
        for n, text in enumerate(texts, 1)
    )
    return f"<quiz>\n{questions}</quiz>"


def test_moodle_gaps_with_one_right_answer_become_clozes_and_the_others_are_refused(tmp_path: Path) -> None:
    """A gap is a cloze when it hides one answer; a "[hint]" after it is its hint; the rest is refused
    at its line, and the questions around it are kept."""
    text = _cloze_xml(
        "A byte holds {1:SHORTANSWER:=8} bits and {2:MC:%0%255#No~=256~*} [how many values?] values.",
        "Pi is {1:NUMERICAL:=3.14:0.01}.",
        "A {1:SA:=cat~=kitten} sat.",
        "A {1:SA:%50%cat} sat.",
        "In C, {1:SA:=a \\# b \\} c} is not a comment.",
        "A {1:SA:=cat#Right} sat.",
        "Drag {1:DRAGDROP:=x}.",
        "Pi is {:NM:=3.14} and {1:SA:=open",
    )
    problems = Problems()
    items = read_moodle_xml(tmp_path / "c.xml", text, problems).items
    assert [(item.question, item.cloze) for item in items] == [
        ("A byte holds {{c1::8}} bits and {{c2::256::how many values?}} values.", True),
        ("In C, {{c1::a # b } c}} is not a comment.", True),
    ]
    assert [(p.line, p.message) for p in problems.items] == [
        (3, "question refused: a numerical gap with a tolerance"),
        (4, "question refused: a gap with several accepted answers"),
        (5, "question refused: a gap's answer worth 50 %"),
        (7, "question refused: feedback on a gap's right answer"),
        (8, "question refused: a gap of type 'DRAGDROP'"),
        (9, "question refused: a gap's '{' is never closed"),
    ]


def test_a_gift_missing_word_becomes_a_cloze_of_its_right_answer(tmp_path: Path) -> None:
    """The wrong answers are what the student picks from; the right one is what the cloze hides."""
    text = (
        "::w1:: The {=cat ~dog} sat.\n\n::w2:: A byte holds {=8} [how many?] bits.\n\n"
        "::w3:: The {=cat =kitten} sat.\n\n::w4:: The {~cat ~dog} sat.\n\n::w5:: A {=b} and {=c}.\n"
    )
    problems = Problems()
    items = read_gift_quiz(tmp_path / "w.gift", text, problems).items
    assert [(item.number, item.question, item.cloze) for item in items] == [
        ("w1", "The {{c1::cat}} sat.", True),
        ("w2", "A byte holds {{c1::8::how many?}} bits.", True),
    ]
    assert [(p.line, p.message) for p in problems.items] == [
        (5, "question refused: a missing word with several accepted answers"),
        (7, "question refused: a missing word with no right answer"),
        (9, "question refused: a second set of answers in the sentence"),
    ]


def test_a_moodle_cloze_imports_into_the_bank_and_shows_in_anki_a_card_per_gap(project: Project) -> None:
    """The imported cloze is the bank's cloze kind: Anki makes a card per gap, each hiding its answer."""
    _bank(project)
    quiz = project.root / "gaps.xml"
    quiz.write_text(_cloze_xml("A byte holds {1:SA:=8} bits and {1:SA:=256} [how many?] values."), encoding="utf-8")
    result = CliRunner().invoke(
        main, ["import", str(quiz), "--lang", "en", "--topic", "shell", "-o", "decks/gaps.yaml"]
    )
    assert "Imported 1 question(s) (en) into decks/gaps.yaml" in result.stdout, result.output
    assert CliRunner().invoke(main, ["build", "-q", "--lang", "en"]).exit_code == 0
    with collection(project.root / "en.anki2") as col:
        import_package(col, project.out / "git-quiz-en.apkg")
        (note_id,) = col.find_notes("")
        fronts = [_text(render(col, card)[0]) for card in col.get_note(note_id).card_ids()]
    assert len(fronts) == 2
    assert "A byte holds [...] bits and 256 values." in fronts[0]
    assert "A byte holds 8 bits and [how many?] values." in fronts[1]


#: The smallest PNG: its signature is what the bank checks an image's type by.
_PNG = b"\x89PNG\r\n\x1a\n" + b"\0" * 16


def _image_xml(*questions: tuple[str, str, bytes]) -> str:
    """A Moodle XML file of questions that each show a file Moodle keeps inside (link, file name, content),
    one per line from line 2."""
    rows = "".join(
        f'<question type="truefalse"><name><text>q{n}</text></name><questiontext format="html">'
        f'<text><![CDATA[<p>Is it drawn? <img src="@@PLUGINFILE@@/{link}" alt="a drawing"></p>]]></text>'
        f'<file name="{name}" path="/" encoding="base64">{base64.b64encode(content).decode()}</file>'
        '</questiontext><answer fraction="100"><text>true</text></answer>'
        '<answer fraction="0"><text>false</text></answer></question>\n'
        for n, (link, name, content) in enumerate(questions, 1)
    )
    return f"<quiz>\n{rows}</quiz>"


def test_images_moodle_keeps_inside_go_into_media_under_a_safe_name(project: Project) -> None:
    """The file is unpacked beside the new question file, under a name of safe characters, checked as
    every image of the bank is; an odd one is refused at its question's line, and the others imported."""
    _bank(project)
    quiz = project.root / "pictures.xml"
    quiz.write_text(
        _image_xml(
            ("..%2F..%2Fup%20here.png", "../../up here.png", _PNG),
            ("gone.png", "other.png", _PNG),
            ("fake.png", "fake.png", b"GIF89a"),
            ("tool.exe", "tool.exe", b"MZ"),
            ("s.svg", "s.svg", b'<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>'),
        ),
        encoding="utf-8",
    )
    result = CliRunner().invoke(
        main, ["import", str(quiz), "--lang", "en", "--topic", "shell", "-o", "decks/pics.yaml"]
    )
    refused = [line.split("pictures.xml:")[-1] for line in result.stderr.splitlines() if "refused" in line]
    assert [line.split(" error: question refused: ")[0] for line in refused] == ["3:1:", "4:1:", "5:1:", "6:1:"]
    assert "the image 'gone.png' is not among the question's files" in refused[0]
    assert "'fake.png' is not a PNG file" in refused[1] and "unsupported type" in refused[2]
    assert "Imported 1 question(s)" in result.stdout, result.output
    assert sorted(path.name for path in (project.decks / "media").iterdir()) == ["up-here.png"]
    assert (project.decks / "media" / "up-here.png").read_bytes() == _PNG
    assert not list(project.root.glob("up*")) and not list(project.decks.glob("up*"))
    assert CliRunner().invoke(main, ["build", "-q", "--lang", "en"]).exit_code == 0
    (front, _, _) = next(iter(_cards(project, "en").values()))
    assert '<img src="up-here-' in front and 'alt="a drawing"' in front


def test_a_moodle_file_too_large_or_not_base64_is_refused_at_its_line(tmp_path: Path) -> None:
    """The size is told from the base64 text before anything is decoded."""
    huge = _image_xml(("big.png", "big.png", b""))
    huge = huge.replace('encoding="base64"></file>', 'encoding="base64">' + "A" * (8 * 1024 * 1024) + "</file>")
    broken = _image_xml(("b.png", "b.png", b"")).replace('encoding="base64"></file>', 'encoding="base64">*!*</file>')
    for text, message in ((huge, "image 'big.png' is larger than 5 MiB"), (broken, "the file 'b.png' is not base64")):
        problems = Problems()
        assert read_moodle_xml(tmp_path / "q.xml", text, problems).items == []
        assert [(p.line, p.message) for p in problems.items] == [(2, f"question refused: {message}")]


def test_a_moodle_file_in_several_languages_is_read_as_each_of_them(tmp_path: Path) -> None:
    """Each text's run of multilang spans gives each language its own, spans within a span kept; a text
    that is no such run (the name) is the same in every language, and a language a run lacks is empty."""
    spans = (
        '<span lang="en" class="multilang"><b>Is <span class="x">it</span> true?</b></span>'
        ' <span lang="pt_br" class="multilang">É verdade?</span>'
    )
    text = (
        '<quiz>\n<question type="truefalse"><name><text>q1</text></name>'
        f'<questiontext format="html"><text><![CDATA[{spans}]]></text></questiontext>'
        '<generalfeedback format="html"><text><![CDATA[<span lang="en" class="multilang">So.</span>]]></text>'
        '</generalfeedback><answer fraction="100"><text>true</text></answer>'
        '<answer fraction="0"><text>false</text></answer></question>\n</quiz>'
    )
    quiz = read_moodle_xml(tmp_path / "q.xml", text, Problems())
    read = [
        (each.lang, [(item.number, item.question, item.explanation) for item in each.items])
        for each in [quiz, *quiz.others]
    ]
    assert read == [("en", [("q1", "**Is it true?**", "So.")]), ("pt_br", [("q1", "É verdade?", "")])]
