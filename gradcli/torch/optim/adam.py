"""torch.optim.Adam and AdamW, as PyTorch's single-tensor (CPU) implementation computes them."""
import numpy as np

from ...errors import TorchValueError
from . import _kernels as K
from .optimizer import Optimizer, _no_grad_step, new_state, write


class Adam(Optimizer):
    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, amsgrad=False, *,
                 foreach=None, maximize=False, capturable=False, differentiable=False, fused=None,
                 decoupled_weight_decay=False):
        if not 0.0 <= lr:
            raise TorchValueError(f"Invalid learning rate: {lr}")
        if not 0.0 <= eps:
            raise TorchValueError(f"Invalid epsilon value: {eps}")
        if not 0.0 <= betas[0] < 1.0:
            raise TorchValueError(f"Invalid beta parameter at index 0: {betas[0]}")
        if not 0.0 <= betas[1] < 1.0:
            raise TorchValueError(f"Invalid beta parameter at index 1: {betas[1]}")
        if not 0.0 <= weight_decay:
            raise TorchValueError(f"Invalid weight_decay value: {weight_decay}")
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
        loss = self._closure_loss(closure)
        for group in self.param_groups:
            beta1, beta2 = group["betas"]
            lr, wd, eps = group["lr"], group["weight_decay"], group["eps"]
            for p in group["params"]:
                if p._grad is None:
                    continue
                state = self._init_state(p, group)
                grad = -p._grad._data if group["maximize"] else p._grad._data
                step_t = state["step"]
                write(step_t, step_t._data + np.float32(1))
                if wd != 0:
                    if group["decoupled_weight_decay"]:
                        write(p, K.mul(p._data, 1 - lr * wd))
                    else:
                        grad = K.add(grad, p._data, wd)
                exp_avg, exp_avg_sq = state["exp_avg"], state["exp_avg_sq"]
                write(exp_avg, K.lerp(exp_avg._data, grad, 1 - beta1))
                write(exp_avg_sq, K.addcmul(K.mul(exp_avg_sq._data, beta2), grad, grad, 1 - beta2), bumps=2)
                step = step_t._data.item()
                bias_correction1 = 1 - beta1 ** step
                bias_correction2 = 1 - beta2 ** step
                step_size = lr / bias_correction1
                bias_correction2_sqrt = bias_correction2 ** 0.5
                dt = p._data.dtype
                if group["amsgrad"]:
                    max_sq = state["max_exp_avg_sq"]
                    write(max_sq, np.maximum(max_sq._data, exp_avg_sq._data))
                    denom = K.sqrt(max_sq._data) / dt.type(bias_correction2_sqrt) + dt.type(eps)
                else:
                    denom = K.sqrt(exp_avg_sq._data) / dt.type(bias_correction2_sqrt) + dt.type(eps)
                write(p, K.addcdiv(p._data, exp_avg._data, denom, -step_size))
        return loss


class AdamW(Adam):
    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=1e-2, amsgrad=False, *,
                 maximize=False, foreach=None, capturable=False, differentiable=False, fused=None):
        super().__init__(params, lr, betas, eps, weight_decay, amsgrad, foreach=foreach, maximize=maximize,
                         capturable=capturable, differentiable=differentiable, fused=fused,
                         decoupled_weight_decay=True)
