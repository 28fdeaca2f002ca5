"""`gradcli test --oracle torch`: run a PyTorch-dialect script under real PyTorch as well,
and compare what both did.

Compared: what the script printed (object addresses masked), the error that ended it
(type, message and line), the final `.grad` of every global leaf tensor that requires grad,
and, per backward()/autograd.grad() call, which graph nodes had their saved tensors freed.

How the PyTorch side learns which nodes a call freed: just before the call, the graph
reachable from the call's roots is walked and every node's tensor slots (the `_saved_X`
attributes that have a `_raw_saved_X` twin) that hold a tensor are noted; after the call
(also when it raised) the same slots are read again, and those that now raise "Trying to
backward through the graph a second time" were freed by it. A call only frees nodes it ran,
and those are all reachable from its roots. Calls that freed nothing are left out on both
sides (PyTorch cannot tell a call that reached the engine from one that did not).

torch is imported only when a comparison runs: it is a test-time oracle, never a
dependency of gradcli. The script runs in this process as real Python code: use the
oracle only on scripts you would run with `python` yourself.
"""
from __future__ import annotations

import ast
import builtins
import contextlib
import difflib
import importlib.util
import io
import math
import re
import sys
import traceback
import warnings

SECOND_BACKWARD = "Trying to backward through the graph a second time"
ADDRESS = re.compile(r" at 0x[0-9a-fA-F]+")
RTOL, ATOL = 1e-5, 1e-6


def available() -> bool:
    """True when `import torch` would work (without importing it)."""
    try:
        return importlib.util.find_spec("torch") is not None
    except (ImportError, ValueError):
        return False


def is_python(source, filename="<script>") -> bool:
    try:
        compile(source, filename, "exec", dont_inherit=True)
    except (SyntaxError, ValueError):
        return False
    return True


def statement_lines(source):
    """Each line -> the first line of the innermost statement that covers it (as gradcli reports)."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return {}
    spans = []
    for node in ast.walk(tree):
        if isinstance(node, (ast.stmt, ast.ExceptHandler)):
            body = getattr(node, "body", None)
            if isinstance(body, list) and body and isinstance(body[0], ast.stmt):
                end = max(node.lineno, body[0].lineno - 1)       # a compound statement: its header
            else:
                end = node.end_lineno or node.lineno
            spans.append((node.lineno, end))
    mapping = {}
    for start, end in sorted(spans, key=lambda s: -(s[1] - s[0])):
        for ln in range(start, end + 1):
            mapping[ln] = start
    return mapping


# ----------------------------------------------------------------------------- the PyTorch run


class _TorchRun:
    def __init__(self, torch, source, filename):
        self.torch = torch
        self.source = source
        self.filename = filename
        self.lines = statement_lines(source)
        self.calls = []
        self.depth = 0
        self.slot_cache = {}

    def line_now(self):
        f = sys._getframe(1)
        while f is not None:
            if f.f_code.co_filename == self.filename:
                return self.lines.get(f.f_lineno, f.f_lineno)
            f = f.f_back
        return None

    def slots(self, node):
        cls = type(node)
        s = self.slot_cache.get(cls)
        if s is None:
            names = set(dir(node))
            s = tuple(sorted(n[7:] for n in names if n.startswith("_saved_") and "_raw" + n in names))
            self.slot_cache[cls] = s
        return s

    def state(self, node, slot):
        try:
            v = getattr(node, "_saved_" + slot)
        except RuntimeError as e:
            return "freed" if str(e).startswith(SECOND_BACKWARD) else "error"
        except Exception:
            return "error"
        T = self.torch.Tensor
        if isinstance(v, T) or (isinstance(v, (list, tuple)) and any(isinstance(x, T) for x in v)):
            return "held"
        return "none"

    def nodes(self, roots):
        seen, stack = {}, [t.grad_fn for t in roots if t.grad_fn is not None]
        while stack:
            n = stack.pop()
            if n in seen:
                continue
            seen[n] = True
            for nxt, _ in n.next_functions:
                if nxt is not None and nxt not in seen:
                    stack.append(nxt)
        return [n for n in seen if type(n).__name__ != "AccumulateGrad"]

    def tensors_in(self, value, depth=2):
        T = self.torch.Tensor
        if isinstance(value, T):
            return [value]
        if depth and isinstance(value, (list, tuple)):
            return [t for v in value for t in self.tensors_in(v, depth - 1)]
        return []

    def wrap(self, orig, kind, roots_of):
        run = self

        def wrapper(*args, **kwargs):
            if run.depth:
                return orig(*args, **kwargs)
            run.depth += 1
            try:
                try:
                    roots = run.tensors_in(roots_of(args, kwargs))
                except Exception:
                    roots = []
                return run.call(orig, args, kwargs, kind, roots)
            finally:
                run.depth -= 1

        wrapper.__wrapped__ = orig
        wrapper.__name__ = getattr(orig, "__name__", kind)
        wrapper.__doc__ = getattr(orig, "__doc__", None)
        return wrapper

    def call(self, orig, args, kwargs, kind, roots):
        line = self.line_now()
        before = {}
        for n in self.nodes(roots):
            held = [s for s in self.slots(n) if self.state(n, s) == "held"]
            if held:
                before[n] = held
        try:
            return orig(*args, **kwargs)
        finally:
            freed = []
            for n, held in before.items():
                gone = [s for s in held if self.state(n, s) == "freed"]
                if gone:
                    freed.append((n.name(), tuple(sorted(gone))))
            self.calls.append({"kind": kind, "line": line, "freed": sorted(freed)})

    def run(self):
        torch = self.torch
        code = compile(self.source, self.filename, "exec", dont_inherit=True)
        glb = {"__name__": "__main__", "__file__": self.filename, "__builtins__": builtins}
        out = io.StringIO()
        error = None

        def first(names):
            return lambda a, k: k[names[0]] if names[0] in k else (a[0] if a else k.get(names[1]))

        patches = [
            (torch.Tensor, "backward", self.wrap(torch.Tensor.backward, "backward", first(["self", "self"]))),
            (torch.autograd, "backward", self.wrap(torch.autograd.backward, "backward", first(["tensors", "tensors"]))),
            (torch.autograd, "grad", self.wrap(torch.autograd.grad, "grad", first(["outputs", "outputs"]))),
        ]
        originals = [(obj, name, obj.__dict__[name]) for obj, name, _ in patches]
        grad_mode = torch.is_grad_enabled()
        try:
            for obj, name, new in patches:
                setattr(obj, name, new)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                with contextlib.redirect_stdout(out):
                    try:
                        exec(code, glb)
                    except (Exception, SystemExit) as e:
                        error = self.error(e)
        finally:
            for obj, name, orig in originals:
                setattr(obj, name, orig)
            torch.set_grad_enabled(grad_mode)
        grads = {}
        for name, v in glb.items():
            if isinstance(v, torch.Tensor) and v.is_leaf and v.requires_grad:
                grads[name] = None if v.grad is None else v.grad.detach().tolist()
        return {"stdout": out.getvalue(), "error": error, "grads": grads, "calls": self.calls}

    def error(self, e):
        line = None
        tb = e.__traceback__
        while tb is not None:
            if tb.tb_frame.f_code.co_filename == self.filename:
                line = self.lines.get(tb.tb_lineno, tb.tb_lineno)
            tb = tb.tb_next
        return {"type": type(e).__name__, "message": str(e), "line": line}


def run_torch(source, filename="<oracle-script>"):
    """Run `source` under real PyTorch; its facts as a dict (see the module docstring)."""
    import torch
    torch.seed()                # a fresh seed, as the script would get from a new process
    return _TorchRun(torch, source, filename).run()


# ----------------------------------------------------------------------------- comparison


def gradcli_facts(report):
    err = report.error
    from ..views.json_view import tensors_json
    grads = {name: d.get("grad") for name, d in tensors_json(report, None).items()
             if d.get("is_leaf") and d.get("requires_grad")}
    calls = [{"kind": ev.kind, "line": ev.line,
              "freed": sorted((n.grad_fn, tuple(sorted(n.saved))) for n in ev.freed)}
             for ev in report.events]
    return {"stdout": report.stdout,
            "error": None if err is None else {"type": err.type, "message": err.message, "line": err.line},
            "grads": grads, "calls": calls}


def _numbers(v):
    if isinstance(v, str):
        return {"nan": math.nan, "inf": math.inf, "-inf": -math.inf}.get(v, v)
    if isinstance(v, list):
        return [_numbers(x) for x in v]
    return v


def _close(a, b):
    a, b = _numbers(a), _numbers(b)
    if isinstance(a, list) or isinstance(b, list):
        return isinstance(a, list) and isinstance(b, list) and len(a) == len(b) and all(map(_close, a, b))
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        if math.isnan(a) or math.isnan(b):
            return math.isnan(a) and math.isnan(b)
        return a == b or abs(a - b) <= ATOL + RTOL * abs(b)
    return a == b


def _fmt_freed(freed):
    return "[" + ", ".join(f"{name}({', '.join(slots)})" for name, slots in freed) + "]"


def differences(torch_facts, gradcli_facts_):
    """What differs, as readable lines (empty when gradcli did what PyTorch did)."""
    t, g = torch_facts, gradcli_facts_
    diffs = []
    ts, gs = ADDRESS.sub(" at 0x...", t["stdout"]), ADDRESS.sub(" at 0x...", g["stdout"])
    if ts != gs:
        diffs.append("printed output differs:")
        diffs.extend(difflib.unified_diff(ts.splitlines(), gs.splitlines(), "PyTorch", "gradcli",
                                          lineterm="", n=2))
    te, ge = t["error"], g["error"]
    if (te is None) != (ge is None):
        diffs.append(f"error: PyTorch {_err(te)}; gradcli {_err(ge)}")
    elif te is not None and (te["type"], ADDRESS.sub("", te["message"])) != (ge["type"], ADDRESS.sub("", ge["message"])):
        diffs.append(f"error: PyTorch {_err(te)}; gradcli {_err(ge)}")
    elif te is not None and te["line"] is not None and ge["line"] is not None and te["line"] != ge["line"]:
        diffs.append(f"error line: PyTorch {te['line']}, gradcli {ge['line']}")
    for name in sorted(t["grads"]):
        if name not in g["grads"]:
            diffs.append(f"{name}: a leaf that requires grad under PyTorch, not under gradcli")
        elif (t["grads"][name] is None) != (g["grads"][name] is None) or \
                not _close(t["grads"][name], g["grads"][name]):
            diffs.append(f"{name}.grad: PyTorch {_brief(t['grads'][name])}, gradcli {_brief(g['grads'][name])}")
    tc = [c for c in t["calls"] if c["freed"]]
    gc = [c for c in g["calls"] if c["freed"]]
    for i in range(max(len(tc), len(gc))):
        a = tc[i] if i < len(tc) else None
        b = gc[i] if i < len(gc) else None
        if a is not None and b is not None and (a["kind"], a["line"], a["freed"]) == (b["kind"], b["line"], b["freed"]):
            continue
        where = a or b
        diffs.append(f"freeing call #{i + 1} ({where['kind']} on line {where['line']}): "
                     f"PyTorch freed {_fmt_freed(a['freed']) if a else 'nothing (no such call)'}"
                     + (f" on line {a['line']}" if a and b and a['line'] != b['line'] else "")
                     + f", gradcli freed {_fmt_freed(b['freed']) if b else 'nothing (no such call)'}")
    return diffs


def _err(e):
    return "no error" if e is None else f"{e['type']}: {e['message']} (line {e['line']})"


def _brief(v, limit=100):
    s = repr(v)
    return s if len(s) <= limit else s[:limit - 4] + " ..."


def compare(source, filename, facts):
    """Run the script under PyTorch and compare with the facts (gradcli_facts) of gradcli's run."""
    try:
        t = run_torch(source, filename)
    except ImportError as e:
        return [f"PyTorch could not be imported: {e}"]
    except Exception:
        return ["the PyTorch run itself failed (a bug in gradcli's oracle):", traceback.format_exc()]
    return differences(t, facts)


def confirm_fixes(why, trial):
    """Run each fix that worked under real PyTorch too, and note what it said: the error gone,
    and the same leaf gradients and prints as gradcli's fixed run."""
    from ..explain.fixes import apply, run_fixed, short, trial_of
    from ..record import origin as O
    trial = trial_of(trial)
    tree = O.source_map(trial.filename).tree
    for i, fix in enumerate(why.fixes, 1):
        if not (fix.tried and fix.works):
            continue
        text = apply(trial.source, tree, fix.edit)
        report, _, _ = run_fixed(trial, text, f"fix {i}")  # (gradcli's own facts of the fixed script)
        try:
            torch_facts = run_torch(text, f"{trial.filename} [fix {i}, torch]")
        except Exception as e:                  # the oracle itself failed: say so, claim nothing
            fix.oracle = f"PyTorch could not run it ({type(e).__name__}: {e})"
            continue
        err = torch_facts["error"]
        if err is not None:
            fix.oracle = f"PyTorch still raises {err['type']}: {short(err['message'])}"
            continue
        diffs = differences(torch_facts, gradcli_facts(report))
        fix.oracle = "PyTorch agrees: runs to its end" + ("" if not diffs else f", but differs: {short(diffs[0])}")
