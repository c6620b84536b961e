"""The benchmark's results: medians, ratios against the targets, and the tables."""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from dataclasses import dataclass, field

from .measure import Sample

#: The contenders, in the order they are reported: key and label.
CONTENDERS = {
    "baseline": "(a) naive baseline",
    "floor": "(b) floor",
    "cold": "(c) build, cold",
    "noop": "(d) build, nothing changed",
    "edit": "(e) build, one question edited",
}
#: Contenders whose packages are reported: (d) and (e) rewrite (c)'s.
WITH_PACKAGES = ("baseline", "floor", "cold")
#: The bank size the targets are judged at.
TARGET_SIZE = 10_000


@dataclass
class SizeResult:
    """Every sample of every contender at one bank size."""

    questions: int
    samples: dict[str, list[Sample]] = field(default_factory=dict)
    package_bytes: dict[str, int] = field(default_factory=dict)

    def add(self, key: str, sample: Sample) -> None:
        self.samples.setdefault(key, []).append(sample)

    def seconds(self, key: str) -> float:
        return statistics.median(s.seconds for s in self.samples[key])

    def peak_mb(self, key: str) -> float:
        return max(s.peak_mb for s in self.samples[key])

    def micros_per_question(self, key: str) -> float:
        return self.seconds(key) / self.questions * 1e6


@dataclass(frozen=True)
class Target:
    """A ratio between two contenders and the bound it must meet."""

    label: str
    numerator: str
    denominator: str
    limit: float
    at_most: bool = True
    memory: bool = False

    def ratio(self, result: SizeResult) -> float:
        measure = result.peak_mb if self.memory else result.seconds
        return measure(self.numerator) / measure(self.denominator)

    def met(self, result: SizeResult) -> bool:
        ratio = self.ratio(result)
        return ratio <= self.limit if self.at_most else ratio >= self.limit

    def bound(self) -> str:
        return f"{'≤' if self.at_most else '≥'} {self.limit:g}"


TARGETS = (
    Target("time (c)/(b): cold build vs floor", "cold", "floor", 1.25),
    Target("time (a)/(c): baseline vs cold build", "baseline", "cold", 4.0, at_most=False),
    Target("time (d)/(c): unchanged rebuild vs cold", "noop", "cold", 0.05),
    Target("time (e)/(c): one edit vs cold", "edit", "cold", 0.20),
    Target("memory (c)/(a): cold build vs baseline", "cold", "baseline", 1.5, memory=True),
)


@dataclass(frozen=True)
class Table:
    title: str
    headers: Sequence[str]
    rows: Sequence[Sequence[str]]


def tables(results: Sequence[SizeResult]) -> list[Table]:
    return [_times(results), _targets(results), _per_question(results)]


def _times(results: Sequence[SizeResult]) -> Table:
    rows = []
    for result in results:
        for key, label in CONTENDERS.items():
            size = result.package_bytes.get(key) if key in WITH_PACKAGES else None
            rows.append(
                [
                    f"{result.questions:,}",
                    label,
                    str(len(result.samples[key])),
                    _seconds(result.seconds(key)),
                    f"{result.micros_per_question(key):,.0f}",
                    f"{result.peak_mb(key):,.0f}",
                    _megabytes(size) if size is not None else "",
                ]
            )
    headers = ["N", "contender", "runs", "median s", "µs/question", "peak MB", ".apkg MB (3 languages)"]
    return Table("Whole-process wall time (median) and peak memory", headers, rows)


def _targets(results: Sequence[SizeResult]) -> Table:
    judged = next((r for r in results if r.questions == TARGET_SIZE), None)
    rows = []
    for target in TARGETS:
        met = "not measured" if judged is None else ("yes" if target.met(judged) else "NO")
        rows.append([target.label, target.bound(), *(_ratio(target.ratio(r)) for r in results), met])
    headers = ["ratio", "target", *(f"N={r.questions:,}" for r in results), f"met at N={TARGET_SIZE:,}"]
    return Table(f"Targets (judged at N = {TARGET_SIZE:,})", headers, rows)


def _per_question(results: Sequence[SizeResult]) -> Table:
    rows = [[label, *(f"{r.micros_per_question(key):,.0f}" for r in results)] for key, label in CONTENDERS.items()]
    headers = ["µs per question", *(f"N={r.questions:,}" for r in results)]
    return Table("Time per question: flat when growth is linear", headers, rows)


def _seconds(value: float) -> str:
    return f"{value:.2f}" if value >= 1 else f"{value:.3f}"


def _megabytes(size: int) -> str:
    return f"{size / 1e6:,.1f}" if size >= 10**7 else f"{size / 1e6:.2f}"


def _ratio(value: float) -> str:
    return f"{value:.2f}" if value >= 1 else f"{value:.3f}"


def render(table: Table, *, markdown: bool) -> str:
    """A table as Markdown or as aligned plain text; numbers are right-aligned."""
    left = [not all(_is_number(row[i]) for row in table.rows) for i in range(len(table.headers))]
    if markdown:
        rule = ["---" if flush else "--:" for flush in left]
        return "\n".join([f"### {table.title}", "", *(_md_row(r) for r in (table.headers, rule, *table.rows))])
    cells = [list(table.headers), *(list(row) for row in table.rows)]
    widths = [max(len(row[i]) for row in cells) for i in range(len(table.headers))]
    lines = [table.title, "-" * len(table.title)]
    for row in cells:
        padded = (c.ljust(w) if flush else c.rjust(w) for c, w, flush in zip(row, widths, left, strict=True))
        lines.append("  ".join(padded).rstrip())
    return "\n".join(lines)


def _is_number(cell: str) -> bool:
    return cell.replace(",", "").replace(".", "").isdigit() or not cell


def _md_row(cells: Sequence[str]) -> str:
    return "| " + " | ".join(cells) + " |"
