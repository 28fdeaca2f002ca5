"""Shape ops and views: view, reshape, expand, transpose, permute, squeeze, select, flip."""
from __future__ import annotations

import operator as _operator

import numpy as np

from .. import engine as E
from ..engine import TensorBase
from ..engine import TorchIndexError, TorchRuntimeError, TorchTypeError, TorchValueError
from .numeric import _INT64_MAX, _dims, _norm_dim, _type_str
from .record import _begin, _record
from .table import TABLE
from .views import _view
from .pointwise import clone
from .reduction import sum


def unsqueeze(t, dim):
    d = _norm_dim(dim, t._data.ndim + 1)
    seq = _begin(t)
    return _view(TABLE["unsqueeze"], seq, np.expand_dims(t._data, d), t, {"dim": dim})


def _squeeze0_(t):
    """In-place squeeze_(0) on a fresh result: PyTorch records SqueezeBackward4."""
    seq = _begin(t)
    return _view(TABLE["squeeze_dim_"], seq, t._data.reshape(t._data.shape[1:]), t,
                 {"dim": 0, "self_sym_sizes": tuple(t._data.shape)})


def _type_name(v):
    return "torch.dtype" if isinstance(v, E.DType) else type(v).__name__


def _infer_shape(shape, numel, op="reshape"):
    # a one-element integer tensor is an int to PyTorch's parser
    shape = [s.item() if isinstance(s, TensorBase) and s._data.ndim == 0 and s._data.dtype.kind in "iu" else s
             for s in shape]
    for i, s in enumerate(shape):
        if isinstance(s, int) and s < -1:
            raise TorchRuntimeError(f"invalid shape dimension {s} at index {i} of shape [{', '.join(map(str, shape))}]")
        if not isinstance(s, int):
            if len(shape) == 1:
                raise TorchTypeError(f"{op}(): argument 'shape' (position 1) must be tuple of ints, not {_type_name(s)}")
            raise TorchTypeError(f"{op}(): argument 'shape' failed to unpack the object at pos {i + 1} with error "
                                 f"\"type must be tuple of ints,but got {_type_name(s)}\"")
    shape = [int(s) for s in shape]
    if shape.count(-1) > 1:
        raise TorchRuntimeError("only one dimension can be inferred")
    known = 1
    for s in shape:
        if s != -1:
            known *= s
    if -1 in shape:
        if known == 0 or numel % known:
            raise TorchRuntimeError(f"shape '[{', '.join(map(str, shape))}]' is invalid for input of size {numel}")
        shape[shape.index(-1)] = numel // known
    elif known != numel:
        raise TorchRuntimeError(f"shape '[{', '.join(map(str, shape))}]' is invalid for input of size {numel}")
    return tuple(shape)


def _sum_to(t, shape):
    """PyTorch's at::sum_to, node for node: sum() to a 0-d shape, else sum(keepdim) then view."""
    if len(shape) == 0:
        return sum(t)
    lead = t._data.ndim - len(shape)
    dims = tuple(range(lead)) + tuple(i + lead for i, n in enumerate(shape) if n == 1 and t._data.shape[i + lead] != 1)
    if dims:
        t = sum(t, dims, keepdim=True)
    if lead:
        t = view(t, tuple(shape))
    return t


def _expand_shape(have, sizes, type_str):
    """PyTorch's inferExpandGeometry: the shape `have` expands to for `sizes` (-1 keeps a size),
    with its errors, checked from the last dimension."""
    sizes = tuple(sizes)
    nd, td = len(sizes), len(have)
    if td == 0:
        return sizes
    if nd < td:
        raise TorchRuntimeError(f"expand({type_str}{{{E._sizes(have)}}}, size={E._sizes(sizes)}): the number of "
                                f"sizes provided ({nd}) must be greater or equal to the number of dimensions in "
                                f"the tensor ({td})")
    out = list(sizes)
    for i in range(nd - 1, -1, -1):
        dim = td - nd + i
        size = have[dim] if dim >= 0 else 1
        if sizes[i] == -1:
            if dim < 0:
                raise TorchRuntimeError(f"The expanded size of the tensor (-1) isn't allowed in a leading, "
                                        f"non-existing dimension {i}")
            out[i] = size
        elif size != sizes[i] and size != 1:
            raise TorchRuntimeError(f"The expanded size of the tensor ({sizes[i]}) must match the existing size "
                                    f"({size}) at non-singleton dimension {i}.  Target sizes: {E._sizes(sizes)}.  "
                                    f"Tensor sizes: {E._sizes(have)}")
    return tuple(out)


def expand(t, *shape):
    if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
        shape = tuple(shape[0])
    shape = _expand_shape(t._data.shape, shape, _type_str(t))
    seq = _begin(t)
    return _view(TABLE["expand"], seq, _broadcast_view(t._data, shape), t, {"self_sym_sizes": tuple(t._data.shape)})


def _broadcast_view(a, shape):
    """np.broadcast_to, but writable like PyTorch's expand: only the elements that are not
    repeated may be written (in-place ops on the repeated ones raise _OVERLAP)."""
    b = np.broadcast_to(a, shape)
    return np.lib.stride_tricks.as_strided(a, shape=b.shape, strides=b.strides, writeable=a.flags.writeable)

# ----------------------------------------------------------------------------- shape ops


def _view_result(row, t, out, attrs):
    return _view(row, _begin(t), out, t, attrs)


def view(t, *shape):
    if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
        shape = tuple(shape[0])
    shape = _infer_shape(shape, t._data.size, "view")
    out = t._data.view()
    try:
        out.shape = shape
    except AttributeError:
        raise TorchRuntimeError("view size is not compatible with input tensor's size and stride (at least one "
                                "dimension spans across two contiguous subspaces). Use .reshape(...) instead.")
    return _view_result(TABLE["view"], t, out, {"self_sym_sizes": tuple(t._data.shape)})


def reshape(t, *shape):
    if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
        shape = tuple(shape[0])
    shape = _infer_shape(shape, t._data.size)
    out = t._data.view()
    try:
        out.shape = shape
    except AttributeError:          # not viewable: PyTorch clones, then reshapes the copy
        return _unsafe_view(clone(t), shape)
    # viewable: a view of a contiguous tensor, else PyTorch's _reshape_alias
    row = TABLE["view"] if t._data.flags.c_contiguous else TABLE["reshape_alias"]
    return _view_result(row, t, out, {"self_sym_sizes": tuple(t._data.shape)})


def _unsafe_view(t, shape):
    seq = _begin(t)
    return _record(TABLE["unsafe_view"], seq, t._data.reshape(shape), (t,), attrs={"self_sym_sizes": tuple(t._data.shape)})


def flatten(t, start_dim=0, end_dim=-1):
    nd = t._data.ndim
    s, e = _norm_dim(start_dim, nd), _norm_dim(end_dim, nd)
    if nd == 0:
        return reshape(t, 1)
    if s > e:
        raise TorchRuntimeError("flatten() has invalid args: start_dim cannot come after end_dim")
    if s == e:
        return t
    shape = t._data.shape[:s] + (-1,) + t._data.shape[e + 1:]
    return reshape(t, shape)


def transpose(t, dim0, dim1):
    nd = t._data.ndim
    a, b = _norm_dim(dim0, nd), _norm_dim(dim1, nd)
    out = np.swapaxes(t._data, a, b) if nd else t._data.view()      # a 0-d tensor: a view of itself
    return _view_result(TABLE["transpose"], t, out, {"dim0": dim0, "dim1": dim1})


def t_(t):
    if t._data.ndim > 2:
        raise TorchRuntimeError(f"t() expects a tensor with <= 2 dimensions, but self is {t._data.ndim}D")
    return _view_result(TABLE["t"], t, t._data.T, {})


def permute(t, *dims):
    if not dims:
        raise TorchTypeError('permute() missing 1 required positional arguments: "dims"')
    if len(dims) == 1 and isinstance(dims[0], (tuple, list)):
        dims = tuple(dims[0])
    dims = tuple(int(d) if isinstance(d, bool) else d for d in dims)      # a bool in a list of ints is 0 or 1
    nd = t._data.ndim
    if len(dims) != nd:
        raise TorchRuntimeError(f"permute(sparse_coo): number of dimensions in the tensor input does not match the "
                                f"length of the desired ordering of dimensions i.e. input.dim() = {nd} is not equal "
                                f"to len(dims) = {len(dims)}")
    norm = tuple(_norm_dim(d, nd) for d in dims)
    if len(set(norm)) != nd:
        raise TorchRuntimeError("permute(): duplicate dims are not allowed.")
    return _view_result(TABLE["permute"], t, np.transpose(t._data, norm), {"dims": tuple(dims)})


W_T = ("The use of `x.T` on tensors of dimension other than 2 to reverse their shape is deprecated and it will "
       "throw an error in a future release. Consider `x.mT` to transpose batches of matrices or "
       "`x.permute(*torch.arange(x.ndim - 1, -1, -1))` to reverse the dimensions of a tensor. (Triggered "
       "internally at /__w/pytorch/pytorch/aten/src/ATen/native/TensorShape.cpp:4314.)")


def T_property(t):
    if t._data.ndim != 2:
        E.warn_once(W_T)
    return permute(t, tuple(range(t._data.ndim - 1, -1, -1)))


def mT_property(t):
    if t._data.ndim < 2:
        raise TorchRuntimeError("tensor.mT is only supported on matrices or batches of matrices. Got 1-D tensor."
                                if t._data.ndim == 1 else
                                "tensor.mT is only supported on matrices or batches of matrices. Got 0-D tensor.")
    return transpose(t, -2, -1)


def _squeezed_dims(t, dims):
    """The axes a tuple of dims removes (those of size 1), after PyTorch's checks of the dims."""
    nd = t._data.ndim
    wrapped = _dims(tuple(int(d) if isinstance(d, bool) else d for d in dims), nd) or ()
    return tuple(d for d in wrapped if nd and t._data.shape[d] == 1)


def squeeze(t, dim=None):
    if isinstance(dim, (tuple, list)):
        axes = _squeezed_dims(t, dim)
        out = np.squeeze(t._data, axes) if axes else t._data.view()
        return _view_result(TABLE["squeeze_dims"], t, out, {"dim": tuple(dim), "self_sym_sizes": tuple(t._data.shape)})
    if dim is None:
        return _view_result(TABLE["squeeze"], t, np.squeeze(t._data) if t._data.ndim else t._data.view(),
                            {"self_sym_sizes": tuple(t._data.shape)})
    nd = t._data.ndim
    d = _norm_dim(dim, nd)
    out = np.squeeze(t._data, d) if nd and t._data.shape[d] == 1 else t._data.view()
    return _view_result(TABLE["squeeze_dim"], t, out, {"dim": dim, "self_sym_sizes": tuple(t._data.shape)})


def select(t, dim, index):
    nd = t._data.ndim
    if nd == 0:
        raise TorchIndexError("select() cannot be applied to a 0-dim tensor.")
    d = _norm_dim(dim, nd)
    n = t._data.shape[d]
    if not -n <= index < n:
        raise TorchIndexError(f"select(): index {index} out of range for tensor of size {E._sizes(t._data.shape)} "
                              f"at dimension {d}")
    out = t._data[(slice(None),) * d + (index, Ellipsis)]      # Ellipsis: a 0-d view, not a copy
    return _view_result(TABLE["select"], t, out,          # the dim as given: PyTorch saves it unwrapped
                        {"dim": dim, "index": index, "self_sym_sizes": tuple(t._data.shape)})


def _slice(t, dim, sl, optimize=False):
    """PyTorch's applySlice. With `optimize` (any slice in a tuple index), a slice that keeps the
    whole dimension records nothing."""
    try:
        sl = slice(*(None if v is None else _operator.index(v) for v in (sl.start, sl.stop, sl.step)))
    except TypeError:
        raise TorchTypeError("slice indices must be integers or None or have an __index__ method") from None
    if sl.step == 0:
        raise TorchValueError("slice step cannot be zero")
    start = 0 if sl.start is None else sl.start
    end = _INT64_MAX if sl.stop is None else sl.stop
    step = 1 if sl.step is None else sl.step
    if step <= 0:
        raise TorchValueError("step must be greater than zero")
    if optimize and t._data.ndim and start == 0 and step == 1 and (
            end == _INT64_MAX or dim < t._data.ndim and end >= t._data.shape[dim]):
        return t
    _norm_dim(dim, t._data.ndim)
    out = t._data[(slice(None),) * dim + (slice(sl.start, sl.stop, step),)]
    return _view_result(TABLE["slice"], t, out, {"dim": dim, "end": end, "self_sym_sizes": tuple(t._data.shape),
                                                 "start": start, "step": step})


def _slice_from(t, dim, start):
    """PyTorch's C++ t.slice(dim, start): no end (None), unlike Python's t[start:]."""
    out = t._data[(slice(None),) * dim + (slice(start, None),)]
    return _view_result(TABLE["slice"], t, out, {"dim": dim, "end": None, "self_sym_sizes": tuple(t._data.shape),
                                                 "start": start, "step": 1})


def flip(t, dims):
    seq = _begin(t)
    out = np.flip(t._data, tuple(_norm_dim(d, t._data.ndim) for d in dims)).copy()
    return _record(TABLE["flip"], seq, out, (t,), attrs={"dims": tuple(dims)})
