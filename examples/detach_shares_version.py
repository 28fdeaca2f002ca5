# `detach()` gives a tensor without a graph, but it shares storage and the version counter
# with the tensor it came from: zeroing the detached copy changes the sigmoid's saved output.
import torch

a = torch.tensor([0.5, -1.0, 2.0], requires_grad=True)
out = a.sigmoid()
c = out.detach()
c.zero_()
print(out)
out.sum().backward()
print(a.grad)
