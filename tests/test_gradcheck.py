"""Every differentiable op's gradient against central finite differences, in float64.

The oracle tests compare gradcli with PyTorch; these check the maths independently of
PyTorch, so a formula that both got wrong the same way could not hide."""
import numpy as np
import pytest

from gradcli import torch as G

F = G.nn.functional
RNG = np.random.default_rng(7)


def _value(fn, arrays):
    ts = [G.tensor(a.tolist(), dtype=G.float64) for a in arrays]
    return float(fn(*ts).sum().item())


def numeric_grads(fn, arrays, eps=1e-6):
    grads = []
    for k, a in enumerate(arrays):
        g = np.zeros_like(a)
        for idx in np.ndindex(a.shape):
            hi = [x.copy() for x in arrays]
            lo = [x.copy() for x in arrays]
            hi[k][idx] += eps
            lo[k][idx] -= eps
            g[idx] = (_value(fn, hi) - _value(fn, lo)) / (2 * eps)
        grads.append(g)
    return grads


def engine_grads(fn, arrays):
    ts = [G.tensor(a.tolist(), dtype=G.float64, requires_grad=True) for a in arrays]
    fn(*ts).sum().backward()
    return [np.array(t.grad.tolist()) for t in ts]


def positive(*shape):
    return RNG.uniform(0.5, 2.0, shape)


def anyval(*shape):
    return RNG.uniform(-2.0, 2.0, shape)


CASES = {
    "add": (lambda a, b: a + b, [anyval(2, 3), anyval(3)]),
    "sub": (lambda a, b: a - b, [anyval(2, 3), anyval(2, 1)]),
    "rsub": (lambda a: 2 - a, [anyval(3)]),
    "mul": (lambda a, b: a * b, [anyval(2, 3), anyval(2, 3)]),
    "mul-scalar": (lambda a: a * 2.5, [anyval(4)]),
    "div": (lambda a, b: a / b, [anyval(2, 3), positive(3)]),
    "rdiv": (lambda a: 2 / a, [positive(3)]),
    "neg": (lambda a: -a, [anyval(3)]),
    "pow-int": (lambda a: a ** 3, [anyval(3)]),
    "pow-float": (lambda a: a ** 0.5, [positive(3)]),
    "pow-tensor": (lambda a, b: a ** b, [positive(3), anyval(3)]),
    "rpow": (lambda a: 2 ** a, [anyval(3)]),
    "exp": (lambda a: a.exp(), [anyval(3)]),
    "log": (lambda a: a.log(), [positive(3)]),
    "sin": (lambda a: a.sin(), [anyval(3)]),
    "cos": (lambda a: a.cos(), [anyval(3)]),
    "tanh": (lambda a: a.tanh(), [anyval(3)]),
    "sigmoid": (lambda a: a.sigmoid(), [anyval(3)]),
    "relu": (lambda a: a.relu(), [anyval(5)]),
    "sqrt": (lambda a: a.sqrt(), [positive(3)]),
    "rsqrt": (lambda a: a.rsqrt(), [positive(3)]),
    "abs": (lambda a: a.abs(), [anyval(5)]),
    "reciprocal": (lambda a: a.reciprocal(), [positive(3)]),
    "square": (lambda a: a.square(), [anyval(3)]),
    "sum-dim": (lambda a: a.sum(1) * G.tensor([1.0, 2.0], dtype=G.float64), [anyval(2, 3)]),
    "mean": (lambda a: a.mean() * a, [anyval(2, 3)]),
    "mean-dim": (lambda a: a.mean(-1, keepdim=True) * a, [anyval(2, 3)]),
    "dot": (lambda a, b: a @ b, [anyval(3), anyval(3)]),
    "mv": (lambda a, b: a @ b, [anyval(2, 3), anyval(3)]),
    "mm": (lambda a, b: a @ b, [anyval(2, 3), anyval(3, 4)]),
    "vm": (lambda a, b: a @ b, [anyval(3), anyval(3, 4)]),
    "bmm": (lambda a, b: a @ b, [anyval(2, 2, 3), anyval(2, 3, 2)]),
    "matmul-fold": (lambda a, b: a @ b, [anyval(2, 2, 3), anyval(3, 2)]),
    "prod": (lambda a: a.prod(), [anyval(2, 3)]),
    "prod-dim": (lambda a: a.prod(1), [anyval(2, 3)]),
    "norm": (lambda a: a.norm(), [anyval(2, 3)]),
    "norm-1-dim": (lambda a: a.norm(p=1, dim=1), [anyval(2, 3)]),
    "softmax": (lambda a: a.softmax(-1) * G.tensor([1.0, 2.0, 3.0], dtype=G.float64), [anyval(2, 3)]),
    "log_softmax": (lambda a: a.log_softmax(1) * G.tensor([1.0, 2.0, 3.0], dtype=G.float64), [anyval(2, 3)]),
    "max-dim": (lambda a: a.max(1).values, [anyval(2, 3)]),
    "clamp": (lambda a: a.clamp(-0.5, 0.5), [anyval(6)]),
    "maximum": (lambda a, b: G.maximum(a, b), [anyval(4), anyval(4)]),
    "where": (lambda a, b: G.where(a > 0, a, b), [anyval(4), anyval(4)]),
    "transpose": (lambda a: a.t() @ G.ones(2, 2, dtype=G.float64), [anyval(2, 3)]),
    "index": (lambda a: a[[0, 1, 1]] * 2, [anyval(3)]),
    "slice-select": (lambda a: a[1:, 0] * a[0, ::2].sum(), [anyval(2, 3)]),
    "cat-stack": (lambda a, b: G.stack([G.cat([a, b]), G.cat([b, a])]) * G.arange(6.0, dtype=G.float64), [anyval(3), anyval(3)]),
    "mse": (lambda a, b: F.mse_loss(a, b), [anyval(2, 3), anyval(2, 3)]),
    "bce-logits": (lambda a, b: F.binary_cross_entropy_with_logits(a, b), [anyval(2, 3), positive(2, 3) / 2]),
    "cross-entropy": (lambda a: F.cross_entropy(a, G.tensor([0, 2])), [anyval(2, 3)]),
    "expand-view": (lambda a: a.expand(2, 3).reshape(6) * G.arange(6.0, dtype=G.float64), [anyval(1, 3)]),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_gradient_matches_finite_differences(name):
    fn, arrays = CASES[name]
    ours = engine_grads(fn, arrays)
    numeric = numeric_grads(fn, arrays)
    for a, b in zip(ours, numeric):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)
