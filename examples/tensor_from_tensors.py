# Building a vector with torch.tensor([...]) from tensors that require grad copies their
# values into a brand-new leaf: the graph back to p and q is gone.
import torch

p = torch.tensor(1.5, requires_grad=True)
q = torch.tensor(-2.0, requires_grad=True)
v = torch.tensor([p * 2, q ** 2])
loss = (v * v).sum()
loss.backward()
print(p.grad, q.grad)
