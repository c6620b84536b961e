"""Rebuilds do only the work their changes need: none when nothing changed."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from typing import Any

import pytest

from ankibuild import pipeline
from ankibuild.anki import package, target
from ankibuild.load import stage as load

from ..conftest import ROOT, Project

pytestmark = pytest.mark.slow  # builds and rebuilds of the sample bank

EDIT = ("ai-hardware.yaml", "Die arithmetische Intensität ist sehr niedrig", "Die Intensität ist niedrig")


def _no_pipeline(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(*args: Any, **options: Any) -> None:
        raise AssertionError("the pipeline ran")

    monkeypatch.setattr(pipeline, "run", refuse)


def test_nothing_changed_answers_without_running_the_pipeline(
    project: Project, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The second build of unchanged loaded returns the first one's summary and touches nothing."""
    first = project.build()
    _no_pipeline(monkeypatch)
    second = project.build()
    assert (second.bank_id, second.decks, second.questions) == (first.bank_id, first.decks, first.questions)
    assert [(o.path, o.notes, o.written) for o in second.outputs] == [(o.path, o.notes, False) for o in first.outputs]
    assert not second.changes and not second.lock_written


#: What only a build with work to do needs: loading any of them would make the quick look slow again.
HEAVY_MODULES = (
    "ankibuild.pipeline",
    "ankibuild.kinds",
    "ankibuild.model",
    "ankibuild.load.stage",
    "ankibuild.load.schema",
    "ankibuild.yamlfiles.reader",
    "ankibuild.anki.target",
    "ankibuild.lock.stamp",
    "yaml",
    "genanki",
    "sqlite3",
    "markdown_it",
    "pygments",
    "latex2mathml",
)
_LOADED = """
import json, sys
from ankibuild.cli import main
try:
    main(["build", "--decks", "decks", "-q"])
except SystemExit as done:
    print(json.dumps([done.code, sorted(sys.modules)]), file=sys.stderr)
"""


def test_nothing_changed_is_told_without_loading_the_pipeline(project: Project) -> None:
    """The command in a process of its own: only what the quick look needs is imported, whatever the timing."""
    project.build()
    ran = subprocess.run([sys.executable, "-c", _LOADED], capture_output=True, text=True, cwd=project.root, check=True)
    code, modules = json.loads(ran.stderr.splitlines()[-1])
    assert code == 0
    heavy = [name for name in modules if any(name == h or name.startswith(f"{h}.") for h in HEAVY_MODULES)]
    assert not heavy


def test_an_edit_updates_the_kept_collection_without_loading_genanki(project: Project) -> None:
    """genanki (and asyncio, which it loads) only write a collection from nothing: an edit's build needs neither."""
    project.build()
    project.edit("ai-hardware.yaml", "Die arithmetische Intensität", "Die Intensität")
    ran = subprocess.run([sys.executable, "-c", _LOADED], capture_output=True, text=True, cwd=project.root, check=True)
    code, modules = json.loads(ran.stderr.splitlines()[-1])
    assert code == 0
    assert not [name for name in modules if name.split(".")[0] in {"genanki", "asyncio"}]


#: What only processing a question file needs, or exporting: after one edit, a worker processes the file.
PARSING = ("ankibuild.load.fields", "ankibuild.text.richtext", "ankibuild.text.bidi", "ankibuild.kinds.platform")


def test_an_edit_is_rendered_without_loading_the_renderers_here(project: Project) -> None:
    """The edited file is processed in a worker forked for it: the build's own process restores the other (of
    clozes), and loads neither the renderers nor, exporting nothing, the platform questions."""
    shutil.copy(ROOT / "decks" / "cloze.yaml", project.decks)
    project.build()
    project.edit(*EDIT)
    ran = subprocess.run([sys.executable, "-c", _LOADED], capture_output=True, text=True, cwd=project.root, check=True)
    code, modules = json.loads(ran.stderr.splitlines()[-1])
    assert code == 0
    assert "ankibuild.load.deckfiles" in modules
    assert not [name for name in modules if name in PARSING]


_AT_FORK = """
import json, sys
from ankibuild.load import deckfiles
forked = []
class Recorded(deckfiles.Forked):
    def __init__(self, *args, **kwargs):
        forked.append(sorted(sys.modules))
        super().__init__(*args, **kwargs)
deckfiles.Forked = Recorded
from ankibuild.cli import main
try:
    main(["build", "--decks", "decks", "-q"])
except SystemExit as done:
    print(json.dumps([done.code, forked, sorted(sys.modules)]), file=sys.stderr)
"""
#: What only planning and writing the outputs needs: loaded while the edited file is processed, not before.
PLANNING = ("ankibuild.anki.target", "ankibuild.anki.published", "ankibuild.lock.stamp", "ankibuild.export.target")


def test_the_edited_files_worker_is_forked_before_the_targets_are_loaded(project: Project) -> None:
    """The worker that processes the edited file needs none of the modules that plan the outputs: forked
    before they are loaded, it does not wait for them; they are loaded meanwhile, and the build goes on."""
    shutil.copy(ROOT / "decks" / "cloze.yaml", project.decks)  # restored while the edited file is processed
    project.build()
    project.edit(*EDIT)
    ran = subprocess.run([sys.executable, "-c", _AT_FORK], capture_output=True, text=True, cwd=project.root, check=True)
    code, forked, modules = json.loads(ran.stderr.splitlines()[-1])
    assert code == 0
    assert len(forked) == 1
    assert "ankibuild.load.deckfiles" in forked[0] and not [name for name in forked[0] if name in PLANNING]
    assert all(name in modules for name in PLANNING)


_ON_WORKERS = """
import json, sys
from ankibuild.load import deckfiles
deckfiles.PARALLEL_BYTES = 0  # the sample's two files are enough to process each on a worker
from ankibuild.cli import main
try:
    main(["build", "--decks", "decks", "-q"])
except SystemExit as done:
    print(json.dumps([done.code, sorted(sys.modules)]), file=sys.stderr)
"""


@pytest.mark.skipif((os.cpu_count() or 1) < 2, reason="files are processed on workers only with two cores")
def test_workers_forked_for_many_files_find_the_renderers_loaded(project: Project) -> None:
    """Loaded before the workers are forked, the renderers are loaded once, not by each of them."""
    shutil.copy(ROOT / "decks" / "cloze.yaml", project.decks)
    ran = subprocess.run(
        [sys.executable, "-c", _ON_WORKERS], capture_output=True, text=True, cwd=project.root, check=True
    )
    code, modules = json.loads(ran.stderr.splitlines()[-1])
    assert code == 0
    assert "ankibuild.load.fields" in modules and "ankibuild.text.bidi" in modules


def test_a_check_after_a_build_answers_without_running_the_pipeline(
    project: Project, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Options that change only how a build goes (--check, --frozen, ...) find the last build's record."""
    project.build()
    _no_pipeline(monkeypatch)
    checked = project.build(dry_run=True, frozen=True, allow_shape_change=True, wait=0)
    assert checked.outputs and not any(o.written for o in checked.outputs) and not checked.changes


@pytest.mark.parametrize("option", [{"strict": True}, {"split": True}, {"languages": ["de"]}])
def test_an_option_that_changes_what_a_build_makes_runs_the_pipeline(
    project: Project, monkeypatch: pytest.MonkeyPatch, option: dict[str, Any]
) -> None:
    """A build with other languages, packages or strictness never takes the last build's record for its own."""
    project.build()
    ran: list[object] = []
    run = pipeline.run

    def counted(*args: Any, **options: Any) -> Any:
        ran.append(args)
        return run(*args, **options)

    monkeypatch.setattr(pipeline, "run", counted)
    project.build(**option)
    assert ran


@pytest.mark.parametrize(
    "damage",
    ["edit a question", "delete a package", "alter a package", "edit a template", "delete the published changelog"],
)
def test_any_change_to_inputs_or_outputs_runs_the_pipeline(project: Project, damage: str) -> None:
    """Content of every input and every output is compared, so no change goes unnoticed."""
    project.build()
    package = project.out / "ai-stack-de.apkg"
    before = package.read_bytes()
    if damage == "edit a question":
        project.edit(*EDIT)
    elif damage == "delete a package":
        package.unlink()
    elif damage == "alter a package":
        package.write_bytes(before[:-1] + bytes([before[-1] ^ 1]))
    elif damage == "edit a template":
        labels = project.templates / "de" / "labels.yaml"
        labels.write_text(labels.read_text(encoding="utf-8").replace("Erläuterung", "Erklärung"), encoding="utf-8")
    else:
        (project.out / "CHANGELOG.md").unlink()
    result = project.build()
    assert (project.out / "CHANGELOG.md").is_file()
    restored = [o.lang for o in result.outputs if o.written]
    assert restored == ([] if damage == "delete the published changelog" else ["de"])
    if damage in ("delete a package", "alter a package"):
        assert package.read_bytes() == before  # the same bytes again: nothing else changed


def test_an_edit_rebuilds_only_the_packages_it_touches(project: Project, monkeypatch: pytest.MonkeyPatch) -> None:
    """Editing German text makes the German package again; French and English are left as they are."""
    project.build()
    made: list[int] = []
    package_bytes = package.package_bytes

    def counted(spec: Any, kept: Any) -> bytes:
        made.append(spec.notetypes[0][0].model_id)
        return package_bytes(spec, kept)

    monkeypatch.setattr(target, "package_bytes", counted)
    project.edit(*EDIT)
    result = project.build()
    assert len(made) == 1
    assert [o.lang for o in result.outputs if o.written] == ["de"]


def test_a_source_saved_during_a_build_is_not_forgotten(project: Project, monkeypatch: pytest.MonkeyPatch) -> None:
    """If a file changes after the build read it, that build is not recorded: the next one looks again."""
    load_all = load.load_all

    def edited_meanwhile(*args: Any, **options: Any) -> Any:
        loaded = load_all(*args, **options)
        project.edit(*EDIT)  # as if saved in an editor while the build runs
        return loaded

    monkeypatch.setattr(pipeline, "load_all", edited_meanwhile)
    project.build()
    monkeypatch.setattr(pipeline, "load_all", load_all)
    result = project.build()
    assert [(c.question, c.kind) for c in result.changes.items] == [("elementwise-ops-memory-bound", "changed")]


@pytest.mark.parametrize("enabled", [True, False])
def test_a_build_leaves_the_cycle_collector_as_it_found_it(project: Project, enabled: bool) -> None:
    """The build pauses Python's cycle collector, and gives the caller back the setting it had."""
    import gc

    (gc.enable if enabled else gc.disable)()
    try:
        project.build()
        assert gc.isenabled() is enabled
    finally:
        gc.enable()
