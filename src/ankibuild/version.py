"""The version, and a fingerprint of the code that builds: cached work is only valid for it."""

from __future__ import annotations

import hashlib
import re
import sys
from functools import cache
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
    installed = _installed()
    for name in _MAKERS:
        digest.update(f"{name}={installed.get(_normal(name)) or _version(name)}".encode())
    return digest.hexdigest()


def _normal(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _installed() -> dict[str, str]:
    """Installed distributions' versions, from the names of their ``.dist-info`` folders.

    Listing the import path is much quicker than loading ``importlib.metadata``,
    and a build with nothing to do has little else to do.
    """
    found: dict[str, str] = {}
    for entry in sys.path:
        try:
            names = [path.name for path in Path(entry or ".").iterdir() if path.suffix == ".dist-info"]
        except OSError:
            continue
        for name in names:
            project, _, version = name.removesuffix(".dist-info").partition("-")
            found.setdefault(_normal(project), version)
    return found


def _version(name: str) -> str:
    """A distribution's version as ``importlib.metadata`` finds it (egg-info, zip imports...)."""
    from importlib import metadata

    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return "none"
