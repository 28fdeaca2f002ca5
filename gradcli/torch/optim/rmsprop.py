"""torch.optim.RMSprop, as PyTorch's single-tensor (CPU) implementation computes it."""
import numpy as np

from ...errors import TorchValueError
from . import _kernels as K
from .optimizer import Optimizer, _no_grad_step, new_state, write


class RMSprop(Optimizer):
    def __init__(self, params, lr=1e-2, alpha=0.99, eps=1e-8, weight_decay=0, momentum=0, centered=False,
                 capturable=False, foreach=None, maximize=False, differentiable=False):
        if not 0.0 <= lr:
            raise TorchValueError(f"Invalid learning rate: {lr}")
        if not 0.0 <= eps:
            raise TorchValueError(f"Invalid epsilon value: {eps}")
        if not 0.0 <= momentum:
            raise TorchValueError(f"Invalid momentum value: {momentum}")
        if not 0.0 <= weight_decay:
            raise TorchValueError(f"Invalid weight_decay value: {weight_decay}")
        if not 0.0 <= alpha:
            raise TorchValueError(f"Invalid alpha value: {alpha}")
        defaults = {"lr": lr, "momentum": momentum, "alpha": alpha, "eps": eps, "centered": centered,
                    "weight_decay": weight_decay, "capturable": capturable, "foreach": foreach,
                    "maximize": maximize, "differentiable": differentiable}
        super().__init__(params, defaults)

    @_no_grad_step
    def step(self, closure=None):
        loss = self._closure_loss(closure)
        for group in self.param_groups:
            lr, alpha, eps, wd, momentum = (group[k] for k in ("lr", "alpha", "eps", "weight_decay", "momentum"))
            for p in group["params"]:
                if p._grad is None:
                    continue
                state = self.state[p]
                if len(state) == 0:
                    state["step"] = new_state(np.float32(0))
                    state["square_avg"] = new_state(np.zeros_like(p._data))
                    if momentum > 0:
                        state["momentum_buffer"] = new_state(np.zeros_like(p._data))
                    if group["centered"]:
                        state["grad_avg"] = new_state(np.zeros_like(p._data))
                grad = -p._grad._data if group["maximize"] else p._grad._data
                write(state["step"], state["step"]._data + np.float32(1))
                if wd != 0:
                    grad = K.add(grad, p._data, wd)
                square_avg = state["square_avg"]
                write(square_avg, K.addcmul(K.mul(square_avg._data, alpha), grad, grad, 1 - alpha), bumps=2)
                if group["centered"]:
                    grad_avg = state["grad_avg"]
                    write(grad_avg, K.lerp(grad_avg._data, grad, 1 - alpha))
                    avg = K.sqrt(K.addcmul(square_avg._data, grad_avg._data, grad_avg._data, -1))
                else:
                    avg = K.sqrt(square_avg._data)
                avg = avg + avg.dtype.type(eps)
                if momentum > 0:
                    buf = state["momentum_buffer"]
                    write(buf, K.addcdiv(K.mul(buf._data, momentum), grad, avg, 1), bumps=2)
                    write(p, K.add(p._data, buf._data, -lr))
                else:
                    write(p, K.addcdiv(p._data, grad, avg, -lr))
        return loss
