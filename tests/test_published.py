"""What classmates already have, read back from the published packages."""

from __future__ import annotations

import contextlib
import sqlite3
import zipfile
from collections.abc import Callable
from pathlib import Path

import pytest

from ankibuild.anki import published
from ankibuild.anki.published import read_published
from ankibuild.cache import Cache
from ankibuild.errors import Problems
from ankibuild.kinds import KINDS
from ankibuild.render import load_templates
from ankibuild.templatefolders import TemplateFolders

from .conftest import Project

LANGS = ("de", "fr", "en")
#: The note types of the sample bank, by key: one per language, all multiple choice.
TEMPLATES = {lang: load_templates(TemplateFolders(), KINDS["choice"], lang, Problems()) for lang in LANGS}


def test_what_a_build_keeps_of_its_packages_is_what_reading_them_finds(
    project: Project, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The record kept beside a package it made equals the package read back, so the next build need not read it."""
    project.build()
    problems = Problems()
    read = read_published(project.out, "ai-stack", TEMPLATES, problems)
    assert len(read.notes) == 18 and set(read.notetypes) == set(LANGS) and not problems.items
    assert {note.deck for note in read.notes.values() if note.entry.lang == "en"} == {
        "AI Quiz::AI hardware and software stack"
    }

    def refuse(*args: object) -> None:
        raise AssertionError("a package was read")

    monkeypatch.setattr(published, "_read_package", refuse)
    assert read_published(project.out, "ai-stack", TEMPLATES, problems, Cache(project.decks).kept) == read


def test_a_package_that_cannot_be_read_is_a_warning(project: Project) -> None:
    """A damaged file in dist/ costs only the notes it held their published times, and says so."""
    project.build()
    (project.out / "ai-stack-de.apkg").write_bytes(b"PK\x03\x04 not a zip")
    (project.out / "notes.apkg").write_bytes(b"")
    project.edit("ai-hardware.yaml", "Die arithmetische Intensität", "Die Intensität")
    result = project.build()
    assert sum("cannot read this published package" in warning.describe() for warning in result.warnings) == 2
    assert {change.lang for change in result.changes.items if change.kind == "new"} == {"de"}


def _rewrite_collection(package: Path, sql: str) -> None:
    """``package`` with ``sql`` run on its collection: a file that is a package in form only."""
    with zipfile.ZipFile(package) as archive:
        entries = {name: archive.read(name) for name in archive.namelist()}
    collection = package.with_suffix(".anki2")
    collection.write_bytes(entries["collection.anki2"])
    with contextlib.closing(sqlite3.connect(collection)) as conn:
        conn.execute(sql)
        conn.commit()
    entries["collection.anki2"] = collection.read_bytes()
    collection.unlink()
    with zipfile.ZipFile(package, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, content in entries.items():
            archive.writestr(name, content)


def _damage_compressed_data(package: Path) -> None:
    raw = bytearray(package.read_bytes())
    info = zipfile.ZipFile(package).getinfo("collection.anki2")
    start = info.header_offset + 30 + len(info.filename) + len(info.extra)
    raw[start : start + 64] = bytes(64)
    package.write_bytes(bytes(raw))


@pytest.mark.parametrize(
    "damage",
    [
        lambda package: _rewrite_collection(package, "UPDATE col SET decks = '[]'"),
        lambda package: _rewrite_collection(package, "UPDATE col SET models = '[1]'"),
        _damage_compressed_data,
    ],
    ids=["decks-a-list", "notetypes-a-list", "compressed-data"],
)
def test_a_package_well_formed_outside_but_not_inside_is_a_warning(
    project: Project, damage: Callable[[Path], None]
) -> None:
    """Whatever a file in dist/ holds, the build warns about it and goes on: never a traceback."""
    project.build()
    damage(project.out / "ai-stack-de.apkg")
    result = project.build()
    assert sum("cannot read this published package" in warning.describe() for warning in result.warnings) == 1
