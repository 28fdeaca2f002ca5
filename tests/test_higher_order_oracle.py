"""Second-order gradients as outputs: the graph PyTorch's double-backward formulas build.

Each case returns d/da of (sum of the first-order gradient) with create_graph=True, so
check_op compares the nodes of the *second*-order graph (names, edges, saved slots,
freeing) and, through second_order, the third-order values.
"""
import pytest

from op_oracle import In, check_op

_SECOND = ("g, = torch.autograd.grad({loss}, a, create_graph=True)\n"
           "out, = torch.autograd.grad(g.sum(), a, create_graph=True)")

CASES = {
    "sigmoid": "a.sigmoid().sum()",
    "tanh": "torch.tanh(a).sum()",
    "tanh weighted": "(torch.tanh(a) * b).sum()",
    "relu of square": "F.relu(a * a).sum()",
    "exp": "a.exp().sum()",
    "sin": "a.sin().sum()",
    "cube": "(a ** 3).sum()",
    "product": "(a * b * a).sum()",
    "quotient": "(b / a).sum()",
    "sqrt": "a.sqrt().sum()",
    "abs": "(a.abs() * a).sum()",
    "power zero": "(a ** 0 * a * a).sum()",
    "clamp": "(a.clamp(0.8, 1.2) * a).sum()",
}


def _fn(loss):
    code = compile(_SECOND.format(loss=loss), f"<second order of {loss}>", "exec")

    def fn(lib, a, b):
        env = {"torch": lib, "F": lib.nn.functional, "a": a, "b": b}
        exec(code, env)
        return env["out"]
    fn.__name__ = loss
    return fn


@pytest.mark.parametrize("name", list(CASES))
def test_second_order_graph_matches_torch(name):
    check_op(_fn(CASES[name]), In((2, 3), low=0.5, high=1.5), In((2, 3), rg=False), second_order=True,
             desc=f"second-order gradient of {CASES[name]}")
