"""A semester of a shared bank, as a class lives it: two classmates, one real git repository.

Every push to ``main`` is built the way the documented CI workflow builds it
(a fresh clone, the last release's packages and changelog fetched into
``dist/``, ``build --frozen``) and published as a release. A classmate who
only ever clicks Import takes every release in order into one Anki collection
(default options), follows what the changelog tells them to do, and reviews
between imports. After every import their collection must hold exactly what
was published, with every review kept.
"""

from __future__ import annotations

import json
import re
import shutil
import sqlite3
import zipfile
from pathlib import Path

from ankibuild import BuildResult, build
from ankibuild.lock.clock import Clock
from ankibuild.lock.format import LOCK_FILE, read_lock

from ..ankitools import collection, import_package, review_log, review_new_cards
from ..conftest import Project
from ..gitrepo import Repo
from ..gitrepo import edit as _edit

LANGS = ("de", "en")
BANK = """id: class-bank
languages: [de, en]
title: {de: Klasse, en: Class}
topics:
  basics: {de: Grundlagen, en: Basics}
"""
#: The day the semester starts; each step of it takes an hour.
START = 1_750_000_000
DAY = 86_400


def _question(qid: str, text: str) -> str:
    return (
        f"  - id: {qid}\n    topics: [basics]\n    answer: A\n"
        f"    de:\n      question: {text} (de)?\n      options: [Ja, Nein]\n      explanation: Darum.\n"
        f"    en:\n      question: {text} (en)?\n      options: ['Yes', 'No']\n      explanation: Because.\n"
    )


def _deck(de: str, en: str, questions: list[tuple[str, str]]) -> str:
    return f"deck: {{de: {de}, en: {en}}}\nquestions:\n" + "".join(_question(q, t) for q, t in questions)


def _cut(repo: Repo, name: str, qid: str) -> str:
    """Take question ``qid`` out of file ``name``; return its text."""
    path = repo.path / "decks" / name
    text = path.read_text(encoding="utf-8")
    start = text.index(f"  - id: {qid}\n")
    end = text.find("  - id: ", start + 1)
    end = len(text) if end == -1 else end
    path.write_text(text[:start] + text[end:], encoding="utf-8")
    return text[start:end]


def _published(release: Path) -> dict[str, tuple[str, tuple[str, ...], str]]:
    """Every note of a release's packages, read straight from the files: fields, tags and deck, by GUID."""
    notes = {}
    for lang in LANGS:
        with zipfile.ZipFile(release / f"class-bank-{lang}.apkg") as archive:
            content = archive.read("collection.anki2")
        conn = sqlite3.connect(":memory:")
        conn.deserialize(content)
        decks = {
            int(did): deck["name"]
            for did, deck in json.loads(conn.execute("SELECT decks FROM col").fetchone()[0]).items()
        }
        for guid, flds, tags, did in conn.execute(
            "SELECT n.guid, n.flds, n.tags, c.did FROM notes n JOIN cards c ON c.nid = n.id"
        ):
            notes[guid] = (flds, tuple(tags.split()), decks[did])
        conn.close()
    return notes


class Classroom:
    """The bank's remote, two classmates who write it, its releases, and one who studies it."""

    def __init__(self, root: Path, templates: Path, col: object) -> None:
        self.root, self.now = root, START
        self.origin = Repo.init_bare(root / "origin.git")
        self.alice = self.origin.clone(root / "alice")
        self.bob: Repo | None = None
        self.releases: list[Path] = []
        self.col = col
        self.reviews: list[int] = []
        self.intervals: dict[int, int] = {}
        shutil.copytree(templates, self.alice.path / "templates")
        (self.alice.path / ".gitignore").write_text("dist/\ndecks/.ankibuild.build-lock\n", encoding="utf-8")

    def build(self, repo: Repo, skew: int = 0) -> BuildResult:
        """A classmate's build on their own computer, whose clock is ``skew`` seconds off."""
        self.now += 3600
        clock = Clock(lambda: self.now + skew)
        return build(decks=repo.path / "decks", templates=repo.path / "templates", out=repo.path / "dist", clock=clock)

    def push(self, repo: Repo, message: str, *, force: bool = False) -> None:
        repo.commit(message)
        repo.git("push", "-q", *(["--force"] if force else []), "origin", "HEAD:main")

    def release_edit(self, repo: Repo, name: str, old: str, new: str, message: str) -> None:
        """A classmate's edit, built, pushed and published."""
        _edit(repo, name, old, new)
        self.build(repo)
        self.push(repo, message)
        self.publish()

    def publish(self) -> BuildResult:
        """What CI does on a push: a fresh clone, the last release fetched into dist/, a frozen build."""
        self.now += 3600
        ci = self.origin.clone(self.root / f"ci-{len(self.releases) + 1}")
        if self.releases:
            shutil.copytree(self.releases[-1], ci.path / "dist")
        now = self.now
        result = build(
            decks=ci.path / "decks",
            templates=ci.path / "templates",
            out=ci.path / "dist",
            frozen=True,
            clock=Clock(lambda: now),
        )
        release = self.root / f"release-{len(self.releases) + 1}"
        shutil.copytree(ci.path / "dist", release)
        self.releases.append(release)
        self.study(release)
        return result

    def study(self, release: Path) -> None:
        """Import a release, check nothing was lost, do as the changelog says, check, then review."""
        col = self.col
        for lang in LANGS:
            log = import_package(col, release / f"class-bank-{lang}.apkg")  # type: ignore[arg-type]
            assert log.conflicting == 0  # "duplicate" counts the unchanged notes it skipped
        assert review_log(col)[: len(self.reviews)] == self.reviews  # type: ignore[arg-type]
        assert {cid: col.get_card(cid).ivl for cid in self.intervals} == self.intervals  # type: ignore[attr-defined]
        self.follow_changelog(release)
        names = sorted(m["name"] for m in col.models.all() if m["name"].startswith("class-bank"))  # type: ignore[attr-defined]
        assert names == ["class-bank (de)", "class-bank (en)"]  # no "class-bank (de)+"
        assert self.collection() == _published(release)
        review_new_cards(col)  # type: ignore[arg-type]
        self.reviews = review_log(col)  # type: ignore[arg-type]
        self.intervals = {cid: col.get_card(cid).ivl for cid in col.find_cards("")}  # type: ignore[attr-defined]

    def follow_changelog(self, release: Path) -> None:
        """Do what the newest section of the changelog says, if this release added one."""
        text = (release / "CHANGELOG.md").read_text(encoding="utf-8")
        before = self.releases[-2] / "CHANGELOG.md" if len(self.releases) > 1 else None
        if before is not None and before.read_text(encoding="utf-8") == text:
            return
        newest = text.split("\n## ")[1]
        col = self.col
        for search, deck in re.findall(
            r"search for `([^`]+)`, select all cards, then Change Deck to `([^`]+)`", newest
        ):
            cards = col.find_cards(search)  # type: ignore[attr-defined]
            assert cards
            col.set_deck(cards, col.decks.id(deck))  # type: ignore[attr-defined]
        for search in re.findall(r"search for `([^`]+)`, select the notes and delete them", newest):
            notes = col.find_notes(search)  # type: ignore[attr-defined]
            assert notes
            col.remove_notes(notes)  # type: ignore[attr-defined]

    def collection(self) -> dict[str, tuple[str, tuple[str, ...], str]]:
        col = self.col
        rows = col.db.all(  # type: ignore[attr-defined]
            "SELECT n.guid, n.flds, n.tags, c.did FROM notes n JOIN cards c ON c.nid = n.id"
        )
        assert len({guid for guid, *_ in rows}) == len(rows)
        return {guid: (flds, tuple(tags.split()), col.decks.name(did)) for guid, flds, tags, did in rows}  # type: ignore[attr-defined]

    def text(self, qid: str, lang: str = "en") -> str:
        """The question as the classmate's collection shows it."""
        (nid,) = self.col.find_notes(f'"ID:{qid}" "note:class-bank ({lang})"')  # type: ignore[attr-defined]
        return str(self.col.get_note(nid)["Question"])  # type: ignore[attr-defined]

    def deck(self, qid: str, lang: str = "en") -> str:
        (cid,) = self.col.find_cards(f'"ID:{qid}" "note:class-bank ({lang})"')  # type: ignore[attr-defined]
        return str(self.col.decks.name(self.col.get_card(cid).did))  # type: ignore[attr-defined]


def _kinds(result: BuildResult, lang: str = "en") -> set[tuple[str, str]]:
    return {(c.question, c.kind) for c in result.changes.items if c.lang == lang}


def test_a_semester_of_git_reaches_the_classmate_exactly(project: Project, tmp_path: Path) -> None:
    with collection(tmp_path / "classmate.anki2") as col:
        room = Classroom(tmp_path / "class", project.templates, col)
        alice = room.alice
        decks = alice.path / "decks"
        decks.mkdir()
        (decks / "bank.yaml").write_text(BANK, encoding="utf-8")
        (decks / "basics.yaml").write_text(
            _deck(
                "Grundlagen", "Basics", [("layer_norm", "Layer norm"), ("layer-norm", "Layer-norm"), ("relu", "ReLU")]
            ),
            encoding="utf-8",
        )
        (decks / "advanced.yaml").write_text(
            _deck("Vertiefung", "Advanced", [("attention", "Attention"), ("softmax", "Softmax")]), encoding="utf-8"
        )
        room.build(alice)
        room.push(alice, "Start the bank")
        assert _kinds(room.publish()) == {
            (q, "new") for q in ("layer_norm", "layer-norm", "relu", "attention", "softmax")
        }

        # Two classmates add a question each on their own branch, one edits another; the merge needs nobody.
        bob = room.bob = room.origin.clone(tmp_path / "class" / "bob")
        shutil.rmtree(bob.path / "decks")  # Bob's checkout holds what Alice pushed
        bob.git("checkout", "-q", "--", ".")
        alice.git("switch", "-q", "-c", "alice-q")
        (decks / "advanced.yaml").write_text(
            (decks / "advanced.yaml").read_text(encoding="utf-8") + _question("new-alice", "Alice asks"),
            encoding="utf-8",
        )
        room.build(alice)
        alice.commit("Ask about something new")
        alice.git("push", "-q", "origin", "alice-q")
        (bob.path / "decks" / "basics.yaml").write_text(
            (bob.path / "decks" / "basics.yaml").read_text(encoding="utf-8") + _question("new-bob", "Bob asks"),
            encoding="utf-8",
        )
        _edit(bob, "basics.yaml", "Layer-norm (en)", "Layer-norm, in short (en)")
        room.build(bob)
        bob.commit("Ask about something else, clarify layer-norm")
        bob.git("fetch", "-q", "origin")
        merged = bob.git("merge", "--no-edit", "origin/alice-q", check=False)
        assert merged.returncode == 0, merged.stdout + merged.stderr
        bob.git("push", "-q", "origin", "HEAD:main")
        assert _kinds(room.publish()) == {("new-alice", "new"), ("new-bob", "new"), ("layer-norm", "changed")}
        assert room.text("layer-norm") == "Layer-norm, in short (en)?"

        # An edit, then its revert: the revert reaches the classmate, though the lock is the old one again.
        alice.git("switch", "-q", "main")
        alice.git("pull", "-q", "origin", "main")
        room.release_edit(alice, "basics.yaml", "ReLU (en)", "ReLU, wrongly (en)", "Reword relu")
        assert room.text("relu") == "ReLU, wrongly (en)?"
        alice.git("revert", "--no-edit", "HEAD")
        alice.git("push", "-q", "origin", "HEAD:main")
        assert _kinds(room.publish()) == {("relu", "changed")}
        assert room.text("relu") == "ReLU (en)?"

        # A reset to an older commit, rebuilt on Alice's computer, which remembers what it last built.
        before_softmax = alice.head()
        room.release_edit(alice, "advanced.yaml", "Softmax (en)", "Softmax, wrongly (en)", "Reword softmax")
        assert room.text("softmax") == "Softmax, wrongly (en)?"
        alice.git("reset", "-q", "--hard", before_softmax)
        rebuilt = room.build(alice)
        assert rebuilt.lock_written and _kinds(rebuilt) == {("softmax", "changed")}
        room.push(alice, "Back to the softmax we had", force=True)
        assert _kinds(room.publish()) == {("softmax", "changed")}
        assert room.text("softmax") == "Softmax (en)?"

        # A renamed deck, then a question moved to another file: the changelog says how to follow.
        bob.git("fetch", "-q", "origin")
        bob.git("reset", "-q", "--hard", "origin/main")
        _edit(bob, "advanced.yaml", "en: Advanced", "en: Going further")
        room.build(bob)
        room.push(bob, "Rename the advanced deck")
        moved = room.publish()
        assert _kinds(moved) == {(q, "moved") for q in ("attention", "softmax", "new-alice")}
        assert room.deck("softmax") == "Class::Going further"
        block = _cut(bob, "advanced.yaml", "softmax")
        (bob.path / "decks" / "basics.yaml").write_text(
            (bob.path / "decks" / "basics.yaml").read_text(encoding="utf-8") + block, encoding="utf-8"
        )
        room.build(bob)
        room.push(bob, "Softmax belongs with the basics")
        assert _kinds(room.publish()) == {("softmax", "moved")}
        assert room.deck("softmax") == "Class::Basics" and room.deck("softmax", "de") == "Klasse::Grundlagen"

        # A removed question whose id has an underscore: the search deletes it, and not its look-alike.
        _cut(bob, "basics.yaml", "layer_norm")
        room.build(bob)
        room.push(bob, "Drop layer_norm")
        assert _kinds(room.publish()) == {("layer_norm", "removed")}
        assert room.text("layer-norm") == "Layer-norm, in short (en)?"

        # Bob's clock is a day fast; then Alice, whose clock is right, edits the same question.
        _edit(bob, "advanced.yaml", "Attention (en)", "Attention, fast (en)")
        fast = room.build(bob, skew=DAY)
        room.push(bob, "Reword attention")
        room.publish()
        ahead = read_lock(bob.path / "decks" / LOCK_FILE).notes
        alice.git("fetch", "-q", "origin")
        alice.git("reset", "-q", "--hard", "origin/main")
        _edit(alice, "advanced.yaml", "Attention, fast (en)", "Attention, right (en)")
        right = room.build(alice)
        said = [warning.describe() for warning in right.warnings]
        assert any("attention (en)" in warning and "ahead" in warning for warning in said), said
        behind = read_lock(alice.path / "decks" / LOCK_FILE).notes
        (attention,) = [guid for guid, note in behind.items() if (note.question, note.lang) == ("attention", "en")]
        assert behind[attention].mtime == ahead[attention].mtime + 1 > room.now + 1
        assert not any("clock" in warning.describe() for warning in fast.warnings)  # its own clock looked right to it
        room.push(alice, "Reword attention again")
        room.publish()
        assert room.text("attention") == "Attention, right (en)?"

        # Then Alice's clock runs a day slow.
        _edit(alice, "basics.yaml", "ReLU (en)", "ReLU, slowly (en)")
        slow = room.build(alice, skew=-DAY)
        said = [warning.describe() for warning in slow.warnings]
        assert any("relu (en)" in warning and "clock" in warning for warning in said), said
        room.push(alice, "Reword relu again")
        room.publish()
        assert room.text("relu") == "ReLU, slowly (en)?"
        assert len(room.releases) == 12
