"""Wrong-typed and out-of-range arguments raise what PyTorch raises.

Every public function of gradcli.torch (and torch.nn.functional, torch.autograd), every
public Tensor method that PyTorch also has and every Python operator on tensors is called with a working baseline call in which
one argument is replaced by, or followed by, a bad value (tests/argument_cases.py), under
gradcli (library mode, inside a script session's limits) and under real PyTorch. For every
call:

* an exception escaping gradcli is one of its script errors (gradcli/errors.py), or a Python
  error raised by the call itself, never by gradcli's internals (NumPy's errors, an
  IndexError from a tuple, ...): the command line reports those as internal errors;
* when both raise, the Python exception types are the same;
* gradcli does not refuse a call PyTorch accepts.
"""
from __future__ import annotations

import os
import warnings

import numpy as np
import pytest
import torch

import gradcli
import gradcli.torch as GT
from gradcli import runner
from gradcli.engine import Tensor
from gradcli.errors import ScriptError

from argument_cases import CANDIDATES, Sym, builtin_name, call, cases

PACKAGE = os.path.dirname(gradcli.__file__)
OPERATORS = ("lt", "le", "gt", "ge", "eq", "ne", "add", "sub", "mul", "truediv", "floordiv", "mod", "pow", "matmul",
             "and_", "or_", "xor", "neg", "pos", "invert", "abs", "iadd", "isub", "imul", "itruediv", "iand", "ior",
             "ixor")
F_NAMES = ("relu", "sigmoid", "tanh", "softmax", "log_softmax", "mse_loss", "cross_entropy", "nll_loss",
           "binary_cross_entropy_with_logits")


def targets():
    out = [f"torch.{n}" for n in sorted(dir(GT)) if not n.startswith("_") and hasattr(torch, n)
           and callable(getattr(GT, n)) and not isinstance(getattr(GT, n), type)]
    out += [f"F.{n}" for n in F_NAMES] + ["autograd.grad", "autograd.backward"]
    out += [f"operator.{n}" for n in OPERATORS]
    out += [f"Tensor.{n}" for n in sorted(dir(Tensor)) if not n.startswith("_") and hasattr(torch.Tensor, n)
            and callable(getattr(Tensor, n, None))]
    return out


def torch_outcome(target, args):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            call(torch, target, args)
        except Exception as e:      # noqa: BLE001 - the exception is the result
            return builtin_name(type(e)), str(e)
    return "ok", None


def gradcli_outcome(target, args):
    """("ok", None), (builtin exception name, message), or ("internal ...", message)."""
    with warnings.catch_warnings(), runner.script_session(10 ** 7, 2 ** 30):
        warnings.simplefilter("ignore")
        try:
            call(GT, target, args)
        except Exception as e:      # noqa: BLE001
            tb = e.__traceback__
            while tb.tb_next is not None:
                tb = tb.tb_next
            if not isinstance(e, ScriptError) and tb.tb_frame.f_code.co_filename.startswith(PACKAGE):
                return f"internal {type(e).__module__}.{type(e).__name__}", str(e)
            return builtin_name(type(e)), str(e)
    return "ok", None


def baseline(target):
    method = target.startswith("Tensor.")
    for args in CANDIDATES:
        if method and not (args and isinstance(args[0], Sym)):
            continue
        if torch_outcome(target, args)[0] == "ok" and gradcli_outcome(target, args)[0] == "ok":
            return args
    return None


def differences(target):
    base = baseline(target)
    assert base is not None, f"no call of {target} works in both libraries: add a baseline to CANDIDATES"
    found = []
    for args in cases(target, base):
        want, want_msg = torch_outcome(target, args)
        got, got_msg = gradcli_outcome(target, args)
        if got.startswith("internal") or (got != want and got != "ok"):
            found.append(f"{target}{args!r}: PyTorch {want}: {str(want_msg)[:120]!r}; "
                         f"gradcli {got}: {str(got_msg)[:160]!r}")
    return found


@pytest.mark.parametrize("target", targets())
def test_bad_arguments_raise_what_pytorch_raises(target):
    found = differences(target)
    assert not found, f"{len(found)} calls differ:\n" + "\n".join(found[:25])
