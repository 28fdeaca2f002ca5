"""Random small models against real PyTorch: a Sequential of random layers and activations over
random sizes, built after manual_seed (so default initialisation is compared too), a random
loss, and one or two backward calls (the second with or without retain_graph on the first),
all compared by tests/nn_oracle.check_module."""
from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from nn_oracle import check_module
from op_oracle import In

pytestmark = pytest.mark.timeout(600)

# (name, whether it keeps the feature count, a builder taking (nn, features in, draw of its options))
ACTIVATIONS = [
    ("ReLU", lambda nn, o: nn.ReLU(inplace=o["inplace"])),
    ("LeakyReLU", lambda nn, o: nn.LeakyReLU(o["slope"], inplace=o["inplace"])),
    ("ELU", lambda nn, o: nn.ELU(alpha=o["alpha"], inplace=o["inplace"])),
    ("GELU", lambda nn, o: nn.GELU(approximate=o["approximate"])),
    ("Tanh", lambda nn, o: nn.Tanh()),
    ("Sigmoid", lambda nn, o: nn.Sigmoid()),
    ("Softplus", lambda nn, o: nn.Softplus(beta=o["beta"])),
    ("Identity", lambda nn, o: nn.Identity()),
    ("Dropout", lambda nn, o: nn.Dropout(o["p"])),
    ("Softmax", lambda nn, o: nn.Softmax(dim=1)),
]
NORMS = [
    ("LayerNorm", lambda nn, f: nn.LayerNorm(f)),
    ("BatchNorm1d", lambda nn, f: nn.BatchNorm1d(f)),
]
LOSSES = ["MSELoss", "L1Loss", "SmoothL1Loss", "HuberLoss", "CrossEntropyLoss", "BCEWithLogitsLoss", "NLLLoss"]

options = st.fixed_dictionaries({
    "inplace": st.booleans(), "slope": st.sampled_from([0.01, 0.2]), "alpha": st.sampled_from([1.0, 0.5]),
    "approximate": st.sampled_from(["none", "tanh"]), "beta": st.sampled_from([1.0, 2.0]),
    "p": st.sampled_from([0.0, 0.25, 0.5]),
})


# Normalising divides by the spread of a few values, which can be tiny: it magnifies the
# last-bit differences of float32 matrix products and transcendental functions (PyTorch's BLAS
# fuses multiply-adds, its Sleef kernels round differently) past the oracle's tolerance. Models
# with a norm layer therefore run in float64 (converted after PyTorch's float32 initialisation),
# and norms see at least 4 values.
MIN_NORMALISED = 4


@st.composite
def models(draw):
    features = [draw(st.integers(1, 5))]
    layers = []
    batch = draw(st.integers(2, 5))
    for _ in range(draw(st.integers(1, 4))):
        norm = NORMS[draw(st.integers(0, len(NORMS) - 1))][0] if draw(st.booleans()) else None
        if norm == "BatchNorm1d" and batch < MIN_NORMALISED or norm == "LayerNorm" and features[-1] == 1:
            norm = None             # (a LayerNorm of Linear(1, k)'s output does not depend on its input)
        out = draw(st.integers(MIN_NORMALISED if norm == "LayerNorm" else 1, 6))
        layers.append(("Linear", features[-1], out, draw(st.booleans())))
        features.append(out)
        if norm:
            layers.append((norm, out))
        k = draw(st.integers(0, len(ACTIVATIONS) - 1))
        layers.append((ACTIVATIONS[k][0], draw(options)))
    loss = draw(st.sampled_from(LOSSES))
    backward_calls = draw(st.sampled_from(["once", "twice", "twice-retained"]))
    reduction = draw(st.sampled_from(["mean", "sum", "none"]))
    return layers, features, loss, batch, backward_calls, reduction


def _build(layers, double):
    def build(nn):
        mods = []
        for spec in layers:
            if spec[0] == "Linear":
                mods.append(nn.Linear(spec[1], spec[2], bias=spec[3]))
            elif spec[0] in dict(NORMS):
                mods.append(dict(NORMS)[spec[0]](nn, spec[1]))
            else:
                mods.append(dict(ACTIVATIONS)[spec[0]](nn, spec[1]))
        model = nn.Sequential(*mods)
        return model.double() if double else model
    return build


def _target(loss, batch, features, dtype):
    if loss in ("CrossEntropyLoss", "NLLLoss"):
        return In((batch,), ints=True, low=0, high=features)
    if loss == "BCEWithLogitsLoss":
        return In((batch, features), rg=False, low=0, high=1, dtype=dtype)
    return In((batch, features), rg=False, dtype=dtype)


@settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(models())
def test_random_model_with_loss_and_backward_calls(model):
    layers, features, loss_name, batch, calls, reduction = model

    def call(m, x, target):
        lib_nn = isinstance(m, __import__("torch").nn.Module) and __import__("torch").nn or __import__("gradcli.torch").torch.nn
        loss_fn = getattr(lib_nn, loss_name)(reduction=reduction)
        out = m(x)
        if loss_name == "NLLLoss":
            out = lib_nn.functional.log_softmax(out, 1)
        loss = loss_fn(out, target)
        if calls != "once":
            loss.sum().backward(retain_graph=calls == "twice-retained")
        return loss
    double = any(spec[0] in dict(NORMS) for spec in layers)
    dtype = "float64" if double else "float32"
    check_module(_build(layers, double), In((batch, features[0]), dtype=dtype),
                 _target(loss_name, batch, features[-1], dtype), call=call, weighted=False, desc=repr(model))
