"""torch.optim.RMSprop, as PyTorch's single-tensor (CPU) implementation computes it."""
import numpy as np

from ...engine import vml
from ...engine import TorchValueError
from . import _kernels as K
from .optimizer import Optimizer, _no_grad_step, count_step, flat, flat_param_and_grad, new_state, write_flat


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
            for params in self._batches(group, lambda p: self._advance(p, group)):
                self._update(params, group)
        return loss

    def _advance(self, p, group):
        """The step count's increment (the state is made on the first step); the update's
        scalars depend on the dtype."""
        state = self.state[p]
        if len(state) == 0:
            state["step"] = new_state(np.float32(0))
            state["square_avg"] = new_state(np.zeros_like(p._data))
            if group["momentum"] > 0:
                state["momentum_buffer"] = new_state(np.zeros_like(p._data))
            if group["centered"]:
                state["grad_avg"] = new_state(np.zeros_like(p._data))
        count_step(state)
        return p._data.dtype

    def _update(self, params, group):
        """PyTorch's _single_tensor_rmsprop for each parameter, run on all of them at once."""
        lr, alpha, eps, momentum = (group[k] for k in ("lr", "alpha", "eps", "momentum"))
        states = [self.state[p] for p in params]
        param, grad = flat_param_and_grad(params, group)
        square_avgs = [state["square_avg"] for state in states]
        square_avg = K.addcmul(K.mul(flat(square_avgs), alpha), grad, grad, 1 - alpha)
        write_flat(square_avgs, square_avg, bumps=2)
        if group["centered"]:
            grad_avgs = [state["grad_avg"] for state in states]
            grad_avg = K.lerp(flat(grad_avgs), grad, 1 - alpha)
            write_flat(grad_avgs, grad_avg)
            avg = vml.sqrt(K.addcmul(square_avg, grad_avg, grad_avg, -1))
        else:
            avg = vml.sqrt(square_avg)
        avg = avg + avg.dtype.type(eps)
        if momentum > 0:
            bufs = [state["momentum_buffer"] for state in states]
            buf = K.addcdiv(K.mul(flat(bufs), momentum), grad, avg, 1)
            write_flat(bufs, buf, bumps=2)
            write_flat(params, K.add(param, buf, -lr))
        else:
            write_flat(params, K.addcdiv(param, grad, avg, -lr))
