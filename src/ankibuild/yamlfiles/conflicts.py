"""Merge conflict markers: what git leaves in a file it could not merge.

A marker inside a block of text would otherwise be taken as the text itself
(a YAML block scalar, a template, a changelog) and shown to every classmate.
"""

from __future__ import annotations

import re
from pathlib import Path

from ..errors import Problems

#: The first and last lines of a conflict, as git writes them: at the start of a line.
_MARKER = re.compile(r"^(?:<{7}|>{7})(?: |$)", re.MULTILINE)


def conflict_line(text: str) -> int:
    """The line (from 1) of the first conflict marker in ``text``, or 0 if there is none."""
    if "<" * 7 not in text and ">" * 7 not in text:
        return 0  # a search for the text alone is many times faster than the pattern's, line by line
    found = _MARKER.search(text)
    return text.count("\n", 0, found.start()) + 1 if found else 0


def report_conflict(path: Path, text: str, problems: Problems) -> bool:
    """Report the first conflict marker in ``text``, if any; tell whether there was one."""
    line = conflict_line(text)
    if line:
        problems.add(
            path,
            "merge conflict markers: git could not merge this file and left both versions in it",
            line=line,
            column=1,
            hint="keep what you want between the <<<<<<< and >>>>>>> lines, delete the marker lines, then check again",
        )
    return bool(line)
