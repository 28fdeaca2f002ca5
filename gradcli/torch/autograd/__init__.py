"""`torch.autograd`: gradients of outputs with respect to inputs, anomaly detection, custom
Functions, the functional transforms and the legacy Variable."""
from ...engine import STATE as _STATE, backward, grad as _grad
from .. import _set_detect_anomaly as set_detect_anomaly, _detect_anomaly as detect_anomaly
from .. import enable_grad, inference_mode, no_grad, set_grad_enabled
from . import function, functional
from .function import Function, once_differentiable
from .variable import Variable

__all__ = ["backward", "grad", "set_detect_anomaly", "detect_anomaly", "Function", "once_differentiable",
           "Variable", "function", "functional", "no_grad", "enable_grad", "set_grad_enabled", "inference_mode"]


def grad(outputs, inputs, grad_outputs=None, retain_graph=None, create_graph=False, only_inputs=True,
         allow_unused=None, is_grads_batched=False, materialize_grads=False):
    """torch.autograd.grad (only_inputs: deprecated, ignored, a warning when False)."""
    if not only_inputs:
        _STATE.warn("only_inputs argument is deprecated and is ignored now (defaults to True). To accumulate "
                    "gradient for other parts of the graph, please use torch.autograd.backward.")
    return _grad(outputs, inputs, grad_outputs, retain_graph, create_graph, allow_unused, is_grads_batched,
                 materialize_grads)


def __getattr__(name):
    from .._not_implemented import missing
    raise missing("torch.autograd", name)


from .. import _signatures  # noqa: E402

_signatures.install(globals(), "autograd")
