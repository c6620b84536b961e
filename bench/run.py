"""Benchmark ``ankibuild build`` against a naive baseline and a floor.

    python -m bench.run [--sizes 1000,10000,50000] [--repeat 5,3,1] [--markdown] [--keep]
    python -m bench.run --one-file 100000 [--repeat 1]

For each size a synthetic bank is generated (``bench/generate.py``), then every
repetition runs each contender once, as its own process, in an order that
changes with each repetition (see :func:`unit_order`):

(a) the naive baseline (``bench/baseline.py``), (b) the floor (``bench/floor.py``),
(b') the floor with the garbage collector off (``bench/floor_nogc.py``),
(c) ``ankibuild build`` cold, (d) the same again with nothing changed, and
(e) again after one explanation in one language was edited.

With ``--one-file N``, only cold builds run: of N questions in one file per
topic and of the same questions in one file, to compare their peak memory.

The build runs from this checkout's ``src``, whatever ankibuild is installed.
See docs/performance.md for what is measured and the targets.
"""

from __future__ import annotations

import argparse
import datetime as dt
import importlib.metadata
import json
import os
import platform
import shutil
import subprocess
import sys
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ankibuild.cards.folders import DEFAULTS

from .generate import BANK_ID, GeneratedBank, edit_question, generate_bank
from .measure import ContenderFailed, Sample, check_packages, run_process
from .report import CONTENDERS, WITH_PACKAGES, SizeResult, one_file_tables, render, tables

ROOT = Path(__file__).resolve().parent.parent
#: The first build stamps every note with this time instead of the clock's.
#: Otherwise an edit measured within the same second as the cold build would
#: wait for the next second: a changed note must get a strictly newer time.
SOURCE_DATE_EPOCH = "1600000000"
#: Where the contenders' compiled modules go, beside the banks in the work folder.
BYTECODE = "bytecode"
#: What a build leaves in the bank folder (both documented in the README).
BUILD_STATE = ("ankibuild.lock", "CHANGELOG.md")
#: The build's runs: each starts from what the one before left.
BUILD_RUNS = ("cold", "noop", "edit")
#: What runs back to back, in this order.
UNITS = (("baseline",), ("floor",), ("floor_nogc",), BUILD_RUNS)
#: Repetitions of the one-file comparison unless told otherwise.
ONE_FILE_REPEAT = 1


@dataclass(frozen=True)
class Project:
    """A generated bank with its templates, and a folder per contender's output."""

    root: Path
    bank: GeneratedBank

    @classmethod
    def create(cls, root: Path, *, questions: int, seed: int, one_file: bool = False) -> Project:
        shutil.rmtree(root, ignore_errors=True)
        bank = generate_bank(root / "decks", questions=questions, seed=seed, one_file=one_file)
        shutil.copytree(DEFAULTS, root / "templates")
        return cls(root, bank)

    def out(self, key: str) -> Path:
        """Where a contender's packages go: the build's three runs share one folder."""
        return self.root / ("dist" if key in BUILD_RUNS else key)

    def packages(self, key: str) -> list[Path]:
        return [self.out(key) / f"{BANK_ID}-{lang}.apkg" for lang in self.bank.languages]

    def command(self, key: str) -> list[str]:
        decks, out = str(self.bank.decks), str(self.out(key))
        if key in BUILD_RUNS:
            templates = str(self.root / "templates")
            return [
                sys.executable,
                "-m",
                "ankibuild",
                "build",
                "--decks",
                decks,
                "--templates",
                templates,
                "--out",
                out,
            ]
        return [sys.executable, "-m", f"bench.{key}", "--decks", decks, "--out", out]

    def environment(self) -> dict[str, str]:
        """This checkout's sources first; any cache the build keeps goes inside the project.

        Every contender runs from compiled bytecode, as an installed package does:
        the warm-up compiles it into the work folder, even where the environment
        says not to write bytecode (which would compile every module on every run).
        """
        paths = [str(ROOT / "src"), str(ROOT), os.environ.get("PYTHONPATH", "")]
        dropped = {"ANKIBUILD_CACHE_DIR", "PYTHONDONTWRITEBYTECODE"}  # the cache setting would win over XDG
        inherited = {k: v for k, v in os.environ.items() if k not in dropped}
        return {
            **inherited,
            "PYTHONPATH": os.pathsep.join(p for p in paths if p),
            "PYTHONPYCACHEPREFIX": str(self.root.parent / BYTECODE),
            "XDG_CACHE_HOME": str(self.root / ".cache"),
            "SOURCE_DATE_EPOCH": SOURCE_DATE_EPOCH,
        }

    def make_cold(self) -> None:
        """A bank's first build: no lock, no changelog, no output folder, no cache anywhere."""
        for name in BUILD_STATE:
            (self.bank.decks / name).unlink(missing_ok=True)
        shutil.rmtree(self.out("cold"), ignore_errors=True)
        while cache := next((p for p in self.root.rglob("*") if "cache" in p.name.lower()), None):
            if cache.is_dir() and not cache.is_symlink():
                shutil.rmtree(cache)
            else:
                cache.unlink()

    def prepare(self, key: str, repetition: int) -> Path | None:
        """Set the scene for one run (nothing here is timed); the package the run must change."""
        if key == "cold":
            self.make_cold()
        elif key == "edit":
            edit = edit_question(self.bank, seed=repetition + 1)
            return self.out(key) / f"{BANK_ID}-{edit.lang}.apkg"
        elif key != "noop":
            shutil.rmtree(self.out(key), ignore_errors=True)
        return None


def run_contender(project: Project, key: str, repetition: int) -> tuple[Sample, int]:
    """One timed run, then a check of its packages; their total size in bytes.

    After an edit, the edited language's package must change: a build that
    missed the edit would look fast for the wrong reason.
    """
    must_change = project.prepare(key, repetition)
    before = must_change.read_bytes() if must_change is not None else b""
    sample = run_process(
        project.command(key),
        cwd=project.root,
        env=project.environment(),
        log=project.root / "logs" / f"{key}-{repetition + 1}",
    )
    size = check_packages(project.packages(key), notes=project.bank.questions)
    if must_change is not None and must_change.read_bytes() == before:
        raise ContenderFailed(f"{CONTENDERS[key]}: {must_change} is unchanged although its bank was edited")
    return sample, size


def unit_order(repetition: int) -> list[int]:
    """The order the units of :data:`UNITS` run in at ``repetition``, by their indexes.

    Over as many repetitions as there are units, each unit runs first once and right after each other unit
    once (a Williams square): what one contender leaves the machine in (a process of 600 MB just ended,
    say) weighs on each of the others alike. Starting one unit later each time kept their cyclic order, and
    the cold build always ran right after the floor. This holds for an even number of units, as there are:
    with an odd one, some unit would follow another twice and a third never.
    """
    count = len(UNITS)
    first = [0] + [(step + 1) // 2 if step % 2 else count - step // 2 for step in range(1, count)]
    return [(index + repetition) % count for index in first]


def measure(project: Project, *, repeat: int, progress: Callable[[str], None]) -> SizeResult:
    """Every contender ``repeat`` times, interleaved (see :func:`unit_order`)."""
    result = SizeResult(project.bank.questions)
    for repetition in range(repeat):
        for key in (key for index in unit_order(repetition) for key in UNITS[index]):
            sample, size = run_contender(project, key, repetition)
            result.add(key, sample)
            if key in WITH_PACKAGES:
                result.package_bytes[key] = size
            progress(f"N={result.questions:,} run {repetition + 1}/{repeat} {CONTENDERS[key]}: {sample.said()}")
    return result


def warm_up(workdir: Path) -> None:
    """Run every contender once on a tiny bank, untimed: compiled modules and the
    file cache are then as warm for the first measured run as for the others."""
    project = Project.create(workdir / "warm-up", questions=20, seed=0)
    measure(project, repeat=1, progress=lambda line: None)
    shutil.rmtree(project.root)


def measure_one_file(questions: int, repeat: int, *, workdir: Path, seed: int, keep: bool) -> list[SizeResult]:
    """Cold builds of a bank in one file per topic and of the same questions in one file, interleaved."""
    warm_up(workdir)
    projects = [
        Project.create(workdir / f"n{questions}{suffix}", questions=questions, seed=seed, one_file=one_file)
        for suffix, one_file in (("", False), ("-one-file", True))
    ]
    results = [SizeResult(questions) for _ in projects]
    for repetition in range(repeat):
        for project, result in zip(projects, results, strict=True):
            sample, _ = run_contender(project, "cold", repetition)
            result.add("cold", sample)
            print(
                f"N={questions:,} in {len(project.bank.files)} file(s), run {repetition + 1}/{repeat}: {sample.said()}",
                file=sys.stderr,
            )
    if not keep:
        for project in projects:
            shutil.rmtree(project.root)
        shutil.rmtree(workdir / BYTECODE, ignore_errors=True)
    return results


def _numbers(text: str) -> list[int]:
    try:
        numbers = [int(part.replace("_", "")) for part in text.split(",")]
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected numbers separated by commas, not {text!r}") from None
    if any(n < 1 for n in numbers):
        raise argparse.ArgumentTypeError("every number must be at least 1")
    return numbers


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m bench.run", description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--sizes", type=_numbers, default=[1000, 10_000, 50_000], help="questions per bank (default 1000,10000,50000)"
    )
    parser.add_argument(
        "--repeat",
        type=_numbers,
        help=f"repetitions: one number, or one per size (default 5,3,1; {ONE_FILE_REPEAT} with --one-file)",
    )
    parser.add_argument(
        "--one-file",
        type=int,
        metavar="N",
        help="instead: cold builds of N questions in one file per topic and in one file, for their peak memory",
    )
    parser.add_argument("--markdown", action="store_true", help="print the tables as Markdown")
    parser.add_argument("--workdir", type=Path, default=ROOT / "bench" / "out", help="where the banks are generated")
    parser.add_argument("--keep", action="store_true", help="keep the generated banks and outputs afterwards")
    parser.add_argument("--seed", type=int, default=0, help="seed of the generated banks (default 0)")
    return parser


def _about(markdown: bool, loads: Sequence[tuple[float, float, float]]) -> list[str]:
    git = ["git", "-C", str(ROOT)]
    commit = subprocess.run([*git, "rev-parse", "--short", "HEAD"], capture_output=True, text=True).stdout.strip()
    dirty = subprocess.run([*git, "status", "--porcelain", "--", "src"], capture_output=True, text=True).stdout
    lines = [
        f"ankibuild: src/ at commit {commit or 'unknown'}{' with uncommitted changes' if dirty else ''}",
        f"machine: {os.cpu_count()} CPUs, {platform.platform()}, Python {platform.python_version()}",
        f"date: {dt.datetime.now(dt.UTC):%Y-%m-%d %H:%M} UTC",
        f"load average (1, 5, 15 min): at start {_loads(loads[0])}; at end {_loads(loads[-1])}",
        f"ankibuild installed in this environment: {_installed()}",
    ]
    return [f"- {line}" for line in lines] if markdown else lines


def _installed(found: Iterable[importlib.metadata.Distribution] | None = None) -> str:
    """How ankibuild is installed where the contenders run (their code is this checkout's ``src`` either way).

    An editable install (PEP 610's ``dir_info.editable``) adds an import finder that every process
    starts, some 20 ms each: a few percent of an edit's time that an install from a wheel, a user's,
    does not have. Every installation of that name on the path counts: each one's finder is started.
    """
    found = list(importlib.metadata.distributions(name="ankibuild") if found is None else found)
    if not found:
        return "not installed"
    if any(_editable(distribution.read_text("direct_url.json")) for distribution in found):
        return "editable (pip install -e): every process pays its import finder, some 20 ms; a wheel's does not"
    return "not editable, as from a wheel"


def _editable(direct_url: str | None) -> bool:
    try:
        return json.loads(direct_url or "{}").get("dir_info", {}).get("editable") is True
    except (ValueError, AttributeError):
        return False


def _loads(loads: tuple[float, float, float]) -> str:
    return ", ".join(f"{load:.2f}" for load in loads)


def measure_all(
    sizes: Sequence[int], repeats: Sequence[int], *, workdir: Path, seed: int, keep: bool
) -> list[SizeResult]:
    """A warm-up, then every size in turn; each size's bank is removed unless ``keep``."""
    warm_up(workdir)
    results = []
    for questions, repeat in zip(sizes, repeats, strict=True):
        project = Project.create(workdir / f"n{questions}", questions=questions, seed=seed)
        results.append(measure(project, repeat=repeat, progress=lambda line: print(line, file=sys.stderr)))
        if not keep:
            shutil.rmtree(project.root)
    if not keep:
        shutil.rmtree(workdir / BYTECODE, ignore_errors=True)
    return results


def main(argv: Sequence[str] | None = None) -> None:
    parser = _parser()
    args = parser.parse_args(argv)
    sizes = [args.one_file] if args.one_file is not None else args.sizes
    repeat = args.repeat or ([ONE_FILE_REPEAT] if args.one_file is not None else [5, 3, 1])
    if len(repeat) not in (1, len(sizes)):
        parser.error("--repeat takes one number, or one per size")
    repeats = repeat * len(sizes) if len(repeat) == 1 else repeat
    loads = [os.getloadavg()]
    try:
        if args.one_file is not None:
            found = one_file_tables(*measure_one_file(sizes[0], repeats[0], **_where(args)))
        else:
            found = tables(measure_all(sizes, repeats, **_where(args)))
    except ContenderFailed as err:
        raise SystemExit(f"benchmark stopped, a contender failed: {err}") from None
    loads.append(os.getloadavg())
    print("\n".join(_about(args.markdown, loads)))
    for table in found:
        print(f"\n{render(table, markdown=args.markdown)}")


def _where(args: argparse.Namespace) -> dict[str, Any]:
    # Absolute: each build's XDG_CACHE_HOME is a folder of it, and a build ignores a relative one.
    return {"workdir": args.workdir.resolve(), "seed": args.seed, "keep": args.keep}


if __name__ == "__main__":
    main()
