"""torch.autograd.functional: vjp, jvp, jacobian, hessian, vhp and hvp, computed as PyTorch
computes them (reverse mode through autograd.grad; jvp and hvp by the double-backward trick),
with its argument checks and strict-mode errors."""
from __future__ import annotations

from ... import engine as _E
from ...engine import TensorBase
from ...engine import TorchAssertionError, TorchNotImplementedError, TorchRuntimeError, TorchTypeError

__all__ = ["vjp", "jvp", "jacobian", "hessian", "hvp", "vhp"]


class _grad_mode:
    def __init__(self, flag):
        self.flag = flag

    def __enter__(self):
        self.prev = _E.STATE.grad_enabled
        _E.STATE.grad_enabled = self.flag

    def __exit__(self, *exc):
        _E.STATE.grad_enabled = self.prev
        return False


def _zeros_like(t, requires_grad=False):
    from .. import zeros_like
    return zeros_like(t, requires_grad=requires_grad)


def _as_tuple(inp, arg_name, fn_name):
    is_tuple = isinstance(inp, tuple)
    if not is_tuple:
        inp = (inp,)
    for i, el in enumerate(inp):
        if not isinstance(el, TensorBase):
            which = f"value at index {i}" if is_tuple else f"given {arg_name}"
            raise TorchTypeError(f"The {arg_name} given to {fn_name} must be either a Tensor or a tuple of Tensors "
                                 f"but the {which} has type {type(el)}.")
    return is_tuple, inp


def _tuple_postprocess(res, to_unpack):
    if isinstance(to_unpack, tuple):
        if not to_unpack[1]:
            res = tuple(el[0] for el in res)
        if not to_unpack[0]:
            res = res[0]
    elif not to_unpack:
        res = res[0]
    return res


def _grad_preprocess(inputs, create_graph, need_graph):
    """Inputs that a graph can start from: an alias of each when the caller's graph is kept
    (create_graph), else a detached copy that requires grad (need_graph)."""
    return tuple(inp.view_as(inp) if create_graph and inp.requires_grad
                 else inp.detach().requires_grad_(need_graph) for inp in inputs)


def _grad_postprocess(inputs, create_graph):
    if isinstance(inputs[0], TensorBase):
        return inputs if create_graph else tuple(inp.detach() for inp in inputs)
    return tuple(_grad_postprocess(inp, create_graph) for inp in inputs)


def _validate_v(v, other, is_other_tuple):
    if len(other) != len(v):
        if is_other_tuple:
            raise TorchRuntimeError(f"v is a tuple of invalid length: should be {len(other)} but got {len(v)}.")
        raise TorchRuntimeError("The given v should contain a single Tensor.")
    for idx, (el_v, el_other) in enumerate(zip(v, other)):
        if el_v.size() != el_other.size():
            prepend = f"Entry {idx} in " if is_other_tuple else ""
            raise TorchRuntimeError(f"{prepend}v has invalid size: should be {el_other.size()} but got {el_v.size()}.")


_NOT_REQUIRING = {
    "hessian": ("The hessian of the user-provided function with respect to input {i} is independent of the input. "
                "This is not allowed in strict mode. You should ensure that your function is thrice differentiable "
                "and that the hessian depends on the inputs."),
    "jacobian": ("While computing the hessian, found that the jacobian of the user-provided function with respect "
                 "to input {i} is independent of the input. This is not allowed in strict mode. You should ensure "
                 "that your function is twice differentiable and that the jacobian depends on the inputs (this "
                 "would be violated by a linear function for example)."),
    "grad_inputs": ("The gradient with respect to input {i} is independent of the inputs of the user-provided "
                    "function. This is not allowed in strict mode."),
    "outputs": ("Output {i} of the user-provided function does not require gradients. The outputs must be "
                "computed in a differentiable manner from the input when running in strict mode."),
}


def _check_requires_grad(inputs, input_type, strict):
    if not strict:
        return
    for i, inp in enumerate(inputs):
        if inp is None:
            raise TorchRuntimeError(f"The output of the user-provided function is independent of input {i}. This "
                                    "is not allowed in strict mode.")
        if not inp.requires_grad:
            raise TorchRuntimeError(_NOT_REQUIRING[input_type].format(i=i))


def _autograd_grad(outputs, inputs, grad_outputs=None, create_graph=False, retain_graph=None):
    """autograd.grad over the outputs that require grad (None for every input if none does)."""
    if grad_outputs is None:
        grad_outputs = (None,) * len(outputs)
    pairs = [(out, g) for out, g in zip(outputs, grad_outputs) if out is not None and out.requires_grad]
    if not pairs:
        return (None,) * len(inputs)
    return _E.grad([o for o, _ in pairs], list(inputs), [g for _, g in pairs], retain_graph=retain_graph,
                   create_graph=create_graph, allow_unused=True)


_INDEPENDENT = {
    "back": "The output of the user-provided function is independent of input {i}. This is not allowed in strict mode.",
    "back_trick": ("The gradient with respect to the input is independent of entry {i} in the grad_outputs when "
                   "using the double backward trick to compute forward mode gradients. This is not allowed in "
                   "strict mode."),
    "double_back": ("The jacobian of the user-provided function is independent of input {i}. This is not allowed "
                    "in strict mode."),
    "double_back_trick": ("The hessian of the user-provided function is independent of entry {i} in the "
                          "grad_jacobian. This is not allowed in strict mode as it prevents from using the double "
                          "backward trick to replace forward mode AD."),
}


def _fill_in_zeros(grads, refs, strict, create_graph, stage):
    res = ()
    for i, grads_i in enumerate(grads):
        if grads_i is None:
            if strict:
                raise TorchRuntimeError(_INDEPENDENT[stage].format(i=i))
            grads_i = _zeros_like(refs[i])
        elif strict and create_graph and not grads_i.requires_grad:
            what = "hessian" if "double" in stage else "jacobian"
            raise TorchRuntimeError(f"The {what} of the user-provided function is independent of input {i}. This "
                                    "is not allowed in strict mode when create_graph=True.")
        res += (grads_i,)
    return res


def _prepare_v(v, against, is_tuple, create_graph, fn_name, single_message):
    if v is not None:
        _, v = _as_tuple(v, "v", fn_name)
        v = _grad_preprocess(v, create_graph=create_graph, need_graph=False)
        _validate_v(v, against, is_tuple)
    elif len(against) != 1 or against[0].numel() != 1:
        raise TorchRuntimeError(single_message)
    return v


_V_FOR_INPUT = ("The vector v can only be None if the input to the user-provided function is a single Tensor "
                "with a single element.")


def vjp(func, inputs, v=None, create_graph=False, strict=False):
    with _grad_mode(True):
        is_inputs_tuple, inputs = _as_tuple(inputs, "inputs", "vjp")
        inputs = _grad_preprocess(inputs, create_graph=create_graph, need_graph=True)
        is_outputs_tuple, outputs = _as_tuple(func(*inputs), "outputs of the user-provided function", "vjp")
        _check_requires_grad(outputs, "outputs", strict=strict)
        v = _prepare_v(v, outputs, is_outputs_tuple, create_graph, "vjp",
                       "The vector v can only be None if the user-provided function returns a single Tensor with "
                       "a single element.")
    with _grad_mode(True if create_graph else _E.STATE.grad_enabled):
        grad_res = _autograd_grad(outputs, inputs, v, create_graph=create_graph)
        result = _fill_in_zeros(grad_res, inputs, strict, create_graph, "back")
    outputs = _grad_postprocess(outputs, create_graph)
    result = _grad_postprocess(result, create_graph)
    return _tuple_postprocess(outputs, is_outputs_tuple), _tuple_postprocess(result, is_inputs_tuple)


def jvp(func, inputs, v=None, create_graph=False, strict=False):
    with _grad_mode(True):
        is_inputs_tuple, inputs = _as_tuple(inputs, "inputs", "jvp")
        inputs = _grad_preprocess(inputs, create_graph=create_graph, need_graph=True)
        v = _prepare_v(v, inputs, is_inputs_tuple, create_graph, "jvp",
                       "The vector v can only be None if the input to the user-provided function is a single "
                       "Tensor with a single element.")
        is_outputs_tuple, outputs = _as_tuple(func(*inputs), "outputs of the user-provided function", "jvp")
        _check_requires_grad(outputs, "outputs", strict=strict)
        grad_outputs = tuple(_zeros_like(out, requires_grad=True) for out in outputs)
        grad_inputs = _autograd_grad(outputs, inputs, grad_outputs, create_graph=True)
        _check_requires_grad(grad_inputs, "grad_inputs", strict=strict)
    with _grad_mode(True if create_graph else _E.STATE.grad_enabled):
        grad_res = _autograd_grad(grad_inputs, grad_outputs, v, create_graph=create_graph)
        result = _fill_in_zeros(grad_res, outputs, strict, create_graph, "back_trick")
    outputs = _grad_postprocess(outputs, create_graph)
    result = _grad_postprocess(result, create_graph)
    return _tuple_postprocess(outputs, is_outputs_tuple), _tuple_postprocess(result, is_outputs_tuple)


def jacobian(func, inputs, create_graph=False, strict=False, vectorize=False, strategy="reverse-mode"):
    """One reverse pass per output element (vectorize=True gives the same values this way)."""
    if strategy not in ("forward-mode", "reverse-mode"):
        raise TorchAssertionError('Expected strategy to be either "forward-mode" or "reverse-mode". Hint: If your '
                             'function has more outputs than inputs, "forward-mode" tends to be more performant. '
                             'Otherwise, prefer to use "reverse-mode".')
    if strategy == "forward-mode":
        raise TorchNotImplementedError("gradcli has no forward-mode AD: use strategy=\"reverse-mode\"")
    with _grad_mode(True):
        is_inputs_tuple, inputs = _as_tuple(inputs, "inputs", "jacobian")
        inputs = _grad_preprocess(inputs, create_graph=create_graph, need_graph=True)
        is_outputs_tuple, outputs = _as_tuple(func(*inputs), "outputs of the user-provided function", "jacobian")
        _check_requires_grad(outputs, "outputs", strict=strict)
        if vectorize and strict:
            raise TorchRuntimeError("torch.autograd.functional.jacobian: `strict=True` and `vectorized=True` are "
                                    "not supported together. Please either set `strict=False` or `vectorize=False`.")
        from .. import stack
        jacobian = ()
        for i, out in enumerate(outputs):
            jac_i = tuple([] for _ in inputs)
            for j in range(out.numel()):
                vj = _autograd_grad((out.reshape(-1)[j],), inputs, retain_graph=True, create_graph=create_graph)
                for el_idx, (jac_i_el, vj_el, inp_el) in enumerate(zip(jac_i, vj, inputs)):
                    if vj_el is not None:
                        if strict and create_graph and not vj_el.requires_grad:
                            raise TorchRuntimeError(f"The jacobian of the user-provided function is independent of "
                                                    f"input {i}. This is not allowed in strict mode when "
                                                    "create_graph=True.")
                        jac_i_el.append(vj_el)
                    else:
                        if strict:
                            raise TorchRuntimeError(f"Output {i} of the user-provided function is independent of "
                                                    f"input {el_idx}. This is not allowed in strict mode.")
                        jac_i_el.append(_zeros_like(inp_el))
            jacobian += (tuple(stack(jac_i_el, dim=0).view(tuple(out.size()) + tuple(inputs[k].size()))
                               for k, jac_i_el in enumerate(jac_i)),)
        jacobian = _grad_postprocess(jacobian, create_graph)
        return _tuple_postprocess(jacobian, (is_outputs_tuple, is_inputs_tuple))


def hessian(func, inputs, create_graph=False, strict=False, vectorize=False, outer_jacobian_strategy="reverse-mode"):
    is_inputs_tuple, inputs = _as_tuple(inputs, "inputs", "hessian")
    if outer_jacobian_strategy not in ("forward-mode", "reverse-mode"):
        raise TorchAssertionError('Expected strategy to be either "forward-mode" or "reverse-mode".')

    def ensure_single_output_function(*inp):
        out = func(*inp)
        is_out_tuple, t_out = _as_tuple(out, "outputs of the user-provided function", "hessian")
        _check_requires_grad(t_out, "outputs", strict=strict)
        if is_out_tuple or not isinstance(out, TensorBase):
            raise TorchRuntimeError("The function given to hessian should return a single Tensor")
        if out.numel() != 1:
            raise TorchRuntimeError("The Tensor returned by the function given to hessian should contain a single "
                                    "element")
        return out.squeeze()

    def jac_func(*inp):
        jac = jacobian(ensure_single_output_function, inp, create_graph=True)
        _check_requires_grad(jac, "jacobian", strict=strict)
        return jac

    res = jacobian(jac_func, inputs, create_graph=create_graph, strict=strict, vectorize=vectorize,
                   strategy=outer_jacobian_strategy)
    return _tuple_postprocess(res, (is_inputs_tuple, is_inputs_tuple))


def _single_output(func, inputs, strict, fn_name):
    is_outputs_tuple, outputs = _as_tuple(func(*inputs), "outputs of the user-provided function", fn_name)
    _check_requires_grad(outputs, "outputs", strict=strict)
    if is_outputs_tuple or not isinstance(outputs[0], TensorBase):
        raise TorchRuntimeError(f"The function given to {fn_name} should return a single Tensor")
    if outputs[0].numel() != 1:
        raise TorchRuntimeError(f"The Tensor returned by the function given to {fn_name} should contain a single "
                                "element")
    return is_outputs_tuple, outputs


def vhp(func, inputs, v=None, create_graph=False, strict=False):
    with _grad_mode(True):
        is_inputs_tuple, inputs = _as_tuple(inputs, "inputs", "vhp")
        inputs = _grad_preprocess(inputs, create_graph=create_graph, need_graph=True)
        v = _prepare_v(v, inputs, is_inputs_tuple, create_graph, "vhp", _V_FOR_INPUT)
        is_outputs_tuple, outputs = _single_output(func, inputs, strict, "vhp")
        jac = _autograd_grad(outputs, inputs, create_graph=True)
        _check_requires_grad(jac, "jacobian", strict=strict)
    with _grad_mode(True if create_graph else _E.STATE.grad_enabled):
        grad_res = _autograd_grad(jac, inputs, v, create_graph=create_graph)
        result = _fill_in_zeros(grad_res, inputs, strict, create_graph, "double_back")
    outputs = _grad_postprocess(outputs, create_graph)
    result = _grad_postprocess(result, create_graph)
    return _tuple_postprocess(outputs, is_outputs_tuple), _tuple_postprocess(result, is_inputs_tuple)


def hvp(func, inputs, v=None, create_graph=False, strict=False):
    with _grad_mode(True):
        is_inputs_tuple, inputs = _as_tuple(inputs, "inputs", "hvp")
        inputs = _grad_preprocess(inputs, create_graph=create_graph, need_graph=True)
        v = _prepare_v(v, inputs, is_inputs_tuple, create_graph, "hvp", _V_FOR_INPUT)
        is_outputs_tuple, outputs = _single_output(func, inputs, strict, "hvp")
        jac = _autograd_grad(outputs, inputs, create_graph=True)
        _check_requires_grad(jac, "jacobian", strict=strict)
        grad_jac = tuple(_zeros_like(inp, requires_grad=True) for inp in inputs)
        double_back = _autograd_grad(jac, inputs, grad_jac, create_graph=True)
        _check_requires_grad(jac, "hessian", strict=strict)
    with _grad_mode(True if create_graph else _E.STATE.grad_enabled):
        grad_res = _autograd_grad(double_back, grad_jac, v, create_graph=create_graph)
        result = _fill_in_zeros(grad_res, inputs, strict, create_graph, "double_back_trick")
    outputs = _grad_postprocess(outputs, create_graph)
    result = _grad_postprocess(result, create_graph)
    return _tuple_postprocess(outputs, is_outputs_tuple), _tuple_postprocess(result, is_inputs_tuple)
