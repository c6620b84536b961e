"""Where Anki's MathJax ends a formula, and what inside one would move that end.

MathJax 3 (the version Anki ships, with Anki's configuration) looks for a
formula in each run of a card's text between elements, ``<br>`` included in the
run. From an opener (``\\(`` or ``\\[``; nothing else under Anki's settings) it
reads on to the first closer that stands at brace depth 0, skipping every
backslash with the character after it (unless that is a line break) and counting
``{`` and ``}`` (a ``}`` with no ``{`` open is not counted). It reads no ``%``
comment: TeX does that later, inside the formula alone.

So a formula the build writes ends where the build meant only if MathJax, reading
its text and then its closer, meets that closer first at depth 0. Otherwise the
formula takes in the text after it, where ``\\href`` and ``\\style`` may stand as
typed, or leaves part of itself as text: :func:`end_problem` says which, for the
student, and the formula is refused.
"""

from __future__ import annotations

#: Characters JavaScript's ``.`` does not match: a backslash before one of them escapes nothing.
_LINE_ENDS = frozenset("\n\r\u2028\u2029")


def mathjax_end(tex: str, closer: str) -> int | None:
    """Where MathJax sees the closer of a formula written as an opener, ``tex``, then ``closer``.

    An index into ``tex`` (``len(tex)`` when it ends where written), or None
    when it reads past the closer.
    """
    return closer_at(tex + closer, 0, closer)


def closer_at(text: str, start: int, closer: str) -> int | None:
    """Where MathJax, reading ``text`` from ``start`` (just after an opener), finds ``closer``; None if nowhere.

    Linear in what it reads, with no recursion.
    """
    depth, at = 0, start
    while at < len(text):
        if text.startswith(closer, at) and depth == 0:
            return at
        if text[at] == "\\":
            at += 1 if at + 1 == len(text) or text[at + 1] in _LINE_ENDS else 2
            continue
        if text[at] == "{":
            depth += 1
        elif text[at] == "}" and depth:
            depth -= 1
        at += 1
    return None


def end_problem(tex: str, closer: str) -> tuple[str, str] | None:
    """Why MathJax would not end the formula ``tex`` at its ``closer``, and the fix; None when it would."""
    end = mathjax_end(tex, closer)
    if end == len(tex):
        return None
    if end is not None:
        return (
            f"the formula holds {closer}, where MathJax ends it: the rest of it would be read as text",
            f"remove the {closer} from inside the formula",
        )
    if (len(tex) - len(tex.rstrip("\\"))) % 2:
        return (
            f"the formula ends in a backslash, which hides its closing {closer} from MathJax: "
            "the text after the formula would be read as part of it",
            "remove the last backslash, or write \\backslash to show one",
        )
    return (
        f"a '{{' in the formula is never closed, so MathJax reads past its closing {closer} into the text after it",
        "close each { with } inside the formula (write \\{ to show a brace)",
    )
