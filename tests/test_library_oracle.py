"""gradcli.torch used as a Python library, checked against PyTorch: the same snippet runs
with `torch` bound to each, and what it prints must be identical (object addresses aside).

These are the things a Python user of the module sees that scripts never show directly:
the classes of graph nodes, dir() of a node, the exception classes, .grad assignment rules.
"""
import contextlib
import io
import re
import textwrap

import pytest
import torch

import gradcli.torch as G

SNIPPETS = {
    "node classes and next_functions": """
        x = torch.tensor([1., 2.], requires_grad=True)
        y = (x.exp() * 3).sum()
        print(type(y.grad_fn).__name__, type(y.grad_fn), y.grad_fn)
        acc = y.grad_fn.next_functions[0][0].next_functions[0][0].next_functions[0][0]
        print(type(acc).__name__, type(acc), acc.variable is x)
        print(y.grad_fn.next_functions)
    """,
    "dir() lists the saved attributes": """
        x = torch.tensor([1., 2.], requires_grad=True)
        w = torch.tensor([3., 4.])
        for y in (x * w, x ** 2, x.exp(), x + 1, x.sum(), x.unsqueeze(-1)):
            n = y.grad_fn
            print(type(n).__name__, sorted(a for a in dir(n) if a.startswith(("_saved_", "_raw_saved_"))))
    """,
    "second order graph, walked by class name": """
        x = torch.tensor([1., 2.], requires_grad=True)
        g, = torch.autograd.grad((x ** 3).sum(), x, create_graph=True)
        def walk(n, depth=0):
            if n is None:
                print("  " * depth + "None")
                return
            print("  " * depth + type(n).__name__)
            for m, _ in n.next_functions:
                walk(m, depth + 1)
        walk(g.grad_fn)
    """,
    "exceptions are the built-in classes by name": """
        def show(f):
            try:
                f()
            except Exception as e:
                print(type(e).__name__, isinstance(e, RuntimeError), str(e)[:70])
        x = torch.tensor([1., 2.], requires_grad=True)
        y = x.exp().sum()
        y.backward()
        show(y.backward)
        z = x * 2
        w = z.exp()
        z.add_(1)
        show(lambda: w.sum().backward())
        show(lambda: torch.ones(2) + torch.ones(3))
        show(lambda: torch.ones(2).backward())
        show(lambda: torch.tensor([1, 2]).requires_grad_())
    """,
    "assigning .grad checks dtype before size": """
        x = torch.ones(2, requires_grad=True)
        for v in (torch.ones(2, dtype=torch.float64), torch.ones(3, dtype=torch.float64), torch.tensor([1, 2]),
                  torch.ones(3), torch.ones(2) * 5):
            try:
                x.grad = v
                print("ok", x.grad)
            except RuntimeError as e:
                print(str(e)[:100])
        d = torch.ones(2, dtype=torch.float64, requires_grad=True)
        try:
            d.grad = torch.ones(2)
        except RuntimeError as e:
            print(str(e)[:100])
    """,
    "NumPy scalars keep their dtype": """
        import numpy as np
        for v in (np.float32(1.5), np.float64(2.0), np.int64(3), np.bool_(True)):
            print(torch.tensor(v), torch.tensor(v).dtype, torch.tensor(v, dtype=torch.float64))
    """,
    "signed zeros and nan as PyTorch keeps them": """
        n = float("nan")
        x = torch.tensor([-0., 0., n, -1., 2.])
        print(x.relu(), torch.nn.functional.relu(x), x.clamp(min=0), x.clamp(max=0), x.clamp_min(0.))
        print(x.clamp(min=n), x.clamp(min=0., max=-1.), x.clamp(min=torch.zeros(5)), x.cumsum(0))
        print(torch.maximum(x, torch.zeros(5)), torch.minimum(x, -torch.zeros(5)), torch.tensor([-0., 2.]).cumsum(0))
    """,
}

_ADDRESS = re.compile(r" at 0x[0-9a-fA-F]+")


def _run(lib, code):
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(textwrap.dedent(code), {"torch": lib})
    return _ADDRESS.sub(" at 0x…", out.getvalue())


@pytest.mark.parametrize("name", list(SNIPPETS))
def test_library_prints_what_torch_prints(name):
    expected = _run(torch, SNIPPETS[name])
    assert _run(G, SNIPPETS[name]) == expected
