"""A class's publishing loop, with no one's laptop: the repository `ankibuild init` writes, on a default branch
not named main, edited as a class edits it, and published by the workflow's command after every push.

CI is what the workflow does, moved off GitHub: a fresh clone of the default branch, the last publication in a
folder, `ankibuild publish`, and its folder kept as the new release when it says there is something to publish.
One classmate imports every publication into one Anki collection (default options) and reviews in between.
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass
from pathlib import Path

import pytest
from anki.collection import Collection
from click.testing import CliRunner, Result
from markdown_it import MarkdownIt

from ankibuild import build
from ankibuild.cli import main
from ankibuild.lock.clock import Clock
from ankibuild.publish import DROPPED_FILE, PUBLISHED_SUFFIXES, Publication, publish

from ..ankitools import (
    collection,
    collection_notes,
    import_package,
    package_notes,
    review_log,
    review_new_cards,
)
from ..gitrepo import Repo
from ..gitrepo import edit as _edit
from ..workflow import run_step, step_index, workflow

TRUNK = "trunk"
#: When the class starts: now, so that Anki takes every time as it is; each run of CI is an hour later.
START = int(time.time())
HOUR = 3600
ORIGIN = "https://github.com/teacher/ankibuild.git@v0.2.0"


def _question(qid: str, de: str, en: str) -> str:
    return (
        f"  - id: {qid}\n    topics: [getting-started]\n    answer: A\n"
        f"    de:\n      question: {de}\n      options: [Ja, Nein]\n      explanation: Siehe Skript.\n"
        f"    en:\n      question: {en}\n      options: ['Yes', 'No']\n      explanation: See the notes.\n"
    )


MECHANICS = "deck: {de: Mechanik, en: Mechanics}\nquestions:\n" + "".join(
    [
        _question("free-fall", "Fallen im Vakuum alle Körper gleich schnell?", "Do all bodies fall alike in a vacuum?"),
        _question("inertia", "Bleibt ein Körper ohne Kraft in Bewegung?", "Does a body with no force keep moving?"),
    ]
)


def _append(repo: Repo, name: str, text: str) -> None:
    path = repo.path / "decks" / name
    path.write_text(path.read_text(encoding="utf-8") + text, encoding="utf-8")


def _ankibuild(where: Path, *args: str, env: dict[str, str] | None = None) -> Result:
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(where)
        return CliRunner().invoke(main, list(args), env=env, catch_exceptions=False)


@dataclass
class Run:
    """One run of the workflow's command: what it made, and the job summary it wrote."""

    made: Publication
    summary: str

    @property
    def publish(self) -> bool:
        return self.made.new and not self.made.review

    def changes(self, lang: str) -> set[str]:
        """The changes of one language in the section this run adds, as the changelog words them."""
        return {change.describe() for change in self.made.changes.items if change.lang == lang}


class Class:
    """The bank's remote, the teacher's and a classmate's clones, the releases, and a classmate who studies."""

    def __init__(self, root: Path, col: Collection) -> None:
        self.root, self.col = root, col
        self.origin = Repo.init_bare(root / "origin.git", TRUNK)
        self.releases: list[Path] = []
        self.runs = 0
        self.reviews: list[int] = []

    def ci(self, *, review: Repo | None = None) -> Run:
        """What the workflow does: a fresh clone (of the default branch, or of a pull request's), the last
        release fetched into a folder, the command; a publication becomes the new release."""
        self.runs += 1
        clone = self.origin.clone(self.root / f"ci-{self.runs}")
        if review is not None:
            clone.git("fetch", "-q", str(review.path), f"{review.branch()}:pr")
            clone.git("checkout", "-q", "pr")
        assert clone.branch() == ("pr" if review else TRUNK)
        last = self.releases[-1] if self.releases else self.root / "nothing-published-yet"
        out, summary = self.root / f"out-{self.runs}", self.root / f"summary-{self.runs}.md"
        now = START + self.runs * HOUR  # each run an hour after the one before
        made = publish(
            decks=clone.path / "decks",
            last=last,
            out=out,
            review=review is not None,
            summary=summary,
            clock=Clock(lambda: now),
        )
        run = Run(made, summary.read_text(encoding="utf-8"))
        if run.publish:
            self.releases.append(out)
            self.study(out)
        return run

    def study(self, release: Path) -> None:
        """Import a release with Anki's default options, check that it arrived whole and nothing was lost, review."""
        col = self.col
        for package in sorted(release.glob("*.apkg")):
            assert import_package(col, package).conflicting == 0
        assert review_log(col)[: len(self.reviews)] == self.reviews
        names = sorted(m["name"] for m in col.models.all() if m["name"].startswith("physics"))
        assert all(not name.endswith("+") for name in names), names
        published: dict[str, str] = {}
        for package in release.glob("*.apkg"):
            published |= package_notes(package)
        assert collection_notes(col) == published  # no question is ever removed here
        changelog = (release / "CHANGELOG.md").read_text(encoding="utf-8")
        assert "removed" not in changelog and "delete" not in changelog
        review_new_cards(col)
        self.reviews = review_log(col)

    def text(self, qid: str, lang: str) -> str:
        (nid,) = self.col.find_notes(f'"ID:{qid}" "note:physics ({lang})"')
        return str(self.col.get_note(nid)["Question"])


def _push(repo: Repo, message: str) -> None:
    repo.commit(message)
    repo.git("push", "-q", "origin", f"HEAD:{TRUNK}")


def test_every_valid_commit_reaches_the_classmate_whoever_made_it(tmp_path: Path) -> None:
    with collection(tmp_path / "classmate.anki2") as col:
        room = Class(tmp_path / "class", col)

        # The teacher starts the bank: init makes the repository, on a default branch named trunk.
        made = _ankibuild(tmp_path / "class", "init", "physics", "--lang", "de", "--lang", "en", "--from", ORIGIN)
        assert made.exit_code == 0, made.output
        teacher = Repo(tmp_path / "class" / "physics")
        teacher.git("checkout", "-q", "-b", TRUNK)
        (teacher.path / "decks" / "mechanics.yaml").write_text(MECHANICS, encoding="utf-8")
        teacher.commit("Start the bank")
        teacher.git("remote", "add", "origin", str(room.origin.path))
        teacher.git("push", "-q", "origin", TRUNK)
        first = room.ci()
        assert first.publish and first.changes("en") == {
            "added where-languages-are-listed",
            "added free-fall",
            "added inertia",
        }

        # A typo fixed in the web editor: nobody builds, nobody commits a lock.
        _edit(teacher, "mechanics.yaml", "keep moving?", "keep moving in a straight line?")
        _edit(teacher, "mechanics.yaml", "in Bewegung?", "geradlinig in Bewegung?")
        _push(teacher, "Say in which way")
        fixed = room.ci()
        assert fixed.publish and fixed.changes("en") == {"changed inertia (Question)"}
        assert room.text("inertia", "en") == "Does a body with no force keep moving in a straight line?"
        assert room.text("inertia", "de") == "Bleibt ein Körper ohne Kraft geradlinig in Bewegung?"

        # A pull request from a second clone edits one question and adds another: the review publishes nothing.
        classmate = room.origin.clone(tmp_path / "class" / "classmate")
        classmate.git("checkout", "-q", "-b", "air-resistance")
        _edit(classmate, "mechanics.yaml", "in a vacuum?", "in a vacuum, feather and hammer alike?")
        _append(
            classmate,
            "mechanics.yaml",
            _question("drag", "Bremst Luft schnelle Körper stärker?", "Does air slow fast bodies more?"),
        )
        classmate.commit("Ask about drag")
        reviewed = room.ci(review=classmate)
        assert not reviewed.publish and len(room.releases) == 2
        assert reviewed.changes("en") == {"added drag", "changed free-fall (Question)"}
        assert sorted(p.name for p in reviewed.made.out.iterdir()) == ["REVIEW.md", "preview"]
        page = (reviewed.made.out / "preview" / "index.html").read_text(encoding="utf-8")
        shown = set(re.findall(r'<article class="pv-card" id="([^"]+)"', page))
        assert shown == {"de-drag", "en-drag", "en-free-fall"}  # free-fall changed in English only
        assert "- added drag" in reviewed.summary and "- changed free-fall (Question)" in reviewed.summary

        # The teacher merges it on GitHub.
        teacher.git("fetch", "-q", str(classmate.path), "air-resistance")
        teacher.git("merge", "-q", "--no-ff", "--no-edit", "FETCH_HEAD")
        teacher.git("push", "-q", "origin", TRUNK)
        merged = room.ci()
        assert merged.publish and merged.changes("de") == {"added drag"}
        assert room.text("free-fall", "en") == "Do all bodies fall alike in a vacuum, feather and hammer alike?"

        # A language added with nothing translated yet: the commit's check passes, and nothing new is published.
        added = _ankibuild(teacher.path, "add-language", "fr")
        assert added.exit_code == 0, added.output
        assert _ankibuild(teacher.path, "check").exit_code == 0  # what the pre-commit hook runs
        _push(teacher, "Start a French translation")
        waiting = room.ci()
        assert not waiting.publish and not waiting.made.out.exists()
        assert "| fr | 4 | 0 | not yet |" in waiting.summary

        # An edit in English only: English is published while French lags and German may be outdated.
        _edit(teacher, "mechanics.yaml", "Does air slow fast bodies more?", "Does air slow faster bodies more?")
        assert _ankibuild(teacher.path, "check").exit_code == 0
        _push(teacher, "Compare")
        english = room.ci()
        assert english.publish and english.changes("en") == {"changed drag (Question)"} and not english.changes("de")
        assert sorted(p.name for p in english.made.out.glob("*.apkg")) == ["physics-de.apkg", "physics-en.apkg"]
        assert "| fr | 4 | 0 | not yet |" in english.summary
        assert room.text("drag", "en") == "Does air slow faster bodies more?"
        notes = (english.made.out / "RELEASE_NOTES.md").read_text(encoding="utf-8")
        assert "changed drag" in notes and "| fr | 4 |" in notes

        # Two branches built locally in one working copy, then merged: no removal ever reaches the classmate.
        teacher.git("checkout", "-q", "-b", "add-optics")
        _append(teacher, "mechanics.yaml", _question("refraction", "Bricht Glas Licht?", "Does glass bend light?"))
        assert _ankibuild(teacher.path, "build").exit_code == 0
        teacher.commit("Ask about refraction")
        teacher.git("checkout", "-q", TRUNK)
        teacher.git("checkout", "-q", "-b", "add-gravity")
        (teacher.path / "decks" / "gravity.yaml").write_text(
            "deck: {de: Gravitation, en: Gravity}\nquestions:\n"
            + _question("orbit", "Fällt der Mond ständig?", "Is the Moon always falling?"),
            encoding="utf-8",
        )
        local = _ankibuild(teacher.path, "build")
        assert local.exit_code == 0 and "removed refraction" in local.output  # the local dist/ says so
        teacher.commit("Ask about orbits")
        teacher.git("checkout", "-q", TRUNK)
        for branch in ("add-optics", "add-gravity"):
            teacher.git("merge", "-q", "--no-edit", branch)
        # Between two publications: an edit made three times, and one made and undone.
        wording = "Does a body with no force keep moving in a straight line?"
        for better in (
            "Does a body keep moving with no force?",
            "Does a free body keep moving?",
            "Does a free body move on?",
        ):
            _edit(teacher, "mechanics.yaml", wording, better)
            teacher.commit(f"Reword: {better}")
            wording = better
        _edit(teacher, "mechanics.yaml", "Does glass bend light?", "Does glass bend light, always?")
        teacher.commit("Reword refraction")
        _edit(teacher, "mechanics.yaml", "Does glass bend light, always?", "Does glass bend light?")
        _push(teacher, "Undo that")
        branches = room.ci()
        assert branches.publish
        assert branches.changes("en") == {"added refraction", "added orbit", "changed inertia (Question)"}
        assert branches.changes("de") == {"added refraction", "added orbit"}
        assert room.text("inertia", "en") == "Does a free body move on?"
        assert room.text("refraction", "en") == "Does glass bend light?"
        assert "| de | 0 | 1 | yes |" in branches.summary  # inertia changed in English only
        assert len(room.releases) == 5 and room.reviews


def _bank_with_a_publication(tmp_path: Path) -> tuple[Repo, Path]:
    """A bank made by init, with a question file, published once by the command as CI runs it."""
    made = _ankibuild(tmp_path, "init", "physics", "--lang", "de", "--lang", "en", "--from", ORIGIN)
    assert made.exit_code == 0, made.output
    bank = Repo(tmp_path / "physics")
    (bank.path / "decks" / "mechanics.yaml").write_text(MECHANICS, encoding="utf-8")
    bank.commit("Start the bank")
    first = _ankibuild(bank.path, "publish", "--last", str(tmp_path / "none"), "--out", str(tmp_path / "release"))
    assert first.exit_code == 0, first.output
    return bank, tmp_path / "release"


def test_a_review_prints_what_the_pull_request_would_publish_and_publishes_nothing(tmp_path: Path) -> None:
    """On a branch with one question edited and one added: the changelog section, a preview of exactly their
    cards and of no package, publish=false for the workflow, and no package and no changelog written."""
    bank, release = _bank_with_a_publication(tmp_path)
    bank.git("checkout", "-q", "-b", "drag")
    _edit(bank, "mechanics.yaml", "in a vacuum?", "in a vacuum, feather and hammer alike?")
    _edit(bank, "mechanics.yaml", "im Vakuum", "im Vakuum, Feder wie Hammer,")
    _append(bank, "mechanics.yaml", _question("drag", "Bremst Luft schnelle Körper stärker?", "Does air slow more?"))
    bank.commit("Ask about drag")
    before = {path.name: path.read_bytes() for path in release.iterdir()}
    env = {"GITHUB_STEP_SUMMARY": str(tmp_path / "summary.md"), "GITHUB_OUTPUT": str(tmp_path / "outputs")}
    args = ["publish", "--review", "--last", str(release), "--out", str(tmp_path / "review")]
    reviewed = _ankibuild(bank.path, *args, env=env)
    assert reviewed.exit_code == 0, reviewed.output
    for lang in ("de", "en"):
        section = reviewed.output.split(f"#### {lang}\n\n", 1)[1].split("\n\n", 1)[0]
        assert section.splitlines() == ["- changed free-fall (Question)", "- added drag"]
    assert "Review written to" in reviewed.output and "nothing is published" in reviewed.output
    assert (tmp_path / "outputs").read_text(encoding="utf-8") == "publish=false\n"
    summary = (tmp_path / "summary.md").read_text(encoding="utf-8")
    assert summary.startswith("## What this change would publish") and "- added drag" in summary
    review = tmp_path / "review"
    assert sorted(p.relative_to(review).as_posix() for p in review.rglob("*")) == [
        "REVIEW.md",
        "preview",
        "preview/index.html",
    ]
    page = (review / "preview" / "index.html").read_text(encoding="utf-8")
    shown = re.findall(r'<article class="pv-card" id="([^"]+)"', page)
    assert sorted(shown) == ["de-drag", "de-free-fall", "en-drag", "en-free-fall"]
    # The review holds no package: the page links none, and shows no downloads to look for.
    assert ".apkg" not in page and '<section id="downloads" class="pv-downloads" hidden>' in page
    assert {path.name: path.read_bytes() for path in release.iterdir()} == before
    assert bank.git("status", "--porcelain").stdout == ""  # the bank is left as it was


def test_a_pull_request_with_an_error_fails_with_every_problem_in_the_summary(tmp_path: Path) -> None:
    """An error (here, an answer no option has) stops the job: exit 1, each problem with its file and line in the
    job summary, and nothing written."""
    bank, release = _bank_with_a_publication(tmp_path)
    _edit(bank, "mechanics.yaml", "answer: A", "answer: F")
    summary = tmp_path / "summary.md"
    args = ["publish", "--review", "--last", str(release), "--out", str(tmp_path / "review")]
    failed = _ankibuild(bank.path, *args, env={"GITHUB_STEP_SUMMARY": str(summary)})
    assert failed.exit_code == 1 and "Traceback" not in failed.output
    said = summary.read_text(encoding="utf-8")
    assert said.startswith("## Not published: 1 error(s)")
    assert re.search(r"^- `decks/mechanics\.yaml:\d+:\d+`: ", said, flags=re.MULTILINE), said
    assert not (tmp_path / "review").exists()


def _kinds(markdown: str) -> list[str]:
    """The kinds of Markdown's tokens in a text, inline ones included, as CommonMark with GitHub's tables reads it."""
    tokens = MarkdownIt("commonmark").enable("table").parse(markdown)
    return [t.type for token in tokens for t in [token, *(token.children or [])]]


@pytest.mark.parametrize(
    "name", ["x`y\n## Published <img src=x onerror=alert(1)>.yaml", "a``\u2028[c](mailto:e)`` \u202e.yaml"]
)
def test_a_file_name_from_a_pull_request_stays_inside_its_line_of_the_failure_summary(
    tmp_path: Path, name: str
) -> None:
    """A file whose name holds a line break, backquotes, HTML or a link, with a YAML error: the summary has one
    heading and one list item per error, the name in a code span it cannot close, and no HTML, image or link."""
    bank, release = _bank_with_a_publication(tmp_path)
    (bank.path / "decks" / name).write_text("questions: [\n", encoding="utf-8")
    summary = tmp_path / "summary.md"
    args = ["publish", "--review", "--last", str(release), "--out", str(tmp_path / "review")]
    failed = _ankibuild(bank.path, *args, env={"GITHUB_STEP_SUMMARY": str(summary)})
    assert failed.exit_code == 1
    said = summary.read_text(encoding="utf-8")
    kinds = _kinds(said)
    assert kinds.count("heading_open") == 1 and kinds.count("list_item_open") == 1, said
    assert not {"html_inline", "html_block", "image", "link_open"} & set(kinds), said
    (item,) = [line for line in said.splitlines() if line.startswith("- ")]
    (shown, *_) = [
        t.content for t in MarkdownIt("commonmark").parseInline(item)[0].children or [] if t.type == "code_inline"
    ]
    escaped = "".join(c if c.isprintable() else f"\\u{ord(c):04x}" for c in name)
    assert shown == f"decks/{escaped}:2:1"


def test_publishing_again_with_nothing_changed_publishes_nothing(tmp_path: Path) -> None:
    """The same commit published twice: the second run says there is nothing to publish and writes nothing."""
    bank, release = _bank_with_a_publication(tmp_path)
    again = _ankibuild(
        bank.path,
        "publish",
        "--last",
        str(release),
        "--out",
        str(tmp_path / "again"),
        env={"GITHUB_OUTPUT": str(tmp_path / "outputs")},
    )
    assert again.exit_code == 0 and "Nothing to publish" in again.output
    assert (tmp_path / "outputs").read_text(encoding="utf-8") == "publish=false\n"
    assert not (tmp_path / "again").exists()


#: ``gh`` for the Publish step, on a release that is a folder: updated in place, as GitHub updates one.
FAKE_GH = """#!/bin/sh
release={release}
case "$2" in
  upload) shift 3; for file in "$@"; do [ "$file" = --clobber ] || cp "$file" "$release/"; done ;;
  delete-asset) rm "$release/$4" || exit 1 ;;
esac
exit 0
"""


def test_a_language_no_longer_translated_leaves_the_release_with_the_next_publication(tmp_path: Path) -> None:
    """Every English text taken out: alone, that publishes nothing. The next publication holds no English package,
    rather than the last one's again, unchanged; its notes name it, and the workflow takes it out of the release,
    which GitHub updates in place: the run after has nothing to publish. The files a teacher attached to the
    release by hand stay, whatever their names end with."""
    bank, release = _bank_with_a_publication(tmp_path)
    (release / "RELEASE_NOTES.md").unlink()  # the release's text, not one of its files
    attached = ["Bonus exercises.apkg", "physics-extra.apkg", "physics-de-2025.apkg", "quiz.gift.txt", "slides.pdf"]
    for name in attached:
        (release / name).write_bytes(b"attached by hand")
    for path in (bank.path / "decks").glob("*.yaml"):
        text = path.read_text(encoding="utf-8")
        path.write_text(re.sub(r"^    en:\n(?:      .*\n)+", "", text, flags=re.MULTILINE), encoding="utf-8")
    bank.commit("Take the English texts out")
    alone = publish(decks=bank.path / "decks", last=release, out=tmp_path / "alone")
    assert not alone.new and alone.dropped == ["physics-en.apkg"] and not (tmp_path / "alone").exists()
    _edit(bank, "mechanics.yaml", "Siehe Skript.", "Siehe Skript, Kapitel 2.")
    bank.commit("Point to the chapter")
    made = publish(decks=bank.path / "decks", last=release, out=bank.path / "publication")
    assert made.new and made.dropped == ["physics-en.apkg"] and made.languages == ("de",)
    assert sorted(path.name for path in (bank.path / "publication").glob("*.apkg")) == ["physics-de.apkg"]
    notes = (bank.path / "publication" / "RELEASE_NOTES.md").read_text(encoding="utf-8")
    assert "### No longer published" in notes and "`physics-en.apkg`" in notes and "Bonus" not in notes
    dropped = (bank.path / "publication" / DROPPED_FILE).read_text(encoding="utf-8")
    assert dropped == "physics-en.apkg\n"
    fake = tmp_path / "bin"
    fake.mkdir()
    (fake / "gh").write_text(FAKE_GH.format(release=release), encoding="utf-8")
    (fake / "gh").chmod(0o755)
    step = workflow(bank.path)["jobs"]["publish"]["steps"][step_index(bank.path, "publish", "Publish")]["run"]
    assert all(f"*{suffix}" in step for suffix in PUBLISHED_SUFFIXES) and DROPPED_FILE in step
    uploaded = run_step(bank.path, "publish", step_index(bank.path, "publish", "Publish"), f'PATH="{fake}:$PATH"\n')
    assert uploaded.returncode == 0, uploaded
    assert sorted(path.name for path in release.iterdir()) == sorted(["CHANGELOG.md", "physics-de.apkg", *attached])
    # Run again (the asset is gone already): a warning, and the release as it is.
    rerun = run_step(bank.path, "publish", step_index(bank.path, "publish", "Publish"), f'PATH="{fake}:$PATH"\n')
    assert rerun.returncode == 0 and "::warning::Could not take physics-en.apkg out of the release" in rerun.stdout
    again = publish(decks=bank.path / "decks", last=release, out=tmp_path / "again")
    assert not again.new and again.dropped == [] and not (tmp_path / "again").exists()


def test_a_language_brought_back_with_a_text_the_lock_does_not_hold_reaches_classmates(tmp_path: Path) -> None:
    """A language published, edited on the web (no lock committed), taken out of the release, then brought back
    from the first commit with one word changed (docs/rebuilds.md): no package holds it any more, and its text
    is not the lock's, so it gets a new time, later than the edit classmates hold."""
    made = _ankibuild(tmp_path, "init", "physics", "--lang", "de", "--lang", "en", "--from", ORIGIN)
    assert made.exit_code == 0, made.output
    bank = Repo(tmp_path / "physics")
    (bank.path / "decks" / "mechanics.yaml").write_text(MECHANICS, encoding="utf-8")
    assert _ankibuild(bank.path, "build").exit_code == 0  # the teacher builds once, and commits the lock
    start = bank.commit("Start the bank, with its lock")
    releases = [tmp_path / "nothing-published-yet"]

    def ci(hours: int) -> Publication:
        out = tmp_path / f"out-{hours}"
        made = publish(decks=bank.path / "decks", last=releases[-1], out=out, clock=Clock(lambda: START + hours * HOUR))
        if made.new:
            releases.append(out)  # as the workflow leaves the release: nothing the publication does not hold
        return made

    with collection(tmp_path / "classmate.anki2") as col:

        def study() -> str:
            for package in sorted(releases[-1].glob("*.apkg")):
                import_package(col, package)
            (nid,) = col.find_notes('"ID:inertia" "note:physics (en)"')
            return str(col.get_note(nid)["Question"])

        assert ci(1).new and study() == "Does a body with no force keep moving?"
        _edit(bank, "mechanics.yaml", "keep moving?", "keep moving in a straight line?")
        bank.commit("Say in which way, in the web editor")
        assert ci(2).new and study() == "Does a body with no force keep moving in a straight line?"
        for path in (bank.path / "decks").glob("*.yaml"):
            text = path.read_text(encoding="utf-8")
            path.write_text(re.sub(r"^    en:\n(?:      .*\n)+", "", text, flags=re.MULTILINE), encoding="utf-8")
        _edit(bank, "mechanics.yaml", "Siehe Skript.", "Siehe Skript, Kapitel 2.")
        bank.commit("Take the English out for a rewrite")
        assert ci(3).dropped == ["physics-en.apkg"]
        bank.git("checkout", "-q", start, "--", "decks")
        _edit(bank, "mechanics.yaml", "keep moving?", "keep on moving?")
        bank.commit("Bring the English back as it first was, but for a word")
        back = ci(4)
        assert back.new and "physics-en.apkg" in {path.name for path in releases[-1].iterdir()}
        assert study() == "Does a body with no force keep on moving?"


def test_a_first_publication_is_the_same_whenever_it_is_made(tmp_path: Path) -> None:
    """Nothing was published: every note is new to the release, and keeps the time the committed lock gives it."""
    made = _ankibuild(tmp_path, "init", "physics", "--lang", "de", "--lang", "en", "--from", ORIGIN)
    assert made.exit_code == 0, made.output
    bank = Repo(tmp_path / "physics")
    (bank.path / "decks" / "mechanics.yaml").write_text(MECHANICS, encoding="utf-8")
    assert _ankibuild(bank.path, "build").exit_code == 0
    bank.commit("Start the bank, with its lock")
    one, other = (_published_at(bank, tmp_path / f"out-{hours}", START + hours * HOUR) for hours in (1, 2))
    assert one == other and len(one) == 2


def _published_at(bank: Repo, out: Path, now: int) -> dict[str, bytes]:
    """The packages of the first publication of ``bank``, made at the time ``now``."""
    publish(decks=bank.path / "decks", last=out.parent / "none", out=out, clock=Clock(lambda: now))
    return {path.name: path.read_bytes() for path in out.glob("*.apkg")}


def test_a_lock_committed_later_changes_nothing_classmates_have(tmp_path: Path) -> None:
    """A local build an hour after the publication commits a lock with later times for the same notes: the next
    publication keeps the published times, so there is nothing to publish (else every note would update for nothing)."""
    bank, release = _bank_with_a_publication(tmp_path)
    later = int(time.time()) + HOUR
    build(decks=bank.path / "decks", out=bank.path / "dist", clock=Clock(lambda: later))
    bank.commit("Commit the lock a local build wrote")
    assert "decks/ankibuild.lock" in bank.git("show", "--name-only", "HEAD").stdout
    made = publish(decks=bank.path / "decks", last=release, out=tmp_path / "again", clock=Clock(lambda: later + HOUR))
    assert not made.new and not made.changes and not (tmp_path / "again").exists()


def test_the_last_publication_is_read_only_inside_its_folder(tmp_path: Path) -> None:
    """A downloaded publication whose changelog and packages are links, or not files: none is read, each is named in
    a warning, and the new publication starts a changelog of its own, with every question new."""
    bank, release = _bank_with_a_publication(tmp_path)
    secret = tmp_path / "secret.md"
    secret.write_text("# Changelog\n\nnot for publishing\n", encoding="utf-8")
    planted = tmp_path / "planted"
    planted.mkdir()
    (planted / "CHANGELOG.md").symlink_to(secret)
    (planted / "physics-en.apkg").symlink_to(release / "physics-en.apkg")
    (planted / "physics-de.apkg").symlink_to("physics-en.apkg")  # a link beside it is not read either
    (planted / "physics-fr.apkg").mkdir()  # nor anything that is not a regular file
    made = publish(decks=bank.path / "decks", last=planted, out=tmp_path / "out")
    changelog = (tmp_path / "out" / "CHANGELOG.md").read_text(encoding="utf-8")
    assert "not for publishing" not in changelog
    warned = [p for p in made.warnings if p.hint.startswith("it counts as not published")]
    assert [Path(p.file).name for p in warned] == [
        "CHANGELOG.md",
        "physics-de.apkg",
        "physics-en.apkg",
        "physics-fr.apkg",
    ]
    assert {change.describe() for change in made.changes.items if change.lang == "en"} == {
        "added where-languages-are-listed",
        "added free-fall",
        "added inertia",
    }


def test_a_publication_goes_only_into_a_new_or_empty_folder(tmp_path: Path) -> None:
    """What the folder holds is published as a whole: one with a file in it is refused, and left as it was."""
    bank, release = _bank_with_a_publication(tmp_path)
    (tmp_path / "used").mkdir()
    (tmp_path / "used" / "old.apkg").write_bytes(b"old")
    refused = _ankibuild(bank.path, "publish", "--last", str(release), "--out", str(tmp_path / "used"))
    assert refused.exit_code == 1 and "this folder is not empty" in refused.output
    assert [p.name for p in (tmp_path / "used").iterdir()] == ["old.apkg"]


#: The suffixes of the files each export format makes.
EXPORT_SUFFIXES = (".moodle.xml", ".gift.txt", ".qti.zip")


def test_the_exports_a_bank_asks_for_are_published_beside_the_packages(tmp_path: Path) -> None:
    """A bank that starts asking for every export: the next publication holds them, though no question changed, the
    notes do not count them among the packages, and the workflow's Publish step uploads each of them."""
    bank, release = _bank_with_a_publication(tmp_path)
    _edit(bank, "bank.yaml", "languages:", "exports: [moodle-xml, gift, qti]\nlanguages:")
    bank.commit("Export the questions for Moodle and every other platform")
    summary = tmp_path / "summary.md"
    published = bank.path / "publication"
    made = _ankibuild(
        bank.path, "publish", "--last", str(release), "--out", str(published), env={"GITHUB_STEP_SUMMARY": str(summary)}
    )
    assert made.exit_code == 0, made.output
    names = sorted(path.name for path in published.iterdir())
    exports = [f"physics-{lang}{suffix}" for lang in ("de", "en") for suffix in EXPORT_SUFFIXES]
    assert set(exports) | {"physics-mul.moodle.xml"} <= set(names)
    assert {"physics-de.apkg", "physics-en.apkg", "CHANGELOG.md", "RELEASE_NOTES.md"} <= set(names)
    for said in ((published / "RELEASE_NOTES.md").read_text(encoding="utf-8"), summary.read_text(encoding="utf-8")):
        assert said.startswith("## Published\n") and not any(suffix in said for suffix in EXPORT_SUFFIXES), said
    fake = tmp_path / "bin"
    fake.mkdir()
    log = tmp_path / "gh.log"
    (fake / "gh").write_text(f'#!/bin/sh\n[ "$2" = view ] && exit 1\necho "$@" >> {log}\n', encoding="utf-8")
    (fake / "gh").chmod(0o755)
    uploaded = run_step(bank.path, "publish", step_index(bank.path, "publish", "Publish"), f'PATH="{fake}:$PATH"\n')
    assert uploaded.returncode == 0, uploaded
    (created,) = log.read_text(encoding="utf-8").splitlines()
    assert (
        sorted(word.removeprefix("publication/") for word in created.split() if word.startswith("publication/"))
        == names
    )


def test_the_notes_say_every_language_is_translated_only_when_the_record_says_so(tmp_path: Path) -> None:
    """Without the translations record CI knows what is missing, not what is outdated: then the notes say that no
    translation is missing, or that outdated ones are not counted; once a local build has written the record, that
    every language is translated."""
    bank, release = _bank_with_a_publication(tmp_path)
    _edit(bank, "mechanics.yaml", "in a vacuum?", "in a vacuum, feather and hammer alike?")
    _edit(bank, "mechanics.yaml", "im Vakuum", "im Vakuum, Feder wie Hammer,")
    bank.commit("Ask about feather and hammer")
    assert not (bank.path / "decks" / "translations.lock").exists()
    unknown = publish(decks=bank.path / "decks", last=release, out=tmp_path / "unknown")
    assert unknown.new and "No translation is missing." in unknown.report
    assert "Every language is translated." not in unknown.report
    english = (
        "  - id: drag\n    topics: [getting-started]\n    en:\n      question: Does air slow more?\n      answer: Yes\n"
    )
    _append(bank, "mechanics.yaml", english.replace("    en:", "    kind: flashcard\n    en:"))
    lagging = publish(decks=bank.path / "decks", last=release, out=tmp_path / "lagging")
    assert "| de | 1 | 0 | yes |" in lagging.report
    assert "Without `decks/translations.lock`, outdated translations are not counted." in lagging.report
    build(decks=bank.path / "decks", out=bank.path / "dist")
    assert (bank.path / "decks" / "translations.lock").is_file()
    known = publish(decks=bank.path / "decks", last=release, out=tmp_path / "known")
    assert "| de | 1 | 0 | yes |" in known.report and "Without" not in known.report


def test_a_deck_title_holding_a_heading_is_refused_before_anything_is_published(tmp_path: Path) -> None:
    """A question moved into a deck whose title holds a line break and a heading, HTML and a link: publish stops
    at check with the title's line in the summary, which keeps its one heading, and nothing is written."""
    bank, release = _bank_with_a_publication(tmp_path)
    mechanics = bank.path / "decks" / "mechanics.yaml"
    text = mechanics.read_text(encoding="utf-8")
    moved = text[text.index("  - id: inertia") :]
    mechanics.write_text(text.removesuffix(moved), encoding="utf-8")
    evil = 'deck:\n  de: Evil\n  en: "Evil\\n## Published <img src=x onerror=alert(1)> [click](https://evil.example)"\n'
    (bank.path / "decks" / "evil.yaml").write_text(evil + "questions:\n" + moved, encoding="utf-8")
    bank.commit("Move inertia")
    summary = tmp_path / "summary.md"
    args = ["publish", "--last", str(release), "--out", str(tmp_path / "out")]
    refused = _ankibuild(bank.path, *args, env={"GITHUB_STEP_SUMMARY": str(summary)})
    assert refused.exit_code == 1 and "Traceback" not in refused.output
    said = summary.read_text(encoding="utf-8")
    assert said.startswith("## Not published: 1 error(s)\n") and "- `decks/evil.yaml:3:" in said, said
    assert "holds a line break" in said and _kinds(said).count("heading_open") == 1
    assert not (tmp_path / "out").exists()
