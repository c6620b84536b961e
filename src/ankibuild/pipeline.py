"""The build: lock the bank, load it, plan each target, write, record.

Nothing is written unless the whole bank is valid and every target could plan
its output, and nothing is rewritten whose bytes would not change. The records
kept beside the bank come after the outputs: the translations record, then the
lock, last of all.
"""

from __future__ import annotations

from contextlib import nullcontext

from .anki.rows import note_rows
from .anki.target import AnkiTarget, deferred
from .buildlock import exclusive
from .commandline import outlive
from .export.target import ExportResult, ExportTarget
from .load.stage import load_all
from .lock.clock import Clock
from .lock.format import LOCK_FILE
from .options import BuildOptions
from .progress import Progress, silent
from .state import BuildResult, BuildState
from .target import Target
from .translations.record import record_seen, today


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
        )
        # The one package to make after an edit is made meanwhile: left unmade should this build stop.
        with packages.plan(loaded) as planned:
            exports_planned = exports.plan(loaded)  # every plan before any write
            seen = loaded.translations.text(today(clock.first()))
            exported = exports_planned.write()
            result = planned.write(later)
        result.exports.extend(exported.outputs)
        result.warnings.extend(exported.warnings)
        record_seen(seen, options)
        written = planned.lock.save(options)
        result.lock_written = written is not None
        if written is not None:  # its digest is known: the record need not read some megabytes again
            state.digests.wrote(options.decks / LOCK_FILE, written, planned.lock.sha.hex())
        # The next build that may write the lock still has it to tidy: this one must not be taken for it.
        result.lock_untidy = options.leaves_bank and planned.lock.changed
        if not (options.dry_run or result.lock_untidy):
            state.record(result, loaded.used, loaded.read_as)
        outlive(loaded, packages, planned)  # the command ends at once: not freed as the build returns
        return result
