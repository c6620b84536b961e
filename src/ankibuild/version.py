"""The version, and a fingerprint of the code that builds: cached work is only valid for it."""

from __future__ import annotations

import hashlib
from functools import cache
from importlib import metadata
from pathlib import Path

__version__ = "0.1.0"

#: Other packages whose versions change what a build makes (rendered text, package bytes).
_MAKERS = ("genanki", "markdown-it-py", "Pygments", "PyYAML")


@cache
def code_fingerprint() -> str:
    """Our own code, byte for byte, and the versions of the libraries that shape the output.

    Not just ``__version__``: an installed checkout that is edited keeps its version number.
    """
    digest = hashlib.sha256(__version__.encode())
    for path in sorted(Path(__file__).parent.rglob("*")):
        if path.suffix in {".py", ".js", ".json", ".css", ".html"}:
            digest.update(path.name.encode() + b"\0" + path.read_bytes())
    for name in _MAKERS:
        try:
            digest.update(f"{name}={metadata.version(name)}".encode())
        except metadata.PackageNotFoundError:
            digest.update(f"{name}=none".encode())
    return digest.hexdigest()
