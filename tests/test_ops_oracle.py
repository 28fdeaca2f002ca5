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
