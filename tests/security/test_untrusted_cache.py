"""The build cache is data, never code, and a cache folder others can write is not used."""

from __future__ import annotations

import os
import pickle
import resource
import shutil
import stat
import subprocess
import sys
import zipfile
from collections.abc import Callable
from pathlib import Path

import pytest

from ankibuild.cache import Cache, cache_root, pack, packed_digest, unpack

from ..conftest import Project, put_endless, put_pipe

PLANTED = "PLANTED BY SOMEONE ELSE"


class _Payload:
    """What a pickle runs as it is loaded: here, writing a marker file."""

    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self) -> tuple[object, tuple[str]]:
        return exec, (f"open({str(self.marker)!r}, 'w').write('ran')",)


def _collections(out: Path) -> dict[str, bytes]:
    """Each package's collection: the bytes Anki imports, whatever the zip around them."""
    found = {}
    for package in sorted(out.glob("*.apkg")):
        with zipfile.ZipFile(package) as archive:
            found[package.name] = archive.read("collection.anki2")
    return found


def _fresh_build(project: Project) -> dict[str, bytes]:
    for package in project.out.glob("*.apkg"):
        package.unlink()
    project.build()
    return _collections(project.out)


def test_a_pickle_planted_in_place_of_every_entry_never_runs(project: Project) -> None:
    """Every file of the cache folder replaced by a pickle that writes a file when loaded: nothing runs."""
    marker = project.root / "code-ran"
    payload = pickle.dumps(_Payload(marker))
    pickle.loads(payload)  # the payload is live: loading it as a pickle runs it
    assert marker.exists()
    marker.unlink()
    expected = _fresh_build(project)
    entries = [path for path in cache_root().rglob("*") if path.is_file()]
    assert len(entries) >= 5  # file results and texts, the kept lock, each package's record
    for path in entries:
        path.write_bytes(payload)
    project.edit("ai-hardware.yaml", "deck:", "# a new comment\ndeck:")
    assert _fresh_build(project) == expected
    assert not marker.exists()


def _plant(folder: Path) -> None:
    """Change every cached text so that it still passes the cache's own checks, as its owner could."""
    renamed: dict[str, str] = {}
    entries = sorted(folder.glob("*.entry"))
    for path in entries:
        header, blobs = unpack(path.read_bytes())
        if isinstance(header, list):  # a file's texts, by language
            old = packed_digest(path.read_bytes())
            blobs = [blob.replace("Intensität".encode(), PLANTED.encode()) for blob in blobs]
            path.write_bytes(pack(header, blobs))
            renamed[old] = packed_digest(path.read_bytes())
    for path in entries:
        header, blobs = unpack(path.read_bytes())
        if isinstance(header, dict):  # a file's result, which names its texts' digest
            header["texts_sha"] = renamed.get(header["texts_sha"], header["texts_sha"])
            path.write_bytes(pack(header, blobs))


def _planted_build(project: Project) -> dict[str, bytes]:
    """A build after planting: only the cached texts can put the planted words into a package."""
    project.build()
    (folder,) = [path for path in cache_root().iterdir() if path.is_dir()]  # the bank's, trusted or not
    _plant(folder)
    for kept in (folder / "kept").glob("*"):
        kept.unlink()
    return _fresh_build(project)


def test_a_planted_entry_would_change_a_package_if_the_folder_were_trusted(project: Project) -> None:
    """The control: in the user's own folder, an entry written the cache's way is used as it is."""
    planted = _planted_build(project)
    assert any(PLANTED.encode() in collection for collection in planted.values())


@pytest.mark.parametrize("how", ["writable by others", "owned by another user"])
def test_a_cache_folder_others_control_is_not_used(project: Project, how: str) -> None:
    """Planted entries in a folder someone else can write never reach a package; the build says why."""
    expected = _fresh_build(project)
    root = cache_root()
    if how == "writable by others":
        root.chmod(0o777)
    else:
        os.chown(root, 65534, 65534)
    planted = _planted_build(project)
    assert planted == expected
    assert not any(PLANTED.encode() in collection for collection in planted.values())
    warnings = project.build().warnings
    assert any(f"the cache folder {root} is not used" in warning.message for warning in warnings), warnings


@pytest.mark.parametrize("umask", [0o000, 0o022, 0o077])
def test_every_folder_the_build_makes_in_the_cache_is_private(
    project: Project, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, umask: int
) -> None:
    """The cache folder, the folders above it and the kept collections': the user's alone (0700), under any umask."""
    monkeypatch.setenv("ANKIBUILD_CACHE_DIR", str(tmp_path / "new" / "cache"))
    old = os.umask(umask)
    try:
        result = project.build()
        shutil.rmtree(Cache(project.decks).kept)  # gone between builds: made again, as privately
        project.edit("ai-hardware.yaml", "Die arithmetische Intensität", "Die Intensität")
        project.build()
    finally:
        os.umask(old)
    assert not [w for w in result.warnings if "cache folder" in w.message]
    made = [tmp_path / "new", *(path for path in (tmp_path / "new").rglob("*") if path.is_dir())]
    assert Cache(project.decks).kept in made and list(Cache(project.decks).kept.glob("*.anki2"))
    assert {folder: stat.S_IMODE(folder.stat().st_mode) for folder in made} == dict.fromkeys(made, 0o700)


def test_a_damaged_entry_is_a_miss_and_never_a_wrong_package(project: Project) -> None:
    """One changed byte in any entry: the digest of the whole tells, and the work is done again."""
    expected = _fresh_build(project)
    entries = [path for path in Cache(project.decks).folder.rglob("*") if path.is_file()]
    damaged = [path for path in entries if path.suffix in {".entry", ".record", ".memo"}]
    assert {path.suffix for path in damaged} == {".entry", ".record", ".memo"}, entries  # every sort, or none tested
    for path in damaged:
        data = bytearray(path.read_bytes())
        data[-1] ^= 0xFF
        path.write_bytes(bytes(data))
    assert _fresh_build(project) == expected


def test_a_result_of_the_files_bytes_before_an_edit_is_no_result_of_its_bytes_now(project: Project) -> None:
    """The entries of a file's result and texts before an edit, copied under the keys of its bytes after it (as
    anyone who may write the cache folder could): the file is processed again, and the packages hold the edit."""
    project.build()
    folder = Cache(project.decks).folder
    before = {path.name: path.read_bytes() for path in folder.glob("*.entry")}
    project.edit("ai-hardware.yaml", "Die arithmetische Intensität", "Die Intensität")
    expected = _fresh_build(project)
    now = {path.name for path in folder.glob("*.entry")}
    old = _by_kind({name: before[name] for name in before.keys() - now})
    new = _by_kind({name: (folder / name).read_bytes() for name in now - before.keys()})
    assert old.keys() == new.keys() == {"result", "texts"}  # the edited file's, and no other's
    for kind, name in new.items():
        (folder / name).write_bytes(before[old[kind]])
    shutil.rmtree(folder / "kept")
    assert _fresh_build(project) == expected


def _by_kind(entries: dict[str, bytes]) -> dict[str, str]:
    """Which of the entries (their bytes by name) is a file's result, and which its texts."""
    return {"result" if isinstance(unpack(packed)[0], dict) else "texts": name for name, packed in entries.items()}


@pytest.mark.slow
@pytest.mark.parametrize("change", [put_pipe, put_endless])
def test_no_file_of_the_cache_folder_is_waited_on_or_read_without_end(
    project: Project, change: Callable[[Path], None]
) -> None:
    """Every file a build through the command line keeps in the cache (the command line's options, the build's
    record, results, texts, the lock's and the published packages' memos, the kept collections) replaced: the
    next build neither hangs nor fails, and makes the same packages."""
    command = [sys.executable, "-m", "ankibuild", "build"]
    for _ in range(2):  # the second is told without click: from the options the first kept
        assert subprocess.run(command, capture_output=True, cwd=project.root, timeout=120).returncode == 0
    expected = _collections(project.out)
    kept = [path for path in cache_root().rglob("*") if path.is_file()]
    assert {path.suffix for path in kept} >= {".json", ".entry", ".memo", ".record", ".anki2"}, kept
    for path in kept:
        change(path)
    for package in project.out.glob("*.apkg"):
        package.unlink()
    # Bounded: a build reading without end would otherwise take the machine's memory before it is stopped.
    built = subprocess.run(
        command, capture_output=True, text=True, cwd=project.root, timeout=120, preexec_fn=_at_most_2_gib
    )
    assert (built.returncode, "Traceback" in built.stderr) == (0, False), built.stderr
    assert _collections(project.out) == expected


def _at_most_2_gib() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (2 << 30, 2 << 30))


def test_a_user_without_a_home_folder_builds(project: Project, monkeypatch: pytest.MonkeyPatch) -> None:
    """No HOME and no entry in the password database (a container run as a bare user number): no traceback."""

    def no_home() -> Path:
        raise RuntimeError("Could not determine home directory.")

    for name in ("ANKIBUILD_CACHE_DIR", "XDG_CACHE_HOME"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setattr(Path, "home", no_home)
    assert project.build().outputs and cache_root().is_dir()


def test_the_private_folder_of_a_build_whose_cache_is_refused_is_removed(project: Project, tmp_path: Path) -> None:
    """The program ends without running what is registered for the interpreter's exit: the folder a build kept
    its work in instead of a refused cache folder is removed all the same, or each build would leave one."""
    refused, scratch = tmp_path / "shared", tmp_path / "tmp"
    refused.mkdir()
    refused.chmod(0o777)
    scratch.mkdir()
    env = {**os.environ, "ANKIBUILD_CACHE_DIR": str(refused), "TMPDIR": str(scratch)}
    command = [sys.executable, "-m", "ankibuild", "build"]
    project.edit("ai-hardware.yaml", "questions:", "questions: [")  # a build that fails ends the same way
    failed = subprocess.run(command, capture_output=True, text=True, cwd=project.root, env=env, timeout=120)
    project.edit("ai-hardware.yaml", "questions: [", "questions:")
    built = subprocess.run(command, capture_output=True, text=True, cwd=project.root, env=env, timeout=120)
    assert failed.returncode == 1 and built.returncode == 0, built.stderr
    assert f"the cache folder {refused} is not used" in built.stderr
    assert not list(scratch.iterdir())


@pytest.mark.parametrize("variable", ["XDG_CACHE_HOME", "HOME"])
def test_a_relative_cache_home_never_puts_the_cache_in_the_bank(project: Project, variable: str) -> None:
    """``XDG_CACHE_HOME=cache`` or ``HOME=.``, found from the folder the build runs in (the bank's, a repository's
    that others write): ignored, as the XDG specification asks, the cache is never made there."""
    env = {name: value for name, value in os.environ.items() if name not in ("ANKIBUILD_CACHE_DIR", "XDG_CACHE_HOME")}
    env[variable] = "cache"
    command = [sys.executable, "-m", "ankibuild", "build"]
    built = subprocess.run(command, capture_output=True, text=True, cwd=project.root, env=env, timeout=120)
    assert built.returncode == 0 and list(project.out.glob("*.apkg")), built.stderr
    assert not (project.root / "cache").exists()
