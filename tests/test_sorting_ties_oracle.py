"""Sorting and selection on rows full of ties, against real PyTorch: the indices of tied values
are whatever PyTorch's CPU kernels (libstdc++'s sort, partial_sort and nth_element, and its
quickselect) leave, so gradcli must run the same algorithms to print the same indices."""
from __future__ import annotations

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

import gradcli.torch as G

DTYPES = ["float32", "float64", "int64", "int32", "bool"]


@st.composite
def tied_rows(draw):
    rows = draw(st.integers(1, 3))
    n = draw(st.sampled_from([1, 2, 5, 16, 17, 33, 64, 65, 130, 400]))
    distinct = draw(st.sampled_from([1, 2, 3, 7, 1000]))
    dtype = draw(st.sampled_from(DTYPES))
    seed = draw(st.integers(0, 2 ** 32 - 1))
    rng = np.random.default_rng(seed)
    a = rng.integers(0, distinct, (rows, n)).astype(dtype)
    if dtype.startswith("float") and draw(st.booleans()):
        a[rng.random(a.shape) < 0.1] = np.nan
    k = draw(st.integers(1, n))
    return a, k


CALLS = {
    "sort": lambda x, k: x.sort(),
    "sort descending": lambda x, k: x.sort(descending=True),
    "sort stable descending": lambda x, k: x.sort(stable=True, descending=True),
    "argsort dim 0": lambda x, k: (x.argsort(dim=0),),
    "topk": lambda x, k: x.topk(k),
    "topk smallest": lambda x, k: x.topk(k, largest=False),
    "topk unsorted": lambda x, k: x.topk(k, sorted=False),
    "kthvalue": lambda x, k: x.kthvalue(k),
    "cummax": lambda x, k: x.cummax(1),
    "cummin": lambda x, k: x.cummin(1),
}


def _outcome(lib, call, a, k):
    try:
        return [np.asarray(r.tolist()) for r in call(lib.tensor(a), k)]
    except Exception as e:                   # noqa: BLE001  (the error is the outcome)
        return f"{getattr(e, 'pytype', None) or type(e).__name__}: {e}"


@pytest.mark.parametrize("name", sorted(CALLS))
@settings(max_examples=40, deadline=None, database=None)
@given(case=tied_rows())
def test_tied_rows_as_pytorch(name, case):
    a, k = case
    want, got = _outcome(torch, CALLS[name], a, k), _outcome(G, CALLS[name], a, k)
    if isinstance(want, str) or isinstance(got, str):
        assert got == want
        return
    assert len(got) == len(want)
    for w, g in zip(want, got):
        assert w.shape == g.shape and np.array_equal(w, g, equal_nan=w.dtype.kind == "f"), (name, a.tolist(), k)
