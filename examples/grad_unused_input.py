# autograd.grad asked for the gradient with respect to an input the output never used.
import torch

a = torch.tensor([1.0, 2.0], requires_grad=True)
b = torch.tensor([3.0, 4.0], requires_grad=True)
out = (a * a).sum()
ga, gb = torch.autograd.grad(out, [a, b])
print(ga, gb)
