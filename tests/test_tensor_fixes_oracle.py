"""Tensor-API corners a user of PyTorch notices: torch.Size arithmetic, index-assignment errors,
dtypes of mean/clamp/pow, NumPy interoperability, keyword aliases, class names, tensor
attributes, imports next to the script, warnings and print options. Each case is a whole
script run under real PyTorch 2.13 and under gradcli, compared by oracle.assert_same."""
from __future__ import annotations

import textwrap

import pytest

from oracle import assert_same

CASES = {}


def case(cid, src):
    assert cid not in CASES, cid
    CASES[cid] = textwrap.dedent(src).strip("\n") + "\n"


def probes(cid, setup, exprs):
    """One script printing each expression's value, or its error's type and text."""
    assert cid not in CASES, cid
    lines = ["import torch"] + textwrap.dedent(setup).strip("\n").splitlines()
    for e in exprs:
        lines += ["try:", f"    print({e!r}, {e})", "except Exception as e:", f"    print({e!r}, type(e).__name__, e)"]
    CASES[cid] = "\n".join(lines) + "\n"


probes("size-slicing-and-adding-give-a-size", """
x = torch.zeros(2, 3, 4)
s = x.shape
""", [
    "s[1:]", "x.size()[-2:]", "s[::2]", "s[0]", "s + (5,)", "(1,) + s", "s + s", "s * 2", "2 * s", "s + [5]",
    "type(s[1:])", "type(s + (5,))", "type((1,) + s)", "type(2 * s)", "s.count(2)", "s.index(3)", "s == (2, 3, 4)",
    "torch.Size([torch.tensor(2), 3])", "torch.Size([True])", "torch.Size([2.5])", "torch.Size([3, 'a'])",
    "torch.Size([torch.tensor(2.)])", "x.view(s[1:] + (2,)).shape", "x.reshape(x.shape[:1] + (-1,)).shape",
    "type(s)", "type(torch.float32)", "torch.float32.__class__", "x.shape()", "x.dtype()"])

case("index-assignment-out-of-range-and-wrong-value-types", """
    import torch
    import numpy as np
    y = torch.zeros(3, 4)
    for index in [5, (0, 7), (slice(None), 7), (None, 0, 7), (Ellipsis, -9), (None, None, 5), (1, None, 9),
                  (torch.tensor(4), 0)]:
        try:
            y[index] = 1
        except IndexError as e:
            print(index, "IndexError:", e)
    for value in ["a", None, [1., 2., 3., 4.], (1, 2, 3, 4), np.array([1., 2., 3., 4.]), np.float32(2),
                  np.int64(2), np.float64(2.5), torch.tensor(3)]:
        try:
            y[0] = value
            print(y[0])
        except TypeError as e:
            print("TypeError:", e)
    z = torch.zeros(2, dtype=torch.float64, requires_grad=True)
    try:
        z[0] = "a"
    except TypeError as e:
        print("TypeError:", e)
    """)

probes("mean-with-a-dtype", """
i = torch.tensor([1, 2])
f = torch.tensor([[1., 2.5], [3., 4.]])
x = torch.tensor([1., 2.5], requires_grad=True)
""", [
    "i.mean(dtype=torch.float32)", "i.mean(0, dtype=torch.float64)", "torch.mean(i, dtype=torch.float16)",
    "f.mean(dtype=torch.float64)", "f.mean(1, keepdim=True, dtype=torch.float64)", "f.mean(dtype=torch.int64)",
    "i.mean(dtype=torch.int32)", "x.mean(dtype=torch.float64)", "x.mean(0, dtype=torch.float64).grad_fn.name()"])
case("mean-with-a-dtype-backward", """
    import torch
    x = torch.tensor([1., 2.5, 4.], requires_grad=True)
    y = x.mean(dtype=torch.float64)
    y.backward()
    print(y, x.grad)
    """)
probes("clamp-of-integers-by-float-bounds", """
i = torch.tensor([1, 5, 9])
""", [
    "torch.clamp(i, min=2.5)", "i.clamp(max=4.5)", "i.clamp(2, 4.5)", "i.clamp(min=2)", "i.clamp(min=True)",
    "torch.clamp_min(i, 2.5)", "torch.clamp_max(i, 2.5)", "i.clamp(min=torch.tensor(2.5))",
    "torch.tensor([1, 2], dtype=torch.uint8).clamp(max=1.5)", "torch.tensor([True, False]).clamp(min=0.5)",
    "torch.tensor([True, False]).clamp(min=2)", "torch.tensor([1, 2], dtype=torch.int32).clamp(min=1.5).dtype",
    "torch.tensor([1., 2.], dtype=torch.float16).clamp(max=1.5)", "torch.tensor([1., 2.]).clamp(min=1e40)",
    "torch.tensor([1., 2.], dtype=torch.float64).clamp(min=1.5)", "i.clamp(min=2.5, max=torch.tensor(3))",
    "i.clamp_(min=2.5)", "i.clamp_min_(2.5)", "i.clamp_max_(2.5)", "i.clamp_(2, 3.5)",
    "i.clamp_(min=torch.tensor(2.5))", "i.clamp_(min=3)", "i",
    "torch.tensor([1, 2], dtype=torch.int32).clamp_(max=0.5)", "torch.tensor([1, 2], dtype=torch.int16).clamp_min_(0.5)",
    "torch.tensor([1, 2], dtype=torch.int8).clamp_max_(0.5)", "torch.tensor([1, 2], dtype=torch.uint8).clamp_(0.5)",
    "torch.tensor([True]).clamp_(0.5)", "torch.tensor([1, 2], dtype=torch.int32).clamp_(min=torch.tensor(2.5))"])
probes("integer-tensor-to-negative-integer-tensor-powers", """
b = torch.tensor([2, 1, -1, -2, 0, 3, -3])
""", [
    "b.pow(torch.tensor([-1, -2, -1, -2, -1, -1, -3]))", "torch.tensor([0, 1, -1, 2, -2, 0]).pow(torch.tensor([-1, -5, -5, -3, -1, -2]))",
    "2 ** torch.tensor([-1, 2])", "torch.tensor([2, -1], dtype=torch.int32) ** torch.tensor([-1, -3], dtype=torch.int8)",
    "torch.tensor([2, 1], dtype=torch.uint8) ** torch.tensor([-1, -2])", "b ** -1", "b.pow(torch.tensor(-2))",
    "torch.pow(b, torch.tensor([3, 2, 1, 0, 1, 2, 3]))"])

case("reductions-over-an-empty-dim-and-cumulative-dtypes", """
import torch
z = torch.zeros(0, 3)
for e in ['z.max(0)','z.min(0)','z.argmax(0)','z.argmin(0)','z.max(1)','z.max()','z.argmax()','z.amax(0)','z.max(dim=0, keepdim=True)', 'torch.zeros(2,0).max(1)','torch.zeros(2,0).max(0)','torch.zeros(0).max(0)','torch.zeros(0).argmax()','z.median(0)','z.cumsum(0)','torch.tensor([]).mean()','torch.zeros(0,3).mean(0)','torch.zeros(0,3).mean(1)','torch.tensor([1,2]).cumsum(0, dtype=torch.float32)','torch.tensor([1.,2]).cumsum(dim=0, dtype=torch.float64)','torch.tensor([1,2]).cumprod(0, dtype=torch.float32)','torch.cumsum(torch.tensor([1,2]), 0, dtype=torch.int32)']:
  try: print(e, eval(e))
  except Exception as x: print(e, type(x).__name__, x)
x = torch.tensor([1., 2., 3.], requires_grad=True)
y = x.cumsum(0, dtype=torch.float64)
print(y)
y.sum().backward()
print(x.grad, x.grad.dtype)
try:
    torch.zeros(2, 0).argmax(-1)
except IndexError as e:
    print(e)
""")
case("hooks-that-return-a-wrong-value", """
import torch
for ret in ['5', 'torch.ones(3)', 'torch.ones(2, dtype=torch.float64)', 'torch.ones(1)', 'None', 'torch.ones(2, 1)', '(torch.ones(2),)', 'g * 2']:
    for leaf in [True, False]:
        x = torch.tensor([1., 2.], requires_grad=True)
        y = x * 2 if not leaf else x
        y.register_hook(eval('lambda g: ' + ret))
        try:
            (y * 1).sum().backward()
            print(ret, leaf, 'ok', x.grad)
        except Exception as e:
            print(ret, leaf, type(e).__name__, e)
def myhook(g):
    return torch.ones(3)
x = torch.tensor([1., 2.], requires_grad=True)
x.register_hook(myhook)
try:
    x.sum().backward()
except Exception as e:
    print(type(e).__name__, e)
a, b = torch.tensor([1., 2., 3., 4.], requires_grad=True).split(2)
a.register_hook(lambda g: torch.ones(5))
try:
    (a.sum() + b.sum()).backward()
except Exception as e:
    print(type(e).__name__, e)
""")


@pytest.mark.parametrize("cid", list(CASES))
def test_tensor_fixes(cid):
    try:
        assert_same(CASES[cid])
    except AssertionError as e:             # no costly traceback: the message has the script and the diff
        pytest.fail(str(e), pytrace=False)
