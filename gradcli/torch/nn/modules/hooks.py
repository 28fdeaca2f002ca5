"""Full backward hooks (PyTorch's torch.utils.hooks.BackwardHook): a module's tensor inputs and
outputs pass through an identity node, BackwardHookFunctionBackward, whose gradients the hooks see."""
from __future__ import annotations

import numpy as np

from ....engine import CONFIG, STATE, TensorBase
from ....ops import TABLE, _begin, _record
from ....ops.views import custom_function_view

ROW = TABLE["nn.backward_hook_function"]

W_NO_INPUT_GRAD = ("Full backward hook is firing when gradients are computed with respect to module outputs since "
                   "no inputs require gradients. See https://docs.pytorch.org/docs/main/generated/torch.nn.Module."
                   "html#torch.nn.Module.register_full_backward_hook for more details.")


def _identity(t):
    """BackwardHookFunction's output: a view of t that may not be changed in place."""
    out = _record(ROW, _begin(t), t._data, (t,), view_of=t)
    custom_function_view(out, t)
    return out


class BackwardHook:
    def __init__(self, module, user_hooks, user_pre_hooks):
        self.module = module
        self.user_hooks = user_hooks
        self.user_pre_hooks = user_pre_hooks
        self.grad_outputs = None
        self.n_inputs = 0
        self.input_grads = {}

    def _wrap(self, args, on_grad):
        """args with every tensor that requires grad passed through the identity node, whose
        gradient on_grad(index, grad) sees (and may replace)."""
        out = []
        for i, a in enumerate(args):
            if isinstance(a, TensorBase) and a.requires_grad and STATE.grad_enabled:
                a = _identity(a)
                a.register_hook(lambda g, i=i: on_grad(i, g))
            out.append(a)
        return out

    def setup_input_hook(self, args):
        wrapped = self._wrap(args, self._input_grad)
        self.n_inputs = sum(1 for a, b in zip(args, wrapped) if a is not b)
        self.n_args = len(args)
        # PyTorch passes every tensor input through one node once any requires grad: one that does
        # not gets that node's materialized zero gradient
        self.zero_grads = {i: CONFIG.tensor(np.zeros_like(a._data)) for i, a in enumerate(args)
                           if self.n_inputs and isinstance(a, TensorBase) and a is wrapped[i]}
        return tuple(wrapped)

    def _input_grad(self, i, g):
        self.input_grads[i] = g
        if len(self.input_grads) < self.n_inputs:
            return None
        grad_inputs = tuple(self.input_grads.get(k, self.zero_grads.get(k)) for k in range(self.n_args))
        self.input_grads = {}
        result = None
        for hook in self.user_hooks:
            res = hook(self.module, grad_inputs if result is None else result, self.grad_outputs)
            if res is not None:
                result = tuple(res) if isinstance(res, (tuple, list)) else (res,)
        self.grad_outputs = None
        self.output_grads = {}
        return None if result is None else result[i]

    def setup_output_hook(self, result):
        single = isinstance(result, TensorBase)
        outputs = (result,) if single else tuple(result) if isinstance(result, (tuple, list)) else None
        if outputs is None:
            return result
        self.n_outputs = len(outputs)
        self.output_grads = {}
        wrapped = self._wrap(outputs, self._output_grad)
        return wrapped[0] if single else type(result)(wrapped)

    def _output_grad(self, i, g):
        # one entry per output (None: not a tensor, or no gradient reached it)
        self.output_grads[i] = g
        grad_outputs = tuple(self.output_grads.get(k) for k in range(self.n_outputs))
        for hook in self.user_pre_hooks:
            res = hook(self.module, grad_outputs)
            if res is not None:
                grad_outputs = tuple(res) if isinstance(res, (tuple, list)) else (res,)
        self.grad_outputs = grad_outputs
        if self.n_inputs == 0:
            STATE.warn(W_NO_INPUT_GRAD)
            for hook in self.user_hooks:
                hook(self.module, (None,) * max(self.n_args, 1), self.grad_outputs)
            self.grad_outputs = None
        return grad_outputs[i] if grad_outputs[i] is not g else None
