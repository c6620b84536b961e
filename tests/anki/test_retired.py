"""Retired questions: one search in the release notes deletes every one a classmate has, whatever they skipped."""

from __future__ import annotations

import re
from pathlib import Path

from anki.collection import Collection
from hypothesis import given, settings
from hypothesis import strategies as st

from ankibuild.changelog import Changelog
from ankibuild.lock.clock import Clock
from ankibuild.publish import MAX_SEARCHES, NOTES_FILE, Publication, publish
from ankibuild.search import retired_search

from ..ankitools import collection, import_package, review_every_card

BANK = "id: optics\nlanguages: [de, en]\ntopics:\n  light: {de: Licht, en: Light}\n"
#: Ids that a search written carelessly mixes up: "lens.1" read as a pattern also matches "lens-1".
QUESTIONS = ("lens-1", "free_fall", "inertia", "lens.1", "work")
PACKAGE = "optics-en.apkg"
FIRST_DAY, DAY = 1_760_000_000, 86_400


def _question(qid: str, text: str) -> str:
    if text.startswith("It is true that "):  # a true/false question: another kind, another note type
        return (
            f"  - id: {qid}\n    kind: truefalse\n    topics: [light]\n    answer: true\n"
            f"    de:\n      question: {text} (de)\n      explanation: Siehe Skript.\n"
            f"    en:\n      question: {text}\n      explanation: See the notes.\n"
        )
    return (
        f"  - id: {qid}\n    topics: [light]\n    answer: A\n"
        f"    de:\n      question: {text} (de)\n      options: [Ja, Nein]\n      explanation: Siehe Skript.\n"
        f"    en:\n      question: {text}\n      options: ['Yes', 'No']\n      explanation: See the notes.\n"
    )


class Class:
    """A bank, its publications one after the other, and what they say."""

    def __init__(self, root: Path) -> None:
        self.root, self.decks, self.count = root, root / "decks", 0
        self.decks.mkdir()
        (self.decks / "bank.yaml").write_text(BANK, encoding="utf-8")

    def publish(self, questions: dict[str, str]) -> Path:
        """Publish the bank holding ``questions`` (id: text) after the last publication; its folder."""
        body = "".join(_question(qid, text) for qid, text in questions.items())
        (self.decks / "questions.yaml").write_text(f"deck: {{de: Optik, en: Optics}}\nquestions:\n{body}", "utf-8")
        last, self.count = self.root / f"p{self.count}", self.count + 1
        # A day apart, as publications are: a question added back is newer than its copy of the first one.
        clock = Clock(lambda: FIRST_DAY + self.count * DAY)
        publish(decks=self.decks, last=last, out=self.root / f"p{self.count}", clock=clock)
        return self.root / f"p{self.count}"

    def search(self, publication: Path, lang: str) -> str:
        """The search its release notes give for the retired questions of ``lang``."""
        notes = (publication / NOTES_FILE).read_text(encoding="utf-8").split("### Retired questions")[1]
        found = re.search(rf"^- {lang}: `(.*)`$", notes, re.MULTILINE)
        assert found is not None
        return found.group(1)


def _ids(col: Collection, search: str = "") -> set[str]:
    return {col.get_note(nid)["ID"] for nid in col.find_notes(search)}


def test_one_search_deletes_every_retired_question_after_four_publications_and_one_skipped(tmp_path: Path) -> None:
    """Removed, skipped, added back, removed, of another kind: the last notes' search selects what is retired.

    A question whose kind changed has a new note, of the new kind's note type: the old one is retired too.
    """
    bank = Class(tmp_path)
    texts = {qid: f"What about {qid}?" for qid in QUESTIONS}
    first = bank.publish(texts)
    with collection(tmp_path / "classmate.anki2") as col:
        import_package(col, first / PACKAGE)
        intervals = review_every_card(col)
        import_package(col, bank.publish({k: v for k, v in texts.items() if k != "inertia"}) / PACKAGE)
        bank.publish({k: v for k, v in texts.items() if k not in ("inertia", "lens-1")})  # skipped
        back = {k: v for k, v in texts.items() if k not in ("lens-1", "free_fall")}
        last = bank.publish(
            {**back, "inertia": "Inertia, again?", "work": "It is true that work is force times distance."}
        )
        import_package(col, last / PACKAGE)
        search = bank.search(last, "en")
        assert sorted(_ids(col, search)) == ["free_fall", "lens-1", "work"]
        col.remove_notes(col.find_notes(search))
        assert _ids(col) == {"inertia", "lens.1", "work"} and len(col.find_notes("")) == 3
        reviewed = {cid for cid in col.find_cards("") if col.get_card(cid).reps}
        intervals = {cid: ivl for cid, ivl in intervals.items() if cid in reviewed}
        # Every card left keeps its reviews, the one added back too, with its new text.
        assert intervals == {cid: col.get_card(cid).ivl for cid in reviewed} and len(reviewed) == 2
        assert "Inertia, again?" in col.get_note(col.find_notes('"ID:inertia"')[0])["Question"]
    with collection(tmp_path / "newcomer.anki2") as col:
        import_package(col, last / PACKAGE)
        assert _ids(col) == {"inertia", "lens.1", "work"} and _ids(col, search) == set()
        assert len(col.find_notes("")) == 3
    assert "(de)" in bank.search(last, "de") and bank.search(last, "de") != search


def test_the_release_notes_of_a_very_large_bank_point_at_the_changelog_instead(tmp_path: Path) -> None:
    """Release notes have a size limit on GitHub: searches longer than it are left out, with what to do instead."""
    ids = [f"question-number-{n}" for n in range(3000)]
    made = Publication(tmp_path, False, Changelog(), "", ("en",), [])
    made.retired = {lang: retired_search({f"optics ({lang})": ids}) for lang in ("de", "en")}
    assert len(made.report) < MAX_SEARCHES < sum(map(len, made.retired.values()))
    assert "too large for one search: use the search each release's changelog gives" in made.report
    made.retired = {"en": retired_search({"optics (en)": ids[:10]})}
    assert '- en: `"note:optics (en)" -"ID:re:^(?:question\\-number\\-0|' in made.report


@given(st.lists(st.text(max_size=6)))
@settings(max_examples=200, deadline=None)
def test_the_ids_escaped_at_once_are_those_escaped_one_by_one(ids: list[str]) -> None:
    """Escaping the joined ids gives the very regular expression that escaping each one does, NUL and all."""
    alternatives = "|".join(re.escape(qid) for qid in sorted(set(ids)))
    assert retired_search({"optics (en)": ids}) == f'"note:optics (en)" -"ID:re:^(?:{alternatives})$"'
