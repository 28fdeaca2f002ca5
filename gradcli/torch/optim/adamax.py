"""torch.optim.Adamax, as PyTorch's single-tensor (CPU) implementation computes it."""
import numpy as np

from ...engine import TorchValueError
from . import _kernels as K
from .optimizer import Optimizer, _no_grad_step, count_step, flat, flat_param_and_grad, new_state, write_flat


class Adamax(Optimizer):
    def __init__(self, params, lr=2e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, foreach=None, *,
                 maximize=False, differentiable=False, capturable=False):
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
        defaults = {"lr": lr, "betas": betas, "eps": eps, "weight_decay": weight_decay, "foreach": foreach,
                    "maximize": maximize, "differentiable": differentiable, "capturable": capturable}
        super().__init__(params, defaults)

    @_no_grad_step
    def step(self, closure=None):
        loss = self._closure_loss(closure)
        for group in self.param_groups:
            for params in self._batches(group, self._advance):
                self._update(params, group)
        return loss

    def _advance(self, p):
        """The step count's increment (the state is made on the first step); the update's
        scalars depend on the count and the dtype."""
        state = self.state[p]
        if len(state) == 0:
            state["step"] = new_state(np.float32(0))
            state["exp_avg"] = new_state(np.zeros_like(p._data))
            state["exp_inf"] = new_state(np.zeros_like(p._data))
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
