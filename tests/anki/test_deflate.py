"""A collection deflated into its package, and digested, a piece at a time as it is read."""

from __future__ import annotations

import io
import random
import zipfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from ankibuild.anki.deflate import PIECE, Checked, Deflate, digests, write_deflated
from ankibuild.anki.package import zip_entry


@pytest.mark.parametrize("size", [6 * PIECE, 7 * PIECE + 12_345])
def test_a_file_is_deflated_and_digested_as_its_bytes_are(size: int, tmp_path: Path) -> None:
    """More pieces than are deflated at once: each buffer read into again holds a piece already deflated."""
    data = random.Random(size).randbytes(size // 2) + bytes(size - size // 2)
    path = tmp_path / "collection.anki2"
    path.write_bytes(data)
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        deflated = write_deflated(archive, zip_entry("collection.anki2"), path, known={})
    with ThreadPoolExecutor(2) as pool:
        whole = Deflate(pool, {})
        stream = whole.compress(data) + whole.flush()
    assert deflated.order == whole.order == digests(data)
    assert b"".join(deflated.pieces[digest] for digest in deflated.order) == stream
    with zipfile.ZipFile(buffer) as archive:
        assert archive.read("collection.anki2") == data


def test_only_a_piece_the_same_as_checked_with_the_same_window_before_it_takes_its_digest() -> None:
    """A changed piece, the piece after a changed window, and the last piece are digested; the others are not."""
    data = random.Random(7).randbytes(5 * PIECE + 12_345)
    changed = bytearray(data)
    changed[PIECE + 5] ^= 1  # piece 1
    changed[3 * PIECE - 5] ^= 1  # the window before piece 3
    taken = [bytes([index]) * 32 for index in range(6)]  # no digest: shows which were taken
    with ThreadPoolExecutor(2) as pool:
        deflate = Deflate(pool, {}, Checked(data, taken))
        stream = deflate.compress(bytes(changed)) + deflate.flush()
        fresh = Deflate(pool, {})
        assert stream == fresh.compress(bytes(changed)) + fresh.flush()
    real = digests(bytes(changed))
    assert deflate.order == [taken[0], real[1], real[2], real[3], taken[4], real[5]]
