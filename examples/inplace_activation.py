# An in-place ReLU after Tanh overwrites Tanh's output, which Tanh saved for its backward.
import torch
import torch.nn as nn

torch.manual_seed(1)
net = nn.Sequential(nn.Linear(3, 4), nn.Tanh(), nn.ReLU(inplace=True), nn.Linear(4, 1))
x = torch.randn(5, 3)
loss = net(x).pow(2).mean()
loss.backward()
print(net[0].weight.grad)
