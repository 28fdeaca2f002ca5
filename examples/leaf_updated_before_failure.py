# Backward runs nodes by creation order (newest first), and a leaf's
# AccumulateGrad runs as soon as it is ready. Here x.sum() was created after
# (y*y).sum(), so the failing second backward updates x before it reaches the
# freed MulBackward0. Swap the order of the terms and x stays.
import torch

x = torch.tensor([1., 2.], requires_grad=True)
y = torch.tensor([3., 4.], requires_grad=True)
L = (y * y).sum() + x.sum()
L.backward()
print(x.grad, y.grad)
try:
    L.backward()
except RuntimeError as err:
    print("failed:", str(err)[:40])
print(x.grad, y.grad)
