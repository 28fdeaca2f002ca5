"""Where a graph node, an in-place change or a backward call came from, without an interpreter.

While a script runs, the engine asks `Capture` for the origin of every node it records. That
must be cheap (it runs once per op), so it keeps only the code object, the instruction offset
and the line of the innermost frame that belongs to the script, plus the same for the script
frames that called it. Everything a view asks for later (the column span, the statement and
its text, the assigned variable, the function) is resolved lazily from those and the
script's AST.
"""
from __future__ import annotations

import ast
import bisect
import sys
import weakref

from ..engine import STATE

_SOURCES = {}            # filename -> SourceMap of every script compiled by gradcli in this process


class SourceMap:
    """A script's source and its statements, to turn positions into statements and text."""

    def __init__(self, source, tree):
        self.lines = source.split("\n")
        self.tree = tree
        self._stmts = None

    def _index(self):
        stmts = []
        stack = list(self.tree.body)            # statements only: expressions are never walked
        while stack:
            node = stack.pop()
            if hasattr(node, "lineno"):
                stmts.append(((node.lineno, node.col_offset), (node.end_lineno, node.end_col_offset), node))
            for field in ("body", "orelse", "finalbody"):
                stack.extend(getattr(node, field, ()))
            for h in getattr(node, "handlers", ()):
                stack.extend(h.body)
            for c in getattr(node, "cases", ()):
                stack.extend(c.body)
        stmts.sort(key=lambda s: s[0])
        self._stmts = stmts
        self._starts = [s[0] for s in stmts]
        return stmts

    def statement(self, line, col=None):
        """The innermost statement that contains (line, col): scanning back from the last
        statement that starts before it, the first one whose span contains it."""
        stmts = self._stmts if self._stmts is not None else self._index()
        pos = (line, col if col is not None else 10 ** 9)
        for i in range(bisect.bisect_right(self._starts, pos) - 1, -1, -1):
            start, end, node = stmts[i]
            if pos <= end if col is not None else line <= end[0]:
                return node
        return None

    def text(self, node):
        """A statement's text as explanations quote it: a one-line simple statement is its own
        segment (`z = 2*f` of `f = x+y; z = 2*f`); anything else its first line."""
        line = self.lines[node.lineno - 1] if 0 < node.lineno <= len(self.lines) else ""
        if isinstance(node, _COMPOUND) or node.end_lineno != node.lineno:
            return line.strip()
        return line[node.col_offset:node.end_col_offset].strip() or line.strip()

    def line_text(self, line):
        return self.lines[line - 1] if 0 < line <= len(self.lines) else ""


_COMPOUND = (ast.If, ast.For, ast.While, ast.Try, ast.With, ast.FunctionDef, ast.ClassDef, ast.AsyncFunctionDef,
             ast.AsyncFor, ast.AsyncWith) + ((ast.TryStar,) if hasattr(ast, "TryStar") else ()) + \
            ((ast.Match,) if hasattr(ast, "Match") else ())


def register(filename, source, tree, extend=False):
    """Remember a script's source for its origins. `extend` (the REPL): one more entry of the
    same session, whose lines continue the earlier ones (they are blank in its source)."""
    old = _SOURCES.get(filename) if extend else None
    if old is None:
        _SOURCES[filename] = SourceMap(source, tree)
        return
    lines = source.split("\n")
    old.lines.extend([""] * (len(lines) - len(old.lines)))
    for i, line in enumerate(lines):
        if line:
            old.lines[i] = line
    old.tree = ast.Module(body=list(old.tree.body) + list(tree.body), type_ignores=[])
    old._stmts = None


def source_map(filename):
    return _SOURCES.get(filename)


class Origin:
    """A place in the script: (code, instruction, line) of a frame and of its script callers."""

    __slots__ = ("code", "lasti", "callers", "module", "_stmt")

    def __init__(self, code, lasti, callers, module=None):
        self.code, self.lasti, self.callers = code, lasti, callers
        self.module = module            # the nn.Module whose forward was running, or None
        self._stmt = False

    @property
    def lineno(self):
        """The line of the instruction that ran (a frame's f_lineno, read lazily: CPython finds
        it by scanning the code's line table from the start, so reading it for every op of a
        10,000-line script would cost time quadratic in the script's length)."""
        return _line(self.code, self.lasti)

    @property
    def line(self):
        """The line of the statement (its first line, as a user refers to it)."""
        st = self.stmt
        return st.lineno if st is not None else self.lineno

    @property
    def filename(self):
        return self.code.co_filename

    @property
    def function(self):
        """`Net.forward`, or None at the script's top level."""
        name = self.code.co_qualname if hasattr(self.code, "co_qualname") else self.code.co_name
        return None if name == "<module>" else name

    @property
    def span(self):
        """(line, col, end_line, end_col), columns 1-based, of the expression that ran."""
        pos = _positions(self.code, self.lasti)
        if pos is None or pos[0] is None:
            return (self.lineno, None, self.lineno, None)
        line, end_line, col, end_col = pos
        return (line, None if col is None else col + 1, end_line, None if end_col is None else end_col + 1)

    @property
    def col(self):
        return self.span[1]

    @property
    def stmt(self):
        if self._stmt is False:
            sm = _SOURCES.get(self.code.co_filename)
            col = self.span[1]
            line = self.span[0] if col is not None else self.lineno
            self._stmt = None if sm is None else sm.statement(line, None if col is None else col - 1)
        return self._stmt

    @property
    def text(self):
        st = self.stmt
        if st is None:
            return None
        return _SOURCES[self.code.co_filename].text(st)

    @property
    def targets(self):
        """The assignment targets of the statement (ast nodes; a Name has `.id`)."""
        st = self.stmt
        if isinstance(st, ast.Assign):
            return st.targets
        if isinstance(st, (ast.AugAssign, ast.AnnAssign)):
            return [st.target]
        return None

    @property
    def variable(self):
        t = self.targets
        return t[0].id if t and isinstance(t[0], ast.Name) else None

    def frames(self):
        """(filename, line, function name, statement text), outermost first."""
        out = []
        for code, lasti in reversed(self.callers):
            o = Origin(code, lasti, ())
            out.append((code.co_filename, o.lineno, code.co_name, o.text))
        out.append((self.code.co_filename, self.lineno, self.code.co_name, self.text))
        return out

    def __repr__(self):
        return f"<origin {self.code.co_filename}:{self.lineno}>"


class TracedOrigin(Origin):
    """The origin of a node made while anomaly mode was on: it can show the forward traceback."""

    __slots__ = ()

    def anomaly_trace(self):
        """The forward call's traceback as PyTorch's anomaly mode prints it."""
        return "".join(f'  File "{f}", line {line}, in {name}\n    {(text or "").strip()}\n'
                       for f, line, name, text in self.frames())


_POSITIONS = {}        # id(code) -> its co_positions(), while the code object lives


def _positions(code, lasti):
    # (keyed by identity: code objects compare by value, and a script run again makes equal ones)
    table = _POSITIONS.get(id(code))
    if table is None:
        table = _POSITIONS[id(code)] = list(code.co_positions())
        weakref.finalize(code, _POSITIONS.pop, id(code), None)
    i = lasti // 2
    return table[i] if 0 <= i < len(table) else None


def _line(code, lasti):
    pos = _positions(code, lasti)
    if pos is not None and pos[0] is not None:
        return pos[0]
    for start, end, line in code.co_lines():     # an instruction without a position of its own
        if start <= lasti < end:
            return line
    return code.co_firstlineno


class Capture:
    """Called by the engine for each new node: the Origin of the innermost script frame, or
    None when no script frame is on the stack (gradcli's own work between statements)."""

    def __init__(self, filenames, stop_code):
        self.filenames = filenames          # a set: the script's file name (and any it execs)
        self.stop = stop_code               # the code that called exec(): no script frame is above it

    def __call__(self):
        f = sys._getframe(2)
        files, stop = self.filenames, self.stop
        while f is not None:
            code = f.f_code
            if code is stop:
                return None
            if code.co_filename in files:
                callers = []
                g = f.f_back
                while g is not None and g.f_code is not stop:
                    if g.f_code.co_filename in files:
                        callers.append((g.f_code, g.f_lasti))
                    g = g.f_back
                return (TracedOrigin if STATE.anomaly else Origin)(code, f.f_lasti, tuple(callers), STATE.module)
            f = f.f_back
        return None

    def script_frames(self, start=None):
        """The live script frames, innermost first (for names visible at a backward call)."""
        f = start or sys._getframe(1)
        out = []
        while f is not None and f.f_code is not self.stop:
            if f.f_code.co_filename in self.filenames:
                out.append(f)
            f = f.f_back
        return out
