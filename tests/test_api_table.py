"""The op table (gradcli/ops/table.py), the forwards (gradcli/ops/) and the API table
(gradcli/torch/_api.py) agree:

* every forward the API table names is a function of a gradcli.ops module, and every torch
  function and Tensor method it declares is installed;
* Tensor has every method and in-place method real PyTorch's Tensor has for a function of
  the API table (and the ones added for that match PyTorch, through op_oracle.check_op);
* every row of the op table makes a node in some op test: the op tests run with the
  row_recorder plugin, which records the rows whose nodes gradcli makes inside op_oracle.
"""
from __future__ import annotations

import json
import os
import pkgutil
import subprocess
import sys
from pathlib import Path

import pytest
import torch

import gradcli.ops
import gradcli.torch as G
from gradcli.ops import TABLE
from gradcli.torch import _api

from op_oracle import In, check_op

TESTS = Path(__file__).parent

# The op tests whose cases run through op_oracle (the row test runs them under row_recorder).
OP_TESTS = ("test_ops_oracle.py", "test_dims_oracle.py", "test_higher_order_oracle.py", "test_multi_output_oracle.py",
            "test_nn_oracle.py", "test_nn_second_order_oracle.py", "test_argument_errors_oracle.py",
            "test_api_table.py::test_method_matches_pytorch")

# Rows no op_oracle case reaches, and the tests that exercise them instead.
EXERCISED_ELSEWHERE = {
    # a module's full backward hooks: scripts of whole modules, compared by oracle.assert_same
    "nn.backward_hook_function": "test_nn_module_oracle.py::test_full_backward_hooks_see_and_replace_gradients",
}


def _ops_modules():
    return [__import__(f"gradcli.ops.{m.name}", fromlist=["_"]) for m in pkgutil.iter_modules(gradcli.ops.__path__)]


def test_every_forward_in_the_api_table_is_a_function_of_an_ops_module():
    functions = {id(v) for module in _ops_modules() for v in vars(module).values() if callable(v)}
    missing = [row.functions or row.methods for row in _api.API if id(row.forward) not in functions]
    assert missing == []


def test_every_function_and_method_of_the_api_table_is_installed():
    functions = _api.functions()
    for row in _api.API:
        for name in row.functions.split():
            assert getattr(G, name).__name__ == functions[name].__name__, name
        for name in row.methods.split() + row.inplace.split():
            assert name in G.Tensor.__dict__, name


def test_the_methods_mapping_is_what_tensor_has_checked_once():
    from gradcli.engine import TensorBase
    from gradcli.torch import _signatures
    mapping = _api.methods(TensorBase)
    assert sorted(n for n in mapping if n not in G.Tensor.__dict__) == []
    assert sorted(n for n, v in mapping.items() if type(v) is not type(G.Tensor.__dict__[n])) == []
    twice = [n for n, v in mapping.items() if _signatures.is_checked(v) and _signatures.is_checked(v.__wrapped__)]
    assert twice == []


def test_tensor_has_every_method_pytorch_has_for_a_function_of_the_api_table():
    names = {n for row in _api.API for n in row.functions.split()}
    missing = sorted(m for n in names for m in (n, n + "_") if hasattr(torch.Tensor, m) and not hasattr(G.Tensor, m))
    assert missing == []


def test_every_method_of_the_api_table_is_a_method_pytorch_has():
    names = [n for row in _api.API for n in row.methods.split() + row.inplace.split()]
    assert [n for n in names if not hasattr(torch.Tensor, n)] == []


# -- the methods (mostly in-place variants) whose only tests are these: each against real PyTorch,
# on a non-leaf (an in-place op on a leaf that requires grad is an error, tested elsewhere)
POS = dict(low=0.5, high=2.0)
METHODS = {
    "subtract_": (lambda t, x, y: (x * 1).subtract_(y, alpha=2), (2, 3), (2, 3)),
    "multiply_": (lambda t, x, y: (x * 1).multiply_(y), (2, 3), (3,)),
    "divide_": (lambda t, x, y: (x * 1).divide_(y), (2, 3), In((2, 3), **POS)),
    "negative_": (lambda t, x: (x * 1).negative_(), (2, 3)),
    # (floor_divide records no node yet (PyTorch: NotImplemented): inputs that do not require grad)
    "floor_divide": (lambda t, x: x.floor_divide(0.7), In((2, 3), rg=False)),
    "floor_divide_": (lambda t, x: x.clone().floor_divide_(2), In((4,), rg=False, ints=True, low=-9, high=9)),
    "remainder": (lambda t, x, y: x.remainder(y), (2, 3), In((2, 3), **POS)),
    "remainder_": (lambda t, x: (x * 1).remainder_(0.75), (2, 3)),
    "remainder_-tensor": (lambda t, x, y: (x * 1).remainder_(y), (2, 3), In((3,), **POS)),
    "remainder_-int-by-float": (lambda t, x: x.clone().remainder_(2.5), In((3,), rg=False, ints=True, high=9)),
    "log_": (lambda t, x: (x * 1).log_(), In((2, 3), **POS)),
    "sin_": (lambda t, x: (x * 1).sin_(), (2, 3)),
    "sin_-int": (lambda t, x: x.clone().sin_(), In((3,), rg=False, ints=True, high=9)),
    "cos_": (lambda t, x: (x * 1).cos_(), (2, 3)),
    "rsqrt_": (lambda t, x: (x * 1).rsqrt_(), In((2, 3), **POS)),
    "reciprocal_": (lambda t, x: (x * 1).reciprocal_(), In((2, 3), **POS)),
    "floor_": (lambda t, x: (x * 1).floor_(), (2, 3)),
    "ceil_": (lambda t, x: (x * 1).ceil_(), (2, 3)),
    "round_": (lambda t, x: (x * 1).round_(), In((4,), values=[0.5, 1.5, -2.5, 2.4])),
    "trunc_": (lambda t, x: (x * 1).trunc_(), (2, 3)),
    "sign_": (lambda t, x: (x * 1).sign_(), (2, 3)),
    "frac_": (lambda t, x: (x * 1).frac_(), (2, 3)),
    "clip_": (lambda t, x: (x * 1).clip_(-0.5, 0.5), (2, 3)),
    "logical_and_": (lambda t, x, y: x.clone().logical_and_(y), In((4,), rg=False, values=[0., 1., 2., 0.]),
                     In((4,), rg=False, values=[1., 1., 0., 0.])),
    "logical_or_-bool-by-float": (lambda t, x, y: x.clone().logical_or_(y),
                                  In((4,), rg=False, values=[True, False, True, False]),
                                  In((4,), rg=False, values=[1., 1., 0., 0.])),
    "logical_xor_-int": (lambda t, x, y: x.clone().logical_xor_(y), In((4,), rg=False, ints=True, high=3),
                         In((4,), rg=False, ints=True, high=2)),
    "cumsum_": (lambda t, x: (x * 1).cumsum_(1), (2, 3)),
    "cumprod_": (lambda t, x: (x * 1).cumprod_(0), (2, 3)),
    # (rows only an in-place method records)
    "fill_": (lambda t, x: (x * 1).fill_(2.5), (2, 3)),
    "zero_": (lambda t, x: (x * 1).zero_(), (2, 3)),
    "masked_fill_-tensor-value": (lambda t, x, v: (x * 1).masked_fill_(x > 0, v), (2, 3), In((), values=1.5)),
    "t_": (lambda t, x: (x * 1).t_(), (2, 3)),
    "unsqueeze_": (lambda t, x: (x * 1).unsqueeze_(1), (2, 3)),
    "squeeze_": (lambda t, x: (x * 1).squeeze_(), (2, 1, 3)),
    "squeeze_-dim": (lambda t, x: (x * 1).squeeze_(1), (2, 1, 3)),
    # (create_graph through nll_loss of images: NllLoss2DBackwardBackward0)
    "nll_loss-4d-second-order": (
        lambda t, x, y: t.nn.functional.nll_loss(t.log_softmax(x, 1), y), (2, 3, 2, 2),
        In((2, 2, 2), rg=False, ints=True, low=0, high=3), {"second_order": True}),
}


@pytest.mark.parametrize("case", list(METHODS))
def test_method_matches_pytorch(case):
    fn, *specs = METHODS[case]
    kw = specs.pop() if isinstance(specs[-1], dict) else {}
    check_op(fn, *specs, desc=case, **kw)


def test_every_row_of_the_op_table_makes_a_node_in_an_op_test(tmp_path):
    out = tmp_path / "rows.json"
    env = dict(os.environ, ROW_RECORDER_OUT=str(out),
               PYTHONPATH=os.pathsep.join([str(TESTS), str(TESTS.parent), os.environ.get("PYTHONPATH", "")]))
    run = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:gradcli",
                          "-p", "row_recorder", *(str(TESTS / t) for t in OP_TESTS)], cwd=TESTS.parent, env=env,
                         capture_output=True, text=True, timeout=600)
    assert out.exists(), run.stdout[-3000:]      # (the tests' verdicts are their own run's: see row_recorder)
    made = set(json.loads(out.read_text()))
    assert sorted(set(TABLE) - made - set(EXERCISED_ELSEWHERE)) == []
    assert sorted(set(EXERCISED_ELSEWHERE) & made) == []      # (keep the list short: drop what an op test reaches)


def test_the_rows_exercised_elsewhere_are_rows_and_their_tests_exist():
    for key, test in EXERCISED_ELSEWHERE.items():
        assert key in TABLE
        path, _, name = test.partition("::")
        assert f"def {name}(" in (TESTS / path).read_text()
