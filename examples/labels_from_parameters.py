# A synthetic regression whose labels are computed from "true" weights that were created with
# requires_grad=True, once, before the training loop. Every iteration's loss reaches back into
# the labels' graph; the first backward frees it, so the second iteration fails.
import torch

torch.manual_seed(3)
true_w = torch.tensor([[1.5], [-0.5]], requires_grad=True)
true_b = torch.tensor(0.25, requires_grad=True)
X = torch.randn(6, 2)
Y = X @ true_w + true_b
w = torch.zeros(2, 1, requires_grad=True)
b = torch.zeros(1, requires_grad=True)
opt = torch.optim.SGD([w, b], lr=0.1)
for step in range(3):
    pred = X @ w + b
    l = ((pred - Y) ** 2).mean()
    opt.zero_grad()
    l.backward()
    opt.step()
    print(step, round(l.item(), 4))
