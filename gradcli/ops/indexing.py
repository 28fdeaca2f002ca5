"""Indexing: `t[index]` and `t[index] = value` (basic, advanced and boolean indices)."""
from __future__ import annotations

import builtins as _b

import numpy as np

from .. import engine as E
from ..engine import CONFIG, TensorBase
from ..engine import TorchIndexError, TorchRuntimeError, TorchTypeError, TorchValueError
from .numeric import _check_operand, _sizes_str
from .record import _begin, _check_numel, _numel, _record
from .table import TABLE
from .views import _inplace, fresh_views
from .shape import _slice, _view_result, expand, select, unsqueeze, view
from .inplace import copy_, fill_


W_SEQUENCE_INDEX = ("Using a non-tuple sequence for multidimensional indexing is deprecated and will be changed in "
                    "pytorch 2.9; use x[tuple(seq)] instead of x[seq]. In pytorch 2.9 this will be interpreted as "
                    "tensor index, x[torch.tensor(seq)], which will result either in an error or a different "
                    "result (Triggered internally at /__w/pytorch/pytorch/torch/csrc/autograd/"
                    "python_variable_indexing.cpp:{}.)")


def _index_tuple(index):
    """PyTorch's wrapTuple: a tuple stays; a list of fewer than 32 items holding a sequence,
    slice, tensor, None or ... is read as a tuple (deprecated, with a warning); anything else
    is a 1-tuple."""
    if isinstance(index, tuple):
        return index
    if isinstance(index, list) and len(index) < 32:
        for i in index:
            if isinstance(i, TensorBase) or isinstance(i, (list, tuple, slice)) or i is None or i is Ellipsis:
                E.warn_once(W_SEQUENCE_INDEX.format(359 if i is None or i is Ellipsis else 349))
                return tuple(index)
    return (index,)


def _is_mask(t):
    return t._data.dtype == np.bool_ or t._data.dtype == np.uint8


def _apply_select(t, dim, index, real_dim):
    """PyTorch's applySelect: x[i] checks i against the size here, naming the index's position."""
    sizes = t._data.shape
    if index == 0 and dim == 0 and not sizes:
        raise TorchIndexError("invalid index of a 0-dim tensor. Use `tensor.item()` in Python or "
                              "`tensor.item<T>()` in C++ to convert a 0-dim tensor to a number")
    size = sizes[dim] if dim < len(sizes) else 0
    if not -size <= index < size:
        raise TorchIndexError(f"index {index} is out of bounds for dimension {real_dim} with size {size}")
    return select(t, dim, index)


def _bool_index(value):
    """A boolean index adds a dimension of size 1, indexed by [0] (True) or [] (False)."""
    return CONFIG.tensor(np.zeros(1 if value else 0, np.int64))


def _sequence_index(seq):
    """A list index as a tensor: bool stays a mask, any other number becomes int64."""
    try:
        arr = np.array(seq)
    except ValueError:
        if all(isinstance(s, list) for s in seq):
            n = len(seq[0])
            raise TorchValueError(f"expected sequence of length {n} at dim 1 (got "
                                  f"{next(len(s) for s in seq if len(s) != n)})") from None
        raise TorchTypeError("'list' object cannot be interpreted as an integer") from None
    if arr.dtype.kind not in "biuf":
        raise TorchTypeError(f"new(): invalid data type '{arr.dtype.name if arr.dtype.kind != 'U' else 'str'}'")
    return CONFIG.tensor(arr if arr.dtype == np.bool_ else arr.astype(np.int64))


def getitem(t, index):
    """PyTorch's indexing (python_variable_indexing.cpp): a lone int, slice, None or ... is one
    view node; otherwise the basic indices become Select/Slice/Unsqueeze views applied left
    to right, and the tensor, list and mask indices one IndexBackward0 on the result."""
    if index is None:
        return unsqueeze(t, 0)
    if index is Ellipsis:
        return _view_result(TABLE["alias"], t, t._data.view(), {})
    if isinstance(index, bool):
        return _index(unsqueeze(t, 0), [_bool_index(index)])
    if isinstance(index, int):
        return _apply_select(t, 0, index, 0)
    if isinstance(index, slice):             # a lone slice always records a node, even `x[:]`
        if t._data.ndim == 0:
            if index.step == 0:
                raise TorchValueError("slice step cannot be zero")
            raise TorchIndexError("slice() cannot be applied to a 0-dim tensor.")
        return _slice(t, 0, index)
    index = _index_tuple(index)
    for i in index:
        if not (i is None or i is Ellipsis or isinstance(i, (int, slice, list, tuple)) or isinstance(i, TensorBase)):
            raise TorchIndexError("only integers, slices (`:`), ellipsis (`...`), None and long or byte Variables "
                                  "are valid indices (got " + type(i).__name__ + ")")
    index = tuple(_sequence_index(i) if isinstance(i, (list, tuple)) else i for i in index)
    nd = t._data.ndim
    specified = 0
    for i in index:
        if isinstance(i, TensorBase):
            specified += i._data.ndim if _is_mask(i) else 1
        elif not (i is None or i is Ellipsis or isinstance(i, bool)):
            specified += 1
    if specified > nd:
        raise TorchIndexError(f"too many indices for tensor of dimension {nd}")
    result, dim, tensors = t, 0, []

    def record(x):                           # PyTorch's recordTensorIndex
        nonlocal dim
        if not tensors:
            tensors.extend([None] * dim)
        tensors.append(x)
        dim += x._data.ndim if _is_mask(x) else 1

    for real_dim, i in enumerate(index):
        if i is None:
            result = unsqueeze(result, dim)
            dim += 1
            if tensors:
                tensors.append(None)
        elif i is Ellipsis:
            dim += nd - specified
            if tensors:
                tensors.extend([None] * (nd - specified))
        elif isinstance(i, bool):
            result = unsqueeze(result, dim)
            record(_bool_index(i))
        elif isinstance(i, int):
            result = _apply_select(result, dim, i, real_dim)
        elif isinstance(i, slice):
            result = _slice(result, dim, i, optimize=True)
            dim += 1
            if tensors:
                tensors.append(None)
        elif i._data.ndim == 0 and i._data.dtype.kind in "biu":     # a 0-d integer tensor is an int
            if _is_mask(i):
                result = unsqueeze(result, dim)
                record(_bool_index(bool(i._data)))
            else:
                result = _apply_select(result, dim, int(i._data), real_dim)
        else:
            record(i)
    if tensors:
        return _index(result, tensors)
    if result is t:                         # x[:, :] or x[..., ...]: a view of the whole tensor
        return _view_result(TABLE["alias"], t, t._data.view(), {})
    return result


def _index(t, indices):
    """at::index: `indices` holds an index tensor or None (a whole dimension) per leading
    dimension of t. Masks expand to their nonzero positions; the rest broadcast together."""
    while indices and indices[-1] is None:
        indices.pop()
    if len(indices) > t._data.ndim:
        raise TorchIndexError(f"too many indices for tensor of dimension {t._data.ndim} (got {len(indices)})")
    for i in indices:
        if i is not None and i._data.dtype.kind not in "biu":
            raise TorchIndexError("tensors used as indices must be long, int, byte or bool tensors")
    sizes = t._data.shape
    idx = []
    for i in indices:
        if i is None:
            idx.append(slice(None))
        elif _is_mask(i):
            m = i._data
            for j in range(m.ndim):
                src = len(idx) + j
                if src >= len(sizes) or m.shape[j] != sizes[src]:
                    raise TorchIndexError(f"The shape of the mask {E._sizes(m.shape)} at index {j} does not match "
                                          f"the shape of the indexed tensor {E._sizes(sizes)} at index {src}")
            idx.extend(np.nonzero(m))
        else:
            idx.append(i._data.astype(np.int64, copy=False))
    arrays = [a for a in idx if not isinstance(a, slice)]
    try:
        arrays = np.broadcast_arrays(*arrays)
    except ValueError:
        raise TorchIndexError("shape mismatch: indexing tensors could not be broadcast together with shapes "
                              + ", ".join(E._sizes(a.shape) for a in arrays)) from None
    dims = [d for d, a in enumerate(idx) if not isinstance(a, slice)]
    _check_numel(_numel(arrays[0].shape if arrays else ()) * _numel(
        n for d, n in enumerate(sizes) if d not in dims), t._data.itemsize)
    bad = np.stack([(a < -sizes[d]) | (a >= sizes[d]) for a, d in zip(arrays, dims)], -1)
    if bad.any():                           # the first element, then the first of its indices
        at = np.argwhere(bad)[0]
        k = int(at[-1])
        raise TorchIndexError(f"index {int(arrays[k][tuple(at[:-1])])} is out of bounds for dimension {k} "
                              f"with size {sizes[dims[k]]}")
    out = t._data[tuple(idx)]
    seq = _begin(t)
    return _record(TABLE["index"], seq, np.ascontiguousarray(out), (t,), extra={"indices": SavedList(indices)},
                   attrs={"self_sym_sizes": tuple(t._data.shape), "_index": tuple(idx)})


class SavedList(TensorBase):
    """IndexBackward0's `indices`: index tensors (None for a whole dimension) saved and freed
    together; reads as a tuple."""

    __slots__ = ("items",)

    def __init__(self, items):
        first = next((i for i in items if i is not None), None)
        super().__init__(first._data if first is not None else np.zeros(0, np.int64))
        self.items = tuple(items)


def setitem(t, index, value):
    """`t[index] = value`, as PyTorch runs it (set_item): the basic indices make a view of t
    (ints and 0-d integer tensors select, None unsqueezes, a slice that keeps a whole dimension
    is skipped); without tensor indices the value is copied into that view in place (fill_ for
    a number or 0-d tensor, else copy_), else it is index_put_ into it (IndexPutBackward0). So
    an assignment into a view of a tensor that takes part in autograd gives the base CopySlices."""
    # the index is read as getitem reads it: a list may be a tuple of indices, a list a tensor
    index = tuple(_sequence_index(i) if isinstance(i, (list, tuple)) else i for i in _index_tuple(index))
    fresh_views((t, value))
    sliced, advanced = _setitem_view(t, index)
    if not advanced:
        _copy_to(sliced, value)
        return
    if isinstance(value, TensorBase):
        shape = _strip_leading_ones(value._data.shape)
        if shape != value._data.shape:
            value = view(value, shape)
    idx = tuple(advanced.get(d, slice(None)) for d in range(_b.max(advanced) + 1))
    _index_put(sliced, idx, value)


def _setitem_view(t, index):
    n_real = _b.sum(1 for i in index if i is not None and i is not Ellipsis)
    if n_real > t._data.ndim:
        raise TorchIndexError(f"too many indices for tensor of dimension {t._data.ndim}")
    if _b.sum(1 for i in index if i is Ellipsis) > 1:
        raise TorchIndexError("an index can only have a single ellipsis ('...')")
    result, dim, advanced = t, 0, {}
    for i in index:
        if isinstance(i, TensorBase) and i._data.ndim == 0 and i._data.dtype.kind in "iu":
            i = int(i._data)
        if i is Ellipsis:
            dim += t._data.ndim - n_real
        elif i is None:
            result = unsqueeze(result, dim)
            dim += 1
        elif isinstance(i, bool):
            raise TorchIndexError("boolean scalar indices are not supported")
        elif isinstance(i, int):
            result = select(result, dim, i)
        elif isinstance(i, slice):
            whole = (i.start in (None, 0) and i.step in (None, 1)
                     and (i.stop is None or i.stop >= result._data.shape[dim]))
            if not whole:
                result = _slice(result, dim, i)
            dim += 1
        elif isinstance(i, TensorBase) or isinstance(i, list):
            arr = i._data if isinstance(i, TensorBase) else np.array(i)
            if arr.dtype.kind not in "iub":
                raise TorchIndexError("tensors used as indices must be long, int, byte or bool tensors")
            advanced[dim] = arr
            dim += 1
        else:
            raise TorchIndexError("only integers, slices (`:`), ellipsis (`...`), None and long or byte Variables "
                                  "are valid indices (got " + type(i).__name__ + ")")
    return result, advanced


def _strip_leading_ones(shape):
    while shape and shape[0] == 1:
        shape = shape[1:]
    return shape


def _copy_to(dst, value):
    """PyTorch's copy_to for assignment: equal sizes copy_, a number or 0-d tensor fill_, else the
    value (leading 1s dropped by a view) is expanded to the target and copied."""
    if not isinstance(value, TensorBase):
        _check_operand(value, "value")
        return fill_(dst, CONFIG.tensor(np.asarray(value, dst._data.dtype)))
    if value._data.shape == dst._data.shape:
        return copy_(dst, value)
    if value._data.ndim == 0:
        return fill_(dst, value)
    shape = _strip_leading_ones(value._data.shape)
    src = view(value, shape)
    if shape != dst._data.shape:
        _check_expand(src, dst._data.shape)
        src = expand(src, dst._data.shape)
    return copy_(dst, src)


def _check_expand(t, size):
    """expand's errors (the sizes are compared right-aligned)."""
    shape = t._data.shape
    if len(shape) > len(size):
        raise TorchRuntimeError(f"expand(torch.{t.dtype.tensor_type}{{{_sizes_str(shape)}}}, size={_sizes_str(size)}): "
                                f"the number of sizes provided ({len(size)}) must be greater or equal to the number "
                                f"of dimensions in the tensor ({len(shape)})")
    lead = len(size) - len(shape)
    for i, n in enumerate(shape):
        if n != 1 and n != size[i + lead]:
            raise TorchRuntimeError(f"The expanded size of the tensor ({size[i + lead]}) must match the existing size "
                                    f"({n}) at non-singleton dimension {i + lead}.  Target sizes: "
                                    f"{_sizes_str(size)}.  Tensor sizes: {_sizes_str(shape)}")


def _index_put(t, idx, value):

    def compute(x, v):
        seq = _begin(x, v)
        out = x._data.copy()
        src = v._data if isinstance(v, TensorBase) else v
        try:
            out[idx] = src
        except IndexError as e:
            raise TorchIndexError(str(e).replace("axis", "dimension")) from None
        except ValueError:
            raise TorchRuntimeError(f"shape mismatch: value tensor of shape [{', '.join(map(str, np.shape(src)))}] "
                                    f"cannot be broadcast to indexing result of shape "
                                    f"[{', '.join(map(str, np.shape(x._data[idx])))}]") from None
        # PyTorch saves one entry per indexed dimension: None where the whole dimension is kept
        indices = SavedList([CONFIG.tensor(np.asarray(i)) if isinstance(i, np.ndarray) else None for i in idx])
        return _record(TABLE["index_put"], seq, out, (x, v), extra={"indices": indices},
                       attrs={"accumulate": False, "_index": idx})
    if not isinstance(value, TensorBase):
        _check_operand(value, "value")
    _inplace(t, compute, value, name="index_put_", cast=True)
