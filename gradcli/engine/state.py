"""The engine's per-run state, what it takes from the op table, and PyTorch's warning texts."""
from __future__ import annotations

from . import printing
from .numpy_math import _NumpyMath


class _State:
    """Per-run engine state (PyTorch keeps the equivalents per thread)."""

    __slots__ = ("seq", "grad_enabled", "origin", "capture", "observer", "warn", "calls", "warned", "anomaly",
                 "check_nan", "stale", "module", "edge_log", "memory_hook")

    def __init__(self):
        # the hooks: whoever runs scripts installs its own and puts the previous back (a notebook
        # hosting a run keeps its capture), so reset() leaves them alone
        self.origin = None           # opaque tag put on new nodes when `capture` is None
        self.capture = None          # () -> the origin of a new node (a script's frame: origin.Capture)
        self.observer = None         # called with each finished CallRecord
        self.warn = _default_warn    # called with (message) for PyTorch's UserWarnings
        self.edge_log = None         # a list that gets [node, gradient in, gradients out] per node run,
        #                              for a view that replays the run (the HTML page)
        self.memory_hook = None      # called with each new tensor's array of 1024 elements or more
        #                              while --max-memory applies (the executor's limits)
        self.reset()

    def reset(self):
        """The state a new script starts from, as a new process has it."""
        self.seq = 0                 # next sequence number for a new node
        self.grad_enabled = True
        self.calls = 0               # number of backward/grad calls so far
        self.warned = set()          # PyTorch's TORCH_WARN_ONCE warnings already given
        self.anomaly = False         # torch.autograd.set_detect_anomaly / detect_anomaly
        self.check_nan = True        # ... and its check_nan flag (only read while anomaly is on)
        self.stale = False           # some view's grad_fn may be out of date (ops.fresh_view)
        self.module = None           # the nn.Module whose forward is running (origins name it)
        printing.reset_print_options()          # torch.set_printoptions's

    def next_seq(self):
        s = self.seq
        self.seq = s + 1
        return s


def _default_warn(message):
    import warnings
    warnings.warn(message, UserWarning, stacklevel=3)


STATE = _State()


def warn_once(message):
    if message not in STATE.warned:
        STATE.warned.add(message)
        STATE.warn(message)


W_SCALAR = ("Converting a tensor with requires_grad=True to a scalar may lead to unexpected behavior.\n"
            "Consider using tensor.detach() first. (Triggered internally at "
            "/__w/pytorch/pytorch/torch/csrc/autograd/generated/python_variable_methods.cpp:822.)")

W_NONLEAF_GRAD = (
    "The .grad attribute of a Tensor that is not a leaf Tensor is being accessed. Its .grad "
    "attribute won't be populated during autograd.backward(). If you indeed want the .grad field "
    "to be populated for a non-leaf Tensor, use .retain_grad() on the non-leaf Tensor. If you "
    "access the non-leaf Tensor by mistake, make sure you access the leaf Tensor instead. See "
    "github.com/pytorch/pytorch/pull/30531 for more information. (Triggered internally at "
    "/__w/pytorch/pytorch/build/aten/src/ATen/core/TensorBody.h:493.)")
W_CREATE_GRAPH = (
    "Using backward() with create_graph=True will create a reference cycle between the parameter "
    "and its gradient which can cause a memory leak. We recommend using autograd.grad when "
    "creating the graph to avoid this. If you have to use this function, make sure to reset the "
    ".grad fields of your parameters to None after use to break the cycle and avoid the leak. "
    "(Triggered internally at /__w/pytorch/pytorch/torch/csrc/autograd/engine.cpp:1307.)")
SECOND_BACKWARD_TEXT = (
    "Trying to backward through the graph a second time (or directly access saved tensors after "
    "they have already been freed). Saved intermediate values of the graph are freed when you call "
    ".backward() or autograd.grad(). Specify retain_graph=True if you need to backward through the "
    "graph a second time or if you need to access saved tensors after calling backward.")
VERSION_HINT = (
    "Hint: enable anomaly detection to find the operation that failed to compute its gradient, "
    "with torch.autograd.set_detect_anomaly(True, check_nan=False).")
VERSION_HINT_ANOMALY = (
    "Hint: the backtrace further above shows the operation that failed to compute its gradient. "
    "The variable in question was changed in there or anywhere later. Good luck!")


class _Config:
    """What the engine takes from the layers above it, given once by configure() (gradcli.torch
    calls it on import, as PyTorch's Python side gives its C++ engine the Tensor class). Until
    then it makes no tensors, has no differentiable maths and no views to refresh."""

    __slots__ = ("tensor", "tensor_type", "numpy_math", "tensor_math", "fresh_view")

    def __init__(self):
        self.tensor = None              # makes a tensor of torch.Tensor from an array (tensor_type(array) reads
        self.tensor_type = None         # PyTorch's legacy arguments, as a script's torch.Tensor(...))
        self.numpy_math = _NumpyMath()  # the namespace backward formulas get: plain arrays
        self.tensor_math = None         # ... and under create_graph: the same names as differentiable ops
        self.fresh_view = None          # rebuilds a view's grad_fn after its storage changed in place


CONFIG = _Config()


def configure(tensor, make_tensor, numpy_math, tensor_math, fresh_view):
    """The one call that completes the engine: torch.Tensor (the class of the tensors it makes) and
    how it makes one from an array, the op table's backward helpers on arrays and on tensors, and
    its view bookkeeping."""
    CONFIG.tensor_type, CONFIG.tensor, CONFIG.numpy_math = tensor, make_tensor, numpy_math
    CONFIG.tensor_math, CONFIG.fresh_view = tensor_math, fresh_view
