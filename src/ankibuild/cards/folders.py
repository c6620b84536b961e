"""Where card templates come from: the defaults shipped with ankibuild, and a bank's own folder over them.

A bank changes only what it wants: a file in its own folder (``templates/``
beside the bank folder, or ``--templates DIR``) takes the place of the same file
in the defaults, and a language's labels are laid over the default labels. So a
bank made with ``ankibuild init`` builds with no templates folder at all.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from ..atomic import write_inside
from ..buildlock import DEFAULT_WAIT, writing
from ..languages import lineage
from ..paths import DECKS


def _defaults() -> Path:
    """The default templates: in the installed package, else at the top of the source tree.

    The wheel holds the repository's top-level ``templates/`` as ``ankibuild/templates``
    (see ``setup.py``); an editable install runs the package from ``src/``.
    """
    package = Path(__file__).resolve().parent.parent
    installed = package / "templates"
    return installed if installed.is_dir() else package.parent.parent / "templates"


#: The templates every bank starts from, shipped with ankibuild.
DEFAULTS = _defaults()
#: A bank's own templates, looked for beside the bank folder when no folder is named.
OWN_FOLDER = "templates"
#: The folder of the structure every language shares.
DEFAULT = "default"


@dataclass(frozen=True)
class TemplateFolders:
    """The template folders of a build, the defaults first and the bank's own (if any) over them."""

    own: Path | None = None
    #: Where the bank's own folder is or would be: what messages name.
    place: Path = Path(OWN_FOLDER)

    @classmethod
    def for_bank(cls, decks: Path, named: Path | None = None) -> TemplateFolders:
        """The folder named with ``--templates``, else ``templates/`` beside the bank folder if there is one."""
        if named is not None:
            return cls(named, named)
        beside = _beside(decks)
        return cls(beside if beside.is_dir() else None, beside)

    @property
    def roots(self) -> tuple[Path, ...]:
        """The folders in the order they are laid: each over the one before."""
        return (DEFAULTS,) if self.own is None else (DEFAULTS, self.own)

    def folders(self, lang: str) -> list[Path]:
        """The folders that apply to ``lang``, the most general first: defaults, then ``pt``, then ``pt-BR``."""
        names = [DEFAULT, *reversed(lineage(lang))]
        return [root / name for root in self.roots for name in names if (root / name).is_dir()]

    def has_language(self, lang: str) -> bool:
        """True when some folder holds the language's own wording (``pt`` serves ``pt-BR``)."""
        return any(folder.name != DEFAULT for folder in self.folders(lang))

    def find(self, lang: str, name: str) -> Path:
        """The most specific ``name`` for ``lang``: a language's own file, else the shared default."""
        for folder in reversed(self.folders(lang)):
            if (folder / name).is_file():
                return folder / name
        return DEFAULTS / DEFAULT / name

    def shared(self, name: str) -> Path:
        """A file every language uses (the stylesheet, the script): the bank's own, else the default."""
        if self.own is not None and (self.own / name).is_file():
            return self.own / name
        return DEFAULTS / name

    def describe(self) -> str:
        """How a summary names the templates a build used."""
        return "default templates" if self.own is None else f"own templates in {_shown(self.own)}/ over the defaults"


def _beside(decks: Path) -> Path:
    """``templates/`` in the folder that holds the bank folder; relative when the bank is named relatively."""
    parent = decks.parent if decks.name not in {"", ".", ".."} else decks.absolute().parent
    return Path(os.path.normpath(parent / OWN_FOLDER))


def _shown(path: Path) -> str:
    try:
        return os.path.relpath(path)
    except ValueError:  # another drive on Windows
        return str(path)


def default_files() -> Iterator[Path]:
    """Every file of the default templates, relative to their folder, in a stable order."""
    for path in sorted(DEFAULTS.rglob("*")):
        if path.is_file() and not path.name.startswith("."):
            yield path.relative_to(DEFAULTS)


def export_defaults(
    dest: Path, *, replace: bool = False, decks: Path = DECKS, wait: float = DEFAULT_WAIT
) -> list[Path]:
    """Copy the default templates into ``dest`` for a bank to change; the files written.

    Files already in ``dest`` are kept (a bank's changes are never lost) unless ``replace``.
    Nothing is written through a link that leads out of ``dest`` (:class:`BankError`
    names each), and the bank at ``decks`` stays locked meanwhile: a build reading
    the templates waits, and is waited for up to ``wait`` seconds.
    Raises :class:`OSError` when a file cannot be written.
    """
    with writing(decks, wait=wait):
        missing = [
            relative
            for relative in default_files()
            if replace or not ((dest / relative).exists() or (dest / relative).is_symlink())
        ]
        write_inside(dest, {dest / relative: (DEFAULTS / relative).read_bytes() for relative in missing})
    return [dest / relative for relative in missing]
