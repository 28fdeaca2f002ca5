"""Activation functions with a node of their own (leaky_relu, elu, gelu, softplus) and dropout."""
from __future__ import annotations

import numpy as np

from ..engine import CONFIG, TensorBase
from ..engine import TorchRuntimeError, TorchValueError
from .numeric import _in64, _tensor_args
from .record import _begin, _record
from .formulas import _elu_np, _gelu_np, _softplus_np
from .table import ROWS
from .views import _inplace
from .pointwise import mul


def leaky_relu(input, negative_slope=0.01, inplace=False):
    _tensor_args("leaky_relu", input=input)
    slope = negative_slope

    def compute(t):
        x = t._data
        out = np.where(x > 0, x, x * np.asarray(slope, x.dtype))
        return _record(ROWS["leaky_relu_" if inplace else "leaky_relu"], _begin(t), out, (t,),
                       attrs={"negative_slope": slope})
    if inplace:
        return _inplace(input, compute, name="leaky_relu_")
    return compute(input)


def elu(input, alpha=1.0, inplace=False, scale=1, input_scale=1):
    _tensor_args("elu", input=input)
    def compute(t):
        out = _in64(lambda x: _elu_np(x, alpha, scale, input_scale))(t._data)
        return _record(ROWS["elu_" if inplace else "elu"], _begin(t), out, (t,),
                       attrs={"alpha": alpha, "input_scale": input_scale, "scale": scale})
    if inplace:
        return _inplace(input, compute, name="elu_")
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


def dropout(input, p=0.5, training=True, inplace=False):
    """_dropout_impl: input * (bernoulli(1 - p) mask / (1 - p)), the mask drawn from the generator."""
    _tensor_args("dropout", input=input)
    if p < 0.0 or p > 1.0:
        raise TorchValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    if p == 0 or not training or input._data.size == 0:
        return input
    # empty_like: input's strides, the mask drawn in memory order
    return _times_noise(input, p, inplace, lambda: np.empty_like(input._data))


def feature_dropout(input, p, train, inplace=False):
    """_VF.feature_dropout (dropout1d/2d): one draw per sample and channel, for all its features."""
    if p == 0 or not train or input._data.size == 0:
        return input
    x = input._data
    if x.ndim < 2:
        raise TorchRuntimeError("Feature dropout requires at least 2 dimensions in the input")
    return _times_noise(input, p, inplace, lambda: np.empty(x.shape[:2] + (1,) * (x.ndim - 2), x.dtype))


def _times_noise(input, p, inplace, empty):
    """input * (bernoulli(1 - p) / (1 - p)), a noise tensor from `empty()` (p == 1: zero)."""
    if p == 1:
        noise = CONFIG.tensor(np.zeros((), input._data.dtype))
    else:
        noise = CONFIG.tensor(empty())
        noise.bernoulli_(1 - p)
        noise.div_(1 - p)
    if inplace:
        return _inplace(input, mul, noise, name="mul_")
    return mul(input, noise)
