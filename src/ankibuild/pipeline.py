"""The build: lock the bank, load it, plan each target, write, record.

Nothing is written unless the whole bank is valid and every target could plan
its output, and nothing is rewritten whose bytes would not change. The records
kept beside the bank come after the outputs: the translations record, then the
lock, last of all (written while the packages are made, each put in its place after them).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from contextlib import AbstractContextManager, ExitStack, nullcontext
from functools import cache, cached_property, partial
from typing import TYPE_CHECKING

from .anki.rows import note_rows
from .atomic import Ahead, Waiting
from .buildlock import exclusive
from .commandline import outlive
from .load.stage import load_all
from .lock.clock import Clock
from .lock.format import LOCK_FILE
from .options import BuildOptions
from .progress import Progress, silent
from .state import BuildResult, BuildState
from .translations.record import Seen, ready_seen, record_behind, records_translations, today

if TYPE_CHECKING:
    from .anki.kept import Later
    from .anki.target import AnkiTarget
    from .errors import Problems
    from .export.target import ExportResult
    from .lock.plan import LockPlan
    from .model import Bank
    from .target import Target


def run(
    options: BuildOptions, *, state: BuildState, clock: Clock | None = None, progress: Progress = silent
) -> BuildResult:
    """The whole build, as :func:`ankibuild.build` describes it.

    ``state`` tells what each package of the last build was made of: a package
    whose content would be the same is not made again. A successful build is
    recorded there, unless a file it read changed since ``state`` read it.
    """
    clock = clock or Clock()
    date = today(clock.first())  # what the translations record dates the changes it sees first with
    with (
        nullcontext() if options.dry_run else exclusive(options.decks, wait=options.wait),
        note_rows(options.cache.kept) as rows,
        ExitStack() as leaving,  # the thread for what the packages keep, started once the targets are made
    ):
        # What the last build made is read under the lock: another build may just have written.
        targets = _Targets(options, clock=clock, built=state.package_digests(), progress=progress)
        # Each question file's notes are written as collection rows as soon as it is processed.
        loaded = load_all(
            options,
            progress,
            state.known(),
            hashed=state.hashed(),
            checks=[targets.check],
            sink=rows,
            meanwhile=targets.prepare,
            # Taken under the bank's lock: the lock file's bytes need not be read to recall it, unless changed.
            lock_sha=state.digests.held(options.decks / LOCK_FILE) or "",
            observed_later=True,  # by the packages' plan
            recorded_on=date if records_translations(options) else "",
        )
        packages, exports = targets.made
        # What the packages made keep for the next build, written while this one goes on.
        later = leaving.enter_context(targets.deferred())
        # The one package to make after an edit is made meanwhile: left unmade should this build stop.
        with packages.plan(loaded) as planned:
            exports_planned = exports.plan(loaded)  # every plan before any write
            with (
                Waiting() as waiting,  # every file but the records: put in place together, once all are readied
                _Records(loaded.translations, planned.lock, date=date, options=options) as records,
            ):
                exported = exports_planned.write(waiting)
                result = planned.write(waiting, later, meanwhile=records.ready)
                written = records.put()
        result.exports.extend(exported.outputs)
        result.warnings.extend(exported.warnings)
        result.lock_written = written is not None
        if written is not None:  # its digest is known: the record need not read some megabytes again
            state.digests.wrote(options.decks / LOCK_FILE, written, planned.lock.sha.hex())
        # The next build that may write the records still has them to write: this one must not be taken for it.
        result.records_behind = options.leaves_bank and records.behind()
        if not (options.dry_run or result.records_behind or result.unremoved):
            state.record(result, loaded.used, loaded.read_as)
        outlive(loaded, packages, planned)  # the command ends at once: not freed as the build returns
        return result


class _Targets:
    """The build's targets, made while the question files are processed (``prepare``).

    The modules that plan and write them take some 30 ms to load: loaded before, they would hold back the
    process forked to process an edited file (which needs none of them), as it is forked after them.
    """

    def __init__(self, options: BuildOptions, *, clock: Clock, built: Mapping[str, str], progress: Progress) -> None:
        self._options, self._clock, self._built, self._progress = options, clock, built, progress

    @cached_property
    def made(self) -> tuple[AnkiTarget, Target[ExportResult]]:
        """The packages and the exports, their modules loaded when first asked for."""
        from .anki.target import AnkiTarget
        from .export.target import ExportTarget

        return AnkiTarget(self._options, self._clock, self._built, self._progress), ExportTarget(self._options)

    def prepare(self) -> None:
        """Make the targets, and prepare the packages: done while the question files are processed."""
        packages, _ = self.made
        packages.prepare()

    def check(self, bank: Bank, problems: Problems) -> None:
        for target in self.made:
            target.check(bank, problems)

    def deferred(self) -> AbstractContextManager[Later]:
        """Work to do on a thread of its own while the build goes on (see :func:`.anki.target.deferred`)."""
        from .anki.target import deferred

        return deferred()


class _Records:
    """The records kept beside the bank, the translations record then the lock, put in place after the packages.

    Each is written to its temporary file, on disk, while the packages are made (see :class:`.atomic.Ahead`):
    after them, each only has its name to take (some 10 ms less). Should the build stop first, they are removed.
    """

    def __init__(self, seen: Seen, lock: LockPlan, *, date: str, options: BuildOptions) -> None:
        self._lock, self._options = lock, options
        self._text = cache(partial(seen.text, date))
        self._seen = Ahead(lambda: ready_seen(self._text(), options))
        self._ahead = lock.ahead(options)

    def behind(self) -> bool:
        """Whether either record in the bank is not what this build made of it, written or not."""
        return self._lock.changed or record_behind(self._text(), self._options)

    def ready(self) -> None:
        self._seen.ready()
        self._ahead.ready()

    def put(self) -> os.stat_result | None:
        """Put both in place, in this order; the status of the lock's bytes as written, or None if it is not."""
        self._seen.put()
        return self._lock.save(self._options, self._ahead)

    def __enter__(self) -> _Records:
        return self

    def __exit__(self, error: type[BaseException] | None, *_: object) -> None:
        if error is not None:
            try:
                self._seen.discard()
            finally:
                self._ahead.discard()
