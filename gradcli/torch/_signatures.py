"""PyTorch's argument checking for gradcli.torch's public functions and Tensor methods.

PyTorch checks every call against the function's signatures before it computes anything
(torch/csrc/utils/python_arg_parser.cpp): a wrong-typed argument is a TypeError naming the
argument, a wrong count a TypeError too. gradcli's functions are plain Python and check little
up front, so a wrong argument used to surface as whatever NumPy or Python raised inside them.

`checked(name, fn)` wraps a public function: its arguments are checked against SIGNATURES
before the call, as PyTorch's parser checks them, and a call no overload takes raises what
PyTorch raises without running. What binds is remembered by the arguments' kinds, so a
repeated call pays a set lookup. When the call itself fails, the arguments are checked again
(`_explain`): a type error found there wins over the error the body met. Errors that are not
about the arguments' types keep their own exception, except the few NumPy failures that stand
for a PyTorch check (shapes that do not broadcast). Functions that are Python code in PyTorch
(torch.nn.functional's, torch.norm, torch.autograd's) are checked on failure only: their own
code decides the order in which their arguments are read.

Signature strings mirror PyTorch's Python signatures (a tuple of them: overloads):
`Type name[=default]`, `Type?` also accepts None, `A|B` either, `Type... name` a variadic list (sizes as `ones(2, 3)` or
`ones((2, 3))`), and `*` starts the keyword-only parameters. `Tensor.ATTR` is a tensor that
PyTorch's Python code reads ATTR of first: anything else is an AttributeError there. A method's signature is the
function's without its first (self) parameter.
"""
from __future__ import annotations

import re

import numpy as np

from ..engine import DType, MemoryFormat, Size, TensorBase, _engine_flags, _make_grads
from ..engine import (ScriptError, TorchAssertionError, TorchAttributeError, TorchOverflowError, TorchRuntimeError, TorchTypeError,
                      TorchValueError)

_UNARY = "Tensor input"
_DTYPE_KW = "*, dtype? dtype=None, Any device=None, bool requires_grad=False"
_LIKE_KW = "MemoryFormat? memory_format=None, dtype? dtype=None, Any device=None, bool requires_grad=False"
_REDUCE = "Tensor input, IntList? dim=None, bool keepdim=False, *, dtype? dtype=None"

# PyTorch's deprecated overload of add and sub: it binds a call, but PyTorch's errors never name it
_ALPHA_SECOND = "Tensor|Number input, Number alpha, Tensor|Number other"
# and addcmul's and addcdiv's, a number before the two tensors
_VALUE_FIRST = "Tensor input, Number value, Tensor tensor1, Tensor tensor2"
DEPRECATED = {_ALPHA_SECOND, _VALUE_FIRST}

SIGNATURES = {
    **{n: _UNARY for n in ("abs", "exp", "log", "sin", "cos", "tanh", "sigmoid", "relu", "sqrt", "rsqrt",
                          "reciprocal", "square", "neg", "negative", "floor", "ceil", "round", "trunc", "sign",
                          "frac", "t", "logical_not", "bitwise_not", "numel")},
    "clone": "Tensor input, *, MemoryFormat? memory_format=None",
    # -- pointwise maths (session 9)
    **{n: _UNARY for n in ("log1p", "expm1", "log2", "log10", "exp2", "tan", "asin", "arcsin", "acos", "arccos",
                          "atan", "arctan", "sinh", "cosh", "asinh", "arcsinh", "acosh", "arccosh", "atanh",
                          "arctanh", "erf", "erfc", "erfinv", "sinc", "deg2rad", "rad2deg", "positive", "fix")},
    "nan_to_num": "Tensor input, float? nan=0.0, float? posinf=None, float? neginf=None",
    "logit": "Tensor input, float? eps=None",
    **{n: "Tensor input, Tensor other" for n in ("atan2", "arctan2", "hypot", "logaddexp", "logaddexp2", "fmax",
                                                 "fmin")},
    "fmod": "Tensor input, Tensor|Number other",
    "copysign": "Tensor input, Tensor|Number other",
    "true_divide": "Tensor|Number input, Tensor|Number other",
    "xlogy": ("Tensor input, Tensor|Number other", "Number self, Tensor other"),
    "float_power": ("Tensor input, Tensor|Number exponent", "Number self, Tensor exponent"),
    "lerp": "Tensor input, Tensor end, Tensor|Number weight",
    "addcmul": ("Tensor input, Tensor tensor1, Tensor tensor2, *, Number value=1", _VALUE_FIRST),
    "addcdiv": ("Tensor input, Tensor tensor1, Tensor tensor2, *, Number value=1", _VALUE_FIRST),
    "add": ("Tensor|Number input, Tensor|Number other, *, Number alpha=1", _ALPHA_SECOND),
    "sub": ("Tensor|Number input, Tensor|Number other, *, Number alpha=1", _ALPHA_SECOND),
    "subtract": ("Tensor|Number input, Tensor|Number other, *, Number alpha=1",
                 "Tensor|Number input, Number other, Number alpha=1"),      # (PyTorch's second overload)
    # -- shape ops and matrix products (session 9)
    "tile": "Tensor input, Sizes dims",
    "flip": "Tensor input, Sizes dims",
    "fliplr": _UNARY,
    "flipud": _UNARY,
    "roll": "Tensor input, IntList shifts, IntList? dims=()",
    "rot90": "Tensor input, int k=1, Sizes dims=[0;1]",
    "narrow": ("Tensor input, int dim, Tensor start, int length", "Tensor input, int dim, int start, int length"),
    **{n: ("Tensor input, Sizes source, Sizes destination", "Tensor input, int source, int destination")
       for n in ("movedim", "moveaxis")},
    "ravel": _UNARY,
    "unflatten": "Tensor input, int dim, Sizes sizes",
    "broadcast_to": "Tensor input, Sizes size",
    "tril": "Tensor input, int diagonal=0",
    "triu": "Tensor input, int diagonal=0",
    "diagonal": "Tensor input, int offset=0, int dim1=0, int dim2=1",
    "diag_embed": "Tensor input, int offset=0, int dim1=-2, int dim2=-1",
    "diag": "Tensor input, int diagonal=0",
    "trace": _UNARY,
    "adjoint": _UNARY,
    "addmm": "Tensor input, Tensor mat1, Tensor mat2, *, Number beta=1, Number alpha=1",
    "addmv": "Tensor input, Tensor mat, Tensor vec, *, Number beta=1, Number alpha=1",
    "addr": "Tensor input, Tensor vec1, Tensor vec2, *, Number beta=1, Number alpha=1",
    "baddbmm": "Tensor input, Tensor batch1, Tensor batch2, *, Number beta=1, Number alpha=1",
    "addbmm": "Tensor input, Tensor batch1, Tensor batch2, *, Number beta=1, Number alpha=1",
    "outer": "Tensor input, Tensor vec2",
    "ger": "Tensor input, Tensor vec2",
    "vdot": "Tensor input, Tensor other",
    "dist": "Tensor input, Tensor other, Number p=2",
    "kron": "Tensor input, Tensor other",
    "cross": "Tensor input, Tensor other, int? dim=None",
    "inner": "Tensor input, Tensor other",
    "matrix_power": "Tensor input, int n",
    **{n: "TensorList tensors" for n in ("hstack", "vstack", "row_stack", "dstack", "column_stack")},
    "repeat_interleave": ("Tensor repeats, *, int? output_size=None",
                          "Tensor input, Tensor repeats, int? dim=None, *, int? output_size=None",
                          "Tensor input, int repeats, int? dim=None, *, int? output_size=None"),
    "mul": "Tensor|Number input, Tensor|Number other",
    "multiply": "Tensor|Number input, Tensor|Number other",
    "div": "Tensor|Number input, Tensor|Number other, *, str? rounding_mode=None",
    "divide": "Tensor|Number input, Tensor|Number other, *, str? rounding_mode=None",
    "pow": ("Tensor input, Tensor|Number exponent", "Number input, Tensor exponent"),
    "floor_divide": "Tensor|Number input, Tensor|Number other",
    "remainder": ("Tensor input, Tensor|Number other", "Number input, Tensor other"),
    # -- sorting, selection and index ops (session 9)
    "gather": "Tensor input, int dim, Tensor index, *, bool sparse_grad=False",
    "scatter": ("Tensor input, int dim, Tensor index, Tensor src", "Tensor input, int dim, Tensor index, Tensor src, *, "
                "str reduce", "Tensor input, int dim, Tensor index, Number value",
                "Tensor input, int dim, Tensor index, Number value, *, str reduce"),
    "scatter_add": "Tensor input, int dim, Tensor index, Tensor src",
    "index_select": "Tensor input, int dim, Tensor index",
    "take": "Tensor input, Tensor index",
    "take_along_dim": "Tensor input, Tensor indices, int? dim=None",
    "masked_select": "Tensor input, Tensor mask",
    "index_add": "Tensor input, int dim, Tensor index, Tensor source, *, Number alpha=1",
    "index_copy": "Tensor input, int dim, Tensor index, Tensor source",
    "index_fill": ("Tensor input, int dim, Tensor index, Tensor value", "Tensor input, int dim, Tensor index, Number value"),
    "nonzero": "Tensor input, *, bool as_tuple=False",
    "argwhere": "Tensor input",
    "sort": ("Tensor input, int dim=-1, bool descending=False",
             "Tensor input, *, bool? stable, int dim=-1, bool descending=False"),
    "argsort": ("Tensor input, int dim=-1, bool descending=False",
                "Tensor input, *, bool stable, int dim=-1, bool descending=False"),
    "msort": "Tensor input",
    "topk": "Tensor input, int k, int dim=-1, bool largest=True, bool sorted=True",
    "kthvalue": "Tensor input, int k, int dim=-1, bool keepdim=False",
    "cummax": "Tensor input, int dim",
    "cummin": "Tensor input, int dim",
    # (Python code in PyTorch: the flags are read for their truth first, then checked by the ATen function)
    "bincount": "Tensor input, Tensor? weights=None, int minlength=0",
    "searchsorted": ("Tensor sorted_sequence, Tensor input, *, bool out_int32=False, bool right=False, str? side=None, "
                     "Tensor? sorter=None", "Tensor sorted_sequence, Number self, *, bool out_int32=False, "
                     "bool right=False, str? side=None, Tensor? sorter=None"),
    "bucketize": ("Tensor input, Tensor boundaries, *, bool out_int32=False, bool right=False",
                  "Number self, Tensor boundaries, *, bool out_int32=False, bool right=False"),
    "bitwise_and": ("Tensor input, Tensor|Number other", "Number input, Tensor other"),
    # -- comparisons/predicates and statistical reductions (session 9)
    **{n: ("Tensor input, Tensor other", "Tensor input, Number other")
       for n in ("eq", "ne", "not_equal", "gt", "greater", "ge", "greater_equal", "lt", "less", "le", "less_equal")},
    **{n: _UNARY for n in ("isnan", "isinf", "isfinite", "isposinf", "isneginf", "signbit", "isreal", "is_nonzero")},
    "isclose": "Tensor input, Tensor other, float rtol=1e-05, float atol=1e-08, bool equal_nan=False",
    "equal": "Tensor input, Tensor other",
    "count_nonzero": ("Tensor input, int? dim=None", "Tensor input, IntList dim"),
    **{n: ("Tensor input, IntList? dim, bool unbiased=True, bool keepdim=False",
           "Tensor input, IntList? dim=None, *, Number? correction=None, bool keepdim=False",
           "Tensor input, bool unbiased=True") for n in ("var", "std", "var_mean", "std_mean")},
    "logsumexp": "Tensor input, IntList dim, bool keepdim=False",
    "amax": "Tensor input, IntList? dim=(), bool keepdim=False",
    "amin": "Tensor input, IntList? dim=(), bool keepdim=False",
    "aminmax": "Tensor input, *, int? dim=None, bool keepdim=False",
    "nansum": "Tensor input, IntList? dim=None, bool keepdim=False, *, dtype? dtype=None",
    "nanmean": "Tensor input, IntList? dim=None, bool keepdim=False, *, dtype? dtype=None",
    "median": ("Tensor input", "Tensor input, int dim, bool keepdim=False"),
    "nanmedian": ("Tensor input", "Tensor input, int dim, bool keepdim=False"),
    "mode": "Tensor input, int dim=-1, bool keepdim=False",
    "bitwise_or": ("Tensor input, Tensor|Number other", "Number input, Tensor other"),
    "bitwise_xor": ("Tensor input, Tensor|Number other", "Number input, Tensor other"),
    "logical_and": "Tensor input, Tensor other",
    "logical_or": "Tensor input, Tensor other",
    "logical_xor": "Tensor input, Tensor other",
    "matmul": "Tensor input, Tensor other",
    "mm": "Tensor input, Tensor mat2",
    "bmm": "Tensor input, Tensor mat2",
    "dot": "Tensor input, Tensor tensor",
    "mv": "Tensor input, Tensor vec",
    "maximum": "Tensor input, Tensor other",
    "minimum": "Tensor input, Tensor other",
    "sum": _REDUCE,
    "mean": _REDUCE,
    "prod": ("Tensor input, *, dtype? dtype=None", "Tensor input, int dim, bool keepdim=False, *, dtype? dtype=None"),
    "max": ("Tensor input", "Tensor input, Tensor other", "Tensor input, int dim, bool keepdim=False"),
    "min": ("Tensor input", "Tensor input, Tensor other", "Tensor input, int dim, bool keepdim=False"),
    "argmax": "Tensor input, int? dim=None, bool keepdim=False",
    "argmin": "Tensor input, int? dim=None, bool keepdim=False",
    "all": "Tensor input, IntList? dim=None, bool keepdim=False",
    "any": "Tensor input, IntList? dim=None, bool keepdim=False",
    "cumsum": "Tensor input, int dim, *, dtype? dtype=None",
    "cumprod": "Tensor input, int dim, *, dtype? dtype=None",
    "softmax": "Tensor input, int dim, dtype? dtype=None",
    "log_softmax": "Tensor input, int dim, dtype? dtype=None",
    "norm": "Tensor.layout input, Number|str? p='fro', Dims? dim=None, bool keepdim=False, Any out=None, "
            "dtype? dtype=None",
    # bounds are both tensors or both numbers (clamp(x, 0.5, t) matches neither overload)
    "clamp": ("Tensor input, Tensor? min=None, Tensor? max=None", "Tensor input, Number? min=None, Number? max=None"),
    "clip": ("Tensor input, Tensor? min=None, Tensor? max=None", "Tensor input, Number? min=None, Number? max=None"),
    "clamp_": ("Tensor input, Tensor? min=None, Tensor? max=None", "Tensor input, Number? min=None, Number? max=None"),
    "clip_": ("Tensor input, Tensor? min=None, Tensor? max=None", "Tensor input, Number? min=None, Number? max=None"),
    "clamp_min": "Tensor input, Tensor|Number min",
    "clamp_max": "Tensor input, Tensor|Number max",
    "where": "Tensor condition, Tensor|Number input, Tensor|Number other",
    "masked_fill": "Tensor input, Tensor mask, Tensor|Number value",
    "allclose": "Tensor input, Tensor other, float rtol=1e-05, float atol=1e-08, bool equal_nan=False",
    "cat": "TensorList tensors, int dim=0",
    "concat": "TensorList tensors, int dim=0",
    "concatenate": "TensorList tensors, int dim=0",
    "stack": "TensorList tensors, int dim=0",
    "split_with_sizes": "Tensor input, Sizes split_sizes, int dim=0",
    "chunk": "Tensor input, int chunks, int dim=0",
    "unbind": "Tensor input, int dim=0",
    "tensor_split": ("Tensor input, int sections, int dim=0", "Tensor input, IntList indices, int dim=0",
                     "Tensor input, Tensor tensor_indices_or_sections, int dim=0"),
    **{n: ("Tensor input, int sections", "Tensor input, IntList indices") for n in ("hsplit", "vsplit", "dsplit")},
    "reshape": "Tensor input, Sizes shape",
    "permute": "Tensor input, Sizes dims",
    "transpose": "Tensor input, int dim0, int dim1",
    "swapaxes": "Tensor input, int axis0, int axis1",
    "swapdims": "Tensor input, int dim0, int dim1",
    "squeeze": ("Tensor input", "Tensor input, IntList dim"),
    "unsqueeze": "Tensor input, int dim",
    "select": "Tensor input, int dim, int index",
    "flatten": "Tensor input, int start_dim=0, int end_dim=-1",
    "tensor": "Any data, *, dtype? dtype=None, Any device=None, bool requires_grad=False, bool pin_memory=False",
    "as_tensor": "Any data, *, dtype? dtype=None, Any device=None",
    "ones": "Sizes... size, " + _DTYPE_KW,
    "zeros": "Sizes... size, " + _DTYPE_KW,
    "empty": "Sizes... size, " + _DTYPE_KW,
    "rand": "Sizes... size, *, Any generator=None, " + _DTYPE_KW,
    "randn": "Sizes... size, *, Any generator=None, " + _DTYPE_KW,
    "full": "Sizes size, Number fill_value, " + _DTYPE_KW,
    "ones_like": "Tensor input, " + _DTYPE_KW + ", MemoryFormat? memory_format=None",
    "zeros_like": "Tensor input, " + _DTYPE_KW + ", MemoryFormat? memory_format=None",
    "empty_like": "Tensor input, " + _DTYPE_KW + ", MemoryFormat? memory_format=None",
    "full_like": "Tensor input, Number fill_value, " + _DTYPE_KW + ", MemoryFormat? memory_format=None",
    "arange": ("Number end, " + _DTYPE_KW, "Number start, Number end, Number step=1, " + _DTYPE_KW),
    "linspace": "Tensor|Number start, Tensor|Number end, int steps, " + _DTYPE_KW,
    "eye": "int n, int m=n, " + _DTYPE_KW,
    "randint": ("int high, Sizes size, *, Any generator=None, dtype? dtype=None, Any device=None, "
                "bool requires_grad=False",
                "int low, int high, Sizes size, *, Any generator=None, dtype? dtype=None, Any device=None, "
                "bool requires_grad=False"),
    "randint_like": ("Tensor input, int low, int high, *, Any generator=None, " + _LIKE_KW,
                     "Tensor input, Tensor high, *, Any generator=None, " + _LIKE_KW,
                     "Tensor input, int high, *, Any generator=None, " + _LIKE_KW),
    **{n: "Tensor input, *, Any generator=None, " + _LIKE_KW for n in ("rand_like", "randn_like")},
    "randperm": "int n, *, Any generator=None, " + _DTYPE_KW,
    "bernoulli": ("Tensor input, *, Any generator=None", "Tensor input, float p, *, Any generator=None"),
    "multinomial": "Tensor input, int num_samples, bool replacement=False, *, Any generator=None",
    "normal": ("Tensor mean, Tensor std, *, Any generator=None",
               "Tensor mean, float std=1, *, Any generator=None",
               "float mean, Tensor std, *, Any generator=None",
               "float mean, float std, Sizes size, *, Any generator=None, " + _DTYPE_KW),
    "manual_seed": "Any seed",
    "set_rng_state": "Any new_state",
    "is_tensor": "Any obj",
    "set_anomaly_enabled": "bool enabled, bool check_nan=True",
    "get_default_dtype": "",
    "is_grad_enabled": "",
    "is_anomaly_enabled": "",
    "is_anomaly_check_nan_enabled": "",
    # torch.nn.functional
    "F.relu": "Tensor input, Any inplace=False",
    "F.sigmoid": "Tensor.sigmoid input",
    "F.tanh": "Tensor.tanh input",
    "F.softmax": "Tensor.softmax input, int? dim=None, Any _stacklevel=3, dtype? dtype=None",
    "F.log_softmax": "Tensor.log_softmax input, int? dim=None, Any _stacklevel=3, dtype? dtype=None",
    "F.mse_loss": "Tensor.size input, Tensor.size target, Any size_average=None, Any reduce=None, "
                  "str reduction='mean'",
    "F.nll_loss": "Tensor input, Tensor target, Tensor? weight=None, Any size_average=None, int ignore_index=-100, "
                  "Any reduce=None, str reduction='mean'",
    "F.cross_entropy": "Tensor input, Tensor target, Tensor? weight=None, Any size_average=None, "
                       "int ignore_index=-100, Any reduce=None, str reduction='mean', float label_smoothing=0.0",
    "F.binary_cross_entropy_with_logits": "Tensor.size input, Tensor.size target, Tensor? weight=None, Any size_average=None, "
                                          "Any reduce=None, str reduction='mean', Tensor? pos_weight=None",
    # torch.autograd
    "autograd.grad": "Outputs outputs, Inputs inputs, Any grad_outputs=None, "
                     "Any retain_graph=None, Any create_graph=False, bool only_inputs=True, "
                     "bool? allow_unused=None, bool is_grads_batched=False, bool materialize_grads=False",
    "autograd.backward": "Outputs tensors, Any grad_tensors=None, Any retain_graph=None, Any create_graph=False, "
                         "Any grad_variables=None, Any inputs=None",
    # -- linalg (session 9)
    "inverse": "Tensor input",
    "linalg.inv": "Tensor A",
    "det": "Tensor input",
    "linalg.det": "Tensor A",
    "slogdet": "Tensor input",
    "logdet": "Tensor input",
    "linalg.slogdet": "Tensor A",
    "linalg.matrix_power": "Tensor input, int n",
    "linalg.solve": "Tensor A, Tensor B, *, bool left=True",
    "linalg.cross": "Tensor input, Tensor other, *, int dim=-1",
    "linalg.vector_norm": "Tensor x, Number ord=2, IntList? dim=None, bool keepdim=False, *, dtype? dtype=None",
    "linalg.matrix_norm": ("Tensor A, Number ord, Sizes dim=[-2;-1], bool keepdim=False, *, dtype? dtype=None",
                           "Tensor A, str ord='fro', Sizes dim=[-2;-1], bool keepdim=False, *, dtype? dtype=None"),
    "linalg.norm": ("Tensor input, Number? ord=None, IntList? dim=None, bool keepdim=False, *, dtype? dtype=None",
                    "Tensor input, str ord, IntList? dim=None, bool keepdim=False, *, dtype? dtype=None"),
    # -- nn fixes (session 9)
    # (torch.nn.functional's Python code compares `target.size()` with `input.size()` first)
    "F.l1_loss": "Tensor.size input, Tensor.size target, Any size_average=None, Any reduce=None, Any reduction='mean', "
                 "Any weight=None",
    "F.smooth_l1_loss": "Tensor.size input, Tensor.size target, Any size_average=None, Any reduce=None, "
                        "Any reduction='mean', Any beta=1.0",
    "F.huber_loss": "Tensor.size input, Tensor.size target, Any reduction='mean', Any delta=1.0, Any weight=None",
    "F.binary_cross_entropy": "Tensor.size input, Tensor.size target, Any weight=None, Any size_average=None, "
                              "Any reduce=None, Any reduction='mean'",
}

# Tensor methods whose signature is not the function's minus `input` (or that have no function).
METHOD_SIGNATURES = {
    # (torch.autograd's Python code reads these: its own errors, see Outputs)
    "Tensor.backward": "Outputs self, Any gradient=None, Any retain_graph=None, Any create_graph=False, "
                       "Any inputs=None",
    "Tensor.register_hook": "Tensor self, Any hook",
    "Tensor.requires_grad_": "Tensor self, bool requires_grad=True",
    "Tensor.size": "Tensor self, int? dim=None",
    "Tensor.expand": "Tensor self, Sizes... size",
    "Tensor.view": "Tensor self, Sizes... size",
    "Tensor.reshape": "Tensor self, Sizes... shape",
    "Tensor.permute": "Tensor self, Sizes... dims",
    "Tensor.expand_as": "Tensor self, Tensor other",
    "Tensor.view_as": "Tensor self, Tensor other",
    "Tensor.reshape_as": "Tensor self, Tensor other",
    "Tensor.squeeze": "Tensor self, IntList... dim",
    "Tensor.squeeze_": "Tensor self, IntList... dim",
    "Tensor.fill_": "Tensor self, Tensor|Number value",
    "Tensor.copy_": "Tensor self, Tensor|Number src, bool non_blocking=False",
    "Tensor.contiguous": "Tensor self, *, MemoryFormat memory_format=None",
    "Tensor.is_contiguous": "Tensor self, *, MemoryFormat memory_format=None",
    "Tensor.unbind": "Tensor self, int dim=0",
    "Tensor.split": "Tensor self, int|IntList|OneElement split_size, int dim=0",     # (a tensor is int()-ed)
    "Tensor.norm": ("Tensor.layout self, Number|str? p='fro', Dims? dim=None, bool keepdim=False, "
                    "dtype? dtype=None"),            # (no out=)
    "Tensor.split_with_sizes": "Tensor self, Sizes split_sizes, int dim=0",
    "Tensor.chunk": "Tensor self, int chunks, int dim=0",
    "Tensor.tensor_split": ("Tensor self, int sections, int dim=0", "Tensor self, IntList indices, int dim=0",
                            "Tensor self, Tensor tensor_indices_or_sections, int dim=0"),
    # (the methods also take the indices one by one: x.hsplit(1, 3))
    **{"Tensor." + n: ("Tensor self, int sections", "Tensor self, IntList indices", "Tensor self, Sizes... indices")
       for n in ("hsplit", "vsplit", "dsplit")},
    "Tensor.where": "Tensor self, Tensor condition, Tensor|Number other",
    # -- comparisons/predicates and statistical reductions (session 9)
    "Tensor.count_nonzero": ("Tensor self, int? dim=None", "Tensor self, IntList... dim"),
    "Tensor.softmax": "Tensor self, int dim, dtype? dtype=None",
    "Tensor.log_softmax": "Tensor self, int dim, dtype? dtype=None",
    # (the random in-place methods have no function)
    "Tensor.uniform_": "Tensor self, float from=0, float to=1, *, Any generator=None",
    "Tensor.normal_": "Tensor self, float mean=0, float std=1, *, Any generator=None",
    "Tensor.cauchy_": "Tensor self, float median=0, float sigma=1, *, Any generator=None",
    "Tensor.log_normal_": "Tensor self, float mean=1, float std=2, *, Any generator=None",
    "Tensor.exponential_": "Tensor self, float lambd=1, *, Any generator=None",
    "Tensor.geometric_": "Tensor self, float p, *, Any generator=None",
    "Tensor.bernoulli_": ("Tensor self, Tensor p, *, Any generator=None",
                          "Tensor self, float p=0.5, *, Any generator=None"),
    "Tensor.type": "Tensor self, Any dtype=None, bool non_blocking=False, *, MemoryFormat? memory_format=None",
    "Tensor.cuda": "Tensor self, Device? device=None, bool non_blocking=False, *, MemoryFormat? memory_format=None",
    "Tensor.to": ("Tensor self, Device? device=None, dtype? dtype=None, bool non_blocking=False, bool copy=False, "
                  "*, MemoryFormat? memory_format=None",
                  # (PyTorch takes a Python number there too: x.to(1.5) is float64, x.to(True) bool)
                  "Tensor self, dtype|float dtype, bool non_blocking=False, bool copy=False, *, MemoryFormat? memory_format=None",
                  "Tensor self, Tensor tensor, bool non_blocking=False, bool copy=False, *, MemoryFormat? memory_format=None"),
    **{"Tensor." + n: "Tensor self, Sizes... size, *, dtype? dtype=None, Any device=None, bool requires_grad=False"
       for n in ("new_ones", "new_zeros", "new_empty")},
    "Tensor.new_tensor": "Tensor self, Any data, *, dtype? dtype=None, Any device=None, bool requires_grad=False",
    "Tensor.new_full": "Tensor self, Sizes size, Number fill_value, *, dtype? dtype=None, Any device=None, "
                       "bool requires_grad=False",
    "Tensor.random_": ("Tensor self, *, Any generator=None", "Tensor self, int from, int? to, *, Any generator=None",
                       "Tensor self, int to, *, Any generator=None"),
    **{f"Tensor.{n}": "Tensor self" for n in (
        "dim", "numel", "item", "tolist", "numpy", "detach", "detach_", "retain_grad", "cpu", "float", "double",
        "int", "long", "bool", "is_floating_point", "t", "t_", "zero_", "half", "short", "char", "byte",
        "ndimension", "is_signed", "is_complex", "is_inference", "storage_offset")},
    "Tensor.is_same_size": "Tensor self, Tensor other",
    # -- shape ops and matrix products (session 9)
    "Tensor.repeat": "Tensor self, Sizes... repeats",
    "Tensor.tile": "Tensor self, Sizes... dims",
    "Tensor.broadcast_to": "Tensor self, Sizes... size",
    "Tensor.unflatten": "Tensor self, int dim, Any sizes",
    "Tensor.repeat_interleave": ("Tensor self, Tensor repeats, int? dim=None, *, int? output_size=None",
                                 "Tensor self, int repeats, int? dim=None, *, int? output_size=None"),
    "Tensor.flip": "Tensor self, Sizes... dims",
    "Tensor.type_as": "Tensor self, Tensor other",
    "Tensor.stride": "Tensor self, int? dim=None",
    "Tensor.element_size": "Tensor self",
}


def signature_of(name):
    """The signature string of `torch.NAME`, `F.NAME`, `autograd.NAME` or `Tensor.NAME` (None: unchecked)."""
    if name in METHOD_SIGNATURES:
        return METHOD_SIGNATURES[name]
    if name.startswith("Tensor."):
        base = name[len("Tensor."):]
        if base.endswith("_"):
            base = base[:-1]                  # an in-place variant checks as its function
        sig = SIGNATURES.get(base)
        sigs = [s for s in (sig if isinstance(sig, tuple) else (sig,)) if s and s.startswith("Tensor")]
        return None if not sigs else sigs[0] if len(sigs) == 1 else tuple(sigs)
    return SIGNATURES.get(name)


def _public(name):
    """The name PyTorch's errors give the function: its own, or linalg_NAME for torch.linalg's."""
    space, _, public = name.rpartition(".")
    return f"linalg_{public}" if space == "linalg" else public


def checked(name, fn):
    """`fn` as a public function that checks its arguments as PyTorch's parser does, before the
    call: a call the parser refuses raises its error (a TypeError, mostly) and computes nothing.
    What was found to bind is remembered by the arguments' kinds (their types; an int by whether
    it fits 64 bits, a tensor by its rank-0-ness, size-1-ness, dtype kind and requires_grad, a
    list by its items), so a repeated call pays a set lookup; a call whose arguments are tensors
    and other plain values, in positions that take any tensor, pays one on their types alone."""
    public = _public(name)
    sig = signature_of(name) if name else None
    overloads = () if sig is None else sig if isinstance(sig, tuple) else (sig,)
    # On failure only: torch.autograd's own checks, which read values (requires_grad, shapes),
    # and the functions that are Python code in PyTorch (torch.nn.functional's, or those whose
    # input is read for an attribute first, "Tensor.ATTR"): F.relu reads `inplace` before the
    # torch function it calls checks `input`.
    up_front = bool(overloads) and not name.startswith("F.") and \
        not any("Outputs" in o or "Inputs" in o or o.startswith("Tensor.") for o in overloads)
    plain, bound = set(), set()
    own_text = name in OWN_TEXTS
    numpy_ints = public not in _DATA_FUNCTIONS

    as_given = set()        # (number of positional arguments, keywords) that _keywords_placed leaves as they are
    takes_out = name in OUT_FUNCTIONS

    def call(*args, **kwargs):
        if takes_out and "out" in kwargs:
            out = kwargs.pop("out")
            if out is not None:
                if up_front:                # the parser refuses the other arguments first
                    problem = _check_first(name, args, kwargs, plain, bound)
                    if problem is not None:
                        raise problem
                return _into_out(public, out, args, lambda: call(*args, **kwargs))
        if numpy_ints and any(map(_has_numpy_int, args)):
            args = tuple(map(_python_ints, args))
        if kwargs and overloads:
            key = (len(args), *kwargs)
            if key not in as_given:
                placed, renamed = _keywords_placed(overloads, args, kwargs)
                if len(placed) == len(args) and renamed.keys() == kwargs.keys():
                    as_given.add(key)
                args, kwargs = placed, renamed
        problem = None
        if up_front and (kwargs or tuple(map(type, args)) not in plain):
            problem = _check_first(name, args, kwargs, plain, bound)
            if problem is not None and not own_text:
                raise problem
        try:
            result = fn(*args, **kwargs)
        except Exception as e:
            raise _explain(name, args, kwargs, e) from None
        if problem is not None:
            raise problem
        return result

    call.__name__ = call.__qualname__ = public
    call.__doc__ = fn.__doc__
    call.__wrapped__ = fn
    return call


# torch functions whose every overload takes `out=` (the pointwise ones)
OUT_FUNCTIONS = frozenset((
    "add sub subtract mul multiply div divide true_divide floor_divide remainder fmod pow float_power atan2 arctan2 "
    "hypot copysign logaddexp logaddexp2 xlogy fmax fmin maximum minimum lerp addcmul addcdiv abs exp log sin cos "
    "tanh sigmoid sqrt rsqrt reciprocal neg negative floor ceil trunc fix sign frac square log1p expm1 log2 log10 "
    "exp2 tan asin acos atan arcsin arccos arctan sinh cosh asinh acosh atanh arcsinh arccosh arctanh erf erfc "
    "erfinv sinc deg2rad rad2deg nan_to_num logit").split())
_W_RESIZED = ("An output with one or more elements was resized since it had shape {had}, which does not match the "
              "required output shape {want}. This behavior is deprecated, and in a future PyTorch release outputs will "
              "not be resized unless they have zero elements. You can explicitly reuse an out tensor t by resizing it, "
              "inplace, to zero elements with t.resize_(0). (Triggered internally at "
              "/__w/pytorch/pytorch/aten/src/ATen/native/Resize.cpp:30.)")


def _into_out(public, out, args, compute):
    """`out=` of a pointwise function, as PyTorch's kernels take it: no autograd through it, the
    result's type cast to out's where PyTorch can cast it, out resized (with a warning when it
    had elements), then written in place (a Python number is wrapped as a tensor first)."""
    from ..engine import CONFIG, STATE, wrapped_number
    if isinstance(out, (int, float)) and not isinstance(out, TensorBase):
        try:
            out = CONFIG.tensor(wrapped_number(out))
        except OverflowError as e:
            raise TorchOverflowError(str(e)) from None
    elif not isinstance(out, TensorBase):
        raise TorchTypeError(f"{public}(): argument 'out' must be Tensor, not {_type_name(out)}")
    if STATE.grad_enabled and (out.requires_grad or any(isinstance(a, TensorBase) and a.requires_grad for a in args)):
        raise TorchRuntimeError(f"{public}(): functions with out=... arguments don't support automatic "
                                "differentiation, but one of the arguments requires grad.")
    result = compute()._data
    have, want = result.dtype, out._data.dtype
    if (have.kind == "f" and want.kind != "f") or (have.kind in "iu" and want.kind == "b"):
        raise TorchRuntimeError(f"result type {_SCALAR_NAMES[have.name]} can't be cast to the desired output type "
                                f"{_SCALAR_NAMES[want.name]}")
    if out._data.shape != result.shape:
        if out._data.size:          # (of another dtype, PyTorch resizes it twice: two warnings)
            for _ in range(1 if have == want else 2):
                STATE.warn(_W_RESIZED.format(had=list(out._data.shape), want=list(result.shape)))
        out._data = np.empty(result.shape, want)
    out._data[...] = result
    out._version_counter.bump()
    return out


_SCALAR_NAMES = {"float32": "Float", "float64": "Double", "float16": "Half", "int64": "Long", "int32": "Int",
                 "int16": "Short", "int8": "Char", "uint8": "Byte", "bool": "Bool"}


# their data keeps its NumPy dtypes (torch.tensor([np.int32(1)]) is an int32 tensor)
_DATA_FUNCTIONS = frozenset(("tensor", "as_tensor", "asarray", "from_numpy", "new_tensor"))


def _has_numpy_int(v):
    return isinstance(v, np.integer) or (type(v) in (tuple, list) and any(isinstance(x, np.integer) for x in v))


def _python_ints(v):
    """PyTorch's parser reads a NumPy integer as an int (a size, a dim, an index), alone or in a list."""
    if isinstance(v, np.integer):
        return int(v)
    if type(v) in (tuple, list):
        return type(v)(int(x) if isinstance(x, np.integer) else x for x in v)
    return v


# NumPy's names PyTorch's parser also takes for a parameter (python_arg_parser.cpp)
_NUMPY_NAMES = {"axis": "dim", "keepdims": "keepdim", "x": "input", "a": "input", "x1": "input", "x2": "other"}


def _keywords_placed(overloads, args, kwargs):
    """The call as gradcli's functions take it: NumPy's names renamed to PyTorch's, and the
    keywords that name positional parameters of the first overload taking them all (`size=`,
    `dims=`, `input=`, ...) passed by position, as PyTorch's parser binds them by name."""
    for sig in overloads:
        params = _parsed(sig)
        names = {p.name for p in params}
        renamed = {(k if k in names else _NUMPY_NAMES.get(k, k)): v for k, v in kwargs.items()}
        if len(renamed) != len(kwargs) or not names.issuperset(renamed):
            continue
        positional = [p for p in params if not p.keyword_only]
        args = list(args)
        for p in positional[len(args):]:
            if p.name not in renamed:
                break
            args.append(renamed.pop(p.name))
        return tuple(args), renamed
    return args, kwargs


class _Binds(Exception):
    """The stand-in for "no error" when the arguments are checked before a call."""


_BINDS = _Binds()
_PLAIN_TYPES = (float, bool, str, type(None), DType)


# Functions whose own code raises PyTorch's whole text for a call no overload takes (the list
# of overloads): the parser's refusal of such a call is left to them; they refuse it before
# any effect.
OWN_TEXTS = {"rand", "randn", "normal", "Tensor.random_"}


def _check_first(name, args, kwargs, plain, bound):
    """The error PyTorch's parser raises for this call, or None (remembering what binds)."""
    key = _kinds(args, kwargs)
    if key is not None and key in bound:
        return None
    problem = _explain(name, args, kwargs, _BINDS)
    if problem is not _BINDS:
        return problem
    if key is None:
        return None
    bound.add(key)
    tensor_free = _tensor_positions(name)
    if not kwargs and all(isinstance(a, _PLAIN_TYPES) and type(a) is not int or
                          isinstance(a, TensorBase) and i < len(tensor_free) and tensor_free[i]
                          for i, a in enumerate(args)):
        plain.add(tuple(map(type, args)))
    return None


def _kinds(args, kwargs):
    """What decides whether these arguments bind, or None when that is not kept (long lists)."""
    try:
        return tuple(_kind(a) for a in args) + tuple((k, _kind(v)) for k, v in kwargs.items())
    except _Binds:
        return None


def _kind(v, nested=False):
    t = type(v)
    if t is int:
        return -_LONG <= v < _LONG
    if isinstance(v, TensorBase):
        d = v._data
        return t, d.ndim == 0, d.size == 1, d.dtype.kind, v.requires_grad
    if t is tuple or t is list or t is Size:
        if nested or len(v) > 16:            # (nested lists are data: not kept)
            raise _BINDS
        return (t,) + tuple(_kind(x, True) for x in v)
    return t


def _tensor_positions(name):
    """Per positional argument (a method's self first): whether every overload of `name` takes
    any tensor there, so that a tensor's type alone tells whether it binds. Worked out on the
    first call that binds, not at import."""
    positions = _TENSOR_POSITIONS.get(name)
    if positions is None:
        sig = signature_of(name)
        lists = [[p for p in _parsed(o) if not p.keyword_only] for o in (sig if isinstance(sig, tuple) else (sig,))]
        positions = _TENSOR_POSITIONS[name] = tuple(
            all(i < len(ps) and any(t == "Any" or t.startswith("Tensor") and t != "TensorList" for t in ps[i].types)
                for ps in lists)
            for i in range(max(map(len, lists))))
    return positions


_TENSOR_POSITIONS = {}


def is_checked(fn):
    """Whether fn is a `checked` function."""
    return getattr(fn, "__code__", None) is _CHECKED_CODE


_CHECKED_CODE = checked("", len).__code__


PRELUDED = {"F.mse_loss", "F.nll_loss", "F.cross_entropy", "F.binary_cross_entropy_with_logits"}


def install(namespace, prefix):
    """Replace the functions of a module namespace that have a signature by checked ones (the
    losses of torch.nn.functional call checked ones after their Python prelude instead)."""
    for key in SIGNATURES:
        space, _, name = key.rpartition(".")
        if space == prefix and key not in PRELUDED and callable(namespace.get(name)):
            namespace[name] = checked(key, namespace[name])


# ----------------------------------------------------------------------------- checking, on failure


_PARSED = {}
# what _bind says of a call with arguments an overload cannot take at all (their count or names)
_ARITY = re.compile(r"takes .* positional argument|unexpected keyword argument|missing \d+ required|multiple values")


class _Param:
    __slots__ = ("name", "types", "optional", "required", "variadic", "keyword_only")

    def __init__(self, text, keyword_only):
        kind, _, rest = text.partition(" ")
        self.variadic = kind.endswith("...")
        kind = kind.rstrip(".")
        self.optional = kind.endswith("?")
        self.types = kind.rstrip("?").split("|")
        name, eq, _ = rest.partition("=")
        self.name = name
        self.required = not eq and not (self.variadic and "Sizes" not in self.types)     # squeeze(): no dims
        self.keyword_only = keyword_only


def _parsed(sig):
    params = _PARSED.get(sig)
    if params is None:
        params = _PARSED[sig] = _parse(sig)
    return params


def _parse(sig):
    params, keyword_only = [], False
    for part in filter(None, (p.strip() for p in sig.split(","))):
        if part == "*":
            keyword_only = True
            continue
        params.append(_Param(part, keyword_only))
    return params


def _explain(name, args, kwargs, error):
    """The exception PyTorch raises for this call, or `error` when its arguments are well-typed."""
    sig = signature_of(name)
    if sig is None:
        return error
    if name.startswith("F.") and name not in PRELUDED and isinstance(error, ScriptError):
        return error                    # Python code in PyTorch: the error its own order of reading raised
    public = _public(name)
    if isinstance(error, TorchTypeError) and str(error).startswith(f"{public}() received an invalid combination"):
        return error                    # the function's own text: PyTorch's list of every overload
    method = name.startswith("Tensor.")
    overloads = sig if isinstance(sig, tuple) else (sig,)
    problems = [_bind(public, _parsed(s), args, kwargs, method) for s in overloads]
    if None not in problems:
        if len(problems) > 1:
            for problem in problems:            # the overload whose types fit, with a value too large
                if not isinstance(problem, TypeError) or "failed to unpack" in str(problem):
                    return problem
            big = _unconvertible_number(args[1 if method else 0:], kwargs,
                                        [_parsed(s)[1 if method else 0:] for s in overloads])
            if big is not None:
                # an overload whose types fit: PyTorch's parser then converts its numbers, and an
                # int that no Scalar holds stops it there
                return TorchOverflowError("int too big to convert" if big > 0 else
                                          "can't convert negative int to unsigned")
            # the type errors PyTorch reports name only its overloads that are not deprecated
            problems = [p for p, s in zip(problems, overloads) if s not in DEPRECATED]
        if len(problems) == 1:
            # the same failure the call itself raised: that exception, so that the script and
            # the call's event hold one object (whether the script caught it is read from that)
            same = type(problems[0]) is type(error) and str(problems[0]) == str(error)
            return error if same else problems[0]
        plausible = [p for p in problems if not _ARITY.search(str(p))]
        if len(plausible) == 1:                 # one overload takes this many arguments: its own error
            return plausible[0]
        given = [_type_name(a) for a in args[1 if method else 0:]] + [f"{k}={_type_name(v)}" for k, v in kwargs.items()]
        return TorchTypeError(f"{public}() received an invalid combination of arguments - got ({', '.join(given)}, )")
    if isinstance(error, ScriptError):
        return error
    if isinstance(error, OverflowError) and any(type(v) is int and _LONG <= v < 2 * _LONG
                                                for v in (*args, *kwargs.values())):
        return TorchRuntimeError("value cannot be converted to type int64_t without overflow")
    if isinstance(error, ValueError) and "could not be broadcast" in str(error):
        shapes = [tuple(v.shape) for v in (*args, *kwargs.values()) if isinstance(v, TensorBase)]
        if len(shapes) >= 2:
            return TorchRuntimeError(_broadcast_message(shapes[0], shapes[1]))
    return error


# Tensor methods PyTorch defines with no argument parser (C's METH_NOARGS): CPython's own errors
NO_ARGUMENTS = {"dim", "numel", "item", "tolist", "detach", "detach_", "retain_grad", "is_floating_point", "t", "t_",
                "zero_", "ndimension", "is_signed", "is_complex", "is_inference", "storage_offset", "element_size"}


def _bind(public, params, args, kwargs, method):
    """A TorchTypeError for the first argument PyTorch's parser would refuse, or None."""
    if method and public in NO_ARGUMENTS and (kwargs or len(args) > 1):
        return TorchTypeError(f"TensorBase.{public}() takes no keyword arguments" if kwargs else
                              f"TensorBase.{public}() takes no arguments ({len(args) - 1} given)")
    positional = [p for p in params if not p.keyword_only]
    shown = positional[1:] if method else positional          # a method's self is not counted
    values = {}
    if positional and positional[-1].variadic and len(args) >= len(positional):
        fixed = len(positional) - 1
        rest = args[fixed:]
        if len(rest) > 1 and not _is_int(rest[0]):      # only a leading int starts a list of ints
            return TorchTypeError(f"{public}() takes 1 positional argument but {len(rest)} were given")
        lone = len(rest) == 1 and (not _is_int(rest[0]) or "Sizes" not in positional[-1].types)
        values[positional[-1].name] = rest[0] if lone else tuple(rest)       # ones(3) is ones((3,))
        args = args[:fixed]
    elif len(args) > len(positional):
        lo = sum(p.required for p in shown)
        hi = len(shown)
        takes = f"{hi}" if lo == hi else f"from {lo} to {hi}"
        given = len(args) - (1 if method else 0)
        return TorchTypeError(f"{public}() takes {takes} positional argument{'s' if hi != 1 else ''} but "
                              f"{given} {'was' if given == 1 else 'were'} given")
    for p, v in zip(positional, args):
        values[p.name] = v
    by_name = {p.name: p for p in params}
    for key, v in kwargs.items():
        if key not in by_name or key in values:
            return TorchTypeError(f"{public}() got an unexpected keyword argument '{key}'" if key not in by_name
                                  else f"{public}() got multiple values for argument '{key}'")
        values[key] = v
    missing = [p.name for p in params if p.required and p.name not in values]
    if missing:
        return TorchTypeError(f"{public}() missing {len(missing)} required positional arguments: "
                              + ", ".join(f'"{m}"' for m in missing))
    outputs = [p for p in params if p.types == ["Outputs"] and p.name in values]
    if outputs:
        problem = _autograd_outputs(values[outputs[0].name], values, public)
        if problem is not None:
            return problem
    for i, p in enumerate(params):
        if p.name not in values:
            continue
        v = values[p.name]
        if (v is None and p.optional) or any(_accepts(t, v) for t in p.types):
            if "Index" in p.types and _overflow(public, p, v) is not None:
                return _overflow(public, p, v)          # (the engine converts these one by one)
            continue
        if p.types == ["Inputs"] and not hasattr(v, "__iter__"):
            return TorchTypeError(f"'{_type_name(v)}' object is not iterable")
        if p.types == ["Inputs"] and hasattr(v, "__iter__"):         # torch.autograd.grad's checks
            for x in v:
                if not isinstance(x, TensorBase):
                    return TorchRuntimeError(f"all inputs have to be Tensors or GradientEdges, but got {_type_name(x)}")
                if not x.requires_grad:
                    return TorchRuntimeError("One of the differentiated Tensors does not require grad")
        lists = [t for t in p.types if t in ("IntList", "Sizes", "Dims")]
        if lists and isinstance(v, (tuple, list)) and len(p.types) == 1:
            for i, x in enumerate(v):
                if not (_is_int(x) or isinstance(x, bool)):
                    return TorchTypeError(f"{public}(): argument '{p.name}' failed to unpack the object at pos "
                                          f"{i + 1} with error \"type must be tuple of ints,but got {_type_name(x)}\"")
        if p.types[0].startswith("Tensor."):     # PyTorch's Python code calls input.ATTR(...)
            attr = getattr(v, p.types[0][7:], None)
            if attr is not None and not callable(attr):
                return TorchTypeError(f"'{_type_name(attr)}' object is not callable")
            return TorchAttributeError(f"'{_type_name(v)}' object has no attribute '{p.types[0][7:]}'")
        where = "" if p.keyword_only or p.name in kwargs else \
            f" (position {positional.index(p) + (0 if method else 1)})"
        return TorchTypeError(f"{public}(): argument '{p.name}'{where} must be "
                              f"{' or '.join(_TYPE_NAMES.get(t, t) for t in p.types)}, not {_type_name(v)}")
    for p in params:                        # every type fits: values that do not fit their C++ type
        if p.name in values:
            overflow = _overflow(public, p, values[p.name])
            if overflow is not None:
                return overflow
    return None


def _unconvertible_number(args, kwargs, parsed):
    """The first int past a Scalar's range, at a parameter that takes a number, of an overload that
    takes these arguments (their count, keywords and types: PyTorch converts only after a
    signature matched); or None."""
    for params in parsed:
        positional = [p for p in params if not p.keyword_only]
        if len(args) > len(positional) or not set(kwargs) <= {p.name for p in params} or any(
                p.required and p.name not in kwargs for p in positional[len(args):]):
            continue
        by_name = {p.name: p for p in params}
        if not all(v is None and by_name[k].optional or any(_accepts(t, v) for t in by_name[k].types)
                   for k, v in kwargs.items()):
            continue                            # a keyword of the wrong type: no overload takes the call
        if any(p.required and p.name not in kwargs for p in positional[len(args):]):
            continue                            # too few arguments: PyTorch says so before converting any
        if not all(any(_accepts(t, v) for t in p.types) for v, p in zip(args, positional)):
            continue                            # a type that does not fit: the parser never converts
        for v, p in zip(args, positional):
            if type(v) is int and not -_LONG <= v < 2 * _LONG and "Number" in p.types:
                return v
    return None


def _autograd_outputs(outputs, values, call):
    """torch.autograd.backward/grad's own reading of the outputs and their gradients (Python code
    that runs before the engine parses anything): tuple() of each (an empty `inputs` refused
    first), then zip of the two into _make_grads."""
    grads = values.get("grad_tensors", values.get("grad_outputs", values.get("gradient")))
    inputs = values.get("inputs")
    for k, v in enumerate((outputs, inputs, grads)):
        if k == 2 and inputs is not None and not isinstance(inputs, TensorBase) and not tuple(inputs):
            return TorchRuntimeError(f"`inputs` argument to `{call}()` cannot be empty.")
        if (v is not None or k == 0) and not isinstance(v, TensorBase) and not hasattr(v, "__iter__"):
            return TorchTypeError(f"'{_type_name(v)}' object is not iterable")
    outs = (outputs,) if isinstance(outputs, TensorBase) else tuple(outputs)
    grads = (None,) * len(outs) if grads is None else (grads,) if isinstance(grads, TensorBase) else tuple(grads)
    for out, grad in zip(outs, grads):
        if not isinstance(out, TensorBase):
            return TorchAssertionError("Expected output to be a torch.Tensor")
        if grad is not None and not isinstance(grad, TensorBase):
            return TorchTypeError(f"gradients can be either Tensors or None, but got {type(grad).__name__}")
    if not values.get("is_grads_batched"):
        try:                            # _make_grads: shapes, and implicit gradients of scalars only
            _make_grads([o for o, _ in zip(outs, grads)], grads, False)
        except TorchRuntimeError as e:
            return e
    create = values.get("create_graph", False)
    retain = values.get("retain_graph")
    try:                                # parsed by the engine's entry, before it counts the gradients
        _engine_flags(create if retain is None else retain, create)
    except (TorchTypeError, TorchOverflowError) as e:
        return e
    if len(grads) != len(outs):
        return TorchRuntimeError(f"got {len(outs)} tensors and {len(grads)} gradients")
    return None


_TYPE_NAMES = {"Index": "int", "OneElement": "Tensor", "Outputs": "Tensor or tuple of Tensors", "Inputs": "Tensor or tuple of Tensors", "IntList": "tuple of ints", "Sizes": "tuple of ints", "Dims": "tuple of ints", "TensorList": "tuple of Tensors", "dtype": "torch.dtype", "Device": "torch.device", "MemoryFormat": "torch.memory_format"}


def _type_name(v):
    if isinstance(v, DType):
        return "torch.dtype"
    t = type(v)
    return t.__name__ if isinstance(v, TensorBase) or t.__module__ == "builtins" or t.__module__.startswith("gradcli.engine") else f"{t.__module__.split('.')[0]}.{t.__name__}"


_LONG = 2 ** 63


def _overflow(public, p, v):
    """PyTorch's error for a well-typed Python int that does not fit its C++ type, or None."""
    lists = ("IntList", "Sizes", "Dims")
    if type(v) is int and not -_LONG <= v < _LONG and "Dims" in p.types:
        v = (v,)                            # a lone size is unpacked as a list of one
    if ("int" in p.types or "IntList" in p.types or "Device" in p.types) and type(v) is int and \
            not -_LONG <= v < _LONG:
        return TorchValueError("Overflow when unpacking long long")
    if any(t in p.types for t in lists) and isinstance(v, (tuple, list)):
        for i, x in enumerate(v):
            if type(x) is int and not -_LONG <= x < _LONG:
                return TorchTypeError(f"{public}(): argument '{p.name}' failed to unpack the object at pos {i + 1} "
                                      f"with error \"Overflow when unpacking long long\"")
    if "Index" in p.types and type(v) is int and not -_LONG <= v < _LONG:
        return TorchOverflowError("Python int too large to convert to C long")
    if "Number" in p.types and type(v) is int and not -_LONG <= v < 2 * _LONG:     # (a Scalar holds uint64 too)
        return TorchOverflowError("int too big to convert" if v > 0 else "can't convert negative int to unsigned")
    return None


def _is_int(v):
    if isinstance(v, (bool, np.bool_)):
        return False
    if isinstance(v, (int, np.integer)):
        return True
    return isinstance(v, TensorBase) and v._data.ndim == 0 and v._data.dtype.kind in "iu"


def _accepts(kind, v):
    if kind == "Any":
        return True
    if kind == "Tensor" or kind.startswith("Tensor."):
        return isinstance(v, TensorBase)
    if kind == "Number":                # (a tensor only when 0-d and not requiring grad, as PyTorch's parser)
        return isinstance(v, (int, float, np.number, np.bool_)) or (isinstance(v, TensorBase) and v._data.ndim == 0
                                                                     and not v.requires_grad)
    if kind == "int":
        return _is_int(v)
    if kind == "float":                 # (a bool or a 0-d tensor that needs no grad is a number to PyTorch)
        return (isinstance(v, (int, float, np.integer, np.floating)) and not isinstance(v, np.bool_)) or \
            (isinstance(v, TensorBase) and v._data.ndim == 0 and not v.requires_grad)
    if kind == "Index":                 # the engine reads these flags as C integers
        return isinstance(v, (int, np.integer)) or (isinstance(v, TensorBase) and v._data.size == 1 and
                                                     v._data.dtype.kind in "iub")
    if kind == "bool":
        return isinstance(v, (bool, np.bool_))
    if kind == "str":
        return isinstance(v, str)
    if kind == "dtype":
        return isinstance(v, DType)
    if kind == "MemoryFormat":
        return isinstance(v, MemoryFormat)
    if kind == "Device":                # a device, its name, or a CUDA index
        return isinstance(v, str) or type(v).__name__ == "device" or _is_int(v)
    if kind in ("IntList", "Sizes", "Dims"):     # (a bool counts as 1 in a list of sizes, as in PyTorch)
        return (kind != "Sizes" and _is_int(v)) or (isinstance(v, (tuple, list, Size)) and
                                                      all(_is_int(x) or isinstance(x, bool) for x in v))
    if kind == "Inputs":
        return isinstance(v, TensorBase) or (isinstance(v, (tuple, list)) and
                                         all(isinstance(x, TensorBase) and x.requires_grad for x in v))
    if kind == "Outputs":                # any iterable: torch.autograd checks the items itself
        return isinstance(v, TensorBase) or hasattr(v, "__iter__")
    if kind == "OneElement":            # a tensor that int() reads
        return isinstance(v, TensorBase) and v._data.size == 1
    if kind == "TensorList":
        return isinstance(v, (tuple, list)) and all(isinstance(x, TensorBase) for x in v)
    raise AssertionError(f"unknown argument type {kind!r} in a signature")


def _broadcast_message(a, b):
    """PyTorch's text for two shapes that do not broadcast (the first mismatch from the right)."""
    for i in range(1, max(len(a), len(b)) + 1):
        x = a[-i] if i <= len(a) else 1
        y = b[-i] if i <= len(b) else 1
        if x != y and x != 1 and y != 1:
            return (f"The size of tensor a ({x}) must match the size of tensor b ({y}) at non-singleton "
                    f"dimension {max(len(a), len(b)) - i}")
    return f"shape mismatch: {list(a)} and {list(b)} cannot be broadcast together"
