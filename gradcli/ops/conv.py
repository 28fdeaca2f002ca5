"""Convolution and pooling forwards."""
from __future__ import annotations

import numpy as np

from ..engine import CONFIG, TensorBase
from ..engine import TorchRuntimeError, TorchTypeError
from .numeric import _C_NAME, _SCALAR_NAME, _tensor_args, _type_name
from .kernels import _avg_pool_forward, _conv_forward, _conv_layout, _max_pool_forward, _pool_out, _tup
from .record import _begin, _record
from .table import ROWS
from .shape import squeeze, unsqueeze


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


_CONV_OVERLOADS = ("(Tensor input, Tensor weight, Tensor bias = None, tuple of ints stride = 1, tuple of ints padding = 0, "
                   "tuple of ints dilation = 1, int groups = 1)",
                   "(Tensor input, Tensor weight, Tensor bias = None, tuple of ints stride = 1, str padding = \"valid\", "
                   "tuple of ints dilation = 1, int groups = 1)")


def _marked(i, v):
    """One argument in PyTorch's "didn't match" list (format_invalid_args, not on a terminal): only
    a plain Tensor matches `Tensor input` / `Tensor weight`; a parameter with a default never does."""
    name = _type_name(v)
    if isinstance(v, (tuple, list)):
        items = ", ".join(_type_name(x) for x in v)
        name += f" of ({items}{',' if len(v) == 1 else ''})" if isinstance(v, tuple) else f" of [{items}]"
    return name if i < 2 and name == "Tensor" else f"!{name}!"


def check_conv_args(nd, args, kwargs):
    """PyTorch's parser refusing a conv call whose input or weight is not a tensor (an array, a
    list): the types of the arguments as given, then the overloads (with the arguments marked when
    all seven were given)."""
    given = dict(zip(("input", "weight"), args), **kwargs)
    if all(isinstance(given.get(k), TensorBase) for k in ("input", "weight")):
        return
    got = [_type_name(a) for a in args] + [f"{k}={_type_name(v)}" for k, v in kwargs.items()]
    text = f"conv{nd}d() received an invalid combination of arguments - got ({', '.join(got)}), but expected one of:\n"
    for overload in _CONV_OVERLOADS:
        text += f" * {overload}\n"
        if len(args) == 7 and not kwargs:
            marks = ", ".join(_marked(i, a) for i, a in enumerate(args))
            text += f"      didn't match because some of the arguments have invalid types: ({marks})\n"
    raise TorchTypeError(text)


def conv_nd(nd, input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    stride, dilation = _tup(stride, nd), _tup(dilation, nd)
    pad = _conv_padding(padding, input, weight, stride, dilation, nd)
    unbatched = input._data.ndim == nd + 1
    if unbatched:
        input = unsqueeze(input, 0)
    if input._data.ndim != nd + 2:
        raise TorchRuntimeError(f"Expected {nd + 1}D (unbatched) or {nd + 2}D (batched) input to conv{nd}d, but got "
                                f"input of size: {list(input._data.shape)}")
    if input._data.dtype != weight._data.dtype:
        if bias is not None:
            raise TorchRuntimeError(f"Input type ({_C_NAME[input._data.dtype.name]}) and bias type "
                                    f"({_C_NAME[bias._data.dtype.name]}) should be the same")
        raise TorchRuntimeError(f"expected scalar type {_SCALAR_NAME[input._data.dtype.name]} but found "
                                f"{_SCALAR_NAME[weight._data.dtype.name]}")
    c = input._data.shape[1]
    if c != weight._data.shape[1] * groups:
        raise TorchRuntimeError(f"Given groups={groups}, weight of size {list(weight._data.shape)}, expected input"
                                f"{list(input._data.shape)} to have {weight._data.shape[1] * groups} channels, but got "
                                f"{c} channels instead")
    padded = [n + 2 * p for n, p in zip(input._data.shape[2:], pad)]
    span = [d * (k - 1) + 1 for d, k in zip(dilation, weight._data.shape[2:])]
    if any(s > n for s, n in zip(span, padded)):
        raise TorchRuntimeError(f"Calculated padded input size per channel: ({' x '.join(map(str, padded))}). "
                                f"Kernel size: ({' x '.join(map(str, span))}). Kernel size can't be greater than "
                                "actual input size")
    y = _conv_forward(input._data, weight._data, stride, pad, dilation, groups)
    if bias is not None:
        y = y + bias._data.astype(np.float64).reshape((1, -1) + (1,) * nd)
    y = _conv_layout(y.astype(input._data.dtype), input._data, weight._data)
    out = _record(ROWS["convolution"], _begin(input, weight, bias), y, (input, weight, bias),
                  extra={"input": input, "weight": weight},
                  attrs={"bias_sym_sizes_opt": (0,) if bias is None else tuple(bias._data.shape), "dilation": dilation,
                         "groups": groups, "output_padding": (0,) * nd, "padding": pad, "stride": stride,
                         "transposed": False})
    return squeeze(out, 0) if unbatched else out


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


def _pool_shape_check(x, k, s, p, d, ceil_mode):
    """pool2d_shape_check: an output of no rows or columns is the script's error."""
    c, h, w = x.shape[-3:]
    oh, ow = (_pool_out(n, kk, ss, pp, dd, ceil_mode) for n, kk, ss, pp, dd in zip((h, w), k, s, p, d))
    if oh < 1 or ow < 1:
        raise TorchRuntimeError(f"Given input size: ({c}x{h}x{w}). Calculated output size: ({c}x{oh}x{ow}). "
                                "Output size is too small")


def max_pool2d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False):
    _tensor_args("max_pool2d", input=input)
    k, s, saved_stride, p, d = _pool_args(kernel_size, stride, padding, dilation)
    if any(pp > kk // 2 for pp, kk in zip(p, k)):
        raise TorchRuntimeError(f"pad should be at most half of effective kernel size, but got pad={p[0]}, "
                                f"kernel_size={k[0]} and dilation={d[0]}")
    _pool_shape_check(input._data, k, s, p, d, ceil_mode)
    unbatched = input._data.ndim == 3
    x = input._data[None] if unbatched else input._data
    values, indices = _max_pool_forward(x, k, s, p, d, ceil_mode)
    if unbatched:
        values, indices = values[0], indices[0]
    out = _record(ROWS["max_pool2d"], _begin(input), values, (input,),
                  extra={"result1": CONFIG.tensor(indices)},
                  attrs={"ceil_mode": bool(ceil_mode), "dilation": d, "kernel_size": k, "padding": p,
                         "stride": saved_stride})
    if return_indices:
        return out, CONFIG.tensor(indices)
    return out


def avg_pool2d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True,
               divisor_override=None):
    _tensor_args("avg_pool2d", input=input)
    k, s, saved_stride, p, _ = _pool_args(kernel_size, stride, padding)
    if any(pp > kk // 2 for pp, kk in zip(p, k)):
        raise TorchRuntimeError("pad should be at most half of effective kernel size, but got pad="
                                f"{p[0]}, kernel_size={k[0]} and dilation=1")
    _pool_shape_check(input._data, k, s, p, (1, 1), ceil_mode)
    unbatched = input._data.ndim == 3
    x = input._data[None] if unbatched else input._data
    y = _avg_pool_forward(x, k, s, p, ceil_mode, count_include_pad, divisor_override)
    return _record(ROWS["avg_pool2d"], _begin(input), y[0] if unbatched else y, (input,),
                   attrs={"ceil_mode": bool(ceil_mode), "count_include_pad": bool(count_include_pad),
                          "divisor_override": divisor_override, "kernel_size": k, "padding": p,
                          "stride": saved_stride})
