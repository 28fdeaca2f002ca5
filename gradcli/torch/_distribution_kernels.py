"""The distribution kernels of ATen's CPU backend, bit for bit, for gradcli.torch's random
factories and in-place methods (rand, randn, uniform_, normal_, random_, bernoulli, ...).

Every kernel draws its 32-bit words from the generator (random.py) in the order PyTorch's
serial loops do, so that any sequence of calls leaves the stream where PyTorch leaves it; the
arithmetic on the words is done on whole arrays with NumPy, in the precision PyTorch uses
(FMAs where its compiled kernels fuse, the C library's functions where it calls them).
"""
from __future__ import annotations

import math
import os

import numpy as np

from .. import engine as _E
from ..engine import TorchNotImplementedError, TorchRuntimeError
from ..ops import _C_NAME, _SCALAR_NAME, op, sorting

# ----------------------------------------------------------------------------- arithmetic helpers

_f32, _f64 = np.float32, np.float64
_LOW29, _TIE29 = np.uint64(0x1FFFFFFF), np.uint64(0x10000000)


def _fma(a, b, c):
    """a * b + c rounded once (the FMA instructions PyTorch's compiled kernels use), for a
    float32 or float64 array a; b and c are scalars or arrays of its dtype. float32 is exact
    (the sum in float64, a tie fixed by its error term); float64 uses Dekker's product and a
    compensated sum, which can differ from a true FMA only when that sum's last rounding
    is itself a tie."""
    if a.dtype == np.float32:
        s = a.astype(_f64) * b + c                 # a * b is exact in float64, the sum rounds once
        r = s.astype(_f32)
        tie = (s.view(np.uint64) & _LOW29) == _TIE29
        if np.count_nonzero(tie):                  # s is a float32 midpoint: round by what the sum lost
            i = np.nonzero(tie)
            p = a[i].astype(_f64) * (b[i] if np.ndim(b) else b)
            ci = (c[i] if np.ndim(c) else np.full(p.shape, c)).astype(_f64)
            si = s[i]
            bb = si - p
            err = (p - (si - bb)) + (ci - bb)
            ri = r[i]
            ri = np.where((err > 0) & (ri < si), np.nextafter(ri, _f32(np.inf)), ri)
            r[i] = np.where((err < 0) & (ri > si), np.nextafter(ri, _f32(-np.inf)), ri)
        return r
    hi, lo = _two_prod(a, _f64(b))
    s = hi + c
    bb = s - hi
    err = (hi - (s - bb)) + (c - bb)
    return s + (err + lo)


def _two_prod(a, b):
    """Dekker's exact product: hi + lo == a * b."""
    def split(x):
        t = x * 134217729.0
        h = t - (t - x)
        return h, x - h
    hi = a * b
    ah, al = split(a)
    bh, bl = split(np.asarray(b, _f64))
    lo = ((ah * bh - hi) + ah * bl + al * bh) + al * bl
    return hi, lo


def _cast(v, dtype):
    """static_cast<scalar_t>: c10::Half is made from a float, so a double or an int64 reaches
    half precision through float32 (two roundings)."""
    if dtype == np.float16:
        return v.astype(_f32).astype(dtype)
    return v.astype(dtype)


def _libm(fn, x):
    """A C library function on each element of a float64 array (the functions PyTorch's
    scalar kernels call: NumPy's own vectorised versions differ in the last bit)."""
    return np.fromiter(map(fn, x.tolist()), _f64, x.size)

# ----------------------------------------------------------------------------- distributions
# Each returns the n values of a kernel in the order the kernel writes them (TensorIterator's).

_DIGITS = {np.dtype(np.float32): 24, np.dtype(np.float64): 53, np.dtype(np.float16): 11}


def _uniform01(gen, n, dtype):
    """uniform_real_distribution<T>(0, 1)'s x: the low `digits` bits of one draw (random64 for
    double, random for the others) times 2**-digits, in T's accumulate type."""
    if dtype == np.float64:
        return (gen._random64(n) & np.uint64((1 << 53) - 1)).astype(_f64) * 2.0 ** -53
    digits = _DIGITS[dtype]
    return (gen._random(n) & np.uint32((1 << digits) - 1)).astype(_f32) * _f32(2.0 ** -digits)


def _uniform(gen, n, dtype, low, high):
    """uniform_kernel: from + x * (to - from), with from and to cast to the tensor's dtype;
    float32 and half precision draw in float32 and turn a result that rounds to `to` into
    `from` (to stay in [from, to))."""
    if dtype == np.float64:
        lo, hi = _f64(low), _f64(high)
        return _fma(_uniform01(gen, n, dtype), hi - lo, lo)
    lo, hi = _f32(dtype.type(low)), _f32(dtype.type(high))
    x = _uniform01(gen, n, np.dtype(np.float32))
    r = (x if lo == 0 and hi == 1 else _fma(x, hi - lo, lo)).astype(dtype, copy=False)    # x * 1 + 0 is x
    r[r == dtype.type(high)] = dtype.type(low)
    return r


def _normal_pairs(u1, u2):
    """normal_distribution's Box-Muller on uniform doubles: r*cos(theta), r*sin(theta)."""
    r = np.sqrt(-2.0 * _libm(math.log1p, -u2))
    theta = 2.0 * math.pi * u1
    return r * _libm(math.cos, theta), r * _libm(math.sin, theta)


def _normal_serial(gen, n, mean, std):
    """normal_distribution<double>, one element at a time: each pair of uniforms gives two
    samples; the second is cached in the generator for the next element (or call)."""
    out = np.empty(n, _f64)
    i = 0
    if n and gen._next_double is not None:
        out[0] = gen._next_double
        gen._next_double = None
        i = 1
    m = n - i
    if m:
        k = (m + 1) // 2
        u = _uniform01(gen, 2 * k, np.dtype(np.float64))
        c, s = _normal_pairs(u[0::2], u[1::2])
        vals = np.empty(2 * k, _f64)
        vals[0::2], vals[1::2] = c, s
        out[i:] = vals[:m]
        if m % 2:
            gen._next_double = float(s[-1])
    return _fma(out, std, mean)


def _normal_fill_16(blocks, mean, std):
    """normal_fill_16 on rows of 16 uniforms (double, with the C library's log, cos, sin)."""
    u1, u2 = 1.0 - blocks[:, :8].ravel(), blocks[:, 8:].ravel()
    radius = np.sqrt(-2.0 * _libm(math.log, u1))
    theta = 2.0 * math.pi * u2
    out = np.empty_like(blocks)
    out[:, :8] = _fma(radius * _libm(math.cos, theta), std, mean).reshape(-1, 8)
    out[:, 8:] = _fma(radius * _libm(math.sin, theta), std, mean).reshape(-1, 8)
    return out


def _normal_fill(gen, n, dtype, mean, std, transform):
    """normal_fill: n uniforms, transformed 16 at a time; a last partial block is redone
    from 16 fresh uniforms written over the tensor's last 16 elements."""
    data = _uniform01(gen, n, dtype)
    full = n // 16 * 16
    blocks = data if n == full else np.concatenate([data[:full], _uniform01(gen, 16, dtype)])
    out = transform(blocks.reshape(-1, 16), mean, std).ravel()
    data[:full] = out[:full]
    if n % 16:
        data[n - 16:] = out[full:]
    return data


def _normal(gen, n, dtype, mean, std, contiguous=True):
    """normal_kernel: contiguous tensors of 16 or more elements take normal_fill (float32 with
    the AVX2 kernel where PyTorch runs it, else the portable one; half precision block by
    block), the others the serial normal_distribution<double>."""
    if n >= 16 and contiguous:
        if dtype == np.float64:
            return _normal_fill(gen, n, dtype, _f64(mean), _f64(std), _normal_fill_16)
        if dtype == np.float32:
            transform = _normal_fill_16_avx2 if _avx2() else _normal_fill_16_libm
            return _normal_fill(gen, n, dtype, _f32(mean), _f32(std), transform)
        return _normal_fill_half(gen, n, dtype, mean, std)
    return _cast(_normal_serial(gen, n, mean, std), dtype)


def _avx2():
    """Whether PyTorch runs its AVX2 (or AVX512) kernels here: x86 with AVX2 and FMA, unless
    ATEN_CPU_CAPABILITY=default asks for the portable ones."""
    if not _AVX2:
        try:
            from numpy._core._multiarray_umath import __cpu_features__ as cpu
        except ImportError:                       # NumPy 1.x
            from numpy.core._multiarray_umath import __cpu_features__ as cpu
        _AVX2.append(os.environ.get("ATEN_CPU_CAPABILITY", "").lower() != "default"
                     and cpu.get("AVX2", False) and cpu.get("FMA3", False))
    return _AVX2[0]


_AVX2 = []
_LIBM = []


def _libmf(name, x):
    """The C library's float32 function `name` (logf, cosf, sinf) on each element: PyTorch's
    portable kernels call them, and no NumPy function rounds as they do."""
    if not _LIBM:
        import ctypes
        lib = ctypes.CDLL(None)
        for f in ("logf", "cosf", "sinf"):
            getattr(lib, f).restype, getattr(lib, f).argtypes = ctypes.c_float, (ctypes.c_float,)
        _LIBM.append(lib)
    return np.fromiter(map(getattr(_LIBM[0], name), x.tolist()), _f32, x.size)


def _normal_fill_16_libm(blocks, mean, std):
    """normal_fill_16 of the portable float kernel: float32 with the C library's logf, cosf
    and sinf."""
    u1, u2 = (_ONE - blocks[:, :8]).ravel(), blocks[:, 8:].ravel().astype(_f64)
    radius = np.sqrt(_f32(-2) * _libmf("logf", u1))
    theta = (2.0 * math.pi * u2).astype(_f32)
    out = np.empty_like(blocks)
    out[:, :8] = _fma(radius * _libmf("cosf", theta), std, mean).reshape(-1, 8)
    out[:, 8:] = _fma(radius * _libmf("sinf", theta), std, mean).reshape(-1, 8)
    return out


def _normal_fill_half(gen, n, dtype, mean, std):
    """normal_fill for half precision: 16 float32 uniforms per block, drawn block by block
    (the last, partial block from 16 more), transformed as float32 is, then rounded."""
    transform = _normal_fill_16_avx2 if _avx2() else _normal_fill_16_libm
    full = n // 16
    blocks = _uniform01(gen, (full + (n % 16 > 0)) * 16, np.dtype(np.float32)).reshape(-1, 16)
    vals = transform(blocks, _f32(mean), _f32(std)).ravel()
    out = np.empty(n, dtype)
    out[:full * 16] = vals[:full * 16]
    if n % 16:
        out[n - 16:] = vals[full * 16:]
    return out


# -- avx_mathfun's log256_ps and sincos256_ps (Cephes polynomials in float32), as PyTorch's
# AVX2 normal_fill_16 uses them


_LOG_P = [_f32(v) for v in (7.0376836292E-2, -1.1514610310E-1, 1.1676998740E-1, -1.2420140846E-1,
                          1.4249322787E-1, -1.6668057665E-1, 2.0000714765E-1, -2.4999993993E-1,
                          3.3333331174E-1)]
_LOG_Q1, _LOG_Q2, _SQRTHF = _f32(-2.12194440e-4), _f32(0.693359375), _f32(0.707106781186547524)
_DP = (_f32(-0.78515625), _f32(-2.4187564849853515625e-4), _f32(-3.77489497744594108e-8))
_SINCOF = (_f32(-1.9515295891E-4), _f32(8.3321608736E-3), _f32(-1.6666654611E-1))
_COSCOF = (_f32(2.443315711809948E-005), _f32(-1.388731625493765E-003), _f32(4.166664568298827E-002))
_FOPI = _f32(1.27323954473516)
_HALF, _ONE = _f32(0.5), _f32(1.0)


def _log256(x):
    """log256_ps for x in (0, 1]; _fma wherever the compiler fuses a product into the add
    that follows it."""
    bits = x.view(np.uint32)
    e = ((bits >> np.uint32(23)).astype(np.int32) - 127).astype(_f32) + _ONE
    x = ((bits & np.uint32(0x807FFFFF)) | np.uint32(0x3F000000)).view(_f32)
    mask = x < _SQRTHF
    tmp = np.where(mask, x, _f32(0))
    x = x - _ONE
    e = e - np.where(mask, _ONE, _f32(0))
    x = x + tmp
    z = x * x
    y = np.full_like(x, _LOG_P[0])
    for p in _LOG_P[1:]:
        y = _fma(y, x, p)
    y = y * x
    y = _fma(y, z, e * _LOG_Q1)
    y = y - z * _HALF
    return _fma(e, _LOG_Q2, x + y)


def _sincos256(x):
    """sincos256_ps for x >= 0 (here 2*pi*u), fused as in _log256: (sin x, cos x)."""
    j = ((x * _FOPI).astype(np.int32) + 1) & ~1
    y = j.astype(_f32)
    x = _fma(y, _DP[0], x)
    x = _fma(y, _DP[1], x)
    x = _fma(y, _DP[2], x)
    sin_neg = (j & 4) != 0
    cos_neg = ((j - 2) & 4) == 0
    poly = (j & 2) == 0
    z = x * x
    yc = _fma(_fma(np.full_like(z, _COSCOF[0]), z, _COSCOF[1]), z, _COSCOF[2])
    yc = _fma(yc * z, z, -(z * _HALF))
    yc = yc + _ONE
    ys = _fma(_fma(np.full_like(z, _SINCOF[0]), z, _SINCOF[1]), z, _SINCOF[2])
    ys = ys * z
    ys = _fma(ys, x, x)
    s = np.where(poly, ys, yc)
    c = np.where(poly, yc, ys)
    return np.where(sin_neg, -s, s), np.where(cos_neg, -c, c)


_TWO_PI_F = _f32(2.0 * math.pi)


def _normal_fill_16_avx2(blocks, mean, std):
    """normal_fill_16_AVX2 on rows of 16 float32 uniforms."""
    u1, u2 = _ONE - blocks[:, :8], blocks[:, 8:]
    radius = np.sqrt(_f32(-2.0) * _log256(u1))
    s, c = _sincos256(_TWO_PI_F * u2)
    out = np.empty_like(blocks)
    out[:, :8] = _fma(radius * c, std, mean)
    out[:, 8:] = _fma(radius * s, std, mean)
    return out

# ----------------------------------------------------------------------------- the ops' checks


def _cfmt(x):
    """A double as C++'s ostream prints it in PyTorch's messages (6 significant digits)."""
    return "%g" % x


def _check_float(dtype, kernel):
    if dtype.kind != "f":
        raise TorchNotImplementedError(f'"{kernel}" not implemented for \'{_SCALAR_NAME[dtype.name]}\'')


def _meta_name(dtype):
    """The dtype as PyTorch's messages print a TypeMeta: float, double, long int, ..."""
    return _C_NAME[dtype.name]


def uniform_values(gen, n, dtype, low, high):
    """uniform_impl_: the bounds checks, then the kernel."""
    _check_float(dtype, "check_uniform_bounds")
    low, high = float(low), float(high)
    fmax = float(np.finfo(dtype).max)
    if not -fmax <= low <= fmax:
        raise TorchRuntimeError(f"from is out of bounds for {_meta_name(dtype)}")
    if not -fmax <= high <= fmax:
        raise TorchRuntimeError(f"to is out of bounds for {_meta_name(dtype)}")
    if not low <= high:
        raise TorchRuntimeError(f"uniform_ expects to return a [from, to) range, but found from={_cfmt(low)} > "
                                f"to={_cfmt(high)}")
    if not high - low <= fmax:
        raise TorchRuntimeError(f"uniform_ expects to-from <= std::numeric_limits<{_SCALAR_NAME[dtype.name]}>::max(), "
                                f"but found to={_cfmt(high)} and from={_cfmt(low)} which result in to-from to exceed "
                                f"the limit")
    if not n:
        return np.empty(0, dtype)
    return _uniform(gen, n, dtype, low, high)


def normal_values(gen, n, dtype, mean, std, contiguous=True):
    """normal_impl_: std's check, then the kernel."""
    mean, std = float(mean), float(std)
    if not std >= 0.0:
        raise TorchRuntimeError(f"normal expects std >= 0.0, but found std {_cfmt(std)}")
    if not n:
        return np.empty(0, dtype)
    _check_float(dtype, "normal_kernel_cpu")
    return _normal(gen, n, dtype, mean, std, contiguous)


_INT64_MIN, _INT64_MAX = -(1 << 63), (1 << 63) - 1
_RANDOM64_TYPES = (np.dtype(np.int64), np.dtype(np.float64), np.dtype(np.float32))


def _random_from_to(gen, n, dtype, span, base):
    """uniform_int_from_to_distribution: (draw % span) + base in uint64 arithmetic, cast to
    int64 and then to the dtype; 64-bit draws for spans of 2**28 and more."""
    if span >= 1 << 28:
        v = gen._random64(n)
    else:
        v = gen._random(n).astype(np.uint64)
    v = v % np.uint64(span) + np.uint64(base & 0xFFFFFFFFFFFFFFFF)
    return _cast(v.view(np.int64), dtype)


def _int_limits(dtype):
    if dtype == np.bool_:
        return 0, 1
    info = np.iinfo(dtype)
    return int(info.min), int(info.max)


def _through(dtype, v):
    """static_cast<int64_t>(static_cast<scalar_t>(v)): x86 turns an infinity into INT64_MIN."""
    f = float(np.array(v, np.int64).astype(dtype))
    return int(f) if math.isfinite(f) and -2.0 ** 63 <= f < 2.0 ** 63 else _INT64_MIN


def _update_from(dtype, frm):
    """update_from: move `from` up to the first integer the dtype holds that stays >= from."""
    plus1 = _through(dtype, frm + 1)
    if plus1 < frm:
        n = abs(frm + 1).bit_length() - 1
        frm = plus1 + (1 << (n - _DIGITS[dtype] + 1))
    return frm


def _update_to(dtype, to):
    minus1 = _through(dtype, to - 1)
    if minus1 >= to:
        n = abs(to - 1).bit_length() - 1
        to = minus1 - (1 << (n - _DIGITS[dtype] + 1))
    return to


def _check_from_to_in_range(frm, to_inc, dtype):
    name = _meta_name(dtype)
    if dtype.kind == "f":
        fmax = float(np.finfo(dtype).max)
        if not -fmax <= frm <= fmax:
            raise TorchRuntimeError(f"from is out of bounds for {name}")
        if not -fmax <= to_inc <= fmax:
            raise TorchRuntimeError(f"to - 1 is out of bounds for {name}")
        digits = _DIGITS[dtype]
        for var, what in ((frm, "from"), (to_inc, "to - 1")):
            if var < -(1 << digits) or var > 1 << digits:
                _E.STATE.warn(f"{what} is out of bounds [-(2^{digits}), 2^{digits}]. Due to precision limitations "
                              f"{name} can support discrete uniform distribution only within this range. This warning "
                              f"will become an error in version 1.7 release, please fix the code in advance")
        return
    lo, hi = _int_limits(dtype)
    if not lo <= frm <= hi:
        raise TorchRuntimeError(f"from is out of bounds for {name}")
    if not lo <= to_inc <= hi:
        raise TorchRuntimeError(f"to - 1 is out of bounds for {name}")



def random_from_to_values(gen, n, dtype, frm, to):
    """random_from_to_impl: random_(from, to) and random_(from) (to=None: up to the dtype's
    largest integer), with PyTorch's checks and its adjustment of float bounds."""
    if to is not None:
        if not frm < to:
            raise TorchRuntimeError(f"random_ expects 'from' to be less than 'to', but got from={frm} >= to={to}")
        if dtype.kind == "f":
            frm, to = _update_from(dtype, frm), _update_to(dtype, to)
            if not frm < to:
                raise TorchRuntimeError(f"random_ expects 'from' casted to dtype to be less than 'to' casted to "
                                        f"dtype, but got from={frm} >= to={to}")
        _check_from_to_in_range(frm, to - 1, dtype)
        return _random_from_to(gen, n, dtype, to - frm, frm) if n else np.empty(0, dtype)
    if frm == _INT64_MIN:
        if not n:
            return np.empty(0, dtype)
        if dtype.kind == "b" or dtype == np.float16:
                    raise TorchNotImplementedError(f'"random_full_64_bits_range_kernel_cpu" not implemented for '
                                           f'\'{_SCALAR_NAME[dtype.name]}\'')
        if dtype not in _RANDOM64_TYPES:
            raise TorchRuntimeError("random_full_64_bits_range_kernel_cpu handles only int64, double, float and "
                                    "bfloat16")
        return _cast(gen._random64(n).view(np.int64), dtype)
    if dtype.kind == "f":
        to_inc = min(1 << _DIGITS[dtype], _INT64_MAX)
        frm = _update_from(dtype, frm)
        if not frm < to_inc:
            raise TorchRuntimeError(f"random_ expects 'from' casted to dtype to be less than or equal to 'to_inc' "
                                    f"casted to dtype, but got from={frm} > to_inc={to_inc}")
    else:
        to_inc = _int_limits(dtype)[1]
    _check_from_to_in_range(frm, to_inc, dtype)
    return _random_from_to(gen, n, dtype, to_inc - frm + 1, frm) if n else np.empty(0, dtype)


def random_values(gen, n, dtype):
    """uniform_int_distribution: random_() with no bounds, [0, 2**digits] for floats and
    [0, max] for integers (a bool takes the low bit)."""
    if not n:
        return np.empty(0, dtype)
    if dtype in (np.dtype(np.float64), np.dtype(np.int64)):
        v = gen._random64(n)
    else:
        v = gen._random(n).astype(np.uint64)
    if dtype == np.bool_:
        return (v & np.uint64(1)).astype(np.bool_)
    if dtype.kind == "f":
        modulus = (1 << _DIGITS[dtype]) + 1
    else:
        modulus = _int_limits(dtype)[1] + 1
    return (v % np.uint64(modulus)).astype(dtype)


def _uniform_double(gen, n):
    return _uniform01(gen, n, np.dtype(np.float64))


def bernoulli_scalar_values(gen, n, dtype, p):
    """bernoulli_(p) with p a number: bernoulli_distribution<double>, u < p on a double draw."""
    p = float(p)
    if not 0 <= p <= 1:
        raise TorchRuntimeError(f"bernoulli_ expects p to be in [0, 1], but got p={_cfmt(p)}")
    if not n:
        return np.empty(0, dtype)
    return (_uniform_double(gen, n) < p).astype(dtype)


_P_RANGE = ("Expected p_in >= 0 && p_in <= 1 to be true, but got false.  (Could this error message be improved?  "
            "If so, please report an enhancement request to PyTorch.)")


def bernoulli_tensor_values(gen, dtype, p):
    """bernoulli_(p) with p a tensor (already expanded to the output, in iteration order): a
    double p draws a double, any other float p a float (24-bit) draw; a p outside [0, 1]
    stops the loop at that element."""
    if p.dtype.kind != "f":
        raise TorchNotImplementedError(f'"bernoulli_tensor_cpu_p_" not implemented for \'{_SCALAR_NAME[p.dtype.name]}\'')
    bad = ~((p >= 0) & (p <= 1))
    if bad.any():
        k = int(np.argmax(bad))
        (_uniform_double if p.dtype == np.float64 else lambda g, n: g._random(n))(gen, k)
        raise TorchRuntimeError(_P_RANGE)
    if p.dtype == np.float64:
        return (_uniform_double(gen, p.size) < p).astype(dtype)
    u = _uniform01(gen, p.size, np.dtype(np.float32))
    return (u < p.astype(np.float32)).astype(dtype)


def _check_continuous(dtype, what, name):
    if dtype.kind != "f":
        raise TorchRuntimeError(f"{what} distribution is a continuous probability distribution. dtype must be a "
                                f"floating point but you specified {name}")


def exponential_values(gen, n, dtype, lambd):
    """exponential_distribution<double>: -1/lambda * log1p(-u)."""
    lambd = float(lambd)
    if not lambd > 0.0:
        raise TorchRuntimeError(f"exponential_ expects lambda > 0.0, but found lambda={_cfmt(lambd)}")
    if not n:
        return np.empty(0, dtype)
    _check_continuous(dtype, "Exponential", _SCALAR_NAME[dtype.name])
    return _cast((-1.0 / lambd) * _libm(math.log1p, -_uniform_double(gen, n)), dtype)


def cauchy_values(gen, n, dtype, median, sigma):
    """cauchy_distribution<double>: median + sigma * tan(pi * (u - 0.5))."""
    median, sigma = float(median), float(sigma)
    if not sigma > 0.0:
        raise TorchRuntimeError(f"cauchy_ expects sigma > 0.0, but found sigma={_cfmt(sigma)}")
    _check_continuous(dtype, "Cauchy", _meta_name(dtype))
    if not n:
        return np.empty(0, dtype)
    t = _libm(math.tan, math.pi * (_uniform_double(gen, n) - 0.5))
    return _cast(_fma(t, sigma, median), dtype)


def log_normal_values(gen, n, dtype, mean, std):
    """lognormal_distribution<double>: exp of the serial normal samples (sharing their cache)."""
    mean, std = float(mean), float(std)
    if not std > 0.0:
        raise TorchRuntimeError(f"log_normal_ expects std > 0.0, but found std={_cfmt(std)}")
    if not n:
        return np.empty(0, dtype)
    _check_float(dtype, "log_normal_cpu")
    return _cast(_libm(_exp, _normal_serial(gen, n, mean, std)), dtype)


def _exp(x):
    """C's exp: inf past the largest double (math.exp raises there)."""
    try:
        return math.exp(x)
    except OverflowError:
        return math.inf


def geometric_values(gen, n, dtype, p):
    """geometric_distribution<double>: ceil(log(u) / log(1 - p))."""
    p = float(p)
    if not 0 < p < 1:
        raise TorchRuntimeError(f"geometric_ expects p to be in (0, 1), but got p={_cfmt(p)}")
    if not n:
        return np.empty(0, dtype)
    if dtype.kind == "b":
        raise TorchNotImplementedError('"geometric_cpu" not implemented for \'Bool\'')
    u = _uniform_double(gen, n)
    with np.errstate(divide="ignore"):
        v = np.ceil(_libm(_log, u) / math.log(1.0 - p))
    return _cast_double(v, dtype)


def _log(x):
    return math.log(x) if x > 0 else -math.inf


def _cast_double(v, dtype):
    """static_cast<scalar_t>(double): out-of-range and infinite values to an integer type
    give what x86's conversion gives (INT64_MIN's bits, truncated)."""
    if dtype.kind == "f":
        return _cast(v, dtype)
    if dtype == np.bool_:
        return v != 0
    bad = ~np.isfinite(v) | (v >= 2.0 ** 63) | (v < -2.0 ** 63)
    i = np.where(bad, 0, v).astype(np.int64)
    i[bad] = _INT64_MIN
    return i.astype(dtype)


def randperm_values(gen, n, dtype):
    """randperm_cpu: Fisher-Yates from the front, one 32-bit draw per position; from
    2**32 / 20 elements on, the inside-out variant with 64-bit draws."""
    if dtype.kind == "b":
        raise TorchNotImplementedError('"randperm" not implemented for \'Bool\'')
    if dtype.kind == "f" and n > (1 << _DIGITS[dtype]) + 1:
        limit = {11: "2049", 24: "2^24+1", 53: "2^53+1"}[_DIGITS[dtype]]
        raise TorchRuntimeError(f"n cannot be greater than {limit} for {_SCALAR_NAME[dtype.name]} type.")
    if dtype.kind in "iu" and n - 1 > _int_limits(dtype)[1]:
        raise TorchRuntimeError(f"value cannot be converted to type {_CPP_INT[dtype.name]} without overflow")
    if n >= 0xFFFFFFFF // 20:
        z = (gen._random64(n) % np.arange(1, n + 1, dtype=np.uint64)).tolist()
        perm = [0] * n
        for i, k in enumerate(z):
            perm[i] = perm[k]
            perm[k] = i
        return np.array(perm, np.int64).astype(dtype)
    if n < 2:
        return np.arange(n).astype(dtype)
    z = (gen._random(n - 1) % np.arange(n, 1, -1, dtype=np.uint32)).tolist()
    perm = list(range(n))
    for i, k in enumerate(z):
        j = i + k
        perm[i], perm[j] = perm[j], perm[i]
    return np.array(perm, np.int64).astype(dtype)


_CPP_INT = {"uint8": "uint8_t", "int8": "int8_t", "int16": "int16_t", "int32": "int32_t", "int64": "int64_t"}


def multinomial_values(gen, probs, n_sample, replacement):
    """multinomial_out on CPU: without replacement (or for one sample) the exponential trick,
    argmax / topk of p / q with q ~ Exp(1); with replacement a binary search of each double
    draw in the row's normalised cumulative sums."""
    if probs.ndim not in (1, 2):
        raise TorchRuntimeError("prob_dist must be 1 or 2 dim")
    if probs.dtype.kind != "f":
        raise TorchRuntimeError(f"multinomial only supports floating-point dtypes for input, got: "
                                f"{_SCALAR_NAME[probs.dtype.name]}")
    if not n_sample > 0:
        raise TorchRuntimeError("cannot sample n_sample <= 0 samples")
    n_cat = probs.shape[-1]
    if not (replacement or n_sample <= n_cat):
        raise TorchRuntimeError("cannot sample n_sample > prob_dist.size(-1) samples without replacement")
    if n_cat > 1 << 24:
        raise TorchRuntimeError("number of categories cannot exceed 2^24")
    shape = probs.shape[:-1] + (n_sample,)
    if not math.prod(shape):
        return np.empty(shape, np.int64)
    if not replacement or n_sample == 1:
        if not (probs.max() < np.inf and probs.min() >= 0):
            raise TorchRuntimeError("probability tensor contains either `inf`, `nan` or element < 0")
        if (probs.sum(axis=-1) == 0).any():
            raise TorchRuntimeError("invalid multinomial distribution (sum of probabilities <= 0)")
        q = np.empty_like(probs)              # empty_like keeps probs' layout: q fills in its order
        perm = order(q)
        fill(q, perm, exponential_values(gen, q.size, q.dtype, 1.0))
        q = probs / q
        if n_sample == 1:
            return np.argmax(q, axis=-1)[..., None]
        rows = q.reshape(-1, n_cat)
        # (at::topk, largest and sorted: ties in the order PyTorch's CPU kernel leaves them)
        return np.array(sorting.topk_order(np.asarray(rows), n_sample, True, True), np.int64).reshape(shape)
    rows = probs.reshape(-1, n_cat)
    out = np.empty((rows.shape[0], n_sample), np.int64)
    for i, row in enumerate(rows):
        bad = ~((row >= 0) & np.isfinite(row))
        if bad.any():
            if not row[int(np.argmax(bad))] >= 0:
                raise TorchRuntimeError("invalid multinomial distribution (encountering probability entry < 0)")
            raise TorchRuntimeError("invalid multinomial distribution (encountering probability entry = infinity "
                                    "or NaN)")
        cum = np.cumsum(row)
        total = cum[-1]
        if not total > 0:
            raise TorchRuntimeError("invalid multinomial distribution (sum of probabilities <= 0)")
        cum = cum / total
        cum[-1] = 1
        out[i] = np.searchsorted(cum.astype(_f64), _uniform_double(gen, n_sample), side="left")
    return out.reshape(shape)

# ----------------------------------------------------------------------------- in place


def order(arr):
    """The axes permutation whose C order is the order TensorIterator visits one output's
    elements in: dimensions from the largest stride to the smallest (memory order for a
    permuted tensor, the logical order for a sliced one)."""
    return sorted(range(arr.ndim), key=lambda d: -arr.strides[d])


def fill(out, perm, values):
    """Write `values` (flat, in iteration order) into out."""
    view = out.transpose(perm)
    view[...] = values.reshape(view.shape)


_ROWS = {}


def backward_row(name):
    """The node an in-place random op leaves on a tensor that requires grad (its gradient is
    zero): UniformBackward0, NormalBackward0, ..."""
    row = _ROWS.get(name)
    if row is None:
        row = _ROWS[name] = op(name, ("self",), self=lambda m, g: m.zeros_like(g))
    return row


def bernoulli_tensor_row():
    row = _ROWS.get("BernoulliBackward1")
    if row is None:
        row = _ROWS["BernoulliBackward1"] = op(
            "BernoulliBackward1", ("self", "p"), attrs=("_p_sizes",), self=lambda m, g: m.zeros_like(g),
            p=lambda m, g, _p_sizes: _zeros_sized(m, g, _p_sizes))
    return row


def _zeros_sized(m, g, sizes):
    """A zero gradient of an input's sizes, in the incoming gradient's dtype."""
    return m.fit(m.zeros_like(g), tuple(sizes), g.dtype if isinstance(g, np.ndarray) else g._data.dtype)


def normal_row(has_mean, has_std):
    """NormalBackward1 (tensor mean), 2 (tensor std), 3 (both): zero gradients of their sizes."""
    name = "NormalBackward" + str(has_mean + 2 * has_std)
    row = _ROWS.get(name)
    if row is None:
        inputs = ("mean",) * has_mean + ("std",) * has_std
        row = _ROWS[name] = op(name, inputs, attrs=tuple(k + "_sym_sizes" for k in inputs),
                               mean=lambda m, g, mean_sym_sizes: _zeros_sized(m, g, mean_sym_sizes),
                               std=lambda m, g, std_sym_sizes: _zeros_sized(m, g, std_sym_sizes))
    return row


def _no_derivative(m, g):
    raise TorchRuntimeError("derivative for aten::bernoulli is not implemented")


def not_implemented_row():
    """bernoulli(input, p) has no derivative formula: PyTorch records a NotImplemented node
    that fails when the backward reaches it."""
    row = _ROWS.get("NotImplemented")
    if row is None:
        row = _ROWS["NotImplemented"] = op("NotImplemented", ("self",), self=_no_derivative)
    return row
