"""The legacy and device API old PyTorch answers use, against PyTorch: Variable, the typed
tensor classes, torch.Tensor(...), Tensor.new_* / new / type / to / cpu / cuda, torch.device,
torch.cuda and the version string."""
import pytest
import torch

import gradcli.torch as G
import oracle
from snippet_oracle import run

pytestmark = pytest.mark.timeout(60)

SNIPPETS = {
    "Variable is a tensor": """
        Variable = torch.autograd.Variable
        t = torch.tensor([1., 2.])
        v = Variable(t, requires_grad=True)
        print(v, v is t, type(v).__name__, v._version, isinstance(t, Variable), isinstance(3, Variable), Variable)
        t.add_(1)
        print(v, v._version)
        print(Variable(t, volatile=True), Variable(t, volatile=False), Variable(torch.tensor([1, 2])))
        print(Variable(v).requires_grad, Variable(v) is v, Variable(v).grad_fn, Variable())
        (v * v).sum().backward()
        print(v.grad)
        for bad in ([1., 2.], 3.0):
            try:
                Variable(bad)
            except Exception as e:
                print(type(e).__name__, e)
        try:
            Variable(torch.tensor([1, 2]), requires_grad=True)
        except Exception as e:
            print(type(e).__name__, e)
    """,
    "typed tensor classes": """
        print(torch.FloatTensor, torch.LongTensor, torch.BoolTensor, torch.DoubleTensor, torch.IntTensor)
        print(torch.FloatTensor(2, 3).shape, torch.FloatTensor([1, 2]), torch.LongTensor([1.7, 2]),
              torch.IntTensor(2).dtype, torch.BoolTensor([1, 0]), torch.DoubleTensor([[1]]), torch.LongTensor(0))
        print(torch.FloatTensor(torch.Size([2, 1])).shape, torch.ByteTensor([1, 2]), torch.HalfTensor([1.5]))
        t = torch.tensor([1., 2.])
        a = torch.FloatTensor(t)
        a.add_(1)
        print(t, a, t._version, isinstance(t, torch.FloatTensor), isinstance(t, torch.LongTensor))
        for src in ("torch.FloatTensor(torch.tensor([1, 2]))", "torch.FloatTensor(2.5)",
                    "torch.FloatTensor([1, 2], requires_grad=True)", "torch.LongTensor('ab')"):
            try:
                print(eval(src))
            except Exception as e:
                print(src, type(e).__name__, e)
    """,
    "new_* and new": """
        x = torch.tensor([1., 2.])
        i = torch.tensor([1, 2])
        print(x.new_tensor([1, 2]), x.new_zeros(2, 3), x.new_ones((2,)), x.new_full((2,), 3), x.new_empty(0))
        print(x.new(2).shape, x.new([1, 2]), x.new(), x.new_zeros(2, requires_grad=True), x.new_tensor(x))
        print(x.new_tensor([1, 2], dtype=torch.int32), x.new_full((1,), True), x.new_ones(2, dtype=torch.int64))
        print(i.new_tensor([1.5]), i.new_zeros(2), i.new([1.5]), i.new_ones([1, 2]))
        w = torch.tensor([1., 2.], requires_grad=True)
        c = w.new_tensor(w * 2)
        print(c, c.requires_grad, c.grad_fn)
    """,
    "type()": """
        x = torch.tensor([1., 2.], requires_grad=True)
        print(x.type(), torch.tensor([1]).type(), torch.tensor([True]).type(), torch.tensor([1.], dtype=torch.float64).type())
        print(x.type(torch.int64), x.type('torch.DoubleTensor'), x.type(torch.DoubleTensor), x.type(torch.float32) is x)
        print(torch.tensor([1, 2]).type(torch.FloatTensor), x.type(dtype=torch.float16))
        for bad in ("'torch.cuda.FloatTensor'", "'float'"):
            try:
                x.type(eval(bad))
            except Exception as e:
                print(type(e).__name__, e)
    """,
    "devices": """
        x = torch.tensor([1., 2.])
        print(torch.device('cpu'), torch.device('cuda:0'), repr(torch.device('cuda', 1)), torch.device('cpu', 0))
        print(torch.device('cpu') == 'cpu', x.device, repr(x.device), x.device == torch.device('cpu'))
        print(torch.device('cpu').type, torch.device('cpu').index, torch.device(type='cpu'), str(torch.device('cpu')))
        print(x.is_cuda, x.get_device(), x.to('cpu') is x, x.to(torch.device('cpu')) is x, x.cpu() is x)
        print(x.to('cpu', torch.float64), x.to(torch.int32), x.to(torch.tensor([1])), x.to(x) is x)
        print(torch.cuda.is_available(), torch.cuda.device_count(), torch.cuda.manual_seed(1), torch.cuda.manual_seed_all(1))
        dev = torch.device("cuda" if torch.cuda.is_available() else "cpu")
        print(x.to(dev), dev)
        for src in ("x.cuda()", "x.to('cuda')", "x.to(torch.device('cuda:0'))", "torch.cuda.current_device()",
                    "torch.device('gpu')", "torch.device('cpu:x')", "torch.device('cuda:')", "torch.device('cuda:2')",
                    "torch.cuda.synchronize()", "torch.zeros(2, device='cuda')", "torch.tensor([1.], device='cuda:0')",
                    "torch.ones_like(x, device=torch.device('cuda'))", "torch.ones(2, device=torch.device('cpu'))",
                    "torch.arange(3, device='cpu')", "torch.eye(2, device=dev)"):
            try:
                print(eval(src))
            except Exception as e:
                print(src, type(e).__name__, e)
    """,
    "version": """
        print(torch.__version__, torch.__version__ >= "1.10", torch.__version__ < "2.2", torch.__version__ == "2.13.0+cpu")
        print(torch.__version__ > (2, 0), torch.__version__.split("+")[0], str(torch.__version__))
        print(torch.__version__ == "2.13", torch.__version__ < "2.13.1", torch.__version__ > "2.13.0",
              torch.__version__ >= (2, 14), torch.__version__ != "2.13.0+cpu", "2.13" in torch.__version__)
    """,
}


@pytest.mark.parametrize("name", list(SNIPPETS))
def test_legacy_api_prints_what_torch_prints(name):
    assert run(G, SNIPPETS[name]) == run(torch, SNIPPETS[name])


def test_gradcli_version_is_its_own():
    import gradcli
    assert gradcli.__version__ != G.__version__ == "2.13.0+cpu"


def test_legacy_constructors_in_a_script():
    # torch.Tensor is the tensor class itself in the Python module; a script calls it
    oracle.assert_same("""
import torch
print(torch.Tensor(2, 3).shape, torch.Tensor([1, 2]), torch.Tensor([[1, 2]]).dtype, torch.Tensor((1, 2)))
print(torch.Tensor(0), torch.Tensor(torch.Size([3])).shape, torch.Tensor())
x = torch.tensor([1., 2.])
y = torch.Tensor(x)
y.mul_(3)
print(x, y, x._version)
i = torch.tensor([1, 2])
z = torch.Tensor(i)
print(z, z.dtype)
print(x.new_zeros(2, 3), x.type(), x.new_tensor([1, 2]), torch.FloatTensor([1, 2]), x.type(torch.LongTensor))
v = torch.autograd.Variable(x, requires_grad=True)
w = (v * v).sum()
w.backward()
print(v, v.grad, x.device, x.cpu() is x)
try:
    x.cuda()
except AssertionError as e:
    print(e)
""")
