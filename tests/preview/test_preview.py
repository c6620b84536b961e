"""The preview page: every card from the same templates, the packages linked, nothing loaded from elsewhere."""

from __future__ import annotations

import base64
import json
import re
from html.parser import HTMLParser
from pathlib import Path

import pytest
from click.testing import CliRunner

from ankibuild import BankError
from ankibuild.cli import main
from ankibuild.preview.target import render_cards, write_preview
from ankibuild.text.mathml import formulas_to_mathml, to_mathml

from ..conftest import ROOT, Project, use_scenario


class _Page(HTMLParser):
    """Every URL attribute, the data of the cards, and the language sections of a page."""

    def __init__(self, text: str) -> None:
        super().__init__()
        self.urls: list[str] = []
        self.sections: dict[str, str] = {}
        self._in_data = False
        self.data = ""
        self.feed(text)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = {k: v or "" for k, v in attrs}
        self.urls += [values[k] for k in ("src", "href", "action", "poster") if k in values]
        if tag == "section" and "pv-lang" in values.get("class", ""):
            self.sections[values["lang"]] = values["dir"]
        self._in_data = values.get("id") == "pv-data"

    def handle_data(self, data: str) -> None:
        if self._in_data:
            self.data += data

    def handle_endtag(self, tag: str) -> None:
        self._in_data = False


def _preview(project: Project) -> tuple[_Page, str]:
    result = write_preview(
        decks=project.decks, templates=project.templates, out=project.out / "preview", packages=project.out
    )
    text = result.path.read_text(encoding="utf-8")
    return _Page(text), text


def test_the_page_shows_every_card_and_links_each_package_with_its_question_count(project: Project) -> None:
    """Each card of each language is on the page as Anki renders it; each .apkg is linked relatively, with its count."""
    project.build()
    result = write_preview(
        decks=project.decks, templates=project.templates, out=project.out / "preview", packages=project.out
    )
    page = _Page(result.path.read_text(encoding="utf-8"))
    data = json.loads(page.data)
    rendered = render_cards(decks=project.decks, templates=project.templates)
    assert result.path == project.out / "preview" / "index.html" and result.written
    shown = [[c.lang, formulas_to_mathml(c.front), formulas_to_mathml(c.back)] for c in rendered.cards]
    assert data["cards"] == shown  # formulas as MathML, as MathJax would set them in Anki
    assert len(data["cards"]) == 18 and {lang for lang, _, _ in data["cards"]} == {"de", "fr", "en"}
    assert [(link.path.name, link.questions, link.exists) for link in result.packages] == [
        ("ai-stack-de.apkg", 6, True),
        ("ai-stack-fr.apkg", 6, True),
        ("ai-stack-en.apkg", 6, True),
    ]
    text = result.path.read_text(encoding="utf-8")
    for lang in ("de", "fr", "en"):
        assert (
            f'<a href="../ai-stack-{lang}.apkg" download>ai-stack-{lang}.apkg</a></td><td class="pv-count">6</td>'
            in text
        )
    assert result.warnings == []


def test_the_page_loads_nothing_from_anywhere_else(project: Project) -> None:
    """Links are the packages and anchors; the card script and images travel inside the page as data URLs."""
    project.build()
    page, text = _preview(project)
    assert page.urls and all(re.fullmatch(r"#[\w-]+|\.\./[\w-]+\.apkg", url) for url in page.urls), page.urls
    assert not re.search(r"@import|url\(|https?:|//[a-z]", text.split('<script type="application/json"')[0])
    media = json.loads(page.data)["media"]
    assert sorted(url.split(";")[0] for url in media.values()) == ["data:image/svg+xml", "data:text/javascript"]


def test_split_packages_are_linked_one_per_deck(project: Project) -> None:
    """With --split the page links the per-deck packages the split build wrote."""
    project.build(split=True)
    result = write_preview(
        decks=project.decks, templates=project.templates, out=project.out / "preview", packages=project.out, split=True
    )
    assert [(link.path.name, link.questions, link.exists) for link in result.packages] == [
        (f"ai-stack-ai-hardware-{lang}.apkg", 6, True) for lang in ("de", "fr", "en")
    ]


def test_packages_not_built_yet_are_marked_and_warned_about(project: Project) -> None:
    """A preview written before the build still links the packages, says they are missing, and warns."""
    result = write_preview(
        decks=project.decks, templates=project.templates, out=project.out / "preview", packages=project.out
    )
    assert result.path.read_text(encoding="utf-8").count("(not built yet)") == 3
    assert result.warnings == [
        f"{project.out / f'ai-stack-{lang}.apkg'} is not built yet: run 'ankibuild build' before publishing the preview"
        for lang in ("de", "fr", "en")
    ]


def test_a_right_to_left_bank_reads_right_to_left(project: Project) -> None:
    """Arabic and Hebrew sections and cards are marked dir="rtl"; the bank's shuffle reaches the cards."""
    use_scenario(project, "rtl-sample")
    project.build()
    page, _ = _preview(project)
    assert page.sections == {"ar": "rtl", "he": "rtl"}
    for lang, front, back in json.loads(page.data)["cards"]:
        assert f'lang="{lang}" dir="rtl"' in front and 'data-shuffle="true"' in front
        assert back.count('dir="rtl"') == 3  # the verdict, the question, the explanation


def test_syntax_the_preview_cannot_render_is_an_error_and_nothing_is_written(project: Project) -> None:
    """A filter is valid for Anki but not rendered by the preview: it says so, at the template's line, not guessing."""
    front = project.templates / "default" / "front.html"
    front.write_text(front.read_text(encoding="utf-8").replace("{{Question}}", "{{text:Question}}"), encoding="utf-8")
    with pytest.raises(BankError) as raised:
        _preview(project)
    assert [(p.file, p.line, p.message) for p in raised.value.problems] == [
        ("templates/default/front.html", 2, "{{text:Question}} is not supported")
    ]
    assert not (project.out / "preview").exists()


def test_the_command_writes_the_page_once_and_reports_problems_like_build(project: Project) -> None:
    """'ankibuild preview' writes dist/preview/index.html; unchanged sources leave it untouched; errors exit 1."""
    project.build()
    runner = CliRunner()
    first = runner.invoke(main, ["preview"])
    page = project.out / "preview" / "index.html"
    before = page.read_bytes()
    second = runner.invoke(main, ["preview", "--lang", "fr"])
    third = runner.invoke(main, ["preview", "--lang", "fr"])
    project.edit("ai-hardware.yaml", "answer: B", "answer: Z")
    broken = runner.invoke(main, ["preview", "--out", "elsewhere"])
    assert (first.exit_code, first.output) == (0, "Preview of 18 card(s) -> dist/preview/index.html (wrote)\n")
    assert (second.exit_code, third.output) == (0, "Preview of 6 card(s) -> dist/preview/index.html (unchanged)\n")
    assert page.read_bytes() != before and broken.exit_code == 1
    assert "answer must be one letter A-F, not 'Z'" in broken.output and not Path("elsewhere").exists()


def test_the_preview_shows_the_sample_diagram_inline(project: Project) -> None:
    """Images of the questions travel inside the page, like the card script: nothing is fetched."""
    write_preview(decks=project.decks, templates=project.templates, out=project.out / "preview", packages=project.out)
    page = (project.out / "preview" / "index.html").read_text(encoding="utf-8")
    svg = (project.decks / "media" / "roofline.svg").read_bytes()
    assert f"data:image/svg+xml;base64,{base64.b64encode(svg).decode('ascii')}" in page


# -- formulas and question ids ----------------------------------------------------

_CODE = re.compile(r"<pre\b.*?</pre>|<code\b.*?</code>", re.DOTALL)
_FORMULA = re.compile(r"\\\(|\\\[")


def _formulas(html: str) -> int:
    """The formulas MathJax would set in a card's HTML: not those in code."""
    return len(_FORMULA.findall(_CODE.sub("", html)))


@pytest.mark.parametrize("bank", ["decks", "tests/data/formulas"])
def test_the_preview_shows_every_formula_as_mathml(tmp_path: Path, bank: str) -> None:
    """Each formula of a card, inline or displayed, '$...$' too, is MathML on the page; code keeps its text."""
    decks = ROOT / bank
    cards = render_cards(decks=decks).cards
    expected = [(_formulas(card.front), _formulas(card.back)) for card in cards]
    page = _Page(write_preview(decks=decks, out=tmp_path / "preview", packages=tmp_path).path.read_text("utf-8"))
    shown = json.loads(page.data)["cards"]
    assert sum(back for _, back in expected) >= 3
    for (front_count, back_count), (_, front, back) in zip(expected, shown, strict=True):
        assert (front.count("<math"), back.count("<math")) == (front_count, back_count)
        assert _formulas(front) == _formulas(back) == 0  # no raw \( or \[ left outside code
    if bank.endswith("formulas"):
        (_, _, back), _ = shown
        assert (
            '<math display="block">' in back
            and "<code><span>\\</span>(</code>" in back
            and "$" not in _CODE.sub("", back)
        )


def test_a_formula_the_preview_cannot_convert_stays_as_written_and_markup_in_it_stays_text() -> None:
    r"""'\text{<img ...>}' is TeX text: never an element of the page, whatever latex2mathml makes of it."""
    card = to_mathml(r"\text{<img src=x onerror=alert(1)>} + \href{javascript:alert(1)}{x}", display=False)
    assert card is None or ("<img" not in card and "href" not in card)
    html = formulas_to_mathml(r"a \(\text{&lt;b onclick=alert(1)&gt;}\) \(\style{color:red}{x}\) \(x^\) b")
    assert "<b" not in html and "style=" not in html and "onclick" not in html.replace("&lt;b onclick", "")
    assert html.endswith(r"\(x^\) b")  # unreadable: as MathJax would leave it, as written


def test_question_ids_are_hidden_unless_asked_for(tmp_path: Path) -> None:
    """Students see cards, not ids; '--show-ids' puts each question's id above its card for authors."""
    decks = ROOT / "decks"
    hidden = write_preview(decks=decks, out=tmp_path / "students", packages=tmp_path).path.read_text("utf-8")
    shown = write_preview(decks=decks, out=tmp_path / "authors", packages=tmp_path, show_ids=True)
    assert 'class="pv-id"' not in hidden
    assert '<p class="pv-id"><code>conv-im2col-gemm</code></p>' in shown.path.read_text("utf-8")
    args = ["preview", "--decks", str(decks), "--out", str(tmp_path / "cli"), "--show-ids"]
    assert CliRunner().invoke(main, args).exit_code == 0
    assert 'class="pv-id"' in (tmp_path / "cli" / "index.html").read_text("utf-8")


def test_a_formula_anki_cannot_read_is_a_warning_with_file_and_line(project: Project) -> None:
    """An unknown command shows as a red error in Anki: check names the text's line.

    (A brace left open is an error: MathJax would read past the formula's end.)
    """
    project.edit("ai-hardware.yaml", r"\( I \)", r"\( \intensity{I} \)")
    result = CliRunner().invoke(main, ["check"])
    lines = (project.decks / "ai-hardware.yaml").read_text("utf-8").splitlines()
    edited = next(n for n, text in enumerate(lines) if "intensity{" in text)
    line = next(n + 1 for n in range(edited, 0, -1) if lines[n].strip().startswith("explanation:"))
    assert result.exit_code == 0
    assert f"decks/ai-hardware.yaml:{line}:" in result.stderr
    assert "the formula '\\intensity{I}' cannot be read: unknown command \\intensity" in result.stderr
    assert CliRunner().invoke(main, ["check", "--strict"]).exit_code == 1
