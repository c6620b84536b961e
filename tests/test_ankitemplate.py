"""The preview's renderer of Anki's template syntax: strict, and the same output as Anki."""

from __future__ import annotations

from pathlib import Path

import pytest

from ankibuild.ankitemplate import Template, TemplateError
from ankibuild.preview import render_cards

from .ankitools import TEMPLATE_ERROR, collection, import_package, render_all_cards
from .conftest import Project, use_scenario


def test_fields_sections_and_inverted_sections() -> None:
    """Fields are inserted as they are; sections follow whether a field is empty."""
    template = Template("<b>{{ Question }}</b>{{#A}}[{{A}}]{{/A}}{{^B}}no B{{/B}}{{#B}}{{B}}{{/B}}", "test")
    assert template.render({"Question": "a < b", "A": "x", "B": ""}) == "<b>a < b</b>[x]no B"
    assert template.render({"Question": "", "A": "", "B": "y"}) == "<b></b>y"


def test_front_side_is_one_more_field() -> None:
    """The back gets the rendered front through {{FrontSide}}."""
    assert (
        Template("{{FrontSide}}<hr id=answer>{{A}}", "back").render({"FrontSide": "F", "A": "a"}) == "F<hr id=answer>a"
    )


@pytest.mark.parametrize(
    ("source", "message"),
    [
        ("x\n{{Nope}}", "test, line 2: unknown field 'Nope' (fields are: A)"),
        ("x\n{{#A}}open", "test, line 2: section {{#A}} is never closed"),
        ("{{/A}}", "test, line 1: {{/A}} closes a section that is not open"),
        ("{{#A}}{{/B}}{{/A}}", "test, line 1: {{/B}} closes a section that is not open"),
        ("\n\n{{text:A}}", "test, line 3: {{text:A}} is not supported by the preview (only fields)"),
        ("{{#A}}\n{{^Nope}}{{/Nope}}{{/A}}", "test, line 2: unknown field 'Nope' (fields are: A)"),
    ],
)
def test_anything_else_is_an_error_that_names_the_template_and_line(source: str, message: str) -> None:
    """Strict: a filter, an unknown field or an unbalanced section is never rendered as a guess."""
    with pytest.raises(TemplateError) as raised:
        Template(source, "test").render({"A": "a"})
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
    front = Template("{{Always}}|{{#A}}a{{/A}}|{{^A}}n{{/A}}", "front")
    back = Template("{{FrontSide}}<hr id=answer>{{A}}", "back")
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
