"""batch_norm and layer_norm."""
from __future__ import annotations

import numpy as np

from ..engine import CONFIG, Size, TensorBase
from ..engine import TorchRuntimeError, TorchValueError
from .numeric import _F32, _SCALAR_NAME, _tensor_args
from .kernels import _bn_axes, _layer_norm_axes, get_num_threads
from .record import _begin, _record
from .table import ROWS


def _layer_norm_stats(x, normalized_shape, eps):
    axes = _layer_norm_axes(x, normalized_shape)
    x64 = x.astype(np.float64)
    mean = x64.mean(axis=axes, keepdims=True)
    var = ((x64 - mean) ** 2).mean(axis=axes, keepdims=True)
    return mean.astype(x.dtype), (1 / np.sqrt(var + eps)).astype(x.dtype)


def layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-5):
    _tensor_args("layer_norm", input=input)
    normalized_shape = tuple(normalized_shape) if not isinstance(normalized_shape, int) else (normalized_shape,)
    x = input._data
    if tuple(x.shape[x.ndim - len(normalized_shape):]) != normalized_shape or x.ndim < len(normalized_shape):
        raise TorchRuntimeError(f"Given normalized_shape={list(normalized_shape)}, expected input with shape "
                                f"[*, {', '.join(map(str, normalized_shape))}], but got input of size"
                                f"{list(x.shape)}")
    mean, rstd = _layer_norm_stats(x, normalized_shape, eps)
    # LayerNormKernelImpl: y = (x * rstd + (-mean * rstd)) * gamma + beta, each step rounded
    out = x * rstd + (-mean * rstd)
    if weight is not None:
        out = out * weight._data
    if bias is not None:
        out = out + bias._data
    stat_shape = x.shape[:x.ndim - len(normalized_shape)] + (1,) * len(normalized_shape)
    return _record(ROWS["native_layer_norm"], _begin(input, weight, bias), np.asarray(out, x.dtype, order="C"),
                   (input, weight, bias),
                   extra={"input": input, "weight": weight, "bias": bias,
                          "result1": CONFIG.tensor(mean.reshape(stat_shape)), "result2": CONFIG.tensor(rstd.reshape(stat_shape))},
                   attrs={"normalized_shape": normalized_shape})


def _bn_shape(v, x):
    return v.reshape((1, -1) + (1,) * (x.ndim - 2))


def _batch_norm_backward(g, x, weight, running_mean, running_var, save_mean, save_invstd, training, eps):
    """(grad_input, grad_weight, grad_bias) as batch_norm_cpu_backward computes them: sum(dy) and
    dotp = sum((x - mean) * dy) per channel, then dx = (dy - sum/N - (x - mean) * k) * invstd * w
    with k = dotp * invstd^2 / N (training) or dx = dy * invstd * w (eval)."""
    axes = _bn_axes(x)
    dt = x.dtype
    if training:
        mean, invstd = save_mean, save_invstd
    else:
        mean = running_mean
        invstd = (1 / np.sqrt(running_var.astype(np.float64) + eps)).astype(dt)
    w = np.ones(mean.shape, dt) if weight is None else weight
    centered = x - _bn_shape(mean, x)
    gsum = g.astype(np.float64).sum(axis=axes)
    dotp = (centered * g).astype(np.float64).sum(axis=axes)
    if training:
        n = x.size // x.shape[1]
        k = dotp.astype(dt) * invstd * invstd / dt.type(n)
        grad_mean = (gsum / n).astype(dt)
        dx = centered * _bn_shape(k, x)
        gi = (g - _bn_shape(grad_mean, x) - dx) * _bn_shape(invstd, x) * _bn_shape(w, x)
    else:
        gi = g * _bn_shape(invstd, x) * _bn_shape(w, x)
    return np.asarray(gi, dt), (dotp * invstd).astype(dt), gsum.astype(dt)


_SPLIT = 134217729.0       # 2**27 + 1: Dekker's splitting of a double into two halves


def _fma(a, b, c):
    """a * b + c rounded once, in a's dtype (a CPU's fused multiply-add): through double for
    float32; for float64 the product's rounding error is recovered exactly (Dekker) and added
    with the sum's (Knuth's two-sum)."""
    dt = a.dtype
    if dt != np.float64:
        return (a.astype(np.float64) * b + c).astype(dt)
    p = a * b
    ah = _SPLIT * a
    ah = ah - (ah - a)
    bh = _SPLIT * b
    bh = bh - (bh - b)
    err = ((ah * bh - p) + ah * (b - bh) + (a - ah) * bh) + (a - ah) * (b - bh)
    s = p + c
    v = s - p
    return s + (((p - (s - v)) + (c - v)) + err)


def _batch_norm_stats(x, threads):
    """batch_norm_cpu_collect_stats: each channel's mean and sum of squared deviations, in
    PyTorch's order. An input whose images are single values ((N, C), (N, C, 1, 1)) takes the
    channels-last kernel: the rows are split into one block per thread (one block when there are
    no more rows than threads), each block's rows are added up elementwise in the input's dtype
    (the squares fused into the sums, as its vectorised code is compiled with FMA), and the
    blocks' sums are added in double. Images are summed per channel in double, element after
    element, the squares in the input's dtype. (For float64 images PyTorch's sum of squares
    differs from this in the last bit for about 1 input in 30.)"""
    c = x.shape[1]
    n = x.size // c
    f64 = np.float64
    if n == x.shape[0]:
        rows = x.reshape(n, c)
        chunk = -(-n // threads) if n > threads else n
        blocks = [rows[start:start + chunk] for start in range(0, n, chunk)]
        total = np.zeros(c, f64)
        for b in blocks:
            total += np.add.accumulate(b, axis=0, dtype=x.dtype)[-1]
        mean = (total / n).astype(x.dtype)
        total = np.zeros(c, f64)
        for b in blocks:
            acc = np.zeros(c, x.dtype)
            for r in b - mean:
                acc = _fma(r, r, acc)
            total += acc
        return mean, total.astype(x.dtype)
    per_channel = np.moveaxis(x, 1, 0).reshape(c, n)
    mean = (np.add.accumulate(per_channel.astype(f64), axis=1)[:, -1] / n).astype(x.dtype)
    d = per_channel - mean[:, None]
    return mean, np.add.accumulate((d * d).astype(f64), axis=1)[:, -1].astype(x.dtype)


def _batch_norm_checks(input, running_mean, running_var, weight, bias, training, momentum):
    """torch.batch_norm's argument parser, _batch_norm_impl_index's sizes, batch_norm_cpu's dtypes."""
    if not isinstance(momentum, (int, float)):
        from ..engine import TorchTypeError
        raise TorchTypeError(f"batch_norm(): argument 'momentum' (position 7) must be float, not "
                             f"{type(momentum).__name__}")
    features = input._data.shape[1]
    params = (("running_mean", running_mean), ("running_var", running_var), ("weight", weight), ("bias", bias))
    for name, t in params:
        if t is None:
            if not training and name.startswith("running"):
                raise TorchRuntimeError(f"{name} must be defined in evaluation mode")
        elif t._data.size != features:
            raise TorchRuntimeError(f"{name} should contain {features} elements not {t._data.size}")
    # is_mixed_type compares the first given of weight, bias, running_mean, running_var with the
    # input; a mixed call needs float32 parameters (and a reduced-precision input), any other
    # mismatch fails where the kernel reads that parameter as the input's dtype
    given = [t._data.dtype for t in (weight, bias, running_mean, running_var) if t is not None]
    dt = input._data.dtype
    if given and given[0] != dt:
        raise TorchRuntimeError("mixed dtype (CPU): " + ("expect parameter to have scalar type of Float"
                                                         if set(given) - {_F32} else "all inputs must share same datatype."))
    other = next((d for d in given if d != dt), None)
    if other is not None:
        raise TorchRuntimeError(f"expected scalar type {_SCALAR_NAME[dt.name]} but found {_SCALAR_NAME[other.name]}")


def batch_norm(input, running_mean, running_var, weight=None, bias=None, training=False, momentum=0.1, eps=1e-5):
    if training:
        size = input._data.shape
        n = size[0] * int(np.prod(size[2:]))
        if n == 1:
            raise TorchValueError(f"Expected more than 1 value per channel when training, got input size "
                                  f"{Size(size)}")
    _batch_norm_checks(input, running_mean, running_var, weight, bias, training, momentum)
    x = input._data
    n = x.size // x.shape[1]
    if training:
        mean, var_sum = _batch_norm_stats(x, get_num_threads())
        dt = x.dtype.type
        # batch_norm_cpu_update_stats_template: var_sum / n in the input's dtype, the transform in
        # double; the running mean updated in the input's dtype, the running variance in double but
        # for (1 - momentum) * running_var
        invstd = (1 / np.sqrt((var_sum / dt(n)).astype(np.float64) + eps)).astype(x.dtype)
        if running_mean is not None:
            m = dt(momentum)
            running_mean._data[...] = m * mean + (dt(1) - m) * running_mean._data
            unbiased = (var_sum / dt(n - 1)).astype(np.float64)
            running_var._data[...] = np.float64(m) * unbiased + ((dt(1) - m) * running_var._data).astype(np.float64)
            running_mean._version_counter.bump()
            running_var._version_counter.bump()
        save_mean, save_invstd = mean, invstd
    else:
        mean = running_mean._data
        dt = x.dtype.type               # (here in the input's dtype, eps too)
        invstd = dt(1) / np.sqrt(running_var._data + dt(eps))
        save_mean = save_invstd = np.zeros(0, x.dtype)
    # batch_norm_cpu_collect_linear_and_constant_terms, then output = input * alpha + beta; the kernel
    # file is compiled with FMA, which fuses both multiply-adds
    alpha = invstd if weight is None else invstd * weight._data
    beta = _fma(-mean, alpha, np.zeros_like(alpha) if bias is None else bias._data)
    y = _fma(x, _bn_shape(alpha, x), _bn_shape(beta, x))
    return _record(ROWS["native_batch_norm"], _begin(input, weight, bias), np.asarray(y, x.dtype),
                   (input, weight, bias),
                   extra={"input": input, "weight": weight, "running_mean": running_mean, "running_var": running_var,
                          "result1": CONFIG.tensor(save_mean), "result2": CONFIG.tensor(save_invstd)},
                   attrs={"eps": eps, "training": bool(training)})
