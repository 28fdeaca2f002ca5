# Gradient accumulation done right: a batch of 12 is fed as 3 micro-batches of 4. Each
# micro-batch loss is divided by the number of micro-batches, backward() adds into .grad,
# and the optimizer steps (then zeroes) once per full batch. The accumulated gradient is
# the full batch's gradient.
import torch
import torch.nn as nn

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 1))
opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
loss_fn = nn.MSELoss()
x = torch.randn(12, 4)
y = torch.randn(12, 1)
micro, size = 3, 4
for epoch in range(3):
    full = torch.autograd.grad(loss_fn(model(x), y), model[0].weight)[0]
    opt.zero_grad()
    total = 0.0
    for i in range(0, micro * size, size):
        loss = loss_fn(model(x[i:i + size]), y[i:i + size]) / micro
        loss.backward()
        total += loss.item()
    same = torch.allclose(model[0].weight.grad, full, atol=1e-6)
    print(epoch, round(total, 4), same, model[0].weight.grad.norm())
    opt.step()
print(model[2].weight)
