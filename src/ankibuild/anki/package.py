"""Package stage: write ``.apkg`` files that are byte-for-byte reproducible.

A package is a zip of its collection (see :mod:`.collection`), made from the one
kept by its last build when it can be (see :mod:`.kept`), and of its media, with
fixed entry order and times.
"""

from __future__ import annotations

import contextlib
import errno
import io
import json
import os
import shutil
import sqlite3
import sys
import tempfile
import zipfile
from collections.abc import Iterator
from pathlib import Path

from ..paths import open_regular
from .collection import create, update, vacuum
from .deflate import COMPRESS_LEVEL, PIECE, Checked, Opened, digests, write_deflated
from .kept import Kept, Record, seal
from .spec import COLLECTION, PackageSpec

#: Every zip entry gets this time: the earliest a zip file can record.
ZIP_TIME = (1980, 1, 1, 0, 0, 0)


def _collection(spec: PackageSpec, base: Base | None, scratch: Path) -> tuple[Path, Checked | None]:
    """The package's collection, canonical: from the kept one (``base``) when it can be, else from nothing.

    With it, the kept one, as checked, when it was made from it.
    """
    work, made = scratch / "work.anki2", scratch / "collection.anki2"
    if base and base[1].frame == spec.frame and (checked := _from_kept(spec, *base, work=work, made=made)):
        return made, checked
    for path in (work, made):
        path.unlink(missing_ok=True)
    create(spec, work)
    vacuum(work, made)  # a new collection's cookie is always the same, set or not
    return made, None


#: The kept collection, open, and the record of what it holds.
Base = tuple[io.BufferedReader, Record]


def _from_kept(spec: PackageSpec, base: io.BufferedReader, record: Record, *, work: Path, made: Path) -> Checked | None:
    """Make ``made`` from the kept collection ``base`` of ``record``: that, as checked; None when it cannot be used.

    What is copied is what was checked, which nothing else writes: read once, and digested, unless
    its status proves it is as kept (see :meth:`Record.holds`). What it holds spares digesting the
    pieces of ``made`` that are the same.
    """
    try:
        unlike = record.unlike(spec.notes)
        if unlike is None:  # forged
            return None
        info = os.fstat(base.fileno())
        if record.holds(info):  # compared again, a part at a time, only where ``made`` is the same
            checked = Checked(Opened(base, info), record.order)
            _copy(base, work, info.st_size)
        else:
            content = base.read()
            if digests(content) != list(record.order):  # damaged since it was kept
                return None
            checked = Checked(content, record.order)
            work.write_bytes(content)
        update(spec, work, unlike)
        return checked if vacuum(work, made) else None
    except (OSError, sqlite3.Error):  # gone meanwhile, or damaged: made from nothing instead
        return None


def _copy(source: io.BufferedReader, target: Path, size: int) -> None:
    """Copy the first ``size`` bytes of ``source`` to the new file ``target``: by the system, where it can.

    The 15 MB of a collection of 10,000 notes never pass through this process's memory: read then
    written, they cost 3,700 page faults and took 7.8 ms, against 5.3.
    """
    done = 0
    with target.open("xb") as copy:
        if sys.platform == "linux":
            with contextlib.suppress(OSError):  # between file systems it cannot copy: copied as any other file
                while done < size and (
                    part := os.copy_file_range(source.fileno(), copy.fileno(), size - done, done, done)
                ):
                    done += part
        source.seek(done)
        copy.seek(done)
        while done < size and (read := source.read(min(size - done, PIECE))):
            copy.write(read)
            done += len(read)


@contextlib.contextmanager
def _opened(kept: Kept | None, record: Record | None) -> Iterator[Base | None]:
    """The kept collection of ``record``, open, with it: only a regular file, never one a link leads to."""
    if kept is None or record is None:
        yield None
        return
    try:
        file = open_regular(kept.collection(record.digest), follow=False)
    except (OSError, ValueError):  # none, a link, or anything but a regular file
        yield None
        return
    with file:
        yield file, record


def _kept_as_it_is(spec: PackageSpec, record: Record | None, checked: Checked | None) -> bool:
    """Whether the collection kept stays, as it is: the package's own, the same file as the one made from it, and
    known to be as kept (see :meth:`Record.holds`). Moved in its place, the new one would take away the file read."""
    return record is not None and record.digest == spec.digest and checked is not None and checked.opened()


def zip_entry(name: str) -> zipfile.ZipInfo:
    """A zip entry that is the same on every machine and at every time: deflated, with a fixed time."""
    info = zipfile.ZipInfo(name, date_time=ZIP_TIME)
    info.compress_type = zipfile.ZIP_DEFLATED
    info._compresslevel = COMPRESS_LEVEL  # type: ignore[attr-defined]  # no public setter before 3.13
    info.create_system = 3  # the same on every platform
    info.external_attr = 0o644 << 16
    return info


def package_bytes(spec: PackageSpec, kept: Kept | None = None) -> bytes:
    """The whole ``.apkg``: fixed entry order and times, deflated.

    With ``kept``, the package's collection is made from the one kept there by
    its last build, and kept there in turn; if that fails (a full or odd cache
    disk), the package is made again without it. The collection is streamed
    into the zip from its file.
    """
    if kept is not None and kept.writable():
        with contextlib.suppress(OSError, sqlite3.Error):
            return _package(spec, kept)
    try:
        return _package(spec, None)
    except sqlite3.Error as err:  # the temporary folder's disk is full, or read-only, too
        where = tempfile.gettempdir()
        raise OSError(errno.EIO, f"cannot write a temporary collection there ({err})", where) from err


def scratch_prefix(pid: int) -> str:
    """How the scratch folders of the process ``pid`` making a package are named: by process, so that
    the build removes those of one it stopped (:func:`remove_scratch`), which had no time to."""
    return f".ankibuild-{pid}-"


def remove_scratch(folder: Path, pid: int) -> None:
    """Remove the scratch folders that the process ``pid``, stopped while it made a package, left in ``folder``."""
    for left in folder.glob(f"{scratch_prefix(pid)}*"):
        shutil.rmtree(left, ignore_errors=True)


def _package(spec: PackageSpec, kept: Kept | None) -> bytes:
    buffer = io.BytesIO()
    record = kept.read() if kept else None
    # Made beside the kept collections, to take the place of the old one with a rename.
    scratch = Path(tempfile.mkdtemp(prefix=scratch_prefix(os.getpid()), dir=kept.folder if kept else None))
    try:
        with zipfile.ZipFile(buffer, "w") as archive:
            _archive(archive, spec, kept, record=record, scratch=scratch)
    except BaseException:
        shutil.rmtree(scratch, ignore_errors=True)
        raise
    # With the copy of the kept collection it holds, the scratch folder took 2 ms to remove for 10,000 notes:
    # removed with what is kept, once the package is sent.
    if kept:
        kept.remove_later(scratch)
    else:
        shutil.rmtree(scratch, ignore_errors=True)
    return buffer.getvalue()


def _archive(
    archive: zipfile.ZipFile, spec: PackageSpec, kept: Kept | None, *, record: Record | None, scratch: Path
) -> None:
    """Write the package into ``archive``, its collection made in ``scratch`` from ``record``'s, and kept."""
    with _opened(kept, record) as base:
        collection, checked = _collection(spec, base, scratch)
        placed = kept.place(spec, collection) if kept and not _kept_as_it_is(spec, record, checked) else None
        sealed = seal(placed) if placed else None
        known = record.pieces if record else {}
        deflated = write_deflated(archive, zip_entry(COLLECTION), placed or collection, known=known, checked=checked)
        if checked and not checked.unchanged():  # it was made from what it held, and compared with it
            raise OSError(errno.EAGAIN, "the kept collection changed while it was read", str(base and base[0].name))
    names = {str(index): name for index, (name, _) in enumerate(spec.media)}
    archive.writestr(zip_entry("media"), json.dumps(names, sort_keys=True))
    for index, (_, content) in enumerate(spec.media):
        archive.writestr(zip_entry(str(index)), content)
    if kept and placed:
        kept.keep(spec, deflated, sealed)
