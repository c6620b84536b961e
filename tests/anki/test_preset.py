"""The class preset: what a student's Anki does with a bank's study options, option on and off."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from anki.collection import Collection
from anki.import_export_pb2 import ImportAnkiPackageOptions, ImportAnkiPackageRequest
from click.testing import CliRunner

from ankibuild import build, check
from ankibuild.cli import main
from ankibuild.newbank import init
from ankibuild.publish import NOTES_FILE, publish

from ..ankitools import collection, collection_notes, render, review_every_card, review_log
from ..conftest import Project, snapshot

STUDY = """study:
  new-cards-per-day: 7
  maximum-reviews-per-day: 150
  desired-retention: 0.85
  maximum-interval: 400
  learning-steps: [2, 15]
  relearning-steps: [5]
"""
PACKAGE = "ai-stack-en.apkg"
DEFAULT_PRESET = 1


def _set_study(project: Project, study: str) -> None:
    bank = project.decks / "bank.yaml"
    text = bank.read_text(encoding="utf-8").split("study:")[0]
    bank.write_text(text + study, encoding="utf-8")


def _import(col: Collection, package: Path, *, presets: bool) -> None:
    """Import as a student does, ticking "Import any deck presets" or not (Anki's default: not)."""
    options = ImportAnkiPackageOptions(with_deck_configs=presets)
    col.import_anki_package(ImportAnkiPackageRequest(package_path=str(package), options=options))
    col._clear_caches()


def _presets(col: Collection) -> dict[str, dict[str, Any]]:
    """The preset of each of the bank's decks, by deck name."""
    decks = [deck for deck in col.decks.all() if deck["name"] != "Default"]
    return {deck["name"]: col.decks.config_dict_for_deck_id(deck["id"]) for deck in decks}


def test_with_the_option_on_every_deck_gets_the_class_preset_with_its_values(project: Project) -> None:
    """The preset carries each study option where Anki reads it, and the parent deck has it too."""
    _set_study(project, STUDY)
    project.build(languages=["en"])
    with collection(project.root / "student.anki2") as col:
        _import(col, project.out / PACKAGE, presets=True)
        presets = _presets(col)
    assert "AI Quiz" in presets and len(presets) > 1
    for preset in presets.values():
        assert preset["name"].startswith("AI Quiz (7 new a day, 150 reviews a day, retention 0.85")
        assert (preset["new"]["perDay"], preset["rev"]["perDay"], preset["rev"]["maxIvl"]) == (7, 150, 400)
        assert preset["desiredRetention"] == 0.85
        assert (preset["new"]["delays"], preset["lapse"]["delays"]) == ([2, 15], [5])


def test_with_the_option_off_the_students_options_are_unchanged(project: Project) -> None:
    """Off (Anki's default), a first import gets the Default preset, and a re-import keeps the student's own."""
    _set_study(project, STUDY)
    project.build(languages=["en"])
    with collection(project.root / "student.anki2") as col:
        _import(col, project.out / PACKAGE, presets=False)
        assert {preset["id"] for preset in _presets(col).values()} == {DEFAULT_PRESET}
        own = col.decks.add_config_returning_id("mine")
        for deck in col.decks.all():
            col.decks.set_config_id_for_deck_dict(deck, own)
        _import(col, project.out / PACKAGE, presets=False)
        assert {preset["id"] for preset in _presets(col).values()} == {own}
        assert [preset["name"] for preset in col.decks.all_config()] == ["Default", "mine"]


def test_a_changed_setting_arrives_as_a_new_preset_and_nothing_else_changes(project: Project) -> None:
    """Anki never updates a preset it has: new settings come as a new one, and the notes and reviews stay."""
    _set_study(project, STUDY)
    project.build(languages=["en"])
    with collection(project.root / "student.anki2") as col:
        _import(col, project.out / PACKAGE, presets=True)
        first = {preset["id"] for preset in _presets(col).values()}
        review_every_card(col)
        notes, reviews = collection_notes(col), review_log(col)
        _set_study(project, STUDY.replace("7", "12"))
        project.build(languages=["en"])
        _import(col, project.out / PACKAGE, presets=True)
        presets = _presets(col)
        assert len({preset["id"] for preset in presets.values()} | first) == 2
        assert {preset["new"]["perDay"] for preset in presets.values()} == {12}
        assert {preset["name"] for preset in presets.values()} == {
            "AI Quiz (12 new a day, 150 reviews a day, retention 0.85, intervals up to 400 days, "
            "learning steps 2 15 min, relearning steps 5 min)"
        }
        assert (collection_notes(col), review_log(col)) == (notes, reviews)


def test_a_bank_without_study_options_carries_no_preset(project: Project) -> None:
    """Even with the option on, the decks keep the Default preset: the package has none of its own."""
    project.build(languages=["en"])
    with collection(project.root / "student.anki2") as col:
        _import(col, project.out / PACKAGE, presets=True)
        assert {preset["id"] for preset in _presets(col).values()} == {DEFAULT_PRESET}
        assert len(col.decks.all_config()) == 1


WRONG = """study:
  new-cards-per-day: many
  desired-retention: 1.5
  maximum-interval: 2.5
  learning-steps: [1, -3, x]
  relearning-steps: 10
  new-card-per-day: 5
"""


def test_every_wrong_study_option_is_reported_at_its_line_and_nothing_is_written(project: Project) -> None:
    """Each value out of its range or of the wrong shape, and an unknown key, in one run, with the fix."""
    project.build(languages=["en"])
    before = snapshot(project.decks, project.out)
    _set_study(project, WRONG)
    lines = project.decks.joinpath("bank.yaml").read_text(encoding="utf-8").count("\n") - WRONG.count("\n")
    result = CliRunner().invoke(main, ["check", "--format", "json"])
    found = {(p["line"] - lines, p["message"], p["hint"]) for p in json.loads(result.output)}
    assert result.exit_code == 1
    assert found == {
        (2, "'new-cards-per-day' cannot be 'many'", "write a whole number from 0 to 9999"),
        (3, "'desired-retention' cannot be '1.5'", "write a number from 0.7 to 0.99"),
        (4, "'maximum-interval' cannot be '2.5'", "write a whole number from 1 to 36500"),
        (5, "'learning-steps' cannot be '-3'", "write a number from 0.01 to 525600"),
        (5, "'learning-steps' cannot be 'x'", "write a number from 0.01 to 525600"),
        (
            6,
            "'relearning-steps' must be a list (- item), not text",
            "write one '- item' per line, indented below it, or [item, item]",
        ),
        (7, "unknown key 'new-card-per-day' in 'study'", "did you mean 'new-cards-per-day'?"),
    }
    assert CliRunner().invoke(main, ["build"]).exit_code == 1
    assert snapshot(project.decks, project.out) == {
        **before,
        project.decks / "bank.yaml": snapshot(project.decks)[project.decks / "bank.yaml"],
    }


HOSTILE_TITLE = "<img src=x onerror=alert(1)> *Quiz* [x](javascript:alert(1))"


def test_the_release_notes_ask_for_the_presets_only_when_the_decks_carry_one(project: Project) -> None:
    """Named as typed: the preset's name in Anki is the bank's title, and the notes show it escaped."""
    publish(decks=project.decks, last=project.root / "none", out=project.root / "first")
    assert "Import any deck presets" not in (project.root / "first" / NOTES_FILE).read_text(encoding="utf-8")
    project.edit("bank.yaml", "en: AI Quiz", f"en: '{HOSTILE_TITLE}'")
    _set_study(project, STUDY)
    publish(decks=project.decks, last=project.root / "first", out=project.root / "second")
    # The changelog's own lines are another matter: only the section on study options is this test's.
    notes = (project.root / "second" / NOTES_FILE).read_text(encoding="utf-8").split("### Study options")[1]
    notes = notes.split("###")[0]
    assert "tick **Import any deck presets**" in notes
    assert r"\<img src=x onerror=alert(1)\> \*Quiz\* \[x\](javascript:alert(1)) (7 new a day" in notes
    assert "<" not in notes.replace(r"\<", "")
    with collection(project.root / "student.anki2") as col:
        _import(col, project.root / "second" / PACKAGE, presets=True)
        names = {preset["name"] for preset in _presets(col).values()}
    assert len(names) == 1 and names.pop().startswith(f"{HOSTILE_TITLE} (7 new a day, 150 reviews a day")


def test_init_offers_the_class_settings_commented_out_and_they_build_as_written(tmp_path: Path) -> None:
    """Left as written, the bank sets none; with the #s removed, it is valid, and each setting shows in Anki."""
    init(tmp_path, languages=["en"], bank_id="phys", git=False)
    bank = tmp_path / "decks" / "bank.yaml"
    text = bank.read_text(encoding="utf-8")
    assert "# study:" in text and not check(decks=tmp_path / "decks").errors
    offered = text.split("# study:")[1]
    settings = re.sub(r"^# (#|[a-z]+:)", r"\1", offered.replace("#   ", "  "), flags=re.MULTILINE)
    bank.write_text(text.replace(offered, settings).replace("# study:", "study:"), "utf-8")
    assert not check(decks=tmp_path / "decks").errors
    assert {"report:", "home:", "description:"} <= {line.split(" ")[0] for line in settings.splitlines()}
    build(decks=tmp_path / "decks", out=tmp_path / "dist")
    with collection(tmp_path / "student.anki2") as col:
        _import(col, tmp_path / "dist" / "phys-en.apkg", presets=True)
        (preset,) = {preset["name"]: preset for preset in _presets(col).values()}.values()
        (back,) = (render(col, cid)[1] for cid in col.find_cards(""))
        descriptions = [deck["desc"] for deck in col.decks.all() if deck["name"] != "Default"]
    assert "issues/new?title=Mistake+in+" in back and ">Report a mistake</a>" in back
    assert sorted("releases" in text for text in descriptions) == [False, True]  # the parent deck, not its own
    assert (preset["new"]["perDay"], preset["rev"]["perDay"], preset["desiredRetention"]) == (20, 200, 0.9)


def test_with_split_each_package_brings_the_preset_to_its_deck_and_the_parent(project: Project) -> None:
    """One package per deck: importing one gives its deck and the parent deck the class preset."""
    _set_study(project, STUDY)
    project.build(languages=["en"], split=True)
    with collection(project.root / "student.anki2") as col:
        _import(col, project.out / "ai-stack-ai-hardware-en.apkg", presets=True)
        presets = _presets(col)
    assert len(presets) == 2 and {preset["new"]["perDay"] for preset in presets.values()} == {7}
