"""Nodes with several outputs, against PyTorch 2.13.

split, chunk, split_with_sizes and unbind make one node for all their outputs (SplitBackward0,
SplitWithSizesBackward0, UnbindBackward0); each output is a view of the input with its own
output_nr, a consumer's next_functions name (node, output_nr), and the node runs once with
every output's gradient (zeros where PyTorch materialises them). tensor_split/hsplit/vsplit/
dsplit are slices. A custom autograd.Function returning a tuple is one node too. Views that
are one of several outputs may not be modified in place: PyTorch's errors, word for word.
"""
from __future__ import annotations

import subprocess
import sys

import pytest

import oracle
from op_oracle import In, check_op, G, torch

OPS = {
    "split_by_size": (lambda t, x: x.split(2, 1), (3, 5)),
    "split_negative_dim": (lambda t, x: t.split(x, 2, -1), (3, 5)),
    "split_larger_than_the_dim": (lambda t, x: x.split(7, 1), (3, 5)),
    "split_by_a_list": (lambda t, x: x.split([1, 3, 1], 1), (3, 5)),
    "split_with_sizes": (lambda t, x: x.split_with_sizes([2, 1], 0), (3, 5)),
    "chunk_method": (lambda t, x: x.chunk(3, 1), (3, 5)),
    "chunk_function": (lambda t, x: t.chunk(x, 2, 0), (3, 5)),
    "chunk_more_than_the_size": (lambda t, x: x.chunk(7, 1), (2, 5)),
    "chunk_of_an_empty_dim": (lambda t, x: x.chunk(3, 1), (2, 0)),
    "split_of_an_empty_dim": (lambda t, x: x.split(2, 0), (0, 3)),
    "unbind_first_dim": (lambda t, x: x.unbind(), (3, 2)),
    "unbind_negative_dim": (lambda t, x: t.unbind(x, -1), (2, 3)),
    "tensor_split_sections": (lambda t, x: x.tensor_split(3, 1), (2, 5)),
    "tensor_split_indices": (lambda t, x: t.tensor_split(x, (1, 3), 1), (2, 5)),
    "tensor_split_index_tensor": (lambda t, x: x.tensor_split(t.tensor([1, 4]), 1), (2, 5)),
    "hsplit_indices": (lambda t, x: x.hsplit([1, 4]), (2, 5)),
    "hsplit_of_a_vector": (lambda t, x: t.hsplit(x, 2), (4,)),
    "vsplit_sections": (lambda t, x: x.vsplit(2), (4, 3)),
    "dsplit_sections": (lambda t, x: t.dsplit(x, 2), (2, 2, 4)),
    "only_one_piece_used": (lambda t, x: x.split(2, 1)[1] * 2, (3, 5)),
    "pieces_used_twice": (lambda t, x: (lambda p: p[0] * p[2] + p[0])(x.chunk(3, 0)), (3, 2)),
    "some_slices_used": (lambda t, x: (lambda u: u[0].exp() + u[2])(x.unbind(1)), (2, 3)),
    "iteration_unbinds": (lambda t, x: [r * (i + 1) for i, r in enumerate(x)][1], (3, 2)),
    "split_of_a_result": (lambda t, x, y: (x * y).split([1, 2], 1)[1].sigmoid(), (2, 3), (2, 3)),
    "pieces_of_two_splits": (lambda t, x: (lambda a, b: a[0] * b[1] + a[1])(x.split(1, 0), x.split(1, 0)), (2, 3)),
    "split_then_stack": (lambda t, x: t.stack(x.unbind(0)[::-1], 1), (3, 2)),
    "split_int_dtype": (lambda t, x: x.split(1, 0), In((2, 2), rg=False, ints=True, low=0, high=9)),
    # PyTorch's errors
    "split_size_zero": (lambda t, x: x.split(0, 1), (2, 3)),
    "split_sizes_not_summing": (lambda t, x: x.split([2, 2], 1), (2, 5)),
    "split_of_a_scalar": (lambda t, x: x.split(1), ()),
    "chunk_zero": (lambda t, x: x.chunk(0, 1), (2, 3)),
    "unbind_of_a_scalar": (lambda t, x: x.unbind(), ()),
    "unbind_dim_out_of_range": (lambda t, x: x.unbind(2), (2, 3)),
    "hsplit_not_dividing": (lambda t, x: x.hsplit(3), (2, 5)),
    "vsplit_of_a_vector": (lambda t, x: x.vsplit(2), (4,)),
}


@pytest.mark.parametrize("name", list(OPS))
def test_multi_output_op_matches_torch(name):
    fn, *specs = OPS[name]
    check_op(fn, *specs, desc=name)


@pytest.mark.parametrize("name", ["split_by_size", "unbind_first_dim", "some_slices_used", "only_one_piece_used",
                                  "split_by_a_list"])
def test_multi_output_op_second_order_matches_torch(name):
    fn, *specs = OPS[name]
    check_op(fn, *specs, second_order=True, desc=name)


# ----------------------------------------------------------------------------- behaviour scenarios


def _err(f):
    try:
        f()
    except Exception as e:  # noqa: BLE001  (the error is the behaviour compared)
        return (type(e).__name__, str(e))
    return None


def _nodes(t):
    """A tensor's node, output number and its node's next_functions, by name and number."""
    fn = t.grad_fn
    return (None if fn is None else fn.name(), t.output_nr,
            None if fn is None else [(None if f is None else f.name(), nr) for f, nr in fn.next_functions])


def inplace_on_each_kind_of_output(t):
    x = t.tensor([[1., 2., 3.], [4., 5., 6.]], requires_grad=True)
    y = x * 1
    s, w, u = y.split(2, 1), y.split([1, 2], 1), y.unbind(1)
    return [_err(lambda: s[1].mul_(2)), _err(lambda: w[1].add_(1)), _err(lambda: u[2].zero_()),
            _err(lambda: s[1][0].mul_(2)), _err(lambda: s[0].view(-1).add_(1)), _err(lambda: y.chunk(2)[1].exp_()),
            repr(y)]


def inplace_on_a_leafs_pieces(t):
    x = t.tensor([[1., 2.], [3., 4.]], requires_grad=True)
    return [_err(lambda: x.split(1)[0].mul_(2)), _err(lambda: x.unbind()[1].add_(1))]


def base_changed_then_piece_read(t):
    x = t.tensor([[1., 2., 3.], [4., 5., 6.]], requires_grad=True)
    y = x * 1
    s = y.split(2, 1)
    versions = [s[0]._version, s[1]._version]
    y[0].mul_(2)
    return [versions, s[0]._version, _err(lambda: s[1].grad_fn), repr(s[1]), _err(lambda: s[0].grad_fn)]


def pieces_made_under_no_grad(t):
    x = t.tensor([[1., 2.], [3., 4.]], requires_grad=True)
    y = x * 1
    with t.no_grad():
        s = y.split(1)
    return [s[0].requires_grad, _nodes(s[0]), _err(lambda: s[0].mul_(x.sum()))]


def pieces_without_grad_change_their_base(t):
    x = t.tensor([[1., 2.], [3., 4.]])
    x.split(1)[1].mul_(10)
    x.unbind(1)[0].add_(1)
    return [repr(x), x._version]


def nodes_numbers_and_edges(t):
    x = t.tensor([[1., 2., 3.], [4., 5., 6.]], requires_grad=True)
    s = x.split(2, 1)
    u = (x * 2).unbind(1)
    z = s[1] * u[1].unsqueeze(1)
    return [_nodes(s[0]), _nodes(s[1]), s[0].grad_fn is s[1].grad_fn, _nodes(u[1]), _nodes(z),
            s[0]._base is x, s[1].is_leaf]


def hooks_and_retained_gradients_per_output(t):
    x = t.tensor([[1., 2., 3.], [4., 5., 6.]], requires_grad=True)
    a, b, c = x.unbind(1)
    seen = []
    c.register_hook(lambda g: seen.append(("c", None if g is None else repr(g))))
    b.register_hook(lambda g: seen.append(("b", None if g is None else repr(g))))
    a.register_hook(lambda g: seen.append(("a", repr(g))) or g * 10)
    a.retain_grad()
    b.retain_grad()
    (a * 2 + c).sum().backward()
    return [seen, repr(x.grad), repr(a.grad), b.grad]


def backward_from_one_piece_and_grad_of_pieces(t):
    x = t.tensor([[1., 2., 3.], [4., 5., 6.]], requires_grad=True)
    a, b = x.split(2, 1)
    b.backward(t.ones(2, 1))
    first = repr(x.grad)
    grads = t.autograd.grad((a * b).sum(), [a, b], retain_graph=True)
    through = t.autograd.grad((a * b).sum(), [x])
    y = (a.exp() * b).sum()
    y.backward(inputs=[b])
    return [first, [repr(g) for g in grads], repr(through[0]), repr(b.grad), repr(x.grad)]


def retain_graph_twice_through_a_split(t):
    x = t.tensor([[1., 2.], [3., 4.]], requires_grad=True)
    p = x.chunk(2, 1)
    y = (p[0].exp() * p[1]).sum()
    y.backward(retain_graph=True)
    y.backward()
    return [repr(x.grad), _err(y.backward)]


def multi_output_function(t):
    class Pair(t.autograd.Function):
        @staticmethod
        def forward(ctx, x, y):
            ctx.save_for_backward(x)
            return x * 2, 3, y * x, x.detach().long()

        @staticmethod
        def backward(ctx, ga, gn, gb, gl):
            calls.append((repr(ga), gn, repr(gb), repr(gl)))
            x, = ctx.saved_tensors
            return ga * 2 + gb * x, None

    calls = []
    x = t.tensor([1., 2.], requires_grad=True)
    y = t.tensor([3., 4.], requires_grad=True)
    a, n, b, lo = Pair.apply(x, y)
    facts = [_nodes(a), _nodes(b), a.grad_fn is b.grad_fn, lo.requires_grad, _nodes(a * b)]
    a.sum().backward(retain_graph=True)
    b.sum().backward()
    return facts + [calls, repr(x.grad), y.grad]


def multi_output_function_without_materialised_grads(t):
    class Two(t.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.set_materialize_grads(False)
            return x * 2, x * 3

        @staticmethod
        def backward(ctx, ga, gb):
            calls.append((None if ga is None else repr(ga), None if gb is None else repr(gb)))
            return (ga if ga is not None else 0) + (gb * 3 if gb is not None else 0)

    calls, seen = [], []
    x = t.tensor([1., 2.], requires_grad=True)
    p, q = Two.apply(x)
    q.register_hook(lambda g: seen.append(("q", repr(g))))
    p.register_hook(lambda g: seen.append(("p", None if g is None else repr(g))))
    (q * 2).sum().backward()
    grads = t.autograd.grad(p.sum() + q.sum(), [q])
    return [calls, seen, repr(x.grad), [repr(g) for g in grads]]


def multi_output_function_saving_an_output(t):
    class Both(t.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            a, b = x.exp(), x * 2
            ctx.save_for_backward(b)
            return a, b

        @staticmethod
        def backward(ctx, ga, gb):
            b, = ctx.saved_tensors
            return ga * b + gb

    x = t.tensor([1., 2.], requires_grad=True)
    a, b = Both.apply(x)
    s = (a + b).sum()
    b.mul_(3)
    return [_err(s.backward), _nodes(b)]


SCENARIOS = [inplace_on_each_kind_of_output, inplace_on_a_leafs_pieces, base_changed_then_piece_read,
             pieces_made_under_no_grad, pieces_without_grad_change_their_base, nodes_numbers_and_edges,
             hooks_and_retained_gradients_per_output, backward_from_one_piece_and_grad_of_pieces,
             retain_graph_twice_through_a_split, multi_output_function,
             multi_output_function_without_materialised_grads, multi_output_function_saving_an_output]


@pytest.mark.parametrize("scenario", SCENARIOS, ids=lambda f: f.__name__)
def test_multi_output_behaviour_matches_torch(scenario):
    assert scenario(G) == scenario(torch)


def test_a_split_in_a_script_run_matches_torch():
    """The same through `gradcli run`: the report, prints and error of a script using pieces."""
    oracle.assert_same("import torch\n"
                       "x = torch.tensor([[1., 2., 3.], [4., 5., 6.]], requires_grad=True)\n"
                       "a, b = x.split([2, 1], dim=1)\n"
                       "for row in x:\n"
                       "    print(row.grad_fn.name(), row.output_nr)\n"
                       "(a.exp().sum() + b.sum()).backward()\n"
                       "print(x.grad, a.output_nr, b.output_nr)\n"
                       "y = x * 1\n"
                       "p, q = y.chunk(2)\n"
                       "q.add_(1)\n")


def test_the_graph_of_a_later_piece_starts_at_its_split_node(tmp_path):
    """`gradcli graph` of a tensor that is output 1 of a split draws the split node and its input."""
    script = tmp_path / "pieces.py"
    script.write_text("import torch\n"
                      "x = torch.tensor([[1., 2., 3.], [4., 5., 6.]], requires_grad=True)\n"
                      "a, b = x.split([2, 1], 1)\n"
                      "del a\n")
    out = subprocess.run([sys.executable, "-m", "gradcli", "graph", str(script)], capture_output=True, text=True,
                         timeout=120)
    assert out.returncode == 0, out.stderr
    assert "graph of b" in out.stdout and "SplitWithSizesBackward0" in out.stdout and "x (leaf)" in out.stdout
