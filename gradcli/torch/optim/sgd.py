"""torch.optim.SGD, as PyTorch's single-tensor (CPU) implementation computes it."""
import numpy as np

from ...engine import Tensor
from ...errors import TorchValueError
from . import _kernels as K
from .optimizer import Optimizer, _no_grad_step, write


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
            lr, momentum, wd = group["lr"], group["momentum"], group["weight_decay"]
            for p in group["params"]:
                if p._grad is None:
                    continue
                grad = p._grad._data
                if group["maximize"]:
                    grad = -grad
                if wd != 0:
                    grad = K.add(grad, p._data, wd)
                if momentum != 0:
                    state = self.state[p]
                    buf = state.get("momentum_buffer")
                    if buf is None:
                        buf = state["momentum_buffer"] = Tensor(np.array(grad, copy=True))
                    else:       # buf.mul_(momentum).add_(grad, alpha=1 - dampening)
                        write(buf, K.add(K.mul(buf._data, momentum), grad, 1 - group["dampening"]), bumps=2)
                    grad = K.add(grad, buf._data, momentum) if group["nesterov"] else buf._data
                write(p, K.add(p._data, grad, -lr))
        return loss
