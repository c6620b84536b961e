"""Files the card templates load, packaged as media under content-hashed names.

Anki never overwrites a media file whose name starts with ``_`` when it imports
a package (such files are meant for templates), so a changed script must
arrive under a new name: the name carries a digest of the content, and the
templates refer to that name.
"""

from __future__ import annotations

import base64
import hashlib
from dataclasses import dataclass
from pathlib import Path

PREFIX = "_ankibuild-"
#: Fixed here rather than asked of the system, so the preview page is the same everywhere.
TYPES = {
    ".js": "text/javascript",
    ".css": "text/css",
    ".png": "image/png",
    ".jpg": "image/jpeg",
    ".jpeg": "image/jpeg",
    ".gif": "image/gif",
    ".svg": "image/svg+xml",
    ".webp": "image/webp",
}


@dataclass(frozen=True)
class Asset:
    """A file for the templates: its name in the collection's media, and its bytes."""

    name: str
    content: bytes

    @classmethod
    def hashed(cls, path: Path, content: bytes) -> Asset:
        """``card.js`` -> ``_ankibuild-<12 hex digits of sha256>.js``."""
        digest = hashlib.sha256(content).hexdigest()[:12]
        return cls(f"{PREFIX}{digest}{path.suffix}", content)

    def data_url(self) -> str:
        """The file inline, for a page that loads nothing from anywhere else."""
        kind = TYPES.get(Path(self.name).suffix, "application/octet-stream")
        return f"data:{kind};base64,{base64.b64encode(self.content).decode('ascii')}"
