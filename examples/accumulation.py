# .grad accumulates across backward calls (in place: the same tensor object)
# until you zero it or set it to None.
import torch

w = torch.tensor([1., -1.], requires_grad=True)
for step in range(3):
    loss = (w * w).sum()
    loss.backward()
    print(step, w.grad)
g = w.grad
w.grad.zero_()
print(w.grad, g)
w.grad = None
(3 * w).sum().backward()
print(w.grad, g)
