# A custom autograd.Function saves its input for backward. A backward without
# retain_graph frees what it saved, so reading ctx.saved_tensors afterwards (here while
# inspecting the graph; also in a second backward) raises.
import torch


class SoftClip(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, limit):
        ctx.save_for_backward(x)
        ctx.limit = limit
        return limit * torch.tanh(x / limit)

    @staticmethod
    def backward(ctx, grad_out):
        x, = ctx.saved_tensors
        return grad_out * (1 - torch.tanh(x / ctx.limit) ** 2), None


torch.manual_seed(0)
x = (3 * torch.randn(5)).requires_grad_()
y = SoftClip.apply(x, 2.0)
print(y)
print(type(y.grad_fn).__name__, len(y.grad_fn.saved_tensors))
y.sum().backward()
print(x.grad)
print(y.grad_fn.saved_tensors)
