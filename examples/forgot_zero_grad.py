# A training loop without optimizer.zero_grad(): backward() adds into .grad, so every step
# uses the sum of all the gradients so far. The printed gradients pile up and the loss
# bounces instead of falling. (Fix: opt.zero_grad() at the top of each step.)
import torch
import torch.nn as nn

torch.manual_seed(0)
model = nn.Linear(2, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.2)
x = torch.randn(16, 2)
y = x @ torch.tensor([[0.7], [-1.2]]) + 0.3
for step in range(5):
    loss = nn.functional.mse_loss(model(x), y)
    loss.backward()
    print(step, loss)
    print("   weight.grad", model.weight.grad, "bias.grad", model.bias.grad)
    opt.step()
