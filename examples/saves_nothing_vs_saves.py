# A second backward works through ops that save no tensors (sum, +) and fails through
# ops that do, as the second answer to "Pytorch compute graph don't release as expected"
# says: `a.sum()` saves only sizes, while `a.sum() * 2` saves the wrapped constant 2.
import torch

a = torch.tensor([1., 2., 3., 4.], requires_grad=True)
loss = a.sum()
loss.backward()
loss.backward()
print(a.grad)

loss = a.sum() * 2
loss.backward()
try:
    loss.backward()
except RuntimeError as err:
    print("second backward failed:", str(err)[:50])
print(a.grad)
