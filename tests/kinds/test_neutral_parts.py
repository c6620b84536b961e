"""The parts of an option that read the same in every language are looked for only where one can start."""

from __future__ import annotations

import re

from hypothesis import given
from hypothesis import strategies as st

from ankibuild.kinds.choice.itemchecks import _NEUTRAL, _neutral_part

#: What a part is made of, and what stands beside one: a word character before an acronym is no boundary.
_PIECES = st.sampled_from(
    ["a", "A", "BC", "Z9", "1", "\u0663", ".", ",", " ", "_", "é", "<code>", "</code>", "\\(", "\\)", "\\[", "\\]", "<"]
)


@given(st.lists(_PIECES, max_size=12).map("".join), st.integers(min_value=0, max_value=40))
def test_a_part_is_found_where_the_pattern_alone_finds_it(text: str, at: int) -> None:
    """The search skips to where a part can start, and finds the part the pattern's own search finds."""
    at = min(at, len(text))
    assert _seen(_neutral_part(text, at)) == _seen(_NEUTRAL.search(text, at))


def _seen(part: re.Match[str] | None) -> tuple[tuple[int, int], str] | None:
    return (part.span(), part.group()) if part else None
