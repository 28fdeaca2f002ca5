"""In-place ops, views and version counters: whole scripts run under real PyTorch 2.13 and
gradcli through oracle.assert_same (stdout, the escaping error, end-state tensors and grads,
and per backward/grad call the nodes run, the nodes freed and the leaves updated).

* test_torch_facts_*: hand-written scripts, one per rule of in-place checking ("a variable
  needed for gradient computation has been modified by an inplace operation"), the in-place
  errors on leaves and on views of leaves, and when saved tensors are freed.
* test_random_inplace_scripts: hypothesis scripts mixing in-place ops (+=, -=, *=, add_,
  sub_, mul_ (also of a tensor by itself), div_, pow_, zero_, fill_, clamp_, copy_, t_,
  index assignment, `.data` writes), views
  (reshape/view/transpose/t/indexing/unsqueeze/detach), plain ops that save inputs or
  outputs, `torch.no_grad()` blocks, `_version` and grad_fn prints, backward and
  autograd.grad calls.  Statements that may raise are wrapped in try/except so the error
  texts (a second backward, no grad_fn, modified in place, in place on a leaf or its view,
  shape errors, ...) are compared through stdout.
"""
from __future__ import annotations

import textwrap

import pytest
from hypothesis import HealthCheck, Phase, given, note, seed, settings
from hypothesis import strategies as st

from oracle import assert_same, assert_same_but_warning_tracebacks, compare, numbered, run_gradcli, run_torch

# ============================================================================ hand-written cases

CASES = {}


def case(cid, src):
    assert cid not in CASES, cid
    CASES[cid] = textwrap.dedent(src).strip("\n") + "\n"


TRY = "try:\n    {}\nexcept RuntimeError as e:\n    print('RuntimeError:', e)"

# --- modified in place: the message's <type> and <sizes> ---------------------------------
for cid, ctor in [("float32-[2]", "torch.tensor([1., 2.], requires_grad=True)"),
                  ("float32-[2, 3]", "torch.ones(2, 3, requires_grad=True)"),
                  ("float32-[1, 2, 1]", "torch.ones(1, 2, 1, requires_grad=True)"),
                  ("float32-0d", "torch.tensor(1.5, requires_grad=True)"),
                  ("float64-[2]", "torch.tensor([1., 2.], dtype=torch.float64, requires_grad=True)"),
                  ("float64-0d", "torch.tensor(0.5, dtype=torch.float64, requires_grad=True)")]:
    case(f"modified-type-and-sizes-{cid}", f"""
        import torch
        x = {ctor}
        a = x * 1
        r = a.sin()
        a.add_(1)
        r.sum().backward()
        """)

# --- <which>: non-leaf names a node, a leaf has no clause ---------------------------------
case("modified-leaf-saved-by-mul-has-no-which-clause", """
    import torch
    xn = torch.tensor([1., 2.])
    y = torch.tensor([3., 4.], requires_grad=True)
    z = xn * y
    xn.add_(1)
    print(xn._version)
    z.sum().backward()
    """)
case("modified-leaf-0d-no-which-clause", """
    import torch
    xn = torch.tensor(2.)
    y = torch.tensor([3., 4.], requires_grad=True)
    z = (y * xn).sum()
    xn.mul_(3)
    z.backward()
    """)

# --- <Name>: the in-place node's short name ------------------------------------------------
for name, stmt in [("Add", "a.add_(1)"), ("Add-augmented", "a += 1"), ("Mul", "a.mul_(2)"), ("Mul-aug", "a *= 2"),
                   ("Sub", "a.sub_(1)"), ("Sub-aug", "a -= 1"), ("Div", "a.div_(2)"), ("Div-aug", "a /= 2"),
                   ("Zero", "a.zero_()"), ("Fill2", "a.fill_(0.5)"), ("Clamp1", "a.clamp_(-0.5, 0.5)"),
                   ("Clamp1-min", "a.clamp_(min=0)"), ("CopySlices", "a[0] = 5."),
                   ("CopySlices-slice", "a[1:] = 0."), ("CopyBackwards", "a.copy_(torch.ones(2))"),
                   ("Add-tensor", "a.add_(torch.ones(2))"), ("Mul-tensor-rg", "a.mul_(w)"),
                   ("Add-alpha", "a.add_(w, alpha=2)")]:
    case(f"modified-name-{name}", f"""
        import torch
        x = torch.tensor([1., 2.], requires_grad=True)
        w = torch.tensor([0.5, 3.], requires_grad=True)
        a = x * 1
        r = a.sin()
        {stmt}
        print(a.grad_fn.name(), a._version)
        {TRY.format("r.sum().backward()").replace(chr(10), chr(10) + " " * 8)}
        print(x.grad, w.grad)
        """)
# the producer's name, for each kind of op whose output is saved (modified output)
for name, expr in [("Exp", "x.exp()"), ("Sigmoid", "x.sigmoid()"), ("Tanh", "x.tanh()"), ("Relu", "x.relu()"),
                   ("Sqrt", "x.sqrt()"), ("Pow-tensor", "x ** x"), ("Reciprocal", "x.reciprocal()"),
                   ("Softmax", "x.softmax(0)"), ("Mul-then-exp", "(x * 2).exp()")]:
    case(f"modified-output-modified-names-producer-{name}", f"""
        import torch
        x = torch.tensor([1., 2.], requires_grad=True)
        b = {expr}
        b += 1
        print(b.grad_fn.name())
        b.sum().backward()
        """)
# the input's current grad_fn, for ops that save their input
for name, expr in [("Mul", "a * a"), ("Pow", "a ** 2"), ("Sin", "a.sin()"), ("Log", "a.log()"), ("Abs", "a.abs()"),
                   ("Neg-then-mul", "(-a) * a"), ("Div", "x / a"), ("Matmul-dot", "a @ a"),
                   ("Max", "a.max()"), ("Clamp", "a.clamp(0, 1)"), ("Index", "a[[0, 1]] * 1"), ("Tanh", "a.tanh()")]:
    case(f"modified-input-modified-names-current-grad-fn-{name}", f"""
        import torch
        x = torch.tensor([1., 2.], requires_grad=True)
        a = x.exp()
        r = {expr}
        a.mul_(2)
        r.sum().backward()
        """)
case("modified-t_-inplace-names-T1", """
    import torch
    x = torch.ones(2, 3, requires_grad=True)
    a = x * 1
    r = a.sin()
    a.t_()
    print(a.shape, a.grad_fn.name())
    r.sum().backward()
    """)
case("modified-neg_-and-chain-of-inplace", """
    import torch
    x = torch.tensor([1., 2.], requires_grad=True)
    a = x * 1
    r = a.cos()
    a.add_(1).mul_(2)
    print(a._version, a.grad_fn.name())
    r.sum().backward()
    """)

# --- which node is named: saved input vs saved output, no_grad keeps the old grad_fn ------------
case("modified-saved-input-named-by-inplace-op-Add", """
    import torch
    x = torch.tensor([1., 2.], requires_grad=True)
    a = x * 1
    r = a.sin()
    a.add_(1)
    r.sum().backward()
    """)
case("modified-saved-input-inplace-under-no-grad-names-Mul", """
    import torch
    x = torch.tensor([1., 2.], requires_grad=True)
    a = x * 1
    r = a.sin()
    with torch.no_grad():
        a.add_(1)
    print(a.grad_fn.name(), a._version)
    r.sum().backward()
    """)
case("modified-saved-output-named-by-producer-Exp", """
    import torch
    x = torch.tensor([1., 2.], requires_grad=True)
    b = x.exp()
    b += 1
    print(b.grad_fn.name(), b._version)
    b.sum().backward()
    """)
case("modified-saved-output-modified-under-no-grad", """
    import torch
    x = torch.tensor([1., 2.], requires_grad=True)
    b = x.exp()
    with torch.no_grad():
        b.mul_(2)
    print(b.grad_fn.name(), b._version)
    b.sum().backward()
    """)

# --- <v>: versions count every in-place op (also under no_grad); .data does not ---------------
case("modified-version-counts-every-inplace-op", """
    import torch
    x = torch.tensor([1., 2.], requires_grad=True)
    a = x * 1
    r = a.sin()
    a.add_(1)
    a.mul_(2)
    with torch.no_grad():
        a.sub_(1)
    a[0] = 3.
    print(a._version)
    r.sum().backward()
    """)
case("modified-version-no-grad-inplace-bumps-and-raises", """
    import torch
    x = torch.tensor([1., 2.], requires_grad=True)
    a = x * 1
    r = a.sin()
    with torch.no_grad():
        a.zero_()
        a.fill_(2.)
    print(a._version)
    r.sum().backward()
    """)
case("modified-data-inplace-not-counted-silently-wrong-grad", """
    import torch
    x = torch.tensor([1., 2.], requires_grad=True)
    a = x * 1
    r = a.sin()
    a.data.add_(1)
    print(a._version, a)
    r.sum().backward()
    print(x.grad)
    """)
case("modified-data-of-leaf-inplace-allowed", """
    import torch
    x = torch.tensor([1., 2.], requires_grad=True)
    y = x * x
    x.data.mul_(3)
    print(x, x._version)
    y.sum().backward()
    print(x.grad)
    """)
case("modified-version-of-leaf-and-views", """
    import torch
    xn = torch.zeros(2, 3)
    v = xn[0]
    t = xn.t()
    d = xn.detach()
    v.add_(1)
    t.mul_(2)
    d[1, 1] = 5.
    print(xn._version, v._version, t._version, d._version)
    print(xn)
    """)

# --- modified in place, also from reading _saved_* ----------------------------------------------
case("modified-reading-saved-attribute-raises", """
    import torch
    x = torch.tensor([1., 2.], requires_grad=True)
    a = x * 1
    r = a.sin()
    a.add_(1)
    try:
        print(r.grad_fn._saved_self)
    except RuntimeError as e:
        print('RuntimeError:', e)
    c = x.exp()
    c.mul_(2)
    print(c.grad_fn.next_functions[0][0]._saved_result)
    """)

# --- cases that do not raise / do raise through detach ------------------------------------------
case("modified-no-raise-exp-saves-result-mul-saves-scalar", """
    import torch
    x = torch.tensor([1., 2.], requires_grad=True)
    a = x * 2
    b = a.exp()
    a += 1
    b.sum().backward()
    print(x.grad)
    """)
case("modified-no-raise-pow-saves-x-not-y", """
    import torch
    x = torch.tensor([1., 2.], requires_grad=True)
    y = x.pow(2)
    y.add_(1)
    y.sum().backward()
    print(x.grad, y)
    """)
case("modified-detach-shares-version-counter-raises", """
    import torch
    x = torch.tensor([1., 2.], requires_grad=True)
    y = x.exp()
    y.detach().add_(1)
    print(y._version)
    y.sum().backward()
    """)
case("modified-detach-then-view-shares-version", """
    import torch
    x = torch.tensor([[1., 2.], [3., 4.]], requires_grad=True)
    y = x.sigmoid()
    d = y.detach()
    d[0].zero_()
    print(y._version, d._version, y)
    y.sum().backward()
    """)
case("modified-view-modified-base-saved", """
    import torch
    x = torch.tensor([[1., 2.], [3., 4.]], requires_grad=True)
    a = x * 1
    r = a.tanh()
    a[0].add_(1)
    print(a._version, a.grad_fn.name())
    r.sum().backward()
    """)
case("modified-base-modified-view-saved", """
    import torch
    x = torch.tensor([[1., 2.], [3., 4.]], requires_grad=True)
    a = x * 1
    v = a.view(4)
    r = v.sin()
    a.mul_(2)
    print(v._version, v.grad_fn.name())
    r.sum().backward()
    """)
case("modified-inplace-on-view-then-backward-through-base-ok", """
    import torch
    x = torch.tensor([[1., 2.], [3., 4.]], requires_grad=True)
    a = x * 2
    v = a[1]
    v.mul_(3)
    print(a, a.grad_fn.name(), v.grad_fn.name())
    a.sum().backward()
    print(x.grad)
    """)

# --- anomaly mode: the hint changes; the UserWarning's traceback is not compared here ----------
ANOMALY = """
    import torch
    torch.autograd.set_detect_anomaly(True)
    x = torch.tensor([1., 2.], requires_grad=True)
    a = x * 1
    r = a.sin()
    a.add_(1)
    try:
        r.sum().backward()
    except RuntimeError as e:
        print('RuntimeError:', e)
    torch.autograd.set_detect_anomaly(False)
    """

# --- in place on a leaf that requires grad, or on a view of one --------------------------------
for cid, stmt in [("leaf-inplace-add_", "x.add_(1)"), ("leaf-inplace-augmented", "x += 1"),
                  ("leaf-inplace-zero_", "x.zero_()"), ("leaf-inplace-sub_-tensor", "x.sub_(torch.ones(2))"),
                  ("leaf-inplace-mul_", "x.mul_(2)"), ("leaf-inplace-div_", "x /= 2"),
                  ("leaf-inplace-fill_", "x.fill_(1.)"), ("leaf-inplace-clamp_", "x.clamp_(0, 1)"),
                  ("leaf-inplace-copy_", "x.copy_(torch.zeros(2))"),
                  ("leaf-view-inplace-setitem", "x[0] = 5."), ("leaf-view-inplace-slice-add_", "x[0:1].add_(1)"),
                  ("leaf-view-inplace-view-mul_", "x.view(2).mul_(2)"),
                  ("leaf-view-inplace-select-zero_", "x[1].zero_()"), ("leaf-view-inplace-setitem-mask", "x[x > 1] = 0."),
                  ("leaf-view-inplace-t-augmented", "x.unsqueeze(0)[0] += 1")]:
    case(f"{cid}-on-leaf-requiring-grad", f"""
        import torch
        x = torch.tensor([2., 3.], requires_grad=True)
        try:
            {stmt}
        except RuntimeError as e:
            print('RuntimeError:', e)
        print(x, x._version)
        """)
    case(f"{cid}-allowed-under-no-grad", f"""
        import torch
        x = torch.tensor([2., 3.], requires_grad=True)
        with torch.no_grad():
            {stmt}
        print(x, x._version, x.is_leaf, x.grad_fn)
        """)
case("leaf-inplace-allowed-through-data", """
    import torch
    x = torch.tensor([2., 3.], requires_grad=True)
    x.data.add_(1)
    x.data[0] = 7.
    print(x, x._version)
    """)
case("leaf-inplace-uncaught-error-line", """
    import torch
    x = torch.tensor([2., 3.], requires_grad=True)
    y = x * 2
    x += 1
    print(y)
    """)
case("leaf-inplace-leaf-not-requiring-grad-is-fine-and-becomes-nonleaf", """
    import torch
    x = torch.tensor([2., 3.], requires_grad=True)
    n = torch.zeros(2)
    n.add_(x)
    print(n, n.is_leaf, n.requires_grad, n.grad_fn.name())
    n.mul_(x)
    n.sum().backward()
    print(x.grad)
    """)
case("leaf-inplace-setitem-rg-value-into-plain-tensor", """
    import torch
    x = torch.tensor([2., 3.], requires_grad=True)
    n = torch.zeros(3)
    n[1:] = x * 2
    print(n, n.grad_fn.name())
    n.sum().backward()
    print(x.grad)
    """)
case("leaf-inplace-inplace-on-nonleaf-rebases-grad-fn", """
    import torch
    x = torch.tensor([2., 3.], requires_grad=True)
    y = x * 2
    print(y.grad_fn.name())
    y.add_(1)
    print(y.grad_fn.name(), y.grad_fn.next_functions[0][0].name())
    y.mul_(y)
    print(y.grad_fn.name(), y._version)
    y.sum().backward()
    print(x.grad)
    """)
case("leaf-inplace-view-created-in-no-grad-modified-in-grad-mode", """
    import torch
    x = torch.tensor([2., 3.], requires_grad=True)
    a = x * 1
    with torch.no_grad():
        v = a[0:1]
    try:
        v.add_(1)
    except RuntimeError as e:
        print('RuntimeError:', e)
    print(a, v)
    """)

# --- when saved tensors are freed -----------------------------------------------------------
case("free-nodes-not-traversed-keep-everything", """
    import torch
    x = torch.tensor([1., 2.], requires_grad=True)
    y = torch.tensor([3., 4.], requires_grad=True)
    a = x * y
    b = a.exp()
    c = a.sin()
    b.sum().backward()
    print(c.grad_fn._saved_self)
    try:
        print(b.grad_fn._saved_result)
    except RuntimeError as e:
        print('RuntimeError:', e)
    try:
        print(a.grad_fn._saved_self)
    except RuntimeError as e:
        print('RuntimeError:', e)
    c.sum().backward()
    """)
case("free-autograd-grad-frees-only-executed", """
    import torch
    x = torch.tensor([1., 2.], requires_grad=True)
    y = torch.tensor([3., 4.], requires_grad=True)
    z = torch.tensor([0.5, 1.5], requires_grad=True)
    h = (x * y).exp()
    L = h.sin().sum() + z.cos().sum()
    g, = torch.autograd.grad(L, x)
    print(g)
    print(L.grad_fn.next_functions[1][0].next_functions[0][0]._saved_self)
    L.backward()
    """)
case("free-autograd-grad-wrt-nonleaf-keeps-nodes-below", """
    import torch
    x = torch.tensor([1., 2.], requires_grad=True)
    h = (x * 3).exp()
    L = h.sin().sum()
    g, = torch.autograd.grad(L, h)
    print(g, h.grad_fn._saved_result)
    L.backward()
    """)
case("free-backward-inputs-nonleaf-runs-and-frees-its-node", """
    import torch
    x = torch.tensor([1., 2.], requires_grad=True)
    h = x.exp()
    L = h.sin().sum()
    L.backward(inputs=[h])
    print(h.grad, x.grad)
    try:
        print(h.grad_fn._saved_result)
    except RuntimeError as e:
        print('RuntimeError:', e)
    """)
case("free-backward-inputs-leaf-leaves-other-branch", """
    import torch
    x = torch.tensor([1., 2.], requires_grad=True)
    z = torch.tensor([3., 4.], requires_grad=True)
    L = x.sin().sum() + z.cos().sum()
    L.backward(inputs=[x])
    print(x.grad, z.grad)
    print(L.grad_fn.next_functions[1][0].next_functions[0][0]._saved_self)
    """)
for cid, call in [("default", "L.backward()"), ("create_graph", "L.backward(create_graph=True)"),
                  ("retain_graph", "L.backward(retain_graph=True)"),
                  ("create-graph-retain-false", "L.backward(create_graph=True, retain_graph=False)"),
                  ("grad-default", "torch.autograd.grad(L, x)"),
                  ("grad-create-graph", "torch.autograd.grad(L, x, create_graph=True)")]:
    case(f"free-defaults-{cid}", f"""
        import torch
        x = torch.tensor([1., 2.], requires_grad=True)
        L = (x * x).sum()
        {call}
        try:
            print(L.grad_fn.next_functions[0][0]._saved_self)
        except RuntimeError as e:
            print('RuntimeError:', e)
        {TRY.format("L.backward()").replace(chr(10), chr(10) + " " * 8)}
        print(x.grad)
        """)
case("free-failure-part-way-second-backward", """
    import torch
    x = torch.tensor([1., 2.], requires_grad=True)
    z = torch.tensor([3., 4.], requires_grad=True)
    y = torch.tensor([0.5, -1.], requires_grad=True)
    c = z.cos()
    a = x * y
    s = a.sin()
    a.sum().backward()
    L = s.sum() + c.sum()
    try:
        L.backward()
    except RuntimeError as e:
        print('RuntimeError:', e)
    try:
        print(s.grad_fn._saved_self)
    except RuntimeError as e:
        print('RuntimeError:', e)
    print(c.grad_fn._saved_self, x.grad, z.grad)
    """)
case("free-failure-part-way-first-backward-version-error", """
    import torch
    x = torch.tensor([1., 2.], requires_grad=True)
    y = torch.tensor([3., 4.], requires_grad=True)
    a = x * 1
    p = a ** 2
    e = y.exp()
    L = p.sum() + e.sum()
    a.add_(1)
    try:
        L.backward()
    except RuntimeError as err:
        print('RuntimeError:', err)
    print(x.grad, y.grad)
    try:
        print(e.grad_fn._saved_result)
    except RuntimeError as err:
        print('RuntimeError:', err)
    try:
        print(p.grad_fn._saved_self)
    except RuntimeError as err:
        print('RuntimeError:', err)
    try:
        L.backward()
    except RuntimeError as err:
        print('RuntimeError:', err)
    print(x.grad, y.grad)
    """)
case("free-failure-version-error-with-retain-graph-frees-nothing", """
    import torch
    x = torch.tensor([1., 2.], requires_grad=True)
    y = torch.tensor([3., 4.], requires_grad=True)
    a = x * 1
    p = a ** 2
    e = y.exp()
    L = p.sum() + e.sum()
    a.add_(1)
    try:
        L.backward(retain_graph=True)
    except RuntimeError as err:
        print('RuntimeError:', err)
    print(y.grad, e.grad_fn._saved_result)
    """)
case("free-retain-then-plain-then-third", """
    import torch
    x = torch.tensor([1., 2.], requires_grad=True)
    L = (x * x).sum()
    L.backward(retain_graph=True)
    L.backward()
    print(x.grad)
    try:
        L.backward()
    except RuntimeError as e:
        print('RuntimeError:', e)
    print(x.grad)
    """)
case("free-graph-without-saved-tensors-and-with", """
    import torch
    x = torch.tensor([1., 2.], requires_grad=True)
    L = (x + 1).sum()
    L.backward()
    L.backward()
    L.backward()
    print(x.grad)
    M = (x * 2).sum()
    M.backward()
    M.backward()
    """)
case("free-inplace-then-retain-and-free", """
    import torch
    x = torch.tensor([1., 2.], requires_grad=True)
    a = x.sigmoid()
    b = a * 3
    b.add_(1)
    L = b.sum()
    L.backward(retain_graph=True)
    print(x.grad, b._version)
    L.backward()
    print(x.grad)
    L.backward()
    """)

CASE_IDS = list(CASES)


@pytest.mark.parametrize("cid", CASE_IDS)
def test_torch_facts_cases(cid):
    _same(CASES[cid])


def test_torch_facts_anomaly_mode_hint():
    """With anomaly mode the modified-in-place hint changes; the warning that precedes it carries a Python
    traceback of the forward call, so only its first line is compared."""
    assert_same_but_warning_tracebacks(textwrap.dedent(ANOMALY).strip("\n") + "\n")


# torch gives these UserWarnings once per *process* (TORCH_WARN_ONCE): an in-process oracle sees
# them only for the first script that triggers them, so they are dropped on both sides.
ONCE_PER_PROCESS = ("Using backward() with create_graph=True",
                    "Converting a tensor with requires_grad=True to a scalar")


def _same(src):
    message = None
    if "create_graph=True" in src:
        t, g = run_torch(src), run_gradcli(src)
        for facts in (t, g):
            facts["warnings"] = [w for w in facts["warnings"] if not w[1].startswith(ONCE_PER_PROCESS)]
        diffs = compare(t, g)
        if diffs:
            message = ("gradcli differs from torch for this script (once-per-process warnings ignored):\n"
                       + numbered(src) + "\n\n" + "\n".join("* " + d for d in diffs))
    else:
        try:
            assert_same(src)
        except AssertionError as e:
            message = str(e)
    if message:                 # no costly traceback: the message has the script and the diff
        pytest.fail(message, pytrace=False)


# ============================================================================ generated scripts

# Shrinking is off: a failing run would otherwise spend minutes minimising, and the scripts
# are short already (3-10 steps).  Every distinct failure is still reported with its script.
NO_SHRINK = (Phase.explicit, Phase.generate)

SCALARS = ["1", "0.5", "-1", "2", "1.5", "-0.5"]
VALUES = [0.25, 0.5, -0.5, 1.0, -1.0, 1.5, 0.75, -1.25]


class V:
    """What the generator knows of a variable: shape, storage family, contiguity, a bound on
    |values| (keeps exp/pow finite), and roughly whether it requires grad."""

    def __init__(self, name, shape, family, contig=True, bound=2.0, rg=False, leaf=False):
        self.name, self.shape, self.family, self.contig = name, shape, family, contig
        self.bound, self.rg, self.leaf = bound, rg, leaf


def _fmt(vals, shape):
    if not shape:
        return repr(vals[0])
    if len(shape) == 1:
        return "[" + ", ".join(map(repr, vals)) + "]"
    n = len(vals) // shape[0]
    return "[" + ", ".join(_fmt(vals[i * n:(i + 1) * n], shape[1:]) for i in range(shape[0])) + "]"


def _numel(shape):
    n = 1
    for s in shape:
        n *= s
    return n


@st.composite
def inplace_scripts(draw):
    lines = ["import torch"]
    vs = []
    fam = [0]

    def new_family():
        fam[0] += 1
        return fam[0]

    leaf_shapes = {"x": (2, 3), "y": (3,), "n": (2, 3)}
    for name, shape in leaf_shapes.items():
        vals = draw(st.lists(st.sampled_from(VALUES), min_size=_numel(shape), max_size=_numel(shape)), label=name)
        rg = name != "n"
        lines.append(f"{name} = torch.tensor({_fmt(vals, shape)}{', requires_grad=True' if rg else ''})")
        vs.append(V(name, shape, new_family(), bound=max(abs(v) for v in vals), rg=rg, leaf=True))
    k = [0]

    def fresh():
        k[0] += 1
        return f"t{k[0]}"

    def pick(pred=lambda v: True, label="var"):
        cands = [v for v in vs if pred(v)]
        if not cands:
            return None
        return cands[-1 - draw(st.integers(0, len(cands) - 1), label=label)]   # recent first

    def guarded(stmt_lines, allow_uncaught=False):
        if allow_uncaught and draw(st.integers(0, 9), label="uncaught") == 0:
            return stmt_lines, True
        out = ["try:"] + ["    " + s for s in stmt_lines]
        out += ["except RuntimeError as e:", "    print('RuntimeError:', e)"]
        return out, False

    def same_family(v):
        return [w for w in vs if w.family == v.family]

    n_steps = draw(st.integers(3, 10), label="steps")
    ended = False
    for _ in range(n_steps):
        kind = draw(st.sampled_from(["op", "op", "view", "view", "inplace", "inplace", "inplace", "inplace",
                                     "backward", "print"]), label="step")
        if kind == "op":
            a = pick(label="op input")
            name = fresh()
            choices = ["sin", "cos", "tanh", "sigmoid", "relu", "abs", "mul2", "add1", "neg", "clone", "square"]
            if a.bound <= 3:
                choices += ["exp", "exp"]
            if a.bound <= 20:
                choices += ["pow2", "self_mul"]
            other = pick(lambda v: v is not a and v.shape == a.shape, "other operand")
            if other is not None and a.bound * other.bound <= 100:
                choices += ["mul_other", "mul_other", "add_other"]
            op = draw(st.sampled_from(choices), label="op")
            expr, bound = {
                "sin": (f"{a.name}.sin()", 1.0), "cos": (f"{a.name}.cos()", 1.0),
                "tanh": (f"torch.tanh({a.name})", 1.0), "sigmoid": (f"{a.name}.sigmoid()", 1.0),
                "relu": (f"{a.name}.relu()", a.bound), "abs": (f"{a.name}.abs()", a.bound),
                "mul2": (f"{a.name} * 2", a.bound * 2), "add1": (f"{a.name} + 1", a.bound + 1),
                "neg": (f"-{a.name}", a.bound), "clone": (f"{a.name}.clone()", a.bound),
                "square": (f"{a.name}.square()", a.bound ** 2), "exp": (f"{a.name}.exp()", 2.72 ** a.bound),
                "pow2": (f"{a.name} ** 2", a.bound ** 2), "self_mul": (f"{a.name} * {a.name}", a.bound ** 2),
                "mul_other": (f"{a.name} * {other.name if other else ''}", a.bound * (other.bound if other else 1)),
                "add_other": (f"{a.name} + {other.name if other else ''}", a.bound + (other.bound if other else 1)),
            }[op]
            rg = a.rg or (op.endswith("other") and other.rg)
            if draw(st.integers(0, 7), label="op under no_grad") == 0:
                lines += ["with torch.no_grad():", f"    {name} = {expr}"]
                rg = False
            else:
                lines.append(f"{name} = {expr}")
            vs.append(V(name, a.shape, new_family(), bound=bound, rg=rg))
        elif kind == "view":
            a = pick(label="view base")
            name = fresh()
            opts = ["detach"]
            if a.shape:
                opts += ["index0", "unsqueeze"]
            if a.contig:
                opts += ["view_flat", "reshape_flat"]
                if _numel(a.shape) == 6:
                    opts += ["view32", "reshape32"]
            else:
                opts += ["reshape_copy"]
            if len(a.shape) == 2:
                opts += ["t", "transpose", "slice_cols", "T"]
            if len(a.shape) == 1 and a.shape[0] > 1:
                opts += ["slice_step", "slice_tail"]
            v = draw(st.sampled_from(opts), label="view kind")
            shape, contig, same = a.shape, a.contig, True
            if v == "detach":
                expr = f"{a.name}.detach()"
            elif v == "index0":
                expr, shape = f"{a.name}[{draw(st.sampled_from(['0', '-1']), label='index')}]", a.shape[1:]
            elif v == "unsqueeze":
                expr, shape = f"{a.name}.unsqueeze(0)", (1,) + a.shape
            elif v == "view_flat":
                expr, shape = f"{a.name}.view(-1)", (_numel(a.shape),)
            elif v == "reshape_flat":
                expr, shape = f"{a.name}.reshape(-1)", (_numel(a.shape),)
            elif v in ("view32", "reshape32"):
                expr, shape = f"{a.name}.{v[:-2]}(3, 2)", (3, 2)
            elif v == "reshape_copy":
                expr, shape, contig, same = f"{a.name}.reshape(-1)", (_numel(a.shape),), True, False
            elif v in ("t", "transpose", "T"):
                expr = {"t": f"{a.name}.t()", "transpose": f"{a.name}.transpose(0, 1)", "T": f"{a.name}.T"}[v]
                shape, contig = (a.shape[1], a.shape[0]), False
            elif v == "slice_cols":
                expr, shape, contig = f"{a.name}[:, 1:]", (a.shape[0], a.shape[1] - 1), False
            elif v == "slice_step":
                expr, shape, contig = f"{a.name}[::2]", ((a.shape[0] + 1) // 2,), False
            else:
                expr, shape = f"{a.name}[1:]", (a.shape[0] - 1,)
            rg = a.rg and v != "detach"
            # (no views made under no_grad: once their base changes, torch raises on merely reading
            # .grad_fn / .is_leaf, which the oracle does for every tensor; a hand case covers it)
            lines.append(f"{name} = {expr}")
            vs.append(V(name, shape, a.family if same else new_family(), contig=contig, bound=a.bound, rg=rg))
        elif kind == "inplace":
            a = pick(label="inplace target")
            choices = ["iadd", "isub", "imul", "add_", "sub_", "mul_", "div_", "zero_", "fill_", "clamp_", "clamp_min",
                       "copy_scalar", "setitem", "data"]
            other = pick(lambda v: v.shape == a.shape and v is not a, "inplace operand")
            if other is not None:
                choices += ["add_t", "mul_t", "copy_t", "add_alpha"]
            if a.shape:
                choices += ["setitem_t", "setitem_mask"]
            if a.bound <= 7:
                choices += ["mul_self", "pow_"]
            if len(a.shape) <= 2:
                choices += ["t_twice"]
            op = draw(st.sampled_from(choices), label="inplace op")
            c = draw(st.sampled_from(SCALARS), label="scalar")
            fc = abs(float(c))
            new_bound = a.bound
            if op in ("iadd", "isub", "add_", "sub_"):
                stmt = {"iadd": f"{a.name} += {c}", "isub": f"{a.name} -= {c}", "add_": f"{a.name}.add_({c})",
                        "sub_": f"{a.name}.sub_({c})"}[op]
                new_bound = a.bound + fc
            elif op in ("imul", "mul_"):
                if a.bound * fc > 50:
                    c, fc = "0.5", 0.5
                stmt = f"{a.name} *= {c}" if op == "imul" else f"{a.name}.mul_({c})"
                new_bound = a.bound * fc
            elif op == "div_":
                stmt = f"{a.name}.div_(2)"
            elif op == "zero_":
                stmt, new_bound = f"{a.name}.zero_()", a.bound
            elif op == "fill_":
                stmt, new_bound = f"{a.name}.fill_({c})", max(a.bound, fc)
            elif op == "clamp_":
                stmt = f"{a.name}.clamp_(-1, 1)"
            elif op == "clamp_min":
                stmt = f"{a.name}.clamp_(min=0)"
            elif op == "copy_scalar":
                stmt, new_bound = f"{a.name}.copy_(torch.tensor({float(c)!r}))", max(a.bound, fc)
            elif op == "setitem":
                idx = "0" if a.shape else "..."
                stmt, new_bound = f"{a.name}[{idx}] = {float(c)!r}", max(a.bound, fc)
            elif op == "data":
                stmt = f"{a.name}.data.{draw(st.sampled_from(['add_(1)', 'mul_(0.5)', 'zero_()']), label='data op')}"
                new_bound = a.bound + 1
            elif op == "add_t":
                stmt, new_bound = f"{a.name}.add_({other.name})", a.bound + other.bound
            elif op == "add_alpha":
                stmt, new_bound = f"{a.name}.add_({other.name}, alpha=-2)", a.bound + 2 * other.bound
            elif op == "mul_t":
                if a.bound * other.bound > 50:
                    stmt = f"{a.name}.mul_({other.name}.sigmoid())"
                else:
                    stmt, new_bound = f"{a.name}.mul_({other.name})", a.bound * other.bound
            elif op == "copy_t":
                stmt, new_bound = f"{a.name}.copy_({other.name})", max(a.bound, other.bound)
            elif op in ("mul_self", "pow_"):
                stmt = f"{a.name}.mul_({a.name})" if op == "mul_self" else f"{a.name}.pow_(2)"
                new_bound = a.bound ** 2
            elif op == "t_twice":           # in place, shape-neutral: two TBackward1 nodes, two versions
                stmt = f"{a.name}.t_().t_()"
            elif op == "setitem_t":
                src = pick(lambda v: v.shape == a.shape[1:], "setitem value")
                value = src.name if src is not None else float(c)
                stmt = f"{a.name}[0] = {value}"
                new_bound = max(a.bound, src.bound if src is not None else fc)
            else:
                stmt = f"{a.name}[{a.name} > 0] = {float(c)!r}"
                new_bound = max(a.bound, fc)
            under = draw(st.integers(0, 4), label="inplace under no_grad") == 0
            body = [stmt]
            if under:
                body = ["with torch.no_grad():", "    " + stmt]
            if draw(st.booleans(), label="print version"):
                body.append(f"print('{a.name}', {a.name}._version)")
            out, uncaught = guarded(body, allow_uncaught=True)
            lines += out
            for w in same_family(a):
                w.bound = max(w.bound, new_bound)
            if op in ("add_t", "mul_t", "copy_t", "add_alpha", "setitem_t") and not under:
                if other is not None and other.rg or op == "setitem_t":
                    for w in same_family(a):
                        w.rg = w.rg or (other is not None and other.rg)
            if uncaught:
                ended = True
                break
        elif kind == "backward":
            root = pick(lambda v: v.rg, "root") or pick(label="root")
            how = draw(st.sampled_from(["backward", "backward", "grad"]), label="call")
            retain = draw(st.sampled_from(["", "", "retain_graph=True"]), label="retain")
            if how == "backward":
                call = f"{root.name}.sum().backward({retain})"
            else:
                inputs = draw(st.sampled_from(["[x]", "[y]", "[x, y]"]), label="grad inputs")
                opts = ", allow_unused=True" + (", " + retain if retain else "")
                call = f"print('grad', torch.autograd.grad({root.name}.sum(), {inputs}{opts}))"
            out, uncaught = guarded([call, "print('x.grad', x.grad)", "print('y.grad', y.grad)"],
                                    allow_uncaught=True)
            lines += out
            if uncaught:
                ended = True
                break
        else:
            a = pick(label="printed")
            what = draw(st.sampled_from(["value", "version", "grad_fn", "flags"]), label="print kind")
            if what == "value":
                lines.append(f"print('{a.name}', {a.name})")
            elif what == "version":
                lines.append(f"print('{a.name}._version', {a.name}._version)")
            elif what == "grad_fn":
                lines.append(f"print('{a.name}.grad_fn', type({a.name}.grad_fn).__name__)")
            else:
                lines.append(f"print('{a.name}', {a.name}.requires_grad, {a.name}.is_leaf, {a.name}.shape)")
    if not ended:
        for v in vs[:3]:
            lines.append(f"print('{v.name}', {v.name}, {v.name}._version, {v.name}.grad)")
    return "\n".join(lines) + "\n"


@seed(4242)
@settings(max_examples=200, deadline=None, database=None, print_blob=True, phases=NO_SHRINK,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much, HealthCheck.data_too_large])
@given(inplace_scripts())
def test_random_inplace_scripts(script):
    note("script:\n" + script)
    assert_same(script)
