"""One question file, loaded, validated and rendered: the unit of caching and of parallel work.

A question file's notes depend on its own bytes, the bank's settings, the
images it shows and the languages built, and on nothing else. That work is
looked up in the cache by a digest of exactly those inputs, and what is not
found is done on every core when there is enough of it.
"""

from __future__ import annotations

import multiprocessing
import os
from collections.abc import Mapping, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from .cache import Cache, digest
from .errors import Problem, Problems
from .loader import parse_source, read
from .media import Media, media_files
from .model import Bank, Deck
from .render import RenderedNote, render_note
from .validate import validate_deck_file
from .version import __version__

#: Below this many bytes to parse, starting processes costs more than it saves.
PARALLEL_BYTES = 2 * 1024 * 1024


@dataclass(frozen=True)
class FileResult:
    """What one question file contributes to a build."""

    deck: Deck | None
    problems: tuple[Problem, ...]
    #: Its notes, by language in the order built, then in the file's order.
    notes: tuple[RenderedNote, ...]
    #: The images its notes show, by packaged name.
    media: Mapping[str, bytes]
    #: Every image path its texts refer to, shown or not.
    referenced: frozenset[Path]


def process(bank: Bank, path: Path, raw: bytes, langs: Sequence[str]) -> FileResult:
    """Validate and render one question file of ``bank`` (whose own decks are not needed)."""
    problems = Problems()
    deck = validate_deck_file(parse_source(path, raw, problems), bank, problems)
    media = Media(bank.root)
    notes = (
        ()
        if deck is None
        else tuple(
            render_note(bank, deck.key, question, lang, media, problems)
            for lang in langs
            for question in deck.questions
            if lang in question.translations
        )
    )
    return FileResult(deck, tuple(problems.items), notes, media.files, media.referenced)


def _context(bank: Bank, bank_raw: bytes, langs: Sequence[str]) -> str:
    """Everything besides a file's own bytes that its result depends on."""
    images = [part for path in media_files(bank.root) for part in (str(path), path.read_bytes())]
    # Problems name files relative to the working folder: a result is only valid from there.
    return digest(__version__, str(Path.cwd()), str(bank.root.resolve()), bank_raw, *langs, *images)


def process_all(
    bank: Bank,
    bank_raw: bytes,
    files: Sequence[Path],
    langs: Sequence[str],
    problems: Problems,
    pending: Mapping[Path, bytes],
    cache: Cache | None,
) -> list[FileResult]:
    """Every question file's result, in order: from the cache, else computed (in parallel if large)."""
    context = _context(bank, bank_raw, langs)
    raws = {path: pending[path] if path in pending else read(path, problems) for path in files}
    keys = {path: digest(context, raw) for path, raw in raws.items() if raw is not None}
    found = {path: cache.get(key) for path, key in keys.items()} if cache else {}
    missing = [path for path in keys if found.get(path) is None]
    computed = _compute(bank, [(path, raws[path]) for path in missing], langs)
    if cache is not None:
        for path in missing:
            cache.put(keys[path], computed[path])
        cache.keep_only(keys.values())
    return [found.get(path) or computed[path] for path in keys]


def _compute(bank: Bank, work: list[tuple[Path, bytes | None]], langs: Sequence[str]) -> dict[Path, FileResult]:
    jobs = [(path, raw) for path, raw in work if raw is not None]
    workers = min(len(jobs), os.cpu_count() or 1, 2 if sum(len(raw) for _, raw in jobs) > PARALLEL_BYTES else 1)
    if workers <= 1:
        return {path: process(bank, path, raw, langs) for path, raw in jobs}
    # Forked workers start at once and share what is loaded; elsewhere the default start method.
    context = multiprocessing.get_context("fork" if "fork" in multiprocessing.get_all_start_methods() else None)
    with ProcessPoolExecutor(workers, mp_context=context) as pool:
        results = pool.map(process, *zip(*((bank, path, raw, langs) for path, raw in jobs), strict=True))
        return dict(zip((path for path, _ in jobs), results, strict=True))
