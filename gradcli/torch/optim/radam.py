"""torch.optim.RAdam, as PyTorch's single-tensor (CPU) implementation computes it."""
from ...engine import vml
from . import _kernels as K
from .adam import adam_moments
from .optimizer import Optimizer, _no_grad_step, check_adam_arguments, count_step, init_state, write_flat


class RAdam(Optimizer):
    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, decoupled_weight_decay=False,
                 *, foreach=None, maximize=False, capturable=False, differentiable=False):
        check_adam_arguments(lr, eps, betas, weight_decay)
        defaults = {"lr": lr, "betas": betas, "eps": eps, "weight_decay": weight_decay, "maximize": maximize,
                    "foreach": foreach, "capturable": capturable, "decoupled_weight_decay": decoupled_weight_decay,
                    "differentiable": differentiable}
        super().__init__(params, defaults)

    @_no_grad_step
    def step(self, closure=None):
        return self._step(closure)

    def _advance(self, p, group):
        """The step count's increment (the state is made on the first step); the update's
        scalars depend on the count and the dtype."""
        state = init_state(self.state[p], p, "exp_avg", "exp_avg_sq")
        return count_step(state), p._data.dtype

    def _update(self, params, group):
        """PyTorch's _single_tensor_radam for each parameter, run on all of them at once."""
        states = [self.state[p] for p in params]
        step = states[0]["step"]._data.item()
        beta1, beta2 = group["betas"]
        lr = group["lr"]
        decoupled, param, grad, exp_avg, exp_avg_sq = adam_moments(params, states, group)
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
