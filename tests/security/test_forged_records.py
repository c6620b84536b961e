"""The build's own records in the cache folder, forged: each is a miss, never a traceback or a wrong answer.

Anyone who can write the cache folder (a shared one, a CI cache restored from
elsewhere) can write the build record, the options kept for a command line and
any entry. Python's JSON reader recurses once per level of nesting, so a deep
enough document is a RecursionError rather than a ValueError; and a command
line's options are found by a digest only, so a memo copied under another
command line's name must not answer for it.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from ankibuild import commandline
from ankibuild.cache import _LENGTH, MAGIC, Cache, DamagedEntry, cache_root, pack, packed_digest, unpack
from ankibuild.options import BuildOptions
from ankibuild.state import BuildState

from ..conftest import Project

#: Deeper than Python's JSON reader can go.
DEEP = b"[" * 200_000 + b"]" * 200_000


def test_a_deeply_nested_entry_is_damaged() -> None:
    body = len(DEEP).to_bytes(_LENGTH, "little") + DEEP
    with pytest.raises(DamagedEntry):
        unpack(MAGIC + hashlib.sha256(body).digest() + body)


def test_a_deeply_nested_build_record_or_command_memo_is_a_miss(project: Project) -> None:
    project.build()
    argv = ["build", "--decks", str(project.decks), "--out", str(project.out)]
    options = BuildOptions(decks=project.decks, out=project.out)
    assert BuildState(options).unchanged() is not None
    memo = commandline._memo(argv)
    assert memo is not None and memo.parent == cache_root()
    memo.write_bytes(DEEP)
    assert commandline.recall(argv) is None
    records = list(Cache(project.decks).folder.glob("build-*.json"))
    assert records
    for record in records:
        record.write_bytes(DEEP)
    assert BuildState(options).unchanged() is None


def _program(project: Project, *args: str) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "ankibuild", *args]
    env = {**os.environ, "LC_ALL": "C.UTF-8"}
    return subprocess.run(command, capture_output=True, text=True, cwd=project.root, env=env)


@pytest.mark.slow
def test_a_memo_moved_to_another_command_line_does_not_answer_for_it(project: Project) -> None:
    """The options kept for building one bank, copied under the name of another's command line, are not used."""
    other = project.root / "other"
    shutil.copytree(project.decks, other)
    assert _program(project, "build", "--decks", "other", "--out", "other-dist").returncode == 0
    assert _program(project, "build", "--decks", "other", "--out", "other-dist").returncode == 0  # its options kept
    assert _program(project, "build").returncode == 0
    kept_dir = Path(os.environ["ANKIBUILD_CACHE_DIR"])
    memos = {path: json.loads(path.read_text()) for path in kept_dir.glob("command-*.json")}
    (theirs,) = (path for path, data in memos.items() if "other" in json.dumps(data["options"]))
    (ours,) = (path for path in memos if path != theirs)
    shutil.copy(theirs, ours)
    before = {path: path.read_bytes() for path in project.out.glob("*.apkg")}
    project.edit("ai-hardware.yaml", "Die arithmetische Intensität", "Die Intensität")
    rebuilt = _program(project, "build")
    assert rebuilt.returncode == 0, rebuilt.stderr
    assert "No changes since the last build." not in rebuilt.stdout
    assert any(path.read_bytes() != content for path, content in before.items())


@pytest.mark.parametrize("texts", [b"[1, 2]", b"{}", b"[[[], [7]]]", DEEP, b"not json"])
def test_forged_note_texts_are_made_again_from_the_file(project: Project, texts: bytes) -> None:
    """A file's texts in the cache, replaced by others of another shape with digests to match: packages
    made again from nothing (their collections gone from the cache) are those of a build without any cache."""
    project.build()
    forged: dict[str, str] = {}
    entries = list(Cache(project.decks).folder.glob("*.entry"))
    for entry in entries:
        header, blobs = unpack(entry.read_bytes())
        if isinstance(header, list):  # a file's texts, one blob per language
            packed = pack(header, [texts] * len(blobs))
            forged[packed_digest(entry.read_bytes())] = packed_digest(packed)
            entry.write_bytes(packed)
    for entry in entries:
        header, blobs = unpack(entry.read_bytes())
        if isinstance(header, dict) and header.get("texts_sha") in forged:
            entry.write_bytes(pack({**header, "texts_sha": forged[header["texts_sha"]]}, blobs))
    assert forged
    shutil.rmtree(Cache(project.decks).kept)
    made_before = {path.name: path.read_bytes() for path in project.out.glob("*.apkg")}
    for path in project.out.glob("*.apkg"):
        path.unlink()
    project.build()
    made = {path.name: path.read_bytes() for path in project.out.glob("*.apkg")}
    shutil.rmtree(Cache(project.decks).folder)
    for path in project.out.glob("*.apkg"):
        path.unlink()
    project.build()
    assert {path.name: path.read_bytes() for path in project.out.glob("*.apkg")} == made == made_before


def test_a_build_record_naming_a_package_no_file_can_be_is_a_miss(project: Project) -> None:
    """A path with a NUL byte, which the system refuses to open: the package is taken as changed, and made."""
    project.build()
    records = list(Cache(project.decks).folder.glob("build-*.json"))
    assert records
    for record in records:
        data = json.loads(record.read_bytes())
        data["outputs"][0]["path"] += "\0"
        record.write_text(json.dumps(data))
    project.edit("ai-hardware.yaml", "Die arithmetische Intensität", "Die Intensität")
    assert [output.path.name for output in project.build().outputs] == [
        "ai-stack-de.apkg",
        "ai-stack-fr.apkg",
        "ai-stack-en.apkg",
    ]


def test_a_question_files_digest_forged_in_the_build_record_is_a_miss(project: Project) -> None:
    """A digest recalled from the record is only a key to look in the cache under: the file is read again."""
    project.build()
    project.build()  # its files settled: the record now keeps their readings, digests included
    for record in Cache(project.decks).folder.glob("build-*.json"):
        data = json.loads(record.read_text())
        (name,) = [name for name in data["readings"] if name.endswith("ai-hardware.yaml")]
        data["readings"][name][5] = "0" * 64
        data["inputs"] = "forged"  # something to build
        record.write_text(json.dumps(data))
    for _ in range(2):
        result = project.build()
        assert result.questions > 0
