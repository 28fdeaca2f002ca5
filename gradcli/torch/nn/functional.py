"""`torch.nn.functional`: the functional forms of layers, activations and losses."""
from ... import ops as _ops
from ...engine import STATE as _STATE, TensorBase as _Tensor
from ...engine import TorchTypeError as _TorchTypeError, TorchValueError as _TorchValueError
from ...engine import TorchRuntimeError as _TorchRuntimeError
from ...ops.activation import feature_dropout as _feature_dropout
from ...ops.conv import check_conv_args as _check_conv_args
from ...ops.numeric import _tensor_args

linear = _ops.linear
embedding, dropout, layer_norm = _ops.embedding, _ops.dropout, _ops.layer_norm
bilinear, batch_norm = _ops.bilinear, _ops.batch_norm
max_pool2d, avg_pool2d = _ops.max_pool2d, _ops.avg_pool2d
leaky_relu, elu, gelu, softplus = _ops.leaky_relu, _ops.elu, _ops.gelu, _ops.softplus
l1_loss, smooth_l1_loss, huber_loss = _ops.l1_loss, _ops.smooth_l1_loss, _ops.huber_loss
kl_div = _ops.kl_div
binary_cross_entropy = _ops.binary_cross_entropy


def _truth(value):
    """`if value:` in PyTorch's Python code: an array's ambiguous truth value is the script's error."""
    try:
        return bool(value)
    except ValueError as e:
        raise _TorchValueError(str(e)) from None


def conv1d(*args, **kwargs):
    _check_conv_args(1, args, kwargs)
    return _ops.conv1d(*args, **kwargs)


def conv2d(*args, **kwargs):
    _check_conv_args(2, args, kwargs)
    return _ops.conv2d(*args, **kwargs)


def dropout1d(input, p=0.5, training=True, inplace=False):
    if p < 0.0 or p > 1.0:
        raise _TorchValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    inp_dim = input.dim()
    if inp_dim not in (2, 3):
        raise _TorchRuntimeError(f"dropout1d: Expected 2D or 3D input, but received a {inp_dim}D input. Note that "
                                 "dropout1d exists to provide channel-wise dropout on inputs with 1 spatial dimension, "
                                 "a channel dimension, and an optional batch dimension (i.e. 2D or 3D inputs).")
    is_batched = inp_dim == 3
    if not is_batched:
        input = input.unsqueeze_(0) if inplace else input.unsqueeze(0)
    result = _feature_dropout(input, p, training, inplace)
    if not is_batched:
        result = result.squeeze_(0) if inplace else result.squeeze(0)
    return result


def dropout2d(input, p=0.5, training=True, inplace=False):
    if p < 0.0 or p > 1.0:
        raise _TorchValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    inp_dim = input.dim()
    if inp_dim not in (3, 4):
        _STATE.warn(f"dropout2d: Received a {inp_dim}-D input to dropout2d, which is deprecated and will result in "
                    "an error in a future release. To retain the behavior and silence this warning, please use "
                    "dropout instead. Note that dropout2d exists to provide channel-wise dropout on inputs with 2 "
                    "spatial dimensions, a channel dimension, and an optional batch dimension (i.e. 3D or 4D inputs).")
    if inp_dim == 3:
        _STATE.warn("dropout2d: Received a 3D input to dropout2d and assuming that channel-wise 1D dropout behavior "
                    "is desired - input is interpreted as shape (N, C, L), where C is the channel dim. This behavior "
                    "will change in a future release to interpret the input as one without a batch dimension, i.e. "
                    "shape (C, H, W). To maintain the 1D channel-wise dropout behavior, please switch to using "
                    "dropout1d instead.")
    return _feature_dropout(input, p, training, inplace)


def relu(input, inplace=False):
    return input.relu_() if _truth(inplace) else _ops.relu(input)


def _legacy_reduction(size_average, reduce, reduction):
    """torch.nn._reduction.legacy_get_string: the deprecated size_average/reduce pair, when given,
    decides the reduction (with PyTorch's warning); it runs before the loss checks its arguments."""
    if size_average is None and reduce is None:
        return reduction
    size_average = True if size_average is None else size_average
    reduce = True if reduce is None else reduce
    reduction = "mean" if _truth(size_average) and _truth(reduce) else "sum" if _truth(reduce) else "none"
    _STATE.warn(f"size_average and reduce args will be deprecated, please use reduction='{reduction}' instead.")
    return reduction


def _valid_reduction(reduction):
    """torch.nn._reduction.get_enum, which these losses call before PyTorch checks their arguments."""
    if not (isinstance(reduction, str) and reduction in ("none", "mean", "sum")):
        raise _TorchValueError(f"{reduction} is not a valid value for reduction")
    return reduction


def mse_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    if not (isinstance(input, _Tensor) and isinstance(target, _Tensor)):
        # PyTorch compares the operands' sizes before it reads size_average/reduce: the checked
        # loss raises what that comparison raises
        return _mse_loss(input, target, reduction=reduction)
    return _mse_loss(input, target, reduction=_legacy_reduction(size_average, reduce, reduction))


def nll_loss(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None, reduction="mean"):
    reduction = _valid_reduction(_legacy_reduction(size_average, reduce, reduction))
    _tensor_args("nll_loss_nd", input=input, target=target)      # (the checks of the op F.nll_loss calls)
    return _nll_loss(input, target, weight, ignore_index=ignore_index, reduction=reduction)


def cross_entropy(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None, reduction="mean",
                  label_smoothing=0.0):
    reduction = _valid_reduction(_legacy_reduction(size_average, reduce, reduction))
    _tensor_args("cross_entropy_loss", input=input, target=target)
    return _cross_entropy(input, target, weight, ignore_index=ignore_index, reduction=reduction,
                          label_smoothing=label_smoothing)


def binary_cross_entropy_with_logits(input, target, weight=None, size_average=None, reduce=None, reduction="mean",
                                     pos_weight=None):
    reduction = _valid_reduction(_legacy_reduction(size_average, reduce, reduction))
    return _bce_with_logits(input, target, weight, reduction=reduction, pos_weight=pos_weight)


def relu_(input):
    return input.relu_()


def leaky_relu_(input, negative_slope=0.01):
    return _ops.leaky_relu(input, negative_slope, inplace=True)


def elu_(input, alpha=1.0):
    return _ops.elu(input, alpha, inplace=True)


def tanh(input):
    return input.tanh()


def sigmoid(input):
    return input.sigmoid()


def _get_softmax_dim(name, ndim, stacklevel):
    if not isinstance(stacklevel, int):         # (Python's warnings.warn reads it as an int)
        raise _TorchTypeError(f"'{type(stacklevel).__name__}' object cannot be interpreted as an integer")
    _STATE.warn(f"Implicit dimension choice for {name} has been deprecated. Change the call to include dim=X "
                "as an argument.")
    return 0 if ndim in (0, 1, 3) else 1


def softmax(input, dim=None, _stacklevel=3, dtype=None):
    if dim is None:
        dim = _get_softmax_dim("softmax", input.dim(), _stacklevel)
    return input.softmax(dim) if dtype is None else input.softmax(dim, dtype=dtype)


def log_softmax(input, dim=None, _stacklevel=3, dtype=None):
    if dim is None:
        dim = _get_softmax_dim("log_softmax", input.dim(), _stacklevel)
    return input.log_softmax(dim) if dtype is None else input.log_softmax(dim, dtype=dtype)


def __getattr__(name):
    from .._not_implemented import missing
    raise missing("torch.nn.functional", name)


from .. import _signatures  # noqa: E402

_signatures.install(globals(), "F")
# The losses check their arguments after the deprecated reduction pair is read, as in PyTorch.
_mse_loss = _signatures.checked("F.mse_loss", _ops.mse_loss)
_nll_loss = _signatures.checked("F.nll_loss", _ops.nll_loss)
_cross_entropy = _signatures.checked("F.cross_entropy", _ops.cross_entropy)
_bce_with_logits = _signatures.checked("F.binary_cross_entropy_with_logits", _ops.binary_cross_entropy_with_logits)
