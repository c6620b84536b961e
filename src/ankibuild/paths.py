"""Paths named inside a bank must stay inside the bank's folder.

A bank comes from a classmate's repository: a file it names (a question file
reached through a link, an image a question shows) must never make the build
read something elsewhere on the machine and pack it into a deck.
"""

from __future__ import annotations

from pathlib import Path, PurePosixPath, PureWindowsPath


class UnsafePathError(ValueError):
    """Raised when a path named in the bank would lead outside the bank's folder."""

    def __init__(self, message: str, hint: str) -> None:
        super().__init__(message)
        self.message = message
        self.hint = hint


def within(root: Path, path: Path) -> bool:
    """True when ``path``, with every link followed, is ``root`` or lies below it."""
    try:
        return path.resolve().is_relative_to(root.resolve())
    except (OSError, RuntimeError):  # a link loop, or a name the system refuses: not provably inside
        return False


def inside(root: Path, name: str, *, base: Path | None = None) -> Path:
    """The file ``name``, written in the bank relative to ``base`` (default ``root``), as a path inside ``root``.

    Refuses absolute paths (POSIX or Windows, so a bank behaves the same on every
    machine) and any path that ends up outside ``root`` through ``..`` or a
    symbolic link. The file need not exist. Raises :class:`UnsafePathError`.
    """
    hint = "name a file inside the bank folder, relative to it, e.g. media/diagram.png"
    if not name.strip() or "\0" in name:
        raise UnsafePathError(f"{name!r} is not a file name", hint)
    if PurePosixPath(name).is_absolute() or PureWindowsPath(name).anchor:
        raise UnsafePathError(f"'{name}' is an absolute path", hint)
    path = (root if base is None else base) / name
    if not within(root, path):
        raise UnsafePathError(f"'{name}' leads outside the bank folder", hint)
    return path
