"""One question file, loaded, validated and rendered: the unit of caching and of parallel work.

A question file's notes depend on its own bytes, the bank's settings, the
images it shows and the languages built, and on nothing else. That work is
looked up in the cache by a digest of exactly those inputs, and what is not
found is done on every core when there is enough of it.
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import json
import os
import re
import sys
from array import array
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import cached_property, partial
from itertools import accumulate, chain, repeat
from operator import itemgetter
from pathlib import Path
from typing import Any, NamedTuple, Protocol, overload

from .. import paths
from ..cache import (
    Cache,
    DamagedEntry,
    digest,
    file_sha,
    named_rows,
    pack,
    packed_digest,
    plain_bytes,
    plain_data,
    repeated,
    runs,
    text_columns,
    texts_of,
    unpack,
    unpack_views,
)
from ..errors import CacheChangedError, Problem, Problems, Severity
from ..forked import Forked, can_fork, in_order, pool_ended
from ..kinds import KINDS, Kind
from ..kinds.base import Fact
from ..kinds.checks import FileChecks
from ..memory import give_back_large_blocks
from ..model import Bank, Deck, Place, Question
from ..progress import Progress, silent
from ..text.media import Media, MediaFile
from ..translations.record import TextRef, current_block, question_refs
from ..version import code_fingerprint
from ..yamlfiles import reader
from ..yamlfiles.reader import Map, parse_file, read, read_pending
from . import spans
from .earlier import Earlier, Given
from .render import NoteHead, RenderedNote
from .validate import Questions, deck_key, validate_deck_file

#: Below this many bytes to parse, starting processes costs more than it saves.
PARALLEL_BYTES = 2 * 1024 * 1024
#: A language's texts of one file up to this size are decoded at once and held while they are read.
HELD_TEXTS = 4 * 1024 * 1024


class QuestionRef(NamedTuple):
    """A question's id and where it starts in its file."""

    id: str
    line: int
    column: int


@dataclass(frozen=True)
class FileResult:
    """What one question file contributes to a build."""

    #: The sha256 of the bytes it was made from.
    sha: str
    deck: Deck | None
    problems: tuple[Problem, ...]
    #: Its notes without their texts, by language in the order built, then in the file's order.
    notes: tuple[NoteHead, ...]
    #: Each language's note texts (fields and tags, in the order of ``notes``), packed:
    #: a build unpacks only those of the packages it makes.
    texts: Mapping[str, bytes]
    #: The images its notes show, by packaged name.
    media: Mapping[str, bytes]
    #: Every image path its texts refer to, shown or not, with a digest of its content
    #: (None where there was no file): a cached result is only valid while these hold.
    referenced: Mapping[Path, str | None]
    #: Its questions (the deck's own list of them is left out of a build's results).
    questions: tuple[QuestionRef, ...] = ()
    #: The digest of its texts as packed for the cache, which keeps them apart (see :func:`packed_digest`).
    texts_sha: str = ""
    #: A digest of each question's text in every language it has, to tell translations that fell behind
    #: (restored from the cache, they are read only when asked for: see :meth:`translated_of`).
    translated: Iterable[TextRef] = ()
    #: Each question's block of the translations record when every translation is current.
    blocks: tuple[tuple[str, str], ...] = ()
    #: What the item-writing checks across the bank need of each of its questions, by the name of its kind.
    facts: Mapping[str, Sequence[Fact]] = field(default_factory=dict)
    #: Where this build wrote its notes, texts and all, as it processed the file, by language (see :class:`NoteSink`).
    rows: Mapping[str, Path] = field(default_factory=dict)
    #: The status of its file, taken before this build read it, when no one had hashed it before (see :mod:`.digests`).
    read_as: os.stat_result | None = None
    #: The digests of its bytes before its questions and of each question's (see :mod:`.spans`), when asked for:
    #: kept beside the result in the cache, for the next build to tell which questions an edit left alone.
    spans: bytes = b""

    def rendered(self, lang: str) -> Iterator[RenderedNote]:
        """Its notes in one language, with their texts."""
        if lang not in self.texts:
            return
        heads = [head for head in self.notes if head.lang == lang]
        for head, (fields, tags) in zip(heads, _note_texts(self.texts, lang, len(heads)), strict=True):
            yield RenderedNote.join(head, tuple(fields), tuple(tags))

    def translated_of(self, questions: Collection[str]) -> Iterable[TextRef]:
        """Its texts' digests of ``questions`` (see :attr:`translated`), in order.

        A build asks for those of the few questions whose translations fell behind, seldom in more
        than a file or two: the others' are never read from the cache (some 30,000 at 10,000 questions).
        """
        wanted = [question for question in map(itemgetter(0), self.questions) if question in questions]
        if not wanted:  # each is of one of its questions
            return ()
        if isinstance(self.translated, _PackedRefs):
            return self.translated.of(wanted)
        return [ref for ref in self.translated if ref.question in questions]

    def packed(self) -> bytes:
        """The result without its texts, for the cache (see :func:`restore`).

        Its texts' digests (see :attr:`translated`) follow its images, apart from the rest: they are read
        only when asked for.
        """
        deck = self.deck and [self.deck.key, self.deck.titles, _place(self.deck.place)]
        columns, texts = _text_columns(self)
        asked, places = _places(self)
        header = {
            "sha": self.sha,
            "deck": deck,
            "problems": [
                [p.file, p.line, p.column, p.message, p.hint, p.question, p.severity, p.check, p.detail, p.count]
                for p in self.problems
            ],
            "notes": _note_runs(self.notes),
            "media": list(self.media),
            "referenced": [[str(path), sha] for path, sha in self.referenced.items()],
            "questions": _columns(self.questions, len(QuestionRef._fields))[1:],
            "texts_sha": self.texts_sha,
            "columns": columns,
            "asked": asked,
            "facts": list(self.facts.items()),
        }
        return pack(header, [*texts, places, *self.media.values(), _pack_refs(self.translated)])


def _columns(rows: Iterable[Sequence[object]], width: int) -> list[list[object]]:
    """Rows of ``width`` items in columns (every first item, then every second...), for :func:`_columns_of`.

    Lists of strings restore several times quicker than a list per row, and a
    build restores every note, question and text of the bank.
    """
    return [list(column) for column in zip(*rows, strict=True)] or [[] for _ in range(width)]


def _columns_of(columns: object, *kinds: Callable[[Iterable[object]], bool]) -> list[list[Any]]:
    """What :func:`_columns` made of rows, each of whose columns passes its check of ``kinds``.

    Raises ValueError for columns of another shape or type: the cache folder may be shared.
    """
    if not isinstance(columns, list) or len(columns) != len(kinds):
        raise ValueError(f"not {len(kinds)} columns")
    if not all(isinstance(column, list) for column in columns) or len({len(column) for column in columns}) != 1:
        raise ValueError("columns of different lengths")
    if not all(kind(column) for kind, column in zip(kinds, columns, strict=True)):
        raise ValueError("columns of another type")
    return columns


def _rows_of(rows: object, *kinds: Callable[[Iterable[object]], bool]) -> list[list[Any]]:
    """``rows``, each a list of one value passing each check of ``kinds``. Raises ValueError for others."""
    if not isinstance(rows, list) or not all(isinstance(row, list) and len(row) == len(kinds) for row in rows):
        raise ValueError(f"not rows of {len(kinds)} values")
    if rows:
        _columns_of([list(column) for column in zip(*rows, strict=True)], *kinds)
    return rows


def _of(*types: type) -> Callable[[Iterable[object]], bool]:
    """A check that every value is of one of ``types`` exactly.

    A set of their types, made in C: a build restores every note of the bank, and a test per value costs more.
    """
    allowed = frozenset(types)
    return lambda values: set(map(type, values)) <= allowed


def _lists_of(items: Callable[[Iterable[object]], bool]) -> Callable[[Iterable[object]], bool]:
    """A check that every value is a list, of values that pass ``items``."""

    def check(values: Iterable[object]) -> bool:
        lists: list[Any] = list(values)
        return _LISTS(lists) and items(chain.from_iterable(lists))

    return check


def _kinds(values: Iterable[object]) -> bool:
    """Whether every value names a kind of question: a result names no other."""
    names = set(values)
    return _of(str)(names) and names <= KINDS.keys()


_TEXTS, _NUMBERS, _LISTS = _of(str), _of(int), _of(list)
#: A problem's values, as :meth:`FileResult.packed` packs them (its severity is :class:`Severity`'s value).
_PROBLEM = (_TEXTS, _NUMBERS, _NUMBERS, _TEXTS, _TEXTS, _TEXTS, _TEXTS, _TEXTS, _TEXTS, _NUMBERS)
#: A note's texts of its own (GUID, digest, checksums), by their place in :class:`NoteHead`; its question's id is
#: told by the question's place among the result's (see :func:`_places`).
_OWN = (0, 5, 6)
#: Those it nearly always shares with the notes before it (language, deck, images, kind, cards): kept in runs.
_SHARED = {2: _TEXTS, 3: _TEXTS, 4: _lists_of(_TEXTS), 7: _kinds, 8: _lists_of(_NUMBERS)}

#: The columns of texts of a result: its notes' own (see :data:`_OWN`), its questions' ids, its blocks.
_TEXT_COLUMNS = (len(_OWN), 1, 2)
#: What joins the texts of a column: no text of a valid result holds it (a block holds line breaks).
_SEP = "\0"


#: How many byte strings hold a result's columns (see :func:`_text_columns`, :func:`_places`): its images follow.
_COLUMN_BLOBS = sum(_TEXT_COLUMNS) + 1
#: An array's type of four bytes a number: the place of a note's question among the result's.
_PLACE = next(code for code in "IL" if array(code).itemsize == 4)


def _places(result: FileResult) -> tuple[list[str] | None, bytes]:
    """Where each note's question is among the result's questions, as 4 bytes each: the notes of a question share
    its id, restored once, not once per note. Should a note's question not be among them, the notes' questions
    instead, as a list (for :func:`_asked`)."""
    ids = {question.id: place for place, question in enumerate(result.questions)}
    asked = [note.question_id for note in result.notes]
    if not ids.keys() >= set(asked):
        return asked, b""
    places = array(_PLACE, map(ids.__getitem__, asked))
    if sys.byteorder == "big":  # the cache folder may be another machine's
        places.byteswap()
    return None, places.tobytes()


def _asked(listed: object, places: bytes | memoryview, ids: list[str]) -> list[str]:
    """The question of each note that :func:`_places` kept, of the result's questions ``ids``.

    Raises ValueError or IndexError for others.
    """
    if listed is not None:
        if not (isinstance(listed, list) and _TEXTS(listed)):
            raise ValueError("questions of notes that are not texts")
        return listed
    read = array(_PLACE)
    read.frombytes(places)
    if sys.byteorder == "big":
        read.byteswap()
    return list(map(ids.__getitem__, read))


def _text_columns(result: FileResult) -> tuple[list[object], list[bytes]]:
    """The columns of texts of ``result`` (see :data:`_TEXT_COLUMNS`), each a byte string, for :func:`_texts`.

    Split from one text, some 80,000 short texts of an edit's restored results come back several times quicker than
    JSON gives them, checked for their type by how they are made: an edit's build restores every other file's result.
    """
    notes: list[Any] = _columns(result.notes, len(NoteHead._fields))  # those of _OWN are texts
    questions: list[Any] = _columns(result.questions, len(QuestionRef._fields))
    blocks: list[Any] = _columns(result.blocks, 2)
    made = [text_columns(group, sep=_SEP) for group in ([notes[place] for place in _OWN], questions[:1], blocks)]
    return [said for said, _ in made], [blob for _, blobs in made for blob in blobs]


def _texts(said: object, blobs: Sequence[bytes | memoryview]) -> list[list[list[str]]]:
    """The columns of texts :func:`_text_columns` made, by group. Raises ValueError for others."""
    if not (isinstance(said, list) and len(said) == len(_TEXT_COLUMNS)):
        raise ValueError("not the columns of texts of a result")
    ends = list(accumulate(_TEXT_COLUMNS, initial=0))
    places = zip(said, ends[:-1], ends[1:], strict=True)
    groups = [texts_of(group, blobs[start:end], sep=_SEP) for group, start, end in places]
    if [len(group) for group in groups] != list(_TEXT_COLUMNS):
        raise ValueError("columns of texts of another number")
    return groups


def _place(place: Place) -> list[object]:
    return [str(place.path), place.line, place.column]


def restore(entry: tuple[Any, Sequence[bytes | memoryview]]) -> FileResult:
    """The result :meth:`FileResult.packed` packed. Raises :class:`DamagedEntry` for an entry of another shape.

    Its byte strings may be views of the entry read: only its images and its texts' digests are copied out.
    """
    header, blobs = entry
    try:
        own, (ids,), blocks = _texts(header["columns"], blobs)
        asked = _asked(header["asked"], blobs[sum(_TEXT_COLUMNS)], ids)
        *shown, translated = blobs[_COLUMN_BLOBS:]  # the images, then the texts' digests
        deck = _deck(header["deck"])
        problems = tuple(
            Problem(file, line, column, message, hint, question, Severity(severity), check, detail, count)
            for file, line, column, message, hint, question, severity, check, detail, count in _rows_of(
                header["problems"], *_PROBLEM
            )
        )
        if any(problem.count < 1 for problem in problems):
            raise ValueError("a problem that stands for none")
        shared = _shared_runs(header["notes"])
        notes = _notes(own, asked, shared)
        file = deck.place.path if deck is not None else Path()
        if not _TEXTS([header["sha"], header["texts_sha"], *header["media"]]):
            raise TypeError("a digest or an image's name is not a text")
        result = FileResult(
            header["sha"],
            deck,
            problems,
            notes,
            {},
            dict(zip(header["media"], map(bytes, shown), strict=True)),
            {Path(path): sha for path, sha in _rows_of(header["referenced"], _TEXTS, _of(str, type(None)))},
            tuple(named_rows(QuestionRef, ids, *_columns_of(header["questions"], _NUMBERS, _NUMBERS))),
            header["texts_sha"],
            _PackedRefs(file, bytes(translated)),
            tuple(zip(*blocks, strict=True)),
            _facts(header["facts"]),
        )
        _agreeing(ids, blocks[0], shared, media=header["media"], deck=deck)
    except (IndexError, KeyError, TypeError, ValueError) as err:
        raise DamagedEntry(f"a result of another shape ({err})") from err
    return result


def _agreeing(
    ids: list[str], blocks: list[str], shared: Mapping[int, Any], *, media: list[str], deck: Deck | None
) -> None:
    """Raises ValueError unless the parts of a result (its shapes checked) that name one another agree.

    The build looks up by name what they name: the texts' digests of a question whose block is not the one
    recorded, by the question of the block, among the result's questions; a note's deck by its key, and the
    images it shows among those of the bank's results. Checked on the columns of ids (of questions, of blocks) and
    the runs of the notes' values (``shared``, by place), in C: an edit's build restores every other file of the bank.
    """
    # A file whose questions make no deck (an id repeated in a file too large to read whole) keeps no block.
    if blocks != (ids if deck is not None else []):
        raise ValueError("blocks of other questions than the result's")
    keys, shown = shared[3][0], shared[4][0]
    if not set(keys) <= ({deck.key} if deck is not None else set()):
        raise ValueError("notes of another deck")
    if not set(chain.from_iterable(shown)) <= set(media):
        raise ValueError("notes that show an image the result does not hold")


def _facts(rows: object) -> dict[str, list[Fact]]:
    """Each kind's facts, each one its kind could have given (:meth:`Kind.holds`). Raises ValueError for others."""
    facts: dict[str, list[Fact]] = dict(_rows_of(rows, _kinds, _LISTS))
    if not all(KINDS[kind].holds(given) for kind, given in facts.items()):
        raise ValueError("facts of another shape")
    return facts


def _note_runs(notes: Sequence[NoteHead]) -> list[object]:
    """The columns of ``notes``'s values of :data:`_SHARED`, in runs (see :func:`.cache.runs`), for :func:`_notes`.

    A bank's notes of one language, deck and kind come together: each run is
    a value read once rather than once per note. Their own values are columns of texts (see :func:`_text_columns`).
    """
    columns = _columns(notes, len(NoteHead._fields))
    return [list(runs(columns[place])) for place in _SHARED]


def _shared_runs(runs_of: object) -> dict[int, Any]:
    """The runs :func:`_note_runs` made, by their place in :class:`NoteHead`, for :func:`_run_values` to check.

    Raises ValueError for other than one each.
    """
    if not (isinstance(runs_of, list) and len(runs_of) == len(_SHARED)):
        raise ValueError("not the runs of notes")
    return dict(zip(_SHARED, runs_of, strict=True))


def _notes(own_columns: list[list[str]], asked: list[str], shared_runs: Mapping[int, Any]) -> tuple[NoteHead, ...]:
    """The notes of their own values' columns of texts (see :data:`_OWN`), their questions (see :func:`_asked`) and
    the runs of their others (see :func:`_shared_runs`). Raises TypeError or ValueError for those of another shape."""
    own: dict[int, list[str]] = {**dict(zip(_OWN, own_columns, strict=True)), 1: asked}
    # A question's notes share its id (see _places), and a bank's notes a few languages, decks, kinds and card
    # lists: one object each, not one per note (some 6 MB at 10,000 questions).
    one: dict[Any, Any] = {}
    shared = {
        place: _run_values(shared_runs[place], check, length=len(own[0]), one=one) for place, check in _SHARED.items()
    }
    values = {**own, **shared}
    return tuple(named_rows(NoteHead, *(values[place] for place in range(len(NoteHead._fields)))))


def _run_values(
    column: object, check: Callable[[Iterable[object]], bool], *, length: int, one: dict[Any, Any]
) -> Iterable[Any]:
    """The ``length`` values of a column :func:`.cache.runs` packed, each run's value checked by ``check`` and made
    once (a list as a tuple), kept in ``one``. Raises TypeError or ValueError for runs of another shape or length."""
    if not (isinstance(column, list) and len(column) == 2):
        raise ValueError("not runs")
    values, counts = column
    if not (isinstance(values, list) and isinstance(counts, list) and check(values)):
        raise ValueError("runs of another type")
    made = [one.setdefault(value, value) for value in (tuple(v) if type(v) is list else v for v in values)]
    return repeated(made, counts, length=length)


def _deck(deck: object) -> Deck | None:
    """A result's deck, without its questions. Raises TypeError or ValueError for one of another shape."""
    if deck is None:
        return None
    key, titles, (path, line, column) = _rows_of([deck], _TEXTS, _of(dict), _LISTS)[0]
    if not (_TEXTS([key, path, *titles.values()]) and _NUMBERS([line, column])):
        raise TypeError("a deck of another type")
    return Deck(key, dict(titles), (), Place(Path(path), line, column))


def _pack_refs(refs: Iterable[TextRef]) -> bytes:
    """The digests of a file's texts (each of the file: its path is the deck's), for :func:`_text_refs`.

    A line each, its question, language, digest, line and column between tabs: one
    question's are found without reading the others'. Should a text hold a tab or a
    line break, which no valid question's does, they are JSON columns instead.
    """
    rows = [(q, lang, d, line, column) for q, lang, d, _, line, column in refs]
    text = "".join([f"{q}\t{lang}\t{d}\t{line}\t{column}\n" for q, lang, d, line, column in rows])
    if text.count("\n") == len(rows) and text.count("\t") == 4 * len(rows) and not text.startswith("["):
        return text.encode("utf-8", "surrogatepass")
    return plain_bytes(_columns(rows, 5))


def _text_refs(file: Path, packed: bytes) -> tuple[TextRef, ...]:
    """The digests of a file's texts :func:`_pack_refs` packed. Raises ValueError for others."""
    if not packed.startswith(b"["):
        if packed and not packed.endswith(b"\n"):
            raise ValueError("a line not ended")
        return _refs_in(file, packed.split(b"\n")[:-1])
    columns = _columns_of(plain_data(packed), _TEXTS, _TEXTS, _TEXTS, _NUMBERS, _NUMBERS)
    questions, langs, digests, lines, places = columns
    return tuple(named_rows(TextRef, questions, langs, digests, repeat(file, len(questions)), lines, places))


def _refs_in(file: Path, lines: Iterable[bytes]) -> tuple[TextRef, ...]:
    """The digests of texts of ``file`` in lines :func:`_pack_refs` wrote. Raises ValueError for others."""
    rows = [str(line, "utf-8", "surrogatepass").split("\t") for line in lines]
    if not rows:
        return ()
    questions, langs, digests, numbers, columns = zip(*rows, strict=True)
    places = repeat(file, len(questions))
    return tuple(named_rows(TextRef, questions, langs, digests, places, map(int, numbers), map(int, columns)))


def _lines_of(packed: bytes, question: str) -> Iterator[tuple[int, bytes]]:
    """Where each line of ``question`` starts in ``packed`` (lines :func:`_pack_refs` wrote), and the line."""
    key = f"\n{question}\t".encode("utf-8", "surrogatepass")
    starts = [0] if packed.startswith(key[1:]) else []  # the first line follows no line break
    found = packed.find(key)
    while found >= 0:
        starts.append(found + 1)
        found = packed.find(key, found + 1)
    for start in starts:
        yield start, packed[start : packed.index(b"\n", start)]


#: Above this many questions of one file asked for, reading all its texts' digests is as quick as finding theirs.
_FOUND_APART = 16


class _PackedRefs(Iterable[TextRef]):
    """The digests of a restored result's texts (see :attr:`FileResult.translated`), read when first asked for.

    Should they not be what a result packs (anyone who shares the cache folder may
    have written them), the file is processed again for them, when its recipe is known.
    """

    def __init__(self, file: Path, packed: bytes, *, recipe: _Recipe | None = None, sha: str = "") -> None:
        self._file, self._packed, self._recipe, self._sha = file, packed, recipe, sha

    def made_by(self, recipe: _Recipe, sha: str) -> _PackedRefs:
        """These digests, made again by ``recipe`` from the file's bytes of ``sha`` should they be damaged."""
        return _PackedRefs(self._file, self._packed, recipe=recipe, sha=sha)

    @cached_property
    def _refs(self) -> tuple[TextRef, ...]:
        try:
            return _text_refs(self._file, self._packed)
        except (TypeError, ValueError):
            return self._remade

    @cached_property
    def _remade(self) -> tuple[TextRef, ...]:
        if self._recipe is None:
            raise CacheChangedError("a question file's record in the cache was damaged: build again")
        return tuple(self._recipe.remade(self._sha)[0].translated)

    def __iter__(self) -> Iterator[TextRef]:
        return iter(self._refs)

    def of(self, questions: Sequence[str]) -> list[TextRef]:
        """Those of ``questions``, in order: the lines of a few questions are found and read alone.

        Every question has a text: digests without one of them are not the file's, which is read again.
        """
        wanted = set(questions)
        found = self._apart(questions) if len(questions) <= _FOUND_APART else None
        if found is None:
            found = [ref for ref in self._refs if ref.question in wanted]
        if {ref.question for ref in found} != wanted:
            found = [ref for ref in self._remade if ref.question in wanted]
        return found

    def _apart(self, questions: Sequence[str]) -> list[TextRef] | None:
        """The digests of ``questions``, their lines found and read alone; None when they cannot be."""
        packed = self._packed
        if not packed.endswith(b"\n") or packed.startswith(b"["):
            return None
        found = sorted(chain.from_iterable(_lines_of(packed, question) for question in questions))
        try:
            return list(_refs_in(self._file, (line for _, line in found)))
        except ValueError:  # lines of another shape
            return None


def _pack_texts(texts: Mapping[str, bytes]) -> bytes:
    return pack(list(texts), list(texts.values()))


def _unpack_texts(packed: bytes) -> dict[str, memoryview]:
    """Each language's texts, left in ``packed``: a package needs one language's, and copies only those."""
    langs, blobs = unpack_views(packed)
    if not isinstance(langs, list) or len(langs) != len(blobs):
        raise DamagedEntry("texts of another shape")
    return dict(zip(map(str, langs), blobs, strict=True))


def process(
    bank: Bank,
    path: Path,
    raw: bytes,
    *,
    langs: Sequence[str],
    keep_texts: bool = True,
    sink: NoteSink | None = None,
    earlier: Earlier | None = None,
    with_spans: bool = False,
) -> FileResult:
    """Validate and render one question file of ``bank`` (whose own decks are not needed).

    Each question is rendered and checked as it is read, and let go: what is kept
    of it is its notes without their texts, the texts packed, and what the checks
    across questions need. Without ``keep_texts`` the deck comes without its
    questions (their ids and places are in the result's ``questions``): once
    rendered into notes, a build needs nothing else of them, and they are most
    of a large bank's memory. With a ``sink``, each note is written there as
    it is rendered, and the result tells where (see :attr:`FileResult.rows`).
    The questions that ``earlier`` tells are as the file last had them are not rendered and checked
    again (see :mod:`.earlier`); ``with_spans`` gives the result the digests that tell it the next time.
    """
    # A question id twice in one file is told with where it was first, which the checks of a deck
    # read whole give. Such a file is read whole, unless too large.
    process_as = partial(
        _process, bank, path, raw, langs=langs, keep_texts=keep_texts, sink=sink, with_spans=with_spans
    )
    result, repeated = process_as(streamed=True, earlier=earlier)
    if repeated is not None and len(raw) > paths.MAX_FILE_BYTES:
        return replace(result, problems=(_repeated_in_large(path, repeated, result.questions),))
    if repeated is not None:
        result, _ = process_as(streamed=False, earlier=None)
    return result


def _repeated_in_large(path: Path, question: Question, before: Sequence[QuestionRef]) -> Problem:
    """The error of a question id written twice in a file too large to be read whole."""
    first = next(ref for ref in before if ref.id == question.id)
    problems = Problems()
    problems.add(
        path,
        f"duplicate question id '{question.id}' (first at line {first.line}) in a file larger than"
        f" {paths.size_of(paths.MAX_FILE_BYTES)}, whose questions are read one at a time",
        line=question.place.line,
        column=question.place.column,
        question=question.id,
        hint="give this question its own id; the other one keeps it, as classmates' notes use it",
    )
    return problems.items[0]


def _process(
    bank: Bank,
    path: Path,
    raw: bytes,
    *,
    langs: Sequence[str],
    keep_texts: bool,
    streamed: bool,
    sink: NoteSink | None,
    earlier: Earlier | None,
    with_spans: bool,
) -> tuple[FileResult, Question | None]:
    """:func:`process`, its questions taken as they are read when ``streamed``; and the first whose id repeated then."""
    problems = Problems()
    sha = hashlib.sha256(raw).hexdigest()
    work = _FileWork(bank, path, langs, sink=sink, earlier=_Recalled(earlier, raw) if earlier else None)
    try:
        read = Questions(path, bank, then=work.take, keep=keep_texts or not streamed)
        file = parse_file(path, raw, problems, take=work.reader(read) if streamed else None)
        work.read_all()
        deck = validate_deck_file(file, bank, problems, read=read)
        if deck is None:
            return FileResult(sha, None, tuple(problems.items), (), {}, {}, {}), None
        if work.repeated is not None:
            return FileResult(sha, None, (), (), {}, {}, {}, tuple(work.questions)), work.repeated
        if not file.handed_over:  # what was taken is not the file's: its questions are those of the deck
            work.drop()
            work = _FileWork(bank, path, langs, sink=sink)
            work.whole(deck.questions, deck.drafts)
        if not keep_texts:
            deck = replace(deck, questions=(), drafts=())
        result = work.result(sha, deck, problems)
        return replace(result, spans=spans.digests(raw, work.items, result.questions)) if with_spans else result, None
    finally:
        work.drop()  # the notes written of work that did not become the result (none once it did)


def _unread(data: Map, item: Any, where: tuple[int, int]) -> None:
    """What reads the questions of a file before it is read, and after."""


class _FileWork:
    """One question file's questions rendered and checked one at a time, with what is kept of them.

    Each stage's problems are kept apart and joined at the end in the order the
    stages would give them over the whole file: the file's own and its questions',
    then each language's notes, the invalid questions' texts, each kind's
    item-writing checks (each question's, those across the file, then the missing
    explanations) and the right-to-left texts. Images too are kept per language,
    and joined in language order, as a package lists them.
    """

    def __init__(
        self,
        bank: Bank,
        path: Path,
        langs: Sequence[str],
        *,
        sink: NoteSink | None = None,
        earlier: _Recalled | None = None,
    ) -> None:
        # The renderers are loaded by a process that processes a file, not by a build whose files are restored
        # (after one edit, a worker processes it: see _Computing.start); bound here, not looked up for each note.
        from ..text.bidi import check_question
        from .fields import render_note

        self._render_note, self._check_bidi = render_note, check_question
        self.bank, self.path, self.langs = bank, path, langs
        self.earlier = earlier
        self._read: reader.Take = _unread  # what validates a question and hands it to take
        self._waiting: tuple[Map, Any, tuple[int, int]] | None = None  # read; where it ends is not known yet
        #: Where each question read began, valid or not: where each one's bytes end (see :mod:`.spans`).
        self.items = _Places()
        self.written = sink.file() if sink is not None else None
        self.key = deck_key(bank, path)
        self.media = Media(bank.root)
        self.shown = {lang: _Shown(self.media) for lang in (*langs, "")}  # "": the invalid questions'
        self.rendering = {lang: Problems() for lang in (*langs, "")}
        self.heads: dict[str, list[NoteHead]] = {lang: [] for lang in langs}
        self.texts = {lang: _Texts() for lang in langs}
        self.kinds: dict[str, _KindChecks] = {}
        self.right_to_left = Problems()
        self.questions: list[QuestionRef] = []
        self.translated: list[TextRef] = []
        self.blocks: list[tuple[str, str]] = []
        self.repeated: Question | None = None  # the first question whose id repeated
        self._ids: set[str] = set()

    def reader(self, read: Questions) -> reader.Take:
        """What reads the file's questions as they are parsed: ``read`` (which validates each and hands it to
        :meth:`take`), after noting where each begins; with what the file gave before, each waits until the
        next one begins: only then are its bytes known, which tell whether it is as it was (see :class:`_Recalled`).
        """
        self._read = read
        return self._item if self.earlier is not None else self._noted

    def _noted(self, data: Map, item: Any, where: tuple[int, int]) -> None:
        self.items.append(where)
        self._read(data, item, where)

    def _item(self, data: Map, item: Any, where: tuple[int, int]) -> None:
        self.items.append(where)
        found = self.earlier is not None and self.earlier.begin(where)
        self.flush(ended=found)
        if found:
            self._waiting = (data, item, where)
        else:
            self.earlier = None
            self._read(data, item, where)

    def read_all(self) -> None:
        """The file parsed: the question waiting read, then the reader let go. It hands its questions to
        :meth:`take`: the two hold each other, which the collector, paused for the build, would never
        free, with every note's texts (the notes of a file of 20,000 questions: 110 MB)."""
        self.flush()
        self._read = _unread

    def flush(self, *, ended: bool = True) -> None:
        """Read the question waiting: given what it gave before if it is as it was, when where its bytes end is
        known (``ended``; at the end of the file, it is), and its id is not one read before; else validated."""
        if self._waiting is None:
            return
        data, item, where = self._waiting
        self._waiting = None
        qid = item.get("id") if isinstance(item, dict) else None  # as written: a valid one is a text
        given = self.earlier.given(qid, where) if self.earlier is not None and ended else None
        if given is None or type(qid) is not str or qid in self._ids or self.repeated:
            self._read(data, item, where)
            return
        self._ids.add(qid)
        self.again(qid, where, given)

    def take(self, question: Question, valid: bool) -> None:
        """A question as it is read: rendered and checked, unless an id repeated (see :func:`process`)."""
        if not valid:
            self.draft(question)
        elif question.id in self._ids or self.repeated:
            self.repeated = self.repeated or question
        else:
            self._ids.add(question.id)
            self._rendered_checked(question)

    def _rendered_checked(self, question: Question) -> None:
        """A valid question rendered, then checked with the fields of its translations."""
        fields = self.render(question)
        self.check(question, {lang: fields[lang] for lang in question.translations if lang in fields})

    def again(self, qid: str, where: tuple[int, int], given: Given) -> None:
        """A valid question as it was the last time: what it gave then, as :meth:`render` and :meth:`check` give it."""
        for note in given.notes:
            self.heads[note.lang].append(note.head)
            self.texts[note.lang].add(note.fields, note.tags)
            if self.written is not None:
                self.written.add(note)
        self.questions.append(QuestionRef(qid, *where))
        self.translated += given.refs
        self.blocks.append(given.block)
        kind = self._kind(given.notes[0].kind)
        if given.fact is not None:
            kind.facts.append(given.fact)

    def whole(self, questions: Sequence[Question], drafts: Sequence[Question]) -> None:
        """A file's questions, all read: each checked with its own fields, whatever other has its id."""
        for question in questions:
            self._rendered_checked(question)
        for draft in drafts:
            self.draft(draft)

    def render(self, question: Question) -> dict[str, tuple[str, ...]]:
        """A valid question's notes, kept without their texts, which are packed; its fields by language."""
        fields: dict[str, tuple[str, ...]] = {}
        for lang in self.langs:
            if lang in question.translations:
                note = self._note(question, lang, lang)
                self.heads[lang].append(note.head)
                self.texts[lang].add(note.fields, note.tags)
                if self.written is not None:
                    self.written.add(note)
                fields[lang] = note.fields
        self.questions.append(QuestionRef(question.id, question.place.line, question.place.column))
        self._check_bidi(self.path, question, self.right_to_left)
        refs = question_refs(self.path, question)
        self.translated += refs
        self.blocks.append(current_block(question, refs))
        return fields

    def drop(self) -> None:
        """Take back the notes written so far: the file's notes are not these."""
        if self.written is not None:
            self.written.drop()

    def draft(self, question: Question) -> None:
        """An invalid question, rendered for the problems of its texts alone."""
        for lang in question.translations.keys() & set(self.langs):
            self._note(question, lang, "")

    def _note(self, question: Question, lang: str, bucket: str) -> RenderedNote:
        """A question's note in ``lang``, its images and problems kept with those of ``bucket``."""
        return self._render_note(
            self.bank, self.key, question, lang=lang, media=self.shown[bucket], problems=self.rendering[bucket]
        )

    def check(self, question: Question, fields: Mapping[str, Sequence[str]]) -> None:
        """A valid question's item-writing checks, given its fields by language in the order of its translations."""
        self._kind(question.kind).question(question, fields)

    def _kind(self, name: str) -> _KindChecks:
        """The checks of a kind's questions, made when its first question comes: their problems come in that order."""
        kind = self.kinds.get(name)
        if kind is None:
            kind = self.kinds[name] = _KindChecks(KINDS[name], self.path, self.bank.shuffle)
        return kind

    def result(self, sha: str, deck: Deck, problems: Problems) -> FileResult:
        """What the file contributes, its problems after those of reading it (``problems``)."""
        for lang in (*self.langs, ""):
            problems.extend(self.rendering[lang].items)
        facts = {name: kind.end(deck.place, problems) for name, kind in self.kinds.items()}
        problems.extend(self.right_to_left.items)
        media: dict[str, bytes] = {}
        for shown in self.shown.values():
            media |= shown.files
        return FileResult(
            sha,
            deck,
            tuple(problems.items),
            tuple(chain.from_iterable(self.heads.values())),
            {lang: texts.packed() for lang, texts in self.texts.items()},
            media,
            {p: file_sha(p) for p in self.media.referenced},
            tuple(self.questions),
            translated=tuple(self.translated),
            blocks=tuple(self.blocks),
            facts=facts,
            rows=self.written.done() if self.written is not None else {},
        )


class _Places(Sequence[tuple[int, int]]):
    """Lines and columns, eight bytes each: a file of many broken questions holds a place of each."""

    def __init__(self) -> None:
        self._lines, self._columns = array("q"), array("q")

    def append(self, place: tuple[int, int]) -> None:
        self._lines.append(place[0])
        self._columns.append(place[1])

    def __len__(self) -> int:
        return len(self._lines)

    def __iter__(self) -> Iterator[tuple[int, int]]:
        return zip(self._lines, self._columns, strict=True)

    @overload
    def __getitem__(self, index: int) -> tuple[int, int]: ...

    @overload
    def __getitem__(self, index: slice) -> Sequence[tuple[int, int]]: ...

    def __getitem__(self, index: int | slice) -> tuple[int, int] | Sequence[tuple[int, int]]:
        if isinstance(index, slice):
            return list(zip(self._lines[index], self._columns[index], strict=True))
        return self._lines[index], self._columns[index]


class _Recalled:
    """What a file gave the last time (:class:`.earlier.Earlier`), with where its questions now begin."""

    def __init__(self, earlier: Earlier, raw: bytes) -> None:
        self._earlier, self._spans = earlier, spans.Spans(raw)
        self._head: bytes | None = None
        self._taken = 0  # questions read so far: the next one's bytes are the next span

    def begin(self, where: tuple[int, int]) -> bool:
        """Find where a question begins: whether its bytes, and those of the others after it, can be told."""
        return self._spans.begin(*where)

    def given(self, qid: object, where: tuple[int, int]) -> Given | None:
        """What the next question read (of id ``qid``, as written) gave the last time, if it is as it was (where it
        ends is known)."""
        index, self._taken = self._taken, self._taken + 1
        if self._head is None:
            self._head = self._spans.head()
        if type(qid) is not str:  # each question read is counted, given or not: the next one's bytes are the next
            return None
        return self._earlier.of(qid, where, span=self._spans.digest(index), head=self._head)


class _KindChecks:
    """The item-writing checks of one kind's questions of a file, their problems kept apart until its end."""

    def __init__(self, kind: Kind, path: Path, shuffle: bool) -> None:
        self.kind, self.shuffle = kind, shuffle
        # The file's place is only that of the checks across its questions, made at its end.
        self.own = FileChecks(Place(path, 0, 0), Problems(), shuffle)
        self.unexplained = FileChecks(Place(path, 0, 0), Problems(), shuffle)
        self.facts: list[Fact] = []

    def question(self, question: Question, fields: Mapping[str, Sequence[str]]) -> None:
        fact = self.kind.check_question(self.own, question, fields)
        if fact is not None:
            self.facts.append(fact)
        if self.kind.wants_explanation:
            self.unexplained.explained(question)

    def end(self, place: Place, problems: Problems) -> list[Fact]:
        """Report its problems into ``problems``: each question's, those across the file, then the explanations."""
        problems.extend(self.own.problems.items)
        self.kind.check_end(FileChecks(place, problems, self.shuffle), self.facts)
        problems.extend(self.unexplained.problems.items)
        return self.facts


class _Shown(Media):
    """The images one language's notes show, in the order they first do; each read once, by ``shared``."""

    def __init__(self, shared: Media) -> None:
        super().__init__(shared.root)
        self._shared = shared
        self._files: dict[str, bytes] = {}

    @property
    def files(self) -> dict[str, bytes]:
        return self._files

    def image(self, reference: str, folder: Path) -> MediaFile:
        file = self._shared.image(reference, folder)
        self._files[file.name] = file.content
        return file


class _Texts:
    """One language's note texts, each note's fields and tags, a line each, appended as they come.

    A line a note: a build reads a large file's texts back one note at a time (see :func:`_checked`).
    A line is the fields, each after :data:`_FIELD`, then :data:`_TAGS` and the tags between :data:`_FIELD`:
    joined, as no text a bank writes holds these (:data:`~ankibuild.yamlfiles.checker.CONTROL` refuses
    them). A note whose texts hold one, or a line break, is a line of JSON instead, which starts with ``[``.
    Joining is about twice as quick as JSON, which looks at every character to escape it.
    """

    def __init__(self) -> None:
        self._out = io.BytesIO()

    def add(self, fields: Sequence[str], tags: Sequence[str]) -> None:
        line = _FIELD + _FIELD.join(fields) + _TAGS + _FIELD.join(tags)
        joins = len(fields) + max(len(tags) - 1, 0)
        if line.count(_FIELD) != joins or line.count(_TAGS) != 1 or "\n" in line or "" in tags:
            line = _JSON.encode((fields, tags))  # JSON writes a line break in a text as \n
        self._out.write(line.encode() + b"\n")

    def packed(self) -> bytes:
        return self._out.getvalue()


_FIELD, _TAGS = "\x1f", "\x1e"
_JSON = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"))


def _note_line(line: bytes) -> list[list[str]]:
    """A note's fields and tags from its line of :class:`_Texts`. Raises ValueError for a line of another shape."""
    text = line.decode()
    if not text.startswith(_FIELD):
        texts: list[list[str]] = plain_data(text)
        if not _is_note_texts(texts):
            raise ValueError("texts of another shape")
        return texts
    fields, joined, tags = text[1:].partition(_TAGS)
    if not joined:
        raise ValueError("texts of another shape")
    return [fields.split(_FIELD), tags.split(_FIELD) if tags else []]


class FileNotes(Protocol):
    """Where one question file's notes are written as they are rendered (see :class:`NoteSink`)."""

    def add(self, note: RenderedNote) -> None: ...

    def done(self) -> Mapping[str, Path]:
        """Keep the notes added: where they are, by language."""
        ...

    def drop(self) -> None:
        """Take back the notes added since the last :meth:`done`."""
        ...


class NoteSink(Protocol):
    """What a build does with each question file processed anew, in the process that processes it (a
    worker, or this one): it writes its notes somewhere as they are rendered, and tells where."""

    def file(self) -> FileNotes: ...


def _packed(result: FileResult) -> tuple[bytes, bytes]:
    """A result of :func:`process` for a build, packed for the cache (and, from a worker, for the way back).

    The result and its texts are packed apart: a build restores every file's
    result, but the texts only of those whose notes go into a package anew.
    """
    texts = _pack_texts(result.texts)
    result = replace(result, texts={}, texts_sha=packed_digest(texts))  # the texts, now packed, are let go
    return result.packed(), texts


@dataclass(frozen=True)
class _Recipe:
    """How a question file's cached result was made, to make it again if its texts are lost."""

    bank: Bank
    path: Path
    langs: Sequence[str]
    cache: Cache
    #: Its key in the cache: "" until the file is read, for a recipe made before (see :meth:`of`).
    key: str
    #: What the key is made of besides the file's place and bytes (see :func:`_context`), for such a recipe.
    context: str = ""
    #: The file's real place (see :func:`_real_place`), found once for every key made of it.
    place: str = field(kw_only=True)

    def of(self, sha: str) -> _Recipe:
        """The recipe of the file's bytes of ``sha``: one made before they were read is given its key."""
        return self if self.key or not sha else replace(self, key=_key(self.context, self.place, sha))

    def remake(self, sha: str) -> bytes:
        """Process the file again and store it; its bytes must still be those of ``sha``. Its texts, packed."""
        return self.remade(sha)[1]

    def remade(self, sha: str) -> tuple[FileResult, bytes]:
        """:meth:`remake`: the file's result (with its texts' digests), and its texts, packed."""
        result = _process_again(self.bank, self.path, sha, langs=self.langs)
        packed, texts = _packed(result)
        self.store(packed, texts)
        return result, texts

    def store(self, packed: bytes, texts: bytes, *, spans: bytes = b"") -> None:
        """Keep the file's result and texts, packed, in the cache; with ``spans``, as the file's last."""
        self.cache.put(self.key, packed)
        self.cache.put(_texts_key(self.key), texts)
        if spans and self.context:
            self.cache.put(_last_key(self.context, self.place), pack([self.key], [spans]))

    def recalled(self) -> Earlier | None:
        """What the file gave when it was last processed in this context, if the cache still holds it all."""
        if not self.context:
            return None
        last = self.cache.get_bytes(_last_key(self.context, self.place))
        try:
            return _earlier(self, last) if last is not None else None
        except (DamagedEntry, CacheChangedError, KeyError, TypeError, ValueError):  # only nothing recalled
            return None


def _earlier(recipe: _Recipe, last: bytes) -> Earlier | None:
    """What the file's last result (``last`` names it) says of its questions. Raises DamagedEntry,
    CacheChangedError, KeyError, TypeError or ValueError for entries of another shape: the cache folder
    may be shared."""
    (key,), (spans,) = unpack(last)
    if not (isinstance(key, str) and _KEY.fullmatch(key)):  # a name of an entry in the cache folder, and no other
        return None
    entry, packed = recipe.cache.get_bytes(key), recipe.cache.get_bytes(_texts_key(key))
    if entry is None or packed is None:
        return None
    result = restore(unpack_views(entry))
    # Made in this context, from the bytes it names (of another file, should someone have written it so).
    if key != _key(recipe.context, recipe.place, result.sha) or packed_digest(packed) != result.texts_sha:
        return None
    if result.deck is None or result.media or result.referenced:
        return None
    texts = {lang: bytes(blob) for lang, blob in _unpack_texts(packed).items()}
    notes = chain.from_iterable(map(replace(result, texts=texts).rendered, recipe.langs))
    return Earlier.of_result(
        result.questions,
        notes,
        refs=tuple(result.translated),  # read here, where damaged ones are only nothing recalled
        blocks=result.blocks,
        facts=result.facts,
        problems=result.problems,
        spans=spans,
    )


def _process_again(
    bank: Bank,
    path: Path,
    sha: str,
    *,
    langs: Sequence[str],
    sink: NoteSink | None = None,
    earlier: Earlier | None = None,
    with_spans: bool = False,
) -> FileResult:
    """:func:`process` for a build of a file read once already, whose bytes must still be those of ``sha``
    (unless it is "": a file no one hashed before, whose result carries the digest of the bytes read here)."""
    read_as = None
    if not sha:  # before reading: what is read is at least as new (see :mod:`.digests`)
        with contextlib.suppress(OSError):
            read_as = path.stat()
    raw = read(path, Problems(), (bank.root,), limit=paths.MAX_STREAMED_BYTES)
    if raw is None or (sha and hashlib.sha256(raw).hexdigest() != sha):
        raise CacheChangedError(f"{path} changed during the build: build again")
    result = process(bank, path, raw, langs=langs, keep_texts=False, sink=sink, earlier=earlier, with_spans=with_spans)
    return replace(result, read_as=read_as)


def _note_texts(texts: Mapping[str, bytes], lang: str, count: int) -> Iterable[list[list[str]]]:
    """A language's texts of ``count`` notes: each note's fields and tags.

    Texts read from the cache that are not that (anyone who shares the cache
    folder may have written them) are made again from the file.
    """
    try:
        return _checked(texts[lang], count)
    except ValueError:
        if not isinstance(texts, _CachedTexts):
            raise
    try:
        return _checked(bytes(texts.remade()[lang]), count)
    except ValueError:  # the result's notes were not the file's either: it is made again next time
        raise CacheChangedError("a question file's record in the cache was damaged: build again") from None


def _checked(blob: bytes, count: int) -> Iterable[list[list[str]]]:
    """The texts of ``count`` notes, a line each (see :class:`_Texts`). Raises ValueError for others.

    Those of a large file are each decoded as they are read, after a first reading that
    checks them all: held decoded, they would take several times their size.
    """
    if (blob and not blob.endswith(b"\n")) or blob.count(b"\n") != count:
        raise ValueError("texts of another shape")
    if len(blob) <= HELD_TEXTS:
        return [_note_line(line) for line in blob.split(b"\n")[:-1]]
    for _ in map(_note_line, _lines(blob)):
        pass
    return map(_note_line, _lines(blob))


def _lines(blob: bytes) -> Iterator[bytes]:
    """The lines of ``blob``, each ended by a line break (which is left out)."""
    start = 0
    while start < len(blob):
        end = blob.index(b"\n", start)
        yield blob[start:end]
        start = end + 1


def _is_note_texts(item: object) -> bool:
    return (
        isinstance(item, list)
        and len(item) == 2
        and all(isinstance(part, list) and all(isinstance(text, str) for text in part) for part in item)
    )


class _CachedTexts(Mapping[str, bytes]):
    """A result's texts, read from the cache each time a package needs a language's.

    Nothing is held between reads: a build makes its packages a language at a
    time, and would otherwise hold every file's texts in every language at once.
    Texts that are gone (another build with other options forgot them) or not
    the ones the result was stored with are made again from the file.
    """

    def __init__(self, recipe: _Recipe, result: FileResult) -> None:
        self._recipe, self._result = recipe, result

    def _texts(self) -> Mapping[str, memoryview]:
        packed = self._recipe.cache.get_bytes(_texts_key(self._recipe.key))
        # Unpacking checks the texts against their digest: the same digest is the same texts.
        if packed is not None and packed_digest(packed) == self._result.texts_sha:
            with contextlib.suppress(DamagedEntry):
                return _unpack_texts(packed)
        return self.remade()

    def __getitem__(self, lang: str) -> bytes:
        return bytes(self._texts()[lang])

    def remade(self) -> Mapping[str, memoryview]:
        """The texts made again from the file, whatever the cache holds."""
        return _unpack_texts(self._recipe.remake(self._result.sha))

    def __contains__(self, lang: object) -> bool:
        return lang in self._recipe.langs

    def __iter__(self) -> Iterator[str]:
        return iter(self._recipe.langs)

    def __len__(self) -> int:
        return len(self._recipe.langs)


def _context(bank: Bank, bank_raw: bytes, langs: Sequence[str]) -> str:
    """Everything besides a file's own place and bytes, and its images, that its result depends on."""
    # Problems name files relative to the working folder: a result is only valid from there.
    words = (part for lang, said in sorted(bank.report_words.items()) for part in (lang, said))
    # libyaml and PyYAML's own parser word a file's problems apart: a cache shared by machines with and
    # without libyaml keeps the results of each.
    parser = reader.PARSER.__name__
    return digest(code_fingerprint(), parser, str(Path.cwd()), str(bank.root.resolve()), bank_raw, *langs, *words)


def _still_valid(result: FileResult) -> bool:
    """A cached result holds while every image it referred to is as it was (or still missing)."""
    return all(file_sha(path) == sha for path, sha in result.referenced.items())


def process_all(
    bank: Bank,
    bank_raw: bytes,
    files: Sequence[Path],
    *,
    langs: Sequence[str],
    problems: Problems,
    pending: Mapping[Path, bytes],
    cache: Cache | None,
    progress: Progress = silent,
    known: Mapping[Path, str] | None = None,
    hashed: Collection[Path] = (),
    sink: NoteSink | None = None,
    meanwhile: Callable[[], object] = lambda: None,
) -> dict[Path, FileResult]:
    """Every readable question file's result, in order.

    With a ``cache`` (a build), results are looked up there first, what is missing
    is computed (in parallel if large), given to ``sink`` and stored, and texts are left out.
    Without one (checking a bank about to be written), everything is computed here.
    ``known`` has the sha256 of files just read: those found in the cache under
    it are not read again, nor those of ``hashed`` (whose sha256 was taken from
    their bytes, not recalled) before they are processed. ``meanwhile`` is done while the files are processed.
    """
    if cache is None:
        raws = {
            path: read_pending(path, pending, problems, root=bank.root, limit=paths.MAX_STREAMED_BYTES)
            for path in files
        }
        return {path: process(bank, path, raw, langs=langs) for path, raw in raws.items() if raw is not None}
    context = _context(bank, bank_raw, langs)
    recipes: dict[Path, _Recipe] = {}
    stored: dict[Path, bytes] = {}
    missing: dict[Path, _Job] = {}
    places = {path: _real_place(path) for path in files}
    # Nothing to look up (a first build, an emptied cache): each file is hashed by the process that reads it to
    # process it, not read twice, and its result carries the digest of the bytes read.
    fresh = cache.empty()
    for path in files:
        sha = None if fresh else (known or {}).get(path)
        # Keyed once the file's digest is known.
        recipe = _Recipe(bank, path, langs, cache, "", context=context, place=places[path])
        if job := _look_up(
            recipe,
            sha,
            hashed=path in hashed,
            fresh=fresh,
            pending=pending,
            problems=problems,
            recipes=recipes,
            stored=stored,
        ):
            missing[path] = job
    # What is missing is processed on another core while what was stored is restored here: after one
    # edit, the file edited and the others' results take about as long.
    with _Computing.start(bank, missing, langs, sink=sink, meanwhile=bool(stored), recipes=recipes) as computing:
        meanwhile()
        found = {path: result for path, entry in stored.items() if (result := _restored(recipes[path], entry))}
        # A stored result that no longer holds (an image changed) is processed again, as a miss is.
        later: dict[Path, _Job] = {}
        for path in [path for path in stored if path not in found]:
            if job := _job(path, pending, problems, root=bank.root):
                key = _key(context, places[path], job.sha)
                recipe = _Recipe(bank, path, langs, cache, key, context=context, place=places[path])
                recipes[path], later[path] = recipe, job
        total = len(found) + len(missing) + len(later)
        with _Computing.start(bank, later, langs, sink=sink, meanwhile=False, recipes=recipes) as computing_later:
            for done, (path, (packed, rows, read_as)) in enumerate(chain(computing, computing_later), len(found) + 1):
                result = restore(unpack_views(packed))
                recipe = recipes[path] = recipes[path].of(result.sha)
                found[path] = replace(_backed(recipe, result), rows=rows, read_as=read_as)
                progress("files read", done, total)
    keys = [recipe.key for recipe in recipes.values()]
    cache.keep_only([*keys, *map(_texts_key, keys), *(_last_key(context, place) for place in places.values())])
    return {path: found[path] for path in files if path in found}


def _real_place(path: Path) -> str:
    """Where a question file really is: part of the keys of its result (see :func:`_key`, :func:`_last_key`).

    Found once per build: following each folder's links takes a system call per folder on the way.
    """
    return path.resolve().as_posix()


def _key(context: str, place: str, sha: str) -> str:
    # The file's place is part of its result: its deck key, its images' folder, its problems.
    return digest(context, place, sha)


def _texts_key(key: str) -> str:
    return digest(key, "texts")


#: What :func:`.cache.digest` gives: the name of an entry.
_KEY = re.compile(r"[0-9a-f]{40}")


def _last_key(context: str, place: str) -> str:
    """The key of what names the last result of the file at ``place`` (see :func:`_real_place`) in ``context`` (see
    :meth:`_Recipe.recalled`)."""
    return digest(context, place, "last")


def _look_up(
    recipe: _Recipe,
    sha: str | None,
    *,
    hashed: bool,
    fresh: bool,
    pending: Mapping[Path, bytes],
    problems: Problems,
    recipes: dict[Path, _Recipe],
    stored: dict[Path, bytes],
) -> _Job | None:
    """The job of processing a file, or None when the cache holds its result (put in ``stored``) or it cannot be read.

    ``sha`` is the digest of its bytes when known (taken from them if ``hashed``); else it is read and hashed here to
    be looked up, unless nothing is stored (``fresh``). ``recipes`` is given its recipe.
    """
    path, root = recipe.path, recipe.bank.root
    if fresh:
        job = _job(path, pending, problems, root=root, sha="")
        recipes[path] = recipe.of(job.sha if job else "")
        return job
    if sha and _stored(recipe.of(sha), recipes, stored):
        return None
    job = _job(path, pending, problems, root=root, sha=sha if hashed else None)
    return job if job and not _stored(recipe.of(job.sha), recipes, stored) else None


def _stored(recipe: _Recipe, recipes: dict[Path, _Recipe], stored: dict[Path, bytes]) -> bool:
    """Whether the cache holds something under the key of ``recipe``; it becomes the file's recipe either way."""
    recipes[recipe.path] = recipe
    entry = recipe.cache.get_bytes(recipe.key)
    if entry is not None:
        stored[recipe.path] = entry
    return entry is not None


def _restored(recipe: _Recipe, entry: bytes) -> FileResult | None:
    """The result of ``recipe`` stored as ``entry``, or None if it is damaged or no longer holds."""
    try:
        result = restore(unpack_views(entry))
    except DamagedEntry:  # only a miss
        return None
    # Made in this context from the bytes its key names: an entry of another file, or of the file's bytes before
    # an edit, written under this key is no result of these (the cache folder may be shared).
    if recipe.key != _key(recipe.context, recipe.place, result.sha) or not _still_valid(result):
        return None
    return _backed(recipe, result)


def _backed(recipe: _Recipe, result: FileResult) -> FileResult:
    """A result restored from the cache, what it left there read back when needed, made again by ``recipe``
    should that be damaged."""
    translated = result.translated
    if isinstance(translated, _PackedRefs):
        translated = translated.made_by(recipe, result.sha)
    # Its texts are read back from the cache a language at a time, as each package needs them.
    return replace(result, texts=_CachedTexts(recipe, result), translated=translated)


class _Job(NamedTuple):
    """A question file to process: the sha256 of its bytes, the bytes when they are only in memory, its size."""

    sha: str
    raw: bytes | None
    size: int


def _job(
    path: Path, pending: Mapping[Path, bytes], problems: Problems, *, root: Path, sha: str | None = None
) -> _Job | None:
    """A file to process, or None when it cannot be read.

    Its bytes are read again when its turn comes, unless they are only in memory:
    the bytes of every file waiting would cost as much memory as the bank. A file
    whose ``sha`` was just taken from its bytes (by the look at what changed) is not
    read here at all: its turn reads it, and stops the build if the bytes are no longer those.
    Nor is one whose ``sha`` is "": its turn reads and hashes it.
    """
    if sha is not None and path not in pending:
        size = reader.size(path, problems, (root,), limit=paths.MAX_STREAMED_BYTES)
        return None if size is None else _Job(sha, None, size)
    raw = read_pending(path, pending, problems, root=root, limit=paths.MAX_STREAMED_BYTES)
    if raw is None:
        return None
    return _Job(hashlib.sha256(raw).hexdigest(), raw if path in pending else None, len(raw))


#: A processed file's result, packed, where its notes were written, and its status when read (see FileResult.read_as).
_Done = tuple[bytes, Mapping[str, Path], os.stat_result | None]
#: Processes a question file (the path, the job, how to store it) where it is given to: here, or in a worker.
_Work = Callable[[Path, _Job, _Recipe], _Done]


def _process_job(
    path: Path, job: _Job, recipe: _Recipe, *, bank: Bank, langs: Sequence[str], sink: NoteSink | None
) -> _Done:
    """The file of ``job`` processed and stored by ``recipe``, by the process that processed it: its texts, most
    of what it packs, need not travel to the build's own process, which reads them back only after an edit."""
    earlier = recipe.recalled()
    if job.raw is not None:
        result = process(
            bank, path, job.raw, langs=langs, keep_texts=False, sink=sink, earlier=earlier, with_spans=True
        )
    else:
        result = _process_again(bank, path, job.sha, langs=langs, sink=sink, earlier=earlier, with_spans=True)
    packed, texts = _packed(result)
    recipe.of(result.sha).store(packed, texts, spans=result.spans)
    return packed, result.rows, result.read_as


class _Computing:
    """Question files being processed, from the moment they are started: their packed results, as each is done.

    A context: leaving it stops whatever is still running, by ``stop``, told whether the processing failed or
    was stopped before its end.
    """

    def __init__(
        self, results: Iterator[tuple[Path, _Done]], stop: Callable[[bool], None] = lambda failed: None
    ) -> None:
        self._results, self._stop = results, stop

    @classmethod
    def start(
        cls,
        bank: Bank,
        jobs: Mapping[Path, _Job],
        langs: Sequence[str],
        *,
        sink: NoteSink | None,
        meanwhile: bool,
        recipes: Mapping[Path, _Recipe],
    ) -> _Computing:
        """Start processing the files of ``jobs``: on two cores when there is enough to parse; in a process of its
        own, forked from this one, when this one has work to do ``meanwhile``; else here, as they are asked for.

        On two cores the largest files go first, so that neither worker is left with a large one at the end.
        """
        large = sum(job.size for job in jobs.values()) > PARALLEL_BYTES
        workers = min(len(jobs), os.cpu_count() or 1, 2 if large else 1)
        job = partial(_process_job, bank=bank, langs=langs, sink=sink)
        here = ((path, job(path, todo, recipes[path])) for path, todo in jobs.items())
        if workers > 1:
            return cls._on_workers(jobs, job, workers, recipes=recipes)
        if meanwhile and jobs and not large and can_fork():
            forked = Forked(lambda: list(here))
            return cls(_sent_or_made_here(forked, jobs, job, recipes=recipes), lambda failed: forked.stop())
        if large:  # one large file, processed here: its texts' blocks would stay resident while packages are made
            give_back_large_blocks()
        return cls(here)

    @classmethod
    def _on_workers(
        cls, jobs: Mapping[Path, _Job], job: _Work, workers: int, *, recipes: Mapping[Path, _Recipe]
    ) -> _Computing:
        import multiprocessing  # loaded only when there is this much to do, unlike after one edit
        from concurrent.futures import ProcessPoolExecutor

        # The renderers (see _FileWork), loaded here once rather than by each worker forked.
        from ..text import bidi  # noqa: F401
        from . import fields  # noqa: F401

        # Forked workers start at once and share what is loaded; elsewhere the default start method.
        context = multiprocessing.get_context("fork" if "fork" in multiprocessing.get_all_start_methods() else None)
        largest_first = sorted(jobs, key=lambda path: jobs[path].size, reverse=True)
        pool = ProcessPoolExecutor(workers, mp_context=context)
        packed = in_order(pool, job, largest_first, map(jobs.get, largest_first), map(recipes.get, largest_first))
        # The workers have started; this much to process makes packages as large, in this process.
        give_back_large_blocks()
        return cls(zip(largest_first, packed, strict=True), lambda failed: pool_ended(pool, failed=failed))

    def __iter__(self) -> Iterator[tuple[Path, _Done]]:
        return self._results

    def __enter__(self) -> _Computing:
        return self

    def __exit__(self, error: type[BaseException] | None, *_: object) -> None:
        self._stop(error is not None)


def _sent_or_made_here(
    forked: Forked, jobs: Mapping[Path, _Job], job: _Work, *, recipes: Mapping[Path, _Recipe]
) -> Iterator[tuple[Path, _Done]]:
    """What ``forked`` made of ``jobs``; if it failed, the jobs done here, which raise what made it fail."""
    sent = forked.answer()
    forked.wait()
    if not isinstance(sent, list):
        sent = [(path, job(path, todo, recipes[path])) for path, todo in jobs.items()]
    yield from sent
