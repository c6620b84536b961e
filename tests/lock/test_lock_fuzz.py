"""Hand-edited or badly merged lock files, and odd file and path names: reported, never a traceback.

Whatever ``check`` accepts, ``build`` turns into packages the real Anki imports.
"""

from __future__ import annotations

import json
import re
from dataclasses import asdict
from pathlib import Path
from typing import Any

import pytest
from click.testing import Result
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ankibuild.lock.format import LOCK_FILE, read_lock

from ..ankitools import collection, import_package
from ..conftest import DATA
from ..locktools import lock_bank, run_checked

FUZZ = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
#: Values a hand edit or a bad merge leaves: text, null, lists, objects, huge and fractional numbers.
ODD = st.one_of(
    st.none(),
    st.booleans(),
    st.sampled_from([0, -1, 1, 1e20, 1.5, 10**20, 2**63, -(2**63), "", "1600000000", "<<<<<<< HEAD", "x" * 300]),
    st.integers(),
    st.floats(allow_nan=False),
    st.text(max_size=8),
    st.lists(st.integers(), max_size=3),
    st.dictionaries(st.text(max_size=4), st.integers(), max_size=2),
)


def _checked_then_imported(decks: Path) -> Result:
    """check; when it passes, build, and import every package into Anki."""
    folders = ["--decks", str(decks)]
    checked = run_checked("check", *folders)
    out = decks.parent / "dist"
    built = run_checked("build", *folders, "--out", str(out))
    if checked.exit_code == 0:
        # A note type recorded with other fields is a change of shape, which only a build may allow.
        assert built.exit_code == 0 or "note type would change" in built.output, built.output
        for package in sorted(out.glob("*.apkg")):
            with collection(decks.parent / f"{package.stem}.anki2") as col:
                log = import_package(col, package)  # raises if Anki refuses the package
                assert col.note_count() == log.new  # a bank whose files are all hidden has none
    else:  # said where: a file of the bank, not merely some path that holds "decks" (every path here does)
        assert _located(checked, decks), checked.output
    return checked


def _located(checked: Result, decks: Path) -> set[str]:
    """The files of the bank, relative to it, that ``check`` locates a problem in."""
    # Over the whole output, not line by line: a file or folder name may hold a line break.
    where = re.compile(rf"{re.escape(str(decks))}/(.+?)(?::\d+)*: (?:error|warning)\b", re.DOTALL)
    return {found.group(1) for found in where.finditer(checked.output)}


def _lock_named(checked: Result, decks: Path) -> bool:
    """Whether ``check`` locates a problem in the lock, or says the bank id differs from the lock's."""
    return LOCK_FILE in _located(checked, decks) or f"(in {LOCK_FILE})" in checked.output


@pytest.fixture(scope="module")
def good_lock() -> dict[str, Any]:
    """The lock a first build of the small bank writes, in the first format: one JSON document to take apart."""
    with lock_bank() as decks:
        run_checked("build", "--decks", str(decks), "--out", str(decks.parent / "dist"))
        lock = read_lock(decks / LOCK_FILE)
        notetypes = {t.key: {k: v for k, v in asdict(t).items() if k != "key"} for t in lock.notetypes.values()}
        notes = [note._asdict() for note in lock.notes.values()]
        return {"version": 1, "bank": lock.bank, "notetypes": notetypes, "notes": notes}


def _mutate(lock: dict[str, Any], data: st.DataObject) -> Any:
    """The lock with one value replaced, a key dropped or added, or an entry repeated."""
    places: list[tuple[Any, Any]] = [(lock, key) for key in lock]
    places += [(entry, key) for entry in lock["notetypes"].values() for key in entry]
    places += [(entry, key) for entry in lock["notes"] for key in entry]
    places += [(lock["notes"], index) for index in range(len(lock["notes"]))]
    container, key = data.draw(st.sampled_from(places))
    action = data.draw(st.sampled_from(["replace", "replace", "replace", "drop", "repeat", "add"]))
    if action == "replace":
        container[key] = data.draw(ODD)
    elif action == "drop":
        del container[key]
    elif isinstance(container, list):
        container.append(container[key] if action == "repeat" else data.draw(ODD))
    else:
        container[data.draw(st.sampled_from(["extra", "mtime", "guid", "version"]))] = data.draw(ODD)
    return lock


@FUZZ
@given(data=st.data())
def test_any_odd_value_in_the_lock_is_reported_or_builds_packages_anki_imports(
    good_lock: dict[str, Any], data: st.DataObject
) -> None:
    """A value of the wrong kind anywhere in the lock: check names the lock file and its line, or the build works."""
    lock = _mutate(json.loads(json.dumps(good_lock)), data)
    text = data.draw(st.sampled_from(["json", "json", "json", "one line", "truncated"]))
    written = json.dumps(lock, indent=1)
    if text == "one line":
        written = json.dumps(lock)
    elif text == "truncated":
        written = written[: data.draw(st.integers(0, len(written)))]
    with lock_bank({LOCK_FILE: written}) as decks:
        checked = _checked_then_imported(decks)
        if checked.exit_code == 1:
            assert _lock_named(checked, decks), checked.output


@FUZZ
@given(
    lock=st.recursive(ODD, lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(), inner, max_size=3))
)
def test_any_json_at_all_as_the_lock_is_reported(lock: Any) -> None:
    """Not a lock at all, yet JSON: reported."""
    with lock_bank({LOCK_FILE: json.dumps(lock)}) as decks:
        checked = _checked_then_imported(decks)
        assert checked.exit_code == 1 and _lock_named(checked, decks), checked.output


#: Names as a file system takes them: any character but the separator and NUL, short enough for it.
NAMES = st.text(
    alphabet=st.characters(blacklist_categories=["Cs"], blacklist_characters="/\0"), min_size=1, max_size=30
).filter(lambda name: name not in {".", ".."} and len(name.encode()) < 200)


@FUZZ
@given(file_name=NAMES, image_name=NAMES, reference=st.one_of(NAMES, st.text(max_size=30)), folder=NAMES)
def test_odd_file_and_path_names_are_reported_or_build(
    file_name: str, image_name: str, reference: str, folder: str
) -> None:
    """Question files, folders and images of any name, and any text as an image path."""
    question = (DATA / "html-in-text" / "memory.yaml").read_text(encoding="utf-8")
    question = question.replace("& nicht mehr.", f"![x]({json.dumps(reference)[1:-1]}) & nicht mehr.")
    png = b"\x89PNG\r\n\x1a\n" + b"\0" * 16
    files: dict[str, str | bytes] = {f"{folder}/{file_name}.yaml": question, f"media/{image_name}": png}
    with lock_bank(files) as decks:
        (decks / "memory.yaml").unlink()
        _checked_then_imported(decks)


@pytest.mark.parametrize(
    "value", ['"text"', "null", "[1]", "1e20", "1600000000.5", "-5", "true", "100000000000000000000"]
)
@pytest.mark.parametrize("key", ["mtime", "guid", "digest"])
def test_each_value_the_build_cannot_use_is_named_with_its_line(value: str, key: str) -> None:
    """The values a hand edit or a merge left in a note's entry: check says which note, on which line."""
    with lock_bank() as decks:
        run_checked("build", "--decks", str(decks), "--out", str(decks.parent / "dist"))
        lines = (decks / LOCK_FILE).read_text(encoding="utf-8").splitlines()
        number = next(n for n, line in enumerate(lines, start=1) if line.lstrip().startswith('{"guid"'))
        entry = json.loads(lines[number - 1].rstrip(","))
        if key != "mtime" and value.startswith('"'):
            return  # any text is a GUID or a digest
        entry[key] = json.loads(value)
        lines[number - 1] = json.dumps(entry)
        (decks / LOCK_FILE).write_text("\n".join(lines) + "\n", encoding="utf-8")
        checked = run_checked("check", "--decks", str(decks))
        assert checked.exit_code == 1
        assert f"{LOCK_FILE}:{number}:1" in checked.output, checked.output
        assert f'impossible "{key}"' in checked.output
