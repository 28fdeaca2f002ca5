"""The engine's compact graph records (issue 8) against PyTorch: a tensor's version counter
made only when needed, edges kept in the node's own slots, saved Python numbers and saved
outputs kept compact until something reads them, nodes sharing input_meta and empty `saved`
mappings. What a library user sees must not change."""
import pytest
import torch

import gradcli.torch as G
from test_library_oracle import _run   # the same harness: exec under both, addresses masked


SNIPPETS = {
    "next_functions: PyTorch's shape, equal on each read": """
        x = torch.tensor([1., 2.], requires_grad=True)
        y = x * 2 + x
        n = y.grad_fn
        print(n.next_functions == n.next_functions, len(n.next_functions), [k for _, k in n.next_functions])
        print([type(f).__name__ for f, _ in n.next_functions])
        print((x * 3).grad_fn.next_functions[1])
    """,
    "a saved number read and changed in place: only its own node fails": """
        x = torch.tensor([1., 2.], requires_grad=True)
        a, b = x * 2.5, x * 2.5
        s = a.grad_fn._saved_other
        print(s, s.dtype, s._version, b.grad_fn._saved_other)
        s.add_(1)
        print(s, b.grad_fn._saved_other, b.grad_fn._saved_other._version)
        b.sum().backward()
        print(x.grad)
        try:
            a.sum().backward()
        except RuntimeError as e:
            print(str(e)[:150])
    """,
    "saved numbers keep their sign and type": """
        x = torch.tensor([1., 2.], requires_grad=True)
        for c in (-0.0, 0.0, 3, -2, True, 1e300, float('inf')):
            print(repr(c), (x * c).grad_fn._saved_other)
    """,
    "version counters: detach shares, saves see later changes": """
        x = torch.tensor([1., 2.], requires_grad=True)
        y = x * 1
        d = y.detach()
        print(x._version, y._version, d._version)
        d.add_(1)
        print(y._version, d._version)
        z = y.tanh()
        e = z.detach()
        e.mul_(2)
        print(z._version)
        try:
            z.sum().backward()
        except RuntimeError as err:
            print(str(err)[:120])
        w = torch.ones(3)
        v = w[1:]
        v.add_(1)
        print(w._version, v._version, w)
    """,
    "nodes that save nothing, and the same shapes again": """
        x = torch.tensor([1., 2.], requires_grad=True)
        ys = [x + 1, x - 2, x + 3]
        print([len(dir(y.grad_fn)) == len(dir(ys[0].grad_fn)) for y in ys])
        print(ys[0].grad_fn._saved_alpha, ys[1].grad_fn._saved_alpha, (x + 1).add(x, alpha=2).grad_fn._saved_alpha)
        sum(ys).sum().backward()
        print(x.grad)
    """,
    "the engine's paths: several roots, inputs, a shared input, retain_graph then a second call": """
        x = torch.tensor([1., 2.], requires_grad=True)
        w = torch.tensor([3., 4.], requires_grad=True)
        a, b = (x * w).tanh(), x + x
        torch.autograd.backward([a.sum(), b.sum()])
        print(x.grad, w.grad)
        y = (x * x + w).tanh().sum()
        print(torch.autograd.grad(y, [w], retain_graph=True))
        y.backward(inputs=[x], retain_graph=True)
        print(x.grad, w.grad)
        y.backward()
        print(x.grad, w.grad)
        try:
            y.backward()
        except RuntimeError as e:
            print(str(e)[:60])
    """,
    "a saved output: changed in place before or after it is read, detached, freed": """
        def attempt(f):
            try:
                print(f())
            except RuntimeError as e:
                print(str(e)[:190])
        x = torch.tensor([1., 2.], requires_grad=True)
        y = x.exp()
        y.add_(1)
        print(y._version, y.grad_fn)
        attempt(lambda: y.sum().backward())
        y = x.exp()
        print(y.grad_fn._saved_result, y._version)
        y.mul_(2)
        attempt(lambda: y.grad_fn.next_functions[0][0]._saved_result)
        attempt(lambda: y.sum().backward())
        y = x.tanh()
        w = y * 2
        y.detach_()
        print(y._version, y.grad_fn, y.requires_grad)
        y.add_(1)
        attempt(lambda: w.sum().backward())
        y = x.sigmoid()
        y.sum().backward(retain_graph=True)
        y.sum().backward()
        attempt(lambda: y.sum().backward())
        attempt(lambda: y.grad_fn._saved_result)
        print(y._version, x.grad)
        y = x.tanh()
        v = y[1:]
        v.zero_()
        print(y._version, v._version)
        attempt(lambda: y.sum().backward())
    """,
}


@pytest.mark.parametrize("name", list(SNIPPETS))
def test_compact_graph_prints_what_torch_prints(name):
    expected = _run(torch, SNIPPETS[name])
    assert _run(G, SNIPPETS[name]) == expected
