"""Whatever a class does to its bank, a build from what the cache kept makes what a build from nothing makes.

A seeded random walk drives a real git repository through what a class does to
a bank over a semester: edits, edits put back, questions removed, brought back
and moved, retagging, reverts, resets, a classmate's branch merged, the lock
alone taken back, files saved unchanged and packages lost. After every step the
bank is built twice at the same time: in the repository, with the cache every
earlier build filled, and in a copy of it with an empty cache. Every file the two
builds leave, what they tell (warnings, changes for classmates, packages), and
what ``check`` then tells in each must be the same: whatever the cache keeps only
ever saves work.
"""

from __future__ import annotations

import contextlib
import os
import random
import re
import shutil
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from ankibuild import BuildResult, build, check
from ankibuild.errors import AnkibuildError, BankError
from ankibuild.lock.clock import Clock
from ankibuild.state import BuildState
from ankibuild.translations.status import confirm, status

from ..conftest import Project
from ..gitrepo import Repo

pytestmark = pytest.mark.slow  # some fifty builds of the sample bank per walk

#: When the walk starts; each step takes an hour.
START = 1_760_000_000
HOUR = 3600
STEPS = 40
#: The walks CI takes; ``ANKIBUILD_HISTORY_SEEDS=FIRST-LAST`` takes others, to look for what these miss.
SEEDS = os.environ.get("ANKIBUILD_HISTORY_SEEDS", "1-8")
BLOCK = re.compile(r"^  - id: (\S+)\n.*?(?=^  - id: |\Z)", re.MULTILINE | re.DOTALL)
QUESTION = re.compile(r"^(      question: [^\n]*?)((?: \(rev \d+\))*)$", re.MULTILINE)
TOPICS = re.compile(r"^    topics: \[([^\]\n]*)\]$", re.MULTILINE)


class Walk:
    """The bank's repository, and what the walk keeps to undo its own steps."""

    def __init__(self, repo: Repo, rng: random.Random, *, split: bool) -> None:
        self.repo, self.rng = repo, rng
        #: Whether the bank is built as a package per deck and language.
        self.split = split
        self.decks = repo.path / "decks"
        self.removed: list[str] = []
        self.revision = self.branches = 0

    def files(self) -> list[Path]:
        return sorted(path for path in self.decks.glob("*.yaml") if path.name != "bank.yaml")

    def blocks(self, path: Path) -> list[re.Match[str]]:
        return list(BLOCK.finditer(path.read_text(encoding="utf-8")))

    def a_question(self, *, leaving_one: bool = False) -> tuple[Path, re.Match[str]] | None:
        """A file and one of its questions; from a file that keeps another, with ``leaving_one``."""
        files = [path for path in self.files() if len(self.blocks(path)) > (1 if leaving_one else 0)]
        if not files:
            return None
        path = self.rng.choice(files)
        return path, self.rng.choice(self.blocks(path))

    def replace(self, path: Path, old: str, new: str) -> None:
        text = path.read_text(encoding="utf-8")
        assert old in text
        path.write_text(text.replace(old, new, 1), encoding="utf-8")

    def append(self, path: Path, block: str) -> None:
        path.write_text(path.read_text(encoding="utf-8") + block, encoding="utf-8")

    def toggle(self, path: Path, one: str, other: str) -> bool:
        """``one`` in ``path`` made ``other``, or ``other`` made ``one`` again; False where neither is (a reset took
        the file back to before the step that made it, say)."""
        if not path.exists():
            return False
        text = path.read_text(encoding="utf-8")
        if one not in text and other not in text:
            return False
        self.replace(path, *((one, other) if one in text else (other, one)))
        return True

    def taken_back(self, name: str) -> bool:
        """The bank's file ``name`` alone as it was a commit ago; False where there is none before."""
        if self.repo.git("rev-parse", "-q", "--verify", "HEAD~1", check=False).returncode:
            return False
        self.repo.git("checkout", "HEAD~1", "--", f"decks/{name}")
        return True


def _on_a_question(change: Callable[[Walk, Path, re.Match[str]], str]) -> Callable[[Walk], str | None]:
    """A step that makes ``change`` to a question the walk picks, and its file; none without a question."""

    def step(walk: Walk) -> str | None:
        found = walk.a_question()
        return None if found is None else change(walk, *found)

    return step


@_on_a_question
def _edit(walk: Walk, path: Path, block: re.Match[str]) -> str:
    """A question's text reworded in one language."""
    lines = list(QUESTION.finditer(block.group(0)))
    line = walk.rng.choice(lines)
    walk.revision += 1
    edited = block.group(0).replace(line.group(0), f"{line.group(0)} (rev {walk.revision})", 1)
    walk.replace(path, block.group(0), edited)
    return f"edit {block.group(1)}"


def _edit_put_back(walk: Walk) -> str | None:
    """A question's texts put back as they first were: its notes' content is an earlier one again."""
    for path in walk.files():
        for block in walk.blocks(path):
            if " (rev " in block.group(0):
                walk.replace(path, block.group(0), QUESTION.sub(r"\1", block.group(0)))
                return f"put back {block.group(1)}"
    return None


def _remove(walk: Walk) -> str | None:
    found = walk.a_question(leaving_one=True)
    if found is None:
        return None
    path, block = found
    walk.removed.append(block.group(0))
    walk.replace(path, block.group(0), "")
    return f"remove {block.group(1)}"


def _bring_back(walk: Walk) -> str | None:
    """A question removed earlier, added again under its id: its notes come back."""
    if not walk.removed:
        return None
    block = walk.removed.pop(walk.rng.randrange(len(walk.removed)))
    qid = BLOCK.match(block)
    assert qid is not None
    if any(other.group(1) == qid.group(1) for path in walk.files() for other in walk.blocks(path)):
        return None  # a revert brought it back already
    path = walk.rng.choice(walk.files())
    walk.append(path, block)
    return f"bring back {qid.group(1)}"


def _move(walk: Walk) -> str | None:
    """A question moved to another file: its notes change decks."""
    found = walk.a_question(leaving_one=True)
    others = [path for path in walk.files() if found is not None and path != found[0]]
    if found is None or not others:
        return None
    path, block = found
    walk.replace(path, block.group(0), "")
    other = walk.rng.choice(others)
    walk.append(other, block.group(0))
    return f"move {block.group(1)} to {other.name}"


@_on_a_question
def _retag(walk: Walk, path: Path, block: re.Match[str]) -> str:
    """A question's topics cut to the first, or given back the second: its notes' tags change."""
    topics = TOPICS.search(block.group(0))
    assert topics is not None
    first = topics.group(1).split(", ")[0]
    wider = f"{first}, {first}::memory-bandwidth" if first == "ai-hardware" else first
    new = wider if topics.group(1) == first else first
    walk.replace(path, block.group(0), block.group(0).replace(topics.group(0), f"    topics: [{new}]", 1))
    return f"retag {block.group(1)}"


def _rename_deck(walk: Walk) -> str | None:
    """A file's deck renamed in one language, or given its name back: its notes' cards are in another deck."""
    path = walk.rng.choice(walk.files())
    text = path.read_text(encoding="utf-8")
    name = re.search(r"^  de: ([^\n]*)$", text, re.MULTILINE)
    assert name is not None
    renamed = name.group(1)[: -len(" (neu)")] if name.group(1).endswith(" (neu)") else f"{name.group(1)} (neu)"
    walk.replace(path, name.group(0), f"  de: {renamed}")
    return f"rename the deck of {path.name}"


def _redraw(walk: Walk) -> str | None:
    """The image a question shows drawn in another width, or back: the packages' media change."""
    image = walk.decks / "media" / "roofline.svg"
    return "redraw an image" if walk.toggle(image, 'stroke-width="1.5"', 'stroke-width="2"') else None


def _new_language(walk: Walk) -> str | None:
    """Spanish added to the bank's languages, or taken out again: a package of its own comes and goes."""
    spanish = walk.toggle(walk.decks / "bank.yaml", "languages: [de, fr, en]", "languages: [de, fr, en, es]")
    return "add or drop Spanish" if spanish else None


@_on_a_question
def _translate(walk: Walk, path: Path, block: re.Match[str]) -> str:
    """A question given a Spanish text, copied from its English, or its Spanish taken out again."""
    text = block.group(0)
    spanish = re.search(r"^    es:\n.*?(?=^    \w|\Z)", text, re.MULTILINE | re.DOTALL)
    english = re.search(r"^    en:\n.*?(?=^    \w|\Z)", text, re.MULTILINE | re.DOTALL)
    assert english is not None
    if spanish is not None:
        walk.replace(path, text, text.replace(spanish.group(0), "", 1))
    else:
        walk.replace(path, text, text + english.group(0).replace("    en:\n", "    es:\n", 1))
    return f"translate {block.group(1)}"


def _rename_file(walk: Walk) -> str | None:
    """A question file renamed, or given its name back: its deck and questions now come from another file."""
    names = ("accelerators.yaml", "hardware-more.yaml")
    old, new = names if (walk.decks / names[0]).exists() else names[::-1]
    if not (walk.decks / old).exists():
        return None
    walk.repo.git("mv", f"decks/{old}", f"decks/{new}")
    return f"rename {old} to {new}"


def _relabel(walk: Walk) -> str | None:
    """A label of the English cards reworded, or back: the English note type's templates change."""
    labels = walk.repo.path / "templates" / "en" / "labels.yaml"
    relabelled = walk.toggle(labels, 'explanation: "Explanation"', 'explanation: "Why"')
    return "relabel the English cards" if relabelled else None


@_on_a_question
def _typo(walk: Walk, path: Path, block: re.Match[str]) -> str:
    """A question's answer mistyped in the web editor: the bank is refused until it is mended (the walk mends
    it by going back)."""
    mistyped = re.sub(r"^    answer: \w+$", "    answer: [", block.group(0), count=1, flags=re.MULTILINE)
    walk.replace(path, block.group(0), mistyped)
    return f"mistype the answer of {block.group(1)}"


def _translations_ok(walk: Walk) -> str | None:
    """A translation behind marked current with ``ankibuild translations ok``: the record changes, no text does."""
    behind = sorted({question for language in status(walk.decks).languages for question in language.outdated})
    if not behind:
        return None
    question = walk.rng.choice(behind)
    confirm([question], decks=walk.decks)
    return f"translations of {question} ok"


@_on_a_question
def _new_question(walk: Walk, path: Path, block: re.Match[str]) -> str:
    """A question added under a new id, worded from another: notes the lock has never seen."""
    walk.revision += 1
    added = block.group(0).replace(f"  - id: {block.group(1)}\n", f"  - id: {block.group(1)}-v{walk.revision}\n", 1)
    added = QUESTION.sub(rf"\1 (rev {walk.revision})", added)
    walk.append(path, added)
    return f"add {block.group(1)}-v{walk.revision}"


def _retitle_topic(walk: Walk) -> str | None:
    """A topic's German name reworded in bank.yaml, or back: every file's result is made again, no note changes
    but for the tags' names, which are the topics' ids."""
    retitled = walk.toggle(walk.decks / "bank.yaml", "    de: Faltung\n", "    de: Faltung (neu)\n")
    return "retitle a topic" if retitled else None


def _record_back(walk: Walk) -> str | None:
    """The translations record alone taken back a commit, as a merge that kept the other side's might."""
    return "translations record of a commit ago" if walk.taken_back("translations.lock") else None


def _save_unchanged(walk: Walk) -> str | None:
    """A file saved again as it was: only its time changes."""
    path = walk.rng.choice(walk.files())
    path.write_bytes(path.read_bytes())
    return f"save {path.name}"


def _revert(walk: Walk) -> str | None:
    """The last commit reverted, lock and record with it."""
    parents = walk.repo.git("rev-list", "--parents", "-n", "1", "HEAD").stdout.split()
    if len(parents) < 2:
        return None
    mainline = ("-m", "1") if len(parents) > 2 else ()
    if walk.repo.git("revert", "--no-edit", *mainline, "HEAD", check=False).returncode:
        walk.repo.git("revert", "--abort", check=False)
        return None
    return "revert"


def _reset(walk: Walk) -> str | None:
    """The bank put back as it was two commits ago, lock and record included, and committed."""
    if walk.repo.git("rev-parse", "-q", "--verify", "HEAD~2", check=False).returncode:
        return None
    walk.repo.git("rm", "-r", "-q", "decks")
    walk.repo.git("checkout", "HEAD~2", "--", "decks")
    return "bank of two commits ago"


def _lock_back(walk: Walk) -> str | None:
    """The lock alone taken back a commit, as a careless merge might: the bank's times look older."""
    return "lock of a commit ago" if walk.taken_back("ankibuild.lock") else None


def _package_lost(walk: Walk) -> str | None:
    """One package gone from the output folder: built again, its notes counted as published again."""
    packages = sorted((walk.repo.path / "dist").glob("*.apkg"))
    if not packages:
        return None
    walk.rng.choice(packages).unlink()
    return "package lost"


STEPS_OF_A_CLASS: list[Callable[[Walk], str | None]] = [
    _edit,
    _edit,
    _edit,
    _edit_put_back,
    _remove,
    _bring_back,
    _move,
    _retag,
    _rename_deck,
    _redraw,
    _new_language,
    _translate,
    _rename_file,
    _relabel,
    _typo,
    _translations_ok,
    _new_question,
    _retitle_topic,
    _record_back,
    _save_unchanged,
    _revert,
    _reset,
    _lock_back,
    _package_lost,
]


def _split(decks: Path) -> None:
    """The sample's questions in two files, two decks: questions can move between them."""
    source = decks / "ai-hardware.yaml"
    text = source.read_text(encoding="utf-8")
    moved = [block.group(0) for block in BLOCK.finditer(text)][-3:]
    for block in moved:
        text = text.replace(block, "", 1)
    source.write_text(text, encoding="utf-8")
    header = "deck:\n  de: Beschleuniger\n  fr: Accélérateurs\n  en: Accelerators\nquestions:\n"
    (decks / "accelerators.yaml").write_text(header + "".join(moved), encoding="utf-8")


@contextlib.contextmanager
def _in(root: Path, cache: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Working in ``root``, with the build cache in ``cache``."""
    with monkeypatch.context() as env:
        env.chdir(root)
        env.setenv("ANKIBUILD_CACHE_DIR", str(cache))
        yield


def _build(
    root: Path, cache: Path, when: int, monkeypatch: pytest.MonkeyPatch, *, split: bool, frozen: bool
) -> BuildResult | str:
    """The bank in ``root`` built with the cache in ``cache`` at ``when``, a package per deck with ``split``,
    ``frozen`` or not; the problems when it is refused."""
    with _in(root, cache, monkeypatch):
        try:
            return build(decks=Path("decks"), out=Path("dist"), split=split, frozen=frozen, clock=Clock(lambda: when))
        except AnkibuildError as refused:
            problems = refused.problems if isinstance(refused, BankError) else []
            return "\n".join([type(refused).__name__, str(refused), *(p.describe() for p in problems)])


def _checked(root: Path, cache: Path, monkeypatch: pytest.MonkeyPatch) -> object:
    """What ``ankibuild check`` tells of the bank in ``root`` with the cache in ``cache``."""
    with _in(root, cache, monkeypatch):
        try:
            result = check(decks=Path("decks"))
        except BankError as refused:
            return [problem.describe() for problem in refused.problems]
        return result.files, result.questions, [problem.describe() for problem in result.items]


def _left(root: Path) -> dict[str, bytes]:
    """Every file of the bank and output folders, by path."""
    return {
        str(path.relative_to(root)): path.read_bytes()
        for folder in ("decks", "dist")
        for path in sorted((root / folder).rglob("*"))
        if path.is_file() and path.name != ".ankibuild.build-lock"
    }


def _told(result: BuildResult | str) -> object:
    if isinstance(result, str):
        return result
    packages = [(str(o.path), o.lang, o.decks, o.notes, o.preset) for o in result.outputs]
    # The time of the changes heads the changelog's new section: there is none without changes.
    when = result.changes.when if result.changes.items else None
    removed = [str(path) for path in result.removed]
    return (result.questions, packages, removed, [w.describe() for w in result.warnings], result.changes.items, when)


def _built_twice(
    walk: Walk, scratch: Path, when: int, monkeypatch: pytest.MonkeyPatch, step: str, *, frozen: bool = False
) -> bool:
    """The bank built from its cache (in ``scratch``) and from nothing, at ``when``, ``frozen`` or not; whether it
    built."""
    repo = walk.repo
    twin = scratch / "twin"
    shutil.rmtree(twin, ignore_errors=True)
    shutil.rmtree(scratch / "empty-cache", ignore_errors=True)
    for folder in ("decks", "templates", "dist"):
        if (repo.path / folder).exists():
            shutil.copytree(repo.path / folder, twin / folder)
    from_nothing = _build(twin, scratch / "empty-cache", when, monkeypatch, split=walk.split, frozen=frozen)
    from_cache = _build(repo.path, scratch / "cache", when, monkeypatch, split=walk.split, frozen=frozen)
    assert _told(from_cache) == _told(from_nothing), step
    assert _left(repo.path) == _left(twin), step
    shutil.rmtree(scratch / "empty-cache")
    checked = _checked(repo.path, scratch / "cache", monkeypatch)
    assert checked == _checked(twin, scratch / "empty-cache", monkeypatch), step
    return not isinstance(from_cache, str)


def _commit(repo: Repo, message: str) -> None:
    """Everything committed, though a step may leave the bank as it was (a file saved unchanged)."""
    repo.git("add", "-A")
    repo.git("commit", "-q", "--allow-empty", "-m", message)


def _merge_a_branch(walk: Walk, scratch: Path, when: int, monkeypatch: pytest.MonkeyPatch) -> str | None:
    """A classmate's branch from the commit before, with an edit built and committed there, merged in."""
    repo = walk.repo
    if repo.git("rev-parse", "-q", "--verify", "HEAD~1", check=False).returncode:
        return None
    walk.branches += 1
    branch = f"classmate-{walk.branches}"
    repo.git("switch", "-q", "-c", branch, "HEAD~1")
    edited = _edit(walk)
    built = edited is not None and _built_twice(walk, scratch, when, monkeypatch, f"on a branch: {edited}")
    if built:
        _commit(repo, f"Classmate: {edited}")
    else:
        repo.git("reset", "-q", "--hard")
    repo.git("switch", "-q", "main")
    if not built or repo.git("merge", "-q", "--no-edit", branch, check=False).returncode:
        repo.git("merge", "--abort", check=False)
        return None
    return f"merge a branch that made {edited}"


def _seeds(wanted: str) -> range:
    """The seeds ``FIRST-LAST`` names, both included."""
    first, _, last = wanted.partition("-")
    return range(int(first), int(last or first) + 1)


@pytest.mark.parametrize("seed", _seeds(SEEDS))
def test_a_random_history_builds_from_the_cache_what_it_builds_from_nothing(
    project: Project, tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch, seed: int
) -> None:
    repo = Repo(project.root)
    _split(project.decks)
    (project.root / ".gitignore").write_text("dist/\n.ankibuild.build-lock\n", encoding="utf-8")
    repo.git("init", "-q")
    scratch = tmp_path_factory.mktemp("builds")
    walk = Walk(repo, random.Random(seed), split=seed % 2 == 0)  # every other walk a package per deck
    quick = _quick_looks(monkeypatch)
    assert _built_twice(walk, scratch, START, monkeypatch, "first build")
    assert any((scratch / "cache").rglob("*.json")), "the build from the cache kept nothing"
    repo.commit("Start the bank")
    history = ["first build"]
    for number in range(1, STEPS + 1):
        # Now and then a classmate whose computer's clock is three hours slow builds.
        when = START + number * HOUR - (3 * HOUR if walk.rng.random() < 0.1 else 0)
        if walk.rng.random() < 0.1:
            step = _merge_a_branch(walk, scratch, when, monkeypatch)
        else:
            step = walk.rng.choice(STEPS_OF_A_CLASS)(walk)
        if step is None:
            continue
        history.append(step)
        if walk.rng.random() < 0.2:  # as a check before a commit might: it writes packages, never the records
            _built_twice(walk, scratch, when, monkeypatch, " / ".join([*history, "frozen"]), frozen=True)
        if _built_twice(walk, scratch, when, monkeypatch, " / ".join(history)):
            _commit(repo, step)
        else:  # a bank with an error is not committed: the class mends it first
            repo.git("reset", "-q", "--hard")
            repo.git("clean", "-q", "-f", "-d", "decks")
    assert len(history) > STEPS // 2
    # A walk need not happen on a step that leaves the bank as it was: built once more (its last step may have
    # been refused and its files put back by git) and then again with nothing changed, the build from the cache
    # must find so at its quick look, whatever the history before.
    assert _built_twice(walk, scratch, when, monkeypatch, " / ".join([*history, "built again"]))
    quick.clear()
    assert _built_twice(walk, scratch, when, monkeypatch, " / ".join([*history, "built again, nothing changed"]))
    assert quick, "the build from the cache did not find at its quick look that nothing changed"


def _quick_looks(monkeypatch: pytest.MonkeyPatch) -> list[BuildResult]:
    """What each build that found nothing changed (the quick look) answered, from now on."""
    found: list[BuildResult] = []
    look = BuildState.unchanged

    def counted(state: BuildState) -> BuildResult | None:
        result = look(state)
        found.extend([result] if result is not None else [])
        return result

    monkeypatch.setattr(BuildState, "unchanged", counted)
    return found
