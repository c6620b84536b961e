"""Build the sample bank and import every package into a real Anki collection."""

from __future__ import annotations

import html
from pathlib import Path

import pytest
import yaml

from ankibuild.kinds.choice import FIELDS
from ankibuild.kinds.choice.options import LETTERS
from ankibuild.text.richtext import typography

from ..ankitools import TEMPLATE_ERROR, collection, import_package, render
from ..conftest import ROOT, Project

LANGS = ("de", "fr", "en")
#: Questions whose explanation uses Markdown (code, formulas, an image); test_media.py checks them.
RICH = {"conv-im2col-gemm", "w4a16-decode"}


def _sample() -> dict[str, object]:
    with (ROOT / "decks" / "ai-hardware.yaml").open(encoding="utf-8") as file:
        data: dict[str, object] = yaml.safe_load(file)
    return data


def test_every_language_imports_with_all_notes_decks_fields_and_tags(project: Project, tmp_path: Path) -> None:
    """Each .apkg imports into a fresh collection with its notes, deck, fields and topic tags."""
    result = project.build()
    questions = _sample()["questions"]
    assert isinstance(questions, list)
    assert sorted(o.path.name for o in result.outputs) == [f"ai-stack-{lang}.apkg" for lang in sorted(LANGS)]
    for lang in LANGS:
        with collection(tmp_path / f"{lang}.anki2") as col:
            log = import_package(col, project.out / f"ai-stack-{lang}.apkg")
            assert (log.new, log.updated, log.duplicate, log.conflicting) == (6, 0, 0, 0)
            assert col.note_count() == 6 and col.card_count() == 6
            title = {
                "de": "KI-Quiz::KI-Hardware und Software-Stack",
                "fr": "Quiz IA::Pile matérielle et logicielle de l'IA",
                "en": "AI Quiz::AI hardware and software stack",
            }[lang]
            assert title in {d.name for d in col.decks.all_names_and_ids()}
            for question in questions:
                (nid,) = col.find_notes(f'"ID:{question["id"]}"')
                note = col.get_note(nid)
                text = question[lang]
                assert list(note.keys()) == list(FIELDS)
                assert note["Question"] == html.escape(typography(text["question"], lang), quote=False)
                assert note["Answer"] == question["answer"]
                assert [note[letter] for letter in LETTERS[: len(text["options"])]] == [
                    html.escape(typography(o, lang), quote=False) for o in text["options"]
                ]
                if question["id"] not in RICH:
                    assert note["Explanation"] == html.escape(typography(text["explanation"], lang), quote=False)
                assert set(note.tags) == set(question["topics"])
                assert col.decks.name(col.get_card(note.card_ids()[0]).did) == title


@pytest.mark.parametrize("lang", LANGS)
def test_every_card_renders_question_front_and_answer_back(project: Project, tmp_path: Path, lang: str) -> None:
    """No template error; front has the question and options, back the options again (marked) and the explanation."""
    project.build()
    label = {"de": "Erläuterung", "fr": "Explication", "en": "Explanation"}[lang]
    with collection(tmp_path / "c.anki2") as col:
        import_package(col, project.out / f"ai-stack-{lang}.apkg")
        for card_id in col.find_cards(""):
            note = col.get_card(card_id).note()
            front, back = render(col, card_id)
            assert TEMPLATE_ERROR not in front + back
            assert note["Question"] in front and note["A"] in front and note["B"] in front
            assert note["Explanation"] not in front and label not in front
            answer = note["Answer"]
            assert f'data-answer="{answer}"' in back
            # the correct option is marked in place, not repeated under the options
            assert f'data-letter="{answer}"><span class="ab-letter">{answer}</span><span class="ab-text">' in back
            assert back.count(note[answer]) == 1
            assert label in back and note["Explanation"] in back
            assert f'lang="{lang}"' in front


def test_html_in_text_shows_as_written(project: Project, tmp_path: Path) -> None:
    """A question that talks about `a < b & c` keeps the characters, not markup."""
    project.edit("ai-hardware.yaml", "      question: Why do", "      question: a < b & c <b>bold</b> Why do")
    project.build()
    with collection(tmp_path / "c.anki2") as col:
        import_package(col, project.out / "ai-stack-en.apkg")
        (nid,) = col.find_notes('"ID:elementwise-ops-memory-bound"')
        card_id = col.get_note(nid).card_ids()[0]
        front, _ = render(col, card_id)
        assert "a &lt; b &amp; c &lt;b&gt;bold&lt;/b&gt;" in front
        assert "<b>bold</b>" not in front


def test_editing_text_or_moving_a_question_keeps_every_guid(project: Project, tmp_path: Path) -> None:
    """GUIDs come from the question id and language only: edits and moves keep them."""
    project.build()
    with collection(tmp_path / "before.anki2") as col:
        for lang in LANGS:
            import_package(col, project.out / f"ai-stack-{lang}.apkg")
        before = {col.get_note(n).guid for n in col.find_notes("")}
    project.edit("ai-hardware.yaml", "Weil GPUs elementweise Operationen", "Weil GPUs elementweise Rechnungen")
    source = project.decks / "ai-hardware.yaml"
    moved = project.decks / "more" / "moved.yaml"
    moved.parent.mkdir()
    source.rename(moved)
    (project.decks / "media").rename(moved.parent / "media")  # images are found beside the file
    project.build()
    with collection(tmp_path / "after.anki2") as col:
        for lang in LANGS:
            import_package(col, project.out / f"ai-stack-{lang}.apkg")
        after = {col.get_note(n).guid for n in col.find_notes("")}
    assert len(before) == 18
    assert after == before
