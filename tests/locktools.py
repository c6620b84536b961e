"""What the tests of the lock share: a bank to merge and edit, and commands that may fail but never crash."""

from __future__ import annotations

import shutil
import tempfile
import traceback
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from click.testing import CliRunner, Result

from ankibuild.cli import main

from .conftest import DATA


def run_checked(*args: str) -> Result:
    result = CliRunner().invoke(main, list(args))
    crash = "".join(traceback.format_exception(*result.exc_info)) if result.exc_info else ""
    assert result.exception is None or isinstance(result.exception, SystemExit), crash
    assert result.exit_code in (0, 1), result.output
    assert "Traceback" not in result.output
    return result


@contextmanager
def lock_bank(files: dict[str, str | bytes] | None = None) -> Iterator[Path]:
    """A fresh copy of a small two-language bank, with ``files`` written into it."""
    with tempfile.TemporaryDirectory() as folder:
        decks = Path(folder) / "decks"
        shutil.copytree(DATA / "html-in-text", decks)
        for name, content in (files or {}).items():
            (decks / name).parent.mkdir(parents=True, exist_ok=True)
            if isinstance(content, bytes):
                (decks / name).write_bytes(content)
            else:
                (decks / name).write_text(content, encoding="utf-8")
        yield decks
