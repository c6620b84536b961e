"""``ankibuild.build``: the pipeline, behind a quick look at whether anything changed."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from .buildlock import DEFAULT_WAIT
from .collector import paused
from .options import BuildOptions
from .paths import DECKS, DIST
from .progress import Progress, silent
from .state import BuildResult, BuildState

if TYPE_CHECKING:
    from .lock.clock import Clock


def build(
    *,
    decks: Path = DECKS,
    templates: Path | None = None,
    out: Path = DIST,
    languages: Sequence[str] = (),
    split: bool = False,
    exports: Sequence[str] = (),
    strict: bool = False,
    frozen: bool = False,
    dry_run: bool = False,
    allow_shape_change: bool = False,
    wait: float = DEFAULT_WAIT,
    clock: Clock | None = None,
    progress: Progress = silent,
) -> BuildResult:
    """Build one ``.apkg`` per language (or per deck and language with ``split``).

    ``frozen`` refuses to build when the lock would change; ``dry_run`` computes
    everything and writes nothing (``--check`` uses it to tell if outputs would change).
    A build waits up to ``wait`` seconds for another build of the same bank to finish.
    When no file the last build read has changed and its packages are intact, the
    result is the last build's, found without loading the pipeline. ``progress``
    hears how many files were read and how many notes written, as the build goes.
    ``templates`` is the bank's own templates folder (default: ``templates/`` beside
    the bank folder, if there is one), laid over the templates shipped with ankibuild.
    ``exports`` names files for learning platforms to write beside the packages
    (``moodle-xml``, ``gift``, ``qti``), instead of those the bank's ``exports`` asks for.
    """
    options = BuildOptions(
        decks=decks,
        templates=templates,
        out=out,
        languages=tuple(languages),
        split=split,
        exports=tuple(exports),
        strict=strict,
        frozen=frozen,
        dry_run=dry_run,
        allow_shape_change=allow_shape_change,
        wait=wait,
    )
    return build_with(options, clock=clock, progress=progress)


def build_with(options: BuildOptions, *, clock: Clock | None = None, progress: Progress = silent) -> BuildResult:
    """The build :func:`build` describes, with its options made already."""
    state = BuildState(options)
    unchanged = state.unchanged()
    if unchanged is not None:
        return unchanged
    return built(options, state, clock=clock, progress=progress)


def built(
    options: BuildOptions, state: BuildState, *, clock: Clock | None = None, progress: Progress = silent
) -> BuildResult:
    """The build, once the quick look at ``state`` found something changed."""
    from .pipeline import run  # loaded only when there is work to do

    with paused():
        return run(options, state=state, clock=clock, progress=progress)
