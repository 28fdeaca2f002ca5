"""Training-loop script patterns against real PyTorch (whole scripts through the oracle: prints,
errors, tensors and backward calls): the legacy torch.Tensor(ndarray) constructor, gradient
hooks that change a gradient's size or dtype, custom Function errors, batched autograd.grad,
KeyError texts, torch.backends, grad-mode aliases, the default dtype, pad_sequence, samplers
and checkpoints saved and loaded within a script."""
import pytest

from oracle import assert_same

pytestmark = pytest.mark.timeout(120)


def test_tensor_of_numpy_arrays_is_float32_and_shares_float32_memory():
    assert_same("""
import torch, numpy as np
print(torch.Tensor(np.array([1, 2])).dtype, torch.Tensor(np.array([1.5, 2.5])).dtype)
X = torch.Tensor(np.array([[0.5, 1.0], [2.0, 3.0]]))
print(X, torch.nn.Linear(2, 1)(X).shape)
a = np.ones(3, np.float32)
shared = torch.Tensor(a)
strided = torch.Tensor(a[::2])
longs = np.ones(3, np.int64)
as_long = torch.LongTensor(longs)
a[0] = 5
longs[0] = 7
print(shared, strided, as_long, torch.from_numpy(np.array([1, 2])).dtype)
print(torch.Tensor(np.array(3.5)), torch.Tensor(np.array([True])), torch.Tensor(2, 3).shape, torch.Tensor())
""")


@pytest.mark.parametrize("call", ["torch.Tensor([1, 2], dtype=torch.float64)",
                                  "torch.Tensor([1], requires_grad=True)",
                                  "torch.Tensor(np.array(['a']))"])
def test_tensor_constructor_errors(call):
    assert_same(f"import torch, numpy as np\nt = {call}\n")


HOOKS = ["lambda g: torch.ones(3)", "lambda g: g.double()", "lambda g: g.long()", "lambda g: torch.ones(2, 1)",
         "functools.partial(lambda g, k: g.double(), k=1)", "lambda g: 3", "lambda g: g * 2"]


@pytest.mark.parametrize("hook", HOOKS)
@pytest.mark.parametrize("on", ["x", "y", "a"])
def test_hooks_that_change_a_gradients_size_or_dtype(hook, on):
    # on a leaf, a non-leaf, and one output of a multi-output node
    assert_same(f"""
import functools, torch
x = torch.ones(2, requires_grad=True)
y = x * 2
a, b = y.unbind()
{on}.register_hook({hook})
(a * 3 + b).backward()
print(x.grad)
""")
