"""torch.optim.Adam and AdamW, as PyTorch's single-tensor (CPU) implementation computes them."""
import numpy as np

from ...engine import vml
from ...engine import TorchValueError
from . import _kernels as K
from .optimizer import (Optimizer, _no_grad_step, check_adam_arguments, count_step, flat, flat_param_and_grad,
                        new_state, write_flat)


def adam_moments(params, states, group):
    """The Adam family's first steps: weight decay (L2 or decoupled: the parameter scaled, not
    yet written), the moments exp_avg (lerp) and exp_avg_sq updated and written. Returns
    (decoupled, param, grad, exp_avg, exp_avg_sq)."""
    beta1, beta2 = group["betas"]
    lr, wd = group["lr"], group["weight_decay"]
    decoupled = wd != 0 and group["decoupled_weight_decay"]
    param, grad = flat_param_and_grad(params, group, weight_decay=not decoupled)
    if decoupled:
        param = K.mul(param, 1 - lr * wd)
    exp_avgs = [state["exp_avg"] for state in states]
    exp_avg_sqs = [state["exp_avg_sq"] for state in states]
    exp_avg = K.lerp(flat(exp_avgs), grad, 1 - beta1)
    write_flat(exp_avgs, exp_avg)
    exp_avg_sq = K.addcmul(K.mul(flat(exp_avg_sqs), beta2), grad, grad, 1 - beta2)
    write_flat(exp_avg_sqs, exp_avg_sq, bumps=2)
    return decoupled, param, grad, exp_avg, exp_avg_sq


class Adam(Optimizer):
    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, amsgrad=False, *,
                 foreach=None, maximize=False, capturable=False, differentiable=False, fused=None,
                 decoupled_weight_decay=False):
        check_adam_arguments(lr, eps, betas, weight_decay)
        if not (isinstance(betas[0], float) and isinstance(betas[1], float)):
            raise TorchValueError("betas must be either both floats or both Tensors")
        defaults = {"lr": lr, "betas": tuple(betas), "eps": eps, "weight_decay": weight_decay,
                    "amsgrad": amsgrad, "maximize": maximize, "foreach": foreach, "capturable": capturable,
                    "differentiable": differentiable, "fused": fused,
                    "decoupled_weight_decay": decoupled_weight_decay}
        super().__init__(params, defaults)

    def _init_state(self, p, group):
        state = self.state[p]
        if len(state) == 0:
            state["step"] = new_state(np.float32(0))
            state["exp_avg"] = new_state(np.zeros_like(p._data))
            state["exp_avg_sq"] = new_state(np.zeros_like(p._data))
            if group["amsgrad"]:
                state["max_exp_avg_sq"] = new_state(np.zeros_like(p._data))
        return state

    @_no_grad_step
    def step(self, closure=None):
        return self._step(closure)

    def _advance(self, p, group):
        """The step count's increment (the state is made on the first step); the update's
        scalars depend on the count and the dtype."""
        return count_step(self._init_state(p, group)), p._data.dtype

    def _update(self, params, group):
        """PyTorch's _single_tensor_adam for each parameter, run on all of them at once."""
        states = [self.state[p] for p in params]
        step = states[0]["step"]._data.item()
        beta1, beta2 = group["betas"]
        lr, eps = group["lr"], group["eps"]
        decoupled, param, grad, exp_avg, exp_avg_sq = adam_moments(params, states, group)
        bias_correction1 = 1 - beta1 ** step
        bias_correction2 = 1 - beta2 ** step
        step_size = lr / bias_correction1
        bias_correction2_sqrt = bias_correction2 ** 0.5
        if group["amsgrad"]:
            max_exp_avg_sqs = [state["max_exp_avg_sq"] for state in states]
            exp_avg_sq = np.maximum(flat(max_exp_avg_sqs), exp_avg_sq)
            write_flat(max_exp_avg_sqs, exp_avg_sq)
        dt = param.dtype
        denom = vml.sqrt(exp_avg_sq) / dt.type(bias_correction2_sqrt) + dt.type(eps)
        write_flat(params, K.addcdiv(param, exp_avg, denom, -step_size), bumps=2 if decoupled else 1)


class AdamW(Adam):
    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=1e-2, amsgrad=False, *,
                 maximize=False, foreach=None, capturable=False, differentiable=False, fused=None):
        super().__init__(params, lr, betas, eps, weight_decay, amsgrad, foreach=foreach, maximize=maximize,
                         capturable=capturable, differentiable=differentiable, fused=fused,
                         decoupled_weight_decay=True)
