"""torch.optim.SGD, as PyTorch's single-tensor (CPU) implementation computes it."""
import numpy as np

from ...engine import CONFIG
from ...engine import TorchValueError
from . import _kernels as K
from .optimizer import Optimizer, _no_grad_step, flat, flat_param_and_grad, parts, write_flat


class SGD(Optimizer):
    def __init__(self, params, lr=1e-3, momentum=0, dampening=0, weight_decay=0, nesterov=False, *,
                 maximize=False, foreach=None, differentiable=False, fused=None):
        if lr < 0.0:
            raise TorchValueError(f"Invalid learning rate: {lr}")
        if momentum < 0.0:
            raise TorchValueError(f"Invalid momentum value: {momentum}")
        if weight_decay < 0.0:
            raise TorchValueError(f"Invalid weight_decay value: {weight_decay}")
        defaults = {"lr": lr, "momentum": momentum, "dampening": dampening, "weight_decay": weight_decay,
                    "nesterov": nesterov, "maximize": maximize, "foreach": foreach,
                    "differentiable": differentiable, "fused": fused}
        if nesterov and (momentum <= 0 or dampening != 0):
            raise TorchValueError("Nesterov momentum requires a momentum and zero dampening")
        super().__init__(params, defaults)

    @_no_grad_step
    def step(self, closure=None):
        loss = self._closure_loss(closure)
        for group in self.param_groups:
            for params in self._batches(group, self._kind):
                self._update(params, group)
        return loss

    def _kind(self, p):
        """What the update depends on: the dtype, and whether a momentum buffer is made."""
        return p._data.dtype, "momentum_buffer" in self.state.get(p, ())

    def _update(self, params, group):
        """PyTorch's _single_tensor_sgd for each parameter, run on all of them at once."""
        lr, momentum = group["lr"], group["momentum"]
        param, grad = flat_param_and_grad(params, group)
        if momentum != 0:
            states = [self.state[p] for p in params]
            if "momentum_buffer" in states[0]:          # buf.mul_(momentum).add_(grad, alpha=1 - dampening)
                bufs = [state["momentum_buffer"] for state in states]
                buf = K.add(K.mul(flat(bufs), momentum), grad, 1 - group["dampening"])
                write_flat(bufs, buf, bumps=2)
            else:                                       # the first step: a copy of the gradient
                buf = grad
                for state, part in zip(states, parts(buf, params)):
                    state["momentum_buffer"] = CONFIG.tensor(np.array(part, copy=True))
            grad = K.add(grad, buf, momentum) if group["nesterov"] else buf
        write_flat(params, K.add(param, grad, -lr))
