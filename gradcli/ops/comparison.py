"""Comparison, logical and bitwise ops (no gradient, but for the in-place comparisons), predicates,
all/any/allclose/isclose/equal."""
from __future__ import annotations

import numpy as np

from .. import engine as E
from ..engine import CONFIG, TensorBase, result_type
from ..engine import TorchRuntimeError, TorchTypeError
from ..engine import TorchNotImplementedError as TorchNotImplementedError_
from .numeric import _SCALAR_NAME, _arr, _check_operand, _dims, broadcast_shapes
from .record import _begin, _check_broadcast, _check_like, _check_reads, _check_reduced, _record
from .table import TABLE
from .pointwise import _check_shapes


def _compare(ufunc):
    def f(a, b):
        if isinstance(b, np.generic) and b.dtype.kind in "biuf":
            b = b.item()                            # a NumPy number is a Python number to PyTorch
        if not (isinstance(b, TensorBase) or isinstance(b, (int, float, bool))):
            return NotImplemented
        _check_operand(b)
        dt = result_type(a, b)
        _check_shapes(a, b, dt)
        return CONFIG.tensor(np.asarray(ufunc(_arr(a, dt), _arr(b, dt))))
    return f

# ----------------------------------------------------------------------------- logical and bitwise (no grad)


def _bitwise(name, ufunc):
    """`&`, `|`, `^` and torch.bitwise_*: integer and bool tensors only (PyTorch's promotion)."""
    def f(a, b):
        if not (isinstance(b, TensorBase) or isinstance(b, (int, float, bool))):
            return NotImplemented
        if type(b) is int and not -2 ** 63 <= b < 2 ** 64:       # past what a Scalar holds
            from ..engine import TorchOverflowError
            raise TorchOverflowError("int too big to convert")
        if type(b) is int and b >= 2 ** 63:           # held as uint64, it wraps into int64 as in PyTorch
            if isinstance(a, TensorBase) and a._data.dtype == np.bool_:
                raise TorchRuntimeError("Promotion for uint16, uint32, uint64 types is not supported, attempted "
                                        "to promote Bool and UInt64")
            b -= 2 ** 64
        dt = result_type(a, b)
        _check_shapes(a, b, dt)
        if dt.kind == E.FLOAT:
            raise TorchNotImplementedError_(f'"{name}_cpu" not implemented for \'{_SCALAR_NAME[dt.np.name]}\'')
        sa = a._data.shape if isinstance(a, TensorBase) else ()
        sb = b._data.shape if isinstance(b, TensorBase) else ()
        if sa != sb:
            _check_broadcast(sa, sb, dt.np.itemsize)
        return CONFIG.tensor(np.asarray(ufunc(_arr(a, dt), _arr(b, dt)), dt.np))
    f.__name__ = name
    return f


bitwise_and = _bitwise("bitwise_and", np.bitwise_and)
bitwise_or = _bitwise("bitwise_or", np.bitwise_or)
bitwise_xor = _bitwise("bitwise_xor", np.bitwise_xor)


def bitwise_not(t):
    if t._data.dtype.kind == "f":
        raise TorchNotImplementedError_(f'"bitwise_not_cpu" not implemented for \'{_SCALAR_NAME[t._data.dtype.name]}\'')
    return CONFIG.tensor(np.invert(t._data))


def invert(t):
    """`~t`: logical not of a bool tensor, bitwise not of an integer one."""
    if t._data.dtype.kind == "f":
        raise TorchTypeError("~ (operator.invert) is only implemented on integer and Boolean-type tensors")
    return CONFIG.tensor(np.invert(t._data))


def _logical(ufunc):
    def f(a, b):
        if not isinstance(b, TensorBase):
            raise TorchTypeError(f"{ufunc.__name__}(): argument 'other' (position 2) must be Tensor, not "
                                 f"{type(b).__name__}")
        if a._data.shape != b._data.shape:
            _check_broadcast(a._data.shape, b._data.shape, 1)
        else:
            _check_like(a._data.shape, itemsize=1)
        return CONFIG.tensor(np.asarray(ufunc(a._data != 0, b._data != 0)))
    f.__name__ = ufunc.__name__
    return f


logical_and, logical_or, logical_xor = _logical(np.logical_and), _logical(np.logical_or), _logical(np.logical_xor)


def logical_not(t):
    return CONFIG.tensor(np.asarray(t._data == 0))


def _reduce_bool(fn, t, dim, keepdim):
    _check_reads(t)
    data = t._data
    out_dt = np.uint8 if data.dtype == np.uint8 else np.bool_
    if dim is None:
        return CONFIG.tensor(np.asarray(fn(data), out_dt))
    dims = _dims(dim, data.ndim)
    _check_reduced(data, dims)
    axis = dims if data.ndim else None
    return CONFIG.tensor(np.asarray(fn(data, axis=axis, keepdims=bool(keepdim) and data.ndim > 0), out_dt))


def tensor_all(t, dim=None, keepdim=False):       # (not `all`/`any`: this module uses the builtins)
    return _reduce_bool(np.all, t, dim, keepdim)


def tensor_any(t, dim=None, keepdim=False):
    return _reduce_bool(np.any, t, dim, keepdim)


def allclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False):
    """torch.allclose: a Python bool; same dtype required, shapes broadcast."""
    for k, v in ((1, a), (2, b)):
        if not isinstance(v, TensorBase):
            raise TorchTypeError(f"allclose(): argument '{'input' if k == 1 else 'other'}' (position {k}) must be "
                                 f"Tensor, not {type(v).__name__}")
    x, y = a._data, b._data
    _closeness_checks(x, y, rtol, atol)
    rtol, atol = (v.item() if isinstance(v, TensorBase) else v for v in (rtol, atol))   # numbers to NumPy
    broadcast_shapes(x.shape, y.shape)
    if x.dtype.kind == "b":
        return bool(np.all(x == y))
    if x.dtype.kind != "f":
        x, y = x.astype(np.float64), y.astype(np.float64)
    with np.errstate(all="ignore"):
        err = np.abs(x - y)
        close = (x == y) | (np.isfinite(err) & (err <= atol + np.abs(rtol * y)))
        if equal_nan:
            close |= np.isnan(x) & np.isnan(y)
    return bool(np.all(close))

# ----------------------------------------------------------------------------- comparisons as functions


def _comparison(name, ufunc):
    """torch.eq and its kin: the code path of the `==` operators (their promotion and broadcasting)."""
    compare = _compare(ufunc)

    def f(input, other):
        return compare(input, other)
    f.__name__ = name
    return f


eq, ne = _comparison("eq", np.equal), _comparison("ne", np.not_equal)
gt, ge = _comparison("gt", np.greater), _comparison("ge", np.greater_equal)
lt, le = _comparison("lt", np.less), _comparison("le", np.less_equal)


def _comparison_inplace(name, ufunc):
    """x.eq_(y), the forward the in-place method runs: the comparison, written into x as x's
    dtype; PyTorch records EqBackward0 (a number) or EqBackward1 (a tensor), zero gradients."""
    compare = _compare(ufunc)

    def f(t, other):
        out = compare(t, other)._data
        if isinstance(other, TensorBase):
            return _record(TABLE[name + "_tensor"], _begin(t, other), out, (t, other))
        return _record(TABLE[name + "_"], _begin(t), out, (t,))
    f.__name__ = name + "_"
    return f


eq_, ne_ = _comparison_inplace("eq", np.equal), _comparison_inplace("ne", np.not_equal)
gt_, ge_ = _comparison_inplace("gt", np.greater), _comparison_inplace("ge", np.greater_equal)
lt_, le_ = _comparison_inplace("lt", np.less), _comparison_inplace("le", np.less_equal)

# ----------------------------------------------------------------------------- predicates (no grad)


def _predicate(name, test):
    """isnan and its kin: a bool tensor; integer and bool inputs hold no nan nor inf."""
    def f(input):
        d = input._data
        return CONFIG.tensor(np.asarray(test(d) if d.dtype.kind == "f" else test(d.astype(np.float32))))
    f.__name__ = name
    return f


isnan = _predicate("isnan", np.isnan)
isinf = _predicate("isinf", np.isinf)
isfinite = _predicate("isfinite", np.isfinite)
isposinf = _predicate("isposinf", lambda d: d == np.inf)
isneginf = _predicate("isneginf", lambda d: d == -np.inf)
signbit = _predicate("signbit", np.signbit)


def isreal(input):
    return CONFIG.tensor(np.ones(input._data.shape, np.bool_))     # (no complex tensors: every value is real)


def _closeness_checks(x, y, rtol, atol):
    if x.dtype != y.dtype:
        raise TorchRuntimeError(f"{_SCALAR_NAME[x.dtype.name]} did not match {_SCALAR_NAME[y.dtype.name]}")
    for name, v in (("rtol", rtol), ("atol", atol)):
        if not v >= 0:                      # (nan too)
            raise TorchRuntimeError(f"{name} must be greater than or equal to zero, but got {v:g}")


def isclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    """PyTorch's isclose: equal, or both nan with equal_nan, or |x - y| finite and at most
    atol + |rtol * y|, computed in the inputs' dtype (integers in float32, the default dtype)."""
    x, y = input._data, other._data
    _closeness_checks(x, y, rtol, atol)
    rtol, atol = (v.item() if isinstance(v, TensorBase) else v for v in (rtol, atol))   # numbers to NumPy
    shape = broadcast_shapes(x.shape, y.shape)
    _check_like(shape, itemsize=1)
    close = np.asarray(x == y)
    if x.dtype.kind == "f" and equal_nan:
        close = close | (np.isnan(x) & np.isnan(y))
    if x.dtype.kind != "b" and (rtol != 0 or atol != 0):
        if x.dtype.kind != "f":
            x, y = x.astype(np.float32), y.astype(np.float32)
        with np.errstate(all="ignore"):
            allowed = atol + np.abs(rtol * y)
            actual = np.abs(x - y)
            close = close | (np.isfinite(actual) & (actual <= allowed))
    return CONFIG.tensor(np.asarray(np.broadcast_to(close, shape)))


def equal(input, other):
    """torch.equal: same sizes and equal values (after promotion; nan is never equal)."""
    x, y = input._data, other._data
    if x.shape != y.shape:
        return False
    dt = result_type(input, other)
    return bool(np.all(_arr(input, dt) == _arr(other, dt)))


def is_nonzero(input):
    d = input._data
    if d.size == 0:
        raise TorchRuntimeError("Boolean value of Tensor with no values is ambiguous")
    if d.size > 1:
        raise TorchRuntimeError("Boolean value of Tensor with more than one value is ambiguous")
    return bool(d.reshape(()) != 0)


def count_nonzero(input, dim=None):
    d = input._data
    _check_reads(input)
    if dim is None:
        return CONFIG.tensor(np.asarray(np.count_nonzero(d), np.int64))
    if isinstance(dim, (list, tuple)):
        dim = [int(x) for x in dim]                 # (True in a list of dims is dim 1, as in PyTorch)
    dims = _dims(dim, d.ndim)
    if d.ndim == 0:
        return CONFIG.tensor(np.asarray(d != 0, np.int64))
    return CONFIG.tensor(np.asarray(np.count_nonzero(d, axis=dims), np.int64))


def count_nonzero_method(self, *dims, dim=None):
    """x.count_nonzero(0, 1): the method also takes the dims one by one."""
    return count_nonzero(self, dims if len(dims) > 1 else dims[0] if dims else dim)
