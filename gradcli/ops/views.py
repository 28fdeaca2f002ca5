"""View bookkeeping: bases and versions of views, the checks of an in-place op, CopySlices."""
from __future__ import annotations

import builtins as _b
import weakref

import numpy as np

from .. import engine as E
from ..engine import CONFIG, OpDef, STATE, Saved, TensorBase, result_type
from ..engine import TorchRuntimeError
from ..engine import TorchNotImplementedError as TorchNotImplementedError_
from .numeric import _SCALAR_NAME
from .record import _begin, _record
from .table import TABLE

_NO_GRAD_VIEW = ("A view was created in no_grad mode and is being modified inplace with grad mode enabled. Given "
                 "that this use case is ambiguous and error-prone, it is forbidden. You can clarify your code by "
                 "moving both the view and the inplace either both inside the no_grad block (if you don't want the "
                 "inplace to be tracked) or both outside (if you want the inplace to be tracked).")
INVALID = E.INVALID
short_name = E.short_name


def _multi_view_error(t, modified):
    """PyTorch's error for an in-place change of a view that is one of several outputs of a node
    (split, unbind), or of a view of one, named by the view's own grad_fn and output number."""
    return (f"Output {t.output_nr} of {short_name(t._fn.op.name)} is a view and {modified} modified inplace. This view "
            "is the output of a function that returns multiple views. Such functions do not allow the output views "
            "to be modified inplace. You should replace the inplace operation by an out-of-place one.")


def _custom_view_error(t, modified):
    """PyTorch's error for an in-place change of a view a custom Function returned (an input
    returned as it is, as the identity a module's full backward hooks pass tensors through)."""
    return (f"Output {t.output_nr} of {short_name(t._fn.op.name)} is a view and {modified} modified inplace. This view "
            "was created inside a custom Function (or because an input was returned as-is) and the autograd logic to "
            "handle view+inplace would override the custom backward associated with the custom Function, leading to "
            "incorrect gradients. This behavior is forbidden. You can fix this by cloning the output of the custom "
            "Function.")


def _view_kind_error(t, kind, modified):
    return (_custom_view_error if kind == "custom" else _multi_view_error)(t, modified)


_PARTIAL_OVERLAP = ("unsupported operation: some elements of the input tensor and the written-to tensor refer to a "
                    "single memory location. Please clone() the tensor before performing the operation.")
_OVERLAP = ("unsupported operation: more than one element of the written-to tensor refers to a single memory "
            "location. Please clone() the tensor before performing the operation.")


class _ViewMeta:
    """What PyTorch keeps for a differentiable view (DifferentiableViewMeta): whether it was made
    under no_grad, and the version of the storage its grad_fn was made for."""

    __slots__ = ("ref", "version", "no_grad", "multi")     # multi: one of several views of one node (True), or a
                                                            # custom Function's output ("custom")


def _register_view(view, of, multi=False):
    """Remember a new view on its storage's version counter, so an in-place change of the
    base or of another view can rebuild its grad_fn (_refresh_views)."""
    ver = view._version_counter
    views = getattr(ver, "views", None)
    if views is None:
        views = ver.views = {}
    parent = _view_meta(of) if of._base is not None else None
    meta = _ViewMeta()
    key = id(view)

    def forget(ref):
        if views.get(key) is meta:
            del views[key]
    meta.ref = weakref.ref(view, forget)
    meta.version = ver.v
    meta.no_grad = not STATE.grad_enabled or (parent is not None and parent.no_grad)
    meta.multi = multi or (parent is not None and parent.multi)      # (a view of such a view is one too)
    views[key] = meta


def _view_meta(t):
    views = getattr(t._version_counter, "views", None)
    meta = views.get(id(t)) if views else None
    return meta if meta is not None and meta.ref() is t else None


def _view(row, seq, out, t, attrs):
    """Record a view op: the result shares t's storage, version counter and (root) base."""
    v = _record(row, seq, out, (t,), attrs=attrs, view_of=t)
    _register_view(v, t)
    return v


def _check_inplace(t, args):
    """PyTorch's check_inplace, before anything is written: in grad mode, when some input
    requires grad, a leaf that requires grad (or a view of one), or a view made under
    no_grad, may not be modified in place."""
    if not STATE.grad_enabled:
        return
    rg = t.requires_grad
    if not (rg or any(isinstance(a, TensorBase) and a.requires_grad for a in args)):
        return
    if t._base is not None:
        meta = _view_meta(t)
        if meta is not None and meta.no_grad:
            raise TorchRuntimeError(_NO_GRAD_VIEW)
        if meta is not None and meta.multi:
            raise TorchRuntimeError(_view_kind_error(t, meta.multi, "is being"))
        if rg and t._base._fn is None:
            raise TorchRuntimeError("a view of a leaf Variable that requires grad is being used in an in-place "
                                    "operation.")
    if rg and t._fn is None:
        raise TorchRuntimeError("a leaf Variable that requires grad is being used in an in-place operation.")


def _check_writable(t):
    if t._data.size and any(st == 0 and n > 1 for st, n in zip(t._data.strides, t._data.shape)):
        raise TorchRuntimeError(_OVERLAP)


def _inplace(t, compute, *args, name, cast=False):
    """An in-place op: `compute(t, *args)` runs it out of place (recording its node), the result
    is written into t, t's version is bumped, and the node becomes t's grad_fn; on a view, the
    base gets a CopySlices node instead and the view's grad_fn is rebuilt (PyTorch's
    rebase_history). `cast`: the result may be cast to t's dtype (copy_, fill_), else only
    within a dtype category, as PyTorch allows."""
    fresh_views((t,) + args)
    _check_inplace(t, args)
    _check_writable(t)
    for a in args:
        if isinstance(a, TensorBase) and _partial_overlap(t._data, a._data):
            raise TorchRuntimeError(_PARTIAL_OVERLAP)
    if not cast and args and (isinstance(args[0], TensorBase) or isinstance(args[0], (int, float))):
        # PyTorch checks the promoted type against t's before running the kernel
        promoted = result_type(t, args[0])
        if promoted.kind > E.dtype_of(t._data).kind:
            raise TorchRuntimeError(f"result type {_SCALAR_NAME[promoted.np.name]} can't be cast to the desired "
                                    f"output type {_SCALAR_NAME[t._data.dtype.name]}")
    result = compute(t, *args)
    out = result._data
    if out.shape != t._data.shape:
        raise TorchRuntimeError(f"output with shape [{', '.join(map(str, t._data.shape))}] doesn't match the "
                                f"broadcast shape [{', '.join(map(str, out.shape))}]")
    if not cast and out.dtype != t._data.dtype and E.dtype_of(out).kind > E.dtype_of(t._data).kind:
        raise TorchRuntimeError(f"result type {_SCALAR_NAME[out.dtype.name]} can't be cast to the desired output "
                                f"type {_SCALAR_NAME[t._data.dtype.name]}")
    node = result._fn
    if node is not None:
        s = node.saved.get("self")
        if s is not None and s.tensor is t:
            # the op needs t's value from before the change: PyTorch saves a clone of it
            # (recorded, so it reads `grad_fn=<CloneBackward0>`), made right after the node
            node.saved["self"] = Saved(_record(TABLE["clone"], _begin(t), t._data.copy(), (t,)))
    np.copyto(t._data, out, casting="unsafe")
    t._version_counter.bump()
    if node is not None:
        _set_history(t, node)
    _refresh_views(t)
    if node is not None:
        for slot, s in node.saved.items():
            if s is not None and s.is_output:          # the saved output is t itself, at its new version
                s = node.saved[slot] = Saved(t, is_output=True)
                if t._base is not None:                # the modified-in-place error then names the view's grad_fn (AsStrided)
                    s.name_fn = t._fn
    return t


def _partial_overlap(a, b):
    """PyTorch's get_overlap_status(...) == Partial: both dense, their memory ranges meet, and
    they are not the very same elements in the same layout (TooHard, for a non-dense one, passes)."""
    if a is b or not a.size or not b.size or not (_dense(a) and _dense(b)):
        return False
    a0, b0 = a.__array_interface__["data"][0], b.__array_interface__["data"][0]
    a1, b1 = a0 + a.size * a.itemsize, b0 + b.size * b.itemsize
    if a0 == b0 and a1 == b1:
        return a.strides != b.strides
    return a0 < b1 and b0 < a1


def _dense(a):
    """Non-overlapping and dense: the elements fill a block of memory exactly (any dim order)."""
    expected = a.itemsize
    for st, n in sorted((st, n) for n, st in zip(a.shape, a.strides) if n != 1):
        if st != expected:
            return False
        expected *= n
    return True


def _set_history(t, node):
    """t's new grad_fn; on a view, the base's becomes CopySlices(base's old grad_fn, node)."""
    base = t._base
    if base is None:
        t._fn = node
        t._rg = True
        return
    edges = (base._edge(),) + node.edges[1:]
    meta = ((base._data.shape, base._data.dtype),) + node.input_meta[1:]
    attrs = {"_fn": node, "_positions": _geometry(t, base)["_positions"]}
    base._fn = COPY_SLICES.node_class(COPY_SLICES, edges, {}, attrs, meta, STATE.next_seq())
    base._rg = True


def _refresh_views(t):
    """After an in-place change of t's storage: t's own grad_fn is rebuilt now if t is a view
    (PyTorch's rebase_history); every other view of the storage is now stale, and is rebuilt
    when next read (fresh_view): the interpreter refreshes the ones its variables hold after
    each statement, as PyTorch rebuilds a view's grad_fn whenever it is read.

    While a script runs, the other live views are rebuilt at once, so that their nodes belong
    to the statement that changed them (what a user means by "made on line N")."""
    views = getattr(t._version_counter, "views", None)
    if not views:
        return
    if t._base is not None:
        fresh_view(t)
    if len(views) > (1 if id(t) in views else 0):
        if STATE.capture is None:
            STATE.stale = True
            return
        for meta in list(views.values()):
            v = meta.ref()
            if v is not None and v is not t:
                fresh_view(v)


def fresh_view(v):
    """A view whose storage changed in place since its grad_fn was made gets
    AsStridedBackward0 of its base (or <Invalid>, for a view made under no_grad)."""
    meta = _view_meta(v)
    if meta is None:
        return
    ver = v._version_counter.v
    if meta.version == ver:
        return
    base = v._base
    if v._fn is None and not base._rg:
        return
    meta.version = ver
    if meta.no_grad:                    # PyTorch refuses to read such a view's grad_fn
        v._fn = INVALID.node_class(INVALID, (), {}, {}, (), -1)
        return
    if meta.multi and v._fn is not None:    # nor one of several views: reading its grad_fn raises
        if v._fn.op is not INVALID:
            v._fn = INVALID.node_class(INVALID, (), {}, {"_error": _view_kind_error(v, meta.multi, "its base or another "
                                                                              "view of its base has been")}, (), -1)
        return
    row = TABLE["as_strided"]
    v._fn = row.node_class(row, (base._edge(),), {}, _geometry(v, base),
                               ((base._data.shape, base._data.dtype),), STATE.next_seq())
    v._rg = True


def fresh_views(values):
    """fresh_view for every view among values (and one container level inside them)."""
    for v in values:
        if isinstance(v, TensorBase):
            if v._base is not None:
                fresh_view(v)
        elif isinstance(v, (list, tuple)):
            for w in v:
                if isinstance(w, TensorBase) and w._base is not None:
                    fresh_view(w)
        elif isinstance(v, dict):
            for w in v.values():
                if isinstance(w, TensorBase) and w._base is not None:
                    fresh_view(w)


def _geometry(view, base):
    """AsStridedBackward0's attributes for a view of base (in elements), and `_positions`: the
    flat index in base of every element of the view, for the backward formulas."""
    a, b = view._data, base._data
    isz = b.itemsize
    b0 = b.__array_interface__["data"][0]
    va = _addresses(a)
    if b.flags.c_contiguous:
        pos = (va - b0) // isz
        inside = b.size > 0 and ((pos >= 0) & (pos < b.size)).all()
    else:
        ba = _addresses(b).reshape(-1)
        order = np.argsort(ba, kind="stable")
        k = np.minimum(np.searchsorted(ba[order], va.reshape(-1)), _b.max(b.size - 1, 0))
        pos = order[k].reshape(a.shape) if b.size else k.reshape(a.shape)
        inside = b.size > 0 and (ba[pos.reshape(-1)] == va.reshape(-1)).all()
    if a.size and (not inside or a.dtype != b.dtype):
        pos = None                      # the base's data was replaced: refused if a backward needs it
    return {"size": tuple(a.shape), "stride": tuple(st // isz for st in a.strides),
            "storage_offset": (a.__array_interface__["data"][0] - b0) // isz,
            "_positions": pos, "_base_shape": tuple(b.shape)}


def _check_positions(positions):
    if positions is None:
        raise TorchNotImplementedError_("gradcli cannot follow this view to its base any more (the base's data "
                                        "was replaced)")


def _addresses(a):
    """The memory address of every element of array a."""
    out = np.full(a.shape, a.__array_interface__["data"][0], np.int64)
    for ax, (n, st) in enumerate(zip(a.shape, a.strides)):
        shape = [1] * a.ndim
        shape[ax] = n
        out = out + (np.arange(n, dtype=np.int64) * st).reshape(shape)
    return out


def _copy_slices_backward(node, g, create_graph):
    """CopySlices: the base's gradient passes through, except over the view's elements, where the
    wrapped op's backward decides (and gives the gradients of its other inputs)."""
    if node.attrs.get("_released"):          # a non-retaining backward ran it: the second-backward error, as in PyTorch
        raise E.BackwardTwiceError(node, "fn")
    fn = node.attrs["_fn"]
    pos = node.attrs["_positions"]
    _check_positions(pos)
    if create_graph:            # a constant incoming gradient only: the scatter below is not recorded
        if g._rg:
            raise TorchNotImplementedError_("create_graph=True through CopySlices is not supported by gradcli yet "
                                            "when its incoming gradient requires grad")
        g = g._data
    result = np.array(g, copy=True, order="C")        # C order: `flat` must be a view of it
    flat = result.reshape(-1)
    grad_slice = flat[pos]
    outs = E._apply(fn, CONFIG.tensor(grad_slice) if create_graph else grad_slice, create_graph, None)
    first = outs[0]
    if create_graph and first is not None:
        if first._rg:
            raise TorchNotImplementedError_("create_graph=True through CopySlices is not supported by gradcli yet "
                                            "when the wrapped op's gradient requires grad")
        first = first._data
    flat[pos] = 0 if first is None else first
    return [CONFIG.tensor(result) if create_graph else result] + list(outs[1:])


COPY_SLICES = OpDef("CopySlices", ("self", "src"), cpp=True, doc="an in-place op on a view, applied to its base",
                    apply=_copy_slices_backward)


def _inplace_view(t, out, row, attrs):
    """An in-place view op (t_, transpose_): t's metadata changes, its version is bumped, and in
    grad mode it gets the op's node (a view stays a view of its base)."""
    fresh_views((t,))
    _check_inplace(t, ())
    seq = _begin(t)
    edge, meta = t._edge(), (t._data.shape, t._data.dtype)
    t._data = out
    t._version_counter.bump()
    if seq is not None:
        t._fn = row.node_class(row, (edge,), {}, attrs, (meta,), seq)
        own = _view_meta(t) if t._base is not None else None
        if own is not None:
            own.version = t._version_counter.v
    _refresh_views(t)
    return t
