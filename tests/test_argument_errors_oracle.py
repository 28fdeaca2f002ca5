"""Wrong-typed and out-of-range arguments raise what PyTorch raises.

Every public function of gradcli.torch (and torch.nn.functional, torch.autograd), every
public Tensor method that PyTorch also has and every Python operator on tensors is called with a working baseline call in which
one argument is replaced by, or followed by, a bad value (tests/argument_cases.py), under
gradcli (library mode, inside a script session's limits) and under real PyTorch. For every
call:

* an exception escaping gradcli is one of its script errors (gradcli/engine/errors.py), or a Python
  error raised by the call itself, never by gradcli's internals (NumPy's errors, an
  IndexError from a tuple, ...): the command line reports those as internal errors;
* when both raise, the Python exception types are the same;
* gradcli refuses exactly the calls PyTorch refuses (it neither refuses one PyTorch runs nor
  runs one PyTorch refuses).
"""
from __future__ import annotations

import contextlib
import os
import tempfile
import warnings

import numpy as np
import pytest
import torch

import gradcli
import gradcli.torch as GT
from gradcli.session import executor
from gradcli.torch import Tensor
from gradcli.engine import ScriptError

from argument_cases import CANDIDATES, Sym, builtin_name, call, cases

PACKAGE = os.path.dirname(gradcli.__file__)
OPERATORS = ("lt", "le", "gt", "ge", "eq", "ne", "add", "sub", "mul", "truediv", "floordiv", "mod", "pow", "matmul",
             "and_", "or_", "xor", "neg", "pos", "invert", "abs", "iadd", "isub", "imul", "itruediv", "iand", "ior",
             "ixor")
F_NAMES = ("relu", "sigmoid", "tanh", "softmax", "log_softmax", "mse_loss", "cross_entropy", "nll_loss",
           "binary_cross_entropy_with_logits")


@pytest.fixture(autouse=True)
def global_modes_restored():
    """Calls such as set_anomaly_enabled(True) change a library's global state: undo them."""
    saved = [(lib, lib.is_grad_enabled(), lib.is_anomaly_enabled()) for lib in (torch, GT)]
    yield
    for lib, grad, anomaly in saved:
        lib.set_grad_enabled(grad)
        lib.set_anomaly_enabled(anomaly)


def targets():
    out = [f"torch.{n}" for n in sorted(dir(GT)) if not n.startswith("_") and hasattr(torch, n)
           and callable(getattr(GT, n)) and not isinstance(getattr(GT, n), type)]
    out += [f"F.{n}" for n in F_NAMES] + ["autograd.grad", "autograd.backward"]
    out += [f"operator.{n}" for n in OPERATORS]
    out += [f"Tensor.{n}" for n in sorted(dir(Tensor)) if not n.startswith("_") and hasattr(torch.Tensor, n)
            and callable(getattr(Tensor, n, None))]
    return out


@contextlib.contextmanager
def _scratch_directory():
    """A call runs in an empty directory of its own: torch.save(x, 'abc') writes there, and a file
    one library wrote is never read by the other (nor left in the checkout)."""
    here = os.getcwd()
    with tempfile.TemporaryDirectory(prefix="gradcli-args-") as scratch:
        os.chdir(scratch)
        try:
            yield
        finally:
            os.chdir(here)


def torch_outcome(target, args, kwargs=()):
    with warnings.catch_warnings(), _scratch_directory():
        warnings.simplefilter("ignore")
        try:
            call(torch, target, args, kwargs)
        except Exception as e:      # noqa: BLE001 - the exception is the result
            return builtin_name(type(e)), str(e)
    return "ok", None


def gradcli_outcome(target, args, kwargs=()):
    """("ok", None), (builtin exception name, message), or ("internal ...", message)."""
    with warnings.catch_warnings(), executor.limits(10 ** 7, 2 ** 30), _scratch_directory():
        warnings.simplefilter("ignore")
        try:
            call(GT, target, args, kwargs)
        except Exception as e:      # noqa: BLE001
            tb = e.__traceback__
            while tb.tb_next is not None:
                tb = tb.tb_next
            if not isinstance(e, ScriptError) and tb.tb_frame.f_code.co_filename.startswith(PACKAGE):
                return f"internal {type(e).__module__}.{type(e).__name__}", str(e)
            return builtin_name(type(e)), str(e)
    return "ok", None


# On PyTorch's CPU build every call of these raises (no CUDA): their baseline is a call that
# raises the same in both libraries, and the bad calls are varied from it.
RAISES_ON_CPU_BUILDS = {"Tensor.cuda"}


def baseline(target):
    method = target.startswith("Tensor.")
    for args in CANDIDATES:
        if method and not (args and isinstance(args[0], Sym)):
            continue
        want, got = torch_outcome(target, args), gradcli_outcome(target, args)
        if want[0] == "ok" and got[0] == "ok":
            return args
        if target in RAISES_ON_CPU_BUILDS and want == got:
            return args
    return None


def differences(target):
    base = baseline(target)
    assert base is not None, f"no call of {target} works in both libraries: add a baseline to CANDIDATES"
    found = []
    for args in cases(target, base):
        want, want_msg = torch_outcome(target, args)
        got, got_msg = gradcli_outcome(target, args)
        if got.startswith("internal") or got != want:
            found.append(f"{target}{args!r}: PyTorch {want}: {str(want_msg)[:120]!r}; "
                         f"gradcli {got}: {str(got_msg)[:160]!r}")
    return found


@pytest.mark.parametrize("target", targets())
def test_bad_arguments_raise_what_pytorch_raises(target):
    try:
        found = differences(target)
    finally:
        if target == "torch.set_printoptions":      # a setting of the process: both libraries' defaults back
            torch.set_printoptions(profile="default")
            GT.set_printoptions(profile="default")
    assert not found, f"{len(found)} calls differ:\n" + "\n".join(found[:25])


# ----------------------------------------------------------------------------- named examples, texts compared


def run_both(source, result):
    """Run `source` with `torch` bound to each library; evaluate `result` after it. Returns
    {"torch": outcome, "gradcli": outcome}, an outcome being (kind, text): ("ok", repr of the
    value with addresses masked) or (builtin exception name, message)."""
    import re
    out = {}
    for name, lib in (("torch", torch), ("gradcli", GT)):
        scope = {"torch": lib, "F": lib.nn.functional, "np": np, "nest": _nest}
        with warnings.catch_warnings(), executor.limits(10 ** 7, 2 ** 30), _scratch_directory():
            warnings.simplefilter("ignore")
            try:
                exec(source, scope)
                value = eval(result, scope)
            except Exception as e:      # noqa: BLE001
                tb = e.__traceback__
                while tb.tb_next is not None:
                    tb = tb.tb_next
                internal = name == "gradcli" and not isinstance(e, ScriptError) and \
                    tb.tb_frame.f_code.co_filename.startswith(PACKAGE)
                out[name] = ("internal " if internal else "") + builtin_name(type(e)), str(e)
            else:
                out[name] = "ok", re.sub(r"0x[0-9a-f]+", "0x...", repr(value))
    return out


def _nest(depth, leaf=1.0):
    for _ in range(depth):
        leaf = [leaf]
    return leaf


SETUP = ("x = torch.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])\n"
         "xg = torch.tensor([1.0, 2.0], requires_grad=True)\n")

# Wrong arguments a script may pass (each raised an internal error once): PyTorch's exception
# type and text, exactly.
EXAMPLES = {
    "compare-no-broadcast": "x < torch.ones(2)",
    "floordiv-no-broadcast": "x // torch.ones(2)",
    "mod-no-broadcast": "x % torch.ones(2)",
    "cat-none": "torch.cat(None)",
    "stack-none": "torch.stack(None)",
    "norm-p-str": "x.norm(p='abc')",
    "unbind-str": "x.unbind('abc')",
    "sum-keepdim-str": "x.sum(1, 'abc')",
    "mean-keepdim-str": "x.mean(1, 'abc')",
    "select-index-str": "x.select(1, 'abc')",
    "arange-nan": "torch.arange(float('nan'))",
    "arange-inf": "torch.arange(float('inf'))",
    "arange-step-nan": "torch.arange(0, 1, float('nan'))",
    "arange-wrong-sign": "torch.arange(-1)",
    "randint-huge": "torch.randint(10**20, (2,))",
    "randint-empty-range": "torch.randint(5, 2, (2,))",
    "randint-negative-high": "torch.randint(-1, (2,))",
    "full-like-str": "torch.full_like(x, 'abc')",
    "full-huge": "torch.full((2,), 10**20)",
    "mv-0d-vector": "torch.mv(x, torch.tensor(1.5))",
    "mv-1d-matrix": "torch.mv(torch.ones(3), torch.ones(3))",
    "cross-entropy-0d-input": "F.cross_entropy(torch.tensor(1.5), x)",
    "nll-loss-0d-input": "F.nll_loss(torch.tensor(1.5), torch.tensor([0]))",
    "nll-loss-empty-1d": "F.nll_loss(torch.ones(0), torch.ones(3, dtype=torch.long))",
    "nll-loss-batch-mismatch": "F.nll_loss(torch.ones(2, 3), torch.zeros(3, dtype=torch.long))",
    "nll-loss-float-target": "F.nll_loss(x, torch.zeros(2))",
    "nll-loss-target-out-of-range": "F.nll_loss(x, torch.tensor([0, 7]))",
    "cross-entropy-long-probabilities": "F.cross_entropy(x, x.long())",
    "softmax-bool": "torch.softmax(x > 0, 1)",
    "log-softmax-long-dim0": "torch.log_softmax(x.long(), 0)",
    "autograd-grad-none": "torch.autograd.grad((xg * 2).sum(), None)",
    "autograd-grad-no-grad-input": "torch.autograd.grad((xg * 2).sum(), [x])",
    "type-tensor": "x.type(torch.ones(2, dtype=torch.long))",
    "type-unknown-name": "x.type('abc')",
    "tensor-none": "torch.tensor(None)",
    "tensor-str": "torch.tensor([1.0, 'a'])",
    "tensor-object": "torch.tensor([object()])",
    "tensor-129-deep": "torch.tensor(nest(129))",
    "tensor-100000-deep": "torch.tensor(nest(100000))",
    "manual-seed-str": "torch.manual_seed('abc')",
    "in-place-promotion": "torch.ones(2, dtype=torch.long).add_(1.5)",
    "bitwise-float": "torch.ones(2).bitwise_and(torch.ones(2))",
    "squeeze-duplicate-dims": "torch.ones(2, 1).squeeze(1, -1)",
    "dtype-unknown-attribute": "torch.float32.foo",
    "dtype-to-complex-int": "torch.int64.to_complex()",
    "hook-not-callable": "xg.register_hook('abc'); (xg * 2).sum().backward()",
    "grad-fn-unknown-saved": "(xg * xg).grad_fn._saved_foo",
    "grad-fn-unknown-raw-saved": "(xg * xg).grad_fn._raw_saved_foo",
    "accumulate-grad-unknown": "(xg * 2).grad_fn.next_functions[0][0].foo",
    "softmax-no-dim": "torch.softmax(x)",
    "log-softmax-dim-none": "torch.log_softmax(x, None)",
    "softmax-method-no-dim": "x.softmax()",
    "softmax-long-no-dim": "torch.softmax(x.long())",
    # refused by PyTorch's parser before anything runs (gradcli checked only calls that failed)
    "clone-extra-positional": "torch.clone(x, None)",
    "contiguous-extra-positional": "x.contiguous(None)",
    "as-tensor-dtype-positional": "torch.as_tensor(x, None)",
    "argmax-keepdim-none": "x.argmax(1, None)",
    "set-anomaly-none": "torch.set_anomaly_enabled(None)",
    "new-ones-bool-size": "x.new_ones(True)",
    "backward-create-graph-none": "(xg * 2).sum().backward(None, None, None)",
    "grad-create-graph-none": "torch.autograd.grad((xg * 2).sum(), xg, None, None, None)",
    "to-device-index": "x.to(0)",
    "to-negative-device-index": "x.to(-1)",
    # no kernel for the dtype
    "abs-bool": "torch.abs(x > 2)",
    "ceil-bool": "torch.ceil(x > 2)",
    "round-bool": "(x > 2).round()",
    "frac-long": "torch.frac(x.long())",
    "relu-bool": "torch.relu(x > 2)",
    "argmax-bool": "(x > 2).argmax()",
    "pos-bool": "+(x > 2)",
    "rsub-bool-tensor": "1 - (x > 2)",
    "sub-bool-number": "torch.sub(True, x)",
    "sub-a-python-bool": "x - True",
    "allclose-negative-rtol": "torch.allclose(x, x, -0.5)",
    "allclose-negative-atol": "x.allclose(x, 1e-5, -2)",
    "floordiv-huge-number": "10**20 // x",
    "mod-huge-number": "10**20 % x",
    "backward-retain-graph-past-a-byte": "(xg * 2).sum().backward(None, 300)",
    "backward-retain-graph-negative": "(xg * 2).sum().backward(None, -1)",
    "hsplit-zero-sections-as-a-tensor": "x.hsplit(torch.tensor(0))",
    "mse-loss-bool": "F.mse_loss(x > 2, x > 2)",
    "mse-loss-long": "F.mse_loss(x.long(), x.long())",
    "smooth-l1-loss-long": "F.smooth_l1_loss(x.long(), x.long())",
    "huber-loss-long": "F.huber_loss(x.long(), x.long())",
    "bce-bool": "F.binary_cross_entropy(x > 2, x > 2)",
    "kl-div-long": "F.kl_div(x.long(), x.long())",
    "add-alpha-a-tensor-needing-grad": "x.add(1, alpha=xg.sum())",
    # torch.nn.functional is Python code in PyTorch: its own order of reading its arguments
    "f-relu-reads-inplace-first": "F.relu((-2, 1, 0), torch.ones(5))",
    "f-softmax-dim-a-str": "F.softmax(x, 'a')",
    "grad-no-inputs": "torch.autograd.grad((), ())",
    "unsqueeze-in-place-leaf-before-dim": "xg.unsqueeze_(5)",
    "transpose-in-place-leaf-before-dims": "xg.transpose_(0, 5)",
    "nll-loss-target-dtype-before-its-size": "F.nll_loss(torch.ones(5), torch.ones(5))",
    "softmax-implicit-dim-stacklevel-none": "F.softmax(x, None, None)",
    "mse-loss-a-number-input": "F.mse_loss(2**63, x)",
    "norm-out-with-grad": "torch.norm(xg, out=torch.empty(()))",
    "backward-fewer-gradients": "torch.autograd.backward([(xg * 2).sum()], [])",
    "backward-a-str-of-outputs": "torch.autograd.backward('ab')",
    "randint-like-high-a-vector": "torch.randint_like(x, torch.ones(3))",
    "fill-long-with-inf": "x.long().fill_(float('inf'))",
    "sub-deprecated-alpha-a-tensor": "torch.sub(x, x, 2)",
    "add-method-deprecated-alpha-a-tensor": "x.add(x, 2)",
    "full-int-with-nan": "torch.full((2,), float('nan'), dtype=torch.int32)",
}


@pytest.mark.parametrize("name", list(EXAMPLES))
def test_named_bad_call_raises_pytorchs_error(name):
    source = SETUP + EXAMPLES[name].split("; ")[0] if "; " in EXAMPLES[name] else SETUP
    result = EXAMPLES[name].split("; ")[-1]
    got = run_both(source, result)
    assert got["torch"][0] != "ok", f"PyTorch accepts {EXAMPLES[name]!r}: not an example of a bad call"
    assert got["gradcli"] == got["torch"]


# Bad calls whose PyTorch text lists every overload of the function: the exception type is compared.
SAME_TYPE = {
    "clamp-mixed-bounds": "x.clamp(2.5, torch.ones(3))",
    "clamp-function-mixed-bounds": "torch.clamp(x, torch.ones(3), 2.5)",
    "clip-in-place-mixed-bounds-on-a-leaf": "xg.clip_(2.5, torch.ones(2))",
    "clamp-in-place-mixed-bounds-on-a-leaf": "xg.clamp_(torch.ones(2), 0.5)",
    "clamp-in-place-str-bound": "xg.clamp_(min='a')",
    "max-dim-none": "torch.max(x, None)",
    "prod-dim-none": "x.prod(None)",
    "squeeze-dim-none": "torch.squeeze(x, None)",
    "arange-end-none": "torch.arange(3, None)",
    "div-rounding-mode-positional": "torch.div(x, x, None)",
    "hsplit-bool": "x.hsplit(True)",
    "split-by-a-vector": "x.split(torch.ones(2))",
    "to-float-then-str": "x.to(1.5, 'a')",
    "clip-huge-number-and-a-tensor": "x.clip_(-2**63-1, torch.ones(1, requires_grad=True))",
    "subtract-huge-number-alpha-a-list": "x.subtract_(-2**63-1, alpha=[])",
    "clamp-a-0d-tensor-needing-grad-and-a-number": "x.clamp(xg.sum(), 2.0)",
    "norm-keepdim-an-int": "x.norm(2, 0, 1)",
    "norm-dtype-a-tuple": "x.norm(2, dtype=(0, 2))",
    "norm-method-has-no-out": "x.norm('fro', out=x)",
    "norm-keepdim-checked-before-the-order": "x.norm(-2**63-1, 0, 'x')",
    "norm-order-a-tensor-needing-grad": "x.norm(xg.sum())",
}


@pytest.mark.parametrize("name", list(SAME_TYPE))
def test_named_bad_call_raises_pytorchs_exception_type(name):
    got = run_both(SETUP, SAME_TYPE[name])
    assert got["torch"][0] != "ok", f"PyTorch accepts {SAME_TYPE[name]!r}: not an example of a bad call"
    assert got["gradcli"][0] == got["torch"][0], got

# Values read the same way in both libraries (the value's repr, or the exception and its text).
READS = {
    "dtype-is-floating-point": "[d.is_floating_point for d in (torch.bool, torch.uint8, torch.int64, torch.float32)]",
    "dtype-is-signed": "[d.is_signed for d in (torch.bool, torch.uint8, torch.int8, torch.int64, torch.float16)]",
    "dtype-is-complex": "[d.is_complex for d in (torch.bool, torch.int32, torch.float64)]",
    "dtype-itemsize": "[d.itemsize for d in (torch.bool, torch.int16, torch.int32, torch.float64)]",
    "dtype-abbr": "[d.abbr for d in (torch.bool, torch.uint8, torch.int64, torch.float16, torch.float32)]",
    "dtype-to-real": "[d.to_real() for d in (torch.bool, torch.int64, torch.float32)]",
    "tensor-128-deep": "torch.tensor(nest(64)).dim()",
    "grad-fn-saved": "(xg * xg).grad_fn._saved_self",
    "accumulate-grad-variable": "(xg * 2).grad_fn.next_functions[0][0].variable is xg",
    "accumulate-grad-variable-grad": "(xg * 2).grad_fn.next_functions[0][0].variable.grad",
    "accumulate-grad-next-functions": "(xg * 2).grad_fn.next_functions[0][0].next_functions",
    "accumulate-grad-name": "(xg * 2).grad_fn.next_functions[0][0].name()",
    "node-metadata": "(xg * 2).grad_fn.metadata",
    "cross-entropy-probabilities": "F.cross_entropy(x, x.softmax(1))",
    "softmax-implicit-dim": "F.softmax(x, None)",
    "softmax-empty": "torch.softmax(torch.ones(2, 0), 1)",
    "floordiv-uint64-number": "(2**63 // x).dtype",
    "add-alpha-a-0d-tensor": "x.add(x, alpha=torch.tensor(2.0))",
    "backward-an-empty-str": "torch.autograd.backward('')",
    "sub-deprecated-alpha-second": "torch.sub(-2, -2, 0.5)",
    "add-in-place-deprecated-alpha-second": "x.clone().add_(-0.1, x)",
    "sub-method-two-numbers": "x.sub(2, 3)",
    "subtract-other-then-alpha": "torch.subtract(x, 2, 3)",
    "norm-into-out": "(lambda o: (torch.norm(x, out=o) is o, o, o._version))(torch.empty(()))",
    "norm-in-a-dtype": "(lambda n: (n, n.grad_fn.name(), torch.autograd.grad(n, xg)[0]))(xg.norm(2, dtype=torch.float64))",
    "logical-not-in-place-on-a-leaf": "(lambda g: (g.logical_not_(), g._version, g.is_leaf, g.grad_fn))("
                                      "torch.ones(2, requires_grad=True))",
    "logical-or-in-place-keeps-grad-fn": "(lambda y: (y.logical_or_(xg), y.grad_fn.name()))(xg * 2)",
    "mse-loss-long-and-float": "F.mse_loss(x.long(), x + 0.5)",
    "clamp-a-0d-tensor-and-a-number": "x.clamp(torch.tensor(2.5), 4.0)",
    "to-a-float-value": "x.to(1.5).dtype",
    "to-a-bool-value": "x.to(True).dtype",
    "split-by-a-one-element-tensor": "[t.shape for t in x.split(torch.tensor(1.5))]",
    "hsplit-indices-one-by-one": "[t.shape for t in torch.ones(2, 4).hsplit(1, 3)]",
    "softmax-stacklevel-none": "F.softmax(x, 1, None).shape",
    "softmax-dtype-casts-first": "torch.softmax(xg, 0, torch.float64).grad_fn.next_functions[0][0].name()",
    "log-softmax-dtype-keyword": "F.log_softmax(xg, 0, dtype=torch.float64).dtype",
    "sign-bool": "torch.sign(x > 2)",
    "type-by-name": "x.type('torch.DoubleTensor').dtype",
    "number-mod-tensor": "7 % x",
    "squeeze-several-dims": "torch.ones(2, 1, 3, 1).squeeze((1, -1)).shape",
    "arange-bool": "torch.arange(True)",
    "ones-bool-size": "torch.ones(3, True).shape",
    "manual-seed-negative": "torch.manual_seed(-1) is None or True",
}


@pytest.mark.parametrize("name", list(READS))
def test_reads_as_in_pytorch(name):
    got = run_both(SETUP, READS[name])
    assert got["gradcli"] == got["torch"]


def test_node_metadata_is_kept_per_node():
    y = GT.tensor([1.0], requires_grad=True) * 2
    y.grad_fn.metadata["note"] = 1
    assert y.grad_fn.metadata == {"note": 1}
    assert (y * 2).grad_fn.metadata == {}


@pytest.mark.parametrize("value", ["np.ones(2)", "'abc'", "[1, 2]"])
def test_requires_grad_set_to_a_non_bool(value):
    got = run_both(SETUP + f"t = torch.ones(2)\nt.requires_grad = {value}\n", "t.requires_grad")
    assert got["gradcli"] == got["torch"]


# ----------------------------------------------------------------------------- calls PyTorch accepts, op by op


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("shape", [(2, 3), (3,)])
def test_cross_entropy_with_class_probabilities(reduction, shape):
    from op_oracle import In, check_op
    check_op(lambda t, x, y: t.nn.functional.cross_entropy(x, y, reduction=reduction), shape,
             In(shape, rg=True, low=0, high=1))


@pytest.mark.parametrize("call", [lambda x: x.squeeze((1, -1)), lambda x: x.squeeze(1, 3), lambda x: x.squeeze([0, 1]),
                                  lambda x: x.squeeze(()), lambda x: (x * 1).squeeze_((1, -1))],
                         ids=["tuple", "one-by-one", "list", "empty", "in-place"])
def test_squeeze_with_several_dims(call):
    from op_oracle import check_op
    check_op(lambda t, x: call(x), (3, 1, 2, 1))


@pytest.mark.parametrize("legacy", [dict(size_average=False), dict(reduce=False), dict(size_average=True, reduce=True),
                                    dict(size_average=False, reduce=True)], ids=str)
@pytest.mark.parametrize("loss", ["mse_loss", "nll_loss", "cross_entropy", "binary_cross_entropy_with_logits"])
def test_losses_honour_the_deprecated_reduction_pair(loss, legacy):
    from op_oracle import In, check_op
    target = In((2, 3), rg=False, low=0, high=1) if loss != "nll_loss" and loss != "cross_entropy" else \
        In((2,), rg=False, values=[0, 2], dtype="int64")
    check_op(lambda t, x, y: getattr(t.nn.functional, loss)(x, y, **legacy), (2, 3), target)


INTEGER_SETUP = ("I = torch.tensor([1, 2], dtype=torch.int32)\nL = torch.tensor([7, -7, 6, -6])\n"
                 "U = torch.tensor([1, 2], dtype=torch.uint8)\nB = torch.tensor([True, False])\n")
# Python ints as operands of integer tensors: arithmetic wraps them into the dtype, the checked
# conversions (fill_, full, clamp, masked_fill, pow) refuse what does not fit; integer division
# by zero and bool division are PyTorch's errors.
INTEGER_EDGES = [
    "U + 300", "U - 300", "300 - U", "U * -1", "I * 2**40", "L + 2**63", "L - 2**63", "L * 2**63", "L.add_(2**63)",
    "I.pow(2**40)", "U.pow(300)", "L.pow(2**63)", "I.fill_(2**40)", "U.fill_(300)", "U.fill_(-1)", "U.fill_(-256)",
    "I.fill_(2.7)", "torch.full((2,), 70000, dtype=torch.int16)", "torch.full((1,), 1e39)",
    "torch.ones(2, dtype=torch.float16).fill_(70000)", "I.clamp(max=2**40)", "U.clamp(max=300)",
    "L.masked_fill(L > 0, 2**63)", "U.masked_fill(U > 0, 300)", "U == 300",
    "I // 0", "I % 0", "L // torch.tensor([0, 1, 1, 1])", "5 % torch.tensor([0, 1])", "torch.div(L, 0, rounding_mode='floor')",
    "torch.div(L, 0, rounding_mode='trunc')", "torch.div(L, -2, rounding_mode='trunc')",
    "torch.div(L, torch.tensor([2, 3, -4, 5]), rounding_mode='trunc')", "torch.div(-7, L, rounding_mode='trunc')",
    "torch.div(L.to(torch.uint8), 3, rounding_mode='trunc')", "torch.div(L, 2.0, rounding_mode='trunc')",
    "B // B", "B % B", "torch.div(B, B, rounding_mode='trunc')", "B // 1",
    "torch.tensor(300, dtype=torch.uint8)", "torch.tensor(-1, dtype=torch.uint8)", "torch.tensor(-256, dtype=torch.uint8)",
    "torch.tensor([1, 2**40], dtype=torch.int32)", "torch.tensor(200, dtype=torch.int8)", "torch.tensor(2.5e10, dtype=torch.int32)",
    "torch.tensor(3.7, dtype=torch.uint8)", "torch.tensor(2**63, dtype=torch.int64)", "torch.tensor(70000, dtype=torch.float16)",
    "torch.tensor(float('inf'), dtype=torch.int32)", "torch.tensor([1.0, float('nan')], dtype=torch.uint8)",
    # an int past int64 as the first operand is a uint64 number to PyTorch
    "torch.add(2**63, 1)", "torch.add(2**63, True)", "torch.sub(2**63, True)", "torch.add(2**63, 1.5)",
    "torch.div(2**63, 2**63)", "torch.add(2**63, 2**63)", "torch.add(2**63, -float('inf'), 2**63)",
    "torch.add(2**63, 1, alpha=1.5)", "torch.add(2**63, torch.tensor([1, 2]))", "torch.div(2**63, torch.tensor([1, 2]))",
]


@pytest.mark.parametrize("expr", INTEGER_EDGES)
def test_integer_scalars_and_division_as_in_pytorch(expr):
    got = run_both(INTEGER_SETUP, f"(lambda r: (r.dtype, r.tolist()))({expr})")
    assert got["gradcli"] == got["torch"]
