"""Reductions: sum, mean, prod, norm, max/min, argmax/argmin, cumulative ops, softmax, var/std,
logsumexp, amax/amin/aminmax, nansum/nanmean, median/nanmedian/mode."""
from __future__ import annotations

import builtins as _b

import numpy as np

from .. import engine as E
from ..engine import CONFIG, TensorBase
from ..engine import TorchIndexError, TorchRuntimeError, TorchTypeError
from ..engine import TorchNotImplementedError as TorchNotImplementedError_
from .numeric import _SCALAR_NAME, _dims, _norm_dim, _raw_dims, _scalar_in_range
from .record import _begin, _check_like, _check_reads, _check_reduced, _record
from .sum_kernel import cascade_sum
from .table import TABLE
from .std_algorithms import std_sort
from .pointwise import div, maximum, minimum, to_dtype


def _check_nonempty_dim(name, data, d):
    if data.ndim and data.shape[d] == 0:
        raise TorchIndexError(f"{name}(): Expected reduction dim {d} to have non-zero size.")


def _np_mean(data, **kwargs):
    """NumPy's mean without its "Mean of empty slice" warning: PyTorch gives nan quietly."""
    if data.size:
        return data.mean(**kwargs)
    with np.errstate(invalid="ignore"):
        return np.true_divide(data.sum(**kwargs), 0)


def _arg_extreme(name, pick):
    def arg(t, dim=None, keepdim=False):
        _check_reads(t)
        data = t._data
        if data.dtype.kind == "b":
            raise TorchRuntimeError(f"{name}(): does not support bool input")
        if dim is None:
            if data.size == 0:
                raise TorchIndexError(f"{name}(): Expected reduction dim to be specified for input.numel() == 0.")
            out = np.asarray(pick(data.reshape(-1)), np.int64)
            if keepdim:
                out = out.reshape((1,) * data.ndim)
            return CONFIG.tensor(out)
        d = _norm_dim(dim, _b.max(data.ndim, 1))
        if data.ndim == 0:
            return CONFIG.tensor(np.asarray(0, np.int64))
        _check_reduced(data, (d,))
        _check_nonempty_dim(name, data, d)
        out = np.asarray(pick(data, axis=d), np.int64)
        return CONFIG.tensor(np.expand_dims(out, d) if keepdim else out)
    arg.__name__ = name
    return arg


argmax = _arg_extreme("argmax", np.argmax)
argmin = _arg_extreme("argmin", np.argmin)


def _sum(data, dims, keepdim, out_dt):
    """PyTorch's sum: floats in its kernel's order (the input cast to out_dt first), others exactly."""
    dims = tuple(range(data.ndim)) if dims is None else dims
    if out_dt.kind != "f" or out_dt.itemsize < 4 or data.size == 0:
        return np.asarray(data.sum(axis=dims, keepdims=keepdim, dtype=out_dt))
    out = cascade_sum(data.astype(out_dt, order="K", copy=False), set(dims))
    return out.reshape([1 if d in dims else n for d, n in enumerate(data.shape)]) if keepdim else out


def _mean(data, dims, keepdim):
    """at::mean on the CPU: the sum, then divided by the number of elements summed."""
    dims = tuple(range(data.ndim)) if dims is None else dims
    if data.dtype.kind != "f" or data.dtype.itemsize < 4 or data.size == 0:
        return np.asarray(_np_mean(data, axis=dims, keepdims=keepdim, dtype=data.dtype))
    count = int(np.prod([data.shape[d] for d in dims]))
    return np.asarray(_sum(data, dims, keepdim, data.dtype) / data.dtype.type(count))


def sum(t, dim=None, keepdim=False, dtype=None):
    seq = _begin(t)
    data = t._data
    out_dt = data.dtype if data.dtype.kind == "f" else np.dtype(np.int64)
    if dtype is not None:
        out_dt = dtype.np
    if dim is None:
        out = _sum(data, tuple(range(data.ndim)), False, out_dt)
        return _record(TABLE["sum"], seq, out, (t,), attrs={"self_sym_sizes": tuple(data.shape)})
    dims = _dims(dim, data.ndim)
    _check_reduced(data, dims)
    out = _sum(data, dims, keepdim, out_dt)
    return _record(TABLE["sum_dim"], seq, out, (t,),
                   attrs={"dim": _raw_dims(dim), "keepdim": bool(keepdim), "self_sym_sizes": tuple(data.shape)})


def mean(t, dim=None, keepdim=False, dtype=None):
    data = t._data
    if data.dtype.kind != "f" and dtype is None:
        name = {"i": "Long", "b": "Bool", "u": "Byte"}.get(data.dtype.kind, "Long")
        if data.dtype == np.int32:
            name = "Int"
        raise TorchRuntimeError("mean(): could not infer output dtype. Input dtype must be either a floating "
                                f"point or complex dtype. Got: {name}")
    if dtype is not None and not dtype.is_floating_point:
        raise TorchRuntimeError("mean(): could not infer output dtype. Optional dtype must be either a floating "
                                f"point or complex dtype. Got: {dtype.tensor_type[:-len('Tensor')]}")
    out_dt = data.dtype if dtype is None else dtype.np     # the input cast to `dtype`, then reduced
    seq = _begin(t)
    if dim is None:
        out = _mean(data.astype(out_dt, copy=False), tuple(range(data.ndim)), False)
        return _record(TABLE["mean"], seq, out, (t,),
                       attrs={"self_sym_numel": data.size, "self_sym_sizes": tuple(data.shape)})
    dims = _dims(dim, data.ndim)
    _check_reduced(data, dims)
    out = _mean(data.astype(out_dt, copy=False), dims, keepdim)
    return _record(TABLE["mean_dim"], seq, out, (t,),
                   attrs={"dim": _raw_dims(dim), "keepdim": bool(keepdim), "self_sym_numel": data.size,
                          "self_sym_sizes": tuple(data.shape)})


def _reduce_all(row, t, out, extra=None):
    seq = _begin(t)
    return _record(row, seq, np.asarray(out, t._data.dtype), (t,), extra=extra)


ReturnType = None


_RETURN_TYPES = {}


def _return_type(name, values, indices):
    """torch.return_types.NAME: a class per name, as PyTorch's structseqs (`type(r).__name__` is "max")."""
    cls = _RETURN_TYPES.get(name)
    if cls is None:
        cls = _RETURN_TYPES[name] = type(name, (_ReturnTypes,), {"__module__": "torch.return_types"})
    return cls(name, values, indices)


class _ReturnTypes(tuple):
    """torch.return_types.max(values=..., indices=...)."""

    def __new__(cls, name, values, indices):
        self = super().__new__(cls, (values, indices))
        self.name = name
        return self

    @property
    def values(self):
        return self[0]

    @property
    def indices(self):
        return self[1]

    def __repr__(self):
        return f"torch.return_types.{self.name}(\nvalues={self[0]!r},\nindices={self[1]!r})"

    __str__ = __repr__


ReturnType = _ReturnTypes


def _minmax(t, name, dim, keepdim, other=None):
    if other is not None and isinstance(other, TensorBase):
        return (maximum if name == "max" else minimum)(t, other)
    _check_reads(t)
    if dim is None:
        if t._data.size == 0:
            raise TorchRuntimeError(f"{name}(): Expected reduction dim to be specified for input.numel() == 0. "
                                    "Specify the reduction dim with the 'dim' argument.")
        out = t._data.max() if name == "max" else t._data.min()
        return _reduce_all(TABLE[name], t, out)
    nd = t._data.ndim
    d = _norm_dim(dim, nd)
    _check_reduced(t._data, (d,))
    _check_nonempty_dim(name, t._data, d)
    if nd == 0:
        idx = np.zeros((), np.int64)
        values = t._data.copy()
    else:
        idx = (np.argmax if name == "max" else np.argmin)(t._data, axis=d)
        values = np.take_along_axis(t._data, np.expand_dims(idx, d), axis=d).squeeze(d)
        if keepdim:
            idx, values = np.expand_dims(idx, d), np.expand_dims(values, d)
    indices = CONFIG.tensor(np.asarray(idx, np.int64))
    seq = _begin(t)
    v = _record(TABLE[name + "_dim"], seq, np.array(values, order="C"), (t,), extra={"indices": indices},
                attrs={"dim": dim, "keepdim": bool(keepdim), "self_sym_sizes": tuple(t._data.shape)})
    return _return_type(name, v, indices)


def max(t, dim=None, keepdim=False):
    if isinstance(dim, TensorBase):
        return maximum(t, dim)
    return _minmax(t, "max", dim, keepdim)


def min(t, dim=None, keepdim=False):
    if isinstance(dim, TensorBase):
        return minimum(t, dim)
    return _minmax(t, "min", dim, keepdim)


def prod(t, dim=None, keepdim=False, dtype=None):
    data = t._data
    out_dt = data.dtype if data.dtype.kind == "f" else np.dtype(np.int64)
    if dim is None:
        seq = _begin(t)
        return _record(TABLE["prod"], seq, np.asarray(data.prod(dtype=out_dt)), (t,))
    d = _norm_dim(dim, data.ndim)
    _check_reduced(data, (d,))
    seq = _begin(t)
    out = np.asarray(data.prod(axis=d if data.ndim else None, keepdims=keepdim, dtype=out_dt))
    return _record(TABLE["prod_dim"], seq, out, (t,), attrs={"dim": dim, "keepdim": bool(keepdim)})


def norm(t, p="fro", dim=None, keepdim=False, out=None, dtype=None):
    """torch.norm (Tensor.norm takes no `out`): linalg.vector_norm's, or for a matrix order
    linalg.matrix_norm's, checks and value."""
    if isinstance(p, TensorBase):           # a number to linalg's parser only when 0-d and not requiring grad
        if p._data.ndim or p.requires_grad:
            raise TorchTypeError("linalg_vector_norm(): argument 'ord' (position 2) must be Number, not Tensor")
        p = p.item()
    result = _norm(t, p, dim, keepdim, dtype)
    if out is None:
        return result
    if not isinstance(out, TensorBase):
        raise TorchTypeError(f"linalg_vector_norm(): argument 'out' must be Tensor, not {type(out).__name__}")
    if E.STATE.grad_enabled and (t.requires_grad or out.requires_grad):
        raise TorchRuntimeError("linalg_vector_norm(): functions with out=... arguments don't support automatic "
                                "differentiation, but one of the arguments requires grad.")
    out._data = np.asarray(result._data, out._data.dtype if out._data.dtype.kind == "f" else result._data.dtype)
    out._version_counter.bump()
    return out


def _norm(t, p, dim, keepdim, dtype):
    if p == "fro" and (dim is None or isinstance(dim, int) or len(dim) <= 2) or p is None:
        p = 2
    elif isinstance(p, str):                    # torch.norm hands it to linalg.matrix_norm
        if not isinstance(keepdim, (bool, np.bool_)):
            raise TorchTypeError(f"linalg_matrix_norm() received an invalid combination of arguments - got (Tensor, "
                                 f"str, list, {type(keepdim).__name__}, dtype={type(dtype).__name__})")
        raise TorchRuntimeError(f"linalg.matrix_norm: Order {p} not supported.")
    if not isinstance(keepdim, (bool, np.bool_)):       # (torch.norm passes it on to linalg.vector_norm)
        raise TorchTypeError(f"linalg_vector_norm(): argument 'keepdim' (position 4) must be bool, not "
                             f"{type(keepdim).__name__}")
    if dtype is not None and not isinstance(dtype, E.DType):
        raise TorchTypeError(f"linalg_vector_norm(): argument 'dtype' must be torch.dtype, not {type(dtype).__name__}")
    _scalar_in_range(p)                         # (the order, a Scalar, is converted once the types fit)
    if t._data.dtype.kind != "f":
        raise TorchRuntimeError("linalg.vector_norm: Expected a floating point or complex tensor as input. Got "
                                f"{_SCALAR_NAME[t._data.dtype.name]}")
    if dim is not None and not isinstance(dim, (tuple, list)):
        dim = (dim,)
    data = t._data if dtype is None else t._data.astype(dtype.np)      # computed in, and returning, dtype
    axes = None if dim is None else tuple(_norm_dim(d, data.ndim) for d in dim)
    if data.ndim == 0:
        axes = None                            # dim 0 or -1 of a 0-d tensor: the element itself
    _check_like(data.shape, itemsize=data.itemsize)          # |x| is computed whole
    a = np.abs(data)
    if p == 2:
        out = np.sqrt((a * a).sum(axis=axes, keepdims=keepdim))
    elif p == 1:
        out = a.sum(axis=axes, keepdims=keepdim)
    elif p == float("inf"):
        out = a.max(axis=axes, keepdims=keepdim)
    elif p == -float("inf"):
        out = a.min(axis=axes, keepdims=keepdim)
    elif p == 0:
        out = (a != 0).sum(axis=axes, keepdims=keepdim)
    else:
        out = (a ** p).sum(axis=axes, keepdims=keepdim) ** (1.0 / p)
    seq = _begin(t)
    return _record(TABLE["norm"], seq, np.asarray(out, data.dtype), (t,),
                   attrs={"dim": None if dim is None else tuple(dim), "keepdim": bool(keepdim), "ord": p})


def _softmax_input(name, t, dim):
    """The array and the wrapped dim; a non-float input has no kernel in PyTorch."""
    d = _norm_dim(dim, t._data.ndim)
    if t._data.dtype.kind != "f":
        kernel = "lastdim_kernel_impl" if d == _b.max(t._data.ndim - 1, 0) else "kernel_impl"
        raise TorchNotImplementedError_(f'"{name}_{kernel}" not implemented for \'{_SCALAR_NAME[t._data.dtype.name]}\'')
    return t._data, d


def softmax(t, dim, dtype=None):
    """torch.softmax: `dim` is required (torch.nn.functional's picks one when it is None)."""
    if dtype is not None:
        t = to_dtype(t, dtype)          # cast first: ToCopyBackward0 under SoftmaxBackward0, as in PyTorch
    x, d = _softmax_input("softmax", t, dim)
    _check_like(x.shape)
    e = np.exp(x - x.max(axis=d, keepdims=True)) if x.ndim and x.size else np.ones_like(x)
    out = e / e.sum(axis=d, keepdims=True) if x.ndim and x.size else e
    seq = _begin(t)
    return _record(TABLE["softmax"], seq, np.asarray(out, x.dtype, order="C"), (t,), attrs={"dim": dim})


def log_softmax(t, dim, dtype=None):
    if dtype is not None:
        t = to_dtype(t, dtype)
    x, d = _softmax_input("log_softmax", t, dim)
    _check_like(x.shape)
    if x.ndim and x.size:
        shifted = x - x.max(axis=d, keepdims=True)
        out = shifted - np.log(np.exp(shifted).sum(axis=d, keepdims=True))
    else:
        out = np.zeros_like(x)
    seq = _begin(t)
    return _record(TABLE["log_softmax"], seq, np.asarray(out, x.dtype, order="C"), (t,), attrs={"dim": dim})


def _cumulative(name, fn):
    def forward(t, dim, *, dtype=None):
        _check_like(t._data.shape, itemsize=8)
        seq = _begin(t)
        d = _norm_dim(dim, t._data.ndim)
        data = t._data if dtype is None else t._data.astype(dtype.np)         # cast first, then accumulate
        out = fn(data, axis=d) if data.ndim else data.copy()
        if name == "cumsum" and out.dtype.kind == "f":
            out = out + 0.0                 # PyTorch's running sum starts at +0: cumsum([-0.]) is 0.
        dt = np.int64 if data.dtype.kind in "biu" and dtype is None else data.dtype   # integers and bools sum as int64
        return _record(TABLE[name], seq, np.asarray(out, dt), (t,), attrs={"dim": dim})
    forward.__name__ = name
    return forward


cumsum = _cumulative("cumsum", np.cumsum)
cumprod = _cumulative("cumprod", np.cumprod)


# ----------------------------------------------------------------------------- statistics

_DOF_WARNING = ("{}(): degrees of freedom is <= 0. Correction should be strictly less than the reduction factor "
                "(input numel divided by output numel). (Triggered internally at "
                "/__w/pytorch/pytorch/aten/src/ATen/native/ReduceOps.cpp:1861.)")
_UNSET = object()


def _correction(dim, unbiased, correction):
    """PyTorch's three overloads, (dim, unbiased, keepdim), (dim, *, correction, keepdim) and
    (unbiased): the dim, and the correction the node saves (None: not given, 1 by default)."""
    if isinstance(dim, (bool, np.bool_)):             # var(x, False): the (unbiased) overload
        dim, unbiased = _UNSET, dim
    if correction is not _UNSET:
        c = correction
    elif unbiased is not _UNSET or dim is not _UNSET:
        c = 1 if unbiased is _UNSET or unbiased else 0
    else:
        c = None
    return (None if dim is _UNSET else dim), c


def _moments(name, t, dim, correction, keepdim):
    """(variance, mean) as float64 arrays, PyTorch's two-pass values in double: the sum of squared
    deviations over max(0, n - correction)."""
    data = t._data
    if data.dtype.kind != "f":
        raise TorchRuntimeError(f"{'std and var' if name in ('std', 'var') else name} only support floating point "
                                "and complex dtypes")
    axes = None if dim is None else _dims(dim, data.ndim)
    _check_reduced(data, axes)
    _check_like(data.shape, itemsize=8)
    x = data.astype(np.float64)
    n = x.size if axes is None else int(np.prod([x.shape[d] for d in axes]))
    out_n = x.size // n if n else 0
    dof = n - (1 if correction is None else correction)
    if dof <= 0 or not out_n and not x.size:
        E.STATE.warn(_DOF_WARNING.format(name))
    with np.errstate(all="ignore"):
        mean = x.sum(axis=axes, keepdims=True) / np.float64(n)
        m2 = np.square(x - mean).sum(axis=axes, keepdims=bool(keepdim))
        var = m2 / _b.max(0, dof)
    if not keepdim:
        mean = mean.reshape(var.shape)
    return var, mean


def _statistic(name, t, dim, unbiased, keepdim, correction):
    dim, c = _correction(dim, unbiased, correction)
    var, mean = _moments(name, t, dim, c, keepdim)
    attrs = {"correction": c, "dim": None if dim is None else _raw_dims(dim), "keepdim": bool(keepdim)}
    dt = t._data.dtype
    value = np.sqrt(var) if name.startswith("std") else var
    seq = _begin(t)
    if not name.endswith("_mean"):
        return _record(TABLE[name], seq, np.asarray(value, dt), (t,), attrs=attrs)
    first = _record(TABLE[name], seq, np.asarray(value, dt), (t,), extra={"result0": None}, attrs=attrs)
    return _two_outputs(first, np.asarray(mean, dt), ("result0",) if name == "std_mean" else ())


def _two_outputs(first, second, saved):
    """PyTorch's one node for two outputs: `first` recorded, `second` (an array) made its second
    output; `saved`, the slots that hold the outputs themselves, in order (each kept with its
    edge, so that a second-order gradient reaches the node)."""
    second = CONFIG.tensor(second)
    node = first._fn
    if node is not None:
        for out, edge in zip((first, second), E.output_edges(node, 2)):
            out._fn, out._rg = edge, True
        for slot, out in zip(saved, (first, second)):
            node._saved[slot] = E.Saved(out)
    return first, second


def var(input, dim=_UNSET, unbiased=_UNSET, keepdim=False, *, correction=_UNSET):
    return _statistic("var", input, dim, unbiased, keepdim, correction)


def std(input, dim=_UNSET, unbiased=_UNSET, keepdim=False, *, correction=_UNSET):
    return _statistic("std", input, dim, unbiased, keepdim, correction)


def var_mean(input, dim=_UNSET, unbiased=_UNSET, keepdim=False, *, correction=_UNSET):
    return _statistic("var_mean", input, dim, unbiased, keepdim, correction)


def std_mean(input, dim=_UNSET, unbiased=_UNSET, keepdim=False, *, correction=_UNSET):
    return _statistic("std_mean", input, dim, unbiased, keepdim, correction)


def logsumexp(input, dim, keepdim=False):
    """log(sum(exp(x))) with the maxima (those not infinite) taken out first, in the input's
    float dtype (an integer input in float32)."""
    data = input._data
    if data.dtype.kind != "f":
        data = data.astype(np.float32)
    dims = _dims(dim, data.ndim)
    if isinstance(dim, (list, tuple)) and not dim and data.ndim:
        raise TorchRuntimeError(f"output with shape [] doesn't match the broadcast shape "
                                f"[{', '.join(['1'] * data.ndim)}]")
    _check_reduced(data, dims)
    _check_like(data.shape, itemsize=data.itemsize)
    with np.errstate(all="ignore"):
        if data.size:
            maxes = data.max(axis=dims, keepdims=True)
            maxes = np.where(np.abs(maxes) == np.inf, np.zeros((), data.dtype), maxes)
            out = np.log(np.exp(data - maxes).sum(axis=dims, keepdims=bool(keepdim)))
            out = out + (maxes if keepdim else maxes.reshape(out.shape))
        else:
            out = np.log(np.exp(data).sum(axis=dims, keepdims=bool(keepdim)))
    seq = _begin(input)
    return _record(TABLE["logsumexp"], seq, np.asarray(out, data.dtype), (input,),
                   attrs={"dim": _raw_dims(dim), "keepdim": bool(keepdim)})


def _extreme(name, pick):
    def forward(input, dim=(), keepdim=False):
        dim = () if dim is None else dim            # (PyTorch's parser takes None for an empty list here)
        data = input._data
        _check_reads(input)
        dims = _dims(dim, data.ndim)
        if dims is None and data.size == 0:
            raise TorchRuntimeError(f"{name}(): Expected reduction dim to be specified for input.numel() == 0. "
                                    "Specify the reduction dim with the 'dim' argument.")
        for d in dims or ():
            if data.shape[d] == 0:
                raise TorchIndexError(f"{name}(): Expected reduction dim {d} to have non-zero size.")
        _check_reduced(data, dims)
        out = np.asarray(pick(data, axis=dims, keepdims=bool(keepdim)), data.dtype)
        seq = _begin(input)
        return _record(TABLE[name], seq, out, (input,), attrs={"dim": _raw_dims(dim), "keepdim": bool(keepdim)})
    forward.__name__ = name
    return forward


amax = _extreme("amax", np.max)
amin = _extreme("amin", np.min)


class _MinMax(tuple):
    """torch.return_types.aminmax(min=..., max=...)."""

    min = property(lambda self: self[0])
    max = property(lambda self: self[1])

    def __repr__(self):
        return f"torch.return_types.aminmax(\nmin={self[0]!r},\nmax={self[1]!r})"

    __str__ = __repr__


def aminmax(input, *, dim=None, keepdim=False):
    data = input._data
    _check_reads(input)
    axis = None if dim is None else _norm_dim(dim, _b.max(data.ndim, 1))
    if data.size == 0 and dim is None:
        raise TorchRuntimeError("aminmax(): cannot compute aminmax over an empty dimension as the operation has no "
                                "identity.")
    if axis is not None and data.ndim and data.shape[axis] == 0:
        raise TorchIndexError(f"aminmax: Expected reduction dim {axis} to have non-zero size.")
    if not data.ndim:
        axis = None
    keep = bool(keepdim) and (dim is not None or data.ndim > 0)
    low = np.asarray(data.min(axis=axis, keepdims=keep), data.dtype)
    high = np.asarray(data.max(axis=axis, keepdims=keep), data.dtype)
    seq = _begin(input)
    first = _record(TABLE["aminmax"], seq, low, (input,), extra={"min": None, "max": None},
                    attrs={"dim": dim, "keepdim": bool(keepdim)})
    return _MinMax(_two_outputs(first, high, ("min", "max")))


def nansum(input, dim=None, keepdim=False, *, dtype=None):
    """sum counting nan as zero; integers and bools sum as int64."""
    data = input._data
    out_dt = data.dtype if data.dtype.kind == "f" else np.dtype(np.int64)
    if dtype is not None:
        out_dt = dtype.np
    dims = None if dim is None else _dims(dim, data.ndim)
    _check_reduced(data, dims)
    keep = bool(keepdim) and (dim is not None or data.ndim > 0)
    out = np.asarray(np.nansum(data, axis=dims, keepdims=keep, dtype=out_dt), out_dt)
    seq = _begin(input)
    return _record(TABLE["nansum"], seq, out, (input,),
                   attrs={"dim": None if dim is None else _raw_dims(dim), "keepdim": bool(keepdim)})


def nanmean(input, dim=None, keepdim=False, *, dtype=None):
    """PyTorch's composite: nansum(...) / (the number of non-nan elements), a DivBackward0."""
    data = input._data
    if data.dtype.kind != "f":
        raise TorchRuntimeError(f"nanmean(): expected input to have floating point or complex dtype but got "
                                f"{_SCALAR_NAME[data.dtype.name]}")
    dims = None if dim is None else _dims(dim, data.ndim)
    keep = bool(keepdim) and (dim is not None or data.ndim > 0)
    count = np.asarray((~np.isnan(data)).sum(axis=dims, keepdims=keep), np.int64)
    return div(nansum(input, dim, keepdim, dtype=dtype), CONFIG.tensor(count))


# ----------------------------------------------------------------------------- median and mode


def _rank_rows(rows, ignore_nan):
    """Per row (last axis): the position PyTorch's median picks. Its nth_element orders by
    (value, index), so the pick is the stable sort's element (n - 1) // 2; median returns the
    first nan of a row holding one, nanmedian leaves nans out (an all-nan row: its first)."""
    order = np.argsort(rows, axis=-1, kind="stable")          # (nan sorts last)
    nans = np.isnan(rows).sum(axis=-1) if rows.dtype.kind == "f" else np.zeros(rows.shape[:-1], np.int64)
    n = rows.shape[-1]
    if ignore_nan:
        k = np.trunc((n - nans - 1) / 2).astype(np.int64)    # (C++'s division: an all-nan row picks 0)
    else:
        k = np.where(nans > 0, n - nans, (n - 1) // 2)         # the first nan in sorted order: the first in the row
    return np.take_along_axis(order, k[..., None], axis=-1)[..., 0]


def _median(name, t, dim, keepdim, ignore_nan):
    data = t._data
    if data.dtype.kind == "b":
        kernel = "median_cpu" if dim is None else "median_out"
        raise TorchNotImplementedError_(f'"{kernel}" not implemented for \'Bool\'')
    _check_reads(t)
    if dim is None:
        flat = data.reshape(1, -1)
        if flat.size == 0:                      # nan, which an integer type holds as its minimum
            value = np.asarray(np.nan if data.dtype.kind == "f" else np.iinfo(data.dtype).min, data.dtype)
        else:
            value = flat[0, _rank_rows(flat, ignore_nan)[0]]
        return _reduce_all(TABLE[name], t, value)
    nd = data.ndim
    d = _norm_dim(dim, _b.max(nd, 1))
    if nd and data.shape[d] == 0:
        raise TorchIndexError(f"median(): Expected reduction dim {d} to have non-zero size.")     # (nanmedian's too)
    if nd == 0:
        values, idx = data.copy(), np.zeros((), np.int64)
    else:
        moved = np.moveaxis(data, d, -1)
        idx = _rank_rows(moved, ignore_nan) if moved.size else np.zeros(moved.shape[:-1], np.int64)
        values = np.take_along_axis(moved, idx[..., None], axis=-1)[..., 0]
        if keepdim:
            idx, values = np.expand_dims(idx, d), np.expand_dims(values, d)
    return _selected(name, t, values, idx, dim, keepdim, TABLE[name + "_dim"])


def _selected(name, t, values, idx, dim, keepdim, row):
    indices = CONFIG.tensor(np.asarray(idx, np.int64))
    seq = _begin(t)
    v = _record(row, seq, np.array(values, t._data.dtype, order="C"), (t,), extra={"indices": indices},
                attrs={"dim": dim, "keepdim": bool(keepdim), "self_sym_sizes": tuple(t._data.shape)})
    return _return_type(name, v, indices)


def median(input, dim=None, keepdim=False):
    """The lower median; over a dim, also where it is (a tie: the smallest index of that rank)."""
    return _median("median", input, dim, keepdim, False)


def nanmedian(input, dim=None, keepdim=False):
    return _median("nanmedian", input, dim, keepdim, True)


def mode(input, dim=-1, keepdim=False):
    """PyTorch's CPU kernel: each row's (value, position) pairs put in order by std::sort on the
    values alone (not stable: which position ends a run depends on its introsort), then the
    first longest run of equal values gives the mode and the position at its end."""
    _check_reads(input)
    data = input._data
    nd = data.ndim
    d = _norm_dim(dim, _b.max(nd, 1))
    if nd and data.shape[d] == 0:
        raise TorchIndexError(f"mode(): Expected reduction dim {d} to have non-zero size.")
    if nd == 0:
        values, idx = data.copy(), np.zeros((), np.int64)
    else:
        moved = np.moveaxis(data, d, -1)
        rows = moved.reshape(-1, moved.shape[-1])
        values = np.empty(rows.shape[0], data.dtype)
        idx = np.empty(rows.shape[0], np.int64)
        for r, row in enumerate(rows):
            pairs = list(zip(row.tolist(), range(len(row))))
            std_sort(pairs, 0, len(pairs), _first_less)
            values[r], idx[r] = _longest_run(pairs)
        values, idx = values.reshape(moved.shape[:-1]), idx.reshape(moved.shape[:-1])
        if keepdim:
            idx, values = np.expand_dims(idx, d), np.expand_dims(values, d)
    return _selected("mode", input, values, idx, dim, keepdim, TABLE["mode"])


def _first_less(a, b):
    """std::sort's comparison in PyTorch's mode: the values alone, with `<`."""
    return a[0] < b[0]


def _longest_run(pairs):
    mode, position, run, longest = 0, 0, 0, 0
    for i, (value, k) in enumerate(pairs):
        run += 1
        if i == len(pairs) - 1 or value != pairs[i + 1][0]:          # (a nan ends its own run)
            if run > longest:
                mode, position, longest = value, k, run
            run = 0
    return mode, position
