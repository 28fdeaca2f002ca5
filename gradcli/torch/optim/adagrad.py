"""torch.optim.Adagrad, as PyTorch's single-tensor (CPU) implementation computes it."""
import numpy as np

from ...engine import vml
from ...engine import TorchValueError
from . import _kernels as K
from .optimizer import Optimizer, _no_grad_step, count_step, flat, flat_param_and_grad, new_state, write_flat


class Adagrad(Optimizer):
    def __init__(self, params, lr=1e-2, lr_decay=0, weight_decay=0, initial_accumulator_value=0, eps=1e-10,
                 foreach=None, *, maximize=False, differentiable=False, fused=None):
        if not 0.0 <= lr:
            raise TorchValueError(f"Invalid learning rate: {lr}")
        if not 0.0 <= lr_decay:
            raise TorchValueError(f"Invalid lr_decay value: {lr_decay}")
        if not 0.0 <= weight_decay:
            raise TorchValueError(f"Invalid weight_decay value: {weight_decay}")
        if not 0.0 <= initial_accumulator_value:
            raise TorchValueError(f"Invalid initial_accumulator_value value: {initial_accumulator_value}")
        if not 0.0 <= eps:
            raise TorchValueError(f"Invalid epsilon value: {eps}")
        defaults = {"lr": lr, "lr_decay": lr_decay, "eps": eps, "weight_decay": weight_decay,
                    "initial_accumulator_value": initial_accumulator_value, "foreach": foreach,
                    "maximize": maximize, "differentiable": differentiable, "fused": fused}
        super().__init__(params, defaults)
        for group in self.param_groups:       # Adagrad's state exists before the first step
            for p in group["params"]:
                self._init_state(p)

    def _init_state(self, p):
        # (the optimizer's initial_accumulator_value, not the group's, as in PyTorch)
        state = self.state[p]
        state["step"] = new_state(np.float32(0))
        state["sum"] = new_state(np.full_like(p._data, self.defaults["initial_accumulator_value"]))
        return state

    @_no_grad_step
    def step(self, closure=None):
        loss = self._closure_loss(closure)
        for group in self.param_groups:
            for params in self._batches(group, self._advance):
                self._update(params, group)
        return loss

    def _advance(self, p):
        """The step count's increment; the update's scalars depend on the count and the dtype."""
        state = self.state[p] if p in self.state else self._init_state(p)
        return count_step(state), p._data.dtype

    def _update(self, params, group):
        """PyTorch's _single_tensor_adagrad for each parameter, run on all of them at once."""
        lr, eps = group["lr"], group["eps"]
        states = [self.state[p] for p in params]
        step = states[0]["step"]._data.item()
        param, grad = flat_param_and_grad(params, group)
        clr = lr / (1 + (step - 1) * group["lr_decay"])
        sums = [state["sum"] for state in states]
        state_sum = K.addcmul(flat(sums), grad, grad, 1)
        write_flat(sums, state_sum)
        std = vml.sqrt(state_sum) + state_sum.dtype.type(eps)
        write_flat(params, K.addcdiv(param, grad, std, -clr))
