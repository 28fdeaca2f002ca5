"""New torch.nn modules checked against real PyTorch (tests/nn_oracle.py): default init after
manual_seed, forward values, grad_fn chain, gradients, print(model)."""
import pytest

import oracle
from nn_oracle import check_module

pytestmark = pytest.mark.timeout(120)


@pytest.mark.parametrize("build,shape", [
    (lambda nn: nn.Dropout1d(), (2, 3, 4)),
    (lambda nn: nn.Dropout1d(0.3), (3, 4)),
    (lambda nn: nn.Dropout2d(), (2, 3, 4, 5)),
    (lambda nn: nn.Dropout2d(p=0.2), (2, 3, 4)),
    (lambda nn: nn.Sequential(nn.Conv2d(2, 3, 2), nn.Dropout2d(0.4, inplace=True)), (2, 2, 4, 4)),
    (lambda nn: nn.Sequential(nn.Conv1d(2, 3, 2), nn.Dropout1d(0.5, inplace=True)), (2, 2, 5)),
    (lambda nn: nn.Sequential(nn.Linear(4, 4), nn.Dropout2d(1.0)), (2, 3, 4)),
])
def test_channel_dropout_modules(build, shape):
    check_module(build, shape)


def test_channel_dropout_errors_warnings_and_eval_mode():
    oracle.assert_same("""
import torch, torch.nn as nn, torch.nn.functional as F
torch.manual_seed(0)
x = torch.ones(2, 3, 4, 4)
print(F.dropout2d(x, 0.5)[:, :, 0, 0])
print(F.dropout2d(torch.ones(2, 3), 0.5))
print(F.dropout2d(torch.ones(2, 3, 4), 0.5)[:, :, 0])
print(F.dropout1d(torch.ones(3, 4), 0.5))
d = nn.Dropout2d()
d.eval()
print(d(x) is x, d, nn.Dropout1d(0.2, inplace=True))
try:
    F.dropout1d(torch.ones(2, 3, 4, 5))
except RuntimeError as e:
    print(e)
try:
    nn.Dropout2d(1.5)
except ValueError as e:
    print(e)
try:
    F.dropout2d(x, -0.1)
except ValueError as e:
    print(e)
""")


def test_parameter_list_and_dict_in_a_model():
    oracle.assert_same("""
import torch, torch.nn as nn
torch.manual_seed(0)
class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.ws = nn.ParameterList([nn.Parameter(torch.randn(3, 3)) for _ in range(2)])
        self.ws.append(torch.randn(3))
        self.pd = nn.ParameterDict({'b': nn.Parameter(torch.zeros(3)), 'a': torch.ones(3, dtype=torch.float64)})
        self.pd['c'] = nn.Parameter(torch.ones(1))
    def forward(self, x):
        for w in self.ws[:2]:
            x = torch.tanh(x @ w)
        return (x * self.ws[-1] + self.pd['b']).sum() + self.pd['a'].float().sum() * self.pd.get('c').sum()
net = Net()
print(net)
print([n for n, _ in net.named_parameters()], len(net.ws), len(net.pd), list(net.pd.keys()), 'a' in net.pd)
loss = net(torch.randn(2, 3))
grads = torch.autograd.grad(loss, list(net.parameters()))    # (the oracle names only global leaves)
print(loss, grads)
print(nn.ParameterList(), nn.ParameterDict())
try:
    net.ws(torch.ones(1))
except RuntimeError as e:
    print(e)
try:
    net.ws[5]
except IndexError as e:
    print(e)
try:
    net.pd[1]
except TypeError as e:
    print(e)
print(net.pd.pop('c').shape, list(net.pd), dict(net.state_dict()).keys())
""")
