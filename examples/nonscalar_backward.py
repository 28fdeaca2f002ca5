# backward() on a vector: PyTorch needs a gradient for every element.
import torch

x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
y = x ** 2 + 1
y.backward()
print(x.grad)
