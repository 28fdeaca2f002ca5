"""torch.Tensor: the engine's TensorBase with every method and property of the API table
(_api.py), as PyTorch's torch/_tensor.py makes torch.Tensor from torch._C.TensorBase. The
engine makes tensors of this class: gradcli.torch gives it to engine.configure()."""
from __future__ import annotations

from ..engine import TensorBase, TorchAttributeError
from ..engine import backward as _autograd_backward
from . import _api, _signatures


def backward(self, gradient=None, retain_graph=None, create_graph=False, inputs=None):
    """Tensor.backward: torch.autograd.backward of this tensor, as PyTorch's torch/_tensor.py."""
    if isinstance(gradient, (list, tuple)):
        # torch.autograd.backward pairs outputs with gradients by zip: the first one is used
        gradient = gradient[0] if gradient else None
    _autograd_backward([self], None if gradient is None else [gradient], retain_graph, create_graph, inputs,
                       _single_gradient=gradient)


def __init__(self, *args, **kwargs):
    """A script's `torch.Tensor(2, 3)`, `torch.Tensor([1, 2])`, `torch.Tensor(ndarray)` (float32),
    `torch.Tensor(t)`: PyTorch's legacy constructor. (gradcli makes its tensors with make_tensor.)"""
    from . import Tensor_
    made = Tensor_(*args, **kwargs)
    _base_init(self, made._data, version=made._vc)


_new, _base_init = object.__new__, TensorBase.__init__


def make_tensor(data, requires_grad=False, grad_fn=None, version=None, base=None):
    """A tensor of an array, as it is: how the engine, the ops and the API make tensors."""
    t = _new(Tensor)
    _base_init(t, data, requires_grad, grad_fn, version, base)
    return t


def _missing(self, name):
    """Only for names the class lacks: PyTorch's methods gradcli has not implemented say so.
    (Its cost: CPython 3.11 reads no attribute of a class with __getattr__ the fast way, so
    hot code reads a tensor's attributes once, into locals.)"""
    kind = f"'{type(self).__name__}' object"             # (a Parameter is named so)
    if name.startswith("_"):
        raise TorchAttributeError(f"{kind} has no attribute '{name}'")
    from ._not_implemented import missing
    raise missing("Tensor", name, kind)


def _not_writable(name):
    def refuse(self, value):
        raise TorchAttributeError(f"attribute '{name}' of 'torch._C.TensorBase' objects is not writable")
    return refuse


def _array_wrap(self, array):
    """A NumPy ufunc of a tensor (`np.exp(t)`, `ndarray * t`) gives a tensor, as PyTorch's
    Tensor.__array_wrap__ (with its one parameter, which NumPy 2 warns of)."""
    if array.dtype == bool:
        array = array.astype("uint8")
    return make_tensor(array)


# __dict__: a script may set attributes of its own on a tensor, as on PyTorch's
Tensor = type("Tensor", (TensorBase,), {
    "__slots__": ("__dict__",), "__module__": "torch",     # type(x) prints <class 'torch.Tensor'>, as in PyTorch
    "__array_wrap__": _array_wrap,
    "__doc__": "torch.Tensor: a NumPy array with PyTorch's autograd metadata and operations.",
    "__init__": __init__, "__getattr__": _missing, "backward": _signatures.checked("Tensor.backward", backward),
    **_api.methods(TensorBase)})

for _name in dir(Tensor):                   # PyTorch's read-only attributes refuse assignment in its words
    _attr = getattr(Tensor, _name, None)
    if isinstance(_attr, property) and _attr.fset is None:
        setattr(Tensor, _name, property(_attr.fget, _not_writable(_name), doc=_attr.__doc__))
del _name, _attr
