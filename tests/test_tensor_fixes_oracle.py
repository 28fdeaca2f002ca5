"""Tensor-API corners a user of PyTorch notices: torch.Size arithmetic, index-assignment errors,
dtypes of mean/clamp/pow, NumPy interoperability, keyword aliases, class names, tensor
attributes, imports next to the script, warnings and print options. Each case is a whole
script run under real PyTorch 2.13 and under gradcli, compared by oracle.assert_same."""
from __future__ import annotations

import textwrap

import pytest

from oracle import assert_same

CASES = {}


def case(cid, src):
    assert cid not in CASES, cid
    CASES[cid] = textwrap.dedent(src).strip("\n") + "\n"


def probes(cid, setup, exprs):
    """One script printing each expression's value, or its error's type and text."""
    assert cid not in CASES, cid
    lines = ["import torch"] + textwrap.dedent(setup).strip("\n").splitlines()
    for e in exprs:
        lines += ["try:", f"    print({e!r}, {e})", "except Exception as e:", f"    print({e!r}, type(e).__name__, e)"]
    CASES[cid] = "\n".join(lines) + "\n"


probes("size-slicing-and-adding-give-a-size", """
x = torch.zeros(2, 3, 4)
s = x.shape
""", [
    "s[1:]", "x.size()[-2:]", "s[::2]", "s[0]", "s + (5,)", "(1,) + s", "s + s", "s * 2", "2 * s", "s + [5]",
    "type(s[1:])", "type(s + (5,))", "type((1,) + s)", "type(2 * s)", "s.count(2)", "s.index(3)", "s == (2, 3, 4)",
    "torch.Size([torch.tensor(2), 3])", "torch.Size([True])", "torch.Size([2.5])", "torch.Size([3, 'a'])",
    "torch.Size([torch.tensor(2.)])", "x.view(s[1:] + (2,)).shape", "x.reshape(x.shape[:1] + (-1,)).shape",
    "type(s)", "type(torch.float32)", "torch.float32.__class__", "x.shape()", "x.dtype()"])


@pytest.mark.parametrize("cid", list(CASES))
def test_tensor_fixes(cid):
    try:
        assert_same(CASES[cid])
    except AssertionError as e:             # no costly traceback: the message has the script and the diff
        pytest.fail(str(e), pytrace=False)
