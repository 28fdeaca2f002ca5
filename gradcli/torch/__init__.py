"""gradcli's PyTorch-shaped module: `from gradcli import torch` and PyTorch code runs on
gradcli's engine. Names mirror PyTorch's; the interpreter resolves `torch.*` here.
"""
from __future__ import annotations

import builtins
import math as _math
import types as _types

import numpy as np

from .. import engine as _E
from .. import ops as _ops
from ..engine import Size, Tensor, STATE as _STATE
from .. import errors as _errors
from ..errors import TorchRuntimeError, TorchTypeError, TorchValueError

__version__ = "2.13.0 (gradcli)"

float32 = float = _E.float32
float64 = double = _E.float64
float16 = half = _E.float16
int64 = long = _E.int64
int32 = int = _E.int32
int16 = short = _E.int16
int8 = _E.int8
uint8 = _E.uint8
bool = _E.bool_
dtype = _E.DType

_py_bool, _py_int, _py_float = builtins.bool, builtins.int, builtins.float


def get_default_dtype():
    return float32


def is_tensor(obj):
    return isinstance(obj, Tensor)


def is_grad_enabled():
    return _STATE.grad_enabled

# ----------------------------------------------------------------------------- grad mode


class _Context:
    """What a script's `with` statement accepts: gradcli's own context managers."""

    def __enter__(self):
        return None

    def __exit__(self, *exc):
        return False

    def __repr__(self):
        return f"<{self._qualname} object at {_E._fake_address(self)}>"

    _qualname = "object"


class _GradMode(_Context):
    """Base of no_grad / enable_grad / set_grad_enabled: a context manager that restores."""

    @property
    def _qualname(self):
        return "torch.autograd.grad_mode." + type(self).__name__

    _flag = True

    def __enter__(self):
        self._prev = _STATE.grad_enabled
        _STATE.grad_enabled = self._flag
        return None

    def __exit__(self, *exc):
        _STATE.grad_enabled = self._prev
        return False


class no_grad(_GradMode):
    _flag = False


class enable_grad(_GradMode):
    _flag = True


class set_grad_enabled(_GradMode):
    def __init__(self, mode):
        self._flag = _py_bool(mode)
        self._prev = _STATE.grad_enabled
        _STATE.grad_enabled = self._flag     # takes effect on call too, as in PyTorch

    def __enter__(self):
        return None


class inference_mode(no_grad):
    def __init__(self, mode=True):
        self._flag = not mode

# ----------------------------------------------------------------------------- construction


def _check_requires_grad(arr, requires_grad):
    if requires_grad and arr.dtype.kind != "f":
        raise TorchRuntimeError("Only Tensors of floating point and complex dtype can require gradients")


def _new(arr, requires_grad=False):
    _check_requires_grad(arr, requires_grad)
    _ops._check_size(arr)
    return Tensor(arr, requires_grad=_py_bool(requires_grad))


def _np_dtype(dtype, default=None):
    if dtype is None:
        return default
    if isinstance(dtype, _E.DType):
        return dtype.np
    raise TorchTypeError(f"dtype must be a torch.dtype, not {type(dtype).__name__}")


def _scan(data):
    """Shape and element kind of nested Python sequences, with PyTorch's ragged error.
    Iterative, so deeply nested input cannot exhaust the Python stack."""
    shape = []
    level = [data]
    depth = 0
    kinds = set()
    while True:
        first = level[0] if level else None
        if isinstance(first, (list, tuple)):
            if depth == 64:
                probe, deeper = first, 0
                while isinstance(probe, (list, tuple)) and probe and deeper <= 64:
                    probe, deeper = probe[0], deeper + 1
                if depth + deeper > 128:
                    raise TorchValueError(f"too many dimensions '{type(first).__name__}'")
                raise TorchRuntimeError("gradcli tensors have at most 64 dimensions (NumPy's limit), "
                                        "PyTorch's up to 128")
            n = len(first)
            nxt = []
            for item in level:
                if not isinstance(item, (list, tuple)):
                    raise TorchValueError(f"expected sequence of length {n} at dim {depth} (got {type(item).__name__})")
                if len(item) != n:
                    raise TorchValueError(f"expected sequence of length {n} at dim {depth} (got {len(item)})")
                nxt.extend(item)
            shape.append(n)
            level = nxt
            depth += 1
            if n == 0:                      # torch.tensor([]), torch.tensor([[]]): empty float32
                return tuple(shape), [], kinds
            continue
        too_big = None             # reported after the element types, as PyTorch checks those first
        for item in level:
            if isinstance(item, (list, tuple)):
                raise TorchValueError(f"expected sequence of length {len(level) and 0} at dim {depth} (got {len(item)})")
            if isinstance(item, Tensor):
                if item.data.size != 1 or item.data.ndim:
                    too_big = TorchValueError("only one element tensors can be converted to Python scalars")
                kinds.add(item.data.dtype.kind)
            elif isinstance(item, _py_bool):
                kinds.add("b")
            elif isinstance(item, _py_int):
                kinds.add("i")
            elif isinstance(item, _py_float):
                kinds.add("f")
            elif isinstance(item, str):
                raise TorchTypeError(f"new(): invalid data type '{type(item).__name__}'")
            else:
                raise TorchRuntimeError(f"Could not infer dtype of {type(item).__name__}")
        if too_big is not None:
            raise too_big
        return tuple(shape), level, kinds


def tensor(data, dtype=None, device=None, requires_grad=False, pin_memory=False):
    if isinstance(data, Tensor):
        arr = data.data.copy()
        if dtype is not None:
            arr = arr.astype(_np_dtype(dtype))
        return _new(arr, requires_grad)
    if isinstance(data, (np.ndarray, np.generic)):     # a NumPy scalar keeps its dtype, as in PyTorch
        arr = np.array(data, dtype=_np_dtype(dtype, data.dtype))
        return _new(arr, requires_grad)
    shape, flat, kinds = _scan(data)
    if dtype is None:
        kind = "f" if "f" in kinds or not kinds else ("i" if kinds & {"i", "u"} else "b")
        np_dt = {"f": np.float32, "i": np.int64, "b": np.bool_}[kind]
    else:
        np_dt = _np_dtype(dtype)
    values = [v.data.item() if isinstance(v, Tensor) else v for v in flat]
    try:
        arr = np.array(values[0] if not shape else values, dtype=np_dt)
    except OverflowError:
        if np.dtype(np_dt).kind == "f":
            raise _errors.TorchOverflowError("int too large to convert to float") from None
        raise TorchValueError("Overflow when unpacking long long") from None
    return _new(arr.reshape(shape), requires_grad)


as_tensor = tensor


def Tensor_(*args, **kwargs):
    """`torch.Tensor(...)`: sizes give a float32 tensor of that shape, data gives float32 values."""
    if kwargs:
        raise TorchTypeError("new() received an invalid combination of arguments - got keyword arguments")
    if builtins.all(isinstance(a, _py_int) and not isinstance(a, _py_bool) for a in args):
        return zeros(*args)
    if len(args) == 1 and isinstance(args[0], (list, tuple, Tensor)):
        return tensor(args[0], dtype=float32)
    raise TorchTypeError("new() received an invalid combination of arguments - got "
                         f"({', '.join(type(a).__name__ for a in args)})")


def from_numpy(arr):
    if not isinstance(arr, np.ndarray):
        raise TorchTypeError(f"expected np.ndarray (got {type(arr).__name__})")
    return Tensor(arr)


def _size(size):
    if len(size) == 1 and isinstance(size[0], (tuple, list, Size)):
        size = tuple(size[0])
    out = []
    for s in size:
        if isinstance(s, Tensor):
            s = s.item()
        if not isinstance(s, _py_int):
            raise TorchTypeError(f"ones(): argument 'size' must be tuple of ints, but found element of type "
                                 f"{type(s).__name__} at pos {len(out)}")
        if s < 0:
            raise TorchRuntimeError(f"Trying to create tensor with negative dimension {s}: [{', '.join(map(str, size))}]")
        out.append(_py_int(s))
    return tuple(out)


def _alloc(size, dtype, fill):
    size = _size(size)
    n = 1
    for s in size:
        n *= s
    _ops._check_numel(n)
    return np.full(size, fill, dtype=_np_dtype(dtype, np.dtype(np.float32)))


def ones(*size, dtype=None, requires_grad=False, device=None):
    return _new(_alloc(size, dtype, 1), requires_grad)


def zeros(*size, dtype=None, requires_grad=False, device=None):
    return _new(_alloc(size, dtype, 0), requires_grad)


def empty(*size, dtype=None, requires_grad=False, device=None):
    return zeros(*size, dtype=dtype, requires_grad=requires_grad)


def full(size, fill_value, dtype=None, requires_grad=False, device=None):
    if not isinstance(fill_value, (_py_int, _py_float)):
        fill_value = _number("full", "fill_value", fill_value)
    if dtype is None:
        dtype = bool if isinstance(fill_value, _py_bool) else int64 if isinstance(fill_value, _py_int) else float32
    return _new(_alloc((size,) if isinstance(size, _py_int) else (tuple(size),), dtype, fill_value), requires_grad)


def _like(t, name):
    if not isinstance(t, Tensor):
        raise TorchTypeError(f"{name}(): argument 'input' (position 1) must be Tensor, not {type(t).__name__}")
    _ops._check_numel(t.data.size, t.data.itemsize)
    return t.data.shape


def ones_like(t, dtype=None, requires_grad=False, device=None):
    return _new(np.ones(_like(t, "ones_like"), _np_dtype(dtype, t.data.dtype)), requires_grad)


def zeros_like(t, dtype=None, requires_grad=False, device=None):
    return _new(np.zeros(_like(t, "zeros_like"), _np_dtype(dtype, t.data.dtype)), requires_grad)


def full_like(t, fill_value, dtype=None, requires_grad=False, device=None):
    return _new(np.full(_like(t, "full_like"), fill_value, _np_dtype(dtype, t.data.dtype)), requires_grad)


def empty_like(t, dtype=None, requires_grad=False, device=None):
    return zeros_like(t, dtype=dtype, requires_grad=requires_grad)


def _number(name, arg, v):
    """A Python number argument (or a one-element tensor), with PyTorch's TypeError otherwise."""
    if isinstance(v, Tensor) and v.data.size == 1:
        return v.item()
    if isinstance(v, (_py_int, _py_float)):
        return v
    raise TorchTypeError(f"{name}(): argument '{arg}' must be Number, not {type(v).__name__}")


def _count(name, arg, v):
    if isinstance(v, Tensor) and v.data.ndim == 0 and v.data.dtype.kind in "iu":
        v = v.item()                      # a one-element integer tensor is an int to PyTorch
    if not isinstance(v, _py_int) or isinstance(v, _py_bool):
        raise TorchTypeError(f"{name}(): argument '{arg}' must be int, not {type(v).__name__}")
    if v < 0:
        raise TorchRuntimeError(f"{name}(): argument '{arg}' must be non-negative, got {v}")
    return v


def arange(start, end=None, step=1, dtype=None, requires_grad=False, device=None):
    if end is None:
        start, end = 0, start
    values = [_number("arange", a, v) for a, v in (("start", start), ("end", end), ("step", step))]
    lo, hi, step = values
    if not (step > 0 or step < 0):
        raise TorchRuntimeError("step must be nonzero")
    if not (_math.isfinite(lo) and _math.isfinite(hi)):
        raise TorchRuntimeError(f"unsupported range: {lo:g} -> {hi:g}")
    if not ((step > 0 and hi >= lo) or (step < 0 and hi <= lo)):
        raise TorchRuntimeError("upper bound and lower bound inconsistent with step sign")
    if dtype is None:
        dtype = float32 if builtins.any(isinstance(v, _py_float) for v in values) else int64
    elif not isinstance(dtype, _E.DType):
        raise TorchTypeError(f"arange(): argument 'dtype' must be torch.dtype, not {type(dtype).__name__}")
    n = builtins.max(0, _math.ceil((values[1] - values[0]) / values[2]))
    _ops._check_numel(n)
    if dtype.np.kind == "f":
        arr = (values[0] + np.arange(n, dtype=np.float64) * values[2]).astype(dtype.np)
    else:
        arr = np.arange(values[0], values[1], values[2], dtype=dtype.np)
    return _new(arr, requires_grad)


def linspace(start, end, steps, dtype=None, requires_grad=False, device=None):
    for name, v in (("start", start), ("end", end)):
        if isinstance(v, Tensor) and v.data.ndim:
            raise TorchRuntimeError(f"linspace only supports 0-dimensional start and end tensors, but got {name} "
                                    f"with {v.data.ndim} dimension{'s' if v.data.ndim > 1 else ''}")
    start, end = _number("linspace", "start", start), _number("linspace", "end", end)
    _ops._check_numel(_count("linspace", "steps", steps))
    return _new(np.linspace(start, end, steps).astype(_np_dtype(dtype, np.dtype(np.float32))), requires_grad)


def eye(n, m=None, dtype=None, requires_grad=False, device=None):
    n = _count("eye", "n", n)
    m = n if m is None else _count("eye", "m", m)
    _ops._check_numel(n * m)
    return _new(np.eye(n, m, dtype=_np_dtype(dtype, np.dtype(np.float32))), requires_grad)

# Random numbers: available, but PyTorch's generator is not reproduced (see README).


_rng = [None]          # made on first use: importing numpy.random costs every start-up 6 ms


def manual_seed(seed):
    try:
        seed = _py_int(seed)            # as PyTorch: int(seed), a negative one taken modulo 2**64
    except (TypeError, ValueError, OverflowError) as e:
        raise _errors.BY_NAME[type(e).__name__](str(e)) from None
    _rng[0] = np.random.default_rng(seed % 2 ** 64)
    return None


def _generator():
    if _rng[0] is None:
        manual_seed(0)
    return _rng[0]


def randn(*size, dtype=None, requires_grad=False, device=None):
    size = _size(size)
    _ops._check_numel(_prod(size))
    return _new(_generator().standard_normal(size).astype(_np_dtype(dtype, np.dtype(np.float32))), requires_grad)


def rand(*size, dtype=None, requires_grad=False, device=None):
    size = _size(size)
    _ops._check_numel(_prod(size))
    return _new(_generator().random(size).astype(_np_dtype(dtype, np.dtype(np.float32))), requires_grad)


def randint(low, high=None, size=None, dtype=None, requires_grad=False, device=None):
    if size is None and not isinstance(high, (tuple, list, Size)):
        raise TorchTypeError("randint() received an invalid combination of arguments - got "
                             f"({', '.join(type(a).__name__ for a in (low, high) if a is not None)}), but expected one "
                             "of:\n * (int high, tuple of ints size)\n * (int low, int high, tuple of ints size)")
    if size is None:
        low, high, size = 0, low, high
    if high is None:
        low, high = 0, low
    if not low < high:
        raise TorchRuntimeError(f"random_ expects 'from' to be less than 'to', but got from={low} >= to={high}")
    size = _size((size,)) if size is not None else ()
    _ops._check_numel(_prod(size))
    return _new(_generator().integers(low, high, size).astype(_np_dtype(dtype, np.dtype(np.int64))), requires_grad)


def _prod(size):
    n = 1
    for s in size:
        n *= s
    return n

# ----------------------------------------------------------------------------- functions


def _numbers_as_tensors(f):
    """torch.add(2, 3): PyTorch's parser takes a Python number for these functions' input too."""
    def call(input, *args, **kwargs):
        if isinstance(input, (_py_int, _py_float)) and not isinstance(args[0] if args else None, Tensor):
            input = tensor(input)
        return f(input, *args, **kwargs)
    call.__name__ = f.__name__
    return call


add, sub, mul, div = (_numbers_as_tensors(f) for f in (_ops.add, _ops.sub, _ops.mul, _ops.div))
pow, neg = _ops.pow, _ops.neg
subtract, multiply, divide, negative = sub, mul, div, neg
exp, log, sin, cos, tanh, sigmoid, relu = _ops.exp, _ops.log, _ops.sin, _ops.cos, _ops.tanh, _ops.sigmoid, _ops.relu
sqrt, rsqrt, abs, reciprocal, square, clone = _ops.sqrt, _ops.rsqrt, _ops.abs, _ops.reciprocal, _ops.square, _ops.clone
matmul, mm, dot, mv = _ops.matmul, _ops.mm, _ops.dot, _ops.mv
sum, mean = _ops.sum, _ops.mean
reshape, unsqueeze, select = _ops.reshape, _ops.unsqueeze, _ops.select
floor_divide, remainder = _ops.floor_divide, _ops.remainder
floor, ceil, round, trunc, sign, frac = _ops.floor, _ops.ceil, _ops.round, _ops.trunc, _ops.sign, _ops.frac
argmax, argmin = _ops.argmax, _ops.argmin
cumsum, cumprod = _ops.cumsum, _ops.cumprod


where, maximum, minimum, clamp, clamp_min = _ops.where, _ops.maximum, _ops.minimum, _ops.clamp, _ops.clamp_min
clip = clamp
cat, stack, bmm, prod, norm = _ops.cat, _ops.stack, _ops.bmm, _ops.prod, _ops.norm
concat = concatenate = cat
max, min = _ops.max, _ops.min
softmax, log_softmax = _ops.softmax, _ops.log_softmax
transpose, permute, squeeze, flatten, t = _ops.transpose, _ops.permute, _ops.squeeze, _ops.flatten, _ops.t_
swapaxes = swapdims = transpose


def numel(t):
    return t.data.size


bitwise_and, bitwise_or, bitwise_xor, bitwise_not = _ops.bitwise_and, _ops.bitwise_or, _ops.bitwise_xor, _ops.bitwise_not
logical_and, logical_or, logical_xor, logical_not = _ops.logical_and, _ops.logical_or, _ops.logical_xor, _ops.logical_not
all, any, allclose = _ops.tensor_all, _ops.tensor_any, _ops.allclose
masked_fill = _ops.masked_fill

# ----------------------------------------------------------------------------- autograd


def is_anomaly_enabled():
    return _STATE.anomaly


def is_anomaly_check_nan_enabled():
    return _STATE.check_nan


def set_anomaly_enabled(enabled, check_nan=True):
    _STATE.anomaly, _STATE.check_nan = _py_bool(enabled), _py_bool(check_nan)


class _set_detect_anomaly(_Context):
    """torch.autograd.set_detect_anomaly(mode, check_nan=True): takes effect when called; as a
    context manager it restores the previous setting on exit."""

    _qualname = "torch.autograd.anomaly_mode.set_detect_anomaly"

    def __init__(self, mode, check_nan=True):
        self.prev = (_STATE.anomaly, _STATE.check_nan)
        set_anomaly_enabled(mode, check_nan)

    def __exit__(self, *exc):
        set_anomaly_enabled(*self.prev)
        return False


_W_ANOMALY = ("Anomaly Detection has been enabled. This mode will increase the runtime and should only be "
             "enabled for debugging.")


class _detect_anomaly(_Context):
    """torch.autograd.detect_anomaly(check_nan=True): on inside the `with` block only."""

    _qualname = "torch.autograd.anomaly_mode.detect_anomaly"

    def __init__(self, check_nan=True):
        self.check_nan = check_nan
        _STATE.warn(_W_ANOMALY)

    def __enter__(self):
        self.prev = (_STATE.anomaly, _STATE.check_nan)
        set_anomaly_enabled(True, self.check_nan)

    def __exit__(self, *exc):
        set_anomaly_enabled(*self.prev)
        return False


# Submodules (`torch.nn`, `torch.autograd`, ...) load on first use: a script that never touches
# them pays nothing for them at start-up.
_SUBMODULES = frozenset({"nn", "autograd", "optim", "utils"})


def __getattr__(name):
    if name in _SUBMODULES:
        import importlib
        return importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module 'torch' has no attribute '{name}'")


# ----------------------------------------------------------------------------- Tensor methods


def _type(self, dtype=None):
    """Tensor.type(): the type's name, or a copy converted to a dtype or a type name ('torch.DoubleTensor')."""
    if dtype is None:
        return "torch." + self.dtype.tensor_type
    if isinstance(dtype, str):
        by_name = {"torch." + d.tensor_type: d for d in _E.DTYPES}
        if dtype not in by_name:
            raise TorchValueError(f"invalid type: '{dtype}'")
        dtype = by_name[dtype]
    elif not isinstance(dtype, _E.DType):
        raise TorchTypeError("dtype must be a type, str, or dtype object")
    return _ops.to_dtype(self, dtype)


def _install_methods():
    T = Tensor
    ops = _ops

    def rev(f):
        return lambda self, other: f(other, self)

    def binop(f):
        def method(self, other):
            if not (type(other) is Tensor or isinstance(other, (_py_int, _py_float))):
                return NotImplemented
            return f(self, other)
        return method

    T.__add__ = T.__radd__ = ops.add_method           # (binop, without a call level: the commonest ops)
    T.__sub__ = binop(ops.sub)
    T.__rsub__ = binop(lambda s, o: ops.sub(o, s))
    T.__mul__ = T.__rmul__ = ops.mul_method
    T.__truediv__ = binop(ops.div)
    T.__rtruediv__ = binop(lambda s, o: ops.div(o, s))
    T.__floordiv__ = binop(ops.floor_divide)
    T.__rfloordiv__ = binop(lambda s, o: ops.floor_divide(o, s))
    T.__mod__ = binop(ops.remainder)
    T.__rmod__ = binop(lambda s, o: ops.remainder(o, s))
    T.__pow__ = binop(ops.pow)
    T.__rpow__ = binop(lambda s, o: ops.pow(o, s))
    T.__matmul__ = lambda s, o: ops.matmul(s, o)
    T.__rmatmul__ = rev(ops.matmul)
    T.__neg__ = ops.neg
    T.__and__ = T.__rand__ = ops.bitwise_and
    T.__or__ = T.__ror__ = ops.bitwise_or
    T.__xor__ = T.__rxor__ = ops.bitwise_xor
    T.__invert__ = ops.invert
    for name in ("bitwise_and", "bitwise_or", "bitwise_xor", "bitwise_not", "logical_and", "logical_or",
                 "logical_xor", "logical_not", "allclose"):
        setattr(T, name, getattr(ops, name))
    T.all, T.any = ops.tensor_all, ops.tensor_any
    T.retains_grad = property(lambda self: self._retains_grad)
    T.__pos__ = lambda s: s
    T.__lt__ = ops._compare(np.less)
    T.__le__ = ops._compare(np.less_equal)
    T.__gt__ = ops._compare(np.greater)
    T.__ge__ = ops._compare(np.greater_equal)
    T.__eq__ = ops._compare(np.equal)
    T.__ne__ = ops._compare(np.not_equal)
    T.__hash__ = lambda s: id(s)

    for name in ("add", "sub", "mul", "div", "pow", "exp", "log", "sin", "cos", "tanh", "sigmoid", "relu",
                 "sqrt", "rsqrt", "abs", "neg", "reciprocal", "square", "sum", "mean", "matmul", "mm", "dot",
                 "mv", "clone", "unsqueeze", "expand", "select", "floor", "ceil", "round", "trunc", "sign",
                 "frac", "argmax", "argmin", "cumsum", "cumprod"):
        setattr(T, name, getattr(ops, name))
    T.subtract, T.multiply, T.divide, T.negative = ops.sub, ops.mul, ops.div, ops.neg
    T.reshape = ops.reshape
    T.view = ops.view
    for name in ("flatten", "transpose", "permute", "squeeze", "max", "min", "prod", "norm", "softmax",
                 "log_softmax", "clamp", "clamp_min", "maximum", "minimum", "bmm", "copy_", "clamp_"):
        setattr(T, name, getattr(ops, name))
    T.swapaxes = T.swapdims = ops.transpose
    T.clip = ops.clamp
    T.t = ops.t_
    T.T = property(ops.T_property)
    T.mT = property(ops.mT_property)
    T.__getitem__ = ops.getitem
    T.__setitem__ = ops.setitem
    T.__iter__ = lambda self: (ops.select(self, 0, i) for i in range(len(self)))
    T.__abs__ = ops.abs
    T.expand_as = lambda self, other: ops.expand(self, other.data.shape)
    T.view_as = lambda self, other: ops.view(self, other.data.shape)
    T.reshape_as = lambda self, other: ops.reshape(self, other.data.shape)
    T.where = lambda self, condition, other: ops.where(condition, self, other)
    T.unbind = lambda self, dim=0: tuple(ops.select(self, dim, i)
                                         for i in range(self.data.shape[_E._wrap_dim(dim, self.data.ndim)]))
    T.zero_ = ops.zero_
    T.fill_ = ops.fill_
    T.t_ = ops.t_inplace
    T.unsqueeze_ = ops.unsqueeze_
    # x.squeeze(0, 2): the method also takes the dims one by one
    T.squeeze = lambda self, *dim: ops.squeeze(self, dim if len(dim) > 1 else dim[0] if dim else None)
    T.squeeze_ = lambda self, *dim: ops.squeeze_(self, dim if len(dim) > 1 else dim[0] if dim else None)
    T.masked_fill, T.masked_fill_ = ops.masked_fill, ops.masked_fill_
    T.transpose_ = T.swapaxes_ = T.swapdims_ = ops.transpose_

    def inplace(f, name):
        def method(self, *args, **kwargs):
            return ops._inplace(self, lambda t, *a: f(t, *a, **kwargs), *args, name=name)
        method.__name__ = name
        return method

    for name, f in (("add_", ops.add), ("sub_", ops.sub), ("mul_", ops.mul), ("div_", ops.div),
                    ("pow_", ops.pow), ("exp_", ops.exp), ("neg_", ops.neg), ("relu_", ops.relu),
                    ("sigmoid_", ops.sigmoid), ("tanh_", ops.tanh), ("sqrt_", ops.sqrt), ("abs_", ops.abs),
                    ("clamp_min_", ops.clamp_min), ("square_", ops.square)):
        setattr(T, name, inplace(f, name))
    for name, f in (("bitwise_and_", ops.bitwise_and), ("bitwise_or_", ops.bitwise_or),
                    ("bitwise_xor_", ops.bitwise_xor), ("bitwise_not_", ops.bitwise_not),
                    ("logical_not_", ops.logical_not)):
        setattr(T, name, inplace(f, name))
    def inplace_operator(f, name):
        run = inplace(f, name)

        def method(self, other):              # `x += 'a'`: Python's TypeError, as for `x + 'a'`
            if not (type(other) is Tensor or isinstance(other, (_py_int, _py_float))):
                return NotImplemented
            return run(self, other)
        return method

    T.__iand__ = inplace_operator(ops.bitwise_and, "bitwise_and_")
    T.__ior__ = inplace_operator(ops.bitwise_or, "bitwise_or_")
    T.__ixor__ = inplace_operator(ops.bitwise_xor, "bitwise_xor_")
    T.__iadd__ = inplace_operator(ops.add, "add_")
    T.__isub__ = inplace_operator(ops.sub, "sub_")
    T.__imul__ = inplace_operator(ops.mul, "mul_")
    T.__itruediv__ = inplace_operator(ops.div, "div_")

    def to(self, *args, dtype=None, **kwargs):
        for a in args:
            if isinstance(a, _E.DType):
                dtype = a
        if dtype is not None and not isinstance(dtype, _E.DType):
            raise TorchTypeError("to() received an invalid combination of arguments - got "
                                 f"({', '.join([type(a).__name__ for a in args] + [f'dtype={type(dtype).__name__}'])})")
        return self if dtype is None else _ops.to_dtype(self, dtype)

    T.to = to
    T.type = _type
    T.float = lambda self: _ops.to_dtype(self, float32)
    T.double = lambda self: _ops.to_dtype(self, float64)
    T.long = lambda self: _ops.to_dtype(self, int64)
    T.int = lambda self: _ops.to_dtype(self, int32)
    T.bool = lambda self: _ops.to_dtype(self, bool)
    T.cpu = lambda self: self
    T.contiguous = lambda self, memory_format=None: self if self.data.flags.c_contiguous else ops.clone(self)
    T.device = property(lambda self: "cpu")
    T.is_contiguous = lambda self, memory_format=None: _py_bool(self.data.flags.c_contiguous)


_install_methods()

from . import _signatures  # noqa: E402

_signatures.install(globals(), "")
_signatures.install_methods(Tensor)
