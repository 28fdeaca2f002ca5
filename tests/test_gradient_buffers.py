"""Backward may write a node's last formula into its incoming gradient when nothing else
refers to that array (the engine's thread_main, REUSE.spare; benchmark W2). Against PyTorch: no
gradient a script can see (a hook's argument or return value, retain_grad, .grad, a captured
autograd.grad result, a tensor passed as `gradient`) is changed afterwards. Likewise a
formula may write a temporary into a saved array that the node's release frees right after
(REUSE.spare_saved), and a later fresh result into an incoming gradient that its node
left unused and unreferenced (REUSE.dead): no tensor a script can still reach changes.
The vectors are large enough (70,000 elements) for the engine to reuse buffers and for
NumPy's float32 kernels. Last, the gradients are bitwise those computed without any reuse."""
import pytest
import torch

import gradcli.torch as G
from test_library_oracle import _run   # the same harness: exec under both, addresses masked

PRELUDE = """
N = 70000
x = torch.linspace(0.5, 1.5, N, requires_grad=True)
w = torch.linspace(1.0, 2.0, N, requires_grad=True)
def show(*ts):              # a buffer written too early changes far more than 4 digits (or 1e-5 near 0,
    for t in ts:            # where NumPy's and PyTorch's float32 kernels cancel differently)
        print(["%.4g" % (round(v, 5) + 0.0) for v in t[::9973].tolist()])
"""

SNIPPETS = {
    "a gradient a hook holds is not the one a second gradient is summed into": """
        kept = []
        z = x * w
        y = z + z                   # both of AddBackward0's results are y's gradient itself
        y.register_hook(lambda g: kept.append(g))
        (y * w).sum().backward()
        show(kept[0], x.grad, w.grad)
    """,
    "a hook's argument, kept, is not overwritten by the node's formula": """
        kept, copies = [], []
        def hook(g):
            kept.append(g)
            copies.append(g.clone())
        y = (x * w).exp()
        y.register_hook(hook)
        ((y / w).log() * w).sum().backward()
        print(bool((kept[0] == copies[0]).all()))
        show(kept[0], x.grad, w.grad)
    """,
    "a hook's replacement that the script holds is not overwritten": """
        mine = torch.linspace(2.0, 3.0, N)
        before = mine.clone()
        y = (x * w).log()
        y.register_hook(lambda g: mine)
        (y * w).sum().backward()
        print(bool((mine == before).all()))
        show(x.grad, w.grad)
    """,
    "retain_grad of an intermediate keeps its gradient": """
        y = x.exp()
        y.retain_grad()
        z = (y * w).log()
        z.retain_grad()
        (z / w).sum().backward()
        show(y.grad, z.grad, x.grad, w.grad)
    """,
    "a leaf's .grad and the gradient passed on from the same add": """
        u = x.exp()
        v = (u + x) * w            # AddBackward0 gives one array to ExpBackward0 and to x
        (v / w).log().sum().backward()
        g1 = x.grad.clone()
        show(x.grad, w.grad)
        x.grad = None
        (((x.exp() + x) * w) / w).log().sum().backward()
        print(bool((x.grad == g1).all()))
    """,
    "the same node on both edges (y * y), and an input on both sides": """
        e = x.exp()
        (e * e / w).sum().backward()
        show(x.grad, w.grad)
        x.grad = w.grad = None
        ((x * x).exp() / x).log().sum().backward()
        show(x.grad)
    """,
    "x * x: one product doubled, before or after another gradient of x, and under a hook": """
        y = x.exp()
        ((y * y).sin() * w).sum().backward()
        show(x.grad, w.grad)
        y = x.exp()
        seen = []
        y.register_hook(lambda g: seen.append(g.clone()))
        ((y * y).log() + y.sin() * w).sum().backward()
        y = x.exp()
        ((y.cos() * w + y * y) / w).sum().backward()
        show(seen[0], x.grad, w.grad)
    """,
    "a gradient passed to backward is not written into": """
        gr = torch.linspace(0.1, 0.2, N)
        before = gr.clone()
        ((x * w).log() / w).backward(gr)
        print(bool((gr == before).all()))
        show(x.grad, w.grad)
    """,
    "autograd.grad captures, retain_graph then backward, create_graph": """
        y = (x * w).exp()
        z = (y / w).log()
        gy, gx = torch.autograd.grad(z.sum(), [y, x], retain_graph=True)
        show(gy, gx)
        z.sum().backward()
        show(x.grad, w.grad, gy, gx)
        x.grad = None
        gx2, = torch.autograd.grad(((x * w).exp() / w).log().sum(), [x], create_graph=True)
        gx2.sum().backward()
        show(gx2, x.grad)
    """,
    "broadcast, a scalar and another dtype in the formulas that may write into g": """
        s = torch.tensor([2.0], requires_grad=True)
        d = torch.linspace(1.0, 2.0, N, dtype=torch.float64, requires_grad=True)
        (((x * s).exp() / s).log() * 3.0 / 7.0).sum().backward()
        ((x.exp() * d) / d).log().sum().backward()
        show(x.grad, s.grad, d.grad)
    """,
    "intermediates the script keeps are not overwritten by the formulas that saved them": """
        a = x * w
        b = a.cos()
        c = (b * w).tanh()
        d = (c + 2.0).sqrt()
        e = d ** 3
        f = (e.exp() / w).log().sin() ** 2
        kept = [t.clone() for t in (a, b, c, d, e, f)]
        f.sum().backward()
        print([bool((t == k).all()) for t, k in zip((a, b, c, d, e, f), kept)])
        show(x.grad, w.grad)
    """,
    "saved tensors read through grad_fn, and views of intermediates, are not overwritten": """
        y = (x * w).sin()
        z = y.cos()
        saved = z.grad_fn._saved_self
        r = z.tanh()
        res = r.grad_fn._saved_result
        v = (x * 2)[5:]
        u = (v.exp() * w[5:]).sum()
        copies = saved.clone(), res.clone(), v.clone()
        (r * w).sum().backward()
        u.backward()
        print(bool((saved == copies[0]).all()), bool((res == copies[1]).all()), bool((v == copies[2]).all()))
        show(x.grad, w.grad)
    """,
    "sum()'s gradient of ones times a freed tensor is that tensor's buffer, passed on": """
        (x.exp() * w.sin()).sum().backward()
        show(x.grad, w.grad)
        v = x.exp()
        before = v.clone()
        (v * w.sin()).sum().backward()
        print(bool((v == before).all()))
        show(x.grad, w.grad)
    """,
    "retain_graph keeps every saved tensor; a second backward without it fails as in PyTorch": """
        f = (((x * w).sin() + 2.0).sqrt() / w).tanh() ** 3
        f.sum().backward(retain_graph=True)
        g1 = x.grad.clone()
        x.grad = None
        f.sum().backward()
        print(bool((x.grad == g1).all()))
        try:
            f.sum().backward()
        except RuntimeError as err:
            print(str(err)[:90])
    """,
}


@pytest.mark.parametrize("name", list(SNIPPETS))
def test_gradient_buffers_print_what_torch_prints(name):
    code = PRELUDE + SNIPPETS[name].replace("\n        ", "\n")
    expected = _run(torch, code)
    assert _run(G, code) == expected


def test_reusing_buffers_leaves_gradients_bitwise_unchanged(monkeypatch):
    """W2's step (and a graph mixing every formula that reuses a buffer), with the engine's
    reuse and without it (a threshold no array reaches, or no reference count trusted):
    the same bits."""
    import numpy as np
    from benchmarks import workloads as W
    from gradcli.engine import engine as E

    def grads():
        a = G.from_numpy(W.w2_inputs(70000)[0]).requires_grad_()
        b = G.from_numpy(W.w2_inputs(70000, seed=1)[1]).requires_grad_()
        W.w2_forward(G, a, b).backward()
        t = ((a * b).sin().cos() / b) ** 2
        (t.tanh().sqrt().exp() * a).log().sum().backward()
        y = a.exp()
        ((y * y).log() + y.sin() * b).sum().backward()
        return a.grad.numpy().copy(), b.grad.numpy().copy()

    reused = grads()
    monkeypatch.setattr(E, "_SPARE_MIN", 1 << 62)
    fresh = grads()
    monkeypatch.undo()
    # and as on Python 3.14, where no reference count is trusted: nothing is written into
    monkeypatch.setattr(E, "_getrefcount", lambda obj: 1 << 30)
    untrusted = grads()
    for r, f, u in zip(reused, fresh, untrusted):
        assert r.tobytes() == f.tobytes() == u.tobytes()
    assert not np.array_equal(reused[0], 0)


# Random graphs of large elementwise ops, with everything a script can hold on to: kept
# intermediates, hook arguments and replacements, retain_grad, .grad, retain_graph and a
# second call, autograd.grad. Run with the engine's buffer reuse and without it, every byte
# a script could see afterwards must be the same (an array reused too early shows here).
from hypothesis import HealthCheck, given, seed, settings, strategies as st

_UNARY = ["{}.exp()", "{}.tanh()", "{}.sin()", "{}.cos()", "({}.abs() + 1).log()", "({}.abs() + 1).sqrt()",
          "{} ** 2", "{} ** 3", "-{}", "{}.sigmoid()", "({} * 0.5)", "(2.0 - {})"]
_BINARY = ["{} * {}", "{} + {}", "{} - {}", "{} / ({}.abs() + 1)"]


@st.composite
def _big_scripts(draw):
    lines = ["N = 5000", "seen = []",
             "a = torch.linspace(-1.5, 1.5, N, requires_grad=True)",
             "b = torch.linspace(0.5, 2.0, N, requires_grad=True)"]
    names = ["a", "b"]
    for k in range(draw(st.integers(2, 9))):
        pick = lambda: draw(st.sampled_from(names))
        if draw(st.booleans()):
            expr = draw(st.sampled_from(_UNARY)).format(pick())
        else:
            x, y = pick(), pick()
            expr = draw(st.sampled_from(_BINARY)).format(x, y, y)
        name = f"t{k}"
        lines.append(f"{name} = {expr}")
        extra = draw(st.integers(0, 9))
        if extra == 0:
            lines.append(f"{name}.register_hook(lambda g: seen.append(g))")
        elif extra == 1:
            lines.append(f"{name}.register_hook(lambda g: seen.append(g * 1.5) or seen[-1])")
        elif extra == 2:
            lines.append(f"{name}.retain_grad(); seen.append({name})")
        names.append(name)
    root = f"({names[-1]} * {draw(st.sampled_from(names))}).sum()"
    if draw(st.booleans()):
        lines += [f"r = {root}", "r.backward(retain_graph=True)", "seen.append(a.grad)", "r.backward()"]
    else:
        lines += [f"seen.extend(torch.autograd.grad({root}, [a, b], allow_unused=True, retain_graph=True))",
                  f"{root}.backward()"]
    return "\n".join(lines)


def _observed(script):
    scope = {"torch": G}
    exec(script, scope)
    found = [t for t in scope["seen"] if t is not None]
    found += [v for k, v in scope.items() if isinstance(v, G.Tensor)]
    found += [t.grad for t in found if (t.is_leaf or t.retains_grad) and t.grad is not None]
    return [t.detach().numpy().tobytes() for t in found]


@seed(20261130)
@settings(max_examples=120, deadline=None, database=None, suppress_health_check=[HealthCheck.too_slow])
@given(_big_scripts())
def test_random_large_graphs_see_the_same_bytes_with_and_without_reuse(script):
    from gradcli.engine import engine as E
    reused = _observed(script)
    saved = E._SPARE_MIN, E._getrefcount
    E._SPARE_MIN, E._getrefcount = 1 << 62, (lambda obj: 1 << 30)
    try:
        fresh = _observed(script)
    finally:
        E._SPARE_MIN, E._getrefcount = saved
    assert reused == fresh, script
