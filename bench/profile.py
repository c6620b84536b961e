"""Where a build spends its time and memory, stage by stage.

    python -m bench.profile --questions 10000 [--workdir DIR]

A bank is generated (``bench/generate.py``) and built three times in this
process: cold, with nothing changed, and after one edit, as ``bench.run``
does. Every question file is processed here, one after the other, and every
package made here, so that each stage's processor time is its own (a real
build shares the work among worker processes). Each stage is a function of ankibuild wrapped with a timer;
the table gives its processor and wall time, summed over its calls (inner
stages are also counted in the stage around them), and the peak resident
memory of the process when the stage last ended.
"""

from __future__ import annotations

import argparse
import gc
import importlib
import inspect
import os
import resource
import shutil
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .report import Table, render
from .run import BUILD_RUNS, SOURCE_DATE_EPOCH, Project


@dataclass(frozen=True)
class Probe:
    """A stage: the function that does it, by the module it is looked up in and its attribute path."""

    label: str
    module: str
    attribute: str
    depth: int = 0


#: The stages, outermost first; a stage whose function is not found is reported as not measured.
PROBES = (
    Probe("quick look: did anything change?", "ankibuild.api", "BuildState.unchanged"),
    Probe("pipeline (everything after the quick look)", "ankibuild.pipeline", "run"),
    Probe("load stage", "ankibuild.pipeline", "load_all", 1),
    Probe("lock read", "ankibuild.load.stage", "_read_lock", 2),
    Probe("question files (cache and processing)", "ankibuild.load.stage", "process_all", 2),
    Probe("parse YAML", "ankibuild.load.deckfiles", "parse_file", 3),
    Probe("validate", "ankibuild.load.deckfiles", "validate_deck_file", 3),
    Probe("render notes", "ankibuild.load.fields", "render_note", 3),
    Probe("item-writing checks", "ankibuild.load.deckfiles", "_FileWork.check", 3),
    Probe("translations record (texts)", "ankibuild.load.deckfiles", "question_refs", 3),
    Probe("translations record (blocks)", "ankibuild.load.deckfiles", "current_block", 3),
    Probe("templates", "ankibuild.load.stage", "_load_templates", 2),
    Probe("translations record (whole bank)", "ankibuild.load.stage", "observe", 2),
    Probe("Anki target: plan (lock, published packages)", "ankibuild.anki.target", "AnkiTarget.plan", 1),
    Probe("Anki target: write (packages, changelog)", "ankibuild.anki.target", "AnkiPlan.write", 1),
    Probe("packages made, each written as it is", "ankibuild.anki.target", "_make_packages", 2),
    Probe("lock saved", "ankibuild.lock.plan", "LockPlan.save", 1),
    Probe("build record", "ankibuild.pipeline", "BuildState.record", 1),
)


@dataclass
class Totals:
    """What one stage cost over one build."""

    cpu: float = 0.0
    wall: float = 0.0
    calls: int = 0
    peak_mb: float = 0.0


@dataclass
class Recorder:
    """The totals of every probe during the build being measured."""

    totals: dict[str, Totals] = field(default_factory=dict)
    missing: list[str] = field(default_factory=list)

    def wrap(self, label: str, function: Callable[..., Any]) -> Callable[..., Any]:
        """``function`` timed; a generator is timed until it is exhausted, its consumer's work included."""
        if inspect.isgeneratorfunction(function):

            def timed_generator(*args: Any, **kwargs: Any) -> Any:
                with self._timing(label):
                    yield from function(*args, **kwargs)

            return timed_generator

        def timed(*args: Any, **kwargs: Any) -> Any:
            with self._timing(label):
                return function(*args, **kwargs)

        return timed

    @contextmanager
    def _timing(self, label: str) -> Iterator[None]:
        cpu, wall = time.process_time(), time.perf_counter()
        try:
            yield
        finally:
            totals = self.totals.setdefault(label, Totals())
            totals.cpu += time.process_time() - cpu
            totals.wall += time.perf_counter() - wall
            totals.calls += 1
            totals.peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


@contextmanager
def probed(recorder: Recorder) -> Iterator[None]:
    """Every probe's function replaced by a timed one where it is looked up, for the duration."""
    restore: list[tuple[object, str, object]] = []
    for probe in PROBES:
        owner: object = importlib.import_module(probe.module)
        *path, name = probe.attribute.split(".")
        try:
            for part in path:
                owner = getattr(owner, part)
            original = getattr(owner, name)
        except AttributeError:
            recorder.missing.append(probe.label)
            continue
        restore.append((owner, name, original))
        setattr(owner, name, recorder.wrap(probe.label, original))
    try:
        yield
    finally:
        for owner, name, original in reversed(restore):
            setattr(owner, name, original)


def build_once(project: Project, run: str, repetition: int) -> tuple[Recorder, float]:
    """One build as ``bench.run`` sets it up, measured; and its whole wall time."""
    project.prepare(run, repetition)
    from ankibuild.api import build

    recorder = Recorder()
    with probed(recorder):
        start = time.perf_counter()
        build(decks=project.bank.decks, templates=project.root / "templates", out=project.out(run))
        seconds = time.perf_counter() - start
    return recorder, seconds


def table(run: str, recorder: Recorder, seconds: float) -> Table:
    rows = []
    for probe in PROBES:
        label = "  " * probe.depth + probe.label
        totals = recorder.totals.get(probe.label)
        if totals is None:
            if probe.label in recorder.missing:
                rows.append([label, "", "", "", "", "not measured"])
            continue
        rows.append(
            [label, f"{totals.calls:,}", f"{totals.cpu:.3f}", f"{totals.wall:.3f}", f"{totals.peak_mb:,.0f}", ""]
        )
    headers = ["stage", "calls", "CPU s", "wall s", "peak MB at its end", ""]
    return Table(f"{run}: {seconds:.2f} s in all", headers, rows)


def _serial() -> None:
    """Process every question file and make every package in this process: each stage's time is then its own."""
    from ankibuild import forked
    from ankibuild.anki import target
    from ankibuild.load import deckfiles

    deckfiles.PARALLEL_BYTES = sys.maxsize
    target.PROCESS_NOTES = sys.maxsize
    forked.ALLOWED = False  # after an edit, the edited file and the one package too


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m bench.profile", description=__doc__.split("\n\n")[0])
    parser.add_argument("--questions", type=int, default=10_000, help="questions in the bank (default 10000)")
    parser.add_argument("--workdir", type=Path, default=Path("bench/out/profile"), help="where the bank goes")
    parser.add_argument("--markdown", action="store_true", help="print the tables as Markdown")
    return parser


def main(argv: Sequence[str] | None = None) -> None:
    args = _parser().parse_args(argv)
    # Made absolute: the builds run from inside the project, where a relative path would lead elsewhere.
    project = Project.create(args.workdir.resolve() / f"n{args.questions}", questions=args.questions, seed=0)
    os.environ.update({"XDG_CACHE_HOME": str(project.root / ".cache"), "SOURCE_DATE_EPOCH": SOURCE_DATE_EPOCH})
    os.environ.pop("ANKIBUILD_CACHE_DIR", None)
    os.chdir(project.root)
    _serial()
    gc.collect()
    for run in BUILD_RUNS:
        recorder, seconds = build_once(project, run, 0)
        print(f"\n{render(table(run, recorder, seconds), markdown=args.markdown)}")
    shutil.rmtree(project.root)


if __name__ == "__main__":
    main()
