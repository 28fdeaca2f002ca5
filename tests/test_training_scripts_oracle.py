"""Training-loop script patterns against real PyTorch (whole scripts through the oracle: prints,
errors, tensors and backward calls): the legacy torch.Tensor(ndarray) constructor, gradient
hooks that change a gradient's size or dtype, custom Function errors, batched autograd.grad,
KeyError texts, torch.backends, grad-mode aliases, the default dtype, pad_sequence, samplers
and checkpoints saved and loaded within a script."""
import pytest

from oracle import assert_same

pytestmark = pytest.mark.timeout(120)


def test_tensor_of_numpy_arrays_is_float32_and_shares_float32_memory():
    assert_same("""
import torch, numpy as np
print(torch.Tensor(np.array([1, 2])).dtype, torch.Tensor(np.array([1.5, 2.5])).dtype)
X = torch.Tensor(np.array([[0.5, 1.0], [2.0, 3.0]]))
print(X, torch.nn.Linear(2, 1)(X).shape)
a = np.ones(3, np.float32)
shared = torch.Tensor(a)
strided = torch.Tensor(a[::2])
longs = np.ones(3, np.int64)
as_long = torch.LongTensor(longs)
a[0] = 5
longs[0] = 7
print(shared, strided, as_long, torch.from_numpy(np.array([1, 2])).dtype)
print(torch.Tensor(np.array(3.5)), torch.Tensor(np.array([True])), torch.Tensor(2, 3).shape, torch.Tensor())
""")


@pytest.mark.parametrize("call", ["torch.Tensor([1, 2], dtype=torch.float64)",
                                  "torch.Tensor([1], requires_grad=True)",
                                  "torch.Tensor(np.array(['a']))"])
def test_tensor_constructor_errors(call):
    assert_same(f"import torch, numpy as np\nt = {call}\n")


HOOKS = ["lambda g: torch.ones(3)", "lambda g: g.double()", "lambda g: g.long()", "lambda g: torch.ones(2, 1)",
         "functools.partial(lambda g, k: g.double(), k=1)", "lambda g: 3", "lambda g: g * 2"]


@pytest.mark.parametrize("hook", HOOKS)
@pytest.mark.parametrize("on", ["x", "y", "a"])
def test_hooks_that_change_a_gradients_size_or_dtype(hook, on):
    # on a leaf, a non-leaf, and one output of a multi-output node
    assert_same(f"""
import functools, torch
x = torch.ones(2, requires_grad=True)
y = x * 2
a, b = y.unbind()
{on}.register_hook({hook})
(a * 3 + b).backward()
print(x.grad)
""")


FUNCTIONS = """
import torch
class F(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return x.view(-1)
    @staticmethod
    def backward(ctx, g):
        return g.view(2, 2)
class Id(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return x
    @staticmethod
    def backward(ctx, g):
        return g
x = torch.ones(2, 2, requires_grad=True)
"""


@pytest.mark.parametrize("body", [
    "y = F.apply(x)\ny.mul_(2)",
    "y = F.apply(x)[0:1]\ny.mul_(2)",
    "y = Id.apply(x.clone())\ny.mul_(2)",
    "y = F.apply(x.detach())\ny.mul_(2)",
    "b = x.clone()\ny = Id.apply(b)\nb.mul_(2)\ny.sum().backward()",
    "b = x.clone()\ny = F.apply(b)\nb.add_(1)\nprint(y.grad_fn)",
    "b = x.clone()\ny = F.apply(b)\nz = y[1:]\nprint(z.grad_fn.name())\nz.sum().backward()\nprint(x.grad)",
])
def test_inplace_changes_of_views_a_custom_function_returned(body):
    # in a function: the oracle reads every global tensor's grad_fn, which for some of these raises
    body = "".join("    " + line + "\n" for line in body.splitlines())
    assert_same(FUNCTIONS + "def run():\n" + body + "run()\n")


@pytest.mark.parametrize("saved", ["x, 3", "3", "x, None, 'a'"])
@pytest.mark.parametrize("size", [1, 2])
def test_save_for_backward_of_a_non_tensor(saved, size):
    assert_same(f"""
import torch
class F(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward({saved})
        return x * 2
    @staticmethod
    def backward(ctx, g):
        return g
x = torch.full(({size},), 3.0, requires_grad=True)
F.apply(x).sum().backward()
""")


def test_legacy_function_with_a_non_static_forward():
    # (the DeprecationWarning PyTorch gives on F(): gradcli reports UserWarnings only)
    assert_same("""
import torch, warnings
warnings.simplefilter("ignore", DeprecationWarning)
class F(torch.autograd.Function):
    def forward(self, x):
        return x * 2
    def backward(self, g):
        return g
f = F()
y = f(torch.ones(2, requires_grad=True))
""")


@pytest.mark.parametrize("call", [
    "torch.autograd.grad(x ** 2, x, torch.eye(3), is_grads_batched=True)",
    "torch.autograd.grad([x ** 2, (x * w).sum()], [x, w], [torch.eye(3), torch.ones(3)], is_grads_batched=True)",
    "torch.autograd.grad(w @ x, [x, w], torch.arange(4.0).reshape(4, 1), is_grads_batched=True)",
    "torch.autograd.grad(x * 2, [x, w], torch.eye(3), is_grads_batched=True, allow_unused=True)",
    "torch.autograd.grad(x * 2, [x, w], torch.eye(3), is_grads_batched=True, materialize_grads=True)",
    "torch.autograd.grad(x ** 3, x, torch.eye(3), is_grads_batched=True, retain_graph=False)",
    "torch.autograd.grad(x ** 2, x, torch.eye(3)[:2], is_grads_batched=True, retain_graph=True)",
    "torch.autograd.grad(x ** 2, x, torch.ones(3), is_grads_batched=True)",
    "torch.autograd.grad(x ** 2, x, torch.ones(2, 2), is_grads_batched=True)",
])
def test_batched_grad_outputs(call):
    assert_same(f"""
import torch
x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
w = torch.tensor([0.5, -1.0, 2.0], requires_grad=True)
print({call})
""")


def test_batched_grad_computes_a_jacobian_then_frees_the_graph():
    assert_same("""
import torch
x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
y = x.exp() * x
jac, = torch.autograd.grad(y, x, torch.eye(3), is_grads_batched=True)
print(jac)
y.sum().backward()
""")


def test_resuming_a_scheduler_without_initial_lr_prints_the_key_error_as_python_does():
    assert_same("""
import torch
p = torch.nn.Parameter(torch.ones(1))
opt = torch.optim.SGD([p], lr=0.1)
try:
    torch.optim.lr_scheduler.StepLR(opt, 1, last_epoch=0)
except KeyError as e:
    print(str(e))
    print(repr(e))
s = torch.optim.lr_scheduler.StepLR(opt, 1, last_epoch=0)
""")


def test_backend_switches_a_training_script_sets():
    assert_same("""
import torch
import torch.backends.cudnn as cudnn
from torch.backends import mps
print(cudnn.benchmark, cudnn.deterministic, cudnn.enabled, cudnn.allow_tf32, cudnn.is_available(), cudnn.version())
torch.backends.cudnn.benchmark = True
torch.backends.cudnn.deterministic = True
torch.backends.cudnn.enabled = False
print(cudnn.benchmark, torch.backends.cudnn.deterministic, torch.backends.cudnn.enabled)
print(mps.is_available(), torch.backends.mps.is_built(), torch.backends.cuda.is_built())
print(torch.backends.cuda.matmul.allow_tf32, torch.backends.mkldnn.is_available(), torch.backends.openmp.is_available())
torch.backends.cuda.matmul.allow_tf32 = True
print(torch.backends.cuda.matmul.allow_tf32)
device = "cuda" if torch.cuda.is_available() else "mps" if torch.backends.mps.is_available() else "cpu"
print(device)
""")


@pytest.mark.parametrize("statement", ["torch.backends.cudnn.benchmark = 1",
                                       "torch.backends.cudnn.deterministic = 'yes'",
                                       "torch.backends.cuda.matmul.allow_tf32 = None",
                                       "torch.backends.cuda.matmul.allow_tf16"])
def test_backend_switch_errors(statement):
    assert_same(f"import torch\n{statement}\n")


def test_grad_modes_from_torch_autograd():
    assert_same("""
import torch
x = torch.ones(2, requires_grad=True)
with torch.autograd.no_grad():
    a = x * 2
with torch.autograd.set_grad_enabled(False):
    with torch.autograd.enable_grad():
        b = x * 2
with torch.autograd.inference_mode():
    c = x * 2
@torch.autograd.no_grad()
def f(t):
    return t * 3
print(a.requires_grad, b.requires_grad, c.requires_grad, f(x).requires_grad)
print(torch.autograd.no_grad is torch.no_grad, torch.autograd.set_grad_enabled is torch.set_grad_enabled)
""")


@pytest.mark.parametrize("kwargs", ["", "batch_first=True", "batch_first=True, padding_value=-1.5",
                                    "padding_side='left'", "batch_first=True, padding_side='left'"])
def test_pad_sequence_in_a_collate_fn_and_its_gradients(kwargs):
    assert_same(f"""
import torch
from torch.nn.utils.rnn import pad_sequence
a = torch.tensor([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]], requires_grad=True)
b = torch.tensor([[7.0, 8.0]], requires_grad=True)
c = torch.tensor([[9.0, 1.0], [2.0, 3.0]], requires_grad=True)
padded = pad_sequence([a, b * 2, c], {kwargs})
print(padded, padded.shape)
(padded * torch.arange(padded.numel()).reshape(padded.shape)).sum().backward()
print(a.grad, b.grad, c.grad)
ids = pad_sequence((torch.tensor([1, 2, 3]), torch.tensor([4])), {kwargs})
print(ids, torch.nn.utils.rnn.pad_sequence(torch.ones(2, 3), {kwargs}))
""")


@pytest.mark.parametrize("args", ["[]", "5", "[torch.ones(2)], padding_side='mid'",
                                  "[torch.ones(2), torch.ones(3, 2)]"])
def test_pad_sequence_errors(args):
    assert_same(f"import torch\ntorch.nn.utils.rnn.pad_sequence({args})\n")


@pytest.mark.parametrize("args", ["[0.1, 0.9, 0.4, 0.6], 10", "torch.tensor([1., 2., 3.]), 6, replacement=False",
                                  "np.array([0.2, 0.8]), 5, generator=torch.Generator().manual_seed(3)",
                                  "[1, 1, 5, 1], 3, replacement=False"])
def test_weighted_random_sampler_in_a_data_loader(args):
    assert_same(f"""
import torch, numpy as np
from torch.utils.data import DataLoader, TensorDataset, WeightedRandomSampler
torch.manual_seed(0)
sampler = WeightedRandomSampler({args})
print(len(sampler), list(sampler), list(sampler))
data = TensorDataset(torch.arange(6.0))
for (batch,) in DataLoader(data, batch_size=2, sampler=WeightedRandomSampler([1.0] * 6, 4)):
    print(batch)
""")


@pytest.mark.parametrize("args", ["[0.5, 0.5], 0", "[0.5, 0.5], True", "[0.5, 0.5], 2, replacement=1",
                                  "[[0.5, 0.5]], 2", "[0.5, 0.5], 3, replacement=False", "[-1.0, 1.0], 2"])
def test_weighted_random_sampler_errors(args):
    assert_same(f"import torch\nprint(list(torch.utils.data.WeightedRandomSampler({args})))\n")


def test_a_warm_up_scheduler_subclassing_the_legacy_lr_scheduler_name():
    assert_same("""
import torch
from torch.optim.lr_scheduler import _LRScheduler
class WarmUp(_LRScheduler):
    def __init__(self, optimizer, warmup, last_epoch=-1):
        self.warmup = warmup
        super().__init__(optimizer, last_epoch)
    def get_lr(self):
        return [base * min(1.0, (self.last_epoch + 1) / self.warmup) for base in self.base_lrs]
w = torch.nn.Parameter(torch.ones(2))
opt = torch.optim.NAdam([w], lr=0.1)
sched = WarmUp(opt, 3)
for _ in range(5):
    w.grad = torch.tensor([0.5, -0.25])
    opt.step()
    sched.step()
    print(sched.get_last_lr(), w)
print(opt)
""")


@pytest.mark.parametrize("make", [
    "torch.optim.Adamax([w], lr=-1)", "torch.optim.Adamax([w], betas=(1.0, 0.9))", "torch.optim.NAdam([w], momentum_decay=-1)",
    "torch.optim.RAdam([w], eps=-1)", "torch.optim.Adadelta([w], rho=1.5)", "torch.optim.Rprop([w], etas=(1.5, 1.2))",
    "torch.optim.ASGD([w], weight_decay=-1)",
    "torch.optim.lr_scheduler.OneCycleLR(opt, 0.1)", "torch.optim.lr_scheduler.OneCycleLR(opt, 0.1, total_steps=0)",
    "torch.optim.lr_scheduler.OneCycleLR(opt, 0.1, 10, pct_start=1)",
    "torch.optim.lr_scheduler.OneCycleLR(torch.optim.Adadelta([w]), 0.1, 10)",
    "torch.optim.lr_scheduler.CyclicLR(opt, 0.1, [0.2, 0.3])",
    "torch.optim.lr_scheduler.CyclicLR(opt, 0.1, 0.2, mode='sine')",
    "torch.optim.lr_scheduler.CosineAnnealingWarmRestarts(opt, T_0=0)",
    "torch.optim.lr_scheduler.CosineAnnealingWarmRestarts(opt, T_0=2, T_mult=1.5)",
    "torch.optim.lr_scheduler.SequentialLR(opt, [], [])",
    "torch.optim.lr_scheduler.SequentialLR(opt, [torch.optim.lr_scheduler.StepLR(opt, 2)], [3])",
    "torch.optim.lr_scheduler.ChainedScheduler([torch.optim.lr_scheduler.ReduceLROnPlateau(opt)])",
])
def test_new_optimizer_and_scheduler_constructor_errors(make):
    assert_same(f"""
import torch
w = torch.nn.Parameter(torch.ones(2))
opt = torch.optim.SGD([w], lr=0.1, momentum=0.9)
s = {make}
""")


def test_one_cycle_lr_past_its_total_steps():
    assert_same("""
import torch
w = torch.nn.Parameter(torch.ones(2))
opt = torch.optim.AdamW([w], lr=0.1)
sched = torch.optim.lr_scheduler.OneCycleLR(opt, 0.1, total_steps=3)
for _ in range(4):
    opt.step()
    sched.step()
    print(sched.get_last_lr(), opt.param_groups[0]["betas"])
""")



# (gradients by autograd.grad: the oracle names only the leaves bound to globals)
CHECKPOINT = """import torch, io, collections, os, tempfile
def train_step(m, o):
    o.zero_grad()
    params = list(m.parameters())
    for p, g in zip(params, torch.autograd.grad(m(x).pow(2).mean(), params)):
        p.grad = g
    o.step()
torch.manual_seed(0)
model = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.ReLU(), torch.nn.Linear(4, 1))
opt = torch.optim.Adam(model.parameters(), lr=0.01)
x = torch.randn(5, 3)
for _ in range(3):
    train_step(model, opt)
path = os.path.join(tempfile.mkdtemp(), "ckpt.pt")
torch.save({"epoch": 3, "model_state_dict": model.state_dict(), "optimizer_state_dict": opt.state_dict(),
            "loss": 0.5, "dtype": torch.float64, "size": torch.Size([2]), "dev": torch.device("cpu"),
            "names": {"a", "b"}, "c": complex(1, 2), "b": b"xy", "counts": collections.Counter("aab")}, path)
ckpt = torch.load(path)
model2 = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.ReLU(), torch.nn.Linear(4, 1))
model2.load_state_dict(ckpt["model_state_dict"])
opt2 = torch.optim.Adam(model2.parameters(), lr=0.01)
opt2.load_state_dict(ckpt["optimizer_state_dict"])
print(ckpt["epoch"], ckpt["loss"], ckpt["dtype"], ckpt["size"], ckpt["dev"], sorted(ckpt["names"]), ckpt["c"], ckpt["b"], ckpt["counts"])
print(type(ckpt["model_state_dict"]).__name__, list(ckpt["model_state_dict"]))
for m, o in ((model, opt), (model2, opt2)):
    train_step(m, o)
print(model2(x), model(x))
print(opt2.state_dict()["state"][0]["step"])
buf = io.BytesIO()
t = torch.arange(6.0)
p = torch.nn.Parameter(torch.ones(2))
torch.save([t, t[1:4], t.view(2, 3).t(), p, torch.ones(2, requires_grad=True) * 2, torch.ones(0, 3)], buf)
buf.seek(0)
a, b, c, q, r, e = torch.load(buf, map_location="cpu")
a[2] = 100
print(a, b, c, q, r, e, type(q).__name__)
"""


def test_a_checkpoint_round_trip_continues_training_identically():
    assert_same(CHECKPOINT)


@pytest.mark.parametrize("obj", ["Net()", "torch.nn.Linear(2, 1)", "{'a': np.ones(2)}", "slice(1)", "frozenset([1])",
                                 "collections.defaultdict(int)", "range(2)", "np.float32(1.5)", "print"])
def test_loading_anything_but_weights_is_refused_as_weights_only(obj):
    assert_same(f"""
import collections, io, torch, numpy as np
class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(2, 1)
buf = io.BytesIO()
torch.save({obj}, buf)
buf.seek(0)
print(buf.tell())
loaded = torch.load(buf)
""")


@pytest.mark.parametrize("call", ["torch.save({'a': 1}, 3)", "torch.load(io.BytesIO(), weights_only=True)",
                                  "torch.load('no such checkpoint.pt')"])
def test_save_and_load_errors(call):
    assert_same(f"import io, torch\n{call}\n")
