"""Gradients of gradients through torch.nn's layers, against real PyTorch: the first-order
gradients taken with create_graph=True must carry PyTorch's double-backward nodes
(EluBackwardBackward0, ConvolutionBackwardBackward0, ...) with its values, and differentiating
them again must give PyTorch's second-order gradients."""
from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings

from nn_oracle import check_module
from op_oracle import In, check_op
from test_nn_fuzz_oracle import NORMS, _build, _target, models

pytestmark = pytest.mark.timeout(120)


ACTIVATIONS = {
    "elu": {}, "elu_alpha": {"alpha": 0.7},
    "gelu": {}, "gelu_tanh": {"approximate": "tanh"},
    "softplus": {}, "softplus_beta": {"beta": 2.0, "threshold": 1.5},
    "leaky_relu": {}, "leaky_relu_slope": {"negative_slope": 0.2},
}


@pytest.mark.parametrize("name", sorted(ACTIVATIONS))
def test_activation_second_order(name):
    fn = name.split("_")[0] if name not in ("leaky_relu", "leaky_relu_slope") else "leaky_relu"
    kwargs = ACTIVATIONS[name]
    check_op(lambda t, x: getattr(t.nn.functional, fn)(x, **kwargs), In((4, 5), low=-3, high=3), second_order=True)


@pytest.mark.parametrize("fn", ["elu", "leaky_relu"])
def test_inplace_activation_second_order(fn):
    check_op(lambda t, x: getattr(t.nn.functional, fn)(x * 1, inplace=True), In((3, 4), low=-3, high=3),
             second_order=True)


def test_pooling_second_order():
    check_op(lambda t, x: t.nn.functional.max_pool2d(x, 2), (2, 3, 4, 4), second_order=True)
    check_op(lambda t, x: t.nn.functional.max_pool2d(x, 3, stride=2, padding=1), (1, 2, 5, 5), second_order=True)
    check_op(lambda t, x: t.nn.functional.avg_pool2d(x, 2), (2, 3, 4, 4), second_order=True)
    check_op(lambda t, x: t.nn.functional.avg_pool2d(x, 3, stride=2, padding=1, count_include_pad=False),
             (3, 5, 5), second_order=True)


@pytest.mark.parametrize("bias", [True, False])
def test_convolution_second_order(bias):
    extra = ((4,),) if bias else ()
    check_op(lambda t, x, w, *b: t.nn.functional.conv2d(x, w, *b), (2, 3, 5, 5), (4, 3, 3, 3), *extra,
             second_order=True)
    check_op(lambda t, x, w, *b: t.nn.functional.conv1d(x, w, *b, stride=2, padding=1, dilation=2), (2, 3, 9),
             (4, 3, 3), *extra, second_order=True)
    check_op(lambda t, x, w, *b: t.nn.functional.conv2d(x, w, *b, groups=2), (1, 4, 4, 4), (4, 2, 2, 2), *extra,
             second_order=True)


@pytest.mark.parametrize("training", [True, False])
@pytest.mark.parametrize("affine", [True, False])
def test_batch_norm_second_order(training, affine):
    params = ((3,), (3,)) if affine else ()
    check_op(lambda t, x, *wb: t.nn.functional.batch_norm(x, t.zeros(3) + 0.2, t.ones(3) * 1.5, *wb,
                                                          training=training),
             (4, 3), *params, second_order=True)
    check_op(lambda t, x, *wb: t.nn.functional.batch_norm(x, t.zeros(3) + 0.2, t.ones(3) * 1.5, *wb,
                                                          training=training),
             (2, 3, 2, 2), *params, second_order=True)


@pytest.mark.parametrize("affine", [True, False])
def test_layer_norm_second_order(affine):
    params = ((4,), (4,)) if affine else ()
    check_op(lambda t, x, *wb: t.nn.functional.layer_norm(x, (4,), *wb), (3, 4), *params, second_order=True)
    params = ((2, 3), (2, 3)) if affine else ()
    check_op(lambda t, x, *wb: t.nn.functional.layer_norm(x, (2, 3), *wb), (2, 2, 3), *params, second_order=True)


def test_modules_second_order():
    check_module(lambda nn: nn.Sequential(nn.Conv2d(2, 3, 2), nn.BatchNorm2d(3), nn.ELU(), nn.MaxPool2d(2)),
                 (2, 2, 5, 5), second_order=True)
    check_module(lambda nn: nn.Sequential(nn.Linear(3, 4), nn.LayerNorm(4), nn.GELU(), nn.Linear(4, 2),
                                          nn.Softplus()), (5, 3), second_order=True)


def test_bilinear_second_order():
    check_op(lambda t, a, b, w, c: t.nn.functional.bilinear(a, b, w, c), (4, 2), (4, 3), (5, 2, 3), (5,),
             second_order=True)
    check_op(lambda t, a, b, w: t.nn.functional.bilinear(a, b, w), (2, 3, 2), In((2, 3, 3), rg=False), (4, 2, 3),
             second_order=True)


def test_embedding_gradient_is_constant_under_create_graph():
    check_op(lambda t, w: t.nn.functional.embedding(t.tensor([[0, 2], [2, 3]]), w), (4, 3), second_order=True)
    check_op(lambda t, w: t.nn.functional.embedding(t.tensor([0, 2, 2]), w, padding_idx=2) * w.sum(), (4, 3),
             second_order=True)


@pytest.mark.parametrize("kwargs", [{}, {"bias": False}, {"bidirectional": True}, {"num_layers": 2}])
def test_float32_lstm_second_order(kwargs):
    check_module(lambda nn: nn.LSTM(2, 3, **kwargs), (4, 2, 2), call=lambda m, x: m(x)[0], second_order=True)


def test_lstm_second_order_through_its_final_state():
    # h_n and c_n come from stack: their gradient flows back through stack's SelectBackward0s
    check_module(lambda nn: nn.LSTM(2, 3), (4, 2, 2),
                 call=lambda m, x: (lambda out, hc: out.sum() + (hc[0] ** 2).sum() + (hc[1] ** 2).sum())(*m(x)),
                 second_order=True)


def test_lstm_with_given_state_second_order():
    check_module(lambda nn: nn.LSTM(2, 3), (3, 1, 2), (1, 1, 3), (1, 1, 3),
                 call=lambda m, x, h, c: m(x, (h, c))[0], second_order=True)


def test_select_gradient_is_differentiable():
    # the LSTM selects its steps and its initial state: their gradients are SelectBackwardBackward0
    check_op(lambda t, x: x[1] * x[1], (3, 2), second_order=True)
    check_op(lambda t, x: x.select(1, 0).exp(), (3, 2), second_order=True)


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("loss, kwargs", [("smooth_l1_loss", {}), ("smooth_l1_loss", {"beta": 0.5}),
                                          ("smooth_l1_loss", {"beta": 0.0}), ("huber_loss", {"delta": 0.7})])
def test_regression_loss_second_order(loss, kwargs, reduction):
    check_op(lambda t, x, y: getattr(t.nn.functional, loss)(x, y, reduction=reduction, **kwargs),
             In((4, 3), low=-2, high=2), In((4, 3), low=-2, high=2), second_order=True)


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("weighted", [False, True])
def test_binary_cross_entropy_second_order(reduction, weighted):
    weight = (In((4, 3), rg=False, low=0.5, high=2),) if weighted else ()
    check_op(lambda t, x, y, *w: t.nn.functional.binary_cross_entropy(x, y, *w, reduction=reduction),
             In((4, 3), low=0.05, high=0.95), In((4, 3), rg=False, low=0, high=1), *weight, second_order=True)
    check_op(lambda t, x, y: t.nn.functional.binary_cross_entropy(t.sigmoid(x), y, reduction=reduction),
             (4, 3), In((4, 3), rg=False, low=0, high=1), second_order=True)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(models())
def test_random_model_second_order(model):
    """Random Sequential models and losses (tests/test_nn_fuzz_oracle's generator): the gradients of
    the loss taken with create_graph, and the gradients of their sum."""
    layers, features, loss_name, batch, _, reduction = model

    def call(m, x, target):
        lib_nn = isinstance(m, __import__("torch").nn.Module) and __import__("torch").nn or __import__("gradcli.torch").torch.nn
        out = m(x)
        if loss_name == "NLLLoss":
            out = lib_nn.functional.log_softmax(out, 1)
        return getattr(lib_nn, loss_name)(reduction=reduction)(out, target)
    double = any(spec[0] in dict(NORMS) for spec in layers)
    dtype = "float64" if double else "float32"
    check_module(_build(layers, double), In((batch, features[0]), dtype=dtype),
                 _target(loss_name, batch, features[-1], dtype), call=call, weighted=False, second_order=True,
                 desc=repr(model))
