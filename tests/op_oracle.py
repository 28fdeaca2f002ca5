"""check_op: run one op under gradcli and under real PyTorch 2.13 on the same inputs and
compare everything a user can observe (in the spirit of tinygrad's helper_test_op).

    check_op(lambda t, x, y: x * y, (2, 3), In((3,), rg=False))

`fn(lib, *inputs)` receives the module (`torch` or `gradcli.torch`) and the inputs built
from `input_specs`:

    (2, 3)                 a float32 tensor of that shape, requires_grad=True, seeded values
    In(shape, ...)         a tensor with options (rg, dtype, values, low, high, ints, ...)
    anything else          passed to fn unchanged (Python numbers, lists, slices, None, ...)

Both libraries get exactly the same values (drawn once from a seeded NumPy generator).
Compared, in this order (every difference is collected, then one AssertionError lists them):

1. forward: the error (Python type and exact message) if torch raises; else for every output
   tensor shape, dtype, requires_grad, is_leaf, grad_fn name and values
   (rtol 1e-5 / atol 1e-6 for floats, exact otherwise: oracle._values_differ).
2. graph: breadth-first from the outputs' grad_fns along next_functions (AccumulateGrad
   included, nodes deduplicated by identity): class name, name(), edges (target index in BFS
   order or None, input_nr); per node the saved slots split into tensor slots holding a
   tensor (with dtype/shape/value), tensor slots holding None, and non-tensor attributes with
   their values (type-exact: 2 != 2.0 != True).  In torch a tensor slot is a `_saved_X` with a
   `_raw_saved_X` twin (oracle.tensor_slots); in gradcli it is a key of `node.saved`, and the
   non-tensor ones are `node.attrs` keys not starting with "_"; values are read through the
   public `_saved_X` attributes on both sides (negative int64 dims read as 2**64 + d).
3. backward: `(sum of out.sum() over the outputs that require grad).backward()`
   (non-retaining): its error, every tensor input's .grad (value, dtype, shape or None), and
   every graph node's slots re-read afterwards (tensor slots now raising "backward through the
   graph a second time" = the freed set;
   None and non-tensor slots keep their values).
4. weighted (default on): a fresh graph, `autograd.grad(out, inputs, grad_outputs=W,
   allow_unused=True)` with seeded random W, values compared (catches formulas that an
   all-ones upstream gradient hides, e.g. softmax's).
5. second_order (opt-in): a fresh graph, `g = autograd.grad(loss, inputs, create_graph=True,
   allow_unused=True)`: values and grad_fn names of g; then `autograd.grad(sum of g_i.sum(),
   inputs, allow_unused=True)`: values (or the error, e.g. "does not require grad" when g is
   constant).
"""
from __future__ import annotations

import math
import warnings
from dataclasses import dataclass

import numpy as np
import torch

from oracle import SECOND_BACKWARD, _values_differ, printed_type, tensor_slots

import gradcli.torch as G

__all__ = ["In", "check_op", "op_facts", "G", "torch"]


# ----------------------------------------------------------------------------- input specs


@dataclass
class In:
    """A tensor input.  `values` (nested list or scalar) overrides the random draw; `ints`
    draws integers in [low, high) (dtype int64 unless given); `rg` = requires_grad."""
    shape: tuple = ()
    rg: bool = True
    dtype: str = None
    values: object = None
    low: float = -2.0
    high: float = 2.0
    ints: bool = False

    def array(self, rng):
        if self.values is not None:
            arr = np.array(self.values)
            if arr.dtype == np.float64 and (self.dtype in (None, "float32")):
                arr = arr.astype(np.float32)
        elif self.ints:
            arr = rng.integers(int(self.low), int(self.high), size=self.shape).astype(np.int64)
        else:
            arr = rng.uniform(self.low, self.high, size=self.shape).astype(np.float32)
        dt = self.dtype or {"f": "float32", "i": "int64", "b": "bool"}[arr.dtype.kind]
        return arr.astype(dt)

    @property
    def dtype_name(self):
        return self.dtype


def _spec(s):
    if isinstance(s, In):
        return s
    if isinstance(s, tuple) and all(isinstance(d, int) for d in s):
        return In(s)
    return None


def _draw(specs, seed):
    rng = np.random.default_rng(seed)
    out = []
    for s in specs:
        sp = _spec(s)
        if sp is None:
            out.append(("raw", s))
        else:
            arr = sp.array(rng)
            out.append(("tensor", (arr, sp.rg and arr.dtype.kind == "f", str(arr.dtype))))
    return out


def _build(lib, drawn):
    inputs = []
    for kind, v in drawn:
        if kind == "raw":
            inputs.append(v)
        else:
            arr, rg, dt = v
            if arr.size == 0:        # torch.tensor([]) is tested on its own (ctor cases)
                inputs.append(lib.zeros(*arr.shape, dtype=getattr(lib, dt), requires_grad=rg))
            else:
                inputs.append(lib.tensor(arr.tolist(), dtype=getattr(lib, dt), requires_grad=rg))
    return inputs


# ----------------------------------------------------------------------------- per-library access


def _is_tensor(lib, v):
    return isinstance(v, torch.Tensor) if lib is torch else isinstance(v, G.Tensor)


def _err(e):
    """(Python type name a script would see, message)."""
    return (getattr(e, "pytype", None) or printed_type(e), str(e))


def _cls(lib, node):
    return type(node).__name__ if lib is torch else node.op.name


def _slot_names(lib, node):
    """(tensor slots, non-tensor attributes) of a node."""
    if lib is torch:
        ts = tensor_slots(node)
        others = sorted(n[7:] for n in dir(node) if n.startswith("_saved_") and n[7:] not in ts)
        return list(ts), others
    ts = sorted(node.saved)
    others = sorted(k for k in node.attrs if not k.startswith("_"))
    return ts, others


def _norm_value(v):
    """A non-tensor attribute value, type-exact and comparable."""
    if isinstance(v, bool):
        return ("bool", v)
    if isinstance(v, int):
        return ("int", int(v))
    if isinstance(v, float):
        return ("float", "nan" if math.isnan(v) else v)
    if v is None:
        return None
    if isinstance(v, (tuple, list)):
        return tuple(_norm_value(x) for x in v)
    if isinstance(v, str):
        return ("str", v)
    return ("other", type(v).__name__, repr(v))


def _tensor_fact(lib, t):
    t = t.detach()
    if lib is torch and t._is_zerotensor():      # torch's efficient zeros (e.g. abs's 2nd derivative)
        t = torch.zeros(t.shape, dtype=t.dtype)
    return {"dtype": str(t.dtype).replace("torch.", ""), "shape": list(t.shape), "value": t.tolist()}


def _read_slot(lib, node, slot, is_tensor_slot):
    try:
        v = getattr(node, "_saved_" + slot)
    except RuntimeError as e:
        if str(e).startswith(SECOND_BACKWARD):
            return ("FREED",)
        return ("raises",) + _err(e)
    except Exception as e:                       # noqa: BLE001  (reported, not hidden)
        return ("raises",) + _err(e)
    if _is_tensor(lib, v):
        return ("T", _tensor_fact(lib, v))
    if isinstance(v, (tuple, list)) and any(_is_tensor(lib, x) for x in v):
        if all(x is None or _is_tensor(lib, x) for x in v):     # IndexBackward0: (None, tensor, ...)
            return ("T", [None if x is None else _tensor_fact(lib, x) for x in v])
    if v is None and is_tensor_slot:
        return ("None",)
    if is_tensor_slot:
        return ("tensor slot holding a non-tensor", _norm_value(v))
    return ("attr", _norm_value(v))


def _graph(lib, roots):
    """BFS from the root nodes; returns (nodes, facts)."""
    order, index, queue = [], {}, []
    for r in roots:
        if r is not None and id(r) not in index:
            index[id(r)] = len(order)
            order.append(r)
            queue.append(r)
    k = 0
    while k < len(order):
        n = order[k]
        k += 1
        for nxt, _nr in n.next_functions:
            if nxt is not None and id(nxt) not in index:
                index[id(nxt)] = len(order)
                order.append(nxt)
    facts = []
    for n in order:
        ts, others = _slot_names(lib, n)
        facts.append({
            "class": _cls(lib, n), "name": n.name(),
            "next": [(None if f is None else index[id(f)], nr) for f, nr in n.next_functions],
            "slots": _slots_state(lib, n, ts, others)})
    return order, facts


def _slots_state(lib, node, ts, others):
    st = {s: _read_slot(lib, node, s, True) for s in ts}
    st.update({s: _read_slot(lib, node, s, False) for s in others})
    return st


def _outputs(lib, out):
    if _is_tensor(lib, out):
        return [out]
    if isinstance(out, (tuple, list)) and all(_is_tensor(lib, o) for o in out):
        return list(out)
    raise TypeError(f"fn must return a tensor or a tuple/list of tensors, got {type(out).__name__}")


def _grad_fact(lib, t):
    g = t.grad
    return None if g is None else _tensor_fact(lib, g)


def _loss(outs):
    parts = [o.sum() for o in outs if o.requires_grad]
    if not parts:
        return None
    loss = parts[0]
    for p in parts[1:]:
        loss = loss + p
    return loss


def op_facts(lib, fn, drawn, *, backward=True, weighted=True, second_order=False, seed=0):
    """Everything check_op compares, for one library."""
    facts = {}
    inputs = _build(lib, drawn)
    try:
        out = fn(lib, *inputs)
        outs = _outputs(lib, out)
    except Exception as e:                       # noqa: BLE001
        facts["forward_error"] = _err(e)
        return facts
    facts["forward_error"] = None
    facts["outputs"] = [{
        **_tensor_fact(lib, o), "requires_grad": bool(o.requires_grad), "is_leaf": bool(o.is_leaf),
        "grad_fn": None if o.grad_fn is None else _cls(lib, o.grad_fn)} for o in outs]
    nodes, graph = _graph(lib, [o.grad_fn for o in outs])
    facts["graph"] = graph
    rg_inputs = [x for x in inputs if _is_tensor(lib, x) and x.requires_grad]
    loss = _loss(outs)
    if not backward or loss is None:
        return facts
    try:
        loss.backward()
        facts["backward_error"] = None
    except Exception as e:                       # noqa: BLE001
        facts["backward_error"] = _err(e)
    facts["grads"] = [_grad_fact(lib, x) if _is_tensor(lib, x) else "-" for x in inputs]
    facts["after_backward"] = [
        _slots_state(lib, n, *_slot_names(lib, n)) for n in nodes]
    if weighted and not facts["backward_error"] and rg_inputs:
        try:
            facts["weighted"] = _weighted(lib, fn, drawn, seed)
        except Exception as e:                   # noqa: BLE001  (e.g. building W failed)
            facts["weighted"] = {"error": ("while building the weighted call",) + _err(e)}
    if second_order and rg_inputs:
        try:
            facts["second_order"] = _second_order(lib, fn, drawn)
        except Exception as e:                   # noqa: BLE001
            facts["second_order"] = {"first_error": ("while building the second-order call",) + _err(e)}
    return facts


def _weighted(lib, fn, drawn, seed):
    inputs = _build(lib, drawn)
    outs = [o for o in _outputs(lib, fn(lib, *inputs)) if o.requires_grad]
    rg = [x for x in inputs if _is_tensor(lib, x) and x.requires_grad]
    rng = np.random.default_rng(seed + 7919)
    ws = [lib.zeros(*o.shape, dtype=o.dtype) if o.numel() == 0 else      # tensor([]) is a ctor case
          lib.tensor(rng.uniform(-1.5, 1.5, size=tuple(o.shape)).astype(np.float32).tolist(), dtype=o.dtype)
          for o in outs]
    try:
        gs = lib.autograd.grad(outs, rg, grad_outputs=ws, allow_unused=True)
    except Exception as e:                       # noqa: BLE001
        return {"error": _err(e)}
    return {"error": None, "grads": [None if g is None else _tensor_fact(lib, g) for g in gs]}


def _second_order(lib, fn, drawn):
    res = {}
    inputs = _build(lib, drawn)
    outs = _outputs(lib, fn(lib, *inputs))
    rg = [x for x in inputs if _is_tensor(lib, x) and x.requires_grad]
    try:
        gs = lib.autograd.grad(_loss(outs), rg, create_graph=True, allow_unused=True)
    except Exception as e:                       # noqa: BLE001
        res["first_error"] = _err(e)
        return res
    res["first_error"] = None
    res["first"] = [None if g is None else {**_tensor_fact(lib, g), "requires_grad": bool(g.requires_grad),
                                            "grad_fn": None if g.grad_fn is None else _cls(lib, g.grad_fn)}
                    for g in gs]
    present = [g for g in gs if g is not None]
    try:
        s = present[0].sum()
        for g in present[1:]:
            s = s + g.sum()
        hs = lib.autograd.grad(s, rg, allow_unused=True)
        res["second_error"] = None
        res["second"] = [None if h is None else _tensor_fact(lib, h) for h in hs]
    except Exception as e:                       # noqa: BLE001
        res["second_error"] = _err(e)
    return res


# ----------------------------------------------------------------------------- comparison


def _cmp_tensor(diffs, where, a, b):
    if (a is None) != (b is None):
        diffs.append(f"{where}: torch {_short(a)}, gradcli {_short(b)}")
        return
    if a is None:
        return
    for k in ("dtype", "shape"):
        if a[k] != b[k]:
            diffs.append(f"{where} {k}: torch {a[k]!r}, gradcli {b[k]!r}")
    if a["shape"] == b["shape"] and _values_differ(a["value"], b["value"], a["dtype"]):
        diffs.append(f"{where} value: torch {_short(a['value'])}, gradcli {_short(b['value'])}")


def _short(v, limit=400):
    s = repr(v)
    return s if len(s) <= limit else s[:limit] + " ..."


def _cmp_slots(diffs, where, a, b):
    if set(a) != set(b):
        diffs.append(f"{where} slot names: only torch {sorted(set(a) - set(b))}, "
                     f"only gradcli {sorted(set(b) - set(a))}")
    for s in sorted(set(a) & set(b)):
        x, y = a[s], b[s]
        if x[0] == "T" and y[0] == "T":
            xs = x[1] if isinstance(x[1], list) else [x[1]]
            ys = y[1] if isinstance(y[1], list) else [y[1]]
            if isinstance(x[1], list) != isinstance(y[1], list) or len(xs) != len(ys):
                diffs.append(f"{where} _saved_{s}: torch {_short(x)}, gradcli {_short(y)}")
                continue
            if [p is None for p in xs] != [q is None for q in ys]:
                diffs.append(f"{where} _saved_{s}: torch {_short(x)}, gradcli {_short(y)}")
                continue
            for i, (p, q) in enumerate(zip(xs, ys)):
                _cmp_tensor(diffs, f"{where} _saved_{s}" + (f"[{i}]" if len(xs) > 1 else ""), p, q)
        elif x != y:
            diffs.append(f"{where} _saved_{s}: torch {_short(x)}, gradcli {_short(y)}")


def compare_facts(t, g):
    diffs = []
    if t["forward_error"] != g["forward_error"]:
        diffs.append(f"forward error: torch {t['forward_error']}, gradcli {g['forward_error']}")
        return diffs
    if t["forward_error"] is not None:
        return diffs
    to, go = t["outputs"], g["outputs"]
    if len(to) != len(go):
        diffs.append(f"number of outputs: torch {len(to)}, gradcli {len(go)}")
    for i, (a, b) in enumerate(zip(to, go)):
        for k in ("requires_grad", "is_leaf", "grad_fn"):
            if a[k] != b[k]:
                diffs.append(f"output {i} {k}: torch {a[k]!r}, gradcli {b[k]!r}")
        _cmp_tensor(diffs, f"output {i}", a, b)
    # graph
    tg, gg = t["graph"], g["graph"]
    tnames = [(n["class"], n["next"]) for n in tg]
    gnames = [(n["class"], n["next"]) for n in gg]
    if tnames != gnames:
        diffs.append("grad_fn graph (BFS: class, [(next index, input_nr)]) differs:\n    torch:   "
                     + _fmt_graph(tg) + "\n    gradcli: " + _fmt_graph(gg))
    same_graph = [a["class"] for a in tg] == [b["class"] for b in gg]
    if same_graph:
        for i, (a, b) in enumerate(zip(tg, gg)):
            if a["name"] != b["name"]:
                diffs.append(f"node {i} name(): torch {a['name']!r}, gradcli {b['name']!r}")
            _cmp_slots(diffs, f"node {i} {a['class']}", a["slots"], b["slots"])
    # backward
    if ("backward_error" in t) != ("backward_error" in g):
        diffs.append(f"backward ran: torch {'backward_error' in t}, gradcli {'backward_error' in g}")
        return diffs
    if "backward_error" not in t:
        return diffs
    if t["backward_error"] != g["backward_error"]:
        diffs.append(f"backward error: torch {t['backward_error']}, gradcli {g['backward_error']}")
    for i, (a, b) in enumerate(zip(t["grads"], g["grads"])):
        if a != "-":
            _cmp_tensor(diffs, f"input {i} .grad", a, b)
    if same_graph:
        for i, (a, b) in enumerate(zip(t["after_backward"], g["after_backward"])):
            _cmp_slots(diffs, f"after backward: node {i} {tg[i]['class']}", a, b)
    # weighted upstream gradient
    if "weighted" in t or "weighted" in g:
        tw, gw = t.get("weighted"), g.get("weighted")
        if tw is None or gw is None or tw["error"] != gw["error"]:
            diffs.append(f"grad with grad_outputs=W: torch {_short(tw)}, gradcli {_short(gw)}")
        elif tw["error"] is None:
            for i, (a, b) in enumerate(zip(tw["grads"], gw["grads"])):
                _cmp_tensor(diffs, f"grad with grad_outputs=W, input {i}", a, b)
    # second order
    if "second_order" in t:
        ts, gs = t["second_order"], g.get("second_order", {})
        if ts["first_error"] != gs.get("first_error"):
            diffs.append(f"create_graph grad error: torch {ts['first_error']}, gradcli {gs.get('first_error')}")
        elif ts["first_error"] is None:
            for i, (a, b) in enumerate(zip(ts["first"], gs["first"])):
                _cmp_tensor(diffs, f"first-order grad {i} (create_graph)", a, b)
                if a is not None and b is not None:
                    for k in ("requires_grad", "grad_fn"):
                        if a[k] != b[k]:
                            diffs.append(f"first-order grad {i} {k}: torch {a[k]!r}, gradcli {b[k]!r}")
            if ts["second_error"] != gs["second_error"]:
                diffs.append(f"second-order grad error: torch {ts['second_error']}, gradcli {gs['second_error']}")
            elif ts["second_error"] is None:
                for i, (a, b) in enumerate(zip(ts["second"], gs["second"])):
                    _cmp_tensor(diffs, f"second-order grad {i}", a, b)
    return diffs


def _fmt_graph(nodes):
    return "[" + ", ".join(f"{i}:{n['class']}->{[x for x, _ in n['next']]}" for i, n in enumerate(nodes)) + "]"


def check_op(fn, *input_specs, seed=0, backward=True, weighted=True, second_order=False, desc=None):
    """Run fn under torch and gradcli on the same inputs; fail listing every difference."""
    drawn = _draw(input_specs, seed)
    kw = dict(backward=backward, weighted=weighted, second_order=second_order, seed=seed)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")          # torch warns once per process: not comparable here
        t = op_facts(torch, fn, drawn, **kw)
        g = op_facts(G, fn, drawn, **kw)
    diffs = compare_facts(t, g)
    if diffs:
        what = desc or _describe(fn)
        shown = []
        for kind, v in drawn:
            if kind == "raw":
                shown.append(repr(v))
            else:
                arr, rg, dt = v
                shown.append(f"tensor({_rounded(arr.tolist())}, dtype=torch.{dt}"
                             f"{', requires_grad=True' if rg else ''})")
        raise AssertionError(f"gradcli differs from torch for {what}\n  inputs: " + "\n          ".join(shown)
                             + "\n" + "\n".join("* " + d for d in diffs))
    return t, g


def _rounded(v):
    if isinstance(v, list):
        return "[" + ", ".join(_rounded(x) for x in v) + "]"
    if isinstance(v, float):
        return repr(round(v, 4))
    return repr(v)


def _describe(fn):
    import inspect
    try:
        src = inspect.getsource(fn).strip()
    except (OSError, TypeError):
        src = repr(fn)
    return src if len(src) < 300 else src[:300] + " ..."
