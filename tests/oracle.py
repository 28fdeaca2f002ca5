"""Differential oracle: run a PyTorch-dialect script under REAL torch and under gradcli,
reduce both runs to the same plain facts, and compare them.

    run_torch(source)   -> facts from real PyTorch (executed in-process)
    run_gradcli(source) -> the same facts from gradcli.session.executor.run_source
    assert_same(source) -> raises AssertionError with the script and a readable diff

Facts (a plain dict, identical layout on both sides):

    stdout    what the script printed (compared exactly)
    error     None or {"type", "message", "line"}: the exception that escaped the script;
              line = the start line of the innermost *script* statement that raised
    warnings  [(line, message)] in the order they were shown (Python's default filter:
              once per source location)
    tensors   {name: {"shape", "dtype", "requires_grad", "is_leaf", "grad_fn", "value", "grad"}}
              for every global name bound to a tensor when the script ended
    events    one entry per backward()/autograd.backward()/autograd.grad() call that reached
              the autograd engine:
              {"kind": "backward"|"grad", "line", "retain_graph",
               "ran":     [(grad_fn, line)]            function nodes in the order they ran
                                                       (AccumulateGrad / GraphRoot excluded),
               "freed":   [(grad_fn, line, (slots))]   nodes whose saved tensors the call freed,
                                                       in the order they ran,
               "updated": [leaf name or None]          leaves whose .grad the call accumulated
                                                       into, in order (name = first global
                                                       bound to that leaf)}

How the torch side learns these facts (and why it is robust):

* Node creation lines.  A sys.settrace tracer runs while the script executes.  At every
  trace event in a script frame ('call', 'line', 'return') it scans every tensor reachable
  from the script's globals, the locals of every script frame on the stack (one container
  level deep) and the value being returned, walks grad_fn/next_functions, and attributes
  every node it has never seen to the statement that was executing in that frame just
  before the event.  A node's next_functions are fixed when it is created, so the walk
  stops at known nodes.  Nodes that are only reachable from a backward call's own roots
  (`(x*2).sum().backward()`) are attributed when the call wrapper scans its roots: they
  were made by the statement that makes the call.  Line numbers are mapped to the start
  line of their statement with the `ast` module (what gradcli reports for a statement).
  The oracle keeps a strong reference to every node it has seen, so a node's Python
  wrapper (and its identity) stays the same for the whole run.
* Freed nodes.  torch.Tensor.backward, torch.autograd.backward and torch.autograd.grad are
  wrapped for the duration of the run (the outermost call records; nested calls pass
  through).  Before the real call, every known node's tensor slots are read: a slot is a
  `_saved_<name>` attribute that has a `_raw_saved_<name>` twin (exactly
  the tensor slots), and it "holds a tensor" when reading it returns a Tensor.  Reading
  `_saved_*` has no autograd side effect.  After the call (also when it raised) the same
  slots are read again; the ones that now raise the "backward through the graph a second
  time" error were freed by this call.
* Execution order.  A Node pre-hook (node.register_prehook) that only appends the node to a
  list is put on every known function node for the duration of the call and removed
  afterwards; pre-hooks run right before the node's backward (before its saved tensors are
  unpacked, so a node failing with "second time" is included, as in gradcli).  Leaf updates
  are recorded with Tensor.register_post_accumulate_grad_hook on the leaves, also removed
  after the call.  `instrument=False` turns all of this off; the test-suite checks on the
  corpus that the instrumentation does not change what the script prints or leaves behind.
* Which calls are events.  Whether a call that did nothing "reached the engine" is not
  observable in torch (argument errors such as a non-scalar root, a gradient of the wrong
  shape, a root or input that does not require grad are raised in Python or at the start
  of the C++ engine), so on BOTH sides an event is kept when the call ran at least one
  function node, freed something or updated a leaf.  Calls that did none of these are
  still checked through the error, stdout and end state.
"""
from __future__ import annotations

import ast
import contextlib
import difflib
import inspect
import io
import itertools
import json
import math
import pprint
import sys
import traceback
import warnings

import numpy as np
import torch

SECOND_BACKWARD = "Trying to backward through the graph a second time"

_counter = itertools.count()

# ----------------------------------------------------------------------------- helpers


def statement_lines(source):
    """Map every source line to the start line of the innermost statement covering it."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return {}
    spans = []
    for node in ast.walk(tree):
        if isinstance(node, ast.stmt) or isinstance(node, ast.ExceptHandler):
            body = getattr(node, "body", None)
            if isinstance(body, list) and body and isinstance(body[0], ast.stmt):
                end = max(node.lineno, body[0].lineno - 1)      # header lines only
            else:
                end = node.end_lineno or node.lineno
            spans.append((node.lineno, end))
    mapping = {}
    # outer (longer) spans first, inner ones overwrite
    for start, end in sorted(spans, key=lambda s: -(s[1] - s[0])):
        for ln in range(start, end + 1):
            mapping[ln] = start
    # else:/finally: lines and the like map to themselves
    return mapping


def _dtype_name(dtype):
    return str(dtype).replace("torch.", "")


def _plain(t):
    """A tensor's values as a nested list (0-d: a Python scalar)."""
    return t.detach().cpu().tolist()


def _iter_tensors(values, depth=1):
    for v in values:
        if isinstance(v, torch.Tensor):
            yield v
        elif depth > 0 and isinstance(v, (list, tuple)):
            yield from _iter_tensors(v, depth - 1)
        elif depth > 0 and isinstance(v, dict):
            yield from _iter_tensors(list(v.values()), depth - 1)


_SLOTS_CACHE = {}


def tensor_slots(node):
    """Names (without `_saved_`) of a node's tensor slots: `_saved_X` with a `_raw_saved_X` twin."""
    cls = type(node)
    slots = _SLOTS_CACHE.get(cls)
    if slots is None:
        names = set(dir(node))
        slots = tuple(sorted(n[len("_saved_"):] for n in names
                             if n.startswith("_saved_") and "_raw_saved_" + n[len("_saved_"):] in names))
        _SLOTS_CACHE[cls] = slots
    return slots


def _slot_state(node, slot):
    """'T' (holds a tensor), 'none' (holds nothing), 'freed' (raises "backward through the graph a
    second time"), 'error' (other error)."""
    try:
        v = getattr(node, "_saved_" + slot)
    except RuntimeError as e:
        return "freed" if str(e).startswith(SECOND_BACKWARD) else "error"
    if isinstance(v, torch.Tensor):
        return "T"
    if isinstance(v, (tuple, list)) and any(isinstance(x, torch.Tensor) for x in v):
        return "T"
    return "none"


def _is_acc(node):
    return type(node).__name__ == "AccumulateGrad"


# ----------------------------------------------------------------------------- the torch run


class _TorchRun:
    def __init__(self, source, filename, instrument):
        self.source = source
        self.filename = filename
        self.instrument = instrument
        self.stmt = statement_lines(source)
        self.globals = {"__name__": "__main__", "__builtins__": __builtins__}
        self.node_line = {}          # node -> creation line (strong refs: stable identity)
        self.cur = {}                # script frame -> statement line it is executing
        self.events = []
        self.warnings = []
        self.depth = 0

    # -- lines -------------------------------------------------------------------------
    def stmt_line(self, lineno):
        return self.stmt.get(lineno, lineno)

    def _script_frames(self):
        f = sys._getframe(1)
        out = []
        while f is not None:
            if f.f_code.co_filename == self.filename:
                out.append(f)
            f = f.f_back
        return out

    def _attr_line(self, frame):
        """The statement executing in `frame` (or, if it has not started one, in its callers)."""
        while frame is not None:
            if frame.f_code.co_filename == self.filename:
                ln = self.cur.get(frame)
                if ln is not None:
                    return ln
            frame = frame.f_back
        return None

    def current_line(self):
        for f in self._script_frames():
            return self.stmt_line(f.f_lineno)
        return None

    # -- node discovery ------------------------------------------------------------------
    def scan(self, line, extra=()):
        roots = list(_iter_tensors(list(self.globals.values())))
        for f in self._script_frames():
            if f.f_globals is not f.f_locals:
                roots.extend(_iter_tensors(list(f.f_locals.values())))
        roots.extend(_iter_tensors(list(extra)))
        stack = []
        for t in roots:
            fn = t.grad_fn
            if fn is not None and fn not in self.node_line:
                stack.append(fn)
        while stack:
            fn = stack.pop()
            if fn in self.node_line:
                continue
            self.node_line[fn] = None if _is_acc(fn) else line
            for nxt, _ in fn.next_functions:
                if nxt is not None and nxt not in self.node_line:
                    stack.append(nxt)

    # -- tracer ----------------------------------------------------------------------------
    def global_trace(self, frame, event, arg):
        if frame.f_code.co_filename != self.filename:
            return None
        # a script frame starts: whatever the caller's statement made so far belongs to it
        self.scan(self._attr_line(frame.f_back))
        return self.local_trace

    def local_trace(self, frame, event, arg):
        if event == "line":
            self.scan(self._attr_line(frame))
            self.cur[frame] = self.stmt_line(frame.f_lineno)
        elif event == "return":
            self.scan(self._attr_line(frame), (arg,))
            self.cur.pop(frame, None)
        return self.local_trace

    # -- warnings --------------------------------------------------------------------------
    def showwarning(self, message, category, filename, lineno, file=None, line=None):
        if filename == self.filename:
            ln = self.stmt_line(lineno)
        else:
            ln = self.current_line()
        self.warnings.append((ln, str(message)))

    # -- call wrappers -----------------------------------------------------------------------
    def wrap(self, orig, kind, roots_of):
        sig = inspect.signature(orig)
        run = self

        def wrapper(*args, **kwargs):
            if run.depth:
                return orig(*args, **kwargs)
            try:
                bound = sig.bind(*args, **kwargs)
            except TypeError:
                return orig(*args, **kwargs)
            bound.apply_defaults()
            a = bound.arguments
            run.depth += 1
            try:
                return run.call(orig, args, kwargs, kind, a, roots_of(a))
            finally:
                run.depth -= 1

        wrapper.__wrapped__ = orig
        wrapper.__name__ = orig.__name__
        return wrapper

    def call(self, orig, args, kwargs, kind, a, roots):
        line = self.current_line()
        retain = a.get("retain_graph")
        if retain is None:
            retain = bool(a.get("create_graph"))
        extra = list(roots)
        inputs = a.get("inputs")
        if inputs is not None:
            extra.extend(_iter_tensors([inputs], 2))
        self.scan(line, extra)
        nodes = [n for n in self.node_line if not _is_acc(n)]
        before = {}
        for n in nodes:
            held = [s for s in tensor_slots(n) if _slot_state(n, s) == "T"]
            if held:
                before[n] = held
        ran, updated, handles = [], [], []
        for n in nodes:
            try:
                handles.append(n.register_prehook(lambda grads, n=n: ran.append(n)))
            except Exception:
                pass
        leaves = {}
        candidates = [n.variable for n in self.node_line if _is_acc(n)]
        candidates += extra + list(_iter_tensors(list(self.globals.values())))
        for leaf in candidates:
            if leaf is not None and leaf.requires_grad and leaf.is_leaf:
                leaves.setdefault(id(leaf), leaf)
        for leaf in leaves.values():
            handles.append(leaf.register_post_accumulate_grad_hook(lambda t: updated.append(t)))
        raised = None
        try:
            result = orig(*args, **kwargs)
        except BaseException as e:
            raised = e
        finally:
            for h in handles:
                h.remove()
        freed = {}
        for n, held in before.items():
            slots = [s for s in held if _slot_state(n, s) == "freed"]
            if slots:
                freed[n] = tuple(sorted(slots))
        if ran or freed or updated:
            # names as a user sees them at the call: the running functions' locals, innermost first
            by_tensor = {}
            scopes = [f.f_locals for f in self._script_frames() if f.f_locals is not self.globals]
            for scope in scopes + [self.globals]:
                for name, v in list(scope.items()):
                    if isinstance(v, torch.Tensor) and not name.startswith("_"):
                        by_tensor.setdefault(id(v), name)
            order = {n: i for i, n in enumerate(ran)}
            freed_nodes = sorted(freed, key=lambda n: order.get(n, len(order)))
            self.events.append({
                "kind": kind, "line": line, "retain_graph": bool(retain),
                "ran": [(n.name(), self.node_line.get(n)) for n in ran],
                "freed": [(n.name(), self.node_line.get(n), freed[n]) for n in freed_nodes],
                "updated": [by_tensor.get(id(t)) for t in updated],
                # node identities (stable: the oracle keeps every node alive); not compared
                "ran_ids": [id(n) for n in ran],
                "freed_ids": [id(n) for n in freed_nodes],
            })
        if raised is not None:
            raise raised
        return result

    # -- run ------------------------------------------------------------------------------------
    def run(self):
        out = io.StringIO()
        error = None
        patches = []
        if self.instrument:
            patches = [
                (torch.Tensor, "backward", self.wrap(torch.Tensor.backward, "backward", lambda a: [a["self"]])),
                (torch.autograd, "backward", self.wrap(torch.autograd.backward, "backward",
                                                       lambda a: list(_iter_tensors([a["tensors"]], 2)))),
                (torch.autograd, "grad", self.wrap(torch.autograd.grad, "grad",
                                                   lambda a: list(_iter_tensors([a["outputs"]], 2)))),
            ]
        saved = [(obj, name, obj.__dict__[name] if name in obj.__dict__ else getattr(obj, name))
                 for obj, name, _ in patches]
        old_trace = sys.gettrace()
        try:
            code = compile(self.source, self.filename, "exec")
        except SyntaxError as e:
            return {"stdout": "", "error": {"type": "SyntaxError", "message": e.msg, "line": e.lineno},
                    "warnings": [], "tensors": {}, "events": []}
        prev_grad = torch.is_grad_enabled()
        try:
            for obj, name, new in patches:
                setattr(obj, name, new)
            with warnings.catch_warnings():
                warnings.resetwarnings()
                warnings.simplefilter("default")
                warnings.showwarning = self.showwarning
                with contextlib.redirect_stdout(out):
                    if self.instrument:
                        sys.settrace(self.global_trace)
                    try:
                        exec(code, self.globals)
                    except Exception as e:
                        error = self._error(e)
                    finally:
                        sys.settrace(old_trace)
        finally:
            for obj, name, orig in saved:
                setattr(obj, name, orig)
            torch.set_grad_enabled(prev_grad)
        self.cur.clear()
        return {"stdout": out.getvalue(), "error": error, "warnings": self.warnings,
                "tensors": self._tensors(), "events": self.events}

    def _error(self, e):
        line = None
        tb = e.__traceback__
        while tb is not None:
            if tb.tb_frame.f_code.co_filename == self.filename:
                line = self.stmt_line(tb.tb_lineno)
            tb = tb.tb_next
        return {"type": printed_type(e), "message": str(e), "line": line}

    def _tensors(self):
        out = {}
        for name, v in self.globals.items():
            if isinstance(v, torch.Tensor):
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    g = v.grad if v.is_leaf else v._grad
                out[name] = {
                    "shape": list(v.shape), "dtype": _dtype_name(v.dtype),
                    "requires_grad": bool(v.requires_grad), "is_leaf": bool(v.is_leaf),
                    "grad_fn": None if v.grad_fn is None else v.grad_fn.name(),
                    "value": _plain(v), "grad": None if g is None else _plain(g),
                    "grad_dtype": None if g is None else _dtype_name(g.dtype),
                }
        return out


def printed_type(e):
    """The exception's type as Python prints it under a traceback: `RuntimeError`, or with its
    module when that is not the built-ins (`torch._C._LinAlgError`)."""
    cls = type(e)
    return cls.__qualname__ if cls.__module__ == "builtins" else f"{cls.__module__}.{cls.__qualname__}"


def run_torch(source, instrument=True):
    """Execute `source` under real torch; return the facts (see the module docstring)."""
    filename = f"<oracle-script-{next(_counter)}>"
    return _TorchRun(source, filename, instrument).run()


# ----------------------------------------------------------------------------- the gradcli run


def run_gradcli(source):
    from gradcli.record.report import Warned
    from gradcli.session.executor import run_source
    from gradcli.views import json_view
    try:
        report = run_source(source, "<script>", values=None, strict=False)
    except BaseException as e:      # a Python traceback escaping gradcli is a bug: show it
        return {"stdout": "", "error": {"type": f"gradcli crashed with {type(e).__name__}",
                                        "message": traceback.format_exc(), "line": None},
                "warnings": [], "tensors": {}, "events": []}
    err = report.error
    events = []
    for ev in report.events:
        ran = [n for n in ev.executed
               if not n.grad_fn.endswith(("AccumulateGrad", "GraphRoot"))]   # torch::autograd::...
        if not (ran or ev.freed or ev.updates):
            continue            # see "Which calls are events" above
        events.append({
            "kind": ev.kind, "line": ev.line, "retain_graph": bool(ev.retain_graph),
            "ran": [(n.grad_fn, n.line) for n in ran],
            "freed": [(n.grad_fn, n.line, tuple(sorted(n.saved))) for n in ev.freed],
            "updated": [u.name for u in ev.updates],
        })
    tensors = {}
    for name, d in json_view.tensors_json(report).items():
        tensors[name] = dict(d)
    return {"stdout": report.stdout,
            "error": None if err is None else {"type": err.type, "message": err.message, "line": err.line},
            "warnings": [(i.line, i.message) for i in report.items if isinstance(i, Warned)],
            "tensors": tensors, "events": events}


# ----------------------------------------------------------------------------- comparison


def torch_freed_cause(t):
    """For a script whose escaping error is "backward through the graph a second time", raised by
    a backward/grad call, the facts docs/json.md puts in error.cause: the node that needed a
    freed buffer (the last node the failing call started: pre-hooks run before saved tensors
    are unpacked), the line that created it, its freed tensor slots, and the line of the call
    that freed them.
    None when the error is not that one."""
    err = t["error"]
    if err is None or not err["message"].startswith(SECOND_BACKWARD) or not t["events"]:
        return None
    last = t["events"][-1]
    if last["line"] != err["line"] or not last["ran_ids"]:
        return None
    node = last["ran_ids"][-1]
    for ev in t["events"][:-1]:
        if node in ev["freed_ids"]:
            k = ev["freed_ids"].index(node)
            name, line, slots = ev["freed"][k]
            return {"grad_fn": name, "line": line, "saved": sorted(slots), "freed_by": ev["line"]}
    return None


def _num_array(v):
    def fix(x):
        if isinstance(x, str):
            return {"nan": math.nan, "inf": math.inf, "-inf": -math.inf}.get(x, x)
        if isinstance(x, list):
            return [fix(y) for y in x]
        return x
    return np.asarray(fix(v))


def _tol(dtype):
    """rtol, atol.  Exact for ints and bools.  float64 gets float32's tolerance too: a float64
    result often inherits the float32 rounding of its inputs (type promotion), and torch's
    float32 exp/log/sigmoid are not always correctly rounded (neither are NumPy's)."""
    if dtype in ("float32", "float64", "float16", "bfloat16"):
        return 1e-5, 1e-6
    return 0.0, 0.0


def _values_differ(a, b, dtype):
    if (a is None) != (b is None):
        return True
    if a is None:
        return False
    x, y = _num_array(a), _num_array(b)
    if x.shape != y.shape:
        return True
    rtol, atol = _tol(dtype)
    if rtol == 0:
        return not np.array_equal(x, y)
    try:
        x = x.astype(float)
        y = y.astype(float)
    except (TypeError, ValueError):
        return True
    return not np.allclose(x, y, rtol=rtol, atol=atol, equal_nan=True)


def _short(v, limit=300):
    s = json.dumps(v) if not isinstance(v, str) else v
    return s if len(s) <= limit else s[:limit] + " ..."


def compare(t, g):
    """Differences between torch facts `t` and gradcli facts `g`, as readable strings."""
    diffs = []
    # stdout
    if t["stdout"] != g["stdout"]:
        lines = difflib.unified_diff(t["stdout"].splitlines(), g["stdout"].splitlines(),
                                     "torch stdout", "gradcli stdout", lineterm="", n=2)
        diffs.append("stdout differs:\n" + "\n".join(lines))
    # error
    te, ge = t["error"], g["error"]
    if (te is None) != (ge is None):
        diffs.append(f"error differs:\n  torch:   {te}\n  gradcli: {ge}")
    elif te is not None:
        for k in ("type", "message", "line"):
            if te[k] != ge[k]:
                diffs.append(f"error {k} differs:\n  torch:   {te[k]!r}\n  gradcli: {ge[k]!r}")
    # warnings
    if [tuple(w) for w in t["warnings"]] != [tuple(w) for w in g["warnings"]]:
        diffs.append("warnings differ:\n  torch:   " + pprint.pformat(t["warnings"], width=150)
                     + "\n  gradcli: " + pprint.pformat(g["warnings"], width=150))
    # tensors
    tn, gn = set(t["tensors"]), set(g["tensors"])
    if tn != gn:
        diffs.append(f"tensor names differ: only torch {sorted(tn - gn)}, only gradcli {sorted(gn - tn)}")
    for name in sorted(tn & gn):
        a, b = t["tensors"][name], g["tensors"][name]
        for k in ("shape", "dtype", "requires_grad", "is_leaf", "grad_fn"):
            if a[k] != b[k]:
                diffs.append(f"tensor {name}.{k}: torch {a[k]!r}, gradcli {b[k]!r}")
        if a["shape"] == b["shape"] and _values_differ(a["value"], b["value"], a["dtype"]):
            diffs.append(f"tensor {name} value: torch {_short(a['value'])}, gradcli {_short(b['value'])}")
        if _values_differ(a["grad"], b["grad"], a.get("grad_dtype") or a["dtype"]):
            diffs.append(f"tensor {name}.grad: torch {_short(a['grad'])}, gradcli {_short(b['grad'])}")
    # events
    te_, ge_ = t["events"], g["events"]
    if len(te_) != len(ge_):
        diffs.append(f"number of backward/grad calls differs: torch {len(te_)}, gradcli {len(ge_)}")
    for i, (a, b) in enumerate(zip(te_, ge_)):
        where = f"call #{i + 1} ({a['kind']} on line {a['line']})"
        for k in ("kind", "line", "retain_graph", "updated"):
            if a[k] != b[k]:
                diffs.append(f"{where} {k}: torch {a[k]!r}, gradcli {b[k]!r}")
        for k in ("freed", "ran"):
            ta = [tuple(x) for x in a[k]]
            gb = [tuple(x) for x in b[k]]
            # lines are compared wherever the oracle could map the node (torch line not None)
            ta_cmp = [x if x[1] is not None or i >= len(gb) else (x[0], gb[i][1]) + x[2:]
                      for i, x in enumerate(ta)]
            if ta_cmp != gb:
                if k == "freed" and sorted(map(repr, ta_cmp)) == sorted(map(repr, gb)):
                    label = f"{where} freed: same nodes, different order"
                else:
                    label = f"{where} {k} differs"
                diffs.append(label + ":\n  torch:   " + _fmt_nodes(ta) + "\n  gradcli: " + _fmt_nodes(gb))
    return diffs


def _fmt_nodes(nodes):
    parts = []
    for n in nodes:
        s = f"{n[0]}@{n[1]}"
        if len(n) > 2:
            s += "(" + ",".join(n[2]) + ")"
        parts.append(s)
    return "[" + ", ".join(parts) + "]"


def numbered(source):
    return "\n".join(f"{i:3d} | {ln}" for i, ln in enumerate(source.splitlines(), 1))


def assert_same(source, torch_facts=None):
    """Run `source` under torch and gradcli; fail with the script and a diff if they differ."""
    t = torch_facts if torch_facts is not None else run_torch(source)
    g = run_gradcli(source)
    diffs = compare(t, g)
    if diffs:
        raise AssertionError("gradcli differs from torch for this script:\n"
                             + numbered(source) + "\n\n" + "\n".join("* " + d for d in diffs))
    return t, g


def assert_same_but_warning_tracebacks(source):
    """assert_same for scripts whose warnings carry a Python traceback (anomaly mode's
    "Error detected in ..." warning): each warning's line and first line are compared,
    everything else exactly."""
    t, g = run_torch(source), run_gradcli(source)
    tw, gw = t.pop("warnings"), g.pop("warnings")
    t["warnings"] = g["warnings"] = []
    diffs = compare(t, g)
    first = [(ln, m.splitlines()[0]) for ln, m in tw]
    got = [(ln, m.splitlines()[0]) for ln, m in gw]
    if first != got:
        diffs.append(f"warnings (first lines): torch {first!r}, gradcli {got!r}")
    if diffs:
        import pytest
        pytest.fail(numbered(source) + "\n" + "\n".join("* " + d for d in diffs), pytrace=False)
