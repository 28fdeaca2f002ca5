# `2*f` and `f/2` save the Python number as a 0-d tensor: the node holds a
# saved tensor, so a non-retaining backward frees it. `f+2` saves only alpha.
import torch

x = torch.tensor([1., 2.], requires_grad=True)
m = x * 2
print(m.grad_fn.name(), m.grad_fn._saved_other)
p = x + 2
print(p.grad_fn.name(), p.grad_fn._saved_alpha)
m.sum().backward()
try:
    print(m.grad_fn._saved_other)
except RuntimeError as err:
    print("freed:", str(err)[:45])
p.sum().backward()
p.sum().backward()
print(x.grad)
