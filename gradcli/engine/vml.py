"""The float32 square root of PyTorch's CPU kernels (Tensor.sqrt, sqrt_ and the optimizers'),
which MKL's vector math library computes: not correctly rounded, reproduced bit for bit."""
import numpy as np

# PyTorch's float32 sqrt on CPU is MKL's vector routine (vmsSqrt, high-accuracy mode). On x86 CPUs
# other than Intel's, MKL runs its SSE kernel: the CPU's estimate y = rsqrtps(x), one Newton step
# on s = x*y and h = y/2, then one correction from the residual, every product and sum rounded to
# float32 (no fused multiply-add). The result is up to 0.75 ulp off the correctly rounded root for
# about a sixth of the inputs. Subnormals, infinities, NaN, negatives (-0 too) and the largest floats
# take MKL's exact path.
#
# rsqrtps reads the exponent's parity and the top 12 bits of the mantissa: for x in [1, 4) it
# returns one of 8,192 values in [0.5, 1) with a 12-bit mantissa. These are the steps between them
# (each 0, -1 or -2 in the mantissa, starting from 4095), read from AMD EPYC's rsqrtps and
# compressed by tools/rsqrtps_steps.py.
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


_CHUNK = 1 << 15                    # elements per step of a large array: its temporaries stay in the cache


def sqrt(x):
    """PyTorch's CPU sqrt of a tensor's array (MKL's kernel for float32, above)."""
    if x.dtype != np.float32:
        return np.sqrt(x)
    x = np.asarray(x)
    if not x.ndim:                          # (NumPy's 0-d arithmetic gives scalars: no out=)
        return sqrt(x.reshape(1)).reshape(())
    if x.size <= _CHUNK:
        return _sqrt(x)
    flat = x.ravel()
    out = np.empty(flat.shape, np.float32)
    for i in range(0, flat.size, _CHUNK):
        out[i:i + _CHUNK] = _sqrt(flat[i:i + _CHUNK])
    return out.reshape(x.shape)


def _sqrt(x):
    # subnormal, the largest floats, inf, NaN and negative: MKL's exact path (+0 is exact either way)
    bits = x.view(np.int32)
    exact = (bits - 0x00800000).view(np.uint32) > 0x7EFFF000
    if not exact.any() or not (exact & (bits != 0)).any():
        return _refined_rsqrtps_root(x)
    root = _refined_rsqrtps_root(np.where(exact, np.float32(1), x))
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
