"""The legacy and device API of old PyTorch code: the typed tensor classes (torch.FloatTensor,
...), Tensor.new_* / new / type / cuda / to(device), torch.device, and PyTorch's version string."""
from __future__ import annotations

import builtins

import numpy as np

from .. import engine as _E
from .. import ops as _ops
from ..engine import CONFIG, TensorBase
from ..engine import TorchAssertionError, TorchRuntimeError, TorchTypeError, TorchValueError

_NO_CUDA = "Torch not compiled with CUDA enabled"
_DEVICE_TYPES = ("cpu, cuda, ipu, xpu, mkldnn, opengl, opencl, ideep, hip, ve, fpga, maia, xla, lazy, vulkan, mps, "
                 "meta, hpu, mtia, privateuseone")


class TorchVersion(str):
    """torch.__version__: a string that compares as a version ("2.13.0+cpu" >= "2.2" is True)."""

    @staticmethod
    def _key(v):
        """(release numbers without trailing zeros, local label): "2.13.0+cpu" -> ((2, 13), "cpu")."""
        release, _, local = str(v).strip().lstrip("v").partition("+")
        parts = []
        for p in release.split("."):
            digits = ""
            for ch in p:
                if not ch.isdigit():
                    break
                digits += ch
            if not digits:
                break
            parts.append(builtins.int(digits))
            if len(digits) != len(p):
                break
        if not parts:
            raise TorchValueError(f"Invalid version: '{v}'")
        while parts and parts[-1] == 0:
            parts.pop()
        return tuple(parts), local

    def _cmp(self, other, op):
        if isinstance(other, (tuple, list)):
            other = ".".join(map(str, other))
        return op(self._key(self), self._key(other))

    def __lt__(self, other):
        return self._cmp(other, lambda a, b: a < b)

    def __le__(self, other):
        return self._cmp(other, lambda a, b: a <= b)

    def __gt__(self, other):
        return self._cmp(other, lambda a, b: a > b)

    def __ge__(self, other):
        return self._cmp(other, lambda a, b: a >= b)

    def __eq__(self, other):
        return self._cmp(other, lambda a, b: a == b)

    def __ne__(self, other):
        return not self.__eq__(other)

    __hash__ = str.__hash__


class device:
    """torch.device('cpu'), torch.device('cuda', 0), ..."""

    __module__ = "torch"

    def __init__(self, type, index=None):
        if isinstance(type, device):
            type, index = type.type, type.index
        elif isinstance(type, builtins.int) and not isinstance(type, builtins.bool):
            raise TorchRuntimeError(_NO_CUDA_INIT)
        else:
            name, colon, number = str(type).partition(":")
            if name not in _DEVICE_TYPES.split(", "):
                raise TorchRuntimeError(f"Expected one of {_DEVICE_TYPES} device type at start of device string: "
                                        f"{type}")
            if colon and not number.isdigit():
                raise TorchRuntimeError(f"Invalid device string: '{type}'")
            if number:
                if index is not None:
                    raise TorchRuntimeError(f"type (string) must not include an index because index was passed "
                                            f"explicitly: {type}")
                index = builtins.int(number)
            type = name
        self.type, self.index = type, index

    def __str__(self):
        return self.type if self.index is None else f"{self.type}:{self.index}"

    def __repr__(self):
        return (f"device(type='{self.type}')" if self.index is None
                else f"device(type='{self.type}', index={self.index})")

    def __eq__(self, other):
        return isinstance(other, device) and (self.type, self.index) == (other.type, other.index)

    def __hash__(self):
        return hash((self.type, self.index))


_NO_CUDA_INIT = _NO_CUDA
CPU = device("cpu")


def check_device(d):
    """A device argument: the CPU is fine; anything else fails as on PyTorch's CPU build."""
    if d is None:
        return
    if isinstance(d, str):
        d = device(d)
    if isinstance(d, device) and d.type != "cpu":
        raise TorchAssertionError(_NO_CUDA)


# ----------------------------------------------------------------------------- typed tensor classes


class _LegacyTensorType(type):
    """The class of torch.FloatTensor and friends: calling one makes a tensor of its dtype,
    isinstance checks the dtype."""

    def __instancecheck__(cls, obj):
        return isinstance(obj, TensorBase) and obj.dtype is cls.dtype

    def __call__(cls, *args, **kwargs):
        return legacy_new(cls.dtype, "new", *args, **kwargs)


def _typed_class(name, dtype):
    return _LegacyTensorType(name, (), {"__module__": "torch", "dtype": dtype, "is_cuda": False})


TYPED = {dt: _typed_class(dt.tensor_type, dt) for dt in (
    _E.float32, _E.float64, _E.float16, _E.int64, _E.int32, _E.int16, _E.int8, _E.uint8, _E.bool_)}
_BY_NAME = {"torch." + dt.tensor_type: dt for dt in TYPED}

_NEW_SIGNATURES = (" * (*, torch.device device = None)\n"
                   "      didn't match because some of the keywords were incorrect: {kw}\n"
                   " * (torch.Storage storage)\n * (Tensor other)\n"
                   " * (tuple of ints size, *, torch.device device = None)\n"
                   " * (object data, *, torch.device device = None)\n")


def _options(dtype):
    c = {"float32": "float", "float64": "double", "float16": "c10::Half", "int64": "long int", "int32": "int",
         "int16": "short int", "int8": "signed char", "uint8": "unsigned char", "bool": "bool"}[dtype.np.name]
    return (f"TensorOptions(dtype={c}, device=cpu, layout=Strided, requires_grad=false (default), "
            "pinned_memory=false (default), memory_format=(nullopt))")


def legacy_new(dtype, name, /, *args, device=None, _any_dtype=False, **kwargs):
    """torch.FloatTensor(...), torch.Tensor(...), t.new(...): sizes give an (uninitialised, here
    zero) tensor, a sequence gives its values, a tensor of the same dtype is aliased
    (torch.Tensor(t), `_any_dtype`, aliases a tensor of any dtype)."""
    from . import tensor as make_tensor
    if kwargs:
        got = ", ".join([type(a).__name__ for a in args] + [f"{k}={_type_name(v)}" for k, v in kwargs.items()])
        raise TorchTypeError(f"{name}() received an invalid combination of arguments - got ({got}), but expected "
                             "one of:\n" + _NEW_SIGNATURES.format(kw=", ".join(kwargs)))
    check_device(device)
    if len(args) == 1 and isinstance(args[0], TensorBase):
        t = args[0]
        if t.dtype is not dtype and not _any_dtype:
            raise TorchTypeError(f"expected {_options(dtype)} (got {_options(t.dtype)})")
        return CONFIG.tensor(t._data, version=t._version_counter)
    if not args:
        return CONFIG.tensor(np.zeros((0,), dtype.np))
    if len(args) == 1 and isinstance(args[0], _E.Size) or _size_list(args):
        size = args[0] if len(args) == 1 and isinstance(args[0], _E.Size) else tuple(builtins.int(a) for a in args)
        from . import zeros
        return zeros(*size, dtype=dtype)
    if len(args) == 1 and isinstance(args[0], str):
        raise TorchTypeError(f"{name}(): invalid data type 'str'")
    if len(args) == 1 and isinstance(args[0], np.ndarray) and args[0].dtype.kind not in "biufc":
        raise TorchTypeError(f"can't convert np.ndarray of type numpy.{args[0].dtype.type.__name__}. The only "
                             "supported types are: float64, float32, float16, complex64, complex128, int64, int32, "
                             "int16, int8, uint64, uint32, uint16, uint8, and bool.")
    if len(args) == 1 and isinstance(args[0], np.ndarray) and args[0].dtype == dtype.np:
        return CONFIG.tensor(args[0])           # an array of the class's dtype is shared, as from_numpy
    if len(args) == 1 and isinstance(args[0], (list, tuple, np.ndarray)):
        return make_tensor(args[0], dtype=dtype)
    if len(args) == 1:
        raise TorchTypeError(f"{name}(): data must be a sequence (got {type(args[0]).__name__})")
    raise TorchTypeError(f"{name}() received an invalid combination of arguments - got "
                         f"({', '.join(type(a).__name__ for a in args)})")


def _type_name(value):
    """A keyword argument's type as PyTorch's argument parser names it."""
    return "torch.dtype" if isinstance(value, _E.DType) else type(value).__name__


def _size_list(args):
    """Sizes as separate arguments: a leading int, then ints, bools or 0-d integer tensors (PyTorch's
    parser reads the rest as it reads a list of ints)."""
    def integer(a):
        return isinstance(a, builtins.int) or (isinstance(a, TensorBase) and a._data.ndim == 0 and a._data.dtype.kind in "iu")
    return (isinstance(args[0], builtins.int) and not isinstance(args[0], builtins.bool)
            and builtins.all(integer(a) for a in args))


def _scalar_data(data):
    """Data a tensor is built from: with a dtype given, anything but a sequence or a tensor is read as
    a number (PyTorch's TypeError otherwise)."""
    if not isinstance(data, (TensorBase, str, list, tuple, np.ndarray, np.generic, builtins.int, builtins.float,
                             builtins.complex)):
        raise TorchTypeError(f"must be real number, not {type(data).__name__}")
    return data


# ----------------------------------------------------------------------------- Tensor methods

_W_NEW_TENSOR = ("To copy construct from a tensor, it is recommended to use sourceTensor.detach().clone() or "
                 "sourceTensor.detach().clone().requires_grad_(True), rather than tensor.new_tensor(sourceTensor).")


def _dtype_arg(t, dtype):
    return t.dtype if dtype is None else dtype


def new_tensor(self, data, dtype=None, device=None, requires_grad=False):
    from . import tensor as make_tensor
    check_device(device)
    data = _scalar_data(data)
    if isinstance(data, TensorBase):
        _E.STATE.warn(_W_NEW_TENSOR)
        data = data._data          # (its values: torch.tensor of a tensor would warn again, in its own words)
    return make_tensor(data, dtype=_dtype_arg(self, dtype), requires_grad=requires_grad)


def _new_filled(name, fill):
    def method(self, *size, dtype=None, device=None, requires_grad=False):
        from . import full
        check_device(device)
        if len(size) == 1 and isinstance(size[0], (tuple, list, _E.Size)):
            size = tuple(size[0])
        value = fill if fill is not None else 0
        return full(size, value, dtype=_dtype_arg(self, dtype), requires_grad=requires_grad)
    method.__name__ = name
    return method


def new_full(self, size, fill_value, dtype=None, device=None, requires_grad=False):
    from . import full
    check_device(device)
    return full(tuple(size), fill_value, dtype=_dtype_arg(self, dtype), requires_grad=requires_grad)


def new(self, *args, **kwargs):
    return legacy_new(self.dtype, "new", *args, **kwargs)


def type_(self, dtype=None, non_blocking=False, **kwargs):
    """t.type(): 'torch.FloatTensor'; t.type(torch.float64 / torch.DoubleTensor / 'torch.DoubleTensor')."""
    if dtype is None:
        return "torch." + self.dtype.tensor_type
    if isinstance(dtype, str):
        if dtype.startswith("torch.cuda."):
            raise TorchRuntimeError(_NO_ATEN_CUDA)
        if dtype not in _BY_NAME:
            raise TorchValueError(f"invalid type: '{dtype}'")
        dtype = _BY_NAME[dtype]
    elif isinstance(dtype, _LegacyTensorType):
        dtype = dtype.dtype
    elif not isinstance(dtype, _E.DType):
        raise TorchTypeError("dtype must be a type, str, or dtype object")
    return _ops.to_dtype(self, dtype)


_NO_ATEN_CUDA = (
    "Cannot initialize CUDA without ATen_cuda library. PyTorch splits its backend into two shared libraries: a CPU "
    "library and a CUDA library; this error has occurred because you are trying to use some CUDA functionality, "
    "but the CUDA library has not been loaded by the dynamic linker for some reason.  The CUDA library MUST be "
    "loaded, EVEN IF you don't directly use any symbols from the CUDA library! One common culprit is a lack of "
    "-Wl,--no-as-needed in your link arguments; many dynamic linkers will delete dynamic library dependencies if "
    "you don't depend on any of their symbols.  You can check if this has occurred by using ldd on your binary to "
    "see if there is a dependency on *_cuda.so library.")


def to(self, *args, dtype=None, device=None, non_blocking=False, copy=False, memory_format=None):
    if dtype is not None and not isinstance(dtype, _E.DType):
        raise TorchTypeError(f"to() received an invalid combination of arguments - got (dtype={type(dtype).__name__}, )")
    first = args[0] if args else None
    if isinstance(first, (builtins.int, builtins.float, np.number, np.bool_)):
        index = not isinstance(first, (builtins.bool, np.bool_, builtins.float, np.floating))
        if index and (len(args) == 1 or args[1] is None or isinstance(args[1], _E.DType)):
            # to(device, dtype): an int is a CUDA device index
            if not -2 ** 63 <= first < 2 ** 63:
                raise TorchValueError("Overflow when unpacking long long")
            raise TorchRuntimeError("Device index must not be negative" if first < 0 else
                                    "Cannot access accelerator device when none is available.")
        # to(dtype, non_blocking): PyTorch takes a Python number there as the dtype of its type
        dtype = _E.bool_ if isinstance(first, (builtins.bool, np.bool_)) else _E.int64 if index else _E.float64
        args = args[1:]
    flags = [a for a in args if isinstance(a, (builtins.bool, np.bool_))]      # non_blocking, copy
    if len(flags) > 1:
        copy = flags[1]
    for a in args:
        if isinstance(a, _E.DType):
            dtype = a
        elif isinstance(a, (str, globals()["device"])):
            device = a
        elif isinstance(a, TensorBase):
            dtype = a.dtype
    check_device(device)
    out = self if dtype is None else _ops.to_dtype(self, dtype)
    return _ops.clone(out) if copy and out is self else out


def cuda(self, device=None, non_blocking=False, memory_format=None):
    """PyTorch's CPU build: the device is parsed and checked, then CUDA is missing."""
    if isinstance(device, str):
        device = CPU.__class__(device)
    if isinstance(device, CPU.__class__) and device.type != "cuda":
        raise TorchRuntimeError("Invalid device, must be cuda device")
    if isinstance(device, builtins.int) and not isinstance(device, builtins.bool):
        raise TorchRuntimeError("Device index must not be negative" if device < 0 else
                                "Cannot access accelerator device when none is available.")
    if device is not None and not isinstance(device, CPU.__class__):
        raise TorchTypeError(f"cuda(): argument 'device' (position 1) must be torch.device, not "
                             f"{type(device).__name__}")
    raise TorchAssertionError(_NO_CUDA)


def methods(T):
    """The legacy and device methods and properties of Tensor, by name."""
    return {
        "new_tensor": new_tensor,
        "new_zeros": _new_filled("new_zeros", 0),
        "new_ones": _new_filled("new_ones", 1),
        "new_empty": _new_filled("new_empty", None),
        "new_full": new_full,
        "new": new,
        "type": type_,
        "to": to,
        "cuda": cuda,
        "cpu": lambda self, memory_format=None: self,
        "device": property(lambda self: CPU),
        "is_cuda": property(lambda self: False),
        "get_device": lambda self: -1,
        "nelement": T.numel,
    }
