"""Released outputs stay byte for byte what they were.

A classmate's Anki matches notes, note types and decks by id and updates a note
only when its time is newer, so a rebuild of an unchanged bank must make exactly
the packages it made before. This module builds the sample bank (with its
committed lock) and test banks that cover the features, with a fixed clock and
``SOURCE_DATE_EPOCH``, and compares every output with the copy kept in
``tests/data/identity/<bank>/``:

- each ``.apkg``: its sha256 in ``packages.sha256`` and a readable dump in
  ``<package>.txt`` (zip entries, media map, note types, decks, every note and
  card row), so that when a byte differs the dump's diff shows what changed;
- the lock and the translations record the build wrote, the changelog it
  published, and every file ``ankibuild preview`` writes, as they are.

Regenerating the copy is only for an intended change of released outputs, and
is reviewed as a diff (the commit says which bytes changed and why):

    ANKIBUILD_REGENERATE=1 python -m pytest tests/anki/test_identity.py

``tests/data/released/`` holds the sample bank's packages as released before
there were other kinds of question than multiple choice (built the same way,
in every language), and ``tests/data/released-sample/`` the sample bank's files
they were built from: the sample in ``decks/`` goes on growing. A collection
that imported them and was reviewed must see a build of the current version
update its multiple-choice notes in place, reviews kept. They are never
regenerated; here they are checked to import into Anki with every question.
"""

from __future__ import annotations

import difflib
import hashlib
import io
import json
import os
import shutil
import sqlite3
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import yaml

from ankibuild import build
from ankibuild.lock.clock import Clock
from ankibuild.preview.target import write_preview

from ..ankitools import imported_cards
from ..conftest import DATA, RELEASED, RELEASED_SAMPLE

IDENTITY = DATA / "identity"
#: The time of every build: after every time in the sample bank's committed lock.
NOW = 1_800_000_000
SHA_FILE = "packages.sha256"


@dataclass(frozen=True)
class Bank:
    """A bank to build, and how."""

    source: Path
    split: bool = False


BANKS = {
    # The sample bank as it was released: the sample in decks/ goes on growing (new kinds of question).
    "sample": Bank(RELEASED_SAMPLE),
    "every-language": Bank(DATA / "every-language"),
    "rtl-sample": Bank(DATA / "rtl-sample"),
    "pinned": Bank(DATA / "pinned"),
    "formulas": Bank(DATA / "formulas", split=True),
    "images-in-two-folders": Bank(DATA / "images-in-two-folders", split=True),
    "html-in-text": Bank(DATA / "html-in-text"),
}


def build_outputs(bank: Bank, root: Path) -> dict[str, bytes]:
    """Build a copy of ``bank`` in ``root`` and write its preview: every output, by its name in the reference.

    Needs ``SOURCE_DATE_EPOCH`` set to ``NOW``. A build folder's own lock and
    what a build of the sample bank left there are not part of the bank.
    """
    decks, out = root / "decks", root / "dist"
    shutil.copytree(bank.source, decks, ignore=shutil.ignore_patterns(".*"))
    build(decks=decks, out=out, split=bank.split, clock=Clock(lambda: NOW))
    write_preview(decks=decks, out=out / "preview", packages=out, split=bank.split)
    outputs = {path.relative_to(out).as_posix(): path.read_bytes() for path in sorted(out.rglob("*")) if path.is_file()}
    for name in ("ankibuild.lock", "translations.lock"):
        if (decks / name).is_file():
            outputs[name] = (decks / name).read_bytes()
    return outputs


def reference_files(outputs: dict[str, bytes]) -> dict[str, bytes]:
    """What the reference keeps of ``outputs``: text files as they are, each package as its sha256 and dump."""
    kept = {name: data for name, data in outputs.items() if not name.endswith(".apkg")}
    packages = {name: data for name, data in outputs.items() if name.endswith(".apkg")}
    kept[SHA_FILE] = "".join(
        f"{hashlib.sha256(data).hexdigest()}  {name}\n" for name, data in packages.items()
    ).encode()
    for name, data in packages.items():
        kept[f"{name}.txt"] = dump_package(data).encode()
    return kept


def dump_package(data: bytes) -> str:
    """A package as text: its zip entries, media map and collection."""
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        lines = ["# zip entries: name, date, size, sha256"]
        for info in archive.infolist():
            digest = hashlib.sha256(archive.read(info)).hexdigest()
            lines.append(f"{info.filename} {info.date_time} {info.file_size} {digest}")
        lines += ["", "# media", archive.read("media").decode()]
        collection = archive.read("collection.anki2")
    return "\n".join([*lines, "", *dump_collection(collection)]) + "\n"


def dump_collection(data: bytes) -> list[str]:
    """The collection's note types, decks, notes and cards, one readable item per line, sorted."""
    db = sqlite3.connect(":memory:")
    try:
        db.deserialize(data)
        return _collection_lines(db)
    finally:
        db.close()


def _collection_lines(db: sqlite3.Connection) -> list[str]:
    crt, mod, scm, ver, models, decks = db.execute("select crt, mod, scm, ver, models, decks from col").fetchone()
    lines = [f"# collection: crt {crt}, mod {mod}, scm {scm}, ver {ver}", "", "# note types"]
    for model in sorted(json.loads(models).values(), key=lambda m: m["id"]):
        lines += _notetype_lines(model)
    lines += ["", "# decks"]
    lines += [f"{d['id']} {d['name']!r}" for d in sorted(json.loads(decks).values(), key=lambda d: d["id"])]
    lines += ["", "# notes: id guid mid mod usn tags csum flags data sfld, then each field"]
    for row in db.execute(
        "select id, guid, mid, mod, usn, tags, csum, flags, data, sfld, flds from notes order by guid"
    ):
        lines.append(" ".join(repr(value) for value in row[:-1]))
        lines += [f"  {field!r}" for field in row[-1].split("\x1f")]
    lines += ["", "# cards: id nid did ord mod usn type queue due ivl factor reps lapses left odue odid flags data"]
    for row in db.execute("select * from cards order by nid, ord"):
        lines.append(" ".join(repr(value) for value in row))
    return lines


def _notetype_lines(model: dict[str, Any]) -> list[str]:
    shape = {key: model.get(key) for key in ("id", "name", "type", "mod", "sortf", "req")}
    lines = [json.dumps(shape, ensure_ascii=False)]
    lines.append("fields: " + json.dumps([f["name"] for f in model["flds"]], ensure_ascii=False))
    for template in model["tmpls"]:
        lines += [f"template {template['name']!r} front:", template["qfmt"], f"template {template['name']!r} back:"]
        lines.append(template["afmt"])
    return [*lines, "css:", str(model["css"])]


def _differences(expected: dict[str, bytes], actual: dict[str, bytes], folder: Path) -> list[str]:
    """Each file that differs, with its diff when it is text."""
    messages = []
    for name in sorted(expected.keys() | actual.keys()):
        old, new = expected.get(name), actual.get(name)
        if old == new:
            continue
        if old is None or new is None:
            messages.append(f"{folder / name}: {'not in the reference' if old is None else 'no longer written'}")
            continue
        diff = difflib.unified_diff(
            old.decode(errors="replace").splitlines(),
            new.decode(errors="replace").splitlines(),
            f"reference {name}",
            f"built {name}",
            lineterm="",
            n=2,
        )
        messages.append("\n".join([f"{folder / name} differs:", *list(diff)[:80]]))
    return messages


@pytest.fixture
def fixed_time(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SOURCE_DATE_EPOCH", str(NOW))


@pytest.mark.usefixtures("fixed_time")
@pytest.mark.parametrize("name", BANKS)
def test_outputs_are_byte_identical_to_the_reference(name: str, tmp_path: Path) -> None:
    """Packages, lock, translations record, changelog and preview of the bank, exactly as kept."""
    actual = reference_files(build_outputs(BANKS[name], tmp_path))
    folder = IDENTITY / name
    if os.environ.get("ANKIBUILD_REGENERATE"):
        shutil.rmtree(folder, ignore_errors=True)
        for relative, data in actual.items():
            (folder / relative).parent.mkdir(parents=True, exist_ok=True)
            (folder / relative).write_bytes(data)
    expected = {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}
    differences = _differences(expected, actual, folder)
    assert not differences, (
        "released outputs changed (a package's sha256 changed: its .txt dump's diff shows what); "
        "see tests/anki/test_identity.py to regenerate after an intended change\n" + "\n\n".join(differences)
    )


def test_released_packages_import_into_anki(tmp_path: Path) -> None:
    """Each released package imports into a new collection with every question of the sample bank."""
    packages = sorted(RELEASED.glob("*.apkg"))
    assert [p.name for p in packages] == ["ai-stack-de.apkg", "ai-stack-en.apkg", "ai-stack-fr.apkg"]
    logs, cards = imported_cards(tmp_path / "collection.anki2", packages)
    questions = len(yaml.safe_load((RELEASED_SAMPLE / "ai-hardware.yaml").read_text(encoding="utf-8"))["questions"])
    assert [log.new for log in logs] == [questions] * 3
    assert len(cards) == 3 * questions
