"""Rebuilding a bank that classmates already study: updated in place, nothing lost."""

from __future__ import annotations

import hashlib
import zipfile
from pathlib import Path

import pytest

from ankibuild.lock.format import LOCK_FILE

from ..ankitools import ImportLog, collection, import_package, review_every_card, review_log
from ..conftest import Project

LANGS = ("de", "fr", "en")
NEW_QUESTION = """
  - id: hbm-bandwidth
    topics: [ai-hardware, ai-hardware::memory-bandwidth]
    answer: A
    de:
      question: Wofür steht HBM?
      options: [High Bandwidth Memory, Hybrid Bus Module]
      explanation: HBM ist gestapelter Speicher mit sehr hoher Bandbreite.
    fr:
      question: Que signifie HBM ?
      options: [High Bandwidth Memory, Hybrid Bus Module]
      explanation: La HBM est une mémoire empilée à très haute bande passante.
    en:
      question: What does HBM stand for?
      options: [High Bandwidth Memory, Hybrid Bus Module]
      explanation: HBM is stacked memory with very high bandwidth.
"""


def _import_all(col: object, out: Path) -> ImportLog:
    logs = [import_package(col, out / f"ai-stack-{lang}.apkg") for lang in LANGS]  # type: ignore[arg-type]
    return ImportLog(*(sum(getattr(log, f) for log in logs) for f in ("new", "updated", "duplicate", "conflicting")))


def _remove_question(project: Project, qid: str) -> None:
    path = project.decks / "ai-hardware.yaml"
    text = path.read_text(encoding="utf-8")
    start = text.index(f"  - id: {qid}")
    end = text.find("\n  - id: ", start + 1)
    path.write_text(text[:start] + (text[end + 1 :] if end != -1 else ""), encoding="utf-8")


def test_rebuild_updates_edited_notes_adds_new_and_keeps_every_review(project: Project, tmp_path: Path) -> None:
    """The scenario of a weekly rebuild, imported with Anki's default options."""
    project.build()
    with collection(tmp_path / "student.anki2") as col:
        first = _import_all(col, project.out)
        assert (first.new, first.conflicting) == (18, 0)
        intervals = review_every_card(col)
        reviews = review_log(col)
        assert len(reviews) == 18 and all(ivl > 0 for ivl in intervals.values())

        project.edit("ai-hardware.yaml", "Die arithmetische Intensität ist sehr niedrig", "Die Intensität ist niedrig")
        _remove_question(project, "w4a16-decode")
        (project.decks / "ai-hardware.yaml").write_text(
            (project.decks / "ai-hardware.yaml").read_text(encoding="utf-8") + NEW_QUESTION, encoding="utf-8"
        )
        css = project.templates / "style.css"
        css.write_text(css.read_text(encoding="utf-8") + "\n.ab-question { letter-spacing: .01em; }\n")
        result = project.build()  # in the same second as the first build, quite likely

        second = _import_all(col, project.out)
        assert (second.new, second.updated, second.conflicting) == (3, 1, 0)
        assert col.note_count() == 18 + 3  # the removed question stays, nothing is duplicated
        (nid,) = col.find_notes('"ID:elementwise-ops-memory-bound" "note:ai-stack (de)"')
        assert "Die Intensität ist niedrig" in col.get_note(nid)["Explanation"]
        ours = [m for m in col.models.all() if m["name"].startswith("ai-stack")]
        assert sorted(m["name"] for m in ours) == ["ai-stack (de)", "ai-stack (en)", "ai-stack (fr)"]
        assert all("letter-spacing: .01em" in m["css"] for m in ours)
        assert review_log(col) == reviews
        assert {cid: col.get_card(cid).ivl for cid in intervals} == intervals
        kinds = {(c.lang, c.question, c.kind) for c in result.changes.items}
        assert ("de", "elementwise-ops-memory-bound", "changed") in kinds
        assert {("de", "w4a16-decode", "removed"), ("en", "hbm-bandwidth", "new")} <= kinds
        changelog = (project.out / "CHANGELOG.md").read_text(encoding="utf-8")
        assert changelog.index("removed w4a16-decode") < changelog.index("added w4a16-decode")
        assert '"ID:w4a16-decode"' in changelog


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_unchanged_sources_give_identical_bytes_and_write_nothing(project: Project) -> None:
    """Two builds of the same sources: same sha256, and the second touches no file."""
    project.build()
    files = [*sorted(project.out.iterdir()), project.decks / LOCK_FILE]
    before = {p: (_sha(p), p.stat().st_mtime_ns) for p in files}
    result = project.build()
    assert not any(o.written for o in result.outputs) and not result.lock_written
    assert {p: (_sha(p), p.stat().st_mtime_ns) for p in files} == before
    with zipfile.ZipFile(project.out / "ai-stack-de.apkg") as archive:
        assert [i.filename for i in archive.infolist()] == ["collection.anki2", "media", "0", "1"]
        assert {i.date_time for i in archive.infolist()} == {(1980, 1, 1, 0, 0, 0)}
        assert {i.compress_type for i in archive.infolist()} == {zipfile.ZIP_DEFLATED}


def test_a_fresh_checkout_with_the_lock_builds_the_same_bytes(project: Project) -> None:
    """Packages depend on the committed sources only: deleting dist/ and rebuilding restores them all.

    The changelog compares with what was published: with nothing in dist/, every
    question is new, on top of the history kept in the bank by earlier versions.
    """
    project.build()
    before = {p.name: _sha(p) for p in project.out.glob("*.apkg")}
    assert len(before) == 3 and (project.out / "CHANGELOG.md").is_file()
    for path in project.out.iterdir():
        path.unlink()
    result = project.build()
    assert {change.kind for change in result.changes.items} == {"new"} and len(result.changes.items) == 18
    assert {p.name: _sha(p) for p in project.out.glob("*.apkg")} == before
    history = (project.decks / "CHANGELOG.md").read_text(encoding="utf-8").removeprefix("# Changelog\n")
    assert (project.out / "CHANGELOG.md").read_text(encoding="utf-8").endswith(history)


def test_first_build_honours_source_date_epoch(project: Project, monkeypatch: pytest.MonkeyPatch) -> None:
    """SOURCE_DATE_EPOCH fixes the times of a first build: reproducible from a clean clone."""
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1700000000")
    project.build()
    first = {p.name: _sha(p) for p in project.out.glob("*.apkg")}
    lock = (project.decks / LOCK_FILE).read_text(encoding="utf-8")
    assert '"mtime": 1700000000' in lock and lock.count('"mtime": ') == 18 + 3
    (project.decks / LOCK_FILE).unlink()
    for path in project.out.iterdir():
        path.unlink()
    project.build()
    assert {p.name: _sha(p) for p in project.out.glob("*.apkg")} == first
