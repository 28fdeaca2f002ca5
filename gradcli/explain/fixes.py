"""Fixes as edits of the script's tree, tried before they are shown.

An `Edit` replaces whole statements (found by line in the Python tree gradcli runs, dialect
scripts included) with new ones. `apply` turns it into the fixed script's text: for a Python
script only the edited statements' lines change (comments and layout stay); a dialect script
is written as the `ast.unparse` of its edited tree, as `gradcli export` writes it. `try_fixes`
runs each fixed copy in this process (through the Trial the session that ran the script gives) and keeps its outcome and
the leaf gradients it gives, so that views show only fixes that remove the error.
"""
from __future__ import annotations

import ast
import copy
from dataclasses import dataclass, field
from typing import Callable, Optional

# ----------------------------------------------------------------------------- data


@dataclass
class Change:
    line: int                    # first line of the statement replaced
    end_line: int
    col: int                     # its column (0-based), to find it in the tree
    before: str                  # the statement as written
    after: str                   # the statements that replace it (Python, unindented; "" deletes it)


@dataclass
class Edit:
    changes: list = field(default_factory=list)

    @property
    def line(self):
        return self.changes[0].line

    @property
    def after(self):
        return self.changes[0].after


@dataclass
class Fix:
    title: str                   # "detach where it is made"
    advice: str                  # the change, in words, with its line
    edit: Optional[Edit] = None  # None: advice that cannot be applied mechanically (shown untried)
    effect: str = ""             # what it changes besides removing the error
    tried: bool = False
    works: Optional[bool] = None             # the fixed copy ran to its end
    outcome: Optional[str] = None            # "runs to its end" or the error it still ends in
    grads: dict = field(default_factory=dict)            # leaf -> its .grad after the fixed run
    differs: list = field(default_factory=list)          # leaves whose .grad differs between the shown fixes
    oracle: Optional[str] = None             # what real PyTorch said about the fixed script

    @property
    def shown(self):
        """A mechanical fix is shown only once a copy of the script proved it works; advice that
        cannot be applied mechanically is shown as untried."""
        return self.works if self.tried else self.edit is None

# ----------------------------------------------------------------------------- the tree


def _statements(tree):
    stack = list(getattr(tree, "body", ()))
    while stack:
        node = stack.pop()
        yield node
        for fld in ("body", "orelse", "finalbody"):
            stack.extend(getattr(node, fld, ()))
        for h in getattr(node, "handlers", ()):
            stack.extend(h.body)


def statement_at(tree, line):
    """The innermost simple statement starting on `line` (else the innermost one covering it)."""
    if tree is None or line is None:
        return None
    best = None
    for st in _statements(tree):
        if st.lineno <= line <= st.end_lineno:
            if best is None or (st.lineno >= best.lineno and st.end_lineno <= best.end_lineno):
                best = st
    return best


def enclosing(tree, line):
    """The compound statements around `line`, outermost first."""
    out = [st for st in _statements(tree) if line is not None and st.lineno < line <= st.end_lineno
           and any(getattr(st, f, None) for f in ("body", "orelse", "finalbody", "handlers"))] \
        if tree is not None else []
    return sorted(out, key=lambda st: (st.lineno, -st.end_lineno))


def method_calls(node, name):
    """`x.name(...)` calls inside node, in source order."""
    if node is None:
        return []
    return sorted((n for n in ast.walk(node) if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute)
                   and n.func.attr == name and not _is_module_call(n)),
                  key=lambda n: (n.lineno, n.col_offset))


def _is_module_call(n):
    """`torch.autograd.grad(...)` / `torch.autograd.backward(...)`: a function, not a tensor method."""
    return ast.unparse(n.func.value).split(".")[-1] in ("autograd", "torch")


def call_named(node, name):
    """`torch.autograd.name(...)`, `autograd.name(...)` or `name(...)` calls inside node."""
    if node is None:
        return []
    return [n for n in ast.walk(node) if isinstance(n, ast.Call) and (
        (isinstance(n.func, ast.Name) and n.func.id == name)
        or (isinstance(n.func, ast.Attribute) and n.func.attr == name and _is_module_call(n)))]


def rebuild(node, fn):
    """`node` with fn applied top-down: fn returns its argument unchanged, or a new node (whose
    children are not visited). The original tree is never modified."""
    new = fn(node)
    if new is not node:
        return new
    changed = {}
    for name, value in ast.iter_fields(node):
        if isinstance(value, ast.AST):
            r = rebuild(value, fn)
            if r is not value:
                changed[name] = r
        elif isinstance(value, list):
            items = [rebuild(v, fn) if isinstance(v, ast.AST) else v for v in value]
            if any(a is not b for a, b in zip(items, value)):
                changed[name] = items
    if not changed:
        return node
    out = copy.copy(node)
    for name, value in changed.items():
        setattr(out, name, value)
    return out


def with_fields(node, **fields):
    """A shallow copy of node with some fields replaced."""
    out = copy.copy(node)
    for k, v in fields.items():
        setattr(out, k, v)
    return out


def replace_in(ctx, st, fn=None, wrap=None):
    """An Edit replacing statement st by rebuild(st, fn), passed through wrap([stmt]) -> stmts."""
    if st is None:
        return None
    new = rebuild(st, fn) if fn is not None else st
    if new is st and wrap is None:
        return None
    stmts = wrap([new]) if wrap is not None else [new]
    after = "\n".join(ast.unparse(ast.fix_missing_locations(s)) for s in stmts)
    return Edit([Change(st.lineno, st.end_lineno, st.col_offset, ctx.text(st) or ast.unparse(st), after)])

# ----------------------------------------------------------------------------- applying


def apply(source, tree, edit):
    """The fixed script's text."""
    lines = source.split("\n")
    if all(_whole_lines(lines, tree, c) for c in edit.changes):
        for c in sorted(edit.changes, key=lambda c: -c.line):
            first = lines[c.line - 1]
            pad = first[:len(first) - len(first.lstrip())]
            new = [pad + s for s in c.after.split("\n")] if c.after else []
            lines[c.line - 1:c.end_line] = new
        return "\n".join(lines)
    fixed = copy.deepcopy(tree)
    for c in edit.changes:
        _replace_statement(fixed, c)
    return ast.unparse(fixed) + "\n"


def _whole_lines(lines, tree, c):
    """The statement alone on its lines, in a script that is Python as written."""
    st = next((s for s in _statements(tree) if (s.lineno, s.col_offset) == (c.line, c.col)), None)
    if st is None or c.end_line > len(lines):
        return False
    head, tail = lines[c.line - 1][:st.col_offset], lines[c.end_line - 1][st.end_col_offset:]
    return not head.strip() and (not tail.strip() or tail.strip().startswith("#"))


def _replace_statement(tree, c):
    for parent in [tree] + list(_statements(tree)):
        for fld in ("body", "orelse", "finalbody"):
            block = getattr(parent, fld, None)
            if not isinstance(block, list):
                continue
            for i, st in enumerate(block):
                if isinstance(st, ast.stmt) and (st.lineno, st.col_offset) == (c.line, c.col):
                    block[i:i + 1] = ast.parse(c.after).body if c.after else []
                    if not block:
                        block.append(ast.Pass())
                    return

# ----------------------------------------------------------------------------- trying


@dataclass
class Trial:
    """How to run a fixed copy of the script the way the original ran: `run(text, name)`, given
    by the session that ran it, returns the copy's (Report, {leaf: its .grad as text})."""
    source: str
    filename: str
    run: Callable


def trial_of(fields):
    """A Trial from the fields the executor keeps on a report (a tuple, so that a run that never
    needs a fix imports nothing for it)."""
    return Trial(*fields) if fields is not None and not isinstance(fields, Trial) else fields


def run_fixed(trial, text, tag, goal=None):
    """Run `text` as the script would run: (Report, {leaf: grad text}, whether it reached the goal:
    by default, running to its end)."""
    report, grads = trial.run(text, f"{trial.filename} [{tag}]")
    return report, grads, report.error is None and (goal is None or goal(report))


def try_fixes(why, trial, goal=None):
    """Run each mechanical fix on a copy of the script; keep what happened. A fix works when the
    copy runs to its end (and reaches `goal(report)`, for a surprise: it is gone)."""
    trial = trial_of(trial)
    from ..record import origin as O
    sm = O.source_map(trial.filename)
    tree = sm.tree if sm is not None else None
    if tree is None:
        return
    for i, fix in enumerate(why.fixes, 1):
        if fix.edit is None:
            continue
        try:
            text = apply(trial.source, tree, fix.edit)
        except (SyntaxError, ValueError, RecursionError):
            continue                       # the edit itself could not be made: the fix stays untried advice
        fix.tried = True
        try:
            report, grads, works = run_fixed(trial, text, f"fix {i}", goal)
        except Exception as e:             # gradcli itself failed on the copy: not shown as a fix that works
            fix.works, fix.outcome = False, f"gradcli could not run it ({type(e).__name__})"
            continue
        fix.grads = grads
        err = report.error
        fix.works = works
        fix.outcome = ("runs to its end" + ("" if works else f", but {why.family.replace('_', ' ')} remains")
                       if err is None else
                       f"{err.type}: {short(err.message)}" + (f" (line {err.line})" if err.line else ""))
    shown = [f for f in why.fixes if f.tried and f.works]
    for f in shown:
        f.differs = sorted(k for k in f.grads if len({g.grads.get(k) for g in shown}) > 1)


def short(message, limit=90):
    first = message.split(". ")[0]
    return first if len(first) <= limit else first[:limit - 1] + "…"


def fixed_script(why, trial, n):
    """The script with the n-th shown fix applied (1-based)."""
    from ..record import origin as O
    trial = trial_of(trial)
    shown = [f for f in why.fixes if f.shown and f.edit is not None]
    if not 1 <= n <= len(shown):
        return None
    return apply(trial.source, O.source_map(trial.filename).tree, shown[n - 1].edit)
