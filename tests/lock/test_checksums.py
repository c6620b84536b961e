"""The kept lock's column of checksums is tested at once, exactly as each line of a lock file is."""

from __future__ import annotations

from random import Random

from hypothesis import given, settings
from hypothesis import strategies as st

from ankibuild.lock.format import _CHECKSUMS, _all_checksums, _every

#: The characters a checksum is made of, those that separate them, and those beside them.
NEAR = st.sampled_from([*"0123456789abcdef \n", "A", "g", "é", "\ud800", "\x00", "\r", "\t", "\u2028"])
#: Lines of runs of digits around the longest a checksum may be.
RUNS = st.lists(st.lists(st.integers(1, 18), max_size=6), max_size=5)


def _joined(lines: list[str]) -> str:
    return "".join(f"{line}\n" for line in lines)


@settings(max_examples=2000)
@given(st.lists(st.text(NEAR, max_size=40), max_size=5))
def test_any_text_is_taken_as_the_pattern_takes_it(lines: list[str]) -> None:
    joined = _joined(lines)
    assert _all_checksums(joined) == (_every(_CHECKSUMS).fullmatch(joined) is not None)


@settings(max_examples=500)
@given(RUNS, st.randoms(use_true_random=False))
def test_runs_of_digits_of_every_length_are_taken_as_the_pattern_takes_them(
    runs: list[list[int]], random: Random
) -> None:
    joined = _joined([" ".join("".join(random.choices("0123456789abcdef", k=n)) for n in line) for line in runs])
    assert _all_checksums(joined) == (_every(_CHECKSUMS).fullmatch(joined) is not None)
