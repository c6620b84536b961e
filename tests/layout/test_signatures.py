"""No function takes more than three positional parameters: the rest are named at every call.

A call such as ``render_note(bank, key, question, lang, media, problems)`` reads
only with the signature at hand, and swapping two of its arguments of one type
goes unnoticed; named, each says what it is.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import ankibuild

PACKAGE = Path(ankibuild.__file__).resolve().parent

MOST = 3

#: Signatures markdown-it dictates: it calls its render rules and block rules positionally.
CALLED_BY_MARKDOWN_IT = frozenset(
    {
        ("self", "tokens", "idx", "options", "env"),
        ("state", "start_line", "end_line", "silent"),
    }
)

Function = ast.FunctionDef | ast.AsyncFunctionDef


def _positional(function: Function, *, method: bool) -> list[str]:
    """The names ``function`` takes positionally, without the ``self`` or ``cls`` a method is called on."""
    names = [arg.arg for arg in (*function.args.posonlyargs, *function.args.args)]
    if tuple(names) in CALLED_BY_MARKDOWN_IT:
        return []
    return names[1:] if method and names[:1] in (["self"], ["cls"]) else names


def _functions(tree: ast.AST) -> Iterator[tuple[Function, bool]]:
    """Every function in ``tree``, nested ones too, and whether it is a method."""
    for node in ast.walk(tree):
        body = node.body if isinstance(node, ast.ClassDef) else []
        methods = {id(item) for item in body}
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef):
                yield child, id(child) in methods


def too_many(source: str, name: str) -> list[str]:
    """``module:line function(...)`` for each function in ``source`` with more than three positional parameters."""
    found = []
    for function, method in _functions(ast.parse(source)):
        names = _positional(function, method=method)
        if len(names) > MOST:
            found.append(f"{name}:{function.lineno} {function.name}({', '.join(names)})")
    return found


def test_no_function_takes_more_than_three_positional_parameters() -> None:
    found = [
        line
        for path in sorted(PACKAGE.rglob("*.py"))
        for line in too_many(path.read_text(encoding="utf-8"), str(path.relative_to(PACKAGE)))
    ]
    assert found == [], "make the parameters after the third keyword-only (*,):\n" + "\n".join(found)


def test_a_fourth_positional_parameter_is_named() -> None:
    source = "class Deck:\n    def add(self, a, b, c, d): ...\n\n    def keep(self, a, b, c, *, d): ...\n"
    assert too_many(source, "deck.py") == ["deck.py:2 add(a, b, c, d)"]


def test_a_nested_function_counts_and_a_markdown_it_rule_does_not() -> None:
    source = "def outer():\n    def inner(a, b, c, d): ...\n\ndef rule(self, tokens, idx, options, env): ...\n"
    assert too_many(source, "text.py") == ["text.py:2 inner(a, b, c, d)"]
