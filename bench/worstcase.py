"""The worst inputs known for ankibuild's text scanning, timed at two sizes.

    python -m bench.worstcase [--sizes 131072,524288] [--markdown]

Each pattern is one short piece repeated to the size given, rendered as a
question text (Markdown, formulas) the way a build renders it. Time that grows
with the size, not faster, is what matters: the table shows the ratio of the
two times next to the ratio of the sizes (linear time keeps them close).
"""

from __future__ import annotations

import argparse
import gc
import time
from collections.abc import Sequence

from ankibuild.text.richtext import Unpackaged, to_html

from .report import Table, render

#: Pieces that, repeated, once made a scan quadratic or are the costliest known per byte.
PATTERNS = {
    "unclosed \\(": "\\(",
    "unclosed \\[": "\\[ ",
    "unclosed $$": "$$ a ",
    "$ that never closes": "$a ",
    "display formula lines without a closer": "\\[\n",
    "$$ lines": "$$\nx\n",
    "escaped openers \\\\(": "\\\\(",
    "link label openers [": "[",
    "link destinations [a](": "[a](",
    "image openers ![": "![",
    "emphasis *a_": "*a_",
    "code span backticks": "`a",
    "dangerous command \\href in a formula": "$\\href{x}{y}$ ",
    "Anki syntax [sound:": "[sound:",
}
#: The sizes timed by default, in bytes: the second is four times the first.
SIZES = (128 * 1024, 512 * 1024)


def seconds(piece: str, size: int, repeat: int = 2) -> float:
    """The best time of ``repeat`` renderings of ``piece`` repeated to ``size`` characters."""
    text = (piece * (size // len(piece) + 1))[:size]
    best = float("inf")
    for _ in range(repeat):
        gc.collect()
        start = time.perf_counter()
        to_html(text, Unpackaged())  # only the scanning is timed: no images, no reports
        best = min(best, time.perf_counter() - start)
    return best


def worst_cases(sizes: Sequence[int] = SIZES) -> Table:
    small, large = sizes
    rows = []
    for name, piece in PATTERNS.items():
        first, second = seconds(piece, small), seconds(piece, large)
        rows.append([name, f"{first:.3f}", f"{second:.3f}", f"{second / first:.2f}"])
    return Table(
        f"Worst-case texts: seconds to render, and their ratio (size ratio {large / small:g})",
        ["pattern", f"{small // 1024} KiB s", f"{large // 1024} KiB s", "time ratio"],
        rows,
    )


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--sizes", default=",".join(map(str, SIZES)), help="two sizes in bytes, comma-separated")
    parser.add_argument("--markdown", action="store_true", help="print the table as Markdown")
    args = parser.parse_args(argv)
    sizes = [int(size) for size in args.sizes.split(",")]
    if len(sizes) != 2:
        parser.error("--sizes takes two sizes")
    print(render(worst_cases(sizes), markdown=args.markdown))


if __name__ == "__main__":
    main()
