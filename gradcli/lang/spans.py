"""Source positions of the grammar's nodes (lark_parser.ASTBuilder): a node spans the children
the grammar keeps (names, numbers, strings, keyword tokens such as `return`, nested nodes),
not the brackets and keywords around them, so `f(a)` ends at `a` and `(a, b)` starts at `a`."""
from __future__ import annotations

from . import syntax as S

_PLACED = {S.Name, S.Const, S.Call, S.Attr, S.Subscript, S.BinOp, S.UnaryOp, S.Node}


def first_pos(item):
    """(line, col) of the first positioned thing in a child: a node, or a token Lark keeps
    (lark_parser shares these three functions), searched through lists and tuples."""
    stack = [item]
    while stack:
        x = stack.pop()
        if isinstance(x, S.Node):
            if x.line:
                return x.line, x.col
        elif isinstance(x, (list, tuple)):
            stack.extend(reversed(x))
        elif isinstance(x, str) and getattr(x, "line", None) is not None:
            return x.line, x.column
    return None


def last_pos(item):
    stack = [item]
    while stack:
        x = stack.pop()
        if isinstance(x, S.Node):
            if x.end_line:
                return x.end_line, x.end_col
        elif isinstance(x, (list, tuple)):
            stack.extend(x)
        elif isinstance(x, str) and getattr(x, "end_line", None) is not None:
            return x.end_line, x.end_column
    return None


def span(items):
    """A node's position: the first start and the last end among the children it keeps."""
    if items:
        a, b = items[0], items[-1]
        if type(a) in _PLACED and a.line and type(b) in _PLACED and b.end_line:     # the common case
            return (a.line, a.col, b.end_line, b.end_col)
    a = first_pos(items)
    if a is None:
        return (0, 0, 0, 0)
    b = last_pos(items) or a
    return (a[0], a[1], b[0], b[1])


def shift(node, line, col):
    """Place every node of an f-string field's expression at the string token's start."""
    stack = [node]
    while stack:
        n = stack.pop()
        if isinstance(n, S.Node):
            n.line, n.col, n.end_line, n.end_col = line, col, line, col
            stack.extend(getattr(n, f) for f in n.fields)
        elif isinstance(n, (list, tuple)):
            stack.extend(n)
