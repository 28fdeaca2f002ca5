"""torch.optim.Adamax, as PyTorch's single-tensor (CPU) implementation computes it."""
import numpy as np

from . import _kernels as K
from .optimizer import (Optimizer, _no_grad_step, check_adam_arguments, count_step, flat, flat_param_and_grad,
                        init_state, write_flat)


class Adamax(Optimizer):
    def __init__(self, params, lr=2e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, foreach=None, *,
                 maximize=False, differentiable=False, capturable=False):
        check_adam_arguments(lr, eps, betas, weight_decay)
        defaults = {"lr": lr, "betas": betas, "eps": eps, "weight_decay": weight_decay, "foreach": foreach,
                    "maximize": maximize, "differentiable": differentiable, "capturable": capturable}
        super().__init__(params, defaults)

    @_no_grad_step
    def step(self, closure=None):
        return self._step(closure)

    def _advance(self, p, group):
        """The step count's increment (the state is made on the first step); the update's
        scalars depend on the count and the dtype."""
        state = init_state(self.state[p], p, "exp_avg", "exp_inf")
        return count_step(state), p._data.dtype

    def _update(self, params, group):
        """PyTorch's _single_tensor_adamax for each parameter, run on all of them at once."""
        states = [self.state[p] for p in params]
        step = states[0]["step"]._data.item()
        beta1, beta2 = group["betas"]
        param, grad = flat_param_and_grad(params, group)
        exp_avgs = [state["exp_avg"] for state in states]
        exp_infs = [state["exp_inf"] for state in states]
        exp_avg = K.lerp(flat(exp_avgs), grad, 1 - beta1)
        write_flat(exp_avgs, exp_avg)
        exp_inf = np.maximum(K.mul(flat(exp_infs), beta2), np.abs(grad) + grad.dtype.type(group["eps"]))
        write_flat(exp_infs, exp_inf, bumps=2)
        clr = group["lr"] / (1 - beta1 ** step)
        write_flat(params, K.addcdiv(param, exp_avg, exp_inf, -clr))
