"""The MathJax Anki ships, fetched once from the npm registry into a cache folder outside the repository.

Anki desktop (and so its reviewer, which AnkiDroid and AnkiMobile follow) ships
MathJax 3.2.2's ``tex-chtml-full.js`` with a configuration of its own
(``ts/mathjax/index.ts`` in Anki's repository): ``\\(...\\)`` inline and
``\\[...\\]`` display, no ``$$``, no escapes, environments or references outside
formulas, the ``noerrors`` and ``mathtools`` packages added and ``textmacros``
left out. :data:`ANKI_CONFIG` says the same, and the tests load MathJax with it.

``npm pack`` fetches the package (npm's own configuration, proxy and mirror
apply); its integrity is checked against :data:`INTEGRITY` before anything is
unpacked, and only ``es5/`` is kept.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tarfile
import tempfile
from pathlib import Path

VERSION = "3.2.2"
#: The registry's integrity of mathjax-3.2.2.tgz (``npm view mathjax@3.2.2 dist.integrity``).
INTEGRITY = "sha512-Bt+SSVU8eBG27zChVewOicYs7Xsdt40qm4+UpHyX7k0/O9NliPc+x77k1/FEsPsjKPZGJvtRZM1vO+geW0OhGw=="

#: Anki's MathJax configuration, as a script that runs before MathJax loads.
ANKI_CONFIG = """window.MathJax = {
  tex: {
    displayMath: [["\\\\[", "\\\\]"]],
    processEscapes: false,
    processEnvironments: false,
    processRefs: false,
    packages: {"[+]": ["noerrors", "mathtools"], "[-]": ["textmacros"]},
  },
  loader: {load: ["[tex]/noerrors", "[tex]/mathtools"]},
  startup: {typeset: false},
};"""


class Unavailable(RuntimeError):
    """Raised when MathJax can be neither found in the cache nor fetched: the reason, in words."""


def cache_folder() -> Path:
    """Where fetched test tools are kept: the user's cache, never the repository."""
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "ankibuild-tests"


def mathjax_script(cache: Path | None = None) -> Path:
    """``tex-chtml-full.js`` of MathJax :data:`VERSION`, fetched on first use."""
    folder = (cache or cache_folder()) / f"mathjax-{VERSION}"
    script = folder / "es5" / "tex-chtml-full.js"
    if not script.is_file():
        folder.parent.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryDirectory(dir=folder.parent) as work:
            _unpack(_pack(Path(work)), Path(work) / "unpacked")
            try:
                (Path(work) / "unpacked").rename(folder)
            except OSError:  # another test process unpacked it first
                if not script.is_file():
                    raise
    return script


def _pack(work: Path) -> Path:
    npm = shutil.which("npm")
    if npm is None:
        raise Unavailable("npm is not installed (apt-get install npm): it fetches MathJax for the browser tests")
    try:
        done = subprocess.run(
            [npm, "pack", f"mathjax@{VERSION}", "--json", "--pack-destination", str(work)],
            cwd=work,
            capture_output=True,
            text=True,
            timeout=300,
            check=False,
        )
    except subprocess.TimeoutExpired as err:
        raise Unavailable("npm pack mathjax did not finish in 5 minutes") from err
    if done.returncode != 0:
        raise Unavailable(f"npm pack mathjax@{VERSION} failed: {done.stderr.strip()[-500:]}")
    (packed,) = json.loads(done.stdout)
    if packed.get("integrity") != INTEGRITY:
        raise Unavailable(f"mathjax@{VERSION} from the registry is not the package these tests know")
    return work / str(packed["filename"])


def _unpack(tarball: Path, target: Path) -> None:
    """Only the regular files under ``package/es5/``, as ``target/es5/...``."""
    with tarfile.open(tarball) as archive:
        for member in archive.getmembers():
            name = Path(member.name)
            if member.isfile() and name.parts[:2] == ("package", "es5") and ".." not in name.parts:
                source = archive.extractfile(member)
                assert source is not None
                path = target.joinpath(*name.parts[1:])
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_bytes(source.read())
