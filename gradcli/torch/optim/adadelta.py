"""torch.optim.Adadelta, as PyTorch's single-tensor (CPU) implementation computes it."""
from ...engine import vml
from ...engine import TorchValueError
from . import _kernels as K
from .optimizer import Optimizer, _no_grad_step, count_step, flat, flat_param_and_grad, init_state, write_flat


class Adadelta(Optimizer):
    def __init__(self, params, lr=1.0, rho=0.9, eps=1e-6, weight_decay=0, foreach=None, *, capturable=False,
                 maximize=False, differentiable=False):
        if not 0.0 <= lr:
            raise TorchValueError(f"Invalid learning rate: {lr}")
        if not 0.0 <= rho <= 1.0:
            raise TorchValueError(f"Invalid rho value: {rho}")
        if not 0.0 <= eps:
            raise TorchValueError(f"Invalid epsilon value: {eps}")
        if not 0.0 <= weight_decay:
            raise TorchValueError(f"Invalid weight_decay value: {weight_decay}")
        defaults = {"lr": lr, "rho": rho, "eps": eps, "weight_decay": weight_decay, "maximize": maximize,
                    "capturable": capturable, "foreach": foreach, "differentiable": differentiable}
        super().__init__(params, defaults)

    @_no_grad_step
    def step(self, closure=None):
        return self._step(closure)

    def _advance(self, p, group):
        """The step count's increment (the state is made on the first step); the update's
        scalars depend on the dtype."""
        state = init_state(self.state[p], p, "square_avg", "acc_delta")
        count_step(state)
        return p._data.dtype

    def _update(self, params, group):
        """PyTorch's _single_tensor_adadelta for each parameter, run on all of them at once."""
        states = [self.state[p] for p in params]
        rho = group["rho"]
        param, grad = flat_param_and_grad(params, group)
        eps = param.dtype.type(group["eps"])
        square_avgs = [state["square_avg"] for state in states]
        acc_deltas = [state["acc_delta"] for state in states]
        square_avg = K.addcmul(K.mul(flat(square_avgs), rho), grad, grad, 1 - rho)
        write_flat(square_avgs, square_avg, bumps=2)
        std = vml.sqrt(square_avg + eps)
        acc_delta = flat(acc_deltas)
        delta = (vml.sqrt(acc_delta + eps) / std) * grad
        write_flat(acc_deltas, K.addcmul(K.mul(acc_delta, rho), delta, delta, 1 - rho), bumps=2)
        write_flat(params, K.add(param, delta, -group["lr"]))
