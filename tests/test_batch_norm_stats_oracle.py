"""BatchNorm's batch statistics, running statistics and outputs (training and eval), bit for bit
against real PyTorch, at one thread and at PyTorch's default thread count: PyTorch's CPU kernel
sums (N, C) inputs per thread block in the input's dtype, so the thread count is part of the
result. In float64 only (N, C) inputs are compared bit for bit: PyTorch's float64 sum of squares
over images differs in the last bit for about 1 input in 30 (an order not found)."""
from __future__ import annotations

import numpy as np
import pytest

from nn_oracle import G, torch

pytestmark = pytest.mark.timeout(120)


def _shapes(rng, count, dtype):
    for k in range(count):
        if k % 3 == 0 or dtype == np.float64:
            yield (int(rng.integers(2, 70)), int(rng.integers(1, 12)))
        elif k % 3 == 1:
            yield (int(rng.integers(2, 6)), int(rng.integers(1, 5)), int(rng.integers(1, 7)))
        else:
            yield (int(rng.integers(1, 4)), int(rng.integers(1, 4)), int(rng.integers(1, 6)), int(rng.integers(1, 6)))


def _run(lib, x_steps, c, dtype, momentum):
    bn = (lib.nn.BatchNorm1d if len(x_steps[0].shape) < 4 else lib.nn.BatchNorm2d)(c, momentum=momentum)
    bn = bn.double() if dtype == np.float64 else bn
    outs = []
    for train in (True, False):         # training steps, then the same inputs in eval mode
        bn.train(train)
        for x in x_steps:
            y = bn(lib.tensor(x.tolist(), dtype=getattr(lib, np.dtype(dtype).name)))
            outs.append(np.array(y.detach().tolist(), dtype))
    stats = [np.array(t.tolist(), dtype) for t in (bn.running_mean, bn.running_var)]
    return outs, stats, int(bn.num_batches_tracked)


@pytest.fixture(params=[1, 3, "default"])
def threads(request):
    before = torch.get_num_threads()
    n = before if request.param == "default" else request.param
    torch.set_num_threads(n)
    G.set_num_threads(n)
    yield n
    torch.set_num_threads(before)
    G.set_num_threads(before)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_running_statistics_bit_exact(threads, dtype):
    rng = np.random.default_rng(threads)
    for shape in _shapes(rng, 60, dtype):
        if shape[0] * int(np.prod(shape[2:])) < 2:
            continue
        steps = [(rng.standard_normal(shape) * rng.uniform(0.1, 20) + rng.uniform(-8, 8)).astype(dtype)
                 for _ in range(3)]
        momentum = float(rng.choice([0.1, 0.3, 0.01]))
        t_outs, t_stats, t_n = _run(torch, steps, shape[1], dtype, momentum)
        g_outs, g_stats, g_n = _run(G, steps, shape[1], dtype, momentum)
        assert g_n == t_n
        for name, a, b in zip(("running_mean", "running_var"), g_stats, t_stats):
            assert np.array_equal(a, b), f"{name} for input {shape} ({np.dtype(dtype).name}, {threads} threads):" \
                                         f"\n gradcli {a.tolist()}\n torch   {b.tolist()}"
        for step, (a, b) in enumerate(zip(g_outs, t_outs)):
            assert np.array_equal(a, b), f"output of step {step} for input {shape}: {np.abs(a - b).max()}"


def test_thread_count_functions_match_torch():
    for bad in (0, -2, 1.5, True, "2", 2 ** 31, -2 ** 31, -2 ** 31 - 1, 2 ** 63):
        errors = []
        for lib in (torch, G):
            try:
                lib.set_num_threads(bad)
                errors.append(None)
            except Exception as e:      # noqa: BLE001 (the error is the observed behaviour)
                errors.append((type(e).__name__, str(e)))
        assert errors[0] == errors[1]
    before = torch.get_num_threads()
    assert G.get_num_threads() == before
    G.set_num_threads(3)
    assert G.get_num_threads() == 3
    G.set_num_threads(before)


def _argument_outcomes(lib):
    F = lib.nn.functional
    dtypes = (None, lib.float32, lib.float64)

    def make(dtype, n=3):
        return None if dtype is None else lib.ones(n, dtype=dtype)
    calls = [lambda: F.batch_norm(lib.ones(4, 3, dtype=xd), make(rd), make(rd), make(wd), make(bd), training=train)
             for xd in dtypes[1:] for wd in dtypes for bd in dtypes for rd in dtypes for train in (True, False)]
    calls += [lambda: F.batch_norm(lib.ones(4, 3), make(lib.float32), make(lib.float32), make(lib.float32),
                                   make(lib.float32, 2), training=True),
              lambda: F.batch_norm(lib.ones(4, 3), make(lib.float32, 2), make(lib.float32), training=False),
              lambda: F.batch_norm(lib.ones(2, 3, 4), make(lib.float32), make(lib.float32, 4), training=False),
              lambda: F.batch_norm(lib.ones(4, 3), make(lib.float32), None, training=False),
              lambda: F.batch_norm(lib.ones(1, 3), make(lib.float32), make(lib.float32), training=True),
              lambda: F.batch_norm(lib.ones(4, 3), None, None, training=True, momentum=None)]
    outcomes = []
    for call in calls:
        try:
            call()
            outcomes.append("ok")
        except Exception as e:      # noqa: BLE001 (the error is the observed behaviour)
            outcomes.append(f"{type(e).__name__}: {e}")
    return outcomes


def test_argument_errors_in_pytorchs_order():
    """Sizes of the running statistics and parameters, their presence in eval mode, and the mixed
    dtype rules of PyTorch's CPU kernel (the first given parameter decides)."""
    assert _argument_outcomes(G) == _argument_outcomes(torch)
