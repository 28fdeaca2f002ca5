"""torch.nn against real PyTorch: every module and loss is built after manual_seed in both
libraries and compared by tests/nn_oracle.check_module (printout, default initialisation bit for
bit, forward values, grad_fn graph with saved slots before and after backward, gradients of the
inputs and of every parameter)."""
from __future__ import annotations

import pytest

from nn_oracle import check_module, module_pair, G, torch
from op_oracle import In, check_op

pytestmark = pytest.mark.timeout(120)

# ----------------------------------------------------------------------------- Linear


@pytest.mark.parametrize("shape", [(3,), (4, 3), (2, 4, 3), (2, 2, 1, 3)])
@pytest.mark.parametrize("bias", [True, False])
def test_linear_graph_for_each_input_rank(shape, bias):
    check_module(lambda nn: nn.Linear(3, 2, bias=bias), shape, second_order=True)


def test_linear_input_without_grad_saves_only_the_input():
    check_module(lambda nn: nn.Linear(3, 2), In((4, 3), rg=False))
    check_module(lambda nn: nn.Linear(3, 2), In((2, 4, 3), rg=False))


def test_linear_non_contiguous_input_takes_matmul_and_add_():
    check_module(lambda nn: nn.Linear(4, 2), (3, 2, 4), call=lambda m, x: m(x.transpose(0, 1)))


def test_functional_linear_matches():
    check_op(lambda t, x, w, b: t.nn.functional.linear(x, w, b), (5, 3), (2, 3), (2,), second_order=True)
    check_op(lambda t, x, w: t.nn.functional.linear(x, w), (5, 3), (2, 3))


def test_linear_wrong_input_size_raises_torch_error():
    check_module(lambda nn: nn.Linear(3, 2), (4, 5))

# ----------------------------------------------------------------------------- activations


ACTIVATIONS = [
    lambda nn: nn.ReLU(), lambda nn: nn.ReLU(inplace=True), lambda nn: nn.LeakyReLU(),
    lambda nn: nn.LeakyReLU(0.2, inplace=True), lambda nn: nn.ELU(), lambda nn: nn.ELU(alpha=0.5),
    lambda nn: nn.ELU(inplace=True), lambda nn: nn.GELU(), lambda nn: nn.GELU(approximate="tanh"),
    lambda nn: nn.Tanh(), lambda nn: nn.Sigmoid(), lambda nn: nn.Softmax(dim=1), lambda nn: nn.Softmax(dim=-1),
    lambda nn: nn.LogSoftmax(dim=1), lambda nn: nn.Softplus(), lambda nn: nn.Softplus(beta=2, threshold=1),
    lambda nn: nn.Identity(), lambda nn: nn.Flatten(), lambda nn: nn.Flatten(0, -1),
]


@pytest.mark.parametrize("k", range(len(ACTIVATIONS)))
def test_activation_module_after_linear(k):
    # after a Linear, so the in-place forms act on a non-leaf, as in a real model
    check_module(lambda nn: nn.Sequential(nn.Linear(3, 4), ACTIVATIONS[k](nn)), (5, 3))


@pytest.mark.parametrize("name,kwargs", [
    ("leaky_relu", {}), ("leaky_relu", {"negative_slope": 0.3}), ("elu", {}), ("elu", {"alpha": 2.0}),
    ("gelu", {}), ("gelu", {"approximate": "tanh"}), ("softplus", {}), ("softplus", {"beta": 3, "threshold": 2}),
    ("relu", {}), ("tanh", {}), ("sigmoid", {}), ("softmax", {"dim": 0}), ("log_softmax", {"dim": 1}),
])
def test_functional_activation(name, kwargs):
    check_op(lambda t, x: getattr(t.nn.functional, name)(x, **kwargs), In((4, 5), low=-4, high=4))


@pytest.mark.parametrize("name,kwargs", [("relu", {}), ("leaky_relu", {"negative_slope": 0.1}), ("elu", {})])
def test_functional_activation_inplace_on_a_non_leaf(name, kwargs):
    check_op(lambda t, x: getattr(t.nn.functional, name)(x * 1, inplace=True, **kwargs), (3, 4))


def test_softmax_without_dim_warns_and_picks_torch_dim():
    check_module(lambda nn: nn.Softmax(), (2, 3, 4))

# ----------------------------------------------------------------------------- losses

REDUCTIONS = ["mean", "sum", "none"]


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("loss", ["MSELoss", "L1Loss", "SmoothL1Loss", "HuberLoss"])
def test_regression_losses(loss, reduction):
    check_module(lambda nn: getattr(nn, loss)(reduction=reduction), (4, 3), (4, 3))


@pytest.mark.parametrize("kwargs", [{"beta": 0.5}, {"beta": 0.0}])
def test_smooth_l1_beta(kwargs):
    check_module(lambda nn: nn.SmoothL1Loss(**kwargs), (4, 3), In((4, 3), rg=False))


def test_huber_delta_and_target_broadcast():
    check_module(lambda nn: nn.HuberLoss(delta=0.3), (4, 3), In((3,), rg=False))
    check_module(lambda nn: nn.L1Loss(), (4, 3), In((1, 3), rg=False))


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("kwargs", [{}, {"ignore_index": 1}, {"label_smoothing": 0.1},
                                    {"label_smoothing": 0.2, "ignore_index": 2}])
def test_cross_entropy_class_indices(reduction, kwargs):
    check_module(lambda nn: nn.CrossEntropyLoss(reduction=reduction, **kwargs), (5, 3),
                 In((5,), ints=True, low=0, high=3))


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("smoothing", [0.0, 0.25])
def test_cross_entropy_with_class_weights(reduction, smoothing):
    check_module(lambda nn: nn.CrossEntropyLoss(weight=nn.Parameter(_weights(nn), requires_grad=False),
                                                reduction=reduction, label_smoothing=smoothing),
                 (5, 3), In((5,), ints=True, low=0, high=3))


def _weights(nn):
    lib = torch if nn is torch.nn else G
    return lib.tensor([0.2, 1.0, 3.0])


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("smoothing", [0.0, 0.1])
def test_cross_entropy_probabilities(reduction, smoothing):
    check_module(lambda nn: nn.CrossEntropyLoss(reduction=reduction, label_smoothing=smoothing), (4, 3),
                 In((4, 3), rg=False, low=0, high=1))


def test_cross_entropy_single_sample_and_images():
    check_module(lambda nn: nn.CrossEntropyLoss(), (3,), In((), ints=True, low=0, high=3))
    check_module(lambda nn: nn.CrossEntropyLoss(), (2, 3, 2, 2), In((2, 2, 2), ints=True, low=0, high=3))
    check_module(lambda nn: nn.CrossEntropyLoss(reduction="none"), (2, 3, 4), In((2, 4), ints=True, low=0, high=3))


@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_nll_loss(reduction):
    check_module(lambda nn: nn.NLLLoss(reduction=reduction), (5, 4), In((5,), ints=True, low=0, high=4))
    check_module(lambda nn: nn.NLLLoss(reduction=reduction, ignore_index=0), (5, 4),
                 In((5,), ints=True, low=0, high=4))


def test_nll_loss_errors():
    check_module(lambda nn: nn.NLLLoss(), (5, 4), In((5,), values=[0, 1, 2, 3, 4]))
    check_module(lambda nn: nn.NLLLoss(), (5, 4), In((4,), ints=True, low=0, high=4))


@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_bce_loss(reduction):
    check_module(lambda nn: nn.BCELoss(reduction=reduction), In((4, 3), low=0.05, high=0.95),
                 In((4, 3), low=0, high=1))


def test_bce_loss_weight_and_range_error():
    check_module(lambda nn: nn.BCELoss(weight=_weights(nn)), In((4, 3), low=0.05, high=0.95),
                 In((4, 3), rg=False, low=0, high=1))
    check_module(lambda nn: nn.BCELoss(), In((2, 2), values=[[0.5, 1.5], [0.2, 0.1]]), In((2, 2), rg=False))


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("weighted", ["none", "weight", "pos_weight", "both"])
def test_bce_with_logits(reduction, weighted):
    def build(nn):
        kw = {}
        if weighted in ("weight", "both"):
            kw["weight"] = _weights(nn)
        if weighted in ("pos_weight", "both"):
            kw["pos_weight"] = _weights(nn) * 2
        return nn.BCEWithLogitsLoss(reduction=reduction, **kw)
    check_module(build, (4, 3), In((4, 3), low=0, high=1))


@pytest.mark.parametrize("reduction", ["batchmean", "sum", "mean", "none"])
@pytest.mark.parametrize("log_target", [False, True])
def test_kl_div(reduction, log_target):
    check_module(lambda nn: nn.KLDivLoss(reduction=reduction, log_target=log_target), (4, 3),
                 In((4, 3), rg=False, low=0, high=1))


def test_loss_modules_print_like_torch():
    for name in ("MSELoss", "L1Loss", "SmoothL1Loss", "HuberLoss", "CrossEntropyLoss", "NLLLoss", "BCELoss",
                 "BCEWithLogitsLoss", "KLDivLoss"):
        tm, gm = module_pair(lambda nn: getattr(nn, name)())
        assert repr(tm) == repr(gm)
        assert dict(tm.state_dict()) == {} == dict(gm.state_dict())

# ----------------------------------------------------------------------------- Embedding, Dropout, LayerNorm


@pytest.mark.parametrize("kwargs", [{}, {"padding_idx": 1}, {"padding_idx": -1}, {"scale_grad_by_freq": True}])
def test_embedding(kwargs):
    check_module(lambda nn: nn.Embedding(5, 3, **kwargs), In((2, 3), values=[[0, 1, 4], [1, 1, 2]]))


def test_embedding_then_linear_and_errors():
    check_module(lambda nn: nn.Sequential(nn.Embedding(6, 4), nn.Linear(4, 2)), In((3,), values=[5, 0, 5]))
    check_module(lambda nn: nn.Embedding(5, 3), In((2,), values=[1, 5]))
    check_module(lambda nn: nn.Embedding(5, 3), In((2,), values=[1.0, 2.0]))


def test_embedding_max_norm_renormalises_looked_up_rows():
    check_module(lambda nn: nn.Embedding(4, 3, max_norm=0.5), In((3,), values=[0, 2, 2]), weighted=False)


@pytest.mark.parametrize("p", [0.0, 0.3, 0.5, 1.0])
def test_dropout_mask_from_the_generator(p):
    check_module(lambda nn: nn.Sequential(nn.Linear(3, 8), nn.Dropout(p)), (6, 3), weighted=False)


def test_dropout_inplace_and_eval():
    check_module(lambda nn: nn.Sequential(nn.Linear(3, 8), nn.Dropout(0.4, inplace=True)), (6, 3), weighted=False)
    check_module(lambda nn: nn.Sequential(nn.Linear(3, 8), nn.Dropout(0.4)).eval(), (6, 3))


@pytest.mark.parametrize("shape,normalized", [((4, 3), 3), ((2, 4, 3), (4, 3)), ((5,), 5)])
@pytest.mark.parametrize("kwargs", [{}, {"elementwise_affine": False}, {"bias": False}, {"eps": 0.1}])
def test_layer_norm(shape, normalized, kwargs):
    check_module(lambda nn: nn.LayerNorm(normalized, **kwargs), shape)


def test_layer_norm_after_linear_with_trained_affine():
    def build(nn):
        m = nn.Sequential(nn.Linear(3, 4), nn.LayerNorm(4))
        with (torch if nn is torch.nn else G).no_grad():
            m[1].weight.mul_(1.5)
            m[1].bias.add_(0.25)
        return m
    check_module(build, (5, 3))
    check_module(lambda nn: nn.LayerNorm(4), (5, 3))

# ----------------------------------------------------------------------------- recurrent layers


@pytest.mark.parametrize("cell", ["RNNCell", "LSTMCell", "GRUCell"])
@pytest.mark.parametrize("shape", [(4, 3), (3,)])
def test_cell_without_hidden(cell, shape):
    check_module(lambda nn: getattr(nn, cell)(3, 2), shape, call=lambda m, x: _first(m(x)))


def _first(out):
    return out[0] if isinstance(out, tuple) else out


@pytest.mark.parametrize("cell", ["RNNCell", "LSTMCell", "GRUCell"])
def test_cell_with_given_hidden_that_requires_grad(cell):
    def call(m, x, h, c):
        return m(x, (h, c)) if isinstance(m, (torch.nn.LSTMCell, G.nn.LSTMCell)) else m(x, h)
    check_module(lambda nn: getattr(nn, cell)(3, 2), (4, 3), (4, 2), (4, 2), call=call)


def test_rnn_cell_relu_and_no_bias():
    check_module(lambda nn: nn.RNNCell(3, 2, nonlinearity="relu"), (4, 3), (4, 2), call=lambda m, x, h: m(x, h))
    check_module(lambda nn: nn.GRUCell(3, 2, bias=False), (4, 3), (4, 2), call=lambda m, x, h: m(x, h))


@pytest.mark.parametrize("mode", ["RNN", "LSTM", "GRU"])
@pytest.mark.parametrize("kwargs", [{}, {"num_layers": 2}, {"batch_first": True}, {"bias": False}])
def test_recurrent_layer_sequence(mode, kwargs):
    check_module(lambda nn: getattr(nn, mode)(3, 2, **kwargs), (3, 2, 3), call=lambda m, x: _outputs(m(x)))


def _outputs(result):
    out, hidden = result
    return (out,) + (hidden if isinstance(hidden, tuple) else (hidden,))


@pytest.mark.parametrize("mode", ["RNN", "LSTM", "GRU"])
def test_recurrent_layer_given_hidden_and_unbatched(mode):
    def call(m, x, h, c):
        return _outputs(m(x, (h, c) if mode == "LSTM" else h))
    check_module(lambda nn: getattr(nn, mode)(3, 2, num_layers=2), (4, 2, 3), (2, 2, 2), (2, 2, 2), call=call)
    check_module(lambda nn: getattr(nn, mode)(3, 2), (4, 3), call=lambda m, x: _outputs(m(x)))


def test_rnn_relu_and_dropout_between_layers():
    check_module(lambda nn: nn.RNN(3, 2, nonlinearity="relu"), (3, 2, 3), call=lambda m, x: _outputs(m(x)))
    check_module(lambda nn: nn.GRU(3, 4, num_layers=2, dropout=0.5), (3, 2, 3), call=lambda m, x: _outputs(m(x)),
                 weighted=False)


def test_lstm_in_double_takes_the_cell_by_cell_path():
    check_module(lambda nn: nn.LSTM(3, 2, num_layers=2).double(), In((3, 2, 3), dtype="float64"),
                 call=lambda m, x: _outputs(m(x)))


def test_hidden_state_carried_without_detach_fails_on_the_second_backward_like_torch():
    def call(m, x):
        h = None
        losses = []
        for step in range(2):
            out, h = m(x, h)
            loss = out.sum()
            loss.backward()
            losses.append(loss)
        return losses[-1]
    for mode in ("RNN", "LSTM", "GRU"):
        check_module(lambda nn: getattr(nn, mode)(3, 2), (4, 1, 3), call=call, backward=False, weighted=False)

# ----------------------------------------------------------------------------- convolution, pooling, batch norm, bilinear


@pytest.mark.parametrize("kwargs", [{}, {"stride": 2}, {"padding": 1}, {"dilation": 2}, {"bias": False},
                                    {"padding": "same"}, {"padding": "valid"}])
def test_conv1d(kwargs):
    check_module(lambda nn: nn.Conv1d(2, 4, 3, **kwargs), (2, 2, 9))


@pytest.mark.parametrize("kwargs", [{}, {"stride": 2, "padding": 1}, {"kernel_size": (3, 2), "stride": (2, 1)},
                                    {"dilation": 2, "padding": 2}, {"groups": 2}, {"bias": False}])
def test_conv2d(kwargs):
    kw = {"kernel_size": 3, **kwargs}
    check_module(lambda nn: nn.Conv2d(2, 4, **kw), (2, 2, 7, 6))


def test_conv2d_unbatched_and_errors():
    check_module(lambda nn: nn.Conv2d(2, 3, 3), (2, 5, 5))
    check_module(lambda nn: nn.Conv2d(2, 3, 3), (1, 3, 5, 5))


@pytest.mark.parametrize("kwargs", [{"kernel_size": 2}, {"kernel_size": 3, "stride": 2, "padding": 1},
                                    {"kernel_size": 3, "stride": 2, "ceil_mode": True}, {"kernel_size": 2, "dilation": 2},
                                    {"kernel_size": (2, 3), "stride": 1}])
def test_max_pool2d(kwargs):
    check_module(lambda nn: nn.MaxPool2d(**kwargs), (2, 3, 7, 6))


def test_max_pool2d_ties_unbatched_and_indices():
    check_module(lambda nn: nn.MaxPool2d(2), In((1, 4, 4), values=[[[1.0, 1.0, 2.0, 2.0], [1.0, 0.0, 2.0, 2.0],
                                                                  [0.0, 3.0, 3.0, 0.0], [3.0, 3.0, 0.0, 3.0]]]))
    check_op(lambda t, x: t.nn.functional.max_pool2d(x, 2, return_indices=True), (1, 2, 4, 4))


@pytest.mark.parametrize("kwargs", [{"kernel_size": 2}, {"kernel_size": 3, "stride": 2, "padding": 1},
                                    {"kernel_size": 3, "padding": 1, "count_include_pad": False},
                                    {"kernel_size": 3, "stride": 2, "ceil_mode": True},
                                    {"kernel_size": 2, "divisor_override": 3}])
def test_avg_pool2d(kwargs):
    check_module(lambda nn: nn.AvgPool2d(**kwargs), (2, 3, 7, 6))


@pytest.mark.parametrize("kwargs", [{}, {"affine": False}, {"momentum": None}, {"track_running_stats": False},
                                    {"eps": 0.1, "momentum": 0.3}])
@pytest.mark.parametrize("dims", ["1d", "1d-3", "2d"])
def test_batch_norm_train_updates_running_stats(kwargs, dims):
    shape = {"1d": (5, 3), "1d-3": (4, 3, 2), "2d": (2, 3, 2, 2)}[dims]
    name = "BatchNorm2d" if dims == "2d" else "BatchNorm1d"

    def call(m, x):
        m(x * 2)            # a first batch moves the running statistics
        return m(x)
    check_module(lambda nn: getattr(nn, name)(3, **kwargs), shape, call=call)


def test_batch_norm_eval_uses_running_stats():
    def call(m, x):
        m(x * 3 + 1)        # training: the running statistics move (to within float32 rounding of torch's)
        return m.eval()(x)
    check_module(lambda nn: nn.BatchNorm1d(3), (5, 3), call=call)
    check_module(lambda nn: nn.BatchNorm1d(3), (1, 3))
    check_module(lambda nn: nn.BatchNorm2d(3), (2, 3, 4))


@pytest.mark.parametrize("shape1,shape2", [((5, 3), (5, 2)), ((2, 4, 3), (2, 4, 2)), ((3,), (2,))])
def test_bilinear(shape1, shape2):
    check_module(lambda nn: nn.Bilinear(3, 2, 4), shape1, shape2)
    check_module(lambda nn: nn.Bilinear(3, 2, 4, bias=False), shape1, In(shape2, rg=False))


def test_small_convnet_end_to_end():
    def build(nn):
        return nn.Sequential(nn.Conv2d(1, 4, 3, padding=1), nn.BatchNorm2d(4), nn.ReLU(), nn.MaxPool2d(2),
                             nn.Conv2d(4, 2, 3), nn.AvgPool2d(2, ceil_mode=True), nn.Flatten(), nn.Linear(2, 3))
    check_module(build, (2, 1, 8, 8))

# ----------------------------------------------------------------------------- nn.init


INITS = [
    ("uniform_", (3, 4), {}), ("uniform_", (3, 4), {"a": -2.0, "b": 0.5}), ("normal_", (5,), {}),
    ("normal_", (2, 3), {"mean": 1.0, "std": 0.1}), ("constant_", (2, 2), {"val": 0.3}), ("zeros_", (3,), {}),
    ("ones_", (2, 3), {}), ("eye_", (3, 4), {}), ("xavier_uniform_", (4, 6), {}),
    ("xavier_uniform_", (4, 3, 2, 2), {"gain": 2.0}), ("xavier_normal_", (5, 3), {}),
    ("kaiming_uniform_", (4, 6), {}), ("kaiming_uniform_", (6, 2, 3), {"a": 0.5, "mode": "fan_out"}),
    ("kaiming_normal_", (4, 6), {"nonlinearity": "relu"}), ("kaiming_normal_", (3, 5), {"mode": "fan_out"}),
    ("xavier_uniform_", (3,), {}), ("kaiming_uniform_", (4, 6), {"mode": "fan_avg"}),
]


@pytest.mark.parametrize("name,shape,kwargs", INITS)
def test_init_functions_draw_torch_values_after_manual_seed(name, shape, kwargs):
    results = []
    for lib in (torch, G):
        lib.manual_seed(7)
        t = lib.empty(*shape)
        try:
            out = getattr(lib.nn.init, name)(t, **kwargs)
            results.append(("ok", out is t, t.tolist(), t.requires_grad))
        except Exception as e:      # noqa: BLE001 (the error text is compared)
            results.append(("error", type(e).__name__, str(e)))
    assert results[0] == results[1]


@pytest.mark.parametrize("shape,gain", [((3, 5), 1), ((5, 3), 2.0), ((4, 2, 3), 1)])
def test_orthogonal_init(shape, gain):
    values = []
    for lib in (torch, G):
        lib.manual_seed(3)
        values.append(lib.nn.init.orthogonal_(lib.empty(*shape), gain=gain).tolist())
    import numpy as np
    # the QR factorisation is LAPACK's in both, but not necessarily the same build's rounding
    assert np.allclose(values[0], values[1], rtol=1e-5, atol=1e-6)


def test_init_on_a_parameter_is_not_recorded_and_gain_values():
    for lib in (torch, G):
        lib.manual_seed(0)
        p = lib.nn.Parameter(lib.empty(2, 2))
        lib.nn.init.normal_(p)
        assert p.grad_fn is None and p.is_leaf and p.requires_grad
    for args in (("linear",), ("conv2d",), ("sigmoid",), ("tanh",), ("relu",), ("leaky_relu",), ("leaky_relu", 0.3),
                 ("selu",)):
        assert torch.nn.init.calculate_gain(*args) == G.nn.init.calculate_gain(*args)


@pytest.mark.parametrize("mode", ["RNN", "LSTM", "GRU"])
@pytest.mark.parametrize("kwargs", [{}, {"num_layers": 2}, {"batch_first": True, "bias": False}])
def test_bidirectional_recurrent_layers(mode, kwargs):
    check_module(lambda nn: getattr(nn, mode)(3, 2, bidirectional=True, **kwargs), (3, 2, 3),
                 call=lambda m, x: _outputs(m(x)))


@pytest.mark.parametrize("mode", ["RNN", "LSTM"])
def test_bidirectional_with_given_hidden_in_double(mode):
    def call(m, x, h, c):
        return _outputs(m(x, (h, c) if mode == "LSTM" else h))
    check_module(lambda nn: getattr(nn, mode)(3, 2, bidirectional=True).double(), In((4, 2, 3), dtype="float64"),
                 In((2, 2, 2), dtype="float64"), In((2, 2, 2), dtype="float64"), call=call)
    check_module(lambda nn: getattr(nn, mode)(3, 2, bidirectional=True), (4, 2, 3), (2, 2, 2), (2, 2, 2), call=call)

# ----------------------------------------------------------------------------- mixed dtypes and their errors


@pytest.mark.parametrize("k", range(12))
def test_dtype_mismatches_raise_or_promote_like_torch(k):
    build, specs = [
        (lambda nn: nn.Linear(3, 2), (In((4, 3), dtype="float64"),)),
        (lambda nn: nn.Linear(3, 2), (In((3,), dtype="float64"),)),
        (lambda nn: nn.CrossEntropyLoss(), ((4, 3), In((4,), rg=False))),
        (lambda nn: nn.CrossEntropyLoss(), ((4, 3), In((4, 3), ints=True, low=0, high=2))),
        (lambda nn: nn.MSELoss(), ((4, 3), In((4, 3), ints=True, low=0, high=2))),
        (lambda nn: nn.SmoothL1Loss(), ((4, 3), In((4, 3), ints=True, low=0, high=2))),
        (lambda nn: nn.L1Loss(), ((4, 3), In((4, 3), ints=True, low=0, high=2))),
        (lambda nn: nn.Conv2d(1, 2, 3), (In((1, 1, 5, 5), dtype="float64"),)),
        (lambda nn: nn.Conv2d(1, 2, 3, bias=False), (In((1, 1, 5, 5), dtype="float64"),)),
        (lambda nn: nn.Embedding(4, 2), (In((3,), values=[1, 2, -1]),)),
        (lambda nn: nn.BCELoss(), (In((3,), low=0.1, high=0.9), In((3,), ints=True, low=0, high=2))),
        (lambda nn: nn.BCEWithLogitsLoss(), ((3,), In((3,), ints=True, low=0, high=2))),
    ][k]
    check_module(build, *specs, weighted=False)


@pytest.mark.parametrize("name,args", [("leaky_relu", (2,)), ("elu", (2,)), ("gelu", (2,)), ("softplus", (2,)),
                                       ("linear", (2, "W")), ("linear", ("W", 3)), ("dropout", (2,)),
                                       ("embedding", (2, "W"))])
def test_functional_rejects_a_number_for_a_tensor_like_torch(name, args):
    errors = []
    for lib in (torch, G):
        real = [lib.ones(2, 2) if a == "W" else a for a in args]
        with pytest.raises(TypeError) as info:
            getattr(lib.nn.functional, name)(*real)
        errors.append(str(info.value))
    assert errors[0] == errors[1]
