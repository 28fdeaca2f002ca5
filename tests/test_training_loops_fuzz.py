"""Random small training loops, run under PyTorch and gradcli: an element-wise model, an
optimizer with random options, an optional scheduler, zero_grad in different places (or
forgotten), optional retain_graph, detach and a stale graph whose backward after step() meets
PyTorch's version error. What the loop prints (parameters' and gradients' bits, learning rates,
versions, errors) must agree. (Loss values are not printed: a sum's reduction order is not
PyTorch's, and only element-wise gradients reach the parameters.)"""
import pytest
import torch
from hypothesis import given, settings, strategies as st

import gradcli.torch as G
from snippet_oracle import run

pytestmark = pytest.mark.timeout(300)

OPTIMIZERS = [
    "torch.optim.SGD(params, lr={lr})",
    "torch.optim.SGD(params, lr={lr}, momentum=0.9, nesterov=True)",
    "torch.optim.SGD(params, lr={lr}, momentum=0.5, dampening=0.2, weight_decay=0.01, maximize={maximize})",
    "torch.optim.Adam(params, lr={lr}, amsgrad={amsgrad}, maximize={maximize})",
    "torch.optim.Adam(params, lr={lr}, betas=(0.8, 0.9), weight_decay=0.05)",
    "torch.optim.AdamW(params, lr={lr}, amsgrad={amsgrad})",
    "torch.optim.RMSprop(params, lr={lr}, centered={amsgrad}, momentum=0.3)",
    "torch.optim.RMSprop(params, lr={lr}, alpha=0.9, weight_decay=0.1, maximize={maximize})",
    "torch.optim.Adagrad(params, lr={lr}, lr_decay=0.01, initial_accumulator_value=0.1)",
]
SCHEDULERS = [
    None,
    "torch.optim.lr_scheduler.StepLR(opt, step_size=2, gamma=0.5)",
    "torch.optim.lr_scheduler.MultiStepLR(opt, milestones=[1, 3], gamma=0.3)",
    "torch.optim.lr_scheduler.ExponentialLR(opt, gamma=0.8)",
    "torch.optim.lr_scheduler.LambdaLR(opt, lambda e: 1.0 / (1 + e))",
    "torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=3)",
]
# (no transcendental function: PyTorch's vectorised ones are not correctly rounded)
MODELS = [
    "((w * x + b).relu() - y).pow(2).sum()",
    "((w * w * x - y) * (b + 1)).pow(2).mean()",
    "(w * x - y).abs().sum() + (b * b).sum() * 0.5",
    "((w * x).clamp(-1, 1) - y).pow(2).sum()",
]


@st.composite
def loops(draw):
    shape = draw(st.sampled_from(["(3,)", "(2, 3)", "(4, 1)"]))
    return {
        "seed": draw(st.integers(0, 2 ** 16)),
        "shape": shape,
        "model": draw(st.sampled_from(MODELS)),
        "optimizer": draw(st.sampled_from(OPTIMIZERS)).format(
            lr=draw(st.sampled_from([0.001, 0.01, 0.1, 0.5])), amsgrad=draw(st.booleans()),
            maximize=draw(st.booleans())),
        "scheduler": draw(st.sampled_from(SCHEDULERS)),
        "steps": draw(st.integers(1, 6)),
        "zero_grad": draw(st.sampled_from(["start", "end", "never", "start-keep"])),
        "retain": draw(st.booleans()),
        "detach": draw(st.booleans()),
        "stale": draw(st.booleans()),
    }


def source(c):
    zero = {"start": ("opt.zero_grad()", ""), "end": ("", "opt.zero_grad()"), "never": ("", ""),
            "start-keep": ("opt.zero_grad(set_to_none=False)", "")}[c["zero_grad"]]
    lines = [
        f"rng = np.random.default_rng({c['seed']})",
        "def data():",
        f"    return torch.tensor(rng.standard_normal({c['shape']}).astype(np.float32))",
        "w = data().requires_grad_()",
        "b = data().requires_grad_()",
        "x, y = data(), data()",
        "params = [w, b]",
        f"opt = {c['optimizer']}",
        f"sched = {c['scheduler']}",
        "old = None",
        f"for step in range({c['steps']}):",
        f"    {zero[0] or 'pass'}",
        f"    loss = {c['model']}",
    ]
    if c["detach"]:
        lines.append("    loss = loss + (w.detach() * w).sum()")
    lines.append(f"    loss.backward(retain_graph={c['retain']})")
    if c["stale"]:
        lines += ["    if old is not None:",
                  "        old.backward()"]
    lines += [
        "    opt.step()",
        "    if sched is not None:",
        "        sched.step()",
        f"    {zero[1] or 'pass'}",
        "    old = loss if step == 0 else old",
        "    print(step, bits(w), bits(b), None if w.grad is None else bits(w.grad),",
        "          [g['lr'] for g in opt.param_groups], w._version)",
        "print(opt.state_dict()['param_groups'])",
    ]
    return "\n".join(lines) + "\n"


@settings(max_examples=40, deadline=None)
@given(loops())
def test_random_training_loop_matches_torch(c):
    code = source(c)
    expected = run(torch, code)
    assert run(G, code) == expected, code
