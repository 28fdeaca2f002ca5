"""torch.optim.Optimizer: parameter groups, per-parameter state, zero_grad, state_dict."""
from __future__ import annotations

import copy
import functools

import numpy as np

from ... import engine as _E
from ... import ops as _ops
from ...engine import CONFIG, TensorBase, shown_as_pytorch
from ...engine import TorchTypeError, TorchValueError
from . import _kernels as K


class _RequiredParameter:
    """Singleton class representing a required parameter for an Optimizer."""

    def __repr__(self):
        return "<required parameter>"


required = _RequiredParameter()


def _typename(obj):
    if isinstance(obj, TensorBase):
        return "torch." + obj.dtype.tensor_type
    module = type(obj).__module__
    name = type(obj).__qualname__
    return name if module in ("builtins", "__main__") else f"{module}.{name}"


def write(t, value, bumps=1):
    """An in-place update of t by `bumps` of PyTorch's in-place ops (each bumps t's version
    counter once), as an optimizer step does it under no_grad."""
    t._data[...] = value                # (np.copyto with casting="unsafe", without its dispatch)
    vc = t._version_counter
    for _ in range(bumps):
        vc.bump()
    if getattr(vc, "views", None):      # (views of t's storage: see ops._refresh_views)
        _ops._refresh_views(t)


_FLAT_MAX = 1 << 16                 # larger tensors are updated one by one (a copy costs more than a call)


def flat(tensors):
    """Every tensor's elements in turn, as one array (a single tensor's own array): an
    element-wise kernel given it computes each element exactly as it would on its own tensor,
    so a step runs each kernel once for all the parameters of a group that share its scalars."""
    if len(tensors) == 1:
        return tensors[0]._data
    return np.concatenate([t._data.ravel() for t in tensors])


def flat_param_and_grad(params, group, weight_decay=True):
    """flat() of the parameters and of their gradients, the gradient negated for `maximize`
    and, with weight_decay (L2, not decoupled), plus weight_decay * parameter (add, fused)."""
    param = flat(params)
    grad = flat([p._grad for p in params])
    if group["maximize"]:
        grad = -grad
    if weight_decay and group["weight_decay"] != 0:
        grad = K.add(grad, param, group["weight_decay"])
    return param, grad


def parts(values, tensors):
    """Each tensor's part of `values` (an array made by flat()), in its shape."""
    if len(tensors) == 1:
        return [values]
    out = []
    start = 0
    for t in tensors:
        end = start + t._data.size
        out.append(values[start:end].reshape(t._data.shape))
        start = end
    return out


def write_flat(tensors, values, bumps=1):
    """write() for each tensor, its part of `values`."""
    for t, part in zip(tensors, parts(values, tensors)):
        write(t, part, bumps)


def count_step(state):
    """state["step"] += 1 (a float32 tensor, as PyTorch keeps it); the new count."""
    step_t = state["step"]
    write(step_t, step_t._data + np.float32(1))
    return step_t._data.item()


def new_state(value):
    return CONFIG.tensor(np.array(value))


def init_state(state, p, *names):
    """A parameter's state on its first step: the step count, and zeros like p under names."""
    if len(state) == 0:
        state["step"] = new_state(np.float32(0))
        for name in names:
            state[name] = new_state(np.zeros_like(p._data))
    return state


def check_adam_arguments(lr, eps, betas, weight_decay):
    """The Adam family's argument checks, in PyTorch's order and words."""
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


def _no_grad_step(step):
    """Optimizer.step runs under no_grad (PyTorch's _use_grad_for_differentiable)."""
    @functools.wraps(step)
    def wrapper(self, *args, **kwargs):
        prev = _E.STATE.grad_enabled
        _E.STATE.grad_enabled = False
        try:
            return step(self, *args, **kwargs)
        finally:
            _E.STATE.grad_enabled = prev
    return wrapper


class Optimizer:
    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        shown_as_pytorch(cls)

    def __init__(self, params, defaults):
        self.defaults = defaults
        if isinstance(params, TensorBase):
            raise TorchTypeError("params argument given to the optimizer should be an iterable of Tensors or "
                                 "dicts, but got " + _typename(params))
        self.state = _StateDict()
        self.param_groups = []
        param_groups = list(params)
        if len(param_groups) == 0:
            raise TorchValueError("optimizer got an empty parameter list")
        if not isinstance(param_groups[0], dict):
            param_groups = [{"params": param_groups}]
        for param_group in param_groups:
            self.add_param_group(param_group)

    def __repr__(self):
        text = self.__class__.__name__ + " ("
        for i, group in enumerate(self.param_groups):
            text += f"\nParameter Group {i}\n"
            for key in sorted(group):
                if key != "params":
                    text += f"    {key}: {group[key]}\n"
        return text + ")"

    def add_param_group(self, param_group):
        if not isinstance(param_group, dict):
            raise TorchTypeError(f"param_group must be a dict, but got {type(param_group)}")
        params = param_group["params"]
        if isinstance(params, TensorBase):
            param_group["params"] = [params]
        elif isinstance(params, set):
            raise TorchTypeError("optimizer parameters need to be organized in ordered collections, but the "
                                 "ordering of tensors in sets will change between runs. Please use a list instead.")
        else:
            param_group["params"] = list(params)
        names = [p[0] for p in param_group["params"] if isinstance(p, tuple)]
        param_group["params"] = [p[1] if isinstance(p, tuple) else p for p in param_group["params"]]
        if names:
            if len(names) != len(param_group["params"]):
                raise TorchValueError("all optimizer params should be with/without names. Some param names are missing")
            param_group["param_names"] = names
        for param in param_group["params"]:
            if not isinstance(param, TensorBase):
                raise TorchTypeError("optimizer can only optimize Tensors, but one of the params is "
                                     + _typename(param))
            if not self.defaults.get("differentiable", None) and not (param.is_leaf or param.retains_grad):
                raise TorchValueError("can't optimize a non-leaf Tensor")
        for name, default in self.defaults.items():
            if default is required and name not in param_group:
                raise TorchValueError(
                    f"parameter group didn't specify a value of required optimization parameter {name}")
            param_group.setdefault(name, default)
        params = param_group["params"]
        if len({id(p) for p in params}) != len(params):
            _E.STATE.warn("optimizer contains a parameter group with duplicate parameters; in future, this will "
                          "cause an error; see github.com/pytorch/pytorch/issues/40967 for more information")
        seen = set()
        for group in self.param_groups:
            seen.update(id(p) for p in group["params"])
            if ("param_names" in param_group) != ("param_names" in group):
                which = "with names" if "param_names" in param_group else "without names"
                raise TorchValueError("all optimizer param groups should be with/without names. "
                                      f"cannot add param group {which} to the optimizer")
        if any(id(p) in seen for p in params):
            raise TorchValueError("some parameters appear in more than one parameter group")
        self.param_groups.append(param_group)

    def zero_grad(self, set_to_none=True):
        for group in self.param_groups:
            for p in group["params"]:
                g = p._grad
                if g is None:
                    continue
                if set_to_none:
                    p._grad = None
                else:
                    if g.grad_fn is not None:
                        g.detach_()
                    else:
                        g.requires_grad_(False)
                    write(g, 0)

    def step(self, closure=None):
        raise NotImplementedError

    def _step(self, closure):
        """The step of an optimizer that updates batches of parameters at once: the closure's
        loss; in each group, _advance(p, group) for every parameter with a gradient (the key
        of its batch, see _batches), then _update(params, group) for each batch."""
        loss = self._closure_loss(closure)
        for group in self.param_groups:
            for params in self._batches(group, lambda p: self._advance(p, group)):
                self._update(params, group)
        return loss

    def _batches(self, group, key):
        """The group's parameters that have a gradient, in lists that share key(p) (which sees
        every parameter in turn, before the list holding it is updated). The key names what
        the update's scalars depend on: a list is updated at once (see flat())."""
        params = [p for p in group["params"] if p._grad is not None]
        # Parameters that may share memory (one listed twice, views of one array) are updated
        # one after the other, each from the other's new values, as PyTorch's loop does.
        storages = {id(p._data if p._data.base is None else p._data.base) for p in params}
        if len(storages) < len(params):
            for p in params:
                key(p)
                yield [p]
            return
        batches = {}
        for p in params:
            batches.setdefault((key(p), p._data.size <= _FLAT_MAX or id(p)), []).append(p)
        yield from batches.values()

    def _closure_loss(self, closure):
        if closure is None:
            return None
        prev = _E.STATE.grad_enabled
        _E.STATE.grad_enabled = True
        try:
            return closure()
        finally:
            _E.STATE.grad_enabled = prev

    def state_dict(self):
        mappings = {}
        start = 0

        def pack_group(group):
            nonlocal start
            packed = {k: v for k, v in group.items() if k != "params"}
            for i, p in enumerate(group["params"], start):
                mappings.setdefault(id(p), i)
            packed["params"] = [mappings[id(p)] for p in group["params"]]
            start += len(packed["params"])
            return packed

        param_groups = [pack_group(g) for g in self.param_groups]
        packed_state = {(mappings[id(k)] if isinstance(k, TensorBase) else k): v for k, v in self.state.items()}
        return {"state": packed_state, "param_groups": param_groups}

    def load_state_dict(self, state_dict):
        state_dict = state_dict.copy()
        groups = self.param_groups
        saved_groups = copy.deepcopy(state_dict["param_groups"])
        if len(groups) != len(saved_groups):
            raise TorchValueError("loaded state dict has a different number of parameter groups")
        if any(len(g["params"]) != len(s["params"]) for g, s in zip(groups, saved_groups)):
            raise TorchValueError("loaded state dict contains a parameter group that doesn't match the size of "
                                  "optimizer's group")
        id_map = {}
        for g, s in zip(groups, saved_groups):
            id_map.update(zip(s["params"], g["params"]))

        def cast(param, value, key=None):
            if isinstance(value, TensorBase):
                if key == "step" or not param.is_floating_point() or value.dtype is param.dtype:
                    return value
                return value.to(param.dtype)
            if isinstance(value, dict):
                return {k: cast(param, v, key=k) for k, v in value.items()}
            return value

        state = _StateDict()
        for k, v in state_dict["state"].items():
            if k in id_map:
                param = id_map[k]
                state[param] = cast(param, v)
            else:
                state[k] = v

        def update_group(group, new_group):
            new_group["params"] = group["params"]
            if "param_names" in group and "param_names" not in new_group:
                new_group["param_names"] = group["param_names"]
            return new_group

        self.state = state
        self.param_groups = [update_group(g, ng) for g, ng in zip(groups, saved_groups)]


shown_as_pytorch(Optimizer)


class _StateDict(dict):
    """Optimizer.state: a dict from tensor to its state dict, empty on first read
    (PyTorch's defaultdict(dict))."""

    def __missing__(self, key):
        value = self[key] = {}
        return value

    def __repr__(self):
        return f"defaultdict(<class 'dict'>, {dict.__repr__(self)})"
