"""Each package to make is started in a process of its own as soon as it is planned.

After an edit the one package, on a first build each: it is made while the build
plans the other languages, follows the published packages and writes its other
outputs; a build that stops first, or that finds the package's times raised above
the published ones, stops those processes.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from ankibuild import check
from ankibuild.anki import package, published, target
from ankibuild.cache import Cache, digest
from ankibuild.errors import BankError
from ankibuild.export.target import ExportPlan
from ankibuild.load import stage
from ankibuild.lock.clock import Clock
from ankibuild.translations.record import TRANSLATIONS_FILE, observe

from ..conftest import Project, snapshot

FILE = "ai-hardware.yaml"
DE = ("Die arithmetische Intensität ist sehr niedrig", "Die Intensität ist niedrig")

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="packages are started only where they can be forked")


@pytest.fixture
def events(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """Each process the build forks (its id), each planning of packages ("planned" and their languages) and
    each following of the published packages ("followed"), in order; every package made in a process of its
    own, however small."""
    fork, follow, plan, logged = os.fork, target._follow_published, target._plan, []

    def forked() -> int:
        pid = fork()
        if pid:
            logged.append(str(pid))
        return pid

    def followed(*args: Any, **options: Any) -> Any:
        logged.append("followed")
        return follow(*args, **options)

    def planned(*args: Any, langs: list[str], **options: Any) -> Any:
        logged.append(f"planned {' '.join(langs)}")
        return plan(*args, langs=langs, **options)

    monkeypatch.setattr(target, "PROCESS_NOTES", 0)
    monkeypatch.setattr(target, "_plan", planned)
    monkeypatch.setattr(os, "fork", forked)
    monkeypatch.setattr(target, "_follow_published", followed)
    yield logged


@pytest.fixture
def slow(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each collection takes a second to make, as a large bank's would: a process stopped is stopped mid-way."""
    make = package._collection

    def made_slowly(*args: Any, **options: Any) -> Any:
        time.sleep(1)
        return make(*args, **options)

    monkeypatch.setattr(package, "_collection", made_slowly)


def _scratch(project: Project) -> list[Path]:
    """The scratch folders the processes that made packages left in the cache."""
    return sorted(Cache(project.decks).folder.rglob(".ankibuild-*"))


def _ended(events: list[str]) -> bool:
    """Whether every process forked is over and waited for."""
    for pid in (int(event) for event in events if event.isdigit()):
        try:
            os.waitpid(pid, os.WNOHANG)
        except ChildProcessError:
            continue
        return False
    return True


def test_the_package_is_started_before_the_other_languages_are_planned_and_the_published_followed(
    project: Project, events: list[str]
) -> None:
    project.build()
    project.edit(FILE, *DE)
    events.clear()
    result = project.build()
    assert [output.path.name for output in result.outputs if output.written] == ["ai-stack-de.apkg"]
    # The packages of the edited language are planned first.
    assert events[:2] == ["planned de", events[1]] and events[1].isdigit()
    assert events[2:] == ["planned fr", "planned en", "followed"]
    assert [(c.lang, c.question, c.kind.value) for c in result.changes.items] == [
        ("de", "elementwise-ops-memory-bound", "changed")
    ]
    assert project.build().changes.items == []  # what it kept is what the next build finds
    assert _ended(events)


def test_the_package_replaced_is_followed_from_what_it_kept_however_soon_its_replacement_is_made(
    project: Project, events: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The process making the edited language's package keeps its notes, under the name the package it replaces
    kept them, only once the build took its bytes: kept over sooner, the build would read that package whole."""
    project.build()
    project.edit(FILE, *DE)
    follow, read_package, parent, read = target._follow_published, published._read_package, os.getpid(), []

    record = Cache(project.decks).kept / f"{digest(str((project.out / 'ai-stack-de.apkg').resolve()))[:16]}.record"
    kept_before = published._status(record)  # what tells a file written anew

    def followed_late(*args: Any, **options: Any) -> Any:
        # The process made the package and kept its collection (its record) first: what it keeps next, it kept
        # at once before, while the build followed the published packages.
        for _ in range(600):
            if published._status(record) not in (kept_before, None):
                break
            time.sleep(0.05)
        time.sleep(0.5)
        return follow(*args, **options)

    def read_whole(*args: Any) -> Any:
        if os.getpid() == parent:
            read.append(args)
        return read_package(*args)

    monkeypatch.setattr(target, "_follow_published", followed_late)
    monkeypatch.setattr(published, "_read_package", read_whole)
    result = project.build()
    assert [output.path.name for output in result.outputs if output.written] == ["ai-stack-de.apkg"]
    assert read == [] and _ended(events)
    project.edit(FILE, *reversed(DE))
    assert [(c.lang, c.question) for c in project.build().changes.items] == [("de", "elementwise-ops-memory-bound")]
    assert read == []  # what the process kept, once the build took the bytes, is what the next build finds


def _stops(*_: Any) -> None:
    raise RuntimeError("stopped before the package is asked for")


def test_a_build_stopped_before_it_asks_for_its_package_stops_the_process(
    project: Project, events: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The process would wait for its bytes to be read as long as the build's process lives."""
    project.build()
    project.edit(FILE, *DE)
    monkeypatch.setattr(ExportPlan, "write", _stops)
    with pytest.raises(RuntimeError, match="stopped before"):
        project.build()
    assert any(event.isdigit() for event in events) and _ended(events)


def _at(minute: int) -> Clock:
    """A clock that tells this minute of a day in 2025."""
    return Clock(lambda: 1_750_000_000 + 60 * minute)


def test_a_package_whose_times_follow_the_published_ones_is_stopped_and_not_made(
    project: Project, events: list[str], slow: None
) -> None:
    """The lock put back after an edit was built, a minute later: the edited note, stamped anew, takes its
    published time, and the package the last build made is the one this build would make."""
    project.build(clock=_at(1))
    lock = project.decks / "ankibuild.lock"
    reverted = lock.read_bytes()
    project.edit(FILE, *DE)
    project.build(clock=_at(2))
    built = {path.name: path.read_bytes() for path in (lock, *Path(project.out).glob("*.apkg"))}
    lock.write_bytes(reverted)
    events.clear()
    result = project.build(clock=_at(3))
    assert not any(output.written for output in result.outputs)
    assert {path.name: path.read_bytes() for path in (lock, *Path(project.out).glob("*.apkg"))} == built
    assert events[0] == "planned de" and events[1].isdigit() and events[-2:] == ["followed", "planned de fr en"]
    assert _ended(events) and _scratch(project) == []


def test_the_packages_of_the_other_languages_are_started_as_soon_as_they_turn_out_changed_too(
    project: Project, events: list[str], slow: None
) -> None:
    """Without the record of the last build, every package is made: each is started once planned."""
    project.build()
    project.edit(FILE, *DE)
    for record in Cache(project.decks).folder.glob("build-*.json"):
        record.unlink()
    events.clear()
    result = project.build()
    assert [output.path.name for output in result.outputs if output.written] == ["ai-stack-de.apkg"]
    assert [event if not event.isdigit() else "forked" for event in events] == [
        *("planned de", "forked", "planned fr", "forked", "planned en", "forked"),
        "followed",
    ]
    assert _ended(events) and _scratch(project) == []
    assert project.build().changes.items == []


def _forked(events: list[str]) -> list[str]:
    return [event if not event.isdigit() else "forked" for event in events]


def test_on_a_first_build_each_package_is_started_as_soon_as_its_language_is_planned(
    project: Project, events: list[str]
) -> None:
    result = project.build()
    assert [output.written for output in result.outputs] == [True] * 3
    assert _forked(events) == [
        *("planned de", "forked", "planned fr", "forked", "planned en", "forked"),
        "followed",
    ]
    assert project.build().changes.items == []  # what they kept is what the next build finds
    assert _ended(events) and _scratch(project) == []


def test_a_first_build_stopped_before_it_asks_for_its_packages_stops_every_process(
    project: Project, events: list[str], slow: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(ExportPlan, "write", _stops)
    with pytest.raises(RuntimeError, match="stopped before"):
        project.build()
    assert _forked(events).count("forked") == 3
    assert _ended(events) and _scratch(project) == []
    assert list(Path(project.out).glob("*.apkg")) == []


def test_no_more_packages_are_started_than_are_made_at_once(
    project: Project, events: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two made at once: the three of a first build are made once all are planned, by as many processes."""
    monkeypatch.setattr(target, "_most", lambda: 2)
    result = project.build()
    assert [output.written for output in result.outputs] == [True] * 3
    assert _forked(events)[:4] == ["planned de", "planned fr", "planned en", "followed"]
    assert _forked(events)[4:] == ["forked", "forked"]  # the pool's
    assert project.build().changes.items == []


def test_a_first_build_whose_package_processes_die_makes_the_packages_itself(
    project: Project, events: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each process ended as the kernel ends one when memory runs out: the build makes the bytes a build on
    threads makes."""
    parent, made, here = os.getpid(), package.package_bytes, []

    def dying(*args: Any) -> bytes:
        if os.getpid() != parent:
            os._exit(137)
        here.append(args)
        return made(*args)

    monkeypatch.setattr(target, "package_bytes", dying)
    result = project.build()
    assert [output.written for output in result.outputs] == [True] * 3
    assert _forked(events).count("forked") == 3 and _ended(events)
    assert len(here) == 3  # every package made by the build itself
    packages = {path.name: path.read_bytes() for path in Path(project.out).glob("*.apkg")}
    shutil.rmtree(Cache(project.decks).folder)
    shutil.rmtree(project.out)
    monkeypatch.setattr(target, "can_fork", lambda: False)
    project.build()
    assert {path.name: path.read_bytes() for path in Path(project.out).glob("*.apkg")} == packages


def _kill_left(events: list[str]) -> None:
    """Stop whatever a failed test left running: only the processes this test's build forked."""
    for pid in (int(event) for event in events if event.isdigit()):
        with contextlib.suppress(ProcessLookupError, ChildProcessError):
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)


@pytest.mark.parametrize("edited", [False, True], ids=["first build", "edit"])
def test_a_package_process_that_dies_mid_way_leaves_no_scratch_folder(
    project: Project, events: list[str], monkeypatch: pytest.MonkeyPatch, edited: bool
) -> None:
    """A process dies while it makes its collection (as the kernel ends one out of memory): the build makes
    the package itself, and removes what the dead process was making, as it does for one it stops."""
    if edited:
        project.build()
        project.edit(FILE, *DE)
    parent, make = os.getpid(), package._collection

    def dying(*args: Any, **options: Any) -> Any:
        if os.getpid() != parent:
            os._exit(137)  # inside the process's scratch folder
        return make(*args, **options)

    monkeypatch.setattr(package, "_collection", dying)
    events.clear()
    result = project.build()
    assert [output.written for output in result.outputs] == [
        not edited or output.lang == "de" for output in result.outputs
    ]
    assert any(event.isdigit() for event in events) and _ended(events)
    assert _scratch(project) == []


def test_an_interrupt_while_a_package_process_is_forked_leaves_no_process_running(
    project: Project, events: list[str], slow: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Ctrl-C pressed while the build forks a package's process: held during the fork, it is raised as the
    signals are let come, before the build holds the process. Pending signals are not inherited: the
    process does not see that Ctrl-C, and would go on making its package after the build stopped."""
    fork = os.fork  # the events fixture's, which logs each child's id

    def interrupted() -> int:
        pid = fork()
        if pid and sys._getframe(1).f_globals.get("__name__") == "ankibuild.forked":
            # To this thread, which holds it until the fork's signals are let come (the test's runner has others).
            signal.pthread_kill(threading.get_ident(), signal.SIGINT)
        return pid

    monkeypatch.setattr(os, "fork", interrupted)
    # Ctrl-C as in a terminal: a runner started in the background without job control ignores SIGINT, and so
    # does every process it starts.
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        with pytest.raises(KeyboardInterrupt):
            project.build()
        assert any(event.isdigit() for event in events)
        assert _ended(events)
    finally:
        signal.signal(signal.SIGINT, previous)
        _kill_left(events)


def test_a_second_interrupt_while_one_process_is_stopped_still_stops_the_others(
    project: Project, events: list[str], slow: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A first build stopped before it asks for its packages stops its three processes one after the other:
    a Ctrl-C while the first one's scratch is removed (a second Ctrl-C) still has the other two stopped."""
    monkeypatch.setattr(ExportPlan, "write", _stops)
    remove, calls = package.remove_scratch, []

    def interrupted(*args: Any) -> None:
        remove(*args)
        calls.append(args)
        if len(calls) == 1:
            raise KeyboardInterrupt

    monkeypatch.setattr(target, "remove_scratch", interrupted)
    try:
        with pytest.raises(KeyboardInterrupt):
            project.build()
        assert _forked(events).count("forked") == 3
        assert _ended(events) and len(calls) == 3
    finally:
        _kill_left(events)


def test_no_process_is_started_only_to_be_stopped_when_every_package_changes_without_new_stamps(
    project: Project, events: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A card template edited: every package changes, and no note is stamped anew. Two made at once, the
    first two languages planned are too few to tell: were their packages started, they would be stopped once
    the third is planned, their work thrown away, for a pool to make all three (on two cores: four languages,
    or --split)."""
    project.build()
    monkeypatch.setattr(target, "_most", lambda: 2)
    css = next(Path(project.templates).rglob("*.css"))
    css.write_text(css.read_text(encoding="utf-8") + "\n.edited { color: red }\n", encoding="utf-8")
    events.clear()
    result = project.build()
    assert [output.written for output in result.outputs] == [True] * 3
    assert _forked(events) == [*("planned de", "planned fr", "planned en"), "followed", "forked", "forked"]
    assert project.build().changes.items == []


@pytest.fixture
def observed(events: list[str], monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The events, with each observing of the translations record ("observed")."""

    def logged(*args: Any, **options: Any) -> Any:
        events.append("observed")
        return observe(*args, **options)

    monkeypatch.setattr(stage, "observe", logged)
    return events


def _damage_record(project: Project) -> None:
    path = project.decks / TRANSLATIONS_FILE
    path.write_text(path.read_text(encoding="utf-8") + "\nq1\n", encoding="utf-8")


def test_the_translations_record_is_observed_once_the_package_is_started_its_warnings_told_first(
    project: Project, observed: list[str]
) -> None:
    """Observed before the package's process is started, it held the process back; its warnings still come
    first, with the others the loading finds, in the order a check tells them (a build, which records the
    change, tells its date where a check tells it as changed since the last build)."""
    project.build()
    project.edit(FILE, *DE)
    told = check(decks=project.decks).items
    assert any("may be outdated" in problem.message for problem in told)
    observed.clear()
    result = project.build(clock=Clock(lambda: 1_760_000_000))
    assert observed[0] == "planned de" and observed[1].isdigit()
    assert observed[2:] == ["planned fr", "planned en", "observed", "followed"]
    undated = [replace(p, message=p.message.replace("on 2025-10-09", "since the last build")) for p in result.warnings]
    assert undated[: len(told)] == told
    assert _ended(observed)


@pytest.mark.parametrize("strict", [False, True])
def test_a_translations_record_that_fails_the_build_once_the_package_is_started_stops_it(
    project: Project, observed: list[str], strict: bool
) -> None:
    """A damaged record, or in a strict build a translation outdated: the build fails as a check does, its
    package's process stopped, nothing written."""
    project.build()
    project.edit(FILE, *DE)
    if not strict:
        _damage_record(project)
    with pytest.raises(BankError) as checked:
        check(decks=project.decks, strict=strict)
    before = snapshot(project.out, project.decks)
    observed.clear()
    with pytest.raises(BankError) as raised:
        project.build(strict=strict)
    assert raised.value.problems == checked.value.problems
    assert observed.index("observed") > next(i for i, event in enumerate(observed) if event.isdigit())
    assert _ended(observed) and _scratch(project) == []
    assert snapshot(project.out, project.decks) == before


def test_a_damaged_translations_record_fails_a_build_before_what_planning_finds(
    project: Project, observed: list[str]
) -> None:
    """A frozen build whose lock would change: the record's problem is told, as when it was observed first."""
    project.build()
    project.edit(FILE, *DE)
    _damage_record(project)
    with pytest.raises(BankError) as checked:
        check(decks=project.decks)
    observed.clear()
    with pytest.raises(BankError) as raised:
        project.build(frozen=True)
    assert raised.value.problems == checked.value.problems
    assert not any(event.isdigit() for event in observed)
