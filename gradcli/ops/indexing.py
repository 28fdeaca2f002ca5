"""Indexing: `t[index]` and `t[index] = value` (basic, advanced and boolean indices), and the index ops
(gather, scatter, index_select, index_add/copy/fill, take, masked_select, nonzero)."""
from __future__ import annotations

import builtins as _b

import numpy as np

from .. import engine as E
from ..engine import CONFIG, TensorBase
from ..engine import TorchIndexError, TorchRuntimeError, TorchTypeError, TorchValueError
from ..engine import TorchNotImplementedError as TorchNotImplementedError_
from .numeric import _SCALAR_NAME, _check_operand, _sizes_str, broadcast_shapes
from .record import _begin, _check_numel, _check_reads, _numel, _record
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


W_UINT8_INDEX = ("indexing with dtype torch.uint8 is now deprecated, please use a dtype torch.bool instead. "
                 "(Triggered internally at /__w/pytorch/pytorch/aten/src/ATen/native/IndexingUtils.h:37.)")


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


def _numpy_index(i):
    """A NumPy integer is an int to PyTorch's indexing, an array a tensor."""
    if isinstance(i, np.generic):
        return i.item()
    return CONFIG.tensor(i) if isinstance(i, np.ndarray) else i


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
            if isinstance(i, (np.generic, np.ndarray)):
                return getitem(t, tuple(map(_numpy_index, index)))
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
            if m.dtype == np.uint8:
                E.STATE.warn(W_UINT8_INDEX)
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
    index = tuple(_sequence_index(i) if isinstance(i, (list, tuple)) else _numpy_index(i) for i in _index_tuple(index))
    if isinstance(value, np.integer):       # an int to PyTorch's parser
        value = int(value)
    if not isinstance(value, (TensorBase, int, float, complex)):
        kind = type(value)
        name = kind.__name__ if kind.__module__ == "builtins" else f"{kind.__module__}.{kind.__qualname__}"
        raise TorchTypeError(f"can't assign a {name} to a torch.{t.dtype.tensor_type}")
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
    for real_dim, i in enumerate(index):
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
            result = _apply_select(result, dim, i, real_dim)
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
            if arr.dtype == np.uint8:           # a byte tensor is a mask, as a bool one
                E.STATE.warn(W_UINT8_INDEX)
                arr = arr.astype(np.bool_)
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


# ----------------------------------------------------------------------------- gather, scatter and index_* ops
# (PyTorch's TensorAdvancedIndexing.cpp and ScatterGatherChecks.h: the checks in PyTorch's order)


def _nonempty(shape):
    """PyTorch's ensure_nonempty_*: a 0-d tensor counts as one dimension of size 1."""
    return tuple(shape) or (1,)


def _check_index_dtype(index, message, error=TorchRuntimeError, kinds=(np.int32, np.int64)):
    if index._data.dtype not in kinds:
        raise error(message)


def _out_of_bounds(values, size, dim, error=TorchRuntimeError, prefix=""):
    """The first index (in order) outside [0, size): PyTorch's bounds check."""
    bad = (values < 0) | (values >= size)
    if bad.any():
        raise error(f"{prefix}index {int(values.reshape(-1)[np.argmax(bad.reshape(-1))])} is out of bounds for "
                    f"dimension {dim} with size {size}")


def _gather_checks(name, t, d, index, src=None):
    """gather_shape_check / scatter_shape_check (an empty index is not checked): as many dims as
    self, and index no larger than self (apart from dim) and than src."""
    if not index._data.size:
        return
    nd = len(_nonempty(t._data.shape))
    if len(_nonempty(index._data.shape)) != nd:
        raise TorchRuntimeError("Index tensor must have the same number of dimensions as "
                                f"{'input' if name == 'gather' else 'self'} tensor")
    idx, own = _nonempty(index._data.shape), _nonempty(t._data.shape)
    if name == "gather":
        for k in range(nd):
            if k != d and idx[k] > own[k]:
                raise TorchRuntimeError(f"Size does not match at dimension {k} expected index {list(index._data.shape)} "
                                        f"to be no larger than self {list(t._data.shape)} apart from dimension {d}")
        return
    wrong = any(k != d and idx[k] > own[k] for k in range(nd))
    if not wrong and src is not None:
        for k in range(nd):          # src.size(k) for every dim of self, as PyTorch reads it
            n = src._data.shape[E._wrap_dim(k, src._data.ndim)] if src._data.ndim else 1
            if idx[k] > n:
                wrong = True
                break
    if src is not None and len(_nonempty(src._data.shape)) != nd:
        raise TorchRuntimeError("Index tensor must have the same number of dimensions as src tensor")
    if wrong:
        text = f"Expected index {list(index._data.shape)} to be no larger than self {list(t._data.shape)} " \
               f"apart from dimension {d}"
        if src is not None:
            text += f" and to be no larger size than src {list(src._data.shape)}"
        raise TorchRuntimeError(text)


def _positions(index, d):
    """The positions a gather reads (a scatter writes): the index's own coordinates, with the
    index's values along `d`."""
    pos = list(np.indices(index.shape, sparse=True))
    pos[d] = index.astype(np.int64, copy=False)
    return tuple(pos)


def _leading(a, shape):
    """a's first `shape` elements in every dimension (the part an index reads or writes)."""
    return a[tuple(slice(0, n) for n in shape)]


def _gather_np(a, d, index):
    a1, i1 = a.reshape(_nonempty(a.shape)), index.reshape(_nonempty(index.shape))
    return np.array(a1[_positions(i1, d)].reshape(index.shape), order="C")


def _scatter_np(a, d, index, src, ufunc=None):
    """a copy of `a` with src (an array of index's shape or more, or a 0-d array) written at
    index along d, in order (the last write stays), or combined there by `ufunc` (np.add, ...)."""
    out = a.copy()
    o1, i1 = out.reshape(_nonempty(out.shape)), index.reshape(_nonempty(index.shape))
    if src.ndim:
        src = _leading(src.reshape(_nonempty(src.shape)), i1.shape)
    if ufunc is None:
        o1[_positions(i1, d)] = src
    elif i1.size:
        ufunc.at(o1, _positions(i1, d), src)
    return out


def gather(t, dim, index, sparse_grad=False):
    d = E._wrap_dim(dim, t._data.ndim)
    if index._data.size:
        _check_index_dtype(index, "gather(): Expected dtype int32/int64 for index")
    _gather_checks("gather", t, d, index)
    if index._data.size:
        _out_of_bounds(index._data, _nonempty(t._data.shape)[d], d)
    _check_numel(index._data.size, t._data.itemsize)
    seq = _begin(t)
    if sparse_grad and seq is not None:      # PyTorch's gradient would be a sparse COO tensor
        raise TorchNotImplementedError_("gradcli does not implement sparse gradients (gather's sparse_grad=True) "
                                        "(yet)")
    return _record(TABLE["gather"], seq, _gather_np(t._data, d, index._data), (t,), extra={"index": index},
                   attrs={"dim": dim, "sparse_grad": bool(sparse_grad)})


def _scatter_common(name, t, dim, index, src):
    d = E._wrap_dim(dim, t._data.ndim)
    if index._data.size:
        _check_index_dtype(index, f"{name}(): Expected dtype int32/int64 for index")
    if isinstance(src, TensorBase) and src._data.dtype != t._data.dtype:
        raise TorchRuntimeError("scatter(): Expected self.dtype to be equal to src.dtype")
    _gather_checks(name, t, d, index, src if isinstance(src, TensorBase) else None)
    if index._data.size:
        _out_of_bounds(index._data, _nonempty(t._data.shape)[d], d)
    return d


def scatter(t, dim, index, src=None, value=None, reduce=None, _op="aten::scatter"):
    """scatter(dim, index, src) (ScatterBackward0) or scatter(dim, index, value) (ScatterBackward1)."""
    if src is None:
        src = value
    d = _scatter_common("scatter", t, dim, index, src)
    if reduce is not None:
        return _scatter_reduce(t, d, index, src, reduce, _op)
    if isinstance(src, TensorBase):
        seq = _begin(t, src)
        out = _scatter_np(t._data, d, index._data, src._data)
        return _record(TABLE["scatter"], seq, out, (t, src), extra={"index": index},
                       attrs={"dim": dim, "_src_sizes": src._data.shape})
    _check_operand(src, "value")
    seq = _begin(t)
    out = _scatter_np(t._data, d, index._data, np.asarray(src).astype(t._data.dtype))
    return _record(TABLE["scatter_value"], seq, out, (t,), extra={"index": index}, attrs={"dim": dim})


W_SCATTER_REDUCE = ("The reduce argument of torch.scatter with Tensor src is deprecated and will be removed in a future "
                    "PyTorch release. Use torch.scatter_reduce instead for more reduction options. (Triggered "
                    "internally at /__w/pytorch/pytorch/aten/src/ATen/native/TensorAdvancedIndexing.cpp:225.)")


def scatter_inplace(t, dim, index, src=None, value=None, reduce=None):
    """x.scatter_(...): scatter run in place (its reduce= form's node names aten::scatter_)."""
    return scatter(t, dim, index, src, value, reduce, _op="aten::scatter_")


def _scatter_reduce(t, d, index, src, reduce, name):
    """scatter(..., reduce='add'|'multiply'): src (or the value) added or multiplied in at the
    index. PyTorch has no derivative for it: its node is NotImplemented, on the operands that
    require grad, whose backward raises."""
    if reduce not in ("add", "multiply"):
        raise TorchRuntimeError("reduce argument must be either add or multiply.")
    if isinstance(src, TensorBase):
        E.warn_once(W_SCATTER_REDUCE)
        values = src._data
    else:
        _check_operand(src, "value")
        values = np.asarray(src).astype(t._data.dtype)
    out = _scatter_np(t._data, d, index._data, values, np.add if reduce == "add" else np.multiply)
    seq = _begin(t, src)
    operands = tuple(x for x in (t, src) if isinstance(x, TensorBase) and x._rg) or (t,)
    row = TABLE["scatter_reduce_src" if len(operands) == 2 else "scatter_reduce_value"]
    return _record(row, seq, out, operands, attrs={"_op": name})


def scatter_add(t, dim, index, src):
    d = _scatter_common("scatter_add", t, dim, index, src)
    seq = _begin(t, src)
    out = _scatter_np(t._data, d, index._data, src._data, np.add)
    return _record(TABLE["scatter_add"], seq, out, (t, src), extra={"index": index},
                   attrs={"dim": dim, "_src_sizes": src._data.shape})


def index_select(t, dim, index):
    d = E._wrap_dim(dim, t._data.ndim)
    if index._data.ndim > 1:
        raise TorchIndexError("index_select(): Index is supposed to be a vector")
    _check_index_dtype(index, "index_select(): Expected dtype int32 or int64 for index")
    i = index._data.reshape(-1).astype(np.int64)
    if t._data.ndim == 0 and i.size != 1:
        raise TorchRuntimeError(f"index_select(): Index to scalar can have only 1 value, got {i.size} value(s)")
    size = _nonempty(t._data.shape)[d]
    if ((i < 0) | (i >= size)).any():
        raise TorchIndexError("index out of range in self")
    if t._data.ndim == 0:
        out = t._data.copy()
    else:
        out = np.ascontiguousarray(np.take(t._data, i, axis=d))
    seq = _begin(t)
    return _record(TABLE["index_select"], seq, out, (t,), extra={"index": index},
                   attrs={"dim": dim, "self_sym_sizes": tuple(t._data.shape)})


def take(t, index):
    if index._data.dtype != np.int64:
        raise TorchRuntimeError(f"take(): Expected a long tensor for index, but got {_scalar_name(index)}")
    n = t._data.size
    i = index._data
    bad = (i < -n) | (i >= n)
    if bad.any():
        raise TorchIndexError(f"out of range: tried to access index {int(i.reshape(-1)[np.argmax(bad.reshape(-1))])} "
                              f"on a tensor of {n} elements.")
    seq = _begin(t)
    out = np.array(t._data.reshape(-1)[i], order="C") if n else np.zeros(i.shape, t._data.dtype)
    return _record(TABLE["take"], seq, out, (t,), extra={"index": index})


def take_along_dim(t, indices, dim=None):
    if dim is None:
        return gather(view(t, -1), 0, view(indices, -1))
    if indices._data.dtype != np.int64:
        raise TorchRuntimeError(f"torch.take_along_dim(): dtype of indices should be Long but got "
                                f"{_scalar_name(indices)}")
    if t._data.ndim != indices._data.ndim:
        raise TorchRuntimeError(f"torch.take_along_dim(): input and indices should have the same number of "
                                f"dimensions, but got {t._data.ndim} dimensions for input, and "
                                f"{indices._data.ndim} dimensions for indices")
    d = E._wrap_dim(dim, t._data.ndim)
    sizes = list(t._data.shape)
    if sizes:
        sizes[d] = indices._data.shape[d]
    shape = broadcast_shapes(tuple(sizes), indices._data.shape)
    indices = expand(indices, shape)
    sizes = list(indices._data.shape)
    if sizes:
        sizes[d] = t._data.shape[d]
    return gather(expand(t, broadcast_shapes(tuple(sizes), t._data.shape)), d, indices)


def masked_select(t, mask):
    if mask._data.dtype != np.bool_:
        raise TorchRuntimeError("masked_select: expected BoolTensor for mask")
    shape = broadcast_shapes(mask._data.shape, t._data.shape)
    out = np.broadcast_to(t._data, shape)[np.broadcast_to(mask._data, shape)]
    seq = _begin(t)
    return _record(TABLE["masked_select"], seq, np.ascontiguousarray(out), (t,), extra={"mask": mask})


def _index_vector(name, t, d, index, error=TorchIndexError):
    """index_add/index_copy/index_fill's index: a vector (or 0-d) of int32/int64 within the dim."""
    size = _nonempty(t._data.shape)[d]
    i = index._data.reshape(-1).astype(np.int64)
    _out_of_bounds(i, size, d, error, prefix=name)
    return i


def _source_checks(name, t, d, index, source):
    """index_add_'s and index_copy_'s checks on the source."""
    n = index._data.size
    if name == "index_copy_":
        if index._data.ndim > 1:
            raise TorchIndexError(f"index_copy_(): Index should have dimension 1 or 0 (got {index._data.ndim})")
        if source._data.ndim == 0 and n != 1:
            raise TorchIndexError(f"index_copy_(): When source is scalar, index should have one element (got {n})")
        if source._data.ndim not in (0, t._data.ndim) and t._data.ndim:
            raise TorchIndexError(f"index_copy_(): When source and destination are not scalars, their dimensionality "
                                  f"must match. Source dimensionality ({source._data.ndim}), destination "
                                  f"dimensionality ({t._data.ndim})")
        _check_index_dtype(index, "index_copy_(): Expected a long tensor for index, but got "
                           + _scalar_name(index), kinds=(np.int64,))
        if source._data.dtype != t._data.dtype:
            raise TorchRuntimeError(f"index_copy_(): self and source expected to have the same dtype, but got (self) "
                                    f"{_scalar_name(t)} and (source) {_scalar_name(source)}")
        count = source._data.shape[d] if source._data.ndim else 1
        if n != count:
            raise TorchIndexError(f"index_copy_(): Number of indices ({n}) should be equal to source.size(dim) "
                                  f"({count})")
        own = [s for k, s in enumerate(t._data.shape) if k != d]
        src = [s for k, s in enumerate(source._data.shape) if k != d]
        if own != src:          # (PyTorch prints the sizes space-separated, the source's "at dimension 0")
            raise TorchRuntimeError(f"index_copy_(): Source/destination tensor must have same slice shapes. "
                                    f"Destination slice shape: {' '.join(map(str, own))} at dimension {d} and source "
                                    f"slice shape: {' '.join(map(str, src))} at dimension 0.")
        _index_vector("index_copy_(): ", t, d, index)
        return
    if index._data.ndim > 1:
        raise TorchIndexError(f"index_add_(): Index is supposed to be a vector, but got dim: {index._data.ndim} with "
                              f"type: {_scalar_name(index)} and size: {list(index._data.shape)}")
    _check_index_dtype(index, f"index_add_(): Expected dtype int32/int64 for index but got: {_scalar_name(index)}")
    if source._data.dtype != t._data.dtype:
        raise TorchRuntimeError(f"index_add_(): self ({_scalar_name(t)}) and source ({_scalar_name(source)}) must "
                                f"have the same scalar type")
    if source._data.ndim == 0 and t._data.ndim:
        raise TorchIndexError(f"Dimension specified as {d} but tensor has no dimensions")
    count = _nonempty(source._data.shape)[d] if source._data.ndim else 1
    if n != count:
        raise TorchRuntimeError(f"index_add_(): Number of indices ({n}) should be equal to source.size(dim): "
                                f"({count}), for dim: {d}")
    own = [s for k, s in enumerate(t._data.shape) if k != d]
    src = [s for k, s in enumerate(source._data.shape) if k != d]
    if source._data.ndim and own != src:
        raise TorchRuntimeError(f"source tensor shape must match self tensor shape, excluding the specified "
                                f"dimension. Got self.shape = {list(t._data.shape)} source.shape = "
                                f"{list(source._data.shape)}")
    _index_vector("", t, d, index, TorchRuntimeError)


def _along(d, i, ndim):
    return (slice(None),) * d + (i,) if ndim else ()


def index_add(t, dim, index, source, alpha=1):
    d = E._wrap_dim(dim, t._data.ndim)
    _source_checks("index_add_", t, d, index, source)
    i = index._data.reshape(-1).astype(np.int64)
    out = t._data.copy()
    src = source._data if alpha == 1 else source._data * np.asarray(alpha, source._data.dtype)
    if t._data.ndim == 0:
        out += src.reshape(()) if src.size else 0
    else:
        np.add.at(out, _along(d, i, 1), src.reshape(np.take(out, i, axis=d).shape))
    seq = _begin(t, source)
    return _record(TABLE["index_add"], seq, out, (t, source), extra={"index": index, "source": source},
                   attrs={"alpha": alpha, "dim": dim, "source_dim": source._data.ndim})


def index_copy(t, dim, index, source):
    d = E._wrap_dim(dim, t._data.ndim)
    _source_checks("index_copy_", t, d, index, source)
    i = index._data.reshape(-1).astype(np.int64)
    out = t._data.copy()
    if t._data.ndim == 0:
        out[()] = source._data.reshape(())
    else:
        out[_along(d, i, 1)] = source._data.reshape(np.take(out, i, axis=d).shape)
    seq = _begin(t, source)
    return _record(TABLE["index_copy"], seq, out, (t, source), extra={"index": index, "source": source},
                   attrs={"dim": dim, "source_dim": source._data.ndim})


def index_fill(t, dim, index, value):
    d = E._wrap_dim(dim, t._data.ndim)
    if index._data.dtype != np.int64:
        raise TorchIndexError("index_fill_(): Expected dtype int64 for index.")
    if isinstance(value, TensorBase) and value._data.ndim:
        raise TorchRuntimeError(f"index_fill_ only supports a 0-dimensional value tensor, but got tensor with "
                                f"{value._data.ndim} dimension(s).")
    if index._data.ndim > 1:
        raise TorchRuntimeError("Index has to be a vector/scalar")
    size = _nonempty(t._data.shape)[d]
    i = index._data.reshape(-1)
    if size == 0 and i.size:
        _restride_error(t, d, i.size)
    bad = (i < -size) | (i >= size)
    if bad.any():
        raise TorchIndexError(f"index {int(i[np.argmax(bad)])} is out of bounds for dimension {d} with size {size}")
    out = t._data.copy()
    fill = value._data if isinstance(value, TensorBase) else value
    if not isinstance(value, TensorBase):
        _check_operand(value, "value")
    out[_along(d, i % size if size else i, t._data.ndim)] = np.asarray(fill).astype(out.dtype)
    if isinstance(value, TensorBase):
        seq = _begin(t, value)
        return _record(TABLE["index_fill_tensor"], seq, out, (t, value), extra={"index": index}, attrs={"dim": dim})
    seq = _begin(t)
    return _record(TABLE["index_fill"], seq, out, (t,), extra={"index": index}, attrs={"dim": dim})


def _restride_error(t, d, n):
    """index_fill_ on an empty dimension: PyTorch views self with that dimension's stride 0 and
    size n, a view its empty storage cannot hold."""
    shape = list(t._data.shape)
    strides = [int(np.prod([_b.max(x, 1) for x in shape[k + 1:]])) for k in range(len(shape))]
    shape[d], strides[d] = n, 0
    if 0 in shape:
        return
    need = t._data.itemsize * (1 + _b.sum((x - 1) * st for x, st in zip(shape, strides)))
    raise TorchRuntimeError(f"setStorage: sizes {shape}, strides {strides}, storage offset 0, and itemsize "
                            f"{t._data.itemsize} requiring a storage size of {need} are out of bounds for storage "
                            f"of size 0")


def nonzero(t, as_tuple=False):
    _check_reads(t)
    data = t._data
    if as_tuple:
        return tuple(CONFIG.tensor(np.ascontiguousarray(a, np.int64)) for a in np.nonzero(data.reshape(_nonempty(data.shape))))
    return CONFIG.tensor(np.array(np.argwhere(data), np.int64, order="C"))


def argwhere(t):
    return nonzero(t)


def _scalar_name(t):
    return _SCALAR_NAME[t._data.dtype.name]


# ----------------------------------------------------------------------------- their backward formulas' helpers
# (installed into the maths namespaces, ops/maths.py: arrays normally, recorded tensor ops under create_graph)


def _zeros_np(shape, dtype):
    return np.zeros(tuple(shape), dtype)


def _np_index_select_backward(g, sizes, dim, index):
    z = _zeros_np(sizes, g.dtype)
    if not z.ndim:
        return E.written(np.array(g.reshape(())), 1)
    np.add.at(z, _along(dim % z.ndim, index.reshape(-1).astype(np.int64), 1), g)
    return E.written(z, 1)


def _np_index_source_backward(g, dim, index, source, alpha):
    """index_add's (alpha) and index_copy's (1) source gradient: grad.index_select(dim, index)
    expanded to the source's shape."""
    i = index.reshape(-1).astype(np.int64)
    r = g.copy() if not g.ndim else np.take(g, i, axis=dim % g.ndim)
    if source.ndim:
        r = np.broadcast_to(r, source.shape)
    else:
        r = r.reshape(())
    return r if alpha == 1 else r * np.asarray(alpha, r.dtype)


def _np_index_fill_zero(g, dim, index):
    out = g.copy()
    size = _nonempty(g.shape)[dim % _b.max(g.ndim, 1)]
    i = index.reshape(-1)
    out[_along(dim % _b.max(g.ndim, 1), i % size if size else i, g.ndim)] = 0
    return out


def _np_index_fill_value_backward(g, dim, index):
    size = _nonempty(g.shape)[dim % _b.max(g.ndim, 1)]
    i = np.unique(index.reshape(-1) % size if size else index.reshape(-1))
    picked = g if not g.ndim else np.take(g, i, axis=dim % g.ndim)
    return np.asarray(picked.sum(), g.dtype)


def _np_take_backward(g, self, index):
    z = np.zeros(self.size, g.dtype)
    if z.size:
        np.add.at(z, index.reshape(-1) % self.size, g.reshape(-1))
    return E.written(z.reshape(self.shape), 1)


def _np_masked_select_backward(g, self, mask):
    shape = broadcast_shapes(mask.shape, self.shape)
    z = np.zeros(shape, g.dtype)
    z[np.broadcast_to(mask, shape)] = g
    lead = len(shape) - self.ndim
    z = z.sum(axis=tuple(range(lead)) + tuple(k + lead for k, n in enumerate(self.shape) if n == 1 and shape[k + lead] != 1),
              keepdims=False, dtype=g.dtype) if z.shape != self.shape else E.written(z, 1)
    return z.reshape(self.shape)


def _np_masked_scatter_backward(g, mask, sizes):
    """masked_scatter's source gradient: the gradient where the mask is set, zeros after, in
    the source's shape."""
    picked = g[np.broadcast_to(mask, g.shape)]
    n = int(np.prod(sizes))
    if n > picked.size:
        picked = np.concatenate([picked, np.zeros(n - picked.size, g.dtype)])
    return picked.reshape(tuple(sizes))


def _np_put_zero(g, index):
    out = g.copy()
    out.reshape(-1)[index.reshape(-1) % g.size] = 0
    return out


def _check_src_grad(name, index, src_sizes):
    """The engine's check of a node's result: the gathered gradient has the index's shape,
    which src's shape must broadcast to (PyTorch's validate_outputs)."""
    shape = tuple(index.shape)
    try:
        ok = np.broadcast_shapes(tuple(src_sizes), shape) == shape
    except ValueError:
        ok = False
    if not ok:
        raise TorchRuntimeError(f"Function {name} returned an invalid gradient at index 1 - got {list(shape)} but "
                                f"expected shape compatible with {list(src_sizes)}")


NUMPY_HELPERS = {
    "gather_backward": lambda g, self, dim, index: E.written(_scatter_np(
        _zeros_np(self.shape, g.dtype), dim % _b.max(self.ndim, 1), index, g, np.add), 1),
    "scatter_zero": lambda g, dim, index: _scatter_np(g, dim % _b.max(g.ndim, 1), index, np.zeros((), g.dtype)),
    "gather": lambda g, dim, index: _gather_np(g, dim % _b.max(g.ndim, 1), index),
    "scatter_src_backward": lambda g, dim, index, src_sizes, name: (
        _check_src_grad(name, index, src_sizes), _gather_np(g, dim % _b.max(g.ndim, 1), index))[1],
    "index_select_backward": _np_index_select_backward,
    "index_source_backward": _np_index_source_backward,
    "index_fill_zero": _np_index_fill_zero,
    "index_fill_value_backward": _np_index_fill_value_backward,
    "take_backward": _np_take_backward,
    "masked_select_backward": _np_masked_select_backward,
    "put_zero": lambda g, index, source: _np_put_zero(g, index),
    "take_reshaped": lambda g, index, source: g.reshape(-1)[index.reshape(-1) % g.size].reshape(source.shape),
    "masked_scatter_backward": _np_masked_scatter_backward,
}



def _zeros_of(shape, like):
    return CONFIG.tensor(np.zeros(tuple(shape), like._data.dtype))


def _tensor_index_source_backward(g, dim, index, source, alpha):
    from .pointwise import mul_scalar
    if source._data.ndim:
        r = expand(index_select(g, dim, index), source._data.shape)
    else:
        r = index_select(g, dim, CONFIG.tensor(index._data.reshape(())))
    return r if alpha == 1 else mul_scalar(r, alpha)


def _tensor_index_fill_value_backward(g, dim, index):
    from .reduction import sum
    size = _nonempty(g._data.shape)[dim % _b.max(g._data.ndim, 1)]
    i = index._data.reshape(-1)
    return sum(index_select(g, dim, CONFIG.tensor(np.unique(i % size if size else i))))


def _tensor_take_backward(g, self, index):
    """zeros_like(self).put_(index, grad, accumulate=True): a PutBackward0 node."""
    base = _zeros_of(self._data.shape, g)
    out = base._data.copy()
    if out.size:
        np.add.at(out.reshape(-1), index._data.reshape(-1) % out.size, g._data.reshape(-1))
    return _record(TABLE["put"], _begin(base, g), out, (base, g), extra={"index": index, "source": g},
                   attrs={"accumulate": True})


def _tensor_masked_select_backward(g, self, mask):
    """zeros of the broadcast shape masked_scatter_(mask, grad) (MaskedScatterBackward0), summed
    to the input's shape as the engine does."""
    from .shape import _sum_to
    shape = broadcast_shapes(mask._data.shape, self._data.shape)
    base = _zeros_of(shape, g)
    out = base._data.copy()
    out[np.broadcast_to(mask._data, shape)] = g._data
    r = _record(TABLE["masked_scatter"], _begin(base, g), out, (base, g), extra={"mask": mask},
                attrs={"source_sym_sizes": tuple(g._data.shape)})
    return _sum_to(r, self._data.shape) if shape != self._data.shape else r


TENSOR_HELPERS = {
    "take_backward": _tensor_take_backward,
    "masked_select_backward": _tensor_masked_select_backward,
    "gather_backward": lambda g, self, dim, index: scatter_add(_zeros_of(self._data.shape, g), dim, index, g),
    "scatter_zero": lambda g, dim, index: scatter(g, dim, index, value=0),
    "gather": lambda g, dim, index: gather(g, dim, index),
    "scatter_src_backward": lambda g, dim, index, src_sizes, name: (
        _check_src_grad(name, index._data, src_sizes), gather(g, dim, index))[1],
    "index_select_backward": lambda g, sizes, dim, index: index_add(_zeros_of(sizes, g), dim, index, g),
    "index_source_backward": _tensor_index_source_backward,
    "index_fill_zero": lambda g, dim, index: index_fill(g, dim, index, 0),
    "index_fill_value_backward": _tensor_index_fill_value_backward,
}
