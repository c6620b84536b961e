"""The deck's description: what the student's Anki shows about the build they imported."""

from __future__ import annotations

import datetime as dt

from anki.collection import Collection

from ankibuild.publish import publish

from ..ankitools import collection, import_package
from ..conftest import Project

HOSTILE = "<img src=x onerror=alert(1)> & Quiz"
SETTINGS = (
    'description: true\nhome: "https://example.org/quiz?tab=releases&x=1"\nreport: "https://example.org/new?t={id}"\n'
)
PACKAGE = "ai-stack-en.apkg"


def _describe(project: Project, settings: str = SETTINGS) -> None:
    project.edit("bank.yaml", "en: AI Quiz", f"en: '{HOSTILE}'")
    bank = project.decks / "bank.yaml"
    bank.write_text(bank.read_text(encoding="utf-8") + settings, encoding="utf-8")


def _descriptions(col: Collection) -> dict[str, str]:
    return {deck["name"]: deck["desc"] for deck in col.decks.all() if deck["name"] != "Default"}


def _newest(col: Collection) -> str:
    """The newest time of the bank's notes and note types in the collection, as the description writes it."""
    notes = col.db.scalar("SELECT max(mod) FROM notes") if col.db else 0
    types = [nt["mod"] for nt in col.models.all() if nt["name"].startswith("ai-stack")]
    return dt.datetime.fromtimestamp(max(notes, *types), dt.UTC).strftime("%Y-%m-%d %H:%M:%S UTC")


def test_the_top_deck_says_the_bank_its_version_and_its_links_escaped(project: Project) -> None:
    """The parent deck has it (its decks have none); the title shows as typed; & is escaped in the link."""
    _describe(project)
    project.build(languages=["en"])
    with collection(project.root / "student.anki2") as col:
        import_package(col, project.out / PACKAGE)
        descriptions, version = _descriptions(col), _newest(col)
    top = descriptions.pop(HOSTILE)
    assert set(descriptions.values()) == {""}
    assert top.startswith("<b>&lt;img src=x onerror=alert(1)&gt; &amp; Quiz</b><br>")
    assert f"Version {version}: " in top
    assert '<a href="https://example.org/quiz?tab=releases&amp;x=1">' in top
    assert "Report a mistake" in top


def test_an_unchanged_bank_describes_itself_in_the_same_bytes_and_an_edit_brings_a_new_version(
    project: Project,
) -> None:
    """A rebuild with nothing changed is the same package; after an edit, a re-import shows the new version."""
    _describe(project, "description: true\n")
    project.build(languages=["en"])
    package = project.out / PACKAGE
    first = package.read_bytes()
    project.build(languages=["en"])
    assert package.read_bytes() == first
    with collection(project.root / "student.anki2") as col:
        import_package(col, package)
        before = _descriptions(col)[HOSTILE]
        project.edit("ai-hardware.yaml", "often take a lot of time", "often take much time")
        project.build(languages=["en"])
        import_package(col, package)
        after, version = _descriptions(col)[HOSTILE], _newest(col)
    assert after != before and f"Version {version}: " in after
    assert "Report a mistake" not in after and "<a " not in after


def test_without_a_title_each_deck_is_a_top_deck_and_has_the_description(project: Project) -> None:
    bank = project.decks / "bank.yaml"
    text = bank.read_text(encoding="utf-8")
    title = text[text.index("title:") : text.index("topics:")]
    bank.write_text(text.replace(title, "") + "description: true\n", encoding="utf-8")
    project.build(languages=["en"])
    with collection(project.root / "student.anki2") as col:
        import_package(col, project.out / PACKAGE)
        descriptions = _descriptions(col)
    assert descriptions and all(desc.startswith("<b>ai-stack</b><br>Version ") for desc in descriptions.values())


def test_a_bank_with_every_class_setting_publishes_nothing_when_nothing_changed(project: Project) -> None:
    """Preset, description, report link and retired search: the next publication is the same, so none is made."""
    _describe(project, SETTINGS + "study:\n  new-cards-per-day: 9\n")
    first = publish(decks=project.decks, last=project.root / "none", out=project.root / "first")
    again = publish(decks=project.decks, last=project.root / "first", out=project.root / "again")
    assert first.new and first.presets and first.retired
    assert not again.new and not (project.root / "again").exists()
