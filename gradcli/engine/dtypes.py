"""PyTorch's dtypes, their promotion, and torch.Size."""
from __future__ import annotations

import numpy as np

from .errors import TorchAttributeError, TorchNotImplementedError, TorchRuntimeError


class DType:
    """A torch dtype: `torch.float32` and friends."""

    __slots__ = ("name", "np", "kind", "tensor_type")

    def __init__(self, name, np_dtype, kind, tensor_type):
        for slot, value in zip(self.__slots__, (name, np.dtype(np_dtype), kind, tensor_type)):
            object.__setattr__(self, slot, value)

    @property
    def is_floating_point(self):
        return self.kind == 2

    @property
    def is_signed(self):
        return self.np.kind in "if"

    @property
    def is_complex(self):
        return False

    @property
    def itemsize(self):
        return self.np.itemsize

    @property
    def abbr(self):
        return f"{self.np.kind}{self.np.itemsize * 8}"          # b8, u8, i64, f32, ...

    def to_real(self):
        return self

    def to_complex(self):
        if self.kind != 2:
            raise TorchRuntimeError(f"Unknown Complex ScalarType for {self.tensor_type[:-6]}")
        raise TorchNotImplementedError("gradcli has no complex dtypes")

    def __getattr__(self, name):
        raise TorchAttributeError(f"'torch.dtype' object has no attribute '{name}'")

    def __setattr__(self, name, value):
        if name in type(self).__dict__ or name in self.__slots__:
            raise TorchAttributeError(f"attribute '{name}' of 'torch.dtype' objects is not writable")
        raise TorchAttributeError(f"'torch.dtype' object has no attribute '{name}'")

    def __repr__(self):
        return "torch." + self.name

    __str__ = __repr__


BOOL, INT, FLOAT = 0, 1, 2          # promotion categories
bool_ = DType("bool", np.bool_, BOOL, "BoolTensor")
uint8 = DType("uint8", np.uint8, INT, "ByteTensor")
int8 = DType("int8", np.int8, INT, "CharTensor")
int16 = DType("int16", np.int16, INT, "ShortTensor")
int32 = DType("int32", np.int32, INT, "IntTensor")
int64 = DType("int64", np.int64, INT, "LongTensor")
float16 = DType("float16", np.float16, FLOAT, "HalfTensor")
float32 = DType("float32", np.float32, FLOAT, "FloatTensor")
float64 = DType("float64", np.float64, FLOAT, "DoubleTensor")
DTYPES = (bool_, uint8, int8, int16, int32, int64, float16, float32, float64)
_BY_NP = {d.np: d for d in DTYPES}


def dtype_of(array) -> DType:
    return _BY_NP[array.dtype]


def promote_types(a: DType, b: DType) -> DType:
    if a is b:
        return a
    if a.kind != b.kind:             # a float beats any int, an int beats bool
        return a if a.kind > b.kind else b
    return _BY_NP[np.promote_types(a.np, b.np)]


class MemoryFormat:
    """torch.memory_format: how a tensor's elements are laid out in memory (its strides)."""

    __slots__ = ("name",)

    def __init__(self, name):
        self.name = name

    def __repr__(self):
        return "torch." + self.name

    def __reduce__(self):
        return self.name


MemoryFormat.__name__ = MemoryFormat.__qualname__ = "memory_format"
MemoryFormat.__module__ = "torch"
contiguous_format, preserve_format, channels_last, channels_last_3d = map(
    MemoryFormat, ("contiguous_format", "preserve_format", "channels_last", "channels_last_3d"))


class Size(tuple):
    """torch.Size: a tuple of ints that prints as `torch.Size([2, 3])`; slicing, adding and
    repeating it give a torch.Size."""

    __slots__ = ()

    def __new__(cls, sizes=()):
        self = super().__new__(cls, sizes)
        if all(type(d) is int for d in self):
            return self
        return super().__new__(cls, [_index(d, i) for i, d in enumerate(self)])

    def __getitem__(self, key):
        got = super().__getitem__(key)
        return Size(got) if isinstance(key, slice) else got

    def __add__(self, other):
        if not isinstance(other, tuple):
            raise TypeError(f"can only concatenate tuple (not {type(other).__name__}) to torch.Size")
        return Size(tuple(self) + tuple(other))

    def __radd__(self, other):
        if not isinstance(other, tuple):
            return NotImplemented
        return Size(tuple(other) + tuple(self))

    def __mul__(self, n):
        return Size(tuple(self) * n)

    __rmul__ = __mul__

    def __repr__(self):
        return "torch.Size([" + ", ".join(map(str, self)) + "])"

    __str__ = __repr__

    def numel(self):
        n = 1
        for d in self:
            n *= d
        return n


def _index(d, i):
    """A size as PyTorch takes it: anything with __index__ (integer 0-d tensors too)."""
    try:
        return d.__index__()
    except (AttributeError, TypeError):
        raise TypeError(f"torch.Size() takes an iterable of 'int' (item {i} is '{type(d).__name__}')") from None


def _as_torch_class(cls, qualname):
    """Show `cls` as PyTorch's C class `torch.<qualname>`: its repr is `<class 'torch.Size'>`
    and CPython's own errors name it as PyTorch's do ("'torch.Size' object is not callable")."""
    cls.__module__, cls.__qualname__, cls.__name__ = "torch", qualname, f"torch.{qualname}"


def shown_as_pytorch(cls, module=None):
    """A class of gradcli.torch shown as PyTorch's, <class 'torch.nn.modules.linear.Linear'>: in
    `module`, else in its own module's name without the leading "gradcli."."""
    if module is not None:
        cls.__module__ = module
    elif cls.__module__.startswith("gradcli."):
        cls.__module__ = cls.__module__[len("gradcli."):]
    return cls


_as_torch_class(Size, "Size")
_as_torch_class(DType, "dtype")


def _sizes(shape):
    return "[" + ", ".join(map(str, shape)) + "]"
