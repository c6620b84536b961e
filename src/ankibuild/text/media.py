"""Media: the image files questions show, checked and named by their content.

An image is packaged as ``<stem>-<content hash><suffix>``: a changed image gets
a new name, so the field that shows it changes, the note is stamped newer and
classmates' notes update; two different images of the same name in different
folders never collide in a collection.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from ..errors import Problems, Severity
from ..paths import TooLargeError, UnsafePathError, inside, read_inside
from .svg import svg_refusal

#: Folders of a bank whose files are expected to be used by some question.
MEDIA_FOLDER = "media"
#: An image larger than this is refused: it would weigh on every classmate's collection.
MAX_IMAGE_BYTES = 5 * 1024 * 1024
#: How the files of the binary image types begin.
_SIGNATURES = {".png": b"\x89PNG\r\n\x1a\n", ".jpg": b"\xff\xd8\xff", ".jpeg": b"\xff\xd8\xff", ".gif": b"GIF8"}
#: Image types every Anki client shows.
IMAGE_TYPES = (*_SIGNATURES, ".svg", ".webp")
_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:|^//")
_UNSAFE_NAME = re.compile(r"[^A-Za-z0-9_-]+")


class MediaError(Exception):
    """Raised when an image reference cannot be packaged; says what to do."""

    def __init__(self, message: str, hint: str) -> None:
        super().__init__(message)
        self.message = message
        self.hint = hint


@dataclass(frozen=True)
class MediaFile:
    """An image as it goes into a package."""

    name: str
    content: bytes


class Media:
    """The bank's images, each read and checked once, under content-hashed names."""

    def __init__(self, root: Path) -> None:
        self.root = root.resolve()
        self._by_path: dict[Path, MediaFile] = {}
        self._referenced: set[Path] = set()

    @property
    def files(self) -> dict[str, bytes]:
        """Every image used so far, by packaged name."""
        return {file.name: file.content for file in self._by_path.values()}

    def image(self, reference: str, folder: Path) -> MediaFile:
        """The image a text refers to, relative to the folder of the file it is written in."""
        if _SCHEME.match(reference):
            raise MediaError(
                f"image '{reference}' is not a file of the bank",
                "download it into the bank's media folder and write ![text](media/name.png)",
            )
        if "\0" in reference:  # ``%00`` in the Markdown: no file name holds one, and the system refuses it
            shown = reference.replace("\0", "%00")
            raise MediaError(f"image '{shown}' has a NUL character (%00) in its name", "remove the %00 from the path")
        # "diagram.png?raw=true", as links to images in git repositories are written: the file is its path.
        reference = reference.split("?", 1)[0].split("#", 1)[0]
        self._referenced.add((folder / reference).resolve())  # even when refused: no "unused" on top
        if any(part.startswith(".") and part not in {".", ".."} for part in Path(reference).parts):
            # Hidden files are not part of the bank (nor of what tells whether it changed).
            raise MediaError(f"image '{reference}' is a hidden file", "rename it without the leading '.'")
        path = path_inside_bank(self.root, folder, reference)
        if path is None:
            raise MediaError(
                f"image '{reference}' is outside the bank folder",
                "images must be inside the bank: use a relative path such as media/name.png",
            )
        if path not in self._by_path:
            shown = Path(self.root.name, path.relative_to(self.root)).as_posix()
            self._by_path[path] = _read_image(self.root, path, reference, shown=shown)
        return self._by_path[path]

    @property
    def referenced(self) -> frozenset[Path]:
        """Every file a text referred to so far, even those that could not be used."""
        return frozenset(self._referenced)


def path_inside_bank(root: Path, folder: Path, reference: str) -> Path | None:
    """The resolved file a relative reference names, or None when it leaves the bank.

    Refused: absolute paths, ``..`` that climbs out, and symbolic links that
    point outside ``root`` (the path is resolved before it is compared).
    """
    try:
        return inside(root, reference, base=folder).resolve()
    except UnsafePathError:
        return None


def _read_image(root: Path, path: Path, reference: str, *, shown: str) -> MediaFile:
    suffix = path.suffix.lower()
    if suffix not in IMAGE_TYPES:
        raise MediaError(f"image '{reference}' is of an unsupported type", f"use one of {', '.join(IMAGE_TYPES)}")
    try:
        content = read_inside(path, (root,), MAX_IMAGE_BYTES)
    except FileNotFoundError as err:
        hint = f"no file {shown}; paths are relative to the YAML file"
        raise MediaError(f"image '{reference}' not found", hint) from err
    except TooLargeError as err:
        raise MediaError(
            f"image '{reference}' is larger than {MAX_IMAGE_BYTES // (1024 * 1024)} MiB",
            "make it smaller: every classmate stores it",
        ) from err
    except UnsafePathError as err:
        raise MediaError(f"image '{reference}': {err.message}", err.hint) from err
    except OSError as err:
        raise MediaError(f"cannot read image '{reference}': {err.strerror}", "check the file's permissions") from err
    return checked_image(content, path.stem, suffix, reference=reference)


def checked_image(content: bytes, stem: str, suffix: str, *, reference: str) -> MediaFile:
    """An image's content checked as every image of the bank is (its type, what an SVG may do), under a
    name of safe characters with its digest; ``reference`` names it in a refusal."""
    if suffix not in IMAGE_TYPES:
        raise MediaError(f"image '{reference}' is of an unsupported type", f"use one of {', '.join(IMAGE_TYPES)}")
    if len(content) > MAX_IMAGE_BYTES:
        raise MediaError(
            f"image '{reference}' is larger than {MAX_IMAGE_BYTES // (1024 * 1024)} MiB",
            "make it smaller: every classmate stores it",
        )
    if not _looks_like(content, suffix):
        raise MediaError(
            f"image '{reference}' is not a {suffix[1:].upper()} file",
            "check the file (a Git LFS pointer, or a file renamed to another type?)",
        )
    refusal = svg_refusal(content) if suffix == ".svg" else None
    if refusal:
        raise MediaError(
            f"image '{reference}' {refusal}",
            "an SVG image may only draw: no scripts, event handlers or links to other files (save it as plain SVG)",
        )
    digest = hashlib.sha1(content, usedforsecurity=False).hexdigest()[:12]
    return MediaFile(f"{safe_stem(stem)}-{digest}{suffix}", content)


def safe_stem(stem: str) -> str:
    """A file name's stem of letters, digits, ``-`` and ``_`` only: no separator, no dot, never empty."""
    return _UNSAFE_NAME.sub("-", stem).strip("-_") or "image"


def _looks_like(content: bytes, suffix: str) -> bool:
    if suffix == ".svg":
        return b"<svg" in content
    if suffix == ".webp":
        return content[:4] == b"RIFF" and content[8:12] == b"WEBP"
    return content.startswith(_SIGNATURES[suffix])


def _media_files(root: Path) -> Iterator[Path]:
    for folder in sorted(root.rglob(MEDIA_FOLDER)):
        if folder.is_dir():
            yield from sorted(p for p in folder.rglob("*") if p.is_file() and not p.name.startswith("."))


def report_unused(root: Path, referenced: set[Path], problems: Problems) -> None:
    """A file nobody shows is dead weight, or a reference with a typo."""
    for path in (p for p in _media_files(root) if p.resolve() not in referenced):
        problems.add(
            path,
            "media file is not used by any question",
            hint="show it with ![text](media/name.png) or delete it",
            severity=Severity.WARNING,
        )
