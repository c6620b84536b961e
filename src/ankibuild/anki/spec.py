"""What one ``.apkg`` holds, short of the notes' texts, which are read only when needed."""

from __future__ import annotations

import hashlib
import json
import sys
from array import array
from collections.abc import Callable, Collection, Iterable, Iterator, Sequence
from dataclasses import dataclass
from functools import cached_property
from itertools import chain
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple, overload

from ..cache import named_rows
from ..version import code_fingerprint
from .preset import Preset

if TYPE_CHECKING:
    import genanki

#: The collection inside a package, as ankibuild (and genanki) write it.
COLLECTION = "collection.anki2"
#: A note's fields and tags.
Texts = tuple[tuple[str, ...], tuple[str, ...]]


class NoteKey(NamedTuple):
    """A note as a package holds it, short of its texts (which change only with its digest)."""

    guid: str
    #: Identifies the fields and tags (the note's digest in the lock).
    digest: str
    mtime: int
    deck_id: int
    notetype_id: int
    #: Its cards, by their place among its note type's card types.
    cards: tuple[int, ...]


class NoteKeys(Sequence[NoteKey]):
    """A package's notes, held as a column per field of :class:`NoteKey`: every GUID, every digest, and so on.

    Planning a package needs only the columns, each a pass in C (its digest, its
    newest time): made one by one, then taken apart into columns again for the
    digest, the notes of three languages of 10,000 questions took an edit's build
    some 14 ms more. A note is made when one is asked for, and all of them only
    where a package is made note by note, by the process that makes it.
    """

    def __init__(
        self,
        *,
        guids: tuple[str, ...],
        digests: tuple[str, ...],
        mtimes: tuple[int, ...],
        deck_ids: tuple[int, ...],
        notetype_ids: tuple[int, ...],
        cards: tuple[tuple[int, ...], ...],
    ) -> None:
        self.guids, self.digests, self.mtimes = guids, digests, mtimes
        self.deck_ids, self.notetype_ids, self.cards = deck_ids, notetype_ids, cards

    @classmethod
    def of(cls, notes: Iterable[NoteKey]) -> NoteKeys:
        """The notes ``notes``, in columns."""
        guids, digests, mtimes, deck_ids, notetype_ids, cards = tuple(zip(*notes, strict=True)) or ((),) * 6
        return cls(
            guids=guids, digests=digests, mtimes=mtimes, deck_ids=deck_ids, notetype_ids=notetype_ids, cards=cards
        )

    @property
    def columns(self) -> tuple[Sequence[Any], ...]:
        """A column per field of :class:`NoteKey`, in its order."""
        return self.guids, self.digests, self.mtimes, self.deck_ids, self.notetype_ids, self.cards

    def __len__(self) -> int:
        return len(self.guids)

    @overload
    def __getitem__(self, index: int) -> NoteKey: ...

    @overload
    def __getitem__(self, index: slice) -> list[NoteKey]: ...

    def __getitem__(self, index: int | slice) -> NoteKey | list[NoteKey]:
        if isinstance(index, slice):
            return self._rows[index]
        # One note alone (one of the few an edit changed) is made from the columns, not all of them first.
        return NoteKey(*(column[index] for column in self.columns))

    def __iter__(self) -> Iterator[NoteKey]:
        return iter(self._rows)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, NoteKeys):
            return NotImplemented
        return self.columns == other.columns

    __hash__ = None  # type: ignore[assignment]  # compared by its values, so never hashed, as the list it replaced

    def __repr__(self) -> str:
        return f"{type(self).__name__}.of({self._rows!r})"

    @cached_property
    def _rows(self) -> list[NoteKey]:
        return list(named_rows(NoteKey, *self.columns))


#: Notes with their positions in a package, counted from 1.
Placed = list[tuple[int, NoteKey]]


class Unlike(NamedTuple):
    """The notes of a package as made before and now, with their positions: those that differ."""

    was: Placed
    now: Placed


@dataclass(frozen=True)
class Notetype:
    """A note type as a package holds it: what genanki's model is made of, known without loading genanki.

    A build that updates a kept collection never needs genanki, whose loading
    (with asyncio, which it loads) costs more than the update itself.
    """

    model_id: int
    name: str
    fields: tuple[str, ...]
    #: Each card type's name, front and back.
    templates: tuple[tuple[str, str, str], ...]
    css: str
    sort_field_index: int
    cloze: bool

    def model(self) -> genanki.Model:
        """genanki's model of this note type, to write a new collection with."""
        import genanki  # loaded only to make a collection from nothing

        return genanki.Model(
            self.model_id,
            self.name,
            fields=[{"name": name} for name in self.fields],
            templates=[{"name": name, "qfmt": front, "afmt": back} for name, front, back in self.templates],
            css=self.css,
            sort_field_index=self.sort_field_index,
            model_type=genanki.Model.CLOZE if self.cloze else genanki.Model.FRONT_BACK,
        )


@dataclass(frozen=True)
class DeckInfo:
    """A deck of a package: its id, its full name, and the description shown on its overview."""

    id: int
    name: str
    description: str = ""


@dataclass(frozen=True)
class PackageSpec:
    """Everything one ``.apkg`` holds."""

    #: Its note types, each with the time its content last changed.
    notetypes: Sequence[tuple[Notetype, int]]
    decks: Sequence[DeckInfo]
    #: Its notes, in the order their new cards come up.
    notes: NoteKeys
    #: The texts of (at least) the notes asked for, or of all for None, with their
    #: GUIDs, as they are unpacked: a package made from its previous collection
    #: reads only those of the notes that changed.
    texts: Callable[[Collection[NoteKey] | None], Iterable[tuple[str, Texts]]]
    media: Sequence[tuple[str, bytes]] = ()
    #: The class preset its decks get, if the bank sets study options.
    preset: Preset | None = None
    #: Decks with no cards of their own that it carries for their preset (the bank's parent deck).
    parents: Sequence[DeckInfo] = ()
    #: Where this build wrote the rows of its notes (see :mod:`.rows`), to copy them from: how, not what.
    rows: Sequence[Path] = ()

    @cached_property
    def frame(self) -> str:
        """Everything in the collection but its notes and cards, as text to compare with a kept one."""
        models = [[model.model_id, model.name, model.templates, model.css, mtime] for model, mtime in self.notetypes]
        decks = [(deck.id, deck.name, deck.description) for deck in (*self.decks, *self.parents)]
        preset = [self.preset.config] if self.preset else []
        return json.dumps([code_fingerprint(), models, decks, *preset])

    @cached_property
    def digest(self) -> str:
        """A digest of everything the package's bytes are made from, known without the notes' texts."""
        media = [(name, hashlib.sha256(content).hexdigest()) for name, content in self.media]
        sha = hashlib.sha256(f"{self.frame}\n{media}\n".encode())
        # Column by column (every GUID, then every digest...), each written whole, in C (see _texts, _numbers).
        notes = self.notes
        cards = (tuple(map(len, notes.cards)), tuple(chain.from_iterable(notes.cards)))
        texts = map(_texts, (notes.guids, notes.digests))
        for column in chain(texts, map(_numbers, (notes.mtimes, notes.deck_ids, notes.notetype_ids, *cards))):
            sha.update(len(column).to_bytes(8, "big") + column)  # its length first: where each ends is known
        return sha.hexdigest()


def _texts(column: tuple[str, ...]) -> bytes:
    """A column of texts, written whole: joined by tabs when none holds one and all are ASCII, else by repr.

    A package's digest is awaited before its process starts: joined, the GUIDs and
    digests of ten thousand notes are written some ten times quicker than by repr.
    Those of a forged cache entry may hold anything: the first byte tells the two apart.
    """
    joined = "\t".join(column)
    if joined.isascii() and joined.count("\t") == len(column) - 1:
        return b"t" + joined.encode("ascii")
    return b"r" + repr(column).encode()


def _numbers(column: tuple[int, ...]) -> bytes:
    """A column of whole numbers, written whole: as eight bytes each, little-endian, else (one out of their range)
    by repr."""
    try:
        numbers = array("q", column)
    except (OverflowError, TypeError):
        return b"r" + repr(column).encode()
    if sys.byteorder == "big":  # the same digest on every machine
        numbers.byteswap()
    return b"q" + numbers.tobytes()
