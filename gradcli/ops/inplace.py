"""In-place forwards (`x.add_(...)` runs through `_inplace`), copy_, fill_, masked_fill."""
from __future__ import annotations

import numpy as np

from ..engine import CONFIG, TensorBase, dtype_of, result_type
from ..engine import TorchRuntimeError, TorchTypeError
from .numeric import _C_NAME, _SCALAR_NAME, _check_operand, _norm_dim, _scalar_checked, _sizes_str, broadcast_shapes
from .record import _begin, _check_like, _record
from .table import TABLE
from .views import _check_inplace, _inplace, _inplace_view
from .pointwise import check_bounds, clamp
from .shape import _squeezed_dims


def t_inplace(t):
    _check_inplace(t, ())                   # (a leaf that requires grad is refused before any other check)
    if t._data.ndim > 2:
        raise TorchRuntimeError(f"t_() expects a tensor with <= 2 dimensions, but self is {t._data.ndim}D")
    return _inplace_view(t, t._data.T, TABLE["t_"], {})


def transpose_(t, dim0, dim1):
    _check_inplace(t, ())
    nd = t._data.ndim
    a, b = _norm_dim(dim0, nd), _norm_dim(dim1, nd)
    return _inplace_view(t, np.swapaxes(t._data, a, b), TABLE["transpose_"], {"dim0": dim0, "dim1": dim1})


def unsqueeze_(t, dim):
    _check_inplace(t, ())
    d = _norm_dim(dim, t._data.ndim + 1)
    return _inplace_view(t, np.expand_dims(t._data, d), TABLE["unsqueeze_"], {"dim": d})


def squeeze_(t, dim=None):
    _check_inplace(t, ())
    sizes = tuple(t._data.shape)
    if isinstance(dim, (tuple, list)):
        axes = _squeezed_dims(t, dim)
        out = np.squeeze(t._data, axes) if axes else t._data
        return _inplace_view(t, out, TABLE["squeeze_dims_"], {"dim": tuple(dim), "self_sym_sizes": sizes})
    if dim is None:
        return _inplace_view(t, np.squeeze(t._data) if t._data.ndim else t._data, TABLE["squeeze_"],
                             {"self_sym_sizes": sizes})
    d = _norm_dim(dim, t._data.ndim)
    out = np.squeeze(t._data, d) if t._data.ndim and sizes[d] == 1 else t._data
    return _inplace_view(t, out, TABLE["squeeze_dim_"], {"dim": dim, "self_sym_sizes": sizes})


def masked_fill(t, mask, value):
    if not isinstance(mask, TensorBase):
        raise TorchTypeError(f"masked_fill(): argument 'mask' (position 1) must be Tensor, not {type(mask).__name__}")
    if mask._data.dtype != np.bool_:
        raise TorchRuntimeError(f"masked_fill_ only supports boolean masks, but got mask with dtype "
                                f"{_C_NAME[mask._data.dtype.name]}")
    if isinstance(value, TensorBase) and value._data.ndim:
        raise TorchRuntimeError(f"masked_fill_ only supports a 0-dimensional value tensor, but got tensor with "
                                f"{value._data.ndim} dimension(s).")
    if not isinstance(value, TensorBase):
        _check_operand(value, "value")
    _check_like(broadcast_shapes(t._data.shape, mask._data.shape))
    fill = value._data if isinstance(value, TensorBase) else _scalar_checked(value, t._data.dtype)
    out = np.asarray(np.where(mask._data, fill, t._data)).astype(t._data.dtype, copy=False)
    if isinstance(value, TensorBase):
        return _record(TABLE["masked_fill_tensor"], _begin(t, value), out, (t, value), extra={"mask": mask})
    return _record(TABLE["masked_fill"], _begin(t), out, (t,), extra={"mask": mask})


def masked_fill_(t, mask, value):
    return _inplace(t, lambda x, *v: masked_fill(x, mask, *v), value, name="masked_fill_", cast=True)


def zero_(t):
    return _inplace(t, lambda x: _record(TABLE["zero"], _begin(x), np.zeros_like(x._data), (x,)), name="zero_")


def fill_(t, value):
    if isinstance(value, TensorBase):                  # FillBackward3: the value's gradient is the sum
        if value._data.ndim:
            raise TorchRuntimeError(f"fill_ only supports 0-dimension value tensor but got tensor with "
                                    f"{value._data.ndim} dimensions.")
        return _inplace(t, lambda x, v: _record(TABLE["fill_tensor"], _begin(x, v),
                                                np.full_like(x._data, v._data), (x, v)), value, name="fill_", cast=True)
    _check_operand(value, "value")
    def fill(x):
        return _record(TABLE["fill"], _begin(x), np.full_like(x._data, _scalar_checked(value, x._data.dtype)), (x,))
    return _inplace(t, fill, name="fill_", cast=True)


def copy_(t, src, non_blocking=False):
    if not isinstance(src, TensorBase):
        _check_operand(src, "src")
        src = CONFIG.tensor(np.asarray(src))

    def compute(x, s):
        shape = broadcast_shapes(x._data.shape, s._data.shape)
        if shape != x._data.shape:
            raise TorchRuntimeError(f"output with shape {_sizes_str(x._data.shape)} doesn't match the broadcast "
                                    f"shape {_sizes_str(shape)}")
        out = np.array(np.broadcast_to(s._data, x._data.shape), dtype=x._data.dtype)
        return _record(TABLE["copy"], _begin(x, s), out, (x, s))
    return _inplace(t, compute, src, name="copy_", cast=True)


def clamp_(t, min=None, max=None):
    min, max = check_bounds(min, max)       # (before the in-place checks, as PyTorch's parser runs first)
    numbers = [v for v in (min, max) if v is not None and not isinstance(v, TensorBase)]
    if numbers and result_type(t, *numbers).kind > dtype_of(t._data).kind:     # the kernel names the C type
        raise TorchRuntimeError(f"result type {_SCALAR_NAME[result_type(t, *numbers).np.name]} can't be cast to "
                                f"the desired output type {_C_NAME[t._data.dtype.name]}")
    return _inplace(t, lambda x: clamp(x, min, max), name="clamp_")
