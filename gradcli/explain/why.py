"""Why an autograd error happened and how to fix it, stated from the engine's records.

One `Why` per error (a plain dataclass every view renders: the Rich panel, `explain`,
`--json`, the REPL's `:explain`, `gradcli test`). Its fields are facts: the node, the line
and expression that made it, the tensor (script variable or module parameter), the
versions, the call that freed or changed it and, in a loop, the iteration. Its `fixes` are
ranked for the situation; each mechanical one carries an `Edit` of the script's tree that
fixes.py applies to a copy and runs before a view shows it.
"""
from __future__ import annotations

import ast
import re
import sys
from dataclasses import dataclass, field
from typing import Optional

from .. import engine as E
from ..record import origin as O
from .fixes import Edit, Fix, statement_at, enclosing, replace_in, call_named, method_calls, with_fields
from ..record.report import Warned

# ----------------------------------------------------------------------------- data


@dataclass
class Why:
    family: str                         # see FAMILIES
    text: str                           # the cause in plain words, built from the fields below
    node: Optional[str] = None          # the grad_fn at the heart of it ("MulBackward0")
    seq: Optional[int] = None
    line: Optional[int] = None          # the line that made the node (or the tensor)
    expression: Optional[str] = None    # that line's statement
    variable: Optional[str] = None      # the script variable (or module parameter path)
    module: Optional[str] = None        # "net.fc1 (Linear)": the module whose forward made it
    saved: list = field(default_factory=list)          # the saved slots involved
    version: Optional[int] = None       # the tensor's version now
    expected_version: Optional[int] = None             # its version when it was saved
    by_line: Optional[int] = None       # the call that freed / changed it
    by_text: Optional[str] = None
    loop_line: Optional[int] = None     # the loop whose previous iteration did it
    previous_iteration: bool = False
    cause: Optional[str] = None         # the variant: "torch.tensor", "item", "detach", "no_grad", ...
    cause_line: Optional[int] = None    # where that variant happened
    cause_text: Optional[str] = None
    leaves: list = field(default_factory=list)         # leaves behind the shared part / affected
    notes: list = field(default_factory=list)          # secondary facts, one sentence each
    fixes: list = field(default_factory=list)          # Fix, ranked
    function: Optional[str] = None      # "Net.forward": the script function that made the node
    called_from: Optional[int] = None   # the script line that called that function


FAMILIES = {
    "freed": "backward through freed saved tensors (a second backward, or saved tensors read after backward)",
    "version": "a saved tensor was modified by an in-place operation",
    "optimizer_step": "an optimizer step changed parameters between the forward and the backward",
    "inplace_activation": "a module's in-place activation changed a saved tensor",
    "leaf_inplace": "an in-place operation on a leaf that requires grad",
    "view_of_leaf_inplace": "an in-place operation on a view of a leaf that requires grad",
    "nonscalar": "backward of a non-scalar output without a gradient",
    "no_grad_fn": "backward of a tensor that does not require grad (element 0 ...)",
    "grad_unused": "autograd.grad with an input the outputs do not depend on",
    "grad_input_no_grad": "autograd.grad with an input that does not require grad",
    "numpy_requires_grad": "numpy() on a tensor that requires grad",
    "integer_requires_grad": "requires_grad on an integer tensor",
    "grad_is_none": "an operation on .grad while it is still None",
    "grad_shape": "a gradient for backward whose shape is not the output's",
    # surprises: no error, but not what it seems
    "nonleaf_grad": ".grad of a non-leaf tensor is None (with PyTorch's warning)",
    "accumulated": "gradients accumulating across a loop's steps without zero_grad()",
    "data_inplace": "an in-place change through .data of a tensor a node saved (no version bump, no error)",
    "shared_grad": "two leaves' .grad share memory (after stack/cat/expand): accumulating into one changes the other",
}

# ----------------------------------------------------------------------------- context


class _Ctx:
    """What every family reads: the script's tree, the session's names, the failing frame."""

    def __init__(self, info, exc, interp):
        self.info, self.exc, self.interp = info, exc, interp
        filename = getattr(interp, "filename", None)
        self.sm = O.source_map(filename) if filename else None
        self.tree = self.sm.tree if self.sm is not None else None
        try:
            self.by_tensor, self.by_node = interp.names()
        except Exception:                       # (a session without names: the REPL's fragments)
            self.by_tensor, self.by_node = {}, {}
        self.paths = interp.module_paths() if hasattr(interp, "module_paths") else {}
        report = getattr(interp, "report", None)
        self.calls = report.events if report is not None else []
        self.scope = dict(getattr(interp, "globals", {}))
        tb = exc.__traceback__
        while tb is not None:                   # the innermost script frame's names come first
            if tb.tb_frame.f_code.co_filename == filename:
                self.scope = {**tb.tb_frame.f_globals, **tb.tb_frame.f_locals}
            tb = tb.tb_next
        self.stmt = None
        if info.line and self.sm is not None:
            self.stmt = self.sm.statement(info.line, info.col - 1 if info.col else None)
            if self.stmt is not None and self.stmt.lineno != info.line:
                self.stmt = statement_at(self.tree, info.line)

    def text(self, st):
        return self.sm.text(st) if st is not None and self.sm is not None else None

    def value(self, expr):
        """The current value of a name or attribute chain in the failing frame, or None."""
        if isinstance(expr, ast.Name):
            return self.scope.get(expr.id)
        if isinstance(expr, ast.Attribute):
            base = self.value(expr.value)
            return getattr(base, expr.attr, None) if base is not None else None
        return None

    def tensor_name(self, t):
        return self.by_tensor.get(id(t))

    def where(self, origin):
        """(line, statement, variable, module) of an origin."""
        if origin is None:
            return None, None, None, None
        module = getattr(origin, "module", None)
        mod = None
        if module is not None:
            path = self.paths.get(id(module))
            mod = f"{path} ({type(module).__name__})" if path else type(module).__name__
        return origin.line, origin.text, origin.variable, mod

    def loops_around(self, line):
        return [n for n in enclosing(self.tree, line) if isinstance(n, (ast.For, ast.While))]

    def definition(self, name, before):
        """The last statement before line `before` that assigns `name` (in the script's tree)."""
        best = None
        for node in ast.walk(self.tree) if self.tree is not None else ():
            if isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign)) and node.lineno < before:
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                names = [n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)]
                if name in names and (best is None or node.lineno > best.lineno):
                    best = node
        return best


def _q(text):
    return f"`{text}`"


def _ref(text, line):
    return f"`{text}` on line {line}" if text else (f"line {line}" if line else "an earlier statement")


def _made(text, line, module, why=None):
    """"made by `return self.fc2(h)` in net.fc2 (Linear) on line 11 of `Net.forward`, called
    from line 20" (the function and its caller from `why`'s fields)."""
    inside = f" in {module}" if module else ""
    made = f"made by `{text}`{inside} on line {line}" if text else f"made{inside} on line {line}"
    if why is not None and why.function:
        made += f" of `{why.function}`" + (f", called from line {why.called_from}" if why.called_from else "")
    return made


def _caller(why, origin):
    """Fill why.function and why.called_from from the origin of the node at its heart."""
    why.function = getattr(origin, "function", None)
    callers = getattr(origin, "callers", ())
    if why.function and callers:
        why.called_from = O.Origin(*callers[0], ()).line       # the innermost script frame that called it


def _names_of(leaves):
    return ", ".join(f"`{n}`" for n in leaves)

# ----------------------------------------------------------------------------- entry


def explain_error(info, exc, interp):
    """Fill info.explanation (a Why), info.cause, info.why and info.fix for an autograd error."""
    if interp is None or getattr(interp, "filename", None) is None:
        return
    try:
        why = diagnose(_Ctx(info, exc, interp))
    except Exception:           # an explanation gradcli cannot build never hides the script's own error
        return
    if why is None:
        return
    info.explanation = why
    info.cause = _legacy_cause(why)
    info.why = why.text
    info.fix = fix_text(why.fixes)


def explain_exception(exc, interp, line, text):
    """The Why of an error a script caught (the narrative explains those calls too)."""
    from ..record.report import ErrorInfo
    info = ErrorInfo(type(exc).__name__, str(exc), line, None, text)
    if getattr(interp, "filename", None) is None:
        return None
    return diagnose(_Ctx(info, exc, interp))


def diagnose(ctx) -> Optional[Why]:
    exc, msg = ctx.exc, str(ctx.exc)
    if isinstance(exc, E.BackwardTwiceError):
        return _freed(ctx)
    if isinstance(exc, E.VersionError):
        return _version(ctx)
    for start, family in _BY_MESSAGE:
        if msg.startswith(start):
            return family(ctx)
    return None


def _legacy_cause(why):
    """docs/json.md's `error.cause` (kept for older readers)."""
    if why.family == "freed":
        return {"grad_fn": why.node, "line": why.line, "saved": why.saved, "freed_by": why.by_line}
    if why.version is not None:
        return {"grad_fn": why.node, "line": why.line, "saved": why.saved, "version": why.version,
                "expected_version": why.expected_version}
    return None


def fix_text(fixes):
    """The fixes as one line, in order: the tried ones that worked, then untried advice."""
    shown = [f for f in fixes if f.shown]
    if not shown:
        return None
    return " Or ".join(f"{f.advice}" + ("" if f.tried else " (untried)") for f in shown)

# ----------------------------------------------------------------------------- freed buffers


def _freed(ctx):
    exc, node = ctx.exc, ctx.exc.node
    line, text, var, module = ctx.where(node.origin)
    var = ctx.by_node.get(node) or var
    record = node.freed_by
    by_line = getattr(record.origin, "line", None) if record is not None else None
    by_text = getattr(record.origin, "text", None) if record is not None else None
    slots = node.tensor_slots() or ([exc.slot] if exc.slot else [])
    failing = ctx.calls[-1] if ctx.calls and ctx.calls[-1].failed else None
    who = _q(failing.text) if failing is not None and failing.text else (
        _q(ctx.info.text) if ctx.info.text else "This call")
    # saved tensors read after backward, not a backward reaching them (without a recorder, as in
    # a notebook's plain cell, the traceback tells: did the engine's backward loop raise it?)
    reading = failing.line != ctx.info.line if failing is not None else not _raised_by_backward(exc)
    why = Why("freed", "", node.name(), node.seq, line, text, var, module, slots,
              by_line=by_line, by_text=by_text)
    # the loop whose previous iteration freed it
    fail_line = ctx.info.line
    if by_line is not None and fail_line is not None:
        shared = [lp for lp in ctx.loops_around(by_line) if lp in ctx.loops_around(fail_line)]
        if shared and by_line >= fail_line:
            why.loop_line, why.previous_iteration = shared[-1].lineno, True
    what = " and ".join(_slot_text(ctx, node, s) for s in slots) or "its saved tensors"
    freed = (f"{_ref(by_text, by_line)}" + (f" in the previous iteration of the loop on line {why.loop_line}"
                                              if why.previous_iteration else "")) if record else "an earlier backward"
    named = var and not re.match(rf"\s*{re.escape(var)}\s*=", text or "")     # (a variable the statement shows)
    _caller(why, node.origin)
    made = _made(text, line, module, why) + (f" ({var})" if named else "")
    if reading:
        why.cause = "saved_tensors_read"
        why.text = (f"{who} read the saved tensors of {node.name()}, {made}, after {freed} ran that node "
                    f"without retain_graph=True: a backward frees the saved tensors of every node it runs, "
                    f"and a custom Function's ctx.saved_tensors are freed with them.")
    else:
        why.text = (f"{who} reached {node.name()}, {made}. It needs its saved {what}, which {freed} freed "
                    "(a backward without retain_graph=True frees the saved tensors of every node it runs).")
    constants = [s for s in slots if getattr(node.saved.get(s), "constant", None) is not None]
    if constants:
        why.notes.append("A Python number in `*` or `/` is saved as a tensor: that is why "
                         f"{_q(text) if text else 'it'} "
                         "holds one.")
    # (without the calls' record, the node that needed the buffer is where the graph was entered)
    boundary = None if reading else _boundary(ctx, node, failing) if failing is not None else node
    if boundary is not None:
        b_line, b_text, b_var, _ = ctx.where(boundary.origin)
        b_var = ctx.by_node.get(boundary) or b_var
        why.leaves = _leaves_behind(ctx, boundary)
        if boundary is not node:
            why.notes.append(f"The graph of this call enters the part an earlier backward already ran at "
                             f"{boundary.name()} ({_ref(b_text, b_line)}"
                             + (f", `{b_var}`" if b_var else "") + ")"
                             + (f"; through it, gradient flows into {_names_of(why.leaves)}" if why.leaves else "")
                             + ".")
        elif why.leaves:
            why.notes.append(f"Through {_q(b_var) if b_var else 'that node'}, gradient flows into "
                             f"{_names_of(why.leaves)}.")
        loops = ctx.loops_around(fail_line) if fail_line else []
        before_loop = loops and b_line is not None and not loops[-1].lineno <= b_line <= loops[-1].end_lineno
        if why.previous_iteration and before_loop:
            why.notes.append(f"`{b_var or b_text}` is computed once, on line {b_line}, before the loop on line "
                             f"{loops[-1].lineno}, and every iteration builds on the same graph.")
    innocent = _innocent(ctx, record, node, failing)
    if innocent:
        why.notes.append(f"{innocent} other node{'s' * (innocent != 1)} on the path "
                         f"save{'s' * (innocent == 1)} nothing: not the problem.")
    why.fixes = _freed_fixes(ctx, why, node, record, failing, boundary)
    return why


def _raised_by_backward(exc):
    tb = exc.__traceback__
    while tb is not None:
        code = tb.tb_frame.f_code
        if code is E.execute.__code__:
            return True
        tb = tb.tb_next
    return False


def _slot_text(ctx, node, slot):
    """`other` (the constant 2, saved as a 0-d tensor) / `self` (x) / `result` (its own output)."""
    s = node.saved.get(slot)
    if slot == "fn":
        return "`fn` (the node of the in-place operation it applies)"
    if slot == "result" or getattr(s, "is_output", False):
        return f"`{slot}` (its own output)"
    if getattr(s, "constant", None) is not None:
        return f"`{slot}` (the constant {s.constant!r}, saved as a 0-d tensor)"
    from ..record.trace import saved_what
    name = saved_what(node, slot, ctx.by_node, ctx.by_tensor).name
    return f"`{slot}` ({name})" if name else f"`{slot}`"


def _graph_path(root, target):
    """The nodes from root to target (both included), or None."""
    parent, stack, seen = {}, [root], {root}
    while stack:
        fn = stack.pop()
        if fn is target:
            path = [fn]
            while path[-1] in parent:
                path.append(parent[path[-1]])
            return path[::-1]
        for nxt, _ in fn.next_functions:
            if nxt is not None and nxt not in seen:
                seen.add(nxt)
                parent[nxt] = fn
                stack.append(nxt)
    return None


def _boundary(ctx, node, failing):
    """The first node on the failing call's path to `node` that an earlier call ran."""
    if failing is None or not failing.executed:
        return None
    ran_before = {n.seq for ev in ctx.calls[:-1] for n in ev.executed if n.seq is not None}
    roots = [ev_node for ev_node in _live_roots(ctx, failing)]
    for root in roots:
        path = _graph_path(root, node)
        if path:
            for fn in path:
                if fn.seq in ran_before and not isinstance(fn, E.AccumulateGrad):
                    return fn
    return node


def _live_roots(ctx, failing):
    """The engine node(s) the failing call started from, found by the call's statement."""
    st = ctx.stmt if failing.line == ctx.info.line else statement_at(ctx.tree, failing.line)
    out = []
    for call in method_calls(st, "backward"):
        t = ctx.value(call.func.value)
        if isinstance(t, E.TensorBase) and t.grad_fn is not None:
            out.append(t.grad_fn)
        elif isinstance(call.func.value, ast.Call):         # `loss.sum().backward()`: start below it
            inner = ctx.value(call.func.value.func.value) if isinstance(call.func.value.func, ast.Attribute) else None
            if isinstance(inner, E.TensorBase) and inner.grad_fn is not None:
                out.append(inner.grad_fn)
    for call in call_named(st, "grad"):
        for a in call.args[:1]:
            for e in (a.elts if isinstance(a, (ast.List, ast.Tuple)) else [a]):
                t = ctx.value(e)
                if isinstance(t, E.TensorBase) and t.grad_fn is not None:
                    out.append(t.grad_fn)
    return out


def _leaves_behind(ctx, node):
    """Names of the leaves a node's graph reaches (its AccumulateGrads)."""
    return sorted({name for t in _leaf_tensors(node) for name in [ctx.tensor_name(t)] if name})


def _innocent(ctx, record, node, failing):
    """How many nodes the freeing call ran on the failing path that save nothing."""
    if record is None or failing is None:
        return 0
    by_seq = {}
    for ev in ctx.calls:
        for n in ev.executed:
            by_seq.setdefault(n.seq, n)
    ran_now = {n.seq for n in failing.executed}
    return len({s for s in ran_now if s in by_seq and not by_seq[s].saved and by_seq[s].grad_fn != "AccumulateGrad"
                and s != node.seq})


def _optimizers(ctx):
    # a script that made no optimizer never loaded torch.optim: nothing to import to learn that
    optimizer = sys.modules.get("gradcli.torch.optim.optimizer")
    if optimizer is None:
        return {}
    return {k: v for k, v in ctx.scope.items() if isinstance(v, optimizer.Optimizer)}


def _param_ids(opt):
    return {id(p) for g in opt.param_groups for p in g["params"]}


def _stepped_between(ctx, first, last):
    """Optimizers whose `.step()` is called on a line in (first, last]."""
    opts, out = _optimizers(ctx), []
    for call in method_calls(ctx.tree, "step"):
        if first < call.lineno <= last and isinstance(call.func.value, ast.Name) and call.func.value.id in opts:
            out.append(opts[call.func.value.id])
    return out


def _freed_fixes(ctx, why, node, record, failing, boundary):
    fixes = []
    retain = _retain_edit(ctx, record)
    b_line, b_text, b_var, _ = ctx.where(getattr(boundary, "origin", None))
    b_var = (ctx.by_node.get(boundary) if boundary is not None else None) or b_var
    leaves = why.leaves
    through = f" through `{b_var}`" if b_var else ""
    loops = ctx.loops_around(ctx.info.line) if ctx.info.line else []
    outside_loop = bool(loops) and b_line is not None and not (loops[-1].lineno <= b_line <= loops[-1].end_lineno)
    detach_def = _detach_definition(ctx, boundary, b_var)
    no_grad_def = _no_grad_definition(ctx, boundary)
    same_call = failing is not None and why.by_line == failing.line
    detach_use = None if same_call else _detach_at_use(ctx, record, boundary, b_var)
    carried = _detach_carried(ctx, b_var, loops) if why.previous_iteration and not outside_loop else None
    opts = _optimizers(ctx)
    by_line = why.by_line or 0
    stepped = _stepped_between(ctx, by_line, ctx.info.line or 0)
    leaf_ids = {id(t) for t in _leaf_tensors(boundary)}
    untrained = bool(opts) and leaf_ids and not any(leaf_ids & _param_ids(o) for o in opts.values())
    every = " on every iteration" if why.previous_iteration else ""
    retain_fix = Fix("keep the graph", f"`{retain.after.strip()}` on line {retain.line}" if retain else
                     "pass retain_graph=True to the first backward", retain,
                     effect=("keeps every saved tensor of that graph alive until the last backward"
                             + (f", and keeps sending gradient into {_names_of(leaves)}{through}{every}"
                                if leaves else "")
                             + (" (time and memory grow with each iteration)" if why.previous_iteration else "") + "."))
    d_def = Fix("detach where it is made", f"detach `{b_var}` where it is made: `{detach_def.after.strip()}` "
                f"on line {detach_def.line}" if detach_def else "", detach_def,
                effect=f"`{b_var}` becomes a constant: no gradient reaches {_names_of(leaves) or 'its inputs'}{through}"
                       " from any loss.") if detach_def else None
    n_def = Fix("compute it under no_grad", f"compute `{b_var}` under `torch.no_grad()` (line {no_grad_def.line})",
                no_grad_def, effect=f"as detach, and no graph is recorded for `{b_var}` at all (less memory).") \
        if no_grad_def and b_var else None
    d_use = Fix("detach where the first backward uses it",
                f"`{detach_use.after.strip()}` on line {detach_use.line}", detach_use,
                effect=f"{_q(why.by_text) if why.by_text else 'the first backward'} no longer sends gradient into "
                       f"{_names_of(leaves) or 'the shared part'}{through}; "
                       f"{_q(failing.text) if failing and failing.text else 'the failing call'} "
                       "still does.") if detach_use else None
    d_carry = Fix("detach the carried state", f"start each iteration of the loop on line {carried.line} with "
                  f"`{carried.after.strip().splitlines()[0]}`", carried,
                  effect=f"`{b_var}` carries its values into the next iteration but not its graph: gradient stops at "
                         "the start of each iteration (truncated backpropagation).") if carried else None
    again = _recompute_edit(ctx, failing, node)
    recompute = None
    if again is not None:
        edit, texts, names = again
        made = names[0] if names else None
        recompute = Fix("recompute the forward",
                        f"recompute {_q(made) if made else 'the forward'}"
                        + (f" and what is made from it ({', '.join(map(_q, names[1:]))})" if names[1:] else "")
                        + ": run " + ", ".join(f"`{c}`" for c in texts)
                        + f" again before {_q(failing.text) if failing and failing.text else 'the second backward'}",
                        edit, effect="a fresh graph with fresh saved tensors; the earlier backward's gradients stay"
                        + (", and the random numbers drawn again differ from the first run."
                           if _draws_random(ctx, texts) else "."))
    if b_line is None:                      # saved tensors read after backward: nothing to recompute around
        recompute = Fix("read them before the backward", "read the saved tensors before the backward that frees "
                        "them", None, effect="the values are the ones the forward saved.")
    if why.previous_iteration or untrained:
        order = [d_carry, d_def, n_def, d_use, recompute, retain_fix]        # one backward per step was meant
    elif stepped and leaf_ids and not any(leaf_ids & _param_ids(o) for o in stepped):
        order = [d_use, retain_fix, recompute, d_def]                        # that step does not train the shared part
    else:
        order = [retain_fix, recompute, d_use, d_def]                        # two backward passes were meant
    for f in order:
        if f is not None and f not in fixes:
            fixes.append(f)
    return fixes


def _recompute_edit(ctx, failing, freed):
    """Copies of the statements that built the failing call's graph down to the node whose saved
    tensors were freed (recomputing less still reaches it), inserted before the failing call:
    (Edit, [statement texts], [the names they assign]) or None."""
    st = ctx.stmt
    if failing is None or freed is None or st is None:
        return None
    lines = set()
    for root in _live_roots(ctx, failing):
        path = _graph_path(root, freed) or []
        lines |= {fn.origin.line for fn in path if getattr(fn, "origin", None) is not None and fn.origin.line}
    again = []
    for anchor in [st] + enclosing(ctx.tree, st.lineno)[::-1]:     # its block, then the blocks around it
        block = next((b for p in [ctx.tree] + list(ast.walk(ctx.tree)) for f in ("body", "orelse", "finalbody")
                      for b in [getattr(p, f, None)] if isinstance(b, list) and anchor in b), None)
        if block is None:
            return None
        again[:0] = [b for b in block[:block.index(anchor)] if b.lineno in lines]
    if not lines or len(again) != len(lines):   # a statement of the path is elsewhere (an inner loop, a function)
        return None
    import copy
    e = replace_in(ctx, st, None, wrap=lambda stmts: [copy.deepcopy(b) for b in again] + stmts)
    names = [ast.unparse(t) for b in again if isinstance(b, (ast.Assign, ast.AugAssign, ast.AnnAssign))
             for t in (b.targets if isinstance(b, ast.Assign) else [b.target])]
    return (e, [ctx.text(b) for b in again], names) if e else None


# the functions and methods that draw from the random number generator
_RANDOM = {"rand", "randn", "randint", "randperm", "rand_like", "randn_like", "randint_like", "normal", "normal_",
           "uniform_", "bernoulli", "bernoulli_", "multinomial", "poisson", "exponential_", "geometric_",
           "cauchy_", "log_normal_", "random_", "dropout", "dropout_", "alpha_dropout", "feature_alpha_dropout",
           "dropout1d", "dropout2d", "dropout3d", "rrelu", "gumbel_softmax"}


def _draws_random(ctx, texts):
    """Whether running these statements again draws random numbers: a random function, or a
    module in training mode with a dropout-like submodule."""
    for text in texts:
        try:
            tree = ast.parse(text.strip())
        except SyntaxError:
            return True                     # (cannot tell: say so)
        for n in ast.walk(tree):
            if not isinstance(n, ast.Call):
                continue
            name = n.func.attr if isinstance(n.func, ast.Attribute) else getattr(n.func, "id", None)
            if name in _RANDOM:
                return True
            module = ctx.value(n.func)
            if getattr(module, "training", False) and hasattr(module, "modules") and any(
                    "Dropout" in type(m).__name__ or type(m).__name__ == "RReLU" for m in module.modules()):
                return True
    return False


def _leaf_tensors(node):
    out, stack, seen = [], [node], set()
    while stack:
        fn = stack.pop()
        if fn is None or fn in seen:
            continue
        seen.add(fn)
        if isinstance(fn, E.AccumulateGrad):
            out.append(fn.variable)
        stack.extend(n for n, _ in fn.next_functions)
    return out


def _retain_edit(ctx, record):
    if record is None:
        return None
    st = getattr(record.origin, "stmt", None)
    calls = method_calls(st, "backward") or call_named(st, "grad") or call_named(st, "backward")
    if not calls:
        return None
    target = calls[-1]

    def edit(n):
        if n is target:
            return with_fields(n, keywords=[k for k in n.keywords if k.arg != "retain_graph"] + [
                ast.keyword("retain_graph", ast.Constant(True))])
        return n
    return replace_in(ctx, st, edit)


def _detach_definition(ctx, boundary, var):
    """`v = (expr).detach()` on the statement that made the boundary node."""
    st = getattr(getattr(boundary, "origin", None), "stmt", None)
    if not (isinstance(st, ast.Assign) and var and any(isinstance(t, ast.Name) and t.id == var for t in st.targets)):
        return None

    def edit(n):
        if n is st.value:
            return ast.Call(ast.Attribute(n, "detach", ast.Load()), [], [])
        return n
    return replace_in(ctx, st, edit)


def _no_grad_definition(ctx, boundary):
    st = getattr(getattr(boundary, "origin", None), "stmt", None)
    if not isinstance(st, ast.Assign):
        return None
    return replace_in(ctx, st, None, wrap=_no_grad_with)


def _no_grad_with(stmts):
    return [ast.With([ast.withitem(ast.parse("torch.no_grad()", mode="eval").body)], stmts)]


def _detach_at_use(ctx, record, boundary, var):
    """`var` -> `var.detach()` in the statements whose nodes the freeing call ran on top of the boundary."""
    if record is None or not var or boundary is None:
        return None
    users = []
    for ev in ctx.calls[:-1]:
        if ev.line == getattr(record.origin, "line", None):
            users = [n.origin.stmt for n in ev.executed if n.origin is not None and n.origin.stmt is not None]
    for st in dict.fromkeys(users):
        if st is getattr(boundary.origin, "stmt", None):
            continue
        uses = [n for n in ast.walk(st) if isinstance(n, ast.Name) and n.id == var and isinstance(n.ctx, ast.Load)]
        if not uses:
            continue

        def edit(n, uses=uses):
            if n in uses:
                return ast.Call(ast.Attribute(ast.Name(var, ast.Load()), "detach", ast.Load()), [], [])
            return n
        return replace_in(ctx, st, edit)
    return None


def _detach_carried(ctx, var, loops):
    """`var = var.detach()` as the first statement of the loop whose iterations share it."""
    if not var or not loops:
        return None
    loop = loops[0]                         # the outermost loop around the backward carries it
    first = loop.body[0]
    stmt = ast.parse(f"{var} = {var}.detach()").body[0]
    return replace_in(ctx, first, None, wrap=lambda stmts: [stmt] + stmts)

# ----------------------------------------------------------------------------- in-place version error


def _version(ctx):
    exc = ctx.exc
    node, s = exc.node, exc.saved
    line, text, var, module = ctx.where(node.origin)
    slot = next((k for k, v in node.saved.items() if v is s), None)
    changed = getattr(s.version, "last", None)
    c_line, c_text, _, c_module = ctx.where(changed)
    tensor = _saved_name(ctx, node, s, slot)
    why = Why("version", "", node.name(), node.seq, line, text, tensor, module, [slot] if slot else [],
              version=s.version.v, expected_version=s.saved_version, by_line=c_line, by_text=c_text)
    fail_line = ctx.info.line
    if c_line is not None and fail_line is not None:
        shared = [lp for lp in ctx.loops_around(c_line) if lp in ctx.loops_around(fail_line)]
        if shared and c_line >= fail_line:
            why.loop_line, why.previous_iteration = shared[-1].lineno, True
    times = s.version.v - s.saved_version
    _caller(why, node.origin)
    made = _made(text, line, module, why)
    changer = (f"{_ref(c_text, c_line)}" + (f" (in {c_module})" if c_module else "")
               + (f" in the previous iteration of the loop on line {why.loop_line}"
                  if why.previous_iteration else "")) \
        if changed is not None else "an in-place operation"
    shown = (tensor if tensor.startswith(("the output of", "a view of")) else _q(tensor)) if tensor else "a tensor"
    why.text = (f"{node.name()}, {made}, saved `{slot}` ({shown}) at version "
                f"{s.saved_version}; {changer} then changed that tensor in place, so its version is now {s.version.v}"
                + (f" ({times} in-place changes; the latest is named)" if times > 1 else "")
                + ". Backward needs the old value, which is gone, so it refuses the tensor.")
    m = re.search(r"which is output 0 of ([\w:]+)", str(exc))
    if m:
        why.notes.append(f"PyTorch's message says \"output 0 of {m.group(1)}\": " + (
            "the node that made the saved output." if s.is_output else
            "for a modified input it names the tensor's grad_fn now, the in-place operation itself."))
    mod = getattr(changed, "module", None)
    c_stmt = getattr(changed, "stmt", None)
    if c_stmt is not None and method_calls(c_stmt, "step") and _optimizers(ctx):
        why.family = "optimizer_step"
        why.text += (f" {_q(c_text)} updates the parameters in place; the graph of the failing backward was "
                     "built before it, from the old values.")
        why.fixes = _step_fixes(ctx, why, c_stmt)
        return why
    if mod is not None and getattr(mod, "inplace", False):
        why.family = "inplace_activation"
        why.cause = type(mod).__name__
        why.text += (f" {c_module} was built with inplace=True: it overwrites its input, which "
                     f"{node.name()} saved.")
        why.fixes = _inplace_module_fixes(ctx, why, mod)
        return why
    detached = _alias_definition(ctx, c_stmt, c_line)
    if detached is not None:
        d_stmt, alias, source_expr, how = detached
        why.cause, why.cause_line, why.cause_text = how, d_stmt.lineno, ctx.text(d_stmt)
        why.text += (f" `{alias}` was made by {_ref(ctx.text(d_stmt), d_stmt.lineno)}: "
                     + ("`detach()` shares storage and the version counter with "
                        f"`{source_expr}`: changing `{alias}` in place changes `{source_expr}`, and backward sees it."
                        if how == "detach" else
                        f"`{alias}` is a view of `{source_expr}`: they share storage and the version counter."))
    why.fixes = _version_fixes(ctx, why, node, c_stmt, c_line, detached, slot, text, line)
    return why


def _saved_name(ctx, node, s, slot):
    if s.tensor is not None:
        name = ctx.tensor_name(s.tensor)
        if name:
            return name
    if s.tensor is not None and s.tensor._base is not None and ctx.tensor_name(s.tensor._base):
        return f"a view of {ctx.tensor_name(s.tensor._base)}"
    if s.is_output:
        module = ctx.where(node.origin)[3]
        return ctx.by_node.get(node) or (f"the output of {module}" if module else node.origin.variable)
    return None


def _alias_definition(ctx, c_stmt, c_line):
    """For `c.zero_()` / `c += 1`: `c = out.detach()` or `c = out[...]` that made c -> (stmt, c, out, kind)."""
    name = _receiver_name(c_stmt)
    if name is None or c_line is None:
        return None
    d = ctx.definition(name, c_line)
    if not isinstance(d, ast.Assign):
        return None
    v = d.value
    if isinstance(v, ast.Call) and isinstance(v.func, ast.Attribute) and v.func.attr == "detach":
        return d, name, ast.unparse(v.func.value), "detach"
    if isinstance(v, ast.Attribute) and v.attr == "data":
        return d, name, ast.unparse(v.value), "detach"
    if isinstance(v, ast.Subscript) or (isinstance(v, ast.Call) and isinstance(v.func, ast.Attribute)
                                        and v.func.attr in ("view", "t", "transpose", "reshape", "view_as", "narrow",
                                                            "squeeze", "unsqueeze", "expand", "permute")):
        base = v.value if isinstance(v, ast.Subscript) else v.func.value
        return d, name, ast.unparse(base), "view"
    return None


def _changed(st):
    """What a statement changes in place (`c` of `c += 1`, `c.zero_()`, `c[0] = 1`; `x.data` of
    `x.data.mul_(2)`), subscripts stripped, or None."""
    if isinstance(st, ast.AugAssign):
        t = st.target
    elif isinstance(st, ast.Assign) and isinstance(st.targets[0], ast.Subscript):
        t = st.targets[0]
    elif isinstance(st, ast.Expr) and isinstance(st.value, ast.Call) and isinstance(st.value.func, ast.Attribute) \
            and st.value.func.attr.endswith("_") and not st.value.func.attr.startswith("_"):
        t = st.value.func.value
    else:
        return None
    while isinstance(t, ast.Subscript):
        t = t.value
    return t


def _receiver_name(st):
    """The variable a statement changes in place."""
    t = _changed(st)
    return t.id if isinstance(t, ast.Name) else None


def _out_of_place(ctx, st):
    """`a += b` -> `a = a + b`; `a.add_(b)` -> `a = a.add(b)`; `a.zero_()` -> `a = torch.zeros_like(a)`."""
    if isinstance(st, ast.AugAssign) and isinstance(st.target, ast.Name):
        new = ast.Assign([ast.Name(st.target.id, ast.Store())],
                         ast.BinOp(ast.Name(st.target.id, ast.Load()), st.op, st.value))
        return replace_in(ctx, st, None, wrap=lambda stmts: [new])
    if isinstance(st, ast.Expr) and isinstance(st.value, ast.Call) and isinstance(st.value.func, ast.Attribute) \
            and st.value.func.attr.endswith("_") and isinstance(st.value.func.value, ast.Name):
        name, meth = st.value.func.value.id, st.value.func.attr[:-1]
        if meth == "zero":
            value = ast.parse(f"torch.zeros_like({name})", mode="eval").body
        elif meth == "fill":
            value = ast.Call(ast.Attribute(ast.Name("torch", ast.Load()), "full_like", ast.Load()),
                             [ast.Name(name, ast.Load())] + st.value.args, [])
        else:
            value = ast.Call(ast.Attribute(ast.Name(name, ast.Load()), meth, ast.Load()), st.value.args,
                             st.value.keywords)
        new = ast.Assign([ast.Name(name, ast.Store())], value)
        return replace_in(ctx, st, None, wrap=lambda stmts: [new])
    return None


def _version_fixes(ctx, why, node, c_stmt, c_line, detached, slot, text, line):
    fixes = []
    if detached is not None:
        d_stmt, alias, source_expr, how = detached

        def clone(n):
            if n is d_stmt.value:
                return ast.Call(ast.Attribute(n, "clone", ast.Load()), [], [])
            return n
        e = replace_in(ctx, d_stmt, clone)
        fixes.append(Fix("copy instead of sharing", f"`{e.after.strip()}` on line {e.line}" if e else "", e,
                         effect=f"`{alias}` gets its own storage and version counter: changing it leaves "
                                f"`{source_expr}` and the graph alone.") if e else None)
    e = _out_of_place(ctx, c_stmt)
    if e is not None:
        fixes.append(Fix("change it out of place", f"`{e.after.strip()}` instead of `{ctx.text(c_stmt)}` "
                         f"(line {c_line})", e,
                         effect="the name now holds a new tensor; the one the graph saved keeps its value."))
    st = getattr(node.origin, "stmt", None)
    name = why.variable if slot != "result" else None
    if st is not None and name and line != c_line:
        uses = [n for n in ast.walk(st) if isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Load)]

        def clone_use(n, uses=uses):
            return ast.Call(ast.Attribute(ast.Name(name, ast.Load()), "clone", ast.Load()), [], []) if n in uses else n
        e = replace_in(ctx, st, clone_use) if uses else None
        if e is not None:
            fixes.append(Fix("save a copy", f"`{e.after.strip()}` on line {line}", e,
                             effect=f"{why.node} saves a copy of `{name}`; the in-place change still changes "
                                    f"`{name}` for everything after it."))
    fixes.append(Fix("change it after backward", f"move {_ref(ctx.text(c_stmt), c_line)} after the backward", None,
                     effect="the backward sees the values the forward used."))
    return [f for f in fixes if f is not None]


def _step_fixes(ctx, why, step_stmt):
    failing = ctx.stmt
    fixes = []
    if failing is not None and step_stmt is not None:
        e = _move_after(ctx, step_stmt, failing)
        if e is not None:
            fixes.append(Fix("step after the last backward", f"move `{ctx.text(step_stmt)}` (line {step_stmt.lineno}) "
                             f"after `{ctx.text(failing)}` (line {failing.lineno})", e,
                             effect="one step with the gradients of both backward calls summed."))
    fixes.append(Fix("recompute the forward after the step",
                     f"run the forward again after `{ctx.text(step_stmt)}` and build the second loss from it", None,
                     effect="the second loss uses the updated parameters, as PyTorch's optimizers expect."))
    return fixes


def _move_after(ctx, st, after):
    """An edit that deletes `st` and re-inserts it after `after` (same block only)."""
    for parent in ast.walk(ctx.tree):
        for fld in ("body", "orelse"):
            block = getattr(parent, fld, None)
            if isinstance(block, list) and st in block and after in block and block.index(st) < block.index(after):
                first = replace_in(ctx, st, None, wrap=lambda stmts: [])
                second = replace_in(ctx, after, None, wrap=lambda stmts: stmts + [_copy(st)])
                if first is None or second is None:
                    return None
                return Edit(first.changes + second.changes)
    return None


def _copy(st):
    import copy
    return copy.deepcopy(st)


def _inplace_module_fixes(ctx, why, mod):
    kind = type(mod).__name__
    target = None
    for call in ast.walk(ctx.tree):
        if isinstance(call, ast.Call) and kind in (getattr(call.func, "attr", None), getattr(call.func, "id", None)) \
                and any(k.arg == "inplace" for k in call.keywords):
            target = call
            break
    fixes = []
    if target is not None:
        st = statement_at(ctx.tree, target.lineno)

        def edit(n):
            if n is target:
                return with_fields(n, keywords=[k for k in n.keywords if k.arg != "inplace"])
            return n
        e = replace_in(ctx, st, edit)
        fixes.append(_shown_edit("build the activation out of place", e,
                                 f"{kind} keeps its input: one more tensor of memory per call."))
    fixes.append(Fix("clone before the activation", f"pass a `.clone()` of the input to {why.module or kind}", None,
                     effect="the saved tensor keeps its value."))
    return fixes

# ----------------------------------------------------------------------------- in-place on a leaf


def _leaf_inplace(ctx, view=False):
    st, info = ctx.stmt, ctx.info
    name = _receiver_name(st)
    t = ctx.scope.get(name) if name else None
    why = Why("view_of_leaf_inplace" if view else "leaf_inplace", "", line=info.line, expression=info.text,
              variable=ctx.tensor_name(t) if isinstance(t, E.TensorBase) else name)
    base = getattr(t, "_base", None) if isinstance(t, E.TensorBase) else None
    leaf_name = ctx.tensor_name(base) if base is not None else why.variable
    updating = st is not None and any(isinstance(n, ast.Attribute) and n.attr == "grad" for n in ast.walk(st))
    if view and base is not None:
        d = ctx.definition(name, info.line)
        why.cause, why.cause_line, why.cause_text = "view", getattr(d, "lineno", None), ctx.text(d)
        why.leaves = [leaf_name] if leaf_name else []
        why.text = (f"{_q(info.text)} changes `{name}` in place, and `{name}` is a view of the leaf "
                    f"`{leaf_name}` (made by {_ref(why.cause_text, why.cause_line)}), which requires grad. Writing "
                    f"into `{name}` writes into `{leaf_name}`, whose value the gradient is taken with respect to, so "
                    "autograd refuses it.")
    elif view:
        why.cause = "setitem"
        why.leaves = [why.variable] if why.variable else []
        why.text = (f"{_q(info.text)} writes into part of `{why.variable}`, a leaf that requires grad (indexing makes "
                    "a view of it). A leaf's value is what gradients are taken with respect to, so autograd refuses "
                    "to change it in place while recording.")
    else:
        why.leaves = [why.variable] if why.variable else []
        why.text = (f"{_q(info.text)} changes `{why.variable}` in place, and `{why.variable}` is a leaf that requires "
                    "grad: the tensor gradients are taken with respect to. Autograd refuses to record a change to it"
                    + (" (a parameter update must run under torch.no_grad())." if updating else "."))
    no_grad = replace_in(ctx, st, None, wrap=_no_grad_with) if st is not None else None
    ng = Fix("do it under no_grad", f"wrap {_q(info.text)} (line {info.line}) in `with torch.no_grad():`", no_grad,
             effect=f"the change happens but is not recorded: `{leaf_name}` stays a leaf, and gradients ignore "
                    "the change." if not updating else
             f"the update is not recorded: `{leaf_name}` stays a leaf and keeps receiving gradients.") \
        if no_grad else None
    fixes = []
    if view and base is not None:
        d = ctx.definition(name, info.line)

        def clone(n):
            return ast.Call(ast.Attribute(n, "clone", ast.Load()), [], []) if n is d.value else n
        e = replace_in(ctx, d, clone) if isinstance(d, ast.Assign) else None
        fixes.append(_shown_edit("work on a copy", e, f"`{name}` becomes a separate tensor that tracks gradient; "
                                                      f"`{leaf_name}` itself is "
                                    "not changed."))
        fixes.append(ng)
    elif updating:
        fixes.append(ng)
    else:
        e = _out_of_place(ctx, st)
        if e is None and name and st is not None:           # `x[0] = 5`: change a copy
            stmt = ast.parse(f"{name} = {name}.clone()").body[0]
            e = replace_in(ctx, st, None, wrap=lambda stmts: [stmt] + stmts)
        if e is not None:
            fixes.append(Fix("change a copy", f"`{e.after.strip().splitlines()[0]}` on line {e.line}", e,
                             effect=f"`{name}` then names a new, non-leaf tensor; the original leaf is the one that "
                                    "receives .grad (keep another name for it to read it)."))
        fixes.append(ng)
    why.fixes = [f for f in fixes if f is not None]
    return why

# ----------------------------------------------------------------------------- backward / grad arguments


def _root_expr(st):
    """The tensor expression a failing backward/grad call starts from, and the call."""
    for call in method_calls(st, "backward"):
        return call.func.value, call
    for call in call_named(st, "grad") + call_named(st, "backward"):
        if call.args:
            return call.args[0], call
    return None, None


def _nonscalar(ctx):
    st, info = ctx.stmt, ctx.info
    expr, call = _root_expr(st)
    t = ctx.value(expr) if expr is not None else None
    name = ast.unparse(expr) if expr is not None else None
    shape = list(t.shape) if isinstance(t, E.TensorBase) else None
    why = Why("nonscalar", "", line=info.line, expression=info.text, variable=name,
              node=t.grad_fn.name() if isinstance(t, E.TensorBase) and t.grad_fn is not None else None)
    why.cause = f"shape {shape}" if shape is not None else None
    why.text = (f"{_q(info.text)} starts from `{name}`" + (f", of shape {shape}" if shape is not None else "")
                + ": not one number. Backward needs the gradient of something with respect to each element of "
                "it; only for a single number can it take 1.")
    fixes = []
    if call is not None and isinstance(call.func, ast.Attribute) and call.func.attr == "backward" and expr is not None:
        for reduce_, eff in (("sum", "the gradient of the sum: each element counts once (the same as "
                                     "backward(torch.ones_like(...)))."),
                             ("mean", f"the gradient of the mean: every gradient is divided by the number of "
                                      f"elements ({t.numel() if isinstance(t, E.TensorBase) else 'N'}).")):
            def edit(n, reduce_=reduce_):
                if n is expr:
                    return ast.Call(ast.Attribute(n, reduce_, ast.Load()), [], [])
                return n
            e = replace_in(ctx, st, edit)
            if e is not None:
                fixes.append(Fix(f"reduce with {reduce_}()", f"`{e.after.strip()}` on line {e.line}", e, effect=eff))
    elif call is not None and expr is not None:
        def edit(n):
            if n is call:
                return with_fields(n, keywords=n.keywords + [ast.keyword("grad_outputs", ast.parse(
                    f"torch.ones_like({ast.unparse(expr)})", mode="eval").body)])
            return n
        e = replace_in(ctx, st, edit)
        fixes.append(_shown_edit("give grad_outputs", e,
                                 "weights every element of the output by 1: the gradient of its sum."))
    why.fixes = [f for f in fixes if f is not None]
    return why


_LOSES = {"item": "`.item()` returns a Python number: the graph ends there",
          "tolist": "`.tolist()` returns Python numbers: the graph ends there",
          "numpy": "`.numpy()` returns a NumPy array: the graph ends there",
          "detach": "`.detach()` returns a tensor that shares the values but not the graph",
          "data": "`.data` is the values without the graph",
          "long": "an integer tensor cannot carry gradient", "int": "an integer tensor cannot carry gradient",
          "argmax": "argmax returns integer indices: no gradient", "round": "",
          "tensor": "`torch.tensor(...)` copies the values into a new leaf that does not require grad",
          "as_tensor": "`torch.as_tensor(...)` copies the values into a new tensor without a graph",
          "from_numpy": "`torch.from_numpy(...)` wraps an array: no graph"}
_CASTS = ("float", "int")


def _no_grad_fn(ctx):
    st, info = ctx.stmt, ctx.info
    expr, call = _root_expr(st)
    name = ast.unparse(expr) if expr is not None else None
    why = Why("no_grad_fn", "", line=info.line, expression=info.text, variable=name)
    chain = _lost_at(ctx, expr, info.line or 0, set()) if expr is not None else []
    found = chain[-1] if chain else None
    lead = (f"{_q(info.text)} starts from `{name}`, which does not require grad and has no grad_fn: "
            "nothing in it is connected to a tensor that requires grad")
    if found is None:
        why.text = lead + "."
        why.fixes = [Fix("make a leaf require grad", "create the input tensors with requires_grad=True", None,
                         effect="backward then reaches them.")]
        return why
    kind, d, var, detail, _ = found
    edits = [h[4] for h in chain]
    edit = Edit([c for e in edits for c in e.changes]) if all(edits) else None
    why.cause, why.cause_line, why.cause_text = kind, d.lineno, ctx.text(d)
    why.variable = var
    reason = {"no_grad": f"it was computed under `{detail}`, which records no graph",
              "requires_grad": "it was created without requires_grad=True, and nothing it is computed from "
                               "requires grad",
              "grad_result": "it is a gradient computed by autograd.grad without create_graph=True, which is a "
                             "constant",
              "cast": f"`{detail}(...)` turns a tensor into a Python number: the graph ends there",
              }.get(kind) or _LOSES.get(kind, "the graph ends there")
    why.text = lead + f": {_q(var)} was made by {_ref(why.cause_text, d.lineno)}, and {reason}."
    for k, d2, v2, _, _ in chain[:-1]:
        why.notes.append(f"Then {_ref(ctx.text(d2), d2.lineno)} makes `{v2}` from it"
                         + (f": {_LOSES[k]}." if _LOSES.get(k) else "."))
    fixes = []
    effect = {"tensor": "the result is built by a differentiable op, so gradient flows back into the elements.",
              "no_grad": "the statement is recorded: gradient flows back through it (and it uses graph memory).",
              "requires_grad": "it becomes a leaf that receives .grad.",
              "grad_result": "the gradient is itself differentiable (a graph of the backward is recorded).",
              }.get(kind, "the value stays a tensor in the graph, so gradient flows back through it.")
    if edit is not None:
        if kind == "no_grad":
            advice = f"move `{why.cause_text}` out of `with {detail}:` (line {edit.line})"
        else:
            advice = " and ".join(f"`{c.after.strip()}` on line {c.line}" for c in edit.changes)
        fixes.append(Fix(f"keep the graph at line {d.lineno}", advice, edit, effect=effect))
    if kind in ("long", "int", "argmax", "round", "cast", "numpy", "from_numpy"):
        fixes.append(Fix("stay in torch", f"compute {_q(var)} with torch operations on floating-point tensors, "
                         "without leaving torch", None, effect="the graph is kept."))
    why.fixes = [f for f in fixes if f is not None]
    return why


def _lost_at(ctx, expr, line, seen, depth=0):
    """Follow names back through their definitions to where requires_grad was lost: a list of
    (kind, statement, variable, detail, Edit or None), outermost first (the last is where it
    was first lost), or []."""
    if depth > 8:
        return []
    names = [n.id for n in ast.walk(expr) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)]
    for name in dict.fromkeys(names):
        v = ctx.scope.get(name)
        if name in seen or (isinstance(v, E.TensorBase) and v.requires_grad) or name in ("torch", "nn", "F") \
                or callable(v) and not isinstance(v, E.TensorBase):
            continue
        seen.add(name)
        d = ctx.definition(name, line)
        if d is None:
            continue
        hit = _loss_in(ctx, d, name)
        value = d.value if isinstance(d, (ast.Assign, ast.AugAssign, ast.AnnAssign)) else None
        connected = value is not None and any(getattr(ctx.scope.get(n.id), "requires_grad", False) is True
                                              for n in ast.walk(value) if isinstance(n, ast.Name))
        deeper = _lost_at(ctx, value, d.lineno, seen, depth + 1) if value is not None and not connected else []
        if hit is not None or deeper:
            return ([hit] if hit is not None else []) + deeper
        if isinstance(v, E.TensorBase) and v.is_leaf and isinstance(value, ast.Call) and not _has_tensor_arg(ctx, value):
            return [("requires_grad", d, name, None, _add_keyword(ctx, d, value, "requires_grad", True))]
    return []


def _has_tensor_arg(ctx, call):
    return any(isinstance(ctx.scope.get(n.id), E.TensorBase) for n in ast.walk(call) if isinstance(n, ast.Name))


def _shown_edit(title, e, effect):
    """A fix whose advice is its edit, "`the new statement` on line N"; None without an edit."""
    return Fix(title, f"`{e.after.strip()}` on line {e.line}", e, effect=effect) if e is not None else None


def _add_keyword(ctx, st, target, kw, value):
    def edit(n):
        if n is target:
            return with_fields(n, keywords=[k for k in n.keywords if k.arg != kw]
                               + [ast.keyword(kw, ast.Constant(value))])
        return n
    return replace_in(ctx, st, edit)


def _loss_in(ctx, d, name):
    """The way statement `d` (which assigns `name`) loses the graph, if it does."""
    for w in enclosing(ctx.tree, d.lineno):
        if isinstance(w, ast.With):
            for item in w.items:
                t = ast.unparse(item.context_expr)
                if "no_grad" in t or "inference_mode" in t:
                    unwrap = replace_in(ctx, w, None, wrap=lambda stmts, w=w: list(w.body))
                    return "no_grad", d, name, t, unwrap
    value = getattr(d, "value", None)
    if value is None:
        return None
    for n in ast.walk(value):
        if not isinstance(n, ast.Call):
            if isinstance(n, ast.Attribute) and n.attr == "data":
                return "data", d, name, None, replace_in(ctx, d, lambda m, n=n: m.value if m is n else m)
            continue
        f = n.func
        attr = getattr(f, "attr", None)
        if attr in ("item", "tolist", "detach", "numpy") and not n.args:
            return attr, d, name, None, (replace_in(ctx, d, lambda m, n=n: m.func.value if m is n else m)
                                         if attr in ("item", "detach") else None)
        if attr in ("long", "int", "argmax", "round"):
            return attr, d, name, None, None
        if isinstance(f, ast.Name) and f.id in _CASTS and n.args and _has_tensor_arg(ctx, n):
            return "cast", d, name, f.id, replace_in(ctx, d, lambda m, n=n: m.args[0] if m is n else m)
        if attr in ("tensor", "as_tensor") and len(n.args) == 1 and not isinstance(n.args[0], (ast.List, ast.Tuple)) \
                and any(isinstance(m, ast.Name) for m in ast.walk(n.args[0])):
            return "tensor", d, name, None, replace_in(ctx, d, lambda m, n=n: m.args[0] if m is n else m)
        if attr in ("tensor", "as_tensor", "Tensor", "FloatTensor") and n.args \
                and isinstance(n.args[0], (ast.List, ast.Tuple)) \
                and _has_tensor_arg(ctx, n.args[0]):
            def stack(m, n=n):
                if m is n:
                    return ast.Call(ast.Attribute(f.value, "stack", ast.Load()), [m.args[0]],
                                    [k for k in m.keywords if k.arg == "dtype"])
                return m
            return "tensor", d, name, None, replace_in(ctx, d, stack)
        if attr == "grad" and not any(k.arg == "create_graph" for k in n.keywords) and \
                ast.unparse(f).endswith("autograd.grad"):
            return "grad_result", d, name, None, _add_keyword(ctx, d, n, "create_graph", True)
    return None


def _grad_unused(ctx):
    st, info = ctx.stmt, ctx.info
    m = re.search(r"index (\d+)", str(ctx.exc))
    index = int(m.group(1)) if m else 0
    calls = call_named(st, "grad")
    call = calls[0] if calls else None
    inputs = _grad_inputs(call)
    name = ast.unparse(inputs[index]) if inputs and index < len(inputs) else None
    why = Why("grad_unused", "", line=info.line, expression=info.text, variable=name)
    outs = ast.unparse(call.args[0]) if call is not None and call.args else "the outputs"
    why.text = (f"{_q(info.text)} asks for the gradient of `{outs}` with respect to "
                f"{_q(name) if name else 'an input'} (input {index}), but `{outs}` was not computed from it: no "
                "path in the graph leads there, so its gradient would be None.")
    fixes = []
    if call is not None:
        e = _add_keyword(ctx, st, call, "allow_unused", True)
        fixes.append(_shown_edit("allow unused inputs", e,
                                 f"the gradient for {_q(name) if name else 'that input'} comes back as None."))
        if inputs and len(inputs) > 1 and len(call.args) > 1 and isinstance(call.args[1], (ast.List, ast.Tuple)):
            lst = call.args[1]

            def drop(n):
                if n is lst:
                    return with_fields(n, elts=[x for i, x in enumerate(n.elts) if i != index])
                return n
            e = replace_in(ctx, st, drop)
            if e is not None and not isinstance(st, ast.Assign):
                fixes.append(Fix("leave it out", f"`{e.after.strip()}` on line {e.line}", e,
                                 effect="one gradient fewer comes back."))
    why.fixes = [f for f in fixes if f is not None]
    return why


def _grad_inputs(call):
    if call is None:
        return []
    arg = call.args[1] if len(call.args) > 1 else next((k.value for k in call.keywords if k.arg == "inputs"), None)
    if arg is None:
        return []
    return list(arg.elts) if isinstance(arg, (ast.List, ast.Tuple)) else [arg]


def _grad_input_no_grad(ctx):
    st, info = ctx.stmt, ctx.info
    calls = call_named(st, "grad")
    call = calls[0] if calls else None
    bad = next((e for e in _grad_inputs(call) if isinstance(ctx.value(e), E.TensorBase) and not ctx.value(e).requires_grad),
               None)
    name = ast.unparse(bad) if bad is not None else None
    why = Why("grad_input_no_grad", "", line=info.line, expression=info.text, variable=name)
    why.text = (f"{_q(info.text)} asks for the gradient with respect to {_q(name) if name else 'an input'}, which "
                "does not require grad: autograd never tracks it, so it has no gradient to give.")
    fixes = []
    if isinstance(bad, ast.Name):
        d = ctx.definition(bad.id, info.line)
        v = getattr(d, "value", None)
        if isinstance(v, ast.Call) and getattr(v.func, "attr", None) in ("tensor", "ones", "zeros", "randn", "rand",
                                                                            "full", "arange", "linspace", "empty"):
            e = _add_keyword(ctx, d, v, "requires_grad", True)
            fixes.append(_shown_edit("create it requiring grad", e, f"`{bad.id}` is tracked from its creation on."))
        if d is not None:
            stmt = ast.parse(f"{bad.id}.requires_grad_()").body[0]
            e = replace_in(ctx, d, None, wrap=lambda stmts: stmts + [stmt])
            if e is not None:
                fixes.append(Fix("require grad after creating it", f"add `{bad.id}.requires_grad_()` after line "
                                 f"{d.lineno}", e, effect=f"`{bad.id}` is tracked from then on (only a leaf can be "
                                                          "switched)."))
    why.fixes = [f for f in fixes if f is not None]
    return why


def _numpy(ctx):
    st, info = ctx.stmt, ctx.info
    calls = method_calls(st, "numpy")
    why = Why("numpy_requires_grad", "", line=info.line, expression=info.text,
              variable=ast.unparse(calls[0].func.value) if calls else None)
    why.text = (f"{_q(info.text)} turns {_q(why.variable) if why.variable else 'a tensor'}, which requires grad, "
                "into a NumPy array: the array cannot carry the graph, and PyTorch refuses to drop it silently.")
    fixes = []
    if calls:
        c = calls[0]

        def edit(n):
            if n is c:
                return with_fields(n, func=ast.Attribute(ast.Call(ast.Attribute(n.func.value, "detach", ast.Load()),
                                                                  [], []), "numpy", ast.Load()))
            return n
        e = replace_in(ctx, st, edit)
        fixes.append(_shown_edit("detach first", e, "the array holds the values; no gradient flows through it."))
    why.fixes = [f for f in fixes if f is not None]
    return why


def _integer(ctx):
    st, info = ctx.stmt, ctx.info
    why = Why("integer_requires_grad", "", line=info.line, expression=info.text,
              variable=getattr(_assigned(st), "id", None))
    why.text = (f"{_q(info.text)} asks an integer (or bool) tensor to require grad: gradients are defined only "
                "for floating-point and complex values.")
    fixes = []
    calls = [c for c in ast.walk(st) if isinstance(c, ast.Call) and any(k.arg == "requires_grad" for k in c.keywords)] \
        if st is not None else []
    e = replace_in(ctx, st, lambda n: _set_dtype(n, calls[0])) if calls else None
    fixes.append(_shown_edit("make it floating point", e, "the values become float32."))
    why.fixes = [f for f in fixes if f is not None]
    return why


def _set_dtype(n, target):
    if n is target:
        return with_fields(n, keywords=[k for k in n.keywords if k.arg != "dtype"] + [
            ast.keyword("dtype", ast.parse("torch.float32", mode="eval").body)])
    return n


def _assigned(st):
    if isinstance(st, ast.Assign) and isinstance(st.targets[0], ast.Name):
        return st.targets[0]
    return None


def _grad_none(ctx):
    st, info = ctx.stmt, ctx.info
    attrs = [n for n in ast.walk(st) if isinstance(n, ast.Attribute) and n.attr == "grad"] if st is not None else []
    if not attrs:
        return None
    owner = ast.unparse(attrs[0].value)
    why = Why("grad_is_none", "", line=info.line, expression=info.text, variable=owner)
    why.text = (f"`{owner}.grad` is None: no backward has reached `{owner}` yet (.grad is created by the first "
                "backward that reaches a leaf), so there is nothing to change.")
    test = ast.parse(f"{owner}.grad is not None", mode="eval").body
    guard = replace_in(ctx, st, None, wrap=lambda stmts: [ast.If(test, stmts, [])])
    why.fixes = [Fix("skip it while .grad is None", f"run {_q(info.text)} only `if {owner}.grad is not None:`", guard,
                     effect="the first iteration has nothing to reset; later ones do.")] if guard else []
    return why


def _grad_shape(ctx):
    st, info = ctx.stmt, ctx.info
    expr, call = _root_expr(st)
    name = ast.unparse(expr) if expr is not None else None
    m = re.search(r"grad_output\[(\d+)\] has a shape of torch.Size\((\[.*?\])\) and output\[\d+\] has a shape of "
                  r"torch.Size\((\[.*?\])\)", str(ctx.exc))
    given, wanted = (m.group(2), m.group(3)) if m else (None, None)
    why = Why("grad_shape", "", line=info.line, expression=info.text, variable=name, cause=given)
    why.text = (f"{_q(info.text)} gives a gradient of shape {given} for `{name}`, of shape {wanted}: the gradient "
                "passed to backward is the weight of each element of the output, so it must have the output's shape.")
    grad = None
    if call is not None and isinstance(call.func, ast.Attribute) and call.func.attr == "backward":
        grad = call.args[0] if call.args else next((k.value for k in call.keywords if k.arg == "gradient"), None)
    elif call is not None:
        grad = call.args[2] if len(call.args) > 2 else next((k.value for k in call.keywords if k.arg == "grad_outputs"),
                                                           None)
    fixes = []
    if grad is not None and expr is not None:
        ones = ast.parse(f"torch.ones_like({name})", mode="eval").body
        e = replace_in(ctx, st, lambda n: ones if n is grad else n)
        fixes.append(_shown_edit("a gradient of the output's shape", e,
                                 "weights every element by 1 (the gradient of the sum); keep your own weights by "
                                 f"giving them the shape {wanted}."))
    why.fixes = [f for f in fixes if f is not None]
    return why


_BY_MESSAGE = [
    ("a leaf Variable that requires grad is being used in an in-place operation", lambda c: _leaf_inplace(c)),
    ("a view of a leaf Variable that requires grad is being used in an in-place operation",
     lambda c: _leaf_inplace(c, view=True)),
    ("grad can be implicitly created only for scalar outputs", _nonscalar),
    ("element 0 of tensors does not require grad and does not have a grad_fn", _no_grad_fn),
    ("The differentiated Tensor at index", _grad_unused),
    ("One of the differentiated Tensors does not require grad", _grad_input_no_grad),
    ("Can't call numpy() on Tensor that requires grad", _numpy),
    ("Only Tensors of floating point and complex dtype can require gradients", _integer),
    ("'NoneType' object has no attribute", _grad_none),
    ("Mismatch in shape: grad_output[", _grad_shape),
]

# ----------------------------------------------------------------------------- one text for every view


def lines(why):
    """The Why and its shown fixes as (kind, text) lines: kind is "why", "note", "fix", "result"
    (what the tried fix gave), "advice" (untried) or "rejected" (the fixes that did not remove the
    error when tried). Every view lays these out; none words them again."""
    out = [("why", why.text)]
    out += [("note", n) for n in why.notes]
    shown = [f for f in why.fixes if f.shown]
    tried = [f for f in shown if f.tried]
    for i, f in enumerate(tried, 1):
        out.append(("fix", f"{i}. {f.advice}: {f.effect}" if f.effect else f"{i}. {f.advice}."))
        result = "tried: " + f.outcome
        differs = sorted(f.differs, key=lambda k: k not in why.leaves)
        grads = [f"{k}.grad = {_one_line(f.grads[k])}" for k in differs[:3]]
        if grads:
            result += "; " + ", ".join(grads) + (f" (and {len(f.differs) - 3} more)" if len(f.differs) > 3 else "")
        if f.oracle:
            result += f"; {f.oracle}"
        out.append(("result", result))
    for f in shown:
        if not f.tried:
            out.append(("advice", f"untried: {f.advice}" + (f": {f.effect}" if f.effect else ".")))
    failed = [f for f in why.fixes if f.tried and not f.works]
    if failed:
        out.append(("rejected", "Tried and not shown (the error stayed, or another came): "
                                + ", ".join(f"`{f.edit.after.strip().splitlines()[0]}` (line {f.edit.line})"
                                            for f in failed) + "."))
    return out


def _one_line(text, limit=60):
    text = "None" if text is None else " ".join(text.split())
    return text if len(text) <= limit else text[:limit - 1] + "…"


def text_lines(why):
    """The same lines as plain text, labelled (for `gradcli test` failures and other plain output)."""
    label = {"why": "Why: ", "note": "  ", "fix": "Fix ", "result": "    ", "advice": "Advice, ", "rejected": "  "}
    return [label[k] + t for k, t in lines(why)]

# ----------------------------------------------------------------------------- silent surprises

NONLEAF_WARNING = "The .grad attribute of a Tensor that is not a leaf Tensor is being accessed"


def shown_line(why):
    """The line a surprise is shown at: where it happens (the read, the change, the backward)."""
    return why.by_line if why.family in ("nonleaf_grad", "data_inplace", "shared_grad") else why.line


def surprises(report):
    """What ran without an error but is not what it seems: a Why for each (tried fixes, once)."""
    if report.noted is None:
        try:
            report.noted = _surprises(report)
        except Exception:       # a surprise gradcli cannot explain is left out, never an internal error
            report.noted = []
        from .fixes import try_fixes
        for why in report.noted:
            if report.trial is not None:
                try_fixes(why, report.trial, goal=lambda r, w=why: not any(
                    (s.family, s.variable) == (w.family, w.variable) for s in _surprises(r)))
    return report.noted


def _surprises(report):
    sm = O.source_map(report.filename)
    if sm is None or report.parse_failed:
        return []
    view = _View(sm)
    out = [w for item in report.items if isinstance(item, Warned) and item.message.startswith(NONLEAF_WARNING)
           for w in [_nonleaf_grad(view, report, item.line)] if w is not None]
    return out + _accumulated(view, report) + _data_changes(view, report) + _shared_grads(view, report)


class _View:
    """What a surprise reads after the run: the script's tree and its statements' text."""

    def __init__(self, sm):
        self.sm, self.tree = sm, sm.tree

    def text(self, st):
        return self.sm.text(st) if st is not None else None

    definition = _Ctx.definition
    loops_around = _Ctx.loops_around


def _nonleaf_grad(view, report, line):
    st = statement_at(view.tree, line)
    attrs = [n for n in ast.walk(st) if isinstance(n, ast.Attribute) and n.attr == "grad"
             and isinstance(n.value, ast.Name)] if st is not None else []
    if not attrs:
        return None
    name = attrs[0].value.id
    d = view.definition(name, line)
    t = report.tensors_at_end().get(name) if report.tensors_at_end is not None else None
    node = t.grad_fn.name() if t is not None and t.grad_fn is not None else None
    why = Why("nonleaf_grad", "", node=node, line=getattr(d, "lineno", None), expression=view.text(d), variable=name,
              by_line=line, by_text=view.text(st))
    why.text = (f"`{name}.grad` is None on line {line}: `{name}` is not a leaf"
                + (f" — {_ref(why.expression, why.line)} made it" + (f" ({node})" if node else "") if d else "")
                + " — and backward stores .grad only in leaves (tensors made with requires_grad=True, not computed "
                  f"from others). The gradient passed through `{name}` on its way to the leaves.")
    fixes = []
    if d is not None:
        stmt = ast.parse(f"{name}.retain_grad()").body[0]
        e = replace_in(view, d, None, wrap=lambda stmts: stmts + [stmt])
        fixes.append(Fix("keep the gradient of the non-leaf", f"add `{name}.retain_grad()` after line {d.lineno}", e,
                         effect=f"`{name}.grad` holds its gradient after each backward (one more tensor per "
                                "backward)."))
    why.fixes = [f for f in fixes if f is not None]
    return why


def _accumulated(view, report):
    """Leaves whose .grad a loop's backward kept adding to while the same loop stepped with it."""
    last, runs = {}, {}                     # leaf -> its last .grad; (line, leaf) -> calls that added to it
    for ev in report.events:
        for u in ev.updates:
            before = u._before
            prev = last.get(u.name)
            if before is not None and prev is not None and before.shape == prev.shape and (before == prev).all() \
                    and before.any():
                runs.setdefault((ev.line, ev.text), []).append(u.name)
            last[u.name] = u._after
    out = []
    for (line, text), names in runs.items():
        loops = view.loops_around(line) if line else []
        steps = [c for c in method_calls(loops[-1], "step")] if loops else []
        manual = [n for n in ast.walk(loops[-1]) if isinstance(n, ast.AugAssign)
                  and any(isinstance(a, ast.Attribute) and a.attr == "grad" for a in ast.walk(n.value))] \
            if loops else []
        if not (steps or manual):
            continue                        # adding up on purpose (micro-batches): nothing steps in between
        leaves = sorted(_stepped_leaves(report, set(names), steps, manual))
        if not leaves:
            continue                        # the step never reads these gradients
        calls = len(names) // len(leaves) + 1
        loop = loops[-1]
        stepper = steps[0] if steps else manual[0]
        why = Why("accumulated", "", line=line, expression=text, variable=leaves[0], by_line=stepper.lineno,
                  by_text=view.text(statement_at(view.tree, stepper.lineno)), loop_line=loop.lineno, leaves=leaves)
        why.text = (f"{_names_of(['.'.join([n, 'grad']) for n in leaves])} summed the gradients of {calls} calls of "
                    f"`{text}` (line {line}) in the loop on line {loop.lineno}: nothing set them to zero or None in "
                    f"between, while the loop steps with them ({_ref(why.by_text, why.by_line)}). Each step uses the "
                    "sum of every gradient so far, not this iteration's.")
        why.fixes = _zero_grad_fixes(view, statement_at(view.tree, line), steps, leaves)
        out.append(why)
    return out


def _stepped_leaves(report, names, steps, manual):
    """Those of the leaves `names` that the loop steps with: the ones its optimizers hold, or
    whose .grad a manual update reads."""
    held = set()
    for n in manual:
        held |= {ast.unparse(a.value) for a in ast.walk(n.value) if isinstance(a, ast.Attribute) and a.attr == "grad"}
    scope = report.names_at_end() if report.names_at_end is not None else {}
    optimizer = sys.modules.get("gradcli.torch.optim.optimizer")
    opts = [scope.get(c.func.value.id) for c in steps if isinstance(c.func.value, ast.Name)]
    opts = [o for o in opts if optimizer is not None and isinstance(o, optimizer.Optimizer)]
    if steps and not opts:                  # a step gradcli cannot see into: every leaf may be stepped
        return names
    ids = set().union(*(_param_ids(o) for o in opts))
    return {n for n in names if n in held or id(_named(scope, n)) in ids}


def _named(scope, name):
    """The object a dotted name (`model.0.weight`) stands for in the script's names, or None."""
    first, *rest = name.split(".")
    obj = scope.get(first)
    for part in rest:
        obj = getattr(obj, part, None)
    return obj


def _zero_grad_fixes(view, backward, steps, leaves):
    if backward is None:
        return []
    if steps and isinstance(steps[0].func.value, ast.Name):
        owner = steps[0].func.value.id
    else:
        owner = leaves[0].split(".")[0] if "." in leaves[0] else None
    call = f"{owner}.zero_grad()" if owner else "; ".join(f"{n}.grad = None" for n in leaves)
    new = ast.parse(call).body
    e = replace_in(view, backward, None, wrap=lambda stmts: new + stmts)
    return [Fix("zero the gradients each iteration",
                f"`{call}` before `{view.text(backward)}` (line {backward.lineno})",
                e, effect="each step uses this iteration's gradient only; if summing over iterations was meant "
                          "(accumulating micro-batches), keep the script and step only every few iterations.")]


def _data_target(st):
    """`x` of `x.data.mul_(2)`, `x.data *= 2`, `x.data[0] = 1`: a change through .data."""
    t = _changed(st)
    if isinstance(t, ast.Attribute) and t.attr == "data" and isinstance(t.value, ast.Name):
        return t.value.id
    return None


def _data_changes(view, report):
    """A tensor changed in place through `.data` after a node saved it, and a backward then ran that
    node: `.data` has its own version counter, so PyTorch raises nothing and the gradient is
    computed from the changed value."""
    out = []
    for st in ast.walk(view.tree):
        name = _data_target(st) if isinstance(st, ast.stmt) else None
        if name is None:
            continue
        users = [n for ev in report.events for n in ev.executed if n.saved and n.origin is not None
                 and n.origin.stmt is not None and n.origin.line < st.lineno
                 and any(isinstance(m, ast.Name) and m.id == name for m in ast.walk(n.origin.stmt))]
        later = [ev for ev in report.events if ev.line and ev.line > st.lineno]
        if not users or not later:
            continue
        node = users[0]
        why = Why("data_inplace", "", node=node.grad_fn, line=node.line, expression=node.text, variable=name,
                  saved=list(node.saved), by_line=st.lineno, by_text=view.text(st))
        why.text = (f"{_ref(why.by_text, st.lineno)} changes `{name}` in place through `.data`, after "
                    f"{node.grad_fn} ({_ref(node.text, node.line)}) saved it, and {_ref(later[0].text, later[0].line)} "
                    f"then ran that node. `.data` shares the storage but not the version counter, so no error is "
                    f"raised: the gradient is computed from the changed value, silently.")
        why.fixes = [Fix("change it where autograd sees it", f"make the change after the backward, or write "
                         f"`with torch.no_grad(): {ast.unparse(st).replace('.data', '', 1)}` so that the version "
                         "counter moves and a conflict raises", None,
                         effect="a backward that needs the old value fails loudly instead of giving a wrong gradient.")]
        out.append(why)
    return out


def _shared_grads(view, report):
    """Two leaves whose .grad are one memory (AccumulateGrad kept a view of one gradient for each),
    and a later backward that added to one of them, and so to the other."""
    import numpy as np
    scope = report.tensors_at_end() if report.tensors_at_end is not None else {}
    leaves = {k: v for k, v in scope.items() if v.is_leaf and v.grad is not None}
    out, seen = [], set()
    for a, ta in leaves.items():
        for b, tb in leaves.items():
            if a >= b or not np.shares_memory(ta.grad._data, tb.grad._data):
                continue
            made = next((ev for ev in report.events if {a, b} <= {u.name for u in ev.updates}
                         and all(u._before is None for u in ev.updates if u.name in (a, b))), None)
            moved = next((ev for ev in report.events[report.events.index(made) + 1:] if made is not None
                          and len({a, b} & {u.name for u in ev.updates}) == 1), None)
            if made is None or moved is None or (a, b) in seen:
                continue
            seen.add((a, b))
            added = next(u.name for u in moved.updates if u.name in (a, b))
            other = b if added == a else a
            why = Why("shared_grad", "", line=made.line, expression=made.text, variable=other, leaves=[a, b],
                      by_line=moved.line, by_text=moved.text)
            why.text = (f"`{a}.grad` and `{b}.grad` are one memory: {_ref(made.text, made.line)} gave both leaves "
                        "views of one gradient, and AccumulateGrad keeps such a gradient as the leaf's .grad "
                        f"without copying it. {_ref(moved.text, moved.line)} then added to `{added}.grad` in place, "
                        f"so `{other}.grad` changed too, although no gradient reached `{other}`.")
            st = statement_at(view.tree, made.line)
            stmt = ast.parse(f"{other}.grad = {other}.grad.clone()").body[0]
            e = replace_in(view, st, None, wrap=lambda stmts, stmt=stmt: stmts + [stmt]) if st is not None else None
            why.fixes = [Fix("give it its own memory", f"add `{ast.unparse(stmt)}` after line {made.line}", e,
                             effect=f"`{other}.grad` keeps the gradient it got; a later accumulation into "
                                    f"`{added}.grad` leaves it alone.")]
            out.append(why)
    return out
