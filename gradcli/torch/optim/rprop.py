"""torch.optim.Rprop, as PyTorch's single-tensor (CPU) implementation computes it."""
import numpy as np

from ...engine import TorchValueError
from . import _kernels as K
from .optimizer import Optimizer, _no_grad_step, count_step, flat, new_state, write_flat


class Rprop(Optimizer):
    def __init__(self, params, lr=1e-2, etas=(0.5, 1.2), step_sizes=(1e-6, 50), *, capturable=False, foreach=None,
                 maximize=False, differentiable=False):
        if not 0.0 <= lr:
            raise TorchValueError(f"Invalid learning rate: {lr}")
        if not 0.0 < etas[0] < 1.0 < etas[1]:
            raise TorchValueError(f"Invalid eta values: {etas[0]}, {etas[1]}")
        defaults = {"lr": lr, "etas": etas, "step_sizes": step_sizes, "foreach": foreach, "maximize": maximize,
                    "differentiable": differentiable, "capturable": capturable}
        super().__init__(params, defaults)

    @_no_grad_step
    def step(self, closure=None):
        return self._step(closure)

    def _advance(self, p, group):
        """The step count's increment (the state is made on the first step); the update's
        scalars depend on the dtype."""
        state = self.state[p]
        if len(state) == 0:
            state["step"] = new_state(np.float32(0))
            state["prev"] = new_state(np.zeros_like(p._data))
            state["step_size"] = new_state(np.full_like(p._grad._data, group["lr"]))
        count_step(state)
        return p._data.dtype

    def _update(self, params, group):
        """PyTorch's _single_tensor_rprop for each parameter, run on all of them at once."""
        states = [self.state[p] for p in params]
        etaminus, etaplus = group["etas"]
        step_size_min, step_size_max = group["step_sizes"]
        param = flat(params)
        grad = flat([p._grad for p in params])
        if group["maximize"]:
            grad = -grad
        dt = param.dtype
        prevs = [state["prev"] for state in states]
        sign = np.sign(grad * flat(prevs))
        sign[sign > 0] = etaplus
        sign[sign < 0] = etaminus
        sign[sign == 0] = 1
        step_sizes = [state["step_size"] for state in states]
        step_size = np.clip(flat(step_sizes) * sign, dt.type(step_size_min), dt.type(step_size_max))
        write_flat(step_sizes, step_size, bumps=2)
        grad = grad.copy()
        grad[sign == dt.type(etaminus)] = 0
        write_flat(params, K.addcmul(param, np.sign(grad), step_size, -1))
        write_flat(prevs, grad)
