"""The graph: grad_fn nodes, their edges and saved tensors, and the op table's rows (OpDef)."""
from __future__ import annotations

import weakref
from types import MappingProxyType

import numpy as np

from .dtypes import _BY_NP, _sizes
from .errors import TorchAttributeError, TorchRuntimeError
from .state import CONFIG, SECOND_BACKWARD_TEXT, VERSION_HINT, VERSION_HINT_ANOMALY, STATE


class Version:
    """A version counter, shared by every tensor that shares storage. A tensor makes its own
    only when something needs it (a view, a detach, a save, an in-place change): until then
    its version is 0."""

    # `views`: the differentiable views of this storage (ops._register_view), set on first use
    __slots__ = ("v", "last", "views")

    def __init__(self):
        self.v = 0
        self.last = None        # the origin (source statement) of the latest in-place change

    def bump(self):
        self.v += 1
        cap = STATE.capture
        self.last = STATE.origin if cap is None else cap()


class Saved:
    """One saved tensor (PyTorch's SavedVariable): the value, and its version when saved."""

    # (`name_fn`, set only for the output of an in-place op on a view: the view's grad_fn when
    # saved, which the version error names, as PyTorch's SavedVariable does; released with the buffer)
    # (`output_nr`, set only for a saved output that is not its node's output 0: which one the version error names)
    __slots__ = ("tensor", "_data", "version", "saved_version", "is_output", "constant", "freed", "name_fn",
                 "output_nr")

    def __init__(self, tensor, is_output=False, constant=None):
        self.tensor = None if is_output else tensor   # inputs keep identity; outputs avoid a cycle
        self._data = tensor._data
        vc = self.version = tensor._vc or tensor._version_counter     # (the property only to make one)
        self.saved_version = vc.v
        self.is_output = is_output
        self.constant = constant        # the Python number, when a scalar was wrapped as a tensor
        self.freed = False              # a backward released the buffer; the facts stay for explanations
        if is_output and type(tensor._fn) is OutputEdge:
            self.output_nr = tensor._fn.nr

    @classmethod
    def number(cls, value, data):
        """A Python number PyTorch saves as a wrapped 0-d tensor (`data`). Nothing else can
        reach that tensor, so it is made only when a script reads the slot."""
        s = cls.__new__(cls)
        s.tensor, s._data, s.version, s.saved_version = None, data, Version(), 0
        s.is_output, s.constant, s.freed = False, value, False
        return s


_NUMBERS = (float, int, bool)       # saved as themselves until read (Node.saved)


def _as_saved(value, freed):
    """The Saved that a node keeps compactly in `_saved` (see Node); `freed`: the node's are."""
    if type(value) is np.ndarray or value == ():        # the node's output, unread or freed
        s = Saved.__new__(Saved)
        s.tensor, s.version, s.saved_version, s.is_output, s.constant = None, Version(), 0, True, None
        s._data, s.freed = (value, False) if type(value) is np.ndarray else (None, True)
        return s
    if freed:
        s = Saved.number(value, None)
        s.freed = True
        return s
    return Saved.number(value, wrapped_number(value))


def wrapped_number(v):
    """A Python number as PyTorch wraps it: int -> int64, float -> float64, bool -> bool."""
    return np.array(v, np.bool_ if type(v) is bool else np.int64 if isinstance(v, int) else np.float64)


class Node:
    """A grad_fn, made as `op.node_class(...)` (one class per row, named like PyTorch's:
    type(y._fn).__name__ == "MulBackward0"). `op` is its row of the op table; `edges`
    the next node per input (None: no gradient flows there), which `next_functions` shows
    as PyTorch's ((node, 0), ...); `saved` maps slot name to Saved or None (a tensor slot
    holding nothing); `attrs` are the non-tensor attributes.

    `_saved` is `saved` as recorded, with two kinds of slot kept compact until something
    reads `saved` (which turns them into their Saved objects, once): a Python number, as
    itself (freed with the node: `freed_by` set, so freeing makes no object), and the node's
    own output, as its array (freed: the empty tuple). The output's version counter is made when the output tensor or the
    Saved first needs it (Tensor._version_counter), so until then the tensor is at version
    0, as saved. A node then holds nothing the garbage collector must visit but its edges."""

    # `_n` edges, kept in `_e0` and `_e1` when there are one or two, else as the tuple in `_e0`:
    # a tuple holding nodes would be one more object per node for the garbage collector.
    __slots__ = ("op", "seq", "_n", "_e0", "_e1", "_saved", "attrs", "input_meta", "origin",
                 "freed_by", "retained", "hooks", "__weakref__")

    def __init__(self, op, edges, saved, attrs, input_meta, seq):
        self.op = op
        self.seq = seq
        n = self._n = len(edges)
        if n == 1:
            self._e0 = edges[0]
        elif n == 2:
            self._e0, self._e1 = edges
        else:
            self._e0 = edges
        self._saved = saved
        self.attrs = attrs
        self.input_meta = input_meta        # (shape, numpy dtype) per input, to shape its gradient
        cap = STATE.capture
        self.origin = STATE.origin if cap is None else cap()
        self.freed_by = None                # the CallRecord that released the saved tensors
        self.retained = None                # non-leaf tensors that retain_grad() here
        self.hooks = None                   # tensor hooks (register_hook) on this node's output

    @property
    def saved(self):
        saved = self._saved
        freed = self.freed_by is not None
        for slot, s in saved.items():
            if s is not None and type(s) is not Saved:
                saved[slot] = _as_saved(s, freed)     # (a value replaced: the dict keeps its size)
        return saved

    @property
    def edges(self):
        n = self._n
        return (self._e0,) if n == 1 else (self._e0, self._e1) if n == 2 else self._e0

    @property
    def next_functions(self):
        # Made on each read, as PyTorch's: one flat tuple per node is all the graph keeps.
        # An edge to one output of a multi-output node is an OutputEdge: (its node, its number).
        return tuple([(e.fn, e.nr) if type(e) is OutputEdge else (e, 0) for e in self.edges])

    def name(self):
        return self.op.qualname

    def _sequence_nr(self):
        return self.seq

    def holds_tensors(self):
        """True when some saved slot held a tensor (so a second backward needs it)."""
        return any(v is not None for v in self.saved.values())

    def tensor_slots(self):
        return [k for k, v in self.saved.items() if v is not None]

    def release(self, record):
        """Free the saved tensors (a non-retaining backward ran this node); True if any were held."""
        released = False
        saved = self._saved
        for slot, s in saved.items():
            if s is None:
                continue
            if type(s) is Saved:
                if not s.freed:
                    s.freed = True
                    s._data = s.tensor = s.name_fn = None
                    released = True
            elif type(s) is np.ndarray:            # a compact output (see Node): dropped
                saved[slot] = ()
                released = True
            elif type(s) is not tuple and self.freed_by is None:   # a compact number: freed with the node
                released = True
        if released:
            self.freed_by = record
        return released

    def unpack(self, slot, as_tensor):
        """The value of a saved slot, raising the second-backward error (freed) or the version error (modified
        in place)."""
        s = self.saved[slot]
        if s is None:
            return None
        if s.freed:
            raise BackwardTwiceError(self, slot)
        if s.version.v != s.saved_version:
            raise _version_error(self, s)
        if not as_tensor:
            return s._data
        if s.is_output:
            return CONFIG.tensor(s._data, requires_grad=True, grad_fn=self, version=s.version)
        if s.tensor is None:                     # a wrapped number, first read
            s.tensor = CONFIG.tensor(s._data, version=s.version)
        elif s.tensor._base is not None:
            CONFIG.fresh_view(s.tensor)
        return s.tensor

    @property
    def metadata(self):
        """PyTorch's per-node dict for the user's own data (kept beside the node, made on first use)."""
        table = _NODE_METADATA[0]
        if table is None:
            table = _NODE_METADATA[0] = weakref.WeakKeyDictionary()
        return table.setdefault(self, {})

    def __dir__(self):
        names = set(object.__dir__(self))
        names.update("_saved_" + s for s in self.saved)
        names.update("_raw_saved_" + s for s in self.saved)
        names.update("_saved_" + a for a in self.attrs if not a.startswith("_"))
        return sorted(names)

    def __repr__(self):
        return f"<{self.op.name} object at {_fake_address(self)}>"


_NODE_METADATA = [None]


# attributes PyTorch declares as int64_t: a negative one reads as unsigned (padding_idx=-1 as 2**64 - 1)
_INT64_ATTRS = {"dim", "dims", "dim0", "dim1", "index", "ignore_index", "start", "end", "step", "padding_idx",
                "dim2", "shifts", "k", "diagonal", "offset"}


def saved_attr_value(slot, value):
    """PyTorch shows negative int64 dims and indices as unsigned: -1 -> 2**64 - 1."""
    if slot in _INT64_ATTRS:
        if type(value) is int and value < 0:
            return value + 2 ** 64
        if type(value) is tuple:
            return tuple(v + 2 ** 64 if type(v) is int and v < 0 else v for v in value)
    return value


class RawSaved:
    __slots__ = ()

    def __repr__(self):
        return f"<torch._C._autograd.SavedTensor object at {_fake_address(self)}>"


def _fake_address(obj):
    return "0x%012x" % (id(obj) & 0xFFFFFFFFFFFF)


class MultiOutputNode(Node):
    """A node whose forward made several outputs (split, unbind, a custom Function returning a
    tuple...). Each output tensor holds its own OutputEdge as `_fn`; the engine gathers the
    gradient of every output into one slot of a list (PyTorch's InputBuffer), a slot holding None
    where that output got none, and runs the node once, with the list, when every edge into any
    of its outputs has delivered."""

    __slots__ = ("n_outputs",)


class OutputEdge:
    """PyTorch's Edge (function, input_nr) for output `nr` of a MultiOutputNode: what a consumer
    of that output records as its edge, and what the output tensor keeps as `_fn` (its
    grad_fn reads `fn`, its output_nr `nr`). Made once per output (output_edges), so the engine
    may key its dependency counts and per-output gradient sums by it. To the engine it looks
    like a node with one edge, to `fn`; it is never run, only delivered (_deliver)."""

    __slots__ = ("fn", "nr", "_e0")
    _n = 1
    _saved = MappingProxyType({})       # (read by Tensor._version_counter: an output slot saves nothing here)

    def __init__(self, fn, nr):
        self.fn = self._e0 = fn
        self.nr = nr

    @property
    def op(self):
        return self.fn.op

    @property
    def edges(self):
        return (self.fn,)


def output_edges(node, n):
    """The OutputEdges of node's n outputs (node: a MultiOutputNode)."""
    node.n_outputs = n
    return tuple([OutputEdge(node, k) for k in range(n)])


class OutputHook:
    """A tensor hook registered on output `nr` of a MultiOutputNode (PyTorch's tensor pre-hook
    with its value_idx): it sees and may replace that output's slot; the node keeps the hooks of
    all its outputs in one tuple, in registration order, as PyTorch does."""

    __slots__ = ("nr", "hook")

    def __init__(self, nr, hook):
        self.nr, self.hook = nr, hook


class AccumulateGrad(Node):
    """The node of a leaf that requires grad: it adds the incoming gradient into `.grad`."""

    __slots__ = ("variable",)
    __module__ = "builtins"           # type(...) prints <class 'AccumulateGrad'>, as in PyTorch

    def __init__(self, variable):
        self.op = ACCUMULATE
        self.seq = 2 ** 64 - 1
        self._n, self._e0 = 0, ()
        self._saved = {}
        self.attrs = {}
        self.input_meta = ((variable._data.shape, variable._data.dtype),)
        self.origin = None
        self.freed_by = None
        self.retained = None
        self.hooks = None
        self.variable = variable


def _saved_attributes(saved, attrs):
    """PyTorch's `_saved_<slot>` attributes of a node class, one property per saved slot and
    attribute of its row: a saved tensor (an error once freed or modified), or a plain value;
    and `_raw_saved_<slot>`, PyTorch's SavedTensor handle. (Properties rather than a
    __getattr__, which would slow every attribute read of every node; one per slot name,
    shared by the rows.)"""
    props = {}
    for slot in attrs:
        props["_saved_" + slot] = _property(_saved_reader, slot)
    for slot, *_ in saved:
        props["_saved_" + slot] = _property(_saved_reader, slot)
        props["_raw_saved_" + slot] = _property(_raw_saved_reader, slot)
    return props


_PROPERTIES = {}


def _property(reader, slot):
    key = (reader, slot)
    made = _PROPERTIES.get(key)
    if made is None:
        made = _PROPERTIES[key] = property(reader(slot))
    return made


def _saved_reader(slot):
    name = "_saved_" + slot

    def read(node):
        if slot in node.saved:
            value = node.unpack(slot, True)
            return getattr(value, "items", value)       # IndexBackward0's indices read as a tuple
        if slot in node.attrs:
            return saved_attr_value(slot, node.attrs[slot])
        raise TorchAttributeError(f"'{node.op.name}' object has no attribute '{name}'")
    return read


def _raw_saved_reader(slot):
    name = "_raw_saved_" + slot

    def read(node):
        if slot in node.saved:
            return RawSaved()           # opaque, and it never raises
        raise TorchAttributeError(f"'{node.op.name}' object has no attribute '{name}'")
    return read


class OpDef:
    """A row of the op table (gradcli.ops): the grad_fn name, its differentiable inputs,
    the saved slots with the condition under which each holds a tensor, the non-tensor
    attributes, and one backward formula per input."""

    __slots__ = ("name", "inputs", "saved", "attrs", "formulas", "doc", "qualname", "plan", "compact",
                 "node_class", "multi", "table_formulas", "apply", "variadic", "twins", "output_slot")

    def __init__(self, name, inputs=(), saved=(), attrs=(), formulas=(), doc="", cpp=False, multi=False,
                 apply=None):
        self.name = name
        # The node class is made when the first node is (most rows never make one in a run):
        # until then `node_class(...)` makes the class, keeps it here, and returns the node.
        self.node_class = self._first_node
        self.multi = multi
        self.qualname = "torch::autograd::" + name if cpp else name     # what node.name() returns
        self.plan = None            # ops._record's precomputed saved-slot plan
        self.compact = None         # ops._compact_saver's shortcut of it (False: none)
        self.inputs = inputs
        self.table_formulas = inputs != ("tensors",)    # else a variadic op (cat, stack): `variadic`
        self.saved = saved          # tuple of (slot, source, condition)
        self.attrs = attrs
        self.formulas = formulas    # tuple, per input: (function, names of the slots/attrs it reads)
        self.doc = doc
        # (node, incoming gradient, create_graph) -> the gradient per edge, for a node whose
        # backward is not the table's formulas (CopySlices, a custom Function's)
        self.apply = apply
        # (maths, incoming gradient, attrs, input_meta) -> every input's gradient, for an op with
        # a list of inputs (cat, stack)
        self.variadic = None
        # the two formulas are one function of the other operand (mul): for x * x the engine
        # computes one product and doubles it (engine._twins)
        self.twins = False
        # the saved slot that holds the op's output (it shares the output's version counter):
        # "result" but for a few rows named as PyTorch names them (linalg_inv_ex's `inverse`)
        self.output_slot = "result"

    def _first_node(self, *args):
        self.node_class = type(self.name, (MultiOutputNode if self.multi else Node,),
                               {"__slots__": (), "__module__": "builtins",
                                **_saved_attributes(self.saved, self.attrs)})
        return self.node_class(*args)

    def __repr__(self):
        return f"OpDef({self.name})"


ACCUMULATE = OpDef("AccumulateGrad", cpp=True)
# The grad_fn of a view whose grad_fn cannot be rebuilt after an in-place change (made under
# no_grad, or one output of several): printed `grad_fn=<Invalid>`; `attrs["_error"]`, when set,
# is PyTorch's error on reading it (ops.fresh_view) and on running it
_NO_GRAD_VIEW_INDIRECT = (
    "A view was created in no_grad mode and its base or another view of its base has been modified inplace with "
    "grad mode enabled. Given that this use case is ambiguous and error-prone, it is forbidden. You can clarify "
    "your code by moving both the view and the inplace either both inside the no_grad block (if you don't want the "
    "inplace to be tracked) or both outside (if you want the inplace to be tracked).")


def _invalid_backward(node, g, create_graph):
    raise TorchRuntimeError(node.attrs.get("_error", _NO_GRAD_VIEW_INDIRECT))


INVALID = OpDef("Invalid", doc="a view whose grad_fn cannot be rebuilt after an in-place change of its storage",
                apply=_invalid_backward)
GRAPH_ROOT = OpDef("GraphRoot", cpp=True)
COPY_BACKWARDS = OpDef("CopyBackwards", ("self", "src"), cpp=True,
                       formulas=((lambda m, g: None, ()), (lambda m, g: g, ())))


def short_name(node_name):
    """How the version error names a node: 'MulBackward0' -> 'Mul', 'ClampBackward1' -> 'Clamp1'."""
    i = node_name.rfind("Backward")
    if i < 0 or node_name.endswith("Backwards"):
        return "torch::autograd::" + node_name
    n = node_name[i + 8:]
    return node_name[:i] + ("" if n == "0" else n)


class BackwardTwiceError(TorchRuntimeError):
    """The second-backward error, with the node and the slot that needed a freed buffer."""

    def __init__(self, node, slot):
        super().__init__(SECOND_BACKWARD_TEXT)
        self.node, self.slot = node, slot


class VersionError(TorchRuntimeError):
    """The version error, with the node and the saved tensor that was modified in place."""

    def __init__(self, message, node, saved):
        super().__init__(message)
        self.node, self.saved = node, saved


# Shown as PyTorch shows them ("RuntimeError: ..."); the subclasses only carry the engine facts.
for _cls in (BackwardTwiceError, VersionError):
    _cls.__name__ = _cls.__qualname__ = "RuntimeError"
    _cls.__module__ = "builtins"


def _version_error(node, s):
    dt = _BY_NP[s._data.dtype]
    # A saved input is the tensor itself, so its current sizes show (after `t_()`, say).
    shape = s._data.shape if s.tensor is None else s.tensor._data.shape
    which = ""
    if s.tensor is not None and s.tensor._base is not None:
        CONFIG.fresh_view(s.tensor)     # PyTorch reads the tensor's grad_fn, rebuilding a stale view's
    if s.is_output:
        fn = getattr(s, "name_fn", None) or node
        which = f", which is output {getattr(s, 'output_nr', 0)} of {short_name(fn.op.name)},"
    elif s.tensor._fn is not None:
        which = f", which is output {s.tensor.output_nr} of {short_name(s.tensor._fn.op.name)},"
    msg = (f"one of the variables needed for gradient computation has been modified by an inplace "
           f"operation: [torch.{dt.tensor_type} {_sizes(shape)}]{which} is at version "
           f"{s.version.v}; expected version {s.saved_version} instead. "
           f"{VERSION_HINT_ANOMALY if STATE.anomaly else VERSION_HINT}")
    return VersionError(msg, node, s)
