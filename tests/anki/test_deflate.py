"""A collection deflated into its package, and digested, a piece at a time as it is read."""

from __future__ import annotations

import io
import random
import zipfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from ankibuild.anki.deflate import PIECE, Deflate, digests, write_deflated
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
    assert deflated.order == whole.order == digests(path)
    assert b"".join(deflated.pieces[digest] for digest in deflated.order) == stream
    with zipfile.ZipFile(buffer) as archive:
        assert archive.read("collection.anki2") == data
