"""The build: lock the bank, load it, plan each target, write, record.

Nothing is written unless the whole bank is valid and every target could plan
its output, and nothing is rewritten whose bytes would not change. The records
kept beside the bank come after the outputs: the translations record, then the
lock, last of all (written while the packages are made, each put in its place after them).
"""

from __future__ import annotations

import os
from contextlib import nullcontext

from .anki.rows import note_rows
from .anki.target import AnkiTarget, deferred
from .atomic import Ahead
from .buildlock import exclusive
from .commandline import outlive
from .export.target import ExportResult, ExportTarget
from .load.stage import load_all
from .lock.clock import Clock
from .lock.format import LOCK_FILE
from .lock.plan import LockPlan
from .options import BuildOptions
from .progress import Progress, silent
from .state import BuildResult, BuildState
from .target import Target
from .translations.record import Seen, ready_seen, today


def run(
    options: BuildOptions, *, state: BuildState, clock: Clock | None = None, progress: Progress = silent
) -> BuildResult:
    """The whole build, as :func:`ankibuild.build` describes it.

    ``state`` tells what each package of the last build was made of: a package
    whose content would be the same is not made again. A successful build is
    recorded there, unless a file it read changed since ``state`` read it.
    """
    clock = clock or Clock()
    with (
        nullcontext() if options.dry_run else exclusive(options.decks, wait=options.wait),
        note_rows(options.cache.kept) as rows,
        deferred() as later,  # what the packages made keep for the next build, written while this one goes on
    ):
        # What the last build made is read under the lock: another build may just have written.
        packages = AnkiTarget(options, clock, state.package_digests(), progress)
        exports: Target[ExportResult] = ExportTarget(options)
        # Each question file's notes are written as collection rows as soon as it is processed.
        loaded = load_all(
            options,
            progress,
            state.known(),
            hashed=state.hashed(),
            checks=[packages.check, exports.check],
            sink=rows,
            meanwhile=packages.prepare,
            # Taken under the bank's lock: the lock file's bytes need not be read to recall it, unless changed.
            lock_sha=state.digests.held(options.decks / LOCK_FILE) or "",
            observed_later=True,  # by the packages' plan
        )
        # The one package to make after an edit is made meanwhile: left unmade should this build stop.
        with packages.plan(loaded) as planned:
            exports_planned = exports.plan(loaded)  # every plan before any write
            with _Records(loaded.translations, planned.lock, date=today(clock.first()), options=options) as records:
                exported = exports_planned.write()
                result = planned.write(later, meanwhile=records.ready)
                written = records.put()
        result.exports.extend(exported.outputs)
        result.warnings.extend(exported.warnings)
        result.lock_written = written is not None
        if written is not None:  # its digest is known: the record need not read some megabytes again
            state.digests.wrote(options.decks / LOCK_FILE, written, planned.lock.sha.hex())
        # The next build that may write the lock still has it to tidy: this one must not be taken for it.
        result.lock_untidy = options.leaves_bank and planned.lock.changed
        if not (options.dry_run or result.lock_untidy):
            state.record(result, loaded.used, loaded.read_as)
        outlive(loaded, packages, planned)  # the command ends at once: not freed as the build returns
        return result


class _Records:
    """The records kept beside the bank, the translations record then the lock, put in place after the packages.

    Each is written to its temporary file, on disk, while the packages are made (see :class:`.atomic.Ahead`):
    after them, each only has its name to take (some 10 ms less). Should the build stop first, they are removed.
    """

    def __init__(self, seen: Seen, lock: LockPlan, *, date: str, options: BuildOptions) -> None:
        self._lock, self._options = lock, options
        self._seen = Ahead(lambda: ready_seen(seen.text(date), options))
        self._ahead = lock.ahead(options)

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
