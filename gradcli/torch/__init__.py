"""gradcli's PyTorch-shaped module: `from gradcli import torch` and PyTorch code runs on
gradcli's engine. Names mirror PyTorch's; the interpreter resolves `torch.*` here.
"""
from __future__ import annotations

import builtins
import math as _math

import numpy as np

from .. import engine as _E
from .. import ops as _ops
from ..engine import Size, STATE as _STATE
from ..engine import errors as _errors
from ..engine import TorchRuntimeError, TorchTypeError, TorchValueError
from ..ops.kernels import get_num_threads, set_num_threads

# Freed large buffers stay in the heap for the next tensor instead of going back to the
# system and page-faulting back in on first touch (a library user gets what `gradcli run` does).
_ops._MALLOC.keep_freed_memory()


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
memory_format = _E.MemoryFormat
contiguous_format, preserve_format = _E.contiguous_format, _E.preserve_format
channels_last, channels_last_3d = _E.channels_last, _E.channels_last_3d

_py_bool, _py_int, _py_float = builtins.bool, builtins.int, builtins.float


def get_default_dtype():
    return float32


# (PyTorch's signatures, so that a call they cannot bind fails at the script's own line)
_PICKLE = object()      # save's default pickle_module: the pickle module, imported by serialization


def save(obj, f, pickle_module=_PICKLE, pickle_protocol=2, _use_new_zipfile_serialization=True,
         _disable_byteorder_record=False):
    from .serialization import save
    return save(obj, f, *(() if pickle_module is _PICKLE else (pickle_module,)), pickle_protocol=pickle_protocol)


def load(f, map_location=None, pickle_module=None, *, weights_only=None, mmap=None, **pickle_load_args):
    from .serialization import load
    return load(f, map_location, pickle_module, weights_only=weights_only, mmap=mmap, **pickle_load_args)


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

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        _E.shown_as_pytorch(cls, "torch.autograd.grad_mode")

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

    def __call__(self, func):
        """As a decorator (`@torch.no_grad()`): the mode holds while func runs."""
        import functools
        flag = self._flag

        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            prev = _STATE.grad_enabled
            _STATE.grad_enabled = flag
            try:
                return func(*args, **kwargs)
            finally:
                _STATE.grad_enabled = prev
        return wrapper


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
    return make_tensor(arr, requires_grad=_py_bool(requires_grad))


def _np_dtype(dtype, default=None):
    if dtype is None:
        return default
    if isinstance(dtype, _E.DType):
        return dtype.np
    raise TorchTypeError(f"dtype must be a torch.dtype, not {type(dtype).__name__}")


W_LIST_OF_NDARRAYS = ("Creating a tensor from a list of numpy.ndarrays is extremely slow. Please consider converting "
                      "the list to a single numpy.ndarray with numpy.array() before converting to a tensor. "
                      "(Triggered internally at /__w/pytorch/pytorch/torch/csrc/utils/tensor_new.cpp:252.)")


def _scan(data, typed=False):
    """Shape and element kind of nested Python sequences, with PyTorch's ragged error.
    Iterative, so deeply nested input cannot exhaust the Python stack. `typed` (a dtype was given):
    PyTorch converts the elements in order with no inference pass, so a tensor of several elements
    fails where it stands."""
    shape = []
    level = [data]
    depth = 0
    kinds = set()
    while True:
        first = level[0] if level else None
        if isinstance(first, (list, tuple)) or (isinstance(first, np.ndarray) and first.ndim):
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
                if isinstance(item, np.ndarray) and item.ndim:     # a sequence of its NumPy scalars
                    _E.warn_once(W_LIST_OF_NDARRAYS)
                elif not isinstance(item, (list, tuple)):
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
                if item._data.size != 1 or item._data.ndim:
                    too_big = TorchValueError("only one element tensors can be converted to Python scalars")
                    if typed:
                        raise too_big
                kinds.add(item._data.dtype)
            elif isinstance(item, np.generic) and item.dtype in _E.dtypes._BY_NP:     # its own dtype
                kinds.add(item.dtype)
            elif isinstance(item, _py_bool):
                kinds.add(np.dtype(np.bool_))
            elif isinstance(item, _py_int):
                kinds.add(np.dtype(np.int64))
            elif isinstance(item, _py_float):
                kinds.add(np.dtype(np.float32))
            elif isinstance(item, str):
                raise TorchTypeError(f"new(): invalid data type '{type(item).__name__}'")
            else:
                raise TorchRuntimeError(f"Could not infer dtype of {type(item).__name__}")
        if too_big is not None:
            raise too_big
        return tuple(shape), level, kinds


class finfo:
    """torch.finfo: the limits of a floating dtype (the default dtype when none is given)."""

    def __init__(self, type=None):
        type = float32 if type is None else type
        if not isinstance(type, _E.DType):
            raise TorchTypeError(f"finfo(): argument 'type' (position 1) must be torch.dtype, not {builtins.type(type).__name__}")
        if not type.is_floating_point:
            raise TorchTypeError("torch.finfo() requires a floating point input type. Use torch.iinfo to handle "
                                 "'torch.finfo'")
        info = np.finfo(type.np)
        self.bits, self.dtype = info.bits, type.name
        self.eps, self.max, self.min = _py_float(info.eps), _py_float(info.max), _py_float(info.min)
        self.tiny = self.smallest_normal = _py_float(info.smallest_normal)
        self.resolution = 10.0 ** -info.precision

    def __eq__(self, other):
        return isinstance(other, finfo) and self.dtype == other.dtype

    __hash__ = object.__hash__

    def __repr__(self):
        return (f"finfo(resolution={self.resolution:g}, min={self.min:g}, max={self.max:g}, eps={self.eps:g}, "
                f"smallest_normal={self.smallest_normal:g}, tiny={self.tiny:g}, dtype={self.dtype})")


class iinfo:
    """torch.iinfo: the limits of an integer dtype."""

    def __init__(self, type):
        if not isinstance(type, _E.DType):
            raise TorchTypeError(f"iinfo(): argument 'type' (position 1) must be torch.dtype, not {builtins.type(type).__name__}")
        if type is bool:
            raise TorchTypeError("torch.bool is not supported by torch.iinfo")
        if type.is_floating_point:
            raise TorchTypeError("torch.iinfo() requires an integer input type. Use torch.finfo to handle "
                                 "'torch.iinfo'")
        info = np.iinfo(type.np)
        self.bits, self.dtype, self.min, self.max = info.bits, type.name, _py_int(info.min), _py_int(info.max)

    def __eq__(self, other):
        return isinstance(other, iinfo) and self.dtype == other.dtype

    __hash__ = object.__hash__

    def __repr__(self):
        return f"iinfo(min={self.min:g}, max={self.max:g}, dtype={self.dtype})"


_E.shown_as_pytorch(finfo, "torch")
_E.shown_as_pytorch(iinfo, "torch")


_PROFILES = {"default": (4, 1000, 3, 80), "short": (2, 1000, 2, 80), "full": (4, _math.inf, 3, 80)}


def set_printoptions(precision=None, threshold=None, edgeitems=None, linewidth=None, profile=None, sci_mode=None):
    """How tensors print, as torch/_tensor_str.py's set_printoptions (sci_mode is always set)."""
    opts = _E.printing.OPTIONS
    if profile in _PROFILES:                # (another profile is ignored, as in PyTorch)
        opts.precision, opts.threshold, opts.edgeitems, opts.linewidth = _PROFILES[profile]
    if precision is not None:
        opts.precision = precision
    if threshold is not None:
        opts.threshold = threshold
    if edgeitems is not None:
        opts.edgeitems = edgeitems
    if linewidth is not None:
        opts.linewidth = linewidth
    opts.sci_mode = sci_mode


W_COPY_CONSTRUCT = ("To copy construct from a tensor, it is recommended to use sourceTensor.detach().clone() or "
                    "sourceTensor.detach().clone().requires_grad_(True), rather than torch.tensor(sourceTensor).")


def tensor(data, dtype=None, device=None, requires_grad=False, pin_memory=False):
    _legacy.check_device(device)
    if isinstance(data, Tensor):
        _STATE.warn(W_COPY_CONSTRUCT)
        arr = data._data.copy()
        if dtype is not None:
            arr = arr.astype(_np_dtype(dtype))
        return _new(arr, requires_grad)
    if isinstance(data, (np.ndarray, np.generic)):     # a NumPy scalar keeps its dtype, as in PyTorch
        _check_numpy(np.asarray(data))
        arr = np.array(data, dtype=_np_dtype(dtype, data.dtype))
        return _new(arr, requires_grad)
    shape, flat, kinds = _scan(data, typed=dtype is not None)
    if dtype is None:                       # the elements' dtypes promoted (Python floats as float32)
        promoted = float32
        for k, d in enumerate(kinds):
            d = _E.dtypes._BY_NP[d]
            promoted = d if k == 0 else _E.promote_types(promoted, d)
        np_dt = promoted.np
    else:
        np_dt = _np_dtype(dtype)
    values = [v._data.item() if isinstance(v, Tensor) else v for v in flat]
    if np.dtype(np_dt).kind in "iu":
        values = _checked_integers(values, np.dtype(np_dt))
    try:
        arr = np.array(values[0] if not shape else values, dtype=np_dt)
    except OverflowError:
        if np.dtype(np_dt).kind == "f":
            raise _errors.TorchOverflowError("int too large to convert to float") from None
        raise TorchValueError("Overflow when unpacking long long") from None
    return _new(arr.reshape(shape), requires_grad)


def as_tensor(data, dtype=None, device=None):
    """torch.tensor, except that a tensor or a NumPy array of the dtype asked for is shared."""
    _legacy.check_device(device)
    if isinstance(data, Tensor):
        return data if dtype is None or dtype.np == data._data.dtype else data.to(dtype)
    if isinstance(data, np.ndarray) and (dtype is None or _np_dtype(dtype) == data.dtype):
        return from_numpy(data)
    return tensor(data, dtype=dtype)


_NUMPY_TYPES = ("float64, float32, float16, complex64, complex128, int64, int32, int16, int8, uint64, uint32, uint16, "
                "uint8, and bool")


def _check_numpy(arr):
    """What PyTorch refuses to make a tensor of: NumPy dtypes it has not, negative strides."""
    if arr.dtype not in _E.dtypes._BY_NP:
        raise TorchTypeError(f"can't convert np.ndarray of type numpy.{arr.dtype.type.__name__}. The only supported "
                             f"types are: {_NUMPY_TYPES}.")
    if builtins.any(st < 0 for st in arr.strides):
        raise TorchValueError("At least one stride in the given numpy array is negative, and tensors with negative "
                              "strides are not currently supported. (You can probably work around this by making a "
                              "copy of your array  with array.copy().) ")


def _checked_integers(values, np_dt):
    """Python numbers stored into an integer dtype as torch.tensor stores them: past int64 an int
    is not unpacked; otherwise PyTorch's checked conversion (ops._scalar_checked) decides a value
    outside the type's plain range (a negative int into an unsigned type wraps, nan is refused)."""
    info = np.iinfo(np_dt)
    low = info.min if np_dt.kind == "i" else 0
    out = values
    for k, v in enumerate(values):
        if type(v) in (_py_int, _py_float) and not low <= v <= info.max:
            if type(v) is _py_int and not -2 ** 63 <= v < 2 ** 63:
                raise TorchValueError("Overflow when unpacking long long")
            if out is values:
                out = list(values)
            out[k] = _ops._scalar_checked(v, np_dt, np_dt.name)
    return out


def Tensor_(*args, **kwargs):
    """`torch.Tensor(...)`: sizes give a float32 tensor of that shape, data gives float32 values,
    a tensor is aliased."""
    return _legacy.legacy_new(float32, "new", *args, _any_dtype=True, **kwargs)


def from_numpy(arr):
    if not isinstance(arr, np.ndarray):
        raise TorchTypeError(f"expected np.ndarray (got {type(arr).__name__})")
    _check_numpy(arr)
    return make_tensor(arr)


def _size(size, name="ones"):
    if len(size) == 1 and isinstance(size[0], (tuple, list, Size)):
        size = tuple(size[0])
    out = []
    for s in size:
        if isinstance(s, Tensor):
            s = s.item()
        if isinstance(s, np.integer):       # an int to PyTorch's parser
            s = _py_int(s)
        if not isinstance(s, _py_int):
            raise TorchTypeError(f"{name}(): argument 'size' must be tuple of ints, but found element of type "
                                 f"{type(s).__name__} at pos {len(out)}")
        if s < 0:
            if name == "zeros":             # zeros checks its sizes itself
                raise TorchRuntimeError("zeros: Dimension size must be non-negative.")
            raise TorchRuntimeError(f"Trying to create tensor with negative dimension {s}: [{', '.join(map(str, size))}]")
        out.append(_py_int(s))
    return tuple(out)


def _alloc(size, dtype, fill, name="ones"):
    size = _size(size, name)
    n = 1
    for s in size:
        n *= s
    _ops._check_numel(n)
    return np.full(size, fill, dtype=_np_dtype(dtype, np.dtype(np.float32)))


def ones(*size, dtype=None, requires_grad=False, device=None):
    _legacy.check_device(device)
    return _new(_alloc(size, dtype, 1), requires_grad)


def zeros(*size, dtype=None, requires_grad=False, device=None):
    _legacy.check_device(device)
    return _new(_alloc(size, dtype, 0, "zeros"), requires_grad)


def empty(*size, dtype=None, requires_grad=False, device=None):
    _legacy.check_device(device)
    return _new(_alloc(size, dtype, 0, "empty"), requires_grad)


def full(size, fill_value, dtype=None, requires_grad=False, device=None):
    _legacy.check_device(device)
    if not isinstance(fill_value, (_py_int, _py_float)):
        fill_value = _number("full", "fill_value", fill_value)
    if dtype is None:
        dtype = bool if isinstance(fill_value, _py_bool) else int64 if isinstance(fill_value, _py_int) else float32
    fill_value = _ops._scalar_checked(fill_value, dtype.np) if isinstance(dtype, _E.DType) else fill_value
    return _new(_alloc((size,) if isinstance(size, _py_int) else (tuple(size),), dtype, fill_value), requires_grad)


def _like(t, name):
    if not isinstance(t, Tensor):
        raise TorchTypeError(f"{name}(): argument 'input' (position 1) must be Tensor, not {type(t).__name__}")
    _ops._check_numel(t._data.size, t._data.itemsize)
    return t._data.shape


def _filled_like(t, name, fill, dtype, requires_grad, device, memory_format):
    """empty_like(t) (laid out as memory_format lays out t: preserve keeps its strides) filled."""
    _legacy.check_device(device)
    _like(t, name)
    return _new(_ops.copy_in_format(t._data, memory_format, _np_dtype(dtype, t._data.dtype), fill), requires_grad)


def ones_like(t, dtype=None, requires_grad=False, device=None, memory_format=None):
    return _filled_like(t, "ones_like", 1, dtype, requires_grad, device, memory_format)


def zeros_like(t, dtype=None, requires_grad=False, device=None, memory_format=None):
    return _filled_like(t, "zeros_like", 0, dtype, requires_grad, device, memory_format)


def full_like(t, fill_value, dtype=None, requires_grad=False, device=None, memory_format=None):
    return _filled_like(t, "full_like", fill_value, dtype, requires_grad, device, memory_format)


def empty_like(t, dtype=None, requires_grad=False, device=None, memory_format=None):
    return _filled_like(t, "empty_like", 0, dtype, requires_grad, device, memory_format)


def _number(name, arg, v):
    """A Python number argument (or a one-element tensor), with PyTorch's TypeError otherwise."""
    if isinstance(v, Tensor) and v._data.size == 1:
        return v.item()
    if isinstance(v, (_py_int, _py_float)):
        return v
    raise TorchTypeError(f"{name}(): argument '{arg}' must be Number, not {type(v).__name__}")


def _count(name, arg, v):
    if isinstance(v, Tensor) and v._data.ndim == 0 and v._data.dtype.kind in "iu":
        v = v.item()                      # a one-element integer tensor is an int to PyTorch
    if not isinstance(v, _py_int) or isinstance(v, _py_bool):
        raise TorchTypeError(f"{name}(): argument '{arg}' must be int, not {type(v).__name__}")
    if v < 0:
        raise TorchRuntimeError(f"{name}(): argument '{arg}' must be non-negative, got {v}")
    return v


def arange(start, end=None, step=1, dtype=None, requires_grad=False, device=None):
    _legacy.check_device(device)
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
    _legacy.check_device(device)
    for name, v in (("start", start), ("end", end)):
        if isinstance(v, Tensor) and v._data.ndim:
            raise TorchRuntimeError(f"linspace only supports 0-dimensional start and end tensors, but got {name} "
                                    f"with {v._data.ndim} dimension{'s' if v._data.ndim > 1 else ''}")
    start, end = _number("linspace", "start", start), _number("linspace", "end", end)
    _ops._check_numel(_count("linspace", "steps", steps))
    return _new(np.linspace(start, end, steps).astype(_np_dtype(dtype, np.dtype(np.float32))), requires_grad)


def eye(n, m=None, dtype=None, requires_grad=False, device=None):
    _legacy.check_device(device)
    n = _count("eye", "n", n)
    m = n if m is None else _count("eye", "m", m)
    _ops._check_numel(n * m)
    return _new(np.eye(n, m, dtype=_np_dtype(dtype, np.dtype(np.float32))), requires_grad)

# ----------------------------------------------------------------------------- random numbers
# PyTorch's CPU generator and kernels, bit for bit (random.py, _distribution_kernels.py);
# here the factories and the in-place methods that fill tensors from them.

from ..engine import TorchNotImplementedError as _NotImplemented
from . import random
from .random import Generator, default_generator, manual_seed, seed, initial_seed, get_rng_state, set_rng_state


class _LazyKernels:
    """The distribution kernels (gradcli.torch._distribution_kernels), imported on first use: a
    script that draws no random numbers does not pay for them at start-up."""

    def __getattr__(self, name):
        global _rng
        from . import _distribution_kernels as module
        _rng = module
        return getattr(module, name)


_rng = _LazyKernels()


def _random_factory(size, dtype, requires_grad, fill):
    """A new contiguous tensor of `size` filled by `fill(n, np_dtype)` (a leaf)."""
    size = _size(size)
    n = _prod(size)
    _ops._check_numel(n)
    np_dt = _np_dtype(dtype, np.dtype(np.float32))
    return _new(fill(n, np_dt).reshape(size), requires_grad)


def _random_inplace(t, name, node, values):
    """An in-place random op: `values(n, arr, perm)` gives t's n new values in TensorIterator's
    order (perm: t's axes in that order); through ops._inplace for its checks, version bump
    and node (a zero gradient)."""
    def compute(x):
        arr = x._data
        perm = _rng.order(arr)
        out = arr.copy(order="K")
        _rng.fill(out, perm, values(arr.size, arr, perm))
        return _ops._record(_rng.backward_row(node), _ops._begin(x), out, (x,))
    return _ops._inplace(t, compute, name=name)


def _random_methods():
    """The random in-place methods of Tensor (and bernoulli, multinomial), by name."""
    def uniform_(self, from_=0.0, to=1.0, *, generator=None, **kw):
        from_ = kw.pop("from", from_)           # `from` is a Python keyword: only as **{"from": x}
        if kw:
            raise TorchTypeError(f"uniform_() got an unexpected keyword argument '{next(iter(kw))}'")
        gen = random._gen(generator)
        return _random_inplace(self, "uniform_", "UniformBackward0",
                               lambda n, a, perm: _rng.uniform_values(gen, n, a.dtype, from_, to))

    def normal_(self, mean=0.0, std=1.0, *, generator=None):
        gen = random._gen(generator)
        return _random_inplace(self, "normal_", "NormalBackward0", lambda n, a, perm: _rng.normal_values(
            gen, n, a.dtype, mean, std, a.flags.c_contiguous))

    def random_(self, *args, generator=None, **kw):
        """random_(), random_(to), random_(from, to) (to=None: to the dtype's largest integer)."""
        gen = random._gen(generator)
        bounds = _random_bounds(args, kw)
        if bounds is None:
            values = lambda n, a, perm: _rng.random_values(gen, n, a.dtype)
            node = "RandomBackward2"
        else:
            values = lambda n, a, perm: _rng.random_from_to_values(gen, n, a.dtype, *bounds)
            node = "RandomBackward1" if len(args) + len(kw) == 1 and "from" not in kw else "RandomBackward0"
        return _random_inplace(self, "random_", node, values)

    def bernoulli_(self, p=0.5, *, generator=None):
        gen = random._gen(generator)
        if isinstance(p, Tensor):
            return _bernoulli_tensor_(self, p, gen)
        p = _number("bernoulli_", "p", p)
        return _random_inplace(self, "bernoulli_", "BernoulliBackward2",
                               lambda n, a, perm: _rng.bernoulli_scalar_values(gen, n, a.dtype, p))

    def bernoulli_method(self, p=None, *, generator=None):
        # (the checked torch.bernoulli sees the arguments the script gave: no p is no p)
        return bernoulli(self, generator=generator) if p is None else bernoulli(self, p, generator=generator)

    def exponential_(self, lambd=1.0, *, generator=None):
        gen = random._gen(generator)
        return _random_inplace(self, "exponential_", "ExponentialBackward0",
                               lambda n, a, perm: _rng.exponential_values(gen, n, a.dtype, lambd))

    def cauchy_(self, median=0.0, sigma=1.0, *, generator=None):
        gen = random._gen(generator)
        return _random_inplace(self, "cauchy_", "CauchyBackward0",
                               lambda n, a, perm: _rng.cauchy_values(gen, n, a.dtype, median, sigma))

    def log_normal_(self, mean=1.0, std=2.0, *, generator=None):
        gen = random._gen(generator)
        return _random_inplace(self, "log_normal_", "LogNormalBackward0",
                               lambda n, a, perm: _rng.log_normal_values(gen, n, a.dtype, mean, std))

    def geometric_(self, p, *, generator=None):
        gen = random._gen(generator)
        return _random_inplace(self, "geometric_", "GeometricBackward0",
                               lambda n, a, perm: _rng.geometric_values(gen, n, a.dtype, p))

    def multinomial_method(self, num_samples, replacement=False, *, generator=None):
        return multinomial(self, num_samples, replacement, generator=generator)

    methods = {f.__name__: f for f in (uniform_, normal_, random_, bernoulli_, exponential_, cauchy_, log_normal_,
                                       geometric_)}
    return {**methods, "bernoulli": bernoulli_method, "multinomial": multinomial_method}


def _random_bounds(args, kw):
    """random_'s overloads: () -> None, (to,) -> (0, to), (from, to) -> (from, to)."""
    names = ("from", "to") if len(args) != 1 else ("to",)
    vals = dict(zip(names, args))
    for k, v in kw.items():
        if k in vals or k not in ("from", "to"):
            raise TorchTypeError(f"random_() got an unexpected keyword argument '{k}'")
        vals[k] = v
    if not vals:
        return None
    for k, v in vals.items():
        vals[k] = v = _int_scalar(v)
        if v is not None and (not isinstance(v, _py_int) or isinstance(v, _py_bool)):
            got = ", ".join(type(a).__name__ for a in args)
            raise TorchTypeError(_RANDOM_SIGNATURES.format(got=got))
    if "from" not in vals:
        return 0, vals["to"]
    return vals["from"], vals.get("to")


def _int_scalar(v):
    """A 0-d integer tensor is an int to PyTorch's parser."""
    if isinstance(v, Tensor) and v._data.ndim == 0 and v._data.dtype.kind in "iu":
        return v.item()
    return v


_RANDOM_SIGNATURES = ("random_() received an invalid combination of arguments - got ({got}), but expected one of:\n"
                      " * (*, torch.Generator generator = None)\n"
                      " * (int from, int to, *, torch.Generator generator = None)\n"
                      " * (int to, *, torch.Generator generator = None)\n")
_SIZE_SIGNATURES = ("{name}() received an invalid combination of arguments - got (), but expected one of:\n"
                    " * (tuple of ints size, *, torch.Generator generator, Tensor out = None, torch.dtype dtype = "
                    "None, torch.layout layout = None, torch.device device = None, bool pin_memory = False, bool "
                    "requires_grad = False)\n"
                    " * (tuple of ints size, *, Tensor out = None, torch.dtype dtype = None, torch.layout layout = "
                    "None, torch.device device = None, bool pin_memory = False, bool requires_grad = False)\n")
_NORMAL_SIGNATURES = (
    "normal() received an invalid combination of arguments - got (float, float), but expected one of:\n"
    " * (Tensor mean, Tensor std, *, torch.Generator generator = None, Tensor out = None)\n"
    " * (Tensor mean, float std = 1, *, torch.Generator generator = None, Tensor out = None)\n"
    " * (float mean, Tensor std, *, torch.Generator generator = None, Tensor out = None)\n"
    " * (float mean, float std, tuple of ints size, *, torch.Generator generator = None, Tensor out = None, "
    "torch.dtype dtype = None, torch.layout layout = None, torch.device device = None, bool pin_memory = False, "
    "bool requires_grad = False)\n")


def _bernoulli_tensor_(t, p, gen):
    """bernoulli_(p) with a tensor p, expanded to t's shape (BernoulliBackward1)."""
    pe = _ops.expand(make_tensor(p._data), t._data.shape)._data

    def values(n, a, perm):
        if a.dtype.kind not in "fiub":
            raise _NotImplemented(f'"bernoulli_tensor_cpu_self_" not implemented for \'{_ops._SCALAR_NAME[a.dtype.name]}\'')
        return _rng.bernoulli_tensor_values(gen, a.dtype, pe.transpose(perm).ravel())

    def compute(x):
        arr = x._data
        perm = _rng.order(arr)
        out = arr.copy(order="K")
        if arr.size:
            _rng.fill(out, perm, values(arr.size, arr, perm))
        return _ops._record(_rng.bernoulli_tensor_row(), _ops._begin(x, p), out, (x, p),
                            attrs={"_p_sizes": p._data.shape})
    return _ops._inplace(t, compute, name="bernoulli_")


def bernoulli(input, p=None, *, generator=None):
    """bernoulli(input): each element 1 with probability input (BernoulliBackward0);
    bernoulli(input, p): every element with probability p."""
    gen = random._gen(generator)
    arr = input._data
    if p is None:
        values = _rng.bernoulli_tensor_values(gen, arr.dtype, np.ascontiguousarray(arr).ravel())
        seq = _ops._begin(input)
        return _ops._record(_rng.backward_row("BernoulliBackward0"), seq, values.reshape(arr.shape), (input,))
    values = _rng.bernoulli_scalar_values(gen, arr.size, arr.dtype, _number("bernoulli", "p", p))
    return _ops._record(_rng.not_implemented_row(), _ops._begin(input), values.reshape(arr.shape), (input,))


def multinomial(input, num_samples, replacement=False, *, generator=None):
    gen = random._gen(generator)
    num_samples = _int_scalar(num_samples)
    if not isinstance(num_samples, _py_int) or isinstance(num_samples, _py_bool):
        raise TorchTypeError(f"multinomial(): argument 'num_samples' must be int, not {type(num_samples).__name__}")
    return make_tensor(_rng.multinomial_values(gen, input._data, num_samples, _py_bool(replacement)))


def normal(mean, std=1.0, size=None, *, generator=None, dtype=None, layout=None, device=None,
           pin_memory=False, requires_grad=False):
    """torch.normal's overloads: (Tensor, Tensor), (Tensor, float), (float, Tensor) draw
    N(0, 1) (or N(0, std)) into a new tensor, then scale and shift it; (float, float, size)
    is empty(size).normal_(mean, std)."""
    gen = random._gen(generator)
    mt, st = isinstance(mean, Tensor), isinstance(std, Tensor)
    if not (mt or st):
        if size is None:
            raise TorchTypeError(_NORMAL_SIGNATURES)
        return _random_factory((size,), dtype, requires_grad,
                               lambda n, dt: _rng.normal_values(gen, n, dt, mean, std))
    if st:
        s = std._data
        if s.size and not s.min() >= 0:
            raise TorchRuntimeError("normal expects all elements of std >= 0.0")
    if mt and st:
        shape = _ops.broadcast_shapes(mean._data.shape, std._data.shape)
        dt = mean._data.dtype
    else:
        if mt and not std >= 0.0:
            raise TorchRuntimeError(f"normal expects std >= 0.0, but found std {_rng._cfmt(_py_float(std))}")
        shape, dt = (mean if mt else std)._data.shape, (mean if mt else std)._data.dtype
    n = _prod(shape)
    draw = _rng.normal_values(gen, n, dt, 0.0, std if mt and not st else 1.0).reshape(shape)
    if st:
        draw = np.multiply(draw, std._data).astype(dt, copy=False)
    m = mean._data if mt else np.asarray(mean, dt)
    out_arr = np.add(draw, m).astype(dt, copy=False)
    inputs = (mean,) * mt + (std,) * st
    seq = _ops._begin(*inputs)
    attrs = {}
    if mt:
        attrs["mean_sym_sizes"] = mean._data.shape
    if st:
        attrs["std_sym_sizes"] = std._data.shape
    return _ops._record(_rng.normal_row(mt, st), seq, out_arr, inputs, attrs=attrs)


def randperm(n, *, generator=None, dtype=None, layout=None, device=None, pin_memory=False,
             requires_grad=False):
    gen = random._gen(generator)
    n = _size((n,))[0]
    _ops._check_numel(n)
    return _new(_rng.randperm_values(gen, n, _np_dtype(dtype, np.dtype(np.int64))), requires_grad)


def rand(*size, generator=None, dtype=None, layout=None, device=None, requires_grad=False,
         pin_memory=False):
    if not size:
        raise TorchTypeError(_SIZE_SIGNATURES.format(name="rand"))
    gen = random._gen(generator)
    return _random_factory(size, dtype, requires_grad,
                           lambda n, dt: _rng.uniform_values(gen, n, dt, 0.0, 1.0))


def randn(*size, generator=None, dtype=None, layout=None, device=None, requires_grad=False,
          pin_memory=False):
    if not size:
        raise TorchTypeError(_SIZE_SIGNATURES.format(name="randn"))
    gen = random._gen(generator)
    return _random_factory(size, dtype, requires_grad, lambda n, dt: _rng.normal_values(gen, n, dt, 0.0, 1.0))


def _random_like(input, name, dtype, requires_grad, values, memory_format=None):
    """empty_like(input) (its layout kept: a transposed input gives a transposed result, filled
    in memory order) filled by `values(n, arr)`."""
    _like(input, name)
    arr = _ops.copy_in_format(input._data, memory_format, _np_dtype(dtype, input._data.dtype), 0)
    if arr.size:
        _rng.fill(arr, _rng.order(arr), values(arr.size, arr))
    return _new(arr, requires_grad)


def rand_like(input, dtype=None, layout=None, device=None, requires_grad=False, memory_format=None,
              generator=None):
    gen = random._gen(generator)
    return _random_like(input, "rand_like", dtype, requires_grad,
                        lambda n, a: _rng.uniform_values(gen, n, a.dtype, 0.0, 1.0), memory_format)


def randn_like(input, dtype=None, layout=None, device=None, requires_grad=False, memory_format=None,
               generator=None):
    gen = random._gen(generator)
    return _random_like(input, "randn_like", dtype, requires_grad,
                        lambda n, a: _rng.normal_values(gen, n, a.dtype, 0.0, 1.0, a.flags.c_contiguous),
                        memory_format)


def randint_like(input, *args, dtype=None, layout=None, device=None, requires_grad=False, memory_format=None,
                 generator=None, low=None, high=None):
    """randint_like(input, high) or randint_like(input, low, high)."""
    if high is not None:
        args += (high,)
    if low is not None:
        args = (low,) + args
    if builtins.any(isinstance(a, Tensor) and a._data.ndim for a in args):
        raise TorchRuntimeError("high must be a scalar tensor and on CPU")
    args = tuple(_int_scalar(a) for a in args)
    bounds = (0, args[0]) if len(args) == 1 else args
    gen = random._gen(generator)
    return _random_like(input, "randint_like", dtype, requires_grad,
                        lambda n, a: _rng.random_from_to_values(gen, n, a.dtype, *bounds), memory_format)


def randint(*args, size=None, generator=None, dtype=None, layout=None, device=None,
            requires_grad=False, pin_memory=False, low=None, high=None):
    """randint(high, size) or randint(low, high, size): empty(size).random_(low, high)."""
    if high is not None:
        args += (high,)
    if low is not None:
        args = (low,) + args
    if size is None and args:
        args, size = args[:-1], args[-1]
    args = tuple(_int_scalar(a) for a in args)
    if len(args) == 1:
        low, high = 0, args[0]
    elif len(args) == 2:
        low, high = args
    else:
        raise TorchTypeError("randint() received an invalid combination of arguments")
    gen = random._gen(generator)
    dt = int64 if dtype is None else dtype
    return _random_factory((size,), dt, requires_grad,
                           lambda n, np_dt: _rng.random_from_to_values(gen, n, np_dt, low, high))


def _prod(size):
    n = 1
    for s in size:
        n *= s
    return n

# ----------------------------------------------------------------------------- functions
# (the functions of the ops are made from the API table, _api.py, at the end of this module)


def numel(t):
    return t._data.size


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
_SUBMODULES = frozenset({"nn", "autograd", "optim", "utils", "cuda", "linalg", "backends"})


def __dir__():
    import os
    here = os.path.dirname(__file__)
    present = {m for m in _SUBMODULES if os.path.exists(os.path.join(here, m)) or os.path.exists(os.path.join(here, m + ".py"))}
    return sorted(set(globals()) | present)


def __getattr__(name):
    if name in _SUBMODULES:
        import importlib
        return importlib.import_module(f"{__name__}.{name}")
    if name.startswith("_"):               # (`from . import _legacy` asks here first, at every start-up)
        raise AttributeError(f"module 'torch' has no attribute '{name}'")
    from ._not_implemented import missing
    raise missing("torch", name)


# ----------------------------------------------------------------------------- legacy and device API

from . import _legacy  # noqa: E402  (needs the names above)

__version__ = _legacy.TorchVersion("2.13.0+cpu")      # the PyTorch build whose behaviour gradcli reproduces
device = _legacy.device
FloatTensor, DoubleTensor, HalfTensor = (_legacy.TYPED[d] for d in (float32, float64, float16))
LongTensor, IntTensor, ShortTensor, CharTensor, ByteTensor, BoolTensor = (
    _legacy.TYPED[d] for d in (int64, int32, int16, int8, uint8, bool))

from . import _api, _signatures  # noqa: E402

_signatures.install(globals(), "")          # torch's own functions (tensor, zeros, rand, ...)
globals().update(_api.functions())          # the functions of the ops, already checked
from ._tensor import Tensor, make_tensor  # noqa: E402  (its methods: the API table's, and the functions above)

# The engine, complete: the class of the tensors it makes and what it takes from the op table.
_E.configure(tensor=Tensor, make_tensor=make_tensor, numpy_math=_ops.NUMPY_MATH, tensor_math=_ops.TENSOR_MATH, fresh_view=_ops.fresh_view)
