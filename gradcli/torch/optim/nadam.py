"""torch.optim.NAdam, as PyTorch's single-tensor (CPU) implementation computes it."""
import numpy as np

from ...engine import vml
from ...engine import TorchValueError
from . import _kernels as K
from .adam import adam_moments
from .optimizer import Optimizer, _no_grad_step, check_adam_arguments, count_step, new_state, write, write_flat


class NAdam(Optimizer):
    def __init__(self, params, lr=2e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, momentum_decay=4e-3,
                 decoupled_weight_decay=False, *, foreach=None, maximize=False, capturable=False,
                 differentiable=False):
        check_adam_arguments(lr, eps, betas, weight_decay)
        if not 0.0 <= momentum_decay:
            raise TorchValueError(f"Invalid momentum_decay value: {momentum_decay}")
        defaults = {"lr": lr, "betas": betas, "eps": eps, "weight_decay": weight_decay,
                    "momentum_decay": momentum_decay, "decoupled_weight_decay": decoupled_weight_decay,
                    "maximize": maximize, "foreach": foreach, "capturable": capturable,
                    "differentiable": differentiable}
        super().__init__(params, defaults)

    @_no_grad_step
    def step(self, closure=None):
        return self._step(closure)

    def _advance(self, p, group):
        """The step count's increment and mu_product *= mu (the state is made on the first
        step); the update's scalars depend on both and on the dtype."""
        state = self.state[p]
        if len(state) == 0:
            state["step"] = new_state(np.float32(0))
            state["mu_product"] = new_state(np.float32(1))
            state["exp_avg"] = new_state(np.zeros_like(p._data))
            state["exp_avg_sq"] = new_state(np.zeros_like(p._data))
        step = count_step(state)
        mu_product = state["mu_product"]
        write(mu_product, K.mul(mu_product._data, self._mu(group, step)))
        return step, mu_product._data.item(), p._data.dtype

    @staticmethod
    def _mu(group, step):
        return group["betas"][0] * (1.0 - 0.5 * (0.96 ** (step * group["momentum_decay"])))

    def _update(self, params, group):
        """PyTorch's _single_tensor_nadam for each parameter, run on all of them at once."""
        states = [self.state[p] for p in params]
        step = states[0]["step"]._data.item()
        mu_product = states[0]["mu_product"]._data.item()
        beta2, lr = group["betas"][1], group["lr"]
        mu, mu_next = self._mu(group, step), self._mu(group, step + 1)
        decoupled, param, grad, exp_avg, exp_avg_sq = adam_moments(params, states, group)
        dt = param.dtype
        denom = vml.sqrt(exp_avg_sq / dt.type(1 - beta2 ** step)) + dt.type(group["eps"])
        mu_product_next = mu_product * mu_next
        param = K.addcdiv(param, grad, denom, -lr * (1.0 - mu) / (1.0 - mu_product))
        param = K.addcdiv(param, exp_avg, denom, (-lr * mu_next) / (1.0 - mu_product_next))
        write_flat(params, param, bumps=3 if decoupled else 2)
