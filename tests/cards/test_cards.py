"""The card templates in Anki: script packaged as hashed media, shuffle as a setting, every language."""

from __future__ import annotations

import json
import shutil
import zipfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from ankibuild import BankError, paths
from ankibuild.cards.folders import DEFAULTS, TemplateFolders
from ankibuild.errors import Problems
from ankibuild.kinds import KINDS, Kind
from ankibuild.kinds.choice import FIELDS
from ankibuild.load import render, stage
from ankibuild.load.render import CardTemplates, TemplateFiles, check_template, load_templates
from ankibuild.lock.format import LOCK_FILE, read_lock
from ankibuild.preview.target import render_cards
from ankibuild.yamlfiles import reader

from ..ankitools import TEMPLATE_ERROR, collection, import_package, imported_cards, render_all_cards
from ..cardtools import CARD_LANGUAGES, wording
from ..conftest import DATA, KIND_EXAMPLES, ROOT, Project, use_scenario


def _media(package: Path) -> dict[str, bytes]:
    """The media files of a package, by name."""
    with zipfile.ZipFile(package) as archive:
        names: dict[str, str] = json.loads(archive.read("media"))
        return {name: archive.read(index) for index, name in names.items()}


@pytest.mark.parametrize("scenario", ["sample", "every-language", "rtl-sample"])
def test_every_card_renders_with_its_script_and_a_clean_media_check(
    project: Project, tmp_path: Path, scenario: str
) -> None:
    """Each language's cards render without template errors, load the packaged script, and no media is amiss."""
    if scenario != "sample":
        use_scenario(project, scenario)
    result = project.build()
    script = (project.templates / "card.js").read_bytes()
    with collection(tmp_path / "c.anki2") as col:
        for output in result.outputs:
            ((name, content),) = _scripts(output.path).items()
            assert name.startswith("_ankibuild-") and name.endswith(".js") and content == script
            import_package(col, output.path)
            assert (Path(col.media.dir()) / name).read_bytes() == script
        cards = render_all_cards(col)
        check = col.media.check()
    assert len(cards) == sum(output.notes for output in result.outputs)
    for front, back in cards.values():
        assert TEMPLATE_ERROR not in front + back
        assert f'<script src="{name}"></script>' in front and front in back
    assert (list(check.missing), list(check.unused), list(check.missing_media_notes)) == ([], [], [])


def _scripts(package: Path) -> dict[str, bytes]:
    """The card scripts a package carries (beside the images its questions show)."""
    return {name: content for name, content in _media(package).items() if name.endswith(".js")}


def _script_name(project: Project) -> str:
    (name,) = _scripts(project.out / "ai-stack-de.apkg")
    return name


def test_a_changed_script_arrives_under_a_new_name_that_the_templates_use(project: Project, tmp_path: Path) -> None:
    """Anki never overwrites a '_' file, so an edited card.js must get a new name; the templates follow it."""
    project.build()
    first = _script_name(project)
    with collection(tmp_path / "c.anki2") as col:
        import_package(col, project.out / "ai-stack-de.apkg")
        script = project.templates / "card.js"
        script.write_text(script.read_text(encoding="utf-8") + "\n// changed\n", encoding="utf-8")
        result = project.build()
        second = _script_name(project)
        log = import_package(col, project.out / "ai-stack-de.apkg")
        (notetype,) = (m for m in col.models.all() if m["name"] == "ai-stack (de)")
        media = Path(col.media.dir())
        check = col.media.check()
    assert second != first and second.startswith("_ankibuild-")
    assert {(c.lang, c.kind) for c in result.changes.items} == {
        ("de", "templates"),
        ("fr", "templates"),
        ("en", "templates"),
    }
    assert (log.new, log.updated, log.conflicting) == (0, 0, 0)
    assert f'<script src="{second}"></script>' in notetype["tmpls"][0]["qfmt"]
    assert (media / second).read_text(encoding="utf-8").endswith("// changed\n")
    assert (media / first).is_file()  # Anki keeps the old one; nothing refers to it any more
    assert (list(check.missing), list(check.unused)) == ([], [])


def test_shuffle_changes_the_templates_never_the_fields(project: Project, tmp_path: Path) -> None:
    """Turning 'shuffle' off moves only the note types' digests and times; classmates get it as a template update."""
    project.build()
    before = read_lock(project.decks / LOCK_FILE)
    with collection(tmp_path / "c.anki2") as col:
        import_package(col, project.out / "ai-stack-fr.apkg")
        project.edit("bank.yaml", "shuffle: true", "shuffle: false")
        result = project.build()
        log = import_package(col, project.out / "ai-stack-fr.apkg")
        names = sorted(m["name"] for m in col.models.all() if m["name"].startswith("ai-stack"))
        (notetype,) = (m for m in col.models.all() if m["name"] == "ai-stack (fr)")
    after = read_lock(project.decks / LOCK_FILE)
    assert after.notes == before.notes
    for lang, entry in after.notetypes.items():
        assert entry.fields == FIELDS and entry.digest != before.notetypes[lang].digest
        assert entry.mtime > before.notetypes[lang].mtime
    assert {c.kind for c in result.changes.items} == {"templates"}
    assert (log.updated, log.conflicting, names) == (0, 0, ["ai-stack (fr)"])
    assert 'data-shuffle="false"' in notetype["tmpls"][0]["qfmt"]
    assert [f["name"] for f in notetype["flds"]] == list(FIELDS)


def test_labels_carry_each_languages_typography_and_direction() -> None:
    """Each part of a card reads in its language's direction; the verdict speaks the language."""
    cards = {c.lang: c for c in render_cards(decks=DATA / "every-language").cards}
    assert '<span class="ab-verdict-right">Bonne réponse</span>' in cards["fr"].back
    assert '<span class="ab-verdict-wrong">不正解</span>' in cards["ja"].back
    for lang, card in cards.items():
        direction = "rtl" if lang in ("ar", "he") else "ltr"
        assert card.back.count(f'lang="{lang}" dir="{direction}"') == 3  # the verdict, the question, the explanation
    cyrillic_a = "\u0410"
    for lang, first in (("en", "A"), ("ru", cyrillic_a), ("ja", "ア"), ("ko", "①"), ("ar", "أ"), ("he", "א")):
        assert f'data-letter="A"><span class="ab-letter">{first}</span>' in cards[lang].front


def test_a_regional_language_uses_its_base_languages_labels() -> None:
    """pt-BR gets the Portuguese wording, zh-TW the traditional Chinese one; a language with no labels gets English."""
    problems = Problems()
    brazilian = load_templates(TemplateFolders(), KINDS["choice"], "pt-BR", problems=problems)
    taiwanese = load_templates(TemplateFolders(), KINDS["choice"], "zh-TW", problems=problems)
    swedish = load_templates(TemplateFolders(), KINDS["choice"], "sv", problems=problems)
    assert (brazilian.labels["answer"], brazilian.labels["lang"]) == ("Resposta:", "pt-BR")
    assert 'lang="pt-BR"' in brazilian.sides[0].front
    assert taiwanese.labels["correct"] == "回答正確"  # traditional characters, not the simplified 回答正确
    assert swedish.labels["answer"] == "Answer:"
    assert [(p.severity.value, p.message) for p in problems.items] == [
        ("warning", "no templates for 'sv': the default (English) wording is used")
    ]


def test_letters_must_be_six(project: Project) -> None:
    """A letters label with too few letters is one error at its line, not one per option."""
    labels = project.templates / "ja" / "labels.yaml"
    labels.write_text(labels.read_text(encoding="utf-8").replace("ア イ ウ エ オ カ", "ア イ"), encoding="utf-8")
    problems = Problems()
    load_templates(TemplateFolders(project.templates), KINDS["choice"], "ja", problems=problems)
    (problem,) = problems.errors
    assert (problem.file, problem.line) == ("templates/ja/labels.yaml", 9)
    assert problem.message == "'letters' must list 6 letters separated by spaces"


@pytest.mark.parametrize(
    ("written", "line", "message"),
    [
        (
            "answer: Lösung\nincorrect: Falsch!\n",
            2,
            "the verdict 'incorrect' reads 'Falsch!', the words of the choice 'false'",
        ),
        (
            "true: Richtig beantwortet\n",
            1,
            "the verdict 'correct' reads 'Richtig beantwortet', the words of the choice 'true'",
        ),
    ],
)
def test_a_banks_own_verdict_worded_as_a_choice_is_a_warning(
    project: Project, written: str, line: int, message: str
) -> None:
    """A bank's own labels that make a verdict read as a choice: a warning at the label the bank wrote."""
    for name in ("card.js", "style.css"):
        (project.templates / name).unlink()
    shutil.rmtree(project.templates / "default")
    (project.templates / "de" / "labels.yaml").write_text(written, encoding="utf-8")
    problems = Problems()
    load_templates(TemplateFolders(project.templates), KINDS["truefalse"], "de", problems=problems)
    (problem,) = problems.items
    assert (problem.file, problem.line, problem.severity.value) == ("templates/de/labels.yaml", line, "warning")
    assert problem.message == message and "Richtig beantwortet" in problem.hint


def test_a_label_that_is_not_text_is_an_error_at_its_line(project: Project) -> None:
    """A number or a list as a label would show on every card as Python writes it ("['1', '2']")."""
    (project.templates / "de" / "labels.yaml").write_text(
        "answer: Lösung\nreport: {a: 1}\nnext: [1, 2]\n", encoding="utf-8"
    )
    problems = Problems()
    load_templates(TemplateFolders(project.templates), KINDS["choice"], "de", problems=problems)
    assert [(p.line, p.message, p.severity.value) for p in problems.items] == [
        (2, "label 'report' must be text, not a mapping", "error"),
        (3, "label 'next' must be text, not a list", "error"),
    ]


def test_a_build_reads_and_checks_each_template_file_once(project: Project, monkeypatch: pytest.MonkeyPatch) -> None:
    """The stylesheet, the script and the default templates and labels serve every language and kind, and the
    labels the report link's words too: each read, and each template checked for a kind, once."""
    for name in KIND_EXAMPLES:
        shutil.copy(ROOT / "decks" / name, project.decks / name)
    settings = project.decks / "bank.yaml"
    settings.write_text(f'{settings.read_text(encoding="utf-8")}report: "https://example.org/new?t={{id}}"\n', "utf-8")
    read: list[Path] = []
    checked: list[tuple[Path, tuple[str, ...]]] = []
    made: list[tuple[str, str]] = []
    words: list[dict[str, str]] = []

    def noted(path: Path, roots: Sequence[Path], limit: int | None = None) -> bytes:
        read.append(path)
        return paths.read_inside(path, roots, limit)

    def check(path: Path, text: str, fields: Sequence[str], **options: Any) -> None:
        checked.append((path, tuple(fields)))
        check_template(path, text, fields, **options)

    def worded(files: TemplateFiles, langs: Sequence[str]) -> dict[str, str]:
        words.append(render.report_words(files, langs))
        return words[-1]

    def asked(files: TemplateFiles, pairs: Sequence[tuple[Kind, str]], **options: Any) -> list[CardTemplates]:
        made.extend((kind.name, lang) for kind, lang in pairs)
        return render.load_all_templates(files, pairs, **options)

    monkeypatch.setattr(render, "read_inside", noted)
    monkeypatch.setattr(reader, "read_inside", noted)
    monkeypatch.setattr(render, "check_template", check)
    monkeypatch.setattr(stage, "load_all_templates", asked)
    monkeypatch.setattr(stage, "report_words", worded)
    project.build()
    assert words == [{"de": "Fehler melden", "fr": "Signaler une erreur", "en": "Report a mistake"}]
    assert len({lang for _, lang in made}) > 1 and len({kind for kind, _ in made}) > 1
    templates = [path for path in read if path.suffix in (".html", ".css", ".js") or path.name == "labels.yaml"]
    assert {path.name for path in templates} >= {"front.html", "back.html", "style.css", "card.js", "labels.yaml"}
    assert sorted(templates) == sorted(set(templates))
    assert checked and sorted(checked) == sorted(set(checked))


def test_a_banks_templates_folder_holds_only_what_it_changes(project: Project) -> None:
    """Files a bank's folder lacks come from the shipped defaults; what it has replaces them."""
    for name in ("card.js", "style.css", "default/back.html", "de/labels.yaml"):
        (project.templates / name).unlink()
    (project.templates / "de" / "labels.yaml").write_text("answer: Lösung\n", encoding="utf-8")
    (project.templates / "fr").rename(project.templates / "fr-old")
    (project.templates / "fr").mkdir()
    (project.templates / "fr" / "front.html").write_text(
        (DEFAULTS / "default" / "front.html").read_text(encoding="utf-8") + "<p>FR-OWN-FRONT</p>", encoding="utf-8"
    )
    result = project.build()
    assert result.templates == "own templates in templates/ over the defaults"
    script = next(a for a in load_templates(TemplateFolders(), KINDS["choice"], "de", problems=Problems()).media)
    own = {
        lang: load_templates(TemplateFolders(project.templates), KINDS["choice"], lang, problems=Problems())
        for lang in ("de", "fr", "en")
    }
    assert own["de"].media == (script,) and own["de"].css == (DEFAULTS / "style.css").read_text(encoding="utf-8")
    assert own["de"].labels["answer"] == "Lösung" and own["de"].labels["language"] == "Deutsch"
    assert "FR-OWN-FRONT" in own["fr"].sides[0].front and "FR-OWN-FRONT" not in own["en"].sides[0].front
    imported_cards(project.root / "c.anki2", [project.out / f"ai-stack-{lang}.apkg" for lang in ("de", "fr")])


def test_without_a_templates_folder_the_defaults_build(project: Project) -> None:
    """A bank with no templates folder of its own builds from the templates shipped with ankibuild."""
    shutil.rmtree(project.templates)
    result = project.build()
    assert result.templates == "default templates"
    assert {o.path.name for o in result.outputs} == {"ai-stack-de.apkg", "ai-stack-fr.apkg", "ai-stack-en.apkg"}


def test_a_named_templates_folder_that_is_missing_is_an_error(project: Project) -> None:
    """--templates naming no folder is a mistake to report, not a silent fall-back to the defaults."""
    with pytest.raises(BankError) as raised:
        project.build(templates=project.root / "nowhere")
    assert [(p.file, p.message) for p in raised.value.problems] == [("nowhere", "no templates folder here")]
    assert not project.out.exists() and not (project.decks / LOCK_FILE).exists()


def test_french_texts_get_no_break_spaces_but_never_in_code_or_formulas() -> None:
    """Before ? ! ; a narrow no-break space, before : and inside « » a no-break one; code and formulas as written."""
    cards = {c.lang: c for c in render_cards(decks=DATA / "formulas").cards}
    french, english = cards["fr"].back, cards["en"].back
    assert "par la mémoire\u202f? Et «\u00a0pourquoi\u00a0»\u202f?" in french
    assert "point de crête\u202f!" in french and "la bande passante\u00a0: dans le code" in french
    assert "<code>a ? b : c</code>" in french  # code as written
    assert "\\( I = \\frac{\\text{FLOPs}}{\\text{octets}} \\)" in french  # and formulas
    assert "\u202f" not in english and "\u00a0:" not in english


def test_a_formula_keeps_the_punctuation_that_follows_it_on_its_line() -> None:
    """'\\(x\\),' is one unbreakable piece: the comma never starts a line of its own."""
    cards = {c.lang: c for c in render_cards(decks=DATA / "formulas").cards}
    assert '<span class="ab-keep">\\( I &gt; \\pi / \\beta \\),</span> the ridge point' in cards["en"].front
    assert '<span class="ab-keep">\\( I &gt; \\pi / \\beta \\)\u00a0:</span> au-delà' in cards["fr"].front
    assert ".ab-keep { display: inline-block; }" in render_cards(decks=DATA / "formulas").templates["en"].css


@pytest.mark.parametrize("lang", CARD_LANGUAGES)
def test_a_verdict_never_reads_as_a_choice(lang: str) -> None:
    """No verdict (and no statement of the true answer) is worded as a true/false choice: "✓ Falsch" above the
    option "Falsch" would contradict itself."""
    labels = wording(lang)

    def words(text: str) -> str:
        return "".join(c for c in text.casefold() if c.isalnum())

    choices = {words(labels["true"]), words(labels["false"])}
    said = {key: words(labels[key]) for key in ("correct", "incorrect", "statement_true", "statement_false")}
    assert not choices & set(said.values()), (lang, said, choices)
    assert len(set(said.values())) == len(said), (lang, said)


@pytest.mark.parametrize("lang", CARD_LANGUAGES)
def test_every_language_says_every_label_itself(lang: str) -> None:
    """A language with its own wording words every label the cards show: no English in the middle of a card."""
    default = wording("sv")
    own = wording(lang)
    shown = set(default) - {"lang", "dir", "letters", "script", "shuffle", "show_answer", "again", "language"}
    shown -= {key for key in default if key.startswith("letter_")}
    assert {"report", "about_version", "about_changes", "about_report"} <= shown  # the deck's words too
    english = sorted(key for key in shown if own[key] == default[key] and lang != "en")
    assert english == [], (lang, english)
    # The description fills these in: a wording that drops one leaves out what it says.
    assert "{time}" in own["about_version"] and "{count}" in own["about_version"], lang
    assert "{report}" in own["about_report"], lang
