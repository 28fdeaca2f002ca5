"""Bit-exact gradients against PyTorch where rounding is observable in printed values.

A Python number multiplying or dividing a float32 tensor is a wrapped scalar: PyTorch's
backward computes `grad * number` in float32 (the number rounded to float32 first). Doing
it in float64 and rounding the result differs in the last bit for about a third of inputs.

PyTorch's float32 sqrt is MKL's, not correctly rounded: about a sixth of its results differ
from NumPy's in the last bit.
"""
import numpy as np
import pytest
import torch

import gradcli.torch as G


@pytest.mark.parametrize("op", ["mul", "rmul", "div"])
@pytest.mark.parametrize("number", [1 / 3, 4 / 3, 0.1, -0.11736052233261174, 3])
def test_backward_through_a_python_number_is_bit_exact(op, number):
    rng = np.random.default_rng(7)
    grad = rng.standard_normal(4096).astype(np.float32)
    results = []
    for lib in (torch, G):
        x = lib.zeros(4096, requires_grad=True)
        y = {"mul": lambda: x * number, "rmul": lambda: number * x, "div": lambda: x / number}[op]()
        y.backward(lib.tensor(grad.tolist()))
        results.append(np.asarray(x.grad.tolist(), np.float32))
    assert np.array_equal(results[0], results[1]), f"{int((results[0] != results[1]).sum())} of 4096 differ"


def _every_kind_of_float32(n):
    """Random bit patterns (normal, subnormal, huge, inf, NaN, negative), the largest floats
    and a few landmarks."""
    rng = np.random.default_rng(0)
    x = rng.integers(0, 2**32, n, dtype=np.uint64).astype(np.uint32).view(np.float32)
    return np.concatenate([x, np.abs(x), np.arange(0x7F7FE000, 0x7F800000, dtype=np.uint32).view(np.float32),
                           np.array([0, -0.0, np.inf, np.nan, 1, 2, 4, -1], np.float32)])


@pytest.mark.parametrize("call", ["x.sqrt()", "torch.sqrt(x)", "x.t().sqrt()", "x.clone().sqrt_()", "x ** 0.5"])
def test_float32_sqrt_is_bit_exact_for_every_kind_of_float(call):
    x = _every_kind_of_float32(100_000).reshape(-1, 8)
    results = [eval(call, {"torch": lib, "x": lib.from_numpy(x.copy())}).numpy() for lib in (torch, G)]
    expected, got = results
    assert (np.isnan(got) == np.isnan(expected)).all()      # (NaN payloads aside)
    assert got[~np.isnan(got)].tobytes() == expected[~np.isnan(expected)].tobytes()


def test_sqrt_gradient_is_bit_exact():
    x = np.abs(np.random.default_rng(1).standard_normal((64, 50))).astype(np.float32) + np.float32(1e-3)
    grads = []
    for lib in (torch, G):
        t = lib.tensor(x, requires_grad=True)
        t.sqrt().sum().backward()
        grads.append(t.grad.numpy())
    assert grads[0].tobytes() == grads[1].tobytes()


def test_float32_sqrt_of_zeros_among_normal_floats_is_bit_exact():
    # (an optimizer's running averages: exact zeros where a gradient is always zero)
    x = np.abs(np.random.default_rng(2).standard_normal(5000)).astype(np.float32)
    x[::7] = 0
    assert G.from_numpy(x).sqrt().numpy().tobytes() == torch.from_numpy(x).sqrt().numpy().tobytes()
