"""The namespaces backward formulas compute with: NumPy arrays (_NumpyMath) or, under
create_graph, differentiable tensors (_TensorMath)."""
from __future__ import annotations

import numpy as np

from .. import engine as E
from ..engine import CONFIG, Saved, TensorBase
from ..engine import TorchNotImplementedError as TorchNotImplementedError_
from .numeric import _CONST32, _F32, _INT64_MAX, _in64, _mul_g, _number_operand, _rounds
from .kernels import _avg_pool_backward, _conv_backward_input, _conv_backward_weight, _max_pool_backward
from .record import _begin, _numel, _record
from .formulas import (_avg_pool2d, _bce_double_backward, _bce_double_backward_grad_output,
                       _bce_double_backward_target, _bias_double_backward, _conv, _elu_backward_np,
                       _elu_double_backward, _embedding_backward, _embedding_double_backward, _f64, _gelu_backward_np,
                       _gelu_double_backward, _huber_double_backward, _layer_norm_backward_input,
                       _layer_norm_backward_weight, _log_sigmoid, _max_pool_double_backward, _nll_backward,
                       _reduced_grad_output, _smooth_l1_double_backward, _softplus_backward_np,
                       _softplus_double_backward, _trilinear_np)
from .table import ROWS, TABLE
from .views import _check_positions
from .pointwise import (_cos, _exp, _log, _power, _rounded, _sigmoid, _sin, _sub_scalar, _tanh, abs, clone, cos,
                        div_scalar, exp, log, mul_scalar, pow, sigmoid, sin, sqrt, tanh, to_dtype, where)
from .reduction import cumprod, cumsum, prod, sum
from .shape import (_slice, _slice_from, _sum_to, _view_result, expand, flip, reshape, select, squeeze, t_,
                    transpose, unsqueeze)
from .inplace import masked_fill
from .indexing import setitem
from .join import _split_backward, _unbind_backward, cat
from .linalg import _trilinear, bmm, matmul, mm, mv


# Helpers whose other tensor arguments only select or place values (masks, indices): their
# result is a constant whenever the incoming gradient is.
_LINEAR_IN_GRAD = {"mask", "evenly_distribute", "value_selecting", "tie_split",
                   "slice_backward", "index_backward", "swapaxes", "permute", "zero_at", "take", "narrow",
                   "select", "as_strided_backward"}


def _double_backward(name, *attr_names):
    """A backward kernel as a node of its own (TanhBackwardBackward0, SoftmaxBackwardDataBackward0,
    ...): its value is the NumPy helper of the same name, its inputs the incoming gradient and
    the forward output, both saved."""
    def record(g, output, *attrs):
        seq = _begin(g, output)
        out = getattr(NUMPY_MATH, name)(g._data, output._data, *attrs)
        return _record(TABLE[name], seq, out, (g, output), extra={"grad_output": g, "output": output},
                       attrs=dict(zip(attr_names, attrs)) if attrs else None)
    return staticmethod(record)


def _nll_backward_recorded(g, self, target, weight, total_weight, ignore_index, reduction, class_dim):
    row = ROWS["nll_loss2d_backward" if self._data.ndim == 4 else "nll_loss_backward"]
    out = _nll_backward(g._data, self._data, target._data, None if weight is None else weight._data, total_weight._data,
                        ignore_index, reduction, class_dim)
    return _record(row, _begin(g, self), out, (g, self), extra={"target": target, "weight": weight},
                   attrs={"ignore_index": ignore_index, "reduction": reduction})


def _nll_loss_recorded(g, target, weight, ignore_index, reduction):
    row = ROWS["nll_loss2d" if g._data.ndim == 4 else "nll_loss"]
    from .loss import _nll       # (torch.nn's families load with torch.nn)
    return _nll(row, g, target, weight, ignore_index, reduction)


def _kernel_node(key, value, inputs, saved=None, attrs=None):
    """A first-order kernel's result `value` recorded as the node ROWS[key] on `inputs`."""
    return _record(ROWS[key], _begin(*inputs), value, inputs, extra=saved, attrs=attrs)


def _recorded(key, helper, inputs, arrays, saved=None, attrs=None):
    """TENSOR_MATH's version of a NumPy kernel: its value, as a node of its own."""
    def record(*args):
        tensors = dict(zip(arrays, args))
        value = getattr(NUMPY_MATH, helper)(*(a._data if isinstance(a, TensorBase) else a for a in args))
        return _kernel_node(key, value, tuple(tensors[i] for i in inputs),
                            {s: tensors[i] for s, i in (saved or {}).items()},
                            {a: args[i] for a, i in (attrs or {}).items()})
    return staticmethod(record)


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
    return _kernel_node("convolution_backward_bias", NUMPY_MATH.conv_backward_bias(g._data, None, None),
                        (g, input, weight),
                        {"grad_output": g}, _conv_attrs((1,) * nd, (0,) * nd, (1,) * nd, 1))


class _BatchNormGrads:
    """batch_norm_backward under create_graph: each output, when a formula reads it, is recorded
    as its own node."""

    def __init__(self, *args):
        self.args = args

    def __getitem__(self, i):
        g, x, weight, running_mean, running_var, save_mean, save_invstd, training, eps = self.args
        from .normalization import _batch_norm_backward
        value = _batch_norm_backward(*(a._data if isinstance(a, TensorBase) else a for a in self.args))[i]
        return _kernel_node("native_batch_norm_backward_" + ("input", "weight", "bias")[i], value, (g, x, weight),
                            {"grad_out": g, "input": x, "weight": weight, "running_mean": running_mean,
                             "running_var": running_var, "save_mean": save_mean, "save_invstd": save_invstd},
                            {"eps": eps, "train": training})


def _layer_norm_node(which, value, g, x, weight, mean, rstd, normalized_shape):
    return _kernel_node("native_layer_norm_backward_" + which, value, (g, x, weight),
                        {"grad_out": g, "input": x, "weight": weight, "mean": mean, "rstd": rstd},
                        {"normalized_shape": normalized_shape})


class _TensorMath:
    """The namespace backward formulas use under create_graph: the same operations as
    NUMPY_MATH, recorded as graph nodes so gradients can be differentiated."""

    def __getattr__(self, name):
        """A backward helper without a differentiable version of its own. When its result
        cannot require grad (the incoming gradient is a constant and the helper is linear in
        it, or every tensor it reads is constant), PyTorch's result has no grad_fn either: compute
        it with NumPy. Otherwise say so clearly: never a silently wrong higher-order gradient."""
        helper = getattr(NUMPY_MATH, name)

        def constant_or_refuse(*args):
            g = args[0]
            others = [a for a in args[1:] if isinstance(a, TensorBase) and a._rg]
            if (isinstance(g, TensorBase) and g._rg) or (others and name not in _LINEAR_IN_GRAD):
                raise TorchNotImplementedError_(
                    f"create_graph=True through this operation ({name}) is not supported by gradcli yet; "
                    "first-order gradients (create_graph=False) work")
            out = helper(*[a._data if isinstance(a, TensorBase) else a for a in args])
            return CONFIG.tensor(np.asarray(out))
        return constant_or_refuse

    exp, log, sin, cos, sqrt, tanh, abs = map(staticmethod, (exp, log, sin, cos, sqrt, tanh, abs))

    @staticmethod
    def sign(t):
        seq = _begin(t)
        return _record(TABLE["sgn"], seq, np.sign(t._data), (t,))

    @staticmethod
    def fit(g, shape, dtype):
        if g._data.shape != shape:
            g = _sum_to(g, shape)
        if g._data.dtype != dtype:
            g = to_dtype(g, dtype)
        return g

    matmul = staticmethod(lambda a, b: matmul(a, b))
    transpose = staticmethod(lambda a: a.t())
    outer = staticmethod(lambda a, b: reshape(a, (a._data.shape[0], 1)) * b)     # at::outer
    mul_scalar = staticmethod(mul_scalar)

    split_backward = staticmethod(_split_backward)
    unbind_backward = staticmethod(_unbind_backward)
    select = staticmethod(lambda g, dim, i: select(g, dim, i))         # stack's backward: SelectBackward0 each

    @staticmethod
    def add_scalar(a, s):
        seq = _begin(a)
        return _record(TABLE["add_scalar"], seq, a._data + np.asarray(s, a._data.dtype), (a,))

    div_scalar = staticmethod(div_scalar)

    pow_scalar = staticmethod(lambda a, e: pow(a, e))
    sum_all = staticmethod(lambda g: sum(g))
    # NumPy writes these into their temporary operand; here they are the plain ops
    mul_into = staticmethod(lambda a, t: a * t)
    div_into = staticmethod(lambda a, t: a / t)
    neg_into = staticmethod(lambda t: -t)
    mul_g = staticmethod(lambda g, x: g * x)
    div_g = staticmethod(lambda g, x: g / x)
    neg_g = staticmethod(lambda g: -g)

    @staticmethod
    def floor_divide(a, b):
        """div(a, b, rounding_mode="floor") as a node (DivBackward2)."""
        seq = _begin(a, b)
        with np.errstate(all="ignore"):
            out = np.floor_divide(a._data, b._data)
        return _record(TABLE["div_floor"], seq, out, (a, b), attrs={"rounding_mode": "floor"})

    div_tensor_other_backward = staticmethod(lambda g, self, other: -g * ((self / other) / other))
    pow_backward = staticmethod(lambda g, self, e: g * _TensorMath.mul_scalar(pow(self, e - 1), e))

    where = staticmethod(lambda c, a, b: where(c, a, b))

    @staticmethod
    def expand(g, shape):
        return expand(g, shape)

    @staticmethod
    def reshape(g, shape):
        return reshape(g, tuple(shape))

    @staticmethod
    def unsqueeze_dims(g, dims, ndim):
        for d in sorted({x % ndim for x in dims} if ndim else ()):   # a 0-d input: nothing to restore
            g = unsqueeze(g, d)
        return g

    @staticmethod
    def squeeze_dim(g, dim):
        return squeeze(g, dim)

    # -- prod, norm, pow(tensor, tensor) and the matmul family: their formulas' building blocks
    t = staticmethod(lambda a: t_(a))
    swapaxes = staticmethod(lambda a, d0, d1: transpose(a, d0, d1))
    mm = staticmethod(lambda a, b: mm(a, b))
    mv = staticmethod(lambda a, b: mv(a, b))
    bmm = staticmethod(lambda a, b: bmm(a, b))
    unsqueeze = staticmethod(lambda a, d: unsqueeze(a, d))
    narrow = staticmethod(lambda a, d, start, n: _slice(a, d, slice(start, start + n)))
    cat = staticmethod(lambda ts, d: cat(ts, d))
    cumprod = staticmethod(lambda a, d: cumprod(a, d))
    cumsum = staticmethod(lambda a, d: cumsum(a, d))
    flip = staticmethod(lambda a, dims: flip(a, dims))
    masked_fill = staticmethod(lambda a, mask, v: masked_fill(a, mask if isinstance(mask, TensorBase) else CONFIG.tensor(np.asarray(mask)), v))
    sub_scalar = staticmethod(lambda a, s: _sub_scalar(a, s))
    pow = staticmethod(lambda a, b: pow(a, b))
    to = staticmethod(lambda a, dt: to_dtype(a, dt))
    constant = staticmethod(lambda a: CONFIG.tensor(np.asarray(a)))
    mask = staticmethod(lambda g, keep: where(keep, g, CONFIG.tensor(np.zeros((), g._data.dtype))))   # at::where(c, grad, 0)

    @staticmethod
    def slice(g, dim, start, end, step):
        out = g._data[(slice(None),) * dim + (slice(start, None if end in (None, _INT64_MAX) else end, step),)]
        return _view_result(TABLE["slice"], g, out, {"dim": dim, "end": end, "self_sym_sizes": tuple(g._data.shape),
                                                     "start": start, "step": step})

    @staticmethod
    def slice_backward(g, sizes, dim, start, end, step):
        seq = _begin(g)
        return _record(TABLE["slice_backward"], seq, NUMPY_MATH.slice_backward(g._data, sizes, dim, start, end, step),
                       (g,), attrs={"dim": dim, "end": end, "start": start, "step": step})

    @staticmethod
    def select_backward(g, sizes, dim, index):
        return _record(TABLE["select_backward"], _begin(g), NUMPY_MATH.select_backward(g._data, sizes, dim, index),
                       (g,), attrs={"dim": dim, "index": index})

    @staticmethod
    def cumprod_backward_with_zeros(g, self, dim):
        """PyTorch's grad-mode path (O(n^2), differentiable): each slice k of the gradient is
        sum_j g_j * prod(self[:k]) * prod(self[k+1:j+1]), copied into a zeros tensor."""
        shape = self._data.shape
        n = shape[dim]
        grad_input = CONFIG.tensor(np.zeros(shape, g._data.dtype))
        for k in range(n):
            if k == 0:
                ones = CONFIG.tensor(np.ones(shape[:dim] + (1,) + shape[dim + 1:], g._data.dtype))
                omitted = cat([ones, cumprod(_slice_from(self, dim, 1), dim)], dim)
            else:
                until_k = prod(_slice(self, dim, slice(0, k)), dim, keepdim=True)
                omitted = until_k
                if k < n - 1:
                    from_k1 = cumprod(_slice_from(self, dim, k + 1), dim)
                    omitted = cat([until_k, expand(until_k, from_k1._data.shape) * from_k1], dim)
            setitem(grad_input, (slice(None),) * dim + (k,), sum(_slice_from(g, dim, k) * omitted, dim))
        return grad_input

    @staticmethod
    def pow_(a, e):
        """In-place pow_ on a fresh result: PyTorch's PowBackward0 then saves a clone of the base
        (made first, so a CloneBackward0 node) while its edge goes to the base's grad_fn."""
        original = clone(a) if a._rg else None
        out = pow(a, e)
        if original is not None:
            out._fn.saved["self"] = Saved(original)
        return out

    @staticmethod
    def unsqueeze_to(g, dim, sizes):
        """squeeze's backward: unsqueeze where the input had a size-1 dim (PyTorch's unsqueeze_to)."""
        if not sizes:
            return g
        for d in sorted({d % len(sizes) for d in (dim if isinstance(dim, tuple) else (dim,))}):
            if sizes[d] == 1:                  # ascending, so each d is a position in the input
                g = unsqueeze(g, d)
        return g

    tanh_backward = _double_backward("tanh_backward")
    sigmoid_backward = _double_backward("sigmoid_backward")

    @staticmethod
    def threshold_backward(g, result):
        seq = _begin(g, result)
        out = np.where(result._data > 0, g._data, np.zeros((), g._data.dtype))
        return _record(TABLE["threshold_backward"], seq, out, (g, result), attrs={"threshold": 0})

    # softmax, log_softmax and the losses: their backward helpers record double-backward nodes
    sigmoid = staticmethod(sigmoid)

    @staticmethod
    def zeros_like(g):
        return CONFIG.tensor(np.zeros_like(g._data))

    @staticmethod
    def sum_keepdim(a, dim):
        return sum(a, dim, keepdim=True)

    softmax_backward = _double_backward("softmax_backward", "dim")
    log_softmax_backward = _double_backward("log_softmax_backward", "dim")

    @staticmethod
    def mse_backward(g, self, target, reduction):
        seq = _begin(g, self, target)
        out = NUMPY_MATH.mse_backward(g._data, self._data, target._data, reduction)
        return _record(TABLE["mse_loss_backward"], seq, out, (g, self, target),
                       extra={"grad_output": g}, attrs={"reduction": reduction})

    # -- torch.nn's kernels, each a node of its own (PyTorch's double-backward support)
    embedding_backward = staticmethod(
        lambda g, indices, num_weights, padding_idx, scale_grad_by_freq: _record(
            ROWS["embedding_dense_backward"], _begin(g),
            _embedding_backward(g._data, indices._data, num_weights, padding_idx, scale_grad_by_freq), (g,),
            extra={"indices": indices}, attrs={"padding_idx": padding_idx}))
    trilinear = staticmethod(_trilinear)
    nll_backward_w = staticmethod(_nll_backward_recorded)
    nll_loss_w = staticmethod(_nll_loss_recorded)
    leaky_relu_backward = _recorded("leaky_relu_backward", "leaky_relu_backward", (0, 1), range(2),
                                    attrs={"negative_slope": 2})
    elu_backward = _recorded("elu_backward", "elu_backward", (0, 1), range(2),
                             saved={"grad_output": 0, "self_or_result": 1},
                             attrs={"alpha": 2, "scale": 3, "input_scale": 4, "is_result": 5})
    gelu_backward = _recorded("gelu_backward", "gelu_backward", (0, 1), range(2), saved={"grad_output": 0},
                              attrs={"approximate": 2})
    softplus_backward = _recorded("softplus_backward", "softplus_backward", (0, 1), range(2),
                                  saved={"grad_output": 0}, attrs={"beta": 2, "threshold": 3})
    max_pool_backward = _recorded("max_pool2d_backward", "max_pool_backward", (0, 1), range(3),
                                  saved={"indices": 2})
    avg_pool_backward = _recorded("avg_pool2d_backward", "avg_pool_backward", (0, 1), range(2),
                                  attrs={"kernel_size": 2, "stride": 3, "padding": 4, "ceil_mode": 5,
                                         "count_include_pad": 6, "divisor_override": 7})
    conv_backward_input = staticmethod(_conv_backward_input_recorded)
    conv_backward_weight = staticmethod(_conv_backward_weight_recorded)
    conv_backward_bias = staticmethod(_conv_backward_bias_recorded)
    batch_norm_backward = staticmethod(_BatchNormGrads)
    layer_norm_backward_input = staticmethod(
        lambda g, x, weight, mean, rstd, normalized_shape: _layer_norm_node(
            "input", _layer_norm_backward_input(g._data, x._data, None if weight is None else weight._data,
                                                mean._data, rstd._data, normalized_shape),
            g, x, weight, mean, rstd, normalized_shape))
    layer_norm_backward_weight = staticmethod(
        lambda g, x, weight, mean, rstd, normalized_shape: _layer_norm_node(
            "weight", _layer_norm_backward_weight(g._data, x._data, None, mean._data, rstd._data, normalized_shape),
            g, x, weight, mean, rstd, normalized_shape))
    layer_norm_backward_bias = staticmethod(
        lambda g, x, weight, normalized_shape: _kernel_node(
            "native_layer_norm_backward_bias", NUMPY_MATH.layer_norm_backward_bias(g._data, None, None,
                                                                                  normalized_shape),
            (g, x, weight), {"grad_out": g}))
    smooth_l1_backward = _recorded("smooth_l1_loss_backward", "smooth_l1_backward", (0, 1, 2), range(3),
                                   attrs={"reduction": 3, "beta": 4})
    huber_backward = _recorded("huber_loss_backward", "huber_backward", (0, 1, 2), range(3),
                               attrs={"reduction": 3, "delta": 4})
    bce_backward = _recorded("binary_cross_entropy_backward", "bce_backward", (0, 1, 2), range(4),
                             saved={"weight": 3}, attrs={"reduction": 4})


class _NumpyMath(E._NumpyMath):
    """Backward helpers on arrays, one per formula in the table that needs more than arithmetic."""

    exp, log, tanh = map(staticmethod, (_exp, _log, _tanh))

    @staticmethod
    def sin(a):
        return _sin(a) if _rounds(a) else np.sin(a, out=a if a is E.REUSE.spare_saved else E._fresh(a, a))

    @staticmethod
    def cos(a):
        return _cos(a) if _rounds(a) else np.cos(a, out=a if a is E.REUSE.spare_saved else E._fresh(a, a))

    div_scalar = staticmethod(lambda a, s: a / np.asarray(s, a.dtype))
    reshape = staticmethod(lambda g, shape: g.reshape(tuple(shape)))
    swapaxes = staticmethod(lambda g, a, b: np.swapaxes(g, a, b) if g.ndim else g)
    permute = staticmethod(lambda g, dims: np.transpose(g, dims))
    squeeze_dim = staticmethod(lambda g, dim: np.squeeze(g, dim))
    sigmoid_backward = staticmethod(lambda g, r: E._NumpyMath.mul_into(g, E._NumpyMath.mul_into(r, 1 - r)))
    threshold_backward = staticmethod(lambda g, r: np.where(r > 0, g, np.zeros((), g.dtype)))
    mask = staticmethod(lambda g, m: np.where(m, g, np.zeros((), g.dtype)))

    @staticmethod
    def mul_g(g, v):
        """g * v. A Python number as the cached 0-d array the forward multiplied by (cheaper
        for NumPy than the number, which dominates the cost on tiny tensors); a product with
        a number has no buffer to reuse (the engine's mul_g reuses arrays of g's shape)."""
        if type(v) is float and g.dtype is _F32:
            c = _CONST32.get(v)
            return g * (c if c is not None else _number_operand(v, _F32))
        return _mul_g(g, v)

    @staticmethod
    def tanh_backward(g, r):
        # PyTorch's kernel computes 1 - r*r with one rounding (a fused multiply-add); the
        # float64 emulation is kept to arrays small enough to print, as in _rounded.
        if r.shape == (1,) and g.shape == (1,) and r.dtype is _F32 and g.dtype is _F32:
            # in Python floats (float64), rounded to float32 after 1 - r*r and after the
            # product: the float64 product of two float32 numbers is exact, so that is
            # float32's own multiplication, at a third of the cost of four NumPy calls
            y = r.item()
            out = np.empty(1, _F32)
            out[0] = 1.0 - y * y                        # 1 - r*r, rounded to float32 as it is stored
            out[0] = g.item() * out.item()
            return out
        if r.dtype == np.float32 and r.size <= 65536:
            r64 = r.astype(np.float64)
            return E._NumpyMath.mul_into(g, (1 - r64 * r64).astype(np.float32))
        t = np.multiply(r, r, out=r if r is E.REUSE.spare_saved else E._fresh(r, r))
        if type(t) is np.ndarray:
            np.subtract(1, t, out=t)
        else:
            t = 1 - t
        return E._NumpyMath.mul_into(g, t)

    @staticmethod
    def pow_backward(g, self, e):
        """grad * (e * self.pow(e - 1)), PyTorch's pow_backward (e != 0), in one temporary
        (self.pow(1) is self itself: e * self is then the temporary)."""
        s = np.asarray(e, self.dtype)
        if e == 2:
            return E._NumpyMath.mul_into(g, NUMPY_MATH.mul_scalar(self, e))
        if e == 3 and self is E.REUSE.spare_saved:
            t = np.multiply(self, self, out=self)       # self.pow(2), as _np_pow, in the freed self
        else:
            t = E._np_pow(self, e - 1)
        return E._NumpyMath.mul_into(g, np.multiply(t, s, out=t) if type(t) is np.ndarray else t * s)

    @staticmethod
    def div_tensor_other_backward(g, self, other):
        """-grad * ((self / other) / other), PyTorch's div_tensor_other_backward; the
        quotient's temporary takes the second division and the product."""
        if self is E.REUSE.spare_saved:
            q = E._into(np.divide, self, other, self)
        else:
            q = np.divide(self, other, out=E._fresh(self, other))
        q = E._into(np.divide, q, other, q)
        return E._into(np.multiply, E._NumpyMath.neg_g(g), q, q)

    @staticmethod
    def unsqueeze_dims(g, dims, ndim):
        for d in sorted({x % ndim for x in dims} if ndim else ()):   # a 0-d input: nothing to restore
            g = np.expand_dims(g, d)
        return g

    t = staticmethod(lambda g: g.T)

    @staticmethod
    def select_backward(g, sizes, dim, index):
        z = np.zeros(tuple(sizes), g.dtype)
        z[(slice(None),) * (dim % len(sizes)) + (index,)] = g
        return z

    @staticmethod
    def slice_backward(g, sizes, dim, start, end, step):
        z = np.zeros(tuple(sizes), g.dtype)
        z[(slice(None),) * (dim % len(sizes)) + (slice(start, None if end in (None, _INT64_MAX) else end, step),)] = g
        return z

    @staticmethod
    def slice(g, dim, start, end, step):
        return g[(slice(None),) * dim + (slice(start, None if end in (None, _INT64_MAX) else end, step),)]

    @staticmethod
    def index_backward(g, sizes, indices):
        z = np.zeros(tuple(sizes), g.dtype)
        np.add.at(z, indices, g)
        return E.written(z, 1)          # PyTorch: zeros, then index_put_

    @staticmethod
    def evenly_distribute(g, self, result):
        mask = self == result
        return E.written(np.where(mask, g / mask.sum(), 0).astype(g.dtype), 1)     # PyTorch: a masked fill

    @staticmethod
    def value_selecting(g, dim, indices, sizes, keepdim):
        if not sizes:                       # max(0) of a 0-d tensor selected its only value
            return np.array(g)
        dim = dim % len(sizes)
        if not keepdim:
            g = np.expand_dims(g, dim)
            indices = np.expand_dims(indices, dim)
        z = np.zeros(tuple(sizes), g.dtype)
        np.put_along_axis(z, indices, g, axis=dim)
        return E.written(z, 2)          # PyTorch's value_selecting_reduction_backward writes twice

    @staticmethod
    def softmax_backward(g, result, dim):
        return result * (g - (g * result).sum(axis=dim, keepdims=True))

    @staticmethod
    def log_softmax_backward(g, result, dim):
        return g - np.exp(result) * g.sum(axis=dim, keepdims=True)

    @staticmethod
    def tie_split(g, a, b):
        # maximum/minimum: the winner takes the gradient, ties split it 50/50
        return np.where(a > b, g, np.where(a == b, g / 2, 0)).astype(g.dtype)

    @staticmethod
    def mse_backward(g, self, target, reduction):
        d = 2 * (self - target)
        if reduction == 1:
            d = d / self.size
        return (g * d).astype(self.dtype, copy=False)     # (g * d is a temporary: no copy of it)

    @staticmethod
    def as_strided_backward(g, positions, base_shape):
        _check_positions(positions)
        z = np.zeros(_numel(base_shape), g.dtype)
        np.add.at(z, positions.reshape(-1), g.reshape(-1))
        return z.reshape(base_shape)

    @staticmethod
    def sum_all(g):
        return np.asarray(g.sum(), g.dtype)

    @staticmethod
    def zero_at(g, index):
        g = g.copy()
        g[index] = 0
        return g

    @staticmethod
    def take(g, index):
        return g[index]

    sigmoid = staticmethod(_rounded(_sigmoid))
    zeros_like = staticmethod(np.zeros_like)
    sum_keepdim = staticmethod(lambda a, dim: a.sum(axis=dim, keepdims=True))

    # -- prod, norm, pow(tensor, tensor) and the matmul family: their formulas' building blocks
    t = staticmethod(lambda a: a.T)
    mm = mv = bmm = staticmethod(np.matmul)
    unsqueeze = staticmethod(np.expand_dims)
    unsqueeze_to = staticmethod(lambda g, dim, sizes: g.reshape(tuple(sizes)))
    cat = staticmethod(lambda ts, d: np.concatenate(ts, axis=d))
    cumprod = staticmethod(lambda a, d: np.cumprod(a, axis=d))
    cumsum = staticmethod(lambda a, d: np.cumsum(a, axis=d))
    flip = staticmethod(lambda a, dims: np.flip(a, dims))
    masked_fill = staticmethod(lambda a, mask, v: np.where(mask, np.asarray(v, a.dtype), a))
    sub_scalar = staticmethod(lambda a, s: a - np.asarray(s, a.dtype))
    pow = staticmethod(_power)
    pow_ = staticmethod(lambda a, e: E._np_pow(a, e))
    to = staticmethod(lambda a, dt: a.astype(dt, copy=False))
    constant = staticmethod(lambda a: a)

    @staticmethod
    def cumprod_backward_with_zeros(g, self, dim):
        """prod(self[:i]) * s_i, where s_i = g_i + self_{i+1} * s_{i+1}: exact with zeros."""
        n = self.shape[dim]
        x = np.moveaxis(self, dim, -1)
        gm = np.moveaxis(np.broadcast_to(g, self.shape), dim, -1)
        before = np.cumprod(np.concatenate([np.ones_like(x[..., :1]), x[..., :-1]], -1), -1)
        s = np.empty(x.shape, np.result_type(g, self))
        s[..., -1] = gm[..., -1]
        for i in range(n - 2, -1, -1):
            s[..., i] = gm[..., i] + x[..., i + 1] * s[..., i + 1]
        return np.moveaxis(before * s, -1, dim)

    floor_divide = staticmethod(np.floor_divide)

    # -- views' and splits' gradients
    split_backward = staticmethod(_split_backward)
    unbind_backward = staticmethod(_unbind_backward)
    narrow = staticmethod(lambda g, dim, start, n: g[(slice(None),) * dim + (slice(start, start + n),)])
    select = staticmethod(lambda g, dim, i: g[(slice(None),) * (dim % g.ndim) + (i,)])     # unbind: views

    # -- torch.nn's kernels and their double backward
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
        if y.dtype != x.dtype:          # (huber_loss_backward's TensorIterator does not promote)
            from .numeric import _SCALAR_NAME
            raise E.TorchRuntimeError(f"Found dtype {_SCALAR_NAME[y.dtype.name]} but expected {_SCALAR_NAME[x.dtype.name]}")
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

    embedding_backward = staticmethod(_embedding_backward)
    embedding_double_backward = staticmethod(_embedding_double_backward)
    layer_norm_backward_input = staticmethod(_layer_norm_backward_input)
    layer_norm_backward_weight = staticmethod(_layer_norm_backward_weight)
    layer_norm_backward_bias = staticmethod(     # (input and weight: its node's edges, as above)
        lambda g, input, weight, normalized_shape: g.sum(axis=tuple(range(g.ndim - len(normalized_shape)))).astype(
            g.dtype))

    conv_backward_input = staticmethod(_conv_backward_input)
    conv_backward_weight = staticmethod(_conv_backward_weight)
    conv_backward_bias = staticmethod(     # (input and weight: the edges of its node under create_graph)
        lambda g, input, weight: g.sum(axis=(0,) + tuple(range(2, g.ndim))).astype(g.dtype))
    max_pool_backward = staticmethod(_max_pool_backward)
    avg_pool_backward = staticmethod(_avg_pool_backward)
    trilinear = staticmethod(_trilinear_np)

    @staticmethod
    def batch_norm_backward(*args):
        from .normalization import _batch_norm_backward     # (torch.nn's families load with torch.nn)
        return _batch_norm_backward(*args)

    @staticmethod
    def nll_loss_w(g, target, weight, ignore_index, reduction):
        from .loss import _nll_forward
        return _nll_forward(g, target.astype(np.int64), weight, ignore_index, reduction, 1)[0]

    elu_double_backward = staticmethod(_f64(_elu_double_backward))
    gelu_double_backward = staticmethod(_f64(_gelu_double_backward))
    softplus_double_backward = staticmethod(_f64(_softplus_double_backward))
    max_pool_double_backward = staticmethod(_max_pool_double_backward)
    avg_pool2d = staticmethod(_avg_pool2d)
    conv = staticmethod(_conv)
    bias_double_backward = staticmethod(_bias_double_backward)
    smooth_l1_double_backward = staticmethod(_f64(_smooth_l1_double_backward))
    smooth_l1_double_backward_grad_output = staticmethod(lambda g, go, x, y, r, beta: _reduced_grad_output(
        _NumpyMath.smooth_l1_backward, g, go, x, y, r, beta))
    huber_double_backward = staticmethod(_f64(_huber_double_backward))
    huber_double_backward_grad_output = staticmethod(lambda g, go, x, y, r, delta: _reduced_grad_output(
        _NumpyMath.huber_backward, g, go, x, y, r, delta))
    bce_double_backward = staticmethod(_f64(_bce_double_backward))
    bce_double_backward_grad_output = staticmethod(_f64(_bce_double_backward_grad_output))
    bce_double_backward_target = staticmethod(_f64(_bce_double_backward_target))


NUMPY_MATH = _NumpyMath()         # the maths backward formulas run on: arrays
TENSOR_MATH = _TensorMath()       # the same names as differentiable tensor ops, under create_graph


# -- pointwise maths (session 9): the functions their gradients call, on arrays (PyTorch's
# rounding) and as recorded nodes
from . import pointwise as _P                                                    # noqa: E402
from .formulas import (_addcdiv_backward_tensor2, _atan2_backward, _copysign_self_backward,   # noqa: E402
                       _fmod_backward_other, _logit_backward, _sinc_backward)
from .numeric import _SCALAR_NAME, _arr_of                                       # noqa: E402
from ..engine import TorchRuntimeError                                           # noqa: E402


def _not_implemented(what):
    raise TorchNotImplementedError_(f"the derivative for '{what}' is not implemented.")


def _trunc_divide_node(a, b):
    """div(a, b, rounding_mode="trunc") as a node (DivBackward2), as fmod's gradient records it."""
    seq = _begin(a, b)
    with np.errstate(all="ignore"):
        out = np.trunc(a._data / b._data)
    return _record(TABLE["div_floor"], seq, out, (a, b), attrs={"rounding_mode": "trunc"})


def _fmax_taken(self, other, compare):
    """Where fmax (compare >=) or fmin (<=) takes self: self wins ties, and a nan other."""
    a, b = _arr_of(self), _arr_of(other)
    return compare(a, b) | np.isnan(b)


def _rdiv_scalar(a, s):
    """A number divided by a tensor as PyTorch's C++ `s / a` computes it: a tensor like `a`
    filled with s, divided in place by a (so an integer `a` cannot hold the quotient)."""
    dtype = _arr_of(a).dtype
    if dtype.kind != "f":
        raise TorchRuntimeError("result type Float can't be cast to the desired output type "
                                f"{_SCALAR_NAME[dtype.name]}")
    if isinstance(a, TensorBase):
        return _P.div(CONFIG.tensor(np.full(a._data.shape, s, dtype)), a)
    return np.asarray(s, dtype) / a


_ATAN2_RECIP = []       # under create_graph: (g, self, other, recip) of the last node, for its second formula


def _atan2_recip(m, g, self, other):
    """1 / (self^2 + other^2), 0 where that sum is 0 (atan2's gradient at the origin is 0).
    PyTorch computes it once for both gradients: as a graph, the node's second formula (the same
    incoming gradient g) reuses it."""
    if m is TENSOR_MATH and _ATAN2_RECIP and all(a is b for a, b in zip(_ATAN2_RECIP[0], (g, self, other))):
        return _ATAN2_RECIP.pop()[3]
    denom = self * self + other * other
    recip = m.masked_fill(m.reciprocal(denom), _arr_of(denom) == 0, 0)
    if m is TENSOR_MATH:
        _ATAN2_RECIP[:] = [(g, self, other, recip)]
    return recip


for _name, _array, _tensor in (
        ("not_implemented", _not_implemented, _not_implemented),
        ("rsqrt", _P._rsqrt, _P.rsqrt), ("sinh", _P._sinh, _P.sinh), ("cosh", _P._cosh, _P.cosh),
        ("exp2", _P._exp2, _P.exp2), ("erfinv", _P._erfinv, _P.erfinv),
        ("reciprocal", lambda a: np.asarray(1 / a, a.dtype), _P.reciprocal),
        ("rsub_scalar", lambda a, s: np.asarray(s, a.dtype) - a, lambda a, s: _P.rsub(a, s)),
        ("rdiv_scalar", _rdiv_scalar, _rdiv_scalar),
        ("isfinite", np.isfinite, lambda a: CONFIG.tensor(np.isfinite(a._data))),
        ("trunc_divide", lambda a, b: np.trunc(a / b), _trunc_divide_node),
        ("xlogy", _P.xlogy_data, _P.xlogy), ("fmax_taken", _fmax_taken, _fmax_taken)):
    setattr(_NumpyMath, _name, staticmethod(_array))
    setattr(_TensorMath, _name, staticmethod(_tensor))
# formulas written against `m`, each bound to its namespace
for _name, _formula in (("atan2_recip", _atan2_recip), ("atan2_backward", _atan2_backward),
                        ("fmod_backward_other", _fmod_backward_other),
                        ("addcdiv_backward_tensor2", _addcdiv_backward_tensor2), ("sinc_backward", _sinc_backward),
                        ("copysign_self_backward", _copysign_self_backward), ("logit_backward", _logit_backward)):
    setattr(_NumpyMath, _name, staticmethod(lambda *args, _f=_formula: _f(NUMPY_MATH, *args)))
    setattr(_TensorMath, _name, staticmethod(lambda *args, _f=_formula: _f(TENSOR_MATH, *args)))

# -- comparisons/predicates and statistical reductions (session 9)
from .reduction import mean as _mean  # noqa: E402  (reduction's forwards load before this module's namespaces)

# self.mean() (dims None) or self.mean(dims, keepdim=True) (dims (): every dim), as var's gradient reads it
_TensorMath.mean_keepdim = staticmethod(lambda a, dims: _mean(a) if dims is None else _mean(a, dims, keepdim=True))
_NumpyMath.mean_keepdim = staticmethod(lambda a, dims: np.asarray(a.mean()) if dims is None else
                                       a.mean(axis=tuple(dims) or None, keepdims=True))

# -- sorting, selection and index ops (session 9): their backward helpers, from their family modules
from . import indexing as _indexing, sorting as _sorting   # noqa: E402  (one block: the families own their helpers)

for _family in (_indexing, _sorting):
    for _name, _helper in _family.NUMPY_HELPERS.items():
        setattr(_NumpyMath, _name, staticmethod(_helper))
    for _name, _helper in _family.TENSOR_HELPERS.items():
        setattr(_TensorMath, _name, staticmethod(_helper))

# -- shape ops and matrix products (session 9)
from . import linalg as _linalg, shape as _shape  # noqa: E402  (one block: these rows' helpers, both namespaces)
from ..engine import TorchRuntimeError as TorchRuntimeError_  # noqa: E402



def _neg_defined(g):
    """-g, where PyTorch's formula negates a gradient that may be undefined (dist with p=0)."""
    if g is None:
        raise TorchRuntimeError_("Expected a proper Tensor but got None (or an undefined Tensor in C++) for argument "
                                 "#0 'self'")
    return -g


_NUMPY_HELPERS = {
    "repeat_backward": lambda g, repeats, sizes: _shape.repeat_backward(NUMPY_MATH, g, repeats, sizes),
    "zeros_of": lambda g, sizes: np.zeros(tuple(sizes), g.dtype),
    "flip": lambda g, dims: np.flip(g, dims) if g.ndim else g,         # (a 0-d tensor flips to itself)
    "sum_dims": lambda g, dims: g.sum(axis=dims),
    "roll": _shape._roll,
    "rot90": lambda g, k, dims: np.rot90(g, k % 4, tuple(d % g.ndim for d in dims)),
    "tril": np.tril,
    "triu": np.triu,
    "diagonal": lambda g, offset, dim1, dim2: _shape._diagonal_array(
        g, offset, *_shape._diagonal_dims(g.ndim, offset, dim1, dim2)),
    "diagonal_backward": _shape.diagonal_backward_np,
    "trace_backward": _shape.trace_backward_np,
    "neg_defined": lambda g: _neg_defined(g),
    "cross": lambda a, b, dim: np.cross(a, b, axis=dim),
}
_TENSOR_HELPERS = {
    "repeat_backward": lambda g, repeats, sizes: _shape.repeat_backward(TENSOR_MATH, g, repeats, sizes),
    "zeros_of": lambda g, sizes: CONFIG.tensor(np.zeros(tuple(sizes), g._data.dtype)),
    "sum_dims": lambda g, dims: sum(g, dims),
    "roll": _shape.roll,
    "rot90": _shape.rot90,
    "tril": _shape.tril,
    "triu": _shape.triu,
    "diagonal": _shape.diagonal,
    "diagonal_backward": _shape.diagonal_backward,
    "permute": _shape.permute,                 # (PermuteBackward0's formula under create_graph: einsum's operands)
    "neg_defined": lambda g: _neg_defined(g),
    "cross": lambda a, b, dim: _linalg.linalg_cross(a, b, dim=dim),
}
for _name, _f in _NUMPY_HELPERS.items():
    setattr(_NumpyMath, _name, staticmethod(_f))
for _name, _f in _TENSOR_HELPERS.items():
    setattr(_TensorMath, _name, staticmethod(_f))

# -- linalg (session 9): det's and solve's gradients, from their family module
for _name, _helper in _linalg.NUMPY_HELPERS.items():
    setattr(_NumpyMath, _name, staticmethod(_helper))
for _name, _helper in _linalg.TENSOR_HELPERS.items():
    setattr(_TensorMath, _name, staticmethod(_helper))
