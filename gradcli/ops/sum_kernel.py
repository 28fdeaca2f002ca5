"""PyTorch's CPU floating-point sum, in its own order (SumKernel.cpp's cascade_sum under TensorIterator).

A float sum's last bit depends on the order of its additions, so this follows PyTorch's: the
reduction's dimensions reordered and coalesced as TensorIterator does, the 2-d loop split by
threads as parallel_reduce does, and in each 2-d loop the same vectorised lanes, ILP accumulators
and cascade levels as cascade_sum. Every lane is a NumPy axis, so the work stays vectorised.
"""
from __future__ import annotations

import os
import platform

import numpy as np

from .kernels import get_num_threads

GRAIN_SIZE = 32768      # at::internal::GRAIN_SIZE: below it a reduction runs on one thread
_NUM_LEVELS = 4         # multi_row_sum's cascade levels
_ILP = 4                # row_sum's independent accumulators, vectorized_outer_sum's rows per pass


def vector_bytes():
    """The width of the Vectorized<T> the sum kernel runs with. sum_stub is registered with
    REGISTER_DISPATCH, which leaves the AVX512 slot empty, so an AVX512 CPU runs the AVX2 kernel:
    on x86 every capability (default, avx2, avx512) has 32-byte vectors. aarch64 has 16-byte
    NEON vectors unless PyTorch is told to run its SVE256 kernels (not read from the CPU)."""
    if platform.machine().lower() in ("aarch64", "arm64"):
        return 32 if os.environ.get("ATEN_CPU_CAPABILITY", "").lower() == "sve256" else 16
    return 32


# -- the additions: each function sums along axis 0; the other axes are independent lanes


def _seq_sum(x, axis=0):
    """((x[0] + x[1]) + x[2]) + ... along axis 0 or 1: one accumulator, in order (no rows: zeros)."""
    x = x.swapaxes(0, axis)
    if len(x) == 0:
        return np.zeros(x.shape[1:], x.dtype)
    if len(x) > 64 or x.size <= 4096:          # one NumPy call, in the same order
        return np.add.accumulate(x, axis=0)[-1]
    acc = np.array(x[0])                        # wide rows: a row at a time is faster
    for row in x[1:]:
        np.add(acc, row, out=acc)
    return acc


def _ceil_log2(n):
    return 1 if n <= 2 else (n - 1).bit_length()


def multi_row_sum(x):
    """multi_row_sum: four cascade levels; level 0 adds level_step rows in order, and each level
    passes its total up after level_step of the level below (the top level keeps all)."""
    n = len(x)
    step = 1 << max(4, _ceil_log2(n) // _NUM_LEVELS)
    if n < step:                                # only level 0
        return _seq_sum(x)
    level, tail = x[:n - n % step], x[n - n % step:]
    held = []               # what each level holds when the rows run out (None: nothing, a zero)
    for _ in range(_NUM_LEVELS - 1):
        groups = len(level) // step
        rest = level[groups * step:]            # (level 0: nothing, its rows come in whole steps)
        held.append(_seq_sum(rest) if len(rest) else None)
        level = _seq_sum(level[:groups * step].reshape((groups, step) + x.shape[1:]), axis=1) if groups else \
            level[:0]
    acc = _seq_sum(tail) if len(tail) else np.zeros(x.shape[1:], x.dtype)
    for total in held[1:] + [_seq_sum(level) if len(level) else None]:
        acc = acc + (0 if total is None else total)        # (a zero level still makes -0 a +0)
    return acc


def row_sum(x):
    """row_sum: rows i*4 + k go to accumulator k (a cascade each), the leftover rows to
    accumulator 0, then the four are added in order."""
    n = len(x) // _ILP
    partial = multi_row_sum(x[:n * _ILP].reshape((n, _ILP) + x.shape[1:]))
    return _seq_sum(np.concatenate([partial[:1], x[n * _ILP:], partial[1:]]))


def vectorized_inner_sum(x, lanes):
    """The reduced dim is contiguous: row_sum over whole vectors, then the scalar leftovers and
    the vector's lanes added in order."""
    n = len(x) // lanes
    vec = row_sum(x[:n * lanes].reshape((n, lanes) + x.shape[1:]))
    return _seq_sum(np.concatenate([x[n * lanes:], vec]))


def vectorized_outer_sum(x, lanes):
    """The kept dim is contiguous: four vectors of columns at a time are plain cascades; the
    columns left over (a vector at a time, then one by one) are row_sums."""
    full = x.shape[1] - x.shape[1] % (_ILP * lanes)
    return np.concatenate([multi_row_sum(x[:, :full]), row_sum(x[:, full:])], axis=0)


def scalar_outer_sum(x):
    """Neither dim contiguous, the reduced one the outer: four columns at a time are plain
    cascades, the columns left over row_sums."""
    full = x.shape[1] - x.shape[1] % _ILP
    return np.concatenate([multi_row_sum(x[:, :full]), row_sum(x[:, full:])], axis=0)


def loop2d(x, in_strides, out_strides):
    """cascade_sum's 2-d loop over x (size0, size1, *calls), dim 0 reduced after the swap: the
    values it stores (out += value), and the output stride of each of their leading axes."""
    if out_strides[0] != 0 and out_strides[1] == 0:
        x = x.swapaxes(0, 1)
        in_strides, out_strides = in_strides[::-1], out_strides[::-1]
    if out_strides[0] != 0:                     # not a reduction: out += in
        return x, out_strides
    item = x.itemsize
    lanes = vector_bytes() // item
    size0, size1 = x.shape[:2]
    if in_strides[0] == item and size0 >= lanes:
        out = vectorized_inner_sum(x, lanes)
    elif in_strides[1] == item and size1 >= lanes:
        out = vectorized_outer_sum(x, lanes)
    elif in_strides[0] < in_strides[1]:
        out = row_sum(x)
    else:
        out = scalar_outer_sum(x)
    return out, out_strides[1:]


# -- TensorIterator: the dims of a reduction, their order, and how the work is split


def reduction_dims(shape, strides, reduced):
    """TensorIterator's reorder_dimensions and coalesce_dimensions for a reduction: [size, input
    stride (bytes), output stride (elements, 0 if reduced)] per dim, fastest first, reduced dims
    first. The output is contiguous over the kept dims."""
    out_stride, out_strides = 1, [0] * len(shape)
    for d in reversed(range(len(shape))):
        if d not in reduced:
            out_strides[d] = out_stride
            out_stride *= shape[d]
    dims = [[shape[d], strides[d], out_strides[d]] for d in reversed(range(len(shape)))]

    def should_swap(a, b):
        if (a[2] == 0) != (b[2] == 0):              # the output: reduced dims go to the front
            return 1 if b[2] == 0 else -1
        for s0, s1 in ((a[2], b[2]), (a[1], b[1])):
            if s0 == 0 or s1 == 0:
                continue
            if s0 != s1:
                return -1 if s0 < s1 else 1
            if a[0] > b[0]:
                return 1
        return 0

    for i in range(1, len(dims)):
        j = i
        for k in range(i - 1, -1, -1):
            c = should_swap(dims[k], dims[j])
            if c > 0:
                dims[k], dims[j] = dims[j], dims[k]
                j = k
            elif c < 0:
                break
    merged = dims[:1]
    for dim in dims[1:]:
        prev = merged[-1]
        if prev[0] == 1 or dim[0] == 1 or (prev[0] * prev[1] == dim[1] and prev[0] * prev[2] == dim[2]):
            if prev[0] == 1:
                prev[1], prev[2] = dim[1], dim[2]
            prev[0] *= dim[0]
        else:
            merged.append(dim)
    return merged or [[1, 0, 0]]


def _view(data, dims):
    """The input as the iterator walks it: axes in the iterator's order, fastest first."""
    return np.lib.stride_tricks.as_strided(data, [d[0] for d in dims], [d[1] for d in dims], writeable=False)


def _store(out, values, strides, base=0):
    """out[pos] += each value, in the order the loop stores them: values' axes run slowest to
    fastest; the values landing on one output (stride 0) are added to it one after another."""
    kept = [a for a, s in enumerate(strides) if s != 0]
    same = [a for a, s in enumerate(strides) if s == 0]
    pos = np.asarray(base)
    for a in kept:
        pos = np.add.outer(pos, np.arange(values.shape[a]) * strides[a])
    values = values.transpose(kept + same).reshape(pos.shape + (-1,))
    out[pos] = _seq_sum(np.concatenate([out[pos][None], np.moveaxis(values, -1, 0)]))


def serial_for_each(out, view, out_strides, base=0):
    """Every 2-d loop of the iteration at once: the dims past the first two are batched calls."""
    if view.ndim == 1:
        view, out_strides = view[:, None], list(out_strides) + [0]
    in_strides = view.strides[:2]
    values, strides = loop2d(view, in_strides, out_strides[:2])
    # values: (*the loop's output axes, *calls); calls run with dims[2] fastest, loop axes fastest of all
    nloop = len(strides)
    order = list(range(values.ndim - 1, nloop - 1, -1)) + list(range(nloop - 1, -1, -1))
    all_strides = list(strides) + list(out_strides[2:])
    _store(out, values.transpose(order), [all_strides[a] for a in order], base)


def _for_range(out, view, out_strides, begin, end):
    """serial_for_each over the linear range [begin, end) (dim 0 fastest): DimCounter's 2-d steps,
    the first and last of which may cover part of a row."""
    shape = view.shape
    if view.ndim == 1:
        serial_for_each(out, view[begin:end], out_strides)
        return
    offset = begin
    while offset < end:
        values = np.unravel_index(offset, shape[::-1])[::-1]
        step0 = min(shape[0] - values[0], end - offset)
        step1 = max(1, min(shape[1] - values[1], (end - offset) // shape[0])) if values[0] == 0 else 1
        block = view[(slice(values[0], values[0] + step0), slice(values[1], values[1] + step1)) + tuple(values[2:])]
        base = sum(int(v) * s for v, s in zip(values, out_strides))
        serial_for_each(out, block, out_strides[:2], base)
        offset += step0 * step1


def _thread_ranges(n, grain):
    """at::parallel_for's split of [0, n): one chunk per thread, no smaller than grain."""
    threads = get_num_threads()
    if n <= grain or threads == 1:
        return [(0, n)]
    count = min(threads, -(-n // grain))
    chunk = -(-n // count)
    return [(b, min(n, b + chunk)) for b in range(0, n, chunk)]


def cascade_sum(a, reduced):
    """PyTorch's sum of the float array a over the dims in reduced (all of them for a full sum):
    the kept dims' array, in a's dtype."""
    if any(s < 0 for s in a.strides):           # a PyTorch tensor never walks memory backwards
        a = np.ascontiguousarray(a)
    if a.ndim and len(reduced) == a.ndim and a.flags.c_contiguous and 0 < a.size < GRAIN_SIZE:
        # the commonest sum, of a whole small tensor: its dims coalesce into one contiguous dim,
        # one 2-d loop of one column (serial_for_each's), stored into a zero
        x = a.reshape(-1)[:, None]
        values, _ = loop2d(x, x.strides, [0, 0])
        return np.zeros((), a.dtype) + values.reshape(())
    kept = tuple(n for d, n in enumerate(a.shape) if d not in reduced)
    dims = reduction_dims(a.shape, a.strides, reduced)
    view = _view(a, dims)
    out_strides = [d[2] for d in dims]
    out = np.zeros(int(np.prod(kept)), a.dtype)
    if a.size < GRAIN_SIZE or get_num_threads() == 1:
        serial_for_each(out, view, out_strides)
    elif out.size == 1:                         # two_pass_reduction: a slot per thread, then their sum
        slots = np.zeros(get_num_threads(), a.dtype)
        for thread, (begin, end) in enumerate(_thread_ranges(a.size, GRAIN_SIZE)):
            _for_range(slots[thread:thread + 1], view, out_strides, begin, end)
        serial_for_each(out, slots, [0])
    else:                                       # parallel_dim_reduction: threads take slices of a kept dim
        dim = _split_dim(dims)
        cols = dims[dim][0]
        round_to = 128 // a.itemsize if dims[dim][1] == a.itemsize else 1
        for begin, end in _thread_ranges(cols, 1):
            begin -= begin % round_to
            end = end if end == cols else end - end % round_to
            if begin != end:
                part = view[(slice(None),) * dim + (slice(begin, end),)]
                serial_for_each(out, part, out_strides, begin * out_strides[dim])
    return (out + 0).reshape(kept)        # out starts at +0: a zero sum is never -0


def _split_dim(dims):
    """find_split_dim: the outermost kept dim with a slice for every thread, else the largest."""
    threads = get_num_threads()
    best = len(dims) - 1
    for d in range(len(dims) - 1, -1, -1):
        if dims[d][2] == 0:
            break
        if dims[d][0] >= threads:
            return d
        if dims[d][0] > dims[best][0]:
            best = d
    return best


# -- nll_loss's own cascade (LossNLL.cpp nll_loss_out_frame): not cascade_sum


_NLL_LEVELS = 8


def nll_cascade_sum(values, kept):
    """nll_loss's sum of values over the batch (kept: the targets not ignored): element b adds to
    level 0; after it, while b's bits of each level are zero, each level passes its total up (so
    element 0 goes straight to the top); an ignored element passes nothing up. The levels are
    then added in order."""
    n = len(values)
    power = max(4, _ceil_log2(n) // _NLL_LEVELS)
    index = np.flatnonzero(kept)
    values = values[index]
    held = []
    for level in range(_NLL_LEVELS - 1):
        closes = index % (1 << (power * (level + 1))) == 0
        ends = np.flatnonzero(closes)
        starts = np.concatenate([[0], ends[:-1] + 1]).astype(np.int64)
        sums = [_seq_sum(values[s:e + 1]) for s, e in zip(starts, ends)]
        held.append(_seq_sum(values[ends[-1] + 1 if len(ends) else 0:]))
        values = np.array(sums, values.dtype)
        index = index[ends]
    top = _seq_sum(values)
    acc = np.zeros((), top.dtype)
    for total in held + [top]:
        acc = acc + total
    return acc
