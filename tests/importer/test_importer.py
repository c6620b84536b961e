"""Importing pasted quiz pages into the bank: translations merged, files added to, never broken."""

from __future__ import annotations

import html
import shutil
from pathlib import Path
from typing import Any

import pytest
import yaml
from click.testing import CliRunner

from ankibuild.cli import main
from ankibuild.errors import AnkibuildError, BankError
from ankibuild.importer.bank import ImportResult, import_pages
from ankibuild.text.richtext import typography
from ankibuild.yamlfiles.writer import split_lines

from ..ankitools import TEMPLATE_ERROR, collection, import_package, render
from ..conftest import DATA, ROOT, Project, snapshot, use_scenario
from ..texttools import only_inserted

PAGES = DATA / "pages"
SEEDS = sorted((PAGES / "seeds").glob("*.txt"))
BF16 = {lang: PAGES / "bf16" / f"{lang}.txt" for lang in ("es", "ja", "ar", "ru", "ko")}
BAD = PAGES / "bad"
SAMPLE_ID = "elementwise-ops-memory-bound"
BF16_ID = "cual-es-la-principal-ventaja-de-bf16"  # from the Spanish question's first words


def _yaml(path: Path) -> Any:
    with path.open(encoding="utf-8") as file:
        return yaml.safe_load(file)


def _question(path: Path, question_id: str) -> dict[str, Any]:
    (question,) = [q for q in _yaml(path)["questions"] if q["id"] == question_id]
    assert isinstance(question, dict)
    return question


def _import(project: Project, pages: list[Path], out: str = "imported.yaml", **options: Any) -> ImportResult:
    return import_pages(pages, out=project.decks / out, decks=project.decks, **options)


def _without_sample_questions(project: Project) -> Project:
    (project.decks / "ai-hardware.yaml").unlink()
    return project


# -- the seed pages ---------------------------------------------------------------


def test_seed_pages_make_the_sample_question_text_for_text(project: Project) -> None:
    """German and French pages in one call: the sample bank's question in both, topic matched by name."""
    _without_sample_questions(project)
    result = _import(project, SEEDS, out="ai-hardware.yaml", question_id=SAMPLE_ID)
    sample = _question(ROOT / "decks" / "ai-hardware.yaml", SAMPLE_ID)
    imported = _question(project.decks / "ai-hardware.yaml", SAMPLE_ID)
    assert set(imported) == {"id", "topics", "answer", "de", "fr"}
    assert imported["answer"] == sample["answer"] == "B"
    # The sample's options were rewritten since, so that their length gives nothing away.
    for lang in ("de", "fr"):
        assert {**imported[lang], "options": None} == {**sample[lang], "options": None}
        assert len(imported[lang]["options"]) == len(sample[lang]["options"]) == 3
    assert imported["topics"] == ["ai-hardware"] and "ai-hardware" in sample["topics"]
    assert (result.added, result.kept, result.topic, result.new_topic) == (("de", "fr"), (), "ai-hardware", False)
    assert (project.decks / "bank.yaml").read_bytes() == (ROOT / "decks" / "bank.yaml").read_bytes()


def test_new_file_gets_the_deck_title_and_the_further_questions(project: Project) -> None:
    """The new question file is titled like the topic; the five further titles per language go under todo."""
    _without_sample_questions(project)
    result = _import(project, SEEDS, out="ai-hardware.yaml", question_id=SAMPLE_ID)
    data = _yaml(project.decks / "ai-hardware.yaml")
    assert data["deck"] == _yaml(ROOT / "decks" / "ai-hardware.yaml")["deck"]
    assert [len(data["todo"][lang]) for lang in ("de", "fr")] == [5, 5]
    assert data["todo"]["fr"][2] == "Dans une quantification post-entraînement des activations en INT8, quel est " + (
        "l'objectif de l'« étalonnage » (calibration) ?"
    )
    assert {lang: len(titles) for lang, titles in result.todo.items()} == {"de": 5, "fr": 5}
    assert result.written == (project.decks / "ai-hardware.yaml",)


def test_imported_seed_question_builds_and_imports_into_anki(project: Project, tmp_path: Path) -> None:
    """The imported bank builds; Anki imports the question with the pages' texts in German and French."""
    _without_sample_questions(project)
    _import(project, SEEDS, out="ai-hardware.yaml", question_id=SAMPLE_ID)
    project.build()
    sample = _question(project.decks / "ai-hardware.yaml", SAMPLE_ID)
    for lang in ("de", "fr"):
        with collection(tmp_path / f"{lang}.anki2") as col:
            log = import_package(col, project.out / f"ai-stack-{lang}.apkg")
            assert (log.new, log.updated, log.duplicate) == (1, 0, 0)
            (nid,) = col.find_notes(f'"ID:{SAMPLE_ID}"')
            note = col.get_note(nid)
            text = sample[lang]
            assert note["Question"] == html.escape(typography(text["question"], lang), quote=False)
            options = [html.escape(typography(o, lang), quote=False) for o in text["options"]]
            assert [note[letter] for letter in "ABC"] == options
            assert (note["D"], note["Answer"]) == ("", "B")
            assert note["Explanation"] == html.escape(typography(text["explanation"], lang), quote=False)
            assert note.tags == ["ai-hardware"]
            front, back = render(col, note.card_ids()[0])
            assert TEMPLATE_ERROR not in front + back and note["B"] in back


def test_page_text_that_looks_like_markdown_shows_as_on_the_page(project: Project, tmp_path: Path) -> None:
    """Stars, underscores, brackets, dollars and leading list marks of a page are shown, not read as markup."""
    _without_sample_questions(project)
    page = PAGES / "markup" / "de.txt"
    result = _import(project, [page])
    stored = _question(project.decks / "imported.yaml", result.question)["de"]
    assert stored["question"].startswith("Was bedeutet \\*W4A16\\* bei der Quantisierung")
    assert stored["options"][0] == "Gewichte mit 4 Bit, Aktivierungen mit 16 Bit (FP16)"  # plain text stays as it is
    project.build()
    lines = page.read_text(encoding="utf-8").splitlines()
    with collection(tmp_path / "de.anki2") as col:
        import_package(col, project.out / "ai-stack-de.apkg")
        note = col.get_note(col.find_notes(f'"ID:{result.question}"')[0])
        assert note["Question"] == html.escape(lines[2], quote=False)
        assert note["C"] == html.escape(lines[6].strip()[4:], quote=False)
        assert note["Explanation"] == "<br>".join(html.escape(line, quote=False) for line in lines[11:14])


@pytest.mark.parametrize("question_id", [None, SAMPLE_ID])
def test_seed_pages_already_in_the_sample_bank_change_nothing(project: Project, question_id: str | None) -> None:
    """Found by its text (or its id): both languages are there already and no file is touched."""
    before = snapshot(project.decks)
    result = _import(project, SEEDS, out="ai-hardware.yaml", question_id=question_id)
    assert (result.question, result.added, result.kept) == (SAMPLE_ID, (), ("de", "fr"))
    assert result.written == () and result.todo == {}  # the further questions are all in the sample bank
    assert snapshot(project.decks) == before


# -- other languages and scripts ------------------------------------------------------


def test_five_languages_become_one_question(project: Project) -> None:
    """Spanish, Japanese, Arabic, Russian and Korean pages: one question, the topic found by its names."""
    use_scenario(project, "import-bank")
    result = _import(project, list(BF16.values()), out="formats.yaml")
    assert result.question == BF16_ID
    assert (result.added, result.topic, result.new_topic) == (tuple(BF16), "numeric-formats", False)
    question = _question(project.decks / "formats.yaml", BF16_ID)
    assert (question["answer"], question["topics"]) == ("B", ["numeric-formats"])
    assert question["ja"]["question"] == "ニューラルネットワークの学習でBF16がFP16より優れている主な点はどれか？"
    assert question["ar"]["options"][2] == "تشغل قيم BF16 نصف الذاكرة التي تشغلها قيم FP16"
    assert question["ru"]["options"][0].startswith("У BF16 больше битов мантиссы")
    assert question["ko"]["explanation"].endswith("두 형식 모두 16비트를 차지한다.")
    paragraphs = question["es"]["explanation"].split("\n\n")
    assert paragraphs[1] == "Su precisión es menor que la de FP16; ambos formatos ocupan 16 bits."


def test_five_language_question_renders_in_anki_right_to_left_too(project: Project, tmp_path: Path) -> None:
    """The Japanese and Arabic notes import into Anki; the Arabic card is laid out right to left."""
    use_scenario(project, "import-bank")
    _import(project, list(BF16.values()), out="formats.yaml")
    project.build()
    for lang in ("ja", "ar"):
        with collection(tmp_path / f"{lang}.anki2") as col:
            import_package(col, project.out / f"numeric-formats-{lang}.apkg")
            (nid,) = col.find_notes(f'"ID:{BF16_ID}"')
            note = col.get_note(nid)
            assert note["Answer"] == "B" and "BF16" in note["Question"]
            front, _ = render(col, note.card_ids()[0])
            assert note["C"] in front and f'dir="{"rtl" if lang == "ar" else "ltr"}"' in front


def test_adding_to_a_hand_written_file_only_inserts_lines(project: Project) -> None:
    """Comments, quoting, blank lines and order of the existing file stay; the question and titles are added."""
    use_scenario(project, "import-bank")
    before = (project.decks / "formats.yaml").read_text(encoding="utf-8")
    result = _import(project, [BF16["es"], BF16["ja"]], out="formats.yaml")
    after = (project.decks / "formats.yaml").read_text(encoding="utf-8")
    added = only_inserted(before, after)
    e4m3 = "¿En qué se diferencian las variantes E4M3 y E5M2 de FP8?"
    assert added[0] == f"  - id: {BF16_ID}\n" and f"    - {e4m3}\n" in added
    lines = split_lines(after)
    assert lines.index(added[0]) < lines.index("# Questions to write next.\n")
    data = _yaml(project.decks / "formats.yaml")
    # the Spanish further titles: one is a question of the bank, one is under todo already
    assert data["todo"]["es"] == [
        "¿Qué hace el escalado de la pérdida en el entrenamiento con FP16?",
        e4m3,
    ]
    assert len(data["todo"]["ja"]) == 3 and result.todo["es"] == (e4m3,)


def test_translation_added_later_with_the_same_id(project: Project) -> None:
    """A later page with ``--id`` adds its language to the question; nothing else in the file changes."""
    use_scenario(project, "import-bank")
    _import(project, [BF16["es"]], out="formats.yaml")
    before = (project.decks / "formats.yaml").read_text(encoding="utf-8")
    result = _import(project, [BF16["ko"]], out="formats.yaml", question_id=BF16_ID)
    added = only_inserted(before, (project.decks / "formats.yaml").read_text(encoding="utf-8"))
    assert added[0] == "    ko:\n"
    assert (result.added, result.kept) == (("ko",), ())
    question = _question(project.decks / "formats.yaml", BF16_ID)
    assert set(question) == {"id", "topics", "answer", "es", "ko"}


def test_question_in_another_file_gets_its_new_language_there(project: Project) -> None:
    """Found by its Spanish text in formats.yaml, the question takes the Japanese page there, not in ``-o``."""
    use_scenario(project, "import-bank")
    _import(project, [BF16["es"]], out="formats.yaml")
    result = _import(project, [BF16["es"], BF16["ja"]], out="other.yaml")
    assert (result.path, result.added, result.kept) == (project.decks / "formats.yaml", ("ja",), ("es",))
    assert not (project.decks / "other.yaml").exists()


def test_new_topic_is_declared_in_bank_yaml_by_insertion(project: Project) -> None:
    """A title the bank does not know becomes a topic; languages without a page get a name to translate."""
    use_scenario(project, "import-new-topic")
    before = (project.decks / "bank.yaml").read_text(encoding="utf-8")
    result = _import(project, [BF16["es"], BF16["ja"]])
    slug = "formatos-numericos-para-el-aprendizaje"
    assert (result.topic, result.new_topic) == (slug, True)
    added = only_inserted(before, (project.decks / "bank.yaml").read_text(encoding="utf-8"))
    assert added == [
        f"  {slug}:\n",
        "    es: Formatos numéricos para el aprendizaje profundo\n",
        "    ja: 深層学習の数値フォーマット\n",
        "    en: Formatos numéricos para el aprendizaje profundo  # copied from 'es': translate it\n",
    ]
    assert any("no name in 'en'" in warning.message for warning in result.warnings)
    assert _question(project.decks / "imported.yaml", BF16_ID)["topics"] == [slug]
    project.build()


def test_topic_given_with_an_option(project: Project) -> None:
    """``topic`` names an existing topic: a page without a topic title imports under it."""
    _without_sample_questions(project)
    result = _import(project, [BAD / "no-topic-title.txt"], topic="ai-hardware::memory-bandwidth")
    assert result.topic == "ai-hardware::memory-bandwidth" and not result.new_topic


def test_derived_id_taken_by_another_question_gets_a_suffix(project: Project) -> None:
    """A derived id already used by a different question is made unique."""
    use_scenario(project, "import-bank")
    project.edit("formats.yaml", "id: fp32-master-weights", f"id: {BF16_ID}")
    result = _import(project, [BF16["es"]])
    assert (result.question, result.added) == (f"{BF16_ID}-2", ("es",))


def test_id_from_a_question_in_another_script(project: Project, tmp_path: Path) -> None:
    """The ASCII words of a Japanese question make its id; a question without any gets a digest of its text."""
    use_scenario(project, "import-bank")
    assert _import(project, [BF16["ja"]]).question == "bf16-fp16"
    page = tmp_path / "ko.txt"
    page.write_text(BF16["ko"].read_text(encoding="utf-8").replace("BF16이 FP16보다 나은 ", ""), encoding="utf-8")
    question = _import(project, [page], out="more.yaml").question
    assert question.startswith("q-") and len(question) == len("q-") + 8


def test_further_titles_merge_without_duplicates(project: Project) -> None:
    """A second page of the topic adds only the titles that are neither questions nor under todo yet."""
    use_scenario(project, "import-bank")
    _import(project, [BF16["es"]], out="new.yaml")
    result = _import(project, [PAGES / "loss-scaling" / "es.txt"], out="new.yaml")
    # the new question was under todo: that is pointed out, the line is left to the reader to remove
    assert any("also under 'todo'" in warning.message for warning in result.warnings)
    todo = _yaml(project.decks / "new.yaml")["todo"]["es"]
    assert todo == [
        "¿Qué hace el escalado de la pérdida en el entrenamiento con FP16?",
        "¿En qué se diferencian las variantes E4M3 y E5M2 de FP8?",
        "¿Qué ventaja tiene el formato TF32 de las GPU NVIDIA Ampere?",
    ]


def test_language_given_for_a_page_that_names_none(project: Project) -> None:
    """``languages`` names each page's language when it cannot be told; a language not built is added on request."""
    result = _import(project, [BAD / "unknown-language.txt"], languages=["fi"], topic="ai-hardware", add_language=True)
    assert (result.added, result.new_languages) == (("fi",), ("fi",))
    assert _yaml(project.decks / "bank.yaml")["languages"] == ["de", "fr", "en", "fi"]


def test_a_language_the_bank_does_not_build_is_refused_before_anything_is_written(project: Project) -> None:
    """The page's question would land in no deck: the import stops, names the page and offers --add-language."""
    before = snapshot(project.decks)
    result = CliRunner().invoke(main, ["import", str(BF16["es"]), "-o", "decks/new.yaml", "--topic", "ai-hardware"])
    assert result.exit_code == 1
    (error,) = [line for line in result.stderr.splitlines() if ": error:" in line]
    assert error.startswith(f"{BF16['es']}:6:1: error: the bank does not build 'es' (it builds de, fr, en)")
    assert "hint: import it with --add-language to add 'es' to the bank" in result.stderr
    assert snapshot(project.decks) == before


def test_add_language_adds_it_to_the_bank_in_place_and_it_builds(project: Project, tmp_path: Path) -> None:
    """--add-language writes 'es' into the one-line list, says so, and the build makes an 'es' package."""
    before = (project.decks / "bank.yaml").read_text(encoding="utf-8")
    args = ["import", str(BF16["es"]), "-o", "decks/formats.yaml", "--topic", "ai-hardware", "--add-language"]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, result.output
    assert "Added es to the bank's languages: 'ankibuild status' shows what is left to translate." in result.stdout
    after = (project.decks / "bank.yaml").read_text(encoding="utf-8")
    assert after == before.replace("languages: [de, fr, en]", "languages: [de, fr, en, es]")
    line = after.splitlines().index("  ai-hardware:") + 1
    assert f"decks/bank.yaml:{line}:3: warning: topic 'ai-hardware' has no name in 'es'" in result.stderr
    built = CliRunner().invoke(main, ["build"])
    assert built.exit_code == 0, built.output
    assert "es: 1 notes in 2 deck(s) -> dist/ai-stack-es.apkg (wrote)" in built.output
    with collection(tmp_path / "c.anki2") as col:
        import_package(col, project.out / "ai-stack-es.apkg")
        assert col.get_note(col.find_notes("")[0])["ID"] == BF16_ID


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        ("What is l'objectif of the GPU's tensor cores, and why?", "what-is-objectif-of-the-gpus-tensor"),
        ("Dans une quantification post-entraînement des activations", "dans-une-quantification"),
        ("Which one is the fastest of the", "which-one-is-the-fastest"),
        ("Donaudampfschifffahrtsgesellschaftskapitänsmütze", "donaudampfschifffahrtsgesellschaftskapit"),
    ],
)
def test_derived_ids_are_whole_words_and_readable(
    project: Project, tmp_path: Path, question: str, expected: str
) -> None:
    """An id from a question keeps whole words up to 40 characters, no elided article, no dangling 'of'."""
    use_scenario(project, "import-bank")
    page = tmp_path / "page.txt"
    text = BF16["es"].read_text(encoding="utf-8")
    asked = "¿Cuál es la principal ventaja de BF16 frente a FP16 al entrenar redes neuronales?"
    page.write_text(text.replace(asked, question, 1), encoding="utf-8")
    result = _import(project, [page], languages=["es"])
    assert result.question == expected and len(expected) <= 40


def test_a_new_question_keeps_the_blank_lines_of_the_file(project: Project) -> None:
    """Where the file's questions are set apart by blank lines, the imported one is too."""
    use_scenario(project, "import-bank")
    _import(project, [BF16["es"]], out="formats.yaml")
    spaced = (
        (project.decks / "formats.yaml")
        .read_text(encoding="utf-8")
        .replace(f"  - id: {BF16_ID}", f"\n  - id: {BF16_ID}")
    )
    (project.decks / "formats.yaml").write_text(spaced, encoding="utf-8")
    _import(project, [PAGES / "loss-scaling" / "es.txt"], out="formats.yaml")
    lines = split_lines((project.decks / "formats.yaml").read_text(encoding="utf-8"))
    starts = [number for number, line in enumerate(lines) if line.startswith("  - id: ")]
    assert len(starts) == 3
    assert [lines[number - 1] for number in starts[1:]] == ["\n", "\n"]


# -- errors: nothing written ----------------------------------------------------------


def _refused(project: Project, pages: list[Path], **options: Any) -> BankError:
    """Run an import that must fail; check the bank is untouched and return the error."""
    before = snapshot(project.decks)
    with pytest.raises(BankError) as caught:
        _import(project, pages, out="ai-hardware.yaml", **options)
    assert snapshot(project.decks) == before
    return caught.value


@pytest.mark.parametrize(
    ("name", "line", "message"),
    [
        ("no-options.txt", 5, "no options found"),
        ("no-answer-line.txt", 7, "no answer line"),
        ("answer-letter-no-option.txt", 10, "the answer names D, but there are 3 options"),
        ("answer-text-mismatch.txt", 13, "does not match option B"),
        ("no-question.txt", 1, "no question above the options"),
        ("no-explanation.txt", 10, "no explanation"),
        ("no-topic-title.txt", 1, "no topic title above the question"),
        ("unknown-language.txt", 3, "cannot tell the page's language"),
    ],
)
def test_bad_page_is_refused_with_its_file_and_line(project: Project, name: str, line: int, message: str) -> None:
    """Each broken page: one error naming the page, its line and what is missing; the bank unchanged."""
    _without_sample_questions(project)
    error = _refused(project, [BAD / name])
    problems = [p for p in error.problems if Path(p.file).name == name]
    assert [(p.line, message in p.message) for p in problems] == [(line, True)]


@pytest.mark.parametrize(
    ("other", "message"),
    [
        ("fr-answer-c.txt", "answer C of 3 options, but"),
        ("fr-four-options.txt", "answer B of 4 options, but"),
    ],
)
def test_pages_that_disagree_are_refused(project: Project, other: str, message: str) -> None:
    """Pages of one call must share their answer letter and number of options."""
    _without_sample_questions(project)
    error = _refused(project, [SEEDS[0], BAD / other])
    (problem,) = error.problems
    assert Path(problem.file).name == other and message in problem.message and "000_" in problem.message


def test_every_bad_page_of_a_call_is_reported_at_once(project: Project) -> None:
    """Three broken pages, three errors: one run shows everything to fix."""
    error = _refused(project, [BAD / "no-options.txt", BAD / "unknown-language.txt", BAD / "no-explanation.txt"])
    assert sorted(Path(p.file).name for p in error.problems) == [
        "no-explanation.txt",
        "no-options.txt",
        "unknown-language.txt",
    ]


def test_two_pages_in_one_language_are_refused(project: Project) -> None:
    """One page per language in a call."""
    error = _refused(project, [SEEDS[0], BAD / "fr-answer-c.txt", SEEDS[0]])
    assert any("a second page in 'de'" in p.message for p in error.problems)


def test_pages_of_the_bank_question_with_another_shape_are_refused(project: Project) -> None:
    """Adding a language to a question with another answer letter would make it another question."""
    error = _refused(project, [BAD / "fr-answer-c.txt"], question_id=SAMPLE_ID)
    assert "has answer B of 3" in error.problems[0].message


def test_page_that_is_another_question_than_the_id_is_refused(project: Project) -> None:
    """A page whose text is question X cannot be imported as question Y."""
    error = _refused(project, SEEDS, question_id="ptq-vs-qat")
    assert any(f"already '{SAMPLE_ID}'" in p.message for p in error.problems)


def test_invalid_bank_is_not_added_to(project: Project) -> None:
    """The bank must be valid before the import: its own errors are listed and nothing is written."""
    project.edit("ai-hardware.yaml", "answer: B", "answer: Z")
    error = _refused(project, SEEDS)
    assert any("answer must be one letter" in p.message for p in error.problems)


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"question_id": "Not A Slug"}, "--id 'Not A Slug' is not a slug"),
        ({"topic": "two words"}, "--topic 'two words' is not a valid tag"),
        ({"languages": ["german"]}, "--lang 'german' is not a language code"),
        ({"languages": ["de"]}, "--lang is given 1 time(s) for 2 page(s)"),
        ({"out": "../elsewhere.yaml"}, "is not in the bank folder"),
        ({"out": "bank.yaml"}, "is not a question file"),
    ],
)
def test_wrong_options_are_refused(project: Project, options: dict[str, Any], message: str) -> None:
    """Options that cannot be right are refused before any page is read."""
    out = project.decks / options.pop("out", "imported.yaml")
    with pytest.raises(AnkibuildError) as caught:
        import_pages(SEEDS, out=out, decks=project.decks, **options)
    assert message in caught.value.message


# -- command line -----------------------------------------------------------------------


def test_command_imports_then_reports_the_same_page_as_already_there(project: Project) -> None:
    """``ankibuild import`` twice: the second run writes nothing and the question is there once."""
    use_scenario(project, "import-bank")
    args = ["import", str(BF16["es"]), "-o", "decks/formats.yaml"]
    first = CliRunner().invoke(main, args)
    assert first.exit_code == 0, first.output
    assert f"Imported '{BF16_ID}' (es) into decks/formats.yaml, topic 'numeric-formats'." in first.stdout
    written = (project.decks / "formats.yaml").read_bytes()
    second = CliRunner().invoke(main, args)
    assert second.exit_code == 0, second.output
    assert "already has es" in second.stdout and "Nothing written" in second.stdout
    assert (project.decks / "formats.yaml").read_bytes() == written
    assert [q["id"] for q in _yaml(project.decks / "formats.yaml")["questions"]].count(BF16_ID) == 1


def test_command_reports_a_bad_page_and_exits_1(project: Project) -> None:
    """A broken page: exit code 1, its name, line and problem on stderr, no file written."""
    _without_sample_questions(project)
    result = CliRunner().invoke(main, ["import", str(BAD / "no-answer-line.txt"), "-o", "decks/ai-hardware.yaml"])
    assert result.exit_code == 1
    assert "no-answer-line.txt" in result.stderr and "7:1" in result.stderr
    assert "no answer line after the options" in result.stderr and "nothing was written" in result.stderr
    assert "Traceback" not in result.output
    assert not (project.decks / "ai-hardware.yaml").exists()


def test_command_takes_a_language_per_page(project: Project) -> None:
    """``--lang`` once per page, in order, overrides what the pages say."""
    use_scenario(project, "import-bank")
    shutil.copy(BF16["es"], project.root / "page.txt")
    result = CliRunner().invoke(main, ["import", "page.txt", "-o", "decks/formats.yaml", "--lang", "es", "--id", "x"])
    assert result.exit_code == 0, result.output
    assert _question(project.decks / "formats.yaml", "x")["es"]["question"].startswith("¿Cuál es")
