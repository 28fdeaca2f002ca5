"""torch.optim.NAdam, as PyTorch's single-tensor (CPU) implementation computes it."""
import numpy as np

from ...engine import vml
from ...engine import TorchValueError
from . import _kernels as K
from .optimizer import Optimizer, _no_grad_step, count_step, flat, flat_param_and_grad, new_state, write, write_flat


class NAdam(Optimizer):
    def __init__(self, params, lr=2e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, momentum_decay=4e-3,
                 decoupled_weight_decay=False, *, foreach=None, maximize=False, capturable=False,
                 differentiable=False):
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
        if not 0.0 <= momentum_decay:
            raise TorchValueError(f"Invalid momentum_decay value: {momentum_decay}")
        defaults = {"lr": lr, "betas": betas, "eps": eps, "weight_decay": weight_decay,
                    "momentum_decay": momentum_decay, "decoupled_weight_decay": decoupled_weight_decay,
                    "maximize": maximize, "foreach": foreach, "capturable": capturable,
                    "differentiable": differentiable}
        super().__init__(params, defaults)

    @_no_grad_step
    def step(self, closure=None):
        loss = self._closure_loss(closure)
        for group in self.param_groups:
            for params in self._batches(group, lambda p: self._advance(p, group)):
                self._update(params, group)
        return loss

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
        beta1, beta2 = group["betas"]
        lr, wd = group["lr"], group["weight_decay"]
        decoupled = wd != 0 and group["decoupled_weight_decay"]
        param, grad = flat_param_and_grad(params, group, weight_decay=not decoupled)
        if decoupled:
            param = K.mul(param, 1 - lr * wd)
        mu, mu_next = self._mu(group, step), self._mu(group, step + 1)
        exp_avgs = [state["exp_avg"] for state in states]
        exp_avg_sqs = [state["exp_avg_sq"] for state in states]
        exp_avg = K.lerp(flat(exp_avgs), grad, 1 - beta1)
        write_flat(exp_avgs, exp_avg)
        exp_avg_sq = K.addcmul(K.mul(flat(exp_avg_sqs), beta2), grad, grad, 1 - beta2)
        write_flat(exp_avg_sqs, exp_avg_sq, bumps=2)
        dt = param.dtype
        denom = vml.sqrt(exp_avg_sq / dt.type(1 - beta2 ** step)) + dt.type(group["eps"])
        mu_product_next = mu_product * mu_next
        param = K.addcdiv(param, grad, denom, -lr * (1.0 - mu) / (1.0 - mu_product))
        param = K.addcdiv(param, exp_avg, denom, (-lr * mu_next) / (1.0 - mu_product_next))
        write_flat(params, param, bumps=3 if decoupled else 2)
