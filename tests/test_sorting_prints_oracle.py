"""What a script prints for the sorting, selection and index ops, against real PyTorch: the
named tuples (torch.return_types.sort(values=..., indices=...)), plain tuples, and their fields."""
from __future__ import annotations

import re

import pytest
import torch

import gradcli.torch as G

SETUP = ("x = torch.tensor([[3.0, 1.0, 2.0, 1.0], [0.5, -1.0, 4.0, 4.0]], requires_grad=True)\n"
         "i = torch.tensor([[1, 3, 2, 0], [0, 0, 1, 2]])\n")

EXPRESSIONS = [
    "torch.sort(x)", "x.sort(dim=0, descending=True)", "torch.sort(x, stable=True).indices", "x.topk(2)",
    "torch.topk(x, 1, dim=0, largest=False)", "x.topk(2).values", "x.kthvalue(2)", "torch.kthvalue(x, 1, 0, True)",
    "x.cummax(1)", "torch.cummin(x, 0)", "x.max(1)", "x.min(0, keepdim=True)", "torch.argsort(x, descending=True)",
    "x.msort()", "torch.nonzero(x > 1, as_tuple=True)", "x.argwhere()", "torch.unique(i)",
    "torch.unique(i, return_inverse=True, return_counts=True)", "i.unique_consecutive(return_counts=True)",
    "torch.gather(x, 1, i)", "x.scatter(1, i, 0.5)", "x.index_select(0, torch.tensor([1, 1]))",
    "torch.bincount(i.flatten())", "torch.searchsorted(torch.tensor([0, 1, 2]), i)",
    "[r.shape for r in x.sort()]", "x.topk(2)[1]", "len(x.sort())", "tuple(x.kthvalue(1))",
]


def _run(lib, expr):
    env = {"torch": lib}
    exec(SETUP, env)
    try:
        out = eval(expr, env)
    except Exception as e:                   # noqa: BLE001  (compared as the script would see it)
        return f"{getattr(e, 'pytype', None) or type(e).__name__}: {e}"
    return re.sub(r" at 0x[0-9a-f]+", "", repr(out)) + "\n" + re.sub(r" at 0x[0-9a-f]+", "", str(out))


@pytest.mark.parametrize("expr", EXPRESSIONS)
def test_prints_as_pytorch(expr):
    assert _run(G, expr) == _run(torch, expr)


def test_gather_sparse_grad_is_refused_rather_than_densified():
    """PyTorch's gradient for gather(sparse_grad=True) is a sparse COO tensor, which gradcli has
    not: it says so instead of printing a dense gradient; without grad the values are torch's."""
    x = G.tensor([1.0, 2.0, 3.0], requires_grad=True)
    with pytest.raises(NotImplementedError, match="sparse_grad=True"):
        G.gather(x, 0, G.tensor([2, 0]), sparse_grad=True)
    got = G.gather(x.detach(), 0, G.tensor([2, 0]), sparse_grad=True)
    assert got.tolist() == torch.gather(torch.tensor([1.0, 2.0, 3.0]), 0, torch.tensor([2, 0]), sparse_grad=True).tolist()
