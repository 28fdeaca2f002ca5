"""Tensor-API corners a user of PyTorch notices: torch.Size arithmetic, index-assignment errors,
dtypes of mean/clamp/pow, NumPy interoperability, keyword aliases, class names, tensor
attributes, imports next to the script, warnings and print options. Each case is a whole
script run under real PyTorch 2.13 and under gradcli, compared by oracle.assert_same."""
from __future__ import annotations

import os
import subprocess
import sys
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

case("sizes-negative-or-numpy-ints", """
import torch
import numpy as np
for e in ['torch.zeros(-1)','torch.ones(2,-1)','torch.empty(-1)','torch.randn(-1)','torch.rand(-2)','torch.full((-1,),2.)','torch.zeros((2,-3))','torch.ones(2).new_zeros(-1)','torch.zeros("a")','torch.ones(2, "a")','torch.empty(2.5)','torch.zeros(np.int64(3))','torch.ones((np.int32(2), 1))','torch.randn(np.int64(2)).shape','torch.rand(np.int64(2)).shape','torch.zeros(2, np.float64(2))','torch.full((np.int64(2),), 1.)','torch.zeros(size=(2,1))','torch.randn(size=(2,)).shape','torch.ones(size=[2])','torch.empty(size=(1,)).shape', 'torch.zeros(torch.tensor(2))','torch.ones(2).view(np.int64(2))','torch.ones(2).reshape(np.int64(2), 1)','torch.ones(4).view(2, np.int64(2))', 'torch.randint(0, 5, (np.int64(3),)).shape', 'torch.arange(np.int64(3))', 'torch.ones(2, 3).sum(np.int64(1))', 'torch.ones(2, 3).transpose(np.int64(0), 1).shape']:
  try: print(e, eval(e))
  except Exception as x: print(e, type(x).__name__, x)
""")
case("numpy-and-documented-keyword-names", """
import torch
a = torch.ones(2, 3)
b = torch.ones(3, 2)
for e in ['a.sum(axis=0)', 'a.mean(axis=1, keepdims=True)', 'torch.cat([a, a], axis=1).shape', 'a.max(axis=0).values', 'torch.zeros(size=(2,1))', 'torch.randn(size=(2,)).shape', 'torch.ones(size=[2])', 'torch.empty(size=(1,)).shape', 'a.permute(dims=(1,0)).shape', 'a.reshape(shape=(3,2)).shape', 'torch.pow(a, exponent=2)', 'torch.matmul(input=a, other=b)', 'a.split(split_size=1, dim=0)', 'torch.sum(a, axis=1, keepdims=True)', 'a.std(axis=0)', 'torch.mean(input=a)', 'a.argmax(axis=1)', 'torch.stack([a, a], axis=0).shape', 'a.transpose(dim0=0, dim1=1).shape', 'a.view(size=(3, 2)).shape', 'torch.add(input=a, other=a, alpha=2)', 'a.unsqueeze(dim=0).shape', 'torch.softmax(a, axis=1)', 'a.squeeze(axis=0).shape', 'torch.clamp(a, min=0, max=1)', 'a.sum(dim=0, keepdims=True)', 'a.sum(axis=0, dim=0)', 'torch.flatten(a, start_dim=0)', 'a.expand(size=(2, 2, 3)).shape', 'a.repeat(repeats=(1, 2)).shape', 'torch.full(size=(2,), fill_value=3.)', 'torch.arange(start=0, end=3)', 'torch.linspace(start=0, end=1, steps=3)', 'a.new_zeros(size=(2,)).shape', 'torch.randint(low=0, high=3, size=(2,)).shape', 'torch.rand(size=(2,), dtype=torch.float64).dtype', 'a.amax(axis=0)', 'a.norm(dim=1)', 'torch.where(a > 0, input=a, other=b.t())', 'a.log_softmax(dim=1).shape', 'a.cumsum(axis=0)']:
  try: print(e, eval(e))
  except Exception as x: print(e, type(x).__name__, x)
""")

case("numpy-scalars-and-arrays-into-tensors", """
import torch
import numpy as np
for e in ['[np.float32(1.5), np.float32(2)]','[np.int64(1), np.int64(2)]','[np.float64(1.5), 2.]','[1.5, np.float64(2)]','[np.int32(1), 2]','[np.int32(1), np.int16(2)]','[np.float16(1), 2]','[np.float16(1), 2.5]','[np.array([1., 2.]), np.array([3., 4.])]','[np.array([1, 2], dtype=np.int32), [3, 4]]','[torch.tensor(1., dtype=torch.float64), 2.]','[torch.tensor(1, dtype=torch.int32), 2]','[np.uint8(3), True]', '[[np.float32(1)], [np.int64(2)]]','np.array(["a","b"])','np.array([{}])','np.arange(4)[::-1]','[np.float32(1), torch.tensor(2.)]', 'np.float32(2.5)', 'np.array([[1, 2]], dtype=np.int8)']:
    try:
        t = torch.tensor(eval(e))
        print(e, t, t.dtype)
    except Exception as x:
        print(e, type(x).__name__, x)
for e in ['torch.from_numpy(np.arange(4)[::-1])','torch.from_numpy(np.array(["a"]))','torch.as_tensor(np.arange(4)[::-1])', 'torch.as_tensor([1,2], dtype=torch.float32)', 'torch.as_tensor(np.array([1.,2.]), dtype=torch.float32)', 'torch.as_tensor(3.5)']:
    try:
        print(e, eval(e))
    except Exception as x:
        print(e, type(x).__name__, x)
a = np.array([1.0, 2.0])
t = torch.as_tensor(a)
a[0] = 9.0
print(t)
y = torch.zeros(2, requires_grad=True)
print(torch.as_tensor(y) is y, torch.as_tensor(y, dtype=torch.float32) is y, torch.as_tensor(y, dtype=torch.float64))
u = torch.as_tensor(a, dtype=torch.float32)
a[1] = 7.0
print(u)
x = torch.arange(5)
print(x[np.int64(2)], x[np.array([1, 3])], x[np.int32(1):np.int64(3)], x[(np.int64(0),)])
m = torch.arange(6).reshape(2, 3)
print(m[np.int64(1), np.int64(2)], m[:, np.array([0, 2])], m[np.array([True, False])])
y = torch.zeros(5)
y[np.int64(1)] = 2
y[np.array([3, 4])] = 5
y[np.int32(0):np.int64(1)] = 7
print(y)
""")
case("numpy-operands-and-ufuncs-and-tensor-attributes", """
import warnings
import torch
import numpy as np
# NumPy 2 warns of PyTorch's one-parameter __array_wrap__ (gradcli's has one too): not the report's
warnings.simplefilter("ignore", DeprecationWarning)
t = torch.tensor([0., 1.])
print(torch.ones(2) * np.array([1., 2.]))
print(torch.ones(2) * np.float32(2))
print(np.exp(t))
print(t + np.float64(1), t - np.int64(1), t / np.float32(2), np.float32(2) * t, np.int64(3) + t, t ** np.int64(2))
print(torch.tensor([1, 2]) * np.float32(1.5), torch.tensor([1, 2]) + np.int32(1))
print(type(np.sqrt(t)).__name__, np.maximum(t, 0.5))
x = torch.ones(2)
x.name_tag = "input"
print(x.name_tag, hasattr(x, "name_tag"), hasattr(x * 2, "name_tag"), x.__dict__)
x._private = 3
print(x._private)
for name in ["grad_fn", "shape", "is_leaf", "dtype", "T", "ndim", "_version", "output_nr", "grad"]:
    try:
        setattr(x, name, None)
        print(name, "set")
    except AttributeError as e:
        print(name, "AttributeError:", e)
p = torch.nn.Parameter(torch.ones(2))
p.tag = 1
print(p.tag)
try:
    x.missing_attribute
except AttributeError as e:
    print("AttributeError:", e)
""")

case("classes-print-with-pytorchs-module-paths", """
import torch
import torch.nn as nn
print(type(torch.nn.Linear(1, 1)), type(nn.Sequential()), nn.ReLU, nn.Conv2d, nn.MSELoss)
print(type(torch.ones(2).shape), torch.float32.__class__, type(torch.float32))
print(type(torch.ones(2).max(0)), type(torch.ones(2, 2).min(1)).__name__)
print(torch.optim.SGD, torch.optim.Adam)
print(torch.no_grad, torch.enable_grad, torch.set_grad_enabled, torch.inference_mode, torch.nn.Parameter)
print(torch.utils.data.DataLoader, torch.utils.data.TensorDataset, torch.autograd.Function)
class Net(nn.Module):
    pass
print(Net, type(Net()))
print(type(torch.ones(2, requires_grad=True).sum().grad_fn))
""")

case("warnings-of-byte-masks-and-copy-constructing", """
import torch
x = torch.arange(4.)
print(x[torch.tensor([1, 0, 1, 0], dtype=torch.uint8)])
print(x[torch.tensor([0, 1, 1, 0], dtype=torch.uint8)])
y = x[:, None][torch.tensor([1, 0, 1, 0], dtype=torch.uint8)]
print(y)
x[torch.tensor([0, 0, 1, 1], dtype=torch.uint8)] = torch.tensor([7., 8.])
print(x)
b = torch.tensor(x, dtype=torch.float64)
t = torch.ones(2, requires_grad=True)
print(torch.tensor(t))
print(b, torch.tensor(torch.ones(1)))
""")

case("print-options", """
import torch
x = torch.tensor([1.23456, -2.5, 1e-5])
w = torch.tensor([1., 2., 3000.])
big = torch.arange(2000.)
torch.set_printoptions(precision=2)
print(torch.tensor([1.23456]), x, w)
torch.set_printoptions(sci_mode=False)
print(x, w, torch.tensor([1e10, 1.]), torch.tensor([float("nan"), 0.]))
torch.set_printoptions(sci_mode=True)
print(torch.tensor([1.5, 2.]), torch.tensor([1., 2.]), torch.tensor([0., float("inf")]))
torch.set_printoptions(threshold=5, edgeitems=1, linewidth=30)
print(torch.arange(10), torch.arange(12.).reshape(3, 4), torch.ones(8, requires_grad=True) * 2)
torch.set_printoptions(profile="full")
print(torch.arange(1005)[-3:], big[:4], torch.rand(2, 2).shape)
torch.set_printoptions(profile="short")
print(torch.tensor([1.23456, 2.]), torch.arange(10.))
torch.set_printoptions(profile="default")
print(x, torch.arange(2000))
torch.set_printoptions(linewidth=40)
print(torch.randn(20).shape, torch.arange(30.) / 7)
torch.set_printoptions(profile="default")     # (the oracle's torch runs in this process: put them back)
""")
case("finfo-and-iinfo", """
import torch
for d in [torch.float32, torch.float64, torch.float16]:
    f = torch.finfo(d)
    print(f)
    print(f.bits, f.eps, f.max, f.min, f.tiny, f.smallest_normal, f.resolution, repr(f.dtype), type(f.eps))
print(torch.finfo())
for d in [torch.int8, torch.uint8, torch.int16, torch.int32, torch.int64]:
    i = torch.iinfo(d)
    print(i, i.bits, i.min, i.max, repr(i.dtype), type(i.max))
for e in ['torch.finfo(torch.int32)', 'torch.iinfo(torch.float32)', 'torch.iinfo(torch.bool)', 'torch.finfo("a")', 'type(torch.finfo(torch.float32))', 'torch.finfo(torch.float32) == torch.finfo(torch.float32)', 'torch.tensor([1., 2.]).clamp(min=torch.finfo(torch.float32).eps)', 'torch.full((2,), torch.iinfo(torch.int64).max)']:
    try:
        print(e, eval(e))
    except Exception as x:
        print(e, type(x).__name__, x)
""")

case("attributes-of-deep-copies", """
import copy
import torch
x = torch.ones(2, requires_grad=True)
x.tag = "w"
y = copy.deepcopy(x)
print(y.tag, y.requires_grad, y)
p = torch.nn.Parameter(torch.ones(2))
p.tag = 3
print(copy.deepcopy(p).tag)
""")


@pytest.mark.parametrize("cid", list(CASES))
def test_tensor_fixes(cid):
    try:
        assert_same(CASES[cid])
    except AssertionError as e:             # no costly traceback: the message has the script and the diff
        pytest.fail(str(e), pytrace=False)


def _run_both(script, cwd):
    """`python SCRIPT` under real torch and `gradcli run --plain SCRIPT`, from `cwd`."""
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    env = dict(os.environ, PYTHONPATH=root)
    torch_run = subprocess.run([sys.executable, script], capture_output=True, text=True, cwd=cwd, timeout=120)
    gradcli_run = subprocess.run([sys.executable, "-m", "gradcli", "run", "--plain", script], capture_output=True,
                                 text=True, cwd=cwd, env=env, timeout=120)
    return torch_run, gradcli_run


def test_warnings_and_syntax_errors_name_the_script_by_its_absolute_path(tmp_path):
    (tmp_path / "warns.py").write_text("import torch\nx = torch.ones(1, requires_grad=True)\nprint(float(x))\n")
    (tmp_path / "broken.py").write_text("import torch\nx = (\n")
    for script in ("warns.py", "broken.py"):
        torch_run, gradcli_run = _run_both(script, tmp_path)
        assert str(tmp_path) in torch_run.stderr
        assert (gradcli_run.stdout, gradcli_run.stderr) == (torch_run.stdout, torch_run.stderr)


def test_a_script_imports_the_modules_next_to_it(tmp_path):
    """`python script.py` puts the script's directory first on sys.path; so does `gradcli run`,
    from any working directory."""
    (tmp_path / "helper_mod.py").write_text("VALUE = 42\n")
    script = tmp_path / "uses_helper.py"
    script.write_text("import torch\nfrom helper_mod import VALUE\nprint(torch.tensor([VALUE]))\n")
    torch_run, gradcli_run = _run_both(str(script), "/")
    assert torch_run.stdout == "tensor([42])\n"
    assert (gradcli_run.stdout, gradcli_run.returncode) == (torch_run.stdout, 0), gradcli_run.stderr
