"""Calls of gradcli.torch's public functions and Tensor methods with wrong-typed and
out-of-range arguments, built alike for gradcli and for real PyTorch (the oracle).

A case is (target, args, kwargs) where target names a function (`torch.NAME`,
`F.NAME` for torch.nn.functional, `autograd.NAME`, `operator.NAME` for Python's operators) or a Tensor method (`Tensor.NAME`, called on
the first argument), and the arguments are Python values or `Sym` placeholders for tensors that
each library builds fresh for every call (in-place methods cannot leak into the next case).

For every target a baseline call that works in both libraries is found among CANDIDATES; the
cases replace one argument of it with each BAD value, or append one (`x.sum(1, 'abc')`).
`outcome(lib, case)` runs a case: ("ok", None) or (the exception's Python type name, message).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Sym:
    """A tensor argument by name (see TENSORS)."""
    name: str

    def __repr__(self):
        return self.name


# name -> (values, dtype name, requires_grad)
TENSORS = {
    "A": ([[0.5, -1.0, 2.0], [3.0, -4.0, 5.0], [6.0, 7.0, -8.0]], "float32", False),
    "G": ([[0.5, -1.0, 2.0], [3.0, -4.0, 5.0], [6.0, 7.0, -8.0]], "float32", True),
    "V": ([1.0, -2.0, 3.0], "float32", False),
    "B": ([[[1.0, 2.0, 3.0]] * 3] * 2, "float32", False),
    "L": ([0, 2, 1], "int64", False),
    "M": ([[True, False, True], [False, True, False], [True, True, False]], "bool", False),
    "S": (1.5, "float32", False),
    "E": ([], "float32", False),
    "D": ([1.0, 2.0, 3.0], "float64", False),
    "W": ([1.0, 2.0, 3.0, 4.0, 5.0], "float32", False),
    "I0": (2, "int64", False),
    "GS": (1.5, "float32", True),
    "LI": ([[0, 2, 1]], "int64", False),         # an index of A's rank (gather, scatter)
}
A, G, V, B, L, M, S, E, D, W, I0, GS, LI = (Sym(n) for n in TENSORS)
Y = Sym("Y")          # (G * 2).sum() of the call's own G: an output to differentiate
R = Sym("R")          # the generator's current state (a valid torch.set_rng_state argument)
CK = Sym("CK")        # a checkpoint in memory (torch.load reads it, torch.save writes after it)

# Baseline argument lists, tried in this order (for methods the first argument is self).
CANDIDATES = [
    (), (A,), (G,), (A, A), (A, 1), (A, 0), (A, 1.5), (A, V), (V, V), (A, A, A), (A, 0, 1), (A, (3, 3)),
    (A, 3, 3), (A, [1, 0]), (A, 9), (A, M, 0.0), (M, A, A), (B, B), ([A, A],), ([A, A], 0), (A, L),
    (3,), (3, 3), ((3, 3),), (0, 3), (0, 1, 5), ((3,), 2.0), (A, 2.0), (0, 10, (3,)), (G, G), (1,),
    (G, (G,)), (S,), (GS, GS), (L, L), (L,), (True,), (np.ones(2),), (Y, G),
    (W, 1), (A, 0.5), (R,), (A, (3,), 2.0), (A, [1, 2]), (B, 3),
    (A, 0, L), (A, 0, LI), (A, 0, LI, A), (A, 0, L, A), (A, 0, L, 1.5), (A, M),
    (A, 0, 1, 2), (A, 1, (3, 1)),          # narrow, unflatten
    (CK,), (A, CK),                        # torch.load, torch.save
    (V, A, V), (A, V, V), (B, B, B), (A, B, B),     # addmv, addr, baddbmm, addbmm
    (D, 2),                      # (float_power_: in place on a float64 tensor)
]


class _Opaque:
    """An object no function accepts."""

    def __repr__(self):
        return "object()"


BAD = [
    None, "abc", [1, 2], (1, 2), 1.5, 10 ** 20, -10 ** 20, -1, float("nan"), float("inf"), True,
    np.ones(2), np.float64(2.5), _Opaque(), L, E, D, W, S, I0, M, B, [[1.0] * 2] * 2, [A, "abc"],
]


def tensor(lib, sym, shared):
    if sym.name == "Y":
        return (tensor(lib, G, shared) * 2).sum()
    if sym.name == "R":
        return lib.get_rng_state()
    if sym.name == "CK":                  # a checkpoint in memory, as this library's torch.save writes it
        import io
        buf = io.BytesIO()
        lib.save({"w": lib.ones(2)}, buf)
        buf.seek(0)
        return buf
    if sym.name == "G":                   # one G per call, so that Y is a function of it
        if "G" not in shared:
            shared["G"] = tensor(lib, Sym("G*"), shared)
        return shared["G"]
    values, dtype, rg = TENSORS[sym.name.rstrip("*")]
    return lib.tensor(values, dtype=getattr(lib, dtype), requires_grad=rg)


def build(lib, value, shared=None):
    shared = {} if shared is None else shared
    if isinstance(value, Sym):
        return tensor(lib, value, shared)
    if isinstance(value, list):
        return [build(lib, v, shared) for v in value]
    if isinstance(value, tuple):
        return tuple(build(lib, v, shared) for v in value)
    if isinstance(value, np.ndarray):
        return value.copy()
    return value


def resolve(lib, target):
    space, name = target.split(".", 1)
    if space == "Tensor":
        return None
    if space == "operator":                # `a < b`, `a // b`, ...: the same for both libraries
        import operator
        return getattr(operator, name)
    module = {"torch": lib, "F": lib.nn.functional, "autograd": lib.autograd, "linalg": lib.linalg}[space]
    return getattr(module, name)


def call(lib, target, args, kwargs=()):
    shared = {}
    args = build(lib, args, shared)
    kwargs = {k: build(lib, v, shared) for k, v in kwargs}
    if target.startswith("Tensor."):
        return getattr(args[0], target.split(".", 1)[1])(*args[1:], **kwargs)
    return resolve(lib, target)(*args, **kwargs)


def builtin_name(exc_type):
    """The nearest built-in exception class (PyTorch raises subclasses such as _LinAlgError)."""
    import builtins
    for cls in exc_type.__mro__:
        if getattr(builtins, cls.__name__, None) is cls:
            return cls.__name__
    return exc_type.__name__


def outcome(lib, target, args, kwargs=()):
    try:
        call(lib, target, args, kwargs)
    except Exception as e:       # noqa: BLE001 - the exception is the result
        return type(e), str(e)
    return None, None


def cases(target, baseline):
    """The wrong-argument variants of one working call. (Python's operators are not tried with
    NumPy arrays: which operand handles `ndarray + tensor` is NumPy's dispatch, and gradcli's
    tensors take precedence over arrays on purpose.)"""
    out = []
    start = 1 if target.startswith("Tensor.") else 0
    bads = [b for b in BAD if not (target.startswith("operator.") and isinstance(b, np.ndarray))]
    for i in range(start, len(baseline)):
        for bad in bads:
            out.append(baseline[:i] + (bad,) + baseline[i + 1:])
    for bad in bads:
        out.append(baseline + (bad,))
        out.append(baseline + (1, bad))
    return out
