"""A cache of work already done, keyed by the content it was done on.

Entries live in the user's cache folder (``$ANKIBUILD_CACHE_DIR``, else
``$XDG_CACHE_HOME/ankibuild``, else ``~/.cache/ankibuild``), never in the bank
or the output folder: a repository that someone shares cannot plant one.
A key is a digest of every input of the work, never a file's size or time, so
an entry is either exactly right or not found. A damaged entry is a miss.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import pickle
import time
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from .atomic import write_if_changed

#: Changes whenever what is cached changes shape; old entries are then never read.
FORMAT = "1"
#: A temporary file this old was left by a build that was killed.
STALE_SECONDS = 3600


def cache_root() -> Path:
    explicit = os.environ.get("ANKIBUILD_CACHE_DIR")
    if explicit:
        return Path(explicit)
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "ankibuild"


def digest(*parts: bytes | str) -> str:
    """A digest of several inputs, each length-prefixed so that no two sequences collide."""
    hasher = hashlib.blake2b(digest_size=20)
    for part in parts:
        data = part.encode() if isinstance(part, str) else part
        hasher.update(len(data).to_bytes(8, "little"))
        hasher.update(data)
    return hasher.hexdigest()


def file_sha(path: Path) -> str | None:
    """The sha256 of a file's content, or None when it cannot be read."""
    try:
        with path.open("rb") as file:
            return hashlib.file_digest(file, "sha256").hexdigest()
    except OSError:
        return None


def pack(value: Any) -> bytes:
    return pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)


def unpack(packed: bytes) -> Any:
    return pickle.loads(packed)


class Cache:
    """Entries for one bank folder, in a folder of their own."""

    def __init__(self, bank: Path) -> None:
        self.folder = cache_root() / digest(FORMAT, str(bank.resolve()))[:16]
        #: What the last build left for the next, one of each, replaced each time:
        #: the lock it wrote and its packages' collections (not entries by key).
        self.kept = self.folder / "kept"

    def _path(self, key: str) -> Path:
        return self.folder / f"{key}.pickle"

    def get(self, key: str) -> Any:
        """The value stored under ``key``, or None."""
        packed = self.get_bytes(key)
        try:
            return None if packed is None else unpack(packed)
        except Exception:  # a damaged entry is only a miss
            return None

    def get_bytes(self, key: str) -> bytes | None:
        """What is stored under ``key``, packed, or None."""
        try:
            return self._path(key).read_bytes()
        except OSError:
            return None

    def put(self, key: str, packed: bytes) -> None:
        """Store a value :func:`pack` made."""
        with contextlib.suppress(OSError):  # a cache that cannot be written only costs time
            write_if_changed(self._path(key), packed, durable=False)

    def keep_only(self, keys: Iterable[str]) -> None:
        """Forget entries the last build did not use, so the cache does not grow forever."""
        wanted = {f"{key}.pickle" for key in keys}
        with contextlib.suppress(OSError):
            for entry in self.folder.glob("*.pickle"):
                if entry.name not in wanted:
                    entry.unlink(missing_ok=True)
            # What a build killed while writing an entry left; a running one's is younger.
            for entry in self.folder.glob(".*.tmp"):
                if time.time() - entry.stat().st_mtime > STALE_SECONDS:
                    entry.unlink(missing_ok=True)
