"""Differential tests (real PyTorch vs gradcli) for user-visible fixes in torch.nn: output
strides (so .view() works or fails as in PyTorch), argument checks and error texts of modules,
losses and recurrent layers, backward hooks, autograd.grad keywords."""
import pytest

import oracle

pytestmark = pytest.mark.timeout(120)


def check(source):
    oracle.assert_same(source)


# -- memory layout: strides of outputs and gradients ------------------------------------------

def test_conv_outputs_and_gradients_are_contiguous_like_pytorch():
    check("""
import torch, torch.nn as nn
torch.manual_seed(0)
conv = nn.Conv2d(3, 4, 3, padding=1)
w, b = conv.weight, conv.bias        # (named leaves: the oracle names updated leaves by global)
x = torch.randn(2, 3, 5, 5, requires_grad=True)
y = conv(x)
print(y.stride(), y.is_contiguous(), y.view(2, -1).shape)
y.sum().backward()
print(conv.weight.grad.stride(), conv.bias.grad.stride(), x.grad.stride())
print(conv.weight.grad.view(-1).shape)
c1 = nn.Conv1d(3, 4, 2)
print(c1(torch.randn(5, 3, 6)).view(5, -1).shape, c1(torch.randn(3, 6)).stride())
c2 = nn.Conv2d(4, 4, 3, stride=2, groups=2, dilation=2)
print(c2(torch.randn(1, 4, 9, 9)).stride())
for f in [nn.BatchNorm2d(4), nn.ReLU(), nn.LeakyReLU(0.2), nn.Sigmoid(), nn.Tanh(), nn.ELU()]:
    print(type(f).__name__, f(y).view(2, -1).shape)
g = torch.autograd.grad(conv(x).sum(), [conv.weight, x])
print([a.stride() for a in g])
""")


def test_conv_keeps_a_channels_last_input_channels_last():
    check("""
import torch, torch.nn as nn
torch.manual_seed(0)
conv = nn.Conv2d(3, 4, 3, padding=1)
w, b = conv.weight, conv.bias
x = torch.randn(2, 5, 5, 3).permute(0, 3, 1, 2).requires_grad_()
y = conv(x)
print(y.stride(), y.is_contiguous())
gw, gx = torch.autograd.grad(y.sum(), [conv.weight, x], retain_graph=True)
print(gw.stride(), gx.stride())
y.sum().backward()
print(conv.weight.grad.stride())
""")


def test_seeded_randn_like_after_a_conv_draws_the_same_numbers():
    check("""
import torch, torch.nn as nn
torch.manual_seed(0)
y = nn.Conv2d(1, 2, 2)(torch.randn(2, 1, 4, 4))
print(torch.randn_like(y))
""")


def test_softmax_and_layer_norm_of_a_transposed_input_are_contiguous():
    check("""
import torch, torch.nn as nn, torch.nn.functional as F
torch.manual_seed(0)
t = torch.randn(3, 4).t()
print(torch.softmax(t, 0).stride(), torch.log_softmax(t, 1).stride(), F.softmax(t, dim=1).stride())
print(torch.softmax(t, 0).view(-1).shape, nn.LayerNorm(3)(t).view(-1).shape)
t3 = torch.randn(2, 3, 4).permute(2, 0, 1)
print(torch.softmax(t3, -1).stride(), nn.LayerNorm([2, 3])(t3).stride())
""")


def test_dropout_keeps_the_input_strides_so_view_fails_as_in_pytorch():
    check("""
import torch, torch.nn as nn, torch.nn.functional as F
torch.manual_seed(0)
t = torch.randn(3, 4).t()
print(nn.Dropout()(t).stride(), F.dropout(torch.randn(2, 3, 4).permute(2, 0, 1)).stride())
nn.Dropout()(t).view(-1)
""")


def test_dropout_mask_of_a_non_contiguous_input_is_drawn_in_memory_order():
    check("""
import torch, torch.nn as nn, torch.nn.functional as F
torch.manual_seed(0)
print(F.dropout(torch.ones(4, 3).t(), 0.5))
print(F.dropout(torch.ones(4, 6)[:, ::2], 0.5))
gru = nn.GRU(2, 3, batch_first=True)
out, h = gru(torch.randn(2, 4, 2))
print(nn.Dropout(0.4)(out))
""")


# -- a NumPy array or a list where a module expects a tensor ----------------------------------

_TRY = """
import torch, torch.nn as nn, torch.nn.functional as F
import numpy as np
def tryit(f):
    try:
        r = f()
        print('OK', tuple(r) if isinstance(r, tuple) else type(r).__name__)     # (a Size by its sizes)
    except Exception as e:
        print(type(e).__name__, e)
a = np.ones((2, 3), dtype=np.float32)
"""


def test_modules_given_numpy_arrays_or_lists_raise_pytorchs_type_errors():
    check(_TRY + """
tryit(lambda: nn.Linear(3, 2)(a))
tryit(lambda: nn.Conv2d(1, 1, 2)(np.ones((1, 1, 3, 3), dtype=np.float32)))
tryit(lambda: nn.Conv1d(1, 1, 2, bias=False)(np.ones((1, 1, 3), dtype=np.float32)))
tryit(lambda: nn.Conv2d(1, 1, 2, padding='same')([[[[1.0, 2.0], [3.0, 4.0]]]]))
tryit(lambda: F.conv2d(torch.ones(1, 1, 3, 3), np.ones((1, 1, 2, 2), dtype=np.float32)))
tryit(lambda: F.conv1d([1.0, 2.0], torch.ones(1, 1, 2), torch.ones(1)))
tryit(lambda: F.conv2d(a, torch.ones(1, 1, 2, 2), None, (1, 2), 'same', [1, 1], 1))
tryit(lambda: nn.Embedding(5, 2)(np.array([1, 2])))
tryit(lambda: nn.LayerNorm(3)(a))
tryit(lambda: nn.MaxPool2d(2)(np.ones((1, 1, 4, 4), dtype=np.float32)))
tryit(lambda: nn.AvgPool2d(2)(np.ones((1, 1, 4, 4), dtype=np.float32)))
tryit(lambda: nn.Dropout()(a))
tryit(lambda: nn.Sigmoid()(a))
tryit(lambda: nn.Tanh()([1.0]))
tryit(lambda: nn.CrossEntropyLoss()(torch.ones(2, 3), np.array([0, 1])))
tryit(lambda: nn.CrossEntropyLoss()(torch.ones(2, 3), [0, 1]))
tryit(lambda: nn.NLLLoss()(torch.ones(2, 3), [0, 1]))
tryit(lambda: nn.BCELoss()(torch.rand(2, 3), a))
tryit(lambda: nn.L1Loss()(a, torch.ones(2, 3)))
tryit(lambda: nn.SmoothL1Loss()(torch.ones(2, 3), a))
tryit(lambda: nn.HuberLoss()(torch.ones(2, 3), [1.0, 2.0]))
""")


# -- torch.autograd.grad's deprecated only_inputs ---------------------------------------------

def test_autograd_grad_takes_the_deprecated_only_inputs_argument():
    check("""
import torch
torch.manual_seed(0)
x = torch.randn(3, requires_grad=True)
g, = torch.autograd.grad(outputs=(x ** 2).sum(), inputs=x, create_graph=True, retain_graph=True, only_inputs=True)
print(g.shape, g.requires_grad)
h, = torch.autograd.grad((x ** 3).sum(), [x], None, None, False, False)
print(h.shape)
""")


# -- an input smaller than the kernel ---------------------------------------------------------

def test_conv_and_pool_inputs_smaller_than_the_kernel_raise_pytorchs_errors():
    check(_TRY + """
tryit(lambda: nn.Conv2d(3, 6, 5)(torch.randn(1, 3, 3, 3)))
tryit(lambda: nn.Conv1d(3, 6, 5)(torch.randn(1, 3, 3)))
tryit(lambda: nn.Conv2d(3, 6, 5, padding=1)(torch.randn(1, 3, 3, 3)).shape)
tryit(lambda: nn.Conv2d(3, 6, 3, dilation=2)(torch.randn(1, 3, 4, 4)))
tryit(lambda: nn.Conv2d(3, 6, 3)(torch.randn(3, 2, 8)))
tryit(lambda: nn.MaxPool2d(4)(torch.randn(1, 1, 3, 3)))
tryit(lambda: nn.AvgPool2d(4)(torch.randn(1, 1, 3, 3)))
tryit(lambda: nn.MaxPool2d(2)(torch.randn(1, 1, 1, 1)))
tryit(lambda: nn.MaxPool2d(2)(torch.randn(2, 1, 1, 5)))
tryit(lambda: nn.MaxPool2d(2)(torch.randn(3, 1, 5)))
tryit(lambda: nn.AvgPool2d(3, padding=1)(torch.randn(1, 2, 1, 1)).shape)
tryit(lambda: nn.MaxPool2d(2, ceil_mode=True)(torch.randn(1, 1, 1, 1)).shape)
""")


# -- loss and layer argument checks -----------------------------------------------------------

def test_loss_and_layer_argument_errors_match_pytorch():
    check(_TRY + """
torch.manual_seed(0)
tryit(lambda: nn.CrossEntropyLoss()(torch.randn(2, 5, 4), torch.randint(0, 4, (2, 5))))
tryit(lambda: F.binary_cross_entropy(torch.rand(3), torch.rand(3), weight=torch.rand(2)))
tryit(lambda: F.binary_cross_entropy(torch.rand(2, 3), torch.rand(2, 3), weight=torch.rand(3, 1, 1)).shape)
tryit(lambda: F.binary_cross_entropy_with_logits(torch.rand(3, 2), torch.rand(3, 2), pos_weight=torch.rand(3)))
tryit(lambda: F.binary_cross_entropy_with_logits(torch.rand(3, 2), torch.rand(3, 2), weight=torch.rand(3)))
tryit(lambda: nn.CrossEntropyLoss(label_smoothing=1.5)(torch.randn(3, 4), torch.tensor([0, 1, 2])))
tryit(lambda: nn.CrossEntropyLoss(label_smoothing=2)(torch.randn(3, 4), torch.rand(3, 4)))
tryit(lambda: nn.CrossEntropyLoss(label_smoothing=-0.1)(torch.randn(3, 4), torch.tensor([0, 1, 2])).shape)
tryit(lambda: F.huber_loss(torch.randn(3), torch.randn(3), delta=-1.0))
tryit(lambda: nn.HuberLoss(delta=0)(torch.randn(3, 4), torch.rand(3, 1)))
tryit(lambda: F.smooth_l1_loss(torch.randn(3), torch.randn(3), beta=-1.0))
tryit(lambda: nn.Unflatten(1, (2, 2))(torch.randn(3, 5)))
tryit(lambda: nn.Unflatten(1, (2, -1))(torch.randn(3, 4)).shape)
tryit(lambda: nn.Unflatten(-1, [2, 2])(torch.randn(3, 5)))
""")


def test_conv_padding_mode_is_validated_as_in_pytorch():
    # PyTorch prints the set of valid modes, whose order varies between processes: compared as a set
    import re
    import torch
    import gradcli.torch as G
    texts = []
    for lib in (torch, G):
        with pytest.raises(ValueError) as info:
            lib.nn.Conv2d(3, 6, 3, padding_mode="bogus")
        text = str(info.value)
        modes = re.search(r"\{(.*)\}", text).group(1)
        texts.append((text.replace(modes, "MODES"), sorted(modes.split(", "))))
    assert texts[0] == texts[1]


# -- a float64 target (from NumPy) with a float32 output --------------------------------------

def test_losses_of_mixed_float_dtypes_give_pytorchs_dtypes_and_errors():
    check("""
import torch, torch.nn.functional as F
torch.manual_seed(0)
for name, fn in [('bce_logits', F.binary_cross_entropy_with_logits), ('smooth_l1', F.smooth_l1_loss),
                 ('huber', F.huber_loss)]:
    for dt in [(torch.float32, torch.float64), (torch.float64, torch.float32)]:
        for red in ['mean', 'none', 'sum']:
            x = torch.randn(3, dtype=dt[0], requires_grad=True)
            y = torch.rand(3, dtype=dt[1])
            l = fn(x, y, reduction=red)
            try:
                l.sum().backward()
                r = x.grad.dtype
            except RuntimeError as e:
                r = str(e)
            print(name, dt, red, l.dtype, l.grad_fn.name(), r)
""")


# -- recurrent layers' argument checks --------------------------------------------------------

def test_rnn_cells_and_layers_check_their_arguments_as_pytorch():
    check(_TRY + """
torch.manual_seed(0)
tryit(lambda: nn.LSTMCell(3, 2)(torch.randn(4, 3), torch.zeros(4, 2)))
tryit(lambda: nn.LSTMCell(3, 2)(torch.randn(4, 2)))
tryit(lambda: nn.GRUCell(3, 2)(torch.randn(4, 2)))
tryit(lambda: nn.RNNCell(3, 2)(torch.randn(4, 2)))
tryit(lambda: nn.GRUCell(3, 2)(torch.randn(4, 3), torch.zeros(3, 2)))
tryit(lambda: nn.LSTMCell(3, 2)(torch.randn(4, 3), (torch.zeros(4, 2), torch.zeros(3, 2))))
tryit(lambda: nn.LSTMCell(3, 2)(torch.randn(4, 3), (torch.zeros(4, 3), torch.zeros(4, 2))))
tryit(lambda: nn.RNNCell(3, 2)(torch.randn(4, 3), torch.zeros(4, 3)))
tryit(lambda: nn.RNNCell(3, 2)(torch.randn(3), torch.zeros(2)).shape)
tryit(lambda: nn.LSTM(4, 3, batch_first=True)(torch.randn(2, 5, 4), (torch.zeros(1, 5, 3), torch.zeros(1, 5, 3))))
tryit(lambda: nn.LSTM(4, 3)(torch.randn(2, 5, 4), (torch.zeros(1, 5, 3), torch.zeros(1, 2, 3))))
tryit(lambda: nn.GRU(4, 3)(torch.randn(2, 2, 4), torch.zeros(2, 2, 3)))
tryit(lambda: nn.RNN(4, 3, num_layers=2)(torch.randn(2, 2, 4), torch.zeros(1, 2, 3)))
tryit(lambda: nn.LSTM(3, 2)(torch.randn(4, 2, 3, dtype=torch.float64)))
tryit(lambda: nn.RNN(3, 2)(torch.randn(4, 2, 3).long()))
tryit(lambda: nn.GRU(3, 2)(torch.randn(4, 2, 5).double()))
""")


# -- an LSTM's output changed in place before backward ----------------------------------------

def test_inplace_change_of_an_lstm_output_is_the_version_error():
    check("""
import torch, torch.nn as nn
torch.manual_seed(0)
def run(name, f):
    try:
        f()
        print(name, 'OK')
    except RuntimeError as e:
        print(name, e)
x = torch.randn(4, 2, 3)
def lstm_out():
    out, (h, c) = nn.LSTM(3, 2)(x); out.add_(1); out.sum().backward()
def lstm_h():
    out, (h, c) = nn.LSTM(3, 2)(x); h.add_(1); (out.sum() + h.sum()).backward()
def lstm_batch_first():
    out, _ = nn.LSTM(3, 2, batch_first=True)(x); out.add_(1); out.sum().backward()
def lstm_two_layers():
    out, _ = nn.LSTM(3, 2, num_layers=2)(x); out.add_(1); out.sum().backward()
def lstm_bidirectional():
    out, _ = nn.LSTM(3, 2, bidirectional=True)(x); out.add_(1); out.sum().backward()
def lstm_relu_inplace():
    out, _ = nn.LSTM(3, 2)(x); out = nn.ReLU(inplace=True)(out); out.sum().backward()
def lstm_unbatched():
    out, _ = nn.LSTM(3, 2)(x[:, 0]); out.add_(1); out.sum().backward()
def lstm_slice():
    out, _ = nn.LSTM(3, 2)(x); out[-1].mul_(2); out.sum().backward()
for f in [lstm_out, lstm_h, lstm_batch_first, lstm_two_layers, lstm_bidirectional, lstm_relu_inplace, lstm_unbatched,
          lstm_slice]:
    run(f.__name__, f)
""")


# -- Module conversions, deprecated nn.init names, hook handles -------------------------------

def test_module_to_cuda_half_and_deprecated_init_names_as_pytorch():
    check(_TRY + """
torch.manual_seed(0)
print(nn.ReLU().to('cuda'), nn.ReLU().cuda(), nn.Linear(2, 2).half().weight.dtype)
tryit(lambda: nn.Linear(2, 2).cuda())
tryit(lambda: nn.Linear(2, 2).to('cuda'))
tryit(lambda: nn.Linear(2, 2).to('cuda:0'))
tryit(lambda: nn.Linear(2, 2).to(torch.device('cuda')))
tryit(lambda: nn.Linear(2, 2).to('cuda', torch.float64))
tryit(lambda: nn.Linear(2, 2).to(device='cuda'))
print(nn.Linear(2, 2).to('cpu').weight.dtype, nn.Linear(2, 2).to('cpu', torch.float64).weight.dtype)
m = nn.Linear(3, 2)
nn.init.xavier_uniform(m.weight)
nn.init.normal(m.bias, 0, 0.1)
nn.init.kaiming_normal(m.weight, mode='fan_out')
nn.init.constant(m.bias, 0.5)
nn.init.uniform(m.weight, -1, 1)
print(m.weight, m.bias)
h = m.register_forward_hook(lambda *a: None)
print(str(h).split(' at ')[0])
""")


# -- full backward hooks: one gradient per output and input; the hooked tensors are views -----

def test_full_backward_hooks_of_multi_output_modules_get_one_entry_per_output():
    check("""
import torch, torch.nn as nn
torch.manual_seed(44)
def bh(m, gi, go):
    print(type(m).__name__, len(gi), len(go), [None if g is None else tuple(g.shape) for g in gi],
          [None if g is None else tuple(g.shape) for g in go])
lstm = nn.LSTM(2, 3).requires_grad_(False)     # (only x is a leaf the oracle names)
lstm.register_full_backward_hook(bh)
x = torch.randn(4, 1, 2, requires_grad=True)
out, (h, c) = lstm(x)
out.sum().backward()
class Two(nn.Module):
    def forward(self, a, b):
        return a * b, 3
t = Two()
t.register_full_backward_hook(bh)
a = torch.ones(2, requires_grad=True)
b = torch.ones(2)
p, q = t(a, b)
(p.sum() * 2).backward()
""")


def test_inplace_change_of_a_full_backward_hooked_tensor_is_refused_in_the_forward():
    check(_TRY + """
torch.manual_seed(0)
def run_relu_after_hooked_linear():
    seq = nn.Sequential(nn.Linear(2, 2), nn.ReLU(inplace=True))
    seq[0].register_full_backward_hook(lambda m, gi, go: print('hook'))
    return seq(torch.randn(3, 2))
def run_hooked_inplace_relu():
    seq = nn.Sequential(nn.Linear(2, 2), nn.ReLU(inplace=True))
    seq[1].register_full_backward_hook(lambda m, gi, go: print('hook'))
    return seq(torch.randn(3, 2))
def run_add_to_hooked_output():
    lin = nn.Linear(2, 2)
    lin.register_full_backward_hook(lambda m, gi, go: print('hook'))
    out = lin(torch.randn(3, 2))
    out += 1
    return out
for f in [run_relu_after_hooked_linear, run_hooked_inplace_relu, run_add_to_hooked_output]:
    tryit(f)
""")


def test_custom_function_returning_its_input_gives_a_view_that_may_not_change_in_place():
    check(_TRY + """
class Id(torch.autograd.Function):
    @staticmethod
    def forward(ctx, a, b):
        ctx.mark_non_differentiable(*[x for x in (a, b) if not x.requires_grad])
        return a, b
    @staticmethod
    def backward(ctx, ga, gb):
        return ga, gb
torch.manual_seed(0)
x = torch.randn(3, requires_grad=True)
y = x * 2
p, q = Id.apply(y, torch.ones(3))
print(p.grad_fn.name(), q.requires_grad, q.grad_fn, p._base is y)
tryit(lambda: p.add_(1))
q.add_(1)
p.sum().backward()
print(x.grad)
""")
