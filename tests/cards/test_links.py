"""The report link on the back of every card: filled in, escaped, and only where the bank asks for it."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from click.testing import CliRunner

from ankibuild.cli import main
from ankibuild.kinds.choice import FIELDS, explanation_and_feedback

from ..ankitools import collection, import_package, render
from ..conftest import ROOT, Project

#: Everything a web address may hold that HTML reads otherwise: & in a query, and %22 for a quote.
REPORT = "https://example.org/physics/issues/new?title=Mistake+in+{id}&labels=mistake&body={lang}+{version}+%22x%22"


def _set(project: Project, settings: str) -> None:
    bank = project.decks / "bank.yaml"
    bank.write_text(bank.read_text(encoding="utf-8") + settings, encoding="utf-8")


def _backs(project: Project, package: str) -> dict[str, str]:
    """The back of every card of ``package`` as Anki renders it, by question id."""
    with collection(project.root / "student.anki2") as col:
        import_package(col, project.out / package)
        return {col.get_card(cid).note()["ID"]: render(col, cid)[1] for cid in col.find_cards("")}


def test_the_back_of_every_card_links_to_the_report_form_with_the_question_filled_in(project: Project) -> None:
    """The id, language and version of the text are filled in, URL-encoded, and & is escaped in the HTML."""
    _set(project, f'report: "{REPORT}"\n')
    project.build(languages=["fr"])
    backs = _backs(project, "ai-stack-fr.apkg")
    assert backs
    for qid, back in backs.items():
        start = (
            f'<a href="https://example.org/physics/issues/new?title=Mistake+in+{qid}&amp;labels=mistake&amp;body=fr+'
        )
        assert back.count(start) == 1, back
        version = back.split(start)[1][:8]
        assert back.split(start)[1][8:].startswith('+%22x%22">Signaler une erreur</a>')
        assert len(version) == 8 and version.isalnum()


def test_each_kind_shows_the_link_on_its_back(project: Project) -> None:
    """Cloze notes carry it in Extra, the others in Explanation: every card type's back shows it."""
    for name in ("cloze.yaml", "more-kinds.yaml"):
        shutil.copy(ROOT / "decks" / name, project.decks / name)
    _set(project, f'report: "{REPORT}"\n')
    project.build(languages=["en"])
    with collection(project.root / "student.anki2") as col:
        import_package(col, project.out / "ai-stack-en.apkg")
        backs = {(col.get_card(cid).note().mid, render(col, cid)[1]) for cid in col.find_cards("")}
    assert len({name for name, _ in backs}) == 4
    assert all(">Report a mistake</a>" in back for _, back in backs)


def test_without_report_no_card_has_a_link(project: Project) -> None:
    project.build(languages=["fr"])
    assert not any("ab-report" in back for back in _backs(project, "ai-stack-fr.apkg").values())


def test_a_report_address_that_is_not_a_plain_web_address_is_refused(project: Project) -> None:
    """Markup, script, another scheme or an unknown placeholder: each is an error at its line, nothing is built."""
    for hostile, message in [
        ('"https://x.org/new?t={id}\\"><script>alert(1)</script>"', "is not a web address a card can open"),
        ("javascript:alert(1)", "is not a web address a card can open"),
        ('"https://x.org/new?t={question}"', "unknown placeholder {question}"),
        ("[https://x.org]", "must be a web address, not a list"),
    ]:
        bank = project.decks / "bank.yaml"
        text = bank.read_text(encoding="utf-8").split("report:")[0]
        bank.write_text(f"{text}report: {hostile}\n", encoding="utf-8")
        result = CliRunner().invoke(main, ["check", "--format", "json"])
        (problem,) = json.loads(result.output)
        assert result.exit_code == 1 and message in problem["message"], problem
        assert problem["line"] == text.count("\n") + 1 and problem["hint"]
    assert CliRunner().invoke(main, ["build"]).exit_code == 1
    assert not Path(project.out).exists()


def test_feedback_on_options_read_back_ends_before_the_report_link(project: Project) -> None:
    """The link follows each option's feedback in the Explanation field: feedback read back holds none of it."""
    shutil.copy(ROOT / "decks" / "ai-inference.yaml", project.decks / "ai-inference.yaml")
    _set(project, f'report: "{REPORT}"\n')
    project.build(languages=["en"])
    with collection(project.root / "student.anki2") as col:
        import_package(col, project.out / "ai-stack-en.apkg")
        notes = [col.get_note(nid) for nid in col.find_notes('"Explanation:*ab-feedback*"')]
        read = [explanation_and_feedback([note[name] for name in FIELDS]) for note in notes]
    assert notes and all("Report a mistake" in note["Explanation"] for note in notes)
    assert all(feedback for _, feedback in read)
    assert not any("ab-report" in text for _, feedback in read for text in feedback.values())
