"""Comparison, logical and bitwise ops (no gradient), all/any/allclose."""
from __future__ import annotations

import numpy as np

from .. import engine as E
from ..engine import CONFIG, TensorBase, result_type
from ..engine import TorchRuntimeError, TorchTypeError
from ..engine import TorchNotImplementedError as TorchNotImplementedError_
from .numeric import _SCALAR_NAME, _arr, _check_operand, _dims, broadcast_shapes
from .record import _check_broadcast, _check_like, _check_reads, _check_reduced
from .pointwise import _check_shapes


def _compare(ufunc):
    def f(a, b):
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
    if x.dtype != y.dtype:
        raise TorchRuntimeError(f"{_SCALAR_NAME[x.dtype.name]} did not match {_SCALAR_NAME[y.dtype.name]}")
    for name, v in (("rtol", rtol), ("atol", atol)):
        if not v >= 0:                      # (nan too)
            raise TorchRuntimeError(f"{name} must be greater than or equal to zero, but got {v:g}")
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
