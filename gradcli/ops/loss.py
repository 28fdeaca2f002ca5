"""Loss functions (torch.nn.functional's losses)."""
from __future__ import annotations

import numpy as np

from ..engine import CONFIG, STATE, Size, TensorBase, result_type
from ..engine import TorchIndexError, TorchRuntimeError, TorchValueError
from ..engine import TorchNotImplementedError as TorchNotImplementedError_
from .numeric import _REDUCTION_NAMES, _SCALAR_NAME, _reduction, broadcast_shapes
from .record import _begin, _check_like, _record
from .formulas import _log_sigmoid
from .table import ROWS, TABLE
from .pointwise import abs, add, div_scalar, exp, mul, mul_scalar, sub
from .reduction import _mean, _sum, log_softmax, mean, sum
from .sum_kernel import nll_cascade_sum
from .shape import expand, view
from .inplace import masked_fill_
from .linalg import _contiguous


def _broadcast_pair(input, target):
    """torch.broadcast_tensors: each operand is expanded only when its shape differs."""
    shape = broadcast_shapes(input._data.shape, target._data.shape)
    if input._data.shape != shape:
        input = expand(input, shape)
    if target._data.shape != shape:
        target = expand(target, shape)
    return input, target


def _broadcast_shapes_checked(*shapes):
    """torch.broadcast_shapes, with the error its Python code raises."""
    result = [1] * max(len(s) for s in shapes)
    for index, shape in enumerate(shapes):
        for i in range(-1, -1 - len(shape), -1):
            if shape[i] == 1 or shape[i] == result[i]:
                continue
            if result[i] != 1:
                raise TorchRuntimeError(f"Attempting to broadcast a dimension of length {shape[i]} at {i}! Mismatching "
                                        f"argument at index {index} had {Size(shape)}; but expected shape should be "
                                        f"broadcastable to {list(result)}")
            result[i] = shape[i]
    return tuple(result)


def _warn_size(input, target):
    if input._data.shape != target._data.shape:
        STATE.warn(f"Using a target size ({Size(target._data.shape)}) that is different to the input size "
                   f"({Size(input._data.shape)}). This will likely lead to incorrect results due to broadcasting. "
                   "Please ensure they have the same size.")


def _apply_reduction(loss, r):
    """apply_loss_reduction: mean() or sum() as their own nodes."""
    if r == 1:
        return mean(loss)
    if r == 2:
        return sum(loss)
    return loss


def _reduce_array(loss, r):
    if r == 0:
        return loss
    return _mean(loss, None, False) if r == 1 else _sum(loss, None, False, loss.dtype)     # PyTorch's order


def l1_loss(input, target, size_average=None, reduce=None, reduction="mean", weight=None):
    _warn_size(input, target)
    r = _reduction(reduction)
    input, target = _broadcast_pair(input, target)
    if weight is not None:
        loss = abs(sub(input, target)) * weight
    else:
        loss = abs(sub(input, target))
    return _apply_reduction(loss, r)


def _same_kind(input, target):
    """target's values in input's dtype for a float input and an integer target (the loss is
    computed in the promoted float type, as PyTorch's TensorIterator does)."""
    y = target._data
    return y.astype(input._data.dtype) if y.dtype != input._data.dtype and y.dtype.kind != "f" else y


def _float_kernel(kernel, input, target):
    """The pointwise losses have kernels for floating types only (their inputs' promoted type)."""
    kind = result_type(input, target).np
    if kind.kind != "f":
        raise TorchNotImplementedError_(f'"{kernel}" not implemented for \'{_SCALAR_NAME[kind.name]}\'')


def mse_loss(input, target, size_average=None, reduce=None, reduction="mean", weight=None):
    _float_kernel("mse_cpu", input, target)
    if target._data.dtype.kind != "f" and input._data.dtype.kind == "f" and input._data.shape == target._data.shape:
        r = _reduction(reduction)
        _check_like(input._data.shape)
        d = input._data - _same_kind(input, target)
        out = _reduce_array(np.asarray(d * d, input._data.dtype), r)
        return _record(TABLE["mse_loss"], _begin(input, target), out, (input, target), attrs={"reduction": r})
    _check_like(input._data.shape, target._data.shape)
    if input._data.shape != target._data.shape:     # F.mse_loss warns, then broadcasts both operands
        STATE.warn(f"Using a target size ({Size(target._data.shape)}) that is different to the input size "
                   f"({Size(input._data.shape)}). This will likely lead to incorrect results due to broadcasting. "
                   "Please ensure they have the same size.")
        shape = broadcast_shapes(input._data.shape, target._data.shape)
        if input._data.shape != shape:
            input = expand(input, shape)
        if target._data.shape != shape:
            target = expand(target, shape)
    r = _reduction(reduction)
    a, b = input._data, target._data
    if a.dtype != b.dtype:                          # computed in PyTorch's promoted type
        dt = result_type(input, target).np
        a, b = a.astype(dt), b.astype(dt)
    sq = np.asarray(a - b)                          # (a 0-d difference is a NumPy scalar)
    np.multiply(sq, sq, out=sq)
    out = _reduce_array(sq, r)
    seq = _begin(input, target)
    return _record(TABLE["mse_loss"], seq, out, (input, target), attrs={"reduction": r})


def smooth_l1_loss(input, target, size_average=None, reduce=None, reduction="mean", beta=1.0):
    _float_kernel("smooth_l1_cpu", input, target)
    _warn_size(input, target)
    if beta < 0:
        raise TorchRuntimeError("smooth_l1_loss does not support negative values for beta.")
    r = _reduction(reduction)
    input, target = _broadcast_pair(input, target)
    if beta == 0.0:
        return _apply_reduction(abs(sub(input, target)), r)
    x, y = input._data, _same_kind(input, target)
    z = np.abs(x - y)
    loss = np.where(z < beta, 0.5 * z * z / np.asarray(beta, x.dtype), z - np.asarray(0.5 * beta, x.dtype))
    out = _reduce_array(np.asarray(loss, result_type(input, target).np), r)     # (the operands' promoted type)
    return _record(ROWS["smooth_l1_loss"], _begin(input, target), out, (input, target),
                   attrs={"beta": beta, "reduction": r})


def huber_loss(input, target, reduction="mean", delta=1.0, weight=None):
    _float_kernel("huber_cpu", input, target)
    _warn_size(input, target)
    if delta <= 0:
        raise TorchRuntimeError("huber_loss does not support non-positive values for delta.")
    r = _reduction(reduction)
    input, target = _broadcast_pair(input, target)
    x, y = input._data, _same_kind(input, target)
    z = np.abs(x - y)
    d = np.asarray(delta, x.dtype)
    loss = np.asarray(np.where(z < d, 0.5 * z * z, d * (z - 0.5 * d)), x.dtype)
    if weight is not None:
        unweighted = _record(ROWS["huber_loss"], _begin(input, target), loss, (input, target),
                             attrs={"delta": delta, "reduction": 0})
        return _apply_reduction(unweighted * weight, r)
    return _record(ROWS["huber_loss"], _begin(input, target), _reduce_array(loss, r), (input, target),
                   attrs={"delta": delta, "reduction": r})


def binary_cross_entropy(input, target, weight=None, size_average=None, reduce=None, reduction="mean"):
    r = _reduction(reduction)
    if target._data.shape != input._data.shape:
        raise TorchValueError(f"Using a target size ({Size(target._data.shape)}) that is different to the input size "
                              f"({Size(input._data.shape)}) is deprecated. Please ensure they have the same size.")
    if weight is not None:
        new_size = _broadcast_shapes_checked(target._data.shape, weight._data.shape)
        if new_size != input._data.shape:
            raise TorchRuntimeError(f"output with shape {list(input._data.shape)} doesn't match the broadcast shape "
                                    f"{list(new_size)}")
        if weight._data.shape != new_size:
            weight = expand(weight, new_size)
    if target._data.dtype != input._data.dtype:
        raise TorchRuntimeError(f"Found dtype {_SCALAR_NAME[target._data.dtype.name]} but expected "
                                f"{_SCALAR_NAME[input._data.dtype.name]}")
    if input._data.dtype.kind != "f":
        raise TorchNotImplementedError_(f'"binary_cross_entropy" not implemented for '
                                        f'\'{_SCALAR_NAME[input._data.dtype.name]}\'')
    x, y = input._data, target._data
    if ((x < 0) | (x > 1)).any():
        raise TorchRuntimeError("all elements of input should be between 0 and 1")
    with np.errstate(all="ignore"):
        loss = (y - 1) * np.maximum(np.log1p(-x), np.asarray(-100, x.dtype)) - \
            y * np.maximum(np.log(x), np.asarray(-100, x.dtype))
    if weight is not None:
        loss = loss * weight._data
    out = _reduce_array(np.asarray(loss, x.dtype), r)
    return _record(ROWS["binary_cross_entropy"], _begin(input, target), out, (input, target),
                   extra={"weight": weight}, attrs={"reduction": r})


def binary_cross_entropy_with_logits(input, target, weight=None, size_average=None, reduce=None,
                                     reduction="mean", pos_weight=None):
    r = _reduction(reduction)
    x, y = input._data, target._data
    if x.shape != y.shape:
        raise TorchValueError(f"Target size ({Size(y.shape)}) must be the same as input size ({Size(x.shape)})")
    if x.dtype.kind != "f":
        raise TorchNotImplementedError_(f"\"log_sigmoid_cpu\" not implemented for '{_SCALAR_NAME[x.dtype.name]}'")
    if y.dtype.kind != "f":
        raise TorchRuntimeError(f"result type {_SCALAR_NAME[x.dtype.name]} can't be cast to the desired output "
                                f"type {_SCALAR_NAME[y.dtype.name]}")
    if pos_weight is not None:              # (pos_weight - 1) * target, first
        broadcast_shapes(pos_weight._data.shape, y.shape)
    for w in (weight, pos_weight):          # each broadcasts to the loss's shape, never beyond it
        if w is not None:
            shape = broadcast_shapes(x.shape, w._data.shape)
            if shape != x.shape:
                raise TorchRuntimeError(f"output with shape {list(x.shape)} doesn't match the broadcast shape "
                                        f"{list(shape)}")
    log_sigmoid = _log_sigmoid(x)
    if pos_weight is not None:
        log_sigmoid = log_sigmoid * ((pos_weight._data - 1) * y + 1)
    loss = (1 - y) * x - log_sigmoid
    if weight is not None:
        loss = loss * weight._data
    out = _reduce_array(np.asarray(loss, y.dtype), r)       # ((1 - target).mul_(input)...: target's dtype)
    return _record(ROWS["bce_with_logits"], _begin(input, target), out, (input, target),
                   extra={"weight": weight, "pos_weight": pos_weight}, attrs={"reduction": r})


def _nll_forward(x, t, weight, ignore_index, r, class_dim):
    """(loss, total_weight) of nll_loss over arrays: x holds log-probabilities with classes on class_dim."""
    keep = t != ignore_index
    safe = np.where(keep, t, 0)
    n_classes = x.shape[class_dim] if x.ndim > 1 else x.shape[0]
    bad = (safe < 0) | (safe >= n_classes)
    if bad.any():
        raise TorchIndexError(f"Target {safe[bad].reshape(-1)[0]} is out of bounds.")
    w = np.ones(safe.shape, x.dtype) if weight is None else weight[safe]
    w = np.where(keep, w, np.zeros((), x.dtype))
    if x.ndim == 1:
        picked = x[safe]
    else:
        picked = np.take_along_axis(x, np.expand_dims(safe, class_dim), axis=class_dim).squeeze(class_dim)
    losses = np.asarray(np.where(keep, -picked * w, np.zeros((), x.dtype)), x.dtype)
    if r == 0:                  # the 1-D kernel reports its weight; the batched one reports 0
        return losses, np.asarray(w.sum() if x.ndim == 1 else 0, x.dtype)
    total = nll_cascade_sum(w.reshape(-1), keep.reshape(-1))        # PyTorch's order of additions
    s = nll_cascade_sum(losses.reshape(-1), keep.reshape(-1))
    return (np.asarray(s / total, x.dtype) if r == 1 else s), total


def nll_loss(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None, reduction="mean"):
    """nll_loss_nd: 1-D and 2-D input to nll_loss, 4-D to nll_loss2d, other ranks viewed as 4-D."""
    r = _reduction(reduction)
    nd = input._data.ndim
    if nd < 1:
        raise TorchValueError(f"Expected 1 or more dimensions (got {nd})")
    batch = target._data.shape[0] if target._data.ndim else 0      # (PyTorch reads a 0-d target's size as 0)
    if nd != 1 and input._data.shape[0] != batch:
        raise TorchValueError(f"Expected input batch_size ({input._data.shape[0]}) to match target batch_size "
                              f"({batch}).")
    if nd in (1, 2):
        _nll_check(input._data, target._data, weight)
        return _nll(ROWS["nll_loss"], input, target, weight, ignore_index, r)
    if nd == 4:
        return _nll(ROWS["nll_loss2d"], input, target, weight, ignore_index, r)
    n, c = input._data.shape[:2]
    out_size = (n,) + tuple(input._data.shape[2:])
    if tuple(target._data.shape[1:]) != tuple(input._data.shape[2:]):
        raise TorchRuntimeError(f"Expected target size {list(out_size)}, got {list(target._data.shape)}")
    input_ = _contiguous(input)
    target_ = target
    if input_._data.size > 0 and target_._data.size > 0:
        input_ = view(input_, (n, c, 1, input_._data.size // (n * c)))
        target_ = view(target_, (n, 1, target_._data.size // n))
    ret = _nll(ROWS["nll_loss2d"], input_, target_, weight, ignore_index, r)
    return view(ret, out_size) if r == 0 else ret


def _nll_check(x, t, weight):
    """nll_loss_forward's checks, in its order."""
    if t.ndim > 1:
        raise TorchRuntimeError("0D or 1D target tensor expected, multi-target not supported")
    _nll_target_dtype(t)
    if x.ndim == 1 and t.ndim == 1 and t.shape[0] != 1:
        raise TorchValueError(f"For 1D input, 1D target must have size 1, but got target size: {t.shape[0]}")
    _check_class_weight("", weight, x.shape[-1])


def _check_class_weight(prefix, weight, n_classes):
    if weight is not None and (weight._data.ndim != 1 or weight._data.size != n_classes):
        raise TorchRuntimeError(f"{prefix}weight tensor should be defined either for all {n_classes} classes or no "
                                f"classes but got weight tensor of shape: {list(weight._data.shape)}")


def _nll_target_dtype(t):
    if t.dtype not in (np.int64, np.uint8):
        raise TorchRuntimeError(f"expected target dtype to be Long or Byte, but got {_SCALAR_NAME[t.dtype.name]}")


def _nll(row, input, target, weight, ignore_index, r):
    _nll_target_dtype(target._data)
    if input._data.dtype.kind != "f":
        kernel = "nll_loss_out_frame" if row is ROWS["nll_loss"] else "nll_loss2d_forward_out_frame"
        raise TorchNotImplementedError_(f"\"{kernel}\" not implemented for "
                                          f"'{_SCALAR_NAME[input._data.dtype.name]}'")
    if weight is not None and weight._data.dtype != input._data.dtype:
        raise TorchRuntimeError(f"expected scalar type {_SCALAR_NAME[input._data.dtype.name]} but found "
                                f"{_SCALAR_NAME[weight._data.dtype.name]}")
    w = None if weight is None else weight._data
    out, total = _nll_forward(input._data, target._data.astype(np.int64), w, ignore_index, r, 1)
    return _record(row, _begin(input), out, (input,),
                   extra={"target": target, "total_weight": CONFIG.tensor(total), "weight": weight},
                   attrs={"ignore_index": ignore_index, "reduction": r})


def cross_entropy(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None,
                  reduction="mean", label_smoothing=0.0):
    """cross_entropy_loss: log_softmax over the class dim, then nll_loss (class indices) or the
    weighted sum of -log-probabilities times target probabilities; label smoothing mixes in the
    mean over classes."""
    r = _reduction(reduction)
    if label_smoothing > 1.0:           # (a negative one is not refused)
        raise TorchRuntimeError(f"label_smoothing must be between 0.0 and 1.0. Got: {label_smoothing:g}")
    class_dim = 0 if input._data.ndim == 1 else 1
    if input._data.shape == target._data.shape:          # class probabilities
        if target._data.dtype.kind != "f":
            raise TorchRuntimeError(f"Expected floating point type for target with class probabilities, got "
                                    f"{_SCALAR_NAME[target._data.dtype.name]}")
        if ignore_index >= 0:
            raise TorchRuntimeError("ignore_index is not supported for floating point target")
        return _cross_entropy_probabilities(log_softmax(input, class_dim), target, weight, r, label_smoothing,
                                            class_dim)
    logp = log_softmax(input, class_dim)
    if label_smoothing <= 0.0:
        return nll_loss(logp, target, weight, ignore_index=ignore_index, reduction=reduction)
    return _cross_entropy_label_smoothing(logp, target, weight, r, ignore_index, label_smoothing, class_dim)


def _class_weight_view(weight, input, class_dim):
    shape = [1] * input._data.ndim
    shape[class_dim] = weight._data.shape[0]
    return view(weight, tuple(shape))


def _cross_entropy_probabilities(logp, target, weight, r, label_smoothing, class_dim):
    n_classes = logp._data.shape[class_dim]
    _check_class_weight("cross_entropy: ", weight, n_classes)
    if label_smoothing > 0:
        target = target * (1 - label_smoothing) + (label_smoothing / n_classes)
    prod = logp * target
    if weight is not None:
        prod = prod * _class_weight_view(weight, logp, class_dim)
    if r == 1:
        return div_scalar(-sum(prod), logp._data.size // n_classes)
    if r == 2:
        return -sum(prod)
    return -sum(prod, class_dim)


def _cross_entropy_label_smoothing(logp, target, weight, r, ignore_index, label_smoothing, class_dim):
    n_classes = logp._data.shape[class_dim]
    nll = nll_loss(logp, target, weight, ignore_index=ignore_index, reduction=_REDUCTION_NAMES[r])
    ignore_mask = target == ignore_index
    if weight is not None:
        smooth = -sum(logp * _class_weight_view(weight, logp, class_dim), class_dim)
    else:
        smooth = -sum(logp, class_dim)
    smooth = masked_fill_(smooth, ignore_mask, 0.0)
    if r == 1:
        if weight is not None:
            kept = target._data[~ignore_mask._data].reshape(-1)
            ret = sum(smooth) / sum(CONFIG.tensor(weight._data[kept]))
        else:
            ret = sum(smooth) / sum(CONFIG.tensor(~ignore_mask._data))
    elif r == 2:
        ret = sum(smooth)
    else:
        ret = smooth
    return add(mul_scalar(nll, 1 - label_smoothing),
                 mul_scalar(ret, label_smoothing / n_classes))


def _xlogy(x, y):
    with np.errstate(all="ignore"):
        out = np.where(x == 0, np.zeros((), x.dtype), x * np.log(y))
    return np.where(np.isnan(y), y, out).astype(x.dtype)


def kl_div(input, target, size_average=None, reduce=None, reduction="mean", log_target=False):
    if reduction == "mean":
        STATE.warn("reduction: 'mean' divides the total loss by both the batch size and the support size."
                   "'batchmean' divides only by the batch size, and aligns with the KL div math definition."
                   "'mean' will be changed to behave the same as 'batchmean' in the next major release.")
    r = 2 if reduction == "batchmean" else _reduction(reduction)
    if input._data.dtype.kind in "biu" or target._data.dtype.kind in "biu":
        raise TorchRuntimeError("kl_div: Integral inputs not supported.")
    if log_target:
        out = mul(exp(target), sub(target, input))
    else:
        out = sub(CONFIG.tensor(_xlogy(target._data, target._data)), mul(target, input))
    reduced = _apply_reduction(out, r)
    if reduction == "batchmean" and input._data.ndim != 0:
        reduced = reduced / input._data.shape[0]
    return reduced
