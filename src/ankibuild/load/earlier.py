"""What each question of a file gave the last time the file was processed, for those of it an edit left alone.

After one edit, one question of the file changed and the others are read as they
were: each of those is given the notes, references and facts it gave then instead
of being validated, rendered and checked again. A question is given them only
where nothing they depend on can have changed: the build's context (the cache
entry the last result was found under is keyed by it, as the new one is), the
file's bytes before its first question, its own bytes and its place (see
:mod:`.spans`). And only from a last result whose problems each name the
question that had it: of a question that had none, none is lost; one that had
some is read again; a result with a problem of the file's, counted or gathered,
or with images, gives nothing.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping, Sequence
from typing import NamedTuple

from ..errors import MORE, Problem
from ..kinds.base import Fact
from ..translations.record import TextRef
from .render import RenderedNote
from .spans import SIZE


class Given(NamedTuple):
    """What one question gave: its notes, references, block and fact; and what tells it is the same."""

    #: Where it began (line and column), and the digest of its bytes (see :mod:`.spans`).
    same: tuple[tuple[int, int], bytes]
    #: Its notes with their texts, in the order of the build's languages.
    notes: tuple[RenderedNote, ...]
    refs: tuple[TextRef, ...]
    #: Its block of the translations record.
    block: tuple[str, str]
    #: What its kind's checks across the file and the bank need of it (None: its kind gives nothing).
    fact: Fact | None


class Earlier:
    """The questions of a file as it was last processed, by id, with the digest of the bytes before them."""

    def __init__(self, head: bytes, given: Mapping[str, Given]) -> None:
        self.head, self.given = head, given

    def of(self, question: str, place: tuple[int, int], *, span: bytes | None, head: bytes) -> Given | None:
        """What the question of that id gave, if it is the same, at the same place, after the same head."""
        given = self.given.get(question)
        if given is None or span is None or head != self.head:
            return None
        return given if given.same == (place, span) else None

    @classmethod
    def of_result(
        cls,
        questions: Sequence[tuple[str, int, int]],
        notes: Iterable[RenderedNote],
        *,
        refs: Iterable[TextRef],
        blocks: Sequence[tuple[str, str]],
        facts: Mapping[str, Sequence[Fact]],
        problems: Sequence[Problem],
        spans: bytes,
    ) -> Earlier | None:
        """What a last result's questions gave, or None when they cannot be told apart (see the module)."""
        ids = [question for question, _, _ in questions]
        if len(spans) != SIZE * (len(ids) + 1) or len(set(ids)) != len(ids) or [b[0] for b in blocks] != ids:
            return None
        if any(not p.question or p.count != 1 or p.check == MORE for p in problems):
            return None
        by_question: defaultdict[str, list[RenderedNote]] = defaultdict(list)
        for note in notes:
            by_question[note.question_id].append(note)
        kinds = _kinds(ids, by_question)
        if kinds is None:
            return None
        given_facts = _facts(ids, kinds, facts)
        if given_facts is None:
            return None
        by_refs: defaultdict[str, list[TextRef]] = defaultdict(list)
        for ref in refs:
            by_refs[ref.question].append(ref)
        had = {p.question for p in problems}
        given = {
            question: Given(
                ((line, column), spans[SIZE * (at + 1) : SIZE * (at + 2)]), tuple(by_question[question]),
                tuple(by_refs[question]), blocks[at], given_facts[at],
            )
            for at, (question, line, column) in enumerate(questions)
            if question not in had
        }  # fmt: skip
        return cls(spans[:SIZE], given)


def _kinds(ids: Sequence[str], notes: Mapping[str, Sequence[RenderedNote]]) -> list[str] | None:
    """Each question's kind, by its notes; None when one has none, or notes of two kinds."""
    kinds = [{note.kind for note in notes.get(question, ())} for question in ids]
    if any(len(kind) != 1 for kind in kinds) or len(notes) != len(ids):
        return None
    return [kind.pop() for kind in kinds]


def _facts(ids: Sequence[str], kinds: Sequence[str], facts: Mapping[str, Sequence[Fact]]) -> list[Fact | None] | None:
    """Each question's fact: its kind's facts come one a question, in order, or none at all; None otherwise."""
    counts = Counter(kinds)
    if any(len(given) not in (0, counts[kind]) for kind, given in facts.items()) or not facts.keys() <= counts.keys():
        return None
    taken = dict.fromkeys(counts, 0)
    found: list[Fact | None] = []
    for kind in kinds:
        given = facts.get(kind, ())
        found.append(given[taken[kind]] if given else None)
        taken[kind] += 1
    return found
