"""A grad_fn's attributes against PyTorch: `_saved_<slot>` and `_raw_saved_<slot>` of saved
tensors and attributes, the unsigned reading of negative int64 attributes, and the
AttributeError (type and text) for a name the node does not have."""
from __future__ import annotations

import pytest
import torch

from gradcli import torch as gt


def _graph(lib):
    """One node of each kind: saved inputs, a saved output, int64 attributes (a negative dim,
    no padding_idx), a node that saves nothing, and a leaf's AccumulateGrad."""
    x = lib.tensor([[1.0, -2.0], [3.0, 0.5]], requires_grad=True)
    w = lib.tensor([[0.5, 1.0], [2.0, -1.0], [1.5, 0.0]], requires_grad=True)
    emb = lib.nn.functional.embedding(lib.tensor([0, 2]), w)      # padding_idx -1: none
    out = (x * x).tanh().unsqueeze(-1).sum() + emb.sum()
    return {
        "mul": (x * x).grad_fn,
        "tanh": x.tanh().grad_fn,
        "unsqueeze": x.unsqueeze(-1).grad_fn,
        "embedding": emb.grad_fn,
        "add": out.grad_fn,
        "accumulate": (x * 2).grad_fn.next_functions[0][0],
    }


def _read(node, name):
    """What reading the attribute gives: its value, or the error's type name and text."""
    try:
        value = getattr(node, name)
    except AttributeError as e:
        return ("raises", type(e).__name__, str(e))
    if isinstance(value, (torch.Tensor, gt.Tensor)):
        return ("tensor", value.tolist())
    if repr(value).startswith("<torch._C._autograd.SavedTensor object at "):
        return ("SavedTensor",)
    return ("value", value)


CASES = [
    ("mul", "_saved_self"), ("mul", "_saved_other"), ("mul", "_raw_saved_self"),
    ("tanh", "_saved_result"), ("tanh", "_raw_saved_result"),
    ("unsqueeze", "_saved_dim"),
    ("embedding", "_saved_padding_idx"), ("embedding", "_saved_indices"),
    ("mul", "_saved_nothing"), ("mul", "_raw_saved_nothing"), ("mul", "nothing"),
    ("tanh", "_saved_self"), ("add", "_saved_alpha"), ("add", "_saved_self"),
    ("accumulate", "_saved_variable"), ("accumulate", "nothing"),
]


@pytest.mark.parametrize("kind,name", CASES)
def test_node_attribute_reads_as_in_pytorch(kind, name):
    assert _read(_graph(gt)[kind], name) == _read(_graph(torch)[kind], name)


def test_hasattr_sees_the_saved_attributes_pytorch_has():
    for kind in ("mul", "tanh", "unsqueeze", "embedding"):
        ours, theirs = _graph(gt)[kind], _graph(torch)[kind]
        names = sorted(n for n in dir(theirs) if n.startswith(("_saved_", "_raw_saved_")))
        assert [hasattr(ours, n) for n in names] == [True] * len(names), kind
