"""Translations that stay true: outdated texts flagged, coverage reported, PO files in and out."""

from __future__ import annotations

import errno
import json
import shutil
import subprocess
import warnings
from pathlib import Path
from typing import Any

import polib
import pytest
import yaml
from click.testing import CliRunner, Result

from ankibuild import check, pipeline
from ankibuild.cli import main
from ankibuild.errors import BankError, Problem, Problems
from ankibuild.lock.clock import Clock
from ankibuild.model import Place, Question, Translation
from ankibuild.translations.po import export_po, import_po
from ankibuild.translations.record import (
    TRANSLATIONS_FILE,
    Behind,
    Entry,
    Record,
    TextRef,
    advance,
    block,
    by_question,
    current_block,
    dated,
    dumps,
    observe,
    parse,
    read_record,
)
from ankibuild.translations.status import add_language, confirm, status

from ..ankitools import TEMPLATE_ERROR, collection, import_package, render
from ..conftest import Project, snapshot
from ..texttools import only_inserted

SAMPLE = "ai-hardware.yaml"
SAMPLE_ID = "elementwise-ops-memory-bound"
NEXT_ID = "conv-im2col-gemm"  # next to SAMPLE_ID in the record's order
EN_QUESTION = "Why do elementwise operations such as ReLU"
DE_QUESTION = "Warum benötigen elementweise Operationen wie ReLU"
FR_QUESTION = "Dans les réseaux de neurones convolutifs, pourquoi"


def _run(*args: str) -> Result:
    return CliRunner().invoke(main, list(args), catch_exceptions=False)


def _where(project: Project, question: str, lang: str) -> str:
    """``file:line:column`` of a question's language key in the sample file."""
    lines = (project.decks / SAMPLE).read_text(encoding="utf-8").splitlines()
    start = lines.index(f"  - id: {question}")
    line = next(n for n in range(start, len(lines)) if lines[n] == f"    {lang}:")
    return f"decks/{SAMPLE}:{line + 1}:5"


def _outdated(problems: list[Problem]) -> dict[tuple[str, str], str]:
    """(question, language) -> location of every outdated-translation problem."""
    return {(p.question, p.message.split("'")[1]): p.location for p in problems if "may be outdated" in p.message}


# -- outdated translations --------------------------------------------------------


def test_the_block_of_a_question_all_current_is_that_of_its_entries() -> None:
    """A build writes the block of every question from its texts' digests, without an entry for each."""
    langs = ("zh-Hant", "de", "pt-BR", "de-CH", "pt")
    question = Question("q-1", (), "A", {lang: Translation("?", "") for lang in langs}, Place(Path("q.yaml"), 1, 1))
    refs = [TextRef("q-1", lang, f"{index:016x}", Path("q.yaml"), index, 5) for index, lang in enumerate(langs)]
    assert current_block(question, refs) == ("q-1", block("q-1", {ref.lang: Entry(ref.digest) for ref in refs}))


def test_editing_english_flags_german_and_french_until_each_is_edited_or_marked(project: Project) -> None:
    """The English text changes: German and French may be outdated (file:line) until each catches up."""
    assert check(decks=project.decks).items == []
    project.edit(SAMPLE, EN_QUESTION, "Why do element-wise operations such as ReLU")
    warned = _outdated(check(decks=project.decks).items)
    assert warned == {(SAMPLE_ID, lang): _where(project, SAMPLE_ID, lang) for lang in ("de", "fr")}
    problem = next(p for p in check(decks=project.decks).items if p.question == SAMPLE_ID)
    assert "the 'en' text changed since the last build" in problem.message
    assert f"ankibuild translations ok {SAMPLE_ID} --lang de" in problem.hint

    with pytest.raises(BankError) as strict:
        check(decks=project.decks, strict=True)
    assert set(_outdated(strict.value.problems)) == {(SAMPLE_ID, "de"), (SAMPLE_ID, "fr")}
    assert _run("check", "--strict").exit_code == 1

    project.edit(SAMPLE, DE_QUESTION, "Warum brauchen elementweise Operationen wie ReLU")
    assert set(_outdated(check(decks=project.decks).items)) == {(SAMPLE_ID, "fr")}

    result = _run("translations", "ok", SAMPLE_ID, "--lang", "fr")
    assert result.exit_code == 0 and f"{SAMPLE_ID}: fr marked current." in result.output
    assert check(decks=project.decks).items == []
    assert _run("check", "--strict").exit_code == 0


def test_a_build_records_the_change_with_its_date_and_keeps_warning(project: Project) -> None:
    """After a build the change is in the record: warnings stay, dated, and a rebuild keeps them.

    The build that records the change tells it by the date it records: what it says stays true, and a
    rebuild with nothing changed, which tells what it told, says what a build from the record says.
    """
    project.edit(SAMPLE, EN_QUESTION, "Why do element-wise operations such as ReLU")
    result = project.build(clock=Clock(lambda: 1_760_000_000))
    told = [w.message for w in result.warnings if "may be outdated" in w.message]
    assert len(told) == 2 and all("the 'en' text changed on 2025-10-09" in m for m in told)
    record = (project.decks / TRANSLATIONS_FILE).read_text(encoding="utf-8")
    assert record.count(" behind en ") == 2 and record.count(" 2025-10-09\n") == 2
    assert [p.message for p in check(decks=project.decks).items] == told
    assert [w.message for w in project.build().warnings] == told  # unchanged: the same warnings, from the record

    confirm([SAMPLE_ID], decks=project.decks)  # every language behind
    assert check(decks=project.decks).items == []
    assert project.build().warnings == []


def test_a_build_that_fails_tells_a_change_as_seen_since_the_last_build(project: Project) -> None:
    """A build refused (here for its warnings, with ``strict``) records nothing: it tells no date."""
    project.edit(SAMPLE, EN_QUESTION, "Why do element-wise operations such as ReLU")
    before = (project.decks / TRANSLATIONS_FILE).read_bytes()
    with pytest.raises(BankError) as refused:
        project.build(strict=True, clock=Clock(lambda: 1_760_000_000))
    told = [p.message for p in refused.value.problems if "may be outdated" in p.message]
    assert len(told) == 2 and all("the 'en' text changed since the last build" in m for m in told)
    assert (project.decks / TRANSLATIONS_FILE).read_bytes() == before


def test_a_record_a_frozen_build_leaves_behind_is_written_by_the_next_build(project: Project) -> None:
    """A frozen build leaves the record as it is: the build after it, finding the bank as that one did, still
    writes it, and tells the change by the date it records."""
    record = project.decks / TRANSLATIONS_FILE
    project.build(clock=Clock(lambda: 1_760_000_000))
    before = record.read_bytes()
    project.edit(SAMPLE, EN_QUESTION, "Why do element-wise operations such as ReLU")
    project.build(clock=Clock(lambda: 1_760_000_000))
    record.write_bytes(before)  # a merge kept the other side's record
    project.build(frozen=True, clock=Clock(lambda: 1_760_086_400))
    assert record.read_bytes() == before
    result = project.build(clock=Clock(lambda: 1_760_086_400))
    assert record.read_text(encoding="utf-8").count(" behind en ") == 2
    told = [w.message for w in result.warnings if "may be outdated" in w.message]
    assert len(told) == 2 and all("the 'en' text changed on 2025-10-10" in m for m in told)


def test_undoing_the_change_clears_the_warning(project: Project) -> None:
    """Back to the text the translations were made from, nothing is outdated."""
    project.edit(SAMPLE, EN_QUESTION, "Why do element-wise operations such as ReLU")
    project.build()
    project.edit(SAMPLE, "Why do element-wise operations such as ReLU", EN_QUESTION)
    assert check(decks=project.decks).items == []


def test_an_edit_to_a_current_translation_makes_the_others_outdated(project: Project) -> None:
    """Any language can lead: a correction in French leaves German and English behind it."""
    project.edit(SAMPLE, FR_QUESTION, "Dans les réseaux convolutifs, pourquoi")
    assert set(_outdated(check(decks=project.decks).items)) == {(NEXT_ID, "de"), (NEXT_ID, "en")}


def test_ok_names_unknown_questions_and_languages(project: Project) -> None:
    result = _run("translations", "ok", "elementwise-ops-memory-bond")
    assert result.exit_code == 1 and f"did you mean '{SAMPLE_ID}'?" in result.output
    result = _run("translations", "ok", SAMPLE_ID, "--lang", "es")
    assert result.exit_code == 1 and "has no 'es' text" in result.output


def _git(repo: Path, *args: str, check: bool = True) -> str:
    identity = ("-c", "user.name=Student", "-c", "user.email=student@example.org", "-c", "commit.gpgsign=false")
    done = subprocess.run(["git", *identity, *args], cwd=repo, capture_output=True, text=True, check=False)
    assert done.returncode == 0 or not check, done.stdout + done.stderr
    return done.stdout


def test_two_branches_editing_neighbouring_questions_merge_cleanly_and_survive_a_clone(
    project: Project, tmp_path: Path
) -> None:
    """Classmates edit two questions on their own branches and build; git merges the record; a clone warns alike."""
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    repo = project.root
    (repo / ".gitignore").write_text("dist/\ndecks/.ankibuild.build-lock\n", encoding="utf-8")
    project.build()
    _git(repo, "init", "-q", "-b", "main")
    _git(repo, "add", "-A")
    _git(repo, "commit", "-qm", "bank")
    _git(repo, "checkout", "-q", "-b", "english")
    project.edit(SAMPLE, EN_QUESTION, "Why do element-wise operations such as ReLU")
    project.build()
    _git(repo, "commit", "-qam", "English")
    _git(repo, "checkout", "-q", "main")
    project.edit(SAMPLE, FR_QUESTION, "Dans les réseaux convolutifs, pourquoi")
    project.build()
    _git(repo, "commit", "-qam", "French")
    _git(repo, "merge", "-q", "--no-edit", "english", check=False)
    # The changelog's two new sections may conflict, as any two additions at one place do; the record does not.
    conflicted = set(_git(repo, "diff", "--name-only", "--diff-filter=U").split())
    assert conflicted <= {"decks/CHANGELOG.md"}
    if conflicted:
        _git(repo, "checkout", "--ours", "decks/CHANGELOG.md")
        _git(repo, "commit", "-qam", "Merge")
    expected = {(SAMPLE_ID, "de"), (SAMPLE_ID, "fr"), (NEXT_ID, "de"), (NEXT_ID, "en")}
    assert set(_outdated(check(decks=project.decks).items)) == expected
    clone = tmp_path / "clone"
    _git(tmp_path, "clone", "-q", str(repo), str(clone))
    assert set(_outdated(check(decks=clone / "decks").items)) == expected


def test_a_conflicted_record_is_reported_with_what_to_do(project: Project) -> None:
    path = project.decks / TRANSLATIONS_FILE
    lines = path.read_text(encoding="utf-8").splitlines()
    lines[5:5] = ["<<<<<<< HEAD"]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    with pytest.raises(BankError) as raised:
        check(decks=project.decks)
    (problem,) = raised.value.problems
    assert problem.location == f"decks/{TRANSLATIONS_FILE}:6:1" and "merge conflict" in problem.message
    assert "keep either side" in problem.hint


# -- status and add-language -------------------------------------------------------


def test_status_counts_each_language_plain_and_json(project: Project) -> None:
    """Six questions in three languages; an English edit leaves one German and one French behind."""
    project.edit(SAMPLE, EN_QUESTION, "Why do element-wise operations such as ReLU")
    result = _run("status")
    assert result.exit_code == 0
    rows = {line.split()[0]: line.split()[1:] for line in result.output.splitlines()[2:5]}
    assert rows == {"de": ["6", "0", "1", "0", "0"], "fr": ["6", "0", "1", "0", "0"], "en": ["6", "0", "0", "0", "0"]}
    assert f"de: 1 possibly outdated: {SAMPLE_ID}" in result.output
    data = json.loads(_run("status", "--format", "json").output)
    assert (data["bank"], data["questions"], data["errors"]) == ("ai-stack", 6, 0)
    assert list(data["languages"]) == ["de", "fr", "en"]
    assert data["languages"]["fr"] == {
        "translated": 6,
        "missing": 0,
        "outdated": 1,
        "missing_questions": [],
        "outdated_questions": [SAMPLE_ID],
        "missing_topic_names": [],
        "missing_deck_titles": [],
        "missing_title": False,
    }


def test_add_language_changes_one_line_and_says_what_is_left(project: Project) -> None:
    bank = project.decks / "bank.yaml"
    before = bank.read_text(encoding="utf-8")
    result = _run("add-language", "es")
    assert result.exit_code == 0, result.output
    after = bank.read_text(encoding="utf-8")
    assert [line for line in after.splitlines() if line not in before.splitlines()] == ["languages: [de, fr, en, es]"]
    assert len(after.splitlines()) == len(before.splitlines())
    assert "6 question(s) to translate" in result.output and "4 topic name(s)" in result.output
    assert "1 deck title(s): ai-hardware" in result.output and "the bank's title" in result.output
    (es,) = [lang for lang in status(project.decks).languages if lang.lang == "es"]
    assert (len(es.translated), len(es.missing), es.topic_names[0], es.title) == (0, 6, "ai-hardware", True)
    assert "already has 'es'" in _run("add-language", "es").output
    assert "not a language code" in _run("add-language", "spanish").output


def test_add_language_to_a_block_list_keeps_the_file_as_written(project: Project) -> None:
    project.edit("bank.yaml", "languages: [de, fr, en]", "languages:  # the decks to build\n  - de\n  - fr\n  - en\n")
    before = (project.decks / "bank.yaml").read_text(encoding="utf-8")
    add_language("it", project.decks)
    assert only_inserted(before, (project.decks / "bank.yaml").read_text(encoding="utf-8")) == ["  - it\n"]


# -- PO files ---------------------------------------------------------------------


def _translate(po_path: Path, prefix: str) -> None:
    """What a translator does in a PO editor: every entry translated and confirmed."""
    po = polib.pofile(str(po_path))
    for entry in po:
        entry.msgstr = f"{prefix} {entry.msgid}"
        entry.flags = [flag for flag in entry.flags if flag != "fuzzy"]
    po.save()


def test_a_po_round_trip_adds_a_language_that_builds_and_imports_into_anki(project: Project, tmp_path: Path) -> None:
    """add-language, export, translate, import, build: the Spanish deck holds every question in Spanish."""
    add_language("es", project.decks)
    po_path = tmp_path / "es.po"
    result = _run("translations", "export", "--lang", "es", "--from", "en", "-o", str(po_path))
    assert result.exit_code == 0 and "42 text(s) from 'en' to 'es', 0 translated" in result.output
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        po = polib.pofile(str(po_path), check_for_duplicates=True)
    assert po.metadata["Language"] == "es" and po.metadata["X-Source-Language"] == "en"
    assert {entry.msgctxt for entry in po if entry.msgctxt.startswith(SAMPLE_ID)} == {
        f"{SAMPLE_ID}:{field}" for field in ("question", "option-A", "option-B", "option-C", "explanation")
    }
    if shutil.which("msgfmt"):
        checked = subprocess.run(["msgfmt", "--check", "-o", "/dev/null", str(po_path)], capture_output=True, text=True)
        assert checked.returncode == 0 and checked.stderr == "", checked.stderr

    _translate(po_path, "ES")
    before = {path: path.read_text(encoding="utf-8") for path in (project.decks / SAMPLE, project.decks / "bank.yaml")}
    result = _run("translations", "import", str(po_path))
    assert result.exit_code == 0, result.output
    assert "Imported 42 'es' text(s)" in result.output
    for path, text in before.items():
        only_inserted(text, path.read_text(encoding="utf-8"))  # nothing there before changed or moved
    assert check(decks=project.decks).items == []
    assert [lang.complete for lang in status(project.decks).languages] == [True] * 4

    project.build()
    with collection(tmp_path / "es.anki2") as col:
        log = import_package(col, project.out / "ai-stack-es.apkg")
        assert (log.new, log.updated, log.duplicate) == (6, 0, 0)
        note = col.get_note(col.find_notes(f'"ID:{SAMPLE_ID}"')[0])
        assert note["Question"].startswith("ES Why do elementwise operations")
        assert note.tags == ["ai-hardware", "ai-hardware::memory-bandwidth"]
        front, back = render(col, note.card_ids()[0])
        assert TEMPLATE_ERROR not in front + back and note["B"] in back
        assert col.decks.by_name("ES AI Quiz::ES AI hardware and software stack") is not None


def test_a_po_whose_source_changed_since_the_export_is_refused_with_nothing_written(
    project: Project, tmp_path: Path
) -> None:
    po_path = tmp_path / "fr.po"
    export_po("fr", po_path, source="en", decks=project.decks)
    _translate(po_path, "FR")
    project.edit(SAMPLE, EN_QUESTION, "Why do element-wise operations such as ReLU")
    before = snapshot(project.decks)
    result = _run("translations", "import", str(po_path))
    assert result.exit_code == 1
    entry = next(e for e in polib.pofile(str(po_path)) if e.msgctxt == f"{SAMPLE_ID}:question")
    assert f"fr.po:{entry.linenum}:1: error: the source text of '{SAMPLE_ID}:question' changed" in " ".join(
        result.output.split()
    )
    assert "export it again" in result.output and "nothing was written" in result.output
    assert snapshot(project.decks) == before


def test_an_entry_of_a_question_gone_is_told_as_every_warning_is(project: Project, tmp_path: Path) -> None:
    """At its line of the PO file, its severity said once, as the build tells its warnings."""
    po_path = tmp_path / "fr.po"
    export_po("fr", po_path, source="en", decks=project.decks)
    po = polib.pofile(str(po_path))
    po.append(polib.POEntry(msgctxt="gone-question:question", msgid="Gone?", msgstr="Parti ?"))
    po.save()
    entry = next(e for e in polib.pofile(str(po_path)) if e.msgctxt == "gone-question:question")
    result = _run("translations", "import", str(po_path))
    assert result.exit_code == 0
    (line,) = [line for line in result.output.splitlines() if "gone-question" in line]
    assert line.startswith(f"fr.po:{entry.linenum}:1: warning: ") and line.count("warning") == 1, line


def test_outdated_translations_export_fuzzy_and_a_reviewed_import_makes_them_current(
    project: Project, tmp_path: Path
) -> None:
    """The translator sees the French texts behind the English edit as fuzzy; confirming them clears French."""
    project.edit(SAMPLE, EN_QUESTION, "Why do element-wise operations such as ReLU")
    comment = "      # checked by the teacher\n"
    path = project.decks / SAMPLE
    project.edit(SAMPLE, "      question: Pourquoi les opérations", comment + "      question: Pourquoi les opérations")
    po_path = tmp_path / "fr.po"
    result = export_po("fr", po_path, source="en", decks=project.decks)
    assert (result.entries, result.translated, result.fuzzy) == (42, 42, 5)
    po = polib.pofile(str(po_path))
    fuzzy = {entry.msgctxt for entry in po if entry.fuzzy}
    assert fuzzy == {e.msgctxt for e in po if e.msgctxt.startswith(f"{SAMPLE_ID}:")}
    for entry in po:
        if entry.msgctxt == f"{SAMPLE_ID}:question":
            entry.msgstr = entry.msgstr.replace("Pourquoi les opérations", "Pourquoi donc les opérations")
        entry.flags = []
    po.save()
    before = path.read_text(encoding="utf-8")
    imported = import_po(po_path, decks=project.decks)
    assert imported.written == 1 and SAMPLE_ID in imported.current
    after = path.read_text(encoding="utf-8")
    changed = [line for line in after.splitlines() if line not in before.splitlines()]
    assert len(changed) == 1 and changed[0].startswith("      question: Pourquoi donc les opérations")
    assert comment in after
    assert set(_outdated(check(decks=project.decks).items)) == {(SAMPLE_ID, "de")}


def test_an_unreadable_po_file_is_an_error_with_its_line(project: Project, tmp_path: Path) -> None:
    po_path = tmp_path / "es.po"
    po_path.write_text('msgid ""\nmsgstr ""\n\nnot a PO line\nmsgid "a"\nmsgstr "b"\n', encoding="utf-8")
    before = snapshot(project.decks)
    result = _run("translations", "import", str(po_path))
    assert result.exit_code == 1 and "es.po:4:1: error: not a PO file that can be read" in result.output
    assert snapshot(project.decks) == before


# -- the record --------------------------------------------------------------------


def _state(record: Record) -> tuple[list[tuple[str, str]], list[TextRef]]:
    """The blocks and texts of a bank whose texts are those ``record`` has, with a few edits."""
    texts = {q: {lang: entry.digest for lang, entry in entries.items()} for q, entries in record.items()}
    texts["q1"]["en"] = "1" * 16  # q1: edited while current
    texts["q2"]["de"] = "2" * 16  # q2: de edited while behind: caught up
    texts["q3"] = {"de": "3" * 16}  # q3: new
    del texts["q4"]  # q4: gone
    refs = [
        TextRef(q, lang, digest, Path("x.yaml"), 1, 1)
        for q, digests in texts.items()
        for lang, digest in digests.items()
    ]
    blocks = [(q, block(q, {lang: Entry(digest) for lang, digest in digests.items()})) for q, digests in texts.items()]
    return blocks, refs


def test_a_build_brings_the_record_up_to_date_as_the_commands_do(tmp_path: Path) -> None:
    """The build compares blocks as text and parses only the rest: the file it writes is the one advance() makes."""
    behind = Behind("en", "a" * 16, "2026-11-01")
    record: Record = {
        q: {"de": Entry(f"{n}d" * 8), "en": Entry(f"{n}e" * 8), "fr": Entry(f"{n}f" * 8)}
        for n, q in enumerate(("q1", "q2", "q4", "q5"))
    }
    record["q2"]["de"] = Entry(record["q2"]["de"].digest, behind)
    path = tmp_path / TRANSLATIONS_FILE
    path.write_text(dumps(record), encoding="utf-8")
    blocks, refs = _state(record)
    seen = observe(path, blocks, lambda questions: [r for r in refs if r.question in questions], problems=Problems())
    expected = advance(read_record(path, Problems()), by_question(refs), "")
    assert seen.text("2026-11-30") == dumps({q: dated(entries, "2026-11-30") for q, entries in expected.items()})
    assert set(seen.behind) == {"q1"} and set(seen.behind["q1"]) == {"de", "en", "fr"}
    assert [lang for lang, e in seen.behind["q1"].items() if e.behind] == ["de", "fr"]


@pytest.mark.parametrize(
    ("line", "written"),
    [
        (5, "q1\n  de 0123456789abcdef"),
        (6, "q1:\nde 0123456789abcdef"),
        (6, "q1:\n  de 0123456789abcdef behind xx 0123456789abcdef"),
        (6, "q1:\n  de 0123456789abcdef behind en 0123456789abcdef \x1b[31m"),
    ],
)
def test_a_damaged_record_names_its_line(project: Project, line: int, written: str) -> None:
    """A record line that is not one ankibuild writes is an error at its line; nothing it holds is shown."""
    path = project.decks / TRANSLATIONS_FILE
    path.write_text(dumps({}) + "\n" + written.replace("q1", SAMPLE_ID) + "\n", encoding="utf-8")
    with pytest.raises(BankError) as raised:
        check(decks=project.decks)
    (problem,) = raised.value.problems
    assert problem.location == f"decks/{TRANSLATIONS_FILE}:{line}:1" and "damaged" in problem.message
    assert "\x1b" not in problem.message


@pytest.mark.parametrize(
    ("line", "text"),
    [
        (1, "q1\n  de 0123456789abcdef\n"),
        (3, "\n\n  de 0123456789abcdef\nq1:\n"),
        (4, "q1:\n  de 0123456789abcdef\nq2:\nde 0123456789abcdef\n"),
        (7, "# a comment\n\nq1:\n  de 0123456789abcdef\n\n\nq2\n"),
    ],
)
def test_a_damaged_block_is_found_at_its_line_with_or_without_a_header(tmp_path: Path, line: int, text: str) -> None:
    """A block starts at any line neither indented nor a comment: the first of the file, or one right after another."""
    problems = Problems()
    assert parse(tmp_path / TRANSLATIONS_FILE, text, problems) == {}
    (problem,) = problems.items
    assert problem.line == line and "damaged" in problem.message


def test_blocks_without_a_header_or_a_blank_line_between_are_read_and_one_written_twice_is_one() -> None:
    """As git's union merge may leave them: a question's two blocks are read as one."""
    text = "q1:\n  de 0123456789abcdef\nq2:\n  en 0123456789abcdef\nq1:\n  en 0123456789abcdef\n"
    problems = Problems()
    record = parse(Path(TRANSLATIONS_FILE), text, problems)
    assert not problems.items
    assert {q: sorted(entries) for q, entries in record.items()} == {"q1": ["de", "en"], "q2": ["en"]}


TRICKY = {
    "question": "yes: \"quoted\" and 'single' # not a comment",
    "option-A": "- a dash, {{Question}} and [[label]]",
    "option-B": "no",
    "option-C": "1.50",
    "explanation": "Two lines,\n  the second indented: kept.\n\n- and a list \\ with a backslash",
}


def test_po_texts_of_any_shape_come_back_as_typed(project: Project, tmp_path: Path) -> None:
    """Whatever a translator types lands in the YAML so that it reads back exactly, and a gone entry is only noted."""
    add_language("it", project.decks)
    po_path = tmp_path / "it.po"
    export_po("it", po_path, source="en", decks=project.decks)
    po = polib.pofile(str(po_path))
    for entry in po:
        field = entry.msgctxt.removeprefix(f"{SAMPLE_ID}:")
        entry.msgstr = TRICKY.get(field, "") if entry.msgctxt.startswith(SAMPLE_ID) else ""
        entry.msgstr = f"IT {entry.msgid}" if entry.msgctxt.startswith("@") else entry.msgstr
    po.append(polib.POEntry(msgctxt="gone-question:question\x1b[2J", msgid="Gone?", msgstr="Via?"))
    po.save()
    result = import_po(po_path, decks=project.decks)
    assert result.current == [SAMPLE_ID] and len(result.warnings) == 1 and "\x1b" not in result.warnings[0].describe()
    data = yaml.safe_load((project.decks / SAMPLE).read_text(encoding="utf-8"))
    (question,) = [q for q in data["questions"] if q["id"] == SAMPLE_ID]
    assert question["it"] == {
        "question": TRICKY["question"],
        "options": [TRICKY["option-A"], "no", "1.50"],
        "explanation": TRICKY["explanation"],
    }
    assert not [p for p in check(decks=project.decks).items if p.question == SAMPLE_ID and "'it'" in p.message]


def test_a_new_language_builds_step_by_step_beside_the_complete_ones(project: Project, tmp_path: Path) -> None:
    """After add-language the bank builds: its complete languages as before, the new one with what is translated."""
    project.build()
    before = {path.name: path.read_bytes() for path in project.out.glob("*.apkg")}
    add_language("es", project.decks)
    result = project.build()
    assert {output.lang: output.notes for output in result.outputs} == {"de": 6, "fr": 6, "en": 6, "es": 0}
    assert {path.name: path.read_bytes() for path in project.out.glob("*.apkg") if path.name in before} == before

    po_path = tmp_path / "es.po"
    export_po("es", po_path, source="en", decks=project.decks)
    po = polib.pofile(str(po_path))
    for entry in po:  # one question translated so far, and no topic name or title yet
        entry.msgstr = f"ES {entry.msgid}" if entry.msgctxt.startswith(f"{SAMPLE_ID}:") else ""
    po.save()
    import_po(po_path, decks=project.decks)
    result = project.build()
    assert {output.lang: output.notes for output in result.outputs} == {"de": 6, "fr": 6, "en": 6, "es": 1}
    (es,) = [lang for lang in status(project.decks).languages if lang.lang == "es"]
    assert (len(es.translated), len(es.missing), len(es.topic_names), len(es.deck_titles)) == (1, 5, 4, 1)
    with collection(tmp_path / "es.anki2") as col:
        assert import_package(col, project.out / "ai-stack-es.apkg").new == 1
        note = col.get_note(col.find_notes(f'"ID:{SAMPLE_ID}"')[0])
        assert note["Question"].startswith("ES Why do elementwise operations")
        front, back = render(col, note.card_ids()[0])
        assert TEMPLATE_ERROR not in front + back
    assert _run("check", "--strict").exit_code == 1  # the names standing in are warnings


def test_a_build_that_cannot_write_the_records_while_its_packages_are_made_changes_no_package(
    project: Project, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The records are written while the packages are made: should that fail (the disk full by then), the build
    fails before it puts any package in place, and leaves no temporary file."""
    project.build()
    project.edit(SAMPLE, EN_QUESTION, "Why do element-wise operations such as ReLU")
    before = snapshot(project.out, project.decks)

    def full(*args: Any) -> Any:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(pipeline, "ready_seen", full)
    with pytest.raises(OSError, match="No space left on device"):
        project.build()
    assert snapshot(project.out, project.decks) == before
    assert sorted([*project.decks.glob(".*.tmp"), *project.out.glob(".*.tmp")]) == []
