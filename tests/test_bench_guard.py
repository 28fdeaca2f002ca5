"""Regression guard for performance and memory (benchmarks/README.md).

The timing tests run benchmarks/workloads.py at a small size and fail only on a GROSS
regression, measured as a ratio against the hand-written NumPy version of the same
workload timed alternately in the same run — never an absolute time, so a slow or
loaded machine slows both sides alike. Best-of-N on both sides filters out pauses.

The memory tests check that a backward() or autograd.grad() without retain_graph releases
every tensor saved by the nodes it ran, promptly (by reference counting, as PyTorch does):
weak references to the saved arrays die, and tracemalloc's count of live bytes drops back
to what the caller still holds (the leaf and its .grad).
"""
from __future__ import annotations

import gc
import json
import os
import subprocess
import sys
import time
import tracemalloc
import weakref

import numpy as np
import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)

from benchmarks import workloads as W  # noqa: E402
from gradcli import torch as gt  # noqa: E402

# Gross-regression limits: gradcli's time / hand-written NumPy's, same run, best of REPS.
# Measured when written (2 cores, loaded machine): W1 ≈ 8.5×; W2 ≈ 1.3–1.9× the tuned NumPy
# (`k*k*k`, in-place backward; ≈ 0.25× the naive one whose `k**3` is NumPy's slow generic
# power); W3 ≈ 1.85× (batch 64 × width 128, one BLAS thread).
W1_LIMIT = 40.0
W2_LIMIT = 4.0
W3_LIMIT = 4.0
REPS = 5


def _best_ratio(a, b, reps=REPS):
    """min time of a / min time of b, alternating a and b (after one warm-up each)."""
    a(), b()
    ta, tb = [], []
    for i in range(reps):
        for fn, out in ((a, ta), (b, tb)) if i % 2 == 0 else ((b, tb), (a, ta)):
            gc.collect()
            t0 = time.perf_counter()
            fn()
            out.append(time.perf_counter() - t0)
    return min(ta) / min(tb), min(ta), min(tb)


def test_w1_per_op_overhead_not_grossly_worse_than_numpy():
    n = 3_000
    ratio, tg, tn = _best_ratio(W.make_w1("gradcli", n), W.make_w1("numpy", n))
    assert ratio <= W1_LIMIT, (f"W1 ({n} ops): gradcli {tg / n * 1e6:.1f} µs/op is {ratio:.1f}× hand-written "
                               f"NumPy's {tn / n * 1e6:.2f} µs/op (limit {W1_LIMIT}×)")


def test_w1_deep_chain_has_no_recursion_limit():
    n = 3 * (sys.getrecursionlimit() + 100)
    g = W.to_numpy(W.make_w1("gradcli", n)())
    np.testing.assert_allclose(g, W.w1_numpy(n), rtol=1e-2)


def test_w2_elementwise_not_grossly_worse_than_numpy():
    # Full size: at 1e5 elements a step takes ~2 ms and a busy machine moves the ratio 0.3–4.6×;
    # at 1e6 (~100 ms a step, ~1 s for the test) it stays within 1.3–1.9×.
    size = 1_000_000
    ratio, tg, tn = _best_ratio(W.make_w2("gradcli", size)[0], W.make_w2("numpy-fast", size)[0])
    assert ratio <= W2_LIMIT, (f"W2 (2×{size}): gradcli {tg * 1e3:.1f} ms is {ratio:.1f}× the tuned "
                               f"hand-written NumPy's {tn * 1e3:.1f} ms (limit {W2_LIMIT}×)")


_W3_PROBE = """
import json, sys
sys.path.insert(0, sys.argv[1])
sys.path.insert(0, sys.argv[2])
import test_bench_guard as T
from benchmarks import workloads as W
ratio, tg, tn = T._best_ratio(W.make_w3("gradcli", 64, 128), W.make_w3("numpy", 64, 128), reps=15)
print(json.dumps([ratio, tg, tn]))
"""


def test_parsing_is_linear_in_statements_per_line():
    """Many `;`-separated statements on one line once took quadratic time (each statement
    re-scanned its whole line for its text): 8× the statements must cost far less than 64×.
    (`print q` makes it the dialect, which the grammar parses and dialect.py translates.)"""
    from gradcli.lang import dialect
    dialect.parse("print q\n")                  # tables loaded before timing

    def best(n):
        src = "print q" + "; q = 1" * n + "\n"
        times = []
        for _ in range(3):
            t0 = time.perf_counter()
            dialect.parse(src)
            times.append(time.perf_counter() - t0)
        return min(times)
    ratio = best(4000) / best(500)
    assert ratio < 24, f"8x the statements on one line took {ratio:.1f}x the time (linear: 8x)"


def test_running_straight_line_scripts_is_linear_in_their_length():
    """Every op reads where it was made; reading a frame's line once scanned the whole code
    object's line table, so a 10,000-line script spent most of its run there (quadratic).
    16x the lines must cost far less than 16x squared."""
    from gradcli.session import executor

    def best(n):
        src = W.chain_lines_script(n)
        times = []
        for _ in range(3):
            t0 = time.perf_counter()
            executor.run_source(src, "chain.py")
            times.append(time.perf_counter() - t0)
        return min(times)
    best(300)
    ratio = best(16_000) / best(1_000)
    assert ratio < 40, f"16x the lines took {ratio:.1f}x the time (linear: 16x)"


def test_w3_mlp_not_grossly_worse_than_numpy():
    # In a child with one BLAS thread: on a busy 2-core machine OpenBLAS's second thread
    # spins and stalls small matmuls by 10-100x at random, on either side.
    env = dict(os.environ, OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1", MKL_NUM_THREADS="1")
    out = subprocess.run([sys.executable, "-c", _W3_PROBE, ROOT, os.path.dirname(os.path.abspath(__file__))],
                         env=env, capture_output=True, text=True, check=True, timeout=300)
    ratio, tg, tn = json.loads(out.stdout.strip().splitlines()[-1])
    assert ratio <= W3_LIMIT, (f"W3 (batch 64, width 128): gradcli {tg * 1e3:.2f} ms is {ratio:.1f}× "
                               f"hand-written NumPy's {tn * 1e3:.2f} ms (limit {W3_LIMIT}×)")


def test_workloads_agree_with_hand_written_numpy():
    """The guard compares like with like: same values and gradients."""
    g = W.to_numpy(W.make_w1("gradcli", 300)())
    np.testing.assert_allclose(g, W.w1_numpy(300), rtol=1e-3)
    step, grads = W.make_w2("gradcli", 1000)
    loss = W.to_numpy(step())
    ref = W.w2_numpy(*W.w2_inputs(1000))
    np.testing.assert_allclose(loss, ref[0], rtol=1e-4)
    for got, want in zip(grads(), ref[1:]):
        np.testing.assert_allclose(got, want, rtol=1e-3, atol=1e-5)
    fast = W.w2_numpy_fast(*W.w2_inputs(1000))
    for got, want in zip(fast, ref):
        np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-6)
    sg, sn = W.make_w3("gradcli", 8, 16), W.make_w3("numpy", 8, 16)
    for _ in range(2):                      # the second loss checks the SGD update too
        np.testing.assert_allclose(W.to_numpy(sg()), sn(), rtol=1e-4)

# ----------------------------------------------------------------------------- memory

N = 1_000_000                       # 4 MB per float32 intermediate
MB = 2 ** 20


def _build(x):
    """A loss over 1e6-element intermediates that the graph alone keeps alive, through
    nodes that save their input (sin, pow, div, log, mul), their result (exp, tanh,
    sigmoid, sqrt) or both operands. Returns the loss and weak references to every
    intermediate array (the saved ones among them)."""
    a = x * 2.0
    b = gt.exp(a)              # ExpBackward0: result
    c = gt.sin(b)              # SinBackward0: self
    d = c ** 2                 # PowBackward0: self
    e = gt.tanh(d)             # TanhBackward0: result
    f = e / b                  # DivBackward0: self, other
    f1 = f + 1.5               # AddBackward0: nothing
    g = gt.log(f1)             # LogBackward0: self
    h = g * f                  # MulBackward0: self, other
    i = gt.sigmoid(h)          # SigmoidBackward0: result
    j = gt.sqrt(i)             # SqrtBackward0: result
    loss = j.mean()
    refs = [weakref.ref(t._data) for t in (a, b, c, d, e, f, f1, g, h, i, j)]
    return loss, refs


def _leaf():
    return gt.from_numpy(np.linspace(0.1, 1.0, N, dtype=np.float32)).requires_grad_()


@pytest.fixture
def no_gc():
    """Reference counting alone must free the buffers, as in PyTorch."""
    gc.collect()
    gc.disable()
    yield
    gc.enable()


@pytest.mark.parametrize("how", ["backward", "autograd.grad"])
def test_backward_frees_every_saved_tensor(no_gc, how):
    x = _leaf()
    loss, refs = _build(x)
    held = [r for r in refs if r() is not None]
    assert len(held) >= 8, "the graph should hold the saved intermediates before backward"
    if how == "backward":
        loss.backward()
    else:
        (gx,) = gt.autograd.grad(loss, [x])
    still = [i for i, r in enumerate(refs) if r() is not None]
    assert not still, (f"after a non-retaining {how}, intermediates {still} (0 = x*2 ... 10 = sqrt) are still "
                       "referenced although only `loss` (and its graph) is alive")
    assert loss.grad_fn is not None          # the graph itself is still alive: only its buffers went


def test_retain_graph_keeps_saved_tensors(no_gc):
    """The counter-check: the weak references do see buffers that the graph keeps."""
    x = _leaf()
    loss, refs = _build(x)
    loss.backward(retain_graph=True)
    assert sum(r() is not None for r in refs) >= 8
    loss.backward()
    assert all(r() is None for r in refs)


def test_backward_memory_drops_back_tracemalloc(no_gc):
    x = _leaf()
    tracemalloc.start()
    try:
        base = tracemalloc.get_traced_memory()[0]
        loss, _ = _build(x)
        after_forward = tracemalloc.get_traced_memory()[0] - base
        loss.backward()
        after_backward = tracemalloc.get_traced_memory()[0] - base
    finally:
        tracemalloc.stop()
    grad_bytes = x.grad.numpy().nbytes
    assert after_forward >= 6 * 4 * N, f"forward should hold the saved buffers ({after_forward / MB:.1f} MiB held)"
    assert after_backward <= grad_bytes + 1 * MB, (
        f"after backward {after_backward / MB:.1f} MiB are still allocated beyond the leaf; only x.grad "
        f"({grad_bytes / MB:.1f} MiB) should be (forward held {after_forward / MB:.1f} MiB)")


def test_a_plain_python_run_imports_only_what_it_needs(tmp_path):
    """Start-up: `gradcli run --plain` on a plain-Python script parses it with CPython's parser
    and prints without Rich, so none of the heavier libraries may load (Lark alone is ~20 ms)."""
    script = tmp_path / "seed.py"
    script.write_text(W.seed_script(), encoding="utf-8")
    r = subprocess.run([sys.executable, "-X", "importtime", "-m", "gradcli", "run", "--plain", str(script)],
                       cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr[-2000:]          # examples/seed000_block1.py retaining: it runs through
    imported = {line.rsplit("|", 1)[-1].strip().split(".")[0] for line in r.stderr.splitlines()
                if line.startswith("import time:")}
    assert "gradcli" in imported
    assert not imported & {"lark", "typer", "click", "rich", "pygments", "prompt_toolkit", "torch", "regex"}
