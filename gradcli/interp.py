"""The evaluator: runs the AST (syntax.py) against the engine, filling a Report.

Scripts see a small, safe Python: their own values, gradcli's `torch`, and a fixed
set of built-ins. No file, import, dunder or interpreter internals are reachable.
"""
from __future__ import annotations

import itertools as _itertools
import math
import operator
import re as _re
import sys
import time

import numpy as np

from . import engine as E
from . import ops as _ops
from . import syntax as S
from .engine import Tensor, STATE
from .torch import random as _torch_random
from .errors import (ScriptError, LimitError, ExpectationFailed, TorchRuntimeError, TorchTypeError, TorchValueError,
                     TorchNameError, TorchAttributeError, TorchIndexError, TorchKeyError,
                     TorchZeroDivisionError, TorchAssertionError, TorchRecursionError, BY_NAME)
from .report import Report, CallEvent, NodeInfo, LeafUpdate, ErrorInfo

MAX_CALL_DEPTH = 200
MAX_SEQUENCE = 10_000_000          # elements in a list, string or range made by a script

# ----------------------------------------------------------------------------- control flow


class _Break(Exception):
    pass


class _Continue(Exception):
    pass


class _Return(Exception):
    def __init__(self, value):
        self.value = value


class Frame:
    __slots__ = ("vars", "globals", "depth", "fn", "closure")

    def __init__(self, vars, globals, depth=0, fn=None, closure=()):
        self.vars, self.globals, self.depth, self.fn = vars, globals, depth, fn
        self.closure = closure          # the local scopes of enclosing functions, innermost first


class _Traced:
    """A node's origin while anomaly mode is on: the statement, plus the calling frames, so
    that anomaly mode can show the forward traceback as PyTorch does (engine._anomaly_warning)."""

    __slots__ = ("stmt", "outer", "name", "filename")

    def __init__(self, stmt, outer, name, filename):
        self.stmt, self.outer, self.name, self.filename = stmt, outer, name, filename

    def __getattr__(self, attr):
        return getattr(self.stmt, attr)

    def anomaly_trace(self):
        out = []
        for name, st in self.outer + ((self.name, self.stmt),):
            if st is None:
                continue
            text = (getattr(st, "text", None) or "").strip().split("\n")[0]
            out.append(f'  File "{self.filename}", line {st.line}, in {name}\n    {text}\n')
        return "".join(out)


class Namespace:
    """A module as a script sees it (`torch`, `torch.nn.functional`, ...)."""

    def __init__(self, name, attrs):
        self._name, self._attrs = name, attrs

    def __repr__(self):
        return f"<module '{self._name}'>"


class UserFunction:
    def __init__(self, name, params, body, globals, interp, is_lambda=False, closure=()):
        self.name, self.params, self.body, self.globals = name, params, body, globals
        self.interp, self.is_lambda, self.closure = interp, is_lambda, closure

    def __repr__(self):
        return f"<function {self.name} at {E._fake_address(self)}>"

    def __call__(self, *args, **kwargs):
        return self.interp.call_user(self, args, kwargs)


class ScriptType:
    """What `type(x)` returns: prints like Python's, exposes only `__name__`."""

    def __init__(self, name, qualname, pytype):
        self.__name__, self.qualname, self.pytype = name, qualname, pytype

    def __repr__(self):
        return f"<class '{self.qualname}'>"

    def __eq__(self, other):
        return isinstance(other, ScriptType) and other.qualname == self.qualname or other is self.pytype

    def __hash__(self):
        return hash(self.qualname)

    def __call__(self, *args, **kwargs):
        if self.pytype is Tensor:
            from .torch import Tensor_ as make
            return make(*args, **kwargs)
        raise _unsupported(f"calling type {self.qualname!r}")


def _script_type(v):
    if isinstance(v, Tensor):
        return ScriptType("Tensor", "torch.Tensor", Tensor)
    if isinstance(v, E.Node):
        return ScriptType(v.op.name, v.op.name, type(v))      # the class: `CopySlices`, not its name()
    if isinstance(v, ScriptError):
        return ScriptType(v.pytype, v.pytype, type(v))
    if isinstance(v, UserFunction):
        return ScriptType("function", "function", UserFunction)
    if isinstance(v, E.Size):
        return ScriptType("Size", "torch.Size", E.Size)
    if isinstance(v, E.DType):
        return ScriptType("dtype", "torch.dtype", E.DType)
    t = type(v)
    if t in _PLAIN_TYPES:
        return t            # plain Python values: Python's own type (so `type(1.5) is float`)
    return ScriptType(t.__name__, t.__name__, None)      # anything else: a name, never a constructor


_PLAIN_TYPES = {int, float, str, bool, list, tuple, dict, set, type(None), range}

# ----------------------------------------------------------------------------- native errors


def _native(e):
    """A Python exception raised by a script's own Python-level operation, as a ScriptError."""
    if isinstance(e, ScriptError):
        return e
    cls = {TypeError: TorchTypeError, ValueError: TorchValueError, ZeroDivisionError: TorchZeroDivisionError,
           IndexError: TorchIndexError, KeyError: TorchKeyError, AttributeError: TorchAttributeError,
           OverflowError: BY_NAME.get("OverflowError", TorchValueError)}.get(type(e))
    if cls is None:
        for base, c in ((TypeError, TorchTypeError), (ValueError, TorchValueError), (ArithmeticError, TorchValueError),
                        (LookupError, TorchIndexError)):
            if isinstance(e, base):
                cls = c
                break
    if cls is None:
        return None
    msg = str(e) if not isinstance(e, KeyError) else repr(e.args[0]) if e.args else ""
    return cls(msg)


_NATIVE = (TypeError, ValueError, ArithmeticError, LookupError, AttributeError)

_BINOPS = {"+": operator.add, "-": operator.sub, "*": operator.mul, "/": operator.truediv,
           "//": operator.floordiv, "%": operator.mod, "@": operator.matmul, "**": operator.pow,
           "|": operator.or_, "^": operator.xor, "&": operator.and_}
_INPLACE = {"+": operator.iadd, "-": operator.isub, "*": operator.imul, "/": operator.itruediv,
            "//": operator.ifloordiv, "%": operator.imod, "@": operator.imatmul, "**": operator.ipow,
            "&": operator.iand, "|": operator.ior, "^": operator.ixor}
_COMPARE = {"<": operator.lt, ">": operator.gt, "==": operator.eq, ">=": operator.ge, "<=": operator.le,
            "!=": operator.ne, "is": operator.is_, "is not": operator.is_not,
            "in": lambda a, b: a in b, "not in": lambda a, b: a not in b}


def _guard_binop(op, a, b):
    """Refuse Python computations that would exhaust the machine (10**10**10, 'a'*10**10)."""
    if op == "**" and type(a) is int and type(b) is int and b > 0 and abs(a) > 1:
        if b * math.log2(abs(a)) > 1_000_000:
            raise LimitError("integer power too large (more than a million bits)")
    elif op == "*":
        for seq, n in ((a, b), (b, a)):
            if isinstance(seq, (str, list, tuple)) and type(n) is int and len(seq) * n > MAX_SEQUENCE:
                raise LimitError(f"sequence repetition would make more than {MAX_SEQUENCE:,} elements")
    elif op == "<<" and type(b) is int and b > 1_000_000:
        raise LimitError("shift too large")
    elif op == "%" and isinstance(a, str):
        for width, precision in _re.findall(r"%[-+ #0]*(\d*)(?:\.(\d*))?", a):
            check_format_spec(width + " " + precision)
    elif op == "+" and isinstance(a, (str, list, tuple)) and isinstance(b, (str, list, tuple)) and \
            len(a) + len(b) > MAX_SEQUENCE:
        raise LimitError(f"concatenation would make more than {MAX_SEQUENCE:,} elements")

# ----------------------------------------------------------------------------- the interpreter


class Interpreter:
    """Runs one script (or, in the REPL, one statement at a time) in its own state."""

    def __init__(self, report: Report, *, values=None, strict=False, timeout=None, filename="<script>"):
        self.report = report
        self.values = values or {}          # --set NAME=VALUE
        self.strict = strict
        self.filename = filename
        self.deadline = None if timeout is None else time.monotonic() + timeout
        self.timeout = timeout
        self.globals = {}
        self.implicit = False
        self.warned_lines = set()
        self.current = None                 # the statement being run
        self.leaves_announced = []
        self._tick = 0
        from . import torch as gtorch
        self.torch_ns = _torch_namespace(gtorch)
        self.builtins = self._make_builtins()
        STATE.reset()
        STATE.observer = self._on_call
        STATE.warn = self._on_warn

    # -- entry points ---------------------------------------------------------------------
    def run(self, module: S.Module, implicit=None):
        if implicit is None:
            implicit = not self.strict and not _imports_torch(module.body)
        self.implicit = implicit
        frame = Frame(self.globals, self.globals)
        old_limit = sys.getrecursionlimit()
        sys.setrecursionlimit(max(old_limit, 12000))
        try:
            self.exec_block(module.body, frame)
        except ScriptError as e:
            self.report.error = self.error_info(e)
        except (_Break, _Continue):
            self.report.error = ErrorInfo("SyntaxError", "'break' outside loop", self._line())
        except _Return:
            self.report.error = ErrorInfo("SyntaxError", "'return' outside function", self._line())
        except RecursionError:
            self.report.error = ErrorInfo("RecursionError", "maximum recursion depth exceeded: the script "
                                          "nests expressions or calls too deeply", self._line())
        except MemoryError:
            self.report.error = ErrorInfo("LimitError", "the script ran out of memory (lower what it builds, "
                                          "or see --max-memory)", self._line())
        finally:
            sys.setrecursionlimit(old_limit)
            if STATE.stale:
                self._fresh_views(frame)
            self._announce_leaves()
        self.report.describe = self.describe_tensors     # computed only when a view asks (JSON)
        return self.report

    # -- statements ---------------------------------------------------------------------
    def exec_block(self, body, frame):
        for st in body:
            if STATE.stale:                 # (before the next statement: nodes rebuilt belong to the last)
                self._fresh_views(frame)
            self.current = st
            STATE.origin = st if not STATE.anomaly else _Traced(st, self._outer, self._fn_name, self.filename)
            expected, self.expected_error = self.expected_error, None
            try:
                self._exec[type(st)](self, st, frame)
            except ScriptError as e:
                if e.span is None:
                    e.span = (st.line, st.col)
                    e.stmt = st
                if expected is None or isinstance(e, (LimitError, ExpectationFailed)):
                    raise
                if expected[0] not in e.message:
                    raise ExpectationFailed(f"expected an error containing {expected[0]!r} (expect on line "
                                            f"{expected[1]}), but got {e.pytype}: {e.message}") from None
                self.report.items.append(("expect", st.line, True, f"error as expected: {e.pytype}"))
                continue
            if expected is not None:
                raise ExpectationFailed(f"expected an error containing {expected[0]!r} (expect on line "
                                        f"{expected[1]}), but line {st.line} ran without error")
            if self.deadline is not None:
                self._check_time()
        if self.expected_error is not None:
            text, line = self.expected_error
            self.expected_error = None
            err = ExpectationFailed(f"`expect error {text!r}` on line {line} has no statement after it "
                                    "(in its block) that could raise")
            err.span = (line, 1)
            raise err

    expected_error = None

    def _fresh_views(self, frame):
        """Views the script's variables hold get their grad_fn rebuilt after an in-place change of
        their storage (PyTorch rebuilds one whenever it is read: ops.fresh_view)."""
        if self._depth == 0:
            STATE.stale = False
        _ops.fresh_views(frame.globals.values())
        if frame.vars is not frame.globals:
            _ops.fresh_views(frame.vars.values())
            for scope in frame.closure:
                _ops.fresh_views(scope.values())

    def _check_time(self):
        if time.monotonic() > self.deadline:
            raise LimitError(f"the script ran longer than the time limit of {self.timeout:g} s "
                             f"(stopped at line {self.current.line}; raise it with --timeout)")

    def ex_expr(self, st, frame):
        value = self.eval(st.value, frame)
        if self.echo and value is not None:
            self.report.write(repr(value) + "\n")

    echo = False       # the REPL echoes bare expressions

    def ex_assign(self, st, frame):
        value = self.eval(st.value, frame)
        for target in st.targets:
            self.assign(target, value, frame)

    def ex_augassign(self, st, frame):
        t = st.target
        if isinstance(t, S.Name):
            cur = self.lookup(t, frame)
            self.assign(t, self.inplace(st.op, cur, self.eval(st.value, frame), t), frame)
        elif isinstance(t, S.Attr):
            obj = self.eval(t.obj, frame)
            cur = self.get_attr(obj, t.name, t)
            self.set_attr(obj, t.name, self.inplace(st.op, cur, self.eval(st.value, frame), t), t)
        elif isinstance(t, S.Subscript):
            obj = self.eval(t.obj, frame)
            idx = self.eval(t.index, frame)
            cur = self.getitem(obj, idx, t)
            self.setitem(obj, idx, self.inplace(st.op, cur, self.eval(st.value, frame), t), t)
        else:
            raise TorchRuntimeError("'tuple' is an illegal expression for augmented assignment")

    def inplace(self, op, cur, value, node):
        if isinstance(cur, Tensor):
            return self._call_op(_INPLACE[op], (cur, value), node)
        return self.binop(op, cur, value, node)

    def ex_print(self, st, frame):
        values = [self.eval(v, frame) for v in st.values]
        self._print(*values)

    def ex_backward(self, st, frame):
        target = self.eval(st.target, frame, leaf_ok=False)
        kwargs = {name: self.eval(v, frame) for name, v in st.kwargs}
        if not isinstance(target, Tensor):
            raise TorchTypeError(f"backward needs a tensor, but `{st.target.id if isinstance(st.target, S.Name) else 'target'}` "
                                 f"is {type(target).__name__}")
        self.call(target.backward, [], kwargs, st)

    def ex_pass(self, st, frame):
        pass

    def ex_expect(self, st, frame):
        if st.kind == "error":
            self.expected_error = (st.value, st.line)
            return
        if st.kind in ("freed", "retained"):
            self._expect_freed(st, frame)
            return
        expr = st.value
        tol = None if st.tolerance is None else self.eval(st.tolerance, frame)
        if isinstance(expr, S.Compare) and expr.ops == ["=="]:
            a, b = self.eval(expr.left, frame), self.eval(expr.rights[0], frame)
            ok, detail = _close(a, b, tol)
        else:
            v = self.eval(expr, frame)
            ok = bool(np.all(v.data)) if isinstance(v, Tensor) else self.truth(v)
            detail = f"got {v!r}"
        if not ok:
            raise ExpectationFailed(f"expect {st.text[len('expect'):].strip()} failed: {detail}")
        self.report.items.append(("expect", st.line, True, st.text))

    def _expect_freed(self, st, frame):
        t = self.lookup(S.Name(st.value, pos=(st.line, st.col, st.line, st.col)), frame, leaf_ok=False)
        if not isinstance(t, Tensor) or t.grad_fn is None:
            raise ExpectationFailed(f"expect {st.kind} {st.value}: {st.value} has no grad_fn, so no saved tensors")
        node = t.grad_fn
        slots = node.tensor_slots()
        if not slots:
            raise ExpectationFailed(f"expect {st.kind} {st.value}: its {node.name()} saves no tensors "
                                    "(nothing to free or keep)")
        freed = all(node.saved[k].freed for k in slots)
        if freed != (st.kind == "freed"):
            state = "were freed" + (f" by line {node.freed_by.origin.line}" if node.freed_by and
                                    node.freed_by.origin is not None else "") if freed else "are still held"
            raise ExpectationFailed(f"expect {st.kind} {st.value} failed: the saved tensors of {node.name()} "
                                    f"({', '.join(slots)}) {state}")
        self.report.items.append(("expect", st.line, True, st.text))

    def ex_graph(self, st, frame):
        from . import graphview
        target = self.eval(st.target, frame)
        if not isinstance(target, Tensor):
            raise TorchTypeError(f"graph needs a tensor, not {_type_name(target)}")
        by_tensor, by_node = self._names()
        name = st.target.id if isinstance(st.target, S.Name) else st.text[len("graph"):].strip()
        self.report.items.append(("graph", st.line, graphview.snapshot({name: target}, by_node, by_tensor)))

    def ex_break(self, st, frame):
        raise _Break()

    def ex_continue(self, st, frame):
        raise _Continue()

    def ex_return(self, st, frame):
        if frame.fn is None:
            raise ScriptErrorSyntax("'return' outside function")
        raise _Return(None if st.value is None else self.eval(st.value, frame))

    def ex_raise(self, st, frame):
        if st.exc is None:
            active = getattr(frame, "_active", None) or self._active_exc
            if active is None:
                raise TorchRuntimeError("No active exception to reraise")
            raise active
        exc = self.eval(st.exc, frame)
        if isinstance(exc, type) and issubclass(exc, ScriptError):
            exc = exc("")
        if not isinstance(exc, ScriptError):
            raise TorchTypeError("exceptions must derive from BaseException")
        exc.span = None
        raise exc

    _active_exc = None

    def ex_import(self, st, frame):
        for module, alias in st.names:
            ns = self._module(module)
            if alias:
                frame.vars[alias] = ns
            else:
                frame.vars[module.split(".")[0]] = self._module(module.split(".")[0])

    def ex_fromimport(self, st, frame):
        ns = self._module(st.module)
        for name, alias in st.names:
            if name == "*":
                raise _unsupported("`from ... import *`")
            if name not in ns._attrs:
                sub = self._module(st.module + "." + name, quiet=True)
                if sub is None:
                    raise _import_error(f"cannot import name '{name}' from '{st.module}'")
                frame.vars[alias or name] = sub
            else:
                frame.vars[alias or name] = ns._attrs[name]

    def _module(self, name, quiet=False):
        ns = self.torch_ns
        parts = name.split(".")
        if parts[0] != "torch":
            if quiet:
                return None
            raise _import_error(f"No module named '{name}': gradcli scripts can import only torch "
                                "(and torch.nn.functional); other modules are not available", name="ModuleNotFoundError")
        for p in parts[1:]:
            nxt = ns._attrs.get(p)
            if not isinstance(nxt, Namespace):
                if quiet:
                    return None
                raise _import_error(f"No module named '{name}'", name="ModuleNotFoundError")
            ns = nxt
        return ns

    def ex_assert(self, st, frame):
        if not self.truth(self.eval(st.test, frame)):
            msg = "" if st.msg is None else self.eval(st.msg, frame)
            raise TorchAssertionError(msg if isinstance(msg, str) else repr(msg))

    def ex_delete(self, st, frame):
        for t in st.targets:
            if isinstance(t, S.Name):
                if t.id in frame.vars:
                    del frame.vars[t.id]
                else:
                    raise TorchNameError(f"name '{t.id}' is not defined")
            elif isinstance(t, S.Subscript):
                obj, idx = self.eval(t.obj, frame), self.eval(t.index, frame)
                if isinstance(obj, (list, dict)):
                    try:
                        del obj[idx]
                    except _NATIVE as e:
                        raise _native(e)
                else:
                    raise TorchTypeError(f"'{type(obj).__name__}' object doesn't support item deletion")
            else:
                raise _unsupported("this kind of `del`")

    def ex_global(self, st, frame):
        pass        # names a function assigns are local; globals stay readable

    def ex_if(self, st, frame):
        for test, body in st.branches:
            if self.truth(self.eval(test, frame)):
                self.exec_block(body, frame)
                return
        if st.orelse:
            self.exec_block(st.orelse, frame)

    def ex_while(self, st, frame):
        while self.truth(self.eval(st.test, frame)):
            if not self._iteration(st, frame):
                return
        if st.orelse:
            self.exec_block(st.orelse, frame)

    def _iteration(self, st, frame):
        """One pass of a loop body; False when it ended with `break`."""
        self._loop_tick(st)
        try:
            self.exec_block(st.body, frame)
        except _Break:
            return False
        except _Continue:
            pass
        return True

    def _loop_tick(self, st):
        self._tick += 1
        if self._tick & 63:
            return
        if self.deadline is not None and time.monotonic() > self.deadline:
            if isinstance(st, S.Stmt):
                self.current = st
            self._check_time()
        if self._tick & 1023 == 0:
            from . import ops
            cap = ops.LIMITS.max_bytes
            if cap is not None and ops._resident_bytes() > cap:
                raise LimitError(f"the script's memory use passed the limit of {cap / 2 ** 30:.1f} GiB "
                                 "(raise it with --max-memory)")

    def ex_for(self, st, frame):
        iterable = self.eval(st.iter, frame)
        it = self._iter(iterable)
        for item in it:
            self.assign(st.target, item, frame)
            if not self._iteration(st, frame):
                return
        if st.orelse:
            self.exec_block(st.orelse, frame)

    def _iter(self, v):
        if isinstance(v, Tensor):
            if v.data.ndim == 0:
                raise TorchTypeError("iteration over a 0-d tensor")
            return (self._call_op(operator.getitem, (v, i), None) for i in range(v.data.shape[0]))
        if isinstance(v, (list, tuple, str, dict, range, zip, enumerate, map, filter, reversed)) \
                or type(v).__name__ in ("dict_keys", "dict_values", "dict_items", "list_iterator"):
            return iter(v)
        if isinstance(v, E.Size):
            return iter(v)
        raise TorchTypeError(f"'{_type_name(v)}' object is not iterable")

    def ex_try(self, st, frame):
        try:
            try:
                self.exec_block(st.body, frame)
            except ScriptError as e:
                if isinstance(e, (LimitError, ExpectationFailed)):
                    raise
                for typ_node, name, body in st.handlers:
                    if typ_node is None or self._matches(e, self.eval(typ_node, frame)):
                        if name:
                            frame.vars[name] = e
                        prev, self._active_exc = self._active_exc, e
                        try:
                            self.exec_block(body, frame)
                        finally:
                            self._active_exc = prev
                        break
                else:
                    raise
            else:
                if st.orelse:
                    self.exec_block(st.orelse, frame)
        finally:
            if st.finalbody:
                self.exec_block(st.finalbody, frame)

    def _matches(self, e, typ):
        if isinstance(typ, tuple):
            return any(self._matches(e, t) for t in typ)
        if isinstance(typ, type) and issubclass(typ, ScriptError):
            return isinstance(e, typ)
        raise TorchTypeError("catching classes that do not inherit from BaseException is not allowed")

    def ex_with(self, st, frame):
        managers = []
        try:
            for expr, name in st.items:
                cm = self.eval(expr, frame)
                from .torch import _Context
                if not isinstance(cm, _Context):
                    raise TorchTypeError(f"'{_type_name(cm)}' object does not support the context manager protocol")
                value = cm.__enter__()
                managers.append(cm)
                if name:
                    frame.vars[name] = value
            self.exec_block(st.body, frame)
        finally:
            for cm in reversed(managers):
                cm.__exit__(None, None, None)

    def ex_funcdef(self, st, frame):
        params = [(kind, name, None if d is None else self.eval(d, frame)) for kind, name, d in st.params]
        frame.vars[st.name] = UserFunction(st.name, params, st.body, frame.globals, self, closure=_scopes(frame))

    _exec = {S.ExprStmt: ex_expr, S.Assign: ex_assign, S.AugAssign: ex_augassign, S.Print: ex_print,
             S.Backward: ex_backward, S.Pass: ex_pass, S.Expect: ex_expect, S.GraphStmt: ex_graph, S.Break: ex_break, S.Continue: ex_continue,
             S.Return: ex_return, S.Raise: ex_raise, S.Import: ex_import, S.FromImport: ex_fromimport,
             S.Assert: ex_assert, S.Delete: ex_delete, S.Global: ex_global, S.If: ex_if,
             S.While: ex_while, S.For: ex_for, S.Try: ex_try, S.With: ex_with, S.FuncDef: ex_funcdef}

    # -- assignment ---------------------------------------------------------------------
    def assign(self, target, value, frame):
        if isinstance(target, S.Name):
            frame.vars[target.id] = value
        elif isinstance(target, (S.TupleExpr, S.ListExpr)):
            items = list(self._iter(value))
            n = len(target.elts)
            if len(items) != n:
                if len(items) < n:
                    raise TorchValueError(f"not enough values to unpack (expected {n}, got {len(items)})")
                raise TorchValueError(f"too many values to unpack (expected {n})")
            for t, v in zip(target.elts, items):
                self.assign(t, v, frame)
        elif isinstance(target, S.Attr):
            self.set_attr(self.eval(target.obj, frame), target.name, value, target)
        elif isinstance(target, S.Subscript):
            self.setitem(self.eval(target.obj, frame), self.eval(target.index, frame), value, target)
        else:
            raise ScriptErrorSyntax("cannot assign to expression")

    def set_attr(self, obj, name, value, node):
        if isinstance(obj, Tensor) and name in ("grad", "requires_grad", "data"):
            if name == "data":
                if not isinstance(value, Tensor):
                    raise TorchTypeError("data must be a Tensor")
                obj.data = value.data
                return
            self._call_op(setattr, (obj, name, value), node)
            return
        if name.startswith("__"):
            raise _unsupported(f"setting '{name}'")
        raise TorchAttributeError(f"cannot set attribute '{name}' of '{_type_name(obj)}' objects in gradcli scripts")

    def setitem(self, obj, idx, value, node):
        if isinstance(obj, Tensor):
            self._call_op(operator.setitem, (obj, idx, value), node)
        elif isinstance(obj, (list, dict)):
            try:
                obj[idx] = value
            except _NATIVE as e:
                raise _native(e)
        else:
            raise TorchTypeError(f"'{_type_name(obj)}' object does not support item assignment")

    # -- expressions ----------------------------------------------------------------------
    def eval(self, node, frame, leaf_ok=True):
        if type(node) is S.Name:
            return self.lookup(node, frame, leaf_ok)
        try:
            return self._eval[type(node)](self, node, frame)
        except ScriptError as e:
            if e.span is None:
                e.span = (node.line, node.col)
            raise

    def lookup(self, node, frame, leaf_ok=True):
        name = node.id
        v = frame.vars.get(name, _MISSING)
        if v is not _MISSING:
            return v
        for scope in frame.closure:
            v = scope.get(name, _MISSING)
            if v is not _MISSING:
                return v
        v = frame.globals.get(name, _MISSING)
        if v is not _MISSING:
            return v
        v = self.builtins.get(name, _MISSING)
        if v is not _MISSING:
            return v
        if self.implicit and leaf_ok and frame.fn is None:
            return self._implicit_leaf(name, frame)
        err = TorchNameError(f"name '{name}' is not defined")
        err.span = (node.line, node.col)
        close = suggest(name, list(frame.vars) + list(frame.globals) + list(self.builtins))
        if close:
            err.hint = f"Did you mean: '{close}'?"
        raise err

    def _implicit_leaf(self, name, frame):
        from . import torch as gtorch
        spec = self.values.get(name, 1.0)
        t = gtorch.tensor(spec, dtype=gtorch.float32, requires_grad=True)
        frame.globals[name] = t
        self.leaves_announced.append((name, t))
        return t

    def _announce_leaves(self):
        if self.leaves_announced:
            self.report.items.insert(0, ("leaves", [(n, repr(t)) for n, t in self.leaves_announced]))
            self.leaves_announced = []

    def ev_const(self, node, frame):
        return node.value

    def ev_fstring(self, node, frame):
        out = []
        for part in node.parts:
            if isinstance(part, str):
                out.append(part)
                continue
            expr, conv, spec = part
            v = self.eval(expr, frame)
            if conv == "r":
                v = repr(v)
            elif conv == "s":
                v = str(v)
            elif conv == "a":
                v = ascii(v)
            spec_text = "" if spec is None else "".join(
                p if isinstance(p, str) else self._format(self.eval(p[0], frame), "") for p in spec)
            out.append(self._format(v, spec_text))
        return "".join(out)

    def _format(self, v, spec):
        check_format_spec(spec)
        try:
            return format(v, spec)
        except ScriptError:
            raise
        except _NATIVE as e:
            raise _native(e)

    def ev_list(self, node, frame):
        return [self.eval(e, frame) for e in node.elts]

    def ev_set(self, node, frame):
        try:
            return {self.eval(e, frame) for e in node.elts}
        except TypeError as e:
            raise _native(e) from None

    def ev_tuple(self, node, frame):
        return tuple(self.eval(e, frame) for e in node.elts)

    def ev_dict(self, node, frame):
        d = {}
        for k, v in zip(node.keys, node.values):
            key = self.eval(k, frame)
            try:
                d[key] = self.eval(v, frame)
            except TypeError as e:
                raise _native(e)
        return d

    def ev_attr(self, node, frame):
        return self.get_attr(self.eval(node.obj, frame), node.name, node)

    def get_attr(self, obj, name, node):
        return self._call_op(_safe_getattr, (obj, name), node)

    def ev_subscript(self, node, frame):
        return self.getitem(self.eval(node.obj, frame), self.eval(node.index, frame), node)

    def getitem(self, obj, idx, node):
        if isinstance(obj, Tensor):
            return self._call_op(operator.getitem, (obj, idx), node)
        if isinstance(obj, (list, tuple, str, dict, range, E.Size)) or _is_return_type(obj):
            try:
                return obj[idx]
            except ScriptError:
                raise
            except _NATIVE as e:
                raise _native(e)
        raise TorchTypeError(f"'{_type_name(obj)}' object is not subscriptable")

    def ev_slice(self, node, frame):
        return slice(*(None if p is None else self.eval(p, frame) for p in (node.lower, node.upper, node.step)))

    def ev_ellipsis(self, node, frame):
        return Ellipsis

    def ev_call(self, node, frame):
        func = self.eval(node.func, frame, leaf_ok=False)
        args = []
        for a in node.args:
            if isinstance(a, S.Starred):
                args.extend(self._iter(self.eval(a.value, frame)))
            else:
                args.append(self.eval(a, frame))
        kwargs = {}
        for name, v in node.kwargs:
            if name is None:
                d = self.eval(v, frame)
                if not isinstance(d, dict):
                    raise TorchTypeError("argument after ** must be a mapping")
                kwargs.update(d)
            else:
                kwargs[name] = self.eval(v, frame)
        return self.call(func, args, kwargs, node)

    def call(self, func, args, kwargs, node):
        if isinstance(func, UserFunction):
            return self.call_user(func, args, kwargs)
        if isinstance(func, type) and issubclass(func, ScriptError):
            return func(*[str(a) if not isinstance(a, str) else a for a in args[:1]])
        if func is E.Size or func is dict:     # their arguments are iterated in C: bound them first
            args = [_bounded_list(a) if hasattr(a, "__iter__") and not isinstance(a, (list, tuple, dict, str))
                    else a for a in args]
        if func is Tensor:                      # torch.Tensor(2, 3) / torch.Tensor([1, 2])
            from .torch import Tensor_
            func = Tensor_
        if not callable(func) or isinstance(func, (Tensor, Namespace)):
            raise TorchTypeError(f"'{_type_name(func)}' object is not callable")
        return self._call_op(func, args, node, kwargs)

    def _call_op(self, func, args, node, kwargs=None):
        """Call into the engine or a built-in. A TypeError raised while binding the call's
        arguments is the script's mistake; anything deeper that is not a ScriptError is a bug."""
        try:
            return func(*args, **kwargs) if kwargs else func(*args)
        except ScriptError:
            raise
        except RecursionError:
            raise
        except _NATIVE as e:
            not_tensor = _NOT_A_TENSOR.search(str(e)) if isinstance(e, AttributeError) else None
            if not_tensor:       # a number or list where the function needs a tensor
                name = getattr(func, "__name__", "function")
                raise TorchTypeError(f"{name}(): expected a Tensor argument, but got "
                                     f"{not_tensor.group(1)}") from None
            if not isinstance(func, _NativeOK) and e.__traceback__.tb_next is not None \
                    and not _is_binding_error(e):
                raise            # raised inside gradcli, not at the call's own boundary: a bug
            err = _native(e)
            if err is None:
                raise
            raise err from None

    def call_user(self, fn, args, kwargs):
        self._loop_tick(self.current)
        if self.current is not None and self._depth >= MAX_CALL_DEPTH:
            raise TorchRecursionError("maximum recursion depth exceeded")
        local = {}
        params = fn.params
        pos = [p for p in params if p[0] == "pos"]
        star = next((p[1] for p in params if p[0] == "star"), None)
        kwstar = next((p[1] for p in params if p[0] == "kwstar"), None)
        if len(args) > len(pos) and star is None:
            raise TorchTypeError(f"{fn.name}() takes {len(pos)} positional argument{'s' if len(pos) != 1 else ''} "
                                 f"but {len(args)} were given")
        for (_, name, _), value in zip(pos, args):
            local[name] = value
        if star is not None:
            local[star] = tuple(args[len(pos):])
        extra = {}
        for k, v in kwargs.items():
            if any(p[1] == k for p in pos):
                if k in local:
                    raise TorchTypeError(f"{fn.name}() got multiple values for argument '{k}'")
                local[k] = v
            elif kwstar is not None:
                extra[k] = v
            else:
                raise TorchTypeError(f"{fn.name}() got an unexpected keyword argument '{k}'")
        if kwstar is not None:
            local[kwstar] = extra
        missing = [name for _, name, default in pos if name not in local and default is None]
        for _, name, default in pos:
            if name not in local and default is not None:
                local[name] = default
        if missing:
            names = " and ".join(f"'{m}'" for m in missing)
            raise TorchTypeError(f"{fn.name}() missing {len(missing)} required positional argument"
                                 f"{'s' if len(missing) > 1 else ''}: {names}")
        frame = Frame(local, fn.globals, fn=fn, closure=fn.closure)
        saved_current, saved_origin = self.current, STATE.origin
        saved_outer, saved_name = self._outer, self._fn_name
        self._outer, self._fn_name = saved_outer + ((saved_name, saved_current),), fn.name
        self._depth += 1
        try:
            if fn.is_lambda:
                return self.eval(fn.body, frame)
            self.exec_block(fn.body, frame)
        except _Return as r:
            return r.value
        finally:
            self._depth -= 1
            self.current = saved_current
            STATE.origin = saved_origin
            self._outer, self._fn_name = saved_outer, saved_name
        return None

    _depth = 0
    _outer = ()                 # (function name, statement) of each calling frame, outermost first
    _fn_name = "<module>"       # the function whose body is running

    def ev_binop(self, node, frame):
        a = self.eval(node.left, frame)
        b = self.eval(node.right, frame)
        return self.binop(node.op, a, b, node)

    def binop(self, op, a, b, node):
        if type(a) is Tensor or type(b) is Tensor:
            return self._call_op(_BINOPS[op], (a, b), node)
        _guard_binop(op, a, b)
        try:
            return _BINOPS[op](a, b)
        except ScriptError:
            raise
        except _NATIVE as e:
            raise _native(e)

    def ev_unary(self, node, frame):
        v = self.eval(node.operand, frame)
        f = {"-": operator.neg, "+": operator.pos, "~": operator.invert}[node.op]
        if type(v) is Tensor:
            return self._call_op(f, (v,), node)
        try:
            return f(v)
        except _NATIVE as e:
            raise _native(e)

    def ev_boolop(self, node, frame):
        if node.op == "and":
            v = True
            for e in node.values:
                v = self.eval(e, frame)
                if not self.truth(v):
                    return v
            return v
        v = False
        for e in node.values:
            v = self.eval(e, frame)
            if self.truth(v):
                return v
        return v

    def truth(self, v):
        if type(v) is Tensor:
            return self._call_op(bool, (v,), None)
        try:
            return bool(v)
        except _NATIVE as e:
            raise _native(e)

    def ev_not(self, node, frame):
        return not self.truth(self.eval(node.operand, frame))

    def ev_compare(self, node, frame):
        left = self.eval(node.left, frame)
        for op, right_node in zip(node.ops, node.rights):
            right = self.eval(right_node, frame)
            f = _COMPARE[op]
            if type(left) is Tensor or type(right) is Tensor:
                result = self._call_op(f, (left, right), node)
            else:
                try:
                    result = f(left, right)
                except ScriptError:
                    raise
                except _NATIVE as e:
                    raise _native(e)
            if len(node.ops) == 1:
                return result
            if not self.truth(result):
                return result
            left = right
        return result

    def ev_ifexp(self, node, frame):
        return self.eval(node.body if self.truth(self.eval(node.test, frame)) else node.orelse, frame)

    def ev_lambda(self, node, frame):
        return UserFunction("<lambda>", node.params, node.body, frame.globals, self, is_lambda=True,
                            closure=_scopes(frame))

    def ev_listcomp(self, node, frame):
        out = []
        inner = _ChainFrame(frame)
        for item in self._iter(self.eval(node.iter, frame)):
            self._loop_tick(node)
            self.assign(node.target, item, inner)
            if node.cond is None or self.truth(self.eval(node.cond, inner)):
                out.append(self.eval(node.elt, inner))
                if len(out) > MAX_SEQUENCE:
                    raise LimitError(f"list comprehension made more than {MAX_SEQUENCE:,} elements")
        return out

    _eval = {S.Const: ev_const, S.FString: ev_fstring, S.ListExpr: ev_list, S.TupleExpr: ev_tuple, S.SetExpr: ev_set,
             S.DictExpr: ev_dict, S.Attr: ev_attr, S.Subscript: ev_subscript, S.SliceExpr: ev_slice,
             S.EllipsisExpr: ev_ellipsis, S.Call: ev_call, S.BinOp: ev_binop, S.UnaryOp: ev_unary,
             S.BoolOp: ev_boolop, S.Not: ev_not, S.Compare: ev_compare, S.IfExp: ev_ifexp,
             S.Lambda: ev_lambda, S.ListComp: ev_listcomp}

    # -- output, warnings and engine events ---------------------------------------------------
    def _print(self, *values, sep=" ", end="\n", file=None, flush=False):
        if file is not None:
            raise _unsupported("print(file=...)")
        sep = " " if sep is None else sep
        end = "\n" if end is None else end
        self.report.write(sep.join(v if isinstance(v, str) else str(v) for v in values) + end)

    def _line(self):
        return self.current.line if self.current is not None else None

    def _on_warn(self, message):
        line = self._line()
        if (line, message) in self.warned_lines:     # Python's default filter: once per location
            return
        self.warned_lines.add((line, message))
        self.report.items.append(("warn", line, message))

    def _names(self):
        """Script variable names for tensors and graph nodes, for events and explanations."""
        by_tensor, by_node = {}, {}
        for name, v in self.globals.items():
            if type(v) is Tensor:
                by_tensor.setdefault(id(v), name)
                if v.grad_fn is not None:
                    by_node.setdefault(v.grad_fn, name)
        return by_tensor, by_node

    def _on_call(self, record):
        by_tensor, by_node = self._names()
        origin = record.origin
        ev = CallEvent(record.kind, getattr(origin, "line", None), getattr(origin, "text", None),
                       record.retain_graph)
        ev.executed = [node_info(n, by_node, by_tensor) for n in record.executed]
        ev.freed = [node_info(n, by_node, by_tensor) for n in record.freed]
        from .printing import format_tensor
        for leaf, before, after in record.updates:
            name = by_tensor.get(id(leaf))
            fmt = lambda a: format_tensor(a, _dtype_name(a))
            ev.updates.append(LeafUpdate(name, None if before is None else fmt(before), fmt(after), after.tolist()))
        ev.failed = record.error is not None
        self.report.items.append(("call", ev))

    # -- errors -------------------------------------------------------------------------------
    def error_info(self, e: ScriptError) -> ErrorInfo:
        line, col = e.span if e.span else (self._line(), None)
        lines = self.report.source.split("\n")
        text = lines[line - 1] if line and 0 < line <= len(lines) else None
        stmt = getattr(e, "stmt", None)
        if stmt is not None and getattr(stmt, "text", None) and stmt.line == line:
            text = stmt.text
        info = ErrorInfo(e.pytype if not isinstance(e, LimitError) else "LimitError", e.message, line, col,
                         text, getattr(e, "hint", None))
        from . import explain
        explain.explain_error(info, e, self)
        return info

    # -- the end state ---------------------------------------------------------------------------
    def describe_tensors(self):
        out = {}
        for name, v in self.globals.items():
            if type(v) is Tensor:
                out[name] = describe(v)
        return out

    # -- built-ins ------------------------------------------------------------------------------
    def _make_builtins(self):
        b = dict(_SAFE_BUILTINS)
        b["print"] = _NativeOK(self._print)
        b["type"] = _NativeOK(_script_type)
        b.update({k: v for k, v in BY_NAME.items()})
        b["Exception"] = ScriptError
        b["BaseException"] = ScriptError
        b["ArithmeticError"] = BY_NAME["ZeroDivisionError"]
        b["LookupError"] = BY_NAME["IndexError"]
        b["callable"] = _NativeOK(lambda f: isinstance(f, UserFunction) or (callable(f) and not isinstance(f, (Tensor, Namespace))))
        for name in ("eval", "exec", "open", "compile", "__import__", "globals", "locals", "vars", "dir",
                     "getattr", "setattr", "delattr", "input", "breakpoint", "exit", "quit", "help", "memoryview",
                     "object", "super", "classmethod", "staticmethod", "property", "id", "hash", "iter", "next"):
            b.setdefault(name, _Forbidden(name))
        return b


ScriptErrorSyntax = BY_NAME["RuntimeError"]


_NOT_A_TENSOR = _re.compile(r"'(\w+)' object has no attribute '(?:data|_rg|grad_fn|_version_counter|_base|"
                            r"_accumulator|_edge|requires_grad)'")
_BINDING = _re.compile(r"(takes \d+ positional argument|positional argument|got an unexpected keyword argument|"
                       r"missing \d+ required|got multiple values for argument|takes no keyword arguments)")


def _is_binding_error(e):
    """Python's own complaint about a call's arguments (a script passing the wrong ones),
    wherever in gradcli's forwarding the call was finally bound."""
    return isinstance(e, TypeError) and _BINDING.search(str(e)) is not None


def _scopes(frame):
    """The enclosing local scopes a function defined in `frame` can read (none at module level)."""
    return () if frame.vars is frame.globals else (frame.vars,) + frame.closure


class _ChainFrame(Frame):
    """A comprehension's scope: its own loop variable, the enclosing names readable."""

    def __init__(self, outer):
        super().__init__(_ChainDict(outer.vars), outer.globals, fn=outer.fn, closure=outer.closure)


class _ChainDict(dict):
    def __init__(self, outer):
        super().__init__()
        self.outer = outer

    def get(self, key, default=None):
        if dict.__contains__(self, key):
            return dict.__getitem__(self, key)
        return self.outer.get(key, default)


_MISSING = object()


class _NativeOK:
    """A built-in whose native TypeErrors/ValueErrors are the script's own mistakes."""

    def __init__(self, fn, name=None):
        self.fn = fn
        self.__name__ = name or getattr(fn, "__name__", "builtin")

    def __call__(self, *args, **kwargs):
        return self.fn(*args, **kwargs)

    def __repr__(self):
        return f"<built-in function {self.__name__}>"


class _Forbidden:
    def __init__(self, name):
        self.name = name

    def __call__(self, *args, **kwargs):
        raise _unsupported(f"`{self.name}()`")

    def __repr__(self):
        return f"<built-in function {self.name}>"


def _close(a, b, tol):
    """`expect A == B`: same shape and allclose (rtol 1e-5, atol 1e-8, or atol=`within`)."""
    try:
        xa = np.asarray(a.data if isinstance(a, Tensor) else a, dtype=float)
        xb = np.asarray(b.data if isinstance(b, Tensor) else b, dtype=float)
    except (TypeError, ValueError):
        return a == b, f"{a!r} != {b!r}"
    if xa.shape != xb.shape and (isinstance(a, Tensor) and isinstance(b, Tensor) or xa.ndim and xb.ndim):
        return False, f"shapes differ: {list(xa.shape)} vs {list(xb.shape)} ({a!r} vs {b!r})"
    rtol, atol = (1e-5, 1e-8) if tol is None else (0.0, float(tol))
    ok = bool(np.allclose(xa, xb, rtol=rtol, atol=atol, equal_nan=True))
    return ok, f"{a!r} != {b!r}"


def _distance(a, b):
    """Python's suggestion distance: a move or substitution costs 2, a case change 1."""
    prev = list(range(0, 2 * len(b) + 1, 2))
    for i, ca in enumerate(a, 1):
        cur = [2 * i]
        for j, cb in enumerate(b, 1):
            sub = 0 if ca == cb else 1 if ca.lower() == cb.lower() else 2
            cur.append(min(prev[j] + 2, cur[j - 1] + 2, prev[j - 1] + sub))
        prev = cur
    return prev[-1]


def suggest(name, candidates):
    """The closest known name, as Python's NameError suggestion picks it; on a tie, the
    candidate of the same length wins (`y2` suggests `y1` before `y`)."""
    best, best_key = None, None
    for c in dict.fromkeys(candidates):
        if c.startswith("_") or c == name:
            continue
        d = _distance(name, c)
        if d > (len(name) + len(c) + 3) * 2 // 6:
            continue
        key = (d, abs(len(c) - len(name)))
        if best_key is None or key < best_key:
            best, best_key = c, key
    return best


def _unsupported(what):
    return BY_NAME["NotImplementedError"](
        f"{what} is not supported in gradcli scripts: they can only compute with tensors and print")


def _import_error(msg, name="ImportError"):
    err = BY_NAME["RuntimeError"](msg)
    err.pytype = name
    return err


def _type_name(v):
    if isinstance(v, Tensor):
        return "Tensor"
    if isinstance(v, UserFunction):
        return "function"
    if isinstance(v, Namespace):
        return "module"
    return type(v).__name__


def _is_return_type(obj):
    from . import ops
    return isinstance(obj, getattr(ops, "ReturnType", ()))


def _dtype_name(a):
    return "bool" if a.dtype == np.bool_ else a.dtype.name


def _imports_torch(body):
    stack = list(body)
    while stack:
        st = stack.pop()
        if isinstance(st, S.Import) and any(m.split(".")[0] == "torch" for m, _ in st.names):
            return True
        if isinstance(st, S.FromImport) and st.module.split(".")[0] == "torch":
            return True
        for f in st.fields:
            v = getattr(st, f)
            if isinstance(v, list):
                for item in v:
                    if isinstance(item, S.Stmt):
                        stack.append(item)
                    elif isinstance(item, tuple):
                        stack.extend(x for part in item if isinstance(part, list) for x in part)
    return False


def node_info(node, by_node=None, by_tensor=None):
    origin = node.origin
    # PyTorch's node.name(): C++ nodes read "torch::autograd::CopySlices"; the engine's own
    # bookkeeping nodes (AccumulateGrad, GraphRoot) keep their short names in reports.
    name = node.op.name if node.op is E.ACCUMULATE or node.op is E.GRAPH_ROOT else node.name()
    info = NodeInfo(name, getattr(origin, "line", None), getattr(origin, "text", None),
                    node.tensor_slots() if node.saved else [], seq=node.seq)
    if isinstance(node, E.AccumulateGrad):
        info.name = (by_tensor or {}).get(id(node.variable))
    else:
        info.name = (by_node or {}).get(node)
    for slot, s in node.saved.items():
        if isinstance(s, E.Saved) and s.constant is not None:
            info.constants[slot] = s.constant
    return info


def describe(t):
    """A tensor as the JSON contract describes it."""
    grad = t._grad
    return {"shape": list(t.data.shape), "dtype": _dtype_name(t.data), "requires_grad": bool(t.requires_grad),
            "is_leaf": t.grad_fn is None, "grad_fn": None if t.grad_fn is None else t.grad_fn.name(),
            "value": _jsonable(t.data), "grad": None if grad is None else _jsonable(grad.data)}


def _jsonable(a):
    def fix(v):
        if isinstance(v, float) and not math.isfinite(v):
            return "nan" if v != v else ("inf" if v > 0 else "-inf")
        return v
    flat = a.ravel().tolist()
    if a.dtype.kind == "f" and not np.isfinite(a).all():
        flat = [fix(v) for v in flat]
    arr = np.array(flat, dtype=object).reshape(a.shape) if a.ndim else None
    return flat[0] if a.ndim == 0 else arr.tolist()

# ----------------------------------------------------------------------------- safe attributes


def _public(cls):
    return {n for n in dir(cls) if not n.startswith("_")}


_TENSOR_ATTRS = None
_NODE_ATTRS = {"name", "next_functions", "_sequence_nr", "variable"}
_STR_METHODS = {"format", "join", "upper", "lower", "strip", "lstrip", "rstrip", "split", "replace", "startswith",
                "endswith", "find", "count", "center", "ljust", "rjust", "zfill", "title", "capitalize",
                "isdigit", "isalpha", "splitlines", "index"}
_LIST_METHODS = {"append", "extend", "pop", "insert", "index", "count", "reverse", "sort", "copy", "remove", "clear"}
_DICT_METHODS = {"keys", "values", "items", "get", "update", "pop", "setdefault", "copy", "clear"}
_TUPLE_METHODS = {"index", "count"}


def _safe_getattr(obj, name):
    global _TENSOR_ATTRS
    if name.startswith("__") and name.endswith("__"):
        if name == "__name__" and isinstance(obj, (ScriptType, UserFunction, type)):
            return obj.name if isinstance(obj, UserFunction) else obj.__name__
        raise _unsupported(f"access to '{name}'")
    if isinstance(obj, Tensor):
        if name == "data":          # PyTorch's .data: same storage, no autograd, its own version counter
            return Tensor(obj.data)
        if obj._base is not None:
            _ops.fresh_view(obj)
        if name in ("grad_fn", "is_leaf") and obj.grad_fn is not None and obj.grad_fn.op is _ops.INVALID:
            raise TorchRuntimeError(_ops._NO_GRAD_VIEW_INDIRECT)
        if _TENSOR_ATTRS is None:
            _TENSOR_ATTRS = _public(Tensor) | {"_version", "_base"}
        if name in _TENSOR_ATTRS:
            return getattr(obj, name)
        raise TorchAttributeError(f"'Tensor' object has no attribute '{name}'")
    if isinstance(obj, E.Node):
        if name in _NODE_ATTRS or name.startswith("_saved_") or name.startswith("_raw_saved_"):
            return getattr(obj, name)
        raise TorchAttributeError(f"'{obj.name()}' object has no attribute '{name}'")
    if isinstance(obj, Namespace):
        if name in obj._attrs:
            return obj._attrs[name]
        raise TorchAttributeError(f"module '{obj._name}' has no attribute '{name}'")
    allowed = (_STR_METHODS if isinstance(obj, str) else _LIST_METHODS if isinstance(obj, list)
               else _DICT_METHODS if isinstance(obj, dict) else _TUPLE_METHODS if isinstance(obj, tuple)
               else None)
    if isinstance(obj, E.Size) and name in ("numel", "index", "count"):
        return getattr(obj, name)
    if isinstance(obj, E.DType) and name in ("is_floating_point", "itemsize"):
        return getattr(obj, name)
    if isinstance(obj, ScriptError) and name == "args":
        return (obj.message,)
    if isinstance(obj, (int, float)) and not isinstance(obj, bool) and name in ("real", "imag", "is_integer", "conjugate"):
        return getattr(obj, name)
    if _is_return_type(obj) and name in ("values", "indices"):
        return getattr(obj, name)
    if isinstance(obj, ScriptType) and name == "__name__":
        return obj.__name__
    if isinstance(obj, _torch_random.Generator) and not name.startswith("_"):
        return getattr(obj, name)
    if allowed is not None and name in allowed:
        if isinstance(obj, str) and name in ("format", "format_map"):
            return _NativeOK(_safe_format(obj, name == "format_map"), name)
        return _NativeOK(_sized(getattr(obj, name), obj), name)
    raise TorchAttributeError(f"'{_type_name(obj)}' object has no attribute '{name}'")


def _torch_namespace(gtorch):
    import types
    attrs = {}
    for k, v in vars(gtorch).items():
        if k.startswith("_") or k == "annotations" or isinstance(v, types.ModuleType):
            continue
        if isinstance(v, types.SimpleNamespace):
            continue
        attrs[k] = v
    public = lambda m: {k: v for k, v in vars(m).items() if not k.startswith("_")}
    functional = Namespace("torch.nn.functional", public(gtorch.nn.functional))
    nn = Namespace("torch.nn", {"functional": functional})
    autograd = Namespace("torch.autograd", public(gtorch.autograd))
    random = Namespace("torch.random", {k: getattr(gtorch.random, k) for k in gtorch.random.__all__})
    attrs.update(nn=nn, autograd=autograd, random=random, Tensor=Tensor, Size=E.Size)
    return Namespace("torch", attrs)


def _safe_range(*args):
    r = range(*args)
    return r


class _SafeFormatter(__import__("string").Formatter):
    """str.format without Python's own attribute walk: `{0.__class__}` goes through the
    same checks as `x.__class__` in a script, and huge widths are refused."""

    def get_field(self, field_name, args, kwargs):
        import _string
        first, rest = _string.formatter_field_name_split(field_name)
        obj = self.get_value(first, args, kwargs)
        for is_attr, key in rest:
            obj = _safe_getattr(obj, key) if is_attr else obj[key]
        return obj, first

    def format_field(self, value, format_spec):
        check_format_spec(format_spec)
        return format(value, format_spec)


def check_format_spec(spec):
    """Refuse a width or precision that would build an enormous string ("{:>1000000000}")."""
    for number in _re.findall(r"\d+", spec or ""):
        if len(number) > 7 or int(number) > MAX_SEQUENCE:
            raise LimitError(f"format width or precision {number} is too large (the limit is {MAX_SEQUENCE:,})")


def _safe_format(text, mapping):
    formatter = _SafeFormatter()
    if mapping:
        return lambda m: formatter.vformat(text, (), m)
    return lambda *args, **kwargs: formatter.vformat(text, args, kwargs)


def _sized(method, obj):
    """A str/list/dict method whose result (or the object it grows) stays under MAX_SEQUENCE."""
    def call(*args, **kwargs):
        for a in args:
            if type(a) is int and a > MAX_SEQUENCE:
                raise LimitError(f"{a:,} is over the limit of {MAX_SEQUENCE:,} elements for strings and lists")
        if args and not isinstance(args[0], (str, int, float, list, tuple, dict)) and method.__name__ in (
                "join", "extend", "update"):
            args = (_bounded_list(args[0]),) + args[1:]
        if method.__name__ == "replace" and len(args) >= 2 and isinstance(obj, str) and \
                len(obj) + obj.count(args[0]) * len(args[1]) > MAX_SEQUENCE:
            raise LimitError(f"str.replace would make a string over {MAX_SEQUENCE:,} characters")
        result = method(*args, **kwargs)
        for v in (result, obj):
            if isinstance(v, (str, list, tuple, dict)) and len(v) > MAX_SEQUENCE:
                raise LimitError(f"a {type(v).__name__} of more than {MAX_SEQUENCE:,} elements")
        return result
    call.__name__ = method.__name__
    return call


def _limited(fn, name):
    def wrapper(*args, **kwargs):
        if args and not isinstance(args[0], Tensor):
            args = (_bounded_list(args[0]),) + args[1:]
        result = fn(*args, **kwargs)
        if isinstance(result, (list, tuple, str)) and len(result) > MAX_SEQUENCE:
            raise LimitError(f"{name}() would make more than {MAX_SEQUENCE:,} elements")
        return result
    return _NativeOK(wrapper, name)


def _no_huge_range(fn):
    """sum/max/any over range(10**12) would run inside C, out of reach of --timeout."""
    def wrapper(*args, **kwargs):
        if args and isinstance(args[0], range) and len(args[0]) > MAX_SEQUENCE:
            raise LimitError(f"{fn.__name__}() over {len(args[0]):,} numbers is too large "
                             f"(limit {MAX_SEQUENCE:,})")
        return fn(*args, **kwargs)
    wrapper.__name__ = fn.__name__
    return wrapper


def _bounded_list(it=()):
    """list(...) that stops at MAX_SEQUENCE elements instead of exhausting memory."""
    if hasattr(it, "__len__") and not isinstance(it, Tensor):
        if len(it) > MAX_SEQUENCE:
            raise LimitError(f"list() would make more than {MAX_SEQUENCE:,} elements")
        return list(it)
    out = list(_itertools.islice(it, MAX_SEQUENCE + 1))
    if len(out) > MAX_SEQUENCE:
        raise LimitError(f"list() would make more than {MAX_SEQUENCE:,} elements")
    return out


_SAFE_BUILTINS = {
    "len": _NativeOK(len), "range": _NativeOK(range, "range"), "enumerate": _NativeOK(enumerate, "enumerate"),
    "zip": _NativeOK(zip, "zip"), "float": float, "int": int, "str": str, "bool": bool, "abs": _NativeOK(abs, "abs"),
    "min": _NativeOK(_no_huge_range(min), "min"), "max": _NativeOK(_no_huge_range(max), "max"),
    "sum": _NativeOK(_no_huge_range(sum), "sum"),
    "round": _NativeOK(round, "round"), "isinstance": _NativeOK(lambda o, t: isinstance(o, t.pytype if isinstance(t, ScriptType) else t), "isinstance"),
    "list": _NativeOK(_bounded_list, "list"), "tuple": _limited(tuple, "tuple"), "dict": dict,
    "sorted": _limited(sorted, "sorted"), "reversed": _NativeOK(reversed, "reversed"), "any": _NativeOK(_no_huge_range(any), "any"),
    "all": _NativeOK(_no_huge_range(all), "all"), "repr": _NativeOK(repr, "repr"), "format": _NativeOK(lambda v, spec="": (check_format_spec(spec), format(v, spec))[1], "format"),
    "map": _NativeOK(map, "map"), "filter": _NativeOK(filter, "filter"), "pow": _NativeOK(lambda a, b, *m: (_guard_binop("**", a, b), pow(a, b, *m))[1], "pow"),
    "divmod": _NativeOK(divmod, "divmod"), "chr": _NativeOK(chr, "chr"), "ord": _NativeOK(ord, "ord"),
    "set": _limited(set, "set"), "ascii": _NativeOK(ascii, "ascii"),
}
