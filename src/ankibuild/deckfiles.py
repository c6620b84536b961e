"""One question file, loaded, validated and rendered: the unit of caching and of parallel work.

A question file's notes depend on its own bytes, the bank's settings, the
images it shows and the languages built, and on nothing else. That work is
looked up in the cache by a digest of exactly those inputs, and what is not
found is done on every core when there is enough of it.
"""

from __future__ import annotations

import multiprocessing
import os
from collections.abc import Iterator, Mapping, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, replace
from pathlib import Path

from .cache import Cache, digest, file_sha, pack, unpack
from .errors import Problem, Problems
from .loader import parse_source, read_pending
from .media import Media
from .model import Bank, Deck
from .progress import Progress, silent
from .render import RenderedNote, render_note
from .validate import validate_deck_file
from .version import code_fingerprint

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
    #: Every image path its texts refer to, shown or not, with a digest of its content
    #: (None where there was no file): a cached result is only valid while these hold.
    referenced: Mapping[Path, str | None]


def process(bank: Bank, path: Path, raw: bytes, langs: Sequence[str], keep_texts: bool = True) -> FileResult:
    """Validate and render one question file of ``bank`` (whose own decks are not needed).

    Without ``keep_texts`` the deck's questions come without their texts: once
    rendered into notes, a build needs only their ids and places, and the texts
    of a large bank are most of its memory.
    """
    problems = Problems()
    deck = validate_deck_file(parse_source(path, raw, problems), bank, problems)
    if deck is None:
        return FileResult(None, tuple(problems.items), (), {}, {})
    media = Media(bank.root)
    notes = tuple(
        render_note(bank, deck.key, question, lang, media, problems)
        for lang in langs
        for question in deck.questions
        if lang in question.translations
    )
    if not keep_texts:
        deck = replace(deck, questions=tuple(replace(q, translations={}) for q in deck.questions))
    return FileResult(deck, tuple(problems.items), notes, media.files, {p: file_sha(p) for p in media.referenced})


def _process_packed(bank: Bank, path: Path, raw: bytes, langs: Sequence[str]) -> bytes:
    """:func:`process` for a build, packed for the cache (and, from a worker, for the way back)."""
    return pack(process(bank, path, raw, langs, keep_texts=False))


def _context(bank: Bank, bank_raw: bytes, langs: Sequence[str]) -> str:
    """Everything besides a file's own place and bytes, and its images, that its result depends on."""
    # Problems name files relative to the working folder: a result is only valid from there.
    return digest(code_fingerprint(), str(Path.cwd()), str(bank.root.resolve()), bank_raw, *langs)


def _still_valid(result: FileResult | None) -> bool:
    """A cached result holds while every image it referred to is as it was (or still missing)."""
    return result is not None and all(file_sha(path) == sha for path, sha in result.referenced.items())


def process_all(
    bank: Bank,
    bank_raw: bytes,
    files: Sequence[Path],
    langs: Sequence[str],
    problems: Problems,
    pending: Mapping[Path, bytes],
    cache: Cache | None,
    progress: Progress = silent,
) -> list[FileResult]:
    """Every question file's result, in order.

    With a ``cache`` (a build), results are looked up there first, what is missing
    is computed (in parallel if large) and stored, and texts are left out.
    Without one (checking a bank about to be written), everything is computed here.
    """
    raws = {path: read_pending(path, pending, problems) for path in files}
    jobs = {path: raw for path, raw in raws.items() if raw is not None}
    if cache is None:
        return [process(bank, path, raw, langs) for path, raw in jobs.items()]
    context = _context(bank, bank_raw, langs)
    # The file's place is part of its result: its deck key, its images' folder, its problems.
    keys = {path: digest(context, path.resolve().as_posix(), raw) for path, raw in jobs.items()}
    found = {path: cache.get(key) for path, key in keys.items()}
    missing = {path: raw for path, raw in jobs.items() if not _still_valid(found[path])}
    for done, (path, packed) in enumerate(_compute(bank, missing, langs), start=len(jobs) - len(missing) + 1):
        cache.put(keys[path], packed)
        found[path] = unpack(packed)
        progress("files read", done, len(jobs))
    cache.keep_only(keys.values())
    return [found[path] for path in jobs]


def _compute(bank: Bank, jobs: Mapping[Path, bytes], langs: Sequence[str]) -> Iterator[tuple[Path, bytes]]:
    """Packed results of the files in ``jobs``, one at a time: on two cores when there is enough to parse."""
    workers = min(len(jobs), os.cpu_count() or 1, 2 if sum(map(len, jobs.values())) > PARALLEL_BYTES else 1)
    if workers <= 1:
        yield from ((path, _process_packed(bank, path, raw, langs)) for path, raw in jobs.items())
        return
    # Forked workers start at once and share what is loaded; elsewhere the default start method.
    context = multiprocessing.get_context("fork" if "fork" in multiprocessing.get_all_start_methods() else None)
    with ProcessPoolExecutor(workers, mp_context=context) as pool:
        args = [(bank, path, raw, langs) for path, raw in jobs.items()]
        yield from zip(jobs, pool.map(_process_packed, *zip(*args, strict=True)), strict=True)
