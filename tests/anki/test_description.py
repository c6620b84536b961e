"""The deck's description: what the student's Anki shows about the build they imported."""

from __future__ import annotations

import datetime as dt

from anki.collection import Collection

from ankibuild.publish import publish

from ..ankitools import collection, import_package, render
from ..conftest import Project, use_scenario

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


def _words(project: Project, package: str) -> tuple[str, list[str]]:
    """The top deck's description and the back of every card of ``package``, imported into Anki."""
    with collection(project.root / f"{package}.anki2") as col:  # a student of that language alone
        import_package(col, project.out / package)
        described = [desc for desc in _descriptions(col).values() if desc]
        backs = [render(col, cid)[1] for cid in col.find_cards("")]
    assert len(described) == 1 and backs
    return described[0], backs


def _in_english(text: str) -> bool:
    return any(words in text for words in ("What changed", "Found a mistake", "Report a mistake", "added or changed"))


def test_a_german_and_a_hebrew_deck_say_their_description_and_report_link_in_their_own_words(
    project: Project,
) -> None:
    _describe(project)
    project.build(languages=["de"])
    german, backs = _words(project, "ai-stack-de.apkg")
    assert "Was sich geändert hat, Version für Version</a>" in german
    assert "Fehler entdeckt? Auf der Rückseite der Karte <i>Fehler melden</i> antippen." in german
    assert all(">Fehler melden</a></p>" in back for back in backs)
    assert not _in_english(german) and not any(_in_english(back) for back in backs)

    use_scenario(project, "rtl-sample")
    bank = project.decks / "bank.yaml"
    bank.write_text(bank.read_text(encoding="utf-8") + SETTINGS, encoding="utf-8")
    project.build(languages=["he"])
    hebrew, backs = _words(project, "rtl-sample-he.apkg")
    assert hebrew.startswith("<b>יסודות המחשב</b><br>גרסה ")
    assert "מה השתנה, גרסה אחר גרסה</a>" in hebrew and "<i>דיווח על טעות</i>" in hebrew
    assert all(">דיווח על טעות</a></p>" in back for back in backs)
    assert not _in_english(hebrew) and not any(_in_english(back) for back in backs)


def test_a_banks_own_labels_word_the_description_and_the_link_as_typed(project: Project) -> None:
    """A bank's labels file overrides these words like any other label; markup in them shows, never runs."""
    _describe(project)
    labels = project.templates / "de" / "labels.yaml"
    own = 'report: "<b>Melden</b>"\nabout_changes: "Neu & anders"\nabout_version: "Stand {time} ({count}) {report}"\n'
    ours = ("report:", "about_changes:", "about_version:")  # a key written twice is an error
    shipped = labels.read_text(encoding="utf-8").splitlines(keepends=True)
    labels.write_text("".join(line for line in shipped if not line.startswith(ours)) + own, encoding="utf-8")
    project.build(languages=["de"])
    german, backs = _words(project, "ai-stack-de.apkg")
    version = german.split("<br>")[1]
    assert version.startswith("Stand 20") and version.endswith(") {report}")
    assert ">Neu &amp; anders</a>" in german and "<i>&lt;b&gt;Melden&lt;/b&gt;</i>" in german
    assert all(">&lt;b&gt;Melden&lt;/b&gt;</a></p>" in back for back in backs)
    # The notes' fields hold the link's words: a rebuild after the label alone changed brings the new ones.
    labels.write_text(labels.read_text(encoding="utf-8").replace("<b>Melden</b>", "Melden"), encoding="utf-8")
    project.build(languages=["de"])
    assert all(">Melden</a></p>" in back for back in _words(project, "ai-stack-de.apkg")[1])
