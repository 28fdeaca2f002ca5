"""`--json`: the machine-readable contract of docs/json.md, as one JSON object."""
from __future__ import annotations

import json
import math

from ..explain import explained, surprises
from ..record.report import LeavesShown, Warned
from ..session.limits import FULL_VALUES  # (1000 elements, PyTorch's print threshold)

VERSION = 1
EDGE_ITEMS = 3          # per dimension, at each end of a summary (PyTorch's edgeitems)


def as_dict(report, full_values=FULL_VALUES) -> dict:
    return {
        "version": VERSION,
        "ok": report.error is None,
        "stdout": report.stdout,
        "error": None if report.error is None else error_json(report.error),
        "events": [call_json(ev) for ev in report.events],
        "warnings": [{"line": i.line, "message": i.message} for i in report.items if isinstance(i, Warned)],
        "leaves": [name for i in report.items if isinstance(i, LeavesShown) for name, _ in i.leaves],
        "tensors": tensors_json(report, full_values),
        "surprises": [surprise_json(w) for w in surprises(report)],
    }


def call_json(ev):
    """An `events` entry: one backward() or autograd.grad() call (a report.CallEvent)."""
    return {"kind": ev.kind, "line": ev.line, "retain_graph": ev.retain_graph,
            "freed": [node_json(n) for n in ev.freed],
            "ran": [n.grad_fn for n in ev.executed],
            "updated": [u.name for u in ev.updates], "failed": ev.failed, "raised": ev.raised,
            "error": None if ev.error is None else {"type": ev.error[0], "message": ev.error[1],
                                                    "caught_line": ev.caught_line}}


def node_json(n):
    """A graph node (a report.NodeInfo) in `events[].freed`."""
    return {"grad_fn": n.grad_fn, "line": n.line, "saved": list(n.saved), "module": n.module,
            "function": n.function}


def error_json(err):
    """The `error` object (a report.ErrorInfo), with the facts and fixes of its explanation, the
    fixes tried on copies of the script first."""
    why = explained(err)
    out = {"type": err.type, "message": err.message, "line": err.line, "column": err.col,
           "hint": err.hint, "cause": err.cause, "why": err.why, "fix": err.fix,
           "frames": [{"line": line, "function": name, **({"repeated": n} if n else {})}
                      for line, name, n in err.frames]}
    if why is not None:
        facts, out["fixes"] = _facts_and_fixes(why)
        facts.pop("text")
        out["facts"] = facts
    return out


def surprise_json(why):
    """A surprise as `error.facts` and `error.fixes` describe an error (docs/json.md)."""
    facts, fixes = _facts_and_fixes(why)
    return {"why": facts.pop("text"), "facts": facts, "fixes": fixes}


def _facts_and_fixes(why):
    """An explain.Why's facts (without its fixes) and the fixes worth showing (`Fix.shown`)."""
    from dataclasses import asdict
    facts = asdict(why)
    facts.pop("fixes")
    return facts, [fix_json(asdict(f)) for f in why.fixes if f.shown]


def fix_json(f):
    edit = f["edit"]
    return {"title": f["title"], "advice": f["advice"], "effect": f["effect"],
            "edit": None if edit is None else edit["changes"], "tried": f["tried"],
            "outcome": f["outcome"], "grads": f["grads"], "differs": f["differs"], "oracle": f["oracle"]}


def render(report, out, full_values=FULL_VALUES):
    json.dump(as_dict(report, full_values), out, indent=2, allow_nan=False)
    out.write("\n")


def _number(v):
    if isinstance(v, float) and not math.isfinite(v):
        return "nan" if v != v else ("inf" if v > 0 else "-inf")
    return v


def tensors_json(report, full_values=None):
    """Every script variable bound to a tensor when the script ended; the values of tensors over
    `full_values` elements summarised (None: all values)."""
    tensors = report.tensors_at_end() if report.tensors_at_end is not None else {}
    return {name: tensor_json(t, full_values) for name, t in tensors.items()}


def tensor_json(t, full_values=None):
    """A tensor as the JSON contract describes it; `value` and `grad` are summarised above
    `full_values` elements (None: never)."""
    grad = t._grad
    return {"shape": list(t._data.shape), "dtype": _dtype_name(t._data), "requires_grad": bool(t.requires_grad),
            "is_leaf": t.grad_fn is None, "grad_fn": None if t.grad_fn is None else t.grad_fn.name(),
            "value": tensor_values(t._data, full_values),
            "grad": None if grad is None else tensor_values(grad._data, full_values)}


def _dtype_name(a):
    return "bool" if a.dtype.kind == "b" else a.dtype.name


def tensor_values(a, full_values=FULL_VALUES):
    """An array's values for JSON: nested lists (a number for 0-d) up to `full_values` elements
    (None: any size); above it a summary, as PyTorch summarises what it prints: the statistics
    and the edge values, EDGE_ITEMS at each end of every dimension with "..." between."""
    import numpy as np
    if full_values is None or a.size <= full_values:
        flat = a.ravel().tolist()
        if a.dtype.kind == "f" and not np.isfinite(a).all():
            flat = [_number(v) for v in flat]
        if a.ndim == 0:
            return flat[0]
        return np.array(flat, dtype=object).reshape(a.shape).tolist()
    return dict(_statistics(a), summary=True, numel=a.size, edges=_edges(a))


def _statistics(a, chunk=1 << 22):
    """min, max, mean, std (population) of the finite values and the nan/inf counts, read in
    chunks (no whole-size temporaries). A dimension an expanded view repeats (stride 0) is read
    once: the statistics are the same, the counts scale."""
    import numpy as np
    repeat = 1
    for d, (n, stride) in enumerate(zip(a.shape, a.strides)):
        if stride == 0 and n > 1:
            a = a[(slice(None),) * d + (slice(0, 1),)]
            repeat *= n
    flat = a.reshape(-1)
    parts = [flat[i:i + chunk] for i in range(0, flat.size, chunk)]
    count = nan = inf = 0
    total, low, high = 0.0, math.inf, -math.inf
    with np.errstate(all="ignore"):
        for p in parts:
            p = p.astype(np.float64)
            ok = np.isfinite(p)
            nans = int(np.isnan(p).sum())
            nan += nans
            inf += p.size - int(ok.sum()) - nans
            p = p[ok] if not ok.all() else p
            if p.size:
                count += p.size
                total += float(p.sum())
                low, high = min(low, float(p.min())), max(high, float(p.max()))
        if not count:
            return {"min": None, "max": None, "mean": None, "std": None, "nan": nan * repeat, "inf": inf * repeat}
        mean = total / count
        squares = 0.0
        for p in parts:
            p = p.astype(np.float64)
            p = p[np.isfinite(p)]
            squares += float(np.square(p - mean).sum())
    return {"min": low, "max": high, "mean": mean, "std": math.sqrt(squares / count),
            "nan": nan * repeat, "inf": inf * repeat}


def _edges(a):
    if a.ndim == 0:
        return _number(a.item())
    n = a.shape[0]
    if n <= 2 * EDGE_ITEMS:
        return [_edges(a[i]) for i in range(n)]
    return ([_edges(a[i]) for i in range(EDGE_ITEMS)] + ["..."]
            + [_edges(a[i]) for i in range(n - EDGE_ITEMS, n)])
