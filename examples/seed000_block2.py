# Second block of the question of seed000_block1.py: both backwards succeed. The answer
# credits "dependency counting"; the real reason is that `z = x+y` is an
# AddBackward0, which saves no tensors, and y2's PowBackward0 keeps its own saved
# `z` because y1's backward never ran that node.
import torch

x = torch.tensor([2.0], requires_grad=True)
y = torch.tensor([3.0], requires_grad=True)
z = x+y
y1 = z**2
y2 = z**3
y1.backward()
y2.backward()
print(x.grad, y.grad)
