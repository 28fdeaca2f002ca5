"""Backward may write a node's last formula into its incoming gradient when nothing else
refers to that array (engine._run, NUMPY_MATH.spare; issue 8, W2). Against PyTorch: no
gradient a script can see (a hook's argument or return value, retain_grad, .grad, a captured
autograd.grad result, a tensor passed as `gradient`) is changed afterwards. The vectors are
large enough (5,000 elements) for the engine to consider reusing their buffers."""
import pytest
import torch

import gradcli.torch as G
from test_library_oracle import _run   # the same harness: exec under both, addresses masked

PRELUDE = """
x = torch.linspace(0.5, 1.5, 5000, requires_grad=True)
w = torch.linspace(1.0, 2.0, 5000, requires_grad=True)
def show(*ts):              # 4 digits: a buffer written too early changes far more than that
    for t in ts:
        print(["%.4g" % v for v in t[::997].tolist()])
"""

SNIPPETS = {
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
        mine = torch.linspace(2.0, 3.0, 5000)
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
    "a gradient passed to backward is not written into": """
        gr = torch.linspace(0.1, 0.2, 5000)
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
        d = torch.linspace(1.0, 2.0, 5000, dtype=torch.float64, requires_grad=True)
        (((x * s).exp() / s).log() * 3.0 / 7.0).sum().backward()
        ((x.exp() * d) / d).log().sum().backward()
        show(x.grad, s.grad, d.grad)
    """,
}


@pytest.mark.parametrize("name", list(SNIPPETS))
def test_gradient_buffers_print_what_torch_prints(name):
    code = PRELUDE + SNIPPETS[name].replace("\n        ", "\n")
    expected = _run(torch, code)
    assert _run(G, code) == expected
