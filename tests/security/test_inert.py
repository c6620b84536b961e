"""Text shows as typed in Anki, Anki's own syntaxes included; formulas cannot make links, styles or scripts."""

from __future__ import annotations

import html
import json
import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from ankibuild.cli import main
from ankibuild.text.richtext import REFUSED_TEX, to_html
from ankibuild.text.svg import svg_refusal

from ..ankitools import TEMPLATE_ERROR, collection, import_package
from ..conftest import ROOT, Project
from ..texttools import FIELDS, LINES, Recorder, inert_bank

#: What Anki reads in a field besides HTML (rslib: text.rs, latex.rs, card_rendering).
ANKI_SYNTAX = [
    "[sound:bell.mp3]",
    "[anki:tts lang=en_US]Hello[/anki:tts]",
    "[latex]$x^2$[/latex]",
    "[$]x^2[/$]",
    "[$$]x^2[/$$]",
    "[anki:play:q:0]",
    "[SOUND:upper.mp3] [LaTeX]y[/LaTeX]",
]


@pytest.mark.parametrize("syntax", ANKI_SYNTAX)
def test_anki_syntax_in_text_becomes_an_entity_that_shows_the_same(syntax: str) -> None:
    """The ``[`` that starts Anki's syntax is written ``&#91;``: the browser shows ``[``, Anki sees no tag."""
    rendered = to_html(f"Before {syntax} after", Recorder())
    assert not re.search(r"\[(sound|/?anki|/?latex|/?\$)", rendered, re.IGNORECASE), rendered
    assert html.unescape(rendered) == f"Before {syntax} after".replace("$x^2$", r"\(x^2\)")


def test_anki_syntax_in_code_in_an_image_text_and_a_link_is_inert_too() -> None:
    """Anki reads its syntax anywhere in the field's HTML, attributes and code included."""
    recorder = Recorder()
    rendered = to_html(
        '`[sound:a.mp3]` ![[sound:b.mp3]](m.png "[sound:c.mp3]") [[sound:d.mp3]](https://e.org)', recorder
    )
    assert "[sound:" not in rendered
    assert html.unescape(rendered).count("[sound:") == 4


@pytest.mark.parametrize("command", REFUSED_TEX)
@pytest.mark.parametrize("formula", ["\\({}\\)", "\\[{}\\]", "${}$", "$$ {} $$", "\n\n$$\n{}\n$$\n\n"])
def test_a_dangerous_formula_command_is_refused_in_every_kind_of_formula(command: str, formula: str) -> None:
    r"""``\href`` and its kind are refused wherever MathJax would typeset them."""
    recorder = Recorder()
    to_html("See " + formula.format(f"\\{command}{{javascript:alert(1)}}{{x}}"), recorder)
    assert len(recorder.errors) == 1 and f"\\{command}" in recorder.errors[0]


@pytest.mark.parametrize("text", ["\\\\href{x}{y}", "\\hrefs", "\\mathclass", "\\styled", "x \\\\ class"])
def test_only_the_commands_themselves_are_refused(text: str) -> None:
    r"""A line break before a word, and longer commands that start alike, are ordinary TeX."""
    recorder = Recorder()
    to_html(f"\\({text}\\)", recorder)
    assert recorder.errors == []


@pytest.mark.parametrize("text", ["\\\\(\\href{javascript:alert(1)}{x}\\\\)", "\\\\[\\style{color:red}{x}\\\\]"])
def test_a_formula_opener_written_as_text_cannot_start_a_formula(text: str) -> None:
    r"""``\\(`` shows ``\(``: its backslash stands in an element of its own, which MathJax never reads across."""
    rendered = to_html(text, Recorder())
    assert "\\(" not in rendered and "\\[" not in rendered
    assert re.sub(r"<[^>]+>", "", rendered) == text.replace("\\\\", "\\")


def test_anki_shows_its_own_syntax_as_typed_in_every_field(project: Project, tmp_path: Path) -> None:
    """Imported into Anki: no sound, no speech, no LaTeX image, no missing media; the text as written."""
    typed = " ".join(ANKI_SYNTAX)
    inert_bank(project.decks, dict.fromkeys(FIELDS, typed))
    result = CliRunner().invoke(main, ["build"])
    assert result.exit_code == 0, result.output
    with collection(tmp_path / "c.anki2") as col:
        import_package(col, project.out / "inert-en.apkg")
        (card_id,) = col.find_cards("")
        output = col.get_card(card_id).render_output(reload=True)
        assert list(output.question_av_tags) == [] and list(output.answer_av_tags) == []
        expected = typed.replace("$x^2$", r"\(x^2\)")
        for side, fields in ((output.question_text, 3), (output.answer_text, 4)):  # the back adds the explanation
            assert TEMPLATE_ERROR not in side and "latex-" not in side and "[anki:play" not in side
            shown = html.unescape(re.sub(r"<[^>]+>", "", side))
            assert shown.count(expected) >= fields, shown
        assert col.media.check().missing == []


@pytest.mark.parametrize("field", FIELDS)
@pytest.mark.parametrize("command", ["href", "style", "require"])
def test_check_names_the_file_and_line_of_a_dangerous_formula(project: Project, field: str, command: str) -> None:
    """Every field is checked; the error says where, and nothing is built."""
    texts = dict.fromkeys(FIELDS, "fine \\(x^2\\)")
    texts[field] = f"bad $\\{command}{{javascript:alert(1)}}{{x}}$"
    inert_bank(project.decks, texts)
    result = CliRunner().invoke(main, ["check", "--format", "json"])
    assert result.exit_code == 1
    errors = [p for p in json.loads(result.stdout) if p["severity"] == "error"]
    assert [(e["file"], e["line"]) for e in errors] == [("decks/q.yaml", LINES[field])]
    assert f"\\{command}" in errors[0]["message"]
    assert CliRunner().invoke(main, ["build"]).exit_code == 1 and not project.out.exists()


SVG = '<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink">{}</svg>'


@pytest.mark.parametrize(
    ("inside", "reason"),
    [
        ("<script>alert(1)</script>", "<script>"),
        ('<circle r="1" onload="alert(1)"/>', "event handler"),
        ('<a xlink:href="javascript:alert(1)"><text>x</text></a>', "refers to another file"),
        ('<image href="https://example.org/track.png"/>', "refers to another file"),
        ('<image href="../../secret.png"/>', "refers to another file"),
        ('<foreignObject><div xmlns="http://www.w3.org/1999/xhtml">x</div></foreignObject>', "<foreignobject>"),
        ("<style>@import url(https://example.org/a.css);</style>", "style that loads"),
        ('<rect style="fill: url(https://example.org/p.svg#x)"/>', "style that loads"),
    ],
)
def test_an_svg_that_runs_or_fetches_is_refused(inside: str, reason: str) -> None:
    """Scripts, handlers, HTML and references elsewhere are refused, whatever shows the file."""
    refusal = svg_refusal(SVG.format(inside).encode())
    assert refusal is not None and reason in refusal


@pytest.mark.parametrize(
    "document",
    [
        '<?xml version="1.0"?><!DOCTYPE svg [<!ENTITY a "aaaa">]><svg xmlns="http://www.w3.org/2000/svg">&a;</svg>',
        '<?xml-stylesheet href="https://example.org/a.css"?><svg xmlns="http://www.w3.org/2000/svg"/>',
        "<svg><unclosed></svg>",
    ],
)
def test_an_svg_with_declarations_or_broken_xml_is_refused(document: str) -> None:
    assert svg_refusal(document.encode()) is not None
    assert svg_refusal(document.encode("utf-16")) is not None


def test_a_drawing_with_its_own_parts_and_embedded_raster_images_is_accepted() -> None:
    """Links inside the image (markers, gradients) and images written into it are what drawings use."""
    inside = (
        '<defs><linearGradient id="g"/><marker id="m"/></defs><rect fill="url(#g)" marker-end="url(#m)"/>'
        '<use xlink:href="#m"/><image href="data:image/png;base64,iVBORw0KGgo="/><style>.a{fill:red}</style>'
    )
    assert svg_refusal(SVG.format(inside).encode()) is None
    assert svg_refusal((ROOT / "decks" / "media" / "roofline.svg").read_bytes()) is None


def test_check_names_the_text_that_shows_an_active_svg(project: Project) -> None:
    """A bank's SVG with a script: an error at the line of the text that shows it, and nothing is built."""
    texts = dict.fromkeys(FIELDS, "fine")
    texts["explanation"] = "See ![the diagram](media/evil.svg)"
    inert_bank(project.decks, texts)
    (project.decks / "media").mkdir()
    (project.decks / "media" / "evil.svg").write_text(SVG.format("<script>alert(1)</script>"), encoding="utf-8")
    result = CliRunner().invoke(main, ["check", "--format", "json"])
    errors = [p for p in json.loads(result.stdout) if p["severity"] == "error"]
    assert [(e["file"], e["line"]) for e in errors] == [("decks/q.yaml", LINES["explanation"])]
    assert "<script>" in errors[0]["message"]
    assert CliRunner().invoke(main, ["build"]).exit_code == 1 and not project.out.exists()
