"""The API table: each op's torch function(s), Tensor method(s) and in-place method(s), and the
forward in gradcli.ops that they call. torch's functions (`functions()`) and Tensor's methods
(`methods()`, installed by `install(Tensor)`) are made from it, wrapped by the argument checks
of _signatures (PyTorch's errors for a call that does not match).

Adding an op: its row in ops/table.py, its forward in its family's module in gradcli/ops/, one
line here, and a case in the op tests; tests/test_api_table.py checks that the three agree.
"""
from __future__ import annotations

import inspect
import types
from typing import Callable, NamedTuple

import numpy as np

from ..engine import STATE, TensorBase, TorchNotImplementedError, TorchRuntimeError, TorchTypeError, contiguous_format
from ..ops import (comparison, indexing, inplace, join, linalg, pointwise, reduction, shape,
                   views)
from . import _legacy, _signatures
from ..ops import sorting               # (sorting, selection and index ops, session 9)


class Op(NamedTuple):
    """One row. Names are space-separated; the first is PyTorch's, the others its aliases."""
    forward: Callable               # the function in gradcli.ops that computes it
    functions: str = ""             # torch.NAME
    methods: str = ""               # Tensor.NAME, calling `method` (default: the forward itself)
    inplace: str = ""               # Tensor.NAME_: the forward run in place (views._inplace)
    method: Callable = None         # the method when its arguments differ from the function's
    numbers: bool = False           # torch.NAME(2, 3): a Python number is taken as the input too
    cast: bool = False              # in place, any result dtype is cast to the tensor's (logical ops: bool)
    untracked: bool = False         # in place outside autograd, as PyTorch's logical ops: no leaf check, no node


def _squeeze_method(f):
    """x.squeeze(0, 2): the method also takes the dims one by one."""
    return lambda self, *dim: f(self, dim if len(dim) > 1 else dim[0] if dim else None)


def _where_method(self, condition, other):
    return pointwise.where(condition, self, other)


P, R, S, J, C = pointwise, reduction, shape, join, comparison

API = (
    # -- pointwise ----------------------------------------------------------------------------------------------
    Op(P.add, "add", "add", "add_", numbers=True),
    Op(P.sub, "sub subtract", "sub subtract", "sub_ subtract_", numbers=True),
    Op(P.mul, "mul multiply", "mul multiply", "mul_ multiply_", numbers=True),
    Op(P.div, "div divide", "div divide", "div_ divide_", numbers=True),
    Op(P.pow, "pow", "pow", "pow_"),
    Op(P.neg, "neg negative", "neg negative", "neg_ negative_"),
    Op(P.floor_divide, "floor_divide", "floor_divide", "floor_divide_"),
    Op(P.remainder, "remainder", "remainder", "remainder_"),
    Op(P.exp, "exp", "exp", "exp_"),
    Op(P.log, "log", "log", "log_"),
    Op(P.sin, "sin", "sin", "sin_"),
    Op(P.cos, "cos", "cos", "cos_"),
    Op(P.tanh, "tanh", "tanh", "tanh_"),
    Op(P.sigmoid, "sigmoid", "sigmoid", "sigmoid_"),
    Op(P.relu, "relu", "relu", "relu_"),
    Op(P.sqrt, "sqrt", "sqrt", "sqrt_"),
    Op(P.rsqrt, "rsqrt", "rsqrt", "rsqrt_"),
    Op(P.abs, "abs", "abs", "abs_"),
    Op(P.reciprocal, "reciprocal", "reciprocal", "reciprocal_"),
    Op(P.square, "square", "square", "square_"),
    Op(P.floor, "floor", "floor", "floor_"),
    Op(P.ceil, "ceil", "ceil", "ceil_"),
    Op(P.round, "round", "round", "round_"),
    Op(P.trunc, "trunc", "trunc", "trunc_"),
    Op(P.sign, "sign", "sign", "sign_"),
    Op(P.frac, "frac", "frac", "frac_"),
    Op(P.clamp, "clamp clip", "clamp clip"),
    Op(inplace.clamp_, "clamp_ clip_", "clamp_ clip_"),
    Op(P.clamp_min, "clamp_min", "clamp_min", "clamp_min_"),
    Op(P.clamp_max, "clamp_max", "clamp_max", "clamp_max_"),
    Op(P.maximum, "maximum", "maximum"),
    Op(P.minimum, "minimum", "minimum"),
    Op(P.where, "where", "where", method=_where_method),
    Op(P.clone, "clone", "clone"),
    # -- pointwise maths (session 9)
    Op(P.log1p, "log1p", "log1p", "log1p_"),
    Op(P.expm1, "expm1", "expm1", "expm1_"),
    Op(P.log2, "log2", "log2", "log2_"),
    Op(P.log10, "log10", "log10", "log10_"),
    Op(P.exp2, "exp2", "exp2", "exp2_"),
    Op(P.tan, "tan", "tan", "tan_"),
    Op(P.asin, "asin arcsin", "asin arcsin", "asin_ arcsin_"),
    Op(P.acos, "acos arccos", "acos arccos", "acos_ arccos_"),
    Op(P.atan, "atan arctan", "atan arctan", "atan_ arctan_"),
    Op(P.sinh, "sinh", "sinh", "sinh_"),
    Op(P.cosh, "cosh", "cosh", "cosh_"),
    Op(P.asinh, "asinh arcsinh", "asinh arcsinh"),
    Op(P.asinh_, "", "", "asinh_ arcsinh_"),
    Op(P.acosh, "acosh arccosh", "acosh arccosh"),
    Op(P.acosh_, "", "", "acosh_ arccosh_"),
    Op(P.atanh, "atanh arctanh", "atanh arctanh"),
    Op(P.atanh_, "", "", "atanh_ arctanh_"),
    Op(P.erf, "erf", "erf", "erf_"),
    Op(P.erfc, "erfc", "erfc", "erfc_"),
    Op(P.erfinv, "erfinv", "erfinv", "erfinv_"),
    Op(P.sinc, "sinc", "sinc", "sinc_"),
    Op(P.deg2rad, "deg2rad", "deg2rad", "deg2rad_"),
    Op(P.rad2deg, "rad2deg", "rad2deg", "rad2deg_"),
    Op(P.nan_to_num, "nan_to_num", "nan_to_num", "nan_to_num_"),
    Op(P.logit, "logit", "logit", "logit_"),
    Op(P.positive, "positive", "positive"),
    Op(P.trunc, "fix", "fix", "fix_"),
    Op(P.atan2, "atan2 arctan2", "atan2 arctan2", "atan2_ arctan2_"),
    Op(P.hypot, "hypot", "hypot", "hypot_"),
    Op(P.fmod, "fmod", "fmod", "fmod_"),
    Op(P.xlogy, "xlogy", "xlogy", "xlogy_"),
    Op(P.copysign, "copysign", "copysign", "copysign_"),
    Op(P.logaddexp, "logaddexp", "logaddexp"),
    Op(P.logaddexp2, "logaddexp2", "logaddexp2"),
    Op(P.fmax, "fmax", "fmax"),
    Op(P.fmin, "fmin", "fmin"),
    Op(P.true_divide, "true_divide", "true_divide", "true_divide_", numbers=True),
    Op(P.float_power, "float_power", "float_power"),
    Op(P.float_power_, "", "", "float_power_"),
    Op(P.lerp, "lerp", "lerp", "lerp_"),
    Op(P.addcmul, "addcmul", "addcmul", "addcmul_"),
    Op(P.addcdiv, "addcdiv", "addcdiv", "addcdiv_"),
    # -- comparison, logical, bitwise ---------------------------------------------------------------------------
    Op(C.bitwise_and, "bitwise_and", "bitwise_and", "bitwise_and_"),
    Op(C.bitwise_or, "bitwise_or", "bitwise_or", "bitwise_or_"),
    Op(C.bitwise_xor, "bitwise_xor", "bitwise_xor", "bitwise_xor_"),
    Op(C.bitwise_not, "bitwise_not", "bitwise_not", "bitwise_not_"),
    Op(C.logical_and, "logical_and", "logical_and", "logical_and_", cast=True, untracked=True),
    Op(C.logical_or, "logical_or", "logical_or", "logical_or_", cast=True, untracked=True),
    Op(C.logical_xor, "logical_xor", "logical_xor", "logical_xor_", cast=True, untracked=True),
    Op(C.logical_not, "logical_not", "logical_not", "logical_not_", untracked=True),
    Op(C.tensor_all, "all", "all"),
    Op(C.tensor_any, "any", "any"),
    Op(C.allclose, "allclose", "allclose"),
    # -- comparisons/predicates (session 9)
    Op(C.eq, "eq", "eq"),
    Op(C.ne, "ne not_equal", "ne not_equal"),
    Op(C.gt, "gt greater", "gt greater"),
    Op(C.ge, "ge greater_equal", "ge greater_equal"),
    Op(C.lt, "lt less", "lt less"),
    Op(C.le, "le less_equal", "le less_equal"),
    Op(C.eq_, "", "", "eq_", cast=True),
    Op(C.ne_, "", "", "ne_ not_equal_", cast=True),
    Op(C.gt_, "", "", "gt_ greater_", cast=True),
    Op(C.ge_, "", "", "ge_ greater_equal_", cast=True),
    Op(C.lt_, "", "", "lt_ less_", cast=True),
    Op(C.le_, "", "", "le_ less_equal_", cast=True),
    Op(C.isnan, "isnan", "isnan"),
    Op(C.isinf, "isinf", "isinf"),
    Op(C.isfinite, "isfinite", "isfinite"),
    Op(C.isposinf, "isposinf", "isposinf"),
    Op(C.isneginf, "isneginf", "isneginf"),
    Op(C.signbit, "signbit", "signbit"),
    Op(C.isreal, "isreal", "isreal"),
    Op(C.isclose, "isclose", "isclose"),
    Op(C.equal, "equal", "equal"),
    Op(C.is_nonzero, "is_nonzero", "is_nonzero"),
    Op(C.count_nonzero, "count_nonzero", "count_nonzero", method=C.count_nonzero_method),
    # -- reductions ---------------------------------------------------------------------------------------------
    Op(R.sum, "sum", "sum"),
    Op(R.mean, "mean", "mean"),
    Op(R.prod, "prod", "prod"),
    Op(R.norm, "norm", "norm", method=lambda self, p="fro", dim=None, keepdim=False, dtype=None:
       R.norm(self, p, dim, keepdim, dtype=dtype)),                                   # (the method takes no out=)
    Op(R.max, "max", "max"),
    Op(R.min, "min", "min"),
    Op(R.argmax, "argmax", "argmax"),
    Op(R.argmin, "argmin", "argmin"),
    Op(R.cumsum, "cumsum", "cumsum", "cumsum_"),
    Op(R.cumprod, "cumprod", "cumprod", "cumprod_"),
    Op(R.softmax, "softmax", "softmax"),
    Op(R.log_softmax, "log_softmax", "log_softmax"),
    # -- statistical reductions (session 9)
    Op(R.var, "var", "var"),
    Op(R.std, "std", "std"),
    Op(R.var_mean, "var_mean", ""),
    Op(R.std_mean, "std_mean", ""),
    Op(R.logsumexp, "logsumexp", "logsumexp"),
    Op(R.amax, "amax", "amax"),
    Op(R.amin, "amin", "amin"),
    Op(R.aminmax, "aminmax", "aminmax"),
    Op(R.nansum, "nansum", "nansum"),
    Op(R.nanmean, "nanmean", "nanmean"),
    Op(R.median, "median", "median"),
    Op(R.nanmedian, "nanmedian", "nanmedian"),
    Op(R.mode, "mode", "mode"),
    # -- shapes and views ---------------------------------------------------------------------------------------
    Op(S.view, "", "view"),
    Op(S.reshape, "reshape", "reshape"),
    Op(S.expand, "", "expand"),
    Op(S.flatten, "flatten", "flatten"),
    Op(S.unsqueeze, "unsqueeze", "unsqueeze"),
    Op(inplace.unsqueeze_, "", "unsqueeze_"),
    Op(S.squeeze, "squeeze", "squeeze", method=_squeeze_method(S.squeeze)),
    Op(inplace.squeeze_, "", "squeeze_", method=_squeeze_method(inplace.squeeze_)),
    Op(S.transpose, "transpose swapaxes swapdims", "transpose swapaxes swapdims"),
    Op(inplace.transpose_, "", "transpose_ swapaxes_ swapdims_"),
    Op(S.t_, "t", "t"),
    Op(inplace.t_inplace, "", "t_"),
    Op(S.permute, "permute", "permute"),
    Op(S.select, "select", "select"),
    # -- shape ops and matrix products (session 9): shape ops
    Op(S.repeat, "", "repeat"),
    Op(S.tile, "tile", "tile"),
    Op(S.flip, "flip", "flip", method=S.flip_method),
    Op(S.fliplr, "fliplr", "fliplr"),
    Op(S.flipud, "flipud", "flipud"),
    Op(S.roll, "roll", "roll"),
    Op(S.rot90, "rot90", "rot90"),
    Op(S.narrow, "narrow", "narrow"),
    Op(S.movedim, "movedim moveaxis", "movedim moveaxis"),
    Op(S.ravel, "ravel", "ravel"),
    Op(S.unflatten, "unflatten", "unflatten", method=S.unflatten_method),
    Op(S.broadcast_to, "broadcast_to", "broadcast_to"),
    Op(S.broadcast_tensors, "broadcast_tensors"),
    Op(S.tril, "tril", "tril", "tril_"),
    Op(S.triu, "triu", "triu", "triu_"),
    Op(S.diagonal, "diagonal", "diagonal"),
    Op(S.diag_embed, "diag_embed", "diag_embed"),
    Op(S.diag, "diag", "diag"),
    Op(S.trace, "trace", "trace"),
    Op(S.adjoint, "adjoint", "adjoint"),
    Op(S.mH_property, "", "mH", method=property(S.mH_property)),
    Op(S.H_property, "", "H", method=property(S.H_property)),
    Op(S.type_as, "", "type_as"),
    Op(S.stride, "", "stride"),
    Op(S.element_size, "", "element_size"),
    Op(J.hstack, "hstack"),
    Op(J.vstack, "vstack row_stack"),
    Op(J.dstack, "dstack"),
    Op(J.column_stack, "column_stack"),
    Op(J.meshgrid, "meshgrid"),
    Op(J.repeat_interleave, "repeat_interleave", "repeat_interleave"),
    # -- joining and splitting ----------------------------------------------------------------------------------
    Op(J.cat, "cat concat concatenate", ""),
    Op(J.stack, "stack", ""),
    Op(J.split, "split", "split", method=J.split_method),
    Op(J.split_with_sizes, "split_with_sizes", "split_with_sizes"),
    Op(J.chunk, "chunk", "chunk"),
    Op(J.unbind, "unbind", "unbind"),
    Op(J.tensor_split, "tensor_split", "tensor_split"),
    Op(J.hsplit, "hsplit", "hsplit", method=J.split_like_method(J.hsplit)),
    Op(J.vsplit, "vsplit", "vsplit", method=J.split_like_method(J.vsplit)),
    Op(J.dsplit, "dsplit", "dsplit", method=J.split_like_method(J.dsplit)),
    # -- products -----------------------------------------------------------------------------------------------
    Op(linalg.matmul, "matmul", "matmul"),
    Op(linalg.mm, "mm", "mm"),
    Op(linalg.bmm, "bmm", "bmm"),
    Op(linalg.mv, "mv", "mv"),
    Op(linalg.dot, "dot", "dot"),
    # -- shape ops and matrix products (session 9): products
    Op(linalg.torch_addmm, "addmm", "addmm", "addmm_"),
    Op(linalg.addmv, "addmv", "addmv", "addmv_"),
    Op(linalg.addr, "addr", "addr", "addr_"),
    Op(linalg.baddbmm, "baddbmm", "baddbmm", "baddbmm_"),
    Op(linalg.addbmm, "addbmm", "addbmm", "addbmm_"),
    Op(linalg.outer, "outer ger", "outer ger"),
    Op(linalg.vdot, "vdot", "vdot"),
    Op(linalg.dist, "dist", "dist"),
    Op(linalg.kron, "kron", "kron"),
    Op(linalg.cross, "cross", "cross"),
    Op(linalg.einsum, "einsum"),
    Op(linalg.tensordot, "tensordot"),
    Op(linalg.inner, "inner", "inner"),
    Op(linalg.matrix_power, "matrix_power", "matrix_power"),
    # -- in place and indexing ----------------------------------------------------------------------------------
    Op(inplace.masked_fill, "masked_fill", "masked_fill"),
    Op(inplace.masked_fill_, "", "masked_fill_"),
    Op(inplace.copy_, "", "copy_"),
    Op(inplace.fill_, "", "fill_"),
    Op(inplace.zero_, "", "zero_"),
    # -- sorting, selection and index ops (session 9)
    Op(indexing.gather, "gather", "gather"),
    Op(indexing.scatter, "scatter", "scatter"),
    Op(indexing.scatter_inplace, "", "", "scatter_"),
    Op(indexing.scatter_add, "scatter_add", "scatter_add", "scatter_add_"),
    Op(indexing.index_select, "index_select", "index_select"),
    Op(indexing.take, "take", "take"),
    Op(indexing.take_along_dim, "take_along_dim", "take_along_dim"),
    Op(indexing.masked_select, "masked_select", "masked_select"),
    Op(indexing.index_add, "index_add", "index_add", "index_add_"),
    Op(indexing.index_copy, "index_copy", "index_copy", "index_copy_"),
    Op(indexing.index_fill, "index_fill", "index_fill", "index_fill_"),
    Op(indexing.nonzero, "nonzero", "nonzero"),
    Op(indexing.argwhere, "argwhere", "argwhere"),
    Op(sorting.sort, "sort", "sort"),
    Op(sorting.argsort, "argsort", "argsort"),
    Op(sorting.msort, "msort", "msort"),
    Op(sorting.topk, "topk", "topk"),
    Op(sorting.kthvalue, "kthvalue", "kthvalue"),
    Op(sorting.cummax, "cummax", "cummax"),
    Op(sorting.cummin, "cummin", "cummin"),
    Op(sorting.bincount, "bincount", "bincount"),
    Op(sorting.searchsorted, "searchsorted", ""),
    Op(sorting.bucketize, "bucketize", ""),

    # -- linalg (session 9)
    Op(linalg.inverse, "inverse", "inverse"),
    Op(linalg.det, "det", "det"),
    Op(linalg.torch_slogdet, "slogdet", "slogdet"),
    Op(linalg.logdet, "logdet", "logdet"),
)

# Python's operators. `a + b`, `b + a` (a Python number on either side): NotImplemented for other operands.
ARITHMETIC = (
    # forward          operator         reflected
    (P.sub, "__sub__", "__rsub__"),
    (P.div, "__truediv__", "__rtruediv__"),
    (P.floor_divide, "__floordiv__", "__rfloordiv__"),
    (P.remainder, "__mod__", "__rmod__"),
    (P.pow, "__pow__", "__rpow__"),
)
# `x += y`: the forward in place, as the method of that name.
INPLACE_OPERATORS = (
    (P.add, "__iadd__", "add_"),
    (P.sub, "__isub__", "sub_"),
    (P.mul, "__imul__", "mul_"),
    (P.div, "__itruediv__", "div_"),
    (C.bitwise_and, "__iand__", "bitwise_and_"),
    (C.bitwise_or, "__ior__", "bitwise_or_"),
    (C.bitwise_xor, "__ixor__", "bitwise_xor_"),
)
COMPARISONS = {"__lt__": np.less, "__le__": np.less_equal, "__gt__": np.greater, "__ge__": np.greater_equal,
               "__eq__": np.equal, "__ne__": np.not_equal}


def _names(text):
    return text.split()


def _number_operand(other):
    return isinstance(other, TensorBase) or isinstance(other, (int, float))


def _binop(f):
    def method(self, other):
        if isinstance(other, np.generic):   # a NumPy scalar is a number to PyTorch's parser
            other = other.item()
        if not _number_operand(other):
            return NotImplemented
        return f(self, other)
    return method


def _inplace(f, name, cast=False):
    def method(self, *args, **kwargs):
        return views._inplace(self, lambda t, *a: f(t, *a, **kwargs), *args, name=name, cast=cast)
    method.__name__ = name
    return method


def _untracked_inplace(f, name):
    """x.logical_not_(): PyTorch writes the result into x outside autograd (a leaf that requires
    grad may be changed; x keeps its grad_fn), and x's version moves."""
    def method(self, *args, **kwargs):
        grad_mode, STATE.grad_enabled = STATE.grad_enabled, False
        try:
            out = f(self, *args, **kwargs)._data
        finally:
            STATE.grad_enabled = grad_mode
        if out.shape != self._data.shape:
            raise TorchRuntimeError(f"output with shape {list(self._data.shape)} doesn't match the broadcast shape "
                                    f"{list(out.shape)}")
        views._check_writable(self)
        np.copyto(self._data, out, casting="unsafe")
        self._version_counter.bump()
        views._refresh_views(self)
        return self
    method.__name__ = name
    return method


def _inplace_operator(f, name):
    run = _inplace(f, name)

    def method(self, other):              # `x += 'a'`: Python's TypeError, as for `x + 'a'`
        if not _number_operand(other):
            return NotImplemented
        return run(self, other)
    return method


def _numbers_as_tensors(f):
    """torch.add(2, 3): PyTorch's parser takes a Python number for these functions' input too."""
    def call(input, *args, **kwargs):
        if isinstance(input, (int, float)) and not isinstance(args[0] if args else None, TensorBase):
            from . import tensor
            if type(input) is int and 2 ** 63 <= input < 2 ** 64:
                input = _uint64_input(f.__name__, input, args, kwargs)
            input = tensor(input)
        return f(input, *args, **kwargs)
    call.__name__ = f.__name__
    return call


# add and sub (not subtract) have PyTorch's deprecated overload (input, Number alpha, other):
# a third positional argument makes the second one alpha, whatever the types
_ALPHA_SECOND = {"add", "sub"}


def _alpha_second(f):
    def call(input, *args, **kwargs):
        if len(args) == 2:
            args = (args[1], args[0])
        return f(input, *args, **kwargs)
    call.__name__ = f.__name__
    return call


# addcmul/addcdiv's deprecated (input, value, tensor1, tensor2) overload: the only one that takes
# four positional arguments (the parser has bound it), with PyTorch's warning, once per process for both
_VALUE_FIRST = {"addcmul", "addcdiv"}
_W_VALUE_FIRST = ("This overload of {name} is deprecated:\n\t{name}({input}Number value, Tensor tensor1, Tensor tensor2"
                  "{out})\nConsider using one of the following signatures instead:\n\t{name}({input}Tensor tensor1, "
                  "Tensor tensor2, *, Number value = 1{out_kw}) (Triggered internally at "
                  "/__w/pytorch/pytorch/torch/csrc/utils/python_arg_parser.cpp:1841.)")


def _value_first(f, name, method):
    def call(input, *args, **kwargs):
        if len(args) == 3:
            if _W_VALUE_FIRST not in STATE.warned:     # (one warning site in PyTorch: once for them all)
                STATE.warned.add(_W_VALUE_FIRST)
                STATE.warn(_W_VALUE_FIRST.format(name=name, input="" if method else "Tensor input, ",
                                                 out="" if method else ", *, Tensor out = None",
                                                 out_kw="" if method else ", Tensor out = None"))
            value, t1, t2 = args
            return f(input, t1, t2, value=value, **kwargs)
        return f(input, *args, **kwargs)
    call.__name__ = f.__name__
    return call


def _unique_args(input, sorted=True, return_inverse=False, return_counts=False, dim=None):
    return input, sorted, return_inverse, return_counts, dim


def _consecutive_args(input, return_inverse=False, return_counts=False, dim=None):
    return input, return_inverse, return_counts, dim


def _boolean_dispatch(forward, binding, names, first, second):
    """torch.unique and torch.unique_consecutive, Python code in PyTorch: boolean_dispatch reads the
    truth of one flag (name, position), then of another, and calls one of four functions of
    `binding`'s signature (a call it cannot bind names that function), each returning its part of
    ATen's (output, inverse_indices, counts). unique_consecutive's positions are swapped in
    PyTorch: its second positional argument picks by return_counts."""
    def binder(name):
        f = types.FunctionType(binding.__code__, {}, name, binding.__defaults__)
        f.__qualname__ = name
        return f
    binders = {picks: binder(name) for picks, name in names.items()}

    def call(*args, **kwargs):
        picks = tuple(sorting._truth(kwargs[name] if name in kwargs else args[i] if i < len(args) else False)
                      for name, i in (first, second))
        try:
            bound = binders[picks](*args, **kwargs)
        except TypeError as e:              # Python's own binding error, the script's
            raise TorchTypeError(str(e)) from None
        out = forward(*bound)
        return out[0] if picks == (False, False) else (out[0], out[1]) if picks == (True, False) else \
            (out[0], out[2]) if picks == (False, True) else out
    return call


def _unique_method(self, sorted=True, return_inverse=False, return_counts=False, dim=None):
    return _UNIQUE(self, sorted=sorted, return_inverse=return_inverse, return_counts=return_counts, dim=dim)


def _unique_consecutive_method(self, return_inverse=False, return_counts=False, dim=None):
    return _UNIQUE_CONSECUTIVE(self, return_inverse=return_inverse, return_counts=return_counts, dim=dim)


_UNIQUE = _boolean_dispatch(
    sorting.unique, _unique_args, {(False, False): "_return_output", (True, False): "_return_inverse",
                                   (False, True): "_return_counts", (True, True): "_return_inverse_and_counts"},
    ("return_inverse", 2), ("return_counts", 3))
_UNIQUE_CONSECUTIVE = _boolean_dispatch(
    sorting.unique_consecutive, _consecutive_args,
    {(False, False): "_consecutive_return_output", (True, False): "_consecutive_return_inverse",
     (False, True): "_consecutive_return_counts", (True, True): "_consecutive_return_inverse_and_counts"},
    ("return_inverse", 2), ("return_counts", 1))
_unique_method.__qualname__ = "Tensor.unique"
_unique_consecutive_method.__qualname__ = "Tensor.unique_consecutive"


def _uint64_input(name, input, args, kwargs):
    """torch.add(2**63, y) with y a number: PyTorch holds the input as a uint64 number. With a
    float it is that float; otherwise uint64 meets an integer type PyTorch cannot promote it with
    (or, twice uint64, has no kernel for), or a float alpha an integral result."""
    other, alpha = args[0], args[1] if len(args) > 1 else kwargs.get("alpha", 1)    # (alpha second: reordered)
    if isinstance(other, float) or name == "div" and type(other) is int and other >= 2 ** 63:
        return float(input)
    if len(args) >= 2 and isinstance(alpha, float):       # (a keyword alpha is checked after the promotion)
        raise TorchRuntimeError("For integral input tensors, argument alpha must not be a floating point number.")
    if type(other) is int and other >= 2 ** 63:
        raise TorchNotImplementedError('"add_stub" not implemented for \'UInt64\'' if name in ("add", "sub") else
                                       "gradcli does not implement uint64 tensors (the product of two ints past int64)")
    if isinstance(other, bool) and name == "sub":
        pointwise._no_bool_subtraction(False, True)
    raise TorchRuntimeError("Promotion for uint16, uint32, uint64 types is not supported, attempted to promote UInt64 "
                            f"and {'Bool' if isinstance(other, bool) else 'Long'}")


def _pos(self):
    if self._data.dtype == np.bool_:
        raise TorchRuntimeError("The `+` operator, on a bool tensor is not supported.")
    return self


def _contiguous(self, memory_format=None):
    """Tensor.contiguous: self when already laid out so, else a clone in that format (contiguous)."""
    if memory_format is None:
        memory_format = contiguous_format
    if memory_format.name == "preserve_format":
        raise TorchRuntimeError("preserve memory format is unsupported by the contiguous operator")
    return self if views.is_contiguous_as(self._data, memory_format) else P.clone(self, memory_format)


def _storage_offset(self):
    """Where this tensor starts in its storage, in elements: a view's distance from its base."""
    base = self._base if self._base is not None else self
    start, data = base._data.__array_interface__["data"][0], self._data
    return (data.__array_interface__["data"][0] - start) // data.itemsize if data.size else 0


def _operators():
    """The dunder methods and the few other methods and properties with no function of their own."""
    from . import bool as bool_, float16, float32, float64, int8, int16, int32, int64, uint8
    to = pointwise.to_dtype
    m = {}
    for f, op, rop in ARITHMETIC:
        m[op] = _binop(f)
        m[rop] = _binop(lambda s, o, f=f: f(o, s))
    for f, op, name in INPLACE_OPERATORS:
        m[op] = _inplace_operator(f, name)
    m["__add__"] = m["__radd__"] = P.add_method          # (without a call level: the commonest ops)
    m["__mul__"] = m["__rmul__"] = P.mul_method
    m["__and__"] = m["__rand__"] = C.bitwise_and
    m["__or__"] = m["__ror__"] = C.bitwise_or
    m["__xor__"] = m["__rxor__"] = C.bitwise_xor
    m["__matmul__"] = lambda s, o: linalg.matmul(s, o)
    m["__rmatmul__"] = lambda self, other: linalg.matmul(other, self)
    m["__neg__"] = P.neg
    m["__pos__"] = _pos
    m["__abs__"] = P.abs
    m["__invert__"] = C.invert
    m.update({name: C._compare(ufunc) for name, ufunc in COMPARISONS.items()})
    m["__hash__"] = lambda s: id(s)
    m["__getitem__"] = indexing.getitem
    m["__setitem__"] = indexing.setitem
    m["__iter__"] = J.tensor_iter
    m["T"] = property(S.T_property)
    m["mT"] = property(S.mT_property)
    m["retains_grad"] = property(lambda self: self._retains_grad)
    m["expand_as"] = lambda self, other: S.expand(self, other._data.shape)
    m["view_as"] = lambda self, other: S.view(self, other._data.shape)
    m["reshape_as"] = lambda self, other: S.reshape(self, other._data.shape)
    m["float"] = lambda self: to(self, float32)
    m["double"] = lambda self: to(self, float64)
    m["long"] = lambda self: to(self, int64)
    m["int"] = lambda self: to(self, int32)
    m["bool"] = lambda self: to(self, bool_)
    m["half"] = lambda self: to(self, float16)
    m["short"] = lambda self: to(self, int16)
    m["char"] = lambda self: to(self, int8)
    m["byte"] = lambda self: to(self, uint8)
    m["ndimension"] = lambda self: self._data.ndim
    m["nbytes"] = property(lambda self: self._data.nbytes)
    m["itemsize"] = property(lambda self: self._data.itemsize)
    m["is_cpu"] = property(lambda self: True)
    m["is_signed"] = lambda self: self._data.dtype.kind in "if"
    m["is_complex"] = lambda self: False
    m["is_inference"] = lambda self: False
    m["storage_offset"] = _storage_offset
    m["is_same_size"] = lambda self, other: self._data.shape == other._data.shape
    m["contiguous"] = _contiguous
    m["unique"] = _unique_method
    m["unique_consecutive"] = _unique_consecutive_method
    m["is_contiguous"] = lambda self, memory_format=None: views.is_contiguous_as(self._data, memory_format)
    return m


def functions():
    """{name: function} of torch's functions made from the table, argument-checked."""
    out = {"unique": _UNIQUE, "unique_consecutive": _UNIQUE_CONSECUTIVE}
    for row in API:
        f = _numbers_as_tensors(row.forward) if row.numbers else row.forward
        for name in _names(row.functions):
            out[name] = _alpha_second(f) if name in _ALPHA_SECOND else \
                _value_first(f, name, False) if name in _VALUE_FIRST else f
    return {name: _checked_function(name, f) for name, f in out.items()}


def _checked_function(name, f):
    return _signatures.checked(name, f) if name in _signatures.SIGNATURES and name not in _signatures.PRELUDED else f


def methods(base):
    """{name: function or property}: every method and property torch adds to `base` (the engine's
    tensor), argument-checked, and the checked versions of `base`'s own public methods (those
    already checked, after an install, are taken as they are)."""
    from . import _random_methods
    m = {}
    for row in API:
        for name in _names(row.methods):
            m[name] = row.method or (_alpha_second(row.forward) if name in _ALPHA_SECOND else
                                     _value_first(row.forward, name, True) if name in _VALUE_FIRST else row.forward)
        for name in _names(row.inplace):
            forward = _alpha_second(row.forward) if name.rstrip("_") in _ALPHA_SECOND else \
                _value_first(row.forward, name, True) if name.rstrip("_") in _VALUE_FIRST else row.forward
            m[name] = _untracked_inplace(forward, name) if row.untracked else _inplace(forward, name, row.cast)
    m.update(_operators())
    m.update(_random_methods())
    m.update(_legacy.methods(base))
    own = {name for name in dir(base) if not name.startswith("_") and name not in m}
    for name in own:
        m[name] = inspect.getattr_static(base, name)
    for name, attr in m.items():
        if not name.startswith("_") and isinstance(attr, types.FunctionType) and not _signatures.is_checked(attr) \
                and _signatures.signature_of("Tensor." + name) is not None:
            m[name] = _signatures.checked("Tensor." + name, attr)
    for name in own:
        if m[name] is inspect.getattr_static(base, name):
            del m[name]
    return m

