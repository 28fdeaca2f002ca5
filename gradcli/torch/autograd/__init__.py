"""`torch.autograd`: gradients of outputs with respect to inputs, anomaly detection, custom
Functions, the functional transforms and the legacy Variable."""
from ...engine import backward, grad
from .. import _set_detect_anomaly as set_detect_anomaly, _detect_anomaly as detect_anomaly
from .. import enable_grad, inference_mode, no_grad, set_grad_enabled
from . import function, functional
from .function import Function, once_differentiable
from .variable import Variable

__all__ = ["backward", "grad", "set_detect_anomaly", "detect_anomaly", "Function", "once_differentiable",
           "Variable", "function", "functional", "no_grad", "enable_grad", "set_grad_enabled", "inference_mode"]


def __getattr__(name):
    from .._not_implemented import missing
    raise missing("torch.autograd", name)


from .. import _signatures  # noqa: E402

_signatures.install(globals(), "autograd")
