"""`torch.nn.functional`: the functional forms of layers, activations and losses."""
from ... import ops as _ops
from ...errors import TorchValueError

sigmoid, tanh = _ops.sigmoid, _ops.tanh


def relu(input, inplace=False):
    try:
        inplace = bool(inplace)            # PyTorch's `if inplace:`
    except ValueError as e:
        raise TorchValueError(str(e)) from None
    return input.relu_() if inplace else _ops.relu(input)

softmax, log_softmax = _ops.softmax, _ops.log_softmax
mse_loss, cross_entropy, nll_loss = _ops.mse_loss, _ops.cross_entropy, _ops.nll_loss
binary_cross_entropy_with_logits = _ops.binary_cross_entropy_with_logits

from .. import _signatures  # noqa: E402

_signatures.install(globals(), "F")
