# .item() turns the prediction into a Python number, so the loss built from it is a constant.
import torch

w = torch.tensor(0.8, requires_grad=True)
x = torch.tensor(3.0)
pred = (w * x).item()
loss = torch.tensor((pred - 2.0) ** 2)
loss.backward()
print(w.grad)
