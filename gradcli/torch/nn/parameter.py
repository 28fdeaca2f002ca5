"""`torch.nn.Parameter`.

gradcli's ops check `type(t) is Tensor` on their hot paths, so a parameter is a plain Tensor
marked as one (PyTorch's Parameter is a Tensor subclass): `isinstance(p, nn.Parameter)` reads
the mark, and its repr starts with "Parameter containing:" as PyTorch's does.
"""
from __future__ import annotations

import copy
import weakref

from ...engine import Tensor

_MARKED = {}        # id(tensor) -> weakref to it, for every tensor made by Parameter()


def is_parameter(t):
    ref = _MARKED.get(id(t))
    return ref is not None and ref() is t


def _mark(t):
    key = id(t)
    _MARKED[key] = weakref.ref(t, lambda _r, key=key: _MARKED.pop(key, None))
    return t


class _ParameterMeta(type):
    def __instancecheck__(cls, obj):
        return type(obj) is Tensor and is_parameter(obj)


class Parameter(metaclass=_ParameterMeta):
    """Parameter(data=None, requires_grad=True): a leaf sharing data's storage and version counter."""

    def __new__(cls, data=None, requires_grad=True):
        if data is None:
            from ... import torch
            data = torch.empty(0)
        t = Tensor(data._data, version=data._version_counter)
        t._set_requires_grad(requires_grad, "Only Tensors of floating point and complex dtype can require gradients")
        return _mark(t)


def _repr(original):
    def __repr__(self):
        text = original(self)
        return "Parameter containing:\n" + text if is_parameter(self) else text
    return __repr__


def _deepcopy(original):
    """copy.deepcopy of a parameter is a new parameter holding a copy of its values, with its
    requires_grad and without its .grad (PyTorch's Parameter.__deepcopy__); other tensors copy
    as they did."""
    def __deepcopy__(self, memo):
        if not is_parameter(self):
            if original is not None:
                return original(self, memo)
            return copy._reconstruct(self, memo, *self.__reduce_ex__(4))
        result = Parameter(Tensor(self._data.copy()), self.requires_grad)
        memo[id(self)] = result
        return result
    return __deepcopy__


Tensor.__repr__ = Tensor.__str__ = _repr(Tensor.__repr__)
Tensor.__deepcopy__ = _deepcopy(getattr(Tensor, "__deepcopy__", None))
