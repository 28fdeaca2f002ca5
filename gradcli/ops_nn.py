"""torch.nn's ops: the rows of the op table (ops.TABLE) for layers, activations and losses
whose grad_fn is a node of its own in PyTorch (AddmmBackward0, LeakyReluBackward0,
NllLossBackward0, ...), and the forward functions that record them. Composite functions
(cross_entropy with label smoothing, l1_loss, kl_div, ...) are written with the ops PyTorch's
C++ composes them of, so they record the same nodes. Loaded with torch.nn.
"""
from __future__ import annotations

import builtins as _b
import math

import numpy as np

from . import engine as E
from . import ops as O
from .engine import STATE, Saved, Size, Tensor
from .engine import TorchIndexError, TorchRuntimeError, TorchValueError
from .ops import ALWAYS, TABLE, _begin, _record, op

_F32 = np.dtype(np.float32)


def _in64(fn):
    """fn evaluated in float64 and rounded once for float32 input (PyTorch's float32 kernels
    are within an ulp of the correctly rounded value; NumPy's float32 ones may not be)."""
    def f(a, *args):
        if a.dtype == _F32:
            return np.asarray(fn(a.astype(np.float64), *args), np.float64).astype(_F32)
        return np.asarray(fn(a, *args), a.dtype)
    return f


def _tensor_args(name, **args):
    """PyTorch's argument parser's TypeError for a non-tensor where a tensor is expected
    (arguments given in their positional order; None is allowed for optional ones by not passing them)."""
    for pos, (arg, v) in enumerate(args.items(), 1):
        if not isinstance(v, Tensor):
            from .engine import TorchTypeError
            raise TorchTypeError(f"{name}(): argument '{arg}' (position {pos}) must be Tensor, not {type(v).__name__}")


def _mean_scale(m, g, numel, reduction):
    return m.div_scalar(g, numel) if reduction == 1 else g

# ----------------------------------------------------------------------------- activations


_erf = np.frompyfunc(math.erf, 1, 1)
_SQRT1_2 = 1 / math.sqrt(2)
_K_ALPHA = 2 / math.sqrt(math.pi) * _SQRT1_2 * 0.5          # M_2_SQRTPI * M_SQRT1_2 * 0.5
_K_BETA = math.sqrt(2) * 2 / math.sqrt(math.pi) * 0.5       # M_SQRT2 * M_2_SQRTPI * 0.5
_K_KAPPA = 0.044715


def _gelu_np(x, approximate):
    if approximate == "tanh":
        inner = _K_BETA * (x + _K_KAPPA * x * x * x)
        return 0.5 * x * (1 + np.tanh(inner))
    return x * 0.5 * (1 + _erf(x * _SQRT1_2).astype(np.float64))


def _gelu_backward_np(g, x, approximate):
    if approximate == "tanh":
        x_sq = x * x
        inner = _K_BETA * (x + _K_KAPPA * x_sq * x)
        tanh_inner = np.tanh(inner)
        left, right = 0.5 * x, 1 + tanh_inner
        left_derivative = 0.5 * right
        right_derivative = left * (1 - tanh_inner * tanh_inner) * (_K_BETA * (1 + 3 * _K_KAPPA * x_sq))
        return g * (left_derivative + right_derivative)
    cdf = 0.5 * (1 + _erf(x * _SQRT1_2).astype(np.float64))
    pdf = _K_ALPHA * np.exp(-0.5 * x * x)
    return g * (cdf + x * pdf)


def _elu_np(x, alpha, scale, input_scale):
    return np.where(x <= 0, np.expm1(x * input_scale) * (alpha * scale), x * scale)


def _elu_backward_np(g, x, alpha, scale, input_scale, is_result):
    neg = (g * input_scale * (x + alpha * scale)) if is_result else \
        g * (input_scale * alpha * scale) * np.exp(x * input_scale)
    return np.where(x <= 0, neg, g * scale)


def _softplus_np(x, beta, threshold):
    xb = x * beta
    return np.where(xb > threshold, x, np.log1p(np.exp(xb)) / beta)


def _softplus_backward_np(g, x, beta, threshold):
    z = np.exp(x * beta)
    return np.where(x * beta > threshold, g, g * z / (z + 1))


class _Math:
    """The array helpers these rows' formulas call (added to the engine's NumPy namespace)."""

    @staticmethod
    def leaky_relu_backward(g, x, negative_slope):
        return np.where(x > 0, g, g * np.asarray(negative_slope, g.dtype))

    @staticmethod
    def elu_backward(g, x, alpha, scale, input_scale, is_result):
        return _in64(lambda x64, g64: _elu_backward_np(g64, x64, alpha, scale, input_scale, is_result))(
            x, g.astype(np.float64) if x.dtype == _F32 else g)

    @staticmethod
    def gelu_backward(g, x, approximate):
        return _in64(lambda x64, g64: _gelu_backward_np(g64, x64, approximate))(
            x, g.astype(np.float64) if x.dtype == _F32 else g)

    @staticmethod
    def softplus_backward(g, x, beta, threshold):
        return _in64(lambda x64, g64: _softplus_backward_np(g64, x64, beta, threshold))(
            x, g.astype(np.float64) if x.dtype == _F32 else g)

    @staticmethod
    def smooth_l1_backward(g, x, y, reduction, beta):
        norm = 1 / x.size if reduction == 1 else 1.0
        d = x - y
        return np.where(d < -beta, -norm * g, np.where(d > beta, norm * g, norm * d * g / beta)).astype(x.dtype)

    @staticmethod
    def huber_backward(g, x, y, reduction, delta):
        norm = 1 / x.size if reduction == 1 else 1.0
        d = x - y
        return np.where(d < -delta, -norm * g * delta, np.where(d > delta, norm * g * delta, norm * d * g)
                        ).astype(x.dtype)

    @staticmethod
    def bce_backward(g, x, y, weight, reduction):
        eps = 1e-12
        gi = g * (x - y) / np.maximum((1 - x) * x, np.asarray(eps, x.dtype))
        if weight is not None:
            gi = gi * weight
        if reduction == 1:
            gi = gi / x.size
        return np.asarray(gi, x.dtype)

    @staticmethod
    def bce_target_backward(g, x, y, weight, reduction):
        gt = -np.log(x / (1 - x)) * g                   # -logit(x) * grad
        if weight is not None:
            gt = gt * weight
        if reduction == 1:
            gt = gt / x.size
        return np.asarray(gt, x.dtype)

    @staticmethod
    def bce_log_sigmoid_pw(x, pos_weight):
        return np.asarray(_log_sigmoid(-x) - _log_sigmoid(x) * pos_weight, x.dtype)

    @staticmethod
    def nll_backward_w(g, x, target, weight, total_weight, ignore_index, reduction, class_dim):
        return _nll_backward(g, x, target, weight, total_weight, ignore_index, reduction, class_dim)


for _name in dir(_Math):
    if not _name.startswith("_"):
        setattr(O._NumpyMath, _name, staticmethod(getattr(_Math, _name)))


def _log_sigmoid(x):
    return np.minimum(x, 0) - np.log1p(np.exp(-np.abs(x)))


def _nll_backward(g, x, target, weight, total_weight, ignore_index, reduction, class_dim):
    """Scatter -g (weighted, divided by total_weight for 'mean') into the target class of each
    row that is not ignored; every other element stays 0."""
    z = np.zeros(x.shape, g.dtype)
    t = target.astype(np.int64)
    keep = t != ignore_index
    safe = np.where(keep, t, 0)
    w = np.ones(safe.shape, g.dtype) if weight is None else weight[safe].astype(g.dtype)
    scale = -g
    if reduction == 1:
        scale = scale / total_weight
    with np.errstate(all="ignore"):
        vals = np.where(keep, np.asarray(scale * w, g.dtype), np.zeros((), g.dtype))
    if x.ndim == 1:
        if keep.all():
            z[safe] = vals
        return z
    np.put_along_axis(z, np.expand_dims(safe, class_dim), np.expand_dims(vals, class_dim), axis=class_dim)
    return z


ROWS = {
    "addmm": op("AddmmBackward0", ("self", "mat1", "mat2"), saved=(("mat1", "mat2"), ("mat2", "mat1")),
                attrs=("alpha", "beta", "mat1_sym_sizes", "mat1_sym_strides", "mat2_sym_sizes", "mat2_sym_strides"),
                self=lambda m, g, beta: g if beta == 1 else m.mul_scalar(g, beta),
                mat1=lambda m, g, mat2, alpha, mat1_sym_sizes, mat1_sym_strides: _scaled(m, (
                    m.t(m.mm(mat2, m.t(g))) if O._col_major(mat1_sym_sizes, mat1_sym_strides)
                    else m.mm(g, m.t(mat2))), alpha),
                mat2=lambda m, g, mat1, alpha, mat2_sym_sizes, mat2_sym_strides: _scaled(m, (
                    m.t(m.mm(m.t(g), mat1)) if O._col_major(mat2_sym_sizes, mat2_sym_strides)
                    else m.mm(m.t(mat1), g)), alpha),
                doc="bias + input @ weight.t(): saves each matrix when the other requires grad"),
    "leaky_relu": op("LeakyReluBackward0", ("self",), saved=(("self", ALWAYS),), attrs=("negative_slope",),
                     self=lambda m, g, self, negative_slope: m.leaky_relu_backward(g, self, negative_slope)),
    "leaky_relu_": op("LeakyReluBackward1", ("self",), saved=(("result", ALWAYS),), attrs=("negative_slope",),
                      self=lambda m, g, result, negative_slope: m.leaky_relu_backward(g, result, negative_slope),
                      doc="in place: saves the output (its sign is the input's)"),
    "elu": op("EluBackward0", ("self",), saved=(("self", ALWAYS),), attrs=("alpha", "input_scale", "scale"),
              self=lambda m, g, self, alpha, scale, input_scale: m.elu_backward(g, self, alpha, scale, input_scale,
                                                                                False)),
    "elu_": op("EluBackward1", ("self",), saved=(("result", ALWAYS),), attrs=("alpha", "input_scale", "scale"),
               self=lambda m, g, result, alpha, scale, input_scale: m.elu_backward(g, result, alpha, scale,
                                                                                   input_scale, True),
               doc="in place: the gradient is computed from the output"),
    "gelu": op("GeluBackward0", ("self",), saved=(("self", ALWAYS),), attrs=("approximate",),
               self=lambda m, g, self, approximate: m.gelu_backward(g, self, approximate)),
    "softplus": op("SoftplusBackward0", ("self",), saved=(("self", ALWAYS),), attrs=("beta", "threshold"),
                   self=lambda m, g, self, beta, threshold: m.softplus_backward(g, self, beta, threshold)),
    # -- losses ----------------------------------------------------------------------------------
    "smooth_l1_loss": op("SmoothL1LossBackward0", ("self", "target"), saved=(("self", ALWAYS), ("target", ALWAYS)),
                         attrs=("beta", "reduction"),
                         self=lambda m, g, self, target, reduction, beta: m.smooth_l1_backward(
                             g, self, target, reduction, beta),
                         target=lambda m, g, self, target, reduction, beta: m.smooth_l1_backward(
                             g, target, self, reduction, beta)),
    "huber_loss": op("HuberLossBackward0", ("self", "target"), saved=(("self", ALWAYS), ("target", ALWAYS)),
                     attrs=("delta", "reduction"),
                     self=lambda m, g, self, target, reduction, delta: m.huber_backward(
                         g, self, target, reduction, delta),
                     target=lambda m, g, self, target, reduction, delta: m.huber_backward(
                         g, target, self, reduction, delta)),
    "binary_cross_entropy": op("BinaryCrossEntropyBackward0", ("self", "target"),
                               saved=(("self", ALWAYS), ("target", ALWAYS), ("weight", ALWAYS)), attrs=("reduction",),
                               self=lambda m, g, self, target, weight, reduction: m.bce_backward(
                                   g, self, target, weight, reduction),
                               target=lambda m, g, self, target, weight, reduction: m.bce_target_backward(
                                   g, self, target, weight, reduction)),
    "bce_with_logits": op("BinaryCrossEntropyWithLogitsBackward0", ("self", "target"),
                          saved=(("pos_weight", ALWAYS), ("self", ALWAYS), ("target", ALWAYS), ("weight", ALWAYS)),
                          attrs=("reduction",),
                          self=lambda m, g, self, target, weight, pos_weight, reduction: _bce_logits_self(
                              m, g, self, target, weight, pos_weight, reduction),
                          target=lambda m, g, self, weight, pos_weight, reduction: _bce_logits_target(
                              m, g, self, weight, pos_weight, reduction),
                          doc="its backward is arithmetic on sigmoid(self): differentiable again under create_graph"),
    "nll_loss": op("NllLossBackward0", ("self",),
                   saved=(("self", ALWAYS), ("target", ALWAYS), ("total_weight", ALWAYS), ("weight", ALWAYS)),
                   attrs=("ignore_index", "reduction"),
                   self=lambda m, g, self, target, weight, total_weight, ignore_index, reduction: m.nll_backward_w(
                       g, self, target, weight, total_weight, ignore_index, reduction, 1),
                   doc="saves the log-probabilities, the targets, the weights and their total"),
    "nll_loss2d": op("NllLoss2DBackward0", ("self",),
                     saved=(("self", ALWAYS), ("target", ALWAYS), ("total_weight", ALWAYS), ("weight", ALWAYS)),
                     attrs=("ignore_index", "reduction"),
                     self=lambda m, g, self, target, weight, total_weight, ignore_index, reduction: m.nll_backward_w(
                         g, self, target, weight, total_weight, ignore_index, reduction, 1),
                     doc="nll_loss over images (N, C, H, W)"),
}


def _bce_logits_self(m, g, self, target, weight, pos_weight, reduction):
    """binary_cross_entropy_with_logits_backward: (sigmoid(x) - y), or with pos_weight
    ((p*y + 1 - y) * sigmoid(x) - p*y); times weight, times the incoming gradient, / numel."""
    if pos_weight is None:
        grad_input = m.sigmoid(self) - target
    else:
        t = pos_weight * target
        grad_input = (t + 1 - target) * m.sigmoid(self) - t
    if weight is not None:
        grad_input = grad_input * weight
    return _mean_scale(m, grad_input * g, _arr_of(self).size, reduction)


def _bce_logits_target(m, g, self, weight, pos_weight, reduction):
    """binary_cross_entropy_with_logits_target_backward: -x, or with pos_weight
    log_sigmoid(-x) - log_sigmoid(x) * pos_weight; times weight and the incoming gradient, / numel."""
    grad_target = -self if pos_weight is None else m.bce_log_sigmoid_pw(self, pos_weight)
    if weight is not None:
        grad_target = grad_target * weight
    return _mean_scale(m, grad_target * g, _arr_of(self).size, reduction)


_arr_of = O._arr_of


def _scaled(m, g, alpha):
    return g if alpha == 1 else m.mul_scalar(g, alpha)


TABLE.update({"nn." + k: v for k, v in ROWS.items()})

# ----------------------------------------------------------------------------- linear


def addmm(bias, mat1, mat2, beta=1, alpha=1):
    # (each matrix's array read once: a Tensor's attributes are slow to read, see Tensor.__getattr__)
    d1, d2 = mat1._data, mat2._data
    if d1.dtype != d2.dtype:
        raise TorchRuntimeError(f"mat1 and mat2 must have the same dtype, but got {O._SCALAR_NAME[d1.dtype.name]} "
                                f"and {O._SCALAR_NAME[d2.dtype.name]}")
    if d1.shape[1] != d2.shape[0]:
        raise TorchRuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({O._shape_str(d1.shape)} and "
                                f"{O._shape_str(d2.shape)})")
    seq = _begin(bias, mat1, mat2)
    out = d1 @ d2
    if alpha != 1:
        out *= np.asarray(alpha, out.dtype)
    b = bias._data
    if beta != 1:
        b = b * np.asarray(beta, b.dtype)
    if b.dtype == out.dtype and b.ndim and b.shape == out.shape[-b.ndim:]:
        np.add(b, out, out=out)             # b + out, into the product's buffer
    else:
        out = np.asarray(b + out, out.dtype)
    if seq is None:
        return Tensor(out)
    attrs = {"alpha": alpha, "beta": beta,
             "mat1_sym_sizes": d1.shape, "mat1_sym_strides": O._strides(mat1) if mat1.requires_grad else (),
             "mat2_sym_sizes": d2.shape, "mat2_sym_strides": O._strides(mat2) if mat2.requires_grad else ()}
    return _record(ROWS["addmm"], seq, out, (bias, mat1, mat2), attrs=attrs)     # (the saved mats are inputs)


def linear(input, weight, bias=None):
    """at::linear: addmm for a 2-D input with a bias; a contiguous input of other rank is
    flattened to 2-D, addmm'd and viewed back; otherwise matmul with weight.t() (+ bias in place)."""
    if type(input) is not Tensor or type(weight) is not Tensor:
        _tensor_args("linear", input=input, weight=weight)
    nd = input._data.ndim
    if bias is not None and nd == 2:
        return addmm(bias, input, O.t_(weight))
    if bias is not None and input._data.flags.c_contiguous and (nd == 3 or bias._data.ndim == 1) and nd:
        sizes = input._data.shape
        flat = _b.int(np.prod(sizes[:-1], dtype=np.int64))
        out = addmm(bias, O.reshape(input, (flat, sizes[-1])), O.t_(weight))
        return O.view(out, tuple(sizes[:-1]) + (out._data.shape[1],))
    out = O.matmul(input, O.t_(weight))
    if bias is not None:
        out = O._inplace(out, O.add, bias, name="add_")
    return out

# ----------------------------------------------------------------------------- activations


def leaky_relu(input, negative_slope=0.01, inplace=False):
    _tensor_args("leaky_relu", input=input)
    slope = negative_slope

    def compute(t):
        x = t._data
        out = np.where(x > 0, x, x * np.asarray(slope, x.dtype))
        return _record(ROWS["leaky_relu_" if inplace else "leaky_relu"], _begin(t), out, (t,),
                       attrs={"negative_slope": slope})
    if inplace:
        return O._inplace(input, compute, name="leaky_relu_")
    return compute(input)


def elu(input, alpha=1.0, inplace=False, scale=1, input_scale=1):
    _tensor_args("elu", input=input)
    def compute(t):
        out = _in64(lambda x: _elu_np(x, alpha, scale, input_scale))(t._data)
        return _record(ROWS["elu_" if inplace else "elu"], _begin(t), out, (t,),
                       attrs={"alpha": alpha, "input_scale": input_scale, "scale": scale})
    if inplace:
        return O._inplace(input, compute, name="elu_")
    return compute(input)


def gelu(input, approximate="none"):
    _tensor_args("gelu", input=input)
    if approximate not in ("none", "tanh"):
        raise TorchRuntimeError("approximate argument must be either none or tanh.")
    out = _in64(lambda x: _gelu_np(x, approximate))(input._data)
    return _record(ROWS["gelu"], _begin(input), out, (input,), attrs={"approximate": approximate})


def softplus(input, beta=1, threshold=20):
    _tensor_args("softplus", input=input)
    out = _in64(lambda x: _softplus_np(x, beta, threshold))(input._data)
    return _record(ROWS["softplus"], _begin(input), out, (input,), attrs={"beta": beta, "threshold": threshold})

# ----------------------------------------------------------------------------- losses


_reduction = O._reduction


def _broadcast_pair(input, target):
    """torch.broadcast_tensors: each operand is expanded only when its shape differs."""
    shape = O.broadcast_shapes(input._data.shape, target._data.shape)
    if input._data.shape != shape:
        input = O.expand(input, shape)
    if target._data.shape != shape:
        target = O.expand(target, shape)
    return input, target


def _warn_size(input, target):
    if input._data.shape != target._data.shape:
        STATE.warn(f"Using a target size ({Size(target._data.shape)}) that is different to the input size "
                   f"({Size(input._data.shape)}). This will likely lead to incorrect results due to broadcasting. "
                   "Please ensure they have the same size.")


def _apply_reduction(loss, r):
    """apply_loss_reduction: mean() or sum() as their own nodes."""
    if r == 1:
        return O.mean(loss)
    if r == 2:
        return O.sum(loss)
    return loss


def _reduce_array(loss, r):
    if r == 0:
        return loss
    return np.asarray(loss.mean() if r == 1 else loss.sum(), loss.dtype)


def l1_loss(input, target, size_average=None, reduce=None, reduction="mean", weight=None):
    _warn_size(input, target)
    r = _reduction(reduction)
    input, target = _broadcast_pair(input, target)
    if weight is not None:
        loss = O.abs(O.sub(input, target)) * weight
    else:
        loss = O.abs(O.sub(input, target))
    return _apply_reduction(loss, r)


def _same_kind(input, target):
    """target's values in input's dtype for a float input and an integer target (the loss is
    computed in the promoted float type, as PyTorch's TensorIterator does)."""
    y = target._data
    return y.astype(input._data.dtype) if y.dtype != input._data.dtype and y.dtype.kind != "f" else y


def mse_loss(input, target, size_average=None, reduce=None, reduction="mean", weight=None):
    if target._data.dtype.kind != "f" and input._data.dtype.kind == "f" and input._data.shape == target._data.shape:
        r = _reduction(reduction)
        O._check_like(input._data.shape)
        d = input._data - _same_kind(input, target)
        out = _reduce_array(np.asarray(d * d, input._data.dtype), r)
        return _record(TABLE["mse_loss"], _begin(input, target), out, (input, target), attrs={"reduction": r})
    return O.mse_loss(input, target, reduction=reduction)


def smooth_l1_loss(input, target, size_average=None, reduce=None, reduction="mean", beta=1.0):
    _warn_size(input, target)
    r = _reduction(reduction)
    input, target = _broadcast_pair(input, target)
    if beta == 0.0:
        return _apply_reduction(O.abs(O.sub(input, target)), r)
    x, y = input._data, _same_kind(input, target)
    z = np.abs(x - y)
    loss = np.where(z < beta, 0.5 * z * z / np.asarray(beta, x.dtype), z - np.asarray(0.5 * beta, x.dtype))
    out = _reduce_array(np.asarray(loss, x.dtype), r)
    return _record(ROWS["smooth_l1_loss"], _begin(input, target), out, (input, target),
                   attrs={"beta": beta, "reduction": r})


def huber_loss(input, target, reduction="mean", delta=1.0, weight=None):
    _warn_size(input, target)
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
        new_size = O.broadcast_shapes(target._data.shape, weight._data.shape)
        if weight._data.shape != new_size:
            weight = O.expand(weight, new_size)
    if target._data.dtype != input._data.dtype:
        raise TorchRuntimeError(f"Found dtype {O._SCALAR_NAME[target._data.dtype.name]} but expected "
                                f"{O._SCALAR_NAME[input._data.dtype.name]}")
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
        raise O.TorchNotImplementedError_(f"\"log_sigmoid_cpu\" not implemented for '{O._SCALAR_NAME[x.dtype.name]}'")
    if y.dtype.kind != "f":
        raise TorchRuntimeError(f"result type {O._SCALAR_NAME[x.dtype.name]} can't be cast to the desired output "
                                f"type {O._SCALAR_NAME[y.dtype.name]}")
    log_sigmoid = _log_sigmoid(x)
    if pos_weight is not None:
        log_sigmoid = log_sigmoid * ((pos_weight._data - 1) * y + 1)
    loss = (1 - y) * x - log_sigmoid
    if weight is not None:
        loss = loss * weight._data
    out = _reduce_array(np.asarray(loss, x.dtype), r)
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
    total = np.asarray(w.sum(), x.dtype)
    s = np.asarray(losses.sum(), x.dtype)
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
        raise TorchValueError(f"Expected target size {list(out_size)}, got {list(target._data.shape)}")
    input_ = O._contiguous(input)
    target_ = target
    if input_._data.size > 0 and target_._data.size > 0:
        input_ = O.view(input_, (n, c, 1, input_._data.size // (n * c)))
        target_ = O.view(target_, (n, 1, target_._data.size // n))
    ret = _nll(ROWS["nll_loss2d"], input_, target_, weight, ignore_index, r)
    return O.view(ret, out_size) if r == 0 else ret


def _nll_check(x, t, weight):
    """nll_loss_forward's shape checks, in its order (before the kernel reads the dtypes)."""
    if t.ndim > 1:
        raise TorchRuntimeError("0D or 1D target tensor expected, multi-target not supported")
    if x.ndim == 1 and t.ndim == 1 and t.shape[0] != 1:
        raise TorchValueError(f"For 1D input, 1D target must have size 1, but got target size: {t.shape[0]}")
    _check_class_weight("", weight, x.shape[-1])


def _check_class_weight(prefix, weight, n_classes):
    if weight is not None and (weight._data.ndim != 1 or weight._data.size != n_classes):
        raise TorchRuntimeError(f"{prefix}weight tensor should be defined either for all {n_classes} classes or no "
                                f"classes but got weight tensor of shape: {list(weight._data.shape)}")


def _nll(row, input, target, weight, ignore_index, r):
    if target._data.dtype not in (np.int64, np.uint8):
        raise TorchRuntimeError(f"expected target dtype to be Long or Byte, but got "
                                f"{O._SCALAR_NAME[target._data.dtype.name]}")
    if input._data.dtype.kind != "f":
        kernel = "nll_loss_out_frame" if row is ROWS["nll_loss"] else "nll_loss2d_forward_out_frame"
        raise O.TorchNotImplementedError_(f"\"{kernel}\" not implemented for "
                                          f"'{O._SCALAR_NAME[input._data.dtype.name]}'")
    w = None if weight is None else weight._data
    out, total = _nll_forward(input._data, target._data.astype(np.int64), w, ignore_index, r, 1)
    return _record(row, _begin(input), out, (input,),
                   extra={"target": target, "total_weight": Tensor(total), "weight": weight},
                   attrs={"ignore_index": ignore_index, "reduction": r})


def cross_entropy(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None,
                  reduction="mean", label_smoothing=0.0):
    """cross_entropy_loss: log_softmax over the class dim, then nll_loss (class indices) or the
    weighted sum of -log-probabilities times target probabilities; label smoothing mixes in the
    mean over classes."""
    r = _reduction(reduction)
    class_dim = 0 if input._data.ndim == 1 else 1
    if input._data.shape == target._data.shape:          # class probabilities
        if target._data.dtype.kind != "f":
            raise TorchRuntimeError(f"Expected floating point type for target with class probabilities, got "
                                    f"{O._SCALAR_NAME[target._data.dtype.name]}")
        if ignore_index >= 0:
            raise TorchRuntimeError("ignore_index is not supported for floating point target")
        return _cross_entropy_probabilities(O.log_softmax(input, class_dim), target, weight, r, label_smoothing,
                                            class_dim)
    logp = O.log_softmax(input, class_dim)
    if label_smoothing <= 0.0:
        return nll_loss(logp, target, weight, ignore_index=ignore_index, reduction=reduction)
    return _cross_entropy_label_smoothing(logp, target, weight, r, ignore_index, label_smoothing, class_dim)


def _class_weight_view(weight, input, class_dim):
    shape = [1] * input._data.ndim
    shape[class_dim] = weight._data.shape[0]
    return O.view(weight, tuple(shape))


def _cross_entropy_probabilities(logp, target, weight, r, label_smoothing, class_dim):
    n_classes = logp._data.shape[class_dim]
    _check_class_weight("cross_entropy: ", weight, n_classes)
    if label_smoothing > 0:
        target = target * (1 - label_smoothing) + (label_smoothing / n_classes)
    prod = logp * target
    if weight is not None:
        prod = prod * _class_weight_view(weight, logp, class_dim)
    if r == 1:
        return O._TensorMath.div_scalar(-O.sum(prod), logp._data.size // n_classes)
    if r == 2:
        return -O.sum(prod)
    return -O.sum(prod, class_dim)


def _cross_entropy_label_smoothing(logp, target, weight, r, ignore_index, label_smoothing, class_dim):
    n_classes = logp._data.shape[class_dim]
    nll = nll_loss(logp, target, weight, ignore_index=ignore_index, reduction=O._REDUCTION_NAMES[r])
    ignore_mask = target == ignore_index
    if weight is not None:
        smooth = -O.sum(logp * _class_weight_view(weight, logp, class_dim), class_dim)
    else:
        smooth = -O.sum(logp, class_dim)
    smooth = O.masked_fill_(smooth, ignore_mask, 0.0)
    if r == 1:
        if weight is not None:
            kept = target._data[~ignore_mask._data].reshape(-1)
            ret = O.sum(smooth) / O.sum(Tensor(weight._data[kept]))
        else:
            ret = O.sum(smooth) / O.sum(Tensor(~ignore_mask._data))
    elif r == 2:
        ret = O.sum(smooth)
    else:
        ret = smooth
    return O.add(O._TensorMath.mul_scalar(nll, 1 - label_smoothing),
                 O._TensorMath.mul_scalar(ret, label_smoothing / n_classes))


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
    if log_target:
        out = O.mul(O.exp(target), O.sub(target, input))
    else:
        out = O.sub(Tensor(_xlogy(target._data, target._data)), O.mul(target, input))
    reduced = _apply_reduction(out, r)
    if reduction == "batchmean" and input._data.ndim != 0:
        reduced = reduced / input._data.shape[0]
    return reduced

# ----------------------------------------------------------------------------- embedding, dropout, layer_norm


def _embedding_backward(g, indices, num_weights, padding_idx, scale_grad_by_freq):
    """embedding_dense_backward: each index's rows of g summed into its weight row (the padding
    row gets nothing; with scale_grad_by_freq each sum is divided by the index's count)."""
    idx = indices.reshape(-1).astype(np.int64)
    rows = g.reshape(idx.size, -1)
    if scale_grad_by_freq:
        counts = np.bincount(idx, minlength=num_weights)
        rows = rows / counts[idx][:, None].astype(g.dtype)
    keep = idx != padding_idx
    out = np.zeros((num_weights, rows.shape[1]), g.dtype)
    np.add.at(out, idx[keep], rows[keep])
    return out


def _embedding_double_backward(g, indices, padding_idx):
    """embedding_dense_double_backward: g's rows at the indices, zero at the padding index (the
    first backward's scale_grad_by_freq is not undone, as in PyTorch)."""
    rows = g[indices.reshape(-1).astype(np.int64)]
    if padding_idx is not None and padding_idx >= 0:
        rows[indices.reshape(-1) == padding_idx] = 0
    return rows.reshape(indices.shape + (-1,))


O._NumpyMath.embedding_backward = staticmethod(_embedding_backward)
O._NumpyMath.embedding_double_backward = staticmethod(_embedding_double_backward)

ROWS.update({
    "embedding": op("EmbeddingBackward0", ("weight",), saved=(("indices", ALWAYS),),
                    attrs=("padding_idx", "scale_grad_by_freq", "sparse", "weight_sym_argsize_0"),
                    weight=lambda m, g, indices, weight_sym_argsize_0, padding_idx, scale_grad_by_freq:
                        m.embedding_backward(g, indices, weight_sym_argsize_0, padding_idx, scale_grad_by_freq),
                    doc="saves the indices: the gradient sums rows of the incoming gradient per index"),
    "native_layer_norm": op("NativeLayerNormBackward0", ("input", "weight", "bias"),
                            saved=(("bias", ALWAYS), ("input", ALWAYS), ("result1", ALWAYS), ("result2", ALWAYS),
                                   ("weight", ALWAYS)),
                            attrs=("normalized_shape",),
                            input=lambda m, g, input, weight, result1, result2, normalized_shape:
                                m.layer_norm_backward_input(g, input, weight, result1, result2, normalized_shape),
                            weight=lambda m, g, input, weight, result1, result2, normalized_shape:
                                m.layer_norm_backward_weight(g, input, weight, result1, result2, normalized_shape),
                            bias=lambda m, g, input, weight, normalized_shape: m.layer_norm_backward_bias(
                                g, input, weight, normalized_shape),
                            doc="saves the input, weight, bias, and each row's mean (result1) and 1/std (result2)"),
})
ROWS["embedding_dense_backward"] = op(
    "EmbeddingDenseBackwardBackward0", ("grad_output",), saved=(("indices", ALWAYS),), attrs=("padding_idx",),
    grad_output=lambda m, g, indices, padding_idx: m.embedding_double_backward(g, indices, padding_idx))
TABLE.update({"nn." + k: ROWS[k] for k in ("embedding", "native_layer_norm", "embedding_dense_backward")})
O._TensorMath.embedding_backward = staticmethod(
    lambda g, indices, num_weights, padding_idx, scale_grad_by_freq: _record(
        ROWS["embedding_dense_backward"], _begin(g),
        _embedding_backward(g._data, indices._data, num_weights, padding_idx, scale_grad_by_freq), (g,),
        extra={"indices": indices}, attrs={"padding_idx": padding_idx}))


def embedding(input, weight, padding_idx=None, max_norm=None, norm_type=2.0, scale_grad_by_freq=False,
              sparse=False):
    if padding_idx is not None:
        n = weight._data.shape[0]
        if padding_idx > 0:
            if padding_idx >= n:
                raise AssertionError("Padding_idx must be within num_embeddings")
        elif padding_idx < 0:
            if padding_idx < -n:
                raise AssertionError("Padding_idx must be within num_embeddings")
            padding_idx = n + padding_idx
    else:
        padding_idx = -1
    _tensor_args("embedding", weight=weight, indices=input)
    idx = input._data
    if idx.dtype.kind not in "iu":
        raise TorchRuntimeError("Expected tensor for argument #1 'indices' to have one of the following scalar "
                                f"types: Long, Int; but got torch.{O._SCALAR_NAME[idx.dtype.name]}Tensor instead "
                                "(while checking arguments for embedding)")
    n = weight._data.shape[0]
    if ((idx < 0) | (idx >= n)).any():
        raise TorchIndexError("index out of range in self")
    if max_norm is not None:
        _embedding_renorm_(weight, idx, max_norm, norm_type)
    out = weight._data[idx.astype(np.int64)]
    return _record(ROWS["embedding"], _begin(weight), out, (weight,), extra={"indices": input},
                   attrs={"padding_idx": padding_idx, "scale_grad_by_freq": bool(scale_grad_by_freq),
                          "sparse": bool(sparse), "weight_sym_argsize_0": n})


def _embedding_renorm_(weight, idx, max_norm, norm_type):
    """embedding_renorm_: rows looked up whose norm exceeds max_norm are scaled down in place."""
    w = weight._data
    for i in np.unique(idx.reshape(-1)):
        norm = np.linalg.norm(w[i].astype(np.float64), ord=norm_type)
        if norm > max_norm:
            w[i] *= w.dtype.type(max_norm / (norm + 1e-7))
    weight._version_counter.bump()


def dropout(input, p=0.5, training=True, inplace=False):
    """_dropout_impl: input * (bernoulli(1 - p) mask / (1 - p)), the mask drawn from the generator."""
    _tensor_args("dropout", input=input)
    if p < 0.0 or p > 1.0:
        raise TorchValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    if p == 0 or not training or input._data.size == 0:
        return input
    if p == 1:
        noise = Tensor(np.zeros((), input._data.dtype))
    else:
        noise = Tensor(np.empty(input._data.shape, input._data.dtype))
        noise.bernoulli_(1 - p)
        noise.div_(1 - p)
    if inplace:
        return O._inplace(input, O.mul, noise, name="mul_")
    return O.mul(input, noise)


def _layer_norm_axes(x, normalized_shape):
    return tuple(range(x.ndim - len(normalized_shape), x.ndim))


def _layer_norm_stats(x, normalized_shape, eps):
    axes = _layer_norm_axes(x, normalized_shape)
    x64 = x.astype(np.float64)
    mean = x64.mean(axis=axes, keepdims=True)
    var = ((x64 - mean) ** 2).mean(axis=axes, keepdims=True)
    return mean.astype(x.dtype), (1 / np.sqrt(var + eps)).astype(x.dtype)


def layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-5):
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
    return _record(ROWS["native_layer_norm"], _begin(input, weight, bias), np.asarray(out, x.dtype),
                   (input, weight, bias),
                   extra={"input": input, "weight": weight, "bias": bias,
                          "result1": Tensor(mean.reshape(stat_shape)), "result2": Tensor(rstd.reshape(stat_shape))},
                   attrs={"normalized_shape": normalized_shape})


def _layer_norm_backward_input(g, x, weight, mean, rstd, normalized_shape):
    """LayerNormBackwardKernelImpl's dx = a * dy * gamma + b * x + c per row, in x's dtype:
    a = rstd, b = (db * mean - ds) * a^3 / N, c = -b * mean - db * a / N, with ds = sum(dy * gamma * x)
    and db = sum(dy * gamma) (summed exactly, rounded once)."""
    axes = _layer_norm_axes(x, normalized_shape)
    dt = x.dtype
    scale = dt.type(1 / int(np.prod(normalized_shape)))
    dyg = g if weight is None else g * weight
    ds = (dyg * x).astype(np.float64).sum(axis=axes, keepdims=True).astype(dt)
    db = dyg.astype(np.float64).sum(axis=axes, keepdims=True).astype(dt)
    a = rstd
    b = (db * mean - ds) * a * a * a * scale
    c = -b * mean - db * a * scale
    return np.asarray(a * dyg + b * x + c, dt)


def _layer_norm_backward_weight(g, x, weight, mean, rstd, normalized_shape):
    """dgamma = sum of dy * fma(rstd, x, -(mean * rstd)): PyTorch's kernel fuses that multiply-add."""
    lead = tuple(range(x.ndim - len(normalized_shape)))
    shift = (-(mean * rstd)).astype(np.float64)
    xhat = (rstd.astype(np.float64) * x.astype(np.float64) + shift).astype(x.dtype)
    return (g.astype(np.float64) * xhat).sum(axis=lead).astype(x.dtype)


O._NumpyMath.layer_norm_backward_input = staticmethod(_layer_norm_backward_input)
O._NumpyMath.layer_norm_backward_weight = staticmethod(_layer_norm_backward_weight)
O._NumpyMath.layer_norm_backward_bias = staticmethod(     # (input and weight: its node's edges, as above)
    lambda g, input, weight, normalized_shape: g.sum(axis=tuple(range(g.ndim - len(normalized_shape)))).astype(g.dtype))

# ----------------------------------------------------------------------------- recurrent layers
# PyTorch's RNN.cpp, op for op: the cells (SimpleCell, LSTMCell, GRUCell), the full layer that
# computes the input projection of the whole sequence once and unbinds it per step, and the
# layer stack. unsafe_chunk and unbind make one node with several outputs (engine.OutputEdge).

ROWS["unsafe_split"] = op("UnsafeSplitBackward0", ("self",), attrs=("dim", "self_sym_sizes", "split_size"),
                          multi=True, self=lambda m, g, dim, self_sym_sizes, split_size: O._split_backward(
                              g, O._split_sizes(self_sym_sizes[dim], split_size), dim, self_sym_sizes),
                          doc="one node for every chunk: the chunks' gradients side by side")
TABLE["nn.unsafe_split"] = ROWS["unsafe_split"]


def _unsafe_chunk(t, chunks, dim):
    """unsafe_chunk: split's pieces, not views (the cells change them in place)."""
    size = t._data.shape[dim]
    split_size = -(-size // chunks)
    return O._multi_output(ROWS["unsafe_split"], t, O._pieces(t, dim, O._split_sizes(size, split_size)),
                           {"dim": dim, "self_sym_sizes": tuple(t._data.shape), "split_size": split_size}, view=False)


def _simple_cell(nonlinearity):
    def cell(input, hidden, w_ih, w_hh, b_ih, b_hh, pre_compute_input=False):
        hh = linear(hidden, w_hh, b_hh)
        igates = input if pre_compute_input else linear(input, w_ih, b_ih)
        return nonlinearity(hh.add_(igates))
    return cell


def _lstm_cell(input, hidden, w_ih, w_hh, b_ih, b_hh, pre_compute_input=False):
    hx, cx = hidden
    gates = linear(hx, w_hh, b_hh).add_(input if pre_compute_input else linear(input, w_ih, b_ih))
    chunked = _unsafe_chunk(gates, 4, 1)
    ingate = chunked[0].sigmoid_()
    forgetgate = chunked[1].sigmoid_()
    cellgate = chunked[2].tanh_()
    outgate = chunked[3].sigmoid_()
    cy = O.mul(forgetgate, cx).add_(O.mul(ingate, cellgate))
    hy = O.mul(outgate, O.tanh(cy))
    return hy, cy


def _gru_cell(input, hidden, w_ih, w_hh, b_ih, b_hh, pre_compute_input=False):
    chunked_igates = _unsafe_chunk(input if pre_compute_input else linear(input, w_ih, b_ih), 3, 1)
    chunked_hgates = _unsafe_chunk(linear(hidden, w_hh, b_hh), 3, 1)
    reset_gate = chunked_hgates[0].add_(chunked_igates[0]).sigmoid_()
    input_gate = chunked_hgates[1].add_(chunked_igates[1]).sigmoid_()
    new_gate = O.add(chunked_igates[2], chunked_hgates[2].mul_(reset_gate)).tanh_()
    return O.sub(hidden, new_gate).mul_(input_gate).add_(new_gate)


CELLS = {"RNN_TANH": _simple_cell(O.tanh), "RNN_RELU": _simple_cell(O.relu), "LSTM": _lstm_cell, "GRU": _gru_cell}


def rnn_cell(mode, input, hx, w_ih, w_hh, b_ih=None, b_hh=None):
    """rnn_tanh_cell, rnn_relu_cell, lstm_cell (hx a pair), gru_cell."""
    return CELLS[mode](input, hx, w_ih, w_hh, b_ih, b_hh)


def _full_layer(cell, input, hidden, params, reverse=False):
    """FullLayer on CPU: the input projection of the whole sequence, unbound into steps (taken
    from the end for the reverse direction), the cell per step, the outputs stacked in time order."""
    w_ih, w_hh, b_ih, b_hh = params
    inputs_w = linear(input, w_ih, b_ih)
    steps = O.unbind(inputs_w, 0)
    outputs = []
    for x in (reversed(steps) if reverse else steps):
        hidden = cell(x, hidden, w_ih, w_hh, b_ih, b_hh, True)
        outputs.append(hidden[0] if isinstance(hidden, tuple) else hidden)
    if not outputs:
        raise TorchRuntimeError("Expected sequence length to be larger than 0 in RNN")
    if reverse:
        outputs.reverse()
    return O.stack(outputs, 0), hidden


def rnn(mode, input, hx, params, num_layers, dropout_p, train, batch_first, bidirectional=False):
    """rnn_tanh / rnn_relu / gru / lstm on CPU: `hx` a tensor, or (h, c) for LSTM; `params` four
    tensors per layer and direction (biases None without bias). Returns (output, h_n) or
    (output, h_n, c_n)."""
    if mode == "LSTM" and input._data.dtype == _F32 and input._data.size:
        return _mkldnn_lstm(input, hx[0], hx[1], params, num_layers, dropout_p, train, batch_first, bidirectional)
    if batch_first:
        input = O.transpose(input, 0, 1)
    if mode == "LSTM":
        hiddens = list(zip(O.unbind(hx[0], 0), O.unbind(hx[1], 0)))
    else:
        hiddens = O.unbind(hx, 0)
    cell = CELLS[mode]
    directions = 2 if bidirectional else 1
    layer_input = input
    finals = []
    for layer in range(num_layers):
        outs = []
        for direction in range(directions):
            k = layer * directions + direction
            out, final = _full_layer(cell, layer_input, hiddens[k], params[4 * k: 4 * k + 4], direction == 1)
            outs.append(out)
            finals.append(final)
        layer_input = outs[0] if directions == 1 else O.cat(outs, outs[0]._data.ndim - 1)
        if dropout_p != 0 and train and layer < num_layers - 1:
            layer_input = dropout(layer_input, dropout_p, True)
    output = layer_input
    if mode == "LSTM":
        if batch_first:
            output = O.transpose(output, 0, 1)
        return output, O.stack([f[0] for f in finals], 0), O.stack([f[1] for f in finals], 0)
    if batch_first:
        output = O.transpose_(output, 0, 1)
    return output, O.stack(finals, 0)


# ----------------------------------------------------------------------------- LSTM through oneDNN
# PyTorch runs a float32 nn.LSTM on CPU through oneDNN: one MkldnnRnnLayerBackward0 node per
# layer, with three outputs (output, h_n, c_n), whose gradients reach it side by side.


ROWS["mkldnn_rnn_layer"] = op(
    "MkldnnRnnLayerBackward0", ("input", "weight0", "weight1", "weight2", "weight3", "hx_", "cx_"),
    saved=(("cx_", ALWAYS), ("hx_", ALWAYS), ("input", ALWAYS), ("result0", ALWAYS), ("result1", ALWAYS),
           ("result2", ALWAYS), ("result3", ALWAYS), ("weight0", ALWAYS), ("weight1", ALWAYS), ("weight2", ALWAYS),
           ("weight3", ALWAYS)), multi=True,
    attrs=("batch_first", "batch_sizes", "bidirectional", "has_biases", "hidden_size", "mode", "num_layers",
           "reverse", "train"),
    doc="one LSTM layer over the whole sequence (oneDNN): saves its inputs, weights, outputs and the gates")
TABLE["nn.mkldnn_rnn_layer"] = ROWS["mkldnn_rnn_layer"]


def _sigmoid64(v):
    return 1 / (1 + np.exp(-v))


def _lstm_layer_forward(x, w_ih, w_hh, b, h, c, reverse):
    """float64 arrays: (output, h_n, c_n, gates (T, B, 4H) activated, cells (T, B, H)), the
    steps taken from the end when reverse (the arrays stay in time order)."""
    T, H = x.shape[0], h.shape[-1]
    out = np.empty((T,) + h.shape)
    gates = np.empty((T, h.shape[0], 4 * H))
    cells = np.empty((T,) + h.shape)
    for t in (range(T - 1, -1, -1) if reverse else range(T)):
        g = x[t] @ w_ih.T + h @ w_hh.T + b
        i, f, gg, o = _sigmoid64(g[:, :H]), _sigmoid64(g[:, H:2 * H]), np.tanh(g[:, 2 * H:3 * H]), \
            _sigmoid64(g[:, 3 * H:])
        c = f * c + i * gg
        h = o * np.tanh(c)
        gates[t] = np.concatenate([i, f, gg, o], axis=1)
        cells[t], out[t] = c, h
    return out, h, c, gates, cells


def _one_minus(t):
    """C++'s `1 - t`: empty_like(t).fill_(1).sub_(t), a SubBackward0."""
    return O.sub(Tensor(np.ones_like(t._data)), t)


def _lstm_layer_differentiable_backward(node, grad_output, grad_hy, grad_cy):
    """mkldnn_rnn_layer_differentiable_backward, PyTorch's backward of the oneDNN layer under
    create_graph: the layer's gates recomputed with differentiable ops, then its backward op by op.
    Returns the gradients of (input, weight0, weight1, weight2, weight3, hx_, cx_)."""
    x, w0, w1, hx_, cx_, output = (node.unpack(s, True) for s in ("input", "weight0", "weight1", "hx_", "cx_",
                                                                  "result0"))
    attrs = node.attrs
    reverse, hidden = attrs["reverse"], attrs["hidden_size"]
    grad_output = grad_output if grad_output is not None else Tensor(np.zeros_like(output._data))
    grad_hy = grad_hy if grad_hy is not None else Tensor(np.zeros_like(hx_._data))
    grad_cy = grad_cy if grad_cy is not None else Tensor(np.zeros_like(cx_._data))
    if attrs["has_biases"]:
        bias_ih, bias_hh = node.unpack("weight2", True), node.unpack("weight3", True)
    else:
        bias_ih = bias_hh = Tensor(np.zeros(4 * hidden, w0._data.dtype))
    steps = x._data.shape[0]
    gates = [None] * steps
    states = [(hx_, cx_)]
    for seq in range(1, steps + 1):
        hx, cx = states[-1]
        at = steps - seq if reverse else seq - 1
        gate = linear(O.select(x, 0, at), w0, bias_ih).add_(linear(hx, w1, bias_hh))
        chunked = _unsafe_chunk(gate, 4, 1)
        i, f = chunked[0].sigmoid_(), chunked[1].sigmoid_()
        g, o = chunked[2].tanh_(), chunked[3].sigmoid_()
        gates[at] = (i, f, g, o)
        cy = O.add(O.mul(f, cx), O.mul(i, g))
        states.append((O.mul(o, O.tanh(cy)), cy))
    layer_dx = [None] * steps
    for seq in range(steps - 1, -1, -1):
        at = steps - seq - 1 if reverse else seq
        i, f, g, o = gates[at]
        cy = states[seq + 1][1]
        hx, cx = states[seq]
        new_grad_hy = O.add(O.select(grad_output, 0, at), grad_hy)
        d1 = O.add(grad_cy, O.mul(O.mul(new_grad_hy, o), _one_minus(O.mul(O.tanh(cy), O.tanh(cy)))))
        dgp, dip, dprev_c, dfp = O.mul(d1, i), O.mul(d1, g), O.mul(d1, f), O.mul(d1, cx)
        dop = O.mul(new_grad_hy, O.tanh(cy))
        do_ = O.mul(O.mul(dop, o), _one_minus(o))
        dg = O.mul(dgp, _one_minus(O.mul(g, g)))
        df = O.mul(O.mul(dfp, f), _one_minus(f))
        di = O.mul(O.mul(dip, i), _one_minus(i))
        da = O.cat([di, df, dg, do_], 1)
        db_ = O.sum(da, 0)
        dx = O.unsqueeze(O.matmul(da, w0), 0)
        dprev_h = O.matmul(da, w1)
        dwx_ = O.matmul(O.transpose(da, 0, 1), O.select(x, 0, at))
        dwh_ = O.matmul(O.transpose(da, 0, 1), hx)
        if seq == steps - 1:
            db, dwx, dwh = db_, dwx_, dwh_
        else:
            db, dwx, dwh = (O._inplace(a, O.add, b, name="add_") for a, b in ((db, db_), (dwx, dwx_), (dwh, dwh_)))
        layer_dx[at] = dx
        grad_hy, grad_cy = dprev_h, dprev_c
    return [O.cat(layer_dx, 0), dwx, dwh, db, db, grad_hy, grad_cy]


def _lstm_layer_backward(node, grad_out, create_graph):
    if create_graph:                            # the gradients of output, h_n and c_n (None: none came)
        return _lstm_layer_differentiable_backward(node, *grad_out[:3])
    u = {s: node.unpack(s, False) for s in ("input", "weight0", "weight1", "hx_", "cx_", "result3")}
    x, w_ih, w_hh = (u[k].astype(np.float64) for k in ("input", "weight0", "weight1"))
    h0, c0 = u["hx_"].astype(np.float64), u["cx_"].astype(np.float64)
    T, B, H = x.shape[0], h0.shape[0], h0.shape[1]
    work = u["result3"].view(np.float32).astype(np.float64)
    gates = work[:T * B * 4 * H].reshape(T, B, 4 * H)
    cells = work[T * B * 4 * H:].reshape(T, B, H)
    dt = node.input_meta[0][1]
    g, gh, gc = grad_out[:3]                    # the gradients of output, h_n and c_n (None: none came)
    dh_next = np.zeros((B, H)) if gh is None else gh.astype(np.float64)
    dc_next = np.zeros((B, H)) if gc is None else gc.astype(np.float64)
    g_out = np.zeros((T, B, H)) if g is None else g.astype(np.float64)
    dx = np.zeros_like(x)
    dw_ih, dw_hh, db = np.zeros_like(w_ih), np.zeros_like(w_hh), np.zeros(4 * H)
    reverse = node.attrs["reverse"]
    order = range(T) if reverse else range(T - 1, -1, -1)
    for t in order:
        i, f, gg, o = (gates[t][:, k * H:(k + 1) * H] for k in range(4))
        prev = t + 1 if reverse else t - 1
        first = prev < 0 or prev >= T
        c_prev = c0 if first else cells[prev]
        h_prev = h0 if first else gates[prev][:, 3 * H:] * np.tanh(cells[prev])
        tc = np.tanh(cells[t])
        dh = g_out[t] + dh_next
        dc = dc_next + dh * o * (1 - tc * tc)
        dgates = np.concatenate([dc * gg * i * (1 - i), dc * c_prev * f * (1 - f), dc * i * (1 - gg * gg),
                                 dh * tc * o * (1 - o)], axis=1)
        dc_next = dc * f
        dx[t] = dgates @ w_ih
        dw_ih += dgates.T @ x[t]
        dw_hh += dgates.T @ h_prev
        db += dgates.sum(axis=0)
        dh_next = dgates @ w_hh
    if not node.attrs["has_biases"]:
        return [dx.astype(dt), dw_ih.astype(dt), dw_hh.astype(dt), None, None, dh_next.astype(dt),
                dc_next.astype(dt)]
    return [dx.astype(dt), dw_ih.astype(dt), dw_hh.astype(dt), db.astype(dt), db.astype(dt),
            dh_next.astype(dt), dc_next.astype(dt)]


ROWS["mkldnn_rnn_layer"].apply = _lstm_layer_backward


def _mkldnn_lstm_layer(input, w_ih, w_hh, b_ih, b_hh, hx, cx, num_layers, train, has_biases, batch_first, reverse,
                       bidirectional):
    x = input._data.astype(np.float64)
    b = (b_ih._data + b_hh._data).astype(np.float64) if has_biases else np.zeros(w_ih._data.shape[0])
    out, h, c, gates, cells = _lstm_layer_forward(x, w_ih._data.astype(np.float64), w_hh._data.astype(np.float64),
                                                  b, hx._data.astype(np.float64), cx._data.astype(np.float64), reverse)
    dt = input._data.dtype
    workspace = Tensor(np.concatenate([gates.reshape(-1), cells.reshape(-1)]).astype(dt).view(np.uint8))
    hy, cy = Tensor(h.astype(dt)), Tensor(c.astype(dt))
    seq = _begin(input, w_ih, w_hh, b_ih, b_hh, hx, cx)
    output = _record(ROWS["mkldnn_rnn_layer"], seq, out.astype(dt), (input, w_ih, w_hh, b_ih, b_hh, hx, cx),
                     extra={"input": input, "weight0": w_ih, "weight1": w_hh, "weight2": b_ih, "weight3": b_hh,
                            "hx_": hx, "cx_": cx, "result0": None, "result1": hy, "result2": cy,
                            "result3": workspace},
                     attrs={"batch_first": batch_first, "batch_sizes": (), "bidirectional": bidirectional,
                            "has_biases": has_biases,
                            "hidden_size": h.shape[-1], "mode": 2, "num_layers": num_layers, "reverse": reverse,
                            "train": bool(train)})
    node = output.grad_fn
    if node is not None:                        # outputs 0-2 (3, the workspace, has no gradient)
        for t, edge in zip((output, hy, cy), E.output_edges(node, 4)):
            t._fn, t._rg = edge, True
        node._saved["result0"] = Saved(output, True)
    return output, hy, cy


def _mkldnn_lstm(input, hx, cx, params, num_layers, dropout_p, train, batch_first, bidirectional):
    if batch_first:
        input = O.transpose(input, 0, 1)
    input, hx, cx = O._contiguous(input), O._contiguous(hx), O._contiguous(cx)
    directions = 2 if bidirectional else 1
    layer_input = input
    hys, cys = [], []
    for layer in range(num_layers):
        outs = []
        for direction in range(directions):
            k = layer * directions + direction
            w_ih, w_hh, b_ih, b_hh = params[4 * k: 4 * k + 4]
            has_biases = b_ih is not None
            if not has_biases:                   # zeros shaped like the weights, as PyTorch passes them
                b_ih, b_hh = Tensor(np.zeros_like(w_ih._data)), Tensor(np.zeros_like(w_hh._data))
            layer_hx, layer_cx = O.select(hx, 0, k), O.select(cx, 0, k)
            out, hy, cy = _mkldnn_lstm_layer(layer_input, w_ih, w_hh, b_ih, b_hh, layer_hx, layer_cx,
                                                   num_layers, train, has_biases, batch_first, direction == 1,
                                                   bidirectional)
            outs.append(out)
            hys.append(hy)
            cys.append(cy)
        layer_input = outs[0] if directions == 1 else O.cat(outs, -1)
        if dropout_p != 0 and train and layer < num_layers - 1:
            layer_input = dropout(layer_input, dropout_p, True)
    h_n, c_n = O.stack(hys, 0), O.stack(cys, 0)
    output = layer_input
    if batch_first:
        output = O.transpose(output, 0, 1)
    return output, h_n, c_n


# ----------------------------------------------------------------------------- convolution and pooling

_windows = np.lib.stride_tricks.sliding_window_view


def _tup(v, n):
    return tuple(v) if isinstance(v, (tuple, list)) else (v,) * n


def _conv_windows(xp, k, stride, dilation, out):
    """(N, C, *out, *k) views of the padded input xp: each output position's receptive field."""
    nd = len(k)
    span = tuple(d * (kk - 1) + 1 for kk, d in zip(k, dilation))
    w = _windows(xp, span, axis=tuple(range(2, 2 + nd)))
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
    return y.reshape((n, w.shape[0]) + out)


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
    return padded[crop].astype(x.dtype)


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
    return gw.reshape(w.shape).astype(w.dtype)


O._NumpyMath.conv_backward_input = staticmethod(_conv_backward_input)
O._NumpyMath.conv_backward_weight = staticmethod(_conv_backward_weight)
O._NumpyMath.conv_backward_bias = staticmethod(     # (input and weight: the edges of its node under create_graph)
    lambda g, input, weight: g.sum(axis=(0,) + tuple(range(2, g.ndim))).astype(g.dtype))


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
    extra = tuple(max(0, (o - 1) * s + d * (kk - 1) + 1 - (sz + 2 * p))
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


O._NumpyMath.max_pool_backward = staticmethod(_max_pool_backward)


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
    extra = tuple(max(0, (o - 1) * s + kk - (sz + 2 * p)) for o, s, kk, sz, p in zip(out, stride, k, (h, w), padding))
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
    extra = tuple(max(0, (o - 1) * s + kk - (sz + 2 * p))
                  for o, s, kk, sz, p in zip(out, stride, kernel_size, (h, w), padding))
    padded = np.zeros((n, c, h + 2 * padding[0] + extra[0], w + 2 * padding[1] + extra[1]))
    for i, j in np.ndindex(*kernel_size):
        padded[:, :, i:i + stride[0] * (out[0] - 1) + 1:stride[0], j:j + stride[1] * (out[1] - 1) + 1:stride[1]] += gd
    return padded[:, :, padding[0]:padding[0] + h, padding[1]:padding[1] + w].astype(g.dtype)


O._NumpyMath.avg_pool_backward = staticmethod(_avg_pool_backward)

ROWS.update({
    "convolution": op("ConvolutionBackward0", ("input", "weight", "bias"), saved=(("input", ALWAYS), ("weight", ALWAYS)),
                      attrs=("bias_sym_sizes_opt", "dilation", "groups", "output_padding", "padding", "stride",
                             "transposed"),
                      input=lambda m, g, input, weight, stride, padding, dilation, groups:
                          m.conv_backward_input(g, input, weight, stride, padding, dilation, groups),
                      weight=lambda m, g, input, weight, stride, padding, dilation, groups:
                          m.conv_backward_weight(g, input, weight, stride, padding, dilation, groups),
                      bias=lambda m, g, input, weight: m.conv_backward_bias(g, input, weight),
                      doc="saves the input and the weight: each one's gradient needs the other"),
    "max_pool2d": op("MaxPool2DWithIndicesBackward0", ("self",), saved=(("result1", ALWAYS), ("self", ALWAYS)),
                     attrs=("ceil_mode", "dilation", "kernel_size", "padding", "stride"),
                     self=lambda m, g, self, result1: m.max_pool_backward(g, self, result1),
                     doc="saves the input and where each maximum came from (result1, the indices)"),
    "avg_pool2d": op("AvgPool2DBackward0", ("self",), saved=(("self", ALWAYS),),
                     attrs=("ceil_mode", "count_include_pad", "divisor_override", "kernel_size", "padding", "stride"),
                     self=lambda m, g, self, kernel_size, stride, padding, ceil_mode, count_include_pad,
                     divisor_override: m.avg_pool_backward(g, self, kernel_size, stride, padding, ceil_mode,
                                                           count_include_pad, divisor_override)),
})
TABLE.update({"nn." + k: ROWS[k] for k in ("convolution", "max_pool2d", "avg_pool2d")})


def _conv_padding(padding, x, w, stride, dilation, nd):
    """Numeric padding for an int/tuple or 'valid'/'same' (symmetric 'same' only, as PyTorch
    then calls the padded convolution directly)."""
    if isinstance(padding, str):
        if padding == "valid":
            return (0,) * nd
        if padding != "same":
            raise TorchRuntimeError(f"Invalid padding string: '{padding}'")
        if any(s != 1 for s in stride):
            raise TorchRuntimeError("padding='same' is not supported for strided convolutions")
        total = [d * (k - 1) for d, k in zip(dilation, w._data.shape[2:])]
        if any(t % 2 for t in total):
            raise TorchRuntimeError("padding='same' with an even kernel is not available in gradcli")
        return tuple(t // 2 for t in total)
    return _tup(padding, nd)


def conv_nd(nd, input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    stride, dilation = _tup(stride, nd), _tup(dilation, nd)
    pad = _conv_padding(padding, input, weight, stride, dilation, nd)
    unbatched = input._data.ndim == nd + 1
    if unbatched:
        input = O.unsqueeze(input, 0)
    if input._data.ndim != nd + 2:
        raise TorchRuntimeError(f"Expected {nd + 1}D (unbatched) or {nd + 2}D (batched) input to conv{nd}d, but got "
                                f"input of size: {list(input._data.shape)}")
    if input._data.dtype != weight._data.dtype:
        if bias is not None:
            raise TorchRuntimeError(f"Input type ({O._C_NAME[input._data.dtype.name]}) and bias type "
                                    f"({O._C_NAME[bias._data.dtype.name]}) should be the same")
        raise TorchRuntimeError(f"expected scalar type {O._SCALAR_NAME[input._data.dtype.name]} but found "
                                f"{O._SCALAR_NAME[weight._data.dtype.name]}")
    c = input._data.shape[1]
    if c != weight._data.shape[1] * groups:
        raise TorchRuntimeError(f"Given groups={groups}, weight of size {list(weight._data.shape)}, expected input"
                                f"{list(input._data.shape)} to have {weight._data.shape[1] * groups} channels, but got "
                                f"{c} channels instead")
    y = _conv_forward(input._data, weight._data, stride, pad, dilation, groups)
    if bias is not None:
        y = y + bias._data.astype(np.float64).reshape((1, -1) + (1,) * nd)
    out = _record(ROWS["convolution"], _begin(input, weight, bias), y.astype(input._data.dtype), (input, weight, bias),
                  extra={"input": input, "weight": weight},
                  attrs={"bias_sym_sizes_opt": (0,) if bias is None else tuple(bias._data.shape), "dilation": dilation,
                         "groups": groups, "output_padding": (0,) * nd, "padding": pad, "stride": stride,
                         "transposed": False})
    return O.squeeze(out, 0) if unbatched else out


def conv1d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    return conv_nd(1, input, weight, bias, stride, padding, dilation, groups)


def conv2d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    return conv_nd(2, input, weight, bias, stride, padding, dilation, groups)


def _pool_args(kernel_size, stride, padding, dilation=1):
    """(kernel, stride used, stride as saved: () when none was given, padding, dilation)."""
    k = _tup(kernel_size, 2)
    given = not (stride is None or stride == [] or stride == ())
    s = _tup(stride, 2) if given else k
    return k, s, s if given else (), _tup(padding, 2), _tup(dilation, 2)


def max_pool2d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False):
    k, s, saved_stride, p, d = _pool_args(kernel_size, stride, padding, dilation)
    if any(pp > kk // 2 for pp, kk in zip(p, k)):
        raise TorchRuntimeError(f"pad should be at most half of effective kernel size, but got pad={p[0]}, "
                                f"kernel_size={k[0]} and dilation={d[0]}")
    unbatched = input._data.ndim == 3
    x = input._data[None] if unbatched else input._data
    values, indices = _max_pool_forward(x, k, s, p, d, ceil_mode)
    if unbatched:
        values, indices = values[0], indices[0]
    out = _record(ROWS["max_pool2d"], _begin(input), values, (input,),
                  extra={"result1": Tensor(indices)},
                  attrs={"ceil_mode": bool(ceil_mode), "dilation": d, "kernel_size": k, "padding": p,
                         "stride": saved_stride})
    if return_indices:
        return out, Tensor(indices)
    return out


def avg_pool2d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True,
               divisor_override=None):
    k, s, saved_stride, p, _ = _pool_args(kernel_size, stride, padding)
    if any(pp > kk // 2 for pp, kk in zip(p, k)):
        raise TorchRuntimeError("pad should be at most half of effective kernel size, but got pad="
                                f"{p[0]}, kernel_size={k[0]} and dilation=1")
    unbatched = input._data.ndim == 3
    x = input._data[None] if unbatched else input._data
    y = _avg_pool_forward(x, k, s, p, ceil_mode, count_include_pad, divisor_override)
    return _record(ROWS["avg_pool2d"], _begin(input), y[0] if unbatched else y, (input,),
                   attrs={"ceil_mode": bool(ceil_mode), "count_include_pad": bool(count_include_pad),
                          "divisor_override": divisor_override, "kernel_size": k, "padding": p,
                          "stride": saved_stride})

# ----------------------------------------------------------------------------- batch norm, bilinear


def _bn_axes(x):
    return (0,) + tuple(range(2, x.ndim))


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


O._NumpyMath.batch_norm_backward = staticmethod(_batch_norm_backward)

ROWS.update({
    "native_batch_norm": op(
        "NativeBatchNormBackward0", ("input", "weight", "bias"),
        saved=(("input", ALWAYS), ("result1", ALWAYS), ("result2", ALWAYS), ("running_mean", ALWAYS),
               ("running_var", ALWAYS), ("weight", ALWAYS)),
        attrs=("eps", "training"),
        input=lambda m, g, input, weight, running_mean, running_var, result1, result2, training, eps:
            m.batch_norm_backward(g, input, weight, running_mean, running_var, result1, result2, training, eps)[0],
        weight=lambda m, g, input, weight, running_mean, running_var, result1, result2, training, eps:
            m.batch_norm_backward(g, input, weight, running_mean, running_var, result1, result2, training, eps)[1],
        bias=lambda m, g, input, weight, running_mean, running_var, result1, result2, training, eps:
            m.batch_norm_backward(g, input, weight, running_mean, running_var, result1, result2, training, eps)[2],
        doc="saves the input, weight, running statistics and the batch's mean (result1) and 1/std (result2)"),
    "trilinear": op("TrilinearBackward0", ("i1", "i2", "i3"), saved=(("i1", ALWAYS), ("i2", ALWAYS), ("i3", ALWAYS)),
                    attrs=("expand1", "expand2", "expand3", "sumdim"),
                    # _trilinear_backward: each gradient is a _trilinear with the roles of the dims swapped
                    i1=lambda m, g, i2, i3, expand1, expand2, expand3, sumdim: m.trilinear(
                        g, i2, i3, sumdim, expand2, expand3, expand1),
                    i2=lambda m, g, i1, i3, expand1, expand2, expand3, sumdim: m.trilinear(
                        i1, g, i3, expand1, sumdim, expand3, expand2),
                    i3=lambda m, g, i1, i2, expand1, expand2, expand3, sumdim: m.trilinear(
                        i1, i2, g, expand1, expand2, sumdim, expand3),
                    doc="x1^T W x2 per output feature: each input's gradient needs the other two"),
})
TABLE.update({"nn." + k: ROWS[k] for k in ("native_batch_norm", "trilinear")})


def _trilinear_np(i1, i2, i3, expand1, expand2, expand3, sumdim):
    """at::_trilinear: each input unsqueezed at its expand dims, their product summed over sumdim
    (in float64, rounded once)."""
    dims = "abcdefgh"[:i1.ndim + len(expand1)]

    def spec(skip):
        return "".join(d for k, d in enumerate(dims) if k not in skip)
    y = np.einsum(f"{spec(expand1)},{spec(expand2)},{spec(expand3)}->{spec(sumdim)}",
                  *(a.astype(np.float64) for a in (i1, i2, i3)))
    return y.astype(i1.dtype)


def _trilinear(i1, i2, i3, expand1, expand2, expand3, sumdim):
    return _record(ROWS["trilinear"], _begin(i1, i2, i3), _trilinear_np(i1._data, i2._data, i3._data, expand1, expand2,
                                                                        expand3, sumdim), (i1, i2, i3),
                   extra={"i1": i1, "i2": i2, "i3": i3},
                   attrs={"expand1": expand1, "expand2": expand2, "expand3": expand3, "sumdim": sumdim})


O._NumpyMath.trilinear = staticmethod(_trilinear_np)
O._TensorMath.trilinear = staticmethod(_trilinear)


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
        from .engine import TorchTypeError
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
        raise TorchRuntimeError(f"expected scalar type {O._SCALAR_NAME[dt.name]} but found {O._SCALAR_NAME[other.name]}")


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
        from .torch import get_num_threads
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
                          "result1": Tensor(save_mean), "result2": Tensor(save_invstd)},
                   attrs={"eps": eps, "training": bool(training)})


def bilinear(input1, input2, weight, bias=None):
    """at::bilinear: _trilinear over the inputs flattened to 2-D, viewed back, plus the bias."""
    lead = input1._data.shape[:-1]
    i1 = O.view(input1, (-1, input1._data.shape[-1]))
    i3 = O.view(input2, (-1, input2._data.shape[-1]))
    out = _trilinear(i1, weight, i3, (1, 3), (0,), (1, 2), (2, 3))
    out = O.view(out, tuple(lead) + (weight._data.shape[0],))
    return O.add(out, bias) if bias is not None else out


# -- nll_loss's gradient under create_graph: a node of its own, linear in the incoming gradient
for _key, _name in (("nll_loss_backward", "NllLossBackwardBackward0"),
                    ("nll_loss2d_backward", "NllLoss2DBackwardBackward0")):
    ROWS[_key] = TABLE["nn." + _key] = op(
        _name, ("grad_output", "self"), saved=(("target", ALWAYS), ("weight", ALWAYS)),
        attrs=("ignore_index", "reduction"),
        grad_output=lambda m, g, target, weight, ignore_index, reduction: m.nll_loss_w(
            g, target, weight, ignore_index, reduction),
        self=lambda m, g: m.zeros_like(g),
        doc="nll_loss's gradient under create_graph: linear in the incoming gradient, constant in the "
            "log-probabilities")


def _nll_backward_recorded(g, self, target, weight, total_weight, ignore_index, reduction, class_dim):
    row = ROWS["nll_loss2d_backward" if self._data.ndim == 4 else "nll_loss_backward"]
    out = _nll_backward(g._data, self._data, target._data, None if weight is None else weight._data, total_weight._data,
                        ignore_index, reduction, class_dim)
    return _record(row, _begin(g, self), out, (g, self), extra={"target": target, "weight": weight},
                   attrs={"ignore_index": ignore_index, "reduction": reduction})


def _nll_loss_recorded(g, target, weight, ignore_index, reduction):
    row = ROWS["nll_loss2d" if g._data.ndim == 4 else "nll_loss"]
    return _nll(row, g, target, weight, ignore_index, reduction)


O._TensorMath.nll_backward_w = staticmethod(_nll_backward_recorded)
O._TensorMath.nll_loss_w = staticmethod(_nll_loss_recorded)
O._NumpyMath.nll_loss_w = staticmethod(
    lambda g, target, weight, ignore_index, reduction: _nll_forward(g, target.astype(np.int64), weight, ignore_index,
                                                                    reduction, 1)[0])

# ----------------------------------------------------------------------------- layers' gradients under create_graph
# Under create_graph a layer's backward kernel is a node of its own, as in PyTorch's double-backward
# support (EluBackwardBackward0, ConvolutionBackwardBackward0, ...): its value is the first-order
# kernel above, its formulas the kernel's own derivatives (FunctionsManual.cpp's *_double_backward).
# PyTorch's multi-output kernels (convolution, batch and layer norm) give one node per gradient here,
# each with the formulas of its own output: the kernels are linear in each of those outputs' upstream
# gradients, so the sums the engine forms are PyTorch's.


def _f64(fn):
    """fn on float64 copies of its array arguments, the result in the first one's dtype."""
    def f(*args):
        dt = args[0].dtype
        up = [a.astype(np.float64) if isinstance(a, np.ndarray) else a for a in args]
        return np.asarray(fn(*up), dt)
    return f


def _elu_double_backward(g, grad_output, x, alpha, scale, input_scale, is_result):
    below = (x < 0).astype(g.dtype)
    if is_result:
        return g * grad_output * input_scale * below
    return _elu_backward_np(g * grad_output * input_scale, x, alpha, scale, input_scale, False) * below


def _gelu_double_backward(g, grad_output, x, approximate):
    if approximate == "tanh":
        inner = _K_BETA * (x + _K_KAPPA * x ** 3)
        tanh_inner = np.tanh(inner)
        sech_inner = 1 / np.cosh(inner)
        f = 0.5 * x
        gt = 1 - tanh_inner * tanh_inner
        h = _K_BETA * (1 + 3 * _K_KAPPA * x * x)
        g_prime = (2 * sech_inner) * (-sech_inner * tanh_inner) * h
        return g * grad_output * (gt * h + f * h * g_prime + f * gt * (6 * _K_KAPPA * x * _K_BETA))
    pdf = _K_ALPHA * np.exp(-0.5 * x * x)
    return g * grad_output * (2 * pdf - x * x * pdf)


def _softplus_double_backward(g, x, beta, threshold):
    z = x * beta
    s = 1 / (1 + np.exp(-z))
    return g * s * (1 - s) * (z < threshold) * beta


def _max_pool_double_backward(g, indices):
    planes = int(np.prod(indices.shape[:-2]))
    flat = g.reshape(planes, -1)
    return np.take_along_axis(flat, indices.reshape(planes, -1), 1).reshape(indices.shape)


def _avg_pool2d(g, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override):
    x = g[None] if g.ndim == 3 else g
    y = _avg_pool_forward(x, kernel_size, stride or kernel_size, padding, ceil_mode, count_include_pad,
                          divisor_override)
    return y[0] if g.ndim == 3 else y


def _conv(x, w, stride, padding, dilation, groups):
    return _conv_forward(x, w, stride, padding, dilation, groups).astype(x.dtype)


def _bias_double_backward(g, grad_output, lead):
    """A bias gradient's upstream gradient g spread back over grad_output, whose dimensions from
    `lead` on hold g's (a convolution's channels, a layer norm's normalized shape)."""
    shape = (1,) * lead + g.shape + (1,) * (grad_output.ndim - lead - g.ndim)
    return np.broadcast_to(g.reshape(shape), grad_output.shape).astype(g.dtype)


def _stats_shape(v, x):
    return v.reshape((1, -1) + (1,) * (x.ndim - 2))


def _batchnorm_double_backward(x, gamma, ggI, ggG, ggB, gO, running_mean, running_var, training, eps, save_mean,
                               save_invstd):
    """FunctionsManual's batchnorm_double_backward: (gI, gG, ggO), None where undefined."""
    axes = _bn_axes(x)
    m = x.size // x.shape[1]
    gamma_e = np.ones(()) if gamma is None else _stats_shape(gamma, x)
    mu = _stats_shape(save_mean if training else running_mean, x)
    xmu = x - mu
    inv = _stats_shape(save_invstd if training else (running_var + eps) ** -0.5, x)
    inv2, inv3 = inv ** 2, inv ** 3
    xmu_inv3 = xmu * inv3

    def total(t):
        return t.sum(axis=axes, keepdims=True)

    go_xmu, go_sum = total(gO * xmu), total(gO)
    gI = None
    if ggI is not None and training:
        ggi_sum, ggi_xmu = total(ggI), total(ggI * xmu)
        all_sub = ggi_sum * go_sum / m - total(gO * ggI) + inv2 * go_xmu * ggi_xmu * (3.0 / m)
        gI = gamma_e * (xmu_inv3 * all_sub / m + ggi_xmu * inv3 / m * (go_sum / m - gO)
                        + go_xmu * inv3 / m * (ggi_sum / m - ggI))
    if gamma is not None and ggG is not None:
        gg = _stats_shape(ggG, x)
        term = (gg * (gO * inv - inv * go_sum / m - xmu_inv3 * go_xmu / m)) if training else gg * inv * gO
        gI = term if gI is None else gI + term

    def first_back(g, gam):
        return gam * inv / m * (m * g - total(g) - xmu * inv2 * total(g * xmu))

    gG = ggO = None
    if gamma is not None and ggI is not None:
        gG = (ggI * first_back(gO, 1.0) if training else ggI * gO * inv).sum(axis=axes)
    if ggI is not None:
        ggO = first_back(ggI, gamma_e) if training else ggI * inv * gamma_e
    if ggG is not None:
        term = _stats_shape(ggG, x) * xmu * inv
        ggO = term if ggO is None else ggO + term
    if ggB is not None:
        term = np.broadcast_to(_stats_shape(ggB, x), x.shape)
        ggO = term if ggO is None else ggO + term
    return gI, gG, ggO


def _layer_norm_double_backward(x, gamma, ggI, ggG, ggB, gO, mean, rstd, normalized_shape):
    """FunctionsManual's layer_norm_double_backward over rows of N = prod(normalized_shape)."""
    n = int(np.prod(normalized_shape))
    rows = x.size // n
    shape = x.shape
    x, gO, mean, rstd = x.reshape(rows, n), gO.reshape(rows, n), mean.reshape(rows, 1), rstd.reshape(rows, 1)
    gamma_e = np.ones((1,)) if gamma is None else gamma.reshape(1, n)
    ggI = None if ggI is None else ggI.reshape(rows, n)
    xmu = x - mean
    inv2, inv3 = rstd ** 2, rstd ** 3
    xmu_inv3 = xmu * inv3

    def total(t):
        return t.sum(axis=1, keepdims=True)

    gI = None
    if ggI is not None:
        gxhat = gO * gamma_e
        gxhat_xmu, gxhat_sum = total(gxhat * xmu), total(gxhat)
        ggi_sum, ggi_xmu = total(ggI), total(ggI * xmu)
        all_sub = ggi_sum * gxhat_sum / n - total(ggI * gxhat) + inv2 * gxhat_xmu * ggi_xmu * (3.0 / n)
        gI = (xmu_inv3 * all_sub / n + ggi_xmu * inv3 / n * (gxhat_sum / n - gxhat)
              + gxhat_xmu * inv3 / n * (ggi_sum / n - ggI))
    if gamma is not None and ggG is not None:
        gg = ggG.reshape(1, n)
        term = gO * gg * rstd - rstd * total(gO * gg) / n - xmu_inv3 * total(gO * gg * xmu) / n
        gI = term if gI is None else gI + term

    def first_back(g, gam):
        return gam * rstd / n * (n * g - total(g) - xmu * inv2 * total(g * xmu))

    gG = ggO = None
    if gamma is not None and ggI is not None:
        gG = (gO * first_back(ggI, 1.0)).sum(axis=0).reshape(gamma.shape)
    if ggI is not None:
        ggO = first_back(ggI, gamma_e)
    if ggG is not None:
        term = xmu * rstd * ggG.reshape(1, n)
        ggO = term if ggO is None else ggO + term
    if ggB is not None:
        term = np.broadcast_to(ggB.reshape(1, n), (rows, n))
        ggO = term if ggO is None else ggO + term
    return tuple(None if v is None else v.reshape(s) for v, s in
                 ((gI, shape), (gG, None if gamma is None else gamma.shape), (ggO, shape)))


def _norm_second(kernel, which, g, wanted, dtype, *args):
    """One input's gradient from a norm's double backward, for the node of its first-order output
    `which` (0 input, 1 weight, 2 bias) receiving g; `wanted` is 0 grad_out, 1 input, 2 weight."""
    gg = [None, None, None]
    gg[which] = g.astype(np.float64)
    out = kernel(*args[:2], *gg, *args[2:])
    v = out[(2, 0, 1)[wanted]]
    return None if v is None else np.asarray(v, dtype)


def _bn_second(which, wanted):
    def formula(m, g, grad_out, input, weight, running_mean, running_var, save_mean, save_invstd, train, eps):
        up = [None if a is None else a.astype(np.float64) for a in
              (input, weight, grad_out, running_mean, running_var, save_mean, save_invstd)]
        return _norm_second(_batchnorm_double_backward, which, g, wanted, input.dtype,
                            up[0], up[1], up[2], up[3], up[4], train, eps, up[5], up[6])
    return formula


def _ln_second(which, wanted):
    def formula(m, g, grad_out, input, weight, mean, rstd, normalized_shape):
        up = [None if a is None else a.astype(np.float64) for a in (input, weight, grad_out, mean, rstd)]
        return _norm_second(_layer_norm_double_backward, which, g, wanted, input.dtype, *up, normalized_shape)
    return formula


_CONV_INPUTS = ("grad_output", "input", "weight")
_CONV_ATTRS = ("dilation", "groups", "output_padding", "padding", "stride", "transposed")
_BN_SAVED = tuple((s, ALWAYS) for s in ("grad_out", "input", "weight", "running_mean", "running_var", "save_mean",
                                        "save_invstd"))
_LN_SAVED = tuple((s, ALWAYS) for s in ("grad_out", "input", "weight", "mean", "rstd"))
ROWS.update({
    "leaky_relu_backward": op(
        "LeakyReluBackwardBackward0", ("grad_output", "self"), saved=(("self", ALWAYS),), attrs=("negative_slope",),
        grad_output=lambda m, g, self, negative_slope: m.leaky_relu_backward(g, self, negative_slope),
        self=lambda m, g: m.zeros_like(g)),
    "elu_backward": op(
        "EluBackwardBackward0", ("grad_output", "self_or_result"),
        saved=(("grad_output", ALWAYS), ("self_or_result", ALWAYS)),
        attrs=("alpha", "input_scale", "is_result", "scale"),
        grad_output=lambda m, g, self_or_result, alpha, scale, input_scale, is_result: m.elu_backward(
            g, self_or_result, alpha, scale, input_scale, is_result),
        self_or_result=lambda m, g, grad_output, self_or_result, alpha, scale, input_scale, is_result:
            m.elu_double_backward(g, grad_output, self_or_result, alpha, scale, input_scale, is_result)),
    "gelu_backward": op(
        "GeluBackwardBackward0", ("grad_output", "self"), saved=(("grad_output", ALWAYS), ("self", ALWAYS)),
        attrs=("approximate",),
        grad_output=lambda m, g, self, approximate: m.gelu_backward(g, self, approximate),
        self=lambda m, g, grad_output, self, approximate: m.gelu_double_backward(g, grad_output, self, approximate)),
    "softplus_backward": op(
        "SoftplusBackwardBackward0", ("grad_output", "self"), saved=(("grad_output", ALWAYS), ("self", ALWAYS)),
        attrs=("beta", "threshold"),
        grad_output=lambda m, g, self, beta, threshold: m.softplus_backward(g, self, beta, threshold),
        self=lambda m, g, grad_output, self, beta, threshold: m.softplus_double_backward(
            m.mul_g(g, grad_output), self, beta, threshold)),
    "max_pool2d_backward": op(
        "MaxPool2DWithIndicesBackwardBackward0", ("grad_output", "self"), saved=(("indices", ALWAYS),),
        grad_output=lambda m, g, indices: m.max_pool_double_backward(g, indices),
        self=lambda m, g: m.zeros_like(g)),
    "avg_pool2d_backward": op(
        "AvgPool2DBackwardBackward0", ("grad_output", "self"),
        attrs=("ceil_mode", "count_include_pad", "divisor_override", "kernel_size", "padding", "stride"),
        grad_output=lambda m, g, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override:
            m.avg_pool2d(g, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override),
        self=lambda m, g: m.zeros_like(g)),
    # convolution's grad_input, grad_weight and grad_bias
    "convolution_backward_input": op(
        "ConvolutionBackwardBackward0", _CONV_INPUTS, saved=(("grad_output", ALWAYS), ("weight", ALWAYS)),
        attrs=_CONV_ATTRS,
        grad_output=lambda m, g, weight, stride, padding, dilation, groups: m.conv(g, weight, stride, padding,
                                                                                   dilation, groups),
        input=lambda m, g: None,
        weight=lambda m, g, grad_output, weight, stride, padding, dilation, groups: m.conv_backward_weight(
            grad_output, g, weight, stride, padding, dilation, groups)),
    "convolution_backward_weight": op(
        "ConvolutionBackwardBackward0", _CONV_INPUTS, saved=(("grad_output", ALWAYS), ("input", ALWAYS)),
        attrs=_CONV_ATTRS,
        grad_output=lambda m, g, input, stride, padding, dilation, groups: m.conv(input, g, stride, padding,
                                                                                 dilation, groups),
        input=lambda m, g, grad_output, input, stride, padding, dilation, groups: m.conv_backward_input(
            grad_output, input, g, stride, padding, dilation, groups),
        weight=lambda m, g: None),
    "convolution_backward_bias": op(
        "ConvolutionBackwardBackward0", _CONV_INPUTS, saved=(("grad_output", ALWAYS),), attrs=_CONV_ATTRS,
        grad_output=lambda m, g, grad_output: m.bias_double_backward(g, grad_output, 1),
        input=lambda m, g: None, weight=lambda m, g: None),
})
for _which, _key in enumerate(("input", "weight", "bias")):
    ROWS["native_batch_norm_backward_" + _key] = op(
        "NativeBatchNormBackwardBackward0", ("grad_out", "input", "weight"), saved=_BN_SAVED, attrs=("eps", "train"),
        grad_out=_bn_second(_which, 0), input=_bn_second(_which, 1), weight=_bn_second(_which, 2))
for _which, _key in enumerate(("input", "weight")):
    ROWS["native_layer_norm_backward_" + _key] = op(
        "NativeLayerNormBackwardBackward0", ("grad_out", "input", "weight"), saved=_LN_SAVED,
        attrs=("normalized_shape",),
        grad_out=_ln_second(_which, 0), input=_ln_second(_which, 1), weight=_ln_second(_which, 2))
ROWS["native_layer_norm_backward_bias"] = op(
    "NativeLayerNormBackwardBackward0", ("grad_out", "input", "weight"), saved=(("grad_out", ALWAYS),),
    grad_out=lambda m, g, grad_out: m.bias_double_backward(g, grad_out, grad_out.ndim - g.ndim),
    input=lambda m, g: None, weight=lambda m, g: None)
TABLE.update({"nn." + k: v for k, v in ROWS.items() if k not in TABLE})

for _name, _fn in (("elu_double_backward", _f64(_elu_double_backward)),
                   ("gelu_double_backward", _f64(_gelu_double_backward)),
                   ("softplus_double_backward", _f64(_softplus_double_backward)),
                   ("max_pool_double_backward", _max_pool_double_backward), ("avg_pool2d", _avg_pool2d),
                   ("conv", _conv), ("bias_double_backward", _bias_double_backward)):
    setattr(O._NumpyMath, _name, staticmethod(_fn))


def _kernel_node(key, value, inputs, saved=None, attrs=None):
    """A first-order kernel's result `value` recorded as the node ROWS[key] on `inputs`."""
    return _record(ROWS[key], _begin(*inputs), value, inputs, extra=saved, attrs=attrs)


def _recorded(key, helper, inputs, arrays, saved=None, attrs=None):
    """TENSOR_MATH's version of a NumPy kernel: its value, as a node of its own."""
    def record(*args):
        tensors = dict(zip(arrays, args))
        value = getattr(O.NUMPY_MATH, helper)(*(a._data if isinstance(a, Tensor) else a for a in args))
        return _kernel_node(key, value, tuple(tensors[i] for i in inputs),
                            {s: tensors[i] for s, i in (saved or {}).items()},
                            {a: args[i] for a, i in (attrs or {}).items()})
    return staticmethod(record)


_TM = O._TensorMath
_TM.leaky_relu_backward = _recorded("leaky_relu_backward", "leaky_relu_backward", (0, 1), range(2),
                                    attrs={"negative_slope": 2})
_TM.elu_backward = _recorded("elu_backward", "elu_backward", (0, 1), range(2),
                             saved={"grad_output": 0, "self_or_result": 1},
                             attrs={"alpha": 2, "scale": 3, "input_scale": 4, "is_result": 5})
_TM.gelu_backward = _recorded("gelu_backward", "gelu_backward", (0, 1), range(2), saved={"grad_output": 0},
                              attrs={"approximate": 2})
_TM.softplus_backward = _recorded("softplus_backward", "softplus_backward", (0, 1), range(2),
                                  saved={"grad_output": 0}, attrs={"beta": 2, "threshold": 3})
_TM.max_pool_backward = _recorded("max_pool2d_backward", "max_pool_backward", (0, 1), range(3),
                                  saved={"indices": 2})
_TM.avg_pool_backward = _recorded("avg_pool2d_backward", "avg_pool_backward", (0, 1), range(2),
                                  attrs={"kernel_size": 2, "stride": 3, "padding": 4, "ceil_mode": 5,
                                         "count_include_pad": 6, "divisor_override": 7})


def _conv_attrs(stride, padding, dilation, groups):
    return {"dilation": dilation, "groups": groups, "output_padding": (0,) * len(stride), "padding": padding,
            "stride": stride, "transposed": False}


def _conv_backward_input_recorded(g, input, weight, stride, padding, dilation, groups):
    value = _conv_backward_input(g._data, input._data, weight._data, stride, padding, dilation, groups)
    return _kernel_node("convolution_backward_input", value, (g, input, weight), {"grad_output": g, "weight": weight},
                        _conv_attrs(stride, padding, dilation, groups))


def _conv_backward_weight_recorded(g, input, weight, stride, padding, dilation, groups):
    value = _conv_backward_weight(g._data, input._data, weight._data, stride, padding, dilation, groups)
    return _kernel_node("convolution_backward_weight", value, (g, input, weight), {"grad_output": g, "input": input},
                        _conv_attrs(stride, padding, dilation, groups))


def _conv_backward_bias_recorded(g, input, weight):
    nd = g._data.ndim - 2
    return _kernel_node("convolution_backward_bias", O.NUMPY_MATH.conv_backward_bias(g._data, None, None),
                        (g, input, weight),
                        {"grad_output": g}, _conv_attrs((1,) * nd, (0,) * nd, (1,) * nd, 1))


class _BatchNormGrads:
    """batch_norm_backward under create_graph: each output, when a formula reads it, is recorded
    as its own node."""

    def __init__(self, *args):
        self.args = args

    def __getitem__(self, i):
        g, x, weight, running_mean, running_var, save_mean, save_invstd, training, eps = self.args
        value = _batch_norm_backward(*(a._data if isinstance(a, Tensor) else a for a in self.args))[i]
        return _kernel_node("native_batch_norm_backward_" + ("input", "weight", "bias")[i], value, (g, x, weight),
                            {"grad_out": g, "input": x, "weight": weight, "running_mean": running_mean,
                             "running_var": running_var, "save_mean": save_mean, "save_invstd": save_invstd},
                            {"eps": eps, "train": training})


def _layer_norm_node(which, value, g, x, weight, mean, rstd, normalized_shape):
    return _kernel_node("native_layer_norm_backward_" + which, value, (g, x, weight),
                        {"grad_out": g, "input": x, "weight": weight, "mean": mean, "rstd": rstd},
                        {"normalized_shape": normalized_shape})


_TM.conv_backward_input = staticmethod(_conv_backward_input_recorded)
_TM.conv_backward_weight = staticmethod(_conv_backward_weight_recorded)
_TM.conv_backward_bias = staticmethod(_conv_backward_bias_recorded)
_TM.batch_norm_backward = staticmethod(_BatchNormGrads)
_TM.layer_norm_backward_input = staticmethod(
    lambda g, x, weight, mean, rstd, normalized_shape: _layer_norm_node(
        "input", _layer_norm_backward_input(g._data, x._data, None if weight is None else weight._data, mean._data,
                                            rstd._data, normalized_shape), g, x, weight, mean, rstd, normalized_shape))
_TM.layer_norm_backward_weight = staticmethod(
    lambda g, x, weight, mean, rstd, normalized_shape: _layer_norm_node(
        "weight", _layer_norm_backward_weight(g._data, x._data, None, mean._data, rstd._data, normalized_shape),
        g, x, weight, mean, rstd, normalized_shape))
_TM.layer_norm_backward_bias = staticmethod(
    lambda g, x, weight, normalized_shape: _kernel_node(
        "native_layer_norm_backward_bias", O.NUMPY_MATH.layer_norm_backward_bias(g._data, None, None,
                                                                                  normalized_shape),
        (g, x, weight), {"grad_out": g}))

# -- the losses' gradients under create_graph (SmoothL1Loss/HuberLoss/BinaryCrossEntropy BackwardBackward0)


def _reduced_grad_output(first_order, g, grad_output, x, y, reduction, param):
    """*_loss_double_backward_grad_output: the loss's gradient is linear in grad_output; reduced,
    it is a number, so its gradient is the sum of the first-order kernel at ones times g."""
    if reduction == 0:
        return first_order(g, x, y, reduction, param)
    return np.asarray((first_order(np.ones_like(grad_output), x, y, reduction, param) * g).sum(), g.dtype)


def _smooth_l1_double_backward(g, x, y, reduction, beta):
    if beta == 0:
        return np.zeros_like(g)
    out = g * (np.abs(x - y) < beta) / beta
    return out / x.size if reduction == 1 else out


def _huber_double_backward(g, x, y, reduction, delta):
    out = g * (np.abs(x - y) < delta)
    return out / x.size if reduction == 1 else out


_BCE_EPS = 1e-12


def _weighted_mean(v, weight, reduction, n):
    if weight is not None:
        v = v * weight
    return v / n if reduction == 1 else v


def _bce_double_backward(grad_output, g, x, y, weight, reduction):
    gi = (x * x - 2 * x * y + y) / ((x + _BCE_EPS) ** 2 * (1 - x + _BCE_EPS) ** 2) * (g * grad_output)
    return _weighted_mean(gi, weight, reduction, x.size)


def _bce_double_backward_grad_output(g, x, y, weight, reduction):
    return _weighted_mean((x - y) / ((x + _BCE_EPS) * (1 - x + _BCE_EPS)) * g, weight, reduction, x.size)


def _bce_double_backward_target(g, grad_output, x, y, weight, reduction):
    res = _weighted_mean(-g * grad_output, weight, 0, 1)
    res = res / np.maximum((1 - x) * x, _BCE_EPS)
    return res / y.size if reduction == 1 else res


_LOSS_SAVED = (("grad_output", ALWAYS), ("self", ALWAYS), ("target", ALWAYS))
ROWS["smooth_l1_loss_backward"] = TABLE["nn.smooth_l1_loss_backward"] = op(
    "SmoothL1LossBackwardBackward0", ("grad_output", "self", "target"), saved=_LOSS_SAVED, attrs=("beta", "reduction"),
    grad_output=lambda m, g, grad_output, self, target, reduction, beta: m.smooth_l1_double_backward_grad_output(
        g, grad_output, self, target, reduction, beta),
    self=lambda m, g, grad_output, self, target, reduction, beta: m.smooth_l1_double_backward(
        m.mul_g(g, grad_output), self, target, reduction, beta),
    target=lambda m, g, grad_output, self, target, reduction, beta: m.neg_g(m.smooth_l1_double_backward(
        m.mul_g(g, grad_output), self, target, reduction, beta)))
ROWS["huber_loss_backward"] = TABLE["nn.huber_loss_backward"] = op(
    "HuberLossBackwardBackward0", ("grad_output", "self", "target"), saved=_LOSS_SAVED, attrs=("delta", "reduction"),
    grad_output=lambda m, g, grad_output, self, target, reduction, delta: m.huber_double_backward_grad_output(
        g, grad_output, self, target, reduction, delta),
    self=lambda m, g, grad_output, self, target, reduction, delta: m.huber_double_backward(
        m.mul_g(g, grad_output), self, target, reduction, delta),
    target=lambda m, g, grad_output, self, target, reduction, delta: m.neg_g(m.huber_double_backward(
        m.mul_g(g, grad_output), self, target, reduction, delta)))
ROWS["binary_cross_entropy_backward"] = TABLE["nn.binary_cross_entropy_backward"] = op(
    "BinaryCrossEntropyBackwardBackward0", ("grad_output", "self", "target"),
    saved=_LOSS_SAVED + (("weight", ALWAYS),), attrs=("reduction",),
    grad_output=lambda m, g, self, target, weight, reduction: m.bce_double_backward_grad_output(
        g, self, target, weight, reduction),
    self=lambda m, g, grad_output, self, target, weight, reduction: m.bce_double_backward(
        grad_output, g, self, target, weight, reduction),
    target=lambda m, g, grad_output, self, target, weight, reduction: m.bce_double_backward_target(
        g, grad_output, self, target, weight, reduction))

for _name, _fn in (
        ("smooth_l1_double_backward", _f64(_smooth_l1_double_backward)),
        ("smooth_l1_double_backward_grad_output", lambda g, go, x, y, r, beta: _reduced_grad_output(
            O._NumpyMath.smooth_l1_backward, g, go, x, y, r, beta)),
        ("huber_double_backward", _f64(_huber_double_backward)),
        ("huber_double_backward_grad_output", lambda g, go, x, y, r, delta: _reduced_grad_output(
            O._NumpyMath.huber_backward, g, go, x, y, r, delta)),
        ("bce_double_backward", _f64(_bce_double_backward)),
        ("bce_double_backward_grad_output", _f64(_bce_double_backward_grad_output)),
        ("bce_double_backward_target", _f64(_bce_double_backward_target))):
    setattr(O._NumpyMath, _name, staticmethod(_fn))

_TM.smooth_l1_backward = _recorded("smooth_l1_loss_backward", "smooth_l1_backward", (0, 1, 2), range(3),
                                   attrs={"reduction": 3, "beta": 4})
_TM.huber_backward = _recorded("huber_loss_backward", "huber_backward", (0, 1, 2), range(3),
                               attrs={"reduction": 3, "delta": 4})
_TM.bce_backward = _recorded("binary_cross_entropy_backward", "bce_backward", (0, 1, 2), range(4),
                             saved={"weight": 3}, attrs={"reduction": 4})
