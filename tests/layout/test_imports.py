"""The package's import graph follows its layout: stages import what lies below them, never above.

Every ``from ... import`` counts, those inside functions too: a deferred import
that reaches upward is still a stage that knows about the one after it.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from functools import cache
from pathlib import Path

import ankibuild
from ankibuild.kinds import KINDS

PACKAGE = Path(ankibuild.__file__).resolve().parent

#: The layers, lowest first: a module may import from its own layer and those below it.
#: A name is a module or a folder of modules (the longest name that matches counts).
LAYERS: tuple[tuple[str, ...], ...] = (
    (
        "errors",
        "faults",
        "paths",
        "version",
        "languages",
        "progress",
        "collector",
        "memory",
        "search",
        "markdowntext",
        "forked",
    ),
    ("atomic", "buildlock", "cache", "digests"),
    ("yamlfiles", "text", "model", "study", "links"),
    ("cards", "kinds"),
    ("options", "packagenames", "lock", "translations.record", "changelog", "state", "summary", "commandline"),
    ("load",),
    ("target", "anki", "export", "preview"),
    ("pipeline", "api", "publish", "translations", "importer", "newbank", "cli", "command", "__main__", ""),
)


def _name(path: Path) -> str:
    parts = path.relative_to(PACKAGE).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imported(path: Path, module: str) -> Iterator[str]:
    """The ankibuild modules ``module`` (at ``path``) imports, without the leading ``ankibuild.``."""
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if not isinstance(node, ast.ImportFrom):
            continue
        if node.level:
            base = package.split(".") if package else []
            base = base[: len(base) - (node.level - 1)]
            target = ".".join([*base, *([node.module] if node.module else [])])
        elif node.module and node.module.split(".")[0] == "ankibuild":
            target = node.module.removeprefix("ankibuild").removeprefix(".")
        else:
            continue
        for alias in node.names:
            named = f"{target}.{alias.name}".strip(".")
            yield named if named in _modules() else target


@cache
def _modules() -> frozenset[str]:
    return frozenset(_name(path) for path in PACKAGE.rglob("*.py"))


@cache
def _graph() -> dict[str, frozenset[str]]:
    return {_name(path): frozenset(_imported(path, _name(path))) for path in PACKAGE.rglob("*.py")}


def _layer(module: str) -> int:
    """The layer of ``module``: that of the longest layer name it is, or is inside."""
    matches = [
        (len(name), index)
        for index, names in enumerate(LAYERS)
        for name in names
        if module == name or module.startswith(f"{name}.") or name == ""
    ]
    return max(matches)[1]


def test_every_module_has_a_layer() -> None:
    """A new module is placed by the folder it is in; a new folder or top-level module is named in LAYERS."""
    unplaced = [module for module in _modules() if _layer(module) == len(LAYERS) - 1 and "." not in module]
    top = set(LAYERS[-1])
    assert [module for module in unplaced if module not in top] == []


def test_no_module_imports_from_a_layer_above_its_own() -> None:
    """A stage uses what is below it: the load stage never imports a target, a kind never imports the load stage."""
    upward = sorted(
        f"{module} -> {imported}"
        for module, imports in _graph().items()
        for imported in imports
        if _layer(imported) > _layer(module)
    )
    assert upward == []


def test_the_import_graph_has_no_cycle() -> None:
    """No two modules import each other, however long the way round (a package's ``__init__`` counts)."""
    graph = _graph()
    done: set[str] = set()

    def visit(module: str, path: tuple[str, ...]) -> list[str]:
        if module in path:
            return [" -> ".join((*path[path.index(module) :], module))]
        if module in done:
            return []
        found = [cycle for imported in sorted(graph.get(module, ())) for cycle in visit(imported, (*path, module))]
        done.add(module)
        return found

    assert [cycle for module in sorted(graph) for cycle in visit(module, ())] == []


#: What of ``kinds/`` the rest of the code may import: the registry (``kinds``, with ``KINDS`` and
#: ``CHECKS``), what a kind is (``kinds.base``, ``Kind``), the question a platform asks
#: (``kinds.platform``), a kind's part of the JSON Schema (``kinds.schema``) and what every kind's
#: item-writing checks share (``kinds.checks``). Each of these says nothing of any one kind: it is
#: what every kind has, with neutral defaults a kind may override.
NEUTRAL_KIND_MODULES = frozenset({"kinds", "kinds.base", "kinds.platform", "kinds.schema", "kinds.checks"})


def test_no_module_outside_kinds_imports_a_particular_kind() -> None:
    """The rest of the code asks the registry for a kind by name, and the kind for what differs: only kinds/
    knows the modules of the kinds (a kind's module, or its package and what is in it).

    Everything else in kinds/ is some kind's own: the multiple-choice package with its letters, options
    and item-writing checks, and each other kind's module. What the rest of the code needs of them is a
    ``Kind`` attribute or method, or a name of the neutral modules (:data:`NEUTRAL_KIND_MODULES`).
    """
    assert {type(kind).__module__.removeprefix("ankibuild.") for kind in KINDS.values()}.isdisjoint(
        NEUTRAL_KIND_MODULES
    )
    reaching = sorted(
        f"{module} -> {imported}"
        for module, imports in _graph().items()
        if not _in_kinds(module)
        for imported in imports
        if _in_kinds(imported) and imported not in NEUTRAL_KIND_MODULES
    )
    assert reaching == []


def _in_kinds(module: str) -> bool:
    return module == "kinds" or module.startswith("kinds.")
