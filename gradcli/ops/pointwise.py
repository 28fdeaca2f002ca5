"""Pointwise ops: arithmetic, unary maths, clamp/where/maximum/minimum, dtype conversion."""
from __future__ import annotations

import builtins as _b
import math as _math

import numpy as np

from .. import engine as E
from ..engine import CONFIG, vml
from ..engine import STATE, TensorBase, result_type
from ..engine import TorchNotImplementedError, TorchRuntimeError, TorchTypeError
from .numeric import (_CONST32, _F32, _SCALAR_NAME, _arr, _check_operand, _number_operand, _scalar_checked,
                      _scalar_in_range, broadcast_shapes)
from .record import (_EMPTY, _META, _begin, _check_broadcast, _check_like, _check_numel, _compact_saver, _input_meta,
                     _numel, _record, _record_binary, _save)
from .table import TABLE
from .views import copy_in_format


def _binary(row, ufunc, a, b, dt=None, extra_attrs=None):
    ta, tb = isinstance(a, TensorBase), isinstance(b, TensorBase)
    if not ta:
        _check_operand(a)
    if not (tb or type(b) is float):          # (a float needs no check)
        _check_operand(b)
    if STATE.grad_enabled and ((ta and a._rg) or (tb and b._rg)):
        seq = STATE.seq                       # STATE.next_seq(), inlined: this is every binary op
        STATE.seq = seq + 1
    else:
        seq = None
    if ta and dt is None:
        da = a._data
        if tb:
            db = b._data
            if da.dtype == db.dtype:          # the common case: nothing to promote
                if da.shape != db.shape:
                    _check_broadcast(da.shape, db.shape, da.dtype.itemsize)
                elif da.size > 65535:
                    _check_numel(da.size, da.dtype.itemsize)
                out = ufunc(da, db)
                if type(out) is not np.ndarray:
                    out = np.asarray(out, da.dtype)
                return _record_binary(row, seq, out, a, b, extra_attrs)
        elif type(b) is float or type(b) is int:   # tensor with a Python number
            k = da.dtype.kind
            if k == "f" or (k in "iu" and type(b) is int):
                if da.size > 65535:
                    _check_numel(da.size, da.dtype.itemsize)
                c = _CONST32.get(b) if da.dtype is _F32 else None
                out = ufunc(da, c if c is not None else _number_operand(b, da.dtype))
                if type(out) is not np.ndarray:
                    out = np.asarray(out, da.dtype)
                return _record_binary(row, seq, out, a, b, extra_attrs)
    if dt is None:
        dt = result_type(a, b)
    sa = a._data.shape if ta else ()
    sb = b._data.shape if tb else ()
    if sa != sb:
        _check_broadcast(sa, sb, dt.np.itemsize)
    elif (a._data.size if ta else b._data.size) > 65535:
        _check_numel(a._data.size if ta else b._data.size, dt.np.itemsize)
    out = ufunc(_arr(a, dt), _arr(b, dt))
    if type(out) is not np.ndarray:
        out = np.asarray(out, dt.np)
    if ta:
        return _record_binary(row, seq, out, a, b, extra_attrs)
    return _record(row, seq, out, (a, b), attrs=extra_attrs)

# ----------------------------------------------------------------------------- arithmetic


_ADD, _SUB, _MUL, _DIV = TABLE["add"], TABLE["sub"], TABLE["mul"], TABLE["div"]


def _alpha(name, alpha):
    if isinstance(alpha, (int, float)) and not isinstance(alpha, bool):
        return alpha
    if isinstance(alpha, TensorBase) and alpha._data.ndim == 0 and not alpha.requires_grad and \
            alpha._data.dtype.kind in "iuf":
        return alpha._data.item()               # a number to PyTorch's parser
    raise TorchTypeError(f"{name}(): argument 'alpha' must be Number, not {type(alpha).__name__}")


_ALPHA_1 = {"alpha": 1}      # the attrs of every add/sub node with the default alpha (nothing writes node attrs)


def _alpha_check(a, b, alpha):
    """PyTorch's alpha_check: a floating alpha cannot scale an integral result."""
    if isinstance(alpha, float) and result_type(a, b).np.kind in "iu":
        raise TorchRuntimeError("For integral input tensors, argument alpha must not be a floating point number.")


def add(a, b, alpha=1):
    if not isinstance(a, TensorBase):                  # 2 + x: PyTorch calls x.__radd__(2) = add(x, 2)
        a, b = b, a
    if type(alpha) is int and alpha == 1:
        return _binary(_ADD, np.add, a, b, None, _ALPHA_1)
    alpha = _alpha("add", alpha)
    _alpha_check(a, b, alpha)
    ufunc = np.add if alpha == 1 else (lambda x, y: x + y * np.asarray(alpha, np.result_type(y)))
    return _binary(_ADD, ufunc, a, b, extra_attrs={"alpha": alpha})


def sub(a, b, alpha=1):
    alpha = _alpha("sub", alpha)
    if not isinstance(a, TensorBase):                  # 2 - x is rsub(x, 2)
        return rsub(b, a, alpha)
    _no_bool_subtraction(a._data.dtype == np.bool_,
                         type(b) is bool or isinstance(b, TensorBase) and b._data.dtype == np.bool_)
    if type(alpha) is int and alpha == 1:
        return _binary(_SUB, np.subtract, a, b, None, _ALPHA_1)
    _alpha_check(a, b, alpha)
    ufunc = np.subtract if alpha == 1 else (lambda x, y: x - y * np.asarray(alpha, np.result_type(y)))
    return _binary(_SUB, ufunc, a, b, extra_attrs={"alpha": alpha})


def _no_bool_subtraction(a, b):
    """PyTorch has no subtraction with a bool tensor (a Python bool counts as one, next to another)."""
    if a and b:
        raise TorchRuntimeError("Subtraction, the `-` operator, with two bool tensors is not supported. "
                                "Use the `^` or `logical_xor()` operator instead.")
    if a or b:
        raise TorchRuntimeError("Subtraction, the `-` operator, with a bool tensor is not supported. If you are "
                                "trying to invert a mask, use the `~` or `logical_not()` operator instead.")


def rsub(t, number, alpha=1):
    _check_operand(number)
    _no_bool_subtraction(type(number) is bool, t._data.dtype == np.bool_)
    seq = _begin(t)
    dt = result_type(t, number)
    with np.errstate(all="ignore"):
        out = np.asarray(np.subtract(_arr(number, dt), _arr(t, dt)), dt.np)
    return _record(TABLE["rsub"], seq, out, (t,), attrs={"alpha": alpha})


def mul(a, b):
    if not isinstance(a, TensorBase):
        a, b = b, a
    return _binary(_MUL, np.multiply, a, b)


_NUMBER_META = {}      # shape -> input_meta of a float32 tensor of that shape and a Python float (bounded)


def _operator_method(row, ufunc, attrs, general):
    """Tensor.__add__ and __radd__, or __mul__ and __rmul__ (`t` is the tensor). A small float32
    tensor with a Python float (`z * 0.5`, `z + 1.`), the commonest op of a small script and
    W1's, runs here in one function; a tensor operand goes straight to _binary; an operand
    the op does not take gives NotImplemented, as Python's protocol wants."""
    def method(t, other):
        if isinstance(t, TensorBase):
            if type(other) is float:
                da = t._data
                c = _CONST32.get(other)
                if c is None or da.dtype is not _F32 or da.size > 65535:
                    return _binary(row, ufunc, t, other, None, attrs)
                out = ufunc(da, c)
                if type(out) is not np.ndarray:         # a 0-d operand gives a NumPy scalar
                    out = np.asarray(out, _F32)
                r = CONFIG.tensor(out)
                if not (t._rg and STATE.grad_enabled):
                    return r
                seq = STATE.seq
                STATE.seq = seq + 1
                fn = t._fn
                if fn is None:
                    fn = t._acc or t._accumulator()
                meta = _NUMBER_META.get(da.shape)
                if meta is None:
                    if len(_NUMBER_META) >= 1024:
                        _NUMBER_META.clear()
                    meta = _NUMBER_META[da.shape] = _input_meta((da.shape, _F32, (), _F32))
                save = row.compact
                if save is None:
                    save = _compact_saver(row)
                r._fn = row.node_class(row, (fn, None), save(out, other) if save else
                                           _save(row.plan, r, (t, other), None),
                                           attrs or _EMPTY, meta, seq)
                r._rg = True
                return r
            if isinstance(other, TensorBase):
                return _binary(row, ufunc, t, other, None, attrs)
        if isinstance(other, np.generic):   # a NumPy scalar is a number to PyTorch's parser
            other = other.item()
        if not (isinstance(other, TensorBase) or isinstance(other, (int, float))):
            return NotImplemented
        return general(t, other)
    method.__name__ = general.__name__ + "_method"
    return method


add_method = _operator_method(_ADD, np.add, _ALPHA_1, add)
mul_method = _operator_method(_MUL, np.multiply, None, mul)


def div(a, b, rounding_mode=None):
    if rounding_mode is not None:
        return floor_divide(a, b) if rounding_mode == "floor" else _trunc_divide(a, b)
    if not isinstance(a, TensorBase):                  # 2 / x is reciprocal(x) * 2: two nodes
        return mul(reciprocal(b), a)
    dt = result_type(a, b)
    if dt.kind != E.FLOAT:
        dt = E.float32
    return _binary(_DIV, np.true_divide, a, b, dt=dt)


def true_div_data(a, b):
    dt = result_type(a, b)
    return np.true_divide(_arr(a, dt), _arr(b, dt))


def _check_shapes(a, b, dt):
    """Broadcasting two operands the way PyTorch does: its error text, and the size limit."""
    sa = a._data.shape if isinstance(a, TensorBase) else ()
    sb = b._data.shape if isinstance(b, TensorBase) else ()
    if sa != sb:
        _check_broadcast(sa, sb, dt.np.itemsize)
    else:
        _check_like(sa, itemsize=dt.np.itemsize)


def floor_divide(a, b):
    _scalar_in_range(a)
    _scalar_in_range(b)
    dt = result_type(a, b)
    _check_shapes(a, b, dt)
    divisor = _integer_divisor(b, dt, "div_floor_cpu")
    with np.errstate(all="ignore"):
        return _nograd(np.asarray(np.floor_divide(_arr(a, dt), divisor), dt.np))


def _trunc_divide(a, b):
    """div(rounding_mode="trunc"): integers stay integers (truncated toward zero)."""
    dt = result_type(a, b)
    if dt.np.kind not in "iub":
        return _nograd(np.trunc(true_div_data(a, b)))
    divisor = _integer_divisor(b, dt, "div_trunc_cpu")
    n = _arr(a, dt)
    with np.errstate(all="ignore"):
        q = np.floor_divide(n, divisor)
        q += (np.remainder(n, divisor) != 0) & ((n < 0) != (divisor < 0))     # floor -> toward zero
    return _nograd(np.asarray(q, dt.np))


def _integer_divisor(b, dt, kernel):
    """The divisor as an array of the op's dtype; an integer division by zero is PyTorch's error,
    and bool has no kernel."""
    if dt.np.kind == "b":
        raise TorchNotImplementedError(f'"{kernel}" not implemented for \'Bool\'')
    d = _arr(b, dt)
    if dt.np.kind in "iu" and not np.all(d):
        raise TorchRuntimeError("ZeroDivisionError")
    return d


def remainder(a, b):
    return _modulo(np.remainder, "remainder_cpu", ("remainder", "remainder_tensor"), a, b)


def _modulo(ufunc, kernel, rows, a, b):
    """remainder and fmod: the row rows[0] for a number divisor, rows[1] for a tensor one."""
    _scalar_in_range(a)
    _scalar_in_range(b)
    dt = result_type(a, b)
    _check_shapes(a, b, dt)
    seq = _begin(a, b) if isinstance(a, TensorBase) else None      # (number % tensor: no node yet)
    divisor = _integer_divisor(b, dt, kernel)
    with np.errstate(all="ignore"):
        out = np.asarray(ufunc(_arr(a, dt), divisor), dt.np)
    if isinstance(b, TensorBase):
        return _record(TABLE[rows[1]], seq, out, (a, b))
    return _record(TABLE[rows[0]], seq, out, (a,))


def _nograd(out):
    return CONFIG.tensor(out)


def neg(t):
    _check_like(t._data.shape)
    seq = _begin(t)
    if t._data.dtype == np.bool_:
        raise TorchRuntimeError("Negation, the `-` operator, on a bool tensor is not supported. If you are "
                                "trying to invert a mask, use the `~` or `logical_not()` operator instead.")
    return _record(TABLE["neg"], seq, np.negative(t._data), (t,))


def _power_vectorized(a, b):
    """pow with a tensor exponent, as PyTorch's vectorized kernel computes it: NumPy's
    float32 power is often an ulp off (0.57735026 ** -2 gives 3.0000002 where PyTorch gives 3.),
    so small float32 arrays are evaluated in float64 and rounded once, as in _rounded. (_power,
    below: the C library's pow where PyTorch's loop calls it.)"""
    if a.dtype == np.float32 and b.dtype == np.float32 and _b.max(a.size, b.size) <= 65536:
        return np.power(a.astype(np.float64), b.astype(np.float64)).astype(np.float32)
    if b.dtype.kind == "i" and a.dtype.kind in "iu" and (b < 0).any():
        # integers to negative powers as PyTorch's powi: 1 stays 1, -1 alternates, the rest are 0
        neg = b < 0
        out = np.power(a, np.where(neg, 0, b))
        flip = np.where((-b) % 2 == 1, -1, 1).astype(out.dtype) if out.dtype.kind == "i" else 1
        return np.where(neg, np.where(a == 1, 1, np.where(a == -1, flip, 0)), out).astype(out.dtype)
    return np.power(a, b)


def pow(a, b):
    if not isinstance(a, TensorBase):                  # number ** tensor
        _check_operand(a)
        _check_like(b._data.shape)
        seq = _begin(b)
        dt = result_type(a, b)
        with np.errstate(all="ignore"):
            out = np.asarray(_power(_arr(a, dt), _arr(b, dt)), dt.np)
        return _record(TABLE["pow_scalar_base"], seq, out, (b,), attrs={"self": a})
    if isinstance(b, TensorBase):
        return _binary(TABLE["pow_tensor"], _power, a, b)
    _check_operand(b)
    dt = result_type(a, b)
    if dt.kind == E.INT and not isinstance(b, bool):
        _scalar_checked(b, dt.np)
        if b < 0:
            raise TorchRuntimeError("Integers to negative integer powers are not allowed.")
    _check_like(a._data.shape, itemsize=dt.np.itemsize)
    seq = _begin(a)
    with np.errstate(all="ignore"):
        if dt.np == np.float64 and b not in _POW_SPECIAL:
            out = _pow_number_exponent(_arr(a, dt), np.asarray(b, np.float64))
        else:
            out = E._np_pow(_arr(a, dt), b)
    return _record(TABLE["pow"], seq, np.asarray(out, dt.np), (a,), attrs={"exponent": b})


def square(t):
    return pow(t, 2)


def _unary(name, fn, float_only=True, refuse=None):
    """The forward of a one-input op. `refuse(array)`: raises for a non-float input PyTorch has no
    kernel for."""
    row = TABLE[name]

    def forward(t):
        if not isinstance(t, TensorBase):
            raise TorchTypeError(f"{name}(): argument 'input' (position 1) must be Tensor, not {type(t).__name__}")
        data = t._data
        dtype = data.dtype                      # (the input's, for input_meta: data may be cast below)
        if data.size > 65535:
            _check_numel(data.size, dtype.itemsize)
        if dtype.kind != "f":
            if refuse is not None:
                refuse(data)
            if float_only:
                data = data.astype(np.float32)
        out = fn(data)
        if type(out) is not np.ndarray:         # a ufunc on a 0-d array gives a NumPy scalar
            out = np.asarray(out)
        r = CONFIG.tensor(out)
        if not (t._rg and STATE.grad_enabled):
            return r
        seq = STATE.seq                         # _record, inlined for one tensor input
        STATE.seq = seq + 1
        edge = t._fn
        if edge is None:
            edge = t._acc or t._accumulator()
        key = (data.shape, dtype)
        save = row.compact
        if save is None:
            save = _compact_saver(row)
        r._fn = row.node_class(row, (edge,), save(out, None) if save else _save(row.plan, r, (t,), None),
                                   _EMPTY, _META.get(key) or _input_meta(key), seq)
        r._rg = True
        return r
    forward.__name__ = name
    return forward


def _sigmoid(a):
    return np.asarray(1 / (1 + np.exp(-a)), a.dtype)


def _rounded(fn, scalar=None):
    """Evaluate in float64 and round once, for small float32 arrays: NumPy's float32 kernels
    can be 1 ulp off the correctly rounded value PyTorch prints (exp(6.) gives 403.42877
    instead of 403.42880). Large arrays keep the fast float32 kernels. A one-element vector
    goes through `scalar` (the math module's float64 function, equal to NumPy's after the
    rounding): a third of the cost of three NumPy calls, which is most of a small op's."""
    def f(a):
        if scalar is not None and a.shape == (1,) and a.dtype is _F32:
            out = np.empty(1, _F32)                     # (then setting the element: the quickest 1-element array)
            try:
                out[0] = scalar(a.item())
                return out
            except (ValueError, OverflowError):         # outside the math domain: NumPy's nan/inf
                pass
        if a.dtype == np.float32 and a.size <= 65536:
            return fn(a.astype(np.float64)).astype(np.float32)
        return fn(a)
    f.__name__ = getattr(fn, "__name__", "f")
    return f


def _no_kernel(kernel, kinds):
    def refuse(a):
        if a.dtype.kind in kinds:
            raise TorchNotImplementedError(f'"{kernel}" not implemented for \'{_SCALAR_NAME[a.dtype.name]}\'')
    return refuse


def _no_bool_relu(a):
    if a.dtype.kind == "b":
        raise TorchRuntimeError("Boolean inputs not supported for relu")


_exp, _log, _sin, _cos, _tanh = map(_rounded, (np.exp, np.log, np.sin, np.cos, np.tanh),
                                    (_math.exp, _math.log, _math.sin, _math.cos, _math.tanh))
exp = _unary("exp", _exp)
log = _unary("log", _log)
sin = _unary("sin", _sin)
cos = _unary("cos", _cos)
tanh = _unary("tanh", _tanh)
sigmoid = _unary("sigmoid", _rounded(_sigmoid))
sqrt = _unary("sqrt", vml.sqrt)         # (MKL's float32 kernel, as PyTorch's)


def _rsqrt(a):
    """1 / sqrt(x) with both steps rounded to the dtype, as PyTorch's kernel: its square root
    here is the correctly rounded one (NumPy's), not MKL's of torch.sqrt."""
    return np.asarray(np.ones((), a.dtype) / np.sqrt(a), a.dtype)


rsqrt = _unary("rsqrt", _rsqrt)
abs = _unary("abs", np.abs, float_only=False, refuse=_no_kernel("abs_cpu", "b"))
# PyTorch keeps x unless x < 0: relu(-0.) is -0. and relu(nan) is nan (np.maximum would give +0.)
relu = _unary("relu", lambda a: np.where(a < 0, np.zeros((), a.dtype), a), float_only=False,
              refuse=_no_bool_relu)
reciprocal = _unary("reciprocal", lambda a: np.asarray(1 / a, a.dtype))
floor = _unary("floor", np.floor, float_only=False, refuse=_no_kernel("floor_vml_cpu", "b"))
ceil = _unary("ceil", np.ceil, float_only=False, refuse=_no_kernel("ceil_vml_cpu", "b"))
round = _unary("round", np.round, float_only=False, refuse=_no_kernel("round_vml_cpu", "b"))   # half to even
trunc = _unary("trunc", np.trunc, float_only=False, refuse=_no_kernel("trunc_vml_cpu", "b"))
sign = _unary("sign", lambda a: a.copy() if a.dtype == np.bool_ else np.sign(a), float_only=False)
frac = _unary("frac", lambda a: a - np.trunc(a), refuse=_no_kernel("frac_cpu", "biu"))

# -- pointwise maths (session 9): float32 results are computed in float64 and rounded once
# (_rounded), within an ulp of PyTorch's vectorized kernels where not equal to them; the elements
# PyTorch computes with the C library are computed with it here too (_with_c_tail, below).


def _each(scalar):
    """A math-module function over an array, in the array's dtype (NumPy has no erf)."""
    each = np.frompyfunc(scalar, 1, 1)

    def f(a):
        return np.asarray(each(a), a.dtype) if a.ndim else np.asarray(scalar(float(a)), a.dtype)
    f.__name__ = scalar.__name__
    return f


def _erfinv_array(a):
    """The inverse error function of a float array, each element rounded once to its dtype."""
    out = np.empty(a.shape, a.dtype)
    for i, y in np.ndenumerate(a):
        out[i] = _erfinv_scalar(float(y))
    return out


def _erfinv_scalar(y):
    if not -1.0 < y < 1.0:
        return _math.copysign(_math.inf, y) if _b.abs(y) == 1.0 else _math.nan
    if y == 0.0:
        return y
    # Winitzki's approximation to start, then Newton's method (on erfc near +-1, where 1 - |y| is exact)
    w = -_math.log((1.0 - y) * (1.0 + y))
    t = 2.0 / (_math.pi * 0.147) - w / 2.0
    x = _math.sqrt(_math.sqrt(t * t + w / 0.147) - t)
    target, tail = (1.0 - _b.abs(y), True) if _b.abs(y) > 0.5 else (_b.abs(y), False)
    for _ in range(50):
        f = (_math.erfc(x) - target) if tail else (_math.erf(x) - target)
        step = f / (2.0 / _math.sqrt(_math.pi) * _math.exp(-x * x)) * (-1.0 if tail else 1.0)
        x -= step
        if _b.abs(step) <= 1e-16 * x:
            break
    return _math.copysign(x, y)


def _sinc_vectorized(a):
    """PyTorch's sinc: sin(pi * x) / (pi * x) with pi * x rounded to the dtype first, 1 at 0."""
    p = a * np.asarray(_math.pi, a.dtype)
    s = _rounded(np.sin)(p) if a.dtype == _F32 else np.sin(p)
    with np.errstate(all="ignore"):
        return np.where(a == 0, np.ones((), a.dtype), s / p)


def _sinc_scalar(dtype, sin, x):
    if x == 0:
        return 1.0
    p = float(dtype.type(x * float(dtype.type(_math.pi))))       # pi * x in the dtype
    return sin(p) / p


_log1p, _expm1, _log2, _log10, _tan, _asin, _acos, _atan = map(
    _rounded, (np.log1p, np.expm1, np.log2, np.log10, np.tan, np.arcsin, np.arccos, np.arctan),
    (_math.log1p, _math.expm1, _math.log2, _math.log10, _math.tan, _math.asin, _math.acos, _math.atan))

# PyTorch's CPU loops run their vectorized kernel on blocks of two vectors (AVX-512: 32 float32s,
# 16 float64s; AVX2: half that) and call the C library's function (glibc's sinhf, sinh, ...) on
# the elements left over; asinh, acosh and sinc have no vectorized kernel. Those C functions are
# not correctly rounded: here too they compute the elements PyTorch gives them, in arrays small
# enough to print.
_BLOCK_BYTES = []
_C_MATH = {}


def _vector_block(dtype):
    """Elements per block of PyTorch's vectorized loop: two vectors of the widest instruction set
    its CPU dispatch picks (AVX-512 when the CPU has F, BW, VL and DQ; else AVX2's 32 bytes)."""
    if not _BLOCK_BYTES:
        try:
            with open("/proc/cpuinfo") as f:
                flags = next((line.split() for line in f if line.startswith("flags")), [])
        except OSError:
            flags = []
        wide = all(f"avx512{x}" in flags for x in ("f", "bw", "vl", "dq"))
        _BLOCK_BYTES.append(2 * (64 if wide else 32))
    return _BLOCK_BYTES[0] // dtype.itemsize


def _c_math(name, arity, dtype):
    """The C math library's `name` for float32 (namef) or float64, or None where there is none."""
    key = (name, dtype)
    if key not in _C_MATH:
        import ctypes
        ctype = ctypes.c_float if dtype == _F32 else ctypes.c_double
        try:
            # (the interpreter's own symbols include the C math library it is linked with: no search,
            # which would run ldconfig)
            f = getattr(ctypes.CDLL(None), name + ("f" if dtype == _F32 else ""))
            f.restype, f.argtypes = ctype, [ctype] * arity
        except (OSError, AttributeError, TypeError):
            f = None
        _C_MATH[key] = f
    return _C_MATH[key]


def _with_c_tail(vectorized, scalar, functions, vectorizes=True):
    """`vectorized(*arrays)`, except on the elements PyTorch's loop leaves to its scalar code:
    there `scalar(dtype, *functions, *numbers)`, with the C library's `functions` ((name, arity)
    pairs) as PyTorch's scalar kernel composes them. Same-shape operands are one loop (so is a
    one-element operand, broadcast); others loop along their last dimension."""
    def f(*arrays):
        out = vectorized(*arrays)
        dtype = np.result_type(*arrays)
        shape = np.shape(out)
        size = out.size if isinstance(out, np.ndarray) else 1
        if dtype not in (_F32, np.float64) or size > 65536 or any(a.dtype != dtype for a in arrays):
            return out
        inner = size if all(a.shape == shape or a.size == 1 for a in arrays) else (shape[-1] if shape else 1)
        kept = inner - inner % _vector_block(dtype) if vectorizes else 0
        cs = [_c_math(name, arity, dtype) for name, arity in functions]
        if kept == inner or None in cs:
            return out
        out = np.array(out, dtype).reshape(-1)
        flat = [np.broadcast_to(a, shape).reshape(-1).tolist() for a in arrays]
        for i in range(size):
            if i % inner >= kept:
                out[i] = scalar(dtype, *cs, *(v[i] for v in flat))
        return out.reshape(shape)
    f.__name__ = getattr(vectorized, "__name__", "f")
    return f


def _c_tail(name, vectorizes=True):
    """A one-input function whose scalar code is the C library's `name`."""
    return lambda vectorized: _with_c_tail(vectorized, lambda dt, c, x: c(x), ((name, 1),), vectorizes)


# pow: a tensor exponent (float32 and float64) and a float64 tensor to a number's power, past the
# exponents PyTorch computes otherwise (x * x, sqrt, ...: engine._np_pow); a float32 tensor to a
# number's power is PyTorch's double pow rounded once, which _np_pow computes
_POW_SPECIAL = (0, 0.5, -0.5, 1, -1, 2, -2, 3)
_power = _with_c_tail(_power_vectorized, lambda dt, c, x, e: c(x, e), (("pow", 2),))
_pow_number_exponent = _with_c_tail(lambda a, e: E._np_pow(a, e.item()), lambda dt, c, x, e: c(x, e), (("pow", 2),))
_sinh, _cosh, _atanh = (_c_tail(name)(_rounded(f)) for f, name in (
    (np.sinh, "sinh"), (np.cosh, "cosh"), (np.arctanh, "atanh")))
_asinh, _acosh = (_c_tail(name, False)(_rounded(f)) for f, name in ((np.arcsinh, "asinh"), (np.arccosh, "acosh")))
_exp2 = _c_tail("exp2")(_rounded(np.exp2))
_sinc = _with_c_tail(_sinc_vectorized, _sinc_scalar, (("sin", 1),), False)
_erf, _erfc = _rounded(_each(_math.erf), _math.erf), _rounded(_each(_math.erfc), _math.erfc)
_erfinv = _rounded(_erfinv_array, _erfinv_scalar)
log1p = _unary("log1p", _log1p)
expm1 = _unary("expm1", _expm1)
log2 = _unary("log2", _log2)
log10 = _unary("log10", _log10)
exp2 = _unary("exp2", _exp2)
tan = _unary("tan", _tan)
asin = _unary("asin", _asin)
acos = _unary("acos", _acos)
atan = _unary("atan", _atan)
sinh = _unary("sinh", _sinh)
cosh = _unary("cosh", _cosh)
asinh = _unary("asinh", _asinh)
acosh = _unary("acosh", _acosh)
atanh = _unary("atanh", _atanh)
# PyTorch has no derivative for the in-place versions (AsinhBackward1, ...: backward raises)
asinh_ = _unary("asinh_", _asinh)
acosh_ = _unary("acosh_", _acosh)
atanh_ = _unary("atanh_", _atanh)
erf = _unary("erf", _erf)
erfc = _unary("erfc", _erfc)
erfinv = _unary("erfinv", _erfinv)
sinc = _unary("sinc", _sinc)
# x * (pi / 180) with the constant rounded to the dtype, as PyTorch multiplies by a Scalar
deg2rad = _unary("deg2rad", lambda a: a * np.asarray(_math.pi / 180.0, a.dtype))
rad2deg = _unary("rad2deg", lambda a: a * np.asarray(180.0 / _math.pi, a.dtype))


def positive(t):
    """+t is t itself (bool has no `+`)."""
    if t._data.dtype == np.bool_:
        raise TorchRuntimeError("The `+` operator, on a bool tensor is not supported.")
    return t


def nan_to_num(t, nan=0.0, posinf=None, neginf=None):
    data = t._data
    _check_like(data.shape)
    if data.dtype.kind != "f":                  # nothing to replace: a copy, no gradient
        return _nograd(data.copy())
    info = np.finfo(data.dtype)
    seq = _begin(t)
    out = np.where(np.isnan(data), np.asarray(nan, data.dtype), data)
    out = np.where(out == np.inf, np.asarray(info.max if posinf is None else posinf, data.dtype), out)
    out = np.where(out == -np.inf, np.asarray(info.min if neginf is None else neginf, data.dtype), out)
    return _record(TABLE["nan_to_num"], seq, out, (t,))


def logit(t, eps=None):
    """log(x / (1 - x)), x clamped to [eps, 1 - eps] first when eps is given (in the dtype)."""
    data = t._data
    _check_like(data.shape)
    x = data if data.dtype.kind == "f" else data.astype(np.float32)
    if eps is not None:
        lo = x.dtype.type(eps)
        hi = x.dtype.type(1) - lo
        x = np.where(x < lo, lo, np.where(x > hi, hi, x))
    seq = _begin(t)
    with np.errstate(all="ignore"):
        out = _log(np.asarray(x / (np.ones((), x.dtype) - x), x.dtype))
    return _record(TABLE["logit"], seq, np.asarray(out, x.dtype), (t,), attrs={"eps": eps})


# -- two operands

def _in_float(a, b):
    """The dtype of an op that computes in floating point: integers and bool give float32."""
    dt = result_type(a, b)
    return dt if dt.kind == E.FLOAT else E.float32


def _float_kernel(kernel, a, b):
    """PyTorch has no integer kernel for these (hypot, logaddexp)."""
    dt = result_type(a, b)
    if dt.np.kind != "f":
        raise TorchNotImplementedError(f'"{kernel}" not implemented for \'{_SCALAR_NAME[dt.np.name]}\'')


def _rounded2(fn):
    """_rounded for a function of two arrays."""
    def f(a, b):
        if a.dtype == _F32 and b.dtype == _F32 and _b.max(a.size, b.size) <= 65536:
            return np.asarray(fn(a.astype(np.float64), b.astype(np.float64))).astype(_F32)
        return fn(a, b)
    f.__name__ = fn.__name__
    return f


_atan2 = _with_c_tail(_rounded2(np.arctan2), lambda dt, c, y, x: c(y, x), (("atan2", 2),))
_hypot = _rounded2(np.hypot)


def atan2(a, b):
    return _binary(TABLE["atan2"], _atan2, a, b, dt=_in_float(a, b))


def hypot(a, b):
    _float_kernel("hypot_cpu", a, b)
    return _binary(TABLE["hypot"], _hypot, a, b)


def fmod(a, b):
    return _modulo(np.fmod, "fmod_cpu", ("fmod", "fmod_tensor"), a, b)


def _xlogy_vectorized(x, y):
    """x * log(y) in the dtype (log rounded once), 0 where x is 0, nan where y is nan."""
    with np.errstate(all="ignore"):
        out = x * _log(y)
    return np.where(np.isnan(y), np.asarray(np.nan, out.dtype), np.where(x == 0, np.zeros((), out.dtype), out))


def _xlogy_scalar(dtype, log, x, y):
    return _math.nan if y != y else 0.0 if x == 0 else x * log(y)


_xlogy = _with_c_tail(_xlogy_vectorized, _xlogy_scalar, (("log", 1),))


def xlogy_data(x, y):
    """xlogy of arrays (or an array and a number), in the op's dtype."""
    kinds = [v.dtype for v in (x, y) if isinstance(v, np.ndarray)]
    dt = np.result_type(*kinds)
    if dt.kind != "f":
        dt = _F32
    return _xlogy(np.asarray(x, dt), np.asarray(y, dt))


def xlogy(a, b):
    dt = _in_float(a, b)
    if isinstance(a, TensorBase) and isinstance(b, TensorBase):
        return _binary(TABLE["xlogy"], _xlogy, a, b, dt=dt)
    _check_shapes(a, b, dt)
    seq = _begin(a, b)
    out = np.asarray(_xlogy(_arr(a, dt), _arr(b, dt)), dt.np)
    if isinstance(a, TensorBase):
        return _record(TABLE["xlogy_scalar_other"], seq, out, (a,), attrs={"other": b})
    return _record(TABLE["xlogy_scalar_self"], seq, out, (b,), attrs={"self": a})


def copysign(a, b):
    dt = _in_float(a, b)
    if isinstance(b, TensorBase):
        return _binary(TABLE["copysign"], np.copysign, a, b, dt=dt)
    _check_shapes(a, b, dt)
    seq = _begin(a)
    return _record(TABLE["copysign_scalar"], seq, np.asarray(np.copysign(_arr(a, dt), _arr(b, dt)), dt.np), (a,))


def _fma(a, b, c):
    """a * b + c rounded once, as PyTorch's kernels that fuse them: float32 through float64, where
    the product is exact; float64 by the C library's fma (long double, less exact, past 65536)."""
    dt = np.result_type(a, b, c)
    if dt == _F32:
        return np.asarray(np.asarray(a, np.float64) * b + c, dt)
    if dt != np.float64:
        return a * b + c
    a, b, c = np.broadcast_arrays(a, b, c)
    fma = _c_math("fma", 3, dt) if a.size <= 65536 else None
    if fma is None:
        return np.asarray(np.asarray(a, np.longdouble) * b + c, dt)
    return np.fromiter(map(fma, a.ravel().tolist(), b.ravel().tolist(), c.ravel().tolist()), dt,
                       a.size).reshape(a.shape)


def _logaddexp_vectorized(a, b):
    """max + log1p(exp(-|a - b|)), each step in the dtype; a where both are the same infinity."""
    with np.errstate(all="ignore"):
        out = np.maximum(a, b) + _log1p(_exp(-np.abs(a - b)))
    return np.where(np.isinf(a) & (a == b), a, out)


def _logaddexp2_vectorized(a, b):
    """log1p(exp2(-|a - b|)) * (1 / ln 2) + max, the last two fused."""
    with np.errstate(all="ignore"):
        out = _fma(_log1p(_exp2(-np.abs(a - b))), np.asarray(1.0 / _math.log(2.0), a.dtype), np.maximum(a, b))
    return np.where(np.isinf(a) & (a == b), a, out)


def _logaddexp_scalar(dtype, exp, log1p, a, b):
    if _math.isinf(a) and a == b:
        return a
    return (b if a < b else a) + log1p(exp(-_b.abs(a - b)))


def _logaddexp2_scalar(dtype, exp2, log1p, fma, a, b):
    if _math.isinf(a) and a == b:
        return a
    return fma(log1p(exp2(-_b.abs(a - b))), float(dtype.type(1.0 / _math.log(2.0))), b if a < b else a)


_logaddexp = _with_c_tail(_logaddexp_vectorized, _logaddexp_scalar, (("exp", 1), ("log1p", 1)))
_logaddexp2 = _with_c_tail(_logaddexp2_vectorized, _logaddexp2_scalar, (("exp2", 1), ("log1p", 1), ("fma", 3)))


def logaddexp(a, b):
    _float_kernel("logaddexp_cpu", a, b)
    return _binary(TABLE["logaddexp"], _logaddexp, a, b)


def logaddexp2(a, b):
    _float_kernel("logaddexp2_cpu", a, b)
    return _binary(TABLE["logaddexp2"], _logaddexp2, a, b)


def fmax(a, b):
    return _binary(TABLE["fmax"], np.fmax, a, b)


def fmin(a, b):
    return _binary(TABLE["fmin"], np.fmin, a, b)


def true_divide(a, b):
    return div(a, b)


def float_power(a, b):
    """pow in float64: the tensor operands are converted first (ToCopyBackward0), a number
    exponent is taken as a float."""
    if isinstance(b, TensorBase):
        b = to_dtype(b, E.float64)
    elif isinstance(b, (int, float)) and not isinstance(b, bool):
        b = float(b)
    if isinstance(a, TensorBase):
        return pow(to_dtype(a, E.float64), b)
    return pow(float(a), b)


def float_power_(t, b):
    """In place, the result is float64: so must the tensor be."""
    if t._data.dtype != np.float64:
        raise TorchRuntimeError(f"the base given to float_power_ has dtype {_SCALAR_NAME[t._data.dtype.name]} but "
                                f"the operation's result requires dtype Double")
    return float_power(t, b)


# -- three operands

_CPP_TYPE = {"float32": "float", "float64": "double", "int64": "long int", "int32": "int", "int16": "short int",
             "int8": "signed char", "uint8": "unsigned char", "bool": "bool"}


def _same_dtype(t, other, name):
    if other._data.dtype != t._data.dtype:
        raise TorchRuntimeError(f"expected dtype {_CPP_TYPE[t._data.dtype.name]} for `{name}` but got dtype "
                                f"{_CPP_TYPE[other._data.dtype.name]}")


def _lerp(start, end, weight):
    """PyTorch's lerp, fused: w * (end - start) + start for |w| < 0.5, else
    (w - 1) * (end - start) + end."""
    diff = end - start
    small = np.abs(weight) < 0.5
    return _fma(np.where(small, weight, weight - np.ones((), diff.dtype)), diff, np.where(small, start, end))


def lerp(t, end, weight):
    _same_dtype(t, end, "end")
    if isinstance(weight, TensorBase):
        if weight._data.ndim:
            _same_dtype(t, weight, "weight")
        _no_kernel("lerp_kernel_tensor", "biu")(t._data)
        _broadcast3(t, end, weight)
        seq = _begin(t, end, weight)
        out = _lerp(t._data, end._data, weight._data.astype(t._data.dtype, copy=False))
        return _record(TABLE["lerp_tensor"], seq, np.asarray(out, t._data.dtype), (t, end, weight))
    _no_kernel("lerp_kernel_scalar", "biu")(t._data)
    _broadcast3(t, end)
    seq = _begin(t, end)
    out = _lerp(t._data, end._data, np.asarray(weight, t._data.dtype))
    return _record(TABLE["lerp"], seq, np.asarray(out, t._data.dtype), (t, end), attrs={"weight": weight})


def _broadcast3(*tensors):
    """The shape of a three-tensor op, PyTorch's error if they do not broadcast (read left to right)."""
    shape = ()
    for t in tensors:
        shape = broadcast_shapes(shape, t._data.shape)
    _check_like(shape)
    return shape


def _value_in(value, dt):
    """addcmul/addcdiv's value as the kernel's dtype reads it (2.5 is 2 for integers)."""
    return np.asarray(int(value) if dt.kind in "iub" else value, dt)


def addcmul(t, tensor1, tensor2, value=1):
    dt = result_type(t, tensor1, tensor2)
    _broadcast3(t, tensor1, tensor2)
    seq = _begin(t, tensor1, tensor2)
    out = _fma(_value_in(value, dt.np) * _arr(tensor1, dt), _arr(tensor2, dt), _arr(t, dt))   # fused, as PyTorch
    return _record(TABLE["addcmul"], seq, np.asarray(out, dt.np), (t, tensor1, tensor2), attrs={"value": value})


W_ADDCDIV_INTEGER = (
    "Integer division with addcdiv is no longer supported, and in a future  release addcdiv will perform a true "
    "division of tensor1 and tensor2. The historic addcdiv behavior can be implemented as (input + value * "
    "torch.trunc(tensor1 / tensor2)).to(input.dtype) for integer inputs and as (input + value * tensor1 / tensor2) "
    "for float inputs. The future addcdiv behavior is just the latter implementation: (input + value * tensor1 / "
    "tensor2), for all dtypes.")


def addcdiv(t, tensor1, tensor2, value=1):
    if tensor1._data.dtype.kind in "iub" and tensor2._data.dtype.kind in "iub":
        raise TorchRuntimeError(W_ADDCDIV_INTEGER)
    dt = result_type(t, tensor1, tensor2)
    _broadcast3(t, tensor1, tensor2)
    seq = _begin(t, tensor1, tensor2)
    with np.errstate(all="ignore"):
        out = _arr(t, dt) + _value_in(value, dt.np) * _arr(tensor1, dt) / _arr(tensor2, dt)
    return _record(TABLE["addcdiv"], seq, np.asarray(out, dt.np), (t, tensor1, tensor2), attrs={"value": value})


def clone(t, memory_format=None):
    if t._data.size > 65535:
        _check_numel(t._data.size, t._data.itemsize)
    out = copy_in_format(t._data, memory_format)     # (first: a format the rank cannot take raises)
    # torch.preserve_format: a dense tensor keeps its strides (a clone of x.t() is not
    # contiguous, so reshaping it copies); any other is cloned contiguous.
    return _record(TABLE["clone"], _begin(t), out, (t,))


def to_dtype(t, dtype):
    dt = dtype.np if isinstance(dtype, E.DType) else np.dtype(dtype)
    if t._data.dtype == dt:
        return t
    _check_like(t._data.shape, itemsize=dt.itemsize)
    seq = _begin(t) if dt.kind == "f" else None
    return _record(TABLE["to_copy"], seq, t._data.astype(dt), (t,))

# ----------------------------------------------------------------------------- selection


def _max_keep(a, b):
    """PyTorch's max as std::max: where a == b it is a (max(-0., 0.) is -0.); nan propagates."""
    return np.where(a == b, a, np.maximum(a, b))


def _min_keep(a, b):
    return np.where(a == b, a, np.minimum(a, b))


def check_bounds(min, max):
    """clamp's bounds as one of its overloads takes them: both tensors or both numbers (a 0-d
    tensor that needs no grad is a number to PyTorch's parser); a mix matches neither."""
    if min is not None and max is not None and isinstance(min, TensorBase) != isinstance(max, TensorBase):
        t = min if isinstance(min, TensorBase) else max
        if t._data.ndim or t.requires_grad:
            raise TorchTypeError("clamp: a tensor and a number as the bounds")
        value = t._data.item()
        return (value, max) if t is min else (min, value)
    return min, max


def clamp(t, min=None, max=None):
    min, max = check_bounds(min, max)
    if min is None and max is None:
        raise TorchRuntimeError("torch.clamp: At least one of 'min' or 'max' must not be None")
    _check_like(t._data.shape, *(v._data.shape for v in (min, max) if isinstance(v, TensorBase)))
    if isinstance(min, TensorBase) or isinstance(max, TensorBase):
        lo = min._data if isinstance(min, TensorBase) else min
        hi = max._data if isinstance(max, TensorBase) else max
        bounds = [v for v in (min, max) if isinstance(v, TensorBase)]
        dt = result_type(t, *bounds).np            # (clamp of an int tensor by a float one is float)
        out = t._data
        if lo is not None:
            out = _max_keep(out, lo)
        if hi is not None:
            out = _min_keep(out, hi)
        seq = _begin(t, *bounds)
        return _record(TABLE["clamp_tensor"], seq, np.asarray(out, dt),
                       (t, min if isinstance(min, TensorBase) else None, max if isinstance(max, TensorBase) else None),
                       extra={"min": min, "max": max})
    dt = result_type(t, *(v for v in (min, max) if v is not None)).np     # an int tensor by a float is float
    out = t._data.astype(dt, copy=False)
    if min is not None:
        out = _max_keep(out, dt.type(_scalar_checked(min, dt)))
    if max is not None:
        out = _min_keep(out, dt.type(_scalar_checked(max, dt)))
    seq = _begin(t)
    return _record(TABLE["clamp"], seq, np.asarray(out, dt), (t,), attrs={"max": max, "min": min})


def clamp_min(t, min):
    if isinstance(min, TensorBase):
        return _clamp_one(t, min, _max_keep, "clamp_min_tensor")
    _check_like(t._data.shape)
    dt = result_type(t, min).np
    seq = _begin(t)
    return _record(TABLE["clamp_min"], seq, _max_keep(t._data.astype(dt, copy=False), dt.type(_scalar_checked(min, dt))), (t,), attrs={"min": min})


def clamp_max(t, max):
    if isinstance(max, TensorBase):
        return _clamp_one(t, max, _min_keep, "clamp_max_tensor")
    _check_like(t._data.shape)
    dt = result_type(t, max).np
    seq = _begin(t)
    return _record(TABLE["clamp_max"], seq, _min_keep(t._data.astype(dt, copy=False), dt.type(_scalar_checked(max, dt))), (t,), attrs={"max": max})


def _clamp_one(t, bound, keep, row):
    """clamp_min/clamp_max with a tensor bound (ClampMinBackward1, ClampMaxBackward1)."""
    _check_like(t._data.shape, bound._data.shape)
    out = np.asarray(keep(t._data, bound._data), t._data.dtype)
    seq = _begin(t, bound)
    return _record(TABLE[row], seq, out, (t, bound))


W_WHERE_UINT8 = ("where received a uint8 condition tensor. This behavior is deprecated and will be removed in a "
                 "future version of PyTorch. Use a boolean condition instead. (Triggered internally at "
                 "/__w/pytorch/pytorch/aten/src/ATen/native/TensorCompare.cpp:621.)")


def where(condition, input, other):
    cond = condition._data if isinstance(condition, TensorBase) else np.asarray(condition)
    dt = result_type(input, other)
    seq = _begin(input, other)
    if cond.dtype == np.uint8:
        E.warn_once(W_WHERE_UINT8)
        cond = cond.astype(np.bool_)
    if cond.dtype != np.bool_:
        raise TorchRuntimeError(f"where expected condition to be a boolean tensor, but got a tensor with dtype "
                                f"{_SCALAR_NAME[cond.dtype.name]}")
    shape = cond.shape                      # broadcast condition, input, other in that order
    for v in (input, other):
        shape = broadcast_shapes(shape, v._data.shape if isinstance(v, TensorBase) else ())
    _check_numel(_numel(shape), dt.np.itemsize)
    out = np.where(cond, _arr(input, dt), _arr(other, dt)).astype(dt.np, copy=False)
    cond_t = condition if isinstance(condition, TensorBase) else CONFIG.tensor(cond)
    return _record(TABLE["where"], seq, out, (input, other), extra={"condition": cond_t})


def maximum(a, b):
    return _binary(TABLE["maximum"], _max_keep, a, b)


def minimum(a, b):
    return _binary(TABLE["minimum"], _min_keep, a, b)


def _sub_scalar(t, s):
    seq = _begin(t)
    return _record(TABLE["sub_scalar"], seq, t._data - np.asarray(s, t._data.dtype), (t,))


def mul_scalar(a, s):
    seq = _begin(a)
    return _record(TABLE["mul_scalar"], seq, a._data * np.asarray(s, a._data.dtype), (a,), attrs={"other": s})


def div_scalar(a, s):
    seq = _begin(a)
    return _record(TABLE["div_scalar"], seq, a._data / np.asarray(s, a._data.dtype), (a,), attrs={"other": s})
