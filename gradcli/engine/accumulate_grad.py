"""AccumulateGrad: a leaf's gradient kept or added into `.grad`, with PyTorch's rules for when
the gradient itself is kept (and which version counter it then shares) and when it is copied."""
from __future__ import annotations

import weakref

import numpy as np
from numpy import ndarray

from .graph import COPY_BACKWARDS, Version
from .state import CONFIG, STATE
from .tensor import TensorBase


def _accumulate(leaf, buf, create_graph, record, owned=False, version=None):
    """AccumulateGrad, with PyTorch's rules for a first gradient: without create_graph it is
    kept as .grad itself ("stolen", a view included, so that .grad may share memory with
    other leaves' gradients or a tensor the user holds) when nothing else holds it (`owned`)
    and its layout is the leaf's; otherwise .grad is a copy. A later gradient is added in place."""
    watched = STATE.observer is not None          # the report shows each .grad before and after
    grad, variable = leaf._grad, leaf._data       # (each read once: a tensor's attributes are slow to read)
    before = grad._data.copy() if watched and grad is not None else None
    if not create_graph:
        data = buf if type(buf) is ndarray else buf._data if isinstance(buf, TensorBase) else buf
        if grad is None:
            if owned and data.dtype == variable.dtype and data.flags.writeable and _obeys_layout(data, variable):
                if data.base is not None or record.counters and id(data) in record.counters:
                    leaf._grad = CONFIG.tensor(data, version=_grad_version(record, data))
                else:
                    # the version PyTorch's kept gradient has: its in-place additions or writes
                    leaf._grad = CONFIG.tensor(data)
                    version = _writes(data) if version is None else version
                    if version:
                        leaf._grad._version_counter.v = version
            else:
                # PyTorch's clone_obey_contract: new_empty_strided(...).copy_(g), a copy at version 1,
                # for a non-overlapping and dense variable, else clone(): version 0
                if _non_overlapping_and_dense(variable):
                    copy = np.empty_like(variable)          # (the variable's strides)
                    np.copyto(copy, data, casting="unsafe")
                    leaf._grad = CONFIG.tensor(copy)
                    leaf._grad._version_counter.v = 1
                else:
                    leaf._grad = CONFIG.tensor(np.array(data, dtype=variable.dtype, order="C"))
        else:
            np.add(grad._data, data, out=grad._data, casting="unsafe")
            grad._version_counter.bump()
    else:
        g = buf if isinstance(buf, TensorBase) else CONFIG.tensor(buf)
        if grad is None:
            # PyTorch copies into a fresh buffer under grad mode: a CopyBackwards node.
            out = CONFIG.tensor(np.array(g._data, dtype=variable.dtype, copy=True))
            if g.requires_grad:
                node = COPY_BACKWARDS.node_class(COPY_BACKWARDS, (None, g._edge()), {}, {},
                            ((g._data.shape, g._data.dtype), (g._data.shape, g._data.dtype)), STATE.next_seq())
                out._fn = node
                out._rg = True
            leaf._grad = out
        else:
            leaf._grad = grad + g
    if watched:
        record.updates.append((leaf, before, leaf._grad._data.copy()))


_WRITTEN = {}       # id(array) -> (weak reference, n): formula results PyTorch makes with n in-place writes


def written(a, n):
    """Mark a formula's result as made by n in-place writes in PyTorch (zeros then index_put_...):
    a .grad that keeps it shows that version."""
    key = id(a)
    _WRITTEN[key] = (weakref.ref(a, lambda _: _WRITTEN.pop(key, None)), n)
    return a


def _writes(a):
    entry = _WRITTEN.get(id(a))
    return entry[1] if entry is not None and entry[0]() is a else 0


def _grad_version(record, view):
    """The version counter of a kept .grad that is a view: as in PyTorch, the one of its base, so
    .grad tensors kept from views of one gradient (stack's, cat's) share it, and share the user's
    tensor's when they are views of a `gradient=` argument (record.counters is seeded with them)."""
    base = _memory_owner(view)
    counters = record.counters
    if counters is None:
        counters = record.counters = {}
    entry = counters.get(id(base))
    if entry is None:
        entry = counters[id(base)] = (base, Version())
    return entry[1]


def _memory_owner(a):
    """The array that owns a's memory (NumPy's base chain, through as_strided's interface objects)."""
    while True:
        b = a.base
        if b is not None and not isinstance(b, ndarray):
            b = getattr(b, "base", None)
        if not isinstance(b, ndarray):
            return a
        a = b


def _obeys_layout(g, v):
    """PyTorch's gradient layout contract: a variable that is non-overlapping and dense takes a
    gradient of its own strides (any stride for a size-1 dimension but 0); another variable a
    row-major contiguous one. (Strides in bytes: g and v have one dtype.)"""
    if g.shape != v.shape:
        return False
    if g.strides == v.strides and v.flags.c_contiguous and 0 not in v.strides:
        return True                     # the common case, decided without the loops below
    if not _non_overlapping_and_dense(v):
        return g.flags.c_contiguous
    for n, gs, vs in zip(g.shape, g.strides, v.strides):
        if gs != vs if n != 1 else gs == 0 or vs == 0:
            return False
    return True


def _non_overlapping_and_dense(a):
    if a.flags.c_contiguous or a.flags.f_contiguous:
        return True
    expected = a.itemsize
    for n, stride in sorted([(n, st) for n, st in zip(a.shape, a.strides) if n != 1], key=lambda p: p[1]):
        if stride != expected:
            return False
        expected *= n
    return True
