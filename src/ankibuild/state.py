"""What the last build of a bank read and wrote, to tell at once when nothing changed.

A scheduled rebuild usually finds nothing new. Comparing a digest of every
input file's content with the one recorded after the last build, and checking
that its packages are still there, answers that question without loading the
pipeline, parsing a single file or writing anything but a marker. A file whose
status has not changed since it was last hashed is not read again
(:mod:`.digests` says when that is safe). The record also remembers what each package was made of, so that a
build after an edit writes only the packages the edit touches.
"""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .atomic import write_if_changed
from .cache import digest, plain_data, read_kept
from .changelog import CHANGELOG_FILE, Changelog
from .digests import Digests
from .errors import Problem
from .lock.clock import WRONG_CLOCK
from .lock.format import LOCK_FILE
from .paths import within
from .translations.record import TRANSLATIONS_FILE
from .version import code_fingerprint

if TYPE_CHECKING:
    from .options import BuildOptions


@dataclass(frozen=True)
class Output:
    """One ``.apkg`` of the build."""

    path: Path
    lang: str
    decks: int
    notes: int
    written: bool
    #: The name of the class preset its decks carry ("" for none; see :mod:`.anki.preset`).
    preset: str = ""


@dataclass
class BuildResult:
    """What a build made of a bank: its counts, its packages and exports (written, or found as they were), what
    changed for classmates, and its warnings."""

    bank_id: str
    decks: int
    questions: int
    outputs: list[Output] = field(default_factory=list)
    #: The files for learning platforms written beside the packages (see :mod:`.export`).
    exports: list[Output] = field(default_factory=list)
    changes: Changelog = field(default_factory=Changelog)
    warnings: list[Problem] = field(default_factory=list)
    lock_written: bool = False
    #: Which templates the cards were made from: the defaults, or a bank's own folder over them.
    templates: str = ""
    #: Per language built, the search that selects every question removed from the bank that a classmate has.
    retired_searches: Mapping[str, str] = field(default_factory=dict)
    #: The packages of the bank's own that no question file makes any more (renamed or deleted with ``--split``),
    #: removed from the output folder once the changelog told what they held.
    removed: list[Path] = field(default_factory=list)
    #: Such a package could not be removed: the build is not recorded, so that the next one reads it again and
    #: tells the same, as a build with an empty cache does.
    unremoved: list[Path] = field(default_factory=list, repr=False)
    #: The digest of what each package was made from (by path), so an unchanged one is not rebuilt next time.
    package_digests: dict[str, str] = field(default_factory=dict, repr=False)
    #: The lock or the translations record is not what this build made of it, and a build that leaves the bank
    #: (frozen, or CI's) left it so: the build is not recorded, so that the next one, which writes them, runs.
    records_behind: bool = field(default=False, repr=False)


def _files(folder: Path, root: Path | None = None, seen: set[str] | None = None, *, real: str = "") -> Iterator[Path]:
    """Every file below ``folder`` except hidden ones (locks, temporary files, editors' backups).

    As the build reads them: links are followed only while they stay inside the
    folder, and a folder reached again through a link is not listed again.
    ``real`` is where ``folder`` is once its links are followed: only a link is
    resolved anew, the place of anything else follows from its folder's.
    """
    root, seen = root or folder, seen if seen is not None else set()
    real = real or os.path.realpath(folder)
    if not folder.is_dir() or real in seen:
        return
    seen.add(real)
    try:
        with os.scandir(folder) as listing:
            entries = sorted(listing, key=lambda entry: entry.name)
    except OSError:  # one that cannot be listed stands for itself, with no digest: the build says what is wrong
        yield folder
        return
    for entry in entries:
        path = folder / entry.name
        if entry.name.startswith(".") or (entry.is_symlink() and not within(root, path)):
            continue
        if entry.is_dir():
            inner = str(path.resolve() if entry.is_symlink() else Path(real, entry.name))
            yield from _files(path, root, seen, real=inner)
        elif entry.is_file():
            yield path


def _questions(decks: Path) -> Callable[[Path], bool]:
    """Whether a file of the bank folder is one the load stage reads as a question file, by the same name.

    One reached through a link is named by its real place there: it is hashed here, as any other file.
    """
    from .yamlfiles.reader import BANK_FILE, YAML_SUFFIXES  # imported by the build that follows anyway

    real = os.path.realpath(decks)
    return lambda path: (
        path.suffix in YAML_SUFFIXES
        and path.name != BANK_FILE  # at any depth, as the load stage skips it (reader.bank_files)
        and os.path.realpath(path) == str(Path(real, path.relative_to(decks)))
    )


class BuildState:
    """The record of the last successful build of one bank with one set of options."""

    def __init__(self, options: BuildOptions) -> None:
        self.decks, self.templates, self.out = options.decks, options.folders, options.out
        # Problems name files relative to the working folder, and a first build takes its time from here.
        self.options = json.dumps(
            [code_fingerprint(), str(Path.cwd()), options.record(), os.environ.get("SOURCE_DATE_EPOCH", "")]
        )
        self.path = options.cache.folder / f"build-{digest(self.options)[:16]}.json"
        self.seen: dict[str, str] = {}
        #: The question files :meth:`unchanged` left to the build to hash as it reads them (see :meth:`record`).
        self.later: set[str] = set()
        #: The digest of each package of the last build found as it wrote it, by path.
        self.intact: dict[str, str] = {}
        self.digests = Digests(options.cache.folder / "clock")

    def read_inputs(self, used: Mapping[Path, str] | None = None, *, later: bool = False) -> dict[str, str]:
        """The content digest of every file the build reads, by its place.

        The files in ``used`` are not read: their digest is the one given. With ``later``
        the question files are not read either (no digest), and are kept in :attr:`later`.
        """
        given = {self._name(path): sha for path, sha in (used or {}).items()}
        questions = _questions(self.decks) if later else lambda path: False
        digests: dict[str, str] = {}
        for index, root in enumerate((self.decks, *self.templates.roots)):
            for path in _files(root):
                name = f"{index}/{path.relative_to(root).as_posix()}"
                if index == 0 and questions(path):
                    self.later.add(name)
                    digests[name] = ""
                else:
                    digests[name] = given.get(name) or self.digests.sha(path) or ""
        return digests

    def _name(self, path: Path) -> str:
        return f"0/{path.relative_to(self.decks).as_posix()}"

    def known(self) -> dict[Path, str]:
        """The digests :meth:`unchanged` read of the files in the bank folder, by path."""
        return {self.decks / name[2:]: sha for name, sha in self.seen.items() if name.startswith("0/") and sha}

    def hashed(self) -> set[Path]:
        """The files of :meth:`known` whose digest :meth:`unchanged` took from their bytes.

        The others' come from the readings the last build kept in the cache folder, which
        anyone who may write there could have changed.
        """
        return {path for path in self.known() if str(path) in self.digests.hashed}

    def inputs(self, files: dict[str, str], *, others_only: bool = False) -> str:
        """A digest of the files the build reads (from :meth:`read_inputs`) and of the options.

        ``others_only`` leaves out the files the build writes itself (the lock, the
        changelog and the translations record), to tell whether anyone else changed a file while it ran.
        """
        own = {f"0/{LOCK_FILE}", f"0/{CHANGELOG_FILE}", f"0/{TRANSLATIONS_FILE}"} if others_only else set()
        return digest(self.options, *(part for name, sha in files.items() if name not in own for part in (name, sha)))

    def _load(self) -> dict[str, Any] | None:
        try:
            data = plain_data(read_kept(self.path))
        except (OSError, ValueError):
            return None
        return data if isinstance(data, dict) else None

    def unchanged(self) -> BuildResult | None:
        """The last build's result, if nothing it read has changed and its packages are intact.

        The files as read here are kept in ``seen``: a build that follows is recorded
        only if the files it read are still the same when it ends. Without a record
        nothing is compared: the question files are left to the build, which hashes
        each as it reads it to process it (see :meth:`record`).
        """
        data = self._load()
        self.digests.learn(data and data.get("readings"))
        self.digests.tick()
        # Without a record there is nothing to compare with: the build hashes each question file as it reads it.
        self.seen = self.read_inputs(later=data is None)
        try:
            if data is None or data["inputs"] != self.inputs(self.seen):
                return None
            outputs, exports = (
                [
                    Output(Path(o["path"]), o["lang"], o["decks"], o["notes"], False, o.get("preset", ""))
                    for o in data[key]
                ]
                for key in ("outputs", "exports")
            )
            made = (*data["outputs"], *data["exports"])
            if any(self.digests.sha(Path(o["path"])) != o["sha"] for o in made) or not self._published(data):
                return None
            told = (Problem.from_dict(warning) for warning in data["warnings"])
            # A build that finds nothing changed changes no note: it has no note's old time to warn of.
            warnings = [warning for warning in told if warning.check != WRONG_CLOCK]
            return BuildResult(
                data["bank"],
                data["decks"],
                data["questions"],
                outputs,
                exports=exports,
                warnings=warnings,
                templates=self.templates.describe(),
            )
        except (KeyError, TypeError, ValueError):  # a record of another shape: build
            return None

    def _published(self, data: Mapping[str, Any]) -> bool:
        """The changelog beside the packages is as the build wrote it."""
        return bool(data["changelog"] == self.digests.sha(self.out / CHANGELOG_FILE))

    def package_digests(self) -> dict[str, str]:
        """The digest of each package of the last build, by path, for those still as it wrote them.

        See :attr:`~ankibuild.anki.spec.PackageSpec.digest`.
        """
        data = self._load() or {}
        try:
            self.digests.learn(data.get("readings"))
            intact = [o for o in data.get("outputs", []) if self.digests.sha(Path(o["path"])) == o["sha"]]
            self.intact = {o["path"]: o["sha"] for o in intact}
            return {o["path"]: o["digest"] for o in intact}
        except (KeyError, TypeError, AttributeError):
            return {}

    def record(
        self, result: BuildResult, used: Mapping[Path, str], read_as: Mapping[Path, os.stat_result] | None = None
    ) -> None:
        """Remember a successful build, unless a file it read changed since :meth:`unchanged` read it.

        ``used`` has the digest of the bytes each question file was built from:
        those are compared with what :meth:`unchanged` read instead of reading
        the files again. A file it left to the build to hash (:attr:`later`) is
        taken as it was built from: the record holds those bytes' digest, which
        the next build compares with the file's. One the build did not use
        has no digest to compare with, and the build is not recorded. ``read_as``
        has the status each file the build hashed first had before it was read:
        its reading is kept, so that the next build need not read it.
        """
        for path, info in (read_as or {}).items():  # settled by the clock the build started with
            self.digests.keep(path, info, used[path])
        self.digests.tick()  # after every write: what the build wrote is settled when read now
        now = self.read_inputs(used)
        built = {self._name(path) for path in used}
        seen = {**self.seen, **{name: now[name] for name in self.later & built if name in now}}
        if self.inputs(now, others_only=True) != self.inputs(seen, others_only=True):
            return
        outputs, exports = (
            [
                {
                    "path": str(o.path),
                    "lang": o.lang,
                    "decks": o.decks,
                    "notes": o.notes,
                    "preset": o.preset,
                    # A package this build did not write may be as package_digests() found it.
                    "sha": (None if o.written else self.intact.get(str(o.path))) or self.digests.sha(o.path),
                    "digest": result.package_digests.get(str(o.path), ""),
                }
                for o in made
            ]
            for made in (result.outputs, result.exports)
        )
        data = {
            "inputs": self.inputs(now),
            "bank": result.bank_id,
            "decks": result.decks,
            "questions": result.questions,
            "warnings": [warning.as_dict() for warning in result.warnings],
            "outputs": outputs,
            "exports": exports,
            "changelog": self.digests.sha(self.out / CHANGELOG_FILE),
            "readings": self.digests.settled,
        }
        # Without a record, or with a record lost to a power cut, the next build only takes longer: it is not
        # waited for to be on disk (some 5 ms). On one line: indented, JSON is written by Python code, not in C.
        with contextlib.suppress(OSError):
            write_if_changed(self.path, json.dumps(data).encode(), durable=False)
