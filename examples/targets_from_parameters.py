# Targets computed from the model itself (a bootstrapped, TD-style target) outside
# torch.no_grad(): they stay attached to the model's graph. The first backward runs through
# them too (wrong gradients) and frees that part of the graph, so the second fails.
# (Fix: compute the targets under torch.no_grad(), or call .detach() on them.)
import torch
import torch.nn as nn

torch.manual_seed(0)
q = nn.Linear(3, 2)
opt = torch.optim.SGD(q.parameters(), lr=0.05)
states = torch.randn(6, 3)
next_states = torch.randn(6, 3)
rewards = torch.randn(6, 2)
targets = rewards + 0.9 * q(next_states)
print(targets.requires_grad, type(targets.grad_fn).__name__)
for epoch in range(2):
    loss = nn.functional.mse_loss(q(states), targets)
    print(epoch, loss)
    opt.zero_grad()
    loss.backward()
    opt.step()
