"""What classmates already have, read back from the published packages."""

from __future__ import annotations

import pytest

from ankibuild import published
from ankibuild.cache import Cache
from ankibuild.errors import Problems
from ankibuild.published import read_published

from .conftest import Project

LANGS = ("de", "fr", "en")


def test_what_a_build_keeps_of_its_packages_is_what_reading_them_finds(
    project: Project, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The record kept beside a package it made equals the package read back, so the next build need not read it."""
    project.build()
    problems = Problems()
    read = read_published(project.out, "ai-stack", LANGS, problems)
    assert len(read.notes) == 18 and set(read.notetypes) == set(LANGS) and not problems.items
    assert {note.deck for note in read.notes.values() if note.lang == "en"} == {
        "AI Quiz::AI hardware and software stack"
    }

    def refuse(*args: object) -> None:
        raise AssertionError("a package was read")

    monkeypatch.setattr(published, "_read_package", refuse)
    assert read_published(project.out, "ai-stack", LANGS, problems, Cache(project.decks).kept) == read


def test_a_package_that_cannot_be_read_is_a_warning(project: Project) -> None:
    """A damaged file in dist/ costs only the notes it held their published times, and says so."""
    project.build()
    (project.out / "ai-stack-de.apkg").write_bytes(b"PK\x03\x04 not a zip")
    (project.out / "notes.apkg").write_bytes(b"")
    project.edit("ai-hardware.yaml", "Die arithmetische Intensität", "Die Intensität")
    result = project.build()
    assert sum("cannot read this published package" in warning.describe() for warning in result.warnings) == 2
    assert {change.lang for change in result.changes.items if change.kind == "new"} == {"de"}
