"""A cached file result whose parts are each of their shape but name what another part does not hold is a miss.

Whoever can write a shared cache folder can write an entry the cache's way (see
``test_forged_shapes.py``), its parts each of the right type and yet not of one
file: a question's block named after a question the result has not, a note of
another deck, or showing an image the result does not hold. The build looks
these up by name. Each case below builds a bank through the command line after
such an entry and expects what the same builds say and write with a cache
nobody forged, the file processed again.
"""

from __future__ import annotations

import copy
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from ankibuild.cache import Cache, pack, unpack
from ankibuild.cards.folders import DEFAULTS
from ankibuild.cli import main
from ankibuild.load.deckfiles import _OWN, _SEP, _SHARED
from ankibuild.lock.clock import Clock

from ..conftest import KIND_EXAMPLES, ROOT

#: The start of a question's English text in the sample: changed, its other languages fall behind it.
EN_QUESTION = "Why do elementwise operations such as ReLU"
#: The time every build of these gives the notes it stamps, so that two banks' builds write the same lock.
NOW = 1_700_000_000

#: Changes a result's header and byte strings in place.
Forge = Callable[[dict[str, Any], list[bytes]], None]
#: Where the ids of a result's questions, and of its blocks, are among its byte strings: after its notes' own texts.
IDS = {"questions": len(_OWN), "blocks": len(_OWN) + 1}


def _ids(column: str) -> Forge:
    """The ids of the result's ``column`` (its questions, or its questions' blocks) made others."""

    def forge(_: dict[str, Any], blobs: list[bytes]) -> None:
        count = len(blobs[IDS[column]].split(_SEP.encode()))
        blobs[IDS[column]] = _SEP.join(f"forged-{place}" for place in range(count)).encode()

    return forge


def _shared(place: int, value: Callable[[Any], object]) -> Forge:
    """Each value of the notes' column kept in runs at ``place`` (see ``NoteHead``) made ``value`` of it."""

    def forge(header: dict[str, Any], _: list[bytes]) -> None:
        runs = header["notes"][list(_SHARED).index(place)]
        runs[0] = [value(old) for old in runs[0]]

    return forge


FORGERIES: dict[str, Forge] = {
    # The question with its translations behind is then asked for its texts' digests by a block of its own
    "the questions other than those of the blocks": _ids("questions"),
    "the blocks of other questions": _ids("blocks"),
    "notes of another deck": _shared(3, lambda key: "forged"),
    "notes that show an image the result does not hold": _shared(4, lambda names: [*names, "forged.png"]),
}


def _build() -> tuple[int, str]:
    result = CliRunner().invoke(main, ["build"])
    return result.exit_code, result.output


def _builds(
    root: Path, monkeypatch: pytest.MonkeyPatch, forge: Forge | None
) -> tuple[list[tuple[int, str]], dict[Path, bytes], bool]:
    """What each build of the bank says, ``more.yaml``'s result forged by ``forge`` before the last;
    what the last left of the bank and its packages; and whether it left ``more.yaml``'s result in the cache
    as it was before it was forged.

    ``more.yaml`` is a copy of the sample's file, its English text of a question changed: its other
    languages are behind. The last build is after an edit of the other file, ``more.yaml``'s result restored.
    """
    shutil.copytree(ROOT / "decks", root / "decks", ignore=shutil.ignore_patterns("*.lock", ".*", *KIND_EXAMPLES))
    shutil.copytree(DEFAULTS, root / "templates")
    monkeypatch.chdir(root)
    monkeypatch.setenv("ANKIBUILD_CACHE_DIR", str(root / "cache"))
    monkeypatch.setattr(Clock, "now", lambda _: NOW)
    more = root / "decks" / "more.yaml"
    more.write_text((root / "decks" / "ai-hardware.yaml").read_text("utf-8").replace("  - id: ", "  - id: copy-"))
    said = [_build()]
    more.write_text(more.read_text("utf-8").replace(EN_QUESTION, "Why do element-wise operations such as ReLU"))
    said.append(_build())
    entry = _entry_of(root / "decks", "more.yaml")
    stored, blobs = unpack(entry.read_bytes())
    if forge is not None:
        header = copy.deepcopy(stored)
        forge(header, blobs)
        entry.write_bytes(pack(header, blobs))
    with (root / "decks" / "ai-hardware.yaml").open("a", encoding="utf-8") as file:
        file.write("# reviewed\n")
    said.append(_build())
    written = {
        path.relative_to(root): path.read_bytes()
        for folder in (root / "decks", root / "dist")
        for path in folder.rglob("*")
        if path.is_file()
    }
    return said, written, unpack(entry.read_bytes())[0] == stored


def _entry_of(decks: Path, name: str) -> Path:
    """The cache entry of the result of question file ``name`` (not of its texts)."""
    for entry in Cache(decks).folder.glob("*.entry"):
        header = unpack(entry.read_bytes())[0]
        if isinstance(header, dict) and str(header["deck"][2][0]).endswith(name):
            return entry
    raise AssertionError(f"no result of {name} in the cache")


@pytest.mark.parametrize("forge", list(FORGERIES), ids=list(FORGERIES))
def test_a_result_whose_parts_disagree_is_a_miss(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, forge: str) -> None:
    """The build with the forged entry succeeds, says and writes what it would have, and stores the result again."""
    clean = _builds(tmp_path / "clean", monkeypatch, None)
    said, written, stored = _builds(tmp_path / "forged", monkeypatch, FORGERIES[forge])
    assert [code for code, _ in said] == [0, 0, 0]
    assert "may be outdated" in said[-1][1]
    assert (said, written) == clean[:2]
    assert stored
