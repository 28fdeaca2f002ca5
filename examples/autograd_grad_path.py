# torch.autograd.grad runs, and frees, only the nodes on the path to its inputs:
# the branch that leads only to z keeps its saved tensors.
import torch

x = torch.tensor([0.5, 1.0], requires_grad=True)
z = torch.tensor([2.0, 3.0], requires_grad=True)
a = x.sin()
b = z.cos()
L = (a * 3).sum() + b.sum()
gx, = torch.autograd.grad(L, x)
print(gx)
print(b.grad_fn._saved_self)
gz, = torch.autograd.grad(L, z)
print(gz)
