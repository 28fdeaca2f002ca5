"""The benchmark workloads, each written once against a `torch`-like module.

`torch` below is a parameter: gradcli's `gradcli.torch` or real PyTorch run the very
same functions (`w1_chain`, `w2_forward`, `w3_forward`, and the `*_torchlike` steps).
HIPS autograd and MyGrad (optional columns, when importable) run the same forward
functions through a small shim namespace with the same names; only leaf creation and the
backward call differ. The hand-written NumPy versions (`*_numpy`) do forward and
backward by hand and are the yardstick for the regression guard.

  W1  chain of N elementwise ops (`z*c`, `z+c`, `tanh`) on a 1-element float32 tensor,
      forward + backward: pure per-op engine overhead (µs per op).
  W2  21 elementwise ops on two float32 vectors of 1e6 elements, sum, backward (ms):
      memory traffic and temporaries.
  W3  4-layer tanh MLP (batch 256, width 512), MSE loss, forward + backward + SGD (ms):
      matmul-bound; the engine's overhead should vanish.
  W5  a small MLP (3 nn.Linear of width 64, ReLU, batch 32, nn.MSELoss), 200 training
      steps: forward + backward, then also SGD with momentum or Adam (µs per step).
  W4  whole processes (`python script.py` with PyTorch vs `gradcli run --plain`):
      start-up, and the W1 chain as a script (straight lines and a `for` loop).

Every `make_*` function returns a zero-argument callable (one timed repetition) for a
contender name; `contenders()` lists the names that can run here.

Run as `python -m benchmarks.workloads rss w2 CONTENDER [SIZE]` it runs W2 in a fresh
process and prints that process's RSS high-water (used by benchmarks.run).
"""
from __future__ import annotations

import gc
import importlib
import json
import os
import re
import resource
import sys
import time
import types

import numpy as np

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# ----------------------------------------------------------------------------- contenders

#: every contender, in table order; which of them can run is decided by `contenders()`
ALL = ("gradcli", "torch", "numpy", "autograd", "mygrad")
TORCHLIKE = ("gradcli", "torch")


def load(name):
    """The module a contender runs on (None when it is not installed)."""
    try:
        if name == "gradcli":
            if REPO not in sys.path:
                sys.path.insert(0, REPO)
            return importlib.import_module("gradcli.torch")
        if name == "torch":
            return importlib.import_module("torch")
        if name == "numpy":
            return np
        if name == "autograd":
            importlib.import_module("autograd")
            return importlib.import_module("autograd.numpy")
        if name == "mygrad":
            return importlib.import_module("mygrad")
    except ImportError:
        return None
    raise ValueError(f"unknown contender {name!r}")


def contenders(wanted=ALL):
    return [n for n in wanted if load(n) is not None]


def _shim(np_like):
    """A torch-shaped namespace over a NumPy-like module (autograd.numpy, mygrad)."""
    mean = np_like.mean
    return types.SimpleNamespace(
        tanh=np_like.tanh, sin=np_like.sin, cos=np_like.cos, exp=np_like.exp, log=np_like.log,
        sqrt=np_like.sqrt,
        nn=types.SimpleNamespace(functional=types.SimpleNamespace(mse_loss=lambda a, b: mean((a - b) ** 2))))

# ----------------------------------------------------------------------------- W1


W1_X0 = 0.5
# With these constants x=0.5 is a neutral fixed point of (z*c, z+c, tanh): the values stay
# near 0.5 and the gradient near 1 at any depth (no underflow into denormals).
W1_MUL = 4.0 / 3.0
W1_ADD = -0.11736052233261174


def w1_chain(torch, z, n):
    """Written once: n elementwise ops cycling `z*c`, `z+c`, `tanh`."""
    for _ in range(n // 3):
        z = z * W1_MUL
        z = z + W1_ADD
        z = torch.tanh(z)
    for k in range(n % 3):
        z = z * W1_MUL if k == 0 else z + W1_ADD
    return z


def w1_torchlike(torch, n):
    x = torch.tensor([W1_X0], requires_grad=True)
    z = w1_chain(torch, x, n)
    z.backward()
    return x.grad


def w1_numpy(n):
    """Hand-written: a tape (the constant of each `z*c`, the output of each `tanh`; `z+c`
    passes its gradient through unchanged), then the chain rule backwards."""
    z = np.array([W1_X0], dtype=np.float32)
    tape = []
    append = tape.append
    for _ in range(n // 3):
        z = z * W1_MUL
        append(W1_MUL)
        z = z + W1_ADD
        z = np.tanh(z)
        append(z)
    for k in range(n % 3):
        if k == 0:
            z = z * W1_MUL
            append(W1_MUL)
        else:
            z = z + W1_ADD
    g = np.ones_like(z)
    for entry in reversed(tape):
        if entry.__class__ is float:
            g = g * entry
        else:
            g = g * (1 - entry * entry)
    return g


def make_w1(name, n):
    mod = load(name)
    if name in TORCHLIKE:
        return lambda: w1_torchlike(mod, n)
    if name == "numpy":
        return lambda: w1_numpy(n)
    if name == "mygrad":
        def step():
            x = mod.tensor(np.array([W1_X0], dtype=np.float32))
            z = w1_chain(mod, x, n)
            z.backward()
            return x.grad
        return step
    if name == "autograd":
        import autograd
        grad = autograd.grad(lambda x: mod.sum(w1_chain(mod, x, n)))
        return lambda: grad(np.array([W1_X0], dtype=np.float32))
    raise ValueError(name)


def to_numpy(value):
    """A contender's gradient or loss as an ndarray."""
    if hasattr(value, "detach"):
        value = value.detach()
    if hasattr(value, "numpy"):
        return np.asarray(value.numpy())
    if hasattr(value, "data") and isinstance(getattr(value, "data"), np.ndarray):
        return value.data
    return np.asarray(value)

# ----------------------------------------------------------------------------- W2


W2_OPS = 21


def w2_inputs(size, seed=0):
    rng = np.random.default_rng(seed)
    a = rng.uniform(0.5, 1.5, size).astype(np.float32)
    b = rng.uniform(0.5, 1.5, size).astype(np.float32)
    return a, b


def w2_forward(torch, a, b):
    """Written once: 21 elementwise ops, then a sum. All values stay in each op's domain."""
    c = a * b               # 1  mul
    d = c + a               # 2  add
    e = torch.tanh(d)       # 3  tanh
    f = torch.sin(e)        # 4  sin
    g = torch.exp(f)        # 5  exp
    h = g ** 2              # 6  pow 2
    i = h / b               # 7  div
    j = torch.log(i)        # 8  log
    k = torch.cos(j)        # 9  cos
    l = k ** 3              # 10 pow 3 (negative bases)
    m = l - b               # 11 sub
    n = m * e               # 12 mul
    o = torch.tanh(n)       # 13 tanh
    p = o + 2.0             # 14 add scalar
    q = torch.sqrt(p)       # 15 sqrt
    r = q / g               # 16 div
    s = torch.sin(r)        # 17 sin
    t = s * s               # 18 mul (same input twice)
    u = t + g               # 19 add
    v = torch.log(u)        # 20 log
    w = v * b               # 21 mul
    return w.sum()


def w2_torchlike(torch, a, b):
    a.grad = None
    b.grad = None
    loss = w2_forward(torch, a, b)
    loss.backward()
    return loss


def w2_numpy(a, b):
    """Hand-written, as one would write it first: the same expressions as w2_forward
    (`**2`, `**3`), fresh arrays everywhere. Returns (loss, grad a, grad b)."""
    c = a * b
    d = c + a
    e = np.tanh(d)
    f = np.sin(e)
    g = np.exp(f)
    h = g ** 2
    i = h / b
    j = np.log(i)
    k = np.cos(j)
    l = k ** 3
    m = l - b
    n = m * e
    o = np.tanh(n)
    p = o + np.float32(2.0)
    q = np.sqrt(p)
    r = q / g
    s = np.sin(r)
    t = s * s
    u = t + g
    v = np.log(u)
    w = v * b
    loss = w.sum()
    gw = np.ones_like(w)
    gv = gw * b
    gb = gw * v
    gu = gv / u
    gg = gu.copy()
    gs = 2 * (gu * s)
    gr = gs * np.cos(r)
    gq = gr / g
    gg -= gr * r / g
    gp = gq * 0.5 / q
    gn = gp * (1 - o ** 2)
    gm = gn * e
    ge = gn * m
    gb -= gm
    gk = gm * 3 * k ** 2
    gj = -gk * np.sin(j)
    gi = gj / i
    gh = gi / b
    gb -= gi * i / b
    gg += gh * 2 * g
    gf = gg * g
    ge += gf * np.cos(e)
    gd = ge * (1 - e ** 2)
    ga = gd + gd * b
    gb += gd * a
    return loss, ga, gb


def w2_numpy_fast(a, b):
    """Hand-written and tuned: `k*k*k` instead of NumPy's generic `power`, the backward
    updating buffers in place (out=) instead of allocating a fresh array per step."""
    c = a * b
    d = c + a
    e = np.tanh(d)
    f = np.sin(e)
    g = np.exp(f)
    h = g * g
    i = h / b
    j = np.log(i)
    k = np.cos(j)
    k2 = k * k
    l = k2 * k
    m = l - b
    n = m * e
    o = np.tanh(n)
    p = o + np.float32(2.0)
    q = np.sqrt(p)
    r = q / g
    s = np.sin(r)
    t = s * s
    u = t + g
    v = np.log(u)
    w = v * b
    loss = w.sum()
    del c, d, f, h, l, p, t, w
    mul, add, sub, div = np.multiply, np.add, np.subtract, np.divide
    gb = v                                  # d loss / d b via w = v*b (v is not needed again)
    gu = div(b, u, out=u)                   # gv = b
    gg = gu.copy()
    tmp = np.cos(r)
    gr = mul(gu, s, out=s)
    mul(gr, 2, out=gr)
    mul(gr, tmp, out=gr)                    # gr
    gq = div(gr, g, out=tmp)
    mul(gr, r, out=r)
    div(r, g, out=r)
    sub(gg, r, out=gg)                      # gg -= gr*r/g
    gp = div(gq, q, out=gq)
    mul(gp, 0.5, out=gp)
    mul(o, o, out=o)
    sub(1, o, out=o)
    gn = mul(gp, o, out=o)
    ge = mul(gn, m, out=m)
    gm = mul(gn, e, out=gn)
    sub(gb, gm, out=gb)
    mul(k2, 3, out=k2)
    gk = mul(gm, k2, out=gm)
    sj = np.sin(j, out=j)
    gj = mul(gk, sj, out=gk)
    gi = div(gj, i, out=gj)                 # minus sign folded in below
    gh = div(gi, b, out=q)                  # -gh
    mul(gi, i, out=gi)
    div(gi, b, out=gi)
    add(gb, gi, out=gb)                     # gb -= (-gi)*i/b
    mul(gh, g, out=gh)
    mul(gh, 2, out=gh)
    sub(gg, gh, out=gg)                     # gg += gh*2*g
    gf = mul(gg, g, out=gg)
    ce = np.cos(e)
    mul(gf, ce, out=ce)
    add(ge, ce, out=ge)
    mul(e, e, out=e)
    sub(1, e, out=e)
    gd = mul(ge, e, out=ge)
    ga = mul(gd, b)
    add(ga, gd, out=ga)
    mul(gd, a, out=gd)
    add(gb, gd, out=gb)
    return loss, ga, gb


#: W2's hand-written NumPy variants (both are "numpy" contenders in the tables)
W2_NUMPY = {"numpy": w2_numpy, "numpy-fast": w2_numpy_fast}


def make_w2(name, size):
    """(step, grads): step() runs one repetition; grads() -> (grad a, grad b) of the last."""
    a_np, b_np = w2_inputs(size)
    if name in W2_NUMPY:
        f = W2_NUMPY[name]
        last = [None]

        def step():
            last[0] = f(a_np, b_np)
            return last[0][0]
        return step, lambda: (last[0][1], last[0][2])
    mod = load(name)
    if name in TORCHLIKE:
        a = mod.from_numpy(a_np.copy()).requires_grad_()
        b = mod.from_numpy(b_np.copy()).requires_grad_()
        return (lambda: w2_torchlike(mod, a, b)), (lambda: (to_numpy(a.grad), to_numpy(b.grad)))
    if name == "mygrad":
        a = mod.tensor(a_np.copy())
        b = mod.tensor(b_np.copy())
        shim = _shim(mod)

        def step():
            a.null_grad()
            b.null_grad()
            loss = w2_forward(shim, a, b)
            loss.backward()
            return loss
        return step, lambda: (a.grad, b.grad)
    if name == "autograd":
        import autograd
        shim = _shim(mod)
        vg = autograd.value_and_grad(lambda a, b: w2_forward(shim, a, b), argnum=(0, 1))
        last = [None]

        def step():
            last[0] = vg(a_np, b_np)
            return last[0][0]
        return step, lambda: last[0][1]
    raise ValueError(name)


def w2_contenders(wanted=ALL):
    out = []
    for n in contenders(wanted):
        out.extend(W2_NUMPY if n == "numpy" else [n])
    return out

# ----------------------------------------------------------------------------- W3


def w3_data(batch=256, width=512, layers=4, seed=0):
    rng = np.random.default_rng(seed)
    params = []
    for _ in range(layers):
        params.append((rng.standard_normal((width, width)) / np.sqrt(width)).astype(np.float32))
        params.append((rng.standard_normal(width) * 0.1).astype(np.float32))
    x = rng.standard_normal((batch, width)).astype(np.float32)
    y = (rng.standard_normal((batch, width)) * 0.5).astype(np.float32)
    return params, x, y


W3_LR = 0.01


def w3_forward(torch, params, x, y):
    """Written once: tanh after every layer but the last, MSE loss."""
    h = x
    layers = len(params) // 2
    for i in range(layers):
        h = h @ params[2 * i] + params[2 * i + 1]
        if i < layers - 1:
            h = torch.tanh(h)
    return torch.nn.functional.mse_loss(h, y)


def w3_torchlike(torch, params, x, y, lr=W3_LR):
    """Written once: one training step."""
    loss = w3_forward(torch, params, x, y)
    loss.backward()
    with torch.no_grad():
        for p in params:
            p -= lr * p.grad
            p.grad = None
    return loss


def w3_numpy(params, x, y, lr=W3_LR):
    """Hand-written forward, backward and SGD update (in place)."""
    layers = len(params) // 2
    acts = [x]
    h = x
    for i in range(layers):
        h = h @ params[2 * i] + params[2 * i + 1]
        if i < layers - 1:
            h = np.tanh(h)
        acts.append(h)
    diff = h - y
    loss = (diff * diff).mean()
    g = diff * np.float32(2.0 / diff.size)
    for i in reversed(range(layers)):
        if i < layers - 1:
            t = acts[i + 1]
            g = g * (1 - t * t)
        W = params[2 * i]
        gW = acts[i].T @ g
        gb = g.sum(0)
        if i:
            g = g @ W.T
        W -= lr * gW
        params[2 * i + 1] -= lr * gb
    return loss


def make_w3(name, batch=256, width=512):
    params_np, x_np, y_np = w3_data(batch, width)
    params_np = [p.copy() for p in params_np]   # each contender trains its own copy
    if name == "numpy":
        return lambda: w3_numpy(params_np, x_np, y_np)
    mod = load(name)
    if name in TORCHLIKE:
        params = [mod.from_numpy(p).requires_grad_() for p in params_np]
        x, y = mod.from_numpy(x_np), mod.from_numpy(y_np)
        return lambda: w3_torchlike(mod, params, x, y)
    if name == "mygrad":
        params = [mod.tensor(p) for p in params_np]
        x, y = mod.tensor(x_np, constant=True), mod.tensor(y_np, constant=True)
        shim = _shim(mod)

        def step():
            loss = w3_forward(shim, params, x, y)
            loss.backward()
            for p in params:
                p.data -= W3_LR * p.grad
                p.null_grad()
            return loss
        return step
    if name == "autograd":
        import autograd
        shim = _shim(mod)
        vg = autograd.value_and_grad(lambda ps: w3_forward(shim, ps, x_np, y_np))

        def step():
            loss, grads = vg(params_np)
            for p, g in zip(params_np, grads):
                p -= W3_LR * g
            return loss
        return step
    raise ValueError(name)

# ----------------------------------------------------------------------------- W5


W5_BATCH, W5_WIDTH, W5_STEPS = 32, 64, 200
W5_LR, W5_MOMENTUM = 0.01, 0.9
W5_BETAS, W5_EPS = (0.9, 0.999), 1e-8
#: what each W5 step does after forward + backward
W5_MODES = ("none", "sgd", "adam")


def w5_data(seed=0):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((W5_BATCH, W5_WIDTH)).astype(np.float32)
    y = rng.standard_normal((W5_BATCH, W5_WIDTH)).astype(np.float32)
    return x, y


def w5_model(torch):
    """Written once: PyTorch's default initialisation after manual_seed(0), so gradcli's
    model has exactly PyTorch's parameters."""
    nn = torch.nn
    torch.manual_seed(0)
    return nn.Sequential(nn.Linear(W5_WIDTH, W5_WIDTH), nn.ReLU(),
                         nn.Linear(W5_WIDTH, W5_WIDTH), nn.ReLU(),
                         nn.Linear(W5_WIDTH, W5_WIDTH))


def w5_optimizer(torch, params, mode):
    if mode == "sgd":
        return torch.optim.SGD(params, lr=W5_LR, momentum=W5_MOMENTUM)
    if mode == "adam":
        return torch.optim.Adam(params, lr=W5_LR, betas=W5_BETAS, eps=W5_EPS)
    return None


def w5_torchlike(model, loss_fn, opt, x, y, steps=W5_STEPS):
    """Written once: `steps` training steps (zero_grad, forward, loss, backward, step)."""
    for _ in range(steps):
        if opt is None:
            model.zero_grad()
        else:
            opt.zero_grad()
        loss = loss_fn(model(x), y)
        loss.backward()
        if opt is not None:
            opt.step()
    return loss


def w5_numpy_params(torch_params):
    """The hand-written version starts from the same parameters: (W (out, in), b) per layer."""
    return [np.array(to_numpy(p), dtype=np.float32) for p in torch_params]


def w5_numpy(params, state, mode, x, y, steps=W5_STEPS):
    """Hand-written forward, backward, and the optimizer update in place (PyTorch's
    formulas: SGD with momentum buffer b = m*b + g; Adam with bias corrections)."""
    layers = len(params) // 2
    for _ in range(steps):
        acts = [x]
        h = x
        for i in range(layers):
            h = h @ params[2 * i].T + params[2 * i + 1]
            if i < layers - 1:
                h = np.maximum(h, 0)
            acts.append(h)
        diff = h - y
        loss = (diff * diff).mean()
        g = diff * np.float32(2.0 / diff.size)
        grads = [None] * len(params)
        for i in reversed(range(layers)):
            if i < layers - 1:
                g = g * (acts[i + 1] > 0)
            grads[2 * i] = g.T @ acts[i]
            grads[2 * i + 1] = g.sum(0)
            if i:
                g = g @ params[2 * i]
        if mode == "sgd":
            for p, gp, buf in zip(params, grads, state["buf"]):
                buf *= W5_MOMENTUM
                buf += gp
                p -= W5_LR * buf
        elif mode == "adam":
            state["t"] += 1
            t = state["t"]
            b1, b2 = W5_BETAS
            c1, c2 = 1 - b1 ** t, np.sqrt(1 - b2 ** t)
            for p, gp, m, v in zip(params, grads, state["m"], state["v"]):
                m *= b1
                m += (1 - b1) * gp
                v *= b2
                v += (1 - b2) * gp * gp
                p -= (W5_LR / c1) * m / (np.sqrt(v) / c2 + W5_EPS)
    return loss


def make_w5(name, mode="none", steps=W5_STEPS):
    """One repetition: `steps` training steps of the W5 MLP (contenders gradcli, torch, numpy)."""
    x_np, y_np = w5_data()
    if name == "numpy":
        params = w5_numpy_params(w5_model(load("gradcli")).parameters())
        zeros = lambda: [np.zeros_like(p) for p in params]
        state = dict(buf=zeros(), m=zeros(), v=zeros(), t=0)
        return lambda: w5_numpy(params, state, mode, x_np, y_np, steps)
    if name not in TORCHLIKE:
        raise ValueError(name)
    mod = load(name)
    model = w5_model(mod)
    opt = w5_optimizer(mod, model.parameters(), mode)
    loss_fn = mod.nn.MSELoss()
    x, y = mod.from_numpy(x_np), mod.from_numpy(y_np)
    return lambda: w5_torchlike(model, loss_fn, opt, x, y, steps)


# ----------------------------------------------------------------------------- W4: scripts


def seed_script():
    """examples/seed000_block1.py, fixed with retain_graph=True on the first backward."""
    with open(os.path.join(REPO, "examples", "seed000_block1.py"), encoding="utf-8") as f:
        text = f.read()
    fixed, count = re.subn(r"(?m)^y1\.backward\(\)$", "y1.backward(retain_graph=True)", text)
    assert count == 1, "examples/seed000_block1.py no longer has its `y1.backward()` line"
    return fixed


_CHAIN_HEAD = ("import torch\n"
               f"x = torch.tensor([{W1_X0}], requires_grad=True)\n"
               "z = x\n")
_CHAIN_TAIL = "z.backward()\nprint(x.grad)\n"
_CHAIN_LINES = (f"z = z * {W1_MUL!r}\n", f"z = z + {W1_ADD!r}\n", "z = torch.tanh(z)\n")


def chain_lines_script(n=10_000):
    """The W1 chain as n straight lines (plus a 3-line head and a 2-line tail)."""
    return _CHAIN_HEAD + "".join(_CHAIN_LINES[i % 3] for i in range(n)) + _CHAIN_TAIL


def dialect_script(n=10_000):
    """The W1 chain script in the concise dialect: its last line `print x.grad` (Python 2's
    print statement) makes CPython's parser refuse it, so it takes the Lark grammar."""
    text = chain_lines_script(n)
    assert text.endswith("print(x.grad)\n")
    return text[:-len("print(x.grad)\n")] + "print x.grad\n"


def chain_loop_script(n=10_000):
    """The W1 chain as an n-iteration `for` loop (one op per iteration)."""
    return (_CHAIN_HEAD
            + f"for i in range({n}):\n"
            + "    k = i % 3\n"
            + "    if k == 0:\n"
            + "        " + _CHAIN_LINES[0]
            + "    elif k == 1:\n"
            + "        " + _CHAIN_LINES[1]
            + "    else:\n"
            + "        " + _CHAIN_LINES[2]
            + _CHAIN_TAIL)

def w5_script(steps=W5_STEPS):
    """W5 as a pasted script: the MLP, forward + backward `steps` times, the loss and a
    gradient printed (the same text under PyTorch: same initialisation, same data)."""
    return ("import torch\n"
            "import torch.nn as nn\n"
            "torch.manual_seed(0)\n"
            f"model = nn.Sequential(nn.Linear({W5_WIDTH}, {W5_WIDTH}), nn.ReLU(),\n"
            f"                      nn.Linear({W5_WIDTH}, {W5_WIDTH}), nn.ReLU(),\n"
            f"                      nn.Linear({W5_WIDTH}, {W5_WIDTH}))\n"
            "loss_fn = nn.MSELoss()\n"
            f"x = torch.randn({W5_BATCH}, {W5_WIDTH})\n"
            f"y = torch.randn({W5_BATCH}, {W5_WIDTH})\n"
            f"for step in range({steps}):\n"
            "    model.zero_grad()\n"
            "    loss = loss_fn(model(x), y)\n"
            "    loss.backward()\n"
            "print(loss)\n"
            "print(model[0].bias.grad[:4])\n")


# ----------------------------------------------------------------------------- RSS probe


def _vm_hwm_kib():
    """This process's RSS high-water (VmHWM), or None where /proc is missing. Unlike
    getrusage's ru_maxrss it starts afresh at exec: Linux carries ru_maxrss over from the
    parent at fork/exec, so a child of a big benchmark process would report the parent's."""
    try:
        with open("/proc/self/status", encoding="ascii") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return None


def _rss_probe(workload, name, size):
    """Run in a fresh process: W2 three times; print the RSS high-water as JSON."""
    if workload != "w2":
        raise SystemExit(f"unknown workload {workload}")
    step, _ = make_w2(name, size)
    before = _vm_hwm_kib()
    ru_before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss      # KiB on Linux
    for _ in range(3):
        step()
    peak = _vm_hwm_kib()
    ru_peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    if peak is None:                       # no /proc: fall back to getrusage
        before, peak = ru_before, ru_peak
    print(json.dumps({"contender": name, "size": size, "maxrss_setup_kib": before, "maxrss_kib": peak,
                      "ru_maxrss_setup_kib": ru_before, "ru_maxrss_kib": ru_peak}))


def _w1_probe(name, n, reps):
    """Run in a fresh process that imports only this contender: W1 `reps` times after one
    warm-up; print the wall seconds of each as JSON. In the benchmark's own process every
    library is loaded, and each full collection of Python's cyclic GC also walks the other
    libraries' objects (PyTorch's alone are some 100,000), a cost no user of one library has."""
    step = make_w1(name, n)
    step()
    wall, cpu = [], []
    for _ in range(reps):
        gc.collect()
        c0 = time.process_time()
        t0 = time.perf_counter()
        step()
        wall.append(time.perf_counter() - t0)
        cpu.append(time.process_time() - c0)
    print(json.dumps({"wall": wall, "cpu": cpu}))


def _w2_probe(name, size, reps):
    """Run in a fresh process that imports only this contender (`from gradcli import torch`
    for gradcli, as a library user would): W2 `reps + 1` times; print as JSON the wall and
    CPU seconds and minor page faults of the first, cold, step and of each later one."""
    step, _ = make_w2(name, size)
    wall, cpu, faults = [], [], []
    for _ in range(reps + 1):
        gc.collect()
        f0 = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
        c0 = time.process_time()
        t0 = time.perf_counter()
        step()
        wall.append(time.perf_counter() - t0)
        cpu.append(time.process_time() - c0)
        faults.append(resource.getrusage(resource.RUSAGE_SELF).ru_minflt - f0)
    print(json.dumps({"cold": {"wall": wall[0], "cpu": cpu[0], "faults": faults[0]},
                      "wall": wall[1:], "cpu": cpu[1:], "faults": faults[1:]}))


USAGE = ("usage: python -m benchmarks.workloads rss w2 CONTENDER [SIZE] | w1 CONTENDER N REPS "
         "| w2 CONTENDER SIZE REPS")

if __name__ == "__main__":
    if len(sys.argv) >= 4 and sys.argv[1] == "rss":
        _rss_probe(sys.argv[2], sys.argv[3], int(sys.argv[4]) if len(sys.argv) > 4 else 1_000_000)
    elif len(sys.argv) == 5 and sys.argv[1] == "w1":
        _w1_probe(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]))
    elif len(sys.argv) == 5 and sys.argv[1] == "w2":
        _w2_probe(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]))
    else:
        raise SystemExit(USAGE)
