"""The fast path of parse(): a script that is plain Python is parsed by CPython's own parser
and converted to the very AST the Lark grammar builds, positions included. It is about four
times faster (10,000 lines: 0.16 s against 0.63 s), and Lark is then not even imported.

The positions mirror lark_parser.ASTBuilder's rule: a node spans the children the grammar
keeps (names, numbers, strings, keyword tokens such as `return`, nested nodes), not the
brackets and keywords around them, so `f(a)` ends at `a` and `(a, b)` starts at `a`.

Anything outside the grammar's subset of Python, anything the concise dialect could read
differently (`print [x]` is a print statement there), and anything CPython rejects or warns
about is declined: parse() returns None, and the Lark parser, which words the errors, takes
the script. tests/test_parse_paths.py checks that the two paths give equal ASTs.
"""
from __future__ import annotations

import ast
import re
import warnings

from . import syntax as S


class _Decline(Exception):
    """Not for this path: the Lark grammar decides."""


# Where the grammar's dialect statements could start (a line, after `;`, after a block's `:`),
# with the grammar's own lookaheads. Conservative: a match in a string or comment also declines.
_DIALECT = re.compile(r"""(?:^|[;:])[ \t]*(?:print(?=[ \t]+[A-Za-z_0-9"'\[])|backward(?=[ \t]+[A-Za-z_(])"""
                      r"""|expect(?=[ \t]+[^\s=.,;:)\]}])|graph(?=[ \t]+[A-Za-z_(]))""", re.M)
# Printable ASCII and newlines: tabs and form feeds are where the two indentation rules could
# differ. Other characters may appear in strings and comments (CPython's columns then count
# UTF-8 bytes; _char_columns turns them into Lark's character columns).
_PLAIN = re.compile(r"[\n\x20-\x7e]*\Z")
_CONTROL = re.compile(r"[\x00-\x09\x0b-\x1f\x7f-\x9f]")
# grammar/gradcli.lark's NUMBER: CPython also accepts a few spellings it does not (`1e1_0`).
_NUMBER = re.compile(r"0[xX][0-9a-fA-F_]+|0[oO][0-7_]+|0[bB][01_]+"
                     r"|(\d[\d_]*\.?[\d_]*([eE][+-]?\d+)?|\.\d[\d_]*([eE][+-]?\d+)?)")
# grammar/gradcli.lark's STRING, to tell one f-string token from a concatenation.
_STRING = re.compile(r"""([ubfUBF]?[rR]?|[rR][ubfUBF])("""
                     r'''"""(?:[^\\]|\\.)*?"""'''
                     r"""|'''(?:[^\\]|\\.)*?'''|"(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*')""", re.S)
_CONVERSIONS = {-1: None, ord("s"): "s", ord("r"): "r", ord("a"): "a"}


def parse(text: str) -> S.Module | None:
    """The AST of normalised source (\\n line ends, a final newline), or None: use Lark."""
    wide = not text.isascii()
    if (_CONTROL.search(text) if wide else not _PLAIN.match(text)) or _DIALECT.search(text):
        return None
    try:
        if wide and not _ascii_names(text):
            return None
        with warnings.catch_warnings():
            warnings.simplefilter("error")       # e.g. an invalid escape: Lark's path shows it
            tree = ast.parse(text)
        # one character per UTF-8 byte, so that CPython's byte columns index the lines
        module = _Converter(text.encode().decode("latin-1") if wide else text).module(tree)
    except (SyntaxError, ValueError, OverflowError, MemoryError, RecursionError, Warning, _Decline):
        return None
    if wide:
        _char_columns(module, text.split("\n"))
    return module


def _ascii_names(text):
    """True when every identifier is ASCII: CPython normalises the others (NFKC), the grammar
    does not. Only scripts with non-ASCII text pay for the tokenizer."""
    import io
    import tokenize
    try:
        return all(t.string.isascii() for t in tokenize.generate_tokens(io.StringIO(text).readline)
                   if t.type == tokenize.NAME or t.type == tokenize.ERRORTOKEN)
    except (tokenize.TokenError, SyntaxError):
        return False


def _char_columns(module, lines):
    """Byte columns -> character columns, on the lines that have non-ASCII characters."""
    wide = {i + 1 for i, line in enumerate(lines) if not line.isascii()}
    encoded = {i: lines[i - 1].encode() for i in wide}

    def chars(line, col):
        return len(encoded[line][:col - 1].decode("utf-8", "replace")) + 1

    stack = [module]
    while stack:
        n = stack.pop()
        if isinstance(n, S.Node):
            if n.line in wide:
                n.col = chars(n.line, n.col)
            if n.end_line in wide:
                n.end_col = chars(n.end_line, n.end_col)
            stack.extend(getattr(n, f) for f in n.fields)
        elif isinstance(n, (list, tuple)):
            stack.extend(n)

# ----------------------------------------------------------------------------- positions


def _pos(n):
    """A CPython node's own span, with 1-based columns as Lark gives them."""
    return (n.lineno, n.col_offset + 1, n.end_lineno, n.end_col_offset + 1)


def _tok(line, col, length):
    """A keyword or name token the grammar keeps, as a positioned stand-in."""
    return S.Node(pos=(line, col, line, col + length))


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


def _ends(left, right):
    return (left.line, left.col, right.end_line, right.end_col)


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

# ----------------------------------------------------------------------------- conversion


_BINOPS = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/", ast.FloorDiv: "//", ast.Mod: "%",
           ast.MatMult: "@", ast.Pow: "**", ast.BitOr: "|", ast.BitXor: "^", ast.BitAnd: "&"}
_CMPOPS = {ast.Eq: "==", ast.NotEq: "!=", ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">", ast.GtE: ">=",
           ast.Is: "is", ast.IsNot: "is not", ast.In: "in", ast.NotIn: "not in"}
_UNARY = {ast.UAdd: "+", ast.USub: "-", ast.Invert: "~"}


class _Converter:
    def __init__(self, text):
        self.lines = text.split("\n")

    def module(self, tree):
        body = self.block(tree.body)
        return S.Module(body, pos=span(body))

    # -- statements ----------------------------------------------------------------------
    def block(self, stmts):
        return [self.stmt(s) for s in stmts]

    def stmt(self, n):
        method = _STMTS.get(type(n))
        if method is None:
            raise _Decline
        return method(self, n)

    def s_expr(self, n):
        v = self.ex(n.value)
        return S.ExprStmt(v, pos=span([v]))

    def s_assign(self, n):
        items = [self.ex(t) for t in n.targets]
        items.append(self.ex(n.value))
        return S.Assign(items[:-1], items[-1], pos=span(items))

    def s_augassign(self, n):
        op = _BINOPS.get(type(n.op))
        target, value = self.ex(n.target), self.ex(n.value)
        if op is None or not value.end_line:       # `<<=`; or a span ending at the operator
            raise _Decline
        return S.AugAssign(target, op, value, pos=span([target, value]))

    def s_simple(self, n):
        return _SIMPLE[type(n)](pos=_pos(n))

    def s_return(self, n):
        value = self.opt(n.value)
        return S.Return(value, pos=span([_tok(n.lineno, n.col_offset + 1, 6), value]))

    def s_raise(self, n):
        exc, cause = self.opt(n.exc), self.opt(n.cause)
        return S.Raise(exc, pos=span([_tok(n.lineno, n.col_offset + 1, 5), exc, cause]))

    def s_import(self, n):
        first, last = n.names[0], n.names[-1]
        if last.asname:
            end = (last.end_lineno, last.end_col_offset + 1)
        else:       # the grammar's dotted name keeps the position of its first name
            end = (last.lineno, last.col_offset + 1 + len(last.name.split(".")[0]))
        return S.Import([(a.name, a.asname) for a in n.names],
                        pos=(first.lineno, first.col_offset + 1) + end)

    def s_importfrom(self, n):
        first, last = n.names[0], n.names[-1]
        if n.level or n.lineno != n.end_lineno or first.name == "*" \
                or self.lines[n.lineno - 1][:first.col_offset].rstrip().endswith("("):
            raise _Decline
        return S.FromImport(n.module, [(a.name, a.asname) for a in n.names],
                            pos=(first.lineno, first.col_offset + 1, last.end_lineno, last.end_col_offset + 1))

    def s_assert(self, n):
        test, msg = self.ex(n.test), self.opt(n.msg)
        return S.Assert(test, msg, pos=span([test, msg]))

    def s_delete(self, n):
        if any(isinstance(t, ast.Tuple) for t in n.targets):    # `del (a, b)` flattens there
            raise _Decline
        targets = [self.ex(t) for t in n.targets]
        return S.Delete(targets, pos=span(targets))

    def s_if(self, n):
        items = [self.ex(n.test), self.block(n.body)]
        branches = [tuple(items)]
        while len(n.orelse) == 1 and isinstance(n.orelse[0], ast.If) and self._is_elif(n.orelse[0]):
            n = n.orelse[0]
            branches.append((self.ex(n.test), self.block(n.body)))
            items.append(branches[-1])
        orelse = self.block(n.orelse)
        items.append(orelse)
        return S.If(branches, orelse, pos=span(items))

    def _is_elif(self, n):
        return self.lines[n.lineno - 1].startswith("elif", n.col_offset)

    def s_while(self, n):
        items = [self.ex(n.test), self.block(n.body), self.block(n.orelse)]
        return S.While(*items, pos=span(items))

    def s_for(self, n):
        items = [self.ex(n.target), self.ex(n.iter), self.block(n.body), self.block(n.orelse)]
        return S.For(*items, pos=span(items))

    def s_try(self, n):
        body = self.block(n.body)
        handlers = [(self.opt(h.type), h.name, self.block(h.body)) for h in n.handlers]
        orelse, final = self.block(n.orelse), self.block(n.finalbody)
        keyword = _tok(n.lineno, n.col_offset + 1, 3)
        return S.Try(body, handlers, orelse, final, pos=span([keyword, body, handlers, orelse, final]))

    def s_with(self, n):
        if self.lines[n.lineno - 1][n.col_offset + 4:].lstrip().startswith("("):
            raise _Decline          # parenthesised items: one tuple there, several items here
        items = []
        for item in n.items:
            var = item.optional_vars
            if var is not None and not isinstance(var, ast.Name):
                raise _Decline
            items.append((self.ex(item.context_expr), var.id if var is not None else None))
        body = self.block(n.body)
        return S.With(items, body, pos=span([items, body]))

    def s_funcdef(self, n):
        a = n.args
        if n.decorator_list or a.posonlyargs or (a.kwonlyargs and a.vararg is None) \
                or (a.vararg and a.vararg.annotation) or (a.kwarg and a.kwarg.annotation):
            raise _Decline
        for annotation in [n.returns] + [p.annotation for p in a.args + a.kwonlyargs]:
            self.opt(annotation)     # the grammar parses annotations, and drops them
        defaults = [None] * (len(a.args) - len(a.defaults)) + a.defaults
        params = [("pos", p.arg, self.opt(d)) for p, d in zip(a.args, defaults)]
        if a.vararg:
            params.append(("star", a.vararg.arg, None))
        params.extend(("pos", p.arg, self.opt(d)) for p, d in zip(a.kwonlyargs, a.kw_defaults))
        if a.kwarg:
            params.append(("kwstar", a.kwarg.arg, None))
        rest = self.lines[n.lineno - 1][n.col_offset + 3:]
        if not rest.lstrip(" ").startswith(n.name):
            raise _Decline
        name = _tok(n.lineno, n.col_offset + 4 + len(rest) - len(rest.lstrip(" ")), len(n.name))
        body = self.block(n.body)
        return S.FuncDef(n.name, params, body, pos=span([name, params, body]))

    # -- expressions ---------------------------------------------------------------------
    def ex(self, n):
        method = _EXPRS.get(type(n))
        if method is None:
            raise _Decline
        return method(self, n)

    def opt(self, n):
        return None if n is None else self.ex(n)

    def e_name(self, n):
        return S.Name(n.id, pos=_pos(n))

    def e_constant(self, n):
        v = n.value
        if v is Ellipsis:
            return S.EllipsisExpr(pos=_pos(n))
        t = type(v)
        if t is int or t is float:
            if n.lineno != n.end_lineno or not _NUMBER.fullmatch(
                    self.lines[n.lineno - 1], n.col_offset, n.end_col_offset):
                raise _Decline
        elif t is not str and t is not bool and v is not None:
            raise _Decline                   # complex and bytes: errors there
        return S.Const(v, pos=_pos(n))

    def e_fstring(self, n):
        m = _STRING.match(self.lines[n.lineno - 1], n.col_offset)
        if n.lineno != n.end_lineno or m is None or m.end() != n.end_col_offset or "\\" in m.group():
            raise _Decline       # concatenated (each token places its fields), or with escapes
        return S.FString(self.fparts(n.values, n.lineno, n.col_offset + 1), pos=_pos(n))

    def fparts(self, values, line, col):
        parts = []
        for v in values:
            if isinstance(v, ast.Constant):
                parts.append(v.value)
                continue
            expr = self.ex(v.value)
            shift(expr, line, col)
            spec = None if v.format_spec is None else self.fparts(v.format_spec.values, line, col)
            parts.append([expr, _CONVERSIONS[v.conversion], spec])
        return parts

    def e_unary(self, n):
        operand = self.ex(n.operand)
        if type(n.op) is ast.Not:
            return S.Not(operand, pos=(n.lineno, n.col_offset + 1, operand.end_line, operand.end_col))
        op = _UNARY[type(n.op)]
        return S.UnaryOp(op, operand, pos=span([_tok(n.lineno, n.col_offset + 1, 1), operand]))

    def e_binop(self, n):
        op = _BINOPS.get(type(n.op))
        left, right = self.ex(n.left), self.ex(n.right)
        if op is None or (op == "**" and not (left.line and right.end_line)):
            raise _Decline                   # `<<`; or a span reaching the `**` token
        return S.BinOp(op, left, right, pos=_ends(left, right))

    def e_boolop(self, n):
        values = [self.ex(v) for v in n.values]
        return S.BoolOp("and" if type(n.op) is ast.And else "or", values, pos=_ends(values[0], values[-1]))

    def e_compare(self, n):
        left = self.ex(n.left)
        rights = [self.ex(r) for r in n.comparators]
        return S.Compare(left, [_CMPOPS[type(o)] for o in n.ops], rights, pos=_ends(left, rights[-1]))

    def e_ifexp(self, n):
        items = [self.ex(n.body), self.ex(n.test), self.ex(n.orelse)]
        return S.IfExp(items[1], items[0], items[2], pos=span(items))

    def e_lambda(self, n):
        a = n.args
        if a.posonlyargs or a.vararg or a.kwonlyargs or a.kwarg or a.defaults:
            raise _Decline
        body = self.ex(n.body)
        return S.Lambda([("pos", p.arg, None) for p in a.args], body, pos=span([body]))

    def e_call(self, n):
        func = self.ex(n.func)
        ordered = sorted([(a.lineno, a.col_offset, i, a) for i, a in enumerate(n.args)]
                         + [(k.lineno, k.col_offset, len(n.args) + i, k) for i, k in enumerate(n.keywords)])
        args, kwargs, items = [], [], []
        for *_, a in ordered:
            if isinstance(a, ast.keyword):
                kwargs.append((a.arg, self.ex(a.value)))
                items.append(kwargs[-1])
            else:
                if isinstance(a, ast.Starred):
                    v = self.ex(a.value)
                    a = S.Starred(v, pos=span([v]))
                else:
                    a = self.ex(a)
                args.append(a)
                items.append(a)
        return S.Call(func, args, kwargs, pos=span([func, items]))

    def e_attribute(self, n):
        obj = self.ex(n.value)
        name = _tok(n.end_lineno, n.end_col_offset + 1 - len(n.attr), len(n.attr))
        return S.Attr(obj, n.attr, pos=span([obj, name]))

    def e_subscript(self, n):
        obj, index = self.ex(n.value), self.index(n.slice)
        return S.Subscript(obj, index, pos=span([obj, index]))

    def index(self, n):
        if isinstance(n, ast.Slice):
            items = [self.opt(n.lower), self.opt(n.upper), self.opt(n.step)]
            return S.SliceExpr(*items, pos=span(items))
        if isinstance(n, ast.Tuple):
            elts = [self.index(e) for e in n.elts]
            return S.TupleExpr(elts, pos=span(elts))
        return self.ex(n)

    def e_elts(self, n):
        elts = [self.ex(e) for e in n.elts]
        return _ELTS[type(n)](elts, pos=span(elts))

    def e_dict(self, n):
        if None in n.keys:                   # `{**d}`
            raise _Decline
        pairs = [(self.ex(k), self.ex(v)) for k, v in zip(n.keys, n.values)]
        return S.DictExpr([k for k, _ in pairs], [v for _, v in pairs], pos=span(pairs))

    def e_comprehension(self, n):
        if len(n.generators) != 1:
            raise _Decline
        g = n.generators[0]
        if g.is_async or len(g.ifs) > 1:
            raise _Decline
        items = [self.ex(n.elt), self.ex(g.target), self.ex(g.iter), self.opt(g.ifs[0] if g.ifs else None)]
        return S.ListComp(*items, pos=span(items))


_PLACED = {S.Name, S.Const, S.Call, S.Attr, S.Subscript, S.BinOp, S.UnaryOp, S.Node}
_SIMPLE = {ast.Pass: S.Pass, ast.Break: S.Break, ast.Continue: S.Continue}
_ELTS = {ast.List: S.ListExpr, ast.Tuple: S.TupleExpr, ast.Set: S.SetExpr}
C = _Converter
_STMTS = {ast.Expr: C.s_expr, ast.Assign: C.s_assign, ast.AugAssign: C.s_augassign, ast.Pass: C.s_simple,
          ast.Break: C.s_simple, ast.Continue: C.s_simple, ast.Return: C.s_return, ast.Raise: C.s_raise,
          ast.Import: C.s_import, ast.ImportFrom: C.s_importfrom, ast.Assert: C.s_assert,
          ast.Delete: C.s_delete, ast.If: C.s_if, ast.While: C.s_while, ast.For: C.s_for,
          ast.Try: C.s_try, ast.With: C.s_with, ast.FunctionDef: C.s_funcdef}
_EXPRS = {ast.Name: C.e_name, ast.Constant: C.e_constant, ast.UnaryOp: C.e_unary, ast.BinOp: C.e_binop,
          ast.BoolOp: C.e_boolop, ast.Compare: C.e_compare, ast.IfExp: C.e_ifexp, ast.Lambda: C.e_lambda,
          ast.Call: C.e_call, ast.Attribute: C.e_attribute, ast.Subscript: C.e_subscript,
          ast.List: C.e_elts, ast.Tuple: C.e_elts, ast.Set: C.e_elts, ast.Dict: C.e_dict,
          ast.ListComp: C.e_comprehension, ast.GeneratorExp: C.e_comprehension, ast.JoinedStr: C.e_fstring}
del C
