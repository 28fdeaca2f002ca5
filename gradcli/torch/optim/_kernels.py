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
