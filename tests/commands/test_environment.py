"""Faults of the machine, not of the bank: one clear line, exit code 1, and the previous outputs intact.

A full disk, a read-only output folder, a file size limit, a closed standard
output: each is met by real build processes, never a mock.
"""

from __future__ import annotations

import contextlib
import os
import resource
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner

from ankibuild.cli import main
from ankibuild.faults import INTERRUPTED, INTERRUPTED_WORDS, PROCESS_STOPPED
from ankibuild.translations.record import TRANSLATIONS_FILE

from ..conftest import ROOT, Project, snapshot

pytestmark = pytest.mark.slow  # a build in a child process per fault

OLD = "Die arithmetische Intensität ist sehr niedrig"


def _build(
    project: Project, out: Path, *, shell: str = "", limit: int = 0, stdout: int | None = None
) -> subprocess.CompletedProcess[str]:
    """``ankibuild build --out OUT`` as its own process, its output redirected by ``shell`` or sent to ``stdout``."""
    command = f"{sys.executable} -m ankibuild build --out {out} {shell}"

    def limited() -> None:
        if limit:  # writes past this size fail with EFBIG instead of killing the process
            signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
            resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    return subprocess.run(
        command,
        shell=True,
        executable="/bin/bash",
        cwd=project.root,
        stdout=subprocess.PIPE if stdout is None else stdout,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        preexec_fn=limited,
    )


def _one_line_error(result: subprocess.CompletedProcess[str], *expected: str) -> None:
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert result.returncode == 1, result.stderr
    assert len(lines) == 1 and lines[0].startswith("Error: "), result.stderr
    assert all(part in lines[0] for part in expected), lines[0]


def _fill(path: Path) -> None:
    """Write ``path`` until its disk is full."""
    with path.open("wb", buffering=0) as file, contextlib.suppress(OSError):
        while True:
            file.write(b"\0" * 1024)


@pytest.fixture
def small_disk(tmp_path: Path) -> Iterator[Callable[[str], None]]:
    """An output folder on a file system of its own, 256 KiB, whose options can be changed."""
    folder = tmp_path / "disk"
    folder.mkdir()
    mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=256k", "tmpfs", str(folder)], capture_output=True)
    if mounted.returncode != 0:
        pytest.skip(f"cannot mount a small file system here: {mounted.stderr.decode().strip()}")

    def remount(options: str) -> None:
        subprocess.run(["mount", "-o", f"remount,{options}", str(folder)], check=True)

    yield remount
    subprocess.run(["umount", str(folder)], check=True)


def test_a_full_disk_is_one_line_and_the_previous_outputs_stay(
    project: Project, small_disk: Callable[[str], None]
) -> None:
    """The disk fills while the packages are written: the message names the file, nothing is half-written."""
    out = project.root / "disk"
    assert _build(project, out).returncode == 0
    _fill(out / "filler")
    project.edit("ai-hardware.yaml", OLD, "Die Intensität ist gering")
    before = snapshot(out, project.decks)
    result = _build(project, out)
    _one_line_error(result, str(out), "No space left on device")
    assert snapshot(out, project.decks) == before
    assert not list(out.glob(".*.tmp"))


def test_a_disk_full_half_way_puts_no_package_in_place(project: Project, small_disk: Callable[[str], None]) -> None:
    """Room on the disk for one new package of three: none is put in place, where the first one used to be."""
    out = project.root / "disk"
    assert _build(project, out).returncode == 0
    sizes = [package.stat().st_size for package in out.glob("*.apkg")]
    for package in out.glob("*.apkg"):
        package.unlink()
    disk = os.statvfs(out)
    (out / "filler").write_bytes(b"\0" * (disk.f_bavail * disk.f_frsize - max(sizes) * 3 // 2))
    before = snapshot(out, project.decks)
    _one_line_error(_build(project, out), str(out), "No space left on device")
    assert snapshot(out, project.decks) == before
    assert not list(out.glob(".*.tmp"))


def test_a_record_that_cannot_be_written_changes_no_output(project: Project) -> None:
    """A folder where the translations record goes: found as it is readied, before any package or file for a
    learning platform is put in place."""
    assert _build(project, project.out, shell="--export gift").returncode == 0
    assert list(project.out.glob("*.gift.txt"))
    record = project.decks / TRANSLATIONS_FILE
    record.unlink()
    record.mkdir()
    project.edit("ai-hardware.yaml", OLD, "Die Intensität ist gering")
    before = snapshot(project.out, project.decks)
    result = _build(project, project.out, shell="--export gift")
    assert result.returncode == 1, result.stderr
    error = "Error: decks/translations.lock: Is a directory. Every file is as it was or whole and new; move the folder"
    assert result.stderr.splitlines()[-1].startswith(error), result.stderr
    assert snapshot(project.out, project.decks) == before
    assert not [*project.out.glob(".*.tmp"), *project.decks.glob(".*.tmp")]


def test_a_read_only_output_folder_is_one_line(project: Project, small_disk: Callable[[str], None]) -> None:
    """Nothing can be written: the message says so for the first package, and the bank is not touched."""
    out = project.root / "disk"
    assert _build(project, out).returncode == 0
    small_disk("ro")
    project.edit("ai-hardware.yaml", OLD, "Die Intensität ist gering")
    before = snapshot(out, project.decks)
    _one_line_error(_build(project, out), str(out), "Read-only file system")
    assert snapshot(out, project.decks) == before


def test_a_file_size_limit_is_one_line_and_the_previous_outputs_stay(project: Project) -> None:
    """``ulimit -f``: writing past the limit fails; the build says which file and keeps the old ones."""
    assert _build(project, project.out).returncode == 0
    project.edit("ai-hardware.yaml", OLD, "Die Intensität ist gering")
    before = snapshot(project.out, project.decks)
    _one_line_error(_build(project, project.out, limit=4096))  # which file fails first varies
    assert snapshot(project.out, project.decks) == before
    assert not list(project.out.glob(".*.tmp"))


#: The program as its script starts it, once ``setup`` ran: with the signals that end it as a terminal leaves them
#: (a test runner's worker may ignore some, and a child inherits that).
_PROGRAM = """
import os, signal, sys
signal.signal(signal.SIGINT, signal.default_int_handler)
signal.signal(signal.SIGTERM, signal.SIG_DFL)
signal.signal(signal.SIGHUP, signal.SIG_DFL)
{setup}
sys.argv = ["ankibuild", *sys.argv[1:]]
from ankibuild.__main__ import main
main()
"""


def _program(project: Project, setup: str, *args: str) -> subprocess.CompletedProcess[str]:
    """The program run with ``args`` in the project's folder, once ``setup`` (Python) ran in its process."""
    command = [sys.executable, "-c", _PROGRAM.format(setup=setup), *args]
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    return subprocess.run(command, cwd=project.root, capture_output=True, text=True, env=env)


@pytest.mark.parametrize("module", ["genanki", "click", "yaml", "markdown_it"])
def test_an_installation_without_a_dependency_is_one_line(project: Project, module: str) -> None:
    """Installed without its dependencies, or one removed since: the module is named, with how to mend it."""
    before = snapshot(project.decks)
    missing = f"sys.modules[{module!r}] = None  # any import of it fails, as when it is not installed"
    result = _program(project, missing, "build", "--out", str(project.out))
    _one_line_error(result, f"cannot load the module '{module}'", "pip install --force-reinstall ankibuild")
    assert snapshot(project.decks) == before
    assert not project.out.exists()


#: ``setup`` for :func:`_program` that sends the process the signal named ``name`` as the quick look begins.
_SIGNALLED_AT_ONCE = """
from ankibuild.state import BuildState
looking = BuildState.unchanged
def signalled(self):
    os.kill(os.getpid(), signal.{name})
    return looking(self)
BuildState.unchanged = signalled
"""


@pytest.mark.parametrize("name", ["SIGINT", "SIGTERM", "SIGHUP"])
def test_a_command_interrupted_before_it_builds_is_one_line(project: Project, name: str) -> None:
    """Ctrl-C, a CI job cancelled or a terminal closed while the build looks whether anything changed (most of
    a build with nothing to do): said as any interruption is, with its exit code."""
    assert _build(project, project.out).returncode == 0
    result = _program(project, _SIGNALLED_AT_ONCE.format(name=name), "build", "--out", str(project.out))
    assert result.returncode == INTERRUPTED, result.stderr
    assert result.stderr.splitlines() == [INTERRUPTED_WORDS]


#: ``setup`` for :func:`_program` that sends the process the signal named ``name`` as a package is to be put in
#: place, its new bytes whole in its temporary file, the records' written ahead.
_SIGNALLED_AS_A_PACKAGE_IS_PUT = """
replace = os.replace
def signalled(source, destination):
    if os.fspath(destination).endswith(".apkg"):
        os.kill(os.getpid(), signal.{name})
    replace(source, destination)
os.replace = signalled
"""


@pytest.mark.parametrize("name", ["SIGTERM", "SIGHUP"])
def test_a_build_ended_by_a_signal_leaves_no_temporary_file(project: Project, name: str) -> None:
    """A CI job cancelled, a terminal closed: the build ends as on Ctrl-C, the files it was writing removed,
    none left beside the bank to be committed."""
    assert _build(project, project.out).returncode == 0
    project.edit("ai-hardware.yaml", OLD, "Die Intensität ist gering")
    before = snapshot(project.out, project.decks)
    setup = _SIGNALLED_AS_A_PACKAGE_IS_PUT.format(name=name)
    result = _program(project, setup, "build", "--out", str(project.out))
    assert result.returncode == INTERRUPTED, result.stderr
    assert result.stderr.splitlines()[-1] == INTERRUPTED_WORDS
    assert snapshot(project.out, project.decks) == before
    assert not [*project.out.glob(".*.tmp"), *project.decks.glob(".*.tmp")]


#: The start of a ``setup`` for :func:`_program`: the question files are processed by two workers, the
#: smallest one last (the largest go first).
_TWO_WORKERS = """
import time
from pathlib import Path
import ankibuild.load.deckfiles as deckfiles
deckfiles.PARALLEL_BYTES = 0
questions = [path for path in Path("decks").glob("*.yaml") if path.name != "bank.yaml"]
last = min(questions, key=lambda path: path.stat().st_size).name
processed = deckfiles._process_job
"""

#: ``setup`` for :func:`_program`: the worker that processes the last question file waits until the other is
#: idle, then does ``{act}``.
_A_WORKER_THAT_ENDS_THE_BUILD = (
    _TWO_WORKERS
    + """
def processing(path, *args, **kwargs):
    if path.name == last:
        time.sleep(0.5)
        {act}
    return processed(path, *args, **kwargs)
deckfiles._process_job = processing
"""
)

#: ``setup`` for :func:`_program`: the worker that processes the last question file has sent half of its result
#: when it does ``{act}``, which ends it there.
_A_WORKER_ENDED_WHILE_IT_SENDS_ITS_RESULT = (
    _TWO_WORKERS
    + """
from multiprocessing import connection
send = connection.Connection._send
sending = []
def processing(path, *args, **kwargs):
    done = processed(path, *args, **kwargs)
    if path.name == last:
        sending.append(path)
        return done, bytes(1 << 20)  # sent in two parts: its length, then itself
    return done
def half_sent(self, data, *args):
    if sending and len(data) > 1 << 19:
        os.write(self.fileno(), bytes(data)[: len(data) // 2])
        {act}
    send(self, data, *args)
deckfiles._process_job = processing
connection.Connection._send = half_sent
"""
)


def _left_behind(project: Project, setup: str) -> tuple[subprocess.CompletedProcess[str], bool]:
    """The program run as :func:`_program` runs it, in a process group of its own, on the bank with two copies of
    its question file, each larger than it (by its questions' ids): three files for two workers. Whether any
    process of that group is still there some seconds after the program ended (one that holds the bank's lock)."""
    text = (project.decks / "ai-hardware.yaml").read_text(encoding="utf-8")
    for copy in ("copy", "second-copy"):
        renamed = text.replace("  - id: ", f"  - id: {copy}-").replace("KI-Hardware", f"KI-Hardware {copy}")
        renamed = renamed.replace("Pile matérielle", f"Pile {copy}").replace("AI hardware", f"AI hardware {copy}")
        (project.decks / f"{copy}.yaml").write_text(renamed, encoding="utf-8")
    command = [sys.executable, "-c", _PROGRAM.format(setup=setup), "build", "--out", str(project.out)]
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    with tempfile.TemporaryFile("w+") as errors:  # not a pipe: a process left behind would hold it open
        program = subprocess.Popen(command, cwd=project.root, stderr=errors, text=True, env=env, start_new_session=True)
        try:
            code = program.wait(timeout=60)
        except subprocess.TimeoutExpired:  # stalled: its processes are killed below
            code = -1
        left = not _ended(program.pid)
        errors.seek(0)
        return subprocess.CompletedProcess(command, code, "", errors.read()), left


def _ended(group: int, seconds: float = 5) -> bool:
    """Whether every process of the process group ``group`` ended within ``seconds``; those left are killed."""
    deadline = time.monotonic() + seconds
    while (running := _running(group)) and time.monotonic() < deadline:
        time.sleep(0.1)
    for pid in running:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
    return not running


def _running(group: int) -> list[int]:
    """The processes of the process group ``group`` still running: not those ended but not yet reaped."""
    found = []
    for entry in Path("/proc").iterdir():
        with contextlib.suppress(OSError, ValueError, IndexError):
            # After the name in brackets: the state, the parent, the group.
            state, _, pgrp, *_ = (entry / "stat").read_text().rpartition(")")[2].split()
            if entry.name.isdigit() and int(pgrp) == group and state != "Z":
                found.append(int(entry.name))
    return found


def _ended_in_one_line(project: Project, setup: str, code: int, line: str) -> None:
    """The program, run with ``setup`` as :func:`_left_behind` runs it, ends with ``code`` having said ``line``
    alone, no process of it is left behind, and no output is written."""
    result, left = _left_behind(project, setup)
    assert not left, result.stderr
    assert result.returncode == code, result.stderr
    assert result.stderr.splitlines() == [line]
    assert not project.out.exists()


@pytest.mark.parametrize("name", ["SIGINT", "SIGTERM", "SIGHUP"])
def test_a_signal_to_every_process_of_the_build_is_one_line(project: Project, name: str) -> None:
    """Ctrl-C in a terminal, a CI job cancelled, a terminal closed: every process of the build gets the signal, a
    worker idle among them. The build says it in one line, and no process of it is left holding the bank."""
    setup = _A_WORKER_THAT_ENDS_THE_BUILD.format(act=f"os.killpg(os.getpgrp(), signal.{name}); time.sleep(5)")
    _ended_in_one_line(project, setup, INTERRUPTED, INTERRUPTED_WORDS)


def test_a_signal_while_a_worker_sends_its_result_is_one_line(project: Project) -> None:
    """Stopped while a worker has sent part of its result: the pool's own thread waits for the rest forever. The
    build does not wait for it, says it was interrupted, and ends."""
    setup = _A_WORKER_ENDED_WHILE_IT_SENDS_ITS_RESULT.format(act="os.killpg(os.getpgrp(), signal.SIGTERM)")
    _ended_in_one_line(project, setup, INTERRUPTED, INTERRUPTED_WORDS)


def test_a_worker_killed_while_it_sends_its_result_is_one_line(project: Project) -> None:
    """The kernel kills a worker out of memory once it sent part of its result, and nothing else: the pool's own
    thread waits for the rest forever, and never finds the pool broken. The build finds the worker gone, says so
    in one line, and ends."""
    setup = _A_WORKER_ENDED_WHILE_IT_SENDS_ITS_RESULT.format(act="os.kill(os.getpid(), signal.SIGKILL)")
    _ended_in_one_line(project, setup, 1, f"Error: {PROCESS_STOPPED}")


def test_a_worker_killed_is_one_line_and_the_others_end(project: Project) -> None:
    """A worker dies as the kernel ends one out of memory; the pool ends the others with SIGTERM. The build says
    so in one line, and no process of it is left behind."""
    setup = _A_WORKER_THAT_ENDS_THE_BUILD.format(act="os._exit(137)")
    _ended_in_one_line(project, setup, 1, f"Error: {PROCESS_STOPPED}")


def test_a_folder_removed_under_the_command_is_one_line(project: Project) -> None:
    """Started in a folder removed since (a branch switched in another terminal): said so, not a traceback."""
    command = (
        f"mkdir gone && cd gone && rmdir ../gone && exec {shlex.quote(sys.executable)} -m ankibuild build "
        f"--decks {shlex.quote(str(project.decks))} --out {shlex.quote(str(project.out))}"
    )
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    result = subprocess.run(command, shell=True, cwd=project.root, capture_output=True, text=True, env=env)
    _one_line_error(result, "the folder this command was started in no longer exists", "(cd)")
    assert not project.out.exists()


def test_a_full_standard_output_is_one_line(project: Project) -> None:
    """``ankibuild build > /dev/full``: with nothing to do as after an edit, the summary that cannot be
    written is said in one line, exit 1."""
    assert _build(project, project.out).returncode == 0
    _one_line_error(_build(project, project.out, shell="> /dev/full"), "No space left on device")
    project.edit("ai-hardware.yaml", OLD, "Die Intensität ist gering")
    edited = _build(project, project.out, shell="> /dev/full")  # its warnings first: the other texts may be outdated
    assert edited.returncode == 1, edited.stderr
    assert edited.stderr.splitlines()[-1].startswith("Error: No space left on device"), edited.stderr


#: ``setup`` for :func:`_program`: the system refuses every thread, as under a low limit on processes or memory.
_NO_THREAD = """
import threading
def refused(self):
    raise RuntimeError("can't start new thread")
threading.Thread.start = refused
"""


def test_a_thread_refused_is_one_line(project: Project) -> None:
    """A container's limit on processes, a low ``ulimit -v``: the build could not start a thread, and says so."""
    assert _build(project, project.out).returncode == 0
    project.edit("ai-hardware.yaml", OLD, "Die Intensität ist gering")
    before = snapshot(project.out, project.decks)
    result = _program(project, _NO_THREAD, "build", "--out", str(project.out))
    _one_line_error(result, "would not give the command a thread", "ulimit")
    assert snapshot(project.out, project.decks) == before


def test_a_locale_without_utf8_is_one_line(project: Project, tmp_path: Path) -> None:
    """A bank in a folder named ``lök`` built again with the C locale and Python's UTF-8 mode turned off, in which
    Python encodes file names in ASCII: said so, with the locale to use."""
    root = tmp_path / "lök"
    shutil.copytree(project.root, root)
    env = {name: value for name, value in os.environ.items() if not name.startswith(("LC_", "LANG", "PYTHONIO"))}
    env["PYTHONPATH"] = str(ROOT / "src")
    command = [sys.executable, "-m", "ankibuild", "build"]
    assert subprocess.run(command, cwd=root, capture_output=True, env=env).returncode == 0  # its cache names the folder
    ascii_only = env | {"LC_ALL": "C", "PYTHONUTF8": "0"}
    result = subprocess.run(command, cwd=root, capture_output=True, text=True, env=ascii_only, encoding="utf-8")
    _one_line_error(result, "cannot be written in this system's encoding", "LC_ALL=C.UTF-8")


def _without_overriding_permissions() -> list[str]:
    """What to start a command with so that the permissions of files bind it: root's are dropped."""
    if os.geteuid() != 0:
        return []
    if shutil.which("setpriv") is None:
        pytest.skip("root reads every folder, and setpriv is not here to drop that")
    dropped = "-dac_override,-dac_read_search"
    return ["setpriv", f"--inh-caps={dropped}", f"--bounding-set={dropped}"]


def test_a_folder_of_the_bank_that_cannot_be_listed_is_named(project: Project) -> None:
    """``chmod 000`` on a folder of the bank after a build: the build says which folder it cannot list, as a
    check does. The quick look, which lists every folder before anything else, takes it for a change."""
    assert _build(project, project.out).returncode == 0
    folder = project.decks / "more"
    folder.mkdir()
    folder.chmod(0)
    command = [*_without_overriding_permissions(), sys.executable, "-m", "ankibuild", "build"]
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    try:
        result = subprocess.run(command, cwd=project.root, capture_output=True, text=True, env=env)
    finally:
        folder.chmod(0o755)
    assert result.returncode == 1, result.stderr
    assert "decks/more: error: cannot list the folder: Permission denied" in result.stderr
    assert "Traceback" not in result.stderr


def test_a_closed_standard_output_still_builds(project: Project) -> None:
    """``ankibuild build >&-`` (or with standard error closed): the packages are written, exit 0."""
    for closed in (">&-", "2>&-", ">&- 2>&-"):
        result = _build(project, project.root / f"out{len(closed)}", shell=closed)
        assert result.returncode == 0, result.stderr
        assert len(list((project.root / f"out{len(closed)}").glob("*.apkg"))) == 3


def test_output_closed_by_the_reader_is_one_line(project: Project) -> None:
    """``ankibuild build | head -c 0``: the build is done; that its summary was cut is said in one line."""
    reader, writer = os.pipe()
    os.close(reader)  # gone before the build writes a line, as head -c 0 is by then (but always)
    try:
        result = _build(project, project.out, stdout=writer)
    finally:
        os.close(writer)
    assert len(list(project.out.glob("*.apkg"))) == 3
    _one_line_error(result, "standard output was closed")


def test_a_library_call_on_a_full_disk_raises_an_os_error_naming_the_file(
    project: Project, small_disk: Callable[[str], None]
) -> None:
    """In-process (the command's own handling): the same one line through click, exit 1."""
    out = project.root / "disk"
    _fill(out / "filler")
    result = CliRunner().invoke(main, ["build", "--out", str(out)])
    assert result.exit_code == 1 and result.exception is not None
    assert "No space left on device" in result.output and "Traceback" not in result.output


def _killed(index: int) -> bytes:
    """A process making a package, ended as the kernel ends one when memory runs out: at once, with nothing said."""
    os._exit(137)


def test_a_build_process_killed_before_it_is_done_is_one_line_not_a_traceback(
    project: Project, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A package's process dies: the build says so in one line, exits 1, and leaves the outputs as they were."""
    assert CliRunner().invoke(main, ["build"]).exit_code == 0
    before = snapshot(project.out)
    # Every package made in a forked process, each of which dies: more packages than are made each in a
    # process of its own, a pool's (where one started alone that dies has its package made by the build).
    monkeypatch.setattr("ankibuild.anki.target.PROCESS_NOTES", 0)
    monkeypatch.setattr("ankibuild.anki.target._most", lambda: 1)
    monkeypatch.setattr("ankibuild.anki.target._made", _killed)
    (project.decks / "ai-hardware.yaml").write_text(
        (project.decks / "ai-hardware.yaml").read_text(encoding="utf-8").replace(OLD, "Die Intensität ist niedrig"),
        encoding="utf-8",
    )
    result = CliRunner().invoke(main, ["build", "--lang", "de", "--lang", "fr"])
    assert result.exit_code == 1, result.output
    assert "Traceback" not in result.output
    assert "a process of the build stopped before its work was done" in result.output
    assert snapshot(project.out) == before
