"""`torch.nn.Parameter`: a Tensor subclass, as PyTorch's.

Ops build plain Tensors, so the result of an op on a parameter is a Tensor (PyTorch's
Parameter disables `__torch_function__` for the same effect); an in-place op returns the
parameter itself.
"""
from __future__ import annotations

from .. import Tensor
from ...engine import TensorBase, TorchAttributeError, TorchTypeError


class Parameter(Tensor):
    """Parameter(data=None, requires_grad=True): a leaf sharing data's storage and version counter."""

    __slots__ = ()
    __module__ = "torch.nn.parameter"        # type(p) prints as in PyTorch

    def __init__(self, data=None, requires_grad=True):
        if data is None:
            from ... import torch
            data = torch.empty(0)
        elif not isinstance(data, Tensor):        # PyTorch's path for other types calls data.detach()
            raise TorchAttributeError(f"'{type(data).__name__}' object has no attribute 'detach'")
        if type(requires_grad) is not bool:
            raise TorchTypeError("_make_subclass(): argument 'require_grad' (position 3) must be bool, not "
                                 + type(requires_grad).__name__)
        # PyTorch's `Tensor._make_subclass(cls, data.detach(), requires_grad)`
        TensorBase.__init__(self, data.detach()._data, version=data._version_counter)
        self._set_requires_grad(requires_grad, "Only Tensors of floating point and complex dtype can require gradients")

    def __deepcopy__(self, memo):
        if id(self) in memo:
            return memo[id(self)]
        result = type(self)(self.data.clone(), self.requires_grad)
        memo[id(self)] = result
        return result

    def __repr__(self):
        return "Parameter containing:\n" + super().__repr__()

    __str__ = __repr__
