"""torch.inverse / torch.linalg under gradcli against real PyTorch, for what check_op cannot
express: the saved inverse sharing its output's version counter, LinAlgError as scripts see,
catch and print it, and values over many random matrices."""
from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest
import torch

from oracle import _values_differ, assert_same
from op_oracle import G

INVERSE_MODIFIED = """
import torch
a = torch.tensor([[2.0, 1.0], [1.0, 3.0]], requires_grad=True)
y = torch.inverse(a)
print(y._version)
y.mul_(2)
print(y._version)
y.sum().backward()
"""


def test_changing_the_saved_inverse_in_place_breaks_backward_as_in_pytorch():
    assert_same(INVERSE_MODIFIED)


INVERSE_VIEW_MODIFIED = """
import torch
a = torch.tensor([[2.0, 1.0], [1.0, 3.0]], requires_grad=True)
y = torch.linalg.inv(a)
y[0, 0] = 5.0
y.sum().backward()
"""


def test_changing_the_saved_inverse_through_a_view_breaks_backward_as_in_pytorch():
    assert_same(INVERSE_VIEW_MODIFIED)


INVERSE_KEPT = """
import torch
a = torch.tensor([[2.0, 1.0], [1.0, 3.0]], requires_grad=True)
y = a.inverse()
z = y * 2
z.sum().backward()
print(a.grad, y._version)
"""


def test_an_inverse_left_unchanged_backpropagates():
    assert_same(INVERSE_KEPT)


SINGULAR_CAUGHT = """
import torch
for m in ([[1.0, 2.0], [2.0, 4.0]], [[[1.0, 0.0], [0.0, 1.0]], [[0.0, 0.0], [0.0, 0.0]]]):
    try:
        torch.inverse(torch.tensor(m))
    except torch.linalg.LinAlgError as e:
        print("linalg:", e, isinstance(e, RuntimeError), type(e).__name__)
try:
    torch.matrix_power(torch.zeros(3, 3), -2)
except RuntimeError as e:
    print("runtime:", e)
torch.linalg.inv(torch.ones(3, 3))
"""


def test_singular_matrices_raise_linalg_error_as_in_pytorch():
    assert_same(SINGULAR_CAUGHT)


def test_the_command_line_prints_linalg_error_by_its_qualified_name(tmp_path):
    script = tmp_path / "singular.py"
    script.write_text("import torch\ntorch.inverse(torch.zeros(2, 2))\n")
    run = subprocess.run([sys.executable, "-m", "gradcli", "run", "--plain", str(script)],
                         capture_output=True, text=True, timeout=60)
    assert ("torch._C._LinAlgError: linalg.inv: The diagonal element 1 is zero, the inversion could not be "
            "completed because the input matrix is singular.") in run.stdout + run.stderr


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_inverse_values_agree_over_many_random_matrices(dtype):
    rng = np.random.default_rng(7)
    for _ in range(200):
        n = int(rng.integers(1, 7))
        a = (rng.standard_normal((2, n, n)) / n + np.eye(n)).astype(dtype)     # det and inverse near 1
        want = torch.linalg.inv(torch.from_numpy(a)).numpy()
        got = G.linalg.inv(G.tensor(a))._data
        assert got.dtype == want.dtype
        assert not _values_differ(want, got, dtype), (a, want, got)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_det_values_and_gradients_agree_over_many_random_matrices(dtype):
    rng = np.random.default_rng(11)
    for _ in range(200):
        n = int(rng.integers(1, 7))
        a = (rng.standard_normal((2, n, n)) / n + np.eye(n)).astype(dtype)     # det and inverse near 1
        ta, ga = torch.tensor(a, requires_grad=True), G.tensor(a, requires_grad=True)
        want, got = torch.linalg.det(ta), G.linalg.det(ga)
        assert not _values_differ(want.detach().numpy(), got._data, dtype), (a, want, got)
        want.sum().backward()
        got.sum().backward()
        assert not _values_differ(ta.grad.numpy(), ga.grad._data, dtype), (a, ta.grad, ga.grad)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_solve_values_and_gradients_agree_over_many_random_systems(dtype):
    rng = np.random.default_rng(13)
    for _ in range(100):
        n, k = int(rng.integers(1, 6)), int(rng.integers(1, 4))
        a = (rng.standard_normal((2, n, n)) / n + np.eye(n)).astype(dtype)
        b = rng.standard_normal((2, n, k)).astype(dtype)
        ta, tb = torch.tensor(a, requires_grad=True), torch.tensor(b, requires_grad=True)
        ga, gb = G.tensor(a, requires_grad=True), G.tensor(b, requires_grad=True)
        want, got = torch.linalg.solve(ta, tb), G.linalg.solve(ga, gb)
        assert not _values_differ(want.detach().numpy(), got._data, dtype), (a, b, want, got)
        want.sum().backward()
        got.sum().backward()
        for t, g in ((ta, ga), (tb, gb)):
            assert not _values_differ(t.grad.numpy(), g.grad._data, dtype), (a, b, t.grad, g.grad)


# The matrix 2-norm (an order given as the 0-d tensor 2 among the wrong arguments) needs singular
# values, which gradcli lacks: these two fail on that one call until it has them.
NEEDS_SVD = pytest.mark.xfail(strict=True, reason="matrix_norm with ord=2 needs the SVD (not in gradcli)")
LINALG_TARGETS = [pytest.param(f"linalg.{n}", marks=NEEDS_SVD) if n in ("matrix_norm", "norm") else f"linalg.{n}"
                  for n in sorted(G.linalg.__all__) if n != "LinAlgError"]


@pytest.mark.parametrize("target", LINALG_TARGETS)
def test_bad_arguments_to_torch_linalg_raise_what_pytorch_raises(target):
    from test_argument_errors_oracle import differences
    found = differences(target)
    assert not found, f"{len(found)} calls differ:\n" + "\n".join(found[:25])
