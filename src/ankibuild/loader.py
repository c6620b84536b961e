"""Load stage: read YAML files safely, keeping where every key was written.

The libyaml C parser is used when present (about ten times faster than the
pure-Python one); construction stays in Python so that every mapping remembers
the line of each key and duplicate keys are caught instead of silently merged.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from .errors import Problems

try:
    _BaseLoader: type[yaml.SafeLoader] = yaml.CSafeLoader  # type: ignore[assignment]
except AttributeError:  # PyYAML built without libyaml
    _BaseLoader = yaml.SafeLoader

#: Larger files are refused: a question file is kilobytes, not this.
MAX_FILE_BYTES = 32 * 1024 * 1024
#: How often an anchor may be reused in one file before it looks like an
#: expansion bomb ("billion laughs") rather than a convenience.
MAX_ALIAS_USES = 1000

BANK_FILE = "bank.yaml"


class Map(dict[str, Any]):
    """A YAML mapping that knows the line and column of itself and of each key."""

    line: int = 0
    column: int = 0
    marks: dict[str, tuple[int, int]]

    def at(self, key: str) -> tuple[int, int]:
        return self.marks.get(key, (self.line, self.column))


class Seq(list[Any]):
    """A YAML sequence that knows the position of each item."""

    line: int = 0
    column: int = 0
    marks: list[tuple[int, int]]


def _mark(node: yaml.Node) -> tuple[int, int]:
    return node.start_mark.line + 1, node.start_mark.column + 1


class _LocatingLoader(_BaseLoader):  # type: ignore[valid-type,misc]
    """Safe loader that records positions, duplicate keys and alias reuse."""

    def __init__(self, stream: str) -> None:
        super().__init__(stream)
        self.duplicates: list[tuple[str, int, int]] = []
        self.alias_uses = 0

    def construct_object(self, node: yaml.Node, deep: bool = False) -> Any:
        if node in self.constructed_objects:
            self.alias_uses += 1
            if self.alias_uses > MAX_ALIAS_USES:
                raise yaml.constructor.ConstructorError(
                    None, None, "too many alias references (*name)", node.start_mark
                )
        return super().construct_object(node, deep=deep)

    def construct_located_map(self, node: yaml.MappingNode) -> Iterator[Map]:
        result = Map()
        result.line, result.column = _mark(node)
        result.marks = {}
        yield result
        self.flatten_mapping(node)
        for key_node, value_node in node.value:
            key = self.construct_object(key_node)
            if not isinstance(key, str):
                key = str(key)
            if key in result.marks:
                self.duplicates.append((key, *_mark(key_node)))
            result.marks[key] = _mark(key_node)
            result[key] = self.construct_object(value_node)

    def construct_located_seq(self, node: yaml.SequenceNode) -> Iterator[Seq]:
        result = Seq()
        result.line, result.column = _mark(node)
        yield result
        result.marks = [_mark(item) for item in node.value]
        result.extend(self.construct_object(item) for item in node.value)


_LocatingLoader.add_constructor("tag:yaml.org,2002:map", _LocatingLoader.construct_located_map)
_LocatingLoader.add_constructor("tag:yaml.org,2002:seq", _LocatingLoader.construct_located_seq)


@dataclass
class SourceFile:
    """One YAML file of the bank, parsed (``data`` is None when it could not be)."""

    path: Path
    data: Any = None
    raw: bytes = field(default=b"", repr=False)


@contextmanager
def _no_gc() -> Iterator[None]:
    """Parsing builds many small objects; the cyclic collector only slows it down."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def decode(path: Path, raw: bytes, problems: Problems) -> str | None:
    """UTF-8 text of a file (a BOM is accepted), or None with a problem reported."""
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as err:
        line = raw[: err.start].count(b"\n") + 1
        problems.add(
            path,
            f"not valid UTF-8 (byte 0x{raw[err.start]:02x})",
            line=line,
            hint="save the file with UTF-8 encoding",
        )
        return None


def parse(path: Path, raw: bytes, problems: Problems) -> Any:
    """The YAML document in ``raw``, or None with every problem reported."""
    if len(raw) > MAX_FILE_BYTES:
        problems.add(
            path,
            f"file is larger than {MAX_FILE_BYTES // (1024 * 1024)} MiB",
            hint="split it into several question files",
        )
        return None
    text = decode(path, raw, problems)
    if text is None:
        return None
    loader = _LocatingLoader(text)
    try:
        with _no_gc():
            data = loader.get_single_data()
    except yaml.MarkedYAMLError as err:
        mark = err.problem_mark or err.context_mark
        line, column = (mark.line + 1, mark.column + 1) if mark else (0, 0)
        problems.add(
            path,
            f"YAML: {err.problem or err.context}",
            line=line,
            column=column,
            hint=_yaml_hint(err),
        )
        return None
    except yaml.YAMLError as err:
        problems.add(path, f"YAML: {err}", hint="check the file's syntax")
        return None
    finally:
        loader.dispose()
    for key, line, column in loader.duplicates:
        problems.add(
            path,
            f"duplicate key '{key}'",
            line=line,
            column=column,
            hint="a key may appear once per mapping; YAML would keep only the last",
        )
    return data


def _yaml_hint(err: yaml.MarkedYAMLError) -> str:
    problem = str(err.problem or "")
    if "constructor" in problem or "tag" in problem:
        return "YAML tags (!!python/..., !name) are not allowed in a question bank"
    if "alias" in problem:
        return "use fewer anchors and aliases (&name / *name)"
    return "check indentation, colons and quotes on this line or the one before"


def bank_files(root: Path) -> tuple[Path, list[Path]]:
    """The bank file and the question files of a bank folder, in a stable order."""
    files = sorted(p for p in root.rglob("*.y*ml") if p.suffix in {".yaml", ".yml"} and p.name != BANK_FILE)
    return root / BANK_FILE, files


def load(path: Path, problems: Problems) -> SourceFile:
    try:
        raw = path.read_bytes()
    except OSError as err:
        problems.add(path, f"cannot read the file: {err.strerror}")
        return SourceFile(path)
    return SourceFile(path, parse(path, raw, problems), raw)
