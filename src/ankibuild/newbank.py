"""``ankibuild init``: a ready repository for a new bank, which checks and builds at once.

It writes the bank file, one example deck with a question in every language,
the files a shared repository needs (``.gitignore``, the CI workflow, the
pre-commit hook, the JSON Schemas editors use) and a README for classmates
that says how to import and how to contribute. Nothing is overwritten: when
any of these files exists already, nothing is written. The folder is then made
a git repository, unless it is in one already.

Where CI and the pre-commit hook install ankibuild from (the origin) is
written only when others can reach it: given with ``--from``, or the git
repository this ankibuild was installed from. Otherwise the workflow's first
step stops with one line saying what to set, and the hook runs the ankibuild
installed on each computer.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path
from typing import Any

import yaml

from .atomic import refuse_links_out, write_new
from .buildlock import writing
from .cards.folders import DEFAULT, DEFAULTS, OWN_FOLDER, TemplateFolders
from .errors import BankError, Problems
from .languages import CODE_HINT, is_language
from .load.render import LABELS
from .load.schema import schema_text
from .model import SLUG

STARTER = Path(__file__).resolve().parent / "starter"
#: A git URL CI can install from with no key: https, no user or password, a host and a path of plain characters.
#: Plain, so that it goes into YAML, a shell line and pip's requirement as it is (matched whole, in linear time).
_INSTALLABLE = re.compile(r"https://[A-Za-z0-9.-]+(?::[0-9]+)?/[A-Za-z0-9._~/-]+")
#: A tag, branch or commit, in the same plain characters.
_REF = re.compile(r"[A-Za-z0-9._/-]+")
TOPIC = "getting-started"
EXAMPLE_ID = "where-languages-are-listed"
EXAMPLE_ANSWER = "B"
#: The language the example question falls back to.
FALLBACK = "en"
_SLUG_PARTS = re.compile(r"[^a-z0-9]+")


@dataclass(frozen=True)
class Origin:
    """Where CI and the pre-commit hook install ankibuild from: a git repository at an exact ref."""

    git: str
    ref: str

    @property
    def is_set(self) -> bool:
        return bool(self.git and self.ref)

    @property
    def reachable(self) -> bool:
        """Whether CI and classmates can install from it: an https URL with no key, not a path on this computer."""
        return bool(_INSTALLABLE.fullmatch(self.git)) and bool(_REF.fullmatch(self.ref))


#: No origin known: the workflow stops at its first step until it is set.
UNSET = Origin("", "")


def parse_origin(text: str) -> Origin:
    """``URL@REF`` as an origin; raises ValueError, in the student's words, unless others can reach it."""
    git, at, ref = text.rpartition("@")
    origin = Origin(git, ref)
    if not at or not origin.reachable:
        raise ValueError(
            f"{text!r} is not a git URL others can reach followed by @ and a tag or commit: "
            "give e.g. https://github.com/OWNER/ankibuild.git@v0.1.0: an https:// URL with no user name in it, "
            "and a tag or commit of letters, digits and . _ / - (CI cannot install from a path on this computer, "
            "nor over ssh)"
        )
    return origin


@dataclass(frozen=True)
class NewBank:
    """What :func:`init` wrote."""

    root: Path
    bank_id: str
    languages: tuple[str, ...]
    files: tuple[Path, ...]
    #: The origin written into the workflow and the hook (:data:`UNSET` when none is known).
    origin: Origin
    #: The origin this ankibuild was installed from, left out because others cannot reach it.
    unreachable: Origin | None = None
    #: What became of ``git init``: one of :data:`GIT_STATES`.
    git: str = "skipped"


def installed_origin() -> Origin:
    """The git repository and commit this ankibuild was installed from, when pip recorded one.

    ``pip install git+URL@TAG`` records the URL and the exact commit; any other
    install (a wheel, a folder) leaves the repository to be named by hand.
    """
    try:
        recorded = json.loads(metadata.distribution("ankibuild").read_text("direct_url.json") or "{}")
    except (metadata.PackageNotFoundError, ValueError):
        recorded = {}
    vcs = recorded.get("vcs_info") if isinstance(recorded, dict) else None
    if isinstance(vcs, dict) and vcs.get("vcs") == "git" and vcs.get("commit_id"):
        return Origin(str(recorded["url"]).removeprefix("git+"), str(vcs["commit_id"]))
    return UNSET


def init(
    root: Path,
    *,
    languages: Sequence[str] = (FALLBACK,),
    bank_id: str | None = None,
    origin: Origin | None = None,
    git: bool = True,
) -> NewBank:
    """Write a new bank's repository into ``root`` (created if missing), and make it a git repository if ``git``.

    ``origin`` is where CI installs ankibuild from; by default the git repository
    this ankibuild was installed from, when others can reach it.
    Raises :class:`BankError` when a language code or the id is not valid, or when
    any file it would write exists already; then nothing is written.
    """
    langs = tuple(dict.fromkeys(languages)) or (FALLBACK,)
    bank_id = bank_id or _slug(root.resolve().name)
    installed = origin or installed_origin()
    origin = installed if installed.reachable else UNSET
    files = _files(bank_id, root.resolve().name, langs, origin=origin)
    _refuse(root, bank_id, langs, files=files)
    try:
        with writing(root / "decks"):  # a folder that holds a bank already: no build of it meanwhile
            write_new({root / relative: text.encode() for relative, text in files.items()})
    except OSError as err:
        problems = Problems()
        where = Path(err.filename) if err.filename else root
        problems.add(where, f"cannot write here: {err.strerror}", hint="choose a folder you can write to")
        problems.fail()
    unreachable = installed if installed.is_set and not installed.reachable else None
    state = _git_init(root) if git else "skipped"
    return NewBank(root, bank_id, langs, tuple(root / name for name in files), origin, unreachable, state)


#: What ``init`` did about git: made a repository, found one around the folder, found no git, git failed,
#: or was asked to leave git alone.
GIT_STATES = ("made", "inside", "missing", "failed", "skipped")


def _git_init(root: Path) -> str:
    """``git init`` in ``root``, unless it is in a work tree already; what happened (see :data:`GIT_STATES`)."""
    git = shutil.which("git")
    if git is None:
        return "missing"
    try:
        inside = subprocess.run([git, "rev-parse", "--is-inside-work-tree"], cwd=root, capture_output=True, timeout=60)
        if inside.returncode == 0:
            return "inside"
        made = subprocess.run([git, "init", "-q"], cwd=root, capture_output=True, timeout=60)
    except (OSError, subprocess.SubprocessError):
        return "failed"
    return "made" if made.returncode == 0 else "failed"


def _refuse(root: Path, bank_id: str, langs: Sequence[str], *, files: Mapping[str, str]) -> None:
    problems = Problems()
    for lang in langs:
        if not is_language(lang):
            problems.add(root, f"'{lang}' is not a language code", hint=CODE_HINT)
    if not SLUG.fullmatch(bank_id):
        problems.add(root, f"the bank id '{bank_id}' is not a slug", hint="give one with --id, e.g. --id my-class")
    elif "__" in bank_id:  # as check refuses it: a note's GUID joins the bank id and question id with it
        hint = "use one underscore or a hyphen, e.g. --id my-class"
        problems.add(root, f"the bank id '{bank_id}' has two underscores in a row", hint=hint)
    refuse_links_out(root, (root / name for name in files), problems)
    there = [name for name in files if (root / name).exists() or (root / name).is_symlink()]
    if there:
        hint = "run init in a new or empty folder; to change templates, see 'ankibuild templates export'"
        problems.add(root, f"init never overwrites, and {', '.join(there)} exist already", hint=hint)
    if problems.items:
        raise BankError(problems.items)


def _slug(name: str) -> str:
    return _SLUG_PARTS.sub("-", name.lower()).strip("-") or "my-bank"


def _files(bank_id: str, title: str, langs: Sequence[str], *, origin: Origin) -> dict[str, str]:
    """Every file of the new repository, by its path relative to the repository."""
    texts = {lang: _example(lang) for lang in langs}
    settings = {"@ANKIBUILD_GIT@": origin.git, "@ANKIBUILD_REF@": origin.ref}
    hook = "pre-commit-config.yaml" if origin.is_set else "pre-commit-local.yaml"
    unlabelled = [lang for lang in langs if not TemplateFolders().has_language(lang)]
    return {
        **{f"{OWN_FOLDER}/{lang}/{LABELS}": _labels_to_translate(lang) for lang in unlabelled},
        "decks/bank.yaml": _bank_yaml(bank_id, title, texts),
        f"decks/{TOPIC}.yaml": _questions_yaml(texts),
        "schema/bank.json": schema_text(bank=True),
        "schema/questions.json": schema_text(),
        ".gitignore": _starter("gitignore"),
        ".github/workflows/decks.yml": _starter("workflow.yml", settings),
        ".pre-commit-config.yaml": _starter(hook, settings),
        "README.md": _readme(bank_id, title, langs, origin=origin),
    }


def _labels_to_translate(lang: str) -> str:
    """The default (English) card labels, for a language ankibuild has no wording for."""
    default = (DEFAULTS / DEFAULT / LABELS).read_text(encoding="utf-8")
    return f"# The card labels in '{lang}': ankibuild has none of its own, so translate these.\n{default}"


def _starter(name: str, settings: Mapping[str, str] | None = None) -> str:
    text = (STARTER / name).read_text(encoding="utf-8")
    for placeholder, value in (settings or {}).items():
        text = text.replace(placeholder, value)
    return text


def starter_workflow(origin: Origin) -> str:
    """The CI workflow ``init`` writes, installing ankibuild from ``origin``."""
    return _starter("workflow.yml", {"@ANKIBUILD_GIT@": origin.git, "@ANKIBUILD_REF@": origin.ref})


def _example(lang: str) -> dict[str, Any]:
    """The example question's texts in ``lang``, marked for translation where they are English."""
    examples: dict[str, dict[str, Any]] = yaml.safe_load((STARTER / "example.yaml").read_text(encoding="utf-8"))
    text = examples.get(lang) or examples.get(lang.split("-")[0])
    return dict(text) if text else {**examples[FALLBACK], "untranslated": True}


def _scalar(text: str) -> str:
    """``text`` as a YAML scalar: plain where YAML reads it back as the same text, else quoted."""
    try:
        plain = "\n" not in text and yaml.safe_load(text) == text
    except yaml.YAMLError:
        plain = False
    return text if plain else json.dumps(text, ensure_ascii=False)


def _bank_yaml(bank_id: str, title: str, texts: Mapping[str, Mapping[str, Any]]) -> str:
    lines = [
        "# yaml-language-server: $schema=../schema/bank.json",
        "# The bank: its id, the languages it is built in, and its topics.",
        "# `id` namespaces every note, note type and deck of this bank: never change it",
        "# once classmates have imported a build.",
        f"id: {bank_id}",
        f"languages: [{', '.join(texts)}]",
        "title:",
        *(f"  {lang}: {_scalar(title)}" for lang in texts),
        "topics:",
        f"  {TOPIC}:",
        *(f"    {lang}: {_scalar(text['topic'])}{_mark(text)}" for lang, text in texts.items()),
        *CLASS_SETTINGS,
    ]
    return "\n".join(lines) + "\n"


#: What a bank may set for its class in Anki, offered commented out (docs/class.md says what students see).
CLASS_SETTINGS = (
    "# The class's study options (remove the # to use them): the decks then carry a",
    "# deck options preset of their own, which a student gets by ticking 'Import any",
    "# deck presets' on import. Without them, everyone keeps their own options.",
    "# study:",
    "#   new-cards-per-day: 20",
    "#   maximum-reviews-per-day: 200",
    "#   desired-retention: 0.9",
    "#   maximum-interval: 36500    # days",
    "#   learning-steps: [1, 10]    # minutes",
    "#   relearning-steps: [10]",
    "# Where classmates report a mistake: the back of every card links to it, with",
    "# {id}, {lang} and {version} (of the question's text) filled in.",
    '# report: "https://github.com/OWNER/REPO/issues/new?title=Mistake+in+{id}+({lang})&body=Version+{version}"',
    "# The bank's home page, and a description of each top deck in Anki: the title,",
    "# the version, what changed, and these links.",
    "# home: https://github.com/OWNER/REPO/releases",
    "# description: true",
)


def _mark(text: Mapping[str, Any]) -> str:
    return "  # translate it" if text.get("untranslated") else ""


def _questions_yaml(texts: Mapping[str, Mapping[str, Any]]) -> str:
    lines = [
        "# yaml-language-server: $schema=../schema/questions.json",
        "# A question file is a deck. A question's id is forever: it identifies its notes",
        "# in every classmate's Anki, so edit the texts freely but never the id.",
        "deck:",
        *(f"  {lang}: {_scalar(text['topic'])}{_mark(text)}" for lang, text in texts.items()),
        "questions:",
        f"  - id: {EXAMPLE_ID}",
        f"    topics: [{TOPIC}]",
        f"    answer: {EXAMPLE_ANSWER}",
    ]
    for lang, text in texts.items():
        lines += [f"    {lang}:{_mark(text)}", f"      question: {_scalar(text['question'])}", "      options:"]
        lines += [f"        - {_scalar(option)}" for option in text["options"]]
        lines.append(f"      explanation: {_scalar(text['explanation'])}")
    return "\n".join(lines) + "\n"


def _readme(bank_id: str, title: str, langs: Sequence[str], *, origin: Origin) -> str:
    packages = ", ".join(f"`{bank_id}-{lang}.apkg`" for lang in langs)
    where = f"git+{origin.git}@{origin.ref}" if origin.is_set else "git+<ANKIBUILD_GIT>@<ANKIBUILD_REF>"
    install = f'pipx install "{where}"'
    if not origin.is_set:
        install += "   # the two values under env: in .github/workflows/decks.yml"
    settings = {"@TITLE@": title, "@LANGUAGES@": ", ".join(langs), "@PACKAGES@": packages, "@INSTALL@": install}
    return _starter("README.md", settings)
