"""`--set NAME=VALUE`: the values of a script's implicit leaves, as every front end reads them."""
from __future__ import annotations

import ast


class UsageError(Exception):
    """A bad command line (exit status 2)."""


def parse_set(items):
    """`--set x=2 --set w=[1,2]` -> {"x": 2.0, "w": [1, 2]}."""
    values = {}
    for item in items or ():
        name, eq, text = item.partition("=")
        name = name.strip()
        if not eq or not name.isidentifier():
            raise UsageError(f"--set expects NAME=VALUE, like --set x=2 or --set w=[1,2]; got {item!r}")
        try:
            value = ast.literal_eval(text.strip())
        except (ValueError, SyntaxError, MemoryError, RecursionError):
            raise UsageError(f"--set {name}: {text!r} is not a number or a list of numbers") from None
        if not _numeric(value):
            raise UsageError(f"--set {name}: {text!r} is not a number or a list of numbers")
        values[name] = value
    return values


def _numeric(v):
    """A number, or a rectangular nested list of numbers."""
    level = [v]
    while any(isinstance(x, (list, tuple)) for x in level):
        if not all(isinstance(x, (list, tuple)) for x in level) or len({len(x) for x in level}) != 1:
            return False
        level = [y for x in level for y in x]
    return all(isinstance(x, (int, float)) and not isinstance(x, bool) for x in level)

