"""`torch.nn.functional`: the functional forms of layers, activations and losses."""
from ... import ops as _ops
from ...engine import STATE
from ...errors import TorchValueError

sigmoid, tanh = _ops.sigmoid, _ops.tanh


def _truth(value):
    """`if value:` in PyTorch's Python code: an array's ambiguous truth value is the script's error."""
    try:
        return bool(value)
    except ValueError as e:
        raise TorchValueError(str(e)) from None


def relu(input, inplace=False):
    return input.relu_() if _truth(inplace) else _ops.relu(input)


softmax, log_softmax = _ops.softmax, _ops.log_softmax


def _legacy_reduction(size_average, reduce, reduction):
    """torch.nn._reduction.legacy_get_string: the deprecated size_average/reduce pair, when given,
    decides the reduction (with PyTorch's warning); it runs before the loss checks its arguments."""
    if size_average is None and reduce is None:
        return reduction
    size_average = True if size_average is None else size_average
    reduce = True if reduce is None else reduce
    reduction = "mean" if _truth(size_average) and _truth(reduce) else "sum" if _truth(reduce) else "none"
    STATE.warn(f"size_average and reduce args will be deprecated, please use reduction='{reduction}' instead.")
    return reduction


def mse_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    return _mse_loss(input, target, reduction=_legacy_reduction(size_average, reduce, reduction))


def _valid_reduction(reduction):
    """torch.nn._reduction.get_enum, which these losses call before PyTorch checks their arguments."""
    if not (isinstance(reduction, str) and reduction in ("none", "mean", "sum")):
        raise TorchValueError(f"{reduction} is not a valid value for reduction")
    return reduction


def nll_loss(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None, reduction="mean"):
    reduction = _valid_reduction(_legacy_reduction(size_average, reduce, reduction))
    return _nll_loss(input, target, weight, ignore_index=ignore_index, reduction=reduction)


def cross_entropy(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None, reduction="mean",
                  label_smoothing=0.0):
    reduction = _valid_reduction(_legacy_reduction(size_average, reduce, reduction))
    return _cross_entropy(input, target, weight, ignore_index=ignore_index, reduction=reduction,
                          label_smoothing=label_smoothing)


def binary_cross_entropy_with_logits(input, target, weight=None, size_average=None, reduce=None, reduction="mean",
                                     pos_weight=None):
    reduction = _valid_reduction(_legacy_reduction(size_average, reduce, reduction))
    return _bce_with_logits(input, target, weight, reduction=reduction, pos_weight=pos_weight)

from .. import _signatures  # noqa: E402

_signatures.install(globals(), "F")
# The losses check their arguments after the deprecated reduction pair is read, as in PyTorch.
_mse_loss = _signatures.checked("F.mse_loss", _ops.mse_loss)
_nll_loss = _signatures.checked("F.nll_loss", _ops.nll_loss)
_cross_entropy = _signatures.checked("F.cross_entropy", _ops.cross_entropy)
_bce_with_logits = _signatures.checked("F.binary_cross_entropy_with_logits", _ops.binary_cross_entropy_with_logits)
