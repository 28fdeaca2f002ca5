# First block of the question "PyTorch中retain_graph作用及两次backward无报错原因问询" (Stack Exchange, by pasternak): the
# second backward fails. Why? `z = 2*f` saved the constant 2 as a tensor (MulBackward0's
# `other`), and y1.backward() freed it. (`f = x+y` saves nothing: never the problem.)
import torch
x = torch.tensor([2.0], requires_grad=True)
y = torch.tensor([3.0], requires_grad=True)
f = x+y
z = 2*f
y1 = z**2
y2 = z**3
y1.backward()
y2.backward()
