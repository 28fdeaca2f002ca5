"""The namespace backward formulas run on without create_graph: NumPy on plain arrays, with
PyTorch's rounding where NumPy's differs, and the arrays a formula may write into."""
from __future__ import annotations

import numpy as np

from . import vml

# PyTorch never warns about overflow or nan in arithmetic; NumPy would print RuntimeWarnings.
np.seterr(all="ignore")


class _Reuse:
    """Arrays a formula may write into, saving a new array and its cold memory. Set by the
    engine around a node's last formula: `spare`, the incoming gradient when nothing else
    refers to it (nor to its memory); `spare_saved`, a saved array that the release right
    after frees and that nothing else refers to (engine._spare_saved). Only formulas that
    read them once, in that call, use them. `dead`: up to two incoming gradients that their
    nodes left unused and unreferenced, recently read (so in cache), for the next new results
    (_fresh)."""

    __slots__ = ("spare", "spare_saved", "dead")

    def __init__(self):
        self.spare = self.spare_saved = None
        self.dead = []


REUSE = _Reuse()


class _NumpyMath:
    """Backward formulas run on plain arrays unless create_graph asks for a graph."""

    exp, log, sin, cos, sqrt, tanh, abs, sign = np.exp, np.log, np.sin, np.cos, np.sqrt, np.tanh, np.abs, np.sign

    @staticmethod
    def fit(g, shape, dtype):
        """Sum a broadcast gradient back to its input's shape and dtype."""
        if g.shape != shape:
            g = _sum_to(g, shape)
        if g.dtype != dtype:
            g = g.astype(dtype)
        return g

    @staticmethod
    def matmul(a, b):
        return np.matmul(a, b)

    @staticmethod
    def transpose(a):
        return np.swapaxes(a, -1, -2)

    @staticmethod
    def outer(a, b):
        return np.multiply.outer(a, b)

    @staticmethod
    def mul_scalar(a, s):
        m = REUSE
        if a is m.spare_saved:
            return np.multiply(a, np.asarray(s, a.dtype), out=a)
        return a * np.asarray(s, a.dtype) if not m.dead else np.multiply(a, np.asarray(s, a.dtype), out=_fresh(a, a))

    div_scalar = staticmethod(lambda a, s: a / np.asarray(s, a.dtype))
    add_scalar = staticmethod(lambda a, s: a + np.asarray(s, a.dtype))
    reshape = staticmethod(lambda g, shape: g.reshape(shape))
    squeeze_dim = staticmethod(lambda g, dim: np.squeeze(g, dim))
    tanh_backward = staticmethod(lambda g, r: g * (1 - r * r))
    sigmoid_backward = staticmethod(lambda g, r: g * (r * (1 - r)))
    threshold_backward = staticmethod(lambda g, r: np.where(r > 0, g, np.zeros((), g.dtype)))

    @staticmethod
    def unsqueeze_dims(g, dims, ndim):
        for d in sorted(dims):
            g = np.expand_dims(g, d)
        return g

    @staticmethod
    def pow_scalar(a, e):
        return a if e == 1 else _np_pow(a, e)     # x ** 1 in a formula: no copy (formulas never write)

    # `t` below is a temporary the formula itself just made (referenced by nothing else): the
    # result goes into it, which saves an allocation and a pass writing to cold memory. The
    # operands keep PyTorch's order. Under create_graph these are the plain tensor ops.
    @staticmethod
    def mul_into(a, t):
        """a * t"""
        return _into(np.multiply, a, t, t)

    @staticmethod
    def div_into(a, t):
        """a / t"""
        return _into(np.divide, a, t, t)

    @staticmethod
    def neg_into(t):
        """-t"""
        return np.negative(t, out=t) if type(t) is np.ndarray else -t

    @staticmethod
    def mul_g(g, x):
        """g * x"""
        m = REUSE
        if g is m.spare:
            return _into(np.multiply, g, x, g)
        if x is m.spare_saved:          # 1 * x is x, bit for bit (sum()'s gradient, expanded)
            return x if _all_ones(g, x) else _into(np.multiply, g, x, x)
        return g * x if not m.dead else np.multiply(g, x, out=_fresh(g, x))

    @staticmethod
    def div_g(g, x):
        """g / x"""
        m = REUSE
        if g is m.spare:
            return _into(np.divide, g, x, g)
        if x is m.spare_saved:
            return _into(np.divide, g, x, x)
        return g / x if not m.dead else np.divide(g, x, out=_fresh(g, x))

    @staticmethod
    def neg_g(g):
        """-g"""
        m = REUSE
        if g is m.spare:
            return np.negative(g, out=g)
        return -g if not m.dead else np.negative(g, out=_fresh(g, g))

    @staticmethod
    def where(c, a, b):
        return np.where(c, a, b).astype(np.result_type(a, b), copy=False)

    @staticmethod
    def expand(g, shape):
        """PyTorch's expand: a view, writable where g is (views of it may become a .grad)."""
        b = np.broadcast_to(g, shape)
        return np.lib.stride_tricks.as_strided(g, b.shape, b.strides, writeable=g.flags.writeable)


def _all_ones(g, x):
    """g is one 1 broadcast to x's shape, in x's dtype (a view with all strides 0)."""
    return (type(g) is np.ndarray and g.shape == x.shape and g.dtype == x.dtype and g.size
            and not any(g.strides) and g.flat[0] == 1)


def _fresh(a, b):
    """Where ufunc(a, b) may go: the latest of REUSE.dead of its shape and dtype when a
    and b are float arrays of one shape and dtype (taken: used once), else None (a new array)."""
    dead = REUSE.dead
    if (dead and type(a) is np.ndarray and type(b) is np.ndarray and a.shape == b.shape
            and a.dtype == b.dtype and a.dtype.kind == "f"):
        for i in range(len(dead) - 1, -1, -1):
            if dead[i].shape == a.shape and dead[i].dtype == a.dtype:
                return dead.pop(i)
    return None


def _into(ufunc, a, b, t):
    """ufunc(a, b) written into t (a or b, a temporary of the caller's own) when a and b are
    arrays of one shape and dtype; otherwise a fresh result (broadcasting, promotion, 0-d)."""
    if type(a) is np.ndarray and type(b) is np.ndarray and a.shape == b.shape and a.dtype == b.dtype:
        return ufunc(a, b, out=t)
    return ufunc(a, b)


def _np_pow(a, e):
    """a ** e as PyTorch's pow kernel computes it: exponents 2 and 3 by multiplication
    (base * base * base), and for float32/float64 also -1, -2, 0.5 and -0.5 as reciprocal,
    1 / (base * base), sqrt and 1 / sqrt (NumPy's generic power rounds some of those differently,
    and is slow on floats)."""
    if e == 2:
        return a * a
    if e == 3:
        t = a * a
        return np.multiply(t, a, out=t) if type(t) is np.ndarray else t * a
    if e == 1:
        return a.copy()
    if e == 0.5:
        return vml.sqrt(a)                  # (PyTorch's pow runs its sqrt kernel: MKL's)
    if a.dtype.kind != "f":
        return np.power(a, e)
    if a.dtype.itemsize >= 4 and e in (-1, -2, -0.5):
        t = a if e == -1 else a * a if e == -2 else np.sqrt(a)
        return np.divide(1, t, out=t) if t is not a and type(t) is np.ndarray else 1 / t
    if a.dtype == np.float32 and a.size <= 65536:
        # PyTorch's pow is within an ulp of the float64 result rounded once, NumPy's float32
        # power often is not: as ops._rounded, float64 for arrays small enough to print.
        return np.power(a.astype(np.float64), e).astype(np.float32)
    return np.power(a, a.dtype.type(e))


def _sum_to(g, shape):
    lead = g.ndim - len(shape)
    inner = tuple(i + lead for i, n in enumerate(shape) if n == 1 and g.shape[i + lead] != 1)
    if lead and not inner and shape:
        # only leading dimensions summed away (a bias's gradient): the sum has the shape as it
        # comes, a fresh array rather than a view of one (which a kept .grad must track)
        return np.add.reduce(g, axis=tuple(range(lead)))
    if lead or inner:
        g = np.add.reduce(g, axis=tuple(range(lead)) + inner, keepdims=True)     # g.sum without its wrapper
    if lead:
        g = g.reshape(shape)
    return g
