"""The kept lock's column of checksums is tested at once, exactly as each line of a lock file is."""

from __future__ import annotations

from random import Random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ankibuild.lock.format import _CHECKSUMS, _HEX, CHECKSUM_DIGITS, DIGEST_DIGITS, _all_checksums, _every, _hex_groups

#: The characters a checksum is made of, those that separate them, and those beside them.
NEAR = st.sampled_from([*"0123456789abcdef \n", "A", "g", "é", "\ud800", "\x00", "\r", "\t", "\u2028", *"nsx"])
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


@pytest.mark.parametrize("text", ["x", "1x", "1s2", "n", "12n34"])
def test_a_letter_that_is_no_digit_is_no_checksum_whatever_it_stands_for_when_tested(text: str) -> None:
    """The test turns each digit, space and line break into a letter of its own: the same letters
    found in the text itself are none of those."""
    assert not _CHECKSUMS.fullmatch(text)
    assert not _all_checksums(f"{text}\n")


#: Lines of checksums of 8 digits, as a build writes them.
WRITTEN = st.lists(st.lists(st.text("0123456789abcdef", min_size=8, max_size=8), min_size=1, max_size=4), max_size=5)


@settings(max_examples=1000)
@given(WRITTEN, st.integers(0, 200), NEAR)
def test_checksums_as_a_build_writes_them_one_character_changed_or_not_are_taken_as_the_pattern_takes_them(
    lines: list[list[str]], at: int, character: str
) -> None:
    """The quick test of the checksums a build writes takes none the pattern does not, whatever one character is."""
    joined = _joined([" ".join(line) for line in lines])
    assert _all_checksums(joined) == (_every(_CHECKSUMS).fullmatch(joined) is not None)
    if len(joined) > 1:  # the last line break kept: every line is ended by one (see :func:`_lines`)
        at %= len(joined) - 1
        changed = joined[:at] + character + joined[at + 1 :]
        assert _all_checksums(changed) == (_every(_CHECKSUMS).fullmatch(changed) is not None)


@settings(max_examples=1000)
@given(st.lists(st.text(NEAR, max_size=20), max_size=5), st.sampled_from([(8, b" \n"), (16, b"\n"), (2, b"\n")]))
def test_the_quick_test_of_groups_of_digits_takes_only_what_the_patterns_take(
    lines: list[str], shape: tuple[int, bytes]
) -> None:
    joined = _joined(lines)
    digits, ends = shape
    if _hex_groups(joined, digits, ends):
        pattern = _CHECKSUMS if b" " in ends else _HEX
        assert _every(pattern).fullmatch(joined)
        assert all(len(group) == digits for group in joined.split())


def test_a_digest_as_a_build_writes_it_takes_the_quick_test() -> None:
    assert _hex_groups("0123456789abcdef\nfedcba9876543210\n", DIGEST_DIGITS, b"\n")
    assert not _hex_groups("0123456789abcdef\nfedcba987654321\n", DIGEST_DIGITS, b"\n")
    assert not _hex_groups("0123456789abcdef fedcba9876543210\n", DIGEST_DIGITS, b"\n")
    assert _hex_groups("01234567 89abcdef\nfedcba98\n", CHECKSUM_DIGITS, b" \n")
    assert not _hex_groups("01234567 89abcdef ", CHECKSUM_DIGITS, b" \n")
