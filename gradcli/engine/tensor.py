"""Tensors: a NumPy array with PyTorch's autograd metadata (requires_grad, grad_fn, .grad,
hooks, the version counter), and the type promotion of tensors and Python numbers."""
from __future__ import annotations

import numpy as np
from numpy import ndarray

from .dtypes import _BY_NP, BOOL, FLOAT, DType, Size, _sizes, bool_, float32, int64, promote_types
from .errors import LimitError, TorchIndexError, TorchRuntimeError, TorchTypeError, TorchValueError
from .graph import INVALID, AccumulateGrad, OutputEdge, OutputHook, Version
from .printing import format_tensor
from .state import CONFIG, STATE, W_NONLEAF_GRAD, W_SCALAR, warn_once

_ARRAYS = (ndarray, np.generic)        # what the engine keeps as a tensor's data

_C_TYPE_NAMES = {np.dtype(np.float32): "float", np.dtype(np.float64): "double", np.dtype(np.int64): "long int",
                 np.dtype(np.bool_): "bool"}


def _requires_grad_leaf_error(requires_grad):
    """PyTorch's requires_grad_leaf_error: only setting False gets the detach() hint."""
    message = "you can only change requires_grad flags of leaf variables."
    if not requires_grad:
        message += (" If you want to use a computed variable in a subgraph that doesn't require "
                    "differentiation use var_no_grad = var.detach().")
    return message


class TensorBase:
    """A NumPy array plus PyTorch's autograd metadata, as PyTorch's torch._C.TensorBase: what the
    engine needs of a tensor. torch.Tensor (gradcli/torch/_tensor.py) adds the operations; the
    engine makes tensors of that class (configure)."""

    # `_vc`: the Version, or None while nothing has needed one (read `_version_counter`)
    __slots__ = ("_data", "_rg", "_fn", "_grad", "_vc", "_acc",
                 "_retains_grad", "_hooks", "_base", "__weakref__")
    __array_priority__ = 1000        # so `ndarray * Tensor` defers to Tensor

    def __init__(self, data, requires_grad=False, grad_fn=None, version=None, base=None):
        self._data = data
        if STATE.memory_hook is not None and data.size >= 1024:
            STATE.memory_hook(data)
        self._rg = requires_grad          # requires_grad, without the checks of the public setter
        self._fn = grad_fn
        self._grad = None
        self._vc = version
        self._acc = None
        self._retains_grad = False
        self._hooks = None
        self._base = base

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
            if fn is not None and fn._saved.get(fn.op.output_slot) is not None:
                vc = fn.saved[fn.op.output_slot].version
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
            CONFIG.fresh_view(self)
            if self._fn is not None and self._fn.op is INVALID and "_error" in self._fn.attrs:
                raise TorchRuntimeError(self._fn.attrs["_error"])
        fn = self._fn
        return fn.fn if type(fn) is OutputEdge else fn

    @property
    def output_nr(self):
        """Which output of its grad_fn this tensor is (0 for a leaf and a single-output node)."""
        fn = self._fn
        return fn.nr if type(fn) is OutputEdge else 0

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
            if not isinstance(value, TensorBase):
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
            CONFIG.fresh_view(self)
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
        return CONFIG.tensor(self._data)

    @data.setter
    def data(self, value):
        if not isinstance(value, TensorBase):
            raise TorchTypeError(f"Variable data has to be a tensor, but got {type(value).__name__}")
        self._data = value._data

    def detach(self):
        return CONFIG.tensor(self._data, version=self._version_counter)

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
            raise TorchValueError("only one element tensors can be converted to Python scalars")
        return float(self._data.reshape(()))

    def __int__(self):
        if self._data.size != 1:
            raise TorchValueError("only one element tensors can be converted to Python scalars")
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

    def __repr__(self):
        if self._base is not None:
            CONFIG.fresh_view(self)
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


class _HookHandle:
    __slots__ = ("owner", "hook")

    def __init__(self, owner, hook):
        self.owner, self.hook = owner, hook

    def remove(self):
        self.owner.hooks = tuple(h for h in (self.owner.hooks or ()) if h is not self.hook)


def _wrap_dim(dim, ndim):
    if type(dim) is not int:
        dim = _index_dim(dim)
    n = max(ndim, 1)
    if not -n <= dim < n:
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
    raise TorchTypeError(f"argument 'dim' must be int, not {type(dim).__name__}")


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
        if isinstance(v, TensorBase):
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
