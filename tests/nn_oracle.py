"""check_module: build the same torch.nn model under real PyTorch 2.13 and under gradcli, and
compare everything a user can observe of it.

    check_module(lambda nn: nn.Linear(3, 2), (4, 3))

`build(nn)` receives `torch.nn` or `gradcli.torch.nn` and is called right after
`manual_seed(seed)` in each library. Compared, every difference collected:

1. `print(model)` text;
2. the parameter and buffer names (named_parameters / named_buffers order) and, with
   `init=True`, their values bit for bit: PyTorch's default initialisation from the same seed.
   With `init=False` PyTorch's values are loaded into gradcli's model (load_state_dict), so
   the rest compares the forward and backward alone;
3. the forward, graph, backward and saved slots exactly as tests/op_oracle.check_op compares
   them, for `call(model, *inputs)` (default `model(*inputs)`); each library's generator is
   seeded again right before, so random layers (Dropout) draw the same masks;
4. every parameter's .grad after that backward, and the buffers' values after the calls
   (BatchNorm's running statistics).

One saved tensor is compared by dtype alone: MkldnnRnnLayerBackward0's `result3`, the
workspace oneDNN fills in its own private layout (gradcli keeps the gates there instead).
"""
from __future__ import annotations

import warnings

import torch

from op_oracle import G, _draw, _tensor_fact, _cmp_tensor, compare_facts, op_facts

__all__ = ["check_module", "module_pair", "G", "torch"]


_OPAQUE = {("MkldnnRnnLayerBackward0", "result3")}


def _mask_workspaces(facts):
    """Each opaque workspace slot reduced to its dtype (a freed one stays FREED)."""
    graph = facts.get("graph", [])
    states = [n["slots"] for n in graph] + list(facts.get("after_backward", []))
    classes = [n["class"] for n in graph] * 2
    for cls, slots in zip(classes, states):
        for slot, state in slots.items():
            if (cls, slot) in _OPAQUE and state[0] == "T":
                slots[slot] = ("T", {"dtype": state[1]["dtype"], "shape": "workspace", "value": None})


def _facts_of(lib, named):
    return [(name, _tensor_fact(lib, t)) for name, t in named]


def module_pair(build, seed=0, init=True):
    """(torch model, gradcli model), built after manual_seed(seed); with init=False gradcli's
    model then holds torch's parameter and buffer values."""
    torch.manual_seed(seed)
    tm = build(torch.nn)
    G.manual_seed(seed)
    gm = build(G.nn)
    if not init:
        state = {k: G.tensor(v.tolist(), dtype=getattr(G, str(v.dtype).replace("torch.", "")))
                 for k, v in tm.state_dict().items()}
        gm.load_state_dict(state)
    return tm, gm


def _call(call):
    def fn(lib, *inputs):
        model = _MODELS[lib]
        return call(model, *inputs) if call is not None else model(*inputs)
    return fn


_MODELS = {}


def check_module(build, *input_specs, seed=0, init=True, call=None, backward=True, weighted=True,
                 second_order=False, desc=None):
    drawn = _draw(input_specs, seed)
    diffs = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        tm, gm = module_pair(build, seed, init)
        if repr(tm) != repr(gm):
            diffs.append(f"print(model):\n--- torch\n{tm!r}\n--- gradcli\n{gm!r}")
        for what in ("named_parameters", "named_buffers"):
            tp, gp = list(getattr(tm, what)()), list(getattr(gm, what)())
            if [n for n, _ in tp] != [n for n, _ in gp]:
                diffs.append(f"{what}: torch {[n for n, _ in tp]}, gradcli {[n for n, _ in gp]}")
            elif init:
                for (name, a), (_, b) in zip(_facts_of(torch, tp), _facts_of(G, gp)):
                    if a != b:
                        diffs.append(f"initial {name}: torch {a}, gradcli {b}")
        _MODELS[torch], _MODELS[G] = tm, gm
        kw = dict(backward=backward, weighted=weighted, second_order=second_order, seed=seed)
        torch.manual_seed(seed + 1)
        t = op_facts(torch, _call(call), drawn, **kw)
        G.manual_seed(seed + 1)
        g = op_facts(G, _call(call), drawn, **kw)
    for facts in (t, g):
        _mask_workspaces(facts)
    diffs += compare_facts(t, g)
    for (name, a), (_, b) in zip(tm.named_parameters(), gm.named_parameters()):
        ga = None if a.grad is None else _tensor_fact(torch, a.grad)
        gb = None if b.grad is None else _tensor_fact(G, b.grad)
        _cmp_tensor(diffs, f"{name}.grad", ga, gb)
    for (name, a), (_, b) in zip(tm.named_buffers(), gm.named_buffers()):
        _cmp_tensor(diffs, f"buffer {name} after the calls", _tensor_fact(torch, a), _tensor_fact(G, b))
    if diffs:
        raise AssertionError(f"gradcli differs from torch for {desc or build}\n" + "\n".join("* " + d for d in diffs))
    return tm, gm
