"""The autograd engine: tensors, graph nodes, saved tensors and the backward pass.

It knows nothing of the script language. It behaves like PyTorch 2.13 in what a user can
observe: which node saves which tensor, when saved tensors are freed, the order nodes run
in, how `.grad` accumulates, and the exact error texts. Per-op knowledge lives in the op
table, which hands the engine what it needs from it once, through configure().

Modules, bottom up: errors (the exception types a script sees), vml (the float32 sqrt
kernel), printing (tensors printed as PyTorch prints them), dtypes, numpy_math (the
namespace backward formulas run on), state (STATE, configure, warning texts), graph (nodes,
edges, saved tensors, OpDef), tensor, accumulate_grad, engine (the engine proper, as
PyTorch's engine.cpp) and autograd (backward() and grad()). Everything the rest of gradcli
uses is importable from here.
"""
from __future__ import annotations

from . import errors, printing, vml
from .accumulate_grad import written
from .autograd import _make_grads, backward, grad
from .dtypes import (BOOL, DTYPES, FLOAT, INT, DType, Size, _sizes, bool_, dtype_of, float16, float32, float64,
                     int8, int16, int32, int64, promote_types, uint8)
from .errors import (BY_NAME, ExpectationFailed, LimitError, ParseError, ScriptError, TorchAssertionError,
                     TorchAttributeError, TorchIndexError, TorchKeyError, TorchNameError, TorchNotImplementedError,
                     TorchOverflowError, TorchRecursionError, TorchRuntimeError, TorchStopIteration, TorchTypeError,
                     TorchValueError, TorchZeroDivisionError)
from .engine import CallRecord, _apply, execute
from .graph import (ACCUMULATE, COPY_BACKWARDS, GRAPH_ROOT, INVALID, AccumulateGrad, BackwardTwiceError,
                    MultiOutputNode, Node, OpDef, OutputEdge, Saved, Version, VersionError, _fake_address, _NUMBERS,
                    _version_error, output_edges, short_name, wrapped_number)
from .numpy_math import REUSE, _fresh, _into, _np_pow, _NumpyMath
from .printing import format_item, format_tensor
from .state import CONFIG, STATE, _default_warn, configure, warn_once
from .tensor import Tensor, _wrap_dim, result_type

__all__ = [
    "errors", "printing", "vml", "written", "_make_grads", "backward", "grad", "BOOL", "DTYPES", "FLOAT", "INT",
    "DType", "Size", "_sizes", "bool_", "dtype_of", "float16", "float32", "float64", "int8", "int16", "int32",
    "int64", "promote_types", "uint8", "BY_NAME", "ExpectationFailed", "LimitError", "ParseError", "ScriptError",
    "TorchAssertionError", "TorchAttributeError", "TorchIndexError", "TorchKeyError", "TorchNameError",
    "TorchNotImplementedError", "TorchOverflowError", "TorchRecursionError", "TorchRuntimeError",
    "TorchStopIteration", "TorchTypeError", "TorchValueError", "TorchZeroDivisionError", "CallRecord", "_apply",
    "execute", "ACCUMULATE", "COPY_BACKWARDS", "GRAPH_ROOT", "INVALID", "AccumulateGrad", "BackwardTwiceError",
    "MultiOutputNode", "Node", "OpDef", "OutputEdge", "Saved", "Version", "VersionError", "_fake_address",
    "_NUMBERS", "_version_error", "output_edges", "short_name", "wrapped_number", "REUSE", "_fresh", "_into",
    "_np_pow", "_NumpyMath", "format_item", "format_tensor", "CONFIG", "STATE", "_default_warn", "configure",
    "warn_once", "Tensor", "_wrap_dim", "result_type",
]
