"""nn.Module's behaviour against real PyTorch: the same snippet runs with `torch` and `nn`
bound to real PyTorch and to gradcli's, and what it prints (or the error it raises) must be
the same text. Parameters are copied from PyTorch's model where a snippet says `sync(model)`, so
these tests compare module behaviour, not the random stream (test_nn_oracle compares that)."""
from __future__ import annotations

import io
import textwrap
import warnings

import pytest

from nn_oracle import G, torch

pytestmark = pytest.mark.timeout(60)


class _Net:
    """Source of a custom module used by several snippets (PyTorch's usual `class Net(nn.Module)`)."""
    source = """
class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(3, 4)
        self.act = nn.ReLU()
        self.fc2 = nn.Linear(4, 2)
        self.register_buffer("steps", torch.zeros(1))
        self.scale = nn.Parameter(torch.ones(2))

    def forward(self, x):
        return self.fc2(self.act(self.fc1(x))) * self.scale
"""


def _run(lib, code, models):
    out = io.StringIO()

    def sync(model):
        """Load the PyTorch twin's values (the n-th sync of the snippet gets the n-th model)."""
        if lib is torch:
            models.append({k: v.tolist() for k, v in model.state_dict().items()})
        else:
            state = models.pop(0)
            model.load_state_dict({k: G.tensor(v) for k, v in state.items()})
        return model

    env = {"torch": lib, "nn": lib.nn, "F": lib.nn.functional, "sync": sync,
           "print": lambda *a, **k: print(*a, **k, file=out)}
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            exec(textwrap.dedent(_Net.source) + textwrap.dedent(code), env)
    except Exception as e:      # noqa: BLE001 (the error is the observed behaviour)
        print(f"{getattr(e, 'pytype', None) or type(e).__name__}: {e}", file=out)
    return out.getvalue()


def same_output(code):
    models = []
    expected = _run(torch, code, models)
    got = _run(G, code, models)
    assert got == expected, f"torch printed:\n{expected}\ngradcli printed:\n{got}"
    return expected


SNIPPETS = {
    "print_nested": """
        net = Net()
        print(net)
        print(nn.Sequential(net, nn.Sequential(nn.Tanh(), nn.Linear(2, 2, bias=False))))
        print(nn.ModuleList([nn.ReLU(), nn.ReLU(), nn.ReLU(), nn.Tanh()]))
        print(nn.ModuleDict({"a": nn.Linear(1, 1), "b": nn.Sigmoid()}))
        print(nn.Sequential(), nn.ModuleList())
    """,
    "extra_repr": """
        class Scaled(nn.Module):
            def __init__(self):
                super().__init__()
                self.inner = nn.Linear(2, 2)
            def extra_repr(self):
                return "factor=3\\nmode='x'"
        print(Scaled())
        class OneLine(nn.Module):
            def extra_repr(self):
                return "k=1"
        print(OneLine())
    """,
    "parameter_repr": """
        p = nn.Parameter(torch.tensor([1.0, 2.0]))
        print(p)
        print(nn.Parameter(torch.tensor([[1.5]]), requires_grad=False))
        print(isinstance(p, nn.Parameter), isinstance(p * 2, nn.Parameter), isinstance(p, torch.Tensor))
        print(p * 2)
        print(p.is_leaf, p.requires_grad, p.grad_fn)
        print(nn.Parameter(torch.tensor([1, 2])))
    """,
    "names_and_traversal": """
        net = sync(Net())
        print([n for n, _ in net.named_parameters()])
        print([n for n, _ in net.named_buffers()])
        print([n for n, _ in net.named_children()])
        print([n for n, _ in net.named_modules()])
        print([type(m).__name__ for m in net.modules()])
        print([tuple(p.shape) for p in net.parameters()])
        print(len(list(net.parameters(recurse=False))), list(net.state_dict().keys()))
        shared = nn.Linear(2, 2)
        seq = nn.Sequential(shared, nn.ReLU(), shared)
        print([n for n, _ in seq.named_parameters()], len(list(seq.modules())))
        print([n for n, _ in seq.named_parameters(remove_duplicate=False)])
        print(net.get_submodule("fc1"), net.get_parameter("fc2.bias").shape)
    """,
    "state_dict_round_trip": """
        net = sync(Net())
        sd = net.state_dict()
        print(list(sd.items())[0])
        print(sd["fc1.weight"].requires_grad, sd["fc1.weight"].grad_fn)
        other = Net()
        print(other.load_state_dict(sd))
        print(torch.equal(other.fc1.weight, net.fc1.weight) if hasattr(torch, "equal") else
              bool((other.fc1.weight == net.fc1.weight).all()))
        print(other.fc1.weight.requires_grad, other.fc1.weight.is_leaf)
        del sd["fc2.bias"]
        sd["extra"] = torch.zeros(1)
        print(other.load_state_dict(sd, strict=False))
        other.load_state_dict(sd)
    """,
    "load_size_mismatch": """
        net = Net()
        net.load_state_dict({**net.state_dict(), "fc1.bias": torch.zeros(5)})
    """,
    "forward_and_grads": """
        net = sync(Net())
        x = torch.tensor([[1.0, -2.0, 0.5], [0.3, 0.2, -1.0]])
        y = net(x)
        print(y)
        y.sum().backward()
        for n, p in net.named_parameters():
            print(n, p.grad)
        net.zero_grad()
        print(net.fc1.weight.grad)
        y = net(x); y.sum().backward(); net.zero_grad(set_to_none=False)
        print(net.fc1.weight.grad)
    """,
    "train_eval_requires_grad": """
        net = Net()
        print(net.training, net.fc1.training)
        print(net.eval() is net, net.training, net.fc1.training)
        net.train()
        print(net.fc2.training)
        net.requires_grad_(False)
        print([p.requires_grad for p in net.parameters()])
        y = net(torch.ones(1, 3))
        print(y.requires_grad, y.grad_fn)
    """,
    "apply_and_init": """
        net = Net()
        def init_weights(m):
            if isinstance(m, nn.Linear):
                nn.init.constant_(m.weight, 0.5)
                nn.init.zeros_(m.bias)
            print("visit", type(m).__name__)
        print(net.apply(init_weights) is net)
        print(net.fc1.weight, net.fc2.bias)
        w = torch.empty(3, 3)
        print(nn.init.eye_(w), nn.init.ones_(torch.empty(2)))
        print(nn.init.calculate_gain("relu"), nn.init.calculate_gain("leaky_relu", 0.2), nn.init.calculate_gain("tanh"))
        nn.init.calculate_gain("bogus")
    """,
    "dtype_conversion": """
        net = sync(Net())
        w = net.fc1.weight
        print(net.double() is net, net.fc1.weight.dtype, net.steps.dtype, net.fc1.weight is w)
        print(net(torch.ones(1, 3, dtype=torch.float64)))
        print(net.float().fc2.bias.dtype, net.to(torch.float64).scale.dtype, net.cpu() is net)
    """,
    "setattr_rules": """
        net = Net()
        net.fc1 = None
        print(net.fc1, [n for n, _ in net.named_children()])
        net.extra = nn.Parameter(torch.zeros(1))
        print([n for n, _ in net.named_parameters()])
        net.steps = torch.ones(1)
        print(net.steps, [n for n, _ in net.named_buffers()])
        del net.extra
        print([n for n, _ in net.named_parameters()])
        print(hasattr(net, "nothing"))
        net.scale = torch.ones(2)
    """,
    "setattr_before_init": """
        class Bad(nn.Module):
            def __init__(self):
                self.fc = nn.Linear(1, 1)
        Bad()
    """,
    "missing_attribute": """
        net = Net()
        net.fc3
    """,
    "missing_forward": """
        nn.Module()(torch.ones(1))
    """,
    "sequential_api": """
        seq = nn.Sequential(nn.Linear(2, 3), nn.ReLU(), nn.Linear(3, 1))
        print(len(seq), seq[0], seq[-1], seq[1:])
        seq.append(nn.Sigmoid())
        seq.insert(0, nn.Identity())
        print(seq)
        del seq[0]
        print([type(m).__name__ for m in seq], seq.pop(1))
        print(seq + nn.Sequential(nn.Tanh()))
        from collections import OrderedDict
        print(nn.Sequential(OrderedDict([("first", nn.Linear(1, 2)), ("act", nn.ReLU())])))
        seq[5]
    """,
    "modulelist_moduledict": """
        layers = nn.ModuleList([nn.Linear(2, 2) for _ in range(3)])
        layers.append(nn.ReLU())
        layers.extend([nn.Tanh()])
        print(len(layers), layers[-1], [n for n, _ in layers.named_parameters()][:2])
        d = nn.ModuleDict({"enc": nn.Linear(2, 2)})
        d["dec"] = nn.Linear(2, 1)
        print(list(d.keys()), "enc" in d, len(d), d["dec"])
        print([n for n, _ in d.named_parameters()])
        print(d.pop("enc"), list(d))
    """,
    "forward_hooks": """
        net = sync(Net())
        calls = []
        h1 = net.fc1.register_forward_pre_hook(lambda m, inp: calls.append(("pre", tuple(inp[0].shape))))
        h2 = net.fc1.register_forward_hook(lambda m, inp, out: calls.append(("post", tuple(out.shape))))
        h3 = net.act.register_forward_hook(lambda m, inp, out: out * 2)
        print(net(torch.ones(2, 3)))
        print(calls)
        h1.remove(); h2.remove(); h3.remove()
        print(net(torch.ones(2, 3)), len(calls))
        h = net.fc2.register_forward_pre_hook(lambda m, inp: (inp[0] + 1,))
        print(net(torch.ones(2, 3)))
    """,
    "parameter_from_tensor": """
        t = torch.tensor([1.0, 2.0])
        p = nn.Parameter(t)
        print(t._version, p._version)
        with torch.no_grad():
            p.mul_(3)
        print(t, p._version, t._version)
        m = nn.Linear(2, 1)
        m.weight = nn.Parameter(torch.tensor([[1.0, -1.0]]))
        m.bias = nn.Parameter(torch.tensor([0.5]))
        print(m(torch.tensor([2.0, 1.0])))
        m.weight = torch.ones(1, 2)
    """,
    "parameter_is_its_own_type": """
        names = lambda *xs: print(*(type(x).__name__ for x in xs))
        p = nn.Parameter(torch.tensor([1.0, 2.0]))
        print(type(p) is nn.Parameter, type(p) is torch.Tensor, issubclass(nn.Parameter, torch.Tensor))
        print(torch.is_tensor(p), p.type(), isinstance(p, torch.FloatTensor), isinstance(p, torch.DoubleTensor))
        names(p * 2, p + p, -p, p.data, p.detach(), p[0], p.clone(), p.view(2), p.t(), p.sum(), torch.add(p, p))
        names(p.float(), p.to(torch.float32), p.contiguous(), p.requires_grad_(), nn.Parameter(p))
        with torch.no_grad():
            names(p.add_(1), p.mul(1))
        print(f"{p}", str(p), [p], sep="\n")
        print(nn.Parameter(), nn.Parameter(torch.ones(1), False), sep="\n")
        with torch.no_grad():
            print(nn.Parameter(torch.ones(1)).requires_grad)
        x = torch.ones(2, requires_grad=True)
        q = nn.Parameter(x * 2)
        print(q, q.is_leaf, q.grad_fn, (q * 1).is_leaf)
        (q * 3).sum().backward()
        names(q.grad); print(q.grad, x.grad)
        torch.zeros(p)
    """,
    "parameter_copies": """
        import copy
        names = lambda *xs: print(*(type(x).__name__ for x in xs))
        p = nn.Parameter(torch.tensor([1.0, 2.0]))
        p.grad = torch.ones(2)
        d, c = copy.deepcopy(p), copy.copy(p)
        names(d, c)
        print(d, d.grad, d.requires_grad, d.data_ptr() == p.data_ptr(), c.data_ptr() == p.data_ptr())
        frozen = copy.deepcopy(nn.Parameter(torch.ones(1), requires_grad=False))
        names(frozen); print(frozen)
        both = copy.deepcopy([p, p])
        print(both[0] is both[1])
    """,
    "state_dict_values_are_tensors": """
        lin = sync(nn.Linear(2, 1))
        names = lambda *xs: print(*(type(x).__name__ for x in xs))
        sd = lin.state_dict()
        names(sd["weight"], lin.state_dict(keep_vars=True)["weight"], lin.weight)
        print(sd["weight"].requires_grad, sd["weight"].is_leaf)
        w = lin.weight
        print(lin.load_state_dict({"weight": torch.tensor([[3.0, 4.0]]), "bias": torch.tensor([5.0])}))
        print(lin.weight is w, lin.weight)
        print(lin.load_state_dict({"weight": torch.tensor([[6.0, 7.0]]), "bias": torch.tensor([8.0])}, assign=True))
        names(lin.weight); print(lin.weight is w, lin.weight)
        lin.bias.requires_grad_(False)
        lin.load_state_dict({"weight": nn.Parameter(torch.tensor([[1.0, 1.0]])),
                             "bias": nn.Parameter(torch.tensor([2.0]))}, assign=True)
        names(lin.weight, lin.bias); print(lin.weight.requires_grad, lin.bias.requires_grad)
    """,
    "optimizer_parameter_checks": """
        p = nn.Parameter(torch.tensor([1.0, 2.0]))
        def attempt(make):
            try:
                opt = make()
                print([type(q).__name__ for g in opt.param_groups for q in g["params"]])
            except Exception as e:
                print(type(e).__name__, e)
        attempt(lambda: torch.optim.SGD([p, torch.ones(2)], lr=0.1))
        attempt(lambda: torch.optim.SGD(p, lr=0.1))
        attempt(lambda: torch.optim.SGD([p * 2], lr=0.1))
        attempt(lambda: torch.optim.SGD([], lr=0.1))
        attempt(lambda: torch.optim.Adam([{"params": [p]}, {"params": [p]}], lr=0.1))
        opt = torch.optim.SGD([p], lr=0.1)
        opt.add_param_group({"params": p})
    """,
    "non_leaf_parameter": """
        m = nn.Linear(2, 1)
        w = torch.ones(2, requires_grad=True)
        m.register_parameter("w2", nn.Parameter(w * 2))
        print([n for n, _ in m.named_parameters()])
        m.register_parameter("bad.name", None)
    """,
    "deepcopy_keeps_parameters_drops_grads": """
        import copy
        net = sync(Net())
        net(torch.ones(1, 3)).sum().backward()
        twin = copy.deepcopy(net)
        print(isinstance(twin.fc1.weight, nn.Parameter), twin.fc1.weight.grad, twin.fc1.weight is net.fc1.weight)
        with torch.no_grad():
            net.fc1.weight.zero_()
        print(twin.fc1.weight.abs().sum() > 0, twin)
    """,
    "carried_hidden_state_second_backward": """
        rnn = sync(nn.RNN(2, 3))
        h = torch.zeros(1, 1, 3)
        x = torch.tensor([[[0.5, -1.0]], [[1.5, 0.25]]])
        for step in range(2):
            out, h = rnn(x, h)
            loss = out.sum()
            print(step, loss)
            loss.backward()
    """,
    "gan_step_reuses_generator_graph": """
        G_net = sync(nn.Sequential(nn.Linear(2, 3), nn.Tanh()))
        D_net = sync(nn.Sequential(nn.Linear(3, 1), nn.Sigmoid()))
        bce = nn.BCELoss()
        z = torch.tensor([[0.1, -0.4], [0.7, 0.2]])
        fake = G_net(z)
        d_loss = bce(D_net(fake), torch.zeros(2, 1))
        d_loss.backward()
        print(d_loss, [p.grad is None for p in G_net.parameters()])
        g_loss = bce(D_net(fake), torch.ones(2, 1))
        g_loss.backward()
        print(g_loss, G_net[0].bias.grad)
    """,
    # float64: PyTorch's float32 LSTM is oneDNN's kernel, whose last bits gradcli does not
    # reproduce (see test_float32_lstm_gradients_are_not_pytorchs_last_bits)
    "lstm_carried_state_detached": """
        lstm = sync(nn.LSTM(2, 3).double())
        state = None
        x = torch.tensor([[[0.5, -1.0]], [[1.5, 0.25]]], dtype=torch.float64)
        for step in range(3):
            out, state = lstm(x, state)
            out.pow(2).mean().backward()
            state = tuple(s.detach() for s in state)
        print(out, state[0], lstm.weight_hh_l0.grad)
        out, (h, c) = lstm(x)
        out.sum().backward()
        out.sum().backward()
    """,
}


@pytest.mark.parametrize("name", sorted(SNIPPETS))
def test_module_snippet_prints_like_torch(name):
    same_output(SNIPPETS[name])


@pytest.mark.xfail(strict=True, reason="float32 nn.LSTM is oneDNN's kernel in PyTorch; gradcli's gradients "
                                      "agree to float32 rounding, not to the last bit (README: Not reproduced)")
def test_float32_lstm_gradients_are_not_pytorchs_last_bits():
    # seed 0 is one of the ~1 in 4 initialisations whose printed weight gradient differs
    same_output("""
        torch.manual_seed(0)
        lstm = nn.LSTM(2, 3)
        state = None
        x = torch.tensor([[[0.5, -1.0]], [[1.5, 0.25]]])
        for step in range(3):
            out, state = lstm(x, state)
            out.pow(2).mean().backward()
            state = tuple(s.detach() for s in state)
        print(out, state[0], lstm.weight_hh_l0.grad)
    """)


BACKWARD_HOOKS = """
    def hook(mod, grad_input, grad_output):
        print("hook", type(mod).__name__, grad_input, grad_output)
    m = sync(nn.Linear(3, 2))
    h = m.register_full_backward_hook(hook)
    x = torch.tensor([[1.0, 2.0, 3.0], [-1.0, 0.5, 2.0]], requires_grad=True)
    y = m(x)
    print(y.grad_fn.name(), [type(f).__name__ for f, _ in y.grad_fn.next_functions[0][0].next_functions])
    y.sum().backward()
    (m(torch.ones(2, 3)) * 2).sum().backward()
    m.register_full_backward_pre_hook(lambda mod, go: print("pre", go))
    m(x).sum().backward()
    h.remove()
    s = sync(nn.Sequential(nn.Linear(3, 2), nn.ReLU()))
    s.register_full_backward_hook(lambda mod, gi, go: (gi[0] * 0,))
    s(x).sum().backward()
    print(x.grad)
"""


def test_full_backward_hooks_see_and_replace_gradients():
    same_output(BACKWARD_HOOKS)


ARGUMENT_ORDER = """
    x = torch.tensor([[0.5, -1.0], [2.0, 0.25]])
    def attempt(f):
        try:
            f()
            print("ok")
        except Exception as e:
            print(type(e).__name__, e)
    attempt(lambda: F.cross_entropy(x, x > 0, x > 0))
    attempt(lambda: F.cross_entropy(x, x.softmax(1), ignore_index=1))
    attempt(lambda: F.mse_loss((), x, (), x))
    attempt(lambda: F.mse_loss(x, [1.0], True, x))
    attempt(lambda: torch.tensor(1.5).unbind())
    attempt(lambda: x.bernoulli())
    attempt(lambda: nn.Parameter([1.0, 2.0]))
    attempt(lambda: nn.Parameter(3.5, requires_grad=False))
    attempt(lambda: nn.Parameter(x, "yes"))
    attempt(lambda: nn.Parameter(x, 1))
"""


def test_losses_check_arguments_in_pytorchs_order():
    same_output(ARGUMENT_ORDER)
