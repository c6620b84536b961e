"""Cloze questions: checked with file and line, a card per cloze number in Anki, the preview showing what Anki shows."""

from __future__ import annotations

import re
import shutil
from collections.abc import Callable
from functools import partial
from pathlib import Path

import polib
import pytest

from ankibuild import BankError, check
from ankibuild import build as build_bank
from ankibuild.preview.target import render_cards
from ankibuild.text.clozemarkers import card_ords, cloze_filter
from ankibuild.text.richtext import Unpackaged, read_clozes, to_html
from ankibuild.translations.po import export_po, import_po
from ankibuild.translations.status import add_language

from ..ankitools import TEMPLATE_ERROR, collection, import_package, review_every_card, review_log
from ..conftest import ROOT, Project, use_scenario

FILE = "clozes.yaml"


@pytest.fixture
def clozes(project: Project) -> Project:
    return use_scenario(project, "cloze")


def _problems(project: Project) -> list[tuple[str, int, str]]:
    """(file, line, message) of every error ``check`` finds."""
    with pytest.raises(BankError) as raised:
        check(decks=project.decks)
    return [(Path(p.file).name, p.line, p.message) for p in raised.value.problems if p.severity.value == "error"]


def _line(project: Project, text: str) -> int:
    lines = (project.decks / FILE).read_text(encoding="utf-8").splitlines()
    return next(number for number, line in enumerate(lines, 1) if text in line)


@pytest.mark.parametrize(
    ("written", "message"),
    [
        ("A byte has 8 bits.", "the text has no cloze"),
        ("A byte has {{c1::8 bits.", "the cloze '{{c1::' is never closed"),
        ("A byte has {{c0::8}} bits.", "'{{c0::': cloze numbers go from 1 to 500"),
        ("A byte has {{c501::8}} bits.", "'{{c501::': cloze numbers go from 1 to 500"),
        ("A byte has {{cx::8}} bits.", "'{{cx::' has no cloze number"),
        ("A byte has {{c1,2::8}} bits.", "'{{c1,2::' has no cloze number"),
        ("A byte has {{C1::8}} bits.", "'{{C1::' is no cloze: Anki reads a lower-case c"),
        ("A {{c1::byte {{c2::has}} 8}} bits.", "the cloze '{{c2::' is inside the cloze '{{c1::'"),
        ("A byte has {{c1::}} bits.", "the cloze '{{c1::' hides nothing"),
        ("A byte has {{c1::8::}} bits.", "the hint of the cloze '{{c1::' is empty"),
        ("A **byte {{c1::has** 8}} bits.", "starts inside Markdown markup"),
        ("A byte has \\(x = {{c1::8}}\\) bits.", "a cloze inside a formula is part of the formula, not a cloze"),
        ("A byte ![{{c1::x}}](byte.png) {{c2::has}} 8 bits.", "a cloze in an image's description never shows"),
        ("{{c1::A byte\n\n has}} 8 bits.", "the cloze '{{c1::' is never closed"),
    ],
)
def test_a_mistake_in_a_cloze_is_an_error_at_its_text(clozes: Project, written: str, message: str) -> None:
    """Each mistake is reported in the file, at the line of the text that has it, in words a writer acts on."""
    clozes.edit(FILE, "question: A byte has {{c1::8}} bits and can hold {{c2::256::how many values?}} values.", "")
    clozes.edit(FILE, "    en:\n", f"    en:\n      question: {_yaml(written)}\n")
    found = _problems(clozes)
    assert any(message in text for _, _, text in found), found
    assert {(name, line) for name, line, text in found if message in text} == {(FILE, _line(clozes, _yaml(written)))}


def _yaml(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace("\n", "\\n") + '"'


def test_every_language_hides_the_same_cloze_numbers(clozes: Project) -> None:
    """A translation that drops a cloze would give its language a card less: the differing one is named."""
    clozes.edit(FILE, "{{c2::256::כמה ערכים?}}", "256")
    [(name, line, message)] = _problems(clozes)
    assert (name, line) == (FILE, _line(clozes, "בבית"))
    assert message == "the 'he' text has clozes c1, but 'en' has c1, c2"


def test_a_cloze_without_a_cloze_filter_in_its_template_is_refused(clozes: Project) -> None:
    """Anki shows an error instead of such a card: check names the template's file and line."""
    front = clozes.templates / "default" / "cloze-front.html"
    front.write_text(front.read_text(encoding="utf-8").replace("{{cloze:Text}}", "{{Text}}"), encoding="utf-8")
    [(name, line, message)] = _problems(clozes)
    assert (name, line, message) == (
        "cloze-front.html",
        1,
        "a cloze card's template must show its text with the cloze filter",
    )


def _imported(packages: list[Path], path: Path) -> dict[tuple[str, str, int], tuple[str, str]]:
    """Every card of the packages imported into a new collection, by (question, note type, ord): front and back."""
    with collection(path) as col:
        for package in packages:
            log = import_package(col, package)
            assert (log.updated, log.duplicate, log.conflicting) == (0, 0, 0)
        cards = {}
        for card_id in col.find_cards(""):
            card = col.get_card(card_id)
            output = card.render_output(reload=True)
            cards[card.note()["ID"], card.note_type()["name"], card.ord] = (output.question_text, output.answer_text)
        count = col.card_count()
        assert col._backend.check_database() == []
        assert col.card_count() == count  # Anki generates no card we did not write, and removes none
    return cards


def _text(html: str) -> str:
    """What a card shows, as text."""
    shown = re.sub(r"<style>.*?</style>|<[^>]+>", "", html, flags=re.DOTALL)
    return re.sub(r"\s+", " ", shown).strip()


def test_each_cloze_number_is_a_card_that_hides_it_on_the_front_and_shows_it_on_the_back(
    clozes: Project, tmp_path: Path
) -> None:
    """Imported into Anki, in a left-to-right and a right-to-left language: the cards Anki would make, no more."""
    result = clozes.build()
    cards = _imported([output.path for output in result.outputs], tmp_path / "c.anki2")
    assert sorted(cards) == [
        (question, f"cloze-sample cloze ({lang})", ord_)
        for question in ("byte-bits", "cpp-map")
        for lang in ("en", "he")
        for ord_ in (0, 1)
    ]
    assert not [key for key, (front, back) in cards.items() if TEMPLATE_ERROR in front + back]
    front, back = cards["byte-bits", "cloze-sample cloze (en)", 1]
    assert _text(front).startswith("A byte has 8 bits and can hold [how many values?] values.")
    assert _text(back).startswith("A byte has 8 bits and can hold 256 values.") and "From 0 to 255." in back
    assert '<span class="cloze" data-ordinal="2">256</span>' in back
    front, back = cards["cpp-map", "cloze-sample cloze (en)", 0]
    assert _text(front).startswith("In C++, [a container] keeps its keys sorted")
    assert "and [...] closes two blocks" in _text(front)
    assert "<code>std&#58;:map&lt;int, std&#58;:map&lt;int, int&gt;&gt;</code></span> keeps" in back
    assert '<span class="cloze" data-ordinal="1"><code>&#125;&#125;</code></span> closes' in back
    front, back = cards["cpp-map", "cloze-sample cloze (he)", 1]
    assert 'dir="rtl"' in front and "[...]" in _text(front) and "\\(\\pi r^&#123;2&#125;\\)" in back
    # A cloze in code in the explanation shows as typed, and makes no card.
    assert "<code>&#123;&#123;c3&#58;:x&#125;&#125;</code>" in back


def test_the_preview_shows_each_card_as_anki_does(clozes: Project, tmp_path: Path) -> None:
    """Front and back of every cloze card in the preview are Anki's own rendering of the imported card."""
    result = clozes.build()
    anki = _imported([output.path for output in result.outputs], tmp_path / "c.anki2")
    rendered = render_cards(decks=clozes.decks)
    preview: dict[tuple[str, str], list[tuple[str, str]]] = {}
    for card in rendered.cards:
        preview.setdefault((card.question_id, card.lang), []).append((card.front, card.back))
    assert len(rendered.cards) == len(anki) == 8
    for (question, notetype, ord_), (front, back) in anki.items():
        ours = preview[question, notetype[-3:-1]][ord_]
        assert (ours[0].strip(), ours[1].strip()) == (front.strip(), back.strip())


def test_rebuilding_after_an_edit_that_adds_a_cloze_keeps_every_review(clozes: Project, tmp_path: Path) -> None:
    """Review, add c3 to a question in both languages, rebuild, import: the note updates, c3 is a new card."""
    clozes.build()
    packages = [clozes.out / f"cloze-sample-{lang}.apkg" for lang in ("en", "he")]
    with collection(tmp_path / "student.anki2") as col:
        for package in packages:
            import_package(col, package)
        intervals = review_every_card(col)
        reviews = review_log(col)
        assert len(reviews) == 8

        clozes.edit(FILE, "keeps its keys **sorted**", "keeps its keys **{{c3::sorted}}**")
        clozes.edit(FILE, "שומר את המפתחות **ממוינים**", "שומר את המפתחות **{{c3::ממוינים}}**")
        clozes.build()
        logs = [import_package(col, package) for package in packages]

        # One note updated per language, the other one unchanged (Anki counts it a duplicate it skips).
        assert [(log.new, log.updated, log.duplicate, log.conflicting) for log in logs] == [(0, 1, 1, 0)] * 2
        assert col.note_count() == 4 and col.card_count() == 10
        assert review_log(col) == reviews
        assert {cid: col.get_card(cid).ivl for cid in intervals} == intervals
        assert not [m["name"] for m in col.models.all() if m["name"].endswith("+")]
        (nid,) = col.find_notes('"ID:cpp-map" "note:cloze-sample cloze (en)"')
        new_card = next(col.get_card(cid) for cid in col.get_note(nid).card_ids() if cid not in intervals)
        assert new_card.ord == 2 and "[...]" in _text(new_card.question())
        assert col._backend.check_database() == [] and col.card_count() == 10


def test_cloze_texts_go_through_po_files_as_they_are(clozes: Project, tmp_path: Path) -> None:
    """Exported, translated with the clozes kept, imported: the new language's cards are its own clozes."""
    add_language("ar", clozes.decks)
    po_path = tmp_path / "ar.po"
    export_po("ar", po_path, source="en", decks=clozes.decks)
    po = polib.pofile(str(po_path))
    texts = {entry.msgctxt: entry.msgid for entry in po}
    assert texts["byte-bits:question"] == "A byte has {{c1::8}} bits and can hold {{c2::256::how many values?}} values."
    for entry in po:
        entry.msgstr = entry.msgid if entry.msgctxt.startswith("@") else f"بالعربية {entry.msgid}"
    po.save()
    import_po(po_path, decks=clozes.decks)
    assert check(decks=clozes.decks).errors == []
    result = clozes.build()
    cards = _imported([o.path for o in result.outputs if o.path.name.endswith("-ar.apkg")], tmp_path / "ar.anki2")
    front, back = cards["byte-bits", "cloze-sample cloze (ar)", 1]
    assert "بالعربية A byte has 8 bits and can hold [how many values?] values." in _text(front)
    assert 'dir="rtl"' in front and "256 values" in _text(back)


# -- the text, as Anki reads it --------------------------------------------------------


@pytest.mark.parametrize(
    "written",
    [
        "{{c1::`a}}b::c`}} and {{c2::`std::map`::a type}}",
        "{{c1::\\(\\frac{1}{x^{2}}\\)}} is {{c2::**bold** and _slanted_}}",
        "# {{c1::Title}}\n\n| a | b |\n|---|---|\n| {{c2::x}} | y::z }} {{ |\n\n- {{c3::item}}\n\n"
        "```\n{{c4::code}}\n```",
        "{{c1::a\\:::b}} {{c2::c:}} d::e f}} g{{",
    ],
)
def test_anki_reads_the_clozes_written_and_no_other(written: str) -> None:
    """The numbers Anki finds in the rendered text are the ones the writer wrote as clozes, and each card shows
    its own cloze hidden: a ``}}`` or ``::`` in code, a formula or text is no marker."""
    rendered = to_html(written, Unpackaged(), clozes=True)
    numbers = read_clozes(written).numbers
    assert read_clozes(written).problems == []
    assert card_ords([rendered]) == tuple(sorted({n - 1 for n in numbers}))
    for number in set(numbers):
        front = cloze_filter(rendered, number - 1, question=True)
        assert front.count('class="cloze"') == numbers.count(number)


def test_a_cloze_in_an_other_kinds_text_shows_as_typed() -> None:
    """Only a cloze text's markers are markers: in any other text they are text (Anki never reads them there)."""
    assert to_html("{{c1::x}}", Unpackaged()) == "{{c1::x}}"
    assert read_clozes("`{{c1::x}}`").numbers == []


# -- templates ---------------------------------------------------------------------------

#: Every filter Anki's templates accept, as a template writes it before the field's name.
ANKI_FILTERS = ["cloze", "text", "hint", "type", "type:cloze", "cloze-only", "furigana", "kana", "kanji", "tts en_US"]


def _verdict(run: Callable[..., object], project: Project, template: Path) -> tuple[str, int] | None:
    """None when ``run`` accepts the bank, else the (file, line) of its first error about ``template``."""
    try:
        run(decks=project.decks)
    except BankError as err:
        return next((Path(p.file).name, p.line) for p in err.problems if Path(p.file).resolve() == template.resolve())
    return None


@pytest.mark.parametrize("name", ANKI_FILTERS)
@pytest.mark.parametrize(("file", "field"), [("cloze-front.html", "Text"), ("front.html", "Question")])
def test_check_build_and_preview_agree_on_every_filter_anki_accepts(
    clozes: Project, tmp_path: Path, name: str, file: str, field: str
) -> None:
    """The cloze filter on a cloze card's template is accepted by all three; any other filter, or the cloze
    filter on another kind's template, is refused by all three at the template's file and line."""
    template = clozes.templates / "default" / file
    template.write_text(template.read_text(encoding="utf-8") + f"\n\n{{{{{name}:{field}}}}}\n", encoding="utf-8")
    line = template.read_text(encoding="utf-8").count("\n")  # the last line, the filter's
    build = partial(build_bank, out=tmp_path / "out")
    verdicts = {_verdict(run, clozes, template) for run in (check, build, render_cards)}
    accepted = name == "cloze" and file.startswith("cloze")
    assert verdicts == ({None} if accepted else {(file, line)})


def test_the_sample_banks_cloze_questions_build_and_import_beside_multiple_choice(
    project: Project, tmp_path: Path
) -> None:
    """decks/cloze.yaml, with the rest of the sample: each language's package holds both note types, and every
    cloze card Anki generates is one the package holds."""
    shutil.copy(ROOT / "decks" / "cloze.yaml", project.decks / "cloze.yaml")
    result = project.build()
    for lang in ("de", "fr", "en"):
        (package,) = [output.path for output in result.outputs if output.path.name == f"ai-stack-{lang}.apkg"]
        cards = _imported([package], tmp_path / f"{lang}.anki2")
        assert sorted(key for key in cards if key[1] == f"ai-stack cloze ({lang})") == [
            *(("fp16-weights", f"ai-stack cloze ({lang})", ord_) for ord_ in (0, 1)),
            *(("roofline-bound", f"ai-stack cloze ({lang})", ord_) for ord_ in (0, 1, 2)),
        ]
        assert not [key for key, (front, back) in cards.items() if TEMPLATE_ERROR in front + back]
    front, back = cards["roofline-bound", "ai-stack cloze (en)", 1]
    assert "[intensity times …]" in _text(front) and "\\(I \\cdot B\\)" in back
