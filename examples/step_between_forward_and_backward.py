# Two losses from one forward pass, each with its own backward, and optimizer.step() in
# between. The step updates the weights in place (their version counters go up), and the
# second backward needs the second layer's weight as it was in the forward pass.
# (Fix: backward both losses, or their sum, before the step.)
import torch
import torch.nn as nn

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(3, 5), nn.Tanh(), nn.Linear(5, 2))
opt = torch.optim.SGD(model.parameters(), lr=0.1)
x = torch.randn(8, 3)
y = torch.randn(8, 2)
out = model(x)
fit = nn.functional.mse_loss(out, y)
penalty = 0.01 * out.pow(2).mean()
opt.zero_grad()
fit.backward(retain_graph=True)
opt.step()
print(fit, model[2].weight._version)
penalty.backward()
