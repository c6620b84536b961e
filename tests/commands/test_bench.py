"""The benchmark compares like with like, and its harness cannot be fooled by a broken contender."""

from __future__ import annotations

import importlib.metadata
import itertools
import os
import statistics
import sys
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

from ankibuild import build
from ankibuild.cli import main as ankibuild_main
from bench import baseline, floor, profile
from bench.generate import BANK_ID, GeneratedBank, edit_question, generate_bank
from bench.measure import ContenderFailed, Sample, check_packages, run_process
from bench.report import CONTENDERS, TARGETS, SizeResult, tables
from bench.run import UNITS, Project, _installed, run_contender, unit_order
from bench.run import main as bench_main

from ..ankitools import collection, import_package

LANGS = ("de", "fr", "en")


@pytest.fixture
def bank(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> GeneratedBank:
    """A 60-question bank; a fixed first-build time, so that a rebuild never waits for the clock."""
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1600000000")
    return generate_bank(tmp_path / "decks", questions=60)


def _build(bank: GeneratedBank, out: Path) -> None:
    build(decks=bank.decks, out=out)


def test_a_generated_bank_passes_a_strict_check(tmp_path: Path) -> None:
    """200 questions over 50 topic files: valid, and not even a warning."""
    bank = generate_bank(tmp_path / "decks", questions=200)
    args = ["check", "--strict", "--decks", str(bank.decks)]
    result = CliRunner().invoke(ankibuild_main, args)
    assert result.exit_code == 0, result.output
    assert "50 question file(s) with 200 question(s)" in result.output and result.output.endswith(": no problems.\n")
    assert len(bank.files) == 50


def test_the_generator_is_deterministic_with_realistic_text(tmp_path: Path) -> None:
    """The same seed gives the same bytes; lengths as documented, with accents and ligatures."""
    first = generate_bank(tmp_path / "a", questions=100, seed=7)
    second = generate_bank(tmp_path / "b", questions=100, seed=7)
    other = generate_bank(tmp_path / "c", questions=100, seed=8)
    assert [p.read_bytes() for p in first.files] == [p.read_bytes() for p in second.files]
    assert [p.read_bytes() for p in first.files] != [p.read_bytes() for p in other.files]
    questions = [q for path in first.files for q in yaml.safe_load(path.read_text(encoding="utf-8"))["questions"]]
    assert len(questions) == 100 and len({q["id"] for q in questions}) == 100
    for lang in LANGS:
        texts = [q[lang] for q in questions]
        assert 120 < statistics.mean(len(t["question"]) for t in texts) < 180
        assert 350 < statistics.mean(len(t["explanation"]) for t in texts) < 450
        assert {len(t["options"]) for t in texts} == {3, 4, 5}
    characters = set("".join(path.read_text(encoding="utf-8") for path in first.files))
    assert set("äöüßéèàçœ…") <= characters


def test_an_edit_changes_one_explanation_in_one_language(bank: GeneratedBank, tmp_path: Path) -> None:
    """The rebuild after an edit sees exactly one changed explanation; another seed edits again."""
    _build(bank, tmp_path / "dist")
    for seed in (1, 2):
        edit = edit_question(bank, seed=seed)
        result = build(decks=bank.decks, out=tmp_path / "dist")
        changes = [(c.lang, c.question, c.kind, c.describe()) for c in result.changes.items]
        assert changes == [(edit.lang, edit.question, "changed", f"changed {edit.question} (Explanation)")]


def test_baseline_floor_and_build_import_with_the_same_notes_and_decks(bank: GeneratedBank, tmp_path: Path) -> None:
    """Every package of every contender imports into Anki: 60 new notes, the same GUIDs and decks."""
    _build(bank, tmp_path / "dist")
    baseline.build(decks=bank.decks, out=tmp_path / "baseline")
    floor.build(decks=bank.decks, out=tmp_path / "floor")
    for lang in LANGS:
        seen = {}
        for name in ("dist", "baseline", "floor"):
            with collection(tmp_path / f"{name}-{lang}.anki2") as col:
                log = import_package(col, tmp_path / name / f"{BANK_ID}-{lang}.apkg")
                assert (log.new, log.updated, log.duplicate, log.conflicting) == (60, 0, 0, 0)
                assert col.note_count() == 60 and col.card_count() == 60
                guids = {col.get_note(nid).guid for nid in col.find_notes("")}
                decks = {d.name for d in col.decks.all_names_and_ids()} - {"Default"}
            seen[name] = (guids, decks)
        assert len(seen["dist"][1]) == 51  # the bank's title and a deck per topic file below it
        assert seen["baseline"] == seen["dist"] == seen["floor"]


def test_a_failing_contender_stops_the_benchmark(tmp_path: Path) -> None:
    """A non-zero exit raises, with the end of the contender's error output."""
    command = [sys.executable, "-c", "import sys; sys.exit('the build broke')"]
    with pytest.raises(ContenderFailed) as failure:
        run_process(command, cwd=tmp_path, env=os.environ, log=tmp_path / "logs" / "broken")
    assert "status 1" in str(failure.value) and "the build broke" in str(failure.value)


def test_each_run_reports_the_peak_memory_of_its_own_process(tmp_path: Path) -> None:
    """A small process measured after a large one reports its own, smaller peak."""
    large = run_process(
        [sys.executable, "-c", "x = b'x' * 200_000_000"], cwd=tmp_path, env=os.environ, log=tmp_path / "a"
    )
    small = run_process([sys.executable, "-c", "pass"], cwd=tmp_path, env=os.environ, log=tmp_path / "b")
    assert large.peak_mb > 190
    assert small.peak_mb < 100


def test_each_run_reports_the_processor_time_of_the_processes_it_waited_for(tmp_path: Path) -> None:
    """Two workers forked and waited for, each working for 0.3 s of its own processor time, count with the process
    that forked them: processor time, not wall time, which two cores would halve."""
    program = """
import os, time
for _ in range(2):
    if os.fork() == 0:
        while time.process_time() < 0.3:
            pass
        os._exit(0)
os.wait()
os.wait()
"""
    forked = run_process([sys.executable, "-c", program], cwd=tmp_path, env=os.environ, log=tmp_path / "a")
    assert forked.processor_seconds >= 0.6


def test_missing_broken_or_short_packages_are_refused(bank: GeneratedBank, tmp_path: Path) -> None:
    """Only packages holding every note and card pass the check."""
    paths = floor.build(decks=bank.decks, out=tmp_path / "floor")
    assert check_packages(paths, notes=60) == sum(p.stat().st_size for p in paths)
    with pytest.raises(ContenderFailed, match="holds 60 notes and 60 cards, expected 61"):
        check_packages(paths, notes=61)
    paths[1].write_bytes(b"not a zip")
    with pytest.raises(ContenderFailed, match="not a readable package"):
        check_packages(paths, notes=60)
    paths[1].unlink()
    with pytest.raises(ContenderFailed, match="was not written"):
        check_packages(paths, notes=60)


def test_a_cold_build_starts_without_lock_changelog_packages_or_cache(tmp_path: Path) -> None:
    """Everything a previous build may have left is removed; the bank itself stays."""
    project = Project.create(tmp_path / "project", questions=5, seed=0)
    leftovers = [
        project.bank.decks / "ankibuild.lock",
        project.bank.decks / "CHANGELOG.md",
        project.out("cold") / f"{BANK_ID}-de.apkg",
        project.bank.decks / ".ankibuild-cache" / "parsed.bin",
        project.root / ".cache" / "ankibuild" / "parsed.bin",
        project.root / "build-cache.sqlite",
    ]
    for path in leftovers:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(b"left over")
    project.make_cold()
    assert [path for path in leftovers if path.exists()] == []
    assert [path.is_file() for path in project.bank.files] == [True] * 5


class _IgnoresEdits(Project):
    """A build that returns at once, leaving the previous packages in place."""

    def command(self, key: str) -> list[str]:
        return [sys.executable, "-c", "pass"] if key == "edit" else super().command(key)


def test_a_build_that_misses_the_edit_stops_the_benchmark(tmp_path: Path) -> None:
    """Valid but stale packages after an edit do not count as a fast rebuild."""
    created = Project.create(tmp_path / "project", questions=10, seed=0)
    project = _IgnoresEdits(created.root, created.bank)
    run_contender(project, "cold", 0)
    with pytest.raises(ContenderFailed) as failure:
        run_contender(project, "edit", 0)
    assert "unchanged although its bank was edited" in str(failure.value)


def test_the_benchmark_runs_every_contender_and_prints_every_table(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A tiny run end to end, as Markdown; the generated banks are removed afterwards."""
    bench_main(["--sizes", "20", "--repeat", "1", "--workdir", str(tmp_path), "--markdown"])
    output = capsys.readouterr()
    for label in CONTENDERS.values():
        assert f"| 20 | {label} | 1 |" in output.out
        assert f"N=20 run 1/1 {label}:" in output.err
    assert "| time (c)/(b): cold build vs floor | ≤ 1 |" in output.out
    assert "| time (c)/(b'): cold build vs floor, GC off | ≤ 1.25 |" in output.out
    assert "not measured" in output.out and "load average (1, 5, 15 min): at start " in output.out
    assert "ankibuild installed in this environment: " in output.out
    assert list(tmp_path.iterdir()) == []


def _installed_as(tmp_path: Path, name: str, direct_url: str | None) -> importlib.metadata.Distribution:
    """An installation's metadata folder, with the PEP 610 record pip writes, or without one."""
    folder = tmp_path / f"{name}.dist-info"
    folder.mkdir()
    (folder / "METADATA").write_text("Metadata-Version: 2.1\nName: ankibuild\nVersion: 0.1.0\n")
    if direct_url is not None:
        (folder / "direct_url.json").write_text(direct_url)
    return importlib.metadata.PathDistribution(folder)


def test_the_benchmark_says_when_an_editable_install_slows_every_process(tmp_path: Path) -> None:
    """Its finder is started by every contender's process: the figures are not a user's then."""
    wheel = _installed_as(tmp_path, "wheel", '{"dir_info": {}, "url": "file:///src"}')
    editable = _installed_as(tmp_path, "editable", '{"dir_info": {"editable": true}, "url": "file:///src"}')
    broken = _installed_as(tmp_path, "broken", "[not json")
    bare = _installed_as(tmp_path, "bare", None)
    assert _installed([]) == "not installed"
    assert _installed([wheel, broken, bare]) == "not editable, as from a wheel"
    assert _installed([wheel, editable]).startswith("editable (pip install -e)")


def test_the_one_file_comparison_reports_its_memory_target(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Cold builds of the same questions in one file and in one per topic, and the ratio of their peaks."""
    bench_main(["--one-file", "20", "--workdir", str(tmp_path), "--markdown"])
    output = capsys.readouterr()
    assert "| 20 | one file per topic | 1 |" in output.out and "| 20 | one file | 1 |" in output.out
    assert "| memory: one file vs one per topic | ≤ 2 |" in output.out
    assert "N=20 in 1 file(s), run 1/1:" in output.err
    assert list(tmp_path.iterdir()) == []


def test_one_file_holds_the_same_questions(tmp_path: Path) -> None:
    """Byte for byte the questions of the files per topic, under one deck."""
    spread = generate_bank(tmp_path / "spread", questions=120)
    whole = generate_bank(tmp_path / "whole", questions=120, one_file=True)
    assert [p.name for p in whole.files] == ["all.yaml"]
    assert (whole.decks / "bank.yaml").read_bytes() == (spread.decks / "bank.yaml").read_bytes()
    bodies = [p.read_text(encoding="utf-8").partition("questions:\n")[2] for p in spread.files]
    deck, _, body = whole.files[0].read_text(encoding="utf-8").partition("questions:\n")
    assert body == "".join(bodies) and deck == spread.files[0].read_text(encoding="utf-8").partition("questions:")[0]


def test_repetitions_must_match_the_sizes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Three repetition counts for two sizes is a usage error, before anything runs."""
    with pytest.raises(SystemExit) as usage:
        bench_main(["--sizes", "10,20", "--repeat", "1,2,3", "--workdir", str(tmp_path)])
    assert usage.value.code == 2
    assert "--repeat takes one number, or one per size" in capsys.readouterr().err
    assert list(tmp_path.iterdir()) == []


def test_growth_and_large_bank_targets_are_judged_at_their_own_size() -> None:
    """The cold build's time at 50,000 against its own at 10,000; not measured without both."""
    results = {}
    for questions, cold, baseline_mb in ((10_000, 2.0, 100.0), (50_000, 12.0, 400.0)):
        result = SizeResult(questions)
        result.add("cold", Sample(cold, 300.0, cold))
        result.add("baseline", Sample(60.0, baseline_mb, 60.0))
        results[questions] = result
    growth, memory = (
        next(t for t in TARGETS if t.label.startswith(start))
        for start in ("time (c)/(c", "memory (c)/(a): cold build vs baseline, large")
    )
    assert growth.ratio(results, 50_000) == 6.0 and growth.ratio(results, 10_000) is None
    assert (growth.verdict(results), memory.verdict(results)) == ("FAIL", "pass")
    assert growth.verdict({50_000: results[50_000]}) == "not measured"


def test_each_target_shows_its_ratio_in_every_repetition() -> None:
    """Beside the ratio of medians judged, the lowest and highest ratio of one repetition's two runs: a machine
    that changes speed between repetitions moves both runs of one together."""
    result = SizeResult(10_000)
    for edited, cold, baseline_mb in ((0.6, 6.0, 100.0), (0.9, 6.0, 120.0), (0.5, 4.0, 110.0)):
        for key in CONTENDERS:
            seconds = {"edit": edited, "cold": cold}.get(key, 1.0)
            result.add(key, Sample(seconds, baseline_mb if key == "baseline" else 80.0, seconds))
    edit, memory, growth = (
        next(t for t in TARGETS if t.label.startswith(start))
        for start in ("time (e)/(c)", "memory (c)/(a): cold build vs baseline", "time (c)/(c")
    )
    results = {10_000: result}
    assert edit.by_repetition(results, 10_000) == pytest.approx((0.1, 0.15))
    assert memory.by_repetition(results, 10_000) == pytest.approx((80.0 / 120.0, 80.0 / 100.0))
    assert growth.by_repetition(results, 10_000) is None and edit.by_repetition(results, 50_000) is None
    single = SizeResult(10_000)
    single.add("edit", Sample(0.6, 90.0, 0.6))
    single.add("cold", Sample(6.0, 80.0, 6.0))
    assert edit.by_repetition({10_000: single}, 10_000) is None
    table = next(t for t in tables([result]) if t.title == "Targets")
    row = next(row for row in table.rows if row[0] == edit.label)
    assert row[table.headers.index("each repetition")] == "0.100-0.150"


def test_every_stage_of_the_profile_names_a_function_there_is() -> None:
    """A stage whose function moved would be reported as not measured, its time folded into the stage around it."""
    recorder = profile.Recorder()
    with profile.probed(recorder):
        pass
    assert recorder.missing == []


def test_no_contender_always_runs_right_after_the_same_other() -> None:
    """Over as many repetitions as there are units, each unit runs first once and right after each other one
    once: the cold build does not always follow the floor's 600 MB process, nor the edit the same build."""
    orders = [unit_order(repetition) for repetition in range(len(UNITS))]
    assert all(sorted(order) == list(range(len(UNITS))) for order in orders)
    assert sorted(order[0] for order in orders) == list(range(len(UNITS)))
    followed = sorted((before, after) for order in orders for before, after in itertools.pairwise(order))
    assert followed == [(a, b) for a in range(len(UNITS)) for b in range(len(UNITS)) if a != b]
