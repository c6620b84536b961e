"""A file is hashed again unless its status proves that it has not changed since it was hashed."""

from __future__ import annotations

import hashlib
import os
import time
from pathlib import Path

import pytest

import ankibuild.digests
from ankibuild.atomic import write_parts
from ankibuild.digests import Digests
from ankibuild.paths import open_regular

pytestmark = pytest.mark.skipif(os.name != "posix", reason="only POSIX file systems keep a change time")


def _settled(tmp_path: Path, content: bytes) -> tuple[Path, Digests]:
    """A file hashed after the marker was touched at a later tick of the file system's clock than its writing."""
    path = tmp_path / "topic.yaml"
    path.write_bytes(content)
    digests = Digests(tmp_path / "clock")
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        digests.tick()
        digests.sha(path)
        if str(path) in digests.settled:
            return path, digests
        time.sleep(0.01)
    raise AssertionError("the file system's clock did not move on")


def _next(digests: Digests) -> Digests:
    """The digests of the next build, which knows the readings this one kept."""
    following = Digests(digests.marker)
    following.learn(digests.settled)
    following.tick()
    return following


def _reads(monkeypatch: pytest.MonkeyPatch) -> list[Path]:
    read: list[Path] = []

    def counted(path: Path) -> object:
        read.append(path)
        return open_regular(path)

    monkeypatch.setattr(ankibuild.digests, "open_regular", counted)
    return read


def test_a_settled_file_whose_status_is_the_same_is_not_read_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path, digests = _settled(tmp_path, b"question: 1\n")
    following = _next(digests)
    read = _reads(monkeypatch)
    assert following.sha(path) == digests.settled[str(path)][-1] and not read
    assert following.settled == digests.settled


def test_a_reading_is_held_only_while_the_file_in_its_place_has_its_status(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """What a build kept of a file stands for it, without reading it, until the file or a link in its place differs."""
    path, digests = _settled(tmp_path, b"question: 1\n")
    sha = digests.settled[str(path)][-1]
    read = _reads(monkeypatch)
    assert _next(digests).held(path) == sha and not read
    moved = path.rename(tmp_path / "elsewhere.yaml")
    path.symlink_to(moved)  # the same file, through a link
    assert _next(digests).held(path) is None
    path.unlink()
    moved.rename(path)  # in its place again, but moved meanwhile: its change time tells it
    assert _next(digests).held(path) is None
    assert Digests(digests.marker).held(path) is None and not read  # a build that kept no reading


def test_a_file_rewritten_with_its_size_and_modification_time_kept_is_read_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The change time, which no program can set, tells the rewrite, as do size, inode and device."""
    path, digests = _settled(tmp_path, b"question: 1\n")
    before = path.stat()
    path.write_bytes(b"question: 2\n")
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))
    following = _next(digests)
    read = _reads(monkeypatch)
    assert following.sha(path) != digests.settled[str(path)][-1] and read == [path]


def test_a_file_changed_after_the_marker_is_read_again_at_every_build(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Its status could be that of a write in the same tick of a coarse clock: it is not kept."""
    digests = Digests(tmp_path / "clock")
    digests.tick()
    path = tmp_path / "topic.yaml"
    path.write_bytes(b"question: 1\n")
    assert digests.sha(path) is not None and str(path) not in digests.settled
    read = _reads(monkeypatch)
    _next(digests).sha(path)
    assert read == [path]


def test_a_damaged_stamp_is_only_a_miss(tmp_path: Path) -> None:
    path, digests = _settled(tmp_path, b"question: 1\n")
    following = Digests(digests.marker)
    following.learn({str(path): ["not", "a", "stamp"]})
    following.learn(["not a record"])
    following.tick()
    assert following.sha(path) == digests.settled[str(path)][-1]


def _written(tmp_path: Path, content: bytes) -> tuple[Path, Digests, str]:
    """A file written as the build writes its lock, its digest told, with a mode set at a later tick than its bytes."""
    path, digests = tmp_path / "ankibuild.lock", Digests(tmp_path / "clock")
    sha = hashlib.sha256(content).hexdigest()
    written = write_parts(path, (content,), durable=False)
    if written.st_ctime_ns <= written.st_mtime_ns:
        # Written and its mode set within one tick (without the wait on the disk a build has between them, most
        # writes are): its bytes dated a millisecond earlier, which sets its change time to now, after them.
        earlier = written.st_mtime_ns - 1_000_000
        os.utime(path, ns=(earlier, earlier))
        written = path.stat()
    assert written.st_ctime_ns > written.st_mtime_ns
    digests.wrote(path, written, sha)
    return path, digests, sha


def test_a_file_the_build_wrote_is_not_read_again_and_its_reading_is_kept(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path, digests, sha = _written(tmp_path, b"lock\n" * 1000)
    read = _reads(monkeypatch)
    deadline = time.monotonic() + 10
    while str(path) not in digests.settled and time.monotonic() < deadline:
        digests.tick()
        assert digests.sha(path) == sha
    assert read == [] and digests.settled[str(path)][-1] == sha
    assert _next(digests).sha(path) == sha and read == []


@pytest.mark.parametrize("how", ["rewritten", "replaced"])
def test_a_file_the_build_wrote_that_someone_changed_since_is_read_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, how: str
) -> None:
    """Bytes of the same size, written in the same file (at a later time) or put in its place, are read."""
    path, digests, _ = _written(tmp_path, b"lock\n" * 1000)
    edited = b"edit\n" * 1000
    if how == "rewritten":
        path.write_bytes(edited)
    else:
        (tmp_path / "other").write_bytes(edited)
        (tmp_path / "other").replace(path)
    read = _reads(monkeypatch)
    digests.tick()
    assert digests.sha(path) == hashlib.sha256(edited).hexdigest() and read == [path]
