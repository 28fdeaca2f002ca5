# From the question "Pytorch compute graph don't release as expected" (Stack Overflow):
# inside a function, loss = a.sum() can be backwarded twice (SumBackward0 saves only sizes);
# the gradient accumulates to 2. torch.randn is replaced by fixed values (reproducible output).
import torch

def analyze_your_actual_code():
    a = torch.tensor([-0.3121, -0.2331, 0.9317, -0.5075], requires_grad=True)

    print(f"a: {a}")
    print(f"a.grad: {a.grad}")

    loss = a.sum()
    loss.backward()
    print(f"  a.grad: {a.grad}")

    loss.backward()
    print(f"  a.grad: {a.grad}")

analyze_your_actual_code()
