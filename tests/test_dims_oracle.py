"""Every op that takes a dimension, at every dim from -3 to 2 (in range and out of range) on
0-d, 1-d and 2-d inputs, against PyTorch: values, nodes, saved dims as PyTorch stores them
(unwrapped: -1 reads 2**64 - 1), gradients to second order, and the IndexError texts."""
import itertools

import pytest

from op_oracle import check_op

EXPRS = ["a.sum({d})", "a.mean({d})", "a.sum({d}, keepdim=True)", "a.max({d})", "a.min({d})", "a.prod({d})",
         "a.softmax({d})", "a.log_softmax({d})", "a.norm(dim={d})", "a.unsqueeze({d})", "a.squeeze({d})",
         "a.transpose({d}, 0)", "torch.cat([a, a], {d})", "torch.stack([a, a], {d})", "a.flatten({d})",
         "a.argmax({d})", "a.max({d}, keepdim=True)[0]", "a.prod({d}, keepdim=True)", "a.mean(({d},))",
         "a.select({d}, 0)", "a.norm(p=1, dim={d}, keepdim=True)", "a.cumsum({d})", "a.cumprod({d})"]
SHAPES = {"0d": (), "3": (3,), "2x3": (2, 3)}


@pytest.mark.parametrize("expr,dim,shape", [
    pytest.param(e.format(d=d), d, s, id=f"{e.format(d=d)} | {s}")
    for e, d, s in itertools.product(EXPRS, [-3, -2, -1, 0, 1, 2], SHAPES)])
def test_dim_argument_matches_torch(expr, dim, shape):
    check_op(lambda lib, a: eval(expr, {"torch": lib}, {"a": a}), SHAPES[shape], second_order=True, desc=expr)
