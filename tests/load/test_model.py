"""The identities and the note type shape that classmates' collections depend on.

If one of these tests fails, a change would break every classmate's updates:
revert it rather than update the expected values.
"""

from __future__ import annotations

import hashlib
import time
import zlib

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ankibuild import check
from ankibuild.errors import BankError
from ankibuild.kinds import KINDS
from ankibuild.kinds.choice import CARD_NAME, FIELDS
from ankibuild.load.render import note_digest
from ankibuild.lock.format import LOCK_FILE, Lock, read_lock
from ankibuild.model import _GUID_DIGITS, SLUG, _base91, deck_id, note_guid, notetype_id, stable_int

from ..ankitools import collection, import_package
from ..conftest import DATA, ROOT, Project


def test_the_note_type_shape_never_changes() -> None:
    """Released field list and card type: Anki forks a note type whose shape differs."""
    assert FIELDS == ("ID", "Question", "A", "B", "C", "D", "E", "F", "Answer", "Explanation")
    assert CARD_NAME == "Multiple choice"


def test_ids_are_pure_functions_of_stable_names() -> None:
    """Note type, deck and note identities derive from names only, with released values."""
    assert notetype_id("ai-stack", "de") == 1378203495271
    assert deck_id("ai-stack", "ai-hardware", "de") == 1607622656183
    assert note_guid("ai-stack", "elementwise-ops-memory-bound", "de") == "K[zRzo(YX)"
    assert note_guid("ai-stack", "q1", "de") != note_guid("other-bank", "q1", "de")
    assert note_guid("ai-stack", "q1", "de") != note_guid("ai-stack", "q1", "fr")


def test_ids_look_like_past_timestamps() -> None:
    """Anki rewrites ids more than a day in the future; ours never are."""
    now_ms = int(time.time() * 1000)
    for name in ("a", "b", "note", "card", "x" * 100):
        assert 10**12 < stable_int(name) < now_ms


def test_imported_note_type_has_exactly_the_released_shape(project: Project, tmp_path: object) -> None:
    """What Anki sees after import: our fields, in order, and one card type."""
    project.build(languages=["de"])
    with collection(project.root / "c.anki2") as col:
        import_package(col, project.out / "ai-stack-de.apkg")
        model = col.models.get(notetype_id("ai-stack", "de"))  # type: ignore[arg-type]
        assert model is not None
        assert [f["name"] for f in model["flds"]] == list(FIELDS)
        assert [t["name"] for t in model["tmpls"]] == [CARD_NAME]
        assert model["name"] == "ai-stack (de)"


#: Ids chosen to trip a careless join: underscores, dots, digits, regional languages.
#: The GUIDs are the released ones: they must never change.
RELEASED_GUIDS = [
    ("ai-stack", "layer_norm", "de", "JpuH%{g`,T"),
    ("ai-stack", "layer-norm", "de", "F@eW5Euoki"),
    ("my_bank", "q", "en", "JALOpK3gi;"),
    ("b", "a.b_c-d", "fr", "P:)lDAqC!m"),
    ("x", "9", "pt-BR", "pGPEy>IlVT"),
    ("a_", "b", "de", "N=l-2v&rH3"),
    ("bank", "q__x", "zh-Hant", "AR[^p$jTW|"),
    ("bank", "q_", "de", "M?T3FQ]d|X"),
]


def test_released_guids_never_change() -> None:
    """Every GUID in the sample bank's committed lock, and a set of tricky ids, as released.

    The 18 notes of the first release keep their GUIDs; the notes of the other kinds'
    examples have their kind's.
    """
    lock = read_lock(ROOT / "decks" / LOCK_FILE)
    first = read_lock(DATA / "released-sample" / LOCK_FILE)
    assert len(first.notes) == 18
    assert {guid: (note.question, note.lang) for guid, note in first.notes.items()} == {
        guid: (note.question, note.lang) for guid, note in lock.notes.items() if guid in first.notes
    }
    for note in lock.notes.values():
        assert note.guid in {kind.note_guid(lock.bank, note.question, note.lang) for kind in KINDS.values()}
    for bank_id, question_id, lang, guid in RELEASED_GUIDS:
        assert note_guid(bank_id, question_id, lang) == guid


_NAMES = st.text(st.characters(exclude_categories=["Cs"]), max_size=12)
#: The numbers where a GUID's digits change in count: each power of 91 up to 2**64, with those around it.
_EDGES = [n for power in range(11) for n in (91**power - 1, 91**power, 91**power + 1) if n < 2**64] + [2**64 - 1]


@given(_NAMES, _NAMES, _NAMES, st.lists(_NAMES, max_size=1))
def test_guids_are_the_ones_genanki_makes(bank_id: str, question_id: str, lang: str, kind: list[str]) -> None:
    """The released GUIDs were made by genanki's ``guid_for``: every GUID is still the one it would make."""
    from genanki import guid_for

    assert note_guid(bank_id, question_id, lang, *kind) == guid_for("ankibuild", bank_id, question_id, lang, *kind)


@given(st.one_of(st.integers(min_value=0, max_value=2**64 - 1), st.sampled_from(_EDGES)))
def test_a_guid_s_digits_are_those_of_a_division_at_a_time(number: int) -> None:
    """Five pairs of digits made at once are the number's digits, the leading zeros left out, as genanki's loop
    makes them, down to the numbers with a single digit and 0 (no digit at all)."""
    digits: list[str] = []
    rest = number
    while rest:
        rest, digit = divmod(rest, len(_GUID_DIGITS))
        digits.append(_GUID_DIGITS[digit])
    assert _base91(number) == "".join(reversed(digits))


@given(st.lists(_NAMES, min_size=1, max_size=11), _NAMES)
def test_a_notes_digest_and_checksums_are_the_released_ones(fields: list[str], tags: str) -> None:
    """The lock holds them for every note: a SHA-256 of the texts apart by US, and each text's CRC-32."""
    values = [*fields, tags]
    digest = hashlib.sha256("\x1f".join(values).encode()).hexdigest()[:16]
    parts = " ".join(f"{zlib.crc32(value.encode()):08x}" for value in values)
    assert note_digest(fields, tags) == (digest, parts)


def _ids(alphabet: str, longest: int) -> list[str]:
    every = [""]
    for _ in range(longest):
        every += [word + char for word in every for char in alphabet if len(word) < longest]
    return sorted({word for word in every if SLUG.match(word)})


def test_no_two_valid_identities_share_a_guid() -> None:
    """Over every slug of up to four of ``a _ . -``: a GUID, note id and card id per (bank, question, language).

    Without the rule against ``__`` in bank ids, ``a__a``/``a`` and ``a``/``a__a`` would collide.
    """
    ids = _ids("a_.-", 4)
    pairs = [(bank, question) for bank in ids for question in ids]
    guids = {note_guid(bank, question, "de"): (bank, question) for bank, question in pairs if "__" not in bank}
    allowed = sum("__" not in bank for bank, _ in pairs)
    assert len(guids) == allowed
    assert len({stable_int("note", guid) for guid in guids}) == allowed
    assert note_guid("a__a", "a", "de") == note_guid("a", "a__a", "de")  # why the rule exists
    assert len({note_guid("b", "q", lang) for lang in ("de", "pt", "pt-BR", "zh-Hant")}) == 4


def test_a_bank_id_with_two_underscores_in_a_row_is_refused(project: Project) -> None:
    """A new bank cannot take an id that makes GUIDs ambiguous; a released one keeps it, with a warning."""
    project.edit("bank.yaml", "id: ai-stack", "id: ai__stack")
    with pytest.raises(BankError) as caught:
        check(decks=project.decks, templates=project.templates)
    (problem,) = caught.value.problems
    assert (problem.file, problem.line) == ("decks/bank.yaml", 4)
    assert "two underscores in a row" in problem.message and "one underscore or a hyphen" in problem.hint
    (project.decks / LOCK_FILE).write_text(Lock("ai__stack").dumps(), encoding="utf-8")
    warnings = check(decks=project.decks, templates=project.templates)
    assert [w.message for w in warnings.warnings] == ["the bank id 'ai__stack' has two underscores in a row"]
