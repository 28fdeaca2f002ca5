"""torch.optim and torch.optim.lr_scheduler against PyTorch: parameters, optimizer state and
state_dict bit for bit after many steps, version counters (the in-place error a backward meets
after step()), parameter groups, schedulers, warnings and errors.

Every float32 case is compared with PyTorch as installed. PyTorch's float64 sqrt on CPU is MKL's
vector routine, which gradcli does not reproduce (see README, Not reproduced): for the float64
runs of the optimizers that take a square root (Adam, AdamW, RMSprop, Adagrad) the oracle is
PyTorch's own optimizer code with a correctly rounded float64 Tensor.sqrt.
"""
import contextlib

import numpy as np
import pytest
import torch

import gradcli.torch as G
from snippet_oracle import bits, run

pytestmark = pytest.mark.timeout(120)


@contextlib.contextmanager
def correctly_rounded_float64_sqrt():
    sqrt, sqrt_ = torch.Tensor.sqrt, torch.Tensor.sqrt_

    def exact(t):
        if t.dtype != torch.float64:
            return sqrt(t)
        return torch.from_numpy(np.asarray(np.sqrt(t.detach().numpy())))
    torch.Tensor.sqrt = exact
    torch.Tensor.sqrt_ = lambda t: t.copy_(exact(t))
    try:
        yield
    finally:
        torch.Tensor.sqrt, torch.Tensor.sqrt_ = sqrt, sqrt_


CONFIGS = [
    ("SGD", {"lr": 0.1}),
    ("SGD", {"lr": 0.05, "momentum": 0.9}),
    ("SGD", {"lr": 0.05, "momentum": 0.9, "dampening": 0.3, "weight_decay": 0.01}),
    ("SGD", {"lr": 0.05, "momentum": 0.8, "nesterov": True, "weight_decay": 0.1}),
    ("SGD", {"lr": 0.05, "momentum": 0.5, "maximize": True}),
    ("Adam", {"lr": 0.01}),
    ("Adam", {"lr": 0.02, "betas": (0.8, 0.99), "eps": 1e-6, "weight_decay": 0.1}),
    ("Adam", {"lr": 0.01, "amsgrad": True, "maximize": True}),
    ("AdamW", {"lr": 0.01}),
    ("AdamW", {"lr": 0.03, "weight_decay": 0.2, "amsgrad": True}),
    ("RMSprop", {"lr": 0.01}),
    ("RMSprop", {"lr": 0.01, "alpha": 0.9, "centered": True}),
    ("RMSprop", {"lr": 0.005, "momentum": 0.7, "weight_decay": 0.05, "centered": True}),
    ("RMSprop", {"lr": 0.005, "momentum": 0.3, "maximize": True}),
    ("Adagrad", {"lr": 0.1}),
    ("Adagrad", {"lr": 0.1, "lr_decay": 0.01, "weight_decay": 0.1, "initial_accumulator_value": 0.3}),
    ("Adagrad", {"lr": 0.05, "eps": 1e-6, "maximize": True}),
    ("Adamax", {"lr": 0.01}),
    ("Adamax", {"lr": 0.02, "betas": (0.8, 0.99), "eps": 1e-3, "weight_decay": 0.1, "maximize": True}),
    ("NAdam", {"lr": 0.01}),
    ("NAdam", {"lr": 0.02, "betas": (0.8, 0.99), "weight_decay": 0.1, "momentum_decay": 0.01}),
    ("NAdam", {"lr": 0.01, "weight_decay": 0.2, "decoupled_weight_decay": True, "maximize": True}),
    ("RAdam", {"lr": 0.01}),
    ("RAdam", {"lr": 0.02, "betas": (0.5, 0.7), "weight_decay": 0.1, "maximize": True}),
    ("RAdam", {"lr": 0.01, "weight_decay": 0.2, "decoupled_weight_decay": True}),
    ("Adadelta", {}),
    ("Adadelta", {"lr": 0.5, "rho": 0.8, "eps": 1e-4, "weight_decay": 0.1, "maximize": True}),
    ("Rprop", {"lr": 0.01}),
    ("Rprop", {"lr": 0.05, "etas": (0.3, 1.5), "step_sizes": (1e-3, 0.2), "maximize": True}),
    ("ASGD", {"lr": 0.01}),
    ("ASGD", {"lr": 0.05, "lambd": 0.01, "alpha": 0.5, "t0": 10, "weight_decay": 0.1, "maximize": True}),
]
SHAPES = [(5, 3), (7,), (40,), ()]


def _digest(state_dict):
    """state_dict with every tensor replaced by its bits (comparable across libraries)."""
    if isinstance(state_dict, dict):
        return {k: _digest(v) for k, v in state_dict.items()}
    if isinstance(state_dict, (list, tuple)):
        return type(state_dict)(_digest(v) for v in state_dict)
    if hasattr(state_dict, "detach"):
        return bits(state_dict)
    return state_dict


def train_on_given_gradients(lib, name, kwargs, seed, steps=50, dtype=np.float32, shapes=SHAPES):
    """Gradients that depend on the parameters (0.5 p + noise), set as .grad each step."""
    rng = np.random.default_rng(seed)
    params = [lib.tensor(rng.standard_normal(s).astype(dtype), requires_grad=True) for s in shapes]
    noise = [[rng.standard_normal(s).astype(dtype) for s in shapes] for _ in range(steps)]
    opt = getattr(lib.optim, name)(params, **kwargs)
    trace = []
    for k in range(steps):
        opt.zero_grad()
        for p, n in zip(params, noise[k]):
            p.grad = lib.tensor(p.detach().numpy() * dtype(0.5) + n)
        opt.step()
        trace.append([bits(p) for p in params])
    return trace, _digest(opt.state_dict()), [p._version for p in params]


def train_on_a_loss(lib, name, kwargs, seed, steps=50):
    """An element-wise regression whose backward is exact in both libraries (no transcendental
    function: PyTorch's vectorised ones are not correctly rounded)."""
    rng = np.random.default_rng(seed)
    w = lib.tensor(rng.standard_normal((4, 6)).astype(np.float32), requires_grad=True)
    b = lib.tensor(rng.standard_normal((4, 6)).astype(np.float32), requires_grad=True)
    x = lib.tensor(rng.standard_normal((4, 6)).astype(np.float32))
    y = lib.tensor(rng.standard_normal((4, 6)).astype(np.float32))
    opt = getattr(lib.optim, name)([w, b], **kwargs)
    losses = []
    for _ in range(steps):
        opt.zero_grad()
        loss = ((w * x + b).relu() - y).pow(2).sum() + (w - b).pow(2).sum() * 0.1
        loss.backward()
        opt.step()
        losses.append(bits(w) + bits(b))
    return losses, _digest(opt.state_dict())


@pytest.mark.parametrize("name,kwargs", CONFIGS, ids=[f"{n}-{i}" for i, (n, _) in enumerate(CONFIGS)])
def test_fifty_steps_match_torch_bit_for_bit(name, kwargs):
    for seed in (0, 1, 2):
        expected = train_on_given_gradients(torch, name, kwargs, seed)
        got = train_on_given_gradients(G, name, kwargs, seed)
        assert got[0] == expected[0]            # parameters after every step
        assert got[1] == expected[1]            # state and param_groups in state_dict()
        assert got[2] == expected[2]            # version counters of the parameters


@pytest.mark.parametrize("name,kwargs", CONFIGS[1::3], ids=[n for n, _ in CONFIGS[1::3]])
def test_large_parameters_match_torch(name, kwargs):
    # large tensors are updated one by one, in chunks; small ones together
    shapes = [(300, 400), (7,), (1, 70_000), (50, 3)]
    expected = train_on_given_gradients(torch, name, kwargs, 6, steps=6, shapes=shapes)
    assert train_on_given_gradients(G, name, kwargs, 6, steps=6, shapes=shapes) == expected


def train_parameters_sharing_memory(lib, name, kwargs, steps=5):
    """A leaf and a leaf view of its memory in one group: the second is updated from the
    values the first one's update wrote."""
    rng = np.random.default_rng(7)
    a = lib.tensor(rng.standard_normal(6).astype(np.float32), requires_grad=True)
    b = a.detach()[2:].requires_grad_()
    c = lib.tensor(rng.standard_normal(3).astype(np.float32), requires_grad=True)
    opt = getattr(lib.optim, name)([a, c, b], **kwargs)
    trace = []
    for _ in range(steps):
        for p in (a, b, c):
            p.grad = lib.tensor(p.detach().numpy() * np.float32(0.5) + np.float32(0.25))
        opt.step()
        trace.append([bits(p) for p in (a, b, c)])
    return trace


@pytest.mark.parametrize("name,kwargs", CONFIGS[1::4], ids=[n for n, _ in CONFIGS[1::4]])
def test_parameters_sharing_memory_are_updated_in_turn(name, kwargs):
    expected = train_parameters_sharing_memory(torch, name, kwargs)
    assert train_parameters_sharing_memory(G, name, kwargs) == expected


@pytest.mark.parametrize("name,kwargs", CONFIGS[2::3], ids=[n for n, _ in CONFIGS[2::3]])
def test_float64_parameters_match_torch(name, kwargs):
    with correctly_rounded_float64_sqrt():
        expected = train_on_given_gradients(torch, name, kwargs, 4, dtype=np.float64)
    assert train_on_given_gradients(G, name, kwargs, 4, dtype=np.float64) == expected


@pytest.mark.parametrize("name,kwargs", CONFIGS, ids=[f"{n}-{i}" for i, (n, _) in enumerate(CONFIGS)])
def test_training_on_a_loss_matches_torch(name, kwargs):
    for seed in (3, 5):
        assert train_on_a_loss(G, name, kwargs, seed) == train_on_a_loss(torch, name, kwargs, seed)


def _same(code):
    expected = run(torch, code)
    got = run(G, code)
    assert got == expected
    return got


@pytest.mark.parametrize("make", [
    "torch.optim.SGD([w], lr=0.1)",
    "torch.optim.SGD([w], lr=0.1, momentum=0.9, weight_decay=0.1)",
    "torch.optim.Adam([w])",
    "torch.optim.Adam([w], weight_decay=0.1)",
    "torch.optim.AdamW([w])",
    "torch.optim.RMSprop([w], momentum=0.5, centered=True)",
    "torch.optim.Adagrad([w])",
])
def test_backward_after_step_fails_with_torchs_version_error(make):
    out = _same(f"""
        rng = np.random.default_rng(0)
        w = torch.tensor(rng.standard_normal((64, 32)).astype(np.float32), requires_grad=True)
        x = torch.tensor(rng.standard_normal((8, 32)).astype(np.float32), requires_grad=True)
        opt = {make}
        for step in range(2):
            loss = x.mm(w.t()).pow(2).mean()
            opt.zero_grad()
            loss.backward(retain_graph=True)
            opt.step()
            print(w._version)
        loss.backward()
    """)
    assert "is at version" in out and "which is output 0 of AsStrided" in out


def test_param_groups_and_add_param_group():
    _same("""
        rng = np.random.default_rng(1)
        a, b, c = (torch.tensor(rng.standard_normal(s).astype(np.float32), requires_grad=True)
                   for s in ((3, 4), (4,), (2, 2)))
        for make in (torch.optim.SGD, torch.optim.Adam, torch.optim.RMSprop, torch.optim.Adagrad):
            kw = {"lr": 0.1} if make is torch.optim.SGD else {}
            opt = make([{"params": [a]}, {"params": b, "lr": 0.01, "weight_decay": 0.5}], **kw)
            print(opt)
            for k in range(6):
                for p in (a, b, c):
                    p.grad = torch.tensor(np.full(p.shape, 0.25 * k - 0.4, np.float32))
                opt.step()
                if k == 2:
                    opt.add_param_group({"params": [c], "lr": 0.2})
            print([bits(p) for p in (a, b, c)])
            print(len(opt.param_groups), [sorted(g) for g in opt.param_groups])
    """)


def test_state_dict_round_trip_continues_identically():
    _same("""
        rng = np.random.default_rng(2)
        data = [rng.standard_normal((3, 5)).astype(np.float32) for _ in range(40)]
        for make in (lambda ps: torch.optim.SGD(ps, lr=0.1, momentum=0.9),
                     lambda ps: torch.optim.Adam(ps, lr=0.01, amsgrad=True),
                     lambda ps: torch.optim.AdamW(ps, lr=0.01),
                     lambda ps: torch.optim.RMSprop(ps, centered=True, momentum=0.2),
                     lambda ps: torch.optim.Adagrad(ps, lr_decay=0.1)):
            w = torch.tensor(np.ones((3, 5), np.float32), requires_grad=True)
            opt = make([w])
            for g in data[:20]:
                w.grad = torch.tensor(g)
                opt.step()
            sd = opt.state_dict()
            print(sorted(sd), sd["param_groups"])
            print({k: sorted(v) for k, v in sd["state"].items()})
            w2 = torch.tensor(w.detach().numpy().copy(), requires_grad=True)
            opt2 = make([w2])
            opt2.load_state_dict(sd)
            print(opt2.state[w2]["step" if "step" in opt2.state[w2] else "momentum_buffer"] is sd["state"][0][
                "step" if "step" in sd["state"][0] else "momentum_buffer"])
            for g in data[20:]:
                for p, o in ((w, opt), (w2, opt2)):
                    p.grad = torch.tensor(g)
                    o.step()
            print(bits(w), bits(w2))
    """)


def test_zero_grad_and_closure():
    _same("""
        w = torch.tensor([1.0, -2.0, 3.0], requires_grad=True)
        opt = torch.optim.SGD([w], lr=0.1)
        print(w.grad)
        (w * 3).sum().backward()
        g = w.grad
        opt.zero_grad(set_to_none=False)
        print(w.grad, w.grad is g, g._version)
        opt.zero_grad()
        print(w.grad)
        def closure():
            opt.zero_grad()
            loss = (w ** 3).sum()
            print("closure sees grad mode", torch.is_grad_enabled())
            loss.backward()
            return loss
        for _ in range(3):
            print(opt.step(closure), w, w._version)
        print(opt.state, opt.state_dict())
    """)


def test_constructor_errors():
    _same("""
        w = torch.tensor([1.0], requires_grad=True)
        tries = ["torch.optim.SGD([w], lr=-1)", "torch.optim.SGD([w], momentum=-0.5)",
                 "torch.optim.SGD([w], nesterov=True)", "torch.optim.SGD([w], weight_decay=-1)",
                 "torch.optim.SGD([], lr=0.1)", "torch.optim.SGD(w, lr=0.1)",
                 "torch.optim.SGD([w, 3.0], lr=0.1)", "torch.optim.SGD([w * 2], lr=0.1)",
                 "torch.optim.SGD([{'params': [w]}, {'params': [w]}])",
                 "torch.optim.Adam([w], betas=(1.0, 0.9))", "torch.optim.Adam([w], eps=-1.0)",
                 "torch.optim.Adam([w], betas=(0.9, 1.5))", "torch.optim.RMSprop([w], alpha=-1.0)",
                 "torch.optim.Adagrad([w], lr_decay=-1)", "torch.optim.Adagrad([w], initial_accumulator_value=-1)",
                 "torch.optim.SGD({w}, lr=0.1)"]
        for src in tries:
            try:
                print(eval(src))
            except Exception as e:
                print(src, "->", type(e).__name__, e)
    """)


SCHEDULERS = [
    "torch.optim.lr_scheduler.StepLR(opt, step_size=3, gamma=0.5)",
    "torch.optim.lr_scheduler.MultiStepLR(opt, milestones=[2, 5, 5, 9], gamma=0.3)",
    "torch.optim.lr_scheduler.ExponentialLR(opt, gamma=0.9)",
    "torch.optim.lr_scheduler.LambdaLR(opt, lambda e: 0.95 ** e + 0.01 * e)",
    "torch.optim.lr_scheduler.LambdaLR(opt, [lambda e: 1 / (e + 1), lambda e: 0.5])",
    "torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=7)",
    "torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=4, eta_min=0.001)",
    "torch.optim.lr_scheduler.MultiplicativeLR(opt, lambda e: 0.9)",
    "torch.optim.lr_scheduler.ConstantLR(opt, factor=0.5, total_iters=4)",
    "torch.optim.lr_scheduler.LinearLR(opt, start_factor=0.25, total_iters=6)",
    "torch.optim.lr_scheduler.PolynomialLR(opt, total_iters=8, power=2.0)",
    "torch.optim.lr_scheduler.CosineAnnealingWarmRestarts(opt, T_0=4)",
    "torch.optim.lr_scheduler.CosineAnnealingWarmRestarts(opt, T_0=3, T_mult=2, eta_min=0.001)",
    "torch.optim.lr_scheduler.CyclicLR(opt, base_lr=0.01, max_lr=0.1, step_size_up=4)",
    "torch.optim.lr_scheduler.CyclicLR(opt, [0.01, 0.02], 0.2, step_size_up=3, step_size_down=5, mode='triangular2')",
    "torch.optim.lr_scheduler.CyclicLR(opt, 0.01, 0.1, 2, mode='exp_range', gamma=0.9, base_momentum=0.5)",
    "torch.optim.lr_scheduler.CyclicLR(opt, 0.01, 0.1, 3, scale_fn=lambda x: 1 / x, cycle_momentum=False)",
    "torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=0.5, total_steps=30)",
    "torch.optim.lr_scheduler.OneCycleLR(opt, [0.5, 0.2], epochs=6, steps_per_epoch=5, pct_start=0.4, "
    "anneal_strategy='linear', three_phase=True)",
    "torch.optim.lr_scheduler.SequentialLR(opt, [torch.optim.lr_scheduler.LinearLR(opt, 0.1, total_iters=4), "
    "torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=10)], milestones=[4])",
    "torch.optim.lr_scheduler.SequentialLR(opt, [torch.optim.lr_scheduler.ConstantLR(opt, 0.5, 3), "
    "torch.optim.lr_scheduler.ExponentialLR(opt, 0.9), torch.optim.lr_scheduler.StepLR(opt, 2)], [3, 8])",
    "torch.optim.lr_scheduler.ChainedScheduler([torch.optim.lr_scheduler.ConstantLR(opt, 0.5, 3), "
    "torch.optim.lr_scheduler.ExponentialLR(opt, 0.9)])",
]


@pytest.mark.parametrize("make", SCHEDULERS)
def test_scheduler_learning_rates_and_state(make):
    _same(f"""
        a = torch.tensor([1.0, 2.0], requires_grad=True)
        b = torch.tensor([0.5], requires_grad=True)
        opt = torch.optim.SGD([{{"params": [a]}}, {{"params": [b], "lr": 0.03}}], lr=0.1, momentum=0.9)
        sched = {make}
        for epoch in range(25):
            a.grad = torch.tensor([0.1, -0.2])
            b.grad = torch.tensor([0.3])
            opt.step()
            sched.step()
            print(epoch, sched.get_last_lr(), [g["lr"] for g in opt.param_groups], bits(a), bits(b))
        sd = sched.state_dict()
        print(sorted(sd), sd["last_epoch"], sd["base_lrs"], sd["_last_lr"])
        print([sorted(g) for g in opt.param_groups])
        sched.step(3)
        print(sched.get_last_lr())
    """)


def test_scheduler_warnings():
    _same("""
        w = torch.tensor([1.0], requires_grad=True)
        opt = torch.optim.Adam([w], lr=0.1)
        sched = torch.optim.lr_scheduler.StepLR(opt, 2)
        sched.step()
        print(sched.get_lr(), sched.get_last_lr())
        sched2 = torch.optim.lr_scheduler.ExponentialLR(opt, 0.5)
        w.grad = torch.tensor([1.0])
        opt.step()
        sched2.step()
        print(sched2.get_last_lr(), opt.param_groups[0]["lr"])
        try:
            torch.optim.lr_scheduler.StepLR(opt, 2, last_epoch=3)
        except Exception as e:
            print(type(e).__name__)
        try:
            torch.optim.lr_scheduler.StepLR([w], 2)
        except Exception as e:
            print(type(e).__name__, e)
    """)


def test_clip_grad_norm_and_value():
    # gradients whose squares and norms are exact, so no summation order shows
    _same("""
        a = torch.tensor([3.0, 4.0], requires_grad=True)
        b = torch.tensor([[12.0]], requires_grad=True)
        c = torch.tensor([1.0, 2.0], requires_grad=True)
        for max_norm, norm_type in ((1.0, 2.0), (26.0, 2), (5.0, float("inf")), (100.0, 2.0), (2.0, 1)):
            a.grad = torch.tensor([3.0, 4.0])
            b.grad = torch.tensor([[12.0]])
            g = a.grad
            total = torch.nn.utils.clip_grad_norm_([a, b, c], max_norm, norm_type=norm_type)
            print(total, bits(a.grad), bits(b.grad), a.grad is g, g._version, c.grad)
        print(torch.nn.utils.clip_grad_norm_(iter([]), 1.0))
        print(torch.nn.utils.clip_grad_norm_((p for p in []), 1.0))
        a.grad = torch.tensor([float("inf"), 1.0])
        try:
            torch.nn.utils.clip_grad_norm_(a, 1.0, error_if_nonfinite=True)
        except RuntimeError as e:
            print(e)
        a.grad = torch.tensor([-3.0, 0.25])
        b.grad = torch.tensor([[7.0]])
        print(torch.nn.utils.clip_grad_value_([a, b, c], 0.5), a.grad, b.grad, a.grad._version)
    """)


@pytest.mark.parametrize("scale", [1.0, 1e-9, 1e9])
def test_fused_multiply_add_rounds_as_torchs_kernel(scale):
    from gradcli.torch.optim import _kernels
    rng = np.random.default_rng(int(scale * 7) % 1000)
    for dtype in (np.float32, np.float64):
        a, b, c = (rng.standard_normal(4000).astype(dtype) * s for s in (1, scale, 1))
        expected = torch.from_numpy(c.copy()).addcmul_(torch.from_numpy(a), torch.from_numpy(b)).numpy()
        got = _kernels.fma(a, b, c, np.dtype(dtype))
        assert got.dtype == dtype and np.array_equal(got.view(np.uint8), expected.view(np.uint8))


def test_an_optimizer_subclass_with_a_no_grad_step():
    # the custom-optimizer pattern of tutorials: Optimizer's groups and state, @torch.no_grad() step
    _same("""
        class MySGD(torch.optim.Optimizer):
            def __init__(self, params, lr=0.1, momentum=0.0):
                super().__init__(params, dict(lr=lr, momentum=momentum))
            @torch.no_grad()
            def step(self, closure=None):
                for group in self.param_groups:
                    for p in group["params"]:
                        if p.grad is None:
                            continue
                        state = self.state[p]
                        if "buf" not in state:
                            state["buf"] = torch.zeros_like(p)
                        state["buf"].mul_(group["momentum"]).add_(p.grad)
                        p.add_(state["buf"], alpha=-group["lr"])
                return None
        w = torch.tensor([1.0, -2.0, 0.5], requires_grad=True)
        opt = MySGD([w], lr=0.1, momentum=0.9)
        for i in range(3):
            opt.zero_grad()
            loss = (w * w * w).sum()
            loss.backward()
            opt.step()
            print(w, w._version, opt.state[w]["buf"])
        print(opt.state_dict())
        print(opt)
        print(isinstance(opt, torch.optim.Optimizer), torch.optim.Optimizer.__name__)
    """)


def test_reduce_lr_on_plateau():
    _same("""
        w = torch.tensor([1.0], requires_grad=True)
        opt = torch.optim.SGD([{"params": [w]}, {"params": [], "lr": 0.5}], lr=0.1)
        for kw in ({}, {"mode": "max", "factor": 0.5, "patience": 1, "cooldown": 2},
                   {"threshold_mode": "abs", "threshold": 0.1, "patience": 0, "min_lr": [0.02, 0.3]}):
            for g in opt.param_groups:
                g["lr"] = 0.1
            sched = torch.optim.lr_scheduler.ReduceLROnPlateau(opt, **kw)
            for epoch, metric in enumerate([1.0, 0.9, 0.95, 0.95, 0.97, 0.89, 0.9, 0.9, 0.9, 0.9, 0.9, 0.9, 0.9, 0.9,
                                            0.9, 0.9, 0.9, 0.9, 0.9, 0.9]):
                sched.step(torch.tensor(metric) if epoch % 2 else metric)
                print(epoch, sched.get_last_lr(), sched.num_bad_epochs, sched.cooldown_counter, sched.best)
            print(sorted(sched.state_dict()))
        for bad in ({"factor": 1.5}, {"mode": "up"}, {"threshold_mode": "x"}, {"min_lr": [0.1]}):
            try:
                torch.optim.lr_scheduler.ReduceLROnPlateau(opt, **bad)
            except ValueError as e:
                print(e)
    """)


def test_load_state_dict_checks_the_groups():
    _same("""
        a = torch.tensor([1.0, 2.0], requires_grad=True)
        b = torch.tensor([3.0], requires_grad=True)
        opt = torch.optim.Adagrad([a, b], lr=0.1)
        print(opt.state_dict())
        sd = opt.state_dict()
        for other in (torch.optim.Adagrad([a], lr=0.1), torch.optim.Adagrad([{"params": [a]}, {"params": [b]}])):
            try:
                other.load_state_dict(sd)
            except ValueError as e:
                print(e)
        twin = torch.optim.Adagrad([b, a], lr=0.5)
        twin.load_state_dict(sd)
        print(twin.state_dict()["param_groups"], twin.state[b]["sum"].shape, twin.state[a]["sum"].shape)
        d = torch.tensor([1.0], dtype=torch.float64, requires_grad=True)
        opt64 = torch.optim.SGD([d], lr=0.1, momentum=0.5)
        opt64.load_state_dict({"state": {0: {"momentum_buffer": torch.tensor([2.0])}},
                               "param_groups": [{"lr": 0.2, "momentum": 0.5, "dampening": 0, "weight_decay": 0,
                                                 "nesterov": False, "maximize": False, "foreach": None,
                                                 "differentiable": False, "fused": None, "params": [0]}]})
        print(opt64.state[d]["momentum_buffer"].dtype, opt64.param_groups[0]["lr"])
        d.grad = torch.tensor([1.0], dtype=torch.float64)
        opt64.step()
        print(d)
    """)
