"""sum() and mean() give PyTorch's float bits: the same order of additions as its CPU kernel.

Every case runs the same reduction under real PyTorch and gradcli on the same values and
compares the results bit for bit (`repr` of `.item()`, or the bytes of a reduced tensor):
sizes around the kernel's vector, accumulator, cascade and threading boundaries, random
shapes with every choice of dims, keepdim, non-contiguous views, float32 and float64,
the losses that reduce with mean/sum, other thread counts, and every CPU capability PyTorch
can be forced to (a subprocess per capability, as PyTorch reads ATEN_CPU_CAPABILITY at start).
"""
from __future__ import annotations

import json
import os
import subprocess
import sys

import numpy as np
import pytest
import torch

import gradcli.torch as gtorch

pytestmark = pytest.mark.timeout(600)

# the kernel's boundaries in elements: 8-lane vectors, 4 of them per row of accumulators,
# 16 rows per cascade step (then 16 steps per level), threads from 32768 elements
BOUNDARIES = [7, 8, 9, 31, 32, 33, 63, 64, 65, 511, 512, 513, 8191, 8192, 8193,
              32767, 32768, 32769, 65535, 65536, 65537, 131071, 131072, 131073, 262147, 10 ** 6]


def _bits(t):
    a = t.detach().numpy() if hasattr(t, "detach") else t.numpy()
    return str(a.dtype), a.shape, a.tobytes().hex() if a.ndim else repr(a.item())


def _both(make, reduce):
    """reduce(lib, tensor) under torch and gradcli on make(lib)'s tensor; a difference or None."""
    want, got = _bits(reduce(torch, make(torch))), _bits(reduce(gtorch, make(gtorch)))
    return None if want == got else (want[:2], want[2][:40], got[2][:40])


def _view(lib, values, view):
    """The tensor of values seen through view: ("permute", order), ("narrow", dim, start, length),
    ("step", dim, step), ("expand", shape) or None."""
    t = lib.tensor(values)
    if view is None:
        return t
    kind, *args = view
    if kind == "permute":
        return t.permute(*args[0])
    if kind == "narrow":
        return t.narrow(*args)
    if kind == "step":
        dim, step = args
        return t[(slice(None),) * dim + (slice(None, None, step),)]
    return t.expand(*args[0])


def _random_case(rng):
    """A random shape (up to 4 dims, some large enough to be split between threads), a view of it,
    dims to reduce (None: all) and keepdim."""
    nd = int(rng.integers(1, 5))
    top = (None, 300000, 600, 80, 25)[nd] if rng.random() < 0.2 else 24      # at most ~400k elements
    shape = tuple(int(s) for s in rng.integers(1, top, nd))
    dtype = np.float64 if rng.random() < 0.3 else np.float32
    values = rng.standard_normal(shape).astype(dtype)
    view, vshape = None, shape
    pick = rng.integers(0, 5)
    d = int(rng.integers(0, nd))
    if pick == 1 and nd > 1:
        order = [int(i) for i in rng.permutation(nd)]
        view, vshape = ("permute", order), tuple(shape[i] for i in order)
    elif pick == 2 and shape[d] > 2:
        view = ("narrow", d, 1, shape[d] - 2)
        vshape = shape[:d] + (shape[d] - 2,) + shape[d + 1:]
    elif pick == 3:
        view = ("step", d, 2)
        vshape = shape[:d] + ((shape[d] + 1) // 2,) + shape[d + 1:]
    elif pick == 4 and 1 in shape:
        vshape = tuple(5 if s == 1 else s for s in shape)
        view = ("expand", vshape)
    k = int(rng.integers(0, len(vshape) + 1))
    dims = None if k == 0 else tuple(sorted(int(i) for i in rng.choice(len(vshape), k, replace=False)))
    return values, view, dims, bool(rng.integers(0, 2))


def _reduction(op, dims, keepdim):
    if dims is None:
        return lambda lib, t: getattr(t, op)()
    return lambda lib, t: getattr(t, op)(dims, keepdim=keepdim)


def run_random_cases(seed, count):
    """(cases checked, the differences found) for count random cases, sum and mean each."""
    rng = np.random.default_rng(seed)
    checked, bad = 0, []
    for _ in range(count):
        values, view, dims, keepdim = _random_case(rng)
        for op in ("sum", "mean"):
            diff = _both(lambda lib: _view(lib, values, view), _reduction(op, dims, keepdim))
            checked += 1
            if diff:
                bad.append((op, values.shape, str(values.dtype), view, dims, keepdim, diff))
    return checked, bad


def run_size_cases(seed):
    """Full sum()/mean() of 1-D float32/float64 tensors of every size to 600 and around each boundary."""
    rng = np.random.default_rng(seed)
    sizes = list(range(1, 601)) + [b + k for b in BOUNDARIES for k in (-1, 0, 1)]
    checked, bad = 0, []
    for n in sizes:
        for dtype in (np.float32, np.float64):
            values = rng.standard_normal(n).astype(dtype)
            for op in ("sum", "mean"):
                diff = _both(lambda lib: lib.tensor(values), _reduction(op, None, False))
                checked += 1
                if diff:
                    bad.append((op, n, str(np.dtype(dtype)), diff))
    return checked, bad


def test_full_sum_and_mean_of_every_small_size_and_each_boundary_match_pytorch_bits():
    checked, bad = run_size_cases(0)
    assert checked == 4 * (600 + 3 * len(BOUNDARIES))
    assert not bad, bad[:5]


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_sum_and_mean_over_random_shapes_dims_and_views_match_pytorch_bits(seed):
    checked, bad = run_random_cases(seed, 500)
    assert checked == 1000
    assert not bad, bad[:5]


def test_seeded_randn_10x10_sums_match_pytorch_item_digits():
    """The testers' case: print(x.sum().item()) for torch.randn(10, 10) under 200 seeds."""
    bad = []
    for seed in range(200):
        torch.manual_seed(seed)
        gtorch.manual_seed(seed)
        want, got = torch.randn(10, 10).sum().item(), gtorch.randn(10, 10).sum().item()
        if repr(want) != repr(got):
            bad.append((seed, want, got))
    assert not bad, bad[:5]


@pytest.mark.parametrize("shape, dims", [
    ((64, 3000), (0,)), ((3000, 64), (1,)), ((6, 9000), (0,)), ((9000, 6), (0,)),
    ((5, 7, 1200), (1,)), ((40, 50, 30), (0, 2)), ((2, 40000), (1,)), ((3, 33000), (0,)),
])
def test_reductions_split_between_threads_match_pytorch_bits(shape, dims):
    """Big enough for PyTorch to split the kept dims between threads (also seen transposed)."""
    values = np.random.default_rng(7).standard_normal(shape).astype(np.float32)
    for view in (None, ("permute", list(range(len(shape)))[::-1])):
        vdims = dims if view is None else tuple(len(shape) - 1 - d for d in dims)
        for op in ("sum", "mean"):
            diff = _both(lambda lib: _view(lib, values, view), _reduction(op, vdims, False))
            assert diff is None, (op, view, diff)


@pytest.mark.parametrize("view", [("step", 1, 2), ("narrow", 1, 3, 290), ("narrow", 0, 1, 250), ("step", 2, 3)])
def test_full_sums_of_big_strided_views_split_between_threads_mid_row_match_pytorch_bits(view):
    """Each thread sums a linear range of a view that does not coalesce: ranges start and end mid-row."""
    values = np.random.default_rng(8).standard_normal((251, 297, 3)).astype(np.float32)
    for op in ("sum", "mean"):
        assert _both(lambda lib: _view(lib, values, view), _reduction(op, None, False)) is None, op


@pytest.mark.parametrize("threads", [1, 3])
def test_sums_follow_the_thread_count_set_by_set_num_threads(threads):
    before = torch.get_num_threads(), gtorch.get_num_threads()
    torch.set_num_threads(threads)
    gtorch.set_num_threads(threads)
    try:
        rng = np.random.default_rng(threads)
        for n in (40000, 100003, 10 ** 6):
            values = rng.standard_normal(n).astype(np.float32)
            assert _both(lambda lib: lib.tensor(values), _reduction("sum", None, False)) is None, n
        values = rng.standard_normal((7, 9000)).astype(np.float32)
        assert _both(lambda lib: lib.tensor(values), _reduction("sum", (1,), False)) is None
    finally:
        torch.set_num_threads(before[0])
        gtorch.set_num_threads(before[1])


@pytest.mark.parametrize("loss", ["MSELoss", "L1Loss"])
@pytest.mark.parametrize("reduction", ["mean", "sum"])
def test_losses_that_reduce_with_mean_or_sum_match_pytorch_item_digits(loss, reduction):
    rng = np.random.default_rng(11)
    bad = []
    for _ in range(300):
        shape = tuple(int(s) for s in rng.integers(1, 40, int(rng.integers(1, 4))))
        x, y = rng.standard_normal(shape).astype(np.float32), rng.standard_normal(shape).astype(np.float32)
        want = getattr(torch.nn, loss)(reduction=reduction)(torch.tensor(x), torch.tensor(y)).item()
        got = getattr(gtorch.nn, loss)(reduction=reduction)(gtorch.tensor(x), gtorch.tensor(y)).item()
        if repr(want) != repr(got):
            bad.append((shape, want, got))
    assert not bad, bad[:5]


@pytest.mark.parametrize("reduction", ["mean", "sum"])
def test_nll_loss_reduces_in_its_own_cascade_order_like_pytorch(reduction):
    """nll_loss sums the picked values (and class weights) in its own 8-level cascade over the
    batch, ignored targets included in the count of positions but adding nothing."""
    rng = np.random.default_rng(13)
    bad = []
    for case in range(300):
        shape = (int(rng.integers(1, 3000 if case % 4 == 0 else 80)), int(rng.integers(2, 12)))
        if case % 5 == 0:
            shape += tuple(int(s) for s in rng.integers(1, 7, 2))
        x = rng.standard_normal(shape).astype(np.float32)
        y = rng.integers(0, shape[1], (shape[0],) + shape[2:])
        if case % 3 == 0:
            y[rng.random(y.shape) < 0.2] = -100
        w = rng.random(shape[1]).astype(np.float32) if case % 2 else None
        want, got = (lib.nn.functional.nll_loss(lib.tensor(x), lib.tensor(y), reduction=reduction,
                                                weight=None if w is None else lib.tensor(w)).item()
                     for lib in (torch, gtorch))
        if repr(want) != repr(got):
            bad.append((shape, w is not None, want, got))
    assert not bad, bad[:5]


@pytest.mark.parametrize("capability", ["default", "avx2"])
def test_sums_match_pytorch_forced_to_each_cpu_capability(capability):
    """PyTorch reads ATEN_CPU_CAPABILITY once, at start: a fresh process per capability."""
    env = dict(os.environ, ATEN_CPU_CAPABILITY=capability)
    out = subprocess.run([sys.executable, __file__, "200"], env=env, capture_output=True, text=True,
                         timeout=500, check=True).stdout
    report = json.loads(out.strip().splitlines()[-1])
    assert report["capability"] == capability.upper()
    assert report["checked"] > 3000
    assert report["bad"] == [], report["bad"][:5]


if __name__ == "__main__":            # the subprocess of the capability test: size and random cases
    sizes = run_size_cases(5)
    randoms = run_random_cases(6, int(sys.argv[1]))
    print(json.dumps({"capability": torch.backends.cpu.get_cpu_capability(),
                      "checked": sizes[0] + randoms[0], "bad": [repr(b) for b in sizes[1] + randoms[1]]}))
