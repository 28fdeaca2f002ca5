"""Node recording: op rows (OpDef), _begin/_record and the saved-value plans, and the resource
limits (memory, elements, time) every op checks before it allocates."""
from __future__ import annotations

import builtins as _b
import sys as _sys
import time as _time
import weakref
from types import MappingProxyType

import numpy as np

from .. import engine as E
from ..engine import CONFIG, OpDef, STATE, Saved, TensorBase
from ..engine import TorchRuntimeError
from .numeric import _wrapped, broadcast_shapes

ALWAYS = "always"


def op(name, inputs=(), saved=(), attrs=(), doc="", cpp=False, multi=False, apply=None, variadic=None, twins=False,
       output_slot="result", **formulas):
    """A table row. `saved` is a tuple of (slot, condition): the slot holds a tensor when
    `condition` is ALWAYS, or when the named input requires grad ("never": a slot that
    PyTorch has but leaves None here). The slot named `output_slot` ("result" unless given)
    saves the output; any other slot saves the input or extra tensor of that name. `inputs=("tensors",)` marks a
    variadic op (cat, stack), whose backward is one function, `variadic`; `twins`: the two
    formulas are one function of the other operand (mul); `apply`: a backward that is not
    formulas (CopySlices)."""
    rows = []
    for inp in inputs:
        f = formulas.get(inp)
        if f is None:
            continue
        names = f.__code__.co_varnames[2:f.__code__.co_argcount]
        rows.append((f, names))
    row = OpDef(name, tuple(inputs), tuple(sorted(saved)), tuple(attrs), tuple(rows), doc, cpp, multi, apply)
    row.variadic, row.twins, row.output_slot = variadic, twins, output_slot
    return row

# ----------------------------------------------------------------------------- recording


def _begin(*operands):
    """A sequence number when this op will record a node (taken before computing: a
    forward that raises still uses one, as in PyTorch), else None."""
    if LIMITS.deadline is not None:
        _check_reads(*operands)
    if STATE.grad_enabled:
        for t in operands:
            if isinstance(t, TensorBase) and t._rg:
                return STATE.next_seq()
    return None


def _plan(row):
    """How `_save` fills each saved slot of a row, worked out once per row: (slot, index
    of the input that supplies it or -1 for the output or None for an `extra` tensor,
    index of the input whose requires_grad decides it, or -1 always, or -2 never)."""
    plan = []
    for slot, cond in row.saved:
        src = -1 if slot == row.output_slot else row.inputs.index(slot) if slot in row.inputs else None
        when = -1 if cond is ALWAYS else row.inputs.index(cond) if cond in row.inputs else -2
        plan.append((slot, src, when))
    row.plan = tuple(plan)
    return row.plan


_NUMBERS = E._NUMBERS
_NO_SAVED = MappingProxyType({})    # the `saved` of every node whose row saves nothing (read-only: shared)
_EMPTY = {}
_META = {}                          # (shape, dtype, ...) of a node's inputs -> its input_meta, shared


def _input_meta(key):
    """The input_meta tuple for a flat key (shape, dtype, shape, dtype, ...): nodes share one
    tuple per key, so recording an op allocates none (the cache is bounded: shapes vary)."""
    meta = _META.get(key)
    if meta is None:
        if len(_META) >= 1024:
            _META.clear()
        meta = _META[key] = tuple(zip(key[::2], key[1::2]))
    return meta


def _save(plan, t, inputs, extra):
    """The `saved` mapping of t's new node, filled as the row's plan says."""
    saved = {}
    for slot, src, when in plan:
        if when >= 0:
            v = inputs[when]
            if not (isinstance(v, TensorBase) and v._rg):
                saved[slot] = None
                continue
        elif when == -2:
            saved[slot] = None
            continue
        if src == -1:                           # the output: compact while t has no version counter (Node)
            saved[slot] = t._data if t._vc is None else Saved(t, True)
            continue
        v = inputs[src] if src is not None else extra[slot]
        if isinstance(v, TensorBase):
            saved[slot] = Saved(v)
        elif v is None or type(v) in _NUMBERS:  # a number is kept as itself until read (Node.saved)
            saved[slot] = v
        else:
            saved[slot] = Saved.number(v, _wrapped(v))
    return saved


def _compact_saver(row):
    """_save as a function (out, number) -> saved, for calls on a tensor that requires grad and
    at most a Python number (`tanh(z)`, `z * 0.5`): when the row saves nothing but that number
    or the output (both kept compactly, see Node), every node's dict is a copy of one template
    with at most that one value filled in. False for rows that save more."""
    template, fill, from_output = {}, None, False
    for slot, src, when in row.plan or _plan(row):
        template[slot] = None
        if when == -2 or when == 1:              # never, or only when the number requires grad
            continue
        if src not in (-1, 1) or fill is not None:
            row.compact = False
            return False
        fill, from_output = slot, src == -1
    if not template:
        def save(out, number):
            return _NO_SAVED
    elif fill is None:
        def save(out, number):
            return template.copy()
    else:
        def save(out, number):
            saved = template.copy()
            saved[fill] = out if from_output else number
            return saved
    row.compact = save
    return save


def _record(row, seq, out, inputs, extra=None, attrs=None, view_of=None):
    """Wrap `out` (an ndarray) as a Tensor; if seq is not None, also make its grad_fn.
    `inputs` holds, per table input, a Tensor or a Python number (no edge)."""
    if type(out) is not np.ndarray:             # a ufunc on a 0-d array gives a NumPy scalar
        out = np.asarray(out)
    if view_of is None:
        t = CONFIG.tensor(out)
    else:
        t = CONFIG.tensor(out, version=view_of._version_counter,
                   base=view_of._base if view_of._base is not None else view_of)
    if seq is None:
        return t
    edges = []
    key = []
    for v in inputs:
        if isinstance(v, TensorBase):
            fn = v._fn
            if fn is None and v._rg:
                fn = v._acc or v._accumulator()
            edges.append(fn)
            d = v._data
            key += (d.shape, d.dtype)
        else:
            edges.append(None)
            key += ((), out.dtype)
    plan = row.plan
    if plan is None:
        plan = _plan(row)
    key = tuple(key)
    saved = _save(plan, t, inputs, extra) if plan else _NO_SAVED
    t._fn = row.node_class(row, tuple(edges), saved, attrs or _EMPTY, _META.get(key) or _input_meta(key), seq)
    t._rg = True
    return t


def _record_binary(row, seq, out, a, b, attrs):
    """_record without its lists, for a tensor and a tensor or Python number (the commonest call)."""
    t = CONFIG.tensor(out)
    if seq is None:
        return t
    fa = a._fn
    if fa is None and a._rg:
        fa = a._acc or a._accumulator()
    da = a._data
    if isinstance(b, TensorBase):
        fb = b._fn
        if fb is None and b._rg:
            fb = b._acc or b._accumulator()
        db = b._data
        key = (da.shape, da.dtype, db.shape, db.dtype)
    else:
        fb = None
        key = (da.shape, da.dtype, (), out.dtype)
    meta = _META.get(key) or _input_meta(key)
    plan = row.plan
    if plan is None:
        plan = _plan(row)
    saved = _save(plan, t, (a, b), None) if plan else _NO_SAVED
    t._fn = row.node_class(row, (fa, fb), saved, attrs or _EMPTY, meta, seq)
    t._rg = True
    return t


def _check_broadcast(sa, sb, itemsize):
    n = _numel(broadcast_shapes(sa, sb))
    if n > 65535:
        _check_numel(n, itemsize)


def _numel(shape):
    n = 1
    for d in shape:
        n *= d
    return n


def _check_size(out):
    _check_numel(out.size)


def _check_like(*shapes, itemsize=4):
    """Before an op whose result has the broadcast shape of `shapes` (an expanded view counts
    every element it shows: its result is that large)."""
    shape = shapes[0]
    try:
        for other in shapes[1:]:
            shape = broadcast_shapes(shape, other)
    except TorchRuntimeError:
        return                     # shapes that do not broadcast: the op raises its own error
    n = _numel(shape)
    if n > 65535:
        _check_numel(n, itemsize)


# The fastest a reduction reads elements and a matrix product does arithmetic here, with room
# to spare (about 10x what NumPy manages): work that cannot finish within the time limit even
# at these rates is refused before it starts.
ELEMENTS_PER_SECOND = 2e10
FLOPS_PER_SECOND = 5e11


def _check_reduced(data, dims):
    """Before a reduction over `dims` (a tuple of wrapped dims; None: all): its result's size."""
    if dims is not None and data.size > 65535:
        _check_numel(_numel(n for d, n in enumerate(data.shape) if d not in dims), data.itemsize)


def _check_reads(*operands):
    """Before an op that reads every element of its operands (an expanded view: all it shows)."""
    if LIMITS.deadline is not None:
        n = _b.sum(t._data.size for t in operands if type(t) is CONFIG.tensor_type)
        _check_work(n, ELEMENTS_PER_SECOND, f"an operation that reads {n:,} elements")


def _check_work(amount, rate, what):
    deadline = LIMITS.deadline
    if deadline is None or amount < 1e8:
        return
    left = deadline - _time.monotonic()
    if amount / rate > left:
        from ..engine import LimitError
        raise LimitError(f"{what} cannot finish within the time limit of {LIMITS.timeout:g} s "
                         f"(refused before it started; raise it with --timeout)")


def _check_numel(n, itemsize=4):
    """Refuse a tensor over the limits before allocating it: elements per tensor, and the
    process's resident memory plus this tensor against --max-memory (checked for large ones)."""
    limit = LIMITS.max_elements
    if limit is not None and n > limit:
        from ..engine import LimitError
        raise LimitError(f"a tensor of {n:,} elements exceeds the limit of {limit:,} elements per tensor "
                         "(raise it with --max-elements)")
    cap = LIMITS.max_bytes
    if cap is not None and n >= 1024:
        need = n * itemsize
        if need + _MEMORY.live > cap or need + _resident_bytes() > cap:
            from ..engine import LimitError
            raise LimitError(f"a tensor of {n:,} elements ({need / 2 ** 30:.2g} GiB) would take gradcli past its "
                             f"memory limit of {cap / 2 ** 30:g} GiB (raise it with --max-memory)")


class _Memory:
    """Bytes held by live tensor buffers of 1024 elements or more (counted when allocated,
    uncounted when freed), because untouched pages of a fresh buffer do not show as resident."""

    __slots__ = ("live",)

    def __init__(self):
        self.live = 0

    def track(self, arr):
        if arr.base is None:
            n = arr.nbytes
            self.live += n
            weakref.finalize(arr, self._release, n)

    def _release(self, n):
        self.live -= n


_MEMORY = _Memory()


def _resident_bytes():
    """The process's resident memory, less the freed heap that malloc keeps for reuse."""
    try:
        with open("/proc/self/statm") as f:
            resident = int(f.read().split()[1]) * 4096
    except (OSError, ValueError, IndexError):
        return 0
    return resident - _MALLOC.free_bytes()


class _Malloc:
    """glibc's allocator. By default it hands large freed buffers back to the system, so the
    next tensor of that size page-faults on every first touch, which costs as much as the
    arithmetic: a script run asks it to keep them for reuse instead (keep_freed_memory)."""

    __slots__ = ("libc", "info")

    def __init__(self):
        self.libc = self.info = None

    def keep_freed_memory(self):
        if self.libc is not None or not _sys.platform.startswith("linux"):
            return
        try:
            import ctypes
            libc = ctypes.CDLL(None)
            mallopt = libc.mallopt
        except (OSError, AttributeError):         # not glibc (musl, ...): nothing to tune
            self.libc = False
            return
        mallopt(-3, 512 << 20)                     # M_MMAP_THRESHOLD: big buffers from the heap
        mallopt(-1, 1 << 30)                       # M_TRIM_THRESHOLD: keep up to 1 GiB of it
        self.libc = libc
        info = getattr(libc, "mallinfo2", None)   # glibc >= 2.33: the free heap, for --max-memory
        if info is not None:
            class MallInfo2(ctypes.Structure):
                _fields_ = [(n, ctypes.c_size_t) for n in ("arena", "ordblks", "smblks", "hblks", "hblkhd",
                                                           "usmblks", "fsmblks", "uordblks", "fordblks",
                                                           "keepcost")]
            info.restype = MallInfo2
            self.info = info

    def free_bytes(self):
        return self.info().fordblks if self.info is not None else 0


_MALLOC = _Malloc()


class _Limits:
    __slots__ = ("max_elements", "max_bytes", "timeout", "deadline")

    def __init__(self):
        self.max_elements = None
        self.max_bytes = None
        self.timeout = None          # seconds, and the time.monotonic() when they are up
        self.deadline = None


LIMITS = _Limits()
