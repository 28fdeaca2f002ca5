"""Setting requires_grad, against PyTorch 2.13: the attribute and requires_grad_() on leaves,
non-leaves, views and integer tensors, with PyTorch's exact error texts; then the same as
scripts through oracle.assert_same (printed output, the escaping error and its line)."""
from __future__ import annotations

import pytest

import oracle

import torch  # noqa: E402  (the test extra installs it: a missing oracle must fail, not skip)
from gradcli import torch as gtorch  # noqa: E402


def _no_grad_view(t, flag):
    x = t.tensor([1., 2.], requires_grad=True)
    with t.no_grad():
        v = x[:1]
    v.requires_grad = flag
    return v.requires_grad, v.is_leaf


def _leaf(t):
    return t.tensor([1., 2.], requires_grad=True)


CASES = {
    "non-leaf = True": lambda t: setattr(t.sigmoid(_leaf(t)), "requires_grad", True),
    "non-leaf = False": lambda t: setattr(t.sigmoid(_leaf(t)), "requires_grad", False),
    "non-leaf requires_grad_()": lambda t: t.sigmoid(_leaf(t)).requires_grad_().requires_grad,
    "non-leaf requires_grad_(False)": lambda t: t.sigmoid(_leaf(t)).requires_grad_(False),
    "product = True": lambda t: setattr(_leaf(t) * 2, "requires_grad", True),
    "view of a leaf requiring grad = True": lambda t: setattr(_leaf(t)[0], "requires_grad", True),
    "view of a leaf requiring grad = False": lambda t: setattr(_leaf(t)[0], "requires_grad", False),
    "view of a leaf requiring grad requires_grad_()": lambda t: _leaf(t)[:1].requires_grad_().requires_grad,
    "view of a plain tensor = True": lambda t: _set(t.ones(3)[:2], True),
    "view of a plain tensor requires_grad_()": lambda t: t.ones(3).view(3).requires_grad_().is_leaf,
    "no_grad view = True": lambda t: _no_grad_view(t, True),
    "no_grad view = False": lambda t: _no_grad_view(t, False),
    "detached = True": lambda t: _set(_leaf(t).detach(), True),
    "leaf = False": lambda t: _set(_leaf(t), False),
    "integer = True": lambda t: setattr(t.tensor([1]), "requires_grad", True),
    "integer requires_grad_()": lambda t: t.tensor([1]).requires_grad_(),
    "integer = False": lambda t: _set(t.tensor([1]), False),
    "bool requires_grad_()": lambda t: t.tensor([True]).requires_grad_(),
    "argmax (integer) = True": lambda t: setattr(_leaf(t).argmax(), "requires_grad", True),
    "= 1 (not a bool)": lambda t: setattr(t.ones(1), "requires_grad", 1),
    "= None on a non-leaf": lambda t: setattr(t.sigmoid(_leaf(t)), "requires_grad", None),
    "requires_grad_(1)": lambda t: t.ones(1).requires_grad_(1),
    "requires_grad_(None)": lambda t: t.ones(1).requires_grad_(None),
}


def _set(x, flag):
    x.requires_grad = flag
    return x.requires_grad, x.is_leaf


def _outcome(t, case):
    try:
        return "ok", repr(case(t))
    except Exception as e:        # noqa: BLE001 - the outcome, whatever it is, is what is compared
        return type(e).__name__, str(e)


@pytest.mark.parametrize("name", CASES)
def test_requires_grad_changes_like_pytorch(name):
    assert _outcome(gtorch, CASES[name]) == _outcome(torch, CASES[name])


@pytest.mark.parametrize("body", [
    "s = torch.sigmoid(x)\ns.requires_grad = True\n",
    "s = torch.sigmoid(x)\ntry:\n    s.requires_grad = False\nexcept RuntimeError as e:\n    print(e)\n"
    "s.requires_grad_()\nprint(s.requires_grad, s.is_leaf)\n",
    "v = x[1:]\ntry:\n    v.requires_grad = True\nexcept RuntimeError as e:\n    print(e)\n"
    "d = x.detach()\nd.requires_grad = True\nprint(d.requires_grad, d.is_leaf)\n"
    "i = torch.tensor([1, 2])\ni.requires_grad_()\n",
])
def test_requires_grad_in_scripts_like_pytorch(body):
    oracle.assert_same("import torch\nx = torch.tensor([1., 2.], requires_grad=True)\n" + body)
