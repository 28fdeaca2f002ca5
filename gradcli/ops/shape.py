"""Shape ops and views: view, reshape, expand, transpose, permute, squeeze, select, narrow, diagonal;
flip, roll, rot90, repeat, tril/triu, diag_embed, trace."""
from __future__ import annotations

import operator as _operator

import numpy as np

from .. import engine as E
from ..engine import TensorBase
from ..engine import TorchIndexError, TorchRuntimeError, TorchTypeError, TorchValueError
from .numeric import _INT64_MAX, _dims, _norm_dim, _type_str, broadcast_shapes
from .record import _begin, _record
from .table import TABLE
from .views import _view
from .pointwise import clone, to_dtype
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



# ----------------------------------------------------------------------------- repeating, flipping, rolling


def _int_list(args):
    """x.repeat(2, 3) or x.repeat((2, 3)): the sizes as a tuple of ints (a 0-d integer tensor is one)."""
    if len(args) == 1 and isinstance(args[0], (tuple, list)):
        args = tuple(args[0])
    return tuple(_operator.index(a.item() if isinstance(a, TensorBase) else a) for a in args)


def repeat(t, *repeats):
    repeats = _int_list(repeats)
    shape = t._data.shape
    if len(repeats) < len(shape):
        raise TorchRuntimeError("Number of dimensions of repeat dims can not be smaller than number of dimensions "
                                "of tensor")
    padded = (1,) * (len(repeats) - len(shape)) + tuple(shape)
    sizes = [n * r for n, r in zip(padded, repeats)]
    for s in sizes:
        if s < 0:
            raise TorchRuntimeError(f"Trying to create tensor with negative dimension {s}: {E._sizes(sizes)}")
    seq = _begin(t)
    out = np.tile(t._data.reshape(padded), repeats) if t._data.size else np.zeros(sizes, t._data.dtype)
    return _record(TABLE["repeat"], seq, np.ascontiguousarray(out), (t,),
                   attrs={"repeats": repeats, "self_sym_sizes": tuple(shape)})


def tile(t, *dims):
    dims = _int_list(dims)
    return repeat(t, (1,) * (t._data.ndim - len(dims)) + dims)


def repeat_backward(m, g, repeats, sizes):
    """PyTorch's repeat_backward: the leading new dims summed away, then each repeated dim split
    into (repeat, size) and the repeats summed, in one reshape and one sum."""
    if 0 in repeats:
        return m.zeros_of(g, sizes)
    for _ in range(len(repeats) - len(sizes)):
        g = m.sum_dims(g, (0,))
    grad_size, sum_dims = [], []
    for r, n in zip(repeats[len(repeats) - len(sizes):], sizes):
        if r != 1:
            grad_size.append(r)
            sum_dims.append(len(grad_size) - 1)
        grad_size.append(n)
    if sum_dims:
        g = m.sum_dims(m.reshape(g, tuple(grad_size)), tuple(sum_dims))
    return g


def flip(t, dims):
    dims = _int_list((dims,))
    axes = []
    for d in dims:                     # each wrapped, then checked against the ones before it
        axes.append(_norm_dim(d, t._data.ndim))
        if axes[-1] in axes[:-1]:
            raise TorchRuntimeError(f"dim {axes[-1]} appears multiple times in the list of dims")
    seq = _begin(t)
    out = np.flip(t._data, tuple(axes)).copy() if t._data.ndim else t._data.copy()
    return _record(TABLE["flip"], seq, out, (t,), attrs={"dims": tuple(dims)})


def flip_method(t, *dims):
    if not dims:
        raise TorchTypeError('flip() missing 1 required positional arguments: "dims"')
    return flip(t, _int_list(dims))


def fliplr(t):
    if t._data.ndim < 2:
        raise TorchRuntimeError("Input must be >= 2-d.")
    return flip(t, (1,))


def flipud(t):
    if t._data.ndim < 1:
        raise TorchRuntimeError("Input must be >= 1-d.")
    return flip(t, (0,))


def _roll(a, shifts, dims):
    if not dims:
        return np.roll(a.reshape(-1), shifts[0]).reshape(a.shape)
    return np.roll(a, shifts, tuple(d % a.ndim for d in dims))


def roll(t, shifts, dims=()):
    dims = () if dims is None else dims
    shifts = _int_list((shifts,)) if isinstance(shifts, (tuple, list)) else (_operator.index(shifts),)
    dims = _int_list((dims,)) if isinstance(dims, (tuple, list)) else (_operator.index(dims),)
    if not shifts:
        raise TorchRuntimeError("`shifts` required")
    if dims and len(shifts) != len(dims) or not dims and len(shifts) != 1:
        raise TorchRuntimeError(f"shifts and dimensions must align. shifts: {len(shifts)}, dims:{len(dims)}")
    for d in dims:
        _norm_dim(d, t._data.ndim)
    seq = _begin(t)
    return _record(TABLE["roll"], seq, np.ascontiguousarray(_roll(t._data, shifts, dims)), (t,),
                   attrs={"dims": dims, "shifts": shifts})


def rot90(t, k=1, dims=(0, 1)):
    dims = tuple(dims)
    nd = t._data.ndim
    if len(dims) != 2:
        raise TorchRuntimeError(f"expected total rotation dims == 2, but got dims = {len(dims)}")
    if nd < 2:
        raise TorchRuntimeError(f"expected total dims >= 2, but got total dims = {nd}")
    d0, d1 = _norm_dim(dims[0], nd), _norm_dim(dims[1], nd)
    if d0 == d1:
        raise TorchRuntimeError(f"expected rotation dims to be different, but got dim0 = {d0} and dim1 = {d1}")
    seq = _begin(t)
    out = np.ascontiguousarray(np.rot90(t._data, k % 4, (d0, d1)))
    return _record(TABLE["rot90"], seq, out, (t,), attrs={"dims": dims, "k": k})

# ----------------------------------------------------------------------------- views by another name


def narrow(t, dim, start, length):
    nd = t._data.ndim
    if nd == 0:
        raise TorchRuntimeError("narrow() cannot be applied to a 0-dim tensor.")
    if length < 0:
        raise TorchRuntimeError("narrow(): length must be non-negative.")
    d = _norm_dim(dim, nd)
    if isinstance(start, TensorBase):
        if start._data.ndim or start._data.dtype.kind not in "iu":
            raise TorchRuntimeError("start must be an 0-dim integral Tensor.")
        start = start.item()
    n = t._data.shape[d]
    if not -n <= start <= n:
        raise TorchIndexError(f"start out of range (expected to be in range of [{-n}, {n}], but got {start})")
    if start < 0:
        start += n
    if start + length > n:
        raise TorchRuntimeError(f"start ({start}) + length ({length}) exceeds dimension size ({n}).")
    out = t._data[(slice(None),) * d + (slice(start, start + length),)]
    return _view_result(TABLE["slice"], t, out, {"dim": dim, "end": start + length,
                                                 "self_sym_sizes": tuple(t._data.shape), "start": start, "step": 1})


def movedim(t, source, destination):
    src = tuple(source) if isinstance(source, (tuple, list)) else (source,)
    dst = tuple(destination) if isinstance(destination, (tuple, list)) else (destination,)
    nd = t._data.ndim
    if len(src) != len(dst):
        raise TorchRuntimeError(f"movedim: Invalid source or destination dims: source ({list(src)} dims) should "
                                f"contain the same number of dims as destination ({list(dst)} dims)")
    s = [_norm_dim(d, nd) for d in src]
    e = [_norm_dim(d, nd) for d in dst]
    if len(set(s)) != len(s):
        raise TorchRuntimeError(f"movedim: repeated dim in `source` ({list(src)})")
    if len(set(e)) != len(e):
        raise TorchRuntimeError(f"movedim: repeated dim in `destination` ({list(dst)})")
    order = [-1] * nd
    for a, b in zip(s, e):
        order[b] = a
    rest = iter(d for d in range(nd) if d not in s)
    order = [next(rest) if o == -1 else o for o in order]
    return permute(t, tuple(order))


def ravel(t):
    if not t._data.flags.c_contiguous:     # contiguous(): a row-major clone
        t = _record(TABLE["clone"], _begin(t), t._data.copy(order="C"), (t,))
    return view(t, -1)


def unflatten(t, dim, sizes):
    sizes = tuple(sizes)
    if not sizes:
        raise TorchRuntimeError("unflatten: sizes must be non-empty")
    d = _norm_dim(dim, t._data.ndim)
    n = t._data.shape[d]
    try:
        inferred = _infer_shape(sizes, n)
    except TorchRuntimeError as e:
        if "only one dimension" in str(e):
            raise
        raise TorchRuntimeError(f"unflatten: Provided sizes {E._sizes(sizes)} don't multiply up to the size of dim "
                                f"{d} ({n}) in the input tensor") from None
    return view(t, t._data.shape[:d] + inferred + t._data.shape[d + 1:])


def unflatten_method(t, dim, sizes):
    """Tensor.unflatten is Python code in PyTorch: it tests `not sizes` before the parser sees them."""
    try:
        empty = not sizes
    except ValueError as e:                   # a NumPy array's truth value, as Python raises it
        raise TorchValueError(str(e)) from None
    if empty:
        raise TorchRuntimeError("unflatten: sizes must be non-empty")
    if not isinstance(sizes, (tuple, list)):
        raise TorchTypeError(f"unflatten(): argument 'sizes' (position 2) must be tuple of ints, not "
                             f"{_c_type_name(sizes)}")
    return unflatten(t, dim, sizes)


def broadcast_to(t, *size):
    return expand(t, _int_list(size))


def _c_type_name(v):
    """A Python type as PyTorch's C++ code names it (tp_name): a class's own name, an extension type's
    with its module (numpy.ndarray)."""
    kind = type(v)
    heap = kind.__flags__ & (1 << 9)
    return kind.__name__ if heap or kind.__module__ == "builtins" else f"{kind.__module__}.{kind.__name__}"


def _check_tensor_list(tensors, argument=0):
    for k, x in enumerate(tensors):
        if not isinstance(x, TensorBase):
            raise TorchTypeError(f"expected Tensor as element {k} in argument {argument}, but got {_c_type_name(x)}")


def broadcast_tensors(*tensors):
    if len(tensors) == 1 and isinstance(tensors[0], (tuple, list)):
        tensors = tuple(tensors[0])
    _check_tensor_list(tensors)
    shape = ()
    for k, x in enumerate(tensors):
        shape = x._data.shape if k == 0 else broadcast_shapes(tuple(shape), x._data.shape)
    return tuple(x if x._data.shape == shape else expand(x, shape) for x in tensors)



# ----------------------------------------------------------------------------- triangles and diagonals


def _triangle(name, t, diagonal):
    if t._data.ndim < 2:
        raise TorchRuntimeError(f"{name}: input tensor must have at least 2 dimensions")
    seq = _begin(t)
    out = (np.tril if name == "tril" else np.triu)(t._data, diagonal)
    return _record(TABLE[name], seq, np.ascontiguousarray(out, t._data.dtype), (t,), attrs={"diagonal": diagonal})


def tril(t, diagonal=0):
    return _triangle("tril", t, diagonal)


def triu(t, diagonal=0):
    return _triangle("triu", t, diagonal)


def _diagonal_dims(nd, offset, dim1, dim2):
    d1, d2 = _norm_dim(dim1, nd), _norm_dim(dim2, nd)
    if d1 == d2:
        raise TorchRuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    return d1, d2


def _diagonal_array(a, offset, d1, d2):
    """The diagonal of array a over dims d1, d2 as a writable view, last (PyTorch's strides)."""
    start = [slice(None)] * a.ndim
    start[d2 if offset >= 0 else d1] = slice(abs(offset), None)
    sub = a[tuple(start)]
    n = max(min(sub.shape[d1], sub.shape[d2]), 0)
    keep = [i for i in range(a.ndim) if i not in (d1, d2)]
    shape = tuple(a.shape[i] for i in keep) + (n,)
    strides = tuple(a.strides[i] for i in keep) + (a.strides[d1] + a.strides[d2],)
    return np.lib.stride_tricks.as_strided(sub, shape, strides, writeable=a.flags.writeable)


def diagonal(t, offset=0, dim1=0, dim2=1):
    d1, d2 = _diagonal_dims(t._data.ndim, offset, dim1, dim2)
    out = _diagonal_array(t._data, offset, d1, d2)
    return _view_result(TABLE["diagonal"], t, out, {"dim1": dim1, "dim2": dim2, "offset": offset,
                                                    "self_sym_sizes": tuple(t._data.shape)})


def diagonal_backward_np(g, sizes, offset, dim1, dim2):
    """PyTorch's diagonal_backward: zeros of the input's sizes, g written on the diagonal."""
    out = np.zeros(tuple(sizes), g.dtype)
    d1, d2 = _norm_dim(dim1, len(sizes)), _norm_dim(dim2, len(sizes))
    _diagonal_array(out, offset, d1, d2)[...] = g
    return out


def diagonal_backward(g, sizes, offset, dim1, dim2):
    """diagonal's backward under create_graph: a node of its own (DiagonalBackwardBackward0)."""
    return _record(TABLE["diagonal_backward"], _begin(g), diagonal_backward_np(g._data, sizes, offset, dim1, dim2),
                   (g,), attrs={"dim1": dim1, "dim2": dim2, "offset": offset})


def diag_embed(t, offset=0, dim1=-2, dim2=-1):
    nd = t._data.ndim + 1
    d1, d2 = _diagonal_dims(nd, offset, dim1, dim2)
    n = t._data.shape[-1] + abs(offset)
    rest = iter(t._data.shape[:-1])
    shape = tuple(n if i in (d1, d2) else next(rest) for i in range(nd))
    seq = _begin(t)
    out = np.zeros(shape, t._data.dtype)
    _diagonal_array(out, offset, d1, d2)[...] = t._data
    return _record(TABLE["diag_embed"], seq, out, (t,), attrs={"dim1": dim1, "dim2": dim2, "offset": offset})


def diag(t, diagonal=0):
    nd = t._data.ndim
    if nd == 1:
        return diag_embed(t, diagonal)
    if nd != 2:
        raise TorchRuntimeError(f"diag(): Supports 1D or 2D tensors. Got {nd}D")
    seq = _begin(t)                                     # at::diagonal_copy: not a view
    out = _diagonal_array(t._data, diagonal, 0, 1).copy()
    return _record(TABLE["diagonal_copy"], seq, out, (t,), attrs={"dim1": 0, "dim2": 1, "offset": diagonal,
                                                                  "self_sym_sizes": tuple(t._data.shape)})


def trace(t):
    if t._data.ndim != 2:
        raise TorchRuntimeError(f"trace: expected a matrix, but got tensor with dim {t._data.ndim}")
    if t._data.dtype == np.bool_:
        raise E.TorchNotImplementedError("\"trace\" not implemented for 'Bool'")
    seq = _begin(t)
    data = t._data
    out = np.asarray(np.diagonal(data).sum(dtype=data.dtype if data.dtype.kind == "f" else np.int64))
    return _record(TABLE["trace"], seq, out, (t,), attrs={"self_sym_sizes": tuple(data.shape)})


def trace_backward_np(g, sizes):
    out = np.zeros(tuple(sizes), g.dtype)
    np.fill_diagonal(out, g)
    return out

# ----------------------------------------------------------------------------- transposes, dtype and layout


def mH_property(t, name="tensor.mH"):
    if t._data.ndim < 2:
        raise TorchRuntimeError(f"{name} is only supported on matrices or batches of matrices. Got "
                                f"{t._data.ndim}-D tensor.")
    return transpose(t, -2, -1)


W_H = ("Tensor.H is deprecated on 0-D tensors. Consider using x.conj(). (Triggered internally at "
       "/__w/pytorch/pytorch/aten/src/ATen/native/TensorShape.cpp:4335.)")


def H_property(t):
    nd = t._data.ndim
    if nd == 0:
        E.warn_once(W_H)
        return t
    if nd != 2:
        raise TorchRuntimeError(f"tensor.H is only supported on matrices (2-D tensors). Got {nd}-D tensor."
                                + (" For batches of matrices, consider using tensor.mH" if nd > 2 else ""))
    return transpose(t, -2, -1)


W_ADJOINT = ("adjoint() is deprecated on 0-D tensors. Consider using x.conj(). (Triggered internally at "
             "/__w/pytorch/pytorch/aten/src/ATen/native/TensorShape.cpp:4390.)")


def adjoint(t):
    if t._data.ndim == 0:
        E.warn_once(W_ADJOINT)
        return t
    return mH_property(t, "tensor.adjoint()")


def type_as(t, other):
    return to_dtype(t, E.dtype_of(other._data))


def stride(t, dim=None):
    st = tuple(s // t._data.itemsize for s in t._data.strides)
    return st if dim is None else st[_norm_dim(dim, t._data.ndim)]


def element_size(t):
    return t._data.itemsize
