"""Scripts run under real torch and under gradcli by test_differential.py.

Every entry is (id, source).  Sources are PyTorch-dialect Python; each one is also valid
Python that real torch runs.  Ids say what the script is about.
"""
import textwrap

CASES = []


def case(case_id, source):
    src = textwrap.dedent(source).strip("\n") + "\n"
    assert case_id not in {c[0] for c in CASES}, case_id
    CASES.append((case_id, src))


# ============================================================================ seeds
# "PyTorch中retain_graph作用及两次backward无报错原因问询": both code blocks, verbatim.
case("seed000-block1-2f-saves-scalar-second-backward-fails", """
import torch
x = torch.tensor([2.0], requires_grad=True)
y = torch.tensor([3.0], requires_grad=True)
f = x+y
z = 2*f
y1 = z**2
y2 = z**3
y1.backward()
y2.backward()
""")

case("seed000-block2-shared-add-node-second-backward-ok", """
import torch

x = torch.tensor([2.0], requires_grad=True)
y = torch.tensor([3.0], requires_grad=True)
z = x+y
y1 = z**2
y2 = z**3
y1.backward()
y2.backward()
""")

# "Pytorch compute graph don't release as expected": torch.randn replaced by the values the question printed (torch's RNG can't be
# matched); the question's `def f(): \"\"\"doc\"\"\"` one-liner header is split so it is valid.
SEED003_A = "torch.tensor([-0.3121, -0.2331,  0.9317, -0.5075], requires_grad=True)"
case("seed003-question-sum-twice-accumulates", f"""
import torch

def analyze_your_actual_code():
    \"\"\"分析你的实际代码\"\"\"

    a = {SEED003_A}

    print(f"a: {{a}}")
    print(f"a.grad: {{a.grad}}")

    loss = a.sum()
    loss.backward()
    print(f"  a.grad: {{a.grad}}")

    loss.backward()
    print(f"  a.grad: {{a.grad}}")

analyze_your_actual_code()
""")

case("seed003-answer1-retain-graph-then-plain", f"""
import torch

def analyze_your_actual_code():
    a = {SEED003_A}

    print(f"a: {{a}}")
    print(f"a.grad: {{a.grad}}")

    loss = a.sum()
    loss.backward(retain_graph=True)
    print(f"  a.grad after 1st backward: {{a.grad}}")

    loss.backward()
    print(f"  a.grad after 2nd backward: {{a.grad}}")

analyze_your_actual_code()
""")

case("seed003-answer2-sum-times-2-second-backward-fails", f"""
import torch

a = {SEED003_A}
loss = a.sum() * 2
loss.backward()
print(f"a.grad: {{a.grad}}")
loss.backward()
print(f"a.grad: {{a.grad}}")
""")

# "pyTorch может вернуться назад дважды без установки retain_graph = True": block 1 is Python 2 (`print x.grad`) and cannot run under real Python; here it is
# with print(...).  Blocks 2 and 3 are valid Python 3 but use x.pow(3) and lack `import torch`;
# they are run with `import torch` added, once as written and once with x**3.
case("seed004-block1-py3-print-add-scalar-twice-ok", """
import torch
x = torch.ones(2, 2, requires_grad=True)
y = x + 2
y.backward(torch.ones(2, 2)) # Note I do not set retain_graph=True
y.backward(torch.ones(2, 2)) # But it can still work!
print(x.grad)
""")

SEED004_B2 = """
import torch
x = torch.ones(2, 2, requires_grad=True)
v = {POW}
y = v + 2

y.backward(torch.ones(2, 2))

print('Backward 1st time w/o retain')
print('x.grad:', x.grad)

print('Backward 2nd time w/o retain')

try:
    y.backward(torch.ones(2, 2))
except RuntimeError as err:
    print(err)

print('x.grad:', x.grad)
"""
SEED004_B3 = """
import torch
x = torch.ones(2, 2, requires_grad=True)
v = {POW}
y = v + 2

y.backward(torch.ones(2, 2), retain_graph=True)

print('Backward 1st time w/ retain')
print('x.grad:', x.grad)

print('Backward 2nd time w/ retain')

try:
    y.backward(torch.ones(2, 2))
except RuntimeError as err:
    print(err)
print('x.grad:', x.grad)
"""
case("seed004-block2-pow-method-second-backward-caught", SEED004_B2.format(POW="x.pow(3)"))
case("seed004-block2-pow-operator-second-backward-caught", SEED004_B2.format(POW="x**3"))
case("seed004-block3-pow-method-retain-then-plain", SEED004_B3.format(POW="x.pow(3)"))
case("seed004-block3-pow-operator-retain-then-plain", SEED004_B3.format(POW="x**3"))

# ============================================================================ scheduling
LEAVES = """
import torch
x = torch.tensor([[0.1, 0.2, 0.3], [0.4, 0.5, 0.6]], requires_grad=True)
y = torch.tensor([[0.6, 0.5, 0.4], [0.3, 0.2, 0.1]], requires_grad=True)
z = torch.tensor([[1.0, -1.0, 0.5], [0.25, 2.0, -0.5]], requires_grad=True)
w = torch.tensor([[0.7, 0.8, 0.9], [1.0, 1.1, 1.2]], requires_grad=True)
"""
REPORT = 'print("{tag}:", x.grad, y.grad, z.grad, w.grad, sep="\\n")\n'


def scenario(case_id, graph, bw1="L.backward()", bw2="L.backward()"):
    src = (textwrap.dedent(LEAVES).strip("\n") + "\n" + textwrap.dedent(graph).strip("\n") + "\n"
           + bw1 + "\n" + REPORT.format(tag="after bw1")
           + "try:\n    " + bw2 + "\nexcept RuntimeError as e:\n    print('bw2 failed:', e)\n"
           + REPORT.format(tag="after bw2"))
    case(case_id, src)


scenario("S1-sum-x-plus-sum-yy-bw2-updates-nothing", "L = x.sum() + (y*y).sum()")
scenario("S2-sum-yy-plus-sum-x-bw2-updates-x", "L = (y*y).sum() + x.sum()")
scenario("S3-mul-feeds-exp-and-sin-bw2-updates-z", """
a = x*y
b = a.exp()
c = a.sin()
""", bw1="b.sum().backward()", bw2="(c.sum() + z.sum()).backward()")
scenario("S3b-zsum-created-before-csum-bw2-updates-z", """
a = x*y
b = a.exp()
c = a.sin()
zs = z.sum()
""", bw1="b.sum().backward()", bw2="(zs + c.sum()).backward()")
scenario("S4-leaf-also-feeding-failing-node-gets-no-update", "L = (x*x).sum() + x.sum() + y.sum()")
scenario("S5-view-chain-lower-seq-than-exp-updates-nothing", """
q = x + 1
r = y.exp()
L = q.sum() + r.sum()
""")
scenario("S6-exp-then-neg-bw2-updates-x", """
b1 = y.exp()
a1 = x.neg()
L = b1.sum() + a1.sum()
""")
scenario("S7-neg-exp-neg-bw2-updates-nothing", """
a1 = x.neg()
b1 = y.exp()
a2 = a1.neg()
L = a2.sum() + b1.sum()
""")
scenario("S8-mul-scalar-then-add-scalar-bw2-updates-y", "L = (x*2).sum() + (y+1).sum()")
scenario("S9-add-scalar-then-mul-scalar-bw2-updates-nothing", "L = (y+1).sum() + (x*2).sum()")
scenario("S10-xy-then-z-plus-w-bw2-updates-z-w", "L = (x*y).sum() + (z+w).sum()")
scenario("S11-z-plus-w-created-first-bw2-updates-nothing", """
s = z + w
L = (x*y).sum() + s.sum()
""")
scenario("S12-exp-used-twice-bw2-updates-z", """
h = (x*y).exp()
L = h.sum() + (h+z).sum()
""")
scenario("S13-p-then-zexp-bw2-updates-z", """
p = (x*y).sum()
zs = z.exp().sum()
""", bw1="p.backward()", bw2="(zs + p).backward()")
scenario("S14-stack-xyzw-accumulates-heap-order", "L = torch.stack([x, y, z, w]).sum()")
scenario("S15-stack-wzyx-accumulates-heap-order", "L = torch.stack([w, z, y, x]).sum()")
scenario("S16-chain-of-adds-no-failure", "L = (x + y + z + w).sum()")
scenario("S17-cat-exp-bw2-updates-nothing", "L = torch.cat([x, y, z]).exp().sum()")

case("S1-uncaught-second-backward-error-line", LEAVES + """
L = x.sum() + (y*y).sum()
L.backward()
L.backward()
print("not reached")
""")
case("S2-uncaught-second-backward-x-updated", LEAVES + """
L = (y*y).sum() + x.sum()
L.backward()
L.backward()
""")

# ============================================================================ freeing
case("freeing-autograd-grad-frees-only-its-path", """
import torch
x = torch.tensor([0.5, 1.0], requires_grad=True)
y = torch.tensor([2.0, 3.0], requires_grad=True)
z = torch.tensor([0.25, 0.75], requires_grad=True)
a = x*y
b = a.exp()
c = a.sin()
d = z.cos()
L = b.sum() + c.sum() + d.sum()
gx, = torch.autograd.grad(L, x)
print(gx)
print(x.grad, y.grad, z.grad)
gz, = torch.autograd.grad(L, z)
print(gz)
try:
    torch.autograd.grad(L, y)
except RuntimeError as e:
    print("third:", e)
""")

case("freeing-autograd-grad-wrt-nonleaf-keeps-nodes-below", """
import torch
x = torch.tensor([0.5, 1.0], requires_grad=True)
a = x * x
h = a.exp()
L = h.sin().sum()
gh, = torch.autograd.grad(L, h)
print(gh)
L2 = h.sum()
L2.backward()
print(x.grad)
""")

case("freeing-backward-inputs-nonleaf-frees-its-node", """
import torch
x = torch.tensor([0.5, 1.0], requires_grad=True)
a = x * x
h = a.exp()
L = h.sin().sum()
L.backward(inputs=[h], retain_graph=False)
print(h.grad)
print(x.grad)
try:
    h.sum().backward()
except RuntimeError as e:
    print("h's node was freed:", e)
print(x.grad)
""")

case("freeing-backward-inputs-leaf-leaves-other-branch", """
import torch
x = torch.tensor([0.5, 1.0], requires_grad=True)
z = torch.tensor([2.0, 3.0], requires_grad=True)
L = (x.sin() * 3).sum() + z.cos().sum()
L.backward(inputs=[x])
print(x.grad, z.grad)
zc = z.cos()
zc.sum().backward()
print(z.grad)
""")

case("freeing-retain-then-plain-then-third-fails", """
import torch
x = torch.tensor([1.0, 2.0], requires_grad=True)
L = (x * x).sum()
L.backward(retain_graph=True)
print(x.grad)
L.backward()
print(x.grad)
L.backward()
print("unreachable")
""")

case("freeing-failure-part-way-frees-nodes-that-ran", """
import torch
x = torch.tensor([0.5, 1.0], requires_grad=True)
y = torch.tensor([2.0, 3.0], requires_grad=True)
a = x * y
b = a.exp()
c = a.sin()
d = a.cos()
b.sum().backward()
print(x.grad)
try:
    c.sum().backward()
except RuntimeError as e:
    print("second:", e)
try:
    c.sum().backward()
except RuntimeError as e:
    print("third:", e)
d.sum().backward(retain_graph=True)
""")

case("freeing-no-saved-tensors-three-backwards", """
import torch
x = torch.tensor([1.0, 2.0], requires_grad=True)
L = (x + 1).sum()
L.backward()
L.backward()
L.backward()
print(x.grad)
M = (x * 2).sum()
M.backward()
M.backward()
""")

case("freeing-retain-graph-true-failing-call-frees-nothing", """
import torch
x = torch.tensor([1.0, 2.0], requires_grad=True)
y = torch.tensor([3.0, 4.0], requires_grad=True)
a = x * y
b = a.exp()
b.sum().backward()
L = a.sin().sum() + b.sum()
try:
    L.backward(retain_graph=True)
except RuntimeError as e:
    print(e)
print(x.grad, y.grad)
""")

case("freeing-unused-input-still-runs-and-frees", """
import torch
x = torch.tensor([1., 2.], requires_grad=True)
z = torch.tensor([1., 2.], requires_grad=True)
y = (x*x).sum()
try:
    torch.autograd.grad(y, [x, z])
except RuntimeError as e:
    print(e)
y.backward()
""")

# ============================================================================ errors
case("second-backward-message-and-line", """
import torch
x = torch.tensor([1.0, 2.0], requires_grad=True)
y = x.exp()
L = y.sum()
L.backward()
L.backward()
""")

case("nonscalar-backward", """
import torch
x = torch.tensor([1.0, 2.0], requires_grad=True)
(x*2).backward()
""")
case("nonscalar-autograd-grad", """
import torch
x = torch.tensor([1.0, 2.0], requires_grad=True)
torch.autograd.grad(x*2, x)
""")
case("nonscalar-leaf-backward", """
import torch
x = torch.tensor([1.0, 2.0], requires_grad=True)
x.backward()
""")
case("nonscalar-numel1-shapes-need-no-gradient", """
import torch
x = torch.tensor([3.0], requires_grad=True)
(x*x).backward()
print(x.grad)
m = torch.tensor([[2.0]], requires_grad=True)
(m*3).backward()
print(m.grad)
""")
case("no-grad-fn-plain-sum-backward", """
import torch
t = torch.tensor([1.0, 2.0])
t.sum().backward()
""")
case("no-grad-fn-detached-backward", """
import torch
x = torch.tensor([1.0, 2.0], requires_grad=True)
x.detach().sum().backward()
""")
case("no-grad-fn-autograd-grad-of-plain", """
import torch
x = torch.tensor([1.0, 2.0], requires_grad=True)
p = torch.tensor(3.0)
try:
    torch.autograd.grad(p, x)
except RuntimeError as e:
    print(e)
q = torch.tensor([1.0, 2.0])
q.backward(torch.ones(2))
""")
case("no-grad-fn-root-made-under-no-grad", """
import torch
x = torch.tensor([1.0, 2.0], requires_grad=True)
with torch.no_grad():
    y = (x*2).sum()
print(y.requires_grad, y.grad_fn)
y.backward()
""")
case("gradient-shape-mismatch", """
import torch
x = torch.tensor([1.0, 2.0], requires_grad=True)
y = x * 3
y.backward(torch.ones(3))
""")
case("gradient-shape-1-for-2-no-broadcast", """
import torch
x = torch.tensor([1.0, 2.0], requires_grad=True)
y = x * 3
try:
    y.backward(torch.ones(1))
except RuntimeError as e:
    print(e)
s = y.sum()
s.backward(torch.ones(2))
""")
case("gradient-shape-autograd-grad-outputs-mismatch", """
import torch
x = torch.tensor([1.0, 2.0], requires_grad=True)
y = x * 3
torch.autograd.grad(y, x, grad_outputs=torch.ones(3))
""")
case("gradient-float-is-type-error", """
import torch
x = torch.tensor([1.0, 2.0], requires_grad=True)
y = x * 3
y.sum().backward(2.0)
""")
case("gradient-float64-for-float32-output", """
import torch
x = torch.tensor([1.0, 2.0], requires_grad=True)
y = x * 3
y.backward(torch.tensor([1.0, 0.5], dtype=torch.float64))
print(x.grad, x.grad.dtype)
""")

BROADCAST_MISMATCHES = [
    ("2x3-plus-2x4", "torch.ones(2, 3) + torch.ones(2, 4)"),
    ("2x3-times-2x4", "torch.ones(2, 3) * torch.ones(2, 4)"),
    ("3-plus-4", "torch.ones(3) + torch.ones(4)"),
    ("2x3-times-3x2", "torch.ones(2, 3) * torch.ones(3, 2)"),
    ("2x3-minus-2", "torch.ones(2, 3) - torch.ones(2)"),
    ("4x3-div-2x3", "torch.ones(4, 3) / torch.ones(2, 3)"),
    ("2x3x4-plus-2x5x4", "torch.ones(2, 3, 4) + torch.ones(2, 5, 4)"),
]
for name, expr in BROADCAST_MISMATCHES:
    case(f"broadcast-{name}", f"""
import torch
a = torch.ones(1)
try:
    r = {expr}
except RuntimeError as e:
    print(e)
b = {expr}
""")

MATMUL_MISMATCHES = [
    ("2x3-at-4x5", "torch.ones(2, 3) @ torch.ones(4, 5)"),
    ("dot-3-at-4", "torch.ones(3) @ torch.ones(4)"),
    ("mv-2x3-at-4", "torch.ones(2, 3) @ torch.ones(4)"),
    ("vm-4-at-2x3", "torch.ones(4) @ torch.ones(2, 3)"),
    ("0d-at-1d", "torch.tensor(1.) @ torch.ones(3)"),
]
for name, expr in MATMUL_MISMATCHES:
    case(f"matmul-{name}", f"""
import torch
x = {expr}
""")

E8_DTYPE = [
    ("dot-f32-f64", "torch.ones(3) @ torch.ones(3, dtype=torch.float64)"),
    ("dot-f64-f32", "torch.ones(3, dtype=torch.float64) @ torch.ones(3)"),
    ("mv-f32-f64", "torch.ones(2, 3) @ torch.ones(3, dtype=torch.float64)"),
    ("mv-f64-f32", "torch.ones(2, 3, dtype=torch.float64) @ torch.ones(3)"),
    ("mm-f32-f64", "torch.ones(2, 3) @ torch.ones(3, 2, dtype=torch.float64)"),
]
for name, expr in E8_DTYPE:
    case(f"matmul-mixed-dtype-{name}", f"""
import torch
x = {expr}
""")

case("factory-int-requires-grad", """
import torch
t = torch.tensor([1, 2], requires_grad=True)
""")
case("arange-int-requires-grad", """
import torch
t = torch.arange(3, requires_grad=True)
""")
case("bool-factory-requires-grad", """
import torch
t = torch.tensor([True, False], requires_grad=True)
""")
case("int-requires-grad-method-wording", """
import torch
i = torch.tensor([1, 2])
try:
    i.requires_grad_()
except RuntimeError as e:
    print(e)
i.requires_grad = True
""")
case("unused-input-index-1", """
import torch
x = torch.tensor([1., 2.], requires_grad=True)
z = torch.tensor([5., 6.], requires_grad=True)
y = (x*x).sum()
torch.autograd.grad(y, [x, z])
""")
case("unused-input-single-index-0", """
import torch
x = torch.tensor([1., 2.], requires_grad=True)
z = torch.tensor([5., 6.], requires_grad=True)
y = (x*x).sum()
torch.autograd.grad(y, z)
""")
case("unused-input-allow-unused-prints-none", """
import torch
x = torch.tensor([1., 2.], requires_grad=True)
z = torch.tensor([5., 6.], requires_grad=True)
y = (x*x).sum()
print(torch.autograd.grad(y, [x, z], allow_unused=True))
y2 = (x*x).sum()
print(torch.autograd.grad(y2, z, allow_unused=True))
""")
case("grad-wrt-tensor-not-requiring-grad", """
import torch
x = torch.tensor([1., 2.], requires_grad=True)
xn = torch.tensor([1., 2.])
y = (x*xn).sum()
torch.autograd.grad(y, xn)
""")
case("grad-wrt-detached", """
import torch
x = torch.tensor([1., 2.], requires_grad=True)
y = (x*x).sum()
torch.autograd.grad(y, x.detach())
""")
case("backward-inputs-plain-tensor", """
import torch
x = torch.tensor([1., 2.], requires_grad=True)
p = torch.tensor([3., 4.])
y = (x*p).sum()
y.backward(inputs=[p])
""")
case("backward-inputs-unused-leaf-no-error", """
import torch
x = torch.tensor([1., 2.], requires_grad=True)
u = torch.tensor([3., 4.], requires_grad=True)
y = (x*x).sum()
y.backward(inputs=[u])
print(x.grad, u.grad)
""")
case("item-two-elements", """
import torch
t = torch.tensor([1., 2.])
print(t.item())
""")
case("item-zero-elements", """
import torch
t = torch.zeros(0)
t.item()
""")
case("item-ok-for-1x1-and-0d-requires-grad", """
import torch
m = torch.tensor([[3.5]])
print(m.item())
s = torch.tensor(2.5, requires_grad=True)
print(s.item())
print(type(s.item()).__name__, type(torch.tensor(3).item()).__name__)
""")
case("float-of-two-elements-valueerror", """
import torch
t = torch.tensor([1., 2.])
float(t)
""")
case("bool-of-two-elements", """
import torch
t = torch.tensor([1., 2.])
if t:
    print("yes")
""")
case("zero-on-none-grad", """
import torch
x = torch.tensor([1., 2.], requires_grad=True)
print(x.grad)
x.grad.zero_()
""")
case("assign-wrong-size-grad", """
import torch
x = torch.tensor([1., 2.], requires_grad=True)
x.grad = torch.ones(3)
""")
case("requires-grad-false-on-nonleaf", """
import torch
x = torch.tensor([1., 2.], requires_grad=True)
y = x * 2
try:
    y.requires_grad = False
except RuntimeError as e:
    print(e)
y.requires_grad_(False)
""")
case("mean-of-int-tensor", """
import torch
i = torch.tensor([1, 2, 3])
print(i.sum())
i.mean()
""")
case("int-to-negative-int-power", """
import torch
i = torch.tensor([1, 2, 3])
print(i ** 2)
j = i ** -1
""")

case("W1-nonleaf-grad-warns-once-per-line", """
import torch
x = torch.tensor([1., 2.], requires_grad=True)
y = x * 2
for i in range(3):
    print(y.grad)
print(y.grad)
print(x.grad)
print(torch.tensor([1.]).grad, x.detach().grad)
""")
case("W1-no-warning-after-retain-grad", """
import torch
x = torch.tensor([1., 2.], requires_grad=True)
y = x * 2
y.retain_grad()
print(y.grad)
y.sum().backward()
print(y.grad)
""")

# ============================================================================ scalar wrapping
case("scalar-x-times-2-second-backward-fails", """
import torch
x = torch.tensor([1., 2.], requires_grad=True)
L = (x*2).sum()
print(L.grad_fn.name(), L.grad_fn.next_functions[0][0].name())
L.backward()
print(x.grad)
L.backward()
""")
case("scalar-2-times-x-second-backward-fails", """
import torch
x = torch.tensor([1., 2.], requires_grad=True)
L = (2*x).sum()
L.backward()
try:
    L.backward()
except RuntimeError as e:
    print(type(e).__name__)
print(x.grad)
""")
case("scalar-x-plus-2-repeats", """
import torch
x = torch.tensor([1., 2.], requires_grad=True)
L = (x+2).sum()
for k in range(3):
    L.backward()
    print(k, x.grad)
M = (2+x).sum()
M.backward()
M.backward()
N = (x-2.5).sum()
N.backward()
N.backward()
print(x.grad)
""")
case("scalar-x-times-float-and-div-fail", """
import torch
x = torch.tensor([1., 2.], requires_grad=True)
A = (x*2.5).sum()
B = (x/2).sum()
A.backward()
B.backward()
print(x.grad)
try:
    A.backward()
except RuntimeError as e:
    print("A:", e)
try:
    B.backward()
except RuntimeError as e:
    print("B:", e)
""")
case("scalar-2-over-x-is-reciprocal-then-mul", """
import torch
x = torch.tensor([1., 2., 4.], requires_grad=True)
y = 2/x
print(y)
print(y.grad_fn.name(), y.grad_fn.next_functions[0][0].name())
L = y.sum()
L.backward()
print(x.grad)
L.backward()
""")
case("scalar-2.0-over-x-float64-constant", """
import torch
x = torch.tensor([1., 2., 4.], requires_grad=True)
y = 2.0/x
print(y, y.dtype)
y.sum().backward()
print(x.grad)
""")
case("scalar-2-minus-x-is-rsub-repeatable", """
import torch
x = torch.tensor([1., 2.], requires_grad=True)
y = 2 - x
print(y, y.grad_fn.name())
z = 2.5 - x
print(z.grad_fn.name())
L = (y + z).sum()
L.backward()
L.backward()
print(x.grad)
""")
case("scalar-neg-repeatable", """
import torch
x = torch.tensor([1., 2.], requires_grad=True)
L = (-x).sum()
L.backward()
L.backward()
print(x.grad, (-x).grad_fn.name())
""")
case("scalar-tensor-constant-times-x-saves-self", """
import torch
x = torch.tensor([1., 2.], requires_grad=True)
c = torch.tensor(3.)
L = (c * x).sum()
L.backward()
print(x.grad, c.grad)
L.backward()
""")

# ============================================================================ saved slots
case("saved-mul-with-plain-operand-frees-one-slot", """
import torch
x = torch.tensor([1., 2.], requires_grad=True)
yn = torch.tensor([3., 4.])
a = x * yn
b = yn * x
c = x * x
(a + b + c).sum().backward()
print(x.grad)
""")
case("saved-div-always-saves-other", """
import torch
x = torch.tensor([1., 2.], requires_grad=True)
y = torch.tensor([3., 4.], requires_grad=True)
xn = torch.tensor([5., 6.])
yn = torch.tensor([7., 8.])
a = x / y
b = x / yn
c = xn / y
(a + b + c).sum().backward()
print(x.grad, y.grad)
""")
case("saved-pow-variants", """
import torch
x = torch.tensor([1., 2.], requires_grad=True)
y = torch.tensor([0.5, 1.5], requires_grad=True)
yn = torch.tensor([2., 3.])
a = x ** 2
b = x ** 0.5
c = 2 ** x
d = x ** y
e = x ** yn
f = x ** -1
for t in (a, b, c, d, e, f):
    print(t.grad_fn.name(), t)
(a + b + c + d + e + f).sum().backward()
print(x.grad, y.grad)
""")
case("div-by-itself-gradient-is-exactly-zero", """
import torch
a = torch.tensor([[1.0, 0.75, 1.5], [0.5, 0.5, 1.0]], requires_grad=True)
t = a.sum().sqrt()
q = t / t
q.backward()
print(a.grad)
b = torch.tensor(2.0, dtype=torch.float64, requires_grad=True)
e = b.exp()
(e / e).backward()
print(b.grad)
""")
case("tanh-backward-near-saturation-rounding", """
import torch
b = torch.tensor([2.0, 1.5, -0.5], requires_grad=True)
t = b.exp().tanh()
t.sum().backward()
print(b.grad)
x = torch.tensor([3.0, 4.0, 0.5], requires_grad=True)
x.tanh().sum().backward()
print(x.grad)
""")
case("saved-unary-ops", """
import torch
x = torch.tensor([0.5, 1.0, 2.0], requires_grad=True)
outs = [x.exp(), x.log(), x.sin(), x.cos(), x.tanh(), x.sigmoid(), x.relu(), x.sqrt(), x.abs(),
        torch.exp(x), torch.log(x), torch.sin(x), torch.cos(x), torch.tanh(x), torch.sigmoid(x),
        torch.relu(x), torch.sqrt(x), torch.abs(x)]
names = [o.grad_fn.name() for o in outs]
print(names)
L = outs[0].sum()
for o in outs[1:]:
    L = L + o.sum()
L.backward()
print(x.grad)
""")
case("saved-relu-abs-at-zero-and-negative", """
import torch
x = torch.tensor([-1.0, 0.0, 2.0], requires_grad=True)
(x.relu() + x.abs()).sum().backward()
print(x.grad)
""")
case("saved-matmul-dot-mv-mm", """
import torch
v = torch.tensor([1., 2., 3.], requires_grad=True)
w = torch.tensor([0.5, -1., 2.], requires_grad=True)
M = torch.tensor([[1., 0., 2.], [0., 3., 1.]], requires_grad=True)
N = torch.tensor([[1., 2.], [3., 4.], [5., 6.]], requires_grad=True)
d = v @ w
mv = M @ v
mm = M @ N
print(d, mv, mm, sep="\\n")
print(d.grad_fn.name(), mv.grad_fn.name(), mm.grad_fn.name())
L = d + mv.sum() + mm.sum()
L.backward()
print(v.grad, w.grad, M.grad, N.grad, sep="\\n")
""")
case("saved-matmul-one-side-plain", """
import torch
v = torch.tensor([1., 2., 3.], requires_grad=True)
wn = torch.tensor([0.5, -1., 2.])
Mn = torch.tensor([[1., 0., 2.], [0., 3., 1.]])
M = torch.tensor([[1., 0., 2.], [0., 3., 1.]], requires_grad=True)
Nn = torch.tensor([[1., 2.], [3., 4.], [5., 6.]])
L = (v @ wn) + (wn @ v) + (Mn @ v).sum() + (M @ wn).sum() + (M @ Nn).sum()
L.backward()
print(v.grad, M.grad, sep="\\n")
L.backward()
""")
case("saved-vector-at-matrix-1d-2d", """
import torch
v = torch.tensor([1., 2.], requires_grad=True)
M = torch.tensor([[1., 0., 2.], [0., 3., 1.]], requires_grad=True)
r = v @ M
print(r, r.grad_fn.name())
r.sum().backward()
print(v.grad, M.grad, sep="\\n")
""")
case("reductions-sum-mean-with-dim", """
import torch
x = torch.tensor([[1., 2., 3.], [4., 5., 6.]], requires_grad=True)
a = x.sum(dim=0)
b = x.mean(1)
c = torch.sum(x, dim=-1)
d = x.mean()
e = torch.mean(x, dim=0)
for t in (a, b, c, d, e):
    print(t.grad_fn.name(), t)
L = (a * a).sum() + (b * 2).sum() + c.sum() + d + e.sum()
L.backward()
print(x.grad)
L.backward()
""")
case("reductions-sum-mean-dim-repeatable", """
import torch
x = torch.tensor([[1., 2., 3.], [4., 5., 6.]], requires_grad=True)
L = x.sum(0).sum() + x.mean(dim=1).sum() + x.mean()
L.backward()
L.backward()
print(x.grad)
""")

# ============================================================================ dtypes
case("dtype-python-scalars-keep-float32", """
import torch
f = torch.tensor([1.5, 2.0], requires_grad=True)
for t in (2*f, f*2, f*2.5, f+2, 2-f, f/2, 2/f, f**2, 2**f, f**0.5, f+True):
    print(t.dtype, t)
""")
case("dtype-int-tensor-with-python-float", """
import torch
i = torch.tensor([1, 2, 3])
b = torch.tensor([True, False, True])
for t in (i*2.5, i/2, i**0.5, b*1.5):
    print(t.dtype, t)
for t in (i*2, i**2, i+True, b+1, i+b, i.sum(), b.sum()):
    print(t.dtype, t)
print((b+b).dtype, b+b)
""")
case("dtype-float64-promotion-rules", """
import torch
f = torch.tensor([1., 2.])
i = torch.tensor([1, 2])
b = torch.tensor([True, False])
d = torch.tensor([1., 2.], dtype=torch.float64)
print((f + d).dtype, (i + d).dtype)
print((f + torch.tensor(2., dtype=torch.float64)).dtype)
print((i + torch.tensor(2.5)).dtype, (i + torch.tensor(2.5, dtype=torch.float64)).dtype)
print((f + i).dtype, (f + b).dtype, (torch.tensor(2) + f).dtype)
print(f + d, i + d)
""")
case("dtype-float64-leaf-grad-float64", """
import torch
x = torch.tensor([1., 2.], dtype=torch.float64, requires_grad=True)
y = torch.tensor([3., 4.], requires_grad=True)
L = (x * y).sum()
print(L.dtype, L)
L.backward()
print(x.grad, y.grad)
print(x.grad.dtype, y.grad.dtype)
""")
case("dtype-factories", """
import torch
for t in (torch.tensor([2.0]), torch.tensor(2.0), torch.tensor([1, 2.5]), torch.ones(2), torch.zeros(2),
          torch.arange(3.), torch.full((2,), 7.), torch.tensor([2]), torch.tensor(2),
          torch.tensor([1, True]), torch.arange(3), torch.full((2,), 7), torch.tensor([True]),
          torch.ones(2, dtype=torch.float64), torch.zeros_like(torch.tensor([1, 2])),
          torch.ones_like(torch.tensor([1., 2.], dtype=torch.float64))):
    print(t.dtype, t.shape, t)
""")
case("dtype-float32-arithmetic-values", """
import torch
s = torch.tensor(0.1) + torch.tensor(0.2)
print(s, s.item())
print(torch.tensor([16777217.]))
print((torch.tensor([1.]) / 3).item())
print(torch.tensor(0.1).item(), torch.tensor(0.1, dtype=torch.float64).item())
""")

# ============================================================================ accumulation
case("accumulate-three-backwards-and-zero", """
import torch
x = torch.tensor([1., 2.], requires_grad=True)
for k in range(3):
    L = (x * x).sum()
    L.backward()
    print(k, x.grad)
x.grad.zero_()
print(x.grad)
(x * 3).sum().backward()
print(x.grad)
""")
case("accumulate-in-place-old-reference-sees-updates", """
import torch
x = torch.tensor([1., 2.], requires_grad=True)
(x * x).sum().backward()
g1 = x.grad
(x * x).sum().backward()
print(g1, g1 is x.grad)
x.grad.zero_()
print(g1)
x.grad = None
(x * 3).sum().backward()
print(g1, x.grad, g1 is x.grad)
""")
case("accumulate-leaf-used-several-times", """
import torch
x = torch.tensor([1., 2.], requires_grad=True)
(x * x + x).sum().backward()
print(x.grad)
x.grad = None
(x + x).sum().backward()
print(x.grad)
x.grad = None
(x.exp() + x.sin()).sum().backward()
print(x.grad)
""")
case("accumulate-grad-set-none-and-assign", """
import torch
x = torch.tensor([1., 2.], requires_grad=True)
x.grad = torch.tensor([10., 20.])
(x * 2).sum().backward()
print(x.grad)
x.grad = None
print(x.grad)
""")
case("accumulate-leaf-backward-with-gradient", """
import torch
x = torch.tensor([1., 2.], requires_grad=True)
g = torch.tensor([0.5, 0.25])
x.backward(g)
print(x.grad, x.grad is g)
x.backward(g)
print(x.grad, g)
""")

# ============================================================================ retain_grad, detach, no_grad
case("retain-grad-nonleaf-accumulates", """
import torch
x = torch.tensor([1., 2.], requires_grad=True)
h = x * 3
h.retain_grad()
k = h.exp()
k.retain_grad()
L = k.sum()
L.backward(retain_graph=True)
print(h.grad, k.grad, x.grad, sep="\\n")
L.backward()
print(h.grad, k.grad, x.grad, sep="\\n")
x.retain_grad()
print(h.is_leaf, k.is_leaf, x.is_leaf)
""")
case("retain-grad-filled-by-autograd-grad-too", """
import torch
x = torch.tensor([1., 2.], requires_grad=True)
h = x * 3
h.retain_grad()
L = (h * h).sum()
g, = torch.autograd.grad(L, x, retain_graph=True)
print(g, h.grad)
L.backward()
print(x.grad, h.grad)
""")
case("retain-grad-root-filled-when-inputs-elsewhere", """
import torch
x = torch.tensor(2.0, requires_grad=True)
u = torch.tensor(1.0, requires_grad=True)
h = x.exp()
h.retain_grad()
h.backward(inputs=[u])
print(h.grad, x.grad, u.grad)
""")
case("retain-grad-turned-on-by-backward-inputs-nonleaf", """
import torch
x = torch.tensor(2.0, requires_grad=True)
h = x.exp()
L = x + h
L.backward(inputs=[h], retain_graph=True)
print(h.grad, x.grad)
L.backward(retain_graph=True)
print(h.grad, x.grad)
torch.autograd.grad(L, x)
print(h.grad, x.grad)
""")
case("detach-cuts-graph", """
import torch
x = torch.tensor([1., 2.], requires_grad=True)
y = x * 2
d = y.detach()
print(d, d.requires_grad, d.is_leaf, d.grad_fn)
z = (d * x).sum()
z.backward()
print(x.grad)
e = x.detach()
e.requires_grad_()
(e * e).sum().backward()
print(e.grad, x.grad)
""")
case("requires-grad-flag-and-method", """
import torch
a = torch.tensor([1., 2.])
print(a.requires_grad, a.is_leaf)
a.requires_grad_()
b = torch.tensor([3., 4.])
b.requires_grad = True
(a * b).sum().backward()
print(a.grad, b.grad)
c = torch.tensor([5., 6.], requires_grad=True)
c.requires_grad_(False)
print(c.requires_grad, (c * a).requires_grad)
""")
case("no-grad-results-do-not-require-grad", """
import torch
x = torch.tensor([1., 2.], requires_grad=True)
with torch.no_grad():
    y = x * 2
    z = y + x
print(y.requires_grad, y.grad_fn, z.is_leaf)
w = (x * y).sum()
w.backward()
print(x.grad)
""")
case("no-grad-backward-inside-works", """
import torch
x = torch.tensor([1., 2.], requires_grad=True)
y = (x * 2).sum()
with torch.no_grad():
    y.backward()
print(x.grad)
""")

# ============================================================================ printing & calls
case("print-attributes-and-fstrings", """
import torch
x = torch.tensor([1., 2.], requires_grad=True)
y = x * 2
z = (x * x).sum()
print(x.grad)
print(y)
print(z)
print(x, x.detach())
print(y.grad_fn.name())
print(x.shape, torch.zeros(2, 3).shape, z.shape)
print(x.dtype, torch.tensor([1]).dtype, torch.tensor([True]).dtype)
print(x.requires_grad, y.requires_grad, x.detach().requires_grad)
print(x.is_leaf, y.is_leaf, torch.tensor([1.]).is_leaf)
print(x.grad_fn)
z.backward()
print(x.grad)
print([x, y])
print(z.item())
print(f"{z}", f"{z:.3f}", "{}".format(z))
print("loss:", z)
print(f"{y}")
""")
case("print-autograd-grad-results", """
import torch
x = torch.tensor([1., 2.], requires_grad=True)
y = x * 2
z = (x * x).sum()
print(torch.autograd.grad(z, x, retain_graph=True))
print(torch.autograd.grad(z, [x, y], allow_unused=True))
""")
case("print-wide-tensors-with-suffix", """
import torch
a = torch.arange(11.).requires_grad_()
print(a)
b = torch.arange(15.).requires_grad_() * 1
print(b)
c = torch.arange(12., dtype=torch.float64).requires_grad_() * 1
print(c)
b.sum().backward()
print(a.grad)
""")
case("autograd-grad-multiple-outputs-and-grad-outputs", """
import torch
x = torch.tensor([1., 2.], requires_grad=True)
y = x * x
z = x.exp()
gx, = torch.autograd.grad([y.sum(), z.sum()], [x])
print(gx)
g2 = torch.autograd.grad(y, x, grad_outputs=torch.tensor([1., 0.5]))
print(g2)
print(x.grad)
""")
case("autograd-backward-function-form", """
import torch
x = torch.tensor([1., 2.], requires_grad=True)
y = (x * x).sum()
torch.autograd.backward(y)
print(x.grad)
z = x * 3
torch.autograd.backward(z, torch.ones(2))
print(x.grad)
""")
case("backward-gradient-nonscalar", """
import torch
x = torch.tensor([[1., 2., 3.], [4., 5., 6.]], requires_grad=True)
y = x * x
y.backward(torch.ones_like(y), retain_graph=True)
print(x.grad)
y.backward(torch.full((2, 3), 0.5))
print(x.grad)
""")

# ============================================================================ control flow
case("loop-builds-chain-then-backward-twice", """
import torch
x = torch.tensor([0.5, 1.0], requires_grad=True)
y = x
for i in range(4):
    y = y * 1.5 + 1
L = y.sum()
L.backward()
print(x.grad)
L.backward()
""")
case("function-builds-graph-lines-inside", """
import torch

def model(a, b):
    h = a * b
    return h.tanh().sum()

x = torch.tensor([0.5, 1.0], requires_grad=True)
w = torch.tensor([2.0, -1.0], requires_grad=True)
loss = model(x, w)
loss.backward()
print(x.grad, w.grad)
loss.backward()
""")
case("while-and-if-gradient-descent", """
import torch
w = torch.tensor([1.0, -2.0], requires_grad=True)
step = 0
while step < 3:
    loss = ((w - 3) ** 2).sum()
    loss.backward()
    with torch.no_grad():
        w_new = w - 0.1 * w.grad
    if step == 1:
        print("loss at step 1:", loss.item())
    print(step, w.grad)
    w.grad.zero_()
    step += 1
print(w_new)
""")
case("sigmoid-tanh-chain-freed-order", """
import torch
x = torch.tensor([0.5, -0.5, 1.0], requires_grad=True)
y = torch.tensor([1.0, 2.0, 3.0])
h = (x * y).sigmoid()
k = h.tanh() + h.sqrt()
L = (k * k).mean()
L.backward()
print(x.grad)
L.backward()
""")
case("mean-of-2d-and-scalar-leaf", """
import torch
s = torch.tensor(2.0, requires_grad=True)
M = torch.tensor([[1., 2., 3.], [4., 5., 6.]], requires_grad=True)
L = (M * s).mean() + s ** 3
L.backward()
print(s.grad, M.grad)
""")
# Found by the random-script generator at another seed: NumPy's float32 power is an ulp off
# PyTorch's std::pow (0.57735026 ** -2 gave 3.0000002, printed -3.0000 instead of -3.).
case("pow-tensor-exponent-rounded-once", """
import torch
a = torch.tensor(-1.0, requires_grad=True)
t0 = a / 2
t1 = 3 ** t0
t2 = t1 ** a
print('grad', torch.autograd.grad(t2, [a, t1]))
w = torch.tensor([0.3, 1.7, 2.5], requires_grad=True)
print(w ** torch.tensor([-2.0, 0.5, 3.3]), 2.5 ** w)
""")
# Found by the in-place generator at another seed: `-t` of a 0-d tensor held a NumPy scalar,
# and an in-place op on it was an internal error.
case("inplace-on-negated-0d-tensor", """
import torch
y = torch.tensor([1.5, -1.0, -1.25], requires_grad=True)
t3 = y[0].cos()
with torch.no_grad():
    t5 = t3.sin()
t6 = -t5
t6.pow_(2)
print(t6, t6._version)
t7 = -y[1]
t7.mul_(3)
t7.sum().backward()
print(y.grad)
""")
# Found by the in-place generator at another seed: CopySlices lets its wrapped op go when a
# non-retaining backward runs it, so a second backward fails even though nothing was saved.
case("copyslices-second-backward-fails", """
import torch
y = torch.tensor([0.75, -1.0, 0.25], requires_grad=True)
t2 = torch.zeros(2, 3)
t2[0] = y
t2.sum().backward(retain_graph=True)
t2.sum().backward()
print('y.grad', y.grad)
t2.sum().backward()
""")
# Found by the in-place generator at another seed: clone keeps a dense tensor's strides
# (preserve_format), so reshaping the clone of a transpose copies instead of aliasing.
case("clone-of-transpose-keeps-strides", """
import torch
n = torch.tensor([[-0.5, 0.75, 0.75], [0.25, -1.0, -0.5]])
t2 = n.t().clone()
t3 = -t2
t4 = t3.reshape(-1)
print(t2.is_contiguous(), t3.is_contiguous(), n[:, ::2].clone().is_contiguous())
t3.data.add_(1)
print(t4, t3)
try:
    t2.view(-1)
except RuntimeError as e:
    print('RuntimeError:', e)
""")
