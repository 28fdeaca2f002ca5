"""Tensor API beyond autograd: bitwise/logical operators, all()/any(), torch.allclose,
retains_grad, and in-place ops that must keep their original operand (`y.mul_(y)`).
Each case is a whole script run under real PyTorch 2.13 and under gradcli, compared by
oracle.assert_same (stdout, the escaping error, end-state tensors, backward events)."""
from __future__ import annotations

import textwrap

import pytest

from oracle import assert_same, assert_same_but_warning_tracebacks

CASES = {}


def case(cid, src):
    assert cid not in CASES, cid
    CASES[cid] = textwrap.dedent(src).strip("\n") + "\n"


def probes(cid, setup, exprs):
    """One script printing each expression's value, or its error's type and text."""
    lines = ["import torch"] + textwrap.dedent(setup).strip("\n").splitlines()
    for e in exprs:
        lines += ["try:", f"    print({e!r}, {e})", "except Exception as e:", f"    print({e!r}, type(e).__name__, e)"]
    CASES[cid] = "\n".join(lines) + "\n"


SETUP = """
b = torch.tensor([True, False, True])
c = torch.tensor([True, True, False])
i = torch.tensor([1, 2, 3])
j = torch.tensor([3, 1, 0], dtype=torch.int32)
f = torch.tensor([1., 2., 3.])
x = torch.tensor([1., 2., 3.], requires_grad=True)
"""

probes("bitwise-operators", SETUP, [
    "b & c", "b | c", "b ^ c", "~b", "i & j", "i | 5", "5 | i", "i ^ True", "b & 1", "1 & b", "b & True", "~i", "~j",
    "i & b", "j | i", "b ^ i", "f & b", "b | f", "~f", "x & b", "i & 1.5", "i & torch.ones(2, dtype=torch.long)",
    "torch.bitwise_and(i, j)", "torch.bitwise_or(b, c)", "torch.bitwise_xor(i, 6)", "torch.bitwise_not(i)",
    "b.bitwise_not()", "i.bitwise_and(j)", "torch.bitwise_not(f)",
    "(i > 1) & (i < 3)", "(f > 1) | (f == 1)", "~(f > 1)", "(x > 1) & (x < 3)",
    # an int a Scalar holds only as uint64 wraps into int64; with a bool tensor it cannot promote
    "i ^ 2**63", "2**63 | i", "i & (2**64 - 1)", "b ^ 2**63", "i ^ 2**64"])
probes("logical-ops", SETUP, [
    "b.logical_not()", "torch.logical_and(b, i)", "torch.logical_or(b, c)", "torch.logical_xor(i, j)",
    "torch.logical_not(i)", "torch.logical_not(f - 1)", "f.logical_and(x)", "torch.logical_or(b, torch.ones(2))"])
probes("all-any", SETUP, [
    "b.all()", "b.any()", "f.all()", "(f - 1).all()", "i.any()", "x.all()", "x.any(dim=0)", "torch.all(b)",
    "torch.any(b, 0)", "torch.zeros(2, 3).any()", "torch.ones(2, 3).all(dim=1)", "torch.ones(2, 3).any(1, keepdim=True)",
    "torch.eye(3).all(0)", "torch.eye(3).any(-1)", "torch.eye(3).all(dim=(0, 1))", "torch.ones(2, 3).all(dim=5)",
    "torch.zeros(0, dtype=torch.bool).all()", "torch.zeros(0, dtype=torch.bool).any()",
    "torch.ones(2, 3, dtype=torch.uint8).all()", "torch.tensor([0, 2], dtype=torch.uint8).any(0)",
    "torch.tensor(2.).all(0)", "torch.tensor(0.).any(-1, keepdim=True)", "bool((f > 0).all())",
    "(x * 2).any().requires_grad"])
probes("allclose", SETUP, [
    "torch.allclose(f, f)", "torch.allclose(f, f + 1e-6)", "torch.allclose(f, f + 1e-3)", "torch.allclose(f, i)",
    "torch.allclose(f, f.double())", "f.allclose(f * 1.00001)", "torch.allclose(f, torch.ones(2))",
    "torch.allclose(f, torch.ones(1))", "torch.allclose(torch.ones(2, 3), torch.ones(3))",
    "torch.allclose(torch.tensor([float('nan')]), torch.tensor([float('nan')]))",
    "torch.allclose(torch.tensor([float('nan')]), torch.tensor([float('nan')]), equal_nan=True)",
    "torch.allclose(torch.tensor([float('inf')]), torch.tensor([float('inf')]))",
    "torch.allclose(torch.tensor([float('inf')]), torch.tensor([-float('inf')]))",
    "torch.allclose(x, x * 1)", "torch.allclose(f, 1.0)", "torch.allclose(i, i)", "torch.allclose(i, i + 1)",
    "torch.allclose(b, b)", "torch.allclose(b, c)", "torch.allclose(f, f + 0.1, rtol=0.1)",
    "torch.allclose(f, f + 0.1, atol=0.2)", "torch.allclose(f, f, rtol=0, atol=0)",
    "type(torch.allclose(f, f)).__name__"])

case("bitwise-inplace", """
    import torch
    b = torch.tensor([True, False, True])
    c = torch.tensor([True, True, False])
    i = torch.tensor([1, 2, 3])
    v = b[1:]
    b &= c
    print(b, b._version, v, v._version)
    i |= 8
    print(i, i._version)
    i ^= b
    print(i, i._version)
    b |= torch.tensor(True)
    print(b, b._version)
    try:
        b &= i
    except RuntimeError as e:
        print('RuntimeError:', e)
    f = torch.ones(2)
    try:
        f &= 1
    except Exception as e:
        print(type(e).__name__, e)
    b2 = c.clone()
    b2.logical_not_()
    b2.bitwise_xor_(c)
    print(b2, b2._version)
    i.bitwise_and_(6)
    i.bitwise_not_()
    print(i, i._version)
    x = torch.tensor([1., 2.], requires_grad=True)
    try:
        x |= 1
    except Exception as e:
        print(type(e).__name__, e)
    """)
case("mask-from-operators-used-in-where-and-indexing", """
    import torch
    x = torch.tensor([-1., 0.5, 2., 3.], requires_grad=True)
    m = (x > 0) & (x < 2.5)
    y = torch.where(m | (x < -0.5), x * 2, x * 0)
    z = x[~m]
    (y.sum() + z.sum()).backward()
    print(m, y, z, x.grad)
    print(m.any(), m.all(), (~m).sum())
    """)
case("retains-grad", """
    import torch
    x = torch.tensor([1., 2.], requires_grad=True)
    y = x * 2
    z = y.exp()
    print(x.retains_grad, y.retains_grad, z.retains_grad, torch.ones(2).retains_grad)
    y.retain_grad()
    x.retain_grad()
    print(x.retains_grad, y.retains_grad, z.retains_grad)
    z.sum().backward()
    print(y.grad, y.retains_grad)
    """)

# --- in-place ops that need their operand's old value -------------------------------------
case("mul_-self-then-backward-raises-modified-inplace", """
    import torch
    x = torch.tensor([2., 3.], requires_grad=True)
    y = x * 2
    y.mul_(y)
    print(y, y._version, y.grad_fn.name())
    print(y.grad_fn._saved_self)
    try:
        print(y.grad_fn._saved_other)
    except RuntimeError as e:
        print('RuntimeError:', e)
    y.sum().backward()
    """)
case("mul_-other-requiring-grad-saves-clone-of-self", """
    import torch
    x = torch.tensor([2., 3.], requires_grad=True)
    w = torch.tensor([0.5, -1.], requires_grad=True)
    a = x * 1
    a.mul_(w)
    s = a.grad_fn._saved_self
    print(s, s.grad_fn.name(), a.grad_fn._saved_other is w)
    a.sum().backward()
    print(x.grad, w.grad)
    """)
case("inplace-ops-saving-self-or-result", """
    import torch
    x = torch.tensor([0.5, 2.], requires_grad=True)
    w = torch.tensor([1.5, -1.], requires_grad=True)
    a = x * 1
    a.div_(w)
    b = x * 1
    b.pow_(3)
    c = x * 1
    c.clamp_(0, 1)
    d = x * 1
    d.exp_()
    e = x * 1
    e.sigmoid_()
    e.mul_(2)
    print(a.grad_fn._saved_self, b.grad_fn._saved_self, c.grad_fn._saved_self, d.grad_fn._saved_result)
    (a.sum() + b.sum() + c.sum() + d.sum()).backward()
    print(x.grad, w.grad)
    try:
        e.sum().backward()
    except RuntimeError as err:
        print('RuntimeError:', err)
    """)
case("pow_-on-view-and-setitem-from-self", """
    import torch
    x = torch.tensor([[1., 2.], [3., 4.]], requires_grad=True)
    a = x * 1
    a[0].pow_(2)
    a[1] = a[0] * 3
    print(a, a.grad_fn.name())
    a.sum().backward()
    print(x.grad)
    """)

# --- views of a storage modified in place --------------------------------------------------------
case("stale-views-get-as-strided", """
    import torch
    x = torch.tensor([[1., 2., 3.], [4., 5., 6.]], requires_grad=True)
    a = x * 1
    v = a[0]
    u = a.t()
    w = a[:, 1:]
    a[1, 2] = 0.
    print(v.grad_fn.name(), u.grad_fn.name(), w.grad_fn.name(), a.grad_fn.name())
    print(w.grad_fn._saved_size, w.grad_fn._saved_stride, w.grad_fn._saved_storage_offset)
    (v.sum() * 2 + (u * u).sum() + w.exp().sum()).backward()
    print(x.grad)
    """)
case("views-modified-under-no-grad", """
    import torch
    x = torch.tensor([[1., 2.], [3., 4.]], requires_grad=True)
    a = x.sin()
    v = a.view(4)
    with torch.no_grad():
        a.mul_(2)
        v[0] = 7.
    print(a, v, a.grad_fn.name(), v.grad_fn.name(), a._version)
    v.sum().backward()
    print(x.grad)
    """)
case("view-of-plain-tensor-becomes-differentiable", """
    import torch
    x = torch.tensor([1., 2., 3.], requires_grad=True)
    n = torch.zeros(2, 3)
    v = n[1]
    print(v.requires_grad, v.grad_fn)
    n[0] = x
    print(n.requires_grad, n.grad_fn.name(), v.requires_grad, v.grad_fn.name())
    v.add_(x * x)
    print(n, n.grad_fn.name(), v.grad_fn.name())
    n.sum().backward()
    print(x.grad)
    """)
case("inplace-on-view-backward-through-the-view", """
    import torch
    x = torch.tensor([[1., 2.], [3., 4.]], requires_grad=True)
    a = x * 2
    v = a[1]
    v.mul_(3)
    print(v.grad_fn.name(), v.grad_fn.next_functions[0][0].name())
    (v * v).sum().backward()
    print(x.grad)
    """)
case("t_-and-transpose_", """
    import torch
    x = torch.tensor([[1., 2., 3.], [4., 5., 6.]], requires_grad=True)
    a = x * 1
    a.t_()
    print(a.shape, a.grad_fn.name(), a._version)
    a.transpose_(0, 1)
    print(a.shape, a.grad_fn.name(), a.grad_fn._saved_dim0, a._version)
    b = x[0:1] * 1
    w = b[0:1]
    w.t_()
    print(w.shape, w.grad_fn.name(), w._version, b._version)
    (a * torch.tensor([[1., 2., 3.], [4., 5., 6.]])).sum().backward()
    print(x.grad)
    try:
        x.t_()
    except RuntimeError as e:
        print('RuntimeError:', e)
    n = torch.ones(2, 3)
    n.t_()
    print(n.shape, n._version, n.is_contiguous())
    """)
case("setitem-forms", """
    import torch
    x = torch.tensor([[1., 2., 3.], [4., 5., 6.]], requires_grad=True)
    w = torch.tensor([0.5, 1.5, 2.5], requires_grad=True)
    for k in range(6):
        a = x * 1
        if k == 0:
            a[...] = w
        elif k == 1:
            a[0:2] = w * 2
        elif k == 2:
            a[0] = w.view(1, 3)
        elif k == 3:
            a[:, 1] = w[0]
        elif k == 4:
            a[-1:, :2] = 3.
        else:
            a[[0, 1], 0] = w[:2]
        print(k, a.grad_fn.name(), [None if n is None else n.name() for n, _ in a.grad_fn.next_functions])
        (a * a).sum().backward()
        print(x.grad, w.grad)
        x.grad = None
        w.grad = None
    a = x * 1
    for v in (torch.ones(4), torch.ones(2, 3), torch.ones(2, 1)):
        try:
            a[0] = v
        except RuntimeError as e:
            print('RuntimeError:', e)
    """)
case("copy_-and-fill_-with-tensors", """
    import torch
    x = torch.tensor([[1., 2.], [3., 4.]], requires_grad=True)
    s = torch.tensor(2.5, requires_grad=True)
    r = torch.tensor([0.5, -1.], requires_grad=True)
    a = x * 1
    a[0].fill_(s)
    a[1].copy_(r * r)
    print(a, a.grad_fn.name())
    b = x * 1
    b.fill_(s * 2)
    print(b.grad_fn.name())
    c = x * 1
    c.copy_(r)
    print(c.grad_fn.name())
    (a.sum() + b.sum() + (c * c).sum()).backward()
    print(x.grad, s.grad, r.grad)
    for k in range(4):
        try:
            if k == 0:
                b.fill_(torch.ones(2))
            elif k == 1:
                torch.ones(3).copy_(torch.ones(2, 3))
            elif k == 2:
                torch.ones(3).expand(2, 3).add_(1)
            else:
                torch.ones(2, 3).copy_(torch.ones(3, 3))
        except RuntimeError as e:
            print('RuntimeError:', e)
    """)
case("inplace-dtype-rules", """
    import torch
    i = torch.tensor([1, 2])
    for k in range(7):
        try:
            if k == 0:
                i.add_(1.5)
            elif k == 1:
                i.div_(2)
            elif k == 2:
                torch.tensor([True]).add_(1)
            elif k == 3:
                i.mul_(3)
            elif k == 4:
                i.copy_(torch.tensor([2.7, -1.2]))
            elif k == 5:
                i.fill_(2.9)
            else:
                print(torch.ones(2).add_(torch.ones(2, dtype=torch.float64)))
            print(k, i, i._version)
        except RuntimeError as e:
            print('RuntimeError:', e)
    """)

case("setitem-advanced-into-views", """
    import torch
    x = torch.tensor([[1., 2., 3.], [4., 5., 6.]], requires_grad=True)
    w = torch.tensor([0.5, 1.5], requires_grad=True)
    a = x * 1
    a[1:, [0, 2]] = w
    print(a, a.grad_fn.name())
    b = x * 1
    v = b[0]
    v[[0, 2]] = w * 3
    print(b.grad_fn.name(), v.grad_fn.name())
    c = x * 1
    c[torch.tensor(1)] = 2.
    c[x > 4] = w[0]
    print(c, c.grad_fn.name())
    (a.sum() + (b * b).sum() + c.sum()).backward()
    print(x.grad, w.grad)
    try:
        a[[0]] = torch.ones(4)
    except RuntimeError as e:
        print('RuntimeError:', e)
    """)
case("no-grad-view-modified-in-place", """
    import torch
    x = torch.tensor([[1., 2.], [3., 4.]], requires_grad=True)
    with torch.no_grad():
        u = x[0]
        d = x.detach()[1]
    print(u, u.requires_grad, u.is_leaf, d.requires_grad)
    for k in range(3):
        try:
            if k == 0:
                u.add_(1)
            elif k == 1:
                u.zero_()
            else:
                d.mul_(x[1])
        except RuntimeError as e:
            print('RuntimeError:', e)
    print(x, x._version, d)
    """)
case("masked-fill", """
    import torch
    x = torch.tensor([[1., -2., 3.], [-4., 5., -6.]], requires_grad=True)
    v = torch.tensor(0.5, requires_grad=True)
    m = x < 0
    y = x.masked_fill(m, 0.)
    z = torch.masked_fill(x * 2, m[0], v)
    a = x * 1
    a.masked_fill_(a > 4, v * 2)
    b = x.exp()
    b.masked_fill_(~m, -1.)
    print(y, z, a, b)
    print(y.grad_fn.name(), y.grad_fn._saved_mask is m, z.grad_fn.name(), a.grad_fn.name(), b._version)
    (y.sum() + z.sum() + (a * a).sum()).backward()
    print(x.grad, v.grad)
    try:
        b.sum().backward()
    except RuntimeError as e:
        print('RuntimeError:', e)
    for k in range(4):
        try:
            if k == 0:
                x.masked_fill(m.float(), 1.)
            elif k == 1:
                x.masked_fill(m, torch.ones(3))
            elif k == 2:
                torch.ones(3).masked_fill_(torch.ones(2, 3) > 0, 1.)
            else:
                print(torch.ones(3).masked_fill(torch.ones(2, 3) > 0, 2.), torch.ones(3, dtype=torch.long).masked_fill(m[0], 1.5))
        except RuntimeError as e:
            print('RuntimeError:', e)
    """)
case("more-inplace-unary-and-view-ops", """
    import torch
    x = torch.tensor([[1., -2., 3.], [-4., 5., -6.]], requires_grad=True)
    a = x * 1
    a.abs_()
    b = x * 1
    b.clamp_min_(0.5)
    c = x * 1
    c.square_()
    print(a.grad_fn.name(), b.grad_fn.name(), c.grad_fn.name(), c.grad_fn._saved_self)
    d = x * 1
    d.unsqueeze_(1)
    print(d.shape, d.grad_fn.name(), d.grad_fn._saved_dim, d._version)
    d.squeeze_(1)
    print(d.shape, d.grad_fn.name(), d.grad_fn._saved_dim, d._version)
    d.unsqueeze_(0)
    d.squeeze_()
    print(d.shape, d.grad_fn.name(), d._version)
    (a.sum() + b.sum() + c.sum() + (d * d).sum()).backward()
    print(x.grad)
    """)
case("augmented-assignment-into-views", """
    import torch
    x = torch.tensor([[1., 2., 3.], [4., 5., 6.]], requires_grad=True)
    a = x * 1
    a[0] += 1
    a[1, 1:] *= a[0, :2]
    print(a, a.grad_fn.name(), a._version)
    (a * a).sum().backward()
    """)
case("views-of-views-and-strided-views-modified", """
    import torch
    x = torch.tensor([[1., 2., 3.], [4., 5., 6.]], requires_grad=True)
    a = x * 1
    a[0][1:].mul_(2)
    a.t()[0].add_(1)
    v = a.view(-1)[::2]
    v.zero_()
    print(a, v, v.grad_fn.name(), a.grad_fn.name())
    (a.exp() * 2).sum().backward()
    print(x.grad)
    """)
case("inplace-on-views-of-a-transposed-base", """
    import torch
    x = torch.tensor([[1., 2., 3.], [4., 5., 6.]], requires_grad=True)
    a = x * 1
    a.t_()
    a[0].add_(1)
    a[1:, 1] = 7.
    print(a, a.grad_fn.name())
    (a * a).sum().backward()
    print(x.grad)
    """)
case("rows-filled-in-a-loop", """
    import torch
    x = torch.tensor([1., 2., 3., 4.], requires_grad=True)
    h = torch.zeros(4, 2)
    for i in range(4):
        h[i] = x[i] * torch.tensor([1., 2.])
        if i > 0:
            h[i] += h[i - 1]
    s = h.sum()
    s.backward()
    print(h, x.grad)
    """)
case("view-modified-through-its-base-in-a-function", """
    import torch
    x = torch.tensor([1., 2., 3.], requires_grad=True)
    def f(t):
        t.mul_(2)
        return t
    y = x.clone()
    v = y[1:]
    z = f(y) + 1
    print(v.grad_fn.name(), z)
    (v * z[1:]).sum().backward()
    print(x.grad)
    """)
case("inplace-with-overlapping-operands-and-saved-view-outputs", """
    import torch
    x = torch.tensor([[0.5, -1., 2.], [1.5, 0.25, -0.75]], requires_grad=True)
    a = x + 1
    v0 = a.reshape(-1)
    for k in range(3):
        try:
            if k == 0:
                v0.mul_(a)
            elif k == 1:
                a[1:].copy_(a[:1] * 2)
            else:
                a.mul_(a)
        except RuntimeError as e:
            print('RuntimeError:', e)
    b = x * 1
    u = b[:, 1:]
    u.sigmoid_()
    b.zero_()
    print(type(b.grad_fn).__name__, type(u.grad_fn).__name__, b.grad_fn.name())
    try:
        b.sum().backward()
    except RuntimeError as e:
        print('RuntimeError:', e)
    """)

probes("metadata-and-dtype-methods", """
x = torch.ones(2, 3)
v = x[:, 1:]
""", ["x.ndimension()", "x.nbytes", "x.itemsize", "torch.ones(3, dtype=torch.int64).itemsize",
      "torch.ones(2, dtype=torch.bool).nbytes", "x.is_signed()", "x.byte().is_signed()", "x.bool().is_signed()",
      "x.char().is_signed()", "x.half().is_signed()", "x.int().is_signed()", "x.is_complex()", "x.is_cpu",
      "x.is_inference()", "v.storage_offset()", "x[1].storage_offset()", "x.t().storage_offset()",
      "x[1][2:].storage_offset()", "x[:, 2].storage_offset()", "torch.ones(0)[0:].storage_offset()",
      "x.is_same_size(v)", "x.is_same_size(x.clone())", "x.is_same_size(3)", "x.half()", "x.short()", "x.byte()",
      "x.char()", "x.half().dtype", "x.half().itemsize", "x.clone().requires_grad_().half()",
      "x.half().short().float()", "torch.tensor([-1.5, 2.7]).byte()", "torch.tensor([100., -3.7]).char()",
      "torch.tensor([70000., 1e-8, 0.1]).half()", "torch.tensor([1.5, -2.5]).short()",
      "torch.tensor([True, False]).half()", "torch.tensor([3, -1]).byte()"])
case("memory-formats", """
import torch
torch.manual_seed(0)
x = torch.randn(2, 3, requires_grad=True)
c = torch.randn(2, 3, 4, 5)
probes = ["torch.contiguous_format", "torch.preserve_format", "torch.channels_last", "torch.channels_last_3d",
          "torch.memory_format", "type(torch.channels_last)", "x.t().contiguous().stride()", "type(x.t().contiguous().grad_fn).__name__",
          "x.contiguous() is x", "x.t().is_contiguous()", "x.t().contiguous().is_contiguous()",
          "x.t().contiguous(memory_format=torch.preserve_format)", "x.contiguous(memory_format=None)",
          "x.contiguous(memory_format=1)", "x.is_contiguous(memory_format=None)", "x.clone(memory_format=None).stride()",
          "x.t().clone().stride()", "x.t().clone(memory_format=torch.contiguous_format).stride()",
          "x.t().clone(memory_format=torch.channels_last)", "c.clone(memory_format=torch.channels_last).stride()",
          "c.contiguous(memory_format=torch.channels_last).stride()",
          "c.contiguous(memory_format=torch.channels_last).is_contiguous(memory_format=torch.channels_last)",
          "c.contiguous(memory_format=torch.channels_last).is_contiguous()",
          "c.is_contiguous(memory_format=torch.channels_last)", "torch.randn(2,1,3,4).is_contiguous(memory_format=torch.channels_last)",
          "torch.randn(2,3,1,1).is_contiguous(memory_format=torch.channels_last)",
          "torch.randn(1,1,1,1).contiguous(memory_format=torch.channels_last).stride()",
          "c.permute(0, 2, 3, 1).clone().stride()", "c[:, ::2].clone().stride()", "c.transpose(1, 3)[:, ::2].clone().stride()",
          "torch.randn(2, 3, 4, 5, 6).contiguous(memory_format=torch.channels_last_3d).stride()",
          "c.contiguous(memory_format=torch.channels_last_3d)", "x.t().contiguous().view(-1)",
          "c.contiguous(memory_format=torch.channels_last).view(-1)", "torch.clone(x.t(), memory_format=torch.contiguous_format).stride()",
          "str(torch.channels_last)", "[torch.channels_last]", "torch.channels_last == torch.channels_last"]
for e in probes:
    try: print(e, "->", eval(e))
    except Exception as ex: print(e, "!!", type(ex).__name__, ex)
""")
case("like-functions-keep-the-layout", """
import torch
torch.manual_seed(0)
x = torch.randn(3, 4)
c = torch.randn(2, 3, 4, 5)
for src in ["x", "x.t()", "x[:, ::2]", "x.t()[::2]", "c.permute(0, 2, 3, 1)", "c.transpose(1, 3)[:, ::2]", "x.expand(2, 3, 4)", "x[:1]", "x.unsqueeze(1)"]:
    for f in ["torch.zeros_like", "torch.ones_like", "torch.empty_like", "torch.rand_like", "torch.randn_like"]:
        y = eval(f"{f}({src})")
        print(src, f, y.stride(), y.is_contiguous(), y.sum() if f != "torch.empty_like" else "")
    print(src, torch.full_like(eval(src), 2).stride(), torch.randint_like(eval(src), 5).stride())
    print(src, torch.zeros_like(eval(src), memory_format=torch.contiguous_format).stride())
for e in ["torch.zeros_like(x, memory_format=1)", "torch.zeros_like(x, memory_format=torch.channels_last)", "torch.rand_like(c, memory_format=torch.channels_last).stride()", "torch.ones_like(c, memory_format=torch.channels_last).stride()", "torch.randn_like(c.permute(0, 2, 3, 1), memory_format=torch.contiguous_format)[0, 0, 0]"]:
    try: print(e, "->", eval(e))
    except Exception as ex: print(e, "!!", type(ex).__name__, ex)
""")

case("unique-dispatch-reads-its-flags-first", """
import torch
x = torch.tensor([1, 2, 2])
for e in ['torch.unique("a")', 'torch.unique([1,2])', 'torch.unique(torch.ones(2), dim="x")', 'torch.unique_consecutive(3)', 'torch.unique(torch.ones(2), sorted="x")', 'torch.unique(torch.ones(2), dim=0, sorted=2)', 'torch.unique_consecutive(torch.ones(2), dim=0.5)','torch.ones(2).unique(1,2,3,4,5)', 'torch.ones(2).unique(return_counts=torch.ones(2))',
          'torch.unique(x, end_dim=1)', 'torch.unique(x, True, True, end_dim=1)', 'torch.unique(x, True, False, True, end_dim=1)', 'torch.unique(x, True, False, x)', 'torch.unique_consecutive(x, foo=1)', 'torch.unique_consecutive(x, True, foo=1)', 'torch.unique_consecutive(x, False, x)', 'torch.unique(x, 1, 2, 3, 4, 5)', 'x.unique(foo=1)', 'x.unique_consecutive(foo=1)',
          'torch.unique(x, return_inverse=True)', 'torch.unique_consecutive(x, True)', 'torch.unique_consecutive(x, return_counts=True)', 'torch.unique(x, sorted=False, return_counts=True)', 'x.unique(True, True, True)', 'torch.unique(input=x)', 'torch.unique_consecutive(input=x, return_inverse=True)']:
    try: print(e, eval(e))
    except Exception as ex: print(e, '!!', type(ex).__name__, ex)
for e in ['torch.unique()', 'torch.unique_consecutive()', 'torch.ones(2).unique(foo=1, bar=2)']:
    try: print(e, eval(e))
    except Exception as ex: print(e, '!!', type(ex).__name__, ex)
""")

probes("out-of-pointwise-functions", """
x = torch.tensor([1.5, 2.5])
oi = torch.zeros(2, dtype=torch.long)
og = torch.zeros(2, requires_grad=True)
y = torch.zeros(2)
""", ["torch.deg2rad(x, out=oi)", "torch.add(x, 1, out=torch.zeros(2))", "torch.add(x, 1, out='a')", "torch.add(x, 1, out=og)",
      "torch.add(x.clone().requires_grad_(), 1, out=torch.zeros(2))", "torch.add(x, 1, out=torch.empty(0))",
      "torch.add(x, 1, out=torch.zeros(2, dtype=torch.float64))", "torch.divide(-0.0, -0.0, out=-3)",
      "torch.add(torch.ones(2, dtype=torch.long), 1, out=torch.zeros(2, dtype=torch.bool))",
      "torch.exp(x, out=None)", "torch.sin(x, out=y)", "y", "y._version", "torch.mul(x, x, out=x)", "x._version"])

NO_ARGUMENTS = textwrap.dedent("""
import torch
x = torch.ones(2, requires_grad=True)
for n in ("dim numel item tolist numpy detach detach_ retain_grad cpu float double int long bool is_floating_point "
          "t t_ zero_ half short char byte ndimension is_signed is_complex is_inference storage_offset "
          "element_size").split():
    for call in ("(1)", "(1, 2)", "(a=1)"):
        try:
            eval(f"x.clone().{n}{call}")
        except Exception as e:
            print(n, call, type(e).__name__, e)
""")

ANOMALY = {
    "nan-check": """
        import torch
        z = torch.tensor([-1., 2.], requires_grad=True)
        with torch.autograd.detect_anomaly():
            print(torch.is_anomaly_enabled(), torch.is_anomaly_check_nan_enabled())
            y = z.sqrt().sum()
            try:
                y.backward()
            except RuntimeError as e:
                print('RuntimeError:', e)
        print(torch.is_anomaly_enabled(), z.grad)
        """,
    "no-nan-check-and-second-backward": """
        import torch
        z = torch.tensor([-1., 2.], requires_grad=True)
        with torch.autograd.set_detect_anomaly(True, check_nan=False):
            y = (z.sqrt() * 2).sum()
            y.backward()
            print(z.grad, torch.is_anomaly_check_nan_enabled())
            try:
                y.backward()
            except RuntimeError as e:
                print('RuntimeError:', e)
        print(torch.is_anomaly_enabled())
        """,
    "node-made-before-anomaly-mode": """
        import torch
        x = torch.tensor([1., 2.], requires_grad=True)
        a = x * 1
        r = a.cos()
        a.mul_(2)
        torch.autograd.set_detect_anomaly(True)
        try:
            print(r.grad_fn._saved_self)
        except RuntimeError as e:
            print('RuntimeError:', e)
        try:
            r.sum().backward()
        except RuntimeError as e:
            print('RuntimeError:', e)
        torch.autograd.set_detect_anomaly(False)
        """,
}


@pytest.mark.parametrize("cid", list(ANOMALY))
def test_anomaly_mode(cid):
    """The anomaly warnings carry a Python traceback of the forward call: only their lines and
    first lines are compared, everything else exactly."""
    assert_same_but_warning_tracebacks(textwrap.dedent(ANOMALY[cid]).strip("\n") + "\n")


@pytest.mark.parametrize("cid", list(CASES))
def test_tensor_api_cases(cid):
    try:
        assert_same(CASES[cid])
    except AssertionError as e:             # no costly traceback: the message has the script and the diff
        pytest.fail(str(e), pytrace=False)


def test_methods_without_arguments_refuse_them_as_pytorch_does():
    """PyTorch's methods without an argument parser raise CPython's own TypeError, which names
    the method's class as a script sees it ("TensorBase.dim()"): the oracle's tracing would show
    another class, so real torch runs this script uninstrumented."""
    from oracle import run_torch
    assert_same(NO_ARGUMENTS, torch_facts=run_torch(NO_ARGUMENTS, instrument=False))
