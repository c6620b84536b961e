"""What tests of reading YAML share: the parsers a build may read with."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ankibuild.yamlfiles import reader

#: libyaml's parser where PyYAML has it, and PyYAML's own, which reads where it has not; by name, for test ids.
PARSERS: dict[str, Callable[[bytes], Any]] = {
    "python": reader.PythonParser,
    **({"libyaml": reader.LIBYAML} if reader.LIBYAML else {}),
}
