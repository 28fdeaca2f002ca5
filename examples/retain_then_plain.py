# retain_graph=True keeps the saved tensors; the next plain call frees them;
# a third call then fails and leaves x.grad unchanged.
import torch

x = torch.tensor([1., 2.], requires_grad=True)
y = (x * x).sum()
y.backward(retain_graph=True)
print(x.grad)
y.backward()
print(x.grad)
try:
    y.backward()
except RuntimeError as err:
    print("third call:", str(err)[:40])
print(x.grad)
