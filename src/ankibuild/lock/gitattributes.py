"""Ask git to merge the records a build writes in the bank by keeping both sides' lines."""

from __future__ import annotations

from pathlib import Path

from ..atomic import write_if_changed
from ..paths import UnsafePathError, read_inside
from ..translations.record import TRANSLATIONS_FILE
from .format import LOCK_FILE

#: A note or question found twice is read as one (see :meth:`.format.Lock.dumps`).
MERGE_ATTRIBUTES = (f"{LOCK_FILE} merge=union", f"{TRANSLATIONS_FILE} merge=union")
ATTRIBUTES_FILE = ".gitattributes"


def ask_git_to_merge(folder: Path) -> bool:
    """Make sure ``folder/.gitattributes`` has git merge the lock and the translations record line by line.

    Without it, two branches that add questions next to each other stop the
    merge with a conflict; with it, git keeps the lines of both. Tells whether
    the file was written.
    """
    path = folder / ATTRIBUTES_FILE
    try:
        text = read_inside(path, (folder,)).decode("utf-8")
    except FileNotFoundError:
        text = ""
    except (UnsafePathError, OSError, UnicodeDecodeError):
        return False  # the bank's own file, left as it is: merges only conflict more often
    missing = [line for line in MERGE_ATTRIBUTES if line not in text.splitlines()]
    if not missing:
        return False
    separator = "\n" if text and not text.endswith("\n") else ""
    return write_if_changed(path, f"{text}{separator}{''.join(line + chr(10) for line in missing)}".encode())
