# Checks that stay valid Python: `assert` and try/except instead of `expect`, so this
# file also runs under real PyTorch (`gradcli test --oracle torch` compares the two).
# torch.autograd.grad returns gradients and leaves .grad alone; backward() adds into
# .grad. create_graph=True makes the returned gradient differentiable and, like
# retain_graph=True, keeps the graph's saved tensors; without it they are freed.
import torch

x = torch.tensor([1.0, 2.0], requires_grad=True)
y = (x ** 3).sum()
g, = torch.autograd.grad(y, x, create_graph=True)
assert g.tolist() == [3.0, 12.0]     # 3x^2
assert x.grad is None, "autograd.grad does not touch .grad"
print(g.grad_fn.name())

g.sum().backward()                   # the second derivative: d/dx sum(3x^2) = 6x
assert x.grad.tolist() == [6.0, 12.0]
y.backward()                         # still possible: create_graph kept y's graph
assert x.grad.tolist() == [9.0, 24.0], "backward() adds 3x^2 into .grad"

y2 = (x ** 3).sum()
torch.autograd.grad(y2, x)           # no create_graph, no retain_graph: frees y2's graph
try:
    y2.backward()
except RuntimeError as err:
    print("then y2.backward():", str(err)[:50])
print(x.grad)
