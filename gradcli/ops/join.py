"""Joining and splitting: cat, stack, split, chunk, unbind, tensor_split."""
from __future__ import annotations

import builtins as _b
import operator as _operator

import numpy as np

from .. import engine as E
from ..engine import CONFIG, TensorBase
from ..engine import TorchAttributeError, TorchIndexError, TorchRuntimeError, TorchTypeError, TorchValueError
from .numeric import _SCALAR_NAME, _check_operand, _norm_dim, _sizes_str, _split_sizes
from .record import _NO_SAVED, _begin, _check_numel
from .table import TABLE
from .views import _register_view
from .shape import _check_tensor_list, _slice, expand, flatten, reshape, unsqueeze, view
from .pointwise import clone
from .indexing import index_select


def _tensor_list(tensors, name, empty_message):
    """cat/stack's argument: a non-empty sequence of tensors whose result fits the limits."""
    tensors = list(tensors)
    if not tensors:
        raise TorchRuntimeError(empty_message)
    if not all(isinstance(t, TensorBase) for t in tensors):
        raise TorchTypeError(f"{name}(): argument 'tensors' (position 1) must be tuple of Tensors, not "
                             + type(next(t for t in tensors if not isinstance(t, TensorBase))).__name__)
    _check_numel(_b.sum(t._data.size for t in tensors), tensors[0]._data.itemsize)
    return tensors


def cat(tensors, dim=0):
    tensors = list(tensors)
    if not tensors:
        raise TorchValueError("torch.cat(): expected a non-empty list of Tensors")
    tensors = _tensor_list(tensors, "cat", "")
    seq = _begin(*tensors)
    for k, t in enumerate(tensors):
        if t._data.ndim == 0:
            raise TorchRuntimeError(f"zero-dimensional tensor (at position {k}) cannot be concatenated")
    # PyTorch skips 1-D empty tensors (legacy); the first other tensor sets dims and sizes
    skip = [t._data.ndim == 1 and t._data.size == 0 for t in tensors]
    ref = next((t for t, s in zip(tensors, skip) if not s), tensors[0])
    nd = ref._data.ndim
    d = _norm_dim(dim, nd)
    for k, t in enumerate(tensors):
        if skip[k]:
            continue
        if t._data.ndim != nd:
            raise TorchRuntimeError(f"Tensors must have same number of dimensions: got {nd} and {t._data.ndim}")
        for ax in range(nd):
            if ax != d and t._data.shape[ax] != ref._data.shape[ax]:
                raise TorchRuntimeError(f"Sizes of tensors must match except in dimension {d}. Expected size "
                                        f"{ref._data.shape[ax]} but got size {t._data.shape[ax]} for tensor number "
                                        f"{k} in the list.")
    dt = tensors[0].dtype
    for t in tensors[1:]:
        dt = E.promote_types(dt, t.dtype)
    parts = [t._data.astype(dt.np, copy=False) for t, s in zip(tensors, skip) if not s] or [ref._data.astype(dt.np)]
    return _record_variadic(TABLE["cat"], seq, _concatenate(parts, d), tensors, {"dim": dim})


def stack(tensors, dim=0):
    tensors = _tensor_list(tensors, "stack", "stack expects a non-empty TensorList")
    for k, t in enumerate(tensors[1:], 1):
        if t._data.shape != tensors[0]._data.shape:
            raise TorchRuntimeError(f"stack expects each tensor to be equal size, but got "
                                    f"{list(tensors[0]._data.shape)} at entry 0 and {list(t._data.shape)} at entry {k}")
    seq = _begin(*tensors)
    d = _norm_dim(dim, tensors[0]._data.ndim + 1)
    dt = tensors[0].dtype
    for t in tensors[1:]:
        dt = E.promote_types(dt, t.dtype)
    out = _concatenate([np.expand_dims(t._data.astype(dt.np, copy=False), d) for t in tensors], d)
    return _record_variadic(TABLE["stack"], seq, out, tensors, {"dim": dim})


def _concatenate(arrays, axis):
    """np.concatenate into a row-major result, as PyTorch's cat and stack make it (NumPy follows
    its inputs' layout: columns of transposed inputs give a column-major result)."""
    shape = list(arrays[0].shape)
    shape[axis] = _b.sum(a.shape[axis] for a in arrays)
    return np.concatenate(arrays, axis=axis, out=np.empty(shape, np.result_type(*arrays)))


def _split_backward(grads, split_sizes, dim, sizes):
    """PyTorch's split_with_sizes_backward: zeros for a piece that got no gradient, then cat."""
    dim %= len(sizes)
    like = next((g for g in grads if g is not None), None)
    if like is None:                        # no piece got a gradient: none flows on
        return None
    tensor = type(like) is CONFIG.tensor_type
    dt = like._data.dtype if tensor else like.dtype
    parts = []
    for g, n in zip(grads, split_sizes):
        if g is None:
            g = np.zeros(tuple(sizes[:dim]) + (n,) + tuple(sizes[dim + 1:]), dt)
            g = CONFIG.tensor(g) if tensor else g
        parts.append(g)
    return cat(parts, dim) if tensor else _concatenate(parts, dim)


def _unbind_backward(grads, dim):
    """PyTorch's unbind_backward: zeros (one zero expanded) for a slice that got no gradient, then stack."""
    like = next((g for g in grads if g is not None), None)
    if like is None:
        return None
    tensor = type(like) is CONFIG.tensor_type
    a = like._data if tensor else like
    zeros = np.broadcast_to(np.zeros((), a.dtype), a.shape)
    parts = [g if g is not None else CONFIG.tensor(zeros) if tensor else zeros for g in grads]
    if tensor:
        return stack(parts, dim)
    d = dim % (a.ndim + 1)
    return _concatenate([np.expand_dims(p, d) for p in parts], d)


def _multi_output(row, t, arrays, attrs, view=True):
    """The outputs of one multi-output op over t: `view` (split, unbind), views of t sharing its
    version counter, which may not be modified in place; else (unsafe_split) plain tensors. In
    grad mode one node of `row` makes them all, each output holding its OutputEdge."""
    seq = _begin(t)
    if view:
        base = t._base if t._base is not None else t
        outs = tuple([CONFIG.tensor(a, version=t._version_counter, base=base) for a in arrays])
    else:
        outs = tuple([CONFIG.tensor(np.ascontiguousarray(a)) for a in arrays])
    if seq is not None:
        node = row.node_class(row, (t._edge(),), _NO_SAVED, attrs, ((t._data.shape, t._data.dtype),), seq)
        for out, edge in zip(outs, E.output_edges(node, len(outs))):
            out._fn = edge
            out._rg = True
    if view:
        for out in outs:
            _register_view(out, t, multi=True)
    return outs


def _pieces(t, d, sizes):
    """t's pieces along dim d, of the given sizes (views)."""
    out, start = [], 0
    for n in sizes:
        out.append(t._data[(slice(None),) * d + (slice(start, start + n),)])
        start += n
    return out


def split(tensor, split_size_or_sections, dim=0):
    """torch.split, PyTorch's Python function: the argument's own split method (a str's too)."""
    if type(tensor) is CONFIG.tensor_type:
        return tensor.split(split_size_or_sections, dim)
    try:
        return tensor.split(split_size_or_sections, dim)
    except AttributeError as e:
        raise TorchAttributeError(str(e)) from None
    except TypeError as e:
        raise TorchTypeError(str(e)) from None


def split_method(t, split_size_or_sections, dim=0):
    """Tensor.split: a size per piece (SplitBackward0), or a list of sizes (SplitWithSizesBackward0);
    a tensor is read as an int where it holds one, as PyTorch's Python method does."""
    if type(split_size_or_sections) is CONFIG.tensor_type:
        try:
            split_size_or_sections = int(split_size_or_sections)
        except ValueError:
            pass
    if not isinstance(split_size_or_sections, int):
        return split_with_sizes(t, split_size_or_sections, dim)
    nd = t._data.ndim
    if nd == 0:
        raise TorchRuntimeError("split expects at least a 1-dimensional tensor")
    d = _norm_dim(dim, nd)
    size, n = t._data.shape[d], split_size_or_sections
    if n < 0:
        raise TorchRuntimeError(f"split expects split_size be non-negative, but got split_size={n}")
    if n == 0 and size != 0:
        raise TorchRuntimeError(f"split_size can only be 0 if dimension size is 0, but got dimension size of {size}")
    return _multi_output(TABLE["split"], t, _pieces(t, d, _split_sizes(size, n or 1)),
                         {"dim": dim, "self_sym_sizes": tuple(t._data.shape), "split_size": n})


def split_with_sizes(t, split_sizes, dim=0):
    nd = t._data.ndim
    if nd == 0:
        raise TorchRuntimeError("split expects at least a 1-dimensional tensor")
    d = _norm_dim(dim, nd)
    sizes = [int(n) for n in split_sizes]
    size = t._data.shape[d]
    for n in sizes:
        if n < 0:
            raise TorchRuntimeError(f"split_with_sizes expects split_sizes have only non-negative entries, but got "
                                    f"split_sizes={_sizes_str(sizes)}")
    if _b.sum(sizes) != size:
        raise TorchRuntimeError(f"split_with_sizes expects split_sizes to sum exactly to {size} (input tensor's size "
                                f"at dimension {d}), but got split_sizes={_sizes_str(sizes)}")
    return _multi_output(TABLE["split_with_sizes"], t, _pieces(t, d, sizes),
                         {"dim": dim, "self_sym_sizes": tuple(t._data.shape), "split_sizes": tuple(sizes)})


def chunk(t, chunks, dim=0):
    """torch.chunk: split by ceil(size / chunks); an empty dim gives `chunks` empty pieces."""
    nd = t._data.ndim
    if nd == 0:
        raise TorchRuntimeError("chunk expects at least a 1-dimensional tensor")
    chunks = _operator.index(chunks)
    if chunks <= 0:
        raise TorchRuntimeError(f"chunk expects `chunks` to be greater than 0, got: {chunks}")
    size = t._data.shape[_norm_dim(dim, nd)]
    split_size = -(-size // chunks)
    if split_size == 0 and size == 0:
        return split_with_sizes(t, [0] * chunks, dim)
    return split(t, split_size, dim)


def unbind(t, dim=0):
    nd = t._data.ndim
    if nd == 0:
        raise TorchIndexError("Dimension specified as 0 but tensor has no dimensions")
    d = _norm_dim(dim, nd)
    arrays = [t._data[(slice(None),) * d + (i, Ellipsis)] for i in range(t._data.shape[d])]
    return _multi_output(TABLE["unbind"], t, arrays, {"dim": dim})


def tensor_iter(t):
    """Tensor.__iter__: the slices of unbind(0), as PyTorch's Python method makes them."""
    if t._data.ndim == 0:
        raise TorchTypeError("iteration over a 0-d tensor")
    return iter(unbind(t, 0))


def tensor_split(t, indices_or_sections, dim=0):
    """PyTorch's tensor_split: one slice (SliceBackward0) per piece, by a number of sections or
    by indices (a list, or an int64 tensor of them)."""
    nd = t._data.ndim
    if nd == 0:
        raise TorchRuntimeError("tensor_split expected at least a 1-dimensional tensor, but got a tensor with 0 dims")
    d = _norm_dim(dim, nd)
    size = t._data.shape[d]
    if type(indices_or_sections) is CONFIG.tensor_type:
        v = indices_or_sections._data
        if v.dtype != np.int64:
            raise TorchRuntimeError("tensor_split expected tensor_indices_or_sections to have dtype of long, but got "
                                    + _SCALAR_NAME[v.dtype.name])
        if v.ndim > 1:
            raise TorchRuntimeError("tensor_split expected tensor_indices_or_sections to be a zero-dimensional or "
                                    f"one-dimensional tensor, but got a tensor with {v.ndim} dims")
        indices_or_sections = int(v) if v.ndim == 0 else [int(i) for i in v]
    if isinstance(indices_or_sections, int):
        n = indices_or_sections
        _check_operand(n)                   # (an int64, as PyTorch parses it: not 10**20 empty pieces)
        if n <= 0:
            raise TorchRuntimeError(f"number of sections must be larger than 0, got {n}")
        small, extra = divmod(size, n)
        bounds, start = [], 0
        for i in range(n):
            end = start + small + (1 if i < extra else 0)
            bounds.append((start, end))
            start = end
    else:
        bounds, start = [], 0
        for end in indices_or_sections:
            bounds.append((start, int(end)))
            start = int(end)
        bounds.append((start, size))
    return tuple(_slice(t, d, slice(a, b)) for a, b in bounds)


def _split_like(name, dim, min_dims):
    """hsplit / vsplit / dsplit: tensor_split along one dim, a number of sections dividing it exactly."""
    def f(t, indices_or_sections):
        nd = t._data.ndim
        if nd < min_dims:
            raise TorchRuntimeError(f"torch.{name} requires a tensor with at least {min_dims} dimension, but got a "
                                    f"tensor with {nd} dimensions!")
        d = 0 if name == "hsplit" and nd == 1 else dim
        if isinstance(indices_or_sections, TensorBase) and indices_or_sections._data.ndim == 0:
            indices_or_sections = int(indices_or_sections._data)      # (an int to PyTorch's parser)
        if isinstance(indices_or_sections, int):
            size = t._data.shape[d]
            if indices_or_sections == 0 or size % indices_or_sections:
                raise TorchRuntimeError(f"torch.{name} attempted to split along dimension {d}, but the size of the "
                                        f"dimension {size} is not divisible by the split_size "
                                        f"{indices_or_sections}!")
        return tensor_split(t, indices_or_sections, d)
    f.__name__ = name
    return f


hsplit, vsplit, dsplit = _split_like("hsplit", 1, 1), _split_like("vsplit", 0, 2), _split_like("dsplit", 2, 3)


def split_like_method(f):
    """Tensor.hsplit/vsplit/dsplit: the indices may come one by one (x.hsplit(1, 2)); none at all is
    the missing argument PyTorch's parser reports (the signature check words it)."""
    def method(t, *indices_or_sections):
        if not indices_or_sections:
            raise TorchTypeError(f"{f.__name__}() missing its sections or indices")
        return f(t, indices_or_sections[0] if len(indices_or_sections) == 1 else list(indices_or_sections))
    method.__name__ = f.__name__
    return method


def _record_variadic(row, seq, out, tensors, attrs):
    t = CONFIG.tensor(out)
    if seq is None:
        return t
    edges = tuple(x._edge() for x in tensors)
    meta = tuple((x._data.shape, x._data.dtype) for x in tensors)
    t._fn = row.node_class(row, edges, {}, attrs, meta, seq)
    t._rg = True
    return t

# ----------------------------------------------------------------------------- stacking along a dim, grids


def _atleast(t, nd):
    """torch.atleast_1d/2d/3d of one tensor: a 0-d tensor reshaped, a smaller one unsqueezed."""
    if t._data.ndim >= nd:
        return t
    if t._data.ndim == 0:
        return reshape(t, (1,) * nd)
    if nd == 3:
        t = unsqueeze(t, 0) if t._data.ndim == 1 else t
        return unsqueeze(t, -1)
    return unsqueeze(t, 0)


def _stack_list(tensors, name):
    tensors = list(tensors)
    if not tensors:
        raise TorchRuntimeError(f"{name} expects a non-empty TensorList")
    return tensors


def hstack(tensors):
    tensors = [_atleast(t, 1) for t in _stack_list(tensors, "hstack")]
    return cat(tensors, 0 if tensors[0]._data.ndim == 1 else 1)


def vstack(tensors):
    return cat([_atleast(t, 2) for t in _stack_list(tensors, "vstack")], 0)


def dstack(tensors):
    return cat([_atleast(t, 3) for t in _stack_list(tensors, "dstack")], 2)


def column_stack(tensors):
    tensors = _stack_list(tensors, "column_stack")
    return hstack([reshape(t, (t._data.size, 1)) if t._data.ndim <= 1 else t for t in tensors])


W_MESHGRID = ("torch.meshgrid: in an upcoming release, it will be required to pass the indexing argument. (Triggered "
              "internally at /__w/pytorch/pytorch/aten/src/ATen/native/TensorShape.cpp:4215.)")


def meshgrid(*tensors, indexing=None):
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        tensors = tuple(tensors[0])
    _check_tensor_list(tensors)
    if indexing is None:
        E.warn_once(W_MESHGRID)
        indexing = "ij"
    if not tensors:
        raise TorchRuntimeError("meshgrid expects a non-empty TensorList")
    for t in tensors[1:]:
        if t._data.dtype != tensors[0]._data.dtype:
            raise TorchRuntimeError("meshgrid expects all tensors to have the same dtype")
    if indexing not in ("xy", "ij"):
        raise TorchRuntimeError(f'torch.meshgrid: indexing must be one of "xy" or "ij", but received: {indexing}')
    for t in tensors:
        if t._data.ndim > 1:
            # (PyTorch prints the tensor's values before its type line, in C++'s format: left out here)
            raise TorchRuntimeError(f"torch.meshgrid: Expected 0D or 1D tensor in the tensor list but got: "
                                    f"[ torch.{_SCALAR_NAME[t._data.dtype.name]}Tensor{{{','.join(map(str, t._data.shape))}}} ]")
    swap = indexing == "xy" and len(tensors) >= 2
    if swap:
        tensors = (tensors[1], tensors[0]) + tuple(tensors[2:])
    shape = tuple(t._data.size for t in tensors)
    n = len(tensors)
    grids = [expand(view(t, tuple(-1 if j == i else 1 for j in range(n))), shape) for i, t in enumerate(tensors)]
    if swap:
        grids[0], grids[1] = grids[1], grids[0]
    return tuple(grids)


def repeat_interleave(t, repeats=None, dim=None, *, output_size=None):
    if repeats is None:                 # torch.repeat_interleave(repeats): each index repeated, no node
        return _repeated_indices(t, output_size)
    if isinstance(repeats, TensorBase):
        n = t._data.size if dim is None else t._data.shape[_norm_dim(dim, t._data.ndim)]
        if repeats._data.ndim > 1:
            raise TorchRuntimeError("repeats must be 0-dim or 1-dim tensor")
        if repeats._data.ndim == 1 and repeats._data.size not in (1, n):
            raise TorchRuntimeError(f"repeats must have the same size as input along dim, but got repeats.size(0) = "
                                    f"{repeats._data.size} and input.size({0 if dim is None else dim}) = {n}")
        if dim is None:
            t, dim = flatten(t), 0
        d = _norm_dim(dim, t._data.ndim)
        if repeats._data.size == 1:
            repeats = expand(reshape(repeats, (1,)), (t._data.shape[d],))
        return index_select(t, d, _repeated_indices(repeats, output_size))
    if repeats < 0:
        raise TorchRuntimeError("Repeats must be non-negative")
    if dim is None:
        t, dim = flatten(t), 0
    d = _norm_dim(dim, t._data.ndim)
    if output_size is not None and output_size != t._data.shape[d] * repeats:
        raise TorchRuntimeError(f"repeat_interleave: Invalid output_size, expected {t._data.shape[d] * repeats} but "
                                f"got {output_size}")
    sizes = list(t._data.shape)
    sizes.insert(d + 1, repeats)
    grown = clone(expand(unsqueeze(t, d + 1), tuple(sizes)))
    return flatten(grown, d, d + 1)


def _repeated_indices(repeats, output_size):
    r = repeats._data
    if r.ndim != 1:
        raise TorchRuntimeError("repeat_interleave only accept 1D vector as repeat")
    if r.dtype.kind not in "iu":
        raise E.TorchNotImplementedError(f"\"repeat_interleave_cpu\" not implemented for '{_SCALAR_NAME[r.dtype.name]}'")
    if (r < 0).any():
        raise TorchRuntimeError("repeats can not be negative")
    if output_size is not None and output_size != int(r.sum()):
        raise TorchRuntimeError("allocated size does not match required size")
    return CONFIG.tensor(np.repeat(np.arange(r.size, dtype=r.dtype), r))
