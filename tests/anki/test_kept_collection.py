"""A package made from its last build's collection is the same file as one made from nothing."""

from __future__ import annotations

import contextlib
import errno
import importlib
import itertools
import os
import random
import re
import shutil
import tempfile
import threading
import time
import zlib
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from ankibuild import BuildResult, build
from ankibuild.anki import collection, deflate, package, target
from ankibuild.anki import kept as kept_module
from ankibuild.anki.deflate import PIECE, Deflate
from ankibuild.cache import Cache, pack, unpack, unpack_views
from ankibuild.lock.clock import Clock
from ankibuild.lock.format import LOCK_FILE

from ..conftest import Project, put_endless, put_pipe

pytestmark = pytest.mark.slow  # packages built and rebuilt, megabytes deflated

FILE = "ai-hardware.yaml"
EDIT = (FILE, "Die arithmetische Intensität ist sehr niedrig", "Die Intensität ist niedrig")


def _block(text: str, question: str) -> str:
    """A question's whole entry in a question file, up to the next one."""
    found = re.search(rf"^  - id: {question}\n.*?(?=^  - id: |\Z)", text, re.MULTILINE | re.DOTALL)
    assert found, question
    return found.group(0)


def _add_first(decks: Path) -> None:
    path = decks / FILE
    text = path.read_text(encoding="utf-8")
    copy = _block(text, "ptq-vs-qat").replace("id: ptq-vs-qat", "id: ptq-vs-qat-again")
    path.write_text(text.replace("questions:\n", f"questions:\n{copy}", 1), encoding="utf-8")


def _remove(decks: Path) -> None:
    path = decks / FILE
    text = path.read_text(encoding="utf-8")
    path.write_text(text.replace(_block(text, "conv-im2col-gemm"), ""), encoding="utf-8")


def _move_to_new_file(decks: Path) -> None:
    path = decks / FILE
    text = path.read_text(encoding="utf-8")
    moved = _block(text, "llm-outlier-channels")
    path.write_text(text.replace(moved, ""), encoding="utf-8")
    header = "deck:\n  de: Ausreißer\n  fr: Valeurs aberrantes\n  en: Outliers\nquestions:\n"
    (decks / "outliers.yaml").write_text(header + moved, encoding="utf-8")


def _move_to_other_file(decks: Path) -> None:
    path = decks / FILE
    text = path.read_text(encoding="utf-8")
    moved = _block(text, "w4a16-decode")
    path.write_text(text.replace(moved, ""), encoding="utf-8")
    with (decks / "outliers.yaml").open("a", encoding="utf-8") as other:
        other.write(moved)


def _edit(old: str, new: str) -> Callable[[Path], None]:
    def edit(decks: Path) -> None:
        path = decks / FILE
        text = path.read_text(encoding="utf-8")
        assert old in text
        path.write_text(text.replace(old, new, 1), encoding="utf-8")

    return edit


STEPS: dict[str, Callable[[Path], None]] = {
    "an explanation edited": _edit(*EDIT[1:]),
    "a question added before all others": _add_first,
    "a question removed": _remove,
    "topics changed": _edit("topics: [ai-hardware, ai-hardware::quantization]", "topics: [ai-hardware]"),
    "a question moved to a new file": _move_to_new_file,
    "a question moved to another file": _move_to_other_file,
    "a deck renamed": _edit("de: KI-Hardware und Software-Stack", "de: KI-Hardware"),
}


NEW_DECKS = {"a question moved to a new file", "a deck renamed"}


def _packages(out: Path) -> dict[str, bytes]:
    return {path.name: path.read_bytes() for path in sorted(out.glob("*.apkg"))}


def _clock() -> Clock:
    """A clock a second later at every look: two banks edited alike get the same times."""
    return Clock(itertools.count(1_700_000_000).__next__)


def _built_from_nothing(decks: Path, templates: Path, out: Path, cache: Path, clock: Clock) -> BuildResult:
    """A build with an empty cache: no cached file, no kept lock, no kept collection."""
    shutil.rmtree(cache, ignore_errors=True)
    with pytest.MonkeyPatch.context() as env:
        env.setenv("ANKIBUILD_CACHE_DIR", str(cache))
        return build(decks=decks, templates=templates, out=out, clock=clock)


def _counted(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Which way each collection is made, from now on."""
    made: list[str] = []
    for name in ("create", "update"):
        original = getattr(package, name)

        def counted(*args: Any, _name: str = name, _original: Any = original) -> None:
            made.append(_name)
            _original(*args)

        monkeypatch.setattr(package, name, counted)
    return made


def test_every_kind_of_change_gives_the_bytes_of_a_build_from_nothing(
    project: Project, tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Edit, add, remove, retag, move, rename: each rebuild from what the cache kept matches one without it.

    Two copies of the bank take the same steps with clocks that agree; one keeps
    its cache, the other starts each build with an empty one. Their packages and
    locks must be byte for byte the same after every step.
    """
    twin = tmp_path_factory.mktemp("twin")
    shutil.copytree(project.decks, twin / "decks")
    twin_cache, project_clock, twin_clock = twin / "cache", _clock(), _clock()
    made = _counted(monkeypatch)
    project.build(clock=project_clock)
    assert made == ["create"] * 3
    for step, change in {"first build": lambda decks: None, **STEPS}.items():
        made.clear()
        for decks in (project.decks, twin / "decks"):
            change(decks)
        if step != "first build":
            project.build(clock=project_clock)
        rebuilt = set(made)
        _built_from_nothing(twin / "decks", project.templates, twin / "dist", twin_cache, twin_clock)
        assert _packages(project.out) == _packages(twin / "dist"), step
        assert (project.decks / LOCK_FILE).read_bytes() == (twin / "decks" / LOCK_FILE).read_bytes(), step
        # A new or renamed deck changes the collection's deck list: such a one is made anew.
        if step != "first build":
            assert rebuilt == ({"create"} if step in NEW_DECKS else {"update"}), step


def _rebuild_after_an_edit(project: Project) -> dict[str, bytes]:
    """The packages after an edit to German text, as a build from nothing makes them."""
    project.edit(*EDIT)
    expected = _built_from_nothing(
        project.decks, project.templates, project.root / "fresh", project.root / "empty", _clock()
    )
    assert expected.outputs
    return _packages(project.root / "fresh")


def _damage(kept: Path) -> None:
    """A kept collection whose bytes changed since it was kept (a disk fault)."""
    data = bytearray(kept.read_bytes())
    data[len(data) // 2] ^= 0x20  # one letter of a note's text, say: still a valid database
    kept.write_bytes(bytes(data))


def _damage_with_its_time_put_back(kept: Path) -> None:
    """Damaged, then given back the modification time it had, as a copy keeping times would."""
    before = kept.stat()
    _damage(kept)
    os.utime(kept, ns=(before.st_atime_ns, before.st_mtime_ns))


def _link_to_a_copy(kept: Path) -> None:
    """The same bytes, but in another file a link leads to: a forged entry may lead anywhere."""
    copy = kept.with_name(f"elsewhere-{kept.name}")
    shutil.copy2(kept, copy)
    kept.unlink()
    kept.symlink_to(copy)


@pytest.mark.parametrize("change", [_damage, _damage_with_its_time_put_back, _link_to_a_copy])
@pytest.mark.parametrize("entry", ["*.anki2", "*.record"])
def test_a_kept_collection_not_as_kept_is_not_used(
    project: Project, monkeypatch: pytest.MonkeyPatch, change: Callable[[Path], None], entry: str
) -> None:
    """A kept collection, or its record, whose bytes may have changed since it was kept is made again from
    nothing."""
    project.build()
    for kept in Cache(project.decks).kept.glob(entry):
        change(kept)
    expected = _rebuild_after_an_edit(project)
    shutil.rmtree(project.root / "fresh")
    made = _counted(monkeypatch)
    project.build()
    assert made == ["create"]
    assert _packages(project.out)["ai-stack-de.apkg"] == expected["ai-stack-de.apkg"]


@pytest.mark.parametrize("change", [put_pipe, put_endless])
@pytest.mark.parametrize("entry", ["*.anki2", "*.record", "*.sealed"])
def test_a_kept_entry_that_is_no_file_is_neither_waited_on_nor_read(
    project: Project, monkeypatch: pytest.MonkeyPatch, change: Callable[[Path], None], entry: str
) -> None:
    """A named pipe or an endless device in place of a kept collection, its record or the record's sealed status:
    the collection is made from nothing, or, without the status, from the record checked by its digest."""
    project.build()
    entries = list(Cache(project.decks).kept.glob(entry))
    assert entries
    for kept in entries:
        change(kept)
    expected = _rebuild_after_an_edit(project)
    shutil.rmtree(project.root / "fresh")
    made, intact = _counted(monkeypatch), _intact(monkeypatch)
    project.build()
    # The record unread, or read whole and digested, or as sealed while the collection is unusable.
    assert (made, intact) == {"*.record": (["create"], []), "*.sealed": (["update"], [False])}.get(
        entry, (["create"], [True])
    )
    assert _packages(project.out)["ai-stack-de.apkg"] == expected["ai-stack-de.apkg"]


def _digested(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The size of each kept collection digested again, from now on."""
    sizes: list[int] = []
    original = deflate.digests

    def counted(content: bytes) -> list[bytes]:
        sizes.append(len(content))
        return original(content)

    monkeypatch.setattr(package, "digests", counted)
    return sizes


def _intact(monkeypatch: pytest.MonkeyPatch) -> list[bool]:
    """Whether each kept record read, from now on, was taken as intact, its digest not checked."""
    taken: list[bool] = []
    original = unpack_views

    def spied(packed: bytes, *, intact: bool = False) -> tuple[Any, list[memoryview]]:
        taken.append(intact)
        return original(packed, intact=intact)

    monkeypatch.setattr(kept_module, "unpack_views", spied)
    return taken


def test_a_kept_collection_as_kept_is_not_digested_again(project: Project, monkeypatch: pytest.MonkeyPatch) -> None:
    """Their status, sealed when they were kept, proves a kept collection and its record whole; those whose
    times changed are digested."""
    project.build()
    expected = _rebuild_after_an_edit(project)
    digested, made, intact = _digested(monkeypatch), _counted(monkeypatch), _intact(monkeypatch)
    project.build()
    assert (digested, made, intact) == ([], ["update"], [True])
    assert _packages(project.out)["ai-stack-de.apkg"] == expected["ai-stack-de.apkg"]
    (project.out / "ai-stack-de.apkg").unlink()  # made again the same: the collection kept stays as it is
    project.build()
    assert (digested, made, intact) == ([], ["update"] * 2, [True] * 2)
    assert _packages(project.out)["ai-stack-de.apkg"] == expected["ai-stack-de.apkg"]
    for kept in [*Cache(project.decks).kept.glob("*.anki2"), *Cache(project.decks).kept.glob("*.record")]:
        os.utime(kept)  # the same bytes, a status of its own
    project.edit(FILE, EDIT[2], EDIT[1])
    project.build()
    assert len(digested) == 1 and made == ["update"] * 3 and intact == [True, True, False]


def test_a_kept_collection_changed_while_it_is_read_is_not_used(
    project: Project, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Compared with the made collection as it is read, a kept collection must not change meanwhile: if it did,
    the package is made from nothing."""
    project.build()
    expected = _rebuild_after_an_edit(project)
    original = collection.update

    def changing(*args: Any) -> None:
        for kept in Cache(project.decks).kept.glob("*.anki2"):
            os.utime(kept)  # its status, as any write would
        original(*args)

    monkeypatch.setattr(package, "update", changing)
    made = _counted(monkeypatch)
    project.build()
    assert made == ["update", "create"]
    assert _packages(project.out)["ai-stack-de.apkg"] == expected["ai-stack-de.apkg"]


def test_a_record_kept_by_another_version_is_not_used(project: Project, monkeypatch: pytest.MonkeyPatch) -> None:
    """A kept record whose notes have another shape (an older version's) costs only time, never the build."""
    project.build()
    for record in Cache(project.decks).kept.glob("*.record"):
        (frame, digest, order, length, _), blobs = unpack(record.read_bytes())
        older = [[f"note {place}"] for place in range(length)]  # in the JSON, a list per note
        record.write_bytes(pack([frame, digest, older, order], blobs[-len(order) :]))
    expected = _rebuild_after_an_edit(project)
    made = _counted(monkeypatch)
    project.build()
    assert made == ["create"]
    assert _packages(project.out)["ai-stack-de.apkg"] == expected["ai-stack-de.apkg"]


@pytest.mark.parametrize("loss", ["forgotten", "damaged"])
def test_lost_or_damaged_texts_are_made_again_from_the_file(project: Project, loss: str) -> None:
    """A cached file's texts, forgotten by a build with other options or damaged, are made again."""
    project.build()
    expected = _packages(project.out)
    shutil.rmtree(Cache(project.decks).kept)  # every package must be made from its notes' texts
    for path in project.out.glob("*.apkg"):
        path.unlink()
    entries = [e for e in Cache(project.decks).folder.glob("*.entry") if _is_texts(e)]
    assert len(entries) == 1  # the one question file's texts, apart from its notes
    if loss == "forgotten":
        entries[0].unlink()
    else:
        entries[0].write_bytes(entries[0].read_bytes()[:-1])
    result = project.build()
    assert [o.written for o in result.outputs] == [True] * 3
    assert _packages(project.out) == expected


def _is_texts(path: Path) -> bool:
    """An entry of texts holds a list of languages; a file's result, a mapping; what names a file's last, a key."""
    header = unpack(path.read_bytes())[0]
    return isinstance(header, list) and set(header) <= {"de", "fr", "en"}


def test_a_cache_that_cannot_be_written_only_costs_time(project: Project, monkeypatch: pytest.MonkeyPatch) -> None:
    """With the cache folder impossible to create, every package is made from nothing, and the same."""
    project.build()
    expected = _packages(project.out)
    blocker = project.root / "not-a-folder"
    blocker.write_text("a file where the cache folder would go\n", encoding="utf-8")
    monkeypatch.setenv("ANKIBUILD_CACHE_DIR", str(blocker / "cache"))
    for path in project.out.glob("*.apkg"):
        path.unlink()
    result = project.build()
    assert [o.written for o in result.outputs] == [True] * 3
    assert _packages(project.out) == expected


@pytest.mark.parametrize("size", [0, 5, PIECE, 3 * PIECE, 3 * PIECE + 12_345])
def test_a_stream_deflated_in_pieces_is_one_deflate_stream(size: int) -> None:
    """Pieces join into one stream that inflates to the input, whether deflated anew or taken from before."""
    data = bytes(random.Random(size).choices(b"abcdefgh ijklm\x00\xff", k=size))
    with ThreadPoolExecutor(2) as pool:
        first = Deflate(pool, {})
        stream = first.compress(data) + first.flush()
        edited = bytearray(data)
        if size:
            edited[size // 2] ^= 1
        again = Deflate(pool, first.pieces)
        stream_again = again.compress(bytes(edited)) + again.flush()
        fresh = Deflate(pool, {})
        stream_fresh = fresh.compress(bytes(edited)) + fresh.flush()
    assert zlib.decompress(stream, -zlib.MAX_WBITS) == data
    assert zlib.decompress(stream_again, -zlib.MAX_WBITS) == edited
    assert stream_again == stream_fresh  # reused pieces change nothing
    assert len(first.order) == size // PIECE + 1


def test_a_full_cache_disk_only_costs_time(project: Project, monkeypatch: pytest.MonkeyPatch) -> None:
    """No room beside the kept collections: the package is made in the system's temporary folder instead."""
    project.build()
    expected = _rebuild_after_an_edit(project)
    making_scratch = tempfile.mkdtemp

    def no_room_in_the_cache(*args: Any, **options: Any) -> str:
        if options.get("dir") is not None:
            raise OSError(errno.ENOSPC, "No space left on device")
        return str(making_scratch(*args, **options))

    monkeypatch.setattr(tempfile, "mkdtemp", no_room_in_the_cache)
    result = project.build()
    assert [o.lang for o in result.outputs if o.written] == ["de"]
    assert _packages(project.out)["ai-stack-de.apkg"] == expected["ai-stack-de.apkg"]


def test_what_a_package_keeps_for_the_next_build_is_written_when_the_build_leaves_it(
    project: Project, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The record of a package's kept collection and its published memo wait for the build's deferred work.

    Run only then, they are what the next build needs: it updates the collection kept, to the same bytes.
    """
    project.build()
    kept = Cache(project.decks).kept
    entries = ("*.record", "published-*.memo")
    before = {path: path.read_bytes() for pattern in entries for path in kept.glob(pattern)}
    waiting: list[tuple[Callable[..., object], tuple[Any, ...]]] = []

    @contextlib.contextmanager
    def deferred() -> Iterator[Callable[..., None]]:
        yield lambda do, *args: waiting.append((do, args))

    original = target.deferred
    monkeypatch.setattr(target, "deferred", deferred)
    project.edit(FILE, "Die Zahl der Multiplikationen sinkt dadurch nicht", "Die Zahl der Multiplikationen sinkt nicht")
    project.build()
    assert {path: path.read_bytes() for pattern in entries for path in kept.glob(pattern)} == before
    assert waiting
    for do, args in waiting:
        do(*args)
    changed = [path for path, data in before.items() if path.read_bytes() != data]
    assert sorted(path.suffix for path in changed) == [".memo", ".record"]  # the German package's
    monkeypatch.setattr(target, "deferred", original)
    expected = _rebuild_after_an_edit(project)
    made = _counted(monkeypatch)
    project.build()
    assert made == ["update"]
    assert _packages(project.out)["ai-stack-de.apkg"] == expected["ai-stack-de.apkg"]


def test_genanki_is_loaded_while_the_files_are_processed_only_for_packages_made_from_nothing(
    project: Project, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Loaded before the packages' processes are forked, each of them does not load it again."""
    from ankibuild.load import deckfiles

    events: list[str] = []
    processed = deckfiles.process

    def processing(*args: Any, **kwargs: Any) -> deckfiles.FileResult:
        events.append("file processed")
        return processed(*args, **kwargs)

    loading = importlib.import_module

    def load(name: str) -> ModuleType:
        events.append(name)
        return loading(name)

    monkeypatch.setattr(deckfiles, "process", processing)
    monkeypatch.setattr(importlib, "import_module", load)
    project.build()
    assert events == ["genanki", "file processed"]
    events.clear()
    project.edit(*EDIT)
    project.build()
    assert events == ["file processed"]


@pytest.mark.parametrize("fails", [False, True])
def test_a_package_made_leaves_no_scratch_folder(
    project: Project, monkeypatch: pytest.MonkeyPatch, fails: bool
) -> None:
    """Its copy of the kept collection is removed once the package is made, or at once should making it fail
    (the package is then made again from nothing, in the system's temporary folder)."""
    project.build()
    expected = _rebuild_after_an_edit(project)
    if fails:
        failed: list[bool] = []

        def fails_once(*args: Any, **options: Any) -> Any:
            if not failed:
                failed.append(True)
                raise OSError(errno.ENOSPC, "No space left on device")
            return deflate.write_deflated(*args, **options)

        monkeypatch.setattr(package, "write_deflated", fails_once)
    result = project.build()
    assert [o.lang for o in result.outputs if o.written] == ["de"]
    assert _packages(project.out)["ai-stack-de.apkg"] == expected["ai-stack-de.apkg"]
    assert list(Cache(project.decks).folder.rglob(".ankibuild-*")) == []


def test_a_package_that_cannot_be_written_stops_the_others_being_made_before_the_build_ends(
    project: Project, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The threads making the other packages end with the build, having kept what they made, rather than go on
    after it (and after the bank's lock) with nowhere to hand that on."""
    shutil.rmtree(Cache(project.decks).folder, ignore_errors=True)
    threads, make = threading.active_count(), package.package_bytes

    def slowly(*args: Any) -> bytes:
        time.sleep(0.5)  # two made at once: the third is still being made when the first fails to be written
        return make(*args)

    def disk_full(*_: Any, **__: Any) -> bool:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(target, "package_bytes", slowly)
    monkeypatch.setattr(target, "_ready", disk_full)
    with pytest.raises(OSError, match="No space left"):
        project.build()
    assert threading.active_count() == threads
    assert len(list(Cache(project.decks).kept.glob("*.record"))) == 3
