"""What classmates already have, read back from the published packages."""

from __future__ import annotations

import contextlib
import os
import resource
import sqlite3
import subprocess
import sys
import time
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from ankibuild.anki import published, target
from ankibuild.anki.published import read_published
from ankibuild.cache import Cache
from ankibuild.cards.folders import TemplateFolders
from ankibuild.errors import Problems
from ankibuild.kinds import KINDS
from ankibuild.load.render import load_templates
from ankibuild.lock.format import LOCK_FILE, read_lock

from ..conftest import ROOT, Project

LANGS = ("de", "fr", "en")
#: The note types of the sample bank, by key: one per language, all multiple choice.
TEMPLATES = {lang: load_templates(TemplateFolders(), KINDS["choice"], lang, problems=Problems()) for lang in LANGS}


def test_what_a_build_keeps_of_its_packages_is_what_reading_them_finds(
    project: Project, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The record kept beside a package it made equals the package read back, so the next build need not read it."""
    project.build()
    problems = Problems()
    read = read_published(project.out, "ai-stack", TEMPLATES, problems=problems)
    assert len(read.notes) == 18 and set(read.notetypes) == set(LANGS) and not problems.items
    assert {note.deck for note in read.notes.values() if note.entry.lang == "en"} == {
        "AI Quiz::AI hardware and software stack"
    }

    def refuse(*args: object) -> None:
        raise AssertionError("a package was read")

    monkeypatch.setattr(published, "_read_package", refuse)
    assert read_published(project.out, "ai-stack", TEMPLATES, problems=problems, kept=Cache(project.decks).kept) == read


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
        conn.executescript(sql)
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


def _warned(project: Project) -> list[str]:
    """The warnings of a build about published packages it could not use."""
    return [w.describe() for w in project.build().warnings if "cannot read this published package" in w.describe()]


#: A ``notes`` that never ends: a view counting without end over the real notes.
ENDLESS_VIEW = """
    ALTER TABLE notes RENAME TO real_notes;
    CREATE VIEW notes AS WITH RECURSIVE r(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM r)
        SELECT n.id, n.guid, n.mid, n.mod, n.flds, n.tags FROM r, real_notes n;
"""
#: Real tables whose join multiplies: 600 copies of one note, each joined with 600 copies of its card.
MULTIPLIED = """
    CREATE TABLE first_note AS SELECT * FROM notes WHERE id = (SELECT min(id) FROM notes);
    CREATE TABLE first_card AS SELECT * FROM cards WHERE nid = (SELECT min(id) FROM notes);
    DROP TABLE notes;
    DROP TABLE cards;
    CREATE TABLE notes AS SELECT * FROM first_note;
    CREATE TABLE cards AS SELECT * FROM first_card;
    WITH RECURSIVE r(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM r WHERE i < 600)
        INSERT INTO notes SELECT first_note.* FROM r, first_note;
    WITH RECURSIVE r(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM r WHERE i < 600)
        INSERT INTO cards SELECT first_card.* FROM r, first_card;
"""


@pytest.mark.slow
@pytest.mark.parametrize(
    "sql",
    [
        ENDLESS_VIEW,
        "ALTER TABLE notes RENAME TO real_notes; CREATE VIEW notes AS SELECT * FROM real_notes;",
        "ALTER TABLE cards RENAME TO real_cards; CREATE VIEW cards AS SELECT * FROM real_cards;",
        MULTIPLIED,
    ],
    ids=["endless-view", "notes-a-view", "cards-a-view", "multiplying-join"],
)
def test_a_package_is_read_from_real_tables_with_bounded_work(project: Project, sql: str) -> None:
    """A view in place of a table, however it ends, or a join that multiplies: a warning, never a hang."""
    project.build()
    _rewrite_collection(project.out / "ai-stack-de.apkg", sql)
    assert len(_warned(project)) == 1


#: Far ahead of any clock, yet within what the lock accepts; the very last time the lock accepts; beyond it.
FAR_AHEAD = [9_999_999_999, 10**10, 2**62]


@pytest.mark.parametrize("mtime", FAR_AHEAD)
def test_a_published_time_far_ahead_never_reaches_the_lock(project: Project, mtime: int) -> None:
    """A note published with a time decades ahead: the package is left out, and the lock keeps this clock's times."""
    project.build()
    _rewrite_collection(project.out / "ai-stack-de.apkg", f"UPDATE notes SET mod = {mtime}")
    project.edit("ai-hardware.yaml", "Die arithmetische Intensität", "Die Intensität")
    assert len(_warned(project)) == 1
    lock = read_lock(project.decks / LOCK_FILE)  # raises if the lock holds what its reader refuses
    assert max(note.mtime for note in lock.notes.values()) < time.time() + 86_400


@pytest.mark.parametrize(
    ("sql", "what"),
    [
        (
            "UPDATE col SET models = json_set(models, (SELECT '$.' || key || '.mod' FROM json_each(models) LIMIT 1), "
            "9999999999)",
            "note type time",
        ),
        ("UPDATE notes SET mod = -5", "negative time"),
        ("UPDATE notes SET mod = 'soon'", "time as text"),
        ("UPDATE notes SET flds = 'x' || char(10) || '<<<<<<< HEAD' || char(31) || flds", "id with a line break"),
        ("UPDATE notes SET guid = guid || char(10)", "GUID with a line break"),
        ("UPDATE notes SET flds = x'00ff'", "fields as bytes"),
    ],
    ids=lambda value: str(value)[:20],
)
def test_an_impossible_value_in_a_published_package_is_a_warning(project: Project, sql: str, what: str) -> None:
    """Times and ids out of range, and values of another type, make the package one of someone else's."""
    project.build()
    _rewrite_collection(project.out / "ai-stack-de.apkg", sql)
    project.edit("ai-hardware.yaml", "Die arithmetische Intensität", "Die Intensität")
    assert len(_warned(project)) == 1, what
    lock = read_lock(project.decks / LOCK_FILE)
    times = [entry.mtime for entry in lock.notes.values()] + [entry.mtime for entry in lock.notetypes.values()]
    assert max(times) < time.time() + 86_400
    changelog = (project.out / "CHANGELOG.md").read_text(encoding="utf-8")
    assert "<<<<<<<" not in changelog


def _bomb(package: Path, size: int) -> None:
    """``package`` replaced by a zip whose collection is ``size`` bytes of zeros: a few hundred KB, deflated."""
    with zipfile.ZipFile(package, "w", zipfile.ZIP_DEFLATED) as archive, archive.open("collection.anki2", "w") as entry:
        for _ in range(size // 2**20):
            entry.write(bytes(2**20))


#: Far less than a build of the sample needs with its packages read whole, and ample for it otherwise.
MEMORY_CAP = 900 * 2**20


@pytest.mark.slow
def test_reading_published_packages_takes_memory_in_proportion_to_what_is_read(project: Project) -> None:
    """Under a cap of address space: a build reads its own packages, and a package that inflates to 300 MB."""
    project.build()
    _bomb(project.out / "ai-stack-fr.apkg", 300 * 2**20)
    assert (project.out / "ai-stack-fr.apkg").stat().st_size < 2**20
    project.edit("ai-hardware.yaml", "Die arithmetische Intensität", "Die Intensität")

    def capped() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (MEMORY_CAP, MEMORY_CAP))

    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    command = [sys.executable, "-m", "ankibuild", "build", "--out", str(project.out)]
    built = subprocess.run(command, cwd=project.root, capture_output=True, text=True, env=env, preexec_fn=capped)
    assert built.returncode == 0, built.stderr
    warned = [line for line in built.stderr.splitlines() if "cannot read this published package" in line]
    assert len(warned) == 1 and "ai-stack-fr.apkg" in warned[0] and "inflates to more than" in warned[0]


def test_a_record_kept_while_a_package_is_read_is_not_kept_over(
    project: Project, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The record the process making a package's replacement keeps while the package is read stays.

    Kept over by what the package replaced held, it would be recalled by no build: each would read the package.
    """
    project.build()
    kept, read_package = Cache(project.decks).kept, published._read_package
    memos = sorted(kept.glob("published-*.memo"))
    assert len(memos) == len(LANGS)
    for memo in memos:
        memo.write_bytes(b"kept by another version")
    replacements = {memo: f"kept by the process making {memo.name}'s replacement".encode() for memo in memos}

    def read_while_kept(*args: Any) -> published.Published:
        for memo, content in replacements.items():
            memo.unlink()
            memo.write_bytes(content)
        return read_package(*args)

    monkeypatch.setattr(published, "_read_package", read_while_kept)
    problems = Problems()
    read = read_published(project.out, "ai-stack", TEMPLATES, problems=problems, kept=kept)
    assert len(read.notes) == 18 and not problems.items
    assert {memo: memo.read_bytes() for memo in memos} == replacements


def test_a_record_no_build_would_recall_is_kept_over(project: Project, monkeypatch: pytest.MonkeyPatch) -> None:
    """A package whose record is another's (another version kept it) is read, and what it holds kept."""
    project.build()
    kept = Cache(project.decks).kept
    for memo in kept.glob("published-*.memo"):
        memo.write_bytes(b"kept by another version")
    read = read_published(project.out, "ai-stack", TEMPLATES, problems=Problems(), kept=kept)

    def refuse(*args: object) -> None:
        raise AssertionError("a package was read")

    monkeypatch.setattr(published, "_read_package", refuse)
    assert read_published(project.out, "ai-stack", TEMPLATES, problems=Problems(), kept=kept) == read


@pytest.mark.parametrize("forked", [False, True], ids=["threads", "forked"])
def test_a_dry_run_keeps_no_notes_of_packages_it_does_not_write(
    project: Project, monkeypatch: pytest.MonkeyPatch, forked: bool
) -> None:
    """Kept under the name of the package there, the notes of one a dry run made would stand for another: the
    next build would read the package there whole."""
    if forked:
        if not hasattr(os, "fork"):
            pytest.skip("packages are made in processes of their own only where they can be forked")
        monkeypatch.setattr(target, "PROCESS_NOTES", 0)
    project.build()
    kept = Cache(project.decks).kept
    memos = {memo: memo.read_bytes() for memo in kept.glob("published-*.memo")}
    project.edit("ai-hardware.yaml", "Die arithmetische Intensität", "Die Intensität")
    assert [output.written for output in project.build(dry_run=True).outputs] == [True, False, False]
    assert {memo: memo.read_bytes() for memo in kept.glob("published-*.memo")} == memos

    def refuse(*args: object) -> None:
        raise AssertionError("a package was read")

    monkeypatch.setattr(published, "_read_package", refuse)
    assert [(c.lang, c.kind.value) for c in project.build().changes.items] == [("de", "changed")]
