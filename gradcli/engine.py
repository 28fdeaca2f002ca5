"""The autograd engine: tensors, graph nodes, saved tensors and the backward pass.

It knows nothing of the script language. It behaves like PyTorch 2.13 in what a
user can observe: which node saves which tensor, when saved
tensors are freed, the order nodes run in (a max-heap on creation sequence
number, AccumulateGrad as soon as it is ready), how `.grad` accumulates, and the
exact error texts. Per-op knowledge lives in ops.py's table, not here.

What the engine does is recorded in `CallRecord`s handed to `STATE.observer`,
so explanations are facts, never guesses after the fact.
"""
from __future__ import annotations

import sys
import weakref
from types import MappingProxyType

import numpy as np
from numpy import ndarray

_ARRAYS = (ndarray, np.generic)        # what the engine keeps as a tensor's data

from .errors import TorchRuntimeError, TorchTypeError, TorchAttributeError
from . import vml

# The backward writes into an array only when its reference count shows nothing else holds
# it. From Python 3.14 the interpreter borrows references and counts can read lower than
# the holders: there every count reads as "shared", and every result is a fresh array.
if sys.version_info < (3, 14):
    _getrefcount = sys.getrefcount
else:
    def _getrefcount(obj):
        return 1 << 30

# ----------------------------------------------------------------------------- dtypes


class DType:
    """A torch dtype: `torch.float32` and friends."""

    __slots__ = ("name", "np", "kind", "tensor_type")

    def __init__(self, name, np_dtype, kind, tensor_type):
        for slot, value in zip(self.__slots__, (name, np.dtype(np_dtype), kind, tensor_type)):
            object.__setattr__(self, slot, value)

    @property
    def is_floating_point(self):
        return self.kind == 2

    @property
    def is_signed(self):
        return self.np.kind in "if"

    @property
    def is_complex(self):
        return False

    @property
    def itemsize(self):
        return self.np.itemsize

    @property
    def abbr(self):
        return f"{self.np.kind}{self.np.itemsize * 8}"          # b8, u8, i64, f32, ...

    def to_real(self):
        return self

    def to_complex(self):
        from .errors import TorchNotImplementedError, TorchRuntimeError
        if self.kind != 2:
            raise TorchRuntimeError(f"Unknown Complex ScalarType for {self.tensor_type[:-6]}")
        raise TorchNotImplementedError("gradcli has no complex dtypes")

    def __getattr__(self, name):
        from .errors import TorchAttributeError
        raise TorchAttributeError(f"'torch.dtype' object has no attribute '{name}'")

    def __setattr__(self, name, value):
        from .errors import TorchAttributeError
        if name in type(self).__dict__ or name in self.__slots__:
            raise TorchAttributeError(f"attribute '{name}' of 'torch.dtype' objects is not writable")
        raise TorchAttributeError(f"'torch.dtype' object has no attribute '{name}'")

    def __repr__(self):
        return "torch." + self.name

    __str__ = __repr__


BOOL, INT, FLOAT = 0, 1, 2          # promotion categories
bool_ = DType("bool", np.bool_, BOOL, "BoolTensor")
uint8 = DType("uint8", np.uint8, INT, "ByteTensor")
int8 = DType("int8", np.int8, INT, "CharTensor")
int16 = DType("int16", np.int16, INT, "ShortTensor")
int32 = DType("int32", np.int32, INT, "IntTensor")
int64 = DType("int64", np.int64, INT, "LongTensor")
float16 = DType("float16", np.float16, FLOAT, "HalfTensor")
float32 = DType("float32", np.float32, FLOAT, "FloatTensor")
float64 = DType("float64", np.float64, FLOAT, "DoubleTensor")
DTYPES = (bool_, uint8, int8, int16, int32, int64, float16, float32, float64)
_BY_NP = {d.np: d for d in DTYPES}


def dtype_of(array) -> DType:
    return _BY_NP[array.dtype]


def promote_types(a: DType, b: DType) -> DType:
    if a is b:
        return a
    if a.kind != b.kind:             # a float beats any int, an int beats bool
        return a if a.kind > b.kind else b
    return _BY_NP[np.promote_types(a.np, b.np)]


def _scalar_dtype(value) -> DType:
    # Python numbers take the default dtype of their category (float -> float32).
    if isinstance(value, bool):
        return bool_
    if isinstance(value, int):
        return int64
    return float32


def result_type(*operands) -> DType:
    """PyTorch's type promotion: tensors with dims beat 0-d tensors, which beat Python
    scalars, unless a weaker operand is of a higher category (bool < int < float)."""
    dim = zero = wrapped = None
    for v in operands:
        if isinstance(v, Tensor):
            d = _BY_NP[v._data.dtype]
            if v._data.ndim:
                dim = d if dim is None else promote_types(dim, d)
            else:
                zero = d if zero is None else promote_types(zero, d)
        else:
            d = _scalar_dtype(v)
            wrapped = d if wrapped is None else promote_types(wrapped, d)
    return _combine(dim, _combine(zero, wrapped))


def _combine(higher, lower):
    if higher is None:
        return lower
    if lower is None or higher.kind == FLOAT:
        return higher
    if higher.kind == BOOL or lower.kind == FLOAT:
        return promote_types(higher, lower)
    return higher


MEMORY_HOOK = None      # set while --max-memory applies: counts large buffers (ops._MEMORY.track)


class Size(tuple):
    """torch.Size: a tuple that prints as `torch.Size([2, 3])`."""

    __slots__ = ()

    def __repr__(self):
        return "torch.Size([" + ", ".join(map(str, self)) + "])"

    __str__ = __repr__

    def numel(self):
        n = 1
        for d in self:
            n *= d
        return n

# ----------------------------------------------------------------------------- state


class _State:
    """Per-run engine state (PyTorch keeps the equivalents per thread)."""

    __slots__ = ("seq", "grad_enabled", "origin", "capture", "observer", "warn", "calls", "warned", "anomaly",
                 "check_nan", "stale", "module", "edge_log")

    def __init__(self):
        # the hooks: whoever runs scripts installs its own and puts the previous back (a notebook
        # hosting a run keeps its capture), so reset() leaves them alone
        self.origin = None           # opaque tag put on new nodes when `capture` is None
        self.capture = None          # () -> the origin of a new node (a script's frame: origin.Capture)
        self.observer = None         # called with each finished CallRecord
        self.warn = _default_warn    # called with (message) for PyTorch's UserWarnings
        self.edge_log = None         # a list that gets [node, gradient in, gradients out] per node run,
        #                              for a view that replays the run (the HTML page)
        self.reset()

    def reset(self):
        """The state a new script starts from, as a new process has it."""
        self.seq = 0                 # next sequence number for a new node
        self.grad_enabled = True
        self.calls = 0               # number of backward/grad calls so far
        self.warned = set()          # PyTorch's TORCH_WARN_ONCE warnings already given
        self.anomaly = False         # torch.autograd.set_detect_anomaly / detect_anomaly
        self.check_nan = True        # ... and its check_nan flag (only read while anomaly is on)
        self.stale = False           # some view's grad_fn may be out of date (ops.fresh_view)
        self.module = None           # the nn.Module whose forward is running (origins name it)

    def next_seq(self):
        s = self.seq
        self.seq = s + 1
        return s


def _default_warn(message):
    import warnings
    warnings.warn(message, UserWarning, stacklevel=3)


STATE = _State()


def warn_once(message):
    if message not in STATE.warned:
        STATE.warned.add(message)
        STATE.warn(message)


W_SCALAR = ("Converting a tensor with requires_grad=True to a scalar may lead to unexpected behavior.\n"
            "Consider using tensor.detach() first. (Triggered internally at "
            "/__w/pytorch/pytorch/torch/csrc/autograd/generated/python_variable_methods.cpp:822.)")

W_NONLEAF_GRAD = (
    "The .grad attribute of a Tensor that is not a leaf Tensor is being accessed. Its .grad "
    "attribute won't be populated during autograd.backward(). If you indeed want the .grad field "
    "to be populated for a non-leaf Tensor, use .retain_grad() on the non-leaf Tensor. If you "
    "access the non-leaf Tensor by mistake, make sure you access the leaf Tensor instead. See "
    "github.com/pytorch/pytorch/pull/30531 for more information. (Triggered internally at "
    "/__w/pytorch/pytorch/build/aten/src/ATen/core/TensorBody.h:493.)")
W_CREATE_GRAPH = (
    "Using backward() with create_graph=True will create a reference cycle between the parameter "
    "and its gradient which can cause a memory leak. We recommend using autograd.grad when "
    "creating the graph to avoid this. If you have to use this function, make sure to reset the "
    ".grad fields of your parameters to None after use to break the cycle and avoid the leak. "
    "(Triggered internally at /__w/pytorch/pytorch/torch/csrc/autograd/engine.cpp:1307.)")
E1_TEXT = (
    "Trying to backward through the graph a second time (or directly access saved tensors after "
    "they have already been freed). Saved intermediate values of the graph are freed when you call "
    ".backward() or autograd.grad(). Specify retain_graph=True if you need to backward through the "
    "graph a second time or if you need to access saved tensors after calling backward.")
E5_HINT = (
    "Hint: enable anomaly detection to find the operation that failed to compute its gradient, "
    "with torch.autograd.set_detect_anomaly(True, check_nan=False).")
E5_HINT_ANOMALY = (
    "Hint: the backtrace further above shows the operation that failed to compute its gradient. "
    "The variable in question was changed in there or anywhere later. Good luck!")


# The C++ type names PyTorch's messages use for a dtype ("a gradient with dtype 'double'").
_C_TYPE_NAMES = {np.dtype(np.float32): "float", np.dtype(np.float64): "double", np.dtype(np.int64): "long int",
                 np.dtype(np.bool_): "bool"}


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

# ----------------------------------------------------------------------------- tensors



def _requires_grad_leaf_error(requires_grad):
    """PyTorch's requires_grad_leaf_error: only setting False gets the detach() hint."""
    message = "you can only change requires_grad flags of leaf variables."
    if not requires_grad:
        message += (" If you want to use a computed variable in a subgraph that doesn't require "
                    "differentiation use var_no_grad = var.detach().")
    return message

class Tensor:
    """A NumPy array plus PyTorch's autograd metadata. Operations are added by ops.py."""

    # `_vc`: the Version, or None while nothing has needed one (read `_version_counter`)
    __slots__ = ("_data", "_rg", "_fn", "_grad", "_vc", "_acc",
                 "_retains_grad", "_hooks", "_base", "__weakref__")
    __array_priority__ = 1000        # so `ndarray * Tensor` defers to Tensor

    def __init__(self, data=None, requires_grad=False, grad_fn=None, version=None, base=None, *sizes):
        if not isinstance(data, _ARRAYS):
            # a script's `torch.Tensor(2, 3)`, `torch.Tensor([1, 2])`, `torch.Tensor(t)` (the engine
            # itself always passes an array)
            args = (data,) if data is not None else ()
            args += tuple(v for v, unset in zip((requires_grad, grad_fn, version, base), (False, None, None, None))
                          if v is not unset) + sizes
            from .torch import Tensor_
            made = Tensor_(*args)
            data, requires_grad, grad_fn, version, base = made._data, False, None, made._vc, None
        self._data = data
        if MEMORY_HOOK is not None and data.size >= 1024:
            MEMORY_HOOK(data)
        self._rg = requires_grad          # requires_grad, without the checks of the public setter
        self._fn = grad_fn
        self._grad = None
        self._vc = version
        self._acc = None
        self._retains_grad = False
        self._hooks = None
        self._base = base

    def __getattr__(self, name):
        """Only for names the class lacks: PyTorch's methods gradcli has not implemented say so.
        (Its cost: CPython 3.11 reads no attribute of a class with __getattr__ the fast way, so
        hot code reads a tensor's attributes once, into locals.)"""
        if name.startswith("_"):
            raise TorchAttributeError(f"'Tensor' object has no attribute '{name}'")
        from .torch._not_implemented import missing
        raise missing("Tensor", name, "'Tensor' object")

    # -- metadata ----------------------------------------------------------------
    @property
    def dtype(self):
        return _BY_NP[self._data.dtype]

    @property
    def shape(self):
        return Size(self._data.shape)

    def size(self, dim=None):
        if dim is None:
            return Size(self._data.shape)
        return self._data.shape[_wrap_dim(dim, self._data.ndim)]

    @property
    def ndim(self):
        return self._data.ndim

    def dim(self):
        return self._data.ndim

    def numel(self):
        return self._data.size

    def __len__(self):
        if not self._data.ndim:
            raise TorchTypeError("len() of a 0-d tensor")
        return self._data.shape[0]

    @property
    def is_leaf(self):
        return self.grad_fn is None

    @property
    def _version(self):
        vc = self._vc
        return 0 if vc is None else vc.v

    @property
    def _version_counter(self):
        vc = self._vc
        if vc is None:
            # The output of an op that saves it shares its counter with that Saved (Node).
            fn = self._fn
            if fn is not None and fn._saved.get("result") is not None:
                vc = fn.saved["result"].version
            else:
                vc = Version()
            self._vc = vc
        return vc

    def is_floating_point(self):
        return self._data.dtype.kind == "f"

    @property
    def grad_fn(self):
        """The node that made this tensor. A view whose storage was changed in place since gets
        its node rebuilt when read, as PyTorch does (`_fn` is the node as it is)."""
        if self._base is not None:
            FRESH(self)
            if self._fn is not None and self._fn.op is INVALID and "_error" in self._fn.attrs:
                raise TorchRuntimeError(self._fn.attrs["_error"])
        fn = self._fn
        return fn.fn if type(fn) is OutputEdge else fn

    @property
    def output_nr(self):
        """Which output of its grad_fn this tensor is (0 for a leaf and a single-output node)."""
        fn = self._fn
        return fn.nr if type(fn) is OutputEdge else 0

    @grad_fn.setter
    def grad_fn(self, node):
        self._fn = node

    def data_ptr(self):
        """The address of the first element: equal for tensors that share memory from there."""
        return self._data.__array_interface__["data"][0] if self._data.size else 0

    # -- requires_grad -----------------------------------------------------------
    @property
    def requires_grad(self):
        # A view requires grad when its base does, even one made under no_grad (PyTorch's
        # DifferentiableViewMeta); `_rg` alone says whether the tensor has a graph edge.
        return self._rg or (self._base is not None and self._base._rg)

    @requires_grad.setter
    def requires_grad(self, value):
        # PyTorch's attribute takes only a bool and refuses any change on a non-leaf;
        # requires_grad_() accepts True there (it is already true) and refuses only False.
        if type(value) is not bool:
            raise TorchRuntimeError("requires_grad must be a bool")
        if self.grad_fn is not None:
            raise TorchRuntimeError(_requires_grad_leaf_error(value))
        self._set_requires_grad(value, "only Tensors of floating point and complex dtype can require gradients")

    def _set_requires_grad(self, flag, int_message):
        if self.grad_fn is not None:
            if not flag:
                raise TorchRuntimeError(_requires_grad_leaf_error(flag))
            return
        if flag and self._data.dtype.kind != "f":
            raise TorchRuntimeError(int_message)
        self._rg = flag

    def requires_grad_(self, requires_grad=True):
        if type(requires_grad) is not bool:
            raise TorchTypeError("requires_grad_(): argument 'requires_grad' (position 1) must be bool, not "
                                 + type(requires_grad).__name__)
        self._set_requires_grad(requires_grad, "only Tensors of floating point dtype can require gradients")
        return self

    # -- .grad ---------------------------------------------------------------------
    @property
    def grad(self):
        if self._fn is not None and not self._retains_grad:
            STATE.warn(W_NONLEAF_GRAD)
        return self._grad

    @grad.setter
    def grad(self, value):
        if value is not None:
            if not isinstance(value, Tensor):
                raise TorchTypeError("assigned grad expected to be a Tensor or None but got grad of type "
                                     + type(value).__name__)
            if value._data.dtype != self._data.dtype:
                raise TorchRuntimeError(
                    f"attempting to assign a gradient with dtype '{_C_TYPE_NAMES[value._data.dtype]}' to a tensor "
                    f"with grad_dtype '{_BY_NP[self._data.dtype].tensor_type[:-6]}'. The gradient must match the "
                    "tensor's grad_dtype (defaults to the tensor's dtype). You can set the tensor's grad_dtype "
                    "attribute with a specific dtype, or None to allow any dtype. Set grad_dtype with caution. "
                    "Diverging the dtypes of a tensor and its gradient may break downstream systems that assume "
                    "they match.")
            if value._data.shape != self._data.shape:
                raise TorchRuntimeError(
                    f"attempting to assign a gradient of size '{_sizes(value._data.shape)}' to a tensor of "
                    f"size '{_sizes(self._data.shape)}'. Please ensure that the gradient and the tensor "
                    "are the same size")
        self._grad = value

    def retain_grad(self):
        if not self.requires_grad:
            raise TorchRuntimeError("can't retain_grad on Tensor that has requires_grad=False")
        if self._fn is not None and not self._retains_grad:
            self._retains_grad = True
            fn = self.grad_fn                   # (for one output of several: its node, see _retain)
            fn.retained = (fn.retained or ()) + (self,)

    def register_hook(self, hook):
        if not self.requires_grad:
            raise TorchRuntimeError("cannot register a hook on a tensor that doesn't require gradient")
        owner = self._fn if self._fn is not None else self._accumulator()
        if type(owner) is OutputEdge:           # a hook on one output of several: applied to its slot
            owner, hook = owner.fn, OutputHook(owner.nr, hook)
        owner.hooks = (owner.hooks or ()) + (hook,)
        return _HookHandle(owner, hook)

    def _accumulator(self):
        acc = self._acc
        if acc is None:
            acc = self._acc = AccumulateGrad(self)
        return acc

    def _edge(self):
        """The graph edge a gradient for this tensor flows along (None: no gradient)."""
        if self._base is not None:
            FRESH(self)
        fn = self._fn
        if fn is not None:
            if fn.op is INVALID and "_error" in fn.attrs:
                raise TorchRuntimeError(fn.attrs["_error"])
            return fn
        if self._rg:
            return self._accumulator()
        return None

    # -- conversions ---------------------------------------------------------------
    def item(self):
        n = self._data.size
        if n != 1:
            raise TorchRuntimeError(f"a Tensor with {n} elements cannot be converted to Scalar")
        return self._data.reshape(()).item()

    def tolist(self):
        if self._data.size > 10_000_000:
            from .errors import LimitError
            raise LimitError(f"tolist() would make {self._data.size:,} Python numbers; a script may make at most "
                             "10,000,000 (tensors themselves are limited by --max-elements)")
        return self._data.tolist()

    def numpy(self):
        if self.requires_grad:
            raise TorchRuntimeError("Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() instead.")
        return self._data

    def __array__(self, dtype=None, copy=None):
        a = self.numpy()
        return a if dtype is None else a.astype(dtype, copy=False)

    @property
    def data(self):
        """PyTorch's `.data`: the same storage, no autograd history, a version counter of its own
        (so an in-place change through it goes unnoticed by saved tensors)."""
        return Tensor(self._data)

    @data.setter
    def data(self, value):
        if not isinstance(value, Tensor):
            raise TorchTypeError(f"Variable data has to be a tensor, but got {type(value).__name__}")
        self._data = value._data

    def detach(self):
        return Tensor(self._data, version=self._version_counter)

    def detach_(self):
        if self._fn is not None:
            self._version_counter           # (made while grad_fn still tells which counter it is)
            self._fn = None
        self._rg = False
        return self

    def __float__(self):
        if self.requires_grad:
            warn_once(W_SCALAR)
        if self._data.size != 1:
            raise TorchValueError_("only one element tensors can be converted to Python scalars")
        return float(self._data.reshape(()))

    def __int__(self):
        if self._data.size != 1:
            raise TorchValueError_("only one element tensors can be converted to Python scalars")
        return int(self._data.reshape(()))

    def __index__(self):
        if self._data.size != 1 or self._data.dtype.kind not in "iub":
            raise TorchTypeError("only integer tensors of a single element can be converted to an index")
        return int(self._data.reshape(()))

    def __bool__(self):
        if self._data.size != 1:
            raise TorchRuntimeError("Boolean value of Tensor with more than one value is ambiguous")
        return bool(self._data.reshape(()))

    def __hash__(self):
        return id(self)

    # -- backward ----------------------------------------------------------------------
    def backward(self, gradient=None, retain_graph=None, create_graph=False, inputs=None):
        if isinstance(gradient, (list, tuple)):
            # torch.autograd.backward pairs outputs with gradients by zip: the first one is used
            gradient = gradient[0] if gradient else None
        backward([self], None if gradient is None else [gradient], retain_graph, create_graph, inputs,
                 _single_gradient=gradient)

    def __repr__(self):
        from .printing import format_tensor
        if self._base is not None:
            FRESH(self)
        suffix = ()
        if self._fn is not None:
            suffix = (f"grad_fn=<{self._fn.op.name}>",)     # (an OutputEdge's op is its node's)
        elif self.requires_grad:
            suffix = ("requires_grad=True",)
        return format_tensor(self._data, self._data.dtype.name if self._data.dtype != np.bool_ else "bool", suffix)

    __str__ = __repr__

    def __format__(self, spec):
        if self._data.ndim == 0:
            return format(self._data.item(), spec)
        if spec:
            raise TorchTypeError("unsupported format string passed to Tensor.__format__")
        return repr(self)


from .errors import TorchValueError as TorchValueError_  # noqa: E402  (kept near its single use above)


class _HookHandle:
    __slots__ = ("owner", "hook")

    def __init__(self, owner, hook):
        self.owner, self.hook = owner, hook

    def remove(self):
        self.owner.hooks = tuple(h for h in (self.owner.hooks or ()) if h is not self.hook)


def _sizes(shape):
    return "[" + ", ".join(map(str, shape)) + "]"


def _wrap_dim(dim, ndim):
    if type(dim) is not int:
        dim = _index_dim(dim)
    n = max(ndim, 1)
    if not -n <= dim < n:
        from .errors import TorchIndexError
        raise TorchIndexError(f"Dimension out of range (expected to be in range of [{-n}, {n - 1}], but got {dim})")
    return dim % n

def _index_dim(dim):
    """A dim given as another integer type (NumPy's, a one-element integer tensor), as PyTorch
    accepts it; a bool or a non-integer is a TypeError."""
    if not isinstance(dim, bool) and hasattr(type(dim), "__index__"):
        try:
            return dim.__index__()
        except TypeError:
            pass
    from .errors import TorchTypeError
    raise TorchTypeError(f"argument 'dim' must be int, not {type(dim).__name__}")

# ----------------------------------------------------------------------------- graph nodes


class Saved:
    """One saved tensor (PyTorch's SavedVariable): the value, and its version when saved."""

    # (`name_fn`, set only for the output of an in-place op on a view: the view's grad_fn when
    # saved, which E5 names, as PyTorch's SavedVariable does; released with the buffer)
    # (`output_nr`, set only for a saved output that is not its node's output 0: which one E5 names)
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
        """The value of a saved slot, raising E1 (freed) or E5 (modified in place)."""
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
            return Tensor(s._data, requires_grad=True, grad_fn=self, version=s.version)
        if s.tensor is None:                     # a wrapped number, first read
            s.tensor = Tensor(s._data, version=s.version)
        elif s.tensor._base is not None:
            FRESH(s.tensor)
        return s.tensor

    def __getattr__(self, name):
        # PyTorch's `_saved_<slot>` attributes: tensors (E1 once freed, E5 once modified) or plain values.
        # (As Tensor's, it slows every attribute read of a node: the backward loop reads each once.)
        if name.startswith("_saved_"):
            slot = name[7:]
            saved = object.__getattribute__(self, "saved")
            if slot in saved:
                value = self.unpack(slot, True)
                return getattr(value, "items", value)       # IndexBackward0's indices read as a tuple
            attrs = object.__getattribute__(self, "attrs")
            if slot in attrs:
                return saved_attr_value(slot, attrs[slot])
        if name.startswith("_raw_saved_") and name[11:] in object.__getattribute__(self, "saved"):
            return RawSaved()           # PyTorch's SavedTensor handle: opaque, and it never raises
        raise TorchAttributeError(f"'{object.__getattribute__(self, 'op').name}' object has no attribute '{name}'")

    @property
    def metadata(self):
        """PyTorch's per-node dict for the user's own data (kept beside the node, made on first use)."""
        import weakref
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


_INT64_ATTRS = {"dim", "dims", "dim0", "dim1", "index", "ignore_index", "start", "end", "step"}


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


class OpDef:
    """A row of the op table (see ops.py): the grad_fn name, its differentiable inputs,
    the saved slots with the condition under which each holds a tensor, the non-tensor
    attributes, and one backward formula per input."""

    __slots__ = ("name", "inputs", "saved", "attrs", "formulas", "doc", "qualname", "plan", "compact",
                 "node_class", "table_formulas")

    def __init__(self, name, inputs=(), saved=(), attrs=(), formulas=(), doc="", cpp=False, multi=False):
        self.name = name
        self.node_class = type(name, (MultiOutputNode if multi else Node,), {"__slots__": (), "__module__": "builtins"})
        self.qualname = "torch::autograd::" + name if cpp else name     # what node.name() returns
        self.plan = None            # ops._record's precomputed saved-slot plan
        self.compact = None         # ops._compact_saver's shortcut of it (False: none)
        self.inputs = inputs
        self.table_formulas = inputs != ("tensors",)    # else a variadic op (cat, stack): ops.VARIADIC
        self.saved = saved          # tuple of (slot, source, condition)
        self.attrs = attrs
        self.formulas = formulas    # tuple, per input: (function, names of the slots/attrs it reads)
        self.doc = doc

    def __repr__(self):
        return f"OpDef({self.name})"


ACCUMULATE = OpDef("AccumulateGrad", cpp=True)
# The grad_fn of a view whose grad_fn cannot be rebuilt after an in-place change (made under
# no_grad, or one output of several): printed `grad_fn=<Invalid>`; `attrs["_error"]`, when set,
# is PyTorch's error on reading it (ops.fresh_view)
INVALID = OpDef("Invalid", doc="a view whose grad_fn cannot be rebuilt after an in-place change of its storage")
GRAPH_ROOT = OpDef("GraphRoot", cpp=True)
COPY_BACKWARDS = OpDef("CopyBackwards", ("self", "src"), cpp=True,
                       formulas=((lambda m, g: None, ()), (lambda m, g: g, ())))


def short_name(node_name):
    """How E5 names a node: 'MulBackward0' -> 'Mul', 'ClampBackward1' -> 'Clamp1'."""
    i = node_name.rfind("Backward")
    if i < 0 or node_name.endswith("Backwards"):
        return "torch::autograd::" + node_name
    n = node_name[i + 8:]
    return node_name[:i] + ("" if n == "0" else n)


class BackwardTwiceError(TorchRuntimeError):
    """E1, with the node and the slot that needed a freed buffer."""

    def __init__(self, node, slot):
        super().__init__(E1_TEXT)
        self.node, self.slot = node, slot


class VersionError(TorchRuntimeError):
    """E5, with the node and the saved tensor that was modified in place."""

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
        FRESH(s.tensor)                 # PyTorch reads the tensor's grad_fn, rebuilding a stale view's
    if s.is_output:
        fn = getattr(s, "name_fn", None) or node
        which = f", which is output {getattr(s, 'output_nr', 0)} of {short_name(fn.op.name)},"
    elif s.tensor._fn is not None:
        which = f", which is output {s.tensor.output_nr} of {short_name(s.tensor._fn.op.name)},"
    msg = (f"one of the variables needed for gradient computation has been modified by an inplace "
           f"operation: [torch.{dt.tensor_type} {_sizes(shape)}]{which} is at version "
           f"{s.version.v}; expected version {s.saved_version} instead. "
           f"{E5_HINT_ANOMALY if STATE.anomaly else E5_HINT}")
    return VersionError(msg, node, s)

# ----------------------------------------------------------------------------- backward


class CallRecord:
    """What one backward() or autograd.grad() call did, in order."""

    # `counters`: id(array) -> (array, its Version) for the memory a kept .grad view shares (_grad_version)
    __slots__ = ("index", "kind", "origin", "retain_graph", "executed", "freed", "updates", "error", "counters")

    def __init__(self, kind, retain_graph):
        STATE.calls += 1
        self.index = STATE.calls
        self.kind = kind                 # "backward" or "grad"
        cap = STATE.capture
        self.origin = STATE.origin if cap is None else cap()
        self.retain_graph = retain_graph
        self.executed = []               # nodes, in the order they ran
        self.freed = []                  # nodes whose saved tensors this call released
        self.updates = []                # (leaf, grad values before or None, grad values after)
        self.error = None
        self.counters = None

    def finish(self):
        """Hand the record to the observer, then drop the node references it holds."""
        if STATE.observer is not None:
            STATE.observer(self)
        self.executed = self.freed = self.updates = None


def _heap_push(heap, item):
    # libstdc++ std::push_heap, so that ties pop in exactly PyTorch's order. Priority is
    # PyTorch's CompareNodeTaskTime: a lower sequence number is a lower priority (compared
    # inline here and in _heap_pop: a function call per comparison was most of their cost).
    heap.append(item)
    hole = len(heap) - 1
    parent = (hole - 1) // 2
    seq = item.seq
    while hole > 0 and heap[parent].seq < seq:
        heap[hole] = heap[parent]
        hole = parent
        parent = (hole - 1) // 2
    heap[hole] = item


def _heap_pop(heap):
    # libstdc++ std::pop_heap (__adjust_heap then __push_heap) followed by pop_back.
    n = len(heap)
    top = heap[0]
    if n == 1:
        heap.pop()
        return top
    value = heap[-1]
    heap[-1] = top
    length = n - 1
    hole = 0
    child = 0
    while child < (length - 1) // 2:
        child = 2 * (child + 1)
        if heap[child].seq < heap[child - 1].seq:
            child -= 1
        heap[hole] = heap[child]
        hole = child
    if (length & 1) == 0 and child == (length - 2) // 2:
        child = 2 * (child + 1)
        heap[hole] = heap[child - 1]
        hole = child - 1
    parent = (hole - 1) // 2
    seq = value.seq
    while hole > 0 and heap[parent].seq < seq:
        heap[hole] = heap[parent]
        hole = parent
        parent = (hole - 1) // 2
    heap[hole] = value
    heap.pop()
    return top


def _as_tensor_list(value, what):
    if value is None:
        return None
    if isinstance(value, Tensor):
        return [value]
    if isinstance(value, (list, tuple)):
        return list(value)
    raise TorchTypeError(f"'{type(value).__name__}' object is not iterable")


def _make_grads(outputs, grads, create_graph):
    result = []
    for i, out in enumerate(outputs):
        g = grads[i] if grads is not None and i < len(grads) else None
        if g is None:
            if out.requires_grad and out._data.size != 1:
                raise TorchRuntimeError("grad can be implicitly created only for scalar outputs")
            if out.requires_grad and out._data.dtype.kind != "f":
                raise TorchRuntimeError(
                    f"grad can be implicitly created only for real scalar outputs but got {dtype_of(out._data)}")
            result.append(np.ones(out._data.shape, out._data.dtype) if not create_graph
                          else Tensor(np.ones(out._data.shape, out._data.dtype)))
        else:
            if not isinstance(g, Tensor):
                raise TorchTypeError(f"'{type(g).__name__}' object is not iterable")
            if g._data.shape != out._data.shape:
                raise TorchRuntimeError(
                    f"Mismatch in shape: grad_output[{i}] has a shape of {Size(g._data.shape)} and "
                    f"output[{i}] has a shape of {Size(out._data.shape)}.")
            result.append(g if create_graph else g._data)
    return result


def backward(tensors, grad_tensors=None, retain_graph=None, create_graph=False, inputs=None,
             _single_gradient=None):
    """torch.autograd.backward / Tensor.backward."""
    calls = STATE.calls
    try:
        _backward(tensors, grad_tensors, retain_graph, create_graph, inputs)
    except Exception as e:
        _raised_early(calls, "backward", retain_graph, create_graph, e)
        raise


def _raised_early(calls, kind, retain_graph, create_graph, error):
    """A call that raised before running any node is still one call, in the report too."""
    if STATE.calls == calls and STATE.observer is not None:
        record = CallRecord(kind, bool(create_graph if retain_graph is None else retain_graph))
        record.error = error
        record.finish()


def _backward(tensors, grad_tensors, retain_graph, create_graph, inputs):
    tensors = _as_tensor_list(tensors, "tensors")
    if grad_tensors is not None and not isinstance(grad_tensors, (list, tuple)):
        grad_tensors = _as_tensor_list(grad_tensors, "grad_tensors")
    if retain_graph is None:
        retain_graph = create_graph
    if create_graph:
        STATE.warn(W_CREATE_GRAPH)
    grads = _make_grads(tensors, grad_tensors, create_graph)
    if inputs is not None:
        inputs = _as_tensor_list(inputs, "inputs")
        if not inputs:
            raise TorchRuntimeError("'inputs' argument to backward() cannot be empty.")
        for t in inputs:
            if not t.requires_grad:
                raise TorchRuntimeError("can't retain_grad on Tensor that has requires_grad=False")
    _run(tensors, grads, bool(retain_graph), bool(create_graph), inputs, accumulate=True, given=grad_tensors)


def grad(outputs, inputs, grad_outputs=None, retain_graph=None, create_graph=False,
         allow_unused=None, is_grads_batched=False, materialize_grads=False):
    """torch.autograd.grad."""
    calls = STATE.calls
    try:
        return _grad(outputs, inputs, grad_outputs, retain_graph, create_graph, allow_unused, materialize_grads)
    except Exception as e:
        _raised_early(calls, "grad", retain_graph, create_graph, e)
        raise


def _grad(outputs, inputs, grad_outputs, retain_graph, create_graph, allow_unused, materialize_grads):
    outputs = _as_tensor_list(outputs, "outputs")
    inputs = _as_tensor_list(inputs, "inputs")
    if allow_unused is None:
        allow_unused = materialize_grads
    if grad_outputs is not None and not isinstance(grad_outputs, (list, tuple)):
        grad_outputs = _as_tensor_list(grad_outputs, "grad_outputs")
    if retain_graph is None:
        retain_graph = create_graph
    grads = _make_grads(outputs, grad_outputs, create_graph)
    _starts(outputs)                        # PyTorch's engine reads the outputs before the inputs
    for t in inputs:
        if not t.requires_grad:
            raise TorchRuntimeError("One of the differentiated Tensors does not require grad")
    captured = _run(outputs, grads, bool(retain_graph), bool(create_graph), inputs, accumulate=False)
    result = []
    for i, (t, g) in enumerate(zip(inputs, captured)):
        if g is None:
            if materialize_grads:
                g = np.zeros(t._data.shape, t._data.dtype)
            elif not allow_unused:
                raise TorchRuntimeError(
                    f"The differentiated Tensor at index {i} appears to not have been used in the graph. "
                    "Set allow_unused=True if this is the desired behavior.")
        if g is not None and not isinstance(g, Tensor):
            g = Tensor(g)
        result.append(g)
    return tuple(result)


def _starts(roots):
    """The edges a backward starts from: each root's grad_fn (or its AccumulateGrad)."""
    starts = []
    for i, t in enumerate(roots):
        fn = t._edge()
        if fn is None:
            raise TorchRuntimeError(f"element {i} of tensors does not require grad and does not have a grad_fn")
        starts.append(fn)
    return starts


def _run(roots, grads, keep_graph, create_graph, inputs, accumulate, given=None):
    """The engine proper. Returns the captured gradients of `inputs` (autograd.grad).
    `given`: the user's gradient tensors, whose version counters a kept view of one shares."""
    starts = _starts(roots)
    record = CallRecord("backward" if accumulate else "grad", keep_graph)
    if given:
        record.counters = {id(_memory_owner(g._data)): (g._data, g._version_counter)
                           for g in given if isinstance(g, Tensor)}

    if len(starts) == 1:
        root = starts[0]
        buffers = {root: grads[0]}
    else:                                   # PyTorch's GraphRoot: a node of its own, with a number
        root = GRAPH_ROOT.node_class(GRAPH_ROOT, tuple(starts), {}, {}, (), STATE.next_seq())
        buffers = {root: grads}

    # Dependencies: incoming edges per node, repeats counted (x*x has two into Acc(x)).
    deps = {}
    stack = [root]
    push = stack.append
    while stack:
        fn = stack.pop()
        n = fn._n                           # fn.edges, inlined: this visits every node
        for nxt in (fn._e0,) if n == 1 else (fn._e0, fn._e1) if n == 2 else fn._e0:
            if nxt is None:
                continue
            d = deps.get(nxt)
            if d is None:
                deps[nxt] = 1
                push(nxt)                   # (never the root: the graph has no cycles)
            else:
                deps[nxt] = d + 1

    # With inputs: run only nodes on a path to one of them (PyTorch's exec_info).
    # `wanted` = nodes whose incoming gradient is computed: needed ones and captured ones.
    needed = captures = wanted = None
    if inputs is not None:
        targets = {}
        for k, t in enumerate(inputs):
            targets.setdefault(t._edge(), []).append(k)
        needed = set()
        reach = {}
        # A node whose output is a target runs (for its hooks and captures): it counts as one too.
        seen = targets.keys() | {e.fn for e in targets if type(e) is OutputEdge}
        for fn in reversed(_topological(root, deps)):
            r = fn in seen
            for nxt in fn.edges:
                if nxt is not None and reach[nxt]:
                    r = True
                    needed.add(fn)
            reach[fn] = r
        if accumulate:
            needed.update(targets)
            for t in inputs:
                if t._fn is not None:
                    t.retain_grad()
        else:
            captures = targets
        wanted = needed | set(targets)
        # an output wanted (captured, or retained) is seen when its node is popped: the node is too
        wanted.update([e.fn for e in wanted if type(e) is OutputEdge])
        result = [None] * len(inputs)

    prev_mode = STATE.grad_enabled
    STATE.grad_enabled = create_graph
    if type(root) is OutputEdge:            # backward from one output of several: into its slot
        root = _deliver(root, buffers, deps)
    heap = [root]
    owned = set()           # nodes whose buffer is a sum this call made: add into it in place, keep it as .grad
    adds = {}               # node -> the version PyTorch's sum in its buffer has (_sum_into)
    watched = STATE.observer is not None        # a report lists the nodes each call ran
    plain = captures is None and needed is None and not watched
    fast = plain and not create_graph
    ndarray, spare_min, output_edge = np.ndarray, _SPARE_MIN, OutputEdge      # (locals: read for every node)
    fn = None
    # `carry`: the node that runs next, with its gradient `cbuf`, when the fast path below
    # finds it ready with the heap empty (a chain): no round trip through buffers and heap.
    carry = cbuf = None
    try:
        while heap or carry is not None:
            if carry is not None:
                fn, buf = carry, cbuf
                carry = cbuf = g = None         # (buf's reference count matters: see spare)
            else:
                fn = heap.pop() if len(heap) == 1 else _heap_pop(heap)
                buf = buffers.pop(fn, None)
            # Tensor pre-hooks (register_hook, retain_grad) run on every node popped, even
            # one that is only captured or not needed (the root), as in PyTorch.
            if fn.hooks:
                buf = _hooked(fn, buf, record)
            if fn.retained and buf is not None:
                for t in fn.retained:
                    _retain(t, buf, create_graph)
            if not plain:
                if captures is not None:
                    if fn in captures:
                        for k in captures[fn]:
                            result[k] = buf
                    elif type(buf) is list:
                        _capture_slots(fn, buf, captures, result)
                if needed is not None and fn not in needed:
                    continue
                if watched:
                    record.executed.append(fn)
            if type(fn) is AccumulateGrad:
                if buf is not None:
                    # Earlier nodes' leftovers may name buf: dropped, so that its reference
                    # count tells whether anything else holds it (PyTorch's use_count).
                    g = old = outs = s = None
                    alone = fn in owned or _getrefcount(buf) == 2 and (type(buf) is ndarray or _data_unshared(buf))
                    _accumulate(fn.variable, buf, create_graph, record, alone, adds.get(fn))
                continue
            op = fn.op
            if op is GRAPH_ROOT:
                outs = buf
            elif fast and buf is not None and op.table_formulas and op not in CUSTOM_APPLY and not STATE.anomaly:
                # The common case, _apply and the routing below in one pass: each formula's
                # gradient goes straight to its edge; the saved tensors are released once all
                # have run. (`is not`: NumPy's dtypes are singletons; fit compares them properly.)
                saved = fn._saved
                attrs = vals = fn.attrs     # (a node's attributes are slow to read: each read once)
                if saved:               # _unpacked, inlined for nodes holding only compact slots
                    vals = saved
                    if attrs or fn.freed_by is not None:
                        vals = _unpacked(fn, False)
                    else:
                        for s in saved.values():
                            if type(s) is Saved or type(s) is tuple:
                                vals = _unpacked(fn, False)
                                break
                n = fn._n                       # fn.edges, inlined
                edges = (fn._e0,) if n == 1 else (fn._e0, fn._e1) if n == 2 else fn._e0
                # A large incoming gradient may be overwritten by the node's last formula
                # (NUMPY_MATH.spare) if, when that formula runs, nothing else refers to it.
                last = None
                if type(buf) is ndarray and buf.size >= spare_min and n <= 2:
                    last = fn._e0 if n == 1 or fn._e1 is None else fn._e1 if fn._e0 is not fn._e1 else None
                    if last is None and fn._e0 is not None and _twins(fn, op, vals, buffers):
                        edges = ()              # x * x: one product, doubled (below)
                        (formula, names), (shape, dtype) = op.formulas[0], fn.input_meta[0]
                        g = formula(NUMPY_MATH, buf, *map(vals.__getitem__, names))
                        if g.shape != shape or g.dtype is not dtype:
                            g = NUMPY_MATH.fit(g, shape, dtype)
                        nxt = fn._e0
                        private = type(g) is np.ndarray and g.base is None and _getrefcount(g) == 2
                        g = buffers[nxt] = np.add(g, g, out=g) if private else g + g
                        adds[nxt] = 1               # PyTorch: the second product added into the first
                        if type(g) is np.ndarray:
                            owned.add(nxt)
                        d = deps[nxt] = deps[nxt] - 2
                        if d == 0 and type(nxt) is output_edge:
                            nxt = _deliver(nxt, buffers, deps)
                            d = 0 if nxt is not None else 1
                        if d == 0:
                            if heap:
                                _heap_push(heap, nxt)
                            else:
                                heap.append(nxt)
                for nxt, (formula, names), (shape, dtype) in zip(edges, op.formulas, fn.input_meta):
                    if nxt is None:
                        continue
                    if nxt is last:
                        g = old = s = None      # stale references from the previous formula, node or loop
                        if buf.base is None and _getrefcount(buf) == 2:
                            NUMPY_MATH.spare = buf
                        if not keep_graph and fn._saved:
                            NUMPY_MATH.spare_saved = _spare_saved(fn, vals)
                    if not names:
                        g = formula(NUMPY_MATH, buf)
                    elif len(names) == 1:
                        g = formula(NUMPY_MATH, buf, vals[names[0]])
                    else:
                        g = formula(NUMPY_MATH, buf, *map(vals.__getitem__, names))
                    if nxt is last:               # buf is not read again: g may be added into
                        NUMPY_MATH.spare = NUMPY_MATH.spare_saved = None
                        if buf.base is None and _getrefcount(buf) == 2:
                            dead = NUMPY_MATH.dead      # unused and unreferenced: for the next fresh results
                            dead.append(buf)
                            if len(dead) > 2:
                                del dead[0]
                        buf = None
                    if g is not None:
                        if g.shape != shape or g.dtype is not dtype:
                            g = NUMPY_MATH.fit(g, shape, dtype)
                        old = buffers.get(nxt)
                        if old is None:
                            if deps[nxt] == 1 and not heap and carry is None and type(nxt) is not output_edge:
                                carry, cbuf = nxt, g    # its only gradient, and it runs next
                                continue
                            buffers[nxt] = g
                        else:
                            _sum_into(buffers, owned, nxt, old, g, adds)
                    d = deps[nxt] - 1
                    deps[nxt] = d
                    if d == 0:
                        if type(nxt) is output_edge:
                            nxt = _deliver(nxt, buffers, deps)
                            if nxt is None:
                                continue
                        if carry is not None:   # not alone after all: the carried node first, as it came
                            buffers[carry] = cbuf
                            heap.append(carry)
                            carry = cbuf = None
                        if heap:
                            _heap_push(heap, nxt)
                        else:
                            heap.append(nxt)
                if keep_graph or not saved:
                    continue
                if vals is saved:       # fn.release, inlined for compact slots (see Node)
                    released = False
                    for slot, s in saved.items():
                        if s is not None:       # (a number stays: freed_by says it is freed)
                            if type(s) is np.ndarray:
                                saved[slot] = ()
                            released = True
                    if released:
                        fn.freed_by = record
                        record.freed.append(fn)
                elif fn.release(record):
                    record.freed.append(fn)
                continue
            else:
                outs = _apply(fn, buf, create_graph, wanted)
                if STATE.edge_log is not None:      # (a view that replays the run: the HTML page)
                    STATE.edge_log.append([fn, buf, None if outs is None else list(outs)])
                if not keep_graph:
                    if fn._saved and fn.release(record):
                        record.freed.append(fn)
                    if op in CUSTOM_APPLY:                # CopySlices frees the op it wraps
                        inner = fn.attrs.get("_fn")
                        if inner is not None:
                            inner.release(record)
                        # and, like PyTorch's (release_variables drops `fn`), cannot run again
                        fn.attrs["_released"] = True
                        fn.freed_by = fn.freed_by or record
                if STATE.anomaly and STATE.check_nan:     # after the release, as in PyTorch
                    _check_nan(fn, outs)
            for i, nxt in enumerate(fn.edges):
                if nxt is None:
                    continue
                g = outs[i]
                outs[i] = None          # (the buffer alone holds g: _sum_into reads its reference count)
                if g is not None:
                    old = buffers.get(nxt)
                    if old is None:
                        buffers[nxt] = g
                    else:
                        _sum_into(buffers, owned, nxt, old, g, adds)
                d = deps[nxt] - 1
                deps[nxt] = d
                if d == 0 and type(nxt) is output_edge:
                    nxt = _deliver(nxt, buffers, deps)
                    if nxt is None:
                        continue
                if d == 0 and (wanted is None or nxt in wanted):
                    if heap:
                        _heap_push(heap, nxt)
                    else:
                        heap.append(nxt)
    except Exception as exc:
        record.error = exc
        if STATE.anomaly and fn is not None:
            _anomaly_warning(fn)
        raise
    finally:
        STATE.grad_enabled = prev_mode
        # a formula that raised may have left these set; a dead buffer is not kept past the call
        NUMPY_MATH.spare = NUMPY_MATH.spare_saved = None
        NUMPY_MATH.dead.clear()
        record.finish()
    return result if inputs is not None and not accumulate else None


W_ANOMALY_AT = " (Triggered internally at /__w/pytorch/pytorch/torch/csrc/autograd/python_anomaly_mode.cpp:{}.)"


def _anomaly_warning(fn):
    """Anomaly mode: before the error escapes, PyTorch warns with the forward traceback that
    made the failing node (recorded only for nodes made while anomaly mode was on)."""
    trace = getattr(fn.origin, "anomaly_trace", None)
    if trace is None:
        STATE.warn(f"Error detected in {fn.name()}. No forward pass information available. Enable detect "
                   "anomaly during forward pass for more information." + W_ANOMALY_AT.format(100))
    else:
        STATE.warn(f"Error detected in {fn.name()}. Traceback of forward call that caused the error:\n"
                   + trace() + W_ANOMALY_AT.format(122))


def _check_nan(fn, outs):
    for i, g in enumerate(outs):
        if g is not None:
            a = g._data if isinstance(g, Tensor) else g
            if a.dtype.kind == "f" and np.isnan(a).any():
                raise TorchRuntimeError(f"Function '{fn.name()}' returned nan values in its {i}th output.")


def _hooked(fn, buf, record):
    """Run tensor hooks on the gradient flowing into fn; a hook may return a replacement. The
    tensor a hook sees shares its version counter with the .grad views a leaf keeps of it."""
    if not fn.hooks or buf is None:
        return buf
    if type(buf) is list:                   # a MultiOutputNode's slots: each hook sees its output's
        return _hooked_slots(fn.hooks, buf, record)
    g = buf if isinstance(buf, Tensor) else Tensor(buf, version=_grad_version(record, buf))
    for hook in fn.hooks:
        if not callable(hook):            # registering accepts anything; calling it fails, as in PyTorch
            raise TorchTypeError(f"'{type(hook).__name__}' object is not callable")
        r = hook(g)
        if r is not None:
            g = r
    return g if isinstance(buf, Tensor) else g._data


def _hooked_slots(hooks, slots, record):
    """OutputHooks on the slots of a MultiOutputNode, in registration order. As in PyTorch, a
    hook on an output that got no gradient is called with None."""
    slots = list(slots)
    for h in hooks:
        if not callable(h.hook):
            raise TorchTypeError(f"'{type(h.hook).__name__}' object is not callable")
        g = slots[h.nr]
        wrapped = g is not None and not isinstance(g, Tensor)
        r = h.hook(Tensor(g, version=_grad_version(record, g)) if wrapped else g)
        if r is not None:
            slots[h.nr] = r._data if wrapped or (g is None and not STATE.grad_enabled) else r
    return slots


def _capture_slots(fn, slots, captures, result):
    """autograd.grad's inputs that are outputs of MultiOutputNode fn: their slots, after the hooks."""
    for e, ks in captures.items():
        if type(e) is OutputEdge and e.fn is fn:
            for k in ks:
                result[k] = slots[e.nr]


def _deliver(e, buffers, deps):
    """Every edge into output e.nr of a MultiOutputNode has run: its summed gradient goes into
    that output's slot of the node's buffer. Returns the node once every output's edges have
    delivered (it is then ready), else None."""
    fn = e.fn
    slots = buffers.get(fn)
    if slots is None:
        slots = buffers[fn] = [None] * fn.n_outputs
    g = buffers.pop(e, None)
    old = slots[e.nr]
    slots[e.nr] = g if old is None or g is None else old + g
    d = deps[fn] = deps[fn] - 1
    return fn if d == 0 else None


def _retain(t, buf, create_graph):
    if type(buf) is list:                   # t is one output of a MultiOutputNode: its slot
        e = t._fn
        buf = buf[e.nr] if type(e) is OutputEdge else None
        if buf is None:
            return
    if t._grad is None:
        t._grad = Tensor(buf._data.copy() if isinstance(buf, Tensor) else buf.copy())
    else:
        t._grad = Tensor(t._grad._data + (buf._data if isinstance(buf, Tensor) else buf))


def _topological(root, deps):
    """Nodes reachable from root, every node after all of its parents (Kahn's algorithm)."""
    remaining = dict(deps)
    order, ready = [], [root]
    while ready:
        fn = ready.pop()
        order.append(fn)
        for nxt in fn.edges:
            if nxt is not None:
                remaining[nxt] -= 1
                if remaining[nxt] == 0:
                    ready.append(nxt)
    return order


def _sum_into(buffers, owned, nxt, old, g, adds):
    """A further gradient g for nxt, whose buffer holds old: added in place into a sum this
    call made (owned: nothing else sees it yet), or into g when g is a formula's own
    temporary (it owns its memory, and only the caller's `g`, this argument and
    getrefcount's refer to it), the same additions as `old + g`, one array fewer; else a new
    sum, which the call then owns.

    `adds[nxt]`: the version the sum has in PyTorch, whose InputBuffer adds into `old` itself
    (old.add_(g), one version more) when nothing else holds old or its memory, else makes a
    new sum (version 0); a .grad that keeps the sum shows it (_accumulate)."""
    if nxt in owned or (type(old) is np.ndarray and old.base is None and _getrefcount(old) == 4):
        adds[nxt] = (adds[nxt] if nxt in adds else _writes(old)) + 1
    else:
        adds.pop(nxt, None)
    if nxt in owned:
        np.add(old, g, out=old)
    elif (type(g) is np.ndarray and g.base is None and _getrefcount(g) == 3
          and type(old) is np.ndarray and old.dtype is g.dtype and old.shape == g.shape):
        buffers[nxt] = np.add(old, g, out=g)
        owned.add(nxt)
    else:
        old = buffers[nxt] = old + g
        if type(old) is np.ndarray:
            owned.add(nxt)


def _twins(fn, op, vals, buffers):
    """x * x: both edges go to one node that has no gradient yet, and the op's two formulas
    (TWINS) read the same array: their sum is one result doubled (a + a, the same bits as two
    equal summands), one pass and one array fewer."""
    if op not in TWINS or buffers.get(fn._e0) is not None:
        return False
    (_, (a,)), (_, (b,)) = op.formulas
    return vals[a] is vals[b]


def _spare_saved(fn, vals):
    """A saved array of fn that its last formula may overwrite (NUMPY_MATH.spare_saved):
    the release right after frees it, and nothing else refers to it (its tensor is gone, no
    other node saved it, no view of it). vals: what the formulas read (_unpacked)."""
    saved = fn._saved
    for slot in vals:                   # (not .items(): its tuple would hold v once more)
        v = vals[slot]
        if type(v) is not np.ndarray or v.base is not None or v.size < _SPARE_MIN:
            continue
        s = saved.get(slot)
        if s is v:                      # the node's own output, kept compact: `saved` is `vals`
            refs = 4                    # saved, v, s, getrefcount's argument
        elif type(s) is Saved and s._data is v and s.constant is None:
            t = s.tensor                # an input's tensor, kept by nothing else, holding v
            if t is not None and (t._data is not v or _getrefcount(t) != 3):     # s.tensor, t, argument
                continue
            refs = 4 if t is None else 5            # vals, s._data, v, the argument (and t._data)
        else:
            continue
        if _getrefcount(v) == refs:
            return v
    return None


def _unpacked(fn, create_graph):
    """What a node's formulas read: each saved slot's value, else the attribute of that name.
    Like PyTorch's generated code, every saved slot is unpacked before any formula runs: a
    freed slot raises E1, a slot modified in place raises E5."""
    saved = fn._saved
    if not saved:
        return fn.attrs
    if not create_graph and not fn.attrs and fn.freed_by is None:
        for s in saved.values():
            if type(s) is Saved or type(s) is tuple:
                break
        else:
            return saved        # only unread compact slots and Nones (Node): what formulas read
    vals = dict(fn.attrs) if fn.attrs else {}
    if create_graph:
        for slot in saved:
            vals[slot] = fn.unpack(slot, True)
        return vals
    # A wrapped Python number enters the formula as that number: NumPy then computes
    # in the gradient's dtype, as PyTorch does with a wrapped scalar.
    for slot, s in saved.items():
        if s is None:
            vals[slot] = None
        elif type(s) is Saved:
            if s.freed:
                raise BackwardTwiceError(fn, slot)
            if s.version.v != s.saved_version:
                raise _version_error(fn, s)
            vals[slot] = s._data if s.constant is None else s.constant
        elif type(s) is tuple or fn.freed_by is not None:     # a freed compact slot (see Node)
            raise BackwardTwiceError(fn, slot)
        else:                             # a number or the output that nothing has read (nor changed)
            vals[slot] = s
    return vals


def _apply(fn, grad_out, create_graph, wanted):
    """Run one node's backward formulas (the grads for each next edge, None where unused).
    (_run runs the common case itself: no create_graph, inputs, observer or anomaly mode.)"""
    op = fn.op
    custom = CUSTOM_APPLY.get(op)
    if custom is None:
        vals = _unpacked(fn, create_graph)
    edges = fn.edges
    if grad_out is None:
        return [None] * len(edges)
    m = TENSOR_MATH if create_graph else NUMPY_MATH
    if custom is not None:
        outs = custom(fn, grad_out, create_graph)
        return [None if nxt is None or (wanted is not None and nxt not in wanted) or g is None
                else m.fit(g, shape, dtype)
                for nxt, g, (shape, dtype) in zip(edges, outs, fn.input_meta)]
    if not op.table_formulas:                # cat / stack: one function gives every input's grad
        grads = VARIADIC[op.name](m, grad_out, fn.attrs, fn.input_meta)
        return [None if nxt is None or (wanted is not None and nxt not in wanted) else m.fit(g, shape, dtype)
                for nxt, g, (shape, dtype) in zip(edges, grads, fn.input_meta)]
    count = len(op.formulas)
    grads = [None] * count
    # PyTorch's generated backward evaluates the formulas in the sorted order of their input
    # names (other before self, exponent before self): under create_graph that is the order of
    # the recorded nodes. The engine then fits each gradient to its input, in input order.
    for i in (sorted(range(count), key=op.inputs.__getitem__) if create_graph and count > 1 else range(count)):
        nxt = edges[i]
        if nxt is None or (wanted is not None and nxt not in wanted):
            continue
        formula, names = op.formulas[i]
        grads[i] = formula(m, grad_out, *map(vals.__getitem__, names))
    outs = []
    for g, (shape, dtype) in zip(grads, fn.input_meta):
        if g is not None:
            g = m.fit(g, shape, dtype)
        outs.append(g)
    return outs


def _accumulate(leaf, buf, create_graph, record, owned=False, version=None):
    """AccumulateGrad, with PyTorch's rules for a first gradient: without create_graph it is
    kept as .grad itself ("stolen", a view included, so that .grad may share memory with
    other leaves' gradients or a tensor the user holds) when nothing else holds it (`owned`)
    and its layout is the leaf's; otherwise .grad is a copy. A later gradient is added in place."""
    watched = STATE.observer is not None          # the report shows each .grad before and after
    grad, variable = leaf._grad, leaf._data       # (each read once: a tensor's attributes are slow to read)
    before = grad._data.copy() if watched and grad is not None else None
    if not create_graph:
        data = buf if type(buf) is ndarray else buf._data if isinstance(buf, Tensor) else buf
        if grad is None:
            if owned and data.dtype == variable.dtype and data.flags.writeable and _obeys_layout(data, variable):
                if data.base is not None or record.counters and id(data) in record.counters:
                    leaf._grad = Tensor(data, version=_grad_version(record, data))
                else:
                    # the version PyTorch's kept gradient has: its in-place additions or writes
                    leaf._grad = Tensor(data)
                    version = _writes(data) if version is None else version
                    if version:
                        leaf._grad._version_counter.v = version
            else:
                # PyTorch's clone_obey_contract: new_empty_strided(...).copy_(g), a copy at version 1,
                # for a non-overlapping and dense variable, else clone(): version 0
                leaf._grad = Tensor(np.array(data, dtype=variable.dtype, copy=True))
                if _non_overlapping_and_dense(variable):
                    leaf._grad._version_counter.v = 1
        else:
            np.add(grad._data, data, out=grad._data, casting="unsafe")
            grad._version_counter.bump()
    else:
        g = buf if isinstance(buf, Tensor) else Tensor(buf)
        if grad is None:
            # PyTorch copies into a fresh buffer under grad mode: a CopyBackwards node.
            out = Tensor(np.array(g._data, dtype=variable.dtype, copy=True))
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


def _data_unshared(buf):
    """A gradient held as a Tensor (a hook's result): its array must be held by it alone."""
    return type(buf) is not Tensor or _getrefcount(buf._data) == 2


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
        m = NUMPY_MATH
        if a is m.spare_saved:
            return np.multiply(a, np.asarray(s, a.dtype), out=a)
        return a * np.asarray(s, a.dtype) if not m.dead else np.multiply(a, np.asarray(s, a.dtype), out=_fresh(a, a))

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

    # Arrays a formula may write into, saving a new array and its cold memory. Set by _run
    # around a node's last formula: `spare`, the incoming gradient when nothing else refers to
    # it (nor to its memory); `spare_saved`, a saved array that the release right after frees
    # and that nothing else refers to (_spare_saved). Only formulas that read them once, in
    # that call, use them. `dead`: up to two incoming gradients that their nodes left unused
    # and unreferenced, recently read (so in cache), for the next new results (_fresh).
    spare = spare_saved = None
    dead = []

    @staticmethod
    def mul_g(g, x):
        """g * x"""
        m = NUMPY_MATH
        if g is m.spare:
            return _into(np.multiply, g, x, g)
        if x is m.spare_saved:          # 1 * x is x, bit for bit (sum()'s gradient, expanded)
            return x if _all_ones(g, x) else _into(np.multiply, g, x, x)
        return g * x if not m.dead else np.multiply(g, x, out=_fresh(g, x))

    @staticmethod
    def div_g(g, x):
        """g / x"""
        m = NUMPY_MATH
        if g is m.spare:
            return _into(np.divide, g, x, g)
        if x is m.spare_saved:
            return _into(np.divide, g, x, x)
        return g / x if not m.dead else np.divide(g, x, out=_fresh(g, x))

    @staticmethod
    def neg_g(g):
        """-g"""
        m = NUMPY_MATH
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


_SPARE_MIN = 4096       # elements: below this a fresh array costs less than checking that g is spare


def _all_ones(g, x):
    """g is one 1 broadcast to x's shape, in x's dtype (a view with all strides 0)."""
    return (type(g) is np.ndarray and g.shape == x.shape and g.dtype == x.dtype and g.size
            and not any(g.strides) and g.flat[0] == 1)


def _fresh(a, b):
    """Where ufunc(a, b) may go: the latest of NUMPY_MATH.dead of its shape and dtype when a
    and b are float arrays of one shape and dtype (taken: used once), else None (a new array)."""
    dead = NUMPY_MATH.dead
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


NUMPY_MATH = _NumpyMath()     # extended by ops.py
TENSOR_MATH = None            # set by ops.py: the same names, as differentiable tensor ops
VARIADIC = {}                 # set by ops.py: backward of ops with a list of inputs
CUSTOM_APPLY = {}             # set by ops.py: nodes whose backward is not a table formula (CopySlices)
TWINS = set()                 # set by ops.py: ops whose two formulas are one function of the other operand (mul)
FRESH = None                  # set by ops.py: rebuild a view's grad_fn after its storage changed in place
