"""Differential tests: gradcli against real PyTorch 2.13 (the test-only oracle).

* test_corpus: every script of scripts_corpus.CASES, run under torch and gradcli, must give
  the same stdout, error (type, message, line), warnings, end-state tensors and, per
  backward / autograd.grad call, the same nodes run, nodes freed and leaves updated.
* test_json_contract: for the corpus scripts about backward/freeing, the --json object of
  docs/json.md (json_view.as_dict) carries torch's facts, including error.cause for a second
  backward (the failing node, its line, its saved slots, the line of the call that freed them).
* test_oracle_*: the oracle itself reproduces documented torch facts and its
  instrumentation does not change what a script does (so a broken oracle can't hide bugs).
* test_random_scripts: hypothesis-generated straight-line scripts (leaves of shape (),
  (3,), (2,3), a random DAG of the supported ops, 1-3 backward / autograd.grad calls with
  random retain_graph, inputs=, allow_unused, some ops under no_grad, retain_grad() on some
  intermediates, .grad = None / .grad.zero_() between calls), compared the same way.  Values are kept in ranges where log, sqrt,
  division and fractional powers are defined and nothing overflows, so no nan/inf appears.
"""
from __future__ import annotations

import math

import pytest
from hypothesis import HealthCheck, given, note, seed, settings
from hypothesis import strategies as st

from oracle import SECOND_BACKWARD, assert_same, compare, numbered, run_torch, torch_freed_cause
from scripts_corpus import CASES

CASE_IDS = [c[0] for c in CASES]
CASE_SRC = dict(CASES)

# ----------------------------------------------------------------------------- corpus


@pytest.mark.parametrize("case_id", CASE_IDS)
def test_corpus(case_id):
    assert_same(CASE_SRC[case_id])


# ----------------------------------------------------------------------------- the JSON contract


def _json_mismatches(src):
    """docs/json.md's --json object (gradcli.views.json_view.as_dict) against torch."""
    from gradcli.session.executor import run_source
    from gradcli.views.json_view import as_dict
    t = run_torch(src)
    d = as_dict(run_source(src, "<script>", values=None, strict=False))
    out = []

    def check(what, torch_value, json_value):
        if torch_value != json_value:
            out.append(f"{what}: torch {torch_value!r}, json {json_value!r}")

    check("ok", t["error"] is None, d["ok"])
    check("stdout", t["stdout"], d["stdout"])
    te, je = t["error"], d["error"]
    check("error", None if te is None else (te["type"], te["message"], te["line"]),
          None if je is None else (je["type"], je["message"], je["line"]))
    cause = torch_freed_cause(t)
    if cause is not None:
        check("error.cause", cause, je and je.get("cause") and {
            "grad_fn": je["cause"].get("grad_fn"), "line": je["cause"].get("line"),
            "saved": sorted(je["cause"].get("saved") or []), "freed_by": je["cause"].get("freed_by")})
    events = [e for e in d["events"]
              if [n for n in e["ran"] if not n.endswith(("AccumulateGrad", "GraphRoot"))]
              or e["freed"] or e["updated"]]
    check("number of events", len(t["events"]), len(events))
    for i, (a, b) in enumerate(zip(t["events"], events)):
        check(f"event {i + 1}", {
            "kind": a["kind"], "line": a["line"], "retain_graph": a["retain_graph"],
            "freed": [{"grad_fn": n, "line": ln, "saved": sorted(sl)} for n, ln, sl in a["freed"]],
            "ran": [n for n, _ in a["ran"]], "updated": a["updated"]}, {
            "kind": b["kind"], "line": b["line"], "retain_graph": b["retain_graph"],
            "freed": [{"grad_fn": f["grad_fn"], "line": f["line"], "saved": sorted(f["saved"])}
                      for f in b["freed"]],
            "ran": [n for n in b["ran"] if not n.endswith(("AccumulateGrad", "GraphRoot"))],
            "updated": b["updated"]})
    check("tensor names", sorted(t["tensors"]), sorted(d["tensors"]))
    return out


JSON_CASES = [cid for cid in CASE_IDS
              if cid.startswith(("seed", "S", "freeing", "second-backward-", "unused-input", "scalar", "saved",
                                 "retain"))]


@pytest.mark.parametrize("case_id", JSON_CASES)
def test_json_contract(case_id):
    """`gradcli run --json` reports torch's facts: error (with its cause for a second backward), events, freed."""
    problems = _json_mismatches(CASE_SRC[case_id])
    assert not problems, ("JSON contract differs from torch for:\n" + numbered(CASE_SRC[case_id])
                          + "\n\n" + "\n".join("* " + p for p in problems))


# ----------------------------------------------------------------------------- oracle self-checks


def test_oracle_instrumentation_does_not_change_behaviour():
    """Tracer, call wrappers and hooks must not change what torch does."""
    problems = []
    for case_id, src in CASES:
        a = run_torch(src, instrument=True)
        b = run_torch(src, instrument=False)
        b["events"] = a["events"]           # not recorded without instrumentation
        diffs = compare(b, a)
        if diffs:
            problems.append(case_id + ":\n" + "\n".join(diffs))
    assert not problems, "\n\n".join(problems)


def test_oracle_reproduces_design_json_example():
    """docs/json.md's --json example for examples/seed000_block1.py (lines shifted: no header here)."""
    src = CASE_SRC["seed000-block1-2f-saves-scalar-second-backward-fails"]
    t = run_torch(src)
    assert t["error"]["type"] == "RuntimeError" and t["error"]["message"].startswith(SECOND_BACKWARD)
    assert t["error"]["line"] == 9
    bw1 = t["events"][0]
    assert (bw1["kind"], bw1["line"], bw1["retain_graph"]) == ("backward", 8, False)
    assert bw1["freed"] == [("PowBackward0", 6, ("self",)), ("MulBackward0", 5, ("other",))]
    assert t["tensors"]["x"]["grad"] == [40.0]
    assert torch_freed_cause(t) == {"grad_fn": "MulBackward0", "line": 5, "saved": ["other"], "freed_by": 8}


@pytest.mark.parametrize("case_id,updated", [
    ("S1-sum-x-plus-sum-yy-bw2-updates-nothing", []),
    ("S2-sum-yy-plus-sum-x-bw2-updates-x", ["x"]),
    ("S4-leaf-also-feeding-failing-node-gets-no-update", ["y"]),
    ("S10-xy-then-z-plus-w-bw2-updates-z-w", ["z", "w"]),
    ("S14-stack-xyzw-accumulates-heap-order", ["x", "z", "y", "w"]),
])
def test_oracle_reproduces_scheduling_table(case_id, updated):
    """Leaves changed by the second backward."""
    t = run_torch(CASE_SRC[case_id])
    assert t["events"][1]["updated"] == updated


def test_oracle_freeing_of_partial_failure():
    """A failing 2nd backward frees the nodes that ran before the failure."""
    t = run_torch(CASE_SRC["freeing-failure-part-way-frees-nodes-that-ran"])
    second = t["events"][1]
    assert [n[0] for n in second["ran"]] == ["SumBackward0", "SinBackward0", "MulBackward0"]
    assert second["freed"] == [("SinBackward0", 6, ("self",))]


# ----------------------------------------------------------------------------- random scripts

LEAF_VALUES = [0.25, 0.5, 0.75, 1.0, 1.25, 1.5, 2.0, -0.5, -1.0, -1.5]
SCALARS = [2, 3, 0.5, 1.5, -1, 2.0]
LIMIT = 200.0           # keep every |value| below this (float32-safe, readable prints)
RETAIN_GRAD = True      # also call retain_grad() on some intermediates
FLOAT64 = True          # some leaves are float64 (type promotion)


class Var:
    def __init__(self, name, shape, lo, hi, rg, leaf=False):
        self.name, self.shape, self.lo, self.hi, self.rg, self.leaf = name, shape, lo, hi, rg, leaf

    @property
    def numel(self):
        return math.prod(self.shape)


def _bcast(s1, s2):
    if s1 == s2 or not s2:
        return s1
    if not s1:
        return s2
    if s1 == (2, 3) and s2 == (3,) or s1 == (3,) and s2 == (2, 3):
        return (2, 3)
    return None


def _span(vals):
    vals = [v for v in vals if not math.isnan(v)]
    return min(vals), max(vals)


def _fmt(v):
    return repr(float(v)) if isinstance(v, float) else repr(v)


def _nested(values, shape):
    if not shape:
        return _fmt(values[0])
    if len(shape) == 1:
        return "[" + ", ".join(_fmt(v) for v in values) + "]"
    n = shape[1]
    return "[" + ", ".join(_nested(values[i * n:(i + 1) * n], shape[1:]) for i in range(shape[0])) + "]"


@st.composite
def scripts(draw):
    lines = ["import torch"]
    vars_ = []
    n_leaves = draw(st.integers(1, 3), label="leaves")
    for i in range(n_leaves):
        name = "abc"[i]
        shape = draw(st.sampled_from([(3,), (), (2, 3)]), label=f"{name}.shape")
        vals = draw(st.lists(st.sampled_from(LEAF_VALUES), min_size=math.prod(shape),
                             max_size=math.prod(shape)), label=f"{name}.values")
        rg = draw(st.booleans(), label=f"{name}.rg") or i == 0
        f64 = draw(st.integers(0, 7), label=f"{name}.f64") == 7 and FLOAT64
        args = _nested(vals, shape)
        if f64:
            args += ", dtype=torch.float64"
        if rg:
            args += ", requires_grad=True"
        lines.append(f"{name} = torch.tensor({args})")
        vars_.append(Var(name, shape, min(vals), max(vals), rg, leaf=True))

    n_ops = draw(st.integers(1, 7), label="ops")
    k = 0
    for _ in range(n_ops):
        made = None
        for _attempt in range(6):
            made = _draw_op(draw, vars_, f"t{k}")
            if made is not None:
                break
        if made is None:
            continue
        expr, var = made
        if draw(st.integers(0, 9), label="no_grad") == 9:
            lines += ["with torch.no_grad():", f"    {var.name} = {expr}"]
            var.rg = False
        else:
            lines.append(f"{var.name} = {expr}")
        vars_.append(var)
        k += 1
        if RETAIN_GRAD and var.rg and draw(st.integers(0, 9), label="retain_grad") == 9:
            lines.append(f"{var.name}.retain_grad()")

    leaves = [v for v in vars_ if v.leaf]
    n_calls = draw(st.integers(1, 3), label="calls")
    for _ in range(n_calls):
        lines.extend(_draw_call(draw, vars_))
        reset = draw(st.integers(0, 7), label="reset")
        if reset >= 6:
            leaf = draw(st.sampled_from(leaves))
            if reset == 6:
                lines.append(f"{leaf.name}.grad = None")
            else:
                lines += [f"if {leaf.name}.grad is not None:", f"    {leaf.name}.grad.zero_()"]
    for leaf in leaves:
        lines.append(f"print({leaf.name!r}, {leaf.name}.grad)")
    shown = draw(st.lists(st.sampled_from(vars_), max_size=2, unique_by=lambda v: v.name), label="show")
    for v in shown:
        lines.append(f"print({v.name!r}, {v.name})")
    if draw(st.integers(0, 5), label="nonleaf-grad") == 5:
        nonleaf = [v for v in vars_ if not v.leaf]
        if nonleaf:
            lines.append(f"print({nonleaf[-1].name}.grad)")
    return "\n".join(lines) + "\n"


def _draw_op(draw, vars_, name):
    kind = draw(st.sampled_from(["binary", "scalar", "unary", "unary", "reduce", "matmul",
                                 "binary", "scalar", "detach"]), label="op kind")
    a = _recent(draw, vars_, "a")
    if kind == "binary":
        b = _recent(draw, vars_, "b")
        op = draw(st.sampled_from(["+", "-", "*", "/", "**"]), label="binop")
        shape = _bcast(a.shape, b.shape)
        if shape is None:
            return None
        if op == "+":
            lo, hi = a.lo + b.lo, a.hi + b.hi
        elif op == "-":
            lo, hi = a.lo - b.hi, a.hi - b.lo
        elif op == "*":
            lo, hi = _span([a.lo * b.lo, a.lo * b.hi, a.hi * b.lo, a.hi * b.hi])
        elif op == "/":
            if b.lo < 0.25:
                return None
            lo, hi = _span([a.lo / b.lo, a.lo / b.hi, a.hi / b.lo, a.hi / b.hi])
        else:
            if a.lo < 0.25 or a.hi > 4 or b.lo < -2 or b.hi > 3:
                return None
            lo, hi = _span([a.lo ** b.lo, a.lo ** b.hi, a.hi ** b.lo, a.hi ** b.hi, 1.0])
        expr = f"{a.name} {op} {b.name}"
        rg = a.rg or b.rg
    elif kind == "scalar":
        c = draw(st.sampled_from(SCALARS), label="c")
        op = draw(st.sampled_from(["+", "-", "*", "/", "**"]), label="scalar op")
        left = draw(st.booleans(), label="scalar on the left")
        shape = a.shape
        if op == "+":
            lo, hi = a.lo + c, a.hi + c
        elif op == "-":
            lo, hi = (c - a.hi, c - a.lo) if left else (a.lo - c, a.hi - c)
        elif op == "*":
            lo, hi = _span([a.lo * c, a.hi * c])
        elif op == "/":
            if left:
                if a.lo < 0.25:
                    return None
                lo, hi = _span([c / a.lo, c / a.hi])
            else:
                lo, hi = _span([a.lo / c, a.hi / c])
        else:
            if left:
                if c <= 0 or a.hi > 6:
                    return None
                lo, hi = _span([c ** a.lo, c ** a.hi])
            else:
                if c in (2, 3, 2.0):
                    if max(abs(a.lo), abs(a.hi)) > 5:
                        return None
                    lo, hi = _span([a.lo ** c, a.hi ** c, 0.0 if a.lo < 0 < a.hi else a.lo ** c])
                else:
                    if a.lo < 0.25:
                        return None
                    lo, hi = _span([a.lo ** c, a.hi ** c])
        expr = f"{_fmt(c)} {op} {a.name}" if left else f"{a.name} {op} {_fmt(c)}"
        rg = a.rg
    elif kind == "unary":
        fn = draw(st.sampled_from(["exp", "log", "sin", "cos", "tanh", "sigmoid", "relu", "sqrt",
                                   "abs", "neg"]), label="unary")
        shape = a.shape
        if fn == "exp":
            if a.hi > 3:
                return None
            lo, hi = math.exp(a.lo), math.exp(a.hi)
        elif fn in ("log", "sqrt"):
            if a.lo < 0.25:
                return None
            f = math.log if fn == "log" else math.sqrt
            lo, hi = f(a.lo), f(a.hi)
        elif fn in ("sin", "cos"):
            lo, hi = -1.0, 1.0
        elif fn == "tanh":
            lo, hi = math.tanh(a.lo), math.tanh(a.hi)
        elif fn == "sigmoid":
            lo, hi = 1 / (1 + math.exp(-a.lo)), 1 / (1 + math.exp(-a.hi))
        elif fn == "relu":
            lo, hi = max(a.lo, 0.0), max(a.hi, 0.0)
        elif fn == "abs":
            lo = 0.0 if a.lo <= 0 <= a.hi else min(abs(a.lo), abs(a.hi))
            hi = max(abs(a.lo), abs(a.hi))
        else:
            lo, hi = -a.hi, -a.lo
        if fn == "neg":
            expr = f"-{a.name}"
        elif draw(st.booleans(), label="torch.fn form"):
            expr = f"torch.{fn}({a.name})"
        else:
            expr = f"{a.name}.{fn}()"
        rg = a.rg
    elif kind == "reduce":
        fn = draw(st.sampled_from(["sum", "mean"]), label="reduction")
        if a.shape and draw(st.booleans(), label="with dim"):
            d = draw(st.integers(-len(a.shape), len(a.shape) - 1), label="dim")
            n = a.shape[d]
            shape = tuple(s for i, s in enumerate(a.shape) if i != d % len(a.shape))
            expr = f"{a.name}.{fn}(dim={d})" if draw(st.booleans(), label="dim kw") else f"{a.name}.{fn}({d})"
        else:
            n = a.numel
            shape = ()
            expr = f"{a.name}.{fn}()"
        lo, hi = (a.lo * n, a.hi * n) if fn == "sum" else (a.lo, a.hi)
        lo, hi = min(lo, a.lo), max(hi, a.hi)
        rg = a.rg
    elif kind == "matmul":
        b = _recent(draw, vars_, "b")
        if a.shape == (3,) and b.shape == (3,):
            shape = ()
        elif a.shape == (2, 3) and b.shape == (3,):
            shape = (2,)
        else:
            return None
        lo, hi = _span([a.lo * b.lo, a.lo * b.hi, a.hi * b.lo, a.hi * b.hi])
        lo, hi = min(3 * lo, lo), max(3 * hi, hi)
        expr = f"{a.name} @ {b.name}"
        rg = a.rg or b.rg
    else:
        shape, lo, hi, rg = a.shape, a.lo, a.hi, False
        expr = f"{a.name}.detach()"
    if max(abs(lo), abs(hi)) > LIMIT:
        return None
    return expr, Var(name, shape, lo, hi, rg)


def _recent(draw, pool, label):
    """Pick from pool, most recent first (so graphs get deep and shrinking keeps the newest)."""
    return pool[-1 - draw(st.integers(0, len(pool) - 1), label=label)]


def _draw_call(draw, vars_):
    rg_vars = [v for v in vars_ if v.rg]
    root = _recent(draw, rg_vars or vars_, "root")
    kind = draw(st.sampled_from(["backward", "backward", "grad"]), label="call kind")
    retain = draw(st.sampled_from([None, None, True, False]), label="retain_graph")
    reduce_ = bool(root.shape) and draw(st.booleans(), label="sum the root")
    expr = f"{root.name}.sum()" if reduce_ else root.name
    if len(rg_vars) > 1 and draw(st.integers(0, 3), label="two-term loss") == 3:
        other = _recent(draw, rg_vars, "second root")
        if other is not root:
            expr = f"({expr if reduce_ or not root.shape else root.name + '.sum()'} + {other.name}.sum())"
            reduce_ = True
    needs_grad = bool(root.shape) and not reduce_
    opts = []
    if kind == "backward":
        if needs_grad:
            opts.append(f"torch.ones_like({root.name})")
        if retain is not None:
            opts.append(f"retain_graph={retain}")
        if rg_vars and draw(st.integers(0, 4), label="inputs=") == 4:
            inp = draw(st.sampled_from(rg_vars), label="input")
            opts.append(f"inputs=[{inp.name}]")
        call = f"{expr}.backward({', '.join(opts)})"
    else:
        inputs = draw(st.lists(st.sampled_from(rg_vars or vars_), min_size=1, max_size=2,
                               unique_by=lambda v: v.name), label="grad inputs")
        opts.append(f"[{', '.join(v.name for v in inputs)}]")
        if needs_grad:
            opts.append(f"grad_outputs=torch.ones_like({root.name})")
        if retain is not None:
            opts.append(f"retain_graph={retain}")
        if draw(st.booleans(), label="allow_unused"):
            opts.append("allow_unused=True")
        call = f"print('grad', torch.autograd.grad({expr}, {', '.join(opts)}))"
    if draw(st.integers(0, 4), label="uncaught") == 0:
        return [call]
    return ["try:", f"    {call}", "except RuntimeError as e:", "    print('RuntimeError:', e)"]


@seed(20260613)
@settings(max_examples=300, deadline=None, database=None, print_blob=True,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(scripts())
def test_random_scripts(script):
    note("script:\n" + script)
    assert_same(script)
