"""torch.autograd.functional (vjp, jvp, jacobian, hessian, vhp, hvp) and torch.autograd.backward
against PyTorch: values, which results carry a graph, and the errors of strict mode and of
wrong arguments."""
import pytest
import torch

import gradcli.torch as G
from snippet_oracle import run

pytestmark = pytest.mark.timeout(60)

_SETUP = """
F = torch.autograd.functional
def show(label, value):
    if isinstance(value, tuple):
        print(label, "(")
        for v in value:
            show("  ", v)
        print(")")
    else:
        print(label, value, value.requires_grad, type(value.grad_fn).__name__ if value.grad_fn is not None else None)
def attempt(label, f):
    try:
        show(label, f())
    except Exception as e:
        print(label, type(e).__name__, e)
x = torch.tensor([0.5, -1.0, 2.0], requires_grad=True)
y = torch.tensor([[1.0, 2.0], [3.0, -0.5]])
def poly(a):
    return (a * a * a + 2 * a).sum()
def vec(a):
    return a * a * 3 + a
def pair(a, b):
    return (a * a).sum() * b.sum(), b * a.sum()
def linear(a):
    return a * 2
def const(a):
    return torch.ones(2)
"""

SNIPPETS = {
    "vjp and jvp": """
        for cg in (False, True):
            attempt("vjp", lambda: F.vjp(poly, x, create_graph=cg))
            attempt("vjp v", lambda: F.vjp(vec, x, torch.tensor([1.0, 0.5, -2.0]), create_graph=cg))
            attempt("vjp pair", lambda: F.vjp(pair, (x, y), (torch.tensor(1.5), torch.ones(2, 2)), create_graph=cg))
            attempt("jvp", lambda: F.jvp(vec, x, torch.tensor([1.0, 0.5, -2.0]), create_graph=cg))
            attempt("jvp pair", lambda: F.jvp(pair, (x, y), (torch.ones(3), torch.ones(2, 2)), create_graph=cg))
    """,
    "jacobian and hessian": """
        for cg in (False, True):
            attempt("jac", lambda: F.jacobian(vec, x, create_graph=cg))
            attempt("jac pair", lambda: F.jacobian(pair, (x, y), create_graph=cg))
            attempt("jac vectorize", lambda: F.jacobian(vec, x, vectorize=True))
            attempt("hess", lambda: F.hessian(poly, x, create_graph=cg))
            attempt("hess pair", lambda: F.hessian(lambda a, b: (a.sum() * b * b).sum(), (x, y), create_graph=cg))
        attempt("jac const", lambda: F.jacobian(const, x))
        attempt("jac 0-d", lambda: F.jacobian(lambda a: a.sum() ** 2, x))
    """,
    "vhp and hvp": """
        v = torch.tensor([1.0, -1.0, 0.5])
        for cg in (False, True):
            attempt("vhp", lambda: F.vhp(poly, x, v, create_graph=cg))
            attempt("hvp", lambda: F.hvp(poly, x, v, create_graph=cg))
            attempt("hvp pair", lambda: F.hvp(lambda a, b: (a * a).sum() * (b * b).sum(), (x, y), (v, y), create_graph=cg))
        attempt("vhp scalar", lambda: F.vhp(lambda a: a ** 4, torch.tensor(1.5)))
    """,
    "strict mode": """
        attempt("vjp const", lambda: F.vjp(const, x, torch.ones(2), strict=True))
        attempt("vjp independent", lambda: F.vjp(lambda a, b: a * 2, (x, y[0]), torch.ones(3), strict=True))
        attempt("vjp independent lax", lambda: F.vjp(lambda a, b: a * 2, (x, y[0]), torch.ones(3)))
        attempt("jvp linear", lambda: F.jvp(linear, x, torch.ones(3), strict=True))
        attempt("jvp linear cg", lambda: F.jvp(linear, x, torch.ones(3), strict=True, create_graph=True))
        attempt("jac strict", lambda: F.jacobian(lambda a, b: a * 2, (x, y[0]), strict=True))
        attempt("jac strict cg", lambda: F.jacobian(linear, x, strict=True, create_graph=True))
        attempt("jac strict vec", lambda: F.jacobian(vec, x, strict=True, vectorize=True))
        attempt("hess linear", lambda: F.hessian(lambda a: (a * 2).sum(), x, strict=True))
        attempt("hess linear lax", lambda: F.hessian(lambda a: (a * 2).sum(), x))
        attempt("vhp linear", lambda: F.vhp(lambda a: (a * 2).sum(), x, torch.ones(3), strict=True))
        attempt("hvp linear", lambda: F.hvp(lambda a: (a * 2).sum(), x, torch.ones(3), strict=True))
    """,
    "argument errors": """
        attempt("vjp no v", lambda: F.vjp(vec, x))
        attempt("vjp bad v", lambda: F.vjp(vec, x, torch.ones(2)))
        attempt("vjp v tuple", lambda: F.vjp(pair, (x, y), (torch.ones(()),)))
        attempt("vjp v entry", lambda: F.vjp(pair, (x, y), (torch.ones(()), torch.ones(3))))
        attempt("vjp list", lambda: F.vjp(vec, [x]))
        attempt("vjp not tensor", lambda: F.vjp(vec, 3.0))
        attempt("vjp tuple with int", lambda: F.vjp(pair, (x, 2)))
        attempt("vjp output", lambda: F.vjp(lambda a: 3, x))
        attempt("jvp no v", lambda: F.jvp(vec, x))
        attempt("hess two outputs", lambda: F.hessian(lambda a: (a.sum(), a.sum()), x))
        attempt("hess vector", lambda: F.hessian(vec, x))
        attempt("hvp vector", lambda: F.hvp(vec, x, torch.ones(3)))
        attempt("vhp tuple", lambda: F.vhp(lambda a: (a.sum(),), x, torch.ones(3)))
        attempt("jac strategy", lambda: F.jacobian(vec, x, strategy="sideways"))
    """,
    "inputs keep their graph only with create_graph": """
        w = x * 2
        out, g = F.vjp(poly, w, create_graph=True)
        show("through", g)
        g.sum().backward()
        print(x.grad)
        out, g = F.vjp(poly, w)
        show("cut", g)
        with torch.no_grad():
            attempt("no_grad vjp", lambda: F.vjp(poly, x))
            attempt("no_grad jvp cg", lambda: F.jvp(vec, x, torch.ones(3), create_graph=True))
    """,
    "autograd.backward as a function": """
        a = torch.tensor([1.0, 2.0], requires_grad=True)
        b = torch.tensor([3.0], requires_grad=True)
        torch.autograd.backward([(a * a).sum(), (a * b).sum()])
        print(a.grad, b.grad)
        torch.autograd.backward(a * 3, grad_tensors=torch.tensor([1.0, -1.0]))
        print(a.grad)
        torch.autograd.backward([a * b], [torch.ones(2)], inputs=[b])
        print(a.grad, b.grad)
    """,
}


@pytest.mark.parametrize("name", list(SNIPPETS))
def test_functional_transforms_behave_as_in_torch(name):
    code = _SETUP + SNIPPETS[name].replace("\n        ", "\n")
    assert run(G, code) == run(torch, code)
