"""Source text -> a Python `ast.Module` that CPython compiles and runs.

A script that is valid Python 3 is CPython's own AST, unchanged. Anything else (the concise
dialect, Python 2's `print x`) is parsed by the Lark grammar (grammar.py) and translated
here, with the source positions of every node, so that tracebacks, node origins and
explanations name the script's own lines and columns:

    backward y1, retain_graph=True   ->  y1.backward(retain_graph=True)
    print x.grad                     ->  print(x.grad)
    expect A == B within T           ->  _gradcli_expect_close(A, B, T, "expect ... (line N)")
    expect error "text"; STMT        ->  try: STMT / except Exception as e: _gradcli_expect_error(...)
    graph y                          ->  _gradcli_graph(y, "y")

Implicit leaves (names a script reads but never binds, when it neither imports torch nor
runs with --strict) become `x = torch.tensor(2.0, requires_grad=True)` before the top-level
statement that first reads them. `gradcli export` writes `ast.unparse` of this very tree.
"""
from __future__ import annotations

import ast
import builtins
import gc
import re
import unicodedata

from . import syntax as S
from ..engine import ParseError

# Bound for a script that does not import torch itself (the concise dialect, the REPL).
TORCH_NAMES = {"torch": "torch", "nn": "torch.nn", "F": "torch.nn.functional"}
HELPER_PREFIX = "_gradcli_"
_SURROGATE = re.compile("[\ud800-\udfff]")


class Program:
    """What runs: the tree, the implicit leaves it assigns, and how it was read."""

    def __init__(self, tree, source, leaves=(), dialect=False, imports_torch=True):
        self.tree = tree
        self.source = source
        self.leaves = list(leaves)            # [(name, value)] in the order they are assigned
        self.dialect = dialect                # parsed by the grammar (not plain Python 3)
        self.imports_torch = imports_torch    # False: torch, nn and F are bound for the script
        self.code = None                      # (body, code object) once compiled


def normalise(source: str) -> str:
    text = source.replace("\r\n", "\n").replace("\r", "\n")
    return text if text.endswith("\n") else text + "\n"


def parse(source: str, filename: str = "<script>", *, values=None, strict=False, bound=(),
          max_dialect=None) -> Program:
    """The program of a script. Raises ParseError (line, column, advice) when it is neither
    Python 3 nor the dialect, or when it is longer than `max_dialect` characters (None: any
    length) and not Python: the dialect's parser is several times slower than CPython's."""
    collecting = gc.isenabled()
    gc.disable()            # a tree holds no cycles: a collection would only rescan its new nodes
    try:
        return _parse(source, filename, values, strict, bound, max_dialect)
    finally:
        if collecting:
            gc.enable()


def _python_error(e):
    """CPython's SyntaxError (or IndentationError, TabError) as the ParseError a user sees."""
    err = ParseError(e.msg, span=(e.lineno or 1, e.offset or 1))
    err.pytype = type(e).__name__
    return err


def _parse(source, filename, values, strict, bound, max_dialect=None):
    if "\x00" in source:
        raise ParseError("source code cannot contain null bytes", span=(1, 1))
    text = normalise(source)
    bad = _SURROGATE.search(text)               # (from an undecodable byte: no text can hold one)
    if bad is not None:
        i = bad.start()
        raise ParseError(f"the script contains the lone surrogate character {bad.group()!r}, which is not text",
                         span=(text.count("\n", 0, i) + 1, i - text.rfind("\n", 0, i)))
    try:
        tree = ast.parse(text, filename)
        dialect = False
    except SyntaxError as e:
        tree = None
        python_error = e
    except (RecursionError, MemoryError):
        raise ParseError("too many nested parentheses or blocks for gradcli's parser", span=(1, 1)) from None
    if tree is None:
        if max_dialect is not None and len(text) > max_dialect:
            # too long for the dialect's slower parser: Python's own error is the one to fix
            raise ParseError(f"{python_error.msg} (not read as gradcli's dialect either: at {len(text) // 1024:,} "
                             f"KiB the script is longer than the {max_dialect // 1024:,} KiB its parser reads in "
                             f"reasonable time; raise --max-source)",
                             span=(python_error.lineno or 1, python_error.offset or 1))
        from . import grammar as lark_parser, statements as parser
        try:
            module = lark_parser.parse_text(text)
        except RecursionError:
            raise ParseError("too many nested parentheses or blocks for gradcli's parser", span=(1, 1)) from None
        except ParseError:
            if isinstance(python_error, IndentationError):  # (TabError too): the dialect's blocks are Python's
                raise _python_error(python_error) from None
            raise
        parser.attach_text(module.body, text.split("\n"))
        tree = ast.Module(body=_Translator(text).block(module.body) if module.body else [], type_ignores=[])
        ast.fix_missing_locations(tree)         # (CPython's own tree has every position already)
        dialect = True
    imports = imports_torch(tree)
    leaves = [] if strict or imports else add_leaves(tree, values or {}, bound)
    return Program(tree, text, leaves, dialect, imports)


def is_incomplete(source: str) -> bool:
    """True when `source` is a valid beginning that needs more lines (an open bracket or
    block, a trailing colon): the REPL then shows a continuation prompt."""
    if source.rstrip().endswith(":") or source.rstrip().endswith("\\"):
        return True
    try:
        parse(source)
    except ParseError as e:
        return e.message.endswith("was never closed") or e.message.startswith("expected an indented block") \
            or "unexpected end of input" in e.message or "unterminated triple-quoted" in e.message
    return False


def imports_torch(tree) -> bool:
    for node in ast.walk(tree):
        if isinstance(node, ast.Import) and any(a.name == "torch" or a.name.startswith("torch.") for a in node.names):
            return True
        if isinstance(node, ast.ImportFrom) and node.module and (node.module == "torch" or
                                                                  node.module.startswith("torch.")):
            return True
    return False

# ----------------------------------------------------------------------------- implicit leaves


_BUILTINS = frozenset(dir(builtins))


def implicit_leaves(tree, known=()) -> list:
    """Names read but bound nowhere, in order of first use. A name used only as `name.attr` or
    `name(...)` is a module or a function the user forgot, never a tensor they meant."""
    bound, read, as_value, handles = set(TORCH_NAMES), {}, set(), set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name):
            if isinstance(node.ctx, ast.Load):
                read.setdefault(node.id, (node.lineno, node.col_offset))
                if id(node) not in handles:
                    as_value.add(node.id)
            else:
                bound.add(node.id)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            bound.add(node.name)
        elif isinstance(node, ast.arg):
            bound.add(node.arg)
        elif isinstance(node, ast.alias):
            bound.add((node.asname or node.name).split(".")[0])
        elif isinstance(node, ast.ExceptHandler) and node.name:
            bound.add(node.name)
        elif isinstance(node, (ast.Global, ast.Nonlocal)):
            bound.update(node.names)
        elif isinstance(node, ast.MatchAs) and node.name:
            bound.add(node.name)
        elif isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
            handles.add(id(node.value))          # (ast.walk visits a parent before its children)
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
            handles.add(id(node.func))
    names = [n for n in read if n not in bound and n not in known and n not in _BUILTINS and n in as_value
             and not n.startswith(HELPER_PREFIX)]
    return sorted(names, key=read.get)


def leaf_literal(value):
    """An implicit leaf's value as float literals (the leaf is float32)."""
    if isinstance(value, (list, tuple)):
        return [leaf_literal(v) for v in value]
    return float(value)


def add_leaves(tree, values, known=()) -> list:
    """Insert `name = torch.tensor(value, requires_grad=True)` before the top-level statement
    that first reads each implicit leaf; returns [(name, value)]. `known`: names already bound
    (the REPL's earlier entries)."""
    names = implicit_leaves(tree, known)
    if not names:
        return []
    first = {}
    for i, st in enumerate(tree.body):
        for node in ast.walk(st):
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load) and node.id in names:
                first.setdefault(node.id, i)
    body = []
    for i, st in enumerate(tree.body):
        for name in names:
            if first.get(name) == i:
                body.append(_leaf_assign(name, values.get(name, 1.0), st))
        body.append(st)
    tree.body = body
    return [(name, values.get(name, 1.0)) for name in names]


def _leaf_assign(name, value, where):
    at = dict(lineno=where.lineno, col_offset=where.col_offset, end_lineno=where.lineno,
              end_col_offset=where.col_offset)
    literal = ast.parse(repr(leaf_literal(value)), mode="eval").body
    for node in ast.walk(literal):
        node.__dict__.update(at)
    call = ast.Call(ast.Attribute(ast.Name("torch", ast.Load(), **at), "tensor", ast.Load(), **at), [literal],
                    [ast.keyword("requires_grad", ast.Constant(True, **at), **at)], **at)
    node = ast.Assign([ast.Name(name, ast.Store(), **at)], call, **at)
    node.leaf = name                      # (the REPL groups it with the statement that needs it)
    return node

# ----------------------------------------------------------------------------- the translator


_COMPOUND = (S.If, S.For, S.While, S.Try, S.With, S.FuncDef)
_BIN = {"+": ast.Add, "-": ast.Sub, "*": ast.Mult, "/": ast.Div, "//": ast.FloorDiv, "%": ast.Mod,
        "**": ast.Pow, "@": ast.MatMult, "|": ast.BitOr, "^": ast.BitXor, "&": ast.BitAnd,
        "<<": ast.LShift, ">>": ast.RShift}
_CMP = {"==": ast.Eq, "!=": ast.NotEq, "<": ast.Lt, "<=": ast.LtE, ">": ast.Gt, ">=": ast.GtE,
        "in": ast.In, "not in": ast.NotIn, "is": ast.Is, "is not": ast.IsNot}
_UNARY = {"-": ast.USub, "+": ast.UAdd, "~": ast.Invert}


def _id(name):
    """An identifier as CPython reads it: NFKC-normalised (`ｘ` is `x`)."""
    return name if name.isascii() else unicodedata.normalize("NFKC", name)


class _Translator:
    """syntax.py nodes -> Python ast nodes with the same positions."""

    def __init__(self, text):
        self.lines = text.split("\n")

    def at(self, n):
        return dict(lineno=n.line, col_offset=max(n.col - 1, 0), end_lineno=n.end_line or n.line,
                    end_col_offset=max((n.end_col or n.col) - 1, 0))

    # -- statements ---------------------------------------------------------------------
    def block(self, body):
        out = []
        i = 0
        while i < len(body):
            st = body[i]
            if isinstance(st, S.Expect) and st.kind == "error":
                if i + 1 >= len(body):
                    raise ParseError("`expect error` must be followed (in its block) by the statement that "
                                     "raises", span=(st.line, st.col))
                out.append(self.expect_error(st, body[i + 1]))
                i += 2
                continue
            out.extend(self.stmt(st))
            i += 1
        return out or [ast.Pass()]

    def stmt(self, st):
        method = getattr(self, "st_" + type(st).__name__)
        result = method(st)
        nodes = result if isinstance(result, list) else [result]
        at = self.at(st)
        text = getattr(st, "text", None)
        if text and st.end_line in (st.line, 0) and not isinstance(st, _COMPOUND):
            # the grammar's end of a statement can stop before a closing bracket; its text cannot
            at["end_lineno"], at["end_col_offset"] = st.line, at["col_offset"] + len(text)
        for node in nodes:
            for k, v in at.items():
                if getattr(node, k, None) is None:
                    setattr(node, k, v)
        return nodes

    def label(self, st):
        return ast.Constant(f"{st.text} (line {st.line})")

    def helper(self, name, args, st):
        return ast.Expr(ast.Call(ast.Name(HELPER_PREFIX + name, ast.Load(), **self.at(st)), args, [], **self.at(st)))

    def st_ExprStmt(self, st):
        return ast.Expr(self.expr(st.value))

    def st_Assign(self, st):
        return ast.Assign([self.target(t) for t in st.targets], self.expr(st.value))

    def st_AugAssign(self, st):
        return ast.AugAssign(self.target(st.target), _BIN[st.op](), self.expr(st.value))

    def st_Print(self, st):
        return ast.Expr(ast.Call(ast.Name("print", ast.Load(), **self.at(st)), [self.expr(v) for v in st.values], [],
                                 **self.at(st)))

    def st_Backward(self, st):
        fn = ast.Attribute(self.expr(st.target), "backward", ast.Load(), **self.at(st))
        return ast.Expr(ast.Call(fn, [], [ast.keyword(k, self.expr(v)) for k, v in st.kwargs], **self.at(st)))

    def st_Expect(self, st):
        if st.kind in ("freed", "retained"):
            return self.helper("expect_freed", [ast.Name(_id(st.value), ast.Load(), **self.at(st)),
                                                ast.Constant(st.kind == "freed"), self.label(st)], st)
        e = st.value
        if isinstance(e, S.Compare) and e.ops == ["=="]:
            tol = ast.Constant(None) if st.tolerance is None else self.expr(st.tolerance)
            return self.helper("expect_close", [self.expr(e.left), self.expr(e.rights[0]), tol, self.label(st)], st)
        return self.helper("expect", [self.expr(e), self.label(st)], st)

    def expect_error(self, st, nxt):
        at = self.at(st)
        name = HELPER_PREFIX + "error"
        handler = ast.ExceptHandler(ast.Name("Exception", ast.Load(), **at), name,
                                    [self.helper("expect_error", [ast.Name(name, ast.Load(), **at),
                                                                  ast.Constant(st.value), self.label(st)], st)], **at)
        orelse = [self.helper("expect_no_error", [self.label(st)], st)]
        at.update(end_lineno=nxt.end_line or nxt.line, end_col_offset=max((nxt.end_col or nxt.col) - 1, 0))
        return ast.Try(self.stmt(nxt), [handler], orelse, [], **at)

    def st_GraphStmt(self, st):
        return self.helper("graph", [self.expr(st.target), ast.Constant(st.text[len("graph"):].strip())], st)

    def st_Pass(self, st):
        return ast.Pass()

    def st_Break(self, st):
        return ast.Break()

    def st_Continue(self, st):
        return ast.Continue()

    def st_Return(self, st):
        return ast.Return(None if st.value is None else self.expr(st.value))

    def st_Raise(self, st):
        return ast.Raise(None if st.exc is None else self.expr(st.exc), None)

    def st_Import(self, st):
        return ast.Import([ast.alias(".".join(map(_id, n.split("."))), a and _id(a)) for n, a in st.names])

    def st_FromImport(self, st):
        return ast.ImportFrom(".".join(map(_id, st.module.split("."))), [ast.alias(_id(n), a and _id(a)) for n, a in st.names], 0)

    def st_Assert(self, st):
        return ast.Assert(self.expr(st.test), None if st.msg is None else self.expr(st.msg))

    def st_Delete(self, st):
        return ast.Delete([self.target(t, ast.Del) for t in st.targets])

    def st_Global(self, st):
        return ast.Global([_id(n) for n in st.names])

    def st_If(self, st):
        (test, body), *rest = st.branches
        orelse = self.block(st.orelse) if st.orelse else []
        for t, b in reversed(rest):
            orelse = [ast.If(self.expr(t), self.block(b), orelse, **self.at(t))]
        return ast.If(self.expr(test), self.block(body), orelse)

    def st_While(self, st):
        return ast.While(self.expr(st.test), self.block(st.body), self.block(st.orelse) if st.orelse else [])

    def st_For(self, st):
        return ast.For(self.target(st.target), self.expr(st.iter), self.block(st.body),
                       self.block(st.orelse) if st.orelse else [], None)

    def st_Try(self, st):
        handlers = [ast.ExceptHandler(None if t is None else self.expr(t), n and _id(n), self.block(b), **self.at(st))
                    for t, n, b in st.handlers]
        return ast.Try(self.block(st.body), handlers, self.block(st.orelse) if st.orelse else [],
                       self.block(st.finalbody) if st.finalbody else [])

    def st_With(self, st):
        items = [ast.withitem(self.expr(e), None if n is None else ast.Name(_id(n), ast.Store(), **self.at(e)))
                 for e, n in st.items]
        return ast.With(items, self.block(st.body), None)

    def st_FuncDef(self, st):
        return ast.FunctionDef(_id(st.name), self.arguments(st.params, st), self.block(st.body), [], None, None)

    def arguments(self, params, where):
        args, defaults, kwonly, kw_defaults, vararg, kwarg = [], [], [], [], None, None
        for kind, name, default in params:
            a = ast.arg(_id(name), None, None, **self.at(where))
            if kind == "star":
                vararg = a
            elif kind == "kwstar":
                kwarg = a
            elif vararg is not None:
                kwonly.append(a)
                kw_defaults.append(None if default is None else self.expr(default))
            else:
                args.append(a)
                if default is not None:
                    defaults.append(self.expr(default))
        return ast.arguments([], args, vararg, kwonly, kw_defaults, kwarg, defaults)

    # -- expressions --------------------------------------------------------------------
    def target(self, n, ctx=ast.Store):
        node = self.expr(n)
        _set_ctx(node, ctx)
        return node

    def expr(self, n):
        node = getattr(self, "ex_" + type(n).__name__)(n)
        for k, v in self.at(n).items():
            if getattr(node, k, None) is None:
                setattr(node, k, v)
        return node

    def ex_Name(self, n):
        return ast.Name(_id(n.id), ast.Load())

    def ex_Const(self, n):
        return ast.Constant(n.value)

    def ex_EllipsisExpr(self, n):
        return ast.Constant(...)

    def ex_FString(self, n):
        return ast.JoinedStr(self.fparts(n.parts, n))

    def fparts(self, parts, where):
        out = []
        for p in parts:
            if isinstance(p, str):
                out.append(ast.Constant(p, **self.at(where)))
            else:
                e, conv, spec = p
                fmt = None if spec is None else ast.JoinedStr(self.fparts(spec, where), **self.at(where))
                out.append(ast.FormattedValue(self.expr(e), ord(conv) if conv else -1, fmt, **self.at(where)))
        return out

    def ex_ListExpr(self, n):
        return ast.List([self.expr(e) for e in n.elts], ast.Load())

    def ex_TupleExpr(self, n):
        return ast.Tuple([self.expr(e) for e in n.elts], ast.Load())

    def ex_SetExpr(self, n):
        return ast.Set([self.expr(e) for e in n.elts])

    def ex_DictExpr(self, n):
        return ast.Dict([None if k is None else self.expr(k) for k in n.keys], [self.expr(v) for v in n.values])

    def ex_Attr(self, n):
        return ast.Attribute(self.expr(n.obj), _id(n.name), ast.Load())

    def ex_Subscript(self, n):
        return ast.Subscript(self.expr(n.obj), self.expr(n.index), ast.Load())

    def ex_SliceExpr(self, n):
        return ast.Slice(*(None if x is None else self.expr(x) for x in (n.lower, n.upper, n.step)))

    def ex_Call(self, n):
        return ast.Call(self.expr(n.func), [self.expr(a) for a in n.args],
                        [ast.keyword(k and _id(k), self.expr(v), **self.at(v)) for k, v in n.kwargs])

    def ex_Starred(self, n):
        return ast.Starred(self.expr(n.value), ast.Load())

    def ex_BinOp(self, n):
        return ast.BinOp(self.expr(n.left), _BIN[n.op](), self.expr(n.right))

    def ex_UnaryOp(self, n):
        return ast.UnaryOp(_UNARY[n.op](), self.expr(n.operand))

    def ex_Not(self, n):
        return ast.UnaryOp(ast.Not(), self.expr(n.operand))

    def ex_BoolOp(self, n):
        return ast.BoolOp(ast.And() if n.op == "and" else ast.Or(), [self.expr(v) for v in n.values])

    def ex_Compare(self, n):
        return ast.Compare(self.expr(n.left), [_CMP[o]() for o in n.ops], [self.expr(r) for r in n.rights])

    def ex_IfExp(self, n):
        return ast.IfExp(self.expr(n.test), self.expr(n.body), self.expr(n.orelse))

    def ex_Lambda(self, n):
        return ast.Lambda(self.arguments(n.params, n), self.expr(n.body))

    def ex_ListComp(self, n):
        gen = ast.comprehension(self.target(n.target), self.expr(n.iter),
                                [] if n.cond is None else [self.expr(n.cond)], 0)
        return ast.ListComp(self.expr(n.elt), [gen])


def _set_ctx(node, ctx):
    """A target and the elements of a target tuple or list store (indices inside them still load)."""
    node.ctx = ctx()
    if isinstance(node, (ast.Tuple, ast.List)):
        for e in node.elts:
            _set_ctx(e, ctx)
    elif isinstance(node, ast.Starred):
        _set_ctx(node.value, ctx)
