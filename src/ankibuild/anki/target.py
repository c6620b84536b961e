"""The Anki target: the ``.apkg`` packages of a bank, with its lock and the changelog.

Planning stamps every note and note type with its time of change (the lock),
raises those times above the packages already published, and works out what
each package holds; writing makes the packages whose content changed, then
publishes the changelog and saves the lock, last.
"""

from __future__ import annotations

import os
from collections.abc import Collection, Iterator, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING

from ..atomic import remove_stale_temporaries, write_if_changed
from ..cache import Cache, cache_root, digest
from ..changelog import CHANGELOG_FILE, Change, ChangeKind, previous_changelog, publish_changelog
from ..errors import LockChangedError, Problem, Problems, Severity, ShapeChangeError
from ..load.deckfiles import FileResult
from ..load.render import CardTemplates, NoteHead
from ..load.stage import LoadedBank
from ..lock.clock import ANKI_EPOCH, Clock
from ..lock.format import LOCK_FILE, Lock, NoteLock
from ..lock.gitattributes import ask_git_to_merge
from ..lock.memo import LOCK_MEMO, remember
from ..lock.stamp import Stamp, stamp_notes, stamp_notetype
from ..model import Bank, Deck, deck_id, parent_deck_id
from ..options import BuildOptions
from ..packagenames import check_names, package_groups
from ..paths import read_inside
from ..progress import Progress, silent
from ..search import retired_search
from ..state import BuildResult, Output
from ..translations.record import TRANSLATIONS_FILE, today
from .about import description
from .collection import notetype
from .kept import Kept
from .package import package_bytes
from .preset import class_preset
from .published import (
    Published,
    PublishedNote,
    PublishedNotetype,
    Types,
    changes_since,
    keep,
    notetype_keys,
    raise_times,
    read_published,
)
from .spec import DeckInfo, NoteKey, PackageSpec, Texts

if TYPE_CHECKING:
    import genanki

#: A warning names this many notes, then says there are more.
MAX_NAMED = 10


@dataclass(frozen=True)
class AnkiTarget:
    """The packages: one per language, or one per deck and language with ``split``."""

    options: BuildOptions
    clock: Clock
    #: The digest of each package of the last build, by path: one whose digest is the same is not made again.
    built: Mapping[str, str]
    progress: Progress = silent

    def check(self, bank: Bank, problems: Problems) -> None:
        check_names(bank, self.options, problems)

    def plan(self, loaded: LoadedBank) -> AnkiPlan:
        """The new lock, the changes since the packages published, and what each package holds."""
        options, bank, old = self.options, loaded.bank, loaded.lock
        result = BuildResult(
            bank.id,
            len(bank.decks),
            loaded.questions,
            warnings=[*loaded.problems.warnings, *_cache_warnings(options.cache)],
            templates=options.folders.describe(),
        )
        types = notetypes(bank, loaded.templates)
        _guard_shape(old, loaded.templates, options.allow_shape_change, result)
        new = _stamp(bank, loaded.templates, types, loaded.notes, old, self.clock, result)
        lock_path = options.decks / LOCK_FILE
        if options.frozen and _out_of_date(old, new):
            raise LockChangedError(f"{lock_path} would change: run 'ankibuild build' and commit it.")
        new, previous = _follow_published(loaded, new, options, self.clock, result)
        packages = _plan(bank, loaded, types, new, options.out, options.split)
        result.package_digests = {str(package.path): package.spec.digest for package in packages}
        result.retired_searches = _retired_searches(types, loaded)
        todo = [package for package in packages if self.built.get(str(package.path)) != package.spec.digest]
        text = new.dumps()
        lock = _LockPlan(new, text, text != _current_text(lock_path), old.recalled)
        seen = loaded.translations.text(today(self.clock.first()))
        return AnkiPlan(options, result, loaded.templates, types, packages, todo, lock, previous, seen, self.progress)


@dataclass(frozen=True)
class _LockPlan:
    """The lock a build writes, as text, and whether it differs from the bank's."""

    lock: Lock
    text: str
    changed: bool
    #: The bank's lock was recalled parsed from the cache (see :func:`read_lock`).
    recalled: bool


@dataclass(frozen=True)
class AnkiPlan:
    """The packages to make, the changelog and the lock, planned; nothing written yet."""

    options: BuildOptions
    result: BuildResult
    #: The templates of each note type, and the note type itself, by key (see :meth:`Kind.notetype_key`).
    templates: Mapping[str, CardTemplates]
    types: dict[str, genanki.Model]
    packages: list[_Package]
    #: The packages whose content differs from what the last build made of them.
    todo: list[_Package]
    lock: _LockPlan
    #: The changelog already published, which the new one continues.
    previous: str
    #: The translations record this build saw, written beside the lock and before it.
    translations: str
    progress: Progress

    def write(self) -> BuildResult:
        """Make the packages that changed, then publish the changelog; the lock goes last.

        A build stopped before the lock is written is simply done again by the next one.
        """
        options, result, lock = self.options, self.result, self.lock
        kept, out = options.cache.kept, options.out
        if not options.dry_run:
            for path in (options.decks / LOCK_FILE, out / CHANGELOG_FILE, *(p.path for p in self.packages)):
                remove_stale_temporaries(path)
        by_id = notetype_keys(lock.lock.bank, self.templates)
        written = {}
        # Each package is written as soon as it is made, and let go: not every package's bytes at once.
        for package, content in _make_packages(self.todo, kept, self.progress):
            _keep_published(package, content, by_id, lock.lock, kept)
            written[package.path] = _write(package.path, content, options.dry_run)
        for package in self.packages:
            path, spec = package.path, package.spec
            preset = spec.preset.name if spec.preset else ""
            made = written.get(path, False)
            result.outputs.append(Output(path, package.lang, len(spec.decks), len(spec.notes), made, preset))
        if not options.dry_run:
            publish_changelog(out, self.previous, result.changes)
            _record_translations(options.decks / TRANSLATIONS_FILE, self.translations, options.leaves_bank)
            result.lock_written = not options.leaves_bank and _save_lock(options, lock)
        # The next build that may write the lock still has it to tidy: this one must not be taken for it.
        result.lock_untidy = options.leaves_bank and lock.changed
        return result


def _retired_searches(types: Mapping[str, genanki.Model], loaded: LoadedBank) -> dict[str, str]:
    """Per language built, the search that selects every question removed from the bank that a classmate has.

    Each note type is searched with the questions of its kind: a note of a question's former kind is retired too.
    """
    ids: dict[tuple[str, str], list[str]] = {}
    for head in loaded.notes:
        ids.setdefault((head.lang, head.kind), []).append(head.question_id)
    searched: dict[str, dict[str, list[str]]] = {}
    for key, t in loaded.templates.items():
        searched.setdefault(t.lang, {})[types[key].name] = ids.get((t.lang, t.kind.name), [])
    return {lang: retired_search(by_notetype) for lang, by_notetype in searched.items()}


def _record_translations(path: Path, text: str, leave: bool) -> None:
    """Write what this build saw of each translation, so that a change is still known once the edit is committed.

    A build that leaves the bank (CI) leaves it: its checkout is thrown away.
    """
    remove_stale_temporaries(path)
    if not leave:
        write_if_changed(path, text.encode())


def notetypes(bank: Bank, templates: Mapping[str, CardTemplates]) -> dict[str, genanki.Model]:
    """The note type of each kind and language the build makes, from its card templates, by key."""
    return {key: notetype(bank.id, t) for key, t in templates.items()}


def _cache_warnings(cache: Cache) -> list[Problem]:
    """What is wrong with the cache folder, in the form of every other warning."""
    return [Problem(str(cache_root()), message=said, severity=Severity.WARNING) for said in cache.warnings()]


def _out_of_date(old: Lock, new: Lock) -> bool:
    """Whether the committed lock lacks an entry the build needs, or has it otherwise.

    Order, format and entries of notes no longer in the bank do not count: a
    merge that keeps both sides' lines may bring back those of a removed note.
    """
    known = old.notes.get
    return (old.bank, old.notetypes) != (new.bank, new.notetypes) or any(
        known(guid) != entry for guid, entry in new.notes.items()
    )


def _follow_published(
    loaded: LoadedBank, lock: Lock, options: BuildOptions, clock: Clock, result: BuildResult
) -> tuple[Lock, str]:
    """The lock with its times raised above those of the packages published in ``out``; the changelog published.

    The changes are those since the packages in ``out``: what classmates will
    see, whatever git did to the bank and its lock meanwhile. Where there are
    none, nothing was published yet, and every note is new.
    """
    bank, problems, out = loaded.bank, Problems(), options.out
    previous = previous_changelog(out, bank.root / CHANGELOG_FILE, problems)
    published = read_published(out, bank.id, loaded.templates, problems, options.cache.kept, clock)
    problems.raise_for()
    result.warnings += problems.warnings
    raised = raise_times(lock, published, clock)
    langs = {t.lang for t in loaded.templates.values()}
    names = {(deck.key, lang): bank.deck_name(deck, lang) for deck in bank.decks for lang in langs}
    notes = [(head, names[head.deck_key, head.lang]) for head in loaded.notes]
    result.changes.items += changes_since(published, notes, loaded.templates)
    result.changes.when = _latest(raised)
    return raised, previous


def _latest(lock: Lock) -> int:
    """The newest time in ``lock`` (0 for a bank with nothing in it)."""
    times = [*(notetype.mtime for notetype in lock.notetypes.values()), *(note.mtime for note in lock.notes.values())]
    return max(times, default=0)


def _save_lock(options: BuildOptions, planned: _LockPlan) -> bool:
    """Write the lock if it changed, and keep it parsed in the cache; tell whether it was written.

    When it is unchanged and was recalled from the cache, what is kept is this very lock.
    """
    decks = options.decks
    written = planned.changed and write_if_changed(decks / LOCK_FILE, planned.text.encode())
    if written:
        ask_git_to_merge(decks)
    if planned.changed or not planned.recalled:
        remember(planned.lock, planned.text.encode(), options.cache.kept / LOCK_MEMO)
    return written


def _keep_published(package: _Package, content: bytes, by_id: Types, lock: Lock, kept: Path) -> None:
    """Keep what a package made holds as :func:`read_published` would find it, for the next build to read."""
    spec = package.spec
    decks = {deck.id: deck.name for deck in spec.decks}
    # The lock's entry is the package's note: its digest and time are what the package holds.
    notes = {
        key.guid: PublishedNote(lock.notes[key.guid], decks[key.deck_id], by_id[key.notetype_id].name)
        for key in spec.notes
    }
    keys = ((by_id[model.model_id][0], mtime) for model, mtime in spec.notetypes)
    notetypes = {key: PublishedNotetype(lock.notetypes[key].digest, mtime) for key, mtime in keys}
    keep(kept, package.path, content, by_id, Published(notes, notetypes))


def _make_packages(todo: list[_Package], kept: Path, progress: Progress) -> Iterator[tuple[_Package, bytes]]:
    """Each package to make with its bytes, as it is made, two at a time: zlib and SQLite let go of the interpreter.

    Each package's collection is kept in the folder ``kept`` for its next build.
    """
    written, total = 0, sum(len(package.spec.notes) for package in todo)
    with ThreadPoolExecutor(min(2, os.cpu_count() or 1)) as pool:
        contents = pool.map(lambda p: package_bytes(p.spec, Kept(kept, digest(str(p.path.resolve()))[:16])), todo)
        for package, content in zip(todo, contents, strict=True):
            written += len(package.spec.notes)
            progress(f"notes written ({package.lang})", written, total)
            yield package, content


def _current_text(path: Path) -> str:
    """The text of a file of the bank as it is now, or nothing."""
    try:
        return read_inside(path, (path.parent,)).decode("utf-8", errors="replace")
    except FileNotFoundError:
        return ""


def _write(path: Path, content: bytes, dry_run: bool) -> bool:
    if dry_run:
        return not path.is_file() or path.read_bytes() != content
    return write_if_changed(path, content)


def _stamp(
    bank: Bank,
    card_templates: dict[str, CardTemplates],
    types: dict[str, genanki.Model],
    notes: list[NoteHead],
    old: Lock,
    clock: Clock,
    result: BuildResult,
) -> Lock:
    """The new lock: times for every note and notetype, moved where the content differs from the lock's."""
    entries, stamped = stamp_notes(notes, old, clock)
    gone = old.notes.keys() - entries.keys()
    built = {tpl.lang for tpl in card_templates.values()}
    kept = {guid: old.notes[guid] for guid in gone if old.notes[guid].lang not in built}  # other languages'
    new = Lock(bank.id, dict(old.notetypes), {**kept, **entries} if kept else entries)
    for key, tpl in card_templates.items():
        cards = tuple(side.name for side in tpl.sides)
        new.notetypes[key] = stamp_notetype(key, types[key].model_id, tpl.kind.fields, cards, tpl.digest, old, clock)
    changed = [old.notes[guid] for guid, stamp in stamped.items() if stamp is Stamp.CHANGED]
    result.warnings += _wrong_times(changed, clock, bank.root / LOCK_FILE)
    return new


def _wrong_times(changed: list[NoteLock], clock: Clock, lock_path: Path) -> list[Problem]:
    """A warning naming the changed notes whose previous time came from a wrong clock.

    Their new times continue from the old ones (a second later) rather than from
    this clock, so that they still reach classmates; see :class:`Clock`.
    """
    now = clock.now()
    odd = [entry for entry in changed if not ANKI_EPOCH <= entry.mtime < now]
    if not odd:
        return []
    names = ", ".join(f"{e.question} ({e.lang})" for e in odd[:MAX_NAMED]) + (" ..." if len(odd) > MAX_NAMED else "")
    problems = Problems()
    problems.add(
        lock_path,
        f"{len(odd)} changed note(s) had a time ahead of this computer's clock, or before 2006: {names}",
        hint="their new times are one second after the old ones; check the clock of the computer that built them",
        severity=Severity.WARNING,
    )
    return problems.items


def _guard_shape(old: Lock, card_templates: Mapping[str, CardTemplates], allow: bool, result: BuildResult) -> None:
    """Refuse to change the fields or card types of a notetype classmates already have."""
    for key, templates in card_templates.items():
        previous = old.notetypes.get(key)
        fields, cards = templates.kind.fields, tuple(side.name for side in templates.sides)
        if previous is None or (previous.fields, previous.cards) == (fields, cards):
            continue
        if not allow:
            raise ShapeChangeError(
                f"the '{key}' note type would change its fields or card types "
                f"(from {', '.join(previous.fields)} / {', '.join(previous.cards)} "
                f"to {', '.join(fields)} / {', '.join(cards)}). Everyone who imported the deck would get "
                "a copy of the note type and stop receiving updates to their existing notes. "
                "If this is intended, rebuild with --allow-shape-change and tell them to tick "
                "'Merge note types' when importing."
            )
        result.changes.add(Change(templates.lang, "", ChangeKind.SHAPE))


@dataclass(frozen=True)
class _Package:
    """One output file, planned."""

    path: Path
    lang: str
    spec: PackageSpec


def _plan(
    bank: Bank, loaded: LoadedBank, types: dict[str, genanki.Model], lock: Lock, out: Path, split: bool
) -> list[_Package]:
    """What each output file holds: all decks of a language, or one deck each with ``split``.

    A package carries the note types of every kind in its language, and the
    images its notes show, by name, so its bytes do not depend on the order the
    notes were rendered in.
    """
    by_key = {result.deck.key: result for result in loaded.files if result.deck}
    packages = []
    for lang in dict.fromkeys(t.lang for t in loaded.templates.values()):
        keys = [key for key, t in loaded.templates.items() if t.lang == lang]
        models = [(types[key], lock.notetypes[key].mtime) for key in keys]
        model_ids = {loaded.templates[key].kind.name: types[key].model_id for key in keys}
        assets = {asset.name: asset.content for key in keys for asset in loaded.templates[key].media}
        for path, decks in package_groups(bank, lang, out, split=split):
            ids = {d.key: deck_id(bank.id, d.key, lang) for d in decks}
            files = [by_key[d.key] for d in decks]
            heads = [head for file in files for head in file.notes if head.lang == lang]
            names = sorted({name for head in heads for name in head.media})
            notes = [
                NoteKey(h.guid, h.digest, lock.notes[h.guid].mtime, ids[h.deck_key], model_ids[h.kind], h.cards)
                for h in heads
            ]
            media = [*assets.items(), *((name, loaded.media[name]) for name in names)]
            times = [*(mtime for _, mtime in models), *(note.mtime for note in notes)]
            about = description(bank, lang, times, loaded.templates[keys[0]].labels)
            infos, parents = _decks(bank, lang, decks, about)
            preset = class_preset(bank.id, lang, bank.name_in(bank.titles, lang) or bank.id, bank.study)
            spec = PackageSpec(models, infos, notes, partial(_texts, files, lang), media, preset, parents)
            packages.append(_Package(path, lang, spec))
    return packages


def _decks(bank: Bank, lang: str, decks: list[Deck], about: str) -> tuple[list[DeckInfo], list[DeckInfo]]:
    """The decks of a package in ``lang``, and the parent deck (the bank's title) when it has to carry something.

    The description goes to the top decks: the parent, else each deck. The parent
    also carries the class preset: otherwise Anki makes it with the Default preset,
    whose limits then cap a student who studies from it.
    """
    parent = bank.name_in(bank.titles, lang)
    own = about if parent is None else ""
    infos = [DeckInfo(deck_id(bank.id, d.key, lang), bank.deck_name(d, lang), own) for d in decks]
    if parent is None or not (bank.study or about):
        return infos, []
    return infos, [DeckInfo(parent_deck_id(bank.id, lang), parent, about)]


def _texts(files: list[FileResult], lang: str, wanted: Collection[str] | None) -> Iterator[tuple[str, Texts]]:
    """The fields and tags of ``files``' notes in ``lang``, with their GUIDs, a file at a time.

    With ``wanted``, only the files that hold one of those notes are unpacked.
    """
    if wanted is not None:
        holders = {head.guid: file for file in files for head in file.notes if head.lang == lang}
        files = list({id(holders[guid]): holders[guid] for guid in wanted}.values())
    for file in files:
        for note in file.rendered(lang):
            yield note.guid, (note.fields, note.tags)
