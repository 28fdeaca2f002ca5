# The loss is computed inside torch.no_grad() (copied from an evaluation loop), so no graph
# was recorded and there is nothing to backward through.
import torch

w = torch.tensor([1.0, -1.0], requires_grad=True)
x = torch.tensor([0.5, 2.0])
with torch.no_grad():
    loss = ((w * x).sum() - 0.5) ** 2
loss.backward()
print(w.grad)
