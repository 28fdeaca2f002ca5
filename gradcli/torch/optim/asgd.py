"""torch.optim.ASGD, as PyTorch's single-tensor (CPU) implementation computes it."""
import numpy as np

from ...engine import TorchValueError
from . import _kernels as K
from .optimizer import Optimizer, _no_grad_step, count_step, flat, flat_param_and_grad, new_state, write, write_flat


class ASGD(Optimizer):
    def __init__(self, params, lr=1e-2, lambd=1e-4, alpha=0.75, t0=1e6, weight_decay=0, foreach=None,
                 maximize=False, differentiable=False, capturable=False):
        if not 0.0 <= lr:
            raise TorchValueError(f"Invalid learning rate: {lr}")
        if not 0.0 <= weight_decay:
            raise TorchValueError(f"Invalid weight_decay value: {weight_decay}")
        defaults = {"lr": lr, "lambd": lambd, "alpha": alpha, "t0": t0, "weight_decay": weight_decay,
                    "foreach": foreach, "maximize": maximize, "differentiable": differentiable,
                    "capturable": capturable}
        super().__init__(params, defaults)

    @_no_grad_step
    def step(self, closure=None):
        return self._step(closure)

    def _advance(self, p, group):
        """The step count's increment (the state is made on the first step); the update's
        scalars depend on the count, eta, mu and the dtype."""
        state = self.state[p]
        if len(state) == 0:
            state["step"] = new_state(np.float32(0))
            state["eta"] = new_state(np.float32(group["lr"]))
            state["mu"] = new_state(np.float32(1))
            state["ax"] = new_state(np.zeros_like(p._data))
        return count_step(state), state["eta"]._data.item(), state["mu"]._data.item(), p._data.dtype

    def _update(self, params, group):
        """PyTorch's _single_tensor_asgd for each parameter, run on all of them at once."""
        states = [self.state[p] for p in params]
        lr, lambd, alpha, t0 = group["lr"], group["lambd"], group["alpha"], group["t0"]
        step = states[0]["step"]._data.item()
        eta = states[0]["eta"]._data.item()
        mu = states[0]["mu"]._data.item()
        param, grad = flat_param_and_grad(params, group)
        param = K.add(K.mul(param, 1 - lambd * eta), grad, -eta)
        write_flat(params, param, bumps=2)
        axs = [state["ax"] for state in states]
        if mu != 1:
            ax = flat(axs)
            write_flat(axs, ax + K.mul(param - ax, mu))
        else:
            write_flat(axs, param)
        for state in states:            # (torch.as_tensor of a number: float32, copied in)
            write(state["eta"], np.float32(lr / ((1 + lambd * lr * step) ** alpha)))
            write(state["mu"], np.float32(1 / max(1, step - t0)))
