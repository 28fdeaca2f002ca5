"""Every op gradcli implements through op_oracle.check_op: gradcli against
real PyTorch 2.13 on the same inputs — values, dtypes, the grad_fn graph, the saved slots
(tensor / None / non-tensor, with values), grads and freed slots after a non-retaining
backward, a weighted upstream gradient, and second-order gradients.

A case is a PyTorch expression over the inputs a, b, c, d (`torch` is the module under
test, `F` its nn.functional, `inf` = math.inf), so a failing id is a minimal reproduction:

    case("a * b", (2, 3), In((3,), rg=False))

Statements are allowed too (separated by ';' or newlines); the value of `out` is then the
result.  Shapes: () (3,) (2,3) (2,3,4); In(shape, rg=False) for operands that do not
require grad; numbers are passed through as Python numbers.
"""
from __future__ import annotations

import math

import pytest

from op_oracle import G, In, check_op, torch

CASES = []
_IDS = set()


def _spec_id(s):
    if isinstance(s, In):
        tag = "x".join(map(str, s.shape)) or "0d"
        if s.values is not None:
            tag = "v"
        if s.dtype and s.dtype != "float32":
            tag += s.dtype
        if s.ints:
            tag += "int"
        return tag + ("" if s.rg else "n")
    if isinstance(s, tuple) and all(isinstance(d, int) for d in s):
        return "x".join(map(str, s)) or "0d"
    return repr(s)


def case(expr, *specs, id=None, second_order=True, weighted=True, backward=True, seed=0):
    cid = id or (expr + " | " + ",".join(_spec_id(s) for s in specs))
    base, k = cid, 2
    while cid in _IDS:
        cid = f"{base} #{k}"
        k += 1
    _IDS.add(cid)
    CASES.append(pytest.param(expr, specs, dict(second_order=second_order, weighted=weighted,
                                                backward=backward, seed=seed), id=cid))


def make_fn(expr):
    stmt = ";" in expr or "\n" in expr or expr.lstrip().startswith("out =")
    code = compile(expr, f"<case {expr!r}>", "exec" if stmt else "eval")

    def fn(lib, *inputs):
        env = {"torch": lib, "F": lib.nn.functional, "inf": math.inf}
        env.update(zip("abcd", inputs))
        if stmt:
            exec(code, env)
            return env["out"]
        return eval(code, env)
    fn.__name__ = expr
    return fn


POS = dict(low=0.5, high=2.0)            # for log, sqrt, rsqrt, reciprocal, denominators, pow bases
SHAPES = [(), (3,), (2, 3), (2, 3, 4)]

# ============================================================================ arithmetic
BCAST = [((), ()), ((3,), (3,)), ((2, 3), (2, 3)), ((2, 3), (3,)), ((3,), (2, 3)), ((2, 3), ()),
         ((), (2, 3)), ((2, 3, 4), (3, 1)), ((2, 1, 4), (3, 1)), ((2, 3, 4), (4,))]
RG = [(True, True), (True, False), (False, True)]

for op in ("+", "-", "*", "/", "**"):
    for sa, sb in BCAST:
        for ra, rb in RG:
            if (ra, rb) != (True, True) and (sa, sb) not in (((2, 3), (3,)), ((), (2, 3)), ((3,), (3,))):
                continue
            a_kw = POS if op == "**" else {}
            b_kw = POS if op == "/" else (dict(low=-1.5, high=2.0) if op == "**" else {})
            case(f"a {op} b", In(sa, rg=ra, **a_kw), In(sb, rg=rb, **b_kw))

# Python numbers on either side
for expr, kw in [("a + 2", {}), ("2 + a", {}), ("a + 2.5", {}), ("a - 2", {}), ("2 - a", {}),
                 ("2.5 - a", {}), ("a * 2", {}), ("2 * a", {}), ("a * 2.5", {}), ("a / 2", {}),
                 ("a / 2.0", {}), ("2 / a", POS), ("2.0 / a", POS), ("a ** 2", {}), ("a ** 3", {}),
                 ("a ** 0.5", POS), ("a ** 2.0", {}), ("a ** -1", POS), ("a ** 0", {}), ("a ** 1", {}),
                 ("2 ** a", {}), ("2.5 ** a", {}), ("-a", {}), ("a.neg()", {}), ("a.add(2)", {}),
                 ("a.sub(2)", {}), ("a.mul(2)", {}), ("torch.mul(a, 2)", {}), ("a.div(2)", {}),
                 ("a.pow(3)", {}), ("torch.pow(2, a)", {}), ("torch.tensor(3.) * a", {}),
                 ("a * a", {}), ("a / a", POS), ("a - a", {}), ("a + a", {})]:
    for shape in ((), (2, 3)):
        case(expr, In(shape, **kw))

for expr in ["torch.add(a, b, alpha=3)", "torch.sub(a, b, alpha=2)", "a.sub(b, alpha=-2)", "a.add(b, alpha=0.5)",
             "torch.add(a, 2, alpha=3)", "a.pow(b)", "torch.pow(a, b)"]:
    case(expr, In((2, 3), **POS), (3,))
case("a * b", In((2, 3)), In((2, 3), dtype="float64"))
case("a + b", In((2, 3), rg=False), In((3,), dtype="float64"))
case("a * 2.5", In((3,), dtype="float64"))
case("a / b", In((3,)), In((), dtype="float64", **POS))
case("(a * b).sum()", In((2, 3), dtype="float64"), In((), rg=False, dtype="float64"))
# remainder: the gradient of a divisor is -g * floor(a / b), whose second order records DivBackward2
case("a % 0.75", (2, 3))
case("a % b", (2, 3), In((2, 3), **POS))
case("torch.remainder(a, b)", (2, 3), In((3,), **POS))
case("a % b", In((2, 3), rg=False), In((3,), **POS))
case("a % b", (2, 3), In((2, 3), rg=False, **POS))
case("a % b", (2, 3), In((2, 3), low=-2.0, high=-0.5))
case("a % b", In((3,), dtype="float64"), In((3,), dtype="float64", **POS))
case("a.remainder(b)", In((4,), rg=False, ints=True, low=-9, high=9), In((4,), rg=False, ints=True, low=1, high=4))

# ============================================================================ unary
UNARY = [("exp", {}), ("log", POS), ("sin", {}), ("cos", {}), ("tanh", {}), ("sigmoid", {}), ("relu", {}),
         ("sqrt", POS), ("abs", {}), ("reciprocal", POS), ("rsqrt", POS), ("square", {}), ("clone", {}),
         ("neg", {})]
for name, kw in UNARY:
    for shape in SHAPES:
        case(f"a.{name}()", In(shape, **kw))
    case(f"torch.{name}(a)", In((2, 3), **kw))
    case(f"a.{name}()", In((3,), dtype="float64", **kw))
case("F.relu(a)", (2, 3))
case("F.relu(a)", In(values=[-1.0, 0.0, 2.0]))
case("a.abs()", In(values=[-1.0, 0.0, 2.0]))
case("a.relu()", In(values=[[-1.0, 0.0], [0.0, 3.0]]))
case("a.sqrt()", In(values=[0.0, 1.0, 4.0]), second_order=False)
case("a.tanh()", In(values=[-8.0, 0.0, 9.0, 0.5]))
case("a.exp().log()", In((2, 3)))
case("a.detach()", (2, 3))
case("a.detach() * b", (2, 3), (2, 3))
case("a.contiguous()", (2, 3))
case("a.t().contiguous()", (2, 3))
case("(a * 1).contiguous()", (2, 3))
case("a.exp().sin().sigmoid()", (2, 3))

# ============================================================================ reductions
for fn in ("sum", "mean"):
    for shape in SHAPES:
        case(f"a.{fn}()", shape)
    for args in ("0", "1", "-1", "dim=0", "dim=(0, 1)", "(0, -1)", "1, keepdim=True", "dim=-1, keepdim=True",
                 "dim=(0, 2), keepdim=True", "dim=(-1, -3)"):
        case(f"a.{fn}({args})", (2, 3, 4))
    case(f"a.{fn}(0)", ())
    case(f"a.{fn}(-1)", (3,))
    case(f"torch.{fn}(a, 1)", (2, 3))
    case(f"torch.{fn}(a)", (2, 3))
    case(f"a.{fn}(dim=0)", In((2, 3), dtype="float64"))
case("a.sum()", In((2, 3), ints=True, low=-5, high=5))
case("a.sum(1)", In((2, 3), ints=True, low=-5, high=5))
case("a.mean()", In((2, 3), ints=True, low=-5, high=5))
case("a.sum(3)", (2, 3, 4))
case("a.mean(dim=-4)", (2, 3, 4))

for fn in ("max", "min"):
    for shape in SHAPES:
        case(f"a.{fn}()", shape)
    for args in ("0", "1", "-1", "dim=1", "dim=-1, keepdim=True", "2, True"):
        case(f"a.{fn}({args})", (2, 3, 4))
        case(f"a.{fn}({args}).values", (2, 3, 4))
    case(f"a.{fn}(1)[0]", (2, 3))
    case(f"a.{fn}(dim=1).indices", (2, 3))
    case(f"a.{fn}(0)", ())
    case(f"torch.{fn}(a)", (2, 3))
    case(f"torch.{fn}(a, 1)", (2, 3))
    case(f"torch.{fn}(a, b)", (2, 3), (3,))
    # tie rules
    case(f"a.{fn}()", In(values=[[1.0, 3.0, 3.0], [0.0, 3.0, 2.0]]), id=f"tie: a.{fn}() all 3s share")
    case(f"a.{fn}()", In(values=[[1.0, 0.0, 0.0], [0.0, 3.0, 0.0]]), id=f"tie: a.{fn}() zeros share")
    case(f"a.{fn}(dim=1)", In(values=[[3.0, 1.0, 3.0], [2.0, 2.0, 2.0]]), id=f"tie: a.{fn}(dim=1) picks first")
    case(f"a.{fn}(dim=0).values", In(values=[[3.0, 1.0, 2.0], [3.0, 1.0, 2.0]]), id=f"tie: a.{fn}(dim=0) picks first")
    case(f"a.{fn}(1, keepdim=True)", In(values=[[1.0, 1.0], [0.0, 0.0]]), id=f"tie: a.{fn}(1, keepdim) first")
for fn in ("maximum", "minimum"):
    case(f"torch.{fn}(a, b)", (2, 3), (2, 3))
    case(f"torch.{fn}(a, b)", (2, 3), In((3,), rg=False))
    case(f"torch.{fn}(a, b)", In((3,), rg=False), (2, 3))
    case(f"torch.{fn}(a, b)", (), (2, 3))
    case(f"a.{fn}(b)", (2, 3, 4), (3, 1))
    case(f"torch.{fn}(a, b)", In(values=[1.0, 2.0, 3.0]), In(values=[1.0, 5.0, 3.0]),
         id=f"tie: torch.{fn}(a, b) splits 50/50")
    case(f"torch.{fn}(a, a)", In(values=[1.0, 2.0]), id=f"tie: torch.{fn}(a, a)")
    case(f"torch.{fn}(a, b)", In(values=[1.0, 2.0]), In(values=[1.0, 0.0], rg=False),
         id=f"tie: torch.{fn}(a, bn) half to a")

for shape in SHAPES:
    case("a.prod()", shape)
for args in ("0", "1", "-1", "dim=2", "1, keepdim=True", "dim=-2, keepdim=True"):
    case(f"a.prod({args})", (2, 3, 4))
case("a.prod(0)", ())
case("torch.prod(a)", (2, 3))
case("torch.prod(a, 1)", (2, 3))
case("a.prod()", In(values=[[1.5, 0.0, 2.0], [3.0, -1.0, 0.5]]), id="prod: one zero")
case("a.prod()", In(values=[[1.5, 0.0, 2.0], [3.0, 0.0, 0.5]]), id="prod: two zeros")
case("a.prod(1)", In(values=[[1.5, 0.0, 2.0], [3.0, 0.0, 0.0]]), id="prod(1): zeros per row")
case("a.prod()", In((3,), ints=True, low=1, high=5))

for args in ("", "p=1", "p=2", "p=inf", "p=3", "1", "dim=1", "p=1, dim=1", "p=inf, dim=0", "dim=-1, keepdim=True",
             "p=2, dim=(0, 1)", "p=1, dim=-1, keepdim=True", "p='fro'", "p=0.5"):
    case(f"a.norm({args})", In((2, 3), low=0.25, high=2.0) if args == "p=0.5" else (2, 3))
for shape in SHAPES:
    case("a.norm()", shape)
case("torch.norm(a)", (2, 3))
case("torch.norm(a, dim=1)", (2, 3))
case("torch.norm(a, p=1, dim=(1, 2))", (2, 3, 4))
case("a.norm()", In(values=[0.0, 0.0, 0.0]), id="norm: zero vector")
case("a.norm(p=inf)", In(values=[[1.0, -3.0, 3.0], [0.5, 2.0, -1.0]]), id="norm: inf with ties")
case("a.norm(p=1)", In(values=[0.0, -1.0, 2.0]), id="norm: p=1 at zero")

for fn in ("softmax", "log_softmax"):
    for shape, dims in (((), (0, -1)), ((3,), (0, -1)), ((2, 3), (0, 1, -1, -2)), ((2, 3, 4), (0, 1, 2, -1))):
        for d in dims:
            case(f"a.{fn}({d})", shape)
    case(f"a.{fn}(dim=1)", (2, 3))
    case(f"torch.{fn}(a, 1)", (2, 3))
    case(f"F.{fn}(a, dim=-1)", (2, 3, 4))
    case(f"F.{fn}(a, 0)", (3,))
    case(f"a.{fn}(-1)", In((2, 3), dtype="float64"))
    case(f"a.{fn}(2)", (2, 3))
    case(f"a.{fn}(-1)", In(values=[[1.0, 1.0, 1.0], [100.0, 0.0, -100.0]]), id=f"{fn}: equal and extreme logits")

# ============================================================================ views and shapes
for expr, shape in [("a.reshape(3, 2)", (2, 3)), ("a.reshape(-1)", (2, 3)), ("a.reshape(3, -1)", (2, 3)),
                    ("a.reshape((6,))", (2, 3)), ("a.reshape(4, -1, 3)", (2, 3, 4)), ("a.reshape(1)", ()),
                    ("a.reshape(())", (1,)), ("torch.reshape(a, (3, 2))", (2, 3)), ("a.view(3, 2)", (2, 3)),
                    ("a.view(6)", (2, 3)), ("a.view(-1, 2)", (2, 3)), ("a.view(-1)", ()), ("a.view(2, 12)", (2, 3, 4)),
                    ("a.view((4, 6))", (2, 3, 4)), ("a.t().reshape(6)", (2, 3)), ("a.t().reshape(-1, 2)", (2, 3)),
                    ("a.transpose(0, 2).reshape(4, 6)", (2, 3, 4)), ("a.flatten()", (2, 3)),
                    ("a.flatten()", (2, 3, 4)), ("a.flatten(1)", (2, 3, 4)), ("a.flatten(0, 1)", (2, 3, 4)),
                    ("a.flatten(-2)", (2, 3, 4)), ("a.flatten()", ()), ("a.flatten()", (3,)),
                    ("torch.flatten(a)", (2, 3)), ("a.t().flatten()", (2, 3)),
                    ("a.transpose(0, 1)", (2, 3)), ("a.transpose(1, 0)", (2, 3)), ("a.transpose(-1, -2)", (2, 3, 4)),
                    ("a.transpose(0, 2)", (2, 3, 4)), ("a.transpose(0, 0)", (2, 3)), ("torch.transpose(a, 0, 1)", (2, 3)),
                    ("a.swapaxes(0, 1)", (2, 3)), ("a.swapaxes(-1, 0)", (2, 3, 4)), ("a.T", (2, 3)), ("a.T", (3,)),
                    ("a.T", ()), ("a.mT", (2, 3)), ("a.mT", (2, 3, 4)), ("a.t()", (2, 3)), ("a.t()", (3,)),
                    ("a.t()", ()), ("torch.t(a)", (2, 3)), ("a.permute(1, 0)", (2, 3)), ("a.permute(2, 0, 1)", (2, 3, 4)),
                    ("a.permute(-1, 0, 1)", (2, 3, 4)), ("a.permute((0, 2, 1))", (2, 3, 4)),
                    ("torch.permute(a, (1, 0))", (2, 3)), ("a.squeeze()", (1, 3)), ("a.squeeze()", (2, 3)),
                    ("a.squeeze()", (2, 1, 3, 1)), ("a.squeeze(0)", (1, 3)), ("a.squeeze(1)", (1, 3)),
                    ("a.squeeze(-2)", (2, 1, 3)), ("a.squeeze(0)", ()), ("torch.squeeze(a)", (1, 3)),
                    ("a.unsqueeze(0)", (3,)), ("a.unsqueeze(-1)", (2, 3)), ("a.unsqueeze(1)", (2, 3)),
                    ("a.unsqueeze(0)", ()), ("a.unsqueeze(-1)", ()), ("torch.unsqueeze(a, 2)", (2, 3)),
                    ("a.expand(2, 3)", (3,)), ("a.expand(3, 4)", (3, 1)), ("a.expand(-1, 4)", (3, 1)),
                    ("a.expand(4, 2, 3)", (2, 3)), ("a.expand(2, 3)", ()), ("a.expand((2, 3))", (1, 3)),
                    ("a.expand(2, 3)", (2, 3)), ("a.expand_as(b)", (3,)), ("a.view(3, 2).t()", (2, 3)),
                    ("a.view_as(b)", (2, 3)), ("a.reshape_as(b)", (2, 3))]:
    specs = (shape, In((3, 2), rg=False)) if expr.endswith("as(b)") else (shape,)
    if expr == "a.expand_as(b)":
        specs = (shape, In((2, 3), rg=False))
    case(expr, *specs)
case("a.expand(2, 3) * b", (3,), (2, 3))
case("a.t() @ b", (3, 2), (3, 4))
case("a.permute(2, 0, 1).sum(0)", (2, 3, 4))

# ============================================================================ indexing
for expr, shape in [("a[0]", (3,)), ("a[-1]", (3,)), ("a[0]", (2, 3)), ("a[-1]", (2, 3)), ("a[1]", (2, 3, 4)),
                    ("a[:, 1]", (2, 3)), ("a[:, -1]", (2, 3)), ("a[..., 0]", (2, 3)), ("a[..., -2]", (2, 3, 4)),
                    ("a[0, 1]", (2, 3)), ("a[0][1]", (2, 3)), ("a[-1, -1, -1]", (2, 3, 4)), ("a[1:]", (3,)),
                    ("a[1:]", (2, 3)), ("a[:, 1:2]", (2, 3)), ("a[::2]", (3,)), ("a[:, ::2]", (2, 3)),
                    ("a[1::2, :]", (2, 3, 4)), ("a[:2]", (3,)), ("a[-2:]", (3,)), ("a[:-1]", (2, 3)),
                    ("a[0:3:2]", (3,)), ("a[:]", (3,)), ("a[...]", (2, 3)), ("a[:, :]", (2, 3)), ("a[5:]", (3,)),
                    ("a[None]", (3,)), ("a[None]", ()), ("a[:, None]", (2, 3)), ("a[..., None]", (2, 3)),
                    ("a[None, :, None]", (3,)), ("a[0, None]", (2, 3)), ("a[None, 1]", (2, 3)),
                    ("a[..., 1:, None]", (2, 3, 4)), ("a[0, ..., 1]", (2, 3, 4)), ("a[1, :, ::2]", (2, 3, 4)),
                    ("a[:, 1][0]", (2, 3)), ("a[[0, 2]]", (3,)), ("a[[1, 0]]", (2, 3)), ("a[[0, 0, 1]]", (2, 3)),
                    ("a[[-1, 0]]", (2, 3)), ("a[:, [0, 2]]", (2, 3)), ("a[[0, 1], [1, 2]]", (2, 3)),
                    ("a[[0, 1], 1:]", (2, 3)), ("a[1:, [0, 2]]", (2, 3, 4)), ("a[..., [0, 3]]", (2, 3, 4)),
                    ("a[[[0, 1], [1, 0]]]", (2, 3)), ("a[0, [0, 2]]", (2, 3)), ("a[None, [0, 1]]", (2, 3)),
                    ("a[:, [1, 1, 1]]", (2, 3))]:
    case(expr, shape)
IDX = In(values=[0, 2, 2], rg=False)
MASK1 = In(values=[True, False, True], rg=False)
MASK2 = In(values=[[True, False, True], [False, False, True]], rg=False)
case("a[b]", (3,), IDX)
case("a[b]", (3, 4), IDX)
case("a[b]", (3, 4), In(values=[[0, 1], [2, 2]], rg=False))
case("a[b]", (3,), In(values=[-1, 0], rg=False))
case("a[:, b]", (2, 3), IDX)
case("a[b, 1:]", (3, 4), IDX)
case("a[b, b]", (3, 3), IDX)
case("a[b]", (3,), MASK1)
case("a[b]", (3, 2), MASK1)
case("a[b]", (2, 3), MASK2)
case("a[:, b]", (2, 3), MASK1)
case("a[b]", (2, 3), In(values=[[False, False, False], [False, False, False]], rg=False), id="bool mask: all False")
case("a[a > 0]", (2, 3))
case("a[b > 0]", (2, 3), In((2, 3), rg=False))
case("a[b]", (3,), In(values=2, rg=False), id="0-d int tensor index")
case("a[b]", (2, 3), In(values=1, rg=False), id="0-d int tensor index 2d")
case("a[[True, False, True]]", (3,))
case("a[3]", (3,))
case("a[-4]", (3,))
case("a[0, 0, 0]", (2, 3))
case("a[0]", ())
case("a[:1]", ())
case("a[[3]]", (3,))
case("a[::-1]", (3,))
case("a[::0]", (3,))
case("a[..., ...]", (3,))
case("a[1.5]", (3,))
case("a[b]", (3,), In(values=[0.0, 1.0], rg=False))
case("a[b]", (3,), In(values=[True, False], rg=False))
# index assignment into a non-leaf (CopySlices)
for stmts, specs in [("out = a * 1; out[0] = 5.", ((3,),)),
                     ("out = a * 1; out[0] = b", ((2, 3), (3,))),
                     ("out = a * 1; out[:, 1] = b", ((2, 3), (2,))),
                     ("out = a * 1; out[b > 0] = 0.", ((2, 3), In((2, 3), rg=False))),
                     ("out = a.clone(); out[1:] = b * 2", ((3,), (2,))),
                     ("out = a.exp(); out[0] = b; out = out.sum()", ((3,), ())),
                     ("out = a.clone(); out[[0, 2]] = b", ((3,), (2,))),
                     ("out = torch.zeros(2, 3); out[0] = a", ((3,),)),
                     ("out = torch.zeros(3); out[1] = a", ((),)),
                     ("out = a * 1; out[0] = torch.ones(4)", ((2, 3),))]:
    case(stmts, *specs)

# ============================================================================ combining
for dim in (0, 1, -1):
    case(f"torch.cat([a, b], dim={dim})", (2, 3), (2, 3))
    case(f"torch.stack([a, b], dim={dim})", (2, 3), (2, 3))
case("torch.cat([a, b])", (2, 3), (1, 3))
case("torch.cat([a, b], 1)", (2, 3), In((2, 1), rg=False))
case("torch.cat([a, b])", In((2, 3), rg=False), (4, 3))
case("torch.cat([a, b, a])", (3,), (2,))
case("torch.cat([a, b, c], dim=2)", (2, 3, 1), (2, 3, 2), In((2, 3, 1), rg=False))
case("torch.cat([a])", (3,))
case("torch.cat((a, b), 0)", (3,), In((2,), dtype="float64"))
case("torch.cat([a, b])", (2, 3), (2, 4))
case("torch.cat([a, b])", (2, 3), (3,))
case("torch.concat([a, b])", (3,), (3,))
case("torch.stack([a, b])", (3,), (3,))
case("torch.stack([a, b, a], 1)", (3,), In((3,), rg=False))
case("torch.stack([a, b], dim=2)", (2, 3), (2, 3))
case("torch.stack([a, b], dim=-3)", (2, 3), (2, 3))
case("torch.stack([a, b])", (), ())
case("torch.stack([a, b])", (3,), (2,))
case("torch.stack((a,))", (2, 3))
case("torch.stack([a, b], dim=3)", (2, 3), (2, 3))
case("torch.stack([a, a, a]).sum(0)", (3,))
case("torch.stack([a * a, b], 1) ** 2", (2, 3), (2, 3), id="stack under a gradient that needs grad")

# ============================================================================ selection
CLAMP_V = In(values=[[-2.0, -1.0, 0.0], [0.5, 1.0, 3.0]])
for args in ("-1, 1", "min=0", "max=0.5", "min=-1, max=1", "-1.0, 1.0", "0, 1", "min=2, max=1", "max=-1"):
    case(f"a.clamp({args})", (2, 3))
    case(f"a.clamp({args})", CLAMP_V, id=f"clamp at bounds: a.clamp({args})")
case("torch.clamp(a, -1, 1)", (2, 3))
case("torch.clamp(a, min=b)", (2, 3), (2, 3))
case("torch.clamp(a, min=b)", (2, 3), In((3,), rg=False))
case("torch.clamp(a, max=b)", (2, 3), (3,))
case("torch.clamp(a, min=b, max=c)", (2, 3), In((2, 3), low=-2, high=-0.5), In((3,), low=0.5, high=2))
case("a.clamp(b, c)", (2, 3), In(values=[-1.0, 0.0, 1.0], rg=False), In(values=[1.0, 0.0, 2.0], rg=False),
     id="clamp tensor bounds: ties")
case("a.clamp(min=b)", CLAMP_V, In(values=[[-2.0, 0.0, 0.0], [0.5, 2.0, 3.0]]), id="clamp tensor min: ties with rg bound")
case("a.clip(-1, 1)", (2, 3))
case("torch.clamp(a)", (2, 3))
case("a.clamp_min(0)", (2, 3))
case("a.clamp_min(0.5)", CLAMP_V)
case("torch.clamp_min(a, -1)", (2, 3))
case("a.clamp_max(0.5)", CLAMP_V)
case("torch.clamp_max(a, -1)", (2, 3))
case("a.clamp_min(b)", CLAMP_V, In(values=[[-2.0, 0.0, 0.0], [0.5, 2.0, 3.0]]), id="clamp_min tensor: ties with rg bound")
case("a.clamp_max(b)", CLAMP_V, In(values=[[-2.0, 0.0, 0.0], [0.5, 2.0, 3.0]]), id="clamp_max tensor: ties with rg bound")
case("torch.clamp_max(a, b)", (2, 3), (3,))
case("torch.clamp_min(a, b)", (2, 3), In((), rg=False))
case("a.clamp(min=b)", (), (2, 3))
for expr, specs in [("torch.where(a > 0, a, b)", ((2, 3), (2, 3))),
                    ("torch.where(a > 0, a, b)", ((2, 3), In((2, 3), rg=False))),
                    ("torch.where(a > 0, b, a)", ((2, 3), In((3,), rg=False))),
                    ("torch.where(a > 0, a, 0.)", ((2, 3),)),
                    ("torch.where(a > 0, 1., a)", ((2, 3),)),
                    ("torch.where(c, a, b)", ((2, 3), (3,), MASK1)),
                    ("torch.where(c, a, b)", ((), (2, 3), MASK2)),
                    ("a.where(a > 0, b)", ((2, 3), (2, 3))),
                    ("torch.where(a, a, b)", ((3,), (3,))),
                    ("torch.where(c, a, b)", ((3,), In((3,), dtype="float64"), MASK1)),
                    ("torch.where(c, a, b)", ((2, 3), (4,), MASK1))]:
    case(expr, *specs)

# ============================================================================ matmul family
MM = [((3,), (3,)), ((2, 3), (3, 4)), ((2, 3), (3,)), ((3,), (3, 4)), ((2, 3, 4), (2, 4, 5)), ((2, 3, 4), (4, 5)),
      ((4,), (2, 4, 5)), ((2, 3, 4), (4,)), ((3, 4), (2, 4, 5)), ((2, 1, 3, 4), (5, 4, 2)), ((1, 3, 4), (2, 4, 5)),
      ((2, 2, 3, 4), (2, 4, 1))]
for sa, sb in MM:
    for ra, rb in RG:
        if (ra, rb) != (True, True) and (sa, sb) not in (((2, 3), (3, 4)), ((3,), (3,)), ((2, 3), (3,)),
                                                         ((3,), (3, 4)), ((2, 3, 4), (2, 4, 5)), ((2, 3, 4), (4, 5))):
            continue
        case("a @ b", In(sa, rg=ra), In(sb, rg=rb))
    case("torch.matmul(a, b)", sa, sb)
case("a @ b @ c", (3,), (3, 4), (4,))
case("a @ b @ c", (2, 3), (3, 4), (4, 2))
case("(a @ b).exp() @ c", (2, 2, 3), (3, 4), (4,))
for expr, specs in [("torch.mm(a, b)", ((2, 3), (3, 4))), ("a.mm(b)", ((2, 3), In((3, 4), rg=False))),
                    ("a.matmul(b)", ((2, 3), (3, 4))), ("torch.bmm(a, b)", ((2, 3, 4), (2, 4, 5))),
                    ("a.bmm(b)", (In((2, 3, 4), rg=False), (2, 4, 5))), ("torch.dot(a, b)", ((3,), (3,))),
                    ("a.dot(b)", ((3,), In((3,), rg=False))), ("torch.mv(a, b)", ((2, 3), (3,))),
                    ("a.mv(b)", (In((2, 3), rg=False), (3,))), ("a @ b", (In((2, 3), dtype="float64"), In((3,), dtype="float64")))]:
    case(expr, *specs)
# shapes matmul refuses
for expr, specs in [("a @ b", ((2, 3), (4, 5))), ("torch.mm(a, b)", ((2, 3), (4, 5))), ("a @ b", ((3,), (4,))),
                    ("torch.dot(a, b)", ((3,), (4,))), ("a @ b", ((2, 3), (4,))), ("a @ b", ((4,), (2, 3))),
                    ("a @ b", ((2, 2, 3), (2, 4, 5))), ("a @ b", ((2, 2, 3), (4, 5))),
                    ("a @ b", ((2, 2, 3), (3, 3, 5))), ("torch.mm(a, b)", ((2, 3), (3,))), ("a @ b", ((), (3,))),
                    ("a @ b", ((3,), ())), ("torch.bmm(a, b)", ((2, 3), (3, 4))), ("torch.bmm(a, b)", ((2, 3, 4), (3, 4, 5))),
                    ("torch.mv(a, b)", ((2, 3), (2,))), ("torch.dot(a, b)", ((2, 3), (3,))),
                    ("a @ b", ((2, 3), In((3,), dtype="float64")))]:
    case(expr, *[In(s, rg=False) if isinstance(s, tuple) else s for s in specs], id="bad shapes: " + expr + " " +
         " ".join(str(s.shape if isinstance(s, In) else s) for s in specs))

# ============================================================================ higher order: prod, norm, pow, matmul
# The output is the first-order gradient under create_graph, so its whole graph (nodes, edges,
# saved slots) is compared with PyTorch's, and the harness's second order is the op's third.
for expr, wrt, specs in [
        ("a.prod()", "a", ((2, 3),)), ("a.prod(1).sum()", "a", ((2, 3, 4),)),
        ("a.prod()", "a", (In(values=[[1.5, 0.0, 2.0], [3.0, -1.0, 0.5]]),)),
        ("a.prod(1).sum()", "a", (In(values=[[1.5, 0.0, 2.0], [3.0, 0.0, 0.0]]),)),
        ("a.norm()", "a", ((2, 3),)), ("a.norm(p=3)", "a", ((2, 3),)), ("a.norm(p=0.5)", "a", (In((2, 3), low=0.25),)),
        ("a.norm(p=1.5, dim=1).sum()", "a", ((2, 3),)), ("a.norm(dim=(0, 1))", "a", ((2, 3),)),
        ("a.norm(p=inf)", "a", (In(values=[[1.0, -3.0, 3.0], [0.5, 2.0, -1.0]]),)),
        ("(a ** b).sum()", "a", (In((2, 3), **POS), (3,))), ("(a ** b).sum()", "b", (In((2, 3), **POS), (3,))),
        ("(a ** b).sum()", "a", (In(values=[0.0, 1.0, 2.0]), In(values=[0.0, 2.0, -1.0]))),
        ("(a @ b).sum()", "a", ((2, 3), (3, 4))), ("(a @ b).sum()", "b", ((2, 3), (3, 4))),
        ("(a.t() @ b).sum()", "a", ((3, 2), (3, 4))), ("(a @ b).sum()", "a", ((2, 3), (3,))),
        ("(a @ b).sum()", "b", ((3,), (3, 4))), ("(a @ b).sum()", "b", ((4,), (2, 4, 5))),
        ("(a @ b).sum()", "a", ((3, 4), (2, 4, 5))), ("(a @ b).sum()", "b", ((2, 3, 4), (2, 4, 5))),
        ("(a @ b @ c).sum()", "b", ((3,), (3, 4), (4,))), ("torch.bmm(a, b).sum()", "a", ((2, 3, 4), (2, 4, 5))),
        ("torch.dot(a, b)", "a", ((3,), (3,)))]:
    case(f"out = torch.autograd.grad({expr}, {wrt}, create_graph=True)[0]", *specs)
# matmul's should_fold: which operand requires grad, and the strides, decide mm/mv or bmm
for specs in [(In((4,), rg=False), (2, 4, 5)), ((3, 4), In((2, 4, 5), rg=False)), (In((2, 3, 4), rg=False), (4,)),
              (In((1, 3, 4), rg=False), (2, 4, 5)), ((2, 4, 5), In((1, 5, 3), rg=False)), ((2, 4, 5), (1, 5, 3))]:
    case("a @ b", *specs)
for args in ("p=-inf", "p=1.5", "p=-1", "p=inf, dim=1, keepdim=True", "p=0", "p=0, dim=1"):
    case(f"a.norm({args})", (2, 3))
case("a ** b", In(values=[0.0, 1.0, 2.0]), In(values=[0.0, 2.0, -1.0]), id="a ** b: zero base")
case("a.prod(0)", In(values=[[1.5, 0.0, 2.0], [3.0, 2.0, 0.0]]), id="prod(0): zeros")
case("torch.clamp(a, min=b, max=c)", (2, 3), In(values=[1.0, -1.0, 0.0]), In(values=[0.0, 1.0, 0.5]),
     id="clamp tensor bounds: min > max")

# ============================================================================ losses
for red in ("none", "mean", "sum"):
    case(f"F.mse_loss(a, b, reduction='{red}')", (2, 3), (2, 3))
    case(f"F.mse_loss(a, b, reduction='{red}')", (2, 3), In((2, 3), rg=False))
    case(f"F.mse_loss(a, b, reduction='{red}')", In((2, 3), rg=False), (2, 3))
    case(f"F.cross_entropy(a, b, reduction='{red}')", (3, 4), In(values=[0, 3, 1], rg=False))
    case(f"F.cross_entropy(a, b, reduction='{red}')", (4,), In(values=2, rg=False))
    case(f"F.cross_entropy(a, b, reduction='{red}', ignore_index=1)", (3, 4), In(values=[0, 1, 1], rg=False))
    case(f"F.binary_cross_entropy_with_logits(a, b, reduction='{red}')", (2, 3), In((2, 3), rg=False, low=0, high=1))
    case(f"F.binary_cross_entropy_with_logits(a, b, reduction='{red}')", (2, 3), In((2, 3), low=0, high=1))
case("F.mse_loss(a, b)", (3,), (3,))
case("F.mse_loss(a, b)", (), ())
case("F.mse_loss(a, b)", (2, 3), (3,))
case("F.mse_loss(a, b)", (2, 3), (4,))
case("F.mse_loss(a, b, reduction='avg')", (3,), (3,))
case("F.cross_entropy(a, b)", (3, 4), In(values=[0, 3, 1], rg=False))
case("F.cross_entropy(a, b)", In((3, 4), dtype="float64"), In(values=[0, 3, 1], rg=False))
case("F.cross_entropy(a, b)", (3, 4), In(values=[0, 4, 1], rg=False))
case("F.cross_entropy(a, b, ignore_index=0)", (2, 4), In(values=[0, 0], rg=False))
case("F.cross_entropy(a * 2, b)", (2, 3), In(values=[2, 0], rg=False))
case("F.binary_cross_entropy_with_logits(a, b)", (3,), In(values=[0.0, 1.0, 1.0], rg=False))
case("F.binary_cross_entropy_with_logits(a, b)", In(values=[-30.0, 0.0, 40.0]), In(values=[0.0, 1.0, 1.0], rg=False),
     id="bce logits: extreme logits")
case("F.binary_cross_entropy_with_logits(a, b)", (2, 3), In((3,), rg=False))

# the first-order gradients themselves (create_graph=True) as outputs: their double-backward
# nodes (grad_fn, saved slots, freeing) and, through second_order, third-order gradients
_GRAD = "torch.autograd.grad({}, {}, create_graph=True)"
for loss, specs in [
        ("(a.softmax(-1) * b).sum()", ((2, 3), In((2, 3), rg=False))),
        ("(a.softmax(0) * b).sum()", ((2, 3, 4), In((2, 3, 4), rg=False))),
        ("a.softmax(0).sum()", ((),)),
        ("(a.log_softmax(1) * b).sum()", ((2, 3), In((2, 3), rg=False))),
        ("(F.log_softmax(a, -1) * b).sum()", (In((2, 3), dtype="float64"), In((2, 3), dtype="float64", rg=False))),
        ("F.mse_loss(a * a, b)", ((2, 3), (2, 3))),
        ("(F.mse_loss(a, b, reduction='none') * c).sum()", ((2, 3), (2, 3), In((2, 3), rg=False))),
        ("F.mse_loss(a, b, reduction='sum')", ((2, 3), In((2, 3), rg=False))),
        ("F.mse_loss(a, b)", ((2, 3), (3,))),
        ("F.cross_entropy(a, b)", ((3, 4), In(values=[0, 3, 1], rg=False))),
        ("(F.cross_entropy(a, b, reduction='none', ignore_index=1) * c).sum()",
         ((3, 4), In(values=[0, 1, 2], rg=False), In((3,), rg=False))),
        ("F.cross_entropy(a * 2, b, reduction='sum')", ((3, 4), In(values=[0, 3, 1], rg=False))),
        ("F.cross_entropy(a, b)", ((4,), In(values=2, rg=False))),
        ("F.nll_loss(a.log_softmax(1), b)", ((3, 4), In(values=[0, 3, 1], rg=False))),
        ("F.binary_cross_entropy_with_logits(a, b.sigmoid())", ((2, 3), (2, 3))),
        ("(F.binary_cross_entropy_with_logits(a, b, reduction='none') * c).sum()",
         ((2, 3), In((2, 3), low=0, high=1), In((2, 3), rg=False))),
        ("F.binary_cross_entropy_with_logits(a, b, reduction='sum')", ((2, 3), In((2, 3), rg=False, low=0, high=1)))]:
    rg = [v for v, sp in zip("abc", specs) if not isinstance(sp, In) or sp.rg]
    case(_GRAD.format(loss, "(" + ", ".join(rg) + ",)"), *specs)

# ============================================================================ constructors
for expr in ["torch.tensor([])", "torch.tensor([[]])", "torch.zeros(0)", "torch.tensor([1., 2.])", "torch.tensor(2)", "torch.tensor([[1, 2], [3, 4]])", "torch.tensor([True, False])",
             "torch.tensor([1, 2.5])", "torch.tensor(2., dtype=torch.float64)", "torch.ones(2, 3)", "torch.zeros(3)",
             "torch.ones((2, 3), dtype=torch.float64)", "torch.full((2, 2), 7.)", "torch.full((2,), 7)",
             "torch.arange(5)", "torch.arange(3.)", "torch.arange(0, 1, 0.25)", "torch.arange(1, 7, 2)",
             "torch.ones(2, requires_grad=True) * 3", "torch.zeros(2, 3, requires_grad=True).sum()",
             "torch.tensor([1, 2], requires_grad=True)", "torch.arange(3, requires_grad=True)"]:
    case(expr, id="ctor: " + expr)
for expr in ["torch.ones_like(a)", "torch.zeros_like(a)", "torch.ones_like(a) * a", "a.detach().requires_grad_() * 2"]:
    case(expr, (2, 3))

# ============================================================================ errors (exact texts)
for expr, specs in [
        ("a.view(6)", (In((3, 2), rg=False),)),
        ("a.t().view(6)", (In((2, 3), rg=False),)), ("a.t().view(-1)", ((2, 3),)),
        ("a.transpose(0, 1).view(2, 3)", ((2, 3),)), ("a.permute(2, 0, 1).view(-1)", ((2, 3, 4),)),
        ("a.view(3, 3)", ((2, 3),)), ("a.reshape(4)", ((2, 3),)), ("a.reshape(-1, 4)", ((2, 3),)),
        ("a.view(-1, -1)", ((2, 3),)), ("a.reshape(2, 2)", ((2, 3, 4),)),
        ("a + b", ((2, 3), (2, 4))), ("a * b", ((2, 3), (2, 4))), ("a + b", ((3,), (4,))), ("a * b", ((2, 3), (3, 2))),
        ("a - b", ((2, 3), (2,))), ("a / b", ((4, 3), (2, 3))), ("a + b", ((2, 3, 4), (2, 5, 4))),
        ("torch.maximum(a, b)", ((2, 3), (2,))), ("torch.where(a > 0, a, b)", ((2, 3), (2,))),
        ("torch.ones(1, 3).add_(torch.ones(2, 3))", ()), ("torch.ones(3).mul_(torch.ones(2, 3))", ()),
        ("torch.ones(2, 3).copy_(torch.ones(3, 3))", ()),
        ("out = torch.ones(1, 3); out += torch.ones(2, 3)", ()),
        ("a.sum(2)", ((2, 3),)), ("a.softmax(2)", ((2, 3),)), ("a.max(-3)", ((2, 3),)),
        ("a.transpose(0, 2)", ((2, 3),)), ("a.permute(0, 1)", ((2, 3, 4),)), ("a.permute(0, 0, 1)", ((2, 3, 4),)),
        ("a.squeeze(2)", ((2, 3),)), ("a.unsqueeze(3)", ((2, 3),)), ("a.expand(3, 3)", ((2, 3),)),
        ("a.expand(3)", ((2, 3),)), ("a.flatten(2)", ((2, 3),)), ("a[2]", ((2, 3),)), ("a[:, 3]", ((2, 3),)),
        ("a[[0, 5]]", ((3,),)), ("a.item()", ((2, 3),)), ("a.mean()", (In((2,), ints=True, low=0, high=3),)),
        ("a ** -1", (In((2,), ints=True, low=1, high=3),)), ("a.max()", (In((0,)),)),
        ("torch.cat([])", ()), ("torch.stack([])", ())]:
    case(expr, *specs, id="error: " + expr + " " + " ".join(_spec_id(s) for s in specs))


# ============================================================================ indexing chains, reshape, matmul paths
# PyTorch's applySlicing: views left to right, then one IndexBackward0 whose indices hold None
# for sliced dims; masks advance by their dims; bools and 0-d tensors; its checks in order.
I01 = In(values=[1, 0], rg=False)
for expr, specs in [
        ("a[b, :, b]", ((2, 3, 4), I01)), ("a[:, b, b]", ((2, 3, 4), I01)), ("a[b, 1:, [0, 1]]", ((2, 3, 4), I01)),
        ("a[b, ..., 1:]", ((2, 3, 4), I01)), ("a[b, None, 1]", ((2, 3, 4), I01)), ("a[0, b, None]", ((2, 3, 4), I01)),
        ("a[b, 1:]", ((2, 3, 4), In(values=[[True, False, True], [False, True, True]], rg=False))),
        ("a[True]", ((2, 3),)), ("a[False]", ((2, 3),)), ("a[0, True]", ((2, 3),)), ("a[b]", ((3,), In(values=True, rg=False))),
        ("a[[0.0, 1.0]]", ((3,),)), ("a[[]]", ((2, 3),)), ("a[:, (0, 2)]", ((2, 3),)), ("a[b:]", ((3,), In(values=1, rg=False))),
        ("a[:, 0:3]", ((2, 3),)), ("a[0:3]", ((3,),)), ("a[:, -3:]", ((2, 3),)), ("a[:, 1:][:, :]", ((2, 3),)), ("a[..., 0, ...]", ((2, 3),)),
        ("a[[0, 1], [0, 1, 2]]", ((2, 3),)), ("a[:, [0, 5]]", ((2, 3),)), ("a[[0, 5], [7, 0]]", ((2, 3),)),
        ("a[:, b]", ((2, 3), In(values=[True, False], rg=False))), ("a[:, b]", ((2, 3), In(values=5, rg=False))),
        ("a[1]", ((),)), ("a[0,]", ((),)), ("a[None, 5]", ((3,),)), ("a[0, 0, 5]", ((2, 3, 4),)), ("a[1.5:]", ((3,),)),
        ("a.t().reshape(3, 1, 2)", ((2, 3),)), ("a[:, ::2].reshape(2, 2, 1)", ((2, 3),)), ("a[:, 1:].flatten()", ((2, 3),)),
        ("a.transpose(0, 1).reshape(3, 2, 2, 2)", ((2, 3, 4),)), ("a.expand(2, 2, 3, 4).reshape(4, 3, 4)", ((2, 3, 4),)),
        ("a @ b", ((2, 3, 4), In((4, 5), rg=False))), ("a @ b", ((2, 3, 4), (4,))), ("a @ b", ((2, 1, 3, 4), In((4,), rg=False))),
        ("a @ b", ((1, 3, 4), In((2, 4, 5), rg=False))), ("a @ b", ((2, 3, 4), (3, 4, 5))),
        ("a.sum(0, keepdim=True)", ((),)), ("a.max(0, keepdim=True)[0]", ((),)), ("a.unsqueeze(-3)", ((2, 3),)),
        ("a.expand(-1, 2, 3)", ((2, 3),)), ("a.expand(2, 3, -1)", ((2, 3),)), ("a.permute(0, -2)", ((2, 3),)),
        ("torch.ones(2, 3).copy_(torch.ones(1, 2, 3))", ()), ("torch.cat([b, a])", ((2, 3), (3,))),
        ("torch.cat([a, b])", ((2, 3), ())), ("torch.cat([b, a, b], 1)", ((2, 3), (0,))),
        ("torch.where(c, a, b)", ((2, 3), (3,), In(values=[True, False, True, False], rg=False))),
        ("torch.tensor([[], []])", ()), ("F.binary_cross_entropy_with_logits(a, b)", ((2, 3), In((1, 3), rg=False))),
        ("out = a * 1; out[0] = torch.ones(2, 3)", ((2, 3),)), ("out = a * 1; out[0] = torch.ones(1, 3)", ((2, 3),)),
        ("a.sum((0, -2))", ((2, 3),)), ("a.sum(dim=[])", ((2, 3),)), ("a.mean(dim=(), keepdim=True)", ((2, 3),)),
        ("a.sum(-2)", ((),)), ("a.flatten(1, 0)", ((2, 3),)), ("a.permute()", ((),)), ("a.double() * 2", ((2, 3),)),
        ("a.select(0, 5)", ((3,),)), ("a.select(0, 0)", ((),)), ("torch.select(a, 1, -1)", ((2, 3),)),
        ("out = a * 1; out[[[0, 1], [1, 0]]] = 5.", ((2, 3),)), ("out = a * 1; out[[0.0, 1.0]] = 5.", ((2, 3),)),
        ("out = a * 1; out[b] = c", ((2, 3), In(values=1, rg=False), (3,))),
        ("out = a * 1; out[:, [0, 2]] = c", ((2, 3), In(values=1, rg=False), (2, 2))),
        ("a.transpose(0, -1)", ((),)), ("a.sum(-1)", ((),)), ("a[..., None, ...]", ((),))]:
    case(expr, *specs)

# ============================================================================ piecewise constant ops, argmax/argmin
for expr in ["a.floor()", "torch.ceil(a)", "a.round()", "torch.trunc(a)", "a.sign()", "a.frac()", "a.floor() * a"]:
    for spec in [(3,), (2, 3), In(values=[1.5, -2.5, 0.5, 2.5, -0.0])]:
        case(expr, spec)
for expr in ["a.argmax()", "a.argmin()", "torch.argmax(a, dim=1)", "a.argmin(0, keepdim=True)",
             "a.argmax(-1, keepdim=True)", "a.argmax(dim=None, keepdim=True)"]:
    case(expr, (2, 3), backward=False)
case("a.argmax()", In(values=[[1.0, 3.0], [3.0, 0.0]]), backward=False, id="argmax: ties pick the first")
case("a.argmax()", In(values=[]), backward=False, id="argmax: empty")
case("a.argmax(0)", (), backward=False)
case("a.floor()", In((2, 3), ints=True, low=-3, high=3, rg=False), backward=False)

# cumulative sums and products (the create_graph formulas are PyTorch's reversed_cumsum and cumprod_backward)
for expr in ["a.cumsum(0)", "torch.cumsum(a, -1)", "a.cumprod(1)", "torch.cumprod(a, 0)"]:
    for spec in [(3,), (2, 3), ()]:
        if spec == () or "1" not in expr.split("(")[-1]:
            case(expr, spec)
case("a.cumprod(0)", In(values=[2.0, 0.0, 3.0, 0.0]), id="cumprod: zeros")
case("a.cumsum(1)", In((2, 3), ints=True, low=-3, high=3, rg=False), backward=False)
case("a.cumsum(0)", In(values=[True, False, True], rg=False), backward=False)

# a 0-d input reduced over dim 0 or -1 (PyTorch allows it)
for expr in ["a.norm(dim=0)", "a.norm(p=1, dim=-1)", "a.norm(dim=0, keepdim=True)", "torch.norm(a, p=inf, dim=0)",
             "a.norm(p=3, dim=(0,))"]:
    case(expr, ())

# ============================================================================ pointwise maths (session 9)
UNIT = dict(low=-0.9, high=0.9)              # asin, acos, atanh, erfinv: inside (-1, 1)
MATHS = [("log1p", dict(low=-0.5, high=2.0)), ("expm1", {}), ("log2", POS), ("log10", POS), ("exp2", {}),
         ("tan", dict(low=-1.2, high=1.2)), ("asin", UNIT), ("acos", UNIT), ("atan", {}), ("sinh", {}), ("cosh", {}),
         ("asinh", {}), ("acosh", dict(low=1.1, high=3.0)), ("atanh", UNIT), ("erf", {}), ("erfc", {}),
         ("erfinv", UNIT), ("sinc", {}), ("deg2rad", {}), ("rad2deg", {}), ("logit", dict(low=0.05, high=0.95)),
         ("nan_to_num", {}), ("positive", {}), ("fix", {})]
for name, kw in MATHS:
    for shape in SHAPES:
        case(f"a.{name}()", In(shape, **kw))
    case(f"torch.{name}(a)", In((2, 3), **kw))
    case(f"a.{name}()", In((3,), dtype="float64", **kw))
    case(f"torch.{name}(a)", In((2, 3), rg=False, ints=True, low=0, high=3))
    if name != "positive":
        case(f"(a * 1).{name}_()", In((2, 3), **kw))
        case(f"a.clone().{name}_()", In((3,), rg=False, ints=True, low=0, high=3))
for alias, kw in [("arcsin", UNIT), ("arccos", UNIT), ("arctan", {}), ("arcsinh", {}),
                  ("arccosh", dict(low=1.1, high=3.0)), ("arctanh", UNIT)]:
    case(f"torch.{alias}(a)", In((2, 3), **kw))
    case(f"(a * 1).{alias}_()", In((2, 3), **kw))
# values at the edges of each domain: infinities, nan, zeros, +-1
EDGES = [0.0, -0.0, 1.0, -1.0, 0.5, 2.0, -3.5, 20.0, -20.0, 100.0, inf_ := float("inf"), -inf_, float("nan")]
for name in ("log1p", "expm1", "log2", "log10", "exp2", "tan", "asin", "acos", "atan", "sinh", "cosh", "asinh",
             "acosh", "atanh", "erf", "erfc", "erfinv", "sinc", "logit", "nan_to_num"):
    case(f"a.{name}()", In(values=EDGES), id=f"{name} at the edges", backward=False, second_order=False)
case("a.sinc()", In(values=[0.0, 1.0, -2.0, 0.25]))
# sinc(1) is tiny, not 0: the second order at it is all cancellation, so the order PyTorch's
# formula makes its nodes in (sin before cos) decides it
case("a.sinc().sinc()", In(values=[0.0, 0.5, 1.0]))
case("a.logit(0.1)", In(values=[0.05, 0.1, 0.5, 0.95, 0.9]))
case("torch.logit(a, eps=0.25)", (2, 3))
case("a.logit()", In(values=[-0.5, 0.0, 0.5, 1.0, 1.5]), second_order=False)
case("a.nan_to_num()", In(values=[float("nan"), inf_, -inf_, 1.5]))
case("a.nan_to_num(nan=1.0, posinf=2.0, neginf=-3.0)", In(values=[float("nan"), inf_, -inf_, 1.5]))
case("torch.nan_to_num(a, 0.5)", In(values=[float("nan"), inf_, 2.0], dtype="float64"))
case("+a", In((2, 3), rg=False, dtype="bool", values=[[True, False, True], [False, False, True]]))
case("torch.positive(a)", In((3,), rg=False, values=[True, False, True]))
case("torch.fix(a)", In((3,), rg=False, values=[True, False, True]))

# two operands: broadcasting, either side requiring grad, dtypes
for name, a_kw, b_kw in [("atan2", {}, {}), ("hypot", {}, {}), ("fmod", {}, POS), ("xlogy", {}, POS),
                         ("copysign", {}, {}), ("logaddexp", {}, {}), ("logaddexp2", {}, {}), ("fmax", {}, {}),
                         ("fmin", {}, {}), ("true_divide", {}, POS), ("float_power", POS, {})]:
    for sa, sb in [((2, 3), (2, 3)), ((2, 3), (3,)), ((), (2, 3)), ((2, 1, 4), (3, 1))]:
        case(f"torch.{name}(a, b)", In(sa, **a_kw), In(sb, **b_kw))
    case(f"a.{name}(b)", In((2, 3), rg=False, **a_kw), In((3,), **b_kw))
    case(f"a.{name}(b)", In((2, 3), **a_kw), In((2, 3), rg=False, **b_kw))
    case(f"torch.{name}(a, b)", In((3,), dtype="float64", **a_kw), In((3,), **b_kw))
    case(f"(a * 1).{name}_(b)" if name not in ("logaddexp", "logaddexp2", "fmax", "fmin") else f"a.{name}(b)",
         In((2, 3), dtype="float64" if name == "float_power" else None, **a_kw), In((3,), **b_kw))
for expr in ["torch.atan2(a, b)", "torch.arctan2(a, b)", "torch.fmod(a, b)", "torch.xlogy(a, b)",
             "torch.copysign(a, b)", "torch.fmax(a, b)", "torch.fmin(a, b)", "torch.true_divide(a, b)",
             "torch.float_power(a, b)"]:
    case(expr, In((2, 3), rg=False, ints=True, low=1, high=5), In((3,), rg=False, ints=True, low=1, high=4))
for expr in ["torch.fmod(a, 0.75)", "a.fmod(-2)", "torch.xlogy(a, 2.5)", "torch.xlogy(3, a)", "torch.xlogy(0.0, a)",
             "a.copysign(-1.0)", "a.copysign(0.0)", "torch.true_divide(a, 4)", "a.float_power(2)",
             "torch.float_power(a, 0.5)", "torch.float_power(2, a)", "torch.float_power(a, -1)",
             "(a * 1).fmod_(1.5)", "(a * 1).xlogy_(3)", "(a * 1).copysign_(-2)", "(a * 1).true_divide_(3)"]:
    case(expr, In((2, 3), **POS))
    case(expr, In((3,), dtype="float64", **POS))
# ties, zeros, nan: which operand takes the gradient
TIES = [[1.0, -0.0, float("nan"), 2.0, float("nan"), 0.0]]
TIES_B = [[1.0, 0.0, 1.0, float("nan"), float("nan"), -2.0]]
for name in ("fmax", "fmin", "copysign", "atan2", "hypot", "xlogy", "logaddexp", "logaddexp2"):
    case(f"torch.{name}(a, b)", In(values=TIES), In(values=TIES_B), id=f"{name}: ties, zeros, nan")
# atan2's two gradients share one 1 / (self^2 + other^2) node, as in PyTorch: the second order of
# a function of one operand only is rounding noise, which then adds up in PyTorch's order
for seed in (1, 3):
    case("torch.atan2(a * b, b) * a", (2, 3), (3,), seed=seed, id=f"atan2 second order, one shared node #{seed}")
case("torch.logaddexp(a, b)", In(values=[inf_, -inf_, inf_, 1.0, -inf_]), In(values=[inf_, -inf_, -inf_, 2.0, 3.0]),
     second_order=False)
case("torch.xlogy(a, b)", In(values=[0.0, 0.0, 2.0, 1.0]), In(values=[0.0, float("nan"), 0.0, 3.0]))
case("torch.fmod(a, b)", In(values=[5.5, -5.5, 5.5, -5.5, 0.0]), In(values=[2.0, 2.0, -2.0, -2.0, 1.0]))
case("a.fmod(b)", In((4,), rg=False, ints=True, low=-9, high=9), In((4,), rg=False, ints=True, low=1, high=4))
case("torch.fmod(a, 3)", In((4,), rg=False, ints=True, low=-9, high=9))

# three operands
for sa, sb, sc in [((2, 3), (2, 3), (2, 3)), ((2, 3), (3,), ()), ((3,), (2, 1), (2, 3)), ((), (), ())]:
    case("torch.lerp(a, b, c)", In(sa), In(sb), In(sc))
    case("torch.lerp(a, b, 0.3)", In(sa), In(sb))
    case("torch.addcmul(a, b, c)", In(sa), In(sb), In(sc))
    case("torch.addcdiv(a, b, c, value=0.5)", In(sa), In(sb), In(sc, **POS))
for rg in [(True, False, False), (False, True, False), (False, False, True)]:
    case("torch.lerp(a, b, c)", *(In((2, 3), rg=r) for r in rg))
    case("torch.addcmul(a, b, c, value=-2)", *(In((2, 3), rg=r) for r in rg))
    case("torch.addcdiv(a, b, c)", *(In((2, 3), rg=r) for r in rg[:2]), In((2, 3), rg=rg[2], **POS))
case("a.lerp(b, 0.75)", (2, 3), (2, 3))
case("a.lerp(b, 1)", (2, 3), (3,))
case("a.lerp(b, c)", (2, 3), (2, 3), In(values=[-0.5, 0.5, 1.5]))
case("a.lerp(b, c)", (2, 3), (2, 3), In(values=[0.49, -0.49, 0.51]))
case("(a * 1).lerp_(b, 0.25)", (2, 3), (3,))
case("(a * 1).lerp_(b, c)", (2, 3), (3,), (2, 3))
case("torch.lerp(a, b, c)", In((3,), dtype="float64"), In((3,), dtype="float64"), In((), rg=False, dtype="float64"))
case("a.addcmul(b, c, value=0.5)", (2, 3), (3,), (2, 1))
case("(a * 1).addcmul_(b, c)", (2, 3), (3,), (2, 1))
case("(a * 1).addcdiv_(b, c, value=3)", (2, 3), (3,), In((2, 1), **POS))
case("torch.addcmul(a, b, c, value=2.5)", In((3,), dtype="float64"), (3,), (3,))
case("torch.addcmul(a, b, c)", In((3,), rg=False, ints=True), In((3,), rg=False, ints=True),
     In((3,), rg=False, ints=True))
case("a.clone().addcmul_(b, c, value=2.5)", In((3,), rg=False, ints=True), In((3,), rg=False, ints=True),
     In((3,), rg=False, ints=True))
case("torch.addcdiv(a, b, c)", (3,), In((3,), rg=False, ints=True), In((3,), rg=False, ints=True, low=1, high=4))
case("torch.addcdiv(a, b, c)", In((3,), rg=False, ints=True), (3,), In((3,), rg=False, ints=True, low=1, high=4))

# PyTorch's errors
for expr, specs in [
        ("torch.hypot(a, b)", (In((3,), rg=False, ints=True), In((3,), rg=False, ints=True))),
        ("torch.logaddexp(a, b)", (In((3,), rg=False, ints=True), In((3,), rg=False, ints=True))),
        ("torch.logaddexp2(a, b)", (In((3,), rg=False, values=[True, False, True]), In((3,), rg=False, ints=True))),
        ("torch.atan2(a, b)", ((3,), (2,))),
        ("torch.fmod(a, 0)", (In((3,), rg=False, ints=True),)),
        ("torch.fmod(a, b)", (In((3,), rg=False, ints=True), In((3,), rg=False, ints=True, low=0, high=1))),
        ("torch.fmod(a, b)", (In((3,), rg=False, values=[True, False, True]),
                              In((3,), rg=False, values=[True, True, True]))),
        ("torch.lerp(a, b, 0.5)", (In((3,), rg=False, ints=True), In((3,), rg=False, ints=True))),
        ("torch.lerp(a, b, c)", (In((3,), rg=False, ints=True), In((3,), rg=False, ints=True),
                                 In((3,), rg=False, ints=True))),
        ("torch.lerp(a, b, 0.5)", ((3,), In((3,), dtype="float64"))),
        ("torch.lerp(a, b, c)", ((3,), (3,), In((3,), dtype="float64"))),
        ("torch.lerp(a, b, c)", ((3,), (3,), In((3,), rg=False, ints=True))),
        ("torch.lerp(a, b, 0.5)", ((3,), (2,))),
        ("(a * 1).lerp_(b, 0.5)", ((3,), (2, 3))),
        ("torch.addcmul(a, b, c)", ((3,), (2,), (3,))),
        ("(a * 1).addcmul_(b, c)", ((3,), (2, 3), (3,))),
        ("torch.addcdiv(a, b, c)", (In((3,), rg=False, ints=True), In((3,), rg=False, ints=True),
                                    In((3,), rg=False, ints=True, low=1, high=3))),
        ("(a * 1).float_power_(2)", ((3,),)),
        ("(a * 1).atan2_(b)", (In((3,), rg=False, ints=True), (3,))),
        ("a.clone().log1p_()", (In((3,), rg=False, ints=True),)),
        ("+a", (In((3,), rg=False, values=[True, False, True]),)),
        ("torch.fix(a)", (In((3,), rg=False, values=[True, False, True]),)),
        ("a.log1p_()", ((3,),))]:
    case(expr, *specs)

# ============================================================================ comparisons/predicates and statistical reductions (session 9)
# the comparison functions and methods take the `==` operators' path: same promotion, broadcasting and errors
CMP_V = In(values=[[1.0, 2.0, 3.0], [3.0, 2.0, 1.0]])
for name, alias, op in (("eq", None, "=="), ("ne", "not_equal", "!="), ("gt", "greater", ">"), ("ge", "greater_equal", ">="),
                        ("lt", "less", "<"), ("le", "less_equal", "<=")):
    case(f"torch.{name}(a, b)", CMP_V, In(values=[1.0, 2.0, 1.0]))
    case(f"a.{name}(2)", CMP_V)
    case(f"torch.{name}(a, 2.5)", In((2, 3), ints=True, low=-3, high=3))
    case(f"a.{name}(b)", In((3,), ints=True, low=0, high=3), In((2, 3), low=0, high=3))
    case(f"(a {op} b).equal(torch.{name}(a, b))", In((2, 3), ints=True, low=0, high=2), In((3,), ints=True, low=0, high=2),
         id=f"{name}: agrees with {op}")
    case(f"torch.{name}(a, b)", (2, 3), (2,), id=f"error: {name} shapes")
    case(f"torch.{name}(a, b)", In(values=[True, False]), In(values=[1, 0]))
    case(f"torch.{name}(a, b)", In(values=[1.0, float('nan')]), In(values=[1.0, float('nan')]), id=f"{name}: nan")
    # in place: written as the tensor's dtype; a node whose gradients are zeros (EqBackward0/1)
    case(f"(a * 1).{name}_(b)", (2, 3), (3,))
    case(f"(a * 1).{name}_(b)", (2, 3), In((2, 3), rg=False))
    case(f"(a * 1).{name}_(0.5)", (2, 3))
    case(f"a.clone().{name}_(b)", In((3,), ints=True, low=0, high=3), In(values=[1.5, 1.0, 2.0], rg=False))
    case(f"a.{name}_(1)", (2, 3), id=f"error: {name}_ on a leaf that requires grad")
    case(f"a.clone().{name}_(b)", In((3,), rg=False), In((2, 3), rg=False), id=f"error: {name}_ broadcast")
    if alias:
        case(f"torch.{alias}(a, b)", (2, 3), (3,))
        case(f"a.{alias}(0.0)", (2, 3))
        case(f"(a * 1).{alias}_(b)", (2, 3), (3,))
case("a.eq(b)", (), (2, 3))
case("import numpy as np; out = torch.stack([torch.eq(a, np.int64(1)), a.gt(np.float32(0.5)), a <= np.float64(1)])",
     In((4,), ints=True, low=0, high=3), id="comparisons: NumPy numbers")
case("import numpy as np; out = a.clone().lt_(np.int64(1))", In((4,), ints=True, low=0, high=3), id="lt_: a NumPy number")
case("a.clone().lt_(b)", In((2, 3), rg=False), (3,), id="lt_: only the other operand requires grad")
case("out = a * 1; out[0].ge_(b); out = out * 2", (2, 3), (3,), id="ge_ on a view: CopySlices")
case("a.clone().ne_(b)", In((2, 3), rg=False), In((3,), rg=False), id="ne_: nothing requires grad")
case("torch.eq(a, b)", In((2, 3), dtype="float64"), (3,))

PRED_V = In(values=[1.0, float("nan"), float("inf"), -float("inf"), -0.0, 0.0, -2.5])
for name in ("isnan", "isinf", "isfinite", "isposinf", "isneginf", "signbit", "isreal"):
    case(f"torch.{name}(a)", PRED_V)
    case(f"a.{name}()", (2, 3))
    case(f"torch.{name}(a)", In((3,), ints=True, low=-3, high=3))
    case(f"torch.{name}(a)", In(values=[True, False]))
    case(f"a.{name}()", In(values=2.0, dtype="float64"))
for args in ("", ", equal_nan=True", ", rtol=0.5", ", atol=1.0", ", rtol=0, atol=0", ", 0.1, 0.1"):
    case(f"torch.isclose(a, b{args})", In(values=[1.0, float("nan"), float("inf"), 2.0, 1e-9]),
         In(values=[1.0, float("nan"), float("inf"), 2.5, 0.0]))
case("a.isclose(b)", (2, 3), (3,))
case("torch.isclose(a, b, atol=1)", In((3,), ints=True, low=0, high=3), In((3,), ints=True, low=0, high=3))
case("torch.isclose(a, b)", In(values=[True, False]), In(values=[True, True]))
case("torch.isclose(a, b)", In((3,), ints=True), In((3,)), id="error: isclose dtypes")
case("torch.isclose(a, b, rtol=-1)", (3,), (3,), id="error: isclose rtol")
case("torch.isclose(a, b)", (2, 3), (2,), id="error: isclose shapes")
for specs in (((2, 3), (2, 3)), ((2, 3), (3,)), (In(values=[1, 2]), In(values=[1.0, 2.0])),
              (In(values=[1.0, float("nan")]), In(values=[1.0, float("nan")]))):
    case("torch.tensor(torch.equal(a, b))", *specs)
case("torch.tensor(torch.equal(a, a.detach()))", (2, 3))
case("torch.tensor(a.is_nonzero())", In(values=[0.0]))
case("torch.tensor(torch.is_nonzero(a))", In(values=float("nan")))
case("torch.tensor(a.is_nonzero())", In(values=[1, 2]), id="error: is_nonzero of two values")
case("torch.tensor(a.is_nonzero())", In((0,)), id="error: is_nonzero of no values")
for args in ("", ", 0", ", -1", ", (0, 1)", ", dim=[1]", ", dim=()"):
    case(f"torch.count_nonzero(a{args})", In(values=[[1.0, 0.0, 2.0], [0.0, 0.0, -1.0]]))
case("a.count_nonzero()", In((3,), ints=True, low=0, high=2))
case("a.count_nonzero(0)", In(values=3.0))
case("a.count_nonzero(2)", (2, 3), id="error: count_nonzero dim")
case("a.count_nonzero((0, 0))", (2, 3), id="error: count_nonzero repeated dim")


# var and std: PyTorch's three overloads (dim, unbiased, keepdim), (dim, *, correction, keepdim), (unbiased)
for fn in ("var", "std"):
    for shape in SHAPES:
        case(f"a.{fn}()", shape)
    for args in ("0", "1", "-1", "dim=1", "1, True", "1, False", "1, True, True", "dim=(0, 2)", "dim=[-1, 0], keepdim=True",
                 "False", "True", "unbiased=False", "dim=None", "dim=None, keepdim=True", "keepdim=True",
                 "correction=0", "correction=2", "correction=0.5", "dim=1, correction=None", "dim=2, correction=3",
                 "1, correction=0, keepdim=True", "dim=[]"):
        case(f"a.{fn}({args})", (2, 3, 4))
    case(f"torch.{fn}(a, 1)", (2, 3))
    case(f"torch.{fn}(a, dim=0, unbiased=False)", In((3, 2), dtype="float64"))
    case(f"a.{fn}()", In(values=[2.0, 2.0, 2.0]), id=f"{fn}: constant input")
    case(f"a.{fn}(1)", In(values=[[1.0, 1.0], [0.0, 3.0]]), id=f"{fn}(1): a constant row")
    case(f"a.{fn}()", In(values=[1.5]), id=f"{fn}: one element (degrees of freedom 0)")
    case(f"a.{fn}(0)", (), id=f"{fn}(0) of a 0-d tensor")
    case(f"a.{fn}(correction=4)", (3,), id=f"{fn}: correction past n")
    case(f"a.{fn}(1)", In((2, 0)), id=f"{fn}: empty")
    case(f"a.{fn}()", In((3,), ints=True), id=f"error: {fn} of integers")
    case(f"a.{fn}(2)", (2, 3), id=f"error: {fn} dim")
    case(f"(a * 1).{fn}(1)", (2, 3))
for fn in ("var_mean", "std_mean"):
    for args in ("", "1", "dim=0, keepdim=True", "-1, False", "correction=0", "unbiased=False", "dim=(0, 1)"):
        case(f"torch.{fn}(a{', ' if args else ''}{args})", (2, 3))
        case(f"torch.{fn}(a{', ' if args else ''}{args})[0]", (2, 3))
        case(f"torch.{fn}(a{', ' if args else ''}{args})[1]", (2, 3))
    case(f"torch.{fn}(a)", In(values=[2.0, 2.0]), id=f"{fn}: constant input")
    case(f"torch.{fn}(a)", (), id=f"{fn}: 0-d")
    case(f"torch.{fn}(a, 0)", In((4,), dtype="float64"))
# logsumexp: the maxima taken out first (large and infinite values)
for args in ("0", "1", "-1", "(0, 1)", "dim=1, keepdim=True", "[0, -1]"):
    case(f"a.logsumexp({args})", (2, 3))
case("torch.logsumexp(a, 0)", ())
case("torch.logsumexp(a, 1)", In(values=[[1000.0, 1000.0], [-1000.0, 0.0]]), id="logsumexp: large values")
case("torch.logsumexp(a, 0)", In(values=[-float("inf"), -float("inf")]), id="logsumexp: all -inf")
case("torch.logsumexp(a, 0)", In(values=[float("inf"), 1.0]), id="logsumexp: inf")
case("torch.logsumexp(a, 0)", In((3,), ints=True))
case("torch.logsumexp(a, 1)", In((2, 3), dtype="float64"))
case("torch.logsumexp(a, ())", (3,), id="error: logsumexp over no dims")
case("a.logsumexp(2)", (2, 3), id="error: logsumexp dim")
# amax/amin: ties share the gradient evenly (max/min with a dim pick one)
for fn in ("amax", "amin"):
    for args in ("", "0", "1", "-1", "(0, 1)", "dim=1, keepdim=True", "[]", "dim=(0, 1), keepdim=True", "None"):
        case(f"a.{fn}({args})", (2, 3))
    case(f"torch.{fn}(a)", In(values=[[3.0, 1.0, 3.0], [0.0, 3.0, 0.0]]), id=f"{fn}: ties share")
    case(f"torch.{fn}(a, 1)", In(values=[[3.0, 1.0, 3.0], [0.0, 3.0, 0.0]]), id=f"{fn}(1): ties share")
    case(f"torch.{fn}(a, 0, True)", In(values=[[1.0, 1.0], [1.0, 2.0]]), id=f"{fn}(0, keepdim): ties share")
    case(f"torch.{fn}(a, 0)", ())
    case(f"torch.{fn}(a)", In(values=[1.0, float("nan"), 2.0]), id=f"{fn}: nan")
    case(f"torch.{fn}(a, 1)", In((2, 3), ints=True))
    case(f"torch.{fn}(a)", In(values=[True, False]))
    case(f"torch.{fn}(a, 1)", In((0, 3)), id=f"error: {fn} over an empty dim")
    case(f"torch.{fn}(a)", In((0, 3)), id=f"error: {fn} of an empty tensor")
    case(f"torch.{fn}(a, 0)", In((0, 3)), id=f"error: {fn} over a zero-size dim")
    case(f"torch.{fn}(a, (0, 0))", (2, 3), id=f"error: {fn} repeated dim")
# aminmax: one node, two outputs, both saved
for args in ("", "dim=0", "dim=-1, keepdim=True", "keepdim=True"):
    case(f"torch.aminmax(a{', ' if args else ''}{args})", (2, 3))
    case(f"a.aminmax({args}).max", (2, 3))
    case(f"a.aminmax({args}).min", (2, 3))
case("torch.aminmax(a)", In(values=[[1.0, 3.0, 3.0], [2.0, 2.0, 0.0]]), id="aminmax: ties share")
case("torch.aminmax(a, dim=1)", In(values=[[1.0, 3.0, 3.0], [2.0, 2.0, 0.0]]), id="aminmax(dim=1): ties share")
case("torch.aminmax(a, dim=0)", ())
case("torch.aminmax(a, dim=1)", In((2, 3), ints=True))
case("torch.aminmax(a)", In((0, 3)), id="error: aminmax of an empty tensor")
case("torch.aminmax(a, dim=0)", In((0, 3)), id="error: aminmax over a zero-size dim")
case("torch.aminmax(a, 0)", (2, 3), id="error: aminmax dim is keyword-only")
case("torch.stack(list(torch.aminmax(a, dim=1)))", (2, 3))
# nansum/nanmean: nan counts as zero, and gets no gradient
NAN_V = In(values=[[1.0, float("nan"), 2.0], [float("nan"), float("nan"), -1.0]])
for fn in ("nansum", "nanmean"):
    for args in ("", "0", "1", "dim=-1, keepdim=True", "(0, 1)", "keepdim=True", "dtype=torch.float64"):
        case(f"a.{fn}({args})", NAN_V)
        case(f"torch.{fn}(a{', ' if args else ''}{args})", (2, 3))
    case(f"torch.{fn}(a)", ())
case("torch.nansum(a)", In((2, 3), ints=True))
case("torch.nansum(a, 1)", In(values=[[True, False], [True, True]]))
case("torch.nanmean(a)", In((2, 3), ints=True), id="error: nanmean of integers")
case("torch.nanmean(a, 1)", In((2, 0)))
case("torch.var_mean(a)", In((3,), ints=True), id="error: var_mean of integers")
case("torch.std_mean(a, 0)", In(values=[True, False]), id="error: std_mean of bools")
case("torch.logsumexp(a, 0)", In(values=[True, False]))
case("torch.nansum(a, 0, dtype=torch.float64)", In((2, 3), ints=True))
case("torch.isclose(a, b, equal_nan=True)", In(values=[1, 2]), In(values=[1, 3]))
case("torch.count_nonzero(a, 0)", In(values=[True, False]))
case("torch.amax(a, 1)", In((2, 3), dtype="float64"))
case("torch.median(a, 1)", In((2, 3), dtype="float64"))
case("a.mode(1)", In((3, 40), ints=True, low=0, high=4, dtype="float32"), id="mode: rows past 16, std::sort's order of ties")
case("a.mode(0)", In((50, 2), ints=True, low=0, high=3), id="mode(0): integers, rows past 16")


def _median_of_3_killer(n):
    """Musser's sequence: the introsort that orders mode's rows falls back to heapsort on it."""
    out, k = [0] * n, n // 2
    for i in range(1, k + 1):
        if i % 2:
            out[i - 1], out[i] = i, k + i
        out[k + i - 1] = 2 * i
    return out


case("a.mode()", In(values=[float(v // 2) for v in _median_of_3_killer(128)]), id="mode: introsort's heapsort, with ties")
NAN = float("nan")
case("torch.mode(a, 1)", In(values=[[1.0, NAN, NAN, NAN, NAN], [2.0, 2.0, NAN, 0.0, 3.0], [NAN, 1.0, 1.0, NAN, NAN],
                                    [NAN] * 5, [NAN, 1.0, NAN, 2.0, 2.0], [3.0, NAN, 1.0, NAN, 3.0]]), id="mode: nan")


# median/nanmedian: the lower median; over a dim the index of that rank in (value, index) order (ties: deterministic)
MED_V = In(values=[[3.0, 1.0, 3.0, 2.0, 3.0], [1.0, 1.0, 2.0, 2.0, 0.0], [5.0, 5.0, 5.0, 5.0, 5.0], [2.0, 1.0, 2.0, 1.0, 7.0]])
MED_NAN = In(values=[[1.0, float("nan"), 2.0], [float("nan"), float("nan"), 1.0], [float("nan")] * 3, [0.5, 4.0, -1.0]])
for fn in ("median", "nanmedian"):
    for shape in SHAPES + [(4,)]:
        case(f"a.{fn}()", shape)
    for args in ("0", "1", "-1", "dim=2", "1, True", "dim=-2, keepdim=True"):
        case(f"a.{fn}({args})", (2, 3, 4))
    case(f"torch.{fn}(a, 1)", MED_V, id=f"{fn}(1): ties")
    case(f"torch.{fn}(a, 0)", MED_V, id=f"{fn}(0): ties")
    case(f"torch.{fn}(a)", MED_V, id=f"{fn}: ties share")
    case(f"torch.{fn}(a, 1)", MED_NAN, id=f"{fn}(1): nan")
    case(f"torch.{fn}(a)", MED_NAN, id=f"{fn}: nan")
    case(f"torch.{fn}(a)", In(values=[float("nan"), float("nan")]), id=f"{fn}: all nan")
    case(f"torch.{fn}(a, 0)", ())
    case(f"torch.{fn}(a, 1)", In((3, 4), ints=True, low=0, high=3))
    case(f"torch.{fn}(a)", In((5,), ints=True, low=0, high=3))
    case(f"torch.{fn}(a)", In((0,)))
    case(f"torch.{fn}(a, 1)", In((2, 0)), id=f"error: {fn} over an empty dim")
    case(f"torch.{fn}(a, 0)", In((2, 0)))
    case(f"torch.{fn}(a)", In(values=[True, False]), id=f"error: {fn} of bools")
    case(f"torch.{fn}(a, 0)", In(values=[True, False]), id=f"error: {fn}(0) of bools")
    case(f"a.{fn}(2)", (2, 3), id=f"error: {fn} dim")
    case(f"a.{fn}(1).values", (2, 3))
    case(f"a.{fn}(dim=1).indices", (2, 3))
case("torch.median(a)", In((0,), ints=True))
# mode: the most frequent value (ties: the smallest), its last index
for args in ("", "0", "1", "-1", "dim=0, keepdim=True", "1, True"):
    case(f"a.mode({args})", MED_V)
    case(f"torch.mode(a{', ' if args else ''}{args})", In((3, 4), ints=True, low=0, high=3))
case("a.mode()", (2, 3))
case("a.mode(0)", ())
case("a.mode()", (5,))
case("a.mode().values", In(values=[[2.0, 1.0, 2.0, 1.0], [0.5, 0.5, 0.5, 3.0]]))
case("a.mode()", In(values=[True, False, True]))
case("a.mode(0)", In((0, 2)), id="error: mode over an empty dim")
case("a.mode(1)", In((0, 2)))
case("a.mode(2)", (2, 3), id="error: mode dim")



# -- sorting, selection and index ops (session 9)
I24 = "torch.tensor([[0, 1, 2, 0], [1, 0, 1, 2]])"
for expr, specs in [
        (f"torch.gather(a, 0, {I24})", ((3, 4),)), (f"a.gather(-2, {I24})", ((3, 4),)),
        ("a.gather(1, torch.tensor([[0, 0], [3, 1], [2, 2]]))", ((3, 4),)),
        ("a.gather(2, torch.tensor([[[1], [0]]]))", ((2, 3, 4),)),
        ("a.gather(0, torch.tensor([[0, 1], [1, 0]], dtype=torch.int32))", ((2, 3),)),
        ("a.gather(0, torch.tensor(0))", ((),)), ("a.gather(0, torch.tensor([0, 0]))", ((),)),
        ("a.gather(0, torch.zeros(0, 3, dtype=torch.long))", ((2, 3),)),
        ("torch.gather(a, 1, torch.tensor([[2, 0]]), sparse_grad=False)", ((2, 3),)),
        ("a.gather(1, torch.tensor([[1, 1], [0, 2]]))", (In((2, 3), ints=True, low=-5, high=5),)),
        ("(a.gather(0, torch.tensor([[1, 0, 1]])) ** 2).sum()", ((2, 3),)),
        ("a.gather(0, torch.tensor([0, 1, 1]))", ((3,),)),
        # errors, in PyTorch's order
        ("a.gather(0, torch.tensor([0.0]))", ((3,),)), ("a.gather(1, torch.tensor([0, 1]))", ((2, 3),)),
        ("a.gather(2, torch.tensor([[0]]))", ((2, 3),)), ("a.gather(0, torch.tensor([[2, 0, 0]]))", ((2, 3),)),
        ("a.gather(0, torch.tensor([[-1, 0, 0]]))", ((2, 3),)),
        ("a.gather(1, torch.zeros(3, 2, dtype=torch.long))", ((2, 3),)),
        ("a.gather(0, torch.zeros(1, 4, dtype=torch.long))", ((2, 3),))]:
    case(expr, *specs)
for expr, specs in [
        (f"torch.scatter(a, 0, {I24}, b)", ((3, 4), (2, 4))), (f"a.scatter(0, {I24}, b)", ((3, 4), In((2, 4), rg=False))),
        (f"a.scatter(0, {I24}, b)", (In((3, 4), rg=False), (2, 5))),
        ("a.scatter(1, torch.tensor([[2], [0]]), 1.5)", ((2, 3),)),
        ("torch.scatter(a, -1, torch.tensor([[2], [0]]), value=-1)", ((2, 3),)),
        ("a.scatter(1, torch.tensor([[2, 2]]), b)", ((2, 3), (1, 2))),
        ("a.scatter(0, torch.tensor(0), b)", ((), ())),
        ("torch.zeros(2, 4).scatter_(1, torch.tensor([[1], [3]]), 1.0)", ()),
        ("out = a * 1; out.scatter_(1, torch.tensor([[0, 1], [1, 2]]), b)", ((2, 3), (2, 2))),
        ("a.scatter(1, torch.tensor([[1], [0]], dtype=torch.int32), 7)", (In((2, 3), ints=True, low=0, high=9),)),
        ("torch.scatter_add(a, 0, torch.tensor([[1, 1, 0]]), b)", ((2, 3), (1, 3))),
        (f"a.scatter_add(0, {I24}, b)", ((3, 4), (2, 4))), (f"a.scatter_add(0, {I24}, b)", (In((3, 4), rg=False), (2, 4))),
        (f"a.scatter_add(0, {I24}, b)", ((3, 4), In((2, 4), rg=False))),
        ("a.scatter_add(-1, torch.tensor([[0, 0, 0], [2, 2, 1]]), b)", ((2, 3), (2, 4))),
        ("out = a * 1; out.scatter_add_(1, torch.tensor([[0, 0]]), b)", ((2, 3), (1, 2))),
        ("a.scatter_add(0, torch.tensor([0, 0, 1]), b)", (In((2,), ints=True, low=0, high=5),
                                                          In((3,), ints=True, low=0, high=5))),
        ("(a.scatter(0, torch.tensor([[1, 0]]), b) ** 2).sum()", ((2, 2), (1, 2))),
        ("(a.scatter_add(0, torch.tensor([[1, 0]]), b) ** 2).sum()", ((2, 2), (1, 2))),
        # errors
        (f"a.scatter(0, {I24}, b)", ((3, 4), In((2, 4), dtype="float64"))), (f"a.scatter(0, {I24}, b)", ((3, 4), (1, 4))),
        ("a.scatter(0, torch.tensor([[2, 0]]), 1.0)", ((2, 3),)), ("a.scatter(0, torch.tensor([[0.5]]), 1.0)", ((2, 3),)),
        ("a.scatter(0, torch.tensor([0]), 1.0)", ((2, 3),)), ("a.scatter(0, torch.tensor([[0]]), b)", ((2, 3), ())),
        ("a.scatter_add(0, torch.tensor([[0, 1]]), b)", ((2, 3), (1, 1))),
        ("a.scatter_add(0, torch.tensor([[0, 1]]), b)", (In((2, 3), ints=True), (1, 2))),
        ("a.scatter_add(3, torch.tensor([[0, 1]]), b)", ((2, 3), (1, 2))),
        # reduce=: PyTorch's NotImplemented node, whose backward raises
        (f"torch.scatter(a, 0, {I24}, b, reduce='add')", ((3, 4), (2, 4))),
        (f"a.scatter(0, {I24}, b, reduce='multiply')", ((3, 4), In((2, 5), rg=False))),
        (f"a.scatter(0, {I24}, b, reduce='add')", (In((3, 4), rg=False), (2, 4))),
        ("a.scatter(1, torch.tensor([[0, 0], [2, 1]]), 1.5, reduce='add')", ((2, 3),)),
        ("a.scatter(1, torch.tensor([[0, 0], [2, 1]]), value=2.5, reduce='multiply')",
         (In((2, 3), ints=True, low=1, high=4),)),
        ("out = a * 1; out.scatter_(0, torch.tensor([[1, 1]]), b, reduce='add')", ((2, 2), (1, 2))),
        ("a.scatter(0, torch.tensor([[1]]), 1.0, reduce='mean')", ((2, 2),)),
        ("a.scatter(0, torch.tensor([[1]]), b, reduce='sum')", ((2, 2), (1, 1)))]:
    case(expr, *specs)
for expr, specs in [
        ("torch.index_select(a, 0, torch.tensor([2, 0, 2]))", ((3, 4),)),
        ("a.index_select(-1, torch.tensor([3, 1]))", ((3, 4),)),
        ("a.index_select(1, torch.tensor([0, 0], dtype=torch.int32))", ((2, 3, 4),)),
        ("a.index_select(0, torch.tensor(1))", ((3, 4),)), ("a.index_select(0, torch.tensor([0]))", ((),)),
        ("a.index_select(0, torch.tensor([], dtype=torch.long))", ((3, 4),)),
        ("(a.index_select(0, torch.tensor([1, 1])) ** 2).sum()", ((2, 3),)),
        ("a.index_select(1, torch.tensor([2]))", (In((2, 3), ints=True),)),
        ("a.index_select(0, torch.tensor([3]))", ((3,),)), ("a.index_select(0, torch.tensor([-1]))", ((3,),)),
        ("a.index_select(0, torch.tensor([[0]]))", ((3,),)), ("a.index_select(0, torch.tensor([0.0]))", ((3,),)),
        ("a.index_select(2, torch.tensor([0]))", ((2, 3),)),
        ("torch.take(a, torch.tensor([[0, 5], [-1, 2]]))", ((2, 3),)), ("a.take(torch.tensor([3, 3, -6]))", ((2, 3),)),
        ("a.take(torch.tensor(0))", ((),)), ("a.take(torch.tensor([6]))", ((2, 3),)),
        ("a.take(torch.tensor([1], dtype=torch.int32))", ((2, 3),)),
        ("torch.take_along_dim(a, torch.tensor([[0, 2], [1, 1]]), 1)", ((2, 3),)),
        ("a.take_along_dim(torch.tensor([[0], [1]]), dim=1)", ((2, 3),)),
        ("a.take_along_dim(torch.tensor([[1, 0, 1]]), 0)", ((2, 3),)),
        ("a.take_along_dim(torch.tensor([5, 0]))", ((2, 3),)), ("torch.take_along_dim(a, a.argmax(1, keepdim=True), 1)", ((2, 3),)),
        ("a.take_along_dim(torch.tensor([[0, 1]]), 1)", ((3, 4),)),
        ("a.take_along_dim(torch.tensor([[0]], dtype=torch.int32), 1)", ((2, 3),)),
        ("a.take_along_dim(torch.tensor([0]), 0)", ((2, 3),)),
        ("a.take_along_dim(torch.tensor([[0], [1], [0]]), 1)", ((2, 3),)),
        ("torch.masked_select(a, a > 0)", ((2, 3),)), ("a.masked_select(torch.tensor([True, False, True]))", ((2, 3),)),
        ("a.masked_select(b > 0)", ((3,), In((2, 3), rg=False))), ("a.masked_select(torch.tensor(True))", ((),)),
        ("a.masked_select(b)", ((2, 3), In((2, 3), rg=False, ints=True))),
        ("a.masked_select(torch.tensor([True, False]))", ((2, 3),)),
        ("torch.index_add(a, 0, torch.tensor([0, 2]), b)", ((3, 4), (2, 4))),
        ("a.index_add(1, torch.tensor([1, 1, 0]), b, alpha=2)", ((2, 3), (2, 3))),
        ("a.index_add(1, torch.tensor([1, 1, 0]), b, alpha=-0.5)", ((2, 3), In((2, 3), rg=False))),
        ("a.index_add(0, torch.tensor([1, 0]), b)", (In((2, 3), rg=False), (2, 3))),
        ("a.index_add(-1, torch.tensor([2]), b)", (In((2, 3), ints=True), In((2, 1), ints=True))),
        ("a.index_add(0, torch.tensor([0]), b)", ((), ())),
        ("out = a * 1; out.index_add_(0, torch.tensor([1, 1]), b)", ((2, 3), (2, 3))),
        ("a.index_add(0, torch.tensor([0, 5]), b)", ((3, 4), (2, 4))), ("a.index_add(0, torch.tensor([0, 2]), b)", ((3, 4), (2, 3))),
        ("a.index_add(0, torch.tensor([0, 2]), b)", ((3, 4), (3, 4))),
        ("a.index_add(0, torch.tensor([0, 2]), b)", ((3, 4), In((2, 4), dtype="float64"))),
        ("a.index_add(0, torch.tensor([0.0, 2.0]), b)", ((3, 4), (2, 4))),
        ("torch.index_copy(a, 0, torch.tensor([2, 0]), b)", ((3, 4), (2, 4))),
        ("a.index_copy(1, torch.tensor([1]), b)", ((2, 3), In((2, 1), rg=False))),
        ("a.index_copy(1, torch.tensor([2, 0]), b)", (In((2, 3), rg=False), (2, 2))),
        ("out = a * 1; out.index_copy_(0, torch.tensor([1]), b)", ((2, 3), (1, 3))),
        ("a.index_copy(0, torch.tensor([0, 7]), b)", ((3, 4), (2, 4))), ("a.index_copy(0, torch.tensor([0, 2]), b)", ((3, 4), (2, 3))),
        ("a.index_copy(0, torch.tensor([0, 2]), b)", ((3, 4), (3, 4))),
        ("a.index_copy(0, torch.tensor([0, 2]), b)", ((3, 4), In((2, 4), dtype="float64"))),
        ("torch.index_fill(a, 1, torch.tensor([0, 2]), -1.0)", ((2, 3),)),
        ("a.index_fill(0, torch.tensor([-1, 0, -1]), 2)", ((3, 2),)),
        ("a.index_fill(1, torch.tensor([1, 1]), b)", ((2, 3), ())), ("a.index_fill(1, torch.tensor(2), b)", (In((2, 3), rg=False), ())),
        ("out = a * 1; out.index_fill_(1, torch.tensor([0]), 0.5)", ((2, 3),)),
        ("a.index_fill(0, torch.tensor([1]), 3)", (In((2, 3), ints=True),)),
        ("a.index_fill(0, torch.tensor([0, 5]), 1.0)", ((3, 4),)), ("a.index_fill(0, torch.tensor([0.0]), 1.0)", ((3, 4),)),
        ("a.index_fill(0, torch.tensor([0]), b)", ((3, 4), (2,))), ("a.index_fill(0, torch.tensor([[0]]), 1.0)", ((3, 4),)),
        ("torch.nonzero(a)", (In(values=[[1.0, 0.0], [0.0, -2.0]]),)), ("a.nonzero()", (In(values=[0.0, 3.0, 0.0]),)),
        ("torch.nonzero(a, as_tuple=True)", (In(values=[[1.0, 0.0], [0.0, -2.0]]),)),
        ("a.nonzero(as_tuple=True)", (In(values=2.0),)), ("a.nonzero()", (In(values=0.0),)),
        ("torch.argwhere(a)", (In(values=[[True, False], [True, True]]),)), ("a.argwhere()", (In(values=1.0),)),
        ("a.nonzero()", (In((0, 3)),))]:
    case(expr, *specs)

# -- shape ops and matrix products (session 9)
# repeat and tile: the repeats summed back (RepeatBackward0), leading new dims, zeros
for expr in ["a.repeat(2, 1)", "a.repeat(2, 1, 3)", "a.repeat((1, 1))", "a.repeat(0, 2)", "a.tile((2,))",
             "torch.tile(a, (2, 1, 2))", "a.tile(2, 2)", "torch.tile(a, ())"]:
    case(expr, (2, 3))
case("a.repeat(3)", (2,))
case("a.repeat(2, 3)", ())
case("a.repeat(2, 2)", In((2, 2), ints=True, rg=False), backward=False)
case("a.repeat(2)", (2, 3), id="repeat: fewer repeats than dims")
case("a.repeat(-1, 2)", (2, 3), id="repeat: negative repeat")
case("a.repeat()", (2, 3), id="repeat: no repeats")
# flip, fliplr, flipud, roll, rot90: copies, each its own node
for expr in ["a.flip(0)", "a.flip(-1)", "a.flip(0, 1)", "torch.flip(a, (1,))", "torch.fliplr(a)", "a.flipud()",
             "a.roll(1)", "torch.roll(a, -5)", "a.roll(1, 0)", "a.roll((1, 2), (0, 1))", "torch.roll(a, shifts=2, dims=-1)",
             "a.rot90()", "a.rot90(2)", "torch.rot90(a, -1)", "a.rot90(5, (1, 0))", "a.rot90(1, [-1, 0])"]:
    case(expr, (3, 4))
for expr in ["a.flip(0)", "a.flipud()", "a.roll(2)", "a.roll(1, 0)"]:
    case(expr, (5,))
case("a.rot90(1, (0, 2))", (2, 3, 4))
case("a.flip(())", (2, 3))
case("a.flip(0)", ())
case("a.roll(1, 1)", In((2, 3), ints=True, rg=False), backward=False)
for expr in ["a.flip(0, 0)", "a.flip(2)", "a.flip()", "torch.flip(a, 0)", "torch.fliplr(a[0])", "torch.flipud(a[0, 0])",
             "a.roll(1, (0, 1))", "a.roll((1, 2), 0)", "a.roll(1, 2)", "a.roll(())", "a.rot90(1, [0])",
             "a.rot90(1, [0, 0])", "a.rot90(1, [0, 2])", "a[0].rot90()"]:
    case(expr, (3, 4))
# views by other names: narrow (SliceBackward0), movedim (PermuteBackward0), ravel, unflatten (ViewBackward0),
# broadcast_to and broadcast_tensors (ExpandBackward0)
for expr in ["a.narrow(1, 1, 2)", "torch.narrow(a, -1, -2, 2)", "a.narrow(0, 0, 0)", "a.narrow(1, torch.tensor(1), 2)",
             "a.movedim(0, 1)", "a.movedim(-1, 0)", "torch.movedim(a, (0, 1), (1, 0))", "torch.moveaxis(a, 0, 0)",
             "a.ravel()", "a.t().ravel()", "torch.ravel(a[:, 1:])", "a.unflatten(1, (2, 2))", "torch.unflatten(a, -1, (2, -1))",
             "a.unflatten(0, (3, 1))", "a.broadcast_to((2, 3, 4))", "torch.broadcast_to(a, (-1, 4))",
             "torch.broadcast_tensors(a, b)", "torch.broadcast_tensors(b, a)[0]", "torch.broadcast_tensors(a)"]:
    case(expr, (3, 4), In((2, 1, 4)))
case("a.movedim((0, 2), (2, 0))", (2, 3, 4))
case("torch.movedim(a, (1, -1), (0, 1))", (2, 3, 4))
case("a.ravel()", ())
case("a.unflatten(0, (1, 1, 3))", (3,))
case("out = a.narrow(1, 1, 2); out.mul_(2); out = (a, out)", (3, 4), id="narrow: a view that shares a's storage")
case("b = a * 1; v = b.narrow(0, 1, 1); v.mul_(3); out = (b, v)", (3, 4), id="narrow: in place on the view")
# (first order only: create_graph through any view whose base then changed in place, select's and t's too,
# is off by the in-place factor in gradcli)
case("b = a * 1; v = b.unflatten(1, (2, 2)); b.mul_(2); out = v", (3, 4), second_order=False,
     id="unflatten: the base changed in place")
case("b = a * 1; v = b.movedim(0, 1); v.zero_(); out = b", (3, 4), id="movedim: in place on the view")
for expr in ["a.narrow(1, 5, 1)", "a.narrow(1, 2, 3)", "a.narrow(1, 1, -1)", "a[0, 0].narrow(0, 0, 1)",
             "a.narrow(2, 0, 1)", "a.movedim((0, 1), (1,))", "a.movedim((0, 0), (1, 0))", "a.movedim(0, 2)",
             "a.movedim((0, 1), (1, 1))", "a.unflatten(1, (3, 2))", "a.unflatten(1, ())", "a.unflatten(2, (2, 2))",
             "a.broadcast_to((3, 5))", "a.broadcast_to((4,))", "torch.broadcast_tensors(a, a[0, :3])"]:
    case(expr, (3, 4))
# triangles and diagonals
for expr in ["a.tril()", "a.tril(-1)", "torch.triu(a, 1)", "a.triu(diagonal=-5)", "torch.tril(a, 9)",
             "(a * 1).tril_()", "(a * 1).triu_(1)", "a.diagonal()", "a.diagonal(-1)", "a.diagonal(5)",
             "torch.diagonal(a, offset=1, dim1=1, dim2=0)", "a.diagonal(0, -1, -2)", "a.diag_embed()",
             "a.diag_embed(1, 0, 2)", "torch.diag_embed(a, -1)", "a.diag()", "torch.diag(a, -2)", "a.diag(7)",
             "a[0].diag()", "torch.diag(a[1], 1)", "a[0].diag(-2)", "a.trace()", "torch.trace(a.t())"]:
    case(expr, (3, 4))
for expr in ["a.tril()", "a.triu(-1)", "a.diagonal(1, 0, 2)", "a.diagonal(0, -1, 1)", "a.diag_embed(0, 0, -1)"]:
    case(expr, (2, 3, 4))
case("a.tril()", In((3, 3), ints=True, rg=False), backward=False)
case("a.triu()", In((2, 3), values=[[True, False, True], [True, True, False]], rg=False), backward=False)
case("a.trace()", In((2, 3), ints=True, rg=False), backward=False)
case("a.trace()", In((2, 3), ints=True, rg=False, dtype="int32"), backward=False)
case("a.diag_embed()", ())
case("a.diag()", (0,))
case("out = a.diagonal(); out.mul_(2); out = (a, out)", (3, 4), id="diagonal: a view that shares a's storage")
case("b = a * 1; v = b.diagonal(); v.mul_(3); out = (b, v)", (3, 4), id="diagonal: in place on the view")
case("b = a * 1; v = b.diagonal(1); b.mul_(2); out = v", (3, 4), second_order=False,
     id="diagonal: the base changed in place")
case("b = a * 1; b.tril_(); out = b", (3, 4), id="tril_: on a non-leaf")
case("b = a * 1; vs = [b.narrow(1, 1, 2), b.diagonal(), b.movedim(0, 1), b.unflatten(1, (2, 2)), b.ravel(), "
     "b.broadcast_to((2, 3, 4)), b.mH]; vs[0].mul_(2); "
     "out = torch.tensor([v._version for v in vs] + [b._version, b.flip(0)._version, b.flip(0)._base is None])",
     (3, 4), backward=False, id="views share the version counter; flip is a copy")
for expr in ["a[0].tril()", "a.diagonal(0, 1, 1)", "a[0].diagonal()", "a.diag_embed(0, 1, 1)", "a[0, 0].diag_embed()",
             "a[None].diag()", "a[0, 0].diag()", "a[0].trace()", "a[None].trace()", "a.bool().trace()",
             "a.tril_()"]:
    case(expr, (3, 4))
# transposes, dtype, layout
for expr in ["a.mH", "a.H", "a.adjoint()", "torch.adjoint(a)", "a.type_as(b)", "a.type_as(a)", "a.type_as(b.int())"]:
    case(expr, (3, 4), In((2,), dtype="float64", rg=False))
case("a.mH", (2, 3, 4))
case("torch.adjoint(a)", (2, 3, 4))
for expr in ["a.mH", "a.H", "a[0].adjoint()"]:
    case(expr, (3,) if expr != "a[0].adjoint()" else (3, 4))
case("a.H", (2, 3, 4))
case("out = a * 2; out = torch.tensor([out.H is out, out.adjoint() is out])", (), backward=False,
     id="H and adjoint of a 0-d tensor: the tensor itself")
case("out = a.t(); out = (torch.tensor(out.stride()), torch.tensor(a.stride(-1)), torch.tensor(out.element_size()))",
     (3, 4), backward=False, id="stride and element_size")
case("torch.tensor(a.expand(2, 3, 4).stride() + a[:, ::2].stride() + (a.double().element_size(),))", (3, 4),
     backward=False, id="stride of views; element_size of float64")
case("a.stride(2)", (3, 4))
# under create_graph with an incoming gradient that requires grad: each backward formula recorded as nodes
for expr in ["a.repeat(2, 1, 3) ** 2", "a.tile((2,)) ** 2", "a.roll(1, 0) ** 2", "a.roll(-2) ** 2", "a.rot90() ** 2",
             "a.tril() ** 2", "a.triu(1) ** 2", "a.diagonal(1) ** 2", "a.diag_embed() ** 2", "a.diag() ** 2",
             "a[0].diag(1) ** 2", "a.narrow(1, 1, 2) ** 2", "a.flip(1) ** 2"]:
    case(expr, (3, 4))
# hstack, vstack (row_stack), dstack, column_stack: atleast_nd views, then one CatBackward0
for expr in ["torch.hstack([a, b])", "torch.vstack([a, b])", "torch.row_stack((a, b))", "torch.dstack([a, b])",
             "torch.column_stack([a, b])"]:
    for sa, sb in [((2, 3), (2, 3)), ((3,), (3,)), ((), ())]:
        case(expr, sa, In(sb, rg=sa != ()))
case("torch.vstack([a, b])", (2, 3), (3,))
case("torch.column_stack([a, b, c])", (2,), (2, 3), ())
case("torch.hstack([a, b])", (), (2,))
case("torch.dstack([a, b])", (2, 3, 2), (2, 3))
case("torch.hstack([a, b])", In((2,), ints=True, rg=False), (3,))
for expr in ["torch.hstack([])", "torch.vstack([a, b])", "torch.dstack(())", "torch.column_stack([a, b[0]])",
             "torch.hstack(a)"]:
    case(expr, (2, 3), (3, 2))
# meshgrid: a view and an expand per tensor; 'xy' swaps the first two
for expr in ["torch.meshgrid(a, b, indexing='ij')", "torch.meshgrid([a, b], indexing='xy')",
             "torch.meshgrid(a, b, c, indexing='xy')", "torch.meshgrid((a, b, c), indexing='ij')", "torch.meshgrid(a, b)"]:
    case(expr, (2,), (3,), ())
case("torch.meshgrid(a, indexing='xy')", (3,))
for expr in ["torch.meshgrid(a, b, indexing='ab')", "torch.meshgrid([], indexing='ij')",
             "torch.meshgrid(a, b.double(), indexing='ij')", "torch.meshgrid(a, b[None], indexing='ab')"]:
    case(expr, (2,), (3,))
case("out = torch.meshgrid(a, b, indexing='ij'); a.mul_(2); out = out[0]", In((2,), rg=False), (3,), backward=False,
     id="meshgrid: views of the inputs")
# repeat_interleave with an int: unsqueeze, expand, clone, flatten
for expr in ["torch.repeat_interleave(a, 2)", "a.repeat_interleave(2, dim=0)", "a.repeat_interleave(3, -1)",
             "torch.repeat_interleave(a, 0, 1)", "torch.repeat_interleave(a, 2, output_size=12)",
             "a.repeat_interleave(-1)", "a.repeat_interleave(2, 2)", "torch.repeat_interleave(a, 2, 0, output_size=5)"]:
    case(expr, (2, 3))
case("a.repeat_interleave(2)", ())
case("a.repeat_interleave(3)", In((2,), ints=True, rg=False), backward=False)
for spec in [In(values=[1, 2, 0]), In(values=[1, 2], dtype="int32"), In((0,), ints=True), In(values=[[1, 2]]),
             In(values=[1.0, 2.0], rg=False), In(values=[1, -1]), In(values=2)]:
    case("torch.repeat_interleave(a)", spec, backward=False)
for expr in ["torch.repeat_interleave(a, output_size=3)", "torch.repeat_interleave(a, output_size=4)"]:
    case(expr, In(values=[1, 2]), backward=False)
# repeat_interleave with a tensor of repeats: flatten (without dim), then index_select of the repeated indices
for expr in ["a.repeat_interleave(torch.tensor([1, 2]), dim=0)", "torch.repeat_interleave(a, torch.tensor(2))",
             "a.repeat_interleave(torch.tensor([2]), dim=1)", "torch.repeat_interleave(a, torch.tensor([1, 0, 2]), dim=1)",
             "torch.repeat_interleave(a, torch.tensor([1, 2, 3, 0, 1, 1]))",
             "torch.repeat_interleave(a, torch.tensor([1, 2]), dim=1)",
             "torch.repeat_interleave(a, torch.tensor([1, 2]), dim=0, output_size=3)",
             "torch.repeat_interleave(a, torch.tensor([1, 2]), dim=0, output_size=4)",
             "torch.repeat_interleave(a, torch.tensor([-1, 2]), dim=0)",
             "torch.repeat_interleave(a, torch.tensor([1., 2.]), dim=0)", "a.repeat_interleave(torch.tensor([[1]]), dim=0)"]:
    case(expr, (2, 3))
# products with an added input: beta * input + alpha * product, each input's gradient scaled
for expr in ["torch.addmm(a, b, c)", "a.addmm(b, c, beta=0.5, alpha=2)", "torch.addmm(a, b, c, beta=0)",
             "(a * 1).addmm_(b, c, alpha=-1)"]:
    case(expr, (2, 4), (2, 3), (3, 4))
case("torch.addmm(a, b, c)", (4,), (2, 3), In((3, 4), rg=False))
case("torch.addmm(a, b, c, alpha=3)", (), In((2, 3), rg=False), (3, 4))
case("torch.addmm(a, b, c)", In((2, 2), ints=True, rg=False), In((2, 3), ints=True, rg=False),
     In((3, 2), ints=True, rg=False), backward=False)
for expr in ["torch.addmv(a, b, c)", "a.addmv(b, c, beta=2, alpha=0.5)", "(a * 1).addmv_(b, c)"]:
    case(expr, (2,), (2, 3), (3,))
case("torch.addmv(a, b, c, beta=0)", (1,), In((2, 3), rg=False), (3,))
case("torch.addmv(a, b, c)", (), (2, 3), In((3,), rg=False))
for expr in ["torch.addr(a, b, c)", "a.addr(b, c, beta=2, alpha=3)", "(a * 1).addr_(b, c)"]:
    case(expr, (2, 3), (2,), (3,))
case("torch.addr(a, b, c)", (3,), In((2,), rg=False), (3,))
case("torch.addr(a, b, c)", (2, 3), (2,), In((3,), dtype="float64"), backward=False)
for expr in ["torch.baddbmm(a, b, c)", "a.baddbmm(b, c, beta=0.5, alpha=2)", "(a * 1).baddbmm_(b, c)"]:
    case(expr, (5, 2, 4), (5, 2, 3), (5, 3, 4))
case("torch.baddbmm(a, b, c)", (2, 4), In((5, 2, 3), rg=False), (5, 3, 4))
for expr in ["torch.addbmm(a, b, c)", "a.addbmm(b, c, beta=0.5, alpha=2)", "(a * 1).addbmm_(b, c)"]:
    case(expr, (2, 4), (5, 2, 3), (5, 3, 4))
case("torch.addbmm(a, b, c)", (4,), (5, 2, 3), In((5, 3, 4), rg=False))
case("torch.addbmm(a, b, c)", (2, 4), In((5, 2, 3), rg=False), (5, 3, 4))
case("torch.addbmm(a, b, c, beta=2)", (2, 4), (0, 2, 3), (0, 3, 4))
for expr in ["torch.addmm(a, b[0], c)", "torch.addmm(a, b, c[0])", "torch.addmm(a, b, b)", "torch.addmm(a[0, :3], b, c)",
             "torch.addmm(a, b, c.double())", "torch.addmm(a.double(), b, c)", "torch.addmm(a, b.double(), c)",
             "torch.addmv(a[0, :2], b[0], b[0])", "torch.addmv(a[0, :2], b, b)", "torch.addmv(a[0, :3], b, b[0])",
             "torch.addmv(a[0, :2], b, a[0, :2])", "torch.addr(a, b, a[0])", "torch.addr(a, a[0], a[0])",
             "torch.baddbmm(a, b, c)", "torch.addbmm(a, b, c)", "torch.baddbmm(a, b[None], b[None])",
             "torch.addbmm(a, b[None], c[None, :2])"]:
    case(expr, (2, 4), (2, 3), (3, 4))
# einsum: PyTorch's permutes, diagonals, sums and bmm, node for node
for expr, specs in [("torch.einsum('ij,jk->ik', a, b)", ((2, 3), (3, 4))), ("torch.einsum('ij,jk', a, b)", ((2, 3), (3, 4))),
                    ("torch.einsum('ii', a)", ((3, 3),)), ("torch.einsum('ii->i', a)", ((3, 3),)),
                    ("torch.einsum('ij->ji', a)", ((2, 3),)), ("torch.einsum('ij->j', a)", ((2, 3),)),
                    ("torch.einsum('ij->', a)", ((2, 3),)), ("torch.einsum('i,j->ij', a, b)", ((2,), (3,))),
                    ("torch.einsum('i,i->', a, b)", ((3,), (3,))), ("torch.einsum('i,i', a, b)", ((3,), (3,))),
                    ("torch.einsum('bij,bjk->bik', a, b)", ((5, 2, 3), (5, 3, 4))),
                    ("torch.einsum('...ij,...jk', a, b)", ((5, 2, 3), (5, 3, 4))),
                    ("torch.einsum('...ij,jk->...ik', a, b)", ((5, 2, 3), (3, 4))),
                    ("torch.einsum('ij,ij->', a, b)", ((2, 3), (2, 3))), ("torch.einsum('ij,ij->ij', a, b)", ((2, 3), (2, 3))),
                    ("torch.einsum('bi,bj->bij', a, b)", ((4, 2), (4, 3))), ("torch.einsum('ij,j->i', a, b)", ((2, 3), (3,))),
                    ("torch.einsum('i j , j k -> i k', a, b)", ((2, 3), (3, 4))), ("torch.einsum('...->...', a)", ((2, 3),)),
                    ("torch.einsum('ij,jk,kl->il', a, b, c)", ((2, 3), (3, 4), (4, 2))),
                    ("torch.einsum('bhqd,bhkd->bhqk', a, b)", ((2, 2, 3, 4), (2, 2, 5, 4))),
                    ("torch.einsum('ii,i->i', a, b)", ((3, 3), (3,))), ("torch.einsum('ij,kj->ik', a, b)", ((2, 3), (1, 3))),
                    ("torch.einsum(a, [0, 1], b, [1, 2], [0, 2])", ((2, 3), (3, 4))),
                    ("torch.einsum(a, [..., 1], b, [1])", ((2, 3), (3,))), ("torch.einsum('ij,jk', [a, b])", ((2, 3), (3, 4))),
                    ("torch.einsum('i->', a)", ((),)) if False else ("torch.einsum('', a)", ((),))]:
    case(expr, *specs)
for expr in ["torch.einsum('ij,jk', a)", "torch.einsum('ij', a, b)", "torch.einsum('ijk', a)", "torch.einsum('i.j', a)",
             "torch.einsum('i1', a)", "torch.einsum('ij->k', a)", "torch.einsum('ij->ii', a)", "torch.einsum('ii', b)",
             "torch.einsum('ij,ij', a, b)", "torch.einsum('ij')", "torch.einsum('...i...', a)", "torch.einsum('ij->..j...', a)",
             "torch.einsum(a, [0, 99])"]:
    case(expr, (2, 3), (3, 4))
# tensordot and inner (permutes, reshapes, then mm, or dot for two vectors), matrix_power
for expr, specs in [("torch.tensordot(a, b, dims=1)", ((2, 3), (3, 4))), ("torch.tensordot(a, b, 0)", ((2, 3), (3, 4))),
                    ("torch.tensordot(a, b, dims=([1], [0]))", ((2, 3), (3, 4))),
                    ("torch.tensordot(a, b, dims=[[0, 2], [0, 1]])", ((5, 2, 3), (5, 3, 4))),
                    ("torch.tensordot(a, b, dims=([2], [1]))", ((5, 2, 3), (5, 3, 4))),
                    ("torch.tensordot(a, b)", ((2, 3), (2, 3))), ("torch.tensordot(a, b, 1)", ((3,), (3,))),
                    ("torch.tensordot(a, b, 1)", ((1, 3), (3, 1))), ("torch.tensordot(a, b, torch.tensor(1))", ((2, 3), (3, 4))),
                    ("torch.tensordot(a, b, dims=([1], [0]))", ((2, 1), (3, 4))),
                    ("torch.inner(a, b)", ((3,), (3,))), ("torch.inner(a, b)", ((2, 3), (4, 3))), ("a.inner(b)", ((2, 3), (3,))),
                    ("torch.inner(a, b)", ((5, 2, 3), (2, 3))), ("torch.inner(a, b)", ((), (2, 3)))]:
    case(expr, *specs)
for expr in ["torch.matrix_power(a, 0)", "a.matrix_power(1)", "torch.matrix_power(a, 2)", "a.matrix_power(3)",
             "torch.matrix_power(a, 4)", "torch.matrix_power(a, 5)", "torch.matrix_power(a, 6)"]:
    case(expr, In((3, 3), low=-1, high=1))
case("torch.matrix_power(a, 2)", In((2, 3, 3), low=-1, high=1))
case("torch.matrix_power(a, 3)", In((3, 3), ints=True, low=-2, high=2, rg=False), backward=False)
for expr in ["torch.tensordot(a, b, dims=-1)", "torch.tensordot(a, b, dims=3)", "torch.tensordot(a, b.double(), 1)",
             "torch.tensordot(a, b, dims=([1, 0], [0]))", "torch.tensordot(a, a, dims=([1], [0]))",
             "torch.tensordot(a, b, dims='x')", "torch.inner(a, b)", "torch.matrix_power(a, 2)",
             "torch.matrix_power(b[0], 2)"]:
    case(expr, (2, 3), (3, 4))
case("o = torch.zeros(2, 4); out = torch.tensordot(a, b, 1, out=o); out = (out, o)", (2, 3), (3, 4),
     id="tensordot: out= records the copy")
case("o = torch.zeros(3); out = torch.tensordot(a, b, 1, out=o)", (2, 3), In((3, 4), rg=False), id="tensordot: out= resized")
case("torch.tensordot(a, b, 1, out=torch.zeros(2, 4, dtype=torch.float64))", (2, 3), (3, 4))
# outer/ger (a view then a product), vdot, dist (norm_backward of the difference), kron, cross
for expr in ["torch.outer(a, b)", "a.ger(b)", "torch.vdot(a, c)", "a.vdot(c)", "torch.kron(a, b)", "a.kron(a)"]:
    case(expr, (2,), (3,), (2,))
case("torch.outer(a, b)", (2,), In((3,), dtype="float64", rg=False))
case("torch.outer(a, b)", In((2,), ints=True, rg=False), In((3,), ints=True, rg=False), backward=False)
for expr in ["torch.dist(a, b)", "a.dist(b, 1)", "torch.dist(a, b, 3)", "torch.dist(a, b, p=inf)", "a.dist(b, 0)",
             "torch.dist(a, b, 0.5)", "torch.dist(a, b, -inf)"]:
    case(expr, (2, 3), (3,))
case("torch.dist(a, b)", (2, 3), In((2, 3), rg=False))
case("torch.dist(a, b)", In(values=[1.0, 2.0]), In(values=[1.0, 2.0]), id="dist: zero distance")
for expr in ["torch.kron(a, b)", "a.kron(b)"]:
    case(expr, (2, 3), (3, 2))
case("torch.kron(a, b)", (), (2, 3))
case("torch.kron(a, b)", (2,), (2, 3))
for expr in ["torch.cross(a, b, dim=1)", "a.cross(b, -1)", "torch.cross(a, b)", "torch.cross(a, b, 0)"]:
    case(expr, (3, 3), (3, 3))
case("torch.cross(a, b, dim=-1)", (2, 3), (1, 3))
case("torch.cross(a, b, dim=0)", (3,), In((3,), dtype="float64", rg=False))
case("torch.cross(a, b, 1)", In((2, 3), ints=True, rg=False), In((2, 3), ints=True, rg=False), backward=False)
for expr in ["torch.outer(a, b)", "torch.outer(b, a)", "a.ger(a[0])", "torch.vdot(a, b)", "torch.vdot(b, b[:2])",
             "torch.vdot(b, b.double())", "torch.dist(a, b[:2])", "torch.dist(a.int(), a.int())",
             "torch.kron(a.t(), b)", "torch.cross(a, a)", "torch.cross(a, b)", "torch.cross(a, a, dim=2)",
             "torch.cross(a.t(), a.t(), dim=0)"]:
    case(expr, (2, 3), (3,))

# -- linalg (session 9)
# Matrices far from singular (random entries plus 2 on the diagonal): NumPy's LAPACK and PyTorch's
# MKL round differently in the last bits, which an ill-conditioned inverse would magnify.
def _well_conditioned(shape, seed=0):
    import numpy as np
    rng = np.random.default_rng(seed)
    return (rng.uniform(-1, 1, size=shape) + 2 * np.eye(shape[-1])).astype(np.float32).tolist()


for expr in ["torch.inverse(a)", "a.inverse()", "torch.linalg.inv(a)", "torch.matrix_power(a, -1)",
             "torch.matrix_power(a, -2)", "a.matrix_power(-3)", "torch.matrix_power(a, -5)",
             "torch.linalg.matrix_power(a, -4)"]:
    for shape in [(3, 3), (2, 4, 4), (1, 1)]:
        case(expr, In(values=_well_conditioned(shape)))
case("torch.inverse(a)", In(values=_well_conditioned((2, 1, 3, 3)), dtype="float64"))
case("torch.inverse(a.t())", In(values=_well_conditioned((3, 3))), id="inverse of a transposed view")
case("torch.inverse(a) @ b", In(values=_well_conditioned((3, 3))), In(values=_well_conditioned((3, 3), 1)))
for values in ([[1.0, 2.0, 3.0], [2.0, 4.0, 6.0], [1.0, 1.0, 1.0]], [[0.0, 0.0], [0.0, 0.0]], [[1.0, 1.0], [1.0, 1.0]],
               [[[1.0, 0.0], [0.0, 1.0]], [[0.0, 0.0], [0.0, 1.0]]], [[0.0, 1.0, 0.0], [1.0, 0.0, 0.0], [0.0, 0.0, 0.0]]):
    for expr in ["torch.inverse(a)", "torch.matrix_power(a, -2)"]:
        case(expr, In(values=values), id=f"{expr}: singular {values}")
case("torch.linalg.inv(a)", In(values=[[2.0, 4.0], [1.0, 2.0]], dtype="float64"), id="linalg.inv: singular float64")
for expr in ["torch.inverse(a)", "torch.matrix_power(a, -1)", "torch.linalg.inv(a)"]:
    for spec in [In((3,)), In((2, 3)), In((3, 3), ints=True, rg=False), In((3, 3), dtype="float16"),
                 In((3, 3), dtype="bool", rg=False), In((0, 3, 3)), In((2, 0, 0)), In(())]:
        case(expr, spec)
# det: the LU PyTorch saves is of A.mT when A is row-major; a singular matrix's gradient is 0 (under
# create_graph PyTorch takes it through the SVD, which gradcli lacks: first order only there)
for expr in ["torch.det(a)", "a.det()", "torch.linalg.det(a)", "torch.det(a.mT)", "torch.det(a) * torch.det(a)"]:
    for shape in [(3, 3), (2, 4, 4), (1, 1), (2, 1, 1), (2, 1, 2, 2)]:
        case(expr, In(values=_well_conditioned(shape)))
for shape in [(3, 3), (5, 5), (2, 3, 3)]:
    case("torch.det(a)", shape)
case("torch.det(a)", In((4, 4), dtype="float64"))
for values in ([[1.0, 2.0], [2.0, 4.0]], [[0.0, 0.0], [0.0, 0.0]], [[1.0, 2.0, 3.0], [2.0, 4.0, 6.0], [1.0, 1.0, 1.0]],
               [[[1.0, 0.0], [0.0, 1.0]], [[0.0, 1.0], [0.0, 1.0]]]):
    for expr in ["torch.det(a)", "torch.det(a.mT)"]:
        case(expr, In(values=values), id=f"{expr}: singular {values}", second_order=False)
for spec in [In((3,)), In((2, 3)), In((3, 3), ints=True, rg=False), In((3, 3), dtype="float16"),
             In((3, 3), dtype="bool", rg=False), In((0, 0)), In((2, 0, 0)), In((0, 3, 3)), In(())]:
    case("torch.det(a)", spec, second_order=False)
# slogdet (one LinalgSlogdetBackward0 for the sign and log|det|) and logdet (a where on it: nan for a negative det)
for expr in ["torch.linalg.slogdet(a)", "torch.slogdet(a)", "a.slogdet()", "a.slogdet()[1]", "torch.linalg.slogdet(a)[0]",
             "torch.linalg.slogdet(a.mT)", "torch.logdet(a)", "a.logdet()", "torch.logdet(-a)"]:
    for shape in [(3, 3), (2, 4, 4), (1, 1)]:
        case(expr, In(values=_well_conditioned(shape)))
for expr in ["torch.logdet(a)", "torch.linalg.slogdet(a)"]:
    case(expr, (3, 3))
    case(expr, (2, 3, 3))
    for values in ([[1.0, 2.0], [2.0, 4.0]], [[0.0, 0.0], [0.0, 0.0]]):
        case(expr, In(values=values), id=f"{expr}: singular {values}", second_order=False)
    for spec in [In((3,)), In((2, 3)), In((3, 3), ints=True, rg=False), In((3, 3), dtype="float16"), In((0, 0)),
                 In((2, 0, 0)), In(())]:
        case(expr, spec)
# linalg.solve (LinalgSolveExBackward0): matrix and vector right-hand sides, broadcast batches
for specs in [((3, 3), (3, 2)), ((3, 3), (3,)), ((2, 3, 3), (2, 3)), ((2, 3, 3), (3,)), ((3, 3), (2, 3, 1)),
              ((1, 3, 3), (2, 3, 4)), ((2, 3, 3), (1, 3, 2))]:
    case("torch.linalg.solve(a, b)", In(values=_well_conditioned(specs[0])), specs[1])
case("torch.linalg.solve(a.mT, b)", In(values=_well_conditioned((3, 3))), (3, 2))
case("torch.linalg.solve(a, b)", In(values=_well_conditioned((3, 3)), rg=False), (3, 2))
case("torch.linalg.solve(a, b)", In(values=_well_conditioned((3, 3))), In((3, 2), rg=False))
case("torch.linalg.solve(a, b)", In(values=_well_conditioned((3, 3)), dtype="float64"), In((3,), dtype="float64"))
case("torch.linalg.solve(a, b)", In(values=[[0.0, 0.0], [0.0, 0.0]]), (2,))
case("torch.linalg.solve(a, b)", In(values=[[[1.0, 0.0], [0.0, 1.0]], [[1.0, 2.0], [2.0, 4.0]]]), (2,))
for expr, specs in [("torch.linalg.solve(a, b)", ((3,), (3,))), ("torch.linalg.solve(a, b)", ((2, 3), (2,))),
                    ("torch.linalg.solve(a, b)", ((3, 3), (4,))), ("torch.linalg.solve(a, b)", ((3, 3), (4, 2))),
                    ("torch.linalg.solve(a, b)", ((3, 3), ())), ("torch.linalg.solve(a, b.double())", ((3, 3), (3,))),
                    ("torch.linalg.solve(a.int(), b)", ((3, 3), (3,))), ("torch.linalg.solve(a.half(), b.half())", ((3, 3), (3,))),
                    ("torch.linalg.solve(a, b)", ((2, 3, 3), (3, 3, 1)))]:
    case(expr, *specs)
for specs in [((0, 0), (0,)), ((2, 0, 0), (2, 0)), ((0, 3, 3), (0, 3)), ((3, 3), (3, 0))]:
    case("torch.linalg.solve(a, b)", *specs)
# torch.linalg's norms: vector_norm, matrix_norm ('fro', ±1, ±inf: a vector norm then amax/amin), norm
for expr in ["torch.linalg.vector_norm(a)", "torch.linalg.vector_norm(a, 3, dim=1)", "torch.linalg.vector_norm(a, 1)",
             "torch.linalg.vector_norm(a, ord=inf, dim=(0, 2), keepdim=True)", "torch.linalg.vector_norm(a, 0.5, -1)",
             "torch.linalg.vector_norm(a, dtype=torch.float64)", "torch.linalg.vector_norm(a.int())",
             "torch.linalg.vector_norm(a, 'fro')", "torch.linalg.vector_norm(a, dim=(0, 0))",
             "torch.linalg.matrix_norm(a)", "torch.linalg.matrix_norm(a, 1)", "torch.linalg.matrix_norm(a, -1)",
             "torch.linalg.matrix_norm(a, inf)", "torch.linalg.matrix_norm(a, -inf, keepdim=True)",
             "torch.linalg.matrix_norm(a, 1, dim=(2, 0))", "torch.linalg.matrix_norm(a, 1, dim=(0, 2), keepdim=True)",
             "torch.linalg.matrix_norm(a, 'fro', dim=(0, 2), dtype=torch.float64)", "torch.linalg.matrix_norm(a, 3)",
             "torch.linalg.matrix_norm(a, 'abc')", "torch.linalg.matrix_norm(a, dim=(0,))",
             "torch.linalg.matrix_norm(a, dim=(1, -2))", "torch.linalg.matrix_norm(a[0, 0])",
             "torch.linalg.matrix_norm(a.int())", "torch.linalg.matrix_norm(a, dim=(0, 5))", "torch.linalg.matrix_norm(a, 0.5)",
             "torch.linalg.matrix_norm(a, dim=(0, 1, 2))", "torch.linalg.matrix_norm(a.int(), 3)",
             "torch.linalg.norm(a)", "torch.linalg.norm(a, dim=1)", "torch.linalg.norm(a, 1, dim=1)", "torch.linalg.norm(a[0], 1)",
             "torch.linalg.norm(a[0], 'fro')", "torch.linalg.norm(a[0, 0], 2)", "torch.linalg.norm(a, inf, dim=(0, 1))",
             "torch.linalg.norm(a, 1)", "torch.linalg.norm(a, 'fro')", "torch.linalg.norm(a, dim=(0, 1, 2))",
             "torch.linalg.norm(a, 'fro', dim=(0, 1, 2))", "torch.linalg.norm(a[0], 'fro', dim=0)",
             "torch.linalg.cross(a[:, :, :3], a[:, :, 1:])", "torch.linalg.cross(a[0, :3, :3], a[1, :3, :3], dim=0)",
             "torch.linalg.cross(a, a)"]:
    case(expr, (2, 3, 4))

# var/std and their _mean forms warn, each under its own name, when n - correction <= 0 (values nan or inf)
DOF_SCRIPT = """
import torch
x = torch.tensor([1.5], requires_grad=True)
print(x.var())
print(x.std(0))
print(torch.var_mean(x))
print(torch.std_mean(x, correction=2))
y = torch.tensor([[1.0, 2.0, 4.0], [0.5, 0.5, 0.5]], requires_grad=True)
s = y.std(1, correction=3)
print(s)
s.sum().backward()
print(y.grad)
"""


def test_degrees_of_freedom_warnings_and_values_as_in_pytorch():
    from oracle import assert_same
    assert_same(DOF_SCRIPT)


# what these ops return, as a script prints it (PyTorch's named tuples, Python bools and numbers)
PRINTED_SCRIPT = """
import torch
x = torch.tensor([[1.0, 3.0, 3.0], [2.0, 0.5, 2.0]], requires_grad=True)
print(torch.aminmax(x))
print(x.aminmax(dim=1, keepdim=True))
print(x.median(1))
print(torch.nanmedian(x, 0))
print(x.mode())
print(torch.std_mean(x, 1))
print(torch.var_mean(x))
print(torch.equal(x, x.detach()), x[0, 0].is_nonzero(), torch.count_nonzero(x, 1))
print(torch.isclose(x, x + 1e-6), x.eq(3), x.detach().clone().ne_(3))
mn, mx = torch.aminmax(x, dim=0)
print(mn.grad_fn.name(), mx.grad_fn.name(), x.median(0).indices, x.mode(1).values)
"""


def test_named_tuples_and_values_print_as_in_pytorch():
    from oracle import assert_same
    assert_same(PRINTED_SCRIPT)


# bit for bit: where PyTorch's CPU loop calls the C library (on the elements past its vector
# blocks, or on all of them) or fuses a multiply-add, gradcli's values and gradients are PyTorch's
# exactly, not within check_op's tolerance. Sizes below 8 are past every vector block.
def _unary(name):
    return lambda lib, a: getattr(lib, name)(a)


def _binary(name):
    return lambda lib, a, b: getattr(lib, name)(a, b)


BITS = {  # name: (call, input ranges, sizes, compared: the value, the gradients or both)
    **{n: (_unary(n), [r], (1, 3, 7), "both") for n, r in [("sinh", (-5, 5)), ("cosh", (-5, 5)),
                                                           ("atanh", (-1, 1)), ("exp2", (-10, 10))]},
    **{n: (_unary(n), [r], (3, 7, 40), "both") for n, r in [("asinh", (-5, 5)), ("acosh", (1, 5)),
                                                           ("deg2rad", (-300, 300)), ("rad2deg", (-4, 4)),
                                                           ("rsqrt", (0.01, 5))]},
    "sinc": (_unary("sinc"), [(-3, 3)], (3, 7, 40), "value"),          # (its gradient calls sin and cos)
    "asin": (_unary("asin"), [(-0.99, 0.99)], (3, 7, 40), "grads"),    # (its gradient calls rsqrt)
    "acos": (_unary("acos"), [(-0.99, 0.99)], (3, 7, 40), "grads"),
    **{n: (_binary(n), [(-3, 3), r], (1, 3, 7), "both") for n, r in [("atan2", (-3, 3)), ("xlogy", (0.01, 5)),
                                                                     ("logaddexp2", (-5, 5)), ("hypot", (-3, 3))]},
    "logaddexp": (_binary("logaddexp"), [(-5, 5), (-5, 5)], (1, 3, 7), "value"),    # (its gradient calls exp)
    **{n: (_binary(n), [(-3, 3), r], (3, 7, 40), "both") for n, r in [("fmod", (0.3, 3)), ("copysign", (-3, 3)),
                                                                      ("fmax", (-3, 3)), ("true_divide", (0.1, 3))]},
    # (pow's gradients call pow again, not yet the C library's)
    "pow": (lambda lib, a: lib.pow(a, 2.5), [(0.1, 3)], (1, 3, 7), "value"),
    "pow tensor exponent": (_binary("pow"), [(0.1, 3), (-3, 3)], (1, 3, 7), "value"),
    "float_power": (_binary("float_power"), [(0.1, 3), (-3, 3)], (1, 3, 7), "value"),
    "lerp": (lambda lib, a, b: lib.lerp(a, b, 0.3), [(-3, 3), (-3, 3)], (3, 7, 40), "both"),
    "lerp tensor weight": (lambda lib, a, b, w: lib.lerp(a, b, w), [(-3, 3), (-3, 3), (-1, 2)], (3, 7, 40), "both"),
    "addcmul": (lambda lib, a, b, c: lib.addcmul(a, b, c, value=0.7), [(-3, 3)] * 3, (3, 7, 40), "both"),
    "addcdiv": (lambda lib, a, b, c: lib.addcdiv(a, b, c, value=0.7), [(-3, 3), (-3, 3), (0.2, 3)], (3, 7, 40),
                "both"),
}


def _values_and_grads(lib, call, arrays, dtype):
    ts = [lib.tensor(a.tolist(), dtype=getattr(lib, dtype), requires_grad=True) for a in arrays]
    out = call(lib, *ts)
    out.sum().backward()
    return [out.tolist()] + [t.grad.tolist() for t in ts]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name", list(BITS))
def test_pointwise_maths_bit_for_bit(name, dtype):
    import numpy as np
    call, ranges, sizes, compared = BITS[name]
    parts = {"value": slice(0, 1), "grads": slice(1, None), "both": slice(None)}[compared]
    rng = np.random.default_rng(2026)
    differ = []
    for size in sizes:
        for _ in range(40):
            arrays = [rng.uniform(lo, hi, size).astype(dtype) for lo, hi in ranges]
            want = _values_and_grads(torch, call, arrays, dtype)[parts]
            got = _values_and_grads(G, call, arrays, dtype)[parts]
            if not all(np.array_equal(np.array(w), np.array(g), equal_nan=True) for w, g in zip(want, got)):
                differ.append(([a.tolist() for a in arrays], want, got))
    assert differ == []


# sorting and selection: ties are ordered as PyTorch's algorithms order them (std::sort past 16 values)
TIES = In(values=[[1.0, 3.0, 1.0, 3.0, 1.0, 3.0, 2.0, 2.0] * 3, [0.0, 1.0, 0.0, 1.0, 2.0, 2.0, 0.0, 1.0] * 3])
TIED_INTS = In((3, 40), ints=True, low=0, high=4, rg=False)
NANS = In(values=[[2.0, float("nan"), 1.0, 2.0], [float("nan"), 0.5, float("nan"), -1.0]])
for expr, specs in [
        ("torch.sort(a)", ((2, 3),)), ("a.sort(0, descending=True)", ((2, 3, 4),)), ("a.sort(dim=-2)", ((3, 4),)),
        ("torch.sort(a, stable=True)", ((3, 4),)), ("a.sort(stable=False, descending=True)", ((3, 4),)),
        ("a.sort()", (TIES,)), ("a.sort(descending=True)", (TIES,)), ("a.sort(stable=True, descending=True)", (TIES,)),
        ("a.sort(1)", (TIED_INTS,)), ("a.sort(1, True)", (TIED_INTS,)), ("a.sort()", (NANS,)),
        ("a.sort(descending=True)", (NANS,)), ("a.sort()", ((),)), ("a.sort(0)", (In((0,)),)),
        ("a.sort()", (In(values=[True, False, True, False] * 5, rg=False),)),
        ("(a.sort(descending=True).values ** 2).sum()", ((2, 5),)), ("a.sort(2)", ((2, 3),)),
        ("torch.argsort(a)", ((2, 3),)), ("a.argsort(0, True)", (TIES,)), ("a.argsort(stable=True)", (TIES,)),
        ("a.argsort(descending=True)", (TIED_INTS,)), ("torch.argsort(a)", ((),)),
        ("torch.msort(a)", ((3, 4),)), ("a.msort()", (In(values=[[1.0, 2.0]] * 20),)), ("a.msort()", ((),)),
        ("torch.topk(a, 2)", ((3, 4),)), ("a.topk(2, dim=0, largest=False)", ((3, 4),)),
        ("a.topk(3, sorted=False)", ((2, 6),)), ("a.topk(2, 1, True, False)", ((2, 3, 4),)),
        ("a.topk(3)", (TIES,)), ("a.topk(5, largest=False)", (TIES,)), ("a.topk(4, sorted=False)", (TIES,)),
        ("a.topk(1)", (TIES,)), ("a.topk(24)", (TIES,)), ("a.topk(7, 1)", (TIED_INTS,)),
        ("a.topk(2)", (In(values=[1.0] * 200),)), ("a.topk(3, largest=False)", (In(values=[2.0, 1.0] * 100),)),
        ("a.topk(2)", (NANS,)), ("a.topk(2, largest=False)", (NANS,)), ("a.topk(0)", ((2, 3),)),
        ("a.topk(1)", ((),)), ("a.topk(0)", ((),)), ("(a.topk(2).values ** 2).sum()", ((2, 4),)),
        ("a.topk(4)", ((2, 3),)), ("a.topk(-1)", ((2, 3),)), ("a.topk(1, 2)", ((2, 3),)),
        ("a.topk(1)", (In(values=[True, False], rg=False),)), ("a.topk(2)", ((),)),
        ("torch.kthvalue(a, 2)", ((3, 4),)), ("a.kthvalue(1, 0, True)", ((3, 4),)), ("a.kthvalue(3, dim=-1, keepdim=True)", ((2, 3, 4),)),
        ("a.kthvalue(5)", (TIES,)), ("a.kthvalue(12, 1)", (TIED_INTS,)), ("a.kthvalue(2)", (In(values=[2.0, 2.0, 2.0]),)),
        ("a.kthvalue(4)", (NANS,)), ("a.kthvalue(1)", ((),)), ("a.kthvalue(1, 0, True)", ((),)),
        ("(a.kthvalue(2, 0).values ** 2).sum()", ((3, 2),)), ("a.kthvalue(1, 0)", (In((2, 0)),)),
        ("a.kthvalue(4)", ((2, 3),)), ("a.kthvalue(0)", ((2, 3),)), ("a.kthvalue(1)", (In((0,)),)),
        ("a.kthvalue(1)", (In(values=[True], rg=False),)),
        ("torch.cummax(a, 1)", ((2, 4),)), ("a.cummin(0)", ((3, 2),)), ("a.cummax(-1)", ((2, 3, 4),)),
        ("a.cummax(1)", (TIES,)), ("a.cummin(1)", (TIES,)), ("a.cummax(1)", (NANS,)), ("a.cummin(1)", (NANS,)),
        ("a.cummax(0)", ((),)), ("a.cummin(0)", (In((0,)),)), ("a.cummax(1)", (TIED_INTS,)),
        ("a.cummax(0)", (In(values=[True, False, True], rg=False),)), ("(a.cummax(0).values ** 2).sum()", ((4,),)),
        ("a.cummax(2)", ((2, 3),)),
        ("torch.unique(a)", (In(values=[3.0, 1.0, 2.0, 1.0, 3.0]),)),
        ("torch.unique(a, return_inverse=True, return_counts=True)", (In(values=[[3.0, 1.0], [1.0, 2.0]]),)),
        ("a.unique(sorted=False, return_counts=True)", (In((8,), ints=True, low=0, high=3),)),
        ("torch.unique(a, dim=0, return_inverse=True, return_counts=True)",
         (In(values=[[1, 2], [0, 5], [1, 2]]),)), ("a.unique(dim=1)", (In(values=[[1.0, 2.0, 1.0], [0.0, 5.0, 0.0]]),)),
        ("a.unique()", (In(values=[True, False, True]),)), ("a.unique()", ((),)), ("a.unique(dim=0)", ((),)),
        ("a.unique(return_inverse=True, return_counts=True)", (In(values=[2.0, float("nan"), 1.0, float("nan"), 2.0]),)),
        ("a.unique(dim=0, return_inverse=True)", (In(values=[[2.0, float("nan")], [2.0, float("nan")], [1.0, 0.0]]),)),
        ("a.unique(dim=0, return_inverse=True, return_counts=True)", (In((0, 2)),)),
        ("a.unique(dim=1, return_counts=True)", (In((2, 0, 3)),)), ("a.unique(dim=0)", (In((3, 0)),)),
        ("torch.unique(a, dim=-1, return_inverse=True, return_counts=True)",
         (In((3, 5), ints=True, low=0, high=2),)),
        ("torch.unique_consecutive(a)", (In(values=[1.0, 1.0, 2.0, 2.0, 1.0]),)),
        ("a.unique_consecutive(return_inverse=True, return_counts=True)", (In(values=[[1, 1], [2, 1]]),)),
        ("torch.unique_consecutive(a, return_counts=True, dim=0)", (In(values=[[1, 2], [1, 2], [0, 1], [1, 2]]),)),
        ("a.unique_consecutive(dim=1)", (In(values=[[1.0, 1.0, 2.0], [3.0, 3.0, 4.0]]),)), ("a.unique_consecutive()", ((),)),
        ("torch.bincount(a)", (In(values=[0, 2, 2, 5]),)), ("a.bincount(minlength=8)", (In(values=[1, 1, 3]),)),
        ("a.bincount(b)", (In(values=[0, 2, 2]), In(values=[0.5, 1.0, 2.0], rg=False))),
        ("a.bincount(b)", (In(values=[0, 2, 2]), In(values=[1, 2, 3]))), ("a.bincount()", (In((0,), dtype="int64"),)),
        ("a.bincount(b)", (In(values=[0, 2, 2]), In(values=[0.5, 1.0, 2.0]))),
        ("a.bincount(b, 5)", (In(values=[0, 2, 2]), In(values=[0.5, 1.0, 2.0], dtype="float64"))),
        ("a.bincount(b)", (In(values=[1, 1]), In(values=[True, False]))),
        ("a.bincount()", (In(values=[1, 2], dtype="int32"),)), ("a.bincount()", (In(values=[1.0, 2.0], rg=False),)),
        ("a.bincount()", (In(values=[-1, 2]),)), ("a.bincount()", (In(values=[[1, 2]]),)),
        ("a.bincount(minlength=-1)", (In(values=[1, 2]),)), ("a.bincount(b)", (In(values=[1, 2]), In(values=[1.0], rg=False))),
        ("torch.searchsorted(a, b)", (In(values=[1, 3, 5, 7]), In(values=[[3, 6, 9], [0, 5, 7]]))),
        ("torch.searchsorted(a, b, right=True)", (In(values=[1.0, 3.0, 5.0, 7.0], rg=False), In(values=[[3.0, 6.0], [0.0, 5.0]], rg=False))),
        ("torch.searchsorted(a, b, side='right', out_int32=True)", (In(values=[[1, 3], [2, 4]]), In(values=[[2, 4], [3, 1]]))),
        ("torch.searchsorted(a, 5.0)", (In(values=[1.0, 3.0, 5.0, 7.0], rg=False),)),
        ("torch.searchsorted(a, b, sorter=torch.tensor([1, 2, 0]))", (In(values=[3, 1, 2]), In(values=[2, 0, 3]))),
        ("torch.searchsorted(a, b)", (In(values=[1, 3]), In(values=[2.5, 0.5], rg=False))),
        ("torch.searchsorted(a, b, side='left', right=True)", (In(values=[1, 3]), In(values=[2]))),
        ("torch.searchsorted(a, b, side='middle')", (In(values=[1, 3]), In(values=[2]))),
        ("torch.searchsorted(a, b)", (In(values=1), In(values=[2]))),
        ("torch.searchsorted(a, b)", (In(values=[[1, 3], [2, 4]]), In(values=[[2]]))),
        ("torch.bucketize(a, b)", (In(values=[[3, 6, 9], [0, 5, 7]]), In(values=[1, 3, 5, 7]))),
        ("torch.bucketize(a, b, right=True, out_int32=True)", (In(values=[3.0, 1.0, 7.5], rg=False), In(values=[1.0, 3.0, 5.0, 7.0], rg=False))),
        ("torch.searchsorted(a, b)", (In(values=[0.0, 1.0, 4.0, float("nan")], rg=False),
                                      In(values=[[7, 3, 0, 1], [6, 4, 0, 6]]))),
        ("torch.searchsorted(a, b, right=True)", (In(values=[0.0, 1.0, 1.0, 4.0], rg=False),
                                                  In(values=[float("nan"), 1.0, -1.0, 4.0], rg=False))),
        ("torch.searchsorted(a, b)", (In(values=[[0.0, 2.0, float("nan")], [1.0, 1.0, 3.0]], rg=False),
                                      In(values=[[2.0, 5.0], [1.0, 0.5]], rg=False))),
        ("torch.bucketize(a, b)", (In(values=[float("nan"), 2.0, 1.0], rg=False), In(values=[1.0, 2.0, 2.0], rg=False))),
        ("torch.bucketize(2, b)", (In(values=[1, 3]),)), ("torch.bucketize(a, b)", (In(values=[2]), In(values=[[1, 3]])))]:
    case(expr, *specs)
# in place: on a leaf that requires grad (PyTorch's error), on a view (CopySlices), with a version bump
for expr, specs in [
        ("a.scatter_(0, torch.tensor([[0]]), 1.0)", ((2, 3),)), ("a.index_add_(0, torch.tensor([0]), b)", ((2, 3), (1, 3))),
        ("out = a * 1; out[0].scatter_(0, torch.tensor([2]), b); out", ((2, 3), (1,))),
        ("out = a * 1; out[:, 1].index_fill_(0, torch.tensor([1]), 2.0); out", ((2, 3),)),
        ("out = a * 1; out.t().index_copy_(1, torch.tensor([0]), b); out", ((2, 3), (3, 1))),
        ("out = a * 1; v = out._version; out.scatter_add_(1, torch.tensor([[0, 0]]), b); out * (out._version - v)",
         ((2, 3), (1, 2))),
        ("out = a.exp(); out.scatter_(1, torch.tensor([[0], [2]]), b); out", ((2, 3), (2, 1)))]:
    case(expr, *specs)
# float64 and integer inputs keep their dtype
for expr in ["a.gather(-1, torch.tensor([[2, 0], [1, 1]]))", "a.index_select(-2, torch.tensor([1]))",
             "a.sort(-1, True)", "a.topk(2)", "a.kthvalue(2, 0)", "a.cummin(-1)", "a.masked_select(a > 0)",
             "a.take(torch.tensor([5, 0]))", "a.scatter(0, torch.tensor([[1, 0, 1]]), 7)",
             "a.index_fill(-1, torch.tensor([0]), 3)", "a.unique(return_counts=True)", "a.argsort(0)"]:
    case(expr, In((2, 3), dtype="float64"))
    case(expr, In((2, 3), ints=True, low=-3, high=3))
    case(expr, In((2, 3), ints=True, low=-3, high=3, dtype="int32"))
# their gradients under create_graph: scatter / scatter_add / index_add nodes, as PyTorch's backward formulas record
for expr, specs in [
        ("(a.max(1).values ** 2).sum()", ((2, 3),)), ("(a.min(0, keepdim=True).values ** 2).sum()", ((2, 3),)),
        ("(a.cummax(1).values ** 2).sum()", ((2, 3),)), ("(a.topk(2, 0, sorted=False).values ** 3).sum()", ((3, 2),)),
        ("(a.index_select(1, torch.tensor([2, 0, 2])) ** 2).sum()", ((2, 3),)),
        ("(a.index_fill(0, torch.tensor([1]), b) ** 2).sum()", ((3, 2), ())),
        ("(a.index_copy(0, torch.tensor([1]), b) ** 2).sum()", ((3, 2), (1, 2))),
        ("(a.index_add(0, torch.tensor([1, 1]), b, alpha=3) ** 2).sum()", ((3, 2), (2, 2))),
        ("(torch.take_along_dim(a, torch.tensor([[1], [0]]), 1) ** 2).sum()", ((2, 3),)),
        ("(a.masked_select(a > 0) ** 2).sum()", ((2, 3),)), ("(a.take(torch.tensor([4, 0])) ** 2).sum()", ((2, 3),))]:
    case(expr, *specs)

# ============================================================================ the test


@pytest.mark.parametrize("expr,specs,kw", CASES)
def test_op(expr, specs, kw):
    message = None
    try:
        check_op(make_fn(expr), *specs, desc=expr, **kw)
    except AssertionError as e:
        message = str(e)
    if message:                          # the message says it all; skip costly traceback rendering
        pytest.fail(message, pytrace=False)


# ============================================================================ check_op checks itself


def _diverging(kind):
    def fn(lib, a):
        real = lib is torch
        if kind == "value":
            return a * (2 if real else 3)
        if kind == "graph":
            return a * 1 if real else a + 0
        if kind == "saved":
            return a * 2 if real else a * G.tensor(2.0, dtype=G.float64)    # int64 2 vs float64 2.
        if kind == "grad":
            if not real:
                a.register_hook(lambda g: g * 2)
            return a.exp()
        if kind == "error":
            if real:
                raise RuntimeError("only torch raises")
            return a.exp()
        raise AssertionError(kind)
    return fn


@pytest.mark.parametrize("kind", ["value", "graph", "saved", "grad", "error"])
def test_check_op_detects_differences(kind):
    """A helper that cannot fail proves nothing: each kind of divergence must be reported."""
    with pytest.raises(AssertionError):
        check_op(_diverging(kind), (2, 3), second_order=False)


def test_check_op_agrees_on_simple_op():
    t, g = check_op(lambda lib, a, b: a * b, (2, 3), (3,), second_order=True)
    assert t["graph"][0]["class"] == "MulBackward0"
    assert t["graph"][0]["slots"]["other"][0] == "T"
    assert t["after_backward"][0]["other"] == ("FREED",)
