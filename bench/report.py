"""The benchmark's results: medians, ratios against the targets, and the tables."""

from __future__ import annotations

import statistics
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from .measure import Sample

#: The contenders, in the order they are reported: key and label.
CONTENDERS = {
    "baseline": "(a) naive baseline",
    "floor": "(b) floor",
    "floor_nogc": "(b') floor, garbage collector off",
    "cold": "(c) build, cold",
    "noop": "(d) build, nothing changed",
    "edit": "(e) build, one question edited",
}
#: Contenders whose packages are reported: (d) and (e) rewrite (c)'s.
WITH_PACKAGES = ("baseline", "floor", "floor_nogc", "cold")
#: The bank size most targets are judged at.
TARGET_SIZE = 10_000
#: The larger size at which growth is judged.
LARGE_SIZE = 50_000


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

    def processor_seconds(self, key: str) -> float:
        return statistics.median(s.processor_seconds for s in self.samples[key])

    def peak_mb(self, key: str) -> float:
        return max(s.peak_mb for s in self.samples[key])

    def micros_per_question(self, key: str) -> float:
        return self.seconds(key) / self.questions * 1e6


@dataclass(frozen=True)
class Target:
    """A ratio between two contenders and the bound it must meet at one size.

    With ``grown_from``, the ratio is the numerator's measure against its own
    at that smaller size (the denominator is then the same contender).
    """

    label: str
    numerator: str
    denominator: str
    limit: float
    at_most: bool = True
    memory: bool = False
    judged_at: int = TARGET_SIZE
    grown_from: int | None = None

    def ratio(self, results: Mapping[int, SizeResult], size: int) -> float | None:
        """The ratio at ``size``, or None where it is not defined or not measured."""
        if self.grown_from is not None:
            base = results.get(self.grown_from)
            if base is None or size <= self.grown_from:
                return None
            return self._measure(results[size], self.numerator) / self._measure(base, self.denominator)
        result = results[size]
        return self._measure(result, self.numerator) / self._measure(result, self.denominator)

    def _measure(self, result: SizeResult, key: str) -> float:
        return result.peak_mb(key) if self.memory else result.seconds(key)

    def by_repetition(self, results: Mapping[int, SizeResult], size: int) -> tuple[float, float] | None:
        """The lowest and the highest ratio of the two contenders' runs of one repetition each, at ``size``: the
        ratio of medians is judged, but the machine may change speed between repetitions, and two runs of one
        repetition ran next to each other. None for growth, or with fewer than two repetitions measured."""
        result = results.get(size)
        if self.grown_from is not None or result is None or len(result.samples.get(self.numerator, ())) < 2:
            return None
        # Every repetition runs each contender once: the runs of a repetition have one index.
        pairs = list(zip(result.samples[self.numerator], result.samples[self.denominator], strict=True))
        ratios = [self._sample(top) / self._sample(bottom) for top, bottom in pairs]
        return min(ratios), max(ratios)

    def _sample(self, sample: Sample) -> float:
        return sample.peak_mb if self.memory else sample.seconds

    def verdict(self, results: Mapping[int, SizeResult]) -> str:
        ratio = self.ratio(results, self.judged_at) if self.judged_at in results else None
        if ratio is None:
            return "not measured"
        return "pass" if (ratio <= self.limit if self.at_most else ratio >= self.limit) else "FAIL"

    def bound(self) -> str:
        return f"{'≤' if self.at_most else '≥'} {self.limit:g}"


TARGETS = (
    Target("time (c)/(b): cold build vs floor", "cold", "floor", 1.0),
    Target("time (c)/(b'): cold build vs floor, GC off", "cold", "floor_nogc", 1.25),
    Target("time (a)/(c): baseline vs cold build", "baseline", "cold", 6.0, at_most=False),
    Target("time (d)/(c): unchanged rebuild vs cold", "noop", "cold", 0.03),
    Target("time (e)/(c): one edit vs cold", "edit", "cold", 0.10),
    Target("memory (c)/(a): cold build vs baseline", "cold", "baseline", 1.0, memory=True),
    Target(
        f"time (c)/(c at N={TARGET_SIZE:,}): growth",
        "cold",
        "cold",
        5.5,
        judged_at=LARGE_SIZE,
        grown_from=TARGET_SIZE,
    ),
    Target("memory (c)/(a): cold build vs baseline, large", "cold", "baseline", 1.0, memory=True, judged_at=LARGE_SIZE),
)
#: One file of all the questions against the same questions in one file per topic.
ONE_FILE_MEMORY = 2.0


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
                    _seconds(result.processor_seconds(key)),
                    f"{result.micros_per_question(key):,.0f}",
                    f"{result.peak_mb(key):,.0f}",
                    _megabytes(size) if size is not None else "",
                ]
            )
    headers = ["N", "contender", "runs", "median s", "processor s", "µs/question", "peak MB", ".apkg MB (3 languages)"]
    # Processor time beside wall time shows how much of a run the second core took: on two, a run takes
    # at least half its processor time.
    return Table("Whole-process wall time and processor time (medians) and peak memory", headers, rows)


def _targets(results: Sequence[SizeResult]) -> Table:
    by_size = {r.questions: r for r in results}
    rows = []
    for target in TARGETS:
        ratios = (target.ratio(by_size, r.questions) for r in results)
        cells = ["" if ratio is None else _ratio(ratio) for ratio in ratios]
        spread = target.by_repetition(by_size, target.judged_at)
        each = "" if spread is None else f"{_ratio(spread[0])}-{_ratio(spread[1])}"
        rows.append([target.label, target.bound(), *cells, f"N={target.judged_at:,}", each, target.verdict(by_size)])
    headers = ["ratio", "target", *(f"N={r.questions:,}" for r in results), "judged at", "each repetition", "result"]
    return Table("Targets", headers, rows)


def one_file_tables(spread: SizeResult, whole: SizeResult) -> list[Table]:
    """The cold build of one bank as one file per topic and as one file, and the memory target."""
    rows = [
        [
            f"{r.questions:,}",
            layout,
            str(len(r.samples["cold"])),
            _seconds(r.seconds("cold")),
            f"{r.peak_mb('cold'):,.0f}",
        ]
        for r, layout in ((spread, "one file per topic"), (whole, "one file"))
    ]
    times = Table(
        "Cold build, the same questions in one file and in one per topic",
        ["N", "question files", "runs", "median s", "peak MB"],
        rows,
    )
    ratio = whole.peak_mb("cold") / spread.peak_mb("cold")
    verdict = "pass" if ratio <= ONE_FILE_MEMORY else "FAIL"
    target = Table(
        "Target",
        ["ratio", "target", "measured", "result"],
        [["memory: one file vs one per topic", f"≤ {ONE_FILE_MEMORY:g}", _ratio(ratio), verdict]],
    )
    return [times, target]


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
