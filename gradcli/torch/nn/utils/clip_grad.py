"""torch.nn.utils.clip_grad_norm_ and clip_grad_value_: gradients rescaled or clamped in place."""
import types

import numpy as np

from .... import engine as _E
from .... import ops as _ops
from ....engine import CONFIG, TensorBase
from ....engine import TorchRuntimeError


def _no_grad(f):
    def wrapper(*args, **kwargs):
        prev = _E.STATE.grad_enabled
        _E.STATE.grad_enabled = False
        try:
            return f(*args, **kwargs)
        finally:
            _E.STATE.grad_enabled = prev
    wrapper.__name__ = wrapper.__qualname__ = f.__name__
    wrapper.__doc__ = f.__doc__
    return wrapper


def _as_list(parameters):
    return [parameters] if isinstance(parameters, TensorBase) else list(parameters)


def get_total_norm(tensors, norm_type=2.0, error_if_nonfinite=False, foreach=None):
    """The norm of the tensors' norms (PyTorch's per-tensor vector_norm, then over the stack)."""
    tensors = _as_list(tensors)
    norm_type = float(norm_type)
    if not tensors:
        return CONFIG.tensor(np.array(0.0, np.float32))
    norms = [_ops.norm(t, norm_type) for t in tensors]
    total = _ops.norm(_ops.stack(norms), norm_type)
    if error_if_nonfinite and not np.isfinite(total._data).all():
        raise TorchRuntimeError(
            f"The total norm of order {norm_type} for gradients from `parameters` is non-finite, so it cannot be "
            "clipped. To disable this error and scale the gradients by the non-finite norm anyway, set "
            "`error_if_nonfinite=False`")
    return total


@_no_grad
def clip_grads_with_norm_(parameters, max_norm, total_norm, foreach=None):
    grads = [p._grad for p in _as_list(parameters) if p._grad is not None]
    if not grads:
        return
    clip_coef = float(max_norm) / (total_norm + 1e-6)
    clip_coef_clamped = _ops.clamp(clip_coef, max=1.0)
    for g in grads:
        g.mul_(clip_coef_clamped)


@_no_grad
def clip_grad_norm_(parameters, max_norm, norm_type=2.0, error_if_nonfinite=False, foreach=None):
    is_generator = isinstance(parameters, types.GeneratorType)
    parameters = _as_list(parameters)
    if is_generator and not parameters:
        _E.STATE.warn("`parameters` is an empty generator, no gradient clipping will occur.")
    grads = [p._grad for p in parameters if p._grad is not None]
    total_norm = get_total_norm(grads, norm_type, error_if_nonfinite, foreach)
    clip_grads_with_norm_(parameters, max_norm, total_norm, foreach)
    return total_norm


@_no_grad
def clip_grad_value_(parameters, clip_value, foreach=None):
    clip_value = float(clip_value)
    for p in _as_list(parameters):
        if p._grad is not None:         # PyTorch's foreach path on CPU: clamp_min_, then clamp_max_
            p._grad.clamp_min_(-clip_value)
            p._grad.clamp_(max=clip_value)
