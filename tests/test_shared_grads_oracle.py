"""When a leaf's first gradient becomes its .grad itself and when a copy, against PyTorch 2.13.

PyTorch's AccumulateGrad keeps ("steals") an incoming gradient that nothing else holds and that
has the leaf's layout, views included: after `stack(...).sum(0)` two leaves' .grad are views of
one expanded gradient and share memory, so a later in-place accumulation into one shows in the
other; a gradient a hook kept, or the user's `gradient=` tensor, is copied unless only a view of
it arrives. Each scenario runs under gradcli.torch and torch and compares the printed gradients
after every step and which .grad tensors (and user tensors) share their first element's memory.
"""
from __future__ import annotations

import pytest

import oracle

import torch  # noqa: E402  (the test extra installs it: a missing oracle must fail, not skip)
from gradcli import torch as gtorch  # noqa: E402


def _leaves(t, n=2, size=2):
    return [t.tensor([float(i * size + j + 1) for j in range(size)], requires_grad=True) for i in range(n)]


def _state(named):
    """Printed values and versions (a kept .grad view shares its base's version counter), and for
    each pair of tensors whether they share their first element."""
    out = {k: (repr(v), v._version) for k, v in named.items()}
    names = sorted(named)
    out["shared"] = [(p, q) for i, p in enumerate(names) for q in names[i + 1:]
                     if named[p].data_ptr() == named[q].data_ptr()]
    return out


def stack_sum_dim_then_backward_of_one(t):
    a, b = _leaves(t)
    t.stack([a, b]).sum(0).exp().sum().backward()
    first = _state({"a.grad": a.grad, "b.grad": b.grad})
    (b * 1).sum().backward()
    return first, _state({"a.grad": a.grad, "b.grad": b.grad})


def stack_sum_dim_retain_graph_twice(t):
    a, b = _leaves(t)
    y = t.stack([a, b]).sum(0).exp().sum()
    y.backward(retain_graph=True)
    y.backward()
    return _state({"a.grad": a.grad, "b.grad": b.grad})


def stack_without_reduction(t):
    a, b = _leaves(t)
    t.stack([a, b]).exp().sum().backward()
    (b * 1).sum().backward()
    return _state({"a.grad": a.grad, "b.grad": b.grad})


def stack_of_three_mean_dim(t):
    a, b, c = _leaves(t, 3)
    (t.stack([a, b, c]).sum(0) * 2).sum().backward()
    (c * 3).sum().backward()
    return _state({"a.grad": a.grad, "b.grad": b.grad, "c.grad": c.grad})


def stack_full_sum(t):
    a, b = _leaves(t)
    t.stack([a, b]).sum().backward()
    (b * 1).sum().backward()
    return _state({"a.grad": a.grad, "b.grad": b.grad})


def stack_dim1_sum_dim1(t):
    a, b = _leaves(t)
    t.stack([a, b], 1).sum(1).exp().sum().backward()
    (a * 1).sum().backward()
    return _state({"a.grad": a.grad, "b.grad": b.grad})


def cat_rows_sum_dim0(t):
    x = t.tensor([[1., 2.]], requires_grad=True)
    y = t.tensor([[3., 4.]], requires_grad=True)
    t.cat([x, y]).sum(0, keepdim=True).exp().sum().backward()
    (y * 1).sum().backward()
    return _state({"x.grad": x.grad, "y.grad": y.grad})


def cat_columns_sum_dim0(t):
    x = t.tensor([[1., 2.], [3., 4.]], requires_grad=True)
    y = t.tensor([[5.], [6.]], requires_grad=True)
    t.cat([x, y], 1).sum(0).exp().sum().backward()
    (y * 1).sum().backward()
    return _state({"x.grad": x.grad, "y.grad": y.grad})


def add_mul_sub(t):
    a, b = _leaves(t)
    ((a + b) * (a - b)).exp().sum().backward()
    (a * 1).sum().backward()
    return _state({"a.grad": a.grad, "b.grad": b.grad})


def unbind_and_select(t):
    x = t.tensor([1., 2., 3.], requires_grad=True)
    u = x.unbind()
    (u[0] * u[1]).backward()
    (x * 1).sum().backward()
    return _state({"x.grad": x.grad})


def expand_and_index(t):
    a = t.tensor([1., 2.], requires_grad=True)
    b = t.tensor([1., 2., 3.], requires_grad=True)
    (a.expand(3, 2).exp().sum() + b[[0, 2]].exp().sum()).backward()
    return _state({"a.grad": a.grad, "b.grad": b.grad})


def gradient_argument_through_a_view(t):
    x = t.tensor([1., 2., 3., 4.], requires_grad=True)
    g = t.ones(2, 2)
    x.view(2, 2).backward(g)
    g.mul_(5)                       # x.grad is a view of g in PyTorch: it changes too
    return _state({"x.grad": x.grad, "g": g})


def gradient_argument_through_add_and_mul(t):
    x = t.tensor([1., 2.], requires_grad=True)
    y = t.tensor([1., 2.], requires_grad=True)
    z = t.tensor([1., 2.], requires_grad=True)
    g = t.ones(2)
    (x + 0).backward(g)
    (y * 1).backward(g)
    z.backward(g)
    g.mul_(5)
    return _state({"x.grad": x.grad, "y.grad": y.grad, "z.grad": z.grad, "g": g})


def hook_keeps_the_stacked_gradient(t):
    a, b = _leaves(t)
    kept = []
    s = t.stack([a, b])
    s.register_hook(lambda g: kept.append(g))
    s.sum(0).exp().sum().backward()
    kept[0][0].mul_(0)              # its rows are one memory, which the leaves keep as .grad
    return _state({"a.grad": a.grad, "b.grad": b.grad, "kept": kept[0]})


def cat_then_split_pieces(t):
    a = t.tensor([1., 2., 3.], requires_grad=True)
    b = t.tensor([4., 5.], requires_grad=True)
    s = t.cat([a, b]).split(2)
    (s[0].exp().sum() + s[2].sum()).backward()
    first = _state({"a.grad": a.grad, "b.grad": b.grad})
    (b * 1).sum().backward()                # a.grad and b.grad are views of one gradient: one version
    return first, _state({"a.grad": a.grad, "b.grad": b.grad})


def stack_then_unbind_some(t):
    a, b, c = _leaves(t, 3)
    u = t.stack([a, b, c], 1).unbind(0)
    (u[0] * 2 + u[1]).sum().backward()
    (c * 1).sum().backward()
    return _state({"a.grad": a.grad, "b.grad": b.grad, "c.grad": c.grad})


def chunks_of_stacked_leaves_retain_graph(t):
    a, b = _leaves(t)
    p, q = t.stack([a, b]).chunk(2)
    y = (p.exp() + q * 3).sum()
    y.backward(retain_graph=True)
    first = _state({"a.grad": a.grad, "b.grad": b.grad})
    y.backward()
    return first, _state({"a.grad": a.grad, "b.grad": b.grad})


def unbind_with_a_hook_keeping_a_slice(t):
    a, b = _leaves(t)
    kept = []
    u = t.stack([a, b]).unbind()
    u[1].register_hook(kept.append)
    (u[0] * u[1]).sum().backward()
    kept[0].mul_(2)
    return _state({"a.grad": a.grad, "b.grad": b.grad, "kept": kept[0]})


def function_backward_returning_views(t):
    a, b = _leaves(t)
    p, q = _functions(t)["ViewsPair"].apply(a, b)
    (p.exp() + q).sum().backward()
    first = _state({"a.grad": a.grad, "b.grad": b.grad})
    a.grad.add_(1)
    return first, _state({"a.grad": a.grad, "b.grad": b.grad})


@pytest.mark.parametrize("hook", ["keeps", "returns None", "returns a new tensor"])
def test_a_leaf_hook_decides_whether_its_gradient_is_kept(hook):
    def scenario(t):
        a, b = _leaves(t)
        kept = []
        a.register_hook({"keeps": kept.append, "returns None": lambda g: None,
                         "returns a new tensor": lambda g: g * 1}[hook])
        t.stack([a, b]).sum(0).exp().sum().backward()
        (b * 1).sum().backward()
        return _state({"a.grad": a.grad, "b.grad": b.grad, **({"kept": kept[0]} if kept else {})})
    assert scenario(gtorch) == scenario(torch)


SCENARIOS = [stack_sum_dim_then_backward_of_one, stack_sum_dim_retain_graph_twice, stack_without_reduction,
             stack_of_three_mean_dim, stack_full_sum, stack_dim1_sum_dim1, cat_rows_sum_dim0, cat_columns_sum_dim0,
             add_mul_sub, unbind_and_select, expand_and_index, gradient_argument_through_a_view,
             gradient_argument_through_add_and_mul, hook_keeps_the_stacked_gradient, cat_then_split_pieces,
             stack_then_unbind_some, chunks_of_stacked_leaves_retain_graph, unbind_with_a_hook_keeping_a_slice,
             function_backward_returning_views]


@pytest.mark.parametrize("scenario", SCENARIOS, ids=lambda f: f.__name__)
def test_gradient_buffers_are_shared_exactly_when_pytorch_shares_them(scenario):
    assert scenario(gtorch) == scenario(torch)


def test_gradients_kept_from_split_pieces_show_in_a_script_run():
    oracle.assert_same("import torch\n"
                       "a = torch.tensor([1., 2., 3.], requires_grad=True)\n"
                       "b = torch.tensor([4., 5.], requires_grad=True)\n"
                       "p, q, r = torch.cat([a, b]).split(2)\n"
                       "(p.exp().sum() + r.sum()).backward()\n"
                       "(b * 1).sum().backward()\n"
                       "print(a.grad, b.grad, a.grad._version, b.grad._version)\n")


def test_the_shared_gradients_show_in_a_script_run():
    """The same through `gradcli run` (the interpreter and the report observing the calls)."""
    oracle.assert_same("import torch\n"
                       "a = torch.tensor([1., 2.], requires_grad=True)\n"
                       "b = torch.tensor([3., 4.], requires_grad=True)\n"
                       "torch.stack([a, b]).sum(0).exp().sum().backward()\n"
                       "(b * 1).sum().backward()\n"
                       "print(a.grad, b.grad)\n")


# ----------------------------------------------------------------------------- generated scenarios

from hypothesis import given, settings, strategies as st  # noqa: E402

def _functions(t):
    """Two-output custom Functions (one node each), made once per library: ViewsPair's backward
    hands its inputs two views of one tensor, Halves splits its input and joins the gradients."""
    made = _FUNCTIONS.get(t)
    if made is None:
        class ViewsPair(t.autograd.Function):
            @staticmethod
            def forward(ctx, x, y):
                return x * 2, y * 3

            @staticmethod
            def backward(ctx, ga, gb):
                g = t.stack([ga * 2, gb * 3])
                return g[0], g[1]

        class Halves(t.autograd.Function):
            @staticmethod
            def forward(ctx, y):
                return y[:1] * 1, y[1:] * 1

            @staticmethod
            def backward(ctx, ga, gb):
                return t.cat([ga, gb])

        made = _FUNCTIONS[t] = {"ViewsPair": ViewsPair, "Halves": Halves}
    return made


_FUNCTIONS = {}

COMBINE = {"stack0": lambda t, xs: t.stack(xs), "stack1": lambda t, xs: t.stack(xs, 1),
           "cat0": lambda t, xs: t.cat(xs), "cat_rows": lambda t, xs: t.cat([x.unsqueeze(0) for x in xs]),
           "function_views": lambda t, xs: t.stack(list(_functions(t)["ViewsPair"].apply(xs[0], xs[1])) + xs[2:])}
# what happens to the combined tensor before the reduction: taken apart and put together again
SPLIT = {"none": lambda t, y: y, "split_cat": lambda t, y: t.cat(y.split(1, 0)),
         "chunk_scaled": lambda t, y: t.cat([p * (i + 1) for i, p in enumerate(y.chunk(2, 0))]),
         "unbind_stack": lambda t, y: t.stack(y.unbind(0)[::-1]),
         "first_piece": lambda t, y: y.split(1, 0)[0],
         "sizes_last": lambda t, y: y.split([1, y.shape[0] - 1], 0)[1],
         "function_halves": lambda t, y: t.cat(_functions(t)["Halves"].apply(y))}
REDUCE = {"none": lambda y: y, "sum0": lambda y: y.sum(0), "sum0_keepdim": lambda y: y.sum(0, keepdim=True),
          "sum_last": lambda y: y.sum(-1), "mean0": lambda y: y.mean(0), "sum": lambda y: y.sum()}
POINTWISE = {"exp": lambda y: y.exp(), "times2": lambda y: y * 2, "none": lambda y: y}


def _generated(t, combine, split, reduce, pointwise, n, hook, then):
    xs = _leaves(t, n)
    kept = []
    if hook == "keep":
        xs[0].register_hook(kept.append)
    elif hook == "replace":
        xs[0].register_hook(lambda g: g * 1)
    y = POINTWISE[pointwise](REDUCE[reduce](SPLIT[split](t, COMBINE[combine](t, xs)))).sum()
    y.backward(retain_graph=then == "again")
    states = [_state({f"x{i}.grad": x.grad for i, x in enumerate(xs)})]
    if then == "again":
        y.backward()
    elif then.startswith("leaf"):
        (xs[int(then[4:])] * 3).sum().backward()
    elif then == "zero":
        xs[-1].grad.zero_()
    states.append(_state({f"x{i}.grad": x.grad for i, x in enumerate(xs)}))
    return states


@settings(max_examples=100, deadline=None, database=None)
@given(combine=st.sampled_from(sorted(COMBINE)), split=st.sampled_from(sorted(SPLIT)),
       reduce=st.sampled_from(sorted(REDUCE)), pointwise=st.sampled_from(sorted(POINTWISE)), n=st.integers(2, 3),
       hook=st.sampled_from(["none", "keep", "replace"]), then=st.sampled_from(["again", "leaf0", "leaf1", "zero"]))
def test_generated_gradients_share_memory_as_in_pytorch(combine, split, reduce, pointwise, n, hook, then):
    args = (combine, split, reduce, pointwise, n, hook, then)
    assert _generated(gtorch, *args) == _generated(torch, *args)
