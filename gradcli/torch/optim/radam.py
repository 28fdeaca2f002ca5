"""torch.optim.RAdam, as PyTorch's single-tensor (CPU) implementation computes it."""
import numpy as np

from ...engine import vml
from ...engine import TorchValueError
from . import _kernels as K
from .optimizer import Optimizer, _no_grad_step, count_step, flat, flat_param_and_grad, new_state, write_flat


class RAdam(Optimizer):
    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, decoupled_weight_decay=False,
                 *, foreach=None, maximize=False, capturable=False, differentiable=False):
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
        defaults = {"lr": lr, "betas": betas, "eps": eps, "weight_decay": weight_decay, "maximize": maximize,
                    "foreach": foreach, "capturable": capturable, "decoupled_weight_decay": decoupled_weight_decay,
                    "differentiable": differentiable}
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
            state["exp_avg_sq"] = new_state(np.zeros_like(p._data))
        return count_step(state), p._data.dtype

    def _update(self, params, group):
        """PyTorch's _single_tensor_radam for each parameter, run on all of them at once."""
        states = [self.state[p] for p in params]
        step = states[0]["step"]._data.item()
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
        bias_correction1 = 1 - beta1 ** step
        bias_correction2 = 1 - beta2 ** step
        dt = param.dtype
        bias_corrected_exp_avg = exp_avg / dt.type(bias_correction1)
        rho_inf = 2 / (1 - beta2) - 1
        rho_t = rho_inf - 2 * step * (beta2 ** step) / bias_correction2
        update = K.mul(bias_corrected_exp_avg, lr)
        if rho_t > 5.0:
            rect = ((rho_t - 4) * (rho_t - 2) * rho_inf / ((rho_inf - 4) * (rho_inf - 2) * rho_t)) ** 0.5
            # a number / a tensor is PyTorch's reciprocal() * number
            adaptive_lr = K.mul(dt.type(1) / (vml.sqrt(exp_avg_sq) + dt.type(group["eps"])), bias_correction2 ** 0.5)
            update = K.mul(update * adaptive_lr, rect)
        write_flat(params, K.add(param, update, -1.0), bumps=2 if decoupled else 1)
