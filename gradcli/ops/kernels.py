"""NumPy kernels shared by forwards and backward formulas: convolution windows, pooling, norm axes."""
from __future__ import annotations

import builtins as _b

import numpy as np

from ..engine import TorchRuntimeError, TorchValueError


def _layer_norm_axes(x, normalized_shape):
    return tuple(range(x.ndim - len(normalized_shape), x.ndim))


# ----------------------------------------------------------------------------- convolution and pooling


def _tup(v, n):
    return tuple(v) if isinstance(v, (tuple, list)) else (v,) * n


def _conv_windows(xp, k, stride, dilation, out):
    """(N, C, *out, *k) views of the padded input xp: each output position's receptive field."""
    nd = len(k)
    span = tuple(d * (kk - 1) + 1 for kk, d in zip(k, dilation))
    w = np.lib.stride_tricks.sliding_window_view(xp, span, axis=tuple(range(2, 2 + nd)))   # (loads on first use)
    sel = (slice(None), slice(None)) + tuple(slice(None, s * (o - 1) + 1, s) for s, o in zip(stride, out)) + \
        tuple(slice(None, None, d) for d in dilation)
    return w[sel]


def _conv_out(size, k, stride, padding, dilation):
    return tuple((n + 2 * p - d * (kk - 1) - 1) // s + 1 for n, kk, s, p, d in zip(size, k, stride, padding, dilation))


def _pad(x, padding, value=0.0):
    if not any(padding):
        return x
    return np.pad(x, ((0, 0), (0, 0)) + tuple((p, p) for p in padding), constant_values=value)


_SPATIAL = "xyz"
_KERNEL = "ijk"


def _is_channels_last(a):
    """PyTorch's is_channels_last_strides_2d: a 4-D array whose strides say NHWC (ambiguous
    layouts count as NCHW)."""
    if a.ndim != 4 or a.strides[1] == 0:
        return False
    low = 0
    for d in (1, 3, 2, 0):
        if a.shape[d] == 0 or a.strides[d] < low or (d == 0 and low == a.strides[1]):
            return False
        low = a.strides[d] * (a.shape[d] if a.shape[d] > 1 else 1)
    return True


def _conv_layout(y, x, w):
    """A convolution result (output, grad_input, grad_weight) in the memory format PyTorch's CPU
    convolution gives all three: channels-last when the input or the weight is, else contiguous."""
    if y.ndim == 4 and (_is_channels_last(x) or _is_channels_last(w)):
        return np.ascontiguousarray(y.transpose(0, 2, 3, 1)).transpose(0, 3, 1, 2)
    return np.ascontiguousarray(y)


def _conv_forward(x, w, stride, padding, dilation, groups):
    nd = x.ndim - 2
    k = w.shape[2:]
    out = _conv_out(x.shape[2:], k, stride, padding, dilation)
    win = _conv_windows(_pad(x.astype(np.float64), padding), k, stride, dilation, out)
    n, c = x.shape[:2]
    win = win.reshape((n, groups, c // groups) + win.shape[2:])
    wg = w.astype(np.float64).reshape((groups, w.shape[0] // groups) + w.shape[1:])
    sp, kk = _SPATIAL[:nd], _KERNEL[:nd]
    y = np.einsum(f"ngc{sp}{kk},goc{kk}->ngo{sp}", win, wg, optimize=True)
    return _conv_layout(y.reshape((n, w.shape[0]) + out), x, w)


def _conv_backward_input(g, x, w, stride, padding, dilation, groups):
    nd = x.ndim - 2
    k = w.shape[2:]
    n, c = x.shape[:2]
    out = g.shape[2:]
    sp, kk = _SPATIAL[:nd], _KERNEL[:nd]
    gg = g.astype(np.float64).reshape((n, groups, w.shape[0] // groups) + out)
    wg = w.astype(np.float64).reshape((groups, w.shape[0] // groups) + w.shape[1:])
    cols = np.einsum(f"ngo{sp},goc{kk}->ngc{sp}{kk}", gg, wg, optimize=True).reshape((n, c) + out + tuple(k))
    padded = np.zeros((n, c) + tuple(s + 2 * p for s, p in zip(x.shape[2:], padding)))
    for offs in np.ndindex(*k):
        sel = (slice(None), slice(None)) + tuple(slice(o * d, o * d + s * (m - 1) + 1, s)
                                                 for o, d, s, m in zip(offs, dilation, stride, out))
        padded[sel] += cols[(Ellipsis,) + offs]
    crop = (slice(None), slice(None)) + tuple(slice(p, p + s) for p, s in zip(padding, x.shape[2:]))
    return _conv_layout(padded[crop].astype(x.dtype), x, w)


def _conv_backward_weight(g, x, w, stride, padding, dilation, groups):
    nd = x.ndim - 2
    k = w.shape[2:]
    n, c = x.shape[:2]
    out = g.shape[2:]
    sp, kk = _SPATIAL[:nd], _KERNEL[:nd]
    win = _conv_windows(_pad(x.astype(np.float64), padding), k, stride, dilation, out)
    win = win.reshape((n, groups, c // groups) + win.shape[2:])
    gg = g.astype(np.float64).reshape((n, groups, w.shape[0] // groups) + out)
    gw = np.einsum(f"ngo{sp},ngc{sp}{kk}->goc{kk}", gg, win, optimize=True)
    return _conv_layout(gw.reshape(w.shape).astype(w.dtype), x, w)


def _pool_out(n, k, s, p, d, ceil_mode):
    """pooling_output_shape."""
    num = n + 2 * p - d * (k - 1) - 1 + (s - 1 if ceil_mode else 0)
    out = num // s + 1
    if ceil_mode and (out - 1) * s >= n + p:
        out -= 1
    return out


def _max_pool_forward(x, k, stride, padding, dilation, ceil_mode):
    n, c, h, w = x.shape
    out = tuple(_pool_out(sz, kk, s, p, d, ceil_mode) for sz, kk, s, p, d in zip((h, w), k, stride, padding, dilation))
    extra = tuple(_b.max(0, (o - 1) * s + d * (kk - 1) + 1 - (sz + 2 * p))
                  for o, s, d, kk, sz, p in zip(out, stride, dilation, k, (h, w), padding))
    xp = np.pad(x, ((0, 0), (0, 0)) + tuple((p, p + e) for p, e in zip(padding, extra)), constant_values=-np.inf)
    win = _conv_windows(xp, k, stride, dilation, out).reshape(n, c, out[0], out[1], -1)
    arg = np.argmax(win, axis=-1)
    nan = np.isnan(win)
    if nan.any():                                   # PyTorch's max keeps the first nan
        arg = np.where(nan.any(-1), np.argmax(nan, axis=-1), arg)
    values = np.take_along_axis(win, arg[..., None], -1)[..., 0]
    ki, kj = np.divmod(arg, k[1])
    rows = np.arange(out[0])[:, None] * stride[0] - padding[0] + ki * dilation[0]
    cols = np.arange(out[1])[None, :] * stride[1] - padding[1] + kj * dilation[1]
    return values.astype(x.dtype), (rows * w + cols).astype(np.int64)


def _max_pool_backward(g, self, indices):
    planes = int(np.prod(self.shape[:-2]))
    out = np.zeros((planes, self.shape[-2] * self.shape[-1]), g.dtype)
    np.add.at(out, (np.arange(planes)[:, None], indices.reshape(planes, -1)), g.reshape(planes, -1))
    return out.reshape(self.shape)


def _avg_pool_divisors(size, k, stride, padding, out, count_include_pad, divisor_override):
    """Each output position's divisor (avg_pool2d's kernel), shape `out`."""
    if divisor_override:
        return np.full(out, float(divisor_override))
    counts = []
    for n, kk, s, p, o in zip(size, k, stride, padding, out):
        start = np.arange(o) * s - p
        end = np.minimum(start + kk, n + p)
        pool = end - start
        cnt = np.minimum(end, n) - np.maximum(start, 0)
        counts.append(pool if count_include_pad else cnt)
    return np.outer(counts[0], counts[1]).astype(np.float64)


def _avg_pool_forward(x, k, stride, padding, ceil_mode, count_include_pad, divisor_override):
    n, c, h, w = x.shape
    out = tuple(_pool_out(sz, kk, s, p, 1, ceil_mode) for sz, kk, s, p in zip((h, w), k, stride, padding))
    extra = tuple(_b.max(0, (o - 1) * s + kk - (sz + 2 * p)) for o, s, kk, sz, p in zip(out, stride, k, (h, w), padding))
    xp = np.pad(x.astype(np.float64), ((0, 0), (0, 0)) + tuple((p, p + e) for p, e in zip(padding, extra)))
    win = _conv_windows(xp, k, stride, (1, 1), out)
    div = _avg_pool_divisors((h, w), k, stride, padding, out, count_include_pad, divisor_override)
    return (win.sum(axis=(-2, -1)) / div).astype(x.dtype)


def _avg_pool_backward(g, self, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override):
    stride = stride or kernel_size
    if self.ndim == 3:                              # unbatched
        return _avg_pool_backward(g[None], self[None], kernel_size, stride, padding, ceil_mode, count_include_pad,
                                  divisor_override)[0]
    n, c, h, w = self.shape
    out = g.shape[2:]
    div = _avg_pool_divisors((h, w), kernel_size, stride, padding, out, count_include_pad, divisor_override)
    gd = g.astype(np.float64) / div
    extra = tuple(_b.max(0, (o - 1) * s + kk - (sz + 2 * p))
                  for o, s, kk, sz, p in zip(out, stride, kernel_size, (h, w), padding))
    padded = np.zeros((n, c, h + 2 * padding[0] + extra[0], w + 2 * padding[1] + extra[1]))
    for i, j in np.ndindex(*kernel_size):
        padded[:, :, i:i + stride[0] * (out[0] - 1) + 1:stride[0], j:j + stride[1] * (out[1] - 1) + 1:stride[1]] += gd
    return padded[:, :, padding[0]:padding[0] + h, padding[1]:padding[1] + w].astype(g.dtype)

# ----------------------------------------------------------------------------- batch norm


def _bn_axes(x):
    return (0,) + tuple(range(2, x.ndim))


# -- PyTorch's intra-op thread count: its CPU kernels split some reductions by it (batch norm's statistics)


_num_threads = []       # the count torch.set_num_threads gave, once given


def _physical_cores():
    try:
        with open("/proc/cpuinfo") as f:
            cores = {line.split(":")[1].strip() for line in f if line.startswith("core id")}
        return len(cores) or None
    except OSError:
        return None


def get_num_threads():
    """PyTorch's intra-op thread count (its CPU kernels split some reductions by it): set_num_threads's,
    else OMP_NUM_THREADS or MKL_NUM_THREADS, else the physical cores."""
    if not _num_threads:
        import os
        env = os.environ.get("OMP_NUM_THREADS") or os.environ.get("MKL_NUM_THREADS")
        _num_threads.append(int(env) if env and env.isdigit() and int(env) > 0
                            else _physical_cores() or os.cpu_count() or 1)
    return _num_threads[0]


def set_num_threads(n):
    if type(n) is not int:
        raise TorchRuntimeError(f"set_num_threads expects an int, but got {type(n).__name__}")
    if not -2 ** 31 <= n < 2 ** 31:         # a C int, read through a long long
        raise TorchValueError("Overflow when unpacking long" + (" long" if not -2 ** 63 <= n < 2 ** 63 else ""))
    if n <= 0:
        raise TorchRuntimeError("set_num_threads expects a positive integer")
    _num_threads[:] = [n]
