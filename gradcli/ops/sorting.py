"""Sorting and selection along a dimension: sort, argsort, msort, topk, kthvalue, cummax, cummin,
unique, unique_consecutive, bincount, searchsorted and bucketize.

PyTorch's CPU kernels order tied values by their algorithms (std::sort, std::partial_sort and
std::nth_element of libstdc++ for sort and topk, Sedgewick's quickselect for kthvalue), not by
position. A row without ties has one answer, which NumPy finds; a row with ties is run through the
same algorithms (below), so the indices of ties are PyTorch's too.
"""
from __future__ import annotations

import numpy as np

from .. import engine as E
from ..engine import CONFIG, TensorBase
from ..engine import TorchIndexError, TorchRuntimeError, TorchTypeError, TorchValueError
from ..engine import TorchNotImplementedError as TorchNotImplementedError_
from .numeric import _SCALAR_NAME
from .record import _begin, _check_reads, _record
from .reduction import _return_type
from .indexing import _scatter_np, scatter, scatter_add
from .shape import unsqueeze
from .table import TABLE
from .std_algorithms import nth_element, partial_sort, std_sort

def _quick_select(vals, idx, k, gt):
    """PyTorch's quick_select_template (Sedgewick's), values and indices swapped together."""
    def swap(p, q):
        vals[p], vals[q] = vals[q], vals[p]
        idx[p], idx[q] = idx[q], idx[p]
    lo, hi = 0, len(vals) - 1
    while True:
        if hi <= lo:
            return
        if hi == lo + 1:
            if gt(vals[lo], vals[hi]):
                swap(lo, hi)
            return
        swap((lo + hi) >> 1, lo + 1)
        if gt(vals[lo + 1], vals[hi]):
            swap(lo + 1, hi)
        if gt(vals[lo], vals[hi]):
            swap(lo, hi)
        if gt(vals[lo + 1], vals[lo]):
            swap(lo + 1, lo)
        i, j, piv = lo + 1, hi, vals[lo]
        while True:
            i += 1
            while gt(piv, vals[i]):
                i += 1
            j -= 1
            while gt(vals[j], piv):
                j -= 1
            if j < i:
                break
            swap(i, j)
        swap(lo, j)
        if j <= k:
            lo = i
        if j >= k:
            hi = j - 1


# PyTorch's comparators: NaN is the largest value
def _gt(x, y):
    return (x != x and y == y) or x > y


def _lt_pair(x, y):
    return (x[0] == x[0] and y[0] != y[0]) or x[0] < y[0]


def _gt_pair(x, y):
    return _gt(x[0], y[0])


def _ties(rows):
    """Per row: does it hold two equal values (two NaNs count as equal)?"""
    if not rows.shape[-1]:
        return np.zeros(rows.shape[0], bool)
    s = np.sort(rows, axis=-1)
    same = s[:, 1:] == s[:, :-1]
    if rows.dtype.kind == "f":
        same |= np.isnan(s[:, 1:]) & np.isnan(s[:, :-1])
    return same.any(axis=-1)


def _order(rows, descending):
    """Every row's indices in PyTorch's order, ties kept in place (NaN largest)."""
    if not descending:
        return np.argsort(rows, axis=-1, kind="stable")
    if rows.dtype.kind == "f":
        return np.lexsort((-rows, ~np.isnan(rows)), axis=-1)
    return np.argsort(~rows.astype(np.int64), axis=-1, kind="stable")   # ~x: decreasing with x, no overflow


def _pairs(row):
    return [(v, j) for j, v in enumerate(row.tolist())]


def _sort_order(rows, descending, stable):
    order = _order(rows, descending)
    if not stable:
        lt = _gt_pair if descending else _lt_pair
        for r in np.flatnonzero(_ties(rows)):
            q = _pairs(rows[r])
            std_sort(q, 0, len(q), lt)
            order[r] = [j for _, j in q]
    return order


def topk_order(rows, k, largest, sorted):
    """at::topk's indices for each row of a 2-d array (ties as PyTorch's CPU kernel orders them)."""
    n = rows.shape[-1]
    full = _order(rows, largest)
    order = full[:, :k]
    lt = _gt_pair if largest else _lt_pair
    # sorted: only a tie among the k + 1 first values can change the answer; unsorted: the order is the algorithm's
    tied = _ties(np.take_along_axis(rows, full[:, :k + 1], -1)) if sorted else np.ones(rows.shape[0], bool)
    for r in np.flatnonzero(tied):
        q = _pairs(rows[r])
        if k * 64 <= n:
            partial_sort(q, 0, k, n, lt)
        else:
            nth_element(q, 0, k - 1, n, lt)
            if sorted:
                std_sort(q, 0, k - 1, lt)
        order[r] = [j for _, j in q[:k]]
    return order


# ----------------------------------------------------------------------------- rows along a dim


def _rows(data, d):
    """data with dim d last, as (rows, n) (0-d: one row of one), and that moved shape."""
    moved = np.moveaxis(data.reshape(data.shape or (1,)), d, -1)
    return moved.reshape(int(np.prod(moved.shape[:-1])), moved.shape[-1]), moved.shape


def _unrows(rows, moved_shape, d):
    return np.moveaxis(rows.reshape(moved_shape), -1, d)


def _selected(key, name, t, values, indices, attrs):
    """values (recorded as TABLE[key], saving the indices) and indices, as return_types.NAME."""
    indices = CONFIG.tensor(np.array(indices, np.int64, order="C"))
    seq = _begin(t)
    v = _record(TABLE[key], seq, np.array(values, order="C"), (t,), extra={"indices": indices}, attrs=attrs)
    return _return_type(name, v, indices)


def _sorted(t, d, descending, stable):
    """(values, indices) of t sorted along d."""
    data = t._data
    rows, moved = _rows(data, d)
    order = _sort_order(rows, descending, stable)
    values = np.take_along_axis(rows, order, -1)
    return (_unrows(values, moved, d).reshape(data.shape), _unrows(order, moved, d).reshape(data.shape))


def sort(t, dim=-1, descending=False, stable=None):
    """SortBackward0; with `stable` given (even False), PyTorch's sort.stable: SortBackward1."""
    _check_reads(t)
    d = E._wrap_dim(dim, t._data.ndim)
    values, indices = _sorted(t, d, descending, bool(stable))
    return _selected("sort" if stable is None else "sort_stable", "sort", t, values, indices,
                     {"dim": dim, "self_sym_sizes": tuple(t._data.shape)})


def argsort(t, dim=-1, descending=False, stable=False):
    _check_reads(t)
    d = E._wrap_dim(dim, t._data.ndim)
    return CONFIG.tensor(np.array(_sorted(t, d, descending, stable)[1], np.int64, order="C"))


def msort(t):
    return sort(t, 0).values


def topk(t, k, dim=-1, largest=True, sorted=True):
    _check_reads(t)
    data = t._data
    d = E._wrap_dim(dim, data.ndim)
    if not 0 <= k <= (data.shape[d] if data.ndim else 1):
        raise TorchRuntimeError("selected index k out of range")
    if data.dtype == np.bool_:
        raise TorchRuntimeError("topk does not support bool dtypes on CPU")
    attrs = {"dim": dim, "self_sym_sizes": tuple(data.shape)}
    if not data.ndim:
        return _selected("topk", "topk", t, data.copy(), np.zeros((), np.int64), attrs)
    rows, moved = _rows(data, d)
    order = topk_order(rows, k, largest, sorted) if k else np.zeros((rows.shape[0], 0), np.int64)
    shape = moved[:-1] + (k,)
    values = _unrows(np.take_along_axis(rows, order, -1), shape, d)
    return _selected("topk", "topk", t, values, _unrows(order, shape, d), attrs)


def kthvalue(t, k, dim=-1, keepdim=False):
    _check_reads(t)
    data = t._data
    d = E._wrap_dim(dim, data.ndim)
    size = data.shape[d] if data.ndim else 1
    if size == 0:
        raise TorchIndexError(f"kthvalue(): Expected reduction dim {d} to have non-zero size.")
    if not 1 <= k <= size:
        raise TorchRuntimeError(f"kthvalue(): selected number k out of range for dimension {d}")
    if data.dtype == np.bool_:
        raise TorchNotImplementedError_("\"kthvalue_cpu\" not implemented for 'Bool'")
    rows, moved = _rows(data, d)
    idx = _order(rows, False)[:, k - 1:k] if rows.size else np.zeros((rows.shape[0], 1), np.int64)
    for r in np.flatnonzero(_ties(rows)):
        vals, positions = rows[r].tolist(), list(range(rows.shape[-1]))
        _quick_select(vals, positions, k - 1, _gt)
        idx[r, 0] = positions[k - 1]
    shape = moved[:-1] + (1,)
    values = _unrows(np.take_along_axis(rows, idx, -1) if rows.size else np.zeros(idx.shape, data.dtype), shape, d)
    indices = _unrows(idx, shape, d)
    if not keepdim or not data.ndim:
        out_shape = tuple(n for i, n in enumerate(data.shape) if i != d)
        values, indices = values.reshape(out_shape), indices.reshape(out_shape)
    return _selected("kthvalue", "kthvalue", t, values, indices,
                     {"dim": dim, "keepdim": bool(keepdim), "self_sym_sizes": tuple(data.shape)})


def _cumulative_extreme(name, better):
    def forward(t, dim):
        _check_reads(t)
        data = t._data
        d = E._wrap_dim(dim, data.ndim) if data.size else 0      # (PyTorch returns an empty input first)
        rows, moved = _rows(data, d)
        values, indices = np.empty_like(rows), np.zeros(rows.shape, np.int64)
        nan = data.dtype.kind == "f"
        for j in range(rows.shape[-1]):      # PyTorch's predicate: a NaN always takes over, ties move on
            cur = rows[:, j]
            if j == 0:
                values[:, 0] = cur
                continue
            out = values[:, j - 1]
            take = (np.isnan(cur) | (~np.isnan(out) & better(cur, out))) if nan else better(cur, out)
            values[:, j] = np.where(take, cur, out)
            indices[:, j] = np.where(take, j, indices[:, j - 1])
        values = _unrows(values, moved, d).reshape(data.shape)
        indices = CONFIG.tensor(np.array(_unrows(indices, moved, d).reshape(data.shape), order="C"))
        seq = _begin(t)
        v = _record(TABLE[name], seq, np.array(values, order="C"), (t,), extra={"indices": indices},
                    attrs={"dim": dim})
        return _return_type(name, v, indices)
    forward.__name__ = name
    return forward


cummax = _cumulative_extreme("cummax", np.greater_equal)
cummin = _cumulative_extreme("cummin", np.less_equal)


# ----------------------------------------------------------------------------- unique values, counts, buckets


def _unique_node(key, t, values):
    """unique's values: a node whose backward raises (PyTorch has no derivative for it)."""
    seq = _begin(t)
    return _record(TABLE[key], seq, np.array(values, order="C"), (t,))


def _unique_result(values, inverse, counts, return_inverse, return_counts, every=False):
    """ATen's (output, inverse_indices, counts): an output not asked for is empty, unless `every`
    (the kernels over a dim compute them all)."""
    def index_tensor(a, wanted):
        return CONFIG.tensor(np.array(a, np.int64, order="C") if wanted or every else np.zeros(0, np.int64))
    return values, index_tensor(inverse, return_inverse), index_tensor(counts, return_counts)


def _input(fn, t):
    if not isinstance(t, TensorBase):
        raise TorchTypeError(f"{fn}(): argument 'input' (position 1) must be Tensor, not {_type_name(t)}")


def _type_name(v):
    kind = type(v)
    return kind.__name__ if kind.__module__ == "builtins" or isinstance(v, TensorBase) else \
        f"{kind.__module__}.{kind.__qualname__}"


def _truth(v):
    """bool(v), as Python code reads a flag (a NumPy array's ValueError as the script's own)."""
    try:
        return bool(v)
    except ValueError as e:
        raise TorchValueError(str(e)) from None


def _flags(fn, dim, position, **flags):
    """The ATen function's own checks of unique's flags (bool) and dim (int or None)."""
    for name, v in flags.items():
        if not isinstance(v, (bool, np.bool_)):
            raise TorchTypeError(f"{fn}(): argument '{name}' must be bool, not {_type_name(v)}")
    if dim is not None and not (isinstance(dim, (int, np.integer)) and not isinstance(dim, bool)):
        where = f" (position {position})" if position else ""
        raise TorchTypeError(f"{fn}(): argument 'dim'{where} must be int, not {_type_name(dim)}")


def unique(t, sorted=True, return_inverse=False, return_counts=False, dim=None):
    """ATen's _unique2 / unique_dim (sorted on CPU whatever `sorted` says): (output,
    inverse_indices, counts). torch.unique is Python code that picks from them (gradcli.torch)."""
    _input("_unique2" if dim is None else "unique_dim", t)
    _flags("_unique2" if dim is None else "unique_dim", dim, 2, sorted=sorted, return_inverse=return_inverse,
           return_counts=return_counts)
    _check_reads(t)
    data = t._data
    if dim is None:                 # (every NaN is a value of its own: NaN != NaN)
        values, inverse, counts = np.unique(data.reshape(-1), return_inverse=True, return_counts=True,
                                            equal_nan=False)
        return _unique_result(_unique_node("unique", t, values), inverse.reshape(data.shape), counts,
                              return_inverse, return_counts)
    if not data.ndim:
        raise TorchIndexError(f"Dimension specified as {dim} but tensor has no dimensions")
    d = E._wrap_dim(dim, data.ndim)
    if not data.size:
        if any(n == 0 for k, n in enumerate(data.shape) if k != d):
            raise TorchRuntimeError("There are 0 sized dimensions, and they aren't selected, so unique cannot be "
                                    "applied")
        empty = np.zeros(0, np.int64)
        return _unique_result(_unique_node("unique_dim", t, data.copy()), empty, empty, return_inverse, return_counts)
    slices = np.moveaxis(data, d, 0).reshape(data.shape[d], -1)
    order = np.lexsort(slices.T[::-1])
    ranked = slices[order]
    new = np.ones(len(ranked), bool)
    new[1:] = (ranked[1:] != ranked[:-1]).any(axis=1)
    group = np.cumsum(new) - 1
    inverse = np.empty(len(order), np.int64)
    inverse[order] = group
    values = np.moveaxis(np.moveaxis(data, d, 0)[order[new]], 0, d)
    return _unique_result(_unique_node("unique_dim", t, values), inverse, np.bincount(group, minlength=new.sum()),
                          return_inverse, return_counts)


def unique_consecutive(t, return_inverse=False, return_counts=False, dim=None):
    """ATen's unique_consecutive: (output, inverse_indices, counts)."""
    _input("unique_consecutive", t)
    _flags("unique_consecutive", dim, 0, return_inverse=return_inverse, return_counts=return_counts)
    _check_reads(t)
    data = t._data
    if dim is not None and not data.ndim:
        raise TorchIndexError(f"Dimension specified as {dim} but tensor has no dimensions")
    d = 0 if dim is None else E._wrap_dim(dim, data.ndim)
    flat = data.reshape(-1) if dim is None else np.moveaxis(data, d, 0)
    n = flat.shape[0]
    if n:
        changed = (flat[1:] != flat[:-1]).reshape(n - 1, int(np.prod(flat.shape[1:]))).any(axis=1)
        starts = np.concatenate(([0], np.flatnonzero(changed) + 1))
    else:
        starts = np.zeros(0, np.int64)
    values = flat[starts] if dim is None else np.moveaxis(flat[starts], 0, d)
    counts = np.diff(np.append(starts, n))
    inverse = np.repeat(np.arange(len(starts)), counts)
    return _unique_result(_unique_node("unique_consecutive", t, values),
                          inverse.reshape(data.shape) if dim is None else inverse, counts,
                          return_inverse, return_counts, every=dim is not None)


def bincount(t, weights=None, minlength=0):
    data = t._data
    if data.dtype.kind not in "iu":
        raise TorchNotImplementedError_(f"\"bincount_cpu\" not implemented for '{_SCALAR_NAME[data.dtype.name]}'")
    if minlength < 0:
        raise TorchRuntimeError("minlength should be >= 0")
    if data.ndim != 1 or (data.size and data.min() < 0):
        raise TorchRuntimeError("bincount only supports 1-d non-negative integral inputs.")
    if weights is not None and (weights._data.ndim != 1 or weights._data.shape[0] != data.shape[0]):
        raise TorchRuntimeError("weights should be 1-d and have the same length as input")
    if weights is None:
        return CONFIG.tensor(np.bincount(data, minlength=minlength).astype(np.int64))
    w = weights._data
    out_dt = w.dtype if w.dtype.kind == "f" else np.dtype(np.float64)
    out = np.zeros(_b_max(int(data.max()) + 1 if data.size else 0, minlength), out_dt)
    np.add.at(out, data, w.astype(out_dt))
    seq = _begin(weights)          # no derivative in PyTorch: a NotImplemented node, whose backward raises
    return _record(TABLE["bincount"], seq, out, (weights,), attrs={"_op": "aten::bincount"})


def _b_max(a, b):
    return a if a > b else b


def _searchsorted(boundaries, values, right, out_int32):
    """PyTorch's cus_lower_bound / cus_upper_bound, for every value at once: a binary search
    that moves right while !(boundary >= value) (upper: !(boundary > value)), in the operands'
    promoted dtype, so a NaN boundary counts as smaller and a NaN value as larger than all."""
    dt = E.result_type(boundaries, values).np
    b = boundaries._data.astype(dt)
    v = (values._data if isinstance(values, TensorBase) else np.asarray(values)).astype(dt)
    out_dt = np.int32 if out_int32 else np.int64
    if not b.shape[-1]:
        return CONFIG.tensor(np.zeros(v.shape, out_dt))
    rows_b = b.reshape(-1, b.shape[-1])
    rows_v = v.reshape(rows_b.shape[0], -1) if b.ndim > 1 else v.reshape(1, -1)
    start = np.zeros(rows_v.shape, np.int64)
    end = np.full(rows_v.shape, b.shape[-1], np.int64)
    while (start < end).any():
        active = start < end
        mid = start + ((end - start) >> 1)
        at = np.take_along_axis(rows_b, np.minimum(mid, b.shape[-1] - 1), -1)
        go_right = ~(at > rows_v) if right else ~(at >= rows_v)
        start = np.where(active & go_right, mid + 1, start)
        end = np.where(active & ~go_right, mid, end)
    return CONFIG.tensor(np.array(start.reshape(v.shape), out_dt))


def searchsorted(sorted_sequence, input, out_int32=False, right=False, side=None, sorter=None):
    b = sorted_sequence._data
    if side is not None:
        if side not in ("left", "right"):
            raise TorchRuntimeError(f"torch.searchsorted(): side can only be 'left' or 'right' but got {side}")
        if right and side == "left":
            raise TorchRuntimeError("torch.searchsorted(): side and right can't be set to opposites, got side of "
                                    "left while right was True")
        right = side == "right"
    if not b.ndim:
        raise TorchRuntimeError("torch.searchsorted(): boundaries tensor should have positive dimension, but got 0 "
                                "dimension")
    shape = input._data.shape if isinstance(input, TensorBase) else ()
    if b.ndim != 1 and (len(shape) != b.ndim or shape[:-1] != b.shape[:-1]):
        raise TorchRuntimeError(f"torch.searchsorted(): boundaries tensor should be 1 dimension or the first N-1 "
                                f"dimensions of boundaries tensor and input value tensor must match, but we got "
                                f"boundaries tensor {list(b.shape)} and input value tensor {list(shape)}")
    if sorter is not None:
        sorted_sequence = CONFIG.tensor(np.take_along_axis(b, sorter._data, -1))
    return _searchsorted(sorted_sequence, input, right, out_int32)


def bucketize(input, boundaries, out_int32=False, right=False):
    if boundaries._data.ndim != 1:
        raise TorchRuntimeError(f"boundaries tensor must be 1 dimension, but got dim({boundaries._data.ndim})")
    return _searchsorted(boundaries, input, right, out_int32)


def _not_implemented(g, name):
    raise TorchNotImplementedError_(f"the derivative for '{name}' is not implemented.")


def _derivative_error(g, name):
    """The backward of PyTorch's NotImplemented node (an op with no derivative formula)."""
    raise TorchRuntimeError(f"derivative for {name} is not implemented")


def _np_cummaxmin_backward(g, self, indices, dim):
    """PyTorch's cummaxmin_backward: an empty input is its own gradient, else zeros with the
    gradient added at the indices (scatter_add_)."""
    if not self.size:
        return self
    d = E._wrap_dim(dim, self.ndim)
    return E.written(_scatter_np(np.zeros(self.shape, g.dtype), d, indices, g, np.add), 1)


def _tensor_cummaxmin_backward(g, self, indices, dim):
    if not self._data.size:
        return self
    return scatter_add(CONFIG.tensor(np.zeros(self._data.shape, g._data.dtype)), dim, indices, g)


def _tensor_value_selecting(g, dim, indices, sizes, keepdim):
    """value_selecting_reduction_backward: zeros with the gradient scattered at the indices."""
    if not keepdim and sizes:
        g, indices = unsqueeze(g, dim), CONFIG.tensor(np.expand_dims(indices._data, dim % len(sizes)))
    return scatter(CONFIG.tensor(np.zeros(tuple(sizes), g._data.dtype)), dim, indices, g)


# their backward formulas' helpers, for ops/maths.py: on arrays, and under create_graph
NUMPY_HELPERS = {"derivative_not_implemented": _not_implemented, "derivative_error": _derivative_error, "cummaxmin_backward": _np_cummaxmin_backward}
TENSOR_HELPERS = {"derivative_not_implemented": _not_implemented, "derivative_error": _derivative_error, "cummaxmin_backward": _tensor_cummaxmin_backward,
                  "value_selecting": _tensor_value_selecting}
