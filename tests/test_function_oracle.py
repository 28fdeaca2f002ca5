"""Custom torch.autograd.Function subclasses against PyTorch: the same Python code defines a
Function with `torch` bound to each library; values, gradients, node names and errors must be
what PyTorch gives."""
import pytest
import torch

import gradcli.torch as G
from snippet_oracle import run

pytestmark = pytest.mark.timeout(60)

SNIPPETS = {
    "forward, backward, node class and name": """
        class MyFn(torch.autograd.Function):
            @staticmethod
            def forward(ctx, x, k):
                print("forward grad mode", torch.is_grad_enabled(), ctx.needs_input_grad)
                ctx.save_for_backward(x)
                ctx.k = k
                return x * k
            @staticmethod
            def backward(ctx, g):
                x, = ctx.saved_tensors
                print("backward grad mode", torch.is_grad_enabled(), g)
                return g * ctx.k * x, None
        x = torch.tensor([1., 2.], requires_grad=True)
        y = MyFn.apply(x, 3)
        print(y, type(y.grad_fn), type(y.grad_fn).__name__, y.grad_fn, y.grad_fn.name(), y.grad_fn.next_functions)
        print(y.grad_fn.needs_input_grad, y.grad_fn.k, len(y.grad_fn.saved_tensors), y.grad_fn.saved_tensors[0] is x)
        y.sum().backward()
        print(x.grad)
        try:
            y.sum().backward()
        except RuntimeError as e:
            print(e)
        try:
            y.grad_fn.saved_tensors
        except RuntimeError as e:
            print("read:", e)
        print(MyFn.apply(torch.tensor([1., 2.]), 2).grad_fn)
        with torch.no_grad():
            print(MyFn.apply(x, 2).requires_grad)
    """,
    "retain_graph, hooks and accumulation": """
        class Cube(torch.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                ctx.save_for_backward(x)
                return x ** 3
            @staticmethod
            def backward(ctx, g):
                x, = ctx.saved_tensors
                return 3 * x ** 2 * g
        x = torch.tensor([1., -2., 0.5], requires_grad=True)
        y = Cube.apply(x * 2)
        y.register_hook(lambda g: print("hook", g))
        z = (y * y).sum()
        z.backward(retain_graph=True)
        print(x.grad)
        z.backward()
        print(x.grad)
        g, = torch.autograd.grad(Cube.apply(x).sum(), x)
        print(g, x.grad)
    """,
    "wrong gradients": """
        x = torch.tensor([1., 2.], requires_grad=True)
        class Bad(torch.autograd.Function):
            @staticmethod
            def forward(ctx, x, y):
                return x + y
            @staticmethod
            def backward(ctx, g):
                return g
        class Bad2(torch.autograd.Function):
            @staticmethod
            def forward(ctx, x, k):
                return x * k
            @staticmethod
            def backward(ctx, g):
                return g, g
        class Bad3(torch.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x * 2
            @staticmethod
            def backward(ctx, g):
                return g[:1]
        class Many(torch.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x * 2
            @staticmethod
            def backward(ctx, g):
                return g, None, None
        class TooMany(torch.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x * 2
            @staticmethod
            def backward(ctx, g):
                return g, g
        class NoBack(torch.autograd.Function):
            @staticmethod
            def forward(ctx, t):
                return t * 2
        for f, args in ((Bad, (x, x)), (Bad2, (x, 2)), (Bad3, (x,)), (Many, (x,)), (TooMany, (x,)), (NoBack, (x,))):
            try:
                f.apply(*args).sum().backward()
                print(f.__name__, "ok", x.grad)
            except Exception as e:
                print(f.__name__, type(e).__name__, e)
    """,
    "broadcast and dtype of returned gradients": """
        class Wide(torch.autograd.Function):
            @staticmethod
            def forward(ctx, t):
                return t.double()
            @staticmethod
            def backward(ctx, g):
                return g.expand(3, 2)
        x = torch.tensor([1., 2.], requires_grad=True)
        Wide.apply(x).sum().backward()
        print(x.grad, x.grad.dtype)
        class RetNone(torch.autograd.Function):
            @staticmethod
            def forward(ctx, t):
                return t * 2
            @staticmethod
            def backward(ctx, g):
                return None
        w = torch.tensor([1., 2.], requires_grad=True)
        RetNone.apply(w).sum().backward()
        print(w.grad)
    """,
    "several outputs, unused and non-differentiable ones": """
        x = torch.tensor([1., 5., 2.], requires_grad=True)
        class Two(torch.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x * 2, x * 3, 5
            @staticmethod
            def backward(ctx, g1, g2, g3):
                print("two got", g1, g2, g3)
                return g1 + g2
        a, b, c = Two.apply(x)
        print(a, b, c, a.grad_fn, b.grad_fn, type(b.grad_fn).__name__)
        b.sum().backward()
        print(x.grad)
        x.grad = None
        a, b, c = Two.apply(x)
        (a * b).sum().backward()
        print(x.grad)
        class ND(torch.autograd.Function):
            @staticmethod
            def forward(ctx, t):
                idx = t.argmax()
                v = t.max()
                ctx.mark_non_differentiable(idx)
                ctx.set_materialize_grads(False)
                return v, idx
            @staticmethod
            def backward(ctx, gv, gi):
                print("nd got", gv, gi)
                return gv * torch.ones(3)
        v, i = ND.apply(x)
        print(v, i, i.requires_grad, i.grad_fn)
        v.backward()
        print(x.grad)
        class Mat(torch.autograd.Function):
            @staticmethod
            def forward(ctx, t):
                return t * 1, t * 2
            @staticmethod
            def backward(ctx, g1, g2):
                print("materialized", g1, g2)
                return g1 + g2
        p, q = Mat.apply(x)
        p.sum().backward()
        print(x.grad)
    """,
    "mark_dirty": """
        x = torch.tensor([1., 2.], requires_grad=True)
        class AddOne(torch.autograd.Function):
            @staticmethod
            def forward(ctx, t):
                t.add_(1)
                ctx.mark_dirty(t)
                return t
            @staticmethod
            def backward(ctx, g):
                return g * 2
        try:
            AddOne.apply(x)
        except RuntimeError as e:
            print("dirty leaf:", e)
        z = x * 1
        w = AddOne.apply(z)
        print(w is z, z.grad_fn, z._version, w)
        w.sum().backward()
        print(x.grad)
    """,
    "saved tensors changed in place": """
        x = torch.tensor([1., 2.], requires_grad=True)
        class Sq(torch.autograd.Function):
            @staticmethod
            def forward(ctx, t):
                ctx.save_for_backward(t)
                return t ** 2
            @staticmethod
            def backward(ctx, g):
                t, = ctx.saved_tensors
                return 2 * t * g
        a = x * 1
        y = Sq.apply(a)
        a.mul_(2)
        try:
            y.sum().backward()
        except RuntimeError as e:
            print("modified:", e)
        class Out(torch.autograd.Function):
            @staticmethod
            def forward(ctx, t):
                r = t * 3
                ctx.save_for_backward(r, None)
                return r
            @staticmethod
            def backward(ctx, g):
                r, n = ctx.saved_tensors
                print("saved out", r.grad_fn, r.requires_grad, n)
                return g * r
        y = Out.apply(x)
        y.sum().backward(retain_graph=True)
        print(x.grad)
        y.mul_(2)
        try:
            y.sum().backward()
        except RuntimeError as e:
            print("modified out:", e)
    """,
    "higher order through a Function": """
        class Sq(torch.autograd.Function):
            @staticmethod
            def forward(ctx, t):
                ctx.save_for_backward(t)
                return t ** 2
            @staticmethod
            def backward(ctx, g):
                t, = ctx.saved_tensors
                print("grad mode in backward", torch.is_grad_enabled())
                return 2 * t * g
        x = torch.tensor([1., 2.], requires_grad=True)
        y = Sq.apply(x)
        g, = torch.autograd.grad(y.sum(), x, create_graph=True)
        print(g, g.grad_fn, g.grad_fn.next_functions)
        g.sum().backward()
        print(x.grad)
        h, = torch.autograd.grad(Sq.apply(Sq.apply(x)).sum(), x, create_graph=True)
        h2, = torch.autograd.grad(h.sum(), x)
        print(h, h2)
    """,
    "once_differentiable": """
        once_differentiable = torch.autograd.function.once_differentiable
        x = torch.tensor([1., 2.], requires_grad=True)
        class Once(torch.autograd.Function):
            @staticmethod
            def forward(ctx, t):
                ctx.save_for_backward(t)
                return t ** 2
            @staticmethod
            @once_differentiable
            def backward(ctx, g):
                t, = ctx.saved_tensors
                print("once grad mode", torch.is_grad_enabled())
                return 2 * t * g
        y = Once.apply(x)
        g, = torch.autograd.grad(y.sum(), x, create_graph=True)
        print(g, g.requires_grad, g.grad_fn)
        y = Once.apply(x * 1)
        gy = torch.ones(2, requires_grad=True)
        g, = torch.autograd.grad(y, x, grad_outputs=gy, create_graph=True)
        print(g.requires_grad, type(g.grad_fn).__name__)
        try:
            g.sum().backward()
        except RuntimeError as e:
            print(e)
    """,
    "setup_context form and arguments": """
        class SC(torch.autograd.Function):
            @staticmethod
            def forward(t, k, scale=1.0):
                return t * k * scale
            @staticmethod
            def setup_context(ctx, inputs, output):
                t, k, scale = inputs
                ctx.k = k * scale
                ctx.save_for_backward(t)
            @staticmethod
            def backward(ctx, g):
                return g * ctx.k, None, None
        x = torch.tensor([1., 2.], requires_grad=True)
        y = SC.apply(x, 4)
        print(y, y.grad_fn)
        y.sum().backward()
        print(x.grad)
        print(SC.apply(x, 2, scale=0.5))
        try:
            SC.apply(x)
        except Exception as e:
            print(type(e).__name__, e)
        class Ident(torch.autograd.Function):
            @staticmethod
            def forward(ctx, t, u):
                return t, u * 2
            @staticmethod
            def backward(ctx, g1, g2):
                return g1, g2
        p, q = Ident.apply(x, x)
        print(p is x, p.grad_fn, p._base is x, q.grad_fn)
        class RetList(torch.autograd.Function):
            @staticmethod
            def forward(ctx, t):
                return [t * 2]
            @staticmethod
            def backward(ctx, g):
                return g
        print(RetList.apply(x))
        class Ints(torch.autograd.Function):
            @staticmethod
            def forward(ctx, t, n):
                return t.sum() * n, n + 1, "label"
            @staticmethod
            def backward(ctx, g, gn, gs):
                print("ints got", g, gn, gs)
                return g * torch.ones(2), None
        s, n, label = Ints.apply(x, 3)
        print(s, n, label)
        s.backward()
        print(x.grad)
    """,
    "save_for_backward checks, hooks and retain_grad on outputs": """
        class F(torch.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                ctx.save_for_backward(x, 3)
                return x * 2
            @staticmethod
            def backward(ctx, g):
                return g
        x = torch.tensor([1.0], requires_grad=True)
        try:
            F.apply(x)
        except Exception as e:
            print(type(e).__name__, e)
        class H(torch.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x * 2
            @staticmethod
            def backward(ctx, g):
                return g * 3
        y = H.apply(x)
        y.register_hook(lambda g: print("tensor hook", g))
        y.backward(torch.ones(1))
        print(x.grad, H.apply(x).grad_fn.next_functions, H.apply(x * 1).grad_fn.next_functions)
        try:
            print(F.forward(None, x))
        except Exception as e:
            print(type(e).__name__, e)
        z = H.apply(x)
        z.retain_grad()
        (z * z).sum().backward()
        print(z.grad, x.grad)
    """,
}


@pytest.mark.parametrize("name", list(SNIPPETS))
def test_custom_function_behaves_as_in_torch(name):
    assert run(G, SNIPPETS[name]) == run(torch, SNIPPETS[name])
