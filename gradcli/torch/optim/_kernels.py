"""The element-wise kernels PyTorch's single-tensor optimizers call, on NumPy arrays, rounded as
ATen's CPU kernels round them: a scalar argument is first cast to the tensor's dtype, and where
the vectorised kernel fuses a multiply-add (add with alpha, addcmul, lerp) the product is not
rounded on its own. A float32 fused multiply-add is exact in float64 before its one rounding
(a float32 product fits in float64's 53 bits); a float64 one is emulated exactly (below)."""
import numpy as np


_CHUNK = 1 << 15                    # elements per float64 temporary: it stays in the cache


def fma(a, b, c, dtype):
    """a * b + c with a single rounding to dtype."""
    if dtype != np.float32:
        return _fma64(np.asarray(a, dtype), np.asarray(b, dtype), np.asarray(c, dtype))
    operands = a, b, c
    size = max(getattr(v, "size", 1) for v in operands)
    if size <= _CHUNK or any(np.ndim(v) and np.size(v) != size for v in operands):
        return _fma32(a, b, c)
    shape = np.broadcast_shapes(*map(np.shape, operands))
    out = np.empty(size, np.float32)
    operands = [np.ravel(v) if np.ndim(v) else v for v in operands]
    for i in range(0, size, _CHUNK):
        out[i:i + _CHUNK] = _fma32(*(v[i:i + _CHUNK] if np.ndim(v) else v for v in operands))
    return out.reshape(shape)


def _fma32(a, b, c):
    r = np.multiply(a, b, dtype=np.float64)        # (the ufuncs cast their operands as they go)
    if type(r) is np.ndarray:
        np.add(r, c, out=r)
    else:                           # 0-d operands give a NumPy scalar
        r = r + c
    return r.astype(np.float32)


def _split(a):
    t = 134217729.0 * a             # Veltkamp: a = hi + lo, each with at most 26 significant bits
    hi = t - (t - a)
    return hi, a - hi


def _two_sum(a, b):
    s = a + b
    bb = s - a
    return s, (a - (s - bb)) + (b - bb)


def _fma64(a, b, c):
    """Boldo and Melquiond's emulated FMA: the exact product (Dekker) and sum, the low parts
    added with rounding to odd, then one rounding to nearest."""
    p = a * b
    ah, al = _split(a)
    bh, bl = _split(b)
    e = ((ah * bh - p) + ah * bl + al * bh) + al * bl
    th, tl = _two_sum(c, p)
    v, err = _two_sum(tl, e)
    even = (v.view(np.int64) & 1) == 0
    v = np.where((err != 0) & even, np.nextafter(v, np.copysign(np.inf, err)), v)
    return th + v


def scalar(value, dtype):
    return dtype.type(value)


def add(self, other, alpha):
    """self.add(other, alpha=alpha): other * alpha + self, fused (a plain sum when alpha is 1)."""
    if alpha == 1:
        return self + other
    return fma(other, scalar(alpha, self.dtype), self, self.dtype)


def mul(self, value):
    return self * scalar(value, self.dtype)


def addcmul(self, t1, t2, value):
    """self.addcmul(t1, t2, value=value): (value * t1) * t2 + self, the last two fused."""
    return fma(scalar(value, self.dtype) * t1, t2, self, self.dtype)


def addcdiv(self, t1, t2, value):
    """self.addcdiv(t1, t2, value=value): self + (value * t1) / t2, each step rounded."""
    return self + (scalar(value, self.dtype) * t1) / t2


def lerp(self, end, weight):
    """self.lerp(end, weight) for a number weight: ATen's two-sided formula, fused."""
    dt = self.dtype
    w = scalar(weight, dt)
    diff = end - self
    if abs(w) < 0.5:
        return fma(w, diff, self, dt)
    return fma(-diff, dt.type(1) - w, end, dt)


# PyTorch's float32 sqrt on CPU is MKL's vector routine (vmsSqrt, high-accuracy mode). On x86 CPUs
# other than Intel's, MKL runs its SSE kernel: the CPU's estimate y = rsqrtps(x), one Newton step
# on s = x*y and h = y/2, then one correction from the residual, every product and sum rounded to
# float32 (no fused multiply-add). The result is up to 0.75 ulp off the correctly rounded root for
# about a sixth of the inputs. Zero, subnormals, infinities, NaN, negatives and the largest floats
# take MKL's exact path.
#
# rsqrtps reads the exponent's parity and the top 12 bits of the mantissa: for x in [1, 4) it
# returns one of 8,192 values in [0.5, 1) with a 12-bit mantissa. These are the steps between them
# (each 0, -1 or -2 in the mantissa, starting from 4095), read from AMD EPYC's rsqrtps, compressed.
_RSQRTPS_STEPS = (
    "eNrdlo2OwjAMg/3+D52cdAe39TeYpGmBMaWeP6eimkRUfz/4Kyo616o+Xp28V6Pj35/JhH3F313B+7jWaLQY/mqNYL7v"
    "FydTaDH81RrBfO3Lpe7foWb53RoWf5HdutrH4rxZH+vyfN7XCOaj/Q6Ppky0kHy2BstreamhcZjv5vFdF97NVedRGyOf"
    "5bN9k2fCHa3O/G79L+vjGGiQfHS/aB7Fk+f7celsfwdPRlw6ez9bl563ntbPzJOTtRg+gid5BPO9n4xmOdZC8qzG4vzI"
    "fxYhZ085eBbmdPGXeDenGsF+No8vm2fB+sYk4fW9fHS+0ZvnUCTnJ3xnHlzvZ/NtPnBY+YAKtC9+ORjONUiezSO5Hw7r"
    "5+XpfoG9P1HXHhbvjeR8NJ/dL9pv+cd6cFt+Nn9a/vT9rPsHj6Tf4w==")
_rsqrtps_table = None


def _rsqrtps(bits):
    """The CPU's rsqrtps estimate of positive normal floats (their bits as int32), as float32.
    The table is indexed by the bits' exponent parity and top mantissa bits; the estimate's
    exponent is 190 - (e + 1) // 2 for the input's biased exponent e."""
    global _rsqrtps_table
    if _rsqrtps_table is None:
        import base64
        import zlib
        steps = np.frombuffer(zlib.decompress(base64.b64decode(_RSQRTPS_STEPS)), np.int8)
        mantissa = np.concatenate(([4095], 4095 + np.cumsum(steps, dtype=np.int32)))
        # [1, 2) has odd biased exponents, [2, 4) even ones: rolled so the parity bit indexes it
        _rsqrtps_table = np.roll((190 << 23) | (mantissa << 11), 4096).astype(np.int32)
    index = bits >> 11
    index &= 0x1FFF
    y = _rsqrtps_table.take(index)
    exponent = bits + 0x800000              # (no overflow: the largest floats take the exact path)
    exponent >>= 24
    exponent <<= 23
    y -= exponent
    return y.view(np.float32)


def sqrt(x):
    """PyTorch's CPU sqrt of a tensor's array (MKL's kernel for float32, above)."""
    if x.dtype != np.float32:
        return np.sqrt(x)
    x = np.asarray(x)
    if not x.ndim:                          # (NumPy's 0-d arithmetic gives scalars: no out=)
        return sqrt(x.reshape(1)).reshape(())
    # zero, subnormal, the largest floats, inf, NaN and negative: MKL's exact path
    exact = (x.view(np.int32) - 0x00800000).view(np.uint32) > 0x7EFFF000
    if not exact.any():
        return _refined_rsqrtps_root(x)
    root = _refined_rsqrtps_root(np.where(exact, np.float32(1), x))
    with np.errstate(invalid="ignore"):     # (a negative's root is NaN, silently)
        np.sqrt(x, out=root, where=exact)
    return root


def _refined_rsqrtps_root(x):
    half = np.float32(0.5)
    h = _rsqrtps(x.view(np.int32))
    s = x * h
    h *= half
    r = s * h                               # r = 0.5 - s*h
    np.subtract(half, r, out=r)
    t = s * r                               # s = s + s*r
    s += t
    np.multiply(h, r, out=r)                # h = h + h*r
    h += r
    np.multiply(s, s, out=r)                # s + (x - s*s)*h
    np.subtract(x, r, out=r)
    r *= h
    r += s
    return r
