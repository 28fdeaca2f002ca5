"""`torch.nn.functional`: the functional forms of layers, activations and losses."""
from ... import ops as _ops
from ... import ops_nn as _nn
from ...engine import STATE as _STATE

linear = _nn.linear
embedding, dropout, layer_norm = _nn.embedding, _nn.dropout, _nn.layer_norm
bilinear, conv1d, conv2d, batch_norm = _nn.bilinear, _nn.conv1d, _nn.conv2d, _nn.batch_norm
max_pool2d, avg_pool2d = _nn.max_pool2d, _nn.avg_pool2d
leaky_relu, elu, gelu, softplus = _nn.leaky_relu, _nn.elu, _nn.gelu, _nn.softplus
l1_loss, mse_loss, smooth_l1_loss, huber_loss = _nn.l1_loss, _nn.mse_loss, _nn.smooth_l1_loss, _nn.huber_loss
nll_loss, cross_entropy, kl_div = _nn.nll_loss, _nn.cross_entropy, _nn.kl_div
binary_cross_entropy = _nn.binary_cross_entropy
binary_cross_entropy_with_logits = _nn.binary_cross_entropy_with_logits


def relu(input, inplace=False):
    return input.relu_() if inplace else _ops.relu(input)


def relu_(input):
    return input.relu_()


def leaky_relu_(input, negative_slope=0.01):
    return _nn.leaky_relu(input, negative_slope, inplace=True)


def elu_(input, alpha=1.0):
    return _nn.elu(input, alpha, inplace=True)


def tanh(input):
    return input.tanh()


def sigmoid(input):
    return input.sigmoid()


def _get_softmax_dim(name, ndim, stacklevel):
    _STATE.warn(f"Implicit dimension choice for {name} has been deprecated. Change the call to include dim=X "
                "as an argument.")
    return 0 if ndim in (0, 1, 3) else 1


def softmax(input, dim=None, _stacklevel=3, dtype=None):
    if dim is None:
        dim = _get_softmax_dim("softmax", input.dim(), _stacklevel)
    if dtype is not None:
        input = input.to(dtype)
    return _ops.softmax(input, dim)


def log_softmax(input, dim=None, _stacklevel=3, dtype=None):
    if dim is None:
        dim = _get_softmax_dim("log_softmax", input.dim(), _stacklevel)
    if dtype is not None:
        input = input.to(dtype)
    return _ops.log_softmax(input, dim)


def __getattr__(name):
    from .._not_implemented import missing
    raise missing("torch.nn.functional", name)


from .. import _signatures  # noqa: E402

_signatures.install(globals(), "F")
