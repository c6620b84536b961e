"""What the tests of the lock share: a bank to merge and edit, and commands that may fail but never crash."""

from __future__ import annotations

import os
import shutil
import tempfile
import traceback
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from ankibuild.cli import main
from ankibuild.lock import plan

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


def encoded_in(monkeypatch: pytest.MonkeyPatch, log: Path) -> None:
    """Have every lock planned aside handed to a process of its own, however small, and each process that
    encodes a lock write down its id in ``log``."""
    monkeypatch.setattr(plan, "ASIDE_NOTES", 0)
    encoded = plan._encoded

    def logged(*args: Any) -> tuple[bytes, bytes]:
        with log.open("a") as written:
            written.write(f"{os.getpid()}\n")
        return encoded(*args)

    monkeypatch.setattr(plan, "_encoded", logged)
