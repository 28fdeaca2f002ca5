"""torch.autograd.backward and torch.autograd.grad: their arguments checked and turned into
the roots and gradients the engine starts from (execute)."""
from __future__ import annotations

import operator

import numpy as np

from .dtypes import Size, dtype_of
from .errors import TorchIndexError, TorchNotImplementedError, TorchOverflowError, TorchRuntimeError, TorchTypeError
from .engine import CallRecord, _starts, execute
from .state import CONFIG, STATE, W_CREATE_GRAPH
from .tensor import TensorBase


def _as_tensor_list(value, what):
    if value is None:
        return None
    if isinstance(value, TensorBase):
        return [value]
    if isinstance(value, (list, tuple)):
        return list(value)
    if hasattr(value, "__iter__"):          # any iterable, as PyTorch's tuple(tensors) takes it ('' is none)
        return list(value)
    raise TorchTypeError(f"'{type(value).__name__}' object is not iterable")


def _make_grads(outputs, grads, create_graph):
    result = []
    for i, out in enumerate(outputs):
        g = grads[i] if grads is not None and i < len(grads) else None
        if g is None:
            if out.requires_grad and out._data.size != 1:
                raise TorchRuntimeError("grad can be implicitly created only for scalar outputs")
            if out.requires_grad and out._data.dtype.kind != "f":
                raise TorchRuntimeError(
                    f"grad can be implicitly created only for real scalar outputs but got {dtype_of(out._data)}")
            result.append(np.ones(out._data.shape, out._data.dtype) if not create_graph
                          else CONFIG.tensor(np.ones(out._data.shape, out._data.dtype)))
        else:
            if not isinstance(g, TensorBase):
                raise TorchTypeError(f"'{type(g).__name__}' object is not iterable")
            if g._data.shape != out._data.shape:
                raise TorchRuntimeError(
                    f"Mismatch in shape: grad_output[{i}] has a shape of {Size(g._data.shape)} and "
                    f"output[{i}] has a shape of {Size(out._data.shape)}.")
            result.append(g if create_graph else g._data)
    return result


def backward(tensors, grad_tensors=None, retain_graph=None, create_graph=False, inputs=None,
             _single_gradient=None):
    """torch.autograd.backward / Tensor.backward."""
    calls = STATE.calls
    try:
        _backward(tensors, grad_tensors, retain_graph, create_graph, inputs)
    except Exception as e:
        _raised_early(calls, "backward", retain_graph, create_graph, e)
        raise


def _raised_early(calls, kind, retain_graph, create_graph, error):
    """A call that raised before running any node is still one call, in the report too."""
    if STATE.calls == calls and STATE.observer is not None:
        record = CallRecord(kind, bool(create_graph if retain_graph is None else retain_graph))
        record.error = error
        record.finish()


def _backward(tensors, grad_tensors, retain_graph, create_graph, inputs):
    tensors = _as_tensor_list(tensors, "tensors")
    if grad_tensors is not None and not isinstance(grad_tensors, (list, tuple)):
        grad_tensors = _as_tensor_list(grad_tensors, "grad_tensors")
    if retain_graph is None:
        retain_graph = create_graph
    if create_graph:
        STATE.warn(W_CREATE_GRAPH)
    grads = _make_grads(tensors, grad_tensors, create_graph)
    if inputs is not None:
        inputs = _as_tensor_list(inputs, "inputs")
        if not inputs:
            raise TorchRuntimeError("'inputs' argument to backward() cannot be empty.")
        for t in inputs:
            if not t.requires_grad:
                raise TorchRuntimeError("can't retain_grad on Tensor that has requires_grad=False")
    _engine_flags(retain_graph, create_graph)
    _count_gradients(tensors, grad_tensors)
    execute(tensors, grads, bool(retain_graph), bool(create_graph), inputs, accumulate=True, given=grad_tensors)


def _count_gradients(outputs, grads):
    """The engine takes one gradient per output: fewer given (backward(y, [])) is its error (more
    are cut to the outputs' number by _make_grads' zip)."""
    if grads is not None and not isinstance(grads, TensorBase) and len(grads) < len(outputs):
        raise TorchRuntimeError(f"got {len(outputs)} tensors and {len(grads)} gradients")


def _engine_flags(*flags):
    """The engine's entry parses retain_graph and create_graph as unsigned chars (None refused)."""
    for v in flags:
        try:
            v = operator.index(v)
        except TypeError as e:
            raise TorchTypeError(str(e)) from None
        if not -2 ** 63 <= v < 2 ** 63:
            raise TorchOverflowError("Python int too large to convert to C long")
        if not 0 <= v <= 255:
            raise TorchOverflowError(f"unsigned byte integer is {'less than minimum' if v < 0 else 'greater than maximum'}")


def grad(outputs, inputs, grad_outputs=None, retain_graph=None, create_graph=False,
         allow_unused=None, is_grads_batched=False, materialize_grads=False):
    """torch.autograd.grad."""
    calls = STATE.calls
    try:
        if is_grads_batched:
            return _batched_grad(outputs, inputs, grad_outputs, retain_graph, create_graph, allow_unused,
                                 materialize_grads)
        return _grad(outputs, inputs, grad_outputs, retain_graph, create_graph, allow_unused, materialize_grads)
    except Exception as e:
        _raised_early(calls, "grad", retain_graph, create_graph, e)
        raise


def _batched_grad(outputs, inputs, grad_outputs, retain_graph, create_graph, allow_unused, materialize_grads):
    """is_grads_batched=True: dim 0 of each grad_output is a batch, and each input's gradient is
    the batch of vector-Jacobian products, one per slice (PyTorch vmaps its engine over dim 0;
    here the engine runs once per slice, on the graph retained until the last)."""
    outputs = _as_tensor_list(outputs, "outputs")
    grad_outputs = [None] * len(outputs) if grad_outputs is None else _as_tensor_list(grad_outputs, "grad_outputs")
    sizes = set()
    for i, (out, g) in enumerate(zip(outputs, grad_outputs)):
        if g is None:
            continue
        if g._data.ndim == 0:
            raise TorchIndexError("invalid index of a 0-dim tensor. Use `tensor.item()` in Python or "
                                  "`tensor.item<T>()` in C++ to convert a 0-dim tensor to a number")
        if g._data.shape[1:] != out._data.shape:        # (PyTorch's text shows grad_output[0]'s shape[1:])
            raise TorchRuntimeError(
                "If `is_grads_batched=True`, we interpret the first dimension of each grad_output as the batch "
                "dimension. The sizes of the remaining dimensions are expected to match the shape of corresponding "
                f"output, but a mismatch was detected: grad_output[{i}] has a shape of {Size(g._data.shape[2:])} "
                f"and output[{i}] has a shape of {Size(out._data.shape)}. If you only want some tensors in "
                "`grad_output` to be considered batched, consider using vmap.")
        sizes.add(g._data.shape[0])
    if create_graph:                    # its graph is of vmapped nodes
        raise TorchNotImplementedError("gradcli does not implement autograd.grad(is_grads_batched=True) with "
                                       "create_graph=True (yet)")
    n = sizes.pop() if len(sizes) == 1 else 1
    if allow_unused is None:
        allow_unused = materialize_grads
    rows = []
    observer, calls = STATE.observer, STATE.calls
    for b in range(n):
        slices = [None if g is None else CONFIG.tensor(g._data[b].copy()) for g in grad_outputs]
        last = b == n - 1
        if last:                        # the report shows one call, as PyTorch's engine runs once
            STATE.observer, STATE.calls = observer, calls
        else:
            STATE.observer = None
        try:
            rows.append(_grad(outputs, inputs, slices, retain_graph if last else True, False, allow_unused, False))
        finally:
            STATE.observer = observer
    result = []
    for t, grads in zip(_as_tensor_list(inputs, "inputs"), zip(*rows)):
        if grads[0] is None:
            result.append(CONFIG.tensor(np.zeros(t._data.shape, t._data.dtype)) if materialize_grads else None)
        else:
            result.append(CONFIG.tensor(np.stack([g._data for g in grads])))
    return tuple(result)


def _grad(outputs, inputs, grad_outputs, retain_graph, create_graph, allow_unused, materialize_grads):
    outputs = _as_tensor_list(outputs, "outputs")
    inputs = _as_tensor_list(inputs, "inputs")
    if not inputs:
        raise TorchRuntimeError("`inputs` argument to `grad()` cannot be empty.")
    if allow_unused is None:
        allow_unused = materialize_grads
    if grad_outputs is not None and not isinstance(grad_outputs, (list, tuple)):
        grad_outputs = _as_tensor_list(grad_outputs, "grad_outputs")
    if retain_graph is None:
        retain_graph = create_graph
    grads = _make_grads(outputs, grad_outputs, create_graph)
    _starts(outputs)                        # PyTorch's engine reads the outputs before the inputs
    for t in inputs:
        if not t.requires_grad:
            raise TorchRuntimeError("One of the differentiated Tensors does not require grad")
    _engine_flags(retain_graph, create_graph)
    _count_gradients(outputs, grad_outputs)
    captured = execute(outputs, grads, bool(retain_graph), bool(create_graph), inputs, accumulate=False)
    result = []
    for i, (t, g) in enumerate(zip(inputs, captured)):
        if g is None:
            if materialize_grads:
                g = np.zeros(t._data.shape, t._data.dtype)
            elif not allow_unused:
                raise TorchRuntimeError(
                    f"The differentiated Tensor at index {i} appears to not have been used in the graph. "
                    "Set allow_unused=True if this is the desired behavior.")
        if g is not None and not isinstance(g, TensorBase):
            g = CONFIG.tensor(g)
        result.append(g)
    return tuple(result)
