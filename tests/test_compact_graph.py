"""The engine's compact graph records against PyTorch: a tensor's version counter
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
    # One-element float32 tensors take shortcuts (benchmark W1): a Python float operand as a
    # cached 0-d array, tanh/exp/log/sin/cos and tanh's backward in Python floats.
    "a one-element tensor with Python floats: values, saved numbers, gradients": """
        for c in (-0.0, 0.0, 0.5, -2.5, 1e-40, 3e38, 1e300, float('nan'), float('inf'), 0.1):
            x = torch.tensor([0.7], requires_grad=True)
            y = x * c
            z = y + c
            print(repr(c), y.item(), z.item(), y.grad_fn._saved_other, z.grad_fn._saved_alpha)
            z.backward()
            print(x.grad.item())
            for read in (lambda: y.grad_fn._saved_other, lambda: z.backward()):   # freed with its node
                try:
                    print(read())
                except RuntimeError as e:
                    print(str(e)[:60])
        for t in (torch.tensor(0.7, requires_grad=True), torch.tensor([[0.7]], requires_grad=True),
                  torch.tensor([0.7], dtype=torch.float64, requires_grad=True), torch.tensor([3]),
                  torch.tensor([0.7, 0.2], requires_grad=True)):
            y = 0.1 * t + 0.3
            print(y, y.grad_fn, y.dtype, y.shape)
        with torch.no_grad():
            y = torch.tensor([0.7], requires_grad=True) * 0.5
        print(y, y.requires_grad, y.grad_fn)
    """,
    "a one-element tensor through tanh, exp, log, sin and cos, at the edges of their domains": """
        for v in (0.0, -0.0, 0.7, -1.0, 1e-45, 88.5, 89.0, -104.0, 1e30, float('inf'), float('-inf'), float('nan')):
            for f in (torch.tanh, torch.exp, torch.log, torch.sin, torch.cos):
                x = torch.tensor([v], requires_grad=True)
                y = f(x)
                y.backward()
                print(f.__name__, repr(v), y, x.grad, y.grad_fn)     # (PyTorch's last ulp: see README)
    """,
    "a long chain of one-element ops: gradient, freed nodes, a second backward": """
        x = torch.tensor([0.3], requires_grad=True)
        z = x
        for i in range(200):
            z = (z * 0.95 + 0.02).tanh()
        z.backward(retain_graph=True)
        print(x.grad.item(), z.grad_fn._saved_result)
        z.backward()
        print(x.grad.item())
        try:
            z.backward()
        except RuntimeError as e:
            print(str(e)[:80])
        try:
            print(z.grad_fn._saved_result)
        except RuntimeError as e:
            print(str(e)[:80])
    """,
}


@pytest.mark.parametrize("name", list(SNIPPETS))
def test_compact_graph_prints_what_torch_prints(name):
    expected = _run(torch, SNIPPETS[name])
    assert _run(G, SNIPPETS[name]) == expected


def test_an_elements_value_does_not_depend_on_it_being_alone_in_its_tensor():
    """One-element tensors take shortcuts in Python floats (math's float64 functions, tanh's
    backward); every value and gradient must equal the same element's in a larger tensor."""
    import numpy as np
    rng = np.random.default_rng(8)
    values = np.concatenate([rng.standard_normal(3000), rng.standard_normal(3000) * 30,
                             [0., -0., 1e-45, -1e-45, 88.7, 89., -104., 1e30, np.inf, -np.inf, np.nan]]).astype(np.float32)
    grads = np.concatenate([rng.standard_normal(values.size - 5) * 1e3, [1e38, np.inf, np.nan, -0., 1e-45]]).astype(np.float32)
    for name in ("tanh", "exp", "log", "sin", "cos", "sigmoid"):
        for v, g in zip(values, grads):
            alone = G.tensor([float(v)], requires_grad=True)
            pair = G.tensor([float(v), 0.5], requires_grad=True)
            ya, yp = getattr(G, name)(alone), getattr(G, name)(pair)
            ya.backward(G.tensor([float(g)]))
            yp.backward(G.tensor([float(g), 1.]))
            for a, p in ((ya._data[0], yp._data[0]), (alone.grad._data[0], pair.grad._data[0])):
                assert a.tobytes() == p.tobytes() or (np.isnan(a) and np.isnan(p)), (name, v, g, a, p)
    for c in (0.1, -2.5, 1e-40, 3e38, -0.0):
        for v in values[:500]:
            alone, pair = G.tensor([float(v)]), G.tensor([float(v), 0.5])
            assert (alone * c)._data[0].tobytes() == (pair * c)._data[0].tobytes()
            assert (alone + c)._data[0].tobytes() == (pair + c)._data[0].tobytes()
