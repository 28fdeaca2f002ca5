"""Backward formulas longer than a line, each PyTorch's function of that name in
FunctionsManual.cpp written against `m`, plus the first-order kernels they call."""
from __future__ import annotations

import builtins as _b
import math

import numpy as np

from ..engine import CONFIG, TensorBase
from .numeric import _arr_of
from .kernels import _avg_pool_forward, _bn_axes, _conv_forward, _layer_norm_axes


def _ndim(g):
    return g._data.ndim if isinstance(g, TensorBase) else g.ndim


# -- backward formulas longer than a line, each PyTorch's function of that name in
# FunctionsManual.cpp written against `m`: the same nodes under create_graph, plain NumPy
# otherwise. Branches on values (zeros, ties) read the arrays, as PyTorch's code does.


def _dtype_of(v):
    return v._data.dtype if isinstance(v, TensorBase) else v.dtype


def _unsqueeze_multiple(m, t, dim, ndim):
    if len(dim) == 1:
        return m.unsqueeze(t, dim[0])
    for d in sorted(x % ndim for x in dim):
        t = m.unsqueeze(t, d)
    return t


def _prod_backward(m, g, self, result, dim, keepdim):
    """grad * (result / self) when self holds no zero, else prod_safe_zeros_backward."""
    x = _arr_of(self)
    if x.ndim == 0:
        return g
    if dim is None:
        if not (x == 0).any():
            return g * (result / self)
        return m.reshape(_prod_safe_zeros_backward(m, g, m.reshape(self, (-1,)), 0), x.shape)
    dim = dim % x.ndim
    if not keepdim:
        g, result = m.unsqueeze(g, dim), m.unsqueeze(result, dim)
    if not (x == 0).any():
        return g * (result / self)
    return _prod_safe_zeros_backward(m, g, self, dim)


def _prod_safe_zeros_backward(m, g, inp, dim):
    """The product of all the other elements, as exclusive cumulative products from both ends."""
    shape = _arr_of(inp).shape
    n = shape[dim]
    if _arr_of(inp).size == 0:
        return m.expand(g, shape)
    if n == 1:
        return g
    ones = m.constant(np.ones(shape[:dim] + (1,) + shape[dim + 1:], _dtype_of(g)))
    exclusive_normal = m.cumprod(m.cat([ones, m.narrow(inp, dim, 0, n - 1)], dim), dim)
    narrow_reverse = m.flip(m.narrow(inp, dim, 1, n - 1), (dim,))
    exclusive_reverse = m.flip(m.cumprod(m.cat([ones, narrow_reverse], dim), dim), (dim,))
    return g * (exclusive_normal * exclusive_reverse)


def _norm_backward(m, g, self, result, ord, dim, keepdim):
    """linalg_vector_norm_backward, one branch per order p (p=0: no gradient at all)."""
    x = _arr_of(self)
    p = float(ord)
    if not keepdim and x.ndim and dim:
        g = _unsqueeze_multiple(m, g, dim, x.ndim)
        result = _unsqueeze_multiple(m, result, dim, x.ndim)
    norm = _arr_of(result)
    if p == 0:
        return None
    if p == 1:
        return m.sign(self) * g
    if p == 2:
        return g * m.masked_fill(self / result, norm == 0, 0)
    if np.isinf(p):                      # amax(abs(self)): ties share the gradient
        a = np.abs(x)
        mask = (a == norm) | np.isnan(a)
        count = mask.sum(axis=None if dim is None or not x.ndim else tuple(dim), keepdims=True).astype(_dtype_of(g))
        return m.sign(self) * ((g / m.constant(count)) * m.constant(mask))
    if p < 1:
        scaled = m.sign(self) * m.masked_fill(m.pow_(m.abs(self), p - 1), x == 0, 0)
        return scaled * g * m.pow_scalar(result, 1 - p)
    if p < 2:
        scaled = m.sign(self) * m.pow_(m.abs(self), p - 1)
    else:
        scaled = self * m.pow_(m.abs(self), p - 2)
    return scaled * m.masked_fill(g / m.pow_scalar(result, p - 1), norm == 0, 0)


def _pow_backward_self(m, g, self, exponent):
    zero = m.constant(np.zeros((), _dtype_of(g)))
    return m.where(_arr_of(exponent) == 0, zero, g * (exponent * m.pow(self, m.sub_scalar(exponent, 1))))


def _pow_backward_exponent(m, g, self, exponent, result):
    zero = m.constant(np.zeros((), _dtype_of(g)))
    cond = (_arr_of(self) == 0) & (_arr_of(exponent) >= 0)
    return g * m.where(cond, zero, result * m.log(m.to(self, _dtype_of(result))))


def _reversed_cumsum(m, w, dim):
    return m.flip(m.cumsum(m.flip(w, (dim,)), dim), (dim,))


def _cumsum_backward(m, g, dim):
    shape = _arr_of(g).shape
    if _arr_of(g).size <= 1 or shape[dim % len(shape)] == 1:
        return g
    return _reversed_cumsum(m, g, dim % len(shape))


def _cumprod_backward(m, g, self, dim, result):
    """sum over k >= i of g_k * result_k / self_i; with a zero in self, the exact products
    (an O(n) pass on arrays; under create_graph PyTorch's differentiable O(n^2) one)."""
    x = _arr_of(self)
    if x.size <= 1 or x.shape[dim % x.ndim] == 1:
        return g
    dim = dim % x.ndim
    if not (x == 0).any():
        return _reversed_cumsum(m, result * g, dim) / self
    return m.cumprod_backward_with_zeros(g, self, dim)


def _clamp_min_mask(self, min, max):
    """clamp_backward_min_max: min gets the gradient where self < min (and min < max)."""
    mask = _arr_of(self) < _arr_of(min)
    return mask if max is None else mask & (_arr_of(min) < _arr_of(max))


def _clamp_max_mask(self, min, max):
    mask = _arr_of(self) > _arr_of(max)
    return mask if min is None else mask | (_arr_of(max) < _arr_of(min))


def _cat_backward(m, g, attrs, meta):
    dim = attrs["dim"] % _b.max(g.ndim if not isinstance(g, TensorBase) else g._data.ndim, 1)
    out, start = [], 0
    for shape, _ in meta:
        if shape == (0,):                   # a skipped 1-D empty input: an empty gradient
            out.append(CONFIG.tensor(np.zeros(0, g._data.dtype)) if isinstance(g, TensorBase) else np.zeros(0, g.dtype))
            continue
        n = shape[dim] if len(shape) > dim else 0
        out.append(m.narrow(g, dim, start, n))
        start += n
    return out


def _stack_backward(m, g, attrs, meta):
    dim = attrs["dim"]
    return [m.select(g, dim, i) for i in range(len(meta))]


def _loss_mean(m, grad, input, reduction):
    """The last step of a loss's backward formula: divide by the input's numel for 'mean'."""
    return m.div_scalar(grad, _arr_of(input).size) if reduction == 1 else grad


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


def _scaled(m, g, alpha):
    return g if alpha == 1 else m.mul_scalar(g, alpha)


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


def _trilinear_np(i1, i2, i3, expand1, expand2, expand3, sumdim):
    """at::_trilinear: each input unsqueezed at its expand dims, their product summed over sumdim
    (in float64, rounded once)."""
    dims = "abcdefgh"[:i1.ndim + len(expand1)]

    def spec(skip):
        return "".join(d for k, d in enumerate(dims) if k not in skip)
    y = np.einsum(f"{spec(expand1)},{spec(expand2)},{spec(expand3)}->{spec(sumdim)}",
                  *(a.astype(np.float64) for a in (i1, i2, i3)))
    return y.astype(i1.dtype)

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


# -- pointwise maths (session 9)
# C++ evaluates the operands of an operator right to left: PyTorch's formulas make their nodes
# in that order, which decides the order their gradients add up in under create_graph.
def _atan2_backward(m, g, self, other, wrt_self):
    """PyTorch's atan2_backward: recip = 1 / (self^2 + other^2) first, then g * other * recip
    or g * -self * recip."""
    recip = m.atan2_recip(g, self, other)
    return g * other * recip if wrt_self else g * -self * recip


def _fmod_backward_other(m, g, self, other):
    """-grad * self.div(other, rounding_mode="trunc"): the quotient first."""
    quotient = m.trunc_divide(self, other)
    return -g * quotient


def _addcdiv_backward_tensor2(m, g, tensor1, tensor2, value):
    """-grad * (value * tensor1 / (tensor2 * tensor2)): the square first, the negation last."""
    square = tensor2 * tensor2
    quotient = m.mul_scalar(tensor1, value) / square
    return -g * quotient


def _sinc_backward(m, g, self):
    """PyTorch's sinc_backward: g * (pi x cos(pi x) - sin(pi x)) / (pi x^2), 0 where pi x^2 is 0."""
    self_pi = m.mul_scalar(self, math.pi)
    self_squared_pi = m.mul_scalar(self * self, math.pi)
    sin = m.sin(self_pi)              # ((self_pi * cos) - sin: the right operand first)
    out = g * (self_pi * m.cos(self_pi) - sin) / self_squared_pi
    return m.where(_arr_of(self_squared_pi) == 0.0, m.constant(np.zeros((), _dtype_of(g))), out)


def _copysign_self_backward(m, g, self, result):
    """PyTorch's copysign_tensor_self_backward: g * (result / self), 0 where self is 0."""
    return g * m.masked_fill(result / self, _arr_of(self) == 0, 0)


def _logit_backward(m, g, self, eps):
    """g / (x (1 - x)) inside [eps, 1 - eps] (0 outside), or inside [0, 1] (nan outside) without eps."""
    x = _arr_of(self)
    lo, hi, outside = (0.0, 1.0, np.nan) if eps is None else (eps, 1.0 - eps, 0.0)
    inside = np.logical_and(x >= lo, x <= hi)
    return m.where(inside, g / (self * m.rsub_scalar(self, 1.0)), m.constant(np.full((), outside, _dtype_of(self))))

# -- comparisons/predicates and statistical reductions (session 9)


def _safe_size(sizes, dim):
    n = 1
    for d in dim if sizes else ():
        n *= sizes[d % len(sizes)]
    return n


def _scale(numerator, dof):
    return numerator / dof if dof else math.inf          # (C++'s 2.0 / 0: inf)


def _var_backward(m, g, self, dim, correction, keepdim):
    """var_backward: 2 / (n - correction) * grad * (self - mean); where n - correction <= 0 over
    every element, grad times nan (an element equal to the mean) or inf."""
    x = _arr_of(self)
    c = 1 if correction is None else correction
    if x.ndim == 0 or dim is None:
        mean = m.mean_keepdim(self, None)
        dof = x.size - c
        if dof <= 0:
            return g * m.constant(np.where(x == _arr_of(mean), np.nan, np.inf).astype(np.float32))
        return m.mul_scalar(g, 2.0 / dof) * (self - mean)
    if not keepdim and x.ndim > 1:
        g = _unsqueeze_multiple(m, g, dim, x.ndim)
    return m.mul_scalar(g, _scale(2.0, _safe_size(x.shape, dim) - c)) * (self - m.mean_keepdim(self, dim))


def _std_backward(m, g, self, result, dim, correction, keepdim):
    """std_backward: var's, of grad / (2 * std), zero where std is zero."""
    zero = _arr_of(result) == 0
    return _var_backward(m, m.masked_fill(g / m.mul_scalar(result, 2), zero, 0), self, dim, correction, keepdim)


def _mean_backward(m, g, self, dim, keepdim):
    """mean_backward: sum's gradient divided by the number of elements reduced."""
    x = _arr_of(self)
    if dim is None or not dim:
        return m.div_scalar(m.expand(g, x.shape), x.size)
    return m.div_scalar(m.expand(g if keepdim else m.unsqueeze_dims(g, dim, x.ndim), x.shape), _safe_size(x.shape, dim))


def _var_mean_backward(m, g, self, dim, correction, keepdim):
    gvar, gmean = g
    gself = None if gvar is None else _var_backward(m, gvar, self, dim, correction, keepdim)
    if gmean is not None:
        aux = _mean_backward(m, gmean, self, dim, keepdim)
        gself = aux if gself is None else gself + aux
    return gself


def _std_mean_backward(m, g, self, result0, dim, correction, keepdim):
    gstd, gmean = g
    gself = None if gstd is None else _std_backward(m, gstd, self, result0, dim, correction, keepdim)
    if gmean is not None:
        aux = _mean_backward(m, gmean, self, dim, keepdim)
        gself = aux if gself is None else gself + aux
    return gself


def _logsumexp_backward(m, g, self, result, dim, keepdim):
    x = _arr_of(self)
    if not keepdim and x.ndim:
        g = _unsqueeze_multiple(m, g, dim, x.ndim)
        result = _unsqueeze_multiple(m, result, dim, x.ndim)
    return g * m.exp(self - result)


def _restored_shape(shape, dims, ndim):
    """restore_reduced_dims: the reduced dims back as size 1."""
    out, it = [], iter(shape)
    for d in range(ndim):
        out.append(1 if d in dims else next(it))
    return tuple(out)


def _amax_backward(m, g, self, result, dim, keepdim):
    """scale_grad_by_count(restore_reduced_dims(grad), restore_reduced_dims(result) == self, dim):
    the elements equal to the extreme share its gradient evenly."""
    x = _arr_of(self)
    dims = tuple(d % x.ndim for d in dim) if x.ndim and dim else tuple(range(x.ndim))
    r = _arr_of(result)
    if not keepdim and dim:
        shape = _restored_shape(r.shape, dims, x.ndim)
        g, r = m.reshape(g, shape), r.reshape(shape)
    mask = r == x
    dt = _dtype_of(g)
    count = mask.sum(axis=dims, keepdims=True).astype(dt)
    return (g / m.constant(count)) * m.constant(mask.astype(dt))


def _aminmax_backward(m, g, self, min, max, dim, keepdim):
    dims = () if dim is None else (dim,)
    gself = None
    for grad, value in zip(g, (min, max)):
        if grad is not None:
            part = _amax_backward(m, grad, self, value, dims, keepdim)
            gself = part if gself is None else gself + part
    return gself


def _nansum_backward(m, g, self, dim, keepdim):
    """sum's gradient times (self is not nan): an inf or nan gradient stays nan there."""
    x = _arr_of(self)
    if dim and not keepdim:
        g = m.unsqueeze_dims(g, dim, x.ndim)
    return m.expand(g, x.shape) * m.constant((~np.isnan(x)).astype(_dtype_of(g)))


def _evenly_distribute_backward(m, g, self, result):
    """The elements equal to the result (nan ones when it is nan) share its gradient."""
    x, v = _arr_of(self), _arr_of(result)
    mask = np.isnan(x) if np.isnan(v) else x == v
    share = g / m.constant(np.asarray(mask.sum(), _dtype_of(g)))
    return m.mask(m.expand(share, x.shape), mask)
