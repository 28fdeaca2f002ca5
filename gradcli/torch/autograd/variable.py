"""torch.autograd.Variable: since PyTorch 0.4 a plain tensor; the constructor remains."""
import numpy as np

from ... import engine as _E
from ...engine import CONFIG, TensorBase
from ...engine import TorchTypeError

_W_VOLATILE = "volatile was removed and now has no effect. Use `with torch.no_grad():` instead."


class _VariableMeta(type):
    def __instancecheck__(cls, other):
        return isinstance(other, TensorBase)

    def __call__(cls, data=None, requires_grad=False, volatile=False):
        if volatile:
            _E.STATE.warn(_W_VOLATILE)
        if data is None:
            return CONFIG.tensor(np.zeros((0,), np.float32))
        if not isinstance(data, TensorBase):
            raise TorchTypeError(f"Variable data has to be a tensor, but got {type(data).__name__}")
        out = data.detach()
        if requires_grad:
            out._set_requires_grad(True, "Only Tensors of floating point and complex dtype can require gradients")
        return out


class Variable(metaclass=_VariableMeta):
    __module__ = "torch.autograd.variable"
