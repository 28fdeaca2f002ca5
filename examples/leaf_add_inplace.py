# A hand-written gradient step without torch.no_grad(): the update is an in-place change of
# a leaf that requires grad.
import torch

w = torch.tensor([0.5, -0.25], requires_grad=True)
x = torch.tensor([2.0, 4.0])
loss = ((w * x).sum() - 1.0) ** 2
loss.backward()
w -= 0.1 * w.grad
print(w)
