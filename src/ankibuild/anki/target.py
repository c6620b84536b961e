"""The Anki target: the ``.apkg`` packages of a bank, and the changelog.

Planning has every note and note type stamped with its time of change (the
lock, :mod:`ankibuild.lock`), raises those times above the packages already
published, and works out what each package holds; writing makes the packages
whose content changed, then publishes the changelog. The lock the packages'
times come from is saved by the build, after them.
"""

from __future__ import annotations

import contextlib
import importlib
import os
from collections.abc import Callable, Collection, Generator, Iterator, Mapping, Sequence
from concurrent.futures import Executor, Future, ThreadPoolExecutor
from dataclasses import dataclass
from functools import cached_property, partial
from itertools import chain, compress
from operator import attrgetter, is_not
from pathlib import Path
from typing import TYPE_CHECKING

from ..atomic import Ahead, Waiting, ready_if_changed, remove_stale_temporaries
from ..cache import Cache, cache_root, digest
from ..changelog import CHANGELOG_FILE, Change, ChangeKind, previous_changelog, ready_changelog
from ..errors import Problem, Problems, Severity, ShapeChangeError
from ..forked import Forked, can_fork, in_order, pool_ended
from ..load.deckfiles import FileResult
from ..load.render import CardTemplates, NoteHead
from ..load.stage import LoadedBank
from ..lock.clock import Clock
from ..lock.format import Lock
from ..lock.plan import LockPlan, check_frozen
from ..lock.stamp import Shape, stamp_lock
from ..model import Bank, Deck, deck_id, parent_deck_id
from ..options import BuildOptions
from ..packagenames import check_names, no_longer_made, package_groups
from ..paths import written_place
from ..progress import Progress, silent
from ..search import retired_search
from ..state import BuildResult, Output
from .about import description
from .collection import notetype
from .kept import Kept, Later, now
from .package import package_bytes, remove_scratch
from .preset import class_preset
from .published import (
    Columns,
    Known,
    PublishedNotetype,
    Types,
    changes_since,
    keep,
    notetype_keys,
    raise_times,
    read_published,
)
from .spec import DeckInfo, NoteKey, NoteKeys, Notetype, PackageSpec, Texts

if TYPE_CHECKING:
    from multiprocessing.context import BaseContext


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

    def prepare(self) -> None:
        """Load what making packages from nothing needs, while the question files are processed.

        genanki (with asyncio, which it loads) takes some 0.1 s to load: loaded
        here, while the workers process the files, it is loaded once, not in the
        process forked for each package. After an edit the packages last made are
        updated, without it.
        """
        if not self.built:
            importlib.import_module("genanki")

    def plan(self, loaded: LoadedBank) -> AnkiPlan:
        """The new lock, the changes since the packages published, and what each package holds.

        Each package to make is started as soon as it is planned (see :class:`_Started`): the languages
        are planned one at a time, those with notes stamped anew first, and the published packages are
        followed once all are.
        """
        options, bank, old = self.options, loaded.bank, loaded.lock
        result = BuildResult(
            bank.id,
            len(bank.decks),
            loaded.questions,
            warnings=_cache_warnings(options.cache),
            templates=options.folders.describe(),
        )
        types = notetypes(bank, loaded.templates)
        with _Started(options.cache.kept) as started:
            stamped, packages = self._started(loaded, types, result=result, started=started)
            result.warnings[:0] = loaded.problems.warnings  # the translations record's among them now
            known = self._known(packages)
            new, previous, own = _follow_published(
                loaded, stamped, options, clock=self.clock, result=result, known=known
            )
            if new is not stamped:  # times raised above the published ones: the packages hold those
                started.stop()
                packages = _plan(
                    bank, loaded, types, lock=new, out=options.out, split=options.split, langs=_langs(loaded)
                )
            result.package_digests = {str(package.path): package.spec.digest for package in packages}
            result.retired_searches = _RetiredSearches(types, loaded.notes, loaded.templates)
            lock = LockPlan.of(new, options, before=old)
            todo = self._todo(packages)
            made = [package.path for package in packages]
            gone = no_longer_made(own, made, bank_id=bank.id, langs=_langs(loaded), split=options.split)
            return AnkiPlan(
                options, result, loaded.templates, types, packages, todo, lock, previous, gone, self.progress, started
            )

    def _started(
        self, loaded: LoadedBank, types: dict[str, Notetype], *, result: BuildResult, started: _Started
    ) -> tuple[Lock, list[_Package]]:
        """The new lock and every package, each package to make ``started`` meanwhile (see :meth:`_packages`).

        The translations record is observed once they are (see :func:`.load_all`); should planning fail
        first, before that: a problem the record tells fails the build before any of planning's, as ever.
        """
        options, old = self.options, loaded.lock
        try:
            _guard_shape(old, loaded.templates, options.allow_shape_change, result=result)
            stamped = _stamp(loaded, types, result=result, clock=self.clock)
            check_frozen(old, stamped, options)
            packages = self._packages(loaded, types, lock=stamped, started=started)
        except Exception:
            loaded.observed(failing=True)
            raise
        loaded.observed()
        return stamped, packages

    def _packages(
        self, loaded: LoadedBank, types: dict[str, Notetype], *, lock: Lock, started: _Started
    ) -> list[_Package]:
        """Every package, its notes' times those of ``lock``; each package to make ``started`` meanwhile.

        The languages whose notes ``lock`` stamped anew are planned first, one at a time: the package
        an edit changes is among them, and on a first build every package is; each one's process starts
        before the next language is planned.
        """
        options, kept = self.options, self.options.cache.kept
        planning = partial(_plan, loaded.bank, loaded, types, lock=lock, out=options.out, split=options.split)
        fork = partial(_forked_alone, kept=kept, published=_keeping(lock, loaded.templates, options))
        langs, edited = _langs(loaded), _restamped(loaded.lock, lock)
        order = sorted(langs, key=lambda lang: lang not in edited)  # stable: the edited ones first
        packages: list[_Package] = []
        for done, lang in enumerate(order, start=1):
            packages += planning(langs=[lang])
            started.follow(self._todo(packages), fork, coming=self._unplanned(loaded.bank, order[done:]))
        return sorted(packages, key=lambda package: langs.index(package.lang))  # stable: decks' order kept

    def _todo(self, packages: list[_Package]) -> list[_Package]:
        """The packages whose content differs from what the last build made of them.

        A package the last build did not make is one, whatever its digest: on a first build no
        digest is computed here, before its process is started (the process needs it only later).
        """
        built = self.built
        return [p for p in packages if (path := str(p.path)) not in built or built[path] != p.spec.digest]

    def _unplanned(self, bank: Bank, langs: Sequence[str]) -> int:
        """How many packages ``langs`` have: each may turn out to change once planned, one the last build made
        too (a card template edited changes every package, and stamps no note anew). Counted as made, they
        keep a process from being started, and then stopped once the packages turn out too many for one each.
        """
        options = self.options
        return sum(len(package_groups(bank, lang, options.out, split=options.split)) for lang in langs)

    def _known(self, packages: list[_Package]) -> dict[Path, Known]:
        """The packages of each language all of whose packages are as the last build made them.

        Made of the same lock, such a package holds each of its notes with the lock's digest and time.
        """
        changed = {package.lang for package in self._todo(packages)}
        return {
            package.path: Known(package.lang, _newest(package.spec))
            for package in packages
            if package.lang not in changed
        }


@dataclass(frozen=True)
class AnkiPlan:
    """The packages to make and the changelog, planned with the lock they follow; nothing written yet."""

    options: BuildOptions
    result: BuildResult
    #: The templates of each note type, and the note type itself, by key (see :meth:`Kind.notetype_key`).
    templates: Mapping[str, CardTemplates]
    types: dict[str, Notetype]
    packages: list[_Package]
    #: The packages whose content differs from what the last build made of them.
    todo: list[_Package]
    #: The lock whose times the packages hold, for the build to save after them.
    lock: LockPlan
    #: The changelog already published, which the new one continues.
    previous: str
    #: The packages of the bank's own in the output folder that no question file makes any more, to remove
    #: once the changelog tells what they held (see :func:`.packagenames.no_longer_made`).
    gone: list[Path]
    progress: Progress
    #: The one package to make, made meanwhile.
    started: _Started

    def __enter__(self) -> AnkiPlan:
        return self

    def __exit__(self, *error: object) -> None:
        """Stop making the package started while planning, should the build stop before asking for its bytes."""
        self.started.stop()

    def write(
        self, waiting: Waiting, later: Later | None = None, *, meanwhile: Callable[[], object] = lambda: None
    ) -> BuildResult:
        """Make the packages that changed, then publish the changelog; ``meanwhile`` is done while they are made.

        The files of ``waiting``, readied by the other targets, are put in place
        first, once the packages are made and ``meanwhile`` readied what it readies.
        What each package made keeps for the next build is written ``later`` (see
        :func:`deferred`) while the build goes on; without it, before this returns.
        """
        if later is None:
            with deferred() as later:
                return self.write(waiting, later, meanwhile=meanwhile)
        options, result = self.options, self.result
        kept, out = options.cache.kept, options.out
        if not options.dry_run:
            for path in (out / CHANGELOG_FILE, *(p.path for p in self.packages)):
                remove_stale_temporaries(path)
        published = _keeping(self.lock.lock, self.templates, options)
        # Written to its temporary file while the packages are made, put in its place after them.
        changelog = Ahead(lambda: None if options.dry_run else ready_changelog(out, self.previous, result.changes))

        # The files written ahead wait for the disk on a thread of their own: meanwhile this one reads the
        # package's bytes, which its process waits to send (a busy disk's fsync took it 50 ms).
        ahead = ThreadPoolExecutor(1)
        readied: list[Future[object]] = []

        def ready() -> None:
            changelog.ready()
            meanwhile()

        def also() -> None:  # this process keeps the lock's memo: the lock itself is saved by the build, after them
            self.lock.kept(options, meanwhile=lambda: readied.append(ahead.submit(ready)))

        making = _make_packages(
            self.todo, kept, self.progress, published=published, meanwhile=also, later=later, started=self.started
        )
        written = _put_together(
            making, waiting, ahead=ahead, readied=readied, changelog=changelog, dry_run=options.dry_run
        )
        for package in self.packages:
            path, spec = package.path, package.spec
            preset = spec.preset.name if spec.preset else ""
            made = written.get(path, False)
            result.outputs.append(Output(path, package.lang, len(spec.decks), len(spec.notes), made, preset))
        _remove(self.gone, result, dry_run=options.dry_run)
        return result


class _RetiredSearches(Mapping[str, str]):
    """Per language built, the search that selects every question removed from the bank that a classmate has.

    Each note type is searched with the questions of its kind: a note of a question's former kind is retired too.
    Made when first asked for: only a publication tells them.
    """

    def __init__(
        self, types: Mapping[str, Notetype], notes: Sequence[NoteHead], templates: Mapping[str, CardTemplates]
    ) -> None:
        self._types, self._notes, self._templates = types, notes, templates

    @cached_property
    def _searches(self) -> dict[str, str]:
        ids: dict[tuple[str, str], list[str]] = {}
        for head in self._notes:
            ids.setdefault((head.lang, head.kind), []).append(head.question_id)
        searched: dict[str, dict[str, list[str]]] = {}
        for key, t in self._templates.items():
            searched.setdefault(t.lang, {})[self._types[key].name] = ids.get((t.lang, t.kind.name), [])
        return {lang: retired_search(by_notetype) for lang, by_notetype in searched.items()}

    def __getitem__(self, lang: str) -> str:
        return self._searches[lang]

    def __iter__(self) -> Iterator[str]:
        return iter(self._searches)

    def __len__(self) -> int:
        return len(self._searches)


def notetypes(bank: Bank, templates: Mapping[str, CardTemplates]) -> dict[str, Notetype]:
    """The note type of each kind and language the build makes, from its card templates, by key."""
    return {key: notetype(bank.id, t) for key, t in templates.items()}


def _cache_warnings(cache: Cache) -> list[Problem]:
    """What is wrong with the cache folder, in the form of every other warning."""
    return [Problem(str(cache_root()), message=said, severity=Severity.WARNING) for said in cache.warnings()]


def _follow_published(
    loaded: LoadedBank,
    lock: Lock,
    options: BuildOptions,
    *,
    clock: Clock,
    result: BuildResult,
    known: Mapping[Path, Known],
) -> tuple[Lock, str, frozenset[Path]]:
    """The lock with its times raised above those of the packages published in ``out``; the changelog published;
    the packages read that hold nothing but the bank's notes (see :attr:`Published.own`).

    The changes are those since the packages in ``out``: what classmates will
    see, whatever git did to the bank and its lock meanwhile. Where there are
    none, nothing was published yet, and every note is new. The packages
    ``known`` hold the notes as ``lock`` has them (see :func:`read_published`).
    """
    bank, problems, out, kept = loaded.bank, Problems(), options.out, options.cache.kept
    previous = previous_changelog(out, bank.root / CHANGELOG_FILE, problems)
    published = read_published(out, bank.id, loaded.templates, problems=problems, kept=kept, clock=clock, known=known)
    problems.raise_for()
    result.warnings += problems.warnings
    raised = raise_times(lock, published, clock)
    langs = {t.lang for t in loaded.templates.values()}
    names = {(deck.key, lang): bank.deck_name(deck, lang) for deck in bank.decks for lang in langs}
    # A language not read has no changes: its notes are not compared (after one edit, most of them).
    result.changes.items += changes_since(published, loaded.notes, loaded.templates, decks=names)
    result.changes.when = _latest(raised)
    return raised, previous, published.own


def _remove(gone: Sequence[Path], result: BuildResult, *, dry_run: bool) -> None:
    """Remove the packages ``gone`` (a dry run only tells them); one that cannot be is a warning: a classmate
    would get its notes back."""
    if dry_run:
        result.removed += gone
        return
    for path in gone:
        try:
            path.unlink(missing_ok=True)
        except OSError as err:
            result.unremoved.append(path)
            why = err.strerror or err
            result.warnings.append(
                Problem(
                    str(path),
                    message=f"no question file makes this package any more, and it cannot be removed ({why})",
                    hint="delete it: a classmate given it would get back the questions it holds",
                    severity=Severity.WARNING,
                )
            )
        else:
            result.removed.append(path)


def _newest(spec: PackageSpec) -> int:
    """The newest time a package holds (its notes' taken in C: a package of a large bank has thousands)."""
    return max(chain((mtime for _, mtime in spec.notetypes), spec.notes.mtimes), default=0)


def _latest(lock: Lock) -> int:
    """The newest time in ``lock`` (0 for a bank with nothing in it), taken in C."""
    return max(chain(map(_MTIME, lock.notetypes.values()), map(_MTIME, lock.notes.values())), default=0)


def _keep_published(package: _Package, content: bytes, *, types: Types, lock: Lock, kept: Path) -> Callable[[], None]:
    """What keeps what a package made holds as :func:`read_published` would find it, for the next build to read:
    made ready here, written when called.

    In columns, as the memo keeps them: one object per note and column made, not a note's copy first.
    """
    spec = package.spec
    decks = {deck.id: deck.name for deck in spec.decks}
    # Each GUID once, in the package's order, as a reading finds them.
    notes = spec.notes
    places = dict(zip(notes.guids, zip(notes.deck_ids, notes.notetype_ids, strict=True), strict=True))
    # The lock's entry is the package's note: its digest and time are what the package holds.
    entries = list(map(lock.notes.__getitem__, places))
    deck_names = [decks[deck] for deck, _ in places.values()]
    names = [types[notetype].name for _, notetype in places.values()]
    keys = ((types[model.model_id][0], mtime) for model, mtime in spec.notetypes)
    notetypes = {key: PublishedNotetype(lock.notetypes[key].digest, mtime) for key, mtime in keys}
    return keep(kept, package.path, content, types=types, found=Columns(entries, deck_names, names, notetypes))


#: From this many notes to write, each package is made in a process of its own.
PROCESS_NOTES = 3000
#: What keeps a package's notes as made, for the next build: made ready, written when called (see
#: :func:`_keep_published`).
Keeping = Callable[["_Package", bytes], Callable[[], None]]
#: In a process forked to make packages: how to make each of them.
_MAKING: list[Callable[[], bytes]] = []


@contextlib.contextmanager
def deferred() -> Iterator[Later]:
    """Work to do on a thread of its own, waited for on leaving; its first error is raised then."""
    done: list[Future[object]] = []
    with ThreadPoolExecutor(1) as pool:
        yield lambda do, *args: done.append(pool.submit(do, *args))
    for future in done:
        future.result()


def _make_packages(
    todo: list[_Package],
    kept: Path,
    progress: Progress,
    *,
    published: Keeping,
    meanwhile: Callable[[], object],
    later: Later,
    started: _Started,
) -> Generator[tuple[_Package, bytes], None, None]:
    """Each package to make with its bytes, as it is made, several at a time.

    With this many notes to write, each package is made in a process of its
    own, on every core: it is forked with what it needs, and sends back only
    the package's bytes. On threads, the interpreter lock held back inserting,
    vacuuming and deflating, and the buffers of two packages were held in this
    one process. Each package's collection is kept in the folder ``kept`` for
    its next build, and its notes as ``published`` keeps them, where it is
    made: packages made at once would otherwise wait here for each other's.
    ``meanwhile`` is done here while they are made. On threads, what is kept
    for the next build is written ``later``, when the package is made already.
    Packages each made in a process of its own may be ``started`` already.
    """

    def making(keeping: Later) -> list[Callable[[], bytes]]:
        return [partial(_package_made, package, kept=kept, published=published, later=keeping) for package in todo]

    written, total = 0, sum(len(package.spec.notes) for package in todo)
    if _each_forked(todo):
        started.follow(todo, partial(_forked_alone, kept=kept, published=published))
        contents: Iterator[bytes] = _answers(todo, making(later), started, meanwhile=meanwhile, later=later)
    else:
        contents = _pooled(todo, making, meanwhile=meanwhile, later=later)
    for package, content in zip(todo, contents, strict=True):
        written += len(package.spec.notes)
        progress(f"notes written ({package.lang})", written, total)
        yield package, content


def _pooled(
    todo: list[_Package],
    making: Callable[[Later], list[Callable[[], bytes]]],
    *,
    meanwhile: Callable[[], object],
    later: Later,
) -> Iterator[bytes]:
    """The bytes of each package of ``todo``, too many or too small for a process each, made by a pool."""
    pool: Executor
    cores = os.cpu_count() or 1
    if sum(len(package.spec.notes) for package in todo) >= PROCESS_NOTES and len(todo) > 1 and (fork := _fork()):
        from concurrent.futures import ProcessPoolExecutor

        # Forked, the processes are given what they make; never more at once than packages made each in its own.
        pool = ProcessPoolExecutor(
            min(len(todo), _most()), mp_context=fork, initializer=_adopt, initargs=(making(now),)
        )
        contents = in_order(pool, _made, range(len(todo)))
    else:
        pool = ThreadPoolExecutor(min(2, cores))  # SQLite and zlib let go of the interpreter now and then
        contents = in_order(pool, lambda make: make(), making(later))
    try:
        meanwhile()
        yield from contents
    except BaseException:
        pool_ended(pool, failed=True)
        raise
    pool_ended(pool, failed=False)


def _put_together(
    making: Generator[tuple[_Package, bytes], None, None],
    waiting: Waiting,
    *,
    ahead: Executor,
    readied: list[Future[object]],
    changelog: Ahead,
    dry_run: bool,
) -> dict[Path, bool]:
    """Whether each package ``making`` makes is new (see :func:`_ready`): added to ``waiting``, every file of which
    is put in its place once ``ahead`` readied every other file the build writes (``readied``), then the changelog.

    Until then each waits in its temporary file, its bytes let go: a build that
    cannot write one of its files (a full disk, a folder it may not write to)
    changes none. Should it stop, ``changelog``'s is removed (``waiting``'s are on leaving it).
    """
    try:
        # Closed should readying a package fail: the threads or processes making the others end first, and
        # what they keep is handed on while the work kept for later still takes it.
        with contextlib.closing(making):
            ready = partial(_ready, dry_run=dry_run, waiting=waiting)
            written = {package.path: ready(package.path, content) for package, content in making}
        _joined(ahead, readied)
        waiting.put()
        changelog.put()
    except BaseException:
        try:
            _settled(ahead)  # then nothing is readied any more: what was is removed, none left behind
        finally:
            changelog.discard()
        raise
    return written


def _joined(pool: Executor, done: list[Future[object]]) -> None:
    """Wait for what ``pool`` does; the first error of ``done`` is raised."""
    pool.shutdown()
    for future in done:
        future.result()


def _settled(pool: Executor) -> None:
    """Wait until ``pool`` does nothing more, even should waiting be interrupted (a second Ctrl-C): what it
    readies meanwhile would be left behind. The first interruption is raised once it is done."""
    error: BaseException | None = None
    while True:
        try:
            pool.shutdown()
        except BaseException as raised:
            error = error or raised
        else:
            break
    if error is not None:
        raise error


def _most() -> int:
    """The most packages made at once, each in a process of its own: three on two cores, none waits for the others."""
    return (os.cpu_count() or 1) + 1


def _each_forked(todo: list[_Package], coming: int = 0) -> bool:
    """Whether the packages to make, with ``coming`` more yet to plan, are each made in a process forked for it
    (see :func:`_forked_alone`): they are few enough, and large enough together."""
    return (
        len(todo) + coming <= _most()
        and sum(len(package.spec.notes) for package in todo) >= PROCESS_NOTES
        and can_fork()
    )


def _forked_alone(package: _Package, *, kept: Path, published: Keeping) -> Forked:
    """A package to make, made in a process forked for it alone: the work of :func:`_package_made`.

    The process sends the bytes back first, then writes what the package keeps for the next build: its
    collection at once, its notes (made ready at once) once the build took the bytes. The build follows the
    published packages before it takes them, and reads the notes the package this one replaces kept, under the
    same name: kept over first, they would be of another package, and the build would read that one whole.
    """
    sent: list[Callable[[], object]] = []
    taken: list[Callable[[], object]] = []
    making = partial(_package_made, package, kept=kept, published=published, later=_to(sent), taken=_to(taken))
    return Forked(making, after=partial(_do_all, sent), taken=partial(_do_all, taken))


def _to(work: list[Callable[[], object]]) -> Later:
    """What :func:`_package_made` does later, added to ``work``."""
    return lambda do, *args: work.append(partial(do, *args))


def _do_all(work: list[Callable[[], object]]) -> None:
    for do in work:
        do()


def _stop(forked: Forked, kept: Path) -> None:
    """Stop a process making a package in the folder ``kept``, and remove what it was making there."""
    pid = forked.pid
    forked.stop()
    remove_scratch(kept, pid)


def _stop_all(making: list[Forked], kept: Path) -> None:
    """Stop each process, and remove what it was making, even should stopping one be interrupted (a second
    Ctrl-C): the others would go on working after the build. The first error is raised once all are stopped."""
    error: BaseException | None = None
    for forked in making:
        try:
            _stop(forked, kept)
        except BaseException as raised:
            error = error or raised
    if error is not None:
        raise error


def _answers(
    todo: list[_Package],
    making: list[Callable[[], bytes]],
    started: _Started,
    *,
    meanwhile: Callable[[], object],
    later: Later,
) -> Iterator[bytes]:
    """The bytes of each package of ``todo``, made by the processes ``started`` while this one does ``meanwhile``.

    Made on threads, they waited for the interpreter while this one kept the lock's memo. ``later``
    waits for each process to write what its package keeps. Should one fail, its package is made
    here, by its ``making``. Those not asked for yet are stopped should the build stop first.
    """
    with started:
        meanwhile()
        for package, make in zip(todo, making, strict=True):
            content = started.answer(package, later)
            yield content if isinstance(content, bytes) else make()


class _Started:
    """The packages a build makes, each started in a process of its own as soon as it was planned, or none.

    The processes work while the build plans the other packages, follows the published ones and writes
    the other outputs. None is started until the packages to make, with every package still to plan, are
    few enough to make each in a process of its own (see :func:`_each_forked`). They are stopped should the
    build stop first, or should the times they hold be raised (see :func:`_follow_published`): then the
    packages are made once they are known. A process making a package that turns out not to change is
    stopped too. What each keeps of its package's notes for the next build is written once the build took its
    bytes, after following the published packages (see :func:`_forked_alone`).
    """

    def __init__(self, kept: Path) -> None:
        #: Where the processes make their scratch folders, which they leave there when stopped.
        self._kept = kept
        #: Each package being made, with its process, in the order they were started.
        self._making: list[tuple[_Package, Forked]] = []

    def follow(self, todo: list[_Package], fork: Callable[[_Package], Forked], *, coming: int = 0) -> None:
        """Have each package of ``todo`` made by a process of its own, if they are to be, with ``coming``
        more to plan (see :func:`_each_forked`): the process started already, or one ``fork`` starts;
        stop any other."""
        wanted = todo if _each_forked(todo, coming) else []
        taken = [any(package is other for other in wanted) for package, _ in self._making]
        stopped = [forked for (_, forked), held in zip(self._making, taken, strict=True) if not held]
        self._making = list(compress(self._making, taken))
        _stop_all(stopped, self._kept)
        for package in wanted:
            if not any(package is made for made, _ in self._making):
                self._making.append((package, fork(package)))  # held at once: stopped should the next fail

    def answer(self, package: _Package, later: Later) -> object | None:
        """What the process making ``package`` sent, None if none is or it failed; ``later`` waits for it to end.

        Should the build stop while it waits for the answer, the process is stopped with the others. One that
        sent nothing died mid-way (ended by the kernel, out of memory): what it was making is removed, as for
        one the build stops, rather than left in the cache until a later build tidies it away.
        """
        forked = next((forked for made, forked in self._making if made is package), None)
        if forked is None:
            return None
        content = forked.answer()
        if content is None:
            _stop(forked, self._kept)
        else:
            later(forked.wait)
        self._making = [(made, other) for made, other in self._making if made is not package]
        return content

    def stop(self) -> None:
        """Stop the processes not taken, and remove what they were making."""
        making, self._making = self._making, []
        _stop_all([forked for _, forked in making], self._kept)

    def __enter__(self) -> _Started:
        return self

    def __exit__(self, error: type[BaseException] | None, *_: object) -> None:
        if error is not None:
            self.stop()


def _keeping(lock: Lock, templates: Mapping[str, CardTemplates], options: BuildOptions) -> Keeping:
    """How a package made of ``lock`` keeps its notes in the cache's kept folder (see :func:`_keep_published`).

    A dry run keeps none: its packages are not written, and the notes of one, kept under its name, would
    stand for another package than the one there, which the next build would then read whole.
    """
    if options.dry_run:
        return _keeping_none
    kept = options.cache.kept
    return partial(_keep_published, types=notetype_keys(lock.bank, templates), lock=lock, kept=kept)


def _keeping_none(package: _Package, content: bytes) -> Callable[[], None]:
    return lambda: None


def _fork() -> BaseContext | None:
    """The context of processes started by forking, where there is one.

    Loaded only for several packages to make: after one edit, the one package is forked without it.
    """
    if not can_fork():
        return None
    import multiprocessing

    return multiprocessing.get_context("fork")


def _adopt(making: list[Callable[[], bytes]]) -> None:
    _MAKING[:] = making


def _made(index: int) -> bytes:
    """The bytes of the package at ``index`` of those this process was forked to make."""
    return _MAKING[index]()


def _package_made(
    package: _Package, *, kept: Path, published: Keeping, later: Later, taken: Later | None = None
) -> bytes:
    """A package's bytes, its collection kept in the folder ``kept`` ``later``, and its notes by ``published``:
    made ready ``later`` too, and written then, or once the build took the bytes where it is to be ``taken``.

    Its notes are made ready to keep later: meanwhile the interpreter is for what the build waits for.
    """
    content = package_bytes(package.spec, Kept(kept, digest(str(written_place(package.path)))[:16], later))
    later(partial(_made_ready, published=published, then=taken or now), package, content)
    return content


def _made_ready(package: _Package, content: bytes, *, published: Keeping, then: Later) -> None:
    """Make ready what ``published`` keeps of ``package``, made of ``content``, to write it ``then``."""
    then(published(package, content))


def _ready(path: Path, content: bytes, *, dry_run: bool, waiting: Waiting) -> bool:
    """Whether ``content`` is new to ``path``; if so, readied to replace it (added to ``waiting``), unless in a
    dry run."""
    if dry_run:
        return not path.is_file() or path.read_bytes() != content
    return waiting.add(ready_if_changed(path, content))


def _stamp(loaded: LoadedBank, types: dict[str, Notetype], *, result: BuildResult, clock: Clock) -> Lock:
    """The new lock, for the notes and the note types of every kind and language built."""
    shapes = {
        key: Shape(types[key].model_id, t.kind.fields, tuple(side.name for side in t.sides), t.digest, t.lang)
        for key, t in loaded.templates.items()
    }
    problems = Problems()
    new = stamp_lock(loaded.bank, loaded.notes, shapes, old=loaded.lock, clock=clock, problems=problems)
    result.warnings += problems.items
    return new


def _guard_shape(old: Lock, card_templates: Mapping[str, CardTemplates], allow: bool, *, result: BuildResult) -> None:
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
    bank: Bank,
    loaded: LoadedBank,
    types: dict[str, Notetype],
    *,
    lock: Lock,
    out: Path,
    split: bool,
    langs: Sequence[str],
) -> list[_Package]:
    """What each output file of ``langs`` holds: all decks of a language, or one deck each with ``split``.

    A package carries the note types of every kind in its language, and the
    images its notes show, by name, so its bytes do not depend on the order the
    notes were rendered in.
    """
    by_key = {result.deck.key: result for result in loaded.files if result.deck}
    packages = []
    for lang in langs:
        keys = [key for key, t in loaded.templates.items() if t.lang == lang]
        models = [(types[key], lock.notetypes[key].mtime) for key in keys]
        model_ids = {loaded.templates[key].kind.name: types[key].model_id for key in keys}
        assets = {asset.name: asset.content for key in keys for asset in loaded.templates[key].media}
        for path, decks in package_groups(bank, lang, out, split=split):
            ids = {d.key: deck_id(bank.id, d.key, lang) for d in decks}
            files = [by_key[d.key] for d in decks]
            heads = [head for file in files for head in file.notes if head.lang == lang]
            names = sorted(set(chain.from_iterable(map(_MEDIA, heads))))
            notes = _note_keys(heads, lock, decks=ids, notetypes=model_ids)
            media = [*assets.items(), *((name, loaded.media[name]) for name in names)]
            times = [*(mtime for _, mtime in models), *notes.mtimes]
            about = description(bank, lang, times, labels=loaded.templates[keys[0]].labels)
            infos, parents = _decks(bank, lang, decks, about=about)
            preset = class_preset(bank.id, lang, bank.name_in(bank.titles, lang) or bank.id, study=bank.study)
            rows = sorted({db for file in files if (db := file.rows.get(lang))})
            by_deck = {ids[d.key]: file for d, file in zip(decks, files, strict=True)}
            spec = PackageSpec(models, infos, notes, partial(_texts, by_deck, lang), media, preset, parents, rows)
            packages.append(_Package(path, lang, spec))
    return packages


#: A note head's GUID, digest, images, deck, kind and cards; the time of a lock entry or note type.
_GUID, _DIGEST, _MEDIA = attrgetter("guid"), attrgetter("digest"), attrgetter("media")
_DECK, _KIND, _CARDS, _MTIME = attrgetter("deck_key"), attrgetter("kind"), attrgetter("cards"), attrgetter("mtime")


def _note_keys(
    heads: Sequence[NoteHead], lock: Lock, *, decks: Mapping[str, int], notetypes: Mapping[str, int]
) -> NoteKeys:
    """The package's note of each head, its time from ``lock``, its deck and note type ids by key and kind.

    A column at a time, each looked up in C: a language of a large bank has ten thousand notes.
    """
    guids = tuple(map(_GUID, heads))
    mtimes = tuple(map(_MTIME, map(lock.notes.__getitem__, guids)))
    deck_ids = tuple(map(decks.__getitem__, map(_DECK, heads)))
    type_ids = tuple(map(notetypes.__getitem__, map(_KIND, heads)))
    digests, cards = tuple(map(_DIGEST, heads)), tuple(map(_CARDS, heads))
    return NoteKeys(guids=guids, digests=digests, mtimes=mtimes, deck_ids=deck_ids, notetype_ids=type_ids, cards=cards)


def _langs(loaded: LoadedBank) -> list[str]:
    """The languages built, in the order of their packages."""
    return list(dict.fromkeys(t.lang for t in loaded.templates.values()))


def _restamped(old: Lock, new: Lock) -> set[str]:
    """The languages of the notes whose entries in ``new`` are not those of ``old``: where an edit is.

    Stamping keeps the very entry of a note that did not change: they are told apart in C.
    """
    entries = new.notes.values()
    return {entry.lang for entry in compress(entries, map(is_not, entries, map(old.notes.get, new.notes)))}


def _decks(bank: Bank, lang: str, decks: list[Deck], *, about: str) -> tuple[list[DeckInfo], list[DeckInfo]]:
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


def _texts(
    files: Mapping[int, FileResult], lang: str, wanted: Collection[NoteKey] | None
) -> Iterator[tuple[str, Texts]]:
    """The fields and tags of the notes in ``lang`` of ``files`` (by deck id), with their GUIDs, a file at a time.

    With ``wanted``, only the files that hold one of those notes are unpacked (see :func:`_holders`).
    """
    for file in files.values() if wanted is None else _holders(files, wanted):
        for note in file.rendered(lang):
            yield note.guid, (note.fields, note.tags)


def _holders(files: Mapping[int, FileResult], wanted: Collection[NoteKey]) -> list[FileResult]:
    """The files that hold the notes ``wanted``: those of their decks, unless a note is not in its deck's file.

    After one edit, the one file is found without a look at the notes of the others: in the process
    forked to make a package, looking at every note of the bank copied each page they are on (some
    6-8 ms). A note its deck's file does not hold (a cache entry forged) is looked for in every file.
    """
    guids = {note.guid for note in wanted}
    decks = {note.deck_id: files[note.deck_id] for note in wanted if note.deck_id in files}
    if guids <= {head.guid for file in decks.values() for head in file.notes}:
        return list(decks.values())
    return [file for file in files.values() if not guids.isdisjoint(map(_GUID, file.notes))]
