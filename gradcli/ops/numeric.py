"""Array helpers every op module shares: operand conversion, broadcasting, dims, dtype names."""
from __future__ import annotations

import builtins as _b
import math as _math

import numpy as np

from .. import engine as E
from ..engine import TensorBase
from ..engine import TorchRuntimeError, TorchTypeError, TorchValueError

_F32 = np.dtype(np.float32)


def _col_major(sizes, strides):
    """mm's backward keeps a column-major input's gradient column-major (a transposed mm)."""
    return len(strides) == 2 and strides[0] == 1 and strides[1] == sizes[0]


_wrapped = E.wrapped_number


def _arr(v, dt):
    """The NumPy operand for a tensor or a Python number, in the computation dtype."""
    if isinstance(v, TensorBase):
        d = v._data
        return d if d.dtype == dt.np else d.astype(dt.np)
    return _scalar_as(v, dt.np)


_CTYPE = {"int64": "int64_t", "int32": "int", "int16": "int16_t", "int8": "int8_t", "uint8": "uint8_t",
          "float16": "c10::Half", "float32": "float", "float64": "double"}


def _scalar_checked(v, np_dtype, type_name=None):
    """A Python number as a value of this dtype the way PyTorch's checked conversion takes it
    (fill_, full, masked_fill, clamp, pow; torch.tensor names the type `type_name`): a value
    that does not fit is a RuntimeError; a negative one fits an unsigned type if its magnitude
    does (uint8 takes -1 as 255)."""
    k = np_dtype.kind
    if type(v) is float and k in "iu" and not _math.isfinite(v):
        raise TorchRuntimeError(f"value cannot be converted to type {type_name or _CTYPE[np_dtype.name]} "
                                "without overflow")
    if type(v) in (int, float) and k in "iuf" and _math.isfinite(v):
        if k == "f":
            fits = _b.abs(v) <= np.finfo(np_dtype).max
        else:
            info = np.iinfo(np_dtype)
            fits = (-info.max if k == "u" else info.min) <= v <= info.max
        if not fits:
            raise TorchRuntimeError(f"value cannot be converted to type {type_name or _CTYPE[np_dtype.name]} "
                                "without overflow")
        if k in "iu":
            return _scalar_as(int(v), np_dtype)
    return v


def _scalar_as(v, np_dtype):
    """A Python number as an operand of this NumPy dtype. A Python int is a Scalar, which an
    arithmetic op casts to an integer dtype by wrapping (uint8 + 300 adds 44)."""
    if type(v) is int and np_dtype.kind in "iu":
        info = np.iinfo(np_dtype)
        if not info.min <= v <= info.max:
            bits = np_dtype.itemsize * 8
            v &= (1 << bits) - 1
            if np_dtype.kind == "i" and v >> (bits - 1):
                v -= 1 << bits
    return np_dtype.type(v)


def _scalar_in_range(v):
    """A Python int as a Scalar, which holds int64 and uint64: PyTorch's error past that."""
    if type(v) is int and not -2 ** 63 <= v < 2 ** 64:
        from ..engine import TorchOverflowError
        raise TorchOverflowError("int too big to convert" if v > 0 else "can't convert negative int to unsigned")


def _check_operand(v, what="other"):
    _scalar_in_range(v)
    if isinstance(v, TensorBase) or isinstance(v, (int, float, bool)):
        return
    raise TorchTypeError(f"unsupported operand type for tensor operation: '{type(v).__name__}'")


def broadcast_shapes(a, b):
    """PyTorch's infer_size, with its error text (dimensions compared right-aligned)."""
    if a == b:
        return a
    n = _b.max(len(a), len(b))
    out = [0] * n
    for i in range(n - 1, -1, -1):
        ia, ib = i - n + len(a), i - n + len(b)
        da = a[ia] if ia >= 0 else 1
        db = b[ib] if ib >= 0 else 1
        if da != db and da != 1 and db != 1:
            raise TorchRuntimeError(f"The size of tensor a ({da}) must match the size of tensor b ({db}) "
                                    f"at non-singleton dimension {i}")
        out[i] = da if db == 1 else db
    return tuple(out)


# A Python number operand of a float32 tensor, as the 0-d array NumPy computes with
# (half the cost of converting it to a NumPy scalar on each op, which dominates ops on
# tiny tensors). Only values that convert exactly-as-rounded without a warning are kept:
# not 0 (0. == -0. as dict keys), nan (never equal to itself), nor overflowing floats.
_CONST32 = {}


def _number_operand(b, dtype):
    if dtype is _F32 and 1e-30 < _b.abs(b) < 1e30:
        if len(_CONST32) >= 4096:
            _CONST32.clear()
        c = _CONST32[b] = np.array(b, _F32)
        c.flags.writeable = False
        return c
    return _scalar_as(b, dtype)


_norm_dim = E._wrap_dim        # a dim in [-ndim, ndim) as a dim in [0, ndim), or PyTorch's IndexError


def _dims(dim, ndim):
    """The reduced axes, wrapped; an empty list reduces every axis (None)."""
    if not isinstance(dim, (list, tuple)):
        dim = _norm_dim(dim, ndim)
        return (dim,) if ndim else None
    dims = tuple(_norm_dim(d, ndim) for d in dim)
    for k, d in enumerate(dims):
        if d in dims[:k]:
            raise TorchRuntimeError(f"dim {d} appears multiple times in the list of dims")
    return dims if dims and ndim else None


def _raw_dims(dim):
    """Dims as PyTorch saves them: as written (negative ones included), always a tuple."""
    return tuple(dim) if isinstance(dim, (list, tuple)) else (dim,)


def _count(sizes, dim):
    n = 1
    for d in (dim if dim != () else range(len(sizes))) if isinstance(dim, tuple) else (dim,):
        n *= sizes[d % len(sizes)] if sizes else 1
    return n


def _shape_str(s):
    return "x".join(map(str, s))


def _strides(t):
    d = t._data
    n = d.itemsize
    return tuple([s // n for s in d.strides])       # (a list, not a generator: half the cost)


_SCALAR_NAME = {"float32": "Float", "float64": "Double", "float16": "Half", "int64": "Long", "int32": "Int",
                "int16": "Short", "int8": "Char", "uint8": "Byte", "bool": "Bool"}
_C_NAME = {"float32": "float", "float64": "double", "float16": "c10::Half", "int64": "long int", "int32": "int",
           "int16": "short int", "int8": "signed char", "uint8": "unsigned char", "bool": "bool"}


def _same_dtype(a, b, name):
    """The mixed-dtype errors of dot, mv and mm, each worded as PyTorch words it."""
    if a._data.dtype == b._data.dtype:
        return
    da, db = a._data.dtype.name, b._data.dtype.name
    if name == "dot":
        msg = (f"dot : expected both vectors to have same dtype, but found {_SCALAR_NAME[da]} and "
               f"{_SCALAR_NAME[db]}")
    elif name == "mv":
        msg = (f"addmv input tensors must have the same dtype, but got {_SCALAR_NAME[db]}, {_SCALAR_NAME[da]}, "
               f"and {_SCALAR_NAME[db]}")
    else:
        msg = f"expected m1 and m2 to have the same dtype, but got: {_C_NAME[da]} != {_C_NAME[db]}"
    raise TorchRuntimeError(msg)


def _type_str(t):
    """PyTorch's legacy type name of a CPU tensor: torch.FloatTensor, torch.LongTensor, ..."""
    return f"torch.{_SCALAR_NAME[t._data.dtype.name]}Tensor"


_INT64_MAX = 2 ** 63 - 1


def _inverse_perm(dims):
    inv = [0] * len(dims)
    for i, d in enumerate(dims):
        inv[d % len(dims)] = i
    return tuple(inv)


def _arr_of(v):
    return v._data if isinstance(v, TensorBase) else v


def _in_bounds(self, lo, hi):
    a = _arr_of(self)
    mask = np.ones(a.shape, bool)
    if lo is not None:
        mask = mask & (a >= _arr_of(lo))       # not &=: a tensor bound can broadcast self
    if hi is not None:
        mask = mask & (a <= _arr_of(hi))
    return mask


def _rounds(a):
    """A _rounded function computes a's result in float64, or in another dtype than a's:
    it is then no candidate for writing into a saved or dead buffer."""
    return a.dtype.kind != "f" or (a.dtype == np.float32 and a.size <= 65536)


_mul_g = E._NumpyMath.mul_g


def _sizes_str(shape):
    return "[" + ", ".join(map(str, shape)) + "]"


def _split_sizes(size, split_size):
    """split's pieces: split_size each, the last one what remains (one empty piece of an empty dim)."""
    if size == 0:
        return [0]
    return [_b.min(split_size, size - start) for start in range(0, size, split_size)]


_REDUCTIONS = {"none": 0, "mean": 1, "sum": 2}


def _reduction(reduction):
    if reduction not in _REDUCTIONS:
        raise TorchValueError(f"{reduction} is not a valid value for reduction")
    return _REDUCTIONS[reduction]


_REDUCTION_NAMES = {v: k for k, v in _REDUCTIONS.items()}


def _in64(fn):
    """fn evaluated in float64 and rounded once for float32 input (PyTorch's float32 kernels
    are within an ulp of the correctly rounded value; NumPy's float32 ones may not be)."""
    def f(a, *args):
        if a.dtype == _F32:
            return np.asarray(fn(a.astype(np.float64), *args), np.float64).astype(_F32)
        return np.asarray(fn(a, *args), a.dtype)
    return f


def _type_name(v):
    """A value's type as PyTorch's argument parser names it (CPython's tp_name): a class defined
    in Python by its name, a builtin or extension type with its module ("numpy.ndarray")."""
    t = type(v)
    if t.__module__ == "builtins" or t.__flags__ & (1 << 9):          # Py_TPFLAGS_HEAPTYPE
        return t.__name__
    return f"{t.__module__}.{t.__name__}"


def _tensor_args(name, **args):
    """PyTorch's argument parser's TypeError for a non-tensor where a tensor is expected
    (arguments given in their positional order; None is allowed for optional ones by not passing them)."""
    for pos, (arg, v) in enumerate(args.items(), 1):
        if not isinstance(v, TensorBase):
            from ..engine import TorchTypeError
            raise TorchTypeError(f"{name}(): argument '{arg}' (position {pos}) must be Tensor, not {_type_name(v)}")
