"""The op table and the forward functions of every differentiable op, as PyTorch's
tools/autograd/derivatives.yaml and its native functions.

Layout, bottom to top: `numeric` (array helpers, dtype names) and `kernels` (NumPy kernels
shared by forwards and formulas); `record` (OpDef rows, node recording, saved values, the
resource limits); `formulas` (backward formulas longer than a line, PyTorch's FunctionsManual);
`table` (every row, by family); `views` (view bookkeeping, in-place checks, CopySlices);
one module per op family for the forwards; `maths` (the namespaces formulas compute with:
NumPy arrays, or recorded tensors under create_graph).

Adding an op: its row in `table.py`, its forward in its family's module, one line in
`gradcli/torch/_api.py`, and a case in the op tests (tests/test_api_table.py checks they agree).
"""
from __future__ import annotations

from ..lazy import lazy_names
from .numeric import (_C_NAME, _REDUCTION_NAMES, _SCALAR_NAME, _arr_of, _col_major, _reduction, _scalar_checked,
                      _shape_str, _split_sizes, _strides, _type_str, broadcast_shapes)
from .record import (ALWAYS, LIMITS, _MALLOC, _MEMORY, _begin, _check_like, _check_numel, _check_size, _compact_saver,
                     _record, op)
from .table import ROWS, TABLE
from .views import _inplace, _refresh_views, _register_view, copy_in_format, fresh_view, fresh_views, is_contiguous_as
from .pointwise import (_rounded, abs, add, add_method, ceil, clamp, clamp_max, clamp_min, clone, cos, div, exp, floor,
                        floor_divide, frac, log, maximum, minimum, mul, mul_method, neg, pow, reciprocal, relu,
                        remainder, round, rsqrt, rsub, sigmoid, sign, sin, sqrt, square, sub, tanh, to_dtype,
                        true_div_data, trunc, where)
from .comparison import (_compare, allclose, bitwise_and, bitwise_not, bitwise_or, bitwise_xor, invert, logical_and,
                         logical_not, logical_or, logical_xor, tensor_all, tensor_any)
from .reduction import argmax, argmin, cumprod, cumsum, log_softmax, max, mean, min, norm, prod, softmax, sum
from .shape import (T_property, expand, flatten, flip, mT_property, permute, reshape, select, squeeze, t_, transpose,
                    unsqueeze, view)
from .inplace import (clamp_, copy_, fill_, masked_fill, masked_fill_, squeeze_, t_inplace, transpose_, unsqueeze_,
                      zero_)
from .indexing import getitem, setitem
from .join import (_multi_output, _pieces, _split_backward, cat, chunk, dsplit, hsplit, split, split_like_method,
                   split_method, split_with_sizes, stack, tensor_iter, tensor_split, unbind, vsplit)
from .linalg import _contiguous, addmm, bilinear, bmm, dot, linear, matmul, mm, mv
from .maths import NUMPY_MATH, TENSOR_MATH, _NumpyMath, _TensorMath

# torch.nn's families load with torch.nn, or on first use of one of their names (most scripts
# never use them, and every script would pay for reading them).
_NN_FAMILIES = {
    "loss": "binary_cross_entropy binary_cross_entropy_with_logits cross_entropy huber_loss kl_div l1_loss "
            "mse_loss nll_loss smooth_l1_loss",
    "activation": "dropout elu gelu leaky_relu softplus",
    "normalization": "batch_norm layer_norm",
    "sparse": "embedding",
    "conv": "avg_pool2d conv1d conv2d conv_nd max_pool2d",
    "recurrent": "rnn rnn_cell",
}
__getattr__ = lazy_names(__name__, _NN_FAMILIES)

# What the rest of gradcli takes from the ops: gradcli.ops.X
__all__ = [
    "_C_NAME", "_REDUCTION_NAMES", "_SCALAR_NAME", "_arr_of", "_col_major", "_reduction", "_scalar_checked", "_shape_str",
    "_split_sizes", "_strides", "_type_str", "broadcast_shapes", "ALWAYS", "LIMITS", "_MALLOC", "_MEMORY", "_begin",
    "_check_like", "_check_numel", "_check_size", "_compact_saver", "_record", "op", "ROWS", "TABLE", "_inplace",
    "_refresh_views", "_register_view", "fresh_view", "fresh_views", "_rounded", "abs", "add", "add_method", "ceil",
    "clamp", "clamp_max", "clamp_min", "clone", "cos", "div", "exp", "floor", "floor_divide", "frac", "log", "maximum",
    "minimum", "mul", "mul_method", "neg", "pow", "reciprocal", "relu", "remainder", "round", "rsqrt", "rsub",
    "sigmoid", "sign", "sin", "sqrt", "square", "sub", "tanh", "to_dtype", "true_div_data", "trunc", "where",
    "_compare", "allclose", "bitwise_and", "bitwise_not", "bitwise_or", "bitwise_xor", "invert", "logical_and",
    "logical_not", "logical_or", "logical_xor", "tensor_all", "tensor_any", "argmax", "argmin", "cumprod", "cumsum",
    "log_softmax", "max", "mean", "min", "norm", "prod", "softmax", "sum", "T_property", "expand", "flatten",
    "flip", "mT_property", "permute", "reshape", "select", "squeeze", "t_", "transpose", "unsqueeze", "view",
    "clamp_", "copy_", "fill_", "masked_fill", "masked_fill_", "squeeze_", "t_inplace", "transpose_", "unsqueeze_",
    "zero_", "getitem", "setitem", "_multi_output", "_pieces", "_split_backward", "cat", "chunk", "dsplit",
    "hsplit", "split", "split_like_method", "split_method", "split_with_sizes", "stack", "tensor_iter",
    "tensor_split", "unbind", "vsplit", "_contiguous", "addmm", "bilinear", "bmm", "dot", "linear", "matmul", "mm",
    "mv", "binary_cross_entropy", "binary_cross_entropy_with_logits", "cross_entropy", "huber_loss", "kl_div",
    "l1_loss", "mse_loss", "nll_loss", "smooth_l1_loss", "dropout", "elu", "gelu", "leaky_relu", "softplus",
    "batch_norm", "layer_norm", "embedding", "avg_pool2d", "conv1d", "conv2d", "conv_nd", "max_pool2d", "rnn",
    "rnn_cell", "_NumpyMath", "_TensorMath", "NUMPY_MATH", "TENSOR_MATH", "copy_in_format", "is_contiguous_as",
]
