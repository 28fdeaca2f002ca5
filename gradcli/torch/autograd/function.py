"""torch.autograd.Function: custom operations whose forward and backward are Python code.

As in PyTorch, `ctx` is the grad_fn itself: a node of class `<Name>Backward` (one class per
Function), made before forward runs (so it takes its sequence number first). Its backward is
called by the engine like any other node (its OpDef's `apply`) with the incoming gradients as
tensors; the tensors it returns flow to the inputs. Saved tensors are freed by a backward that
does not retain the graph, and reading them afterwards raises PyTorch's error.

A Function that returns a tuple makes one node with several outputs (engine.MultiOutputNode's
protocol): output k, at position k of the tuple, keeps the node's OutputEdge k, and the node
runs backward once with every output's gradient.
"""
from __future__ import annotations

import functools
import inspect

import numpy as np

from ... import engine as _E
from ...engine import CONFIG, Node, OpDef, Saved, TensorBase
from ...engine import TorchNotImplementedError, TorchRuntimeError, TorchTypeError
from ...ops.views import custom_function_view

_W_NO_BACKWARD = ("You must implement either the backward or vjp method for your custom autograd.Function to use "
                  "it with backward mode AD.")
_ONCE = "trying to differentiate twice a function that was marked with @once_differentiable"


class FunctionCtx:
    """What forward and setup_context see as `ctx` (the node's Python side)."""

    def save_for_backward(self, *tensors):
        self.to_save = tensors                  # (checked once forward has returned, as in PyTorch)

    def mark_dirty(self, *args):
        self.dirty_tensors = args

    def mark_non_differentiable(self, *args):
        self.non_differentiable = args

    def set_materialize_grads(self, value):
        self.materialize_grads = bool(value)

    @property
    def saved_tensors(self):
        saved = self.__dict__.get("_saved_list")
        if saved is None:                       # before apply has saved them: what forward passed
            return tuple(self.__dict__.get("to_save", ()))
        out = []
        for i, (s, node) in enumerate(saved):
            if s is None:
                out.append(None)
                continue
            if s.freed:
                raise _E.BackwardTwiceError(self, f"saved_tensors[{i}]")
            if s.version.v != s.saved_version:
                raise _E._version_error(self, s)
            if s.is_output:                 # (node: the output's edge, its node or an OutputEdge)
                out.append(CONFIG.tensor(s._data, requires_grad=True, grad_fn=node, version=s.version))
            else:
                out.append(s.tensor)
        return tuple(out)

    saved_variables = saved_tensors


class BackwardCFunction(FunctionCtx, Node):
    """The node class of a Function's first output (its subclass is named `<Name>Backward`)."""

    def __repr__(self):
        return f"<torch.autograd.function.{self.op.name} object at {_E._fake_address(self)}>"

    def release(self, record):
        saved = self.__dict__.get("_saved_list")
        if not saved:
            return False
        for s, _ in saved:
            if s is not None and not s.freed:
                s.freed = True
                s._data = s.tensor = None
        return True


def _backward_op(cls):
    """The OpDef of Function `cls`'s node, made once per class."""
    op = cls.__dict__.get("_backward_op")
    if op is None:
        name = cls.__name__ + "Backward"
        op = OpDef(name, apply=_run_backward)
        op.node_class = type(name, (BackwardCFunction,), {"__module__": "torch.autograd.function"})
        cls._backward_op = op
    return op


class Function:
    """Base class of custom autograd operations: define static forward and backward."""

    def __call__(self, *args, **kwargs):
        raise TorchRuntimeError("Legacy autograd function with non-static forward method is deprecated. Please use "
                                "new-style autograd function with static forward method. (Example: "
                                "https://pytorch.org/docs/stable/autograd.html#torch.autograd.Function)")

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        _E.shown_as_pytorch(cls)

    @staticmethod
    def forward(*args, **kwargs):
        raise TorchNotImplementedError("You must implement the forward function for custom autograd.Function.")

    @staticmethod
    def setup_context(ctx, inputs, output):
        raise TorchNotImplementedError("setup_context is not implemented.")

    @staticmethod
    def backward(ctx, *grad_outputs):
        raise TorchNotImplementedError(_W_NO_BACKWARD)

    vjp = backward

    @classmethod
    def apply(cls, *args, **kwargs):
        separate = cls.setup_context is not Function.setup_context
        if separate:        # (PyTorch binds the arguments to forward's signature: its TypeError)
            bound = inspect.signature(cls.forward).bind(*args, **kwargs)
            bound.apply_defaults()
            args, kwargs = tuple(bound.arguments.values()), {}
        tensors = [a for a in args if isinstance(a, TensorBase)]
        op = _backward_op(cls)
        record = _E.STATE.grad_enabled and any(t.requires_grad for t in tensors)
        edges = tuple(t._edge() if t.requires_grad else None for t in tensors)
        meta = tuple((t._data.shape, t._data.dtype) for t in tensors)
        ctx = op.node_class(op, edges, {}, {}, meta, _E.STATE.next_seq() if record else -1)
        ctx.attrs["_fn"] = ctx                     # the engine frees saved tensors through it
        ctx.needs_input_grad = tuple(isinstance(a, TensorBase) and a.requires_grad for a in args)
        ctx.materialize_grads = True
        ctx._function = cls
        ctx._tensor_positions = {i for i, a in enumerate(args) if isinstance(a, TensorBase)}
        prev = _E.STATE.grad_enabled
        _E.STATE.grad_enabled = False
        try:
            if separate:
                output = cls.forward(*args, **kwargs)
                cls.setup_context(ctx, args, output)
            else:
                output = cls.forward(ctx, *args, **kwargs)
        finally:
            _E.STATE.grad_enabled = prev
        return _wrap_outputs(ctx, args, output, record)


_E.shown_as_pytorch(Function)


def _wrap_outputs(ctx, args, output, record):
    single = not isinstance(output, tuple)
    outputs = (output,) if single else output
    edges = (ctx,) if single else _E.output_edges(ctx, len(outputs))
    dirty = {id(t) for t in ctx.__dict__.get("dirty_tensors", ())}
    non_diff = {id(t) for t in ctx.__dict__.get("non_differentiable", ())}
    inputs = {id(a) for a in args if isinstance(a, TensorBase)}
    wrapped, out_meta = [], []
    for out, edge in zip(outputs, edges):
        if not isinstance(out, TensorBase):
            wrapped.append(out)
            out_meta.append(None)
            continue
        given = out
        if id(out) in dirty:
            if record and out.grad_fn is None and out._rg and out._base is None:
                raise TorchRuntimeError("a leaf Variable that requires grad has been used in an in-place operation.")
            out._version_counter.bump()         # PyTorch counts the marking as a change too
        elif id(out) in inputs:                 # an input returned as it is: a view of it
            out = CONFIG.tensor(out._data, version=out._version_counter,
                                base=out._base if out._base is not None else out)
        out_meta.append((out._data.shape, out._data.dtype))
        differentiable = record and id(given) not in non_diff and out._data.dtype.kind == "f"
        if differentiable:
            out._fn = edge
            out._rg = True
            if out._base is not None:
                custom_function_view(out, out._base)
        elif id(given) in non_diff:
            out._rg = False
        wrapped.append(out)
    ctx._output_meta = out_meta
    to_save = ctx.__dict__.get("to_save")
    if to_save is not None:
        by_id = {id(o): o for o in wrapped if isinstance(o, TensorBase)}
        saved = []
        for i, t in enumerate(to_save):
            if t is not None and not isinstance(t, TensorBase):
                raise TorchTypeError(f"save_for_backward can only save variables, but argument {i} is of type "
                                     f"{type(t).__name__}")
            if t is None:
                saved.append((None, None))
            elif id(t) in by_id and t.grad_fn is ctx:
                saved.append((Saved(t, is_output=True), t._fn))
            else:
                saved.append((Saved(t), ctx))
        ctx._saved_list = saved
        del ctx.to_save
    return wrapped[0] if single else tuple(wrapped)


def _run_backward(ctx, g, create_graph):
    """The Function's backward, called with one gradient per forward output (g: the engine's
    list of them, or the one gradient of a Function with a single output)."""
    grads = g if type(g) is list else [g]
    args = []
    for gi, meta in zip(grads, ctx._output_meta):
        if gi is None and meta is not None and ctx.materialize_grads:
            gi = np.zeros(*meta)
        if gi is not None and not isinstance(gi, TensorBase):
            gi = CONFIG.tensor(gi)
        args.append(gi)
    cls = ctx._function
    backward = cls.backward if cls.backward is not Function.backward else cls.vjp
    result = backward(ctx, *args)
    if not isinstance(result, tuple):
        result = (result,)
    needs = ctx.needs_input_grad
    name = ctx.op.name
    if len(result) < len(needs) or any(r is not None for r in result[len(needs):]):
        raise TorchRuntimeError(f"function {name} returned an incorrect number of gradients (expected "
                                f"{len(needs)}, got {len(result)})")
    outs = []
    k = 0                                   # index among the tensor inputs
    for pos, r in enumerate(result[:len(needs)]):
        if pos not in ctx._tensor_positions:
            if r is not None:
                raise TorchRuntimeError(f"function {name} returned a gradient different than None at position "
                                        f"{pos + 1}, but the corresponding forward input was not a Variable")
            continue
        if r is not None:
            shape = ctx.input_meta[k][0]
            if not isinstance(r, TensorBase):
                raise TorchTypeError(f"expected Tensor or None (got {type(r).__name__})")
            if r._data.shape != shape and not _sums_to(r._data.shape, shape):
                raise TorchRuntimeError(f"Function {name} returned an invalid gradient at index {k} - got "
                                        f"{list(r._data.shape)} but expected shape compatible with {list(shape)}")
            r = r if create_graph else r._data
        outs.append(r)
        k += 1
    return outs


def _sums_to(shape, target):
    """True when a gradient of `shape` can be summed to `target` (target broadcasts to shape)."""
    if len(target) > len(shape):
        return False
    return all(t == s or t == 1 for t, s in zip(target[::-1], shape[::-1]))


def once_differentiable(fn):
    """A backward that runs without recording: its gradients cannot be differentiated again."""
    @functools.wraps(fn)
    def wrapper(ctx, *args):
        prev = _E.STATE.grad_enabled
        _E.STATE.grad_enabled = False
        try:
            outputs = fn(ctx, *args)
        finally:
            _E.STATE.grad_enabled = prev
        if not (prev and any(isinstance(a, TensorBase) and a.requires_grad for a in args)):
            return outputs
        single = not isinstance(outputs, tuple)
        marked = []
        edges = tuple(a._edge() for a in args if isinstance(a, TensorBase) and a.requires_grad)
        for out in (outputs,) if single else outputs:
            if isinstance(out, TensorBase):
                out = CONFIG.tensor(out._data)
                out._fn = DELAYED_ERROR.node_class(DELAYED_ERROR, edges, {}, {}, (), _E.STATE.next_seq())
                out._rg = True
            marked.append(out)
        return marked[0] if single else tuple(marked)
    return wrapper


def _delayed_error(node, g, create_graph):
    raise TorchRuntimeError(_ONCE)


DELAYED_ERROR = OpDef("DelayedError", cpp=True, apply=_delayed_error)
