"""The autograd engine: tensors, graph nodes, saved tensors and the backward pass.

It knows nothing of the script language. It behaves like PyTorch 2.13 in what a user can
observe: which node saves which tensor, when saved tensors are freed, the order nodes run
in, how `.grad` accumulates, and the exact error texts. Per-op knowledge lives in the op
table; gradcli.torch completes the engine once, through configure(): the torch.Tensor class
the engine makes (TensorBase with the operations) and the op table's maths.

Modules, bottom up: errors (the exception types a script sees), vml (the float32 sqrt
kernel), printing (tensors printed as PyTorch prints them), dtypes, numpy_math (the
namespace backward formulas run on), state (STATE, configure, warning texts), graph (nodes,
edges, saved tensors, OpDef), tensor, accumulate_grad, engine (the engine proper, as
PyTorch's engine.cpp) and autograd (backward() and grad()). Everything the rest of gradcli
uses is importable from here, each name loaded with its module on first use: the script
language's parser takes its error types from here without loading NumPy.
"""
from __future__ import annotations

from ..lazy import lazy_names

# The names, by module (a module's own name: the module), each loaded on its first use.
_EXPORTS = {
    "errors": "errors BY_NAME ExpectationFailed LimitError ParseError ScriptError TorchAssertionError "
              "TorchAttributeError TorchIndexError TorchKeyError TorchLinAlgError TorchNameError TorchNotImplementedError "
              "TorchOverflowError TorchRecursionError TorchRuntimeError TorchStopIteration TorchTypeError "
              "TorchValueError TorchZeroDivisionError",
    "accumulate_grad": "written",
    "autograd": "_engine_flags _make_grads backward grad",
    "dtypes": "BOOL DTYPES FLOAT INT DType MemoryFormat Size _sizes bool_ channels_last channels_last_3d "
              "contiguous_format dtype_of float16 float32 float64 int8 int16 int32 int64 preserve_format "
              "promote_types shown_as_pytorch uint8",
    "engine": "CallRecord _apply execute",
    "graph": "ACCUMULATE COPY_BACKWARDS GRAPH_ROOT INVALID AccumulateGrad BackwardTwiceError MultiOutputNode Node "
             "OpDef OutputEdge Saved Version VersionError _fake_address _NUMBERS _version_error output_edges "
             "short_name wrapped_number",
    "numpy_math": "REUSE _fresh _into _np_pow _NumpyMath",
    "printing": "printing format_item format_tensor",
    "state": "CONFIG STATE _default_warn configure warn_once",
    "tensor": "TensorBase _wrap_dim result_type",
    "vml": "vml",
}
__getattr__ = lazy_names(__name__, _EXPORTS)
__all__ = [name for names in _EXPORTS.values() for name in names.split()]
