"""The element-wise kernels PyTorch's single-tensor optimizers call, on NumPy arrays, rounded as
ATen's CPU kernels round them: a scalar argument is first cast to the tensor's dtype, and where
the vectorised kernel fuses a multiply-add (add with alpha, addcmul, lerp) the product is not
rounded on its own. A float32 fused multiply-add is exact in float64 before its one rounding
(a float32 product fits in float64's 53 bits); a float64 one is emulated exactly (below)."""
import numpy as np


def fma(a, b, c, dtype):
    """a * b + c with a single rounding to dtype."""
    if dtype != np.float32:
        return _fma64(np.asarray(a, dtype), np.asarray(b, dtype), np.asarray(c, dtype))
    r = np.multiply(a, b, dtype=np.float64)        # (the ufuncs cast their operands as they go)
    if type(r) is np.ndarray:
        np.add(r, c, out=r)
    else:                           # 0-d operands give a NumPy scalar
        r = r + c
    return r.astype(dtype)


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
    """self.add(other, alpha=alpha): other * alpha + self, fused."""
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
_rsqrtps_bits = None


def _rsqrtps(x_bits):
    """The CPU's rsqrtps estimate for positive normal floats given as int64 bit patterns."""
    global _rsqrtps_bits
    if _rsqrtps_bits is None:
        import base64
        import zlib
        steps = np.frombuffer(zlib.decompress(base64.b64decode(_RSQRTPS_STEPS)), np.int8)
        mantissa = np.concatenate(([4095], 4095 + np.cumsum(steps, dtype=np.int64)))
        _rsqrtps_bits = (126 << 23) | (mantissa << 11)
    exponent = (x_bits >> 23) - 127
    odd = exponent & 1
    y = _rsqrtps_bits[(odd << 12) | ((x_bits >> 11) & 0xFFF)] - (((exponent - odd) >> 1) << 23)
    return y.astype(np.uint32).view(np.float32)


def sqrt(x):
    """PyTorch's CPU sqrt of a tensor's array (MKL's kernel for float32, above)."""
    if x.dtype != np.float32:
        return np.sqrt(x)
    x = np.asarray(x)
    bits = x.view(np.uint32).astype(np.int64)
    fast = (bits >= 0x00800000) & (bits <= 0x7F7FF000)
    everywhere = fast.all()
    v = x if everywhere else np.where(fast, x, np.float32(1))
    half = np.float32(0.5)
    y = _rsqrtps(bits if everywhere else bits * fast + 0x3F800000 * ~fast)
    s = v * y
    h = y * half
    r = half - s * h
    s = s + s * r
    h = h + h * r
    root = s + (v - s * s) * h
    return root if everywhere else np.where(fast, root, np.sqrt(x))
