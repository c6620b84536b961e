"""The preview's renderer of Anki's template syntax: strict, and the same output as Anki."""

from __future__ import annotations

from pathlib import Path

import pytest

from ankibuild import BankError, check
from ankibuild.cards.template import Template, TemplateError
from ankibuild.preview.target import render_cards

from ..ankitools import TEMPLATE_ERROR, collection, import_package, render_all_cards
from ..conftest import Project, use_scenario


def test_fields_sections_and_inverted_sections() -> None:
    """Fields are inserted as they are; sections follow whether a field is empty."""
    source = "<b>{{ Question }}</b>{{#A}}[{{A}}]{{/A}}{{^B}}no B{{/B}}{{#B}}{{B}}{{/B}}"
    template = Template(source, "test", ("Question", "A", "B"))
    assert template.render({"Question": "a < b", "A": "x", "B": ""}) == "<b>a < b</b>[x]no B"
    assert template.render({"Question": "", "A": "", "B": "y"}) == "<b></b>y"


def test_front_side_is_one_more_field() -> None:
    """The back gets the rendered front through {{FrontSide}}."""
    assert (
        Template("{{FrontSide}}<hr id=answer>{{A}}", "back", ("FrontSide", "A")).render({"FrontSide": "F", "A": "a"})
        == "F<hr id=answer>a"
    )


@pytest.mark.parametrize(
    ("source", "message"),
    [
        ("x\n{{Nope}}", "test, line 2: unknown field 'Nope' in {{Nope}}"),
        ("x\n{{#A}}open", "test, line 2: section {{#A}} is never closed"),
        ("{{/A}}", "test, line 1: {{/A}} closes a section that is not open"),
        ("{{#A}}{{/B}}{{/A}}", "test, line 1: {{/B}} closes a section that is not open"),
        ("\n\n{{text:A}}", "test, line 3: {{text:A}} is not supported"),
        ("{{#A}}\n{{^Nope}}{{/Nope}}{{/A}}", "test, line 2: unknown field 'Nope' in {{^Nope}}"),
        ("{{A}}\n{{=<% %>=}}", "test, line 2: {{=<% %>=}} is not supported"),
        ("{{!note}}{{A}}", "test, line 1: {{!note}} is not supported"),
        ("{{A}} {{", "test, line 1: '{{' is never closed"),
    ],
)
def test_anything_else_is_an_error_that_names_the_template_and_line(source: str, message: str) -> None:
    """Strict: a filter, an unknown field or an unbalanced section is never rendered as a guess."""
    with pytest.raises(TemplateError) as raised:
        Template(source, "test", ("A",))
    assert raised.value.message == message


# What Anki counts as empty (measured with the anki library): only ASCII
# whitespace and line breaks or divs; a no-break space, a zero-width space or an
# empty paragraph is content.
EMPTINESS = [
    "",
    " ",
    "\n\t",
    "<br>",
    "<br/>",
    "<BR />",
    "<div></div>",
    "<div><br></div>",
    "&nbsp;",
    "\u00a0",
    "\u200b",
    "<p></p>",
    "x",
]


def test_empty_fields_are_judged_as_anki_judges_them(tmp_path: Path) -> None:
    """Each value renders the sections exactly as Anki renders them, front and back."""
    front = Template("{{Always}}|{{#A}}a{{/A}}|{{^A}}n{{/A}}", "front", ("Always", "A"))
    back = Template("{{FrontSide}}<hr id=answer>{{A}}", "back", ("FrontSide", "A"))
    with collection(tmp_path / "c.anki2") as col:
        models = col.models
        notetype = models.new("emptiness")
        for name in ("Always", "A"):
            models.add_field(notetype, models.new_field(name))
        card = models.new_template("card")
        card["qfmt"], card["afmt"] = "{{Always}}|{{#A}}a{{/A}}|{{^A}}n{{/A}}", "{{FrontSide}}<hr id=answer>{{A}}"
        models.add_template(notetype, card)
        models.add(notetype)
        added, deck = models.by_name("emptiness"), col.decks.id("Default")
        assert added is not None and deck is not None
        for value in EMPTINESS:
            note = col.new_note(added)
            note["Always"], note["A"] = "1", value
            col.add_note(note, deck)
            output = note.cards()[0].render_output(reload=True)
            ours = front.render({"Always": "1", "A": value})
            assert (ours, back.render({"FrontSide": ours, "A": value})) == (output.question_text, output.answer_text)


@pytest.mark.parametrize("scenario", ["sample", "every-language", "rtl-sample"])
def test_every_card_renders_exactly_as_anki_renders_it(project: Project, tmp_path: Path, scenario: str) -> None:
    """Front and back of every card of every language, byte for byte as the anki library renders them."""
    if scenario != "sample":
        use_scenario(project, scenario)
    result = project.build()
    cards = render_cards(decks=project.decks, templates=project.templates)
    with collection(tmp_path / "c.anki2") as col:
        for output in result.outputs:
            import_package(col, output.path)
        anki = render_all_cards(col)
    ours = {note.guid: (card.front, card.back) for note, card in zip(cards.notes, cards.cards, strict=True)}
    assert ours == anki
    assert not any(TEMPLATE_ERROR in front + back for front, back in anki.values())
    assert len(ours) == sum(output.notes for output in result.outputs)


#: Syntax Anki accepts (measured: filters pass through or transform, delimiters can change) that the
#: preview could not show as Anki does, and what Anki refuses outright.
BEYOND_FIELDS = [
    ("{{text:Question}}", "{{text:Question}} is not supported"),
    ("{{hint:Explanation}}", "{{hint:Explanation}} is not supported"),
    ("{{text:hint:Question}}", "{{text:hint:Question}} is not supported"),
    ("{{=<% %>=}}<%Question%>", "{{=<% %>=}} is not supported"),
    ("{{!a comment}}", "{{!a comment}} is not supported"),
    ("{{#Question}}x{{/A}}{{/Question}}", "{{/A}} closes a section that is not open"),
]
#: Where in the line each problem is: the tag that cannot be shown, after the "<p>" before it.
COLUMN = {"{{#Question}}x{{/A}}{{/Question}}": 18}


@pytest.mark.parametrize(("tag", "message"), BEYOND_FIELDS)
def test_check_build_and_preview_refuse_the_same_syntax_at_the_same_line(
    project: Project, tag: str, message: str
) -> None:
    """What one of them refuses, all three refuse, naming the template's file, line and column."""
    front = project.templates / "default" / "front.html"
    lines = front.read_text(encoding="utf-8").splitlines()
    lines.insert(2, f"<p>{tag}</p>")
    front.write_text("\n".join(lines) + "\n", encoding="utf-8")
    found = []
    for attempt in (lambda: check(decks=project.decks), project.build, lambda: render_cards(decks=project.decks)):
        with pytest.raises(BankError) as raised:
            attempt()
        found.append([(p.file, p.line, p.column, p.message) for p in raised.value.problems])
    assert found[0] == found[1] == found[2] == [("templates/default/front.html", 3, COLUMN.get(tag, 4), message)]
    assert not project.out.exists()
