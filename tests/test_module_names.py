"""Explanations know modules: a node made inside a module's forward names the module by its path,
and parameters are named as named_parameters() names them, in events, JSON and explanations."""
from __future__ import annotations

import textwrap

from gradcli.session import executor
from gradcli.views import json_view

NET = textwrap.dedent("""\
    import torch
    import torch.nn as nn
    torch.manual_seed(0)
    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc1 = nn.Linear(3, 4)
            self.fc2 = nn.Linear(4, 1)
        def forward(self, x):
            h = torch.tanh(self.fc1(x))
            return self.fc2(h)
    net = Net()
    loss = net(torch.ones(2, 3)).sum()
    loss.backward()
    loss.backward()
    """)


def test_nodes_name_the_module_that_made_them_and_parameters_their_path():
    r = executor.run_source(NET, "net.py")
    first = json_view.call_json(r.events[0])
    assert first["updated"] == ["net.fc2.bias", "net.fc2.weight", "net.fc1.bias", "net.fc1.weight"]
    made = {(n.grad_fn, n.line): n for n in r.events[0].executed}
    assert made[("AddmmBackward0", 11)].module == "net.fc2 (Linear)"
    assert made[("AddmmBackward0", 10)].module == "net.fc1 (Linear)"
    assert made[("TanhBackward0", 10)].module == "net (Net)" and made[("TanhBackward0", 10)].function == "Net.forward"
    assert made[("SumBackward0", 13)].module is None
    freed = {n["grad_fn"]: n for n in first["freed"]}
    assert freed["TanhBackward0"]["module"] == "net (Net)"


def test_the_explanation_names_the_module():
    r = executor.run_source(NET, "net.py")
    assert r.error.line == 15
    assert "made by `return self.fc2(h)` in net.fc2 (Linear) on line 11" in r.error.why


def test_the_class_of_a_tensor_and_a_parameter_prints_as_pytorchs():
    from oracle import assert_same
    assert_same("""
import torch
import torch.nn as nn
x = torch.ones(2, requires_grad=True)
p = nn.Parameter(torch.zeros(1))
print(type(x), type(p), type(x * 2), type(p * 2), torch.Tensor, nn.Parameter)
print(isinstance(p, torch.Tensor), type(p).__name__, type(x).__module__)
""")
