"""A path named inside the bank stays inside it: ``..``, absolute paths and links are refused."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from ankibuild.paths import TooLargeError, UnsafePathError, inside, read_inside, within


@pytest.fixture
def bank(tmp_path: Path) -> Path:
    """A bank folder with an image, a link inside it and links that lead out of it."""
    root = tmp_path / "decks"
    (root / "images").mkdir(parents=True)
    (root / "images" / "diagram.png").write_bytes(b"png")
    (tmp_path / "secret.txt").write_text("not for a deck")
    (root / "images" / "same.png").symlink_to(root / "images" / "diagram.png")
    (root / "images" / "escape.png").symlink_to(tmp_path / "secret.txt")
    (root / "elsewhere").symlink_to(tmp_path, target_is_directory=True)
    (root / "loop").symlink_to(root / "loop")
    return root


@pytest.mark.parametrize(
    "name",
    ["images/diagram.png", "images/../images/diagram.png", "images/same.png", "images/not-yet-there.png"],
)
def test_names_that_stay_inside_resolve_below_the_bank(bank: Path, name: str) -> None:
    """Relative names, a `..` that stays inside, a link to a file inside, a file still to be created."""
    path = inside(bank, name)
    assert path == bank / name
    assert path.resolve().is_relative_to(bank.resolve())


@pytest.mark.parametrize(
    ("name", "reason"),
    [
        ("../secret.txt", "leads outside"),
        ("images/../../secret.txt", "leads outside"),
        ("/etc/passwd", "absolute path"),
        ("C:\\Windows\\win.ini", "absolute path"),
        ("\\\\server\\share\\x.png", "absolute path"),
        ("images/escape.png", "leads outside"),
        ("elsewhere/secret.txt", "leads outside"),
        ("loop/x.png", "leads outside"),
        ("", "not a file name"),
        ("images/a\0.png", "not a file name"),
    ],
    ids=["dotdot", "dotdot-deep", "posix-absolute", "windows-drive", "windows-unc", "file-link", "folder-link", "loop",
         "empty", "nul"],
)  # fmt: skip
def test_names_that_leave_the_bank_are_refused_with_a_reason_and_a_hint(bank: Path, name: str, reason: str) -> None:
    """Each way out is refused with a message a student understands."""
    with pytest.raises(UnsafePathError) as caught:
        inside(bank, name)
    assert reason in caught.value.message
    assert "inside the bank folder" in caught.value.hint


def test_within_follows_links_of_both_paths(bank: Path, tmp_path: Path) -> None:
    """A bank reached through a link of its own is still the same folder."""
    linked_bank = tmp_path / "linked-decks"
    linked_bank.symlink_to(bank, target_is_directory=True)
    assert within(linked_bank, bank / "images" / "diagram.png")
    assert not within(bank, tmp_path / "secret.txt")


def test_a_file_is_read_inside_any_of_several_roots(bank: Path, tmp_path: Path) -> None:
    """Templates have two roots (the shipped defaults, the bank's own): a link may lead from one into the other."""
    defaults = tmp_path / "defaults"
    defaults.mkdir()
    (defaults / "front.html").write_text("<p>default</p>")
    (bank / "front.html").symlink_to(defaults / "front.html")
    assert read_inside(bank / "front.html", (defaults, bank)) == b"<p>default</p>"
    with pytest.raises(UnsafePathError, match="outside its folder"):
        read_inside(bank / "front.html", (bank,))
    with pytest.raises(UnsafePathError, match="outside its folder"):
        read_inside(bank / "images" / "escape.png", (bank,))
    with pytest.raises(FileNotFoundError):
        read_inside(bank / "missing.yaml", (bank,))


def test_a_file_is_read_no_further_than_its_limit(bank: Path) -> None:
    """The limit is checked on the bytes read, not on a size the file claims."""
    assert read_inside(bank / "images" / "diagram.png", (bank,), limit=3) == b"png"
    with pytest.raises(TooLargeError, match="larger than"):
        read_inside(bank / "images" / "diagram.png", (bank,), limit=2)


@pytest.mark.skipif(not Path("/proc/self/statm").exists(), reason="the address space is measured in /proc")
def test_a_small_file_under_a_large_limit_takes_memory_for_what_it_holds(bank: Path) -> None:
    """A question file may hold 512 MiB: reading one of a few bytes must not set aside that much.

    Run where the address space a process may take is limited (``ulimit -v``), as on some
    shared machines: with 256 MiB to spare, a read that reserved its limit failed.
    """
    script = (
        "import os, resource, sys\n"
        "from pathlib import Path\n"
        "from ankibuild.paths import MAX_STREAMED_BYTES, read_inside\n"
        "used = int(Path('/proc/self/statm').read_text().split()[0]) * os.sysconf('SC_PAGE_SIZE')\n"
        "hard = resource.getrlimit(resource.RLIMIT_AS)[1]\n"
        "resource.setrlimit(resource.RLIMIT_AS, (used + 256 * 1024 * 1024, hard))\n"
        "path = Path(sys.argv[1])\n"
        "sys.stdout.buffer.write(read_inside(path, (path.parent.parent,), MAX_STREAMED_BYTES))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script, str(bank / "images" / "diagram.png")], capture_output=True, check=False
    )
    assert (done.returncode, done.stdout) == (0, b"png"), done.stderr.decode()
