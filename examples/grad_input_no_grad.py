# autograd.grad with respect to a tensor that was never marked requires_grad.
import torch

t = torch.tensor([0.5, 1.5])
s = torch.tensor([2.0, 1.0], requires_grad=True)
out = (t * s).sum() + (t ** 2).sum()
(gt,) = torch.autograd.grad(out, [t])
print(gt)
