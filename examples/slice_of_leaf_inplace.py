# Scaling a corner of a leaf through a slice: the slice is a view of the leaf, and writing
# into it would change the leaf itself.
import torch

foo = torch.ones(4, 4, requires_grad=True)
bar = foo[2:, 2:]
bar *= 10
loss = (foo * foo).sum()
loss.backward()
print(foo.grad)
