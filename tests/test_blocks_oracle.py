"""Generated scripts with Python blocks, run under real PyTorch 2.13 and gradcli
through oracle.assert_same (stdout exactly, the escaping error, end-state tensors and grads,
per-call nodes run / freed / leaves updated).

A script is 1-3 "fragments", each drawn with random parameters and optionally wrapped in a
function that is then called (so the same code runs with locals and frames):

* function    def with positional/keyword/default parameters, if/elif/else on 0-d tensors,
              return from several branches, keyword calls
* training    for loop over range with continue/break, backward, `with torch.no_grad():`
              update, grad zeroing, a list of losses, f"{loss:.4f}"
* while       while loop with a counter, continue/break, `g, = torch.autograd.grad(...)`,
              f-strings with format specs of 0-d tensors
* second      try/except RuntimeError as e: print(e) around a second backward or other errors
              (a non-scalar output, an output that does not require grad), with else/finally
* nograd      with torch.no_grad(): / torch.enable_grad() blocks and requires_grad prints
* fstrings    f"{t}", f"{t:.3f}", f"{t:>9.2f}", f"{t:.2e}", f"{t!r}", "{:.3f}".format(t),
              "%.2f" % t, and the TypeError of a format spec on an n-d tensor
* containers  list / dict / tuple literals with indexing, enumerate, zip, len, sum of tensors
* unpack      a, b = torch.autograd.grad(...), (a, b) = ..., g, = ..., loops over zip
* recursion   a recursive function building a product graph
* logic       and / or / not / in / is None / comparisons on .item() values, elif chains

Shrinking is off (phases below) to keep the run short; a failure prints its whole script.
"""
from __future__ import annotations

from hypothesis import HealthCheck, Phase, given, note, seed, settings
from hypothesis import strategies as st

from oracle import assert_same

VALS = [0.5, -0.5, 1.0, -1.0, 1.5, 0.25, -0.75, 2.0]
UNARY = ["sin", "cos", "tanh", "sigmoid", "exp", "relu", "abs"]


def _lst(draw, n, label):
    return "[" + ", ".join(repr(v) for v in draw(st.lists(st.sampled_from(VALS), min_size=n, max_size=n),
                                                   label=label)) + "]"


def _num(draw, label, choices=(0.5, 1.0, 1.5, 2.0, 3.0, -1.0)):
    return repr(draw(st.sampled_from(choices), label=label))


def frag_function(draw, i):
    k, shift, th = _num(draw, "k"), _num(draw, "shift"), _num(draw, "th", (0.0, 0.5, 1.0))
    u1, u2 = draw(st.sampled_from(UNARY), label="u1"), draw(st.sampled_from(UNARY), label="u2")
    call = draw(st.sampled_from([f"f{i}(w{i})", f"f{i}(w{i}, 2)", f"f{i}(w{i}, k=0.5)", f"f{i}(w{i}, shift=-1.0)",
                                 f"f{i}(w{i}, 3, shift=0.25)", f"f{i}(t=w{i}, k=2.0)"]), label="call")
    return [
        f"def f{i}(t, k={k}, shift={shift}):",
        f"    if t.sum() > {th}:",
        f"        return (t * k).{u1}() + shift",
        f"    elif t.sum() < -{th}:",
        f"        return t.{u2}() * k",
        "    else:",
        "        return t * 0 + shift",
        f"w{i} = torch.tensor({_lst(draw, 3, 'w')}, requires_grad=True)",
        f"out{i} = {call}",
        f"out{i}.sum().backward()",
        f"print(f'out{i}: {{out{i}}}')",
        f"print('w{i}.grad', w{i}.grad)",
    ]


def frag_training(draw, i):
    n = draw(st.integers(1, 5), label="steps")
    skip = draw(st.integers(-1, 4), label="skip")
    lr = _num(draw, "lr", (0.1, 0.05, 0.2))
    stop = _num(draw, "stop", (0.0, 0.05, 0.5))
    act = draw(st.sampled_from(["", ".tanh()", ".sigmoid()"]), label="act")
    reset = draw(st.sampled_from([f"w{i}.grad.zero_()", f"w{i}.grad = None"]), label="reset")
    lines = [
        f"w{i} = torch.tensor({_lst(draw, 3, 'w')}, requires_grad=True)",
        f"target{i} = torch.tensor({_lst(draw, 3, 'target')})",
        f"losses{i} = []",
        f"for step in range({n}):",
        f"    pred = (w{i} * {_num(draw, 'c')}){act}",
        f"    loss = ((pred - target{i}) ** 2).mean()",
        f"    if step == {skip}:",
        "        continue",
        "    loss.backward()",
        "    with torch.no_grad():",
        f"        w{i} -= {lr} * w{i}.grad",
        f"    {reset}",
        f"    losses{i} = losses{i} + [round(loss.item(), 3)]",
        f"    print(f'step {{step}}: loss={{loss:.4f}}')",
        f"    if loss.item() < {stop}:",
        "        break",
        f"print(len(losses{i}), losses{i})",
        f"print(w{i}, w{i}.grad)",
    ]
    return lines


def frag_while(draw, i):
    n = draw(st.integers(1, 5), label="n")
    brk = draw(st.integers(1, 6), label="break at")
    expr = draw(st.sampled_from([f"v{i} ** 2", f"v{i}.sin() * v{i}", f"(v{i} * 3).exp()", f"v{i}.tanh() + v{i}"]),
                label="y")
    spec = draw(st.sampled_from([".3f", ".2e", "8.4f", "", "+.1f"]), label="spec")
    return [
        f"v{i} = torch.tensor({_num(draw, 'v', (0.5, -0.5, 0.25, 1.0))}, requires_grad=True)",
        f"count{i} = 0",
        f"while count{i} < {n}:",
        f"    count{i} += 1",
        f"    y{i} = {expr}",
        f"    if count{i} % 2 == 0:",
        "        continue",
        f"    g{i}, = torch.autograd.grad(y{i}, v{i})",
        f"    print(f'{{count{i}}}: g={{g{i}:{spec}}} y={{y{i}:.3f}}')",
        f"    if count{i} >= {brk}:",
        "        break",
        f"print('count', count{i}, v{i}.grad)",
    ]


def frag_second(draw, i):
    op = draw(st.sampled_from(["* 2", "+ 1", ".exp()", ".sin()", "** 2", ".relu()", "- 3"]), label="op")
    kind = draw(st.sampled_from(["second", "second", "nonscalar", "plain", "retain"]), label="error kind")
    lines = [f"a{i} = torch.tensor({_lst(draw, 2, 'a')}, requires_grad=True)",
             f"b{i} = (a{i} {op}).sum()" if not op.startswith(".") else f"b{i} = a{i}{op}.sum()"]
    if kind in ("second", "retain"):
        lines.append(f"b{i}.backward({'retain_graph=True' if kind == 'retain' else ''})")
        body = f"b{i}.backward()"
    elif kind == "nonscalar":
        body = f"(a{i} * 2).backward()"
    else:
        body = f"a{i}.detach().sum().backward()"
    lines += ["try:", f"    {body}", "    print('no error')", "except RuntimeError as e:", "    print(e)"]
    if draw(st.booleans(), label="else"):
        lines += ["else:", "    print('else branch')"]
    if draw(st.booleans(), label="finally"):
        lines += ["finally:", f"    print('finally', a{i}.grad)"]
    return lines


def frag_nograd(draw, i):
    ctx = draw(st.sampled_from(["torch.no_grad()", "torch.no_grad()", "torch.set_grad_enabled(False)"]), label="ctx")
    lines = [f"p{i} = torch.tensor({_lst(draw, 3, 'p')}, requires_grad=True)",
             f"with {ctx}:",
             f"    z{i} = p{i} * {_num(draw, 'c')}",
             f"    print(z{i}.requires_grad, z{i}.grad_fn)"]
    if draw(st.booleans(), label="enable_grad inside"):
        lines += ["    with torch.enable_grad():", f"        e{i} = p{i} * 2", f"        print(e{i}.requires_grad)"]
    lines += [f"print(z{i}.requires_grad, z{i}.is_leaf, torch.is_grad_enabled())",
              f"q{i} = (p{i} * z{i}).sum()",
              f"q{i}.backward()",
              f"print(p{i}.grad)"]
    return lines


def frag_fstrings(draw, i):
    shape = draw(st.sampled_from(["0d", "1d"]), label="shape")
    lines = [f"s{i} = torch.tensor({_lst(draw, 3, 's')}, requires_grad=True)",
             f"loss{i} = (s{i} ** 2).sum() * {_num(draw, 'c')}"]
    fields = draw(st.lists(st.sampled_from([
        f"{{loss{i}}}", f"{{loss{i}:.3f}}", f"{{loss{i}:>9.2f}}", f"{{loss{i}:.2e}}", f"{{loss{i}!r}}",
        f"{{loss{i}!s}}", f"{{loss{i}.item():.1f}}", f"{{loss{i}:g}}", f"{{s{i}}}", f"{{s{i}.grad}}",
        f"{{s{i}[0]:.2f}}", f"{{loss{i}:10}}", f"{{loss{i}:<8.1f}}|", f"{{s{i}.shape}}", f"{{s{i}.dtype}}",
        f"{{loss{i}.shape}}", f"{{s{i}.requires_grad}}", f"{{loss{i}.grad_fn.name()}}"]),
        min_size=1, max_size=4), label="fields")
    lines.append("print(f'" + " ".join(fields) + "')")
    if draw(st.booleans(), label="format"):
        lines.append(f"print('loss={{:.3f}} {{}}'.format(loss{i}, loss{i}))")
    if draw(st.booleans(), label="percent"):
        # '%.2f' calls float(): on a tensor that requires grad torch warns once per *process*
        # (TORCH_WARN_ONCE), which an in-process oracle cannot compare per script: detach first.
        lines.append(f"print('%.2f' % loss{i}.detach(), '%s' % loss{i}, '%d' % 7)")
    lines.append(f"loss{i}.backward()")
    target = f"s{i}" if shape == "1d" else f"s{i}.grad"
    lines += ["try:", f"    print(f'{{{target}:.2f}}')", "except TypeError as e:", "    print('TypeError:', e)"]
    lines.append(f"print(f'grad={{s{i}.grad}}')")
    if draw(st.booleans(), label="print list"):
        lines.append(f"print([s{i}, s{i}.grad], (loss{i},), str(loss{i}), repr(s{i}.grad))")
    return lines


def frag_containers(draw, i):
    lines = [f"ps{i} = [torch.tensor({_lst(draw, 2, 'p0')}, requires_grad=True), "
             f"torch.tensor({_lst(draw, 2, 'p1')}, requires_grad=True)]",
             f"cfg{i} = {{'lr': {_num(draw, 'lr', (0.1, 0.5))}, 'scale': {_num(draw, 'scale')}, 'name': 'run{i}'}}",
             f"tot{i} = 0",
             f"for j, p in enumerate(ps{i}):",
             f"    tot{i} = tot{i} + (p * cfg{i}['scale'] * (j + 1)).sum()"]
    if draw(st.booleans(), label="zip"):
        lines += [f"for p, c in zip(ps{i}, (1.0, 2.0)):", f"    tot{i} = tot{i} + (p * c).pow(2).sum()"]
    lines += [f"tot{i}.backward()",
              f"print(cfg{i}['name'], len(ps{i}), ps{i}[0].grad, ps{i}[-1].grad)",
              f"pair{i} = (tot{i}, [1, 2, 3])",
              f"print(pair{i}[1][-1], type(pair{i}[0]).__name__, cfg{i}['lr'] * 2)",
              f"print(sum([ps{i}[0].sum(), ps{i}[1].sum()]), max(len(ps{i}), 1), min(3, 2), abs(-2.5))",
              f"print(isinstance(ps{i}[0], torch.Tensor), list((1, 2)), tuple([3]))"]
    if draw(st.booleans(), label="isinstance builtin types"):
        lines.append(f"print(isinstance(cfg{i}['lr'], (int, float)), isinstance(len(ps{i}), float), type(1.5) is float)")
    return lines


def frag_unpack(draw, i):
    form = draw(st.sampled_from(["pair", "paren", "single", "loop"]), label="form")
    lines = [f"x{i} = torch.tensor({_lst(draw, 2, 'x')}, requires_grad=True)",
             f"y{i} = torch.tensor({_lst(draw, 2, 'y')}, requires_grad=True)",
             f"L{i} = (x{i} * y{i}).sum() + (x{i} ** 2).sum()"]
    if form == "pair":
        lines += [f"gx{i}, gy{i} = torch.autograd.grad(L{i}, [x{i}, y{i}])", f"print(gx{i}, gy{i})"]
    elif form == "paren":
        lines += [f"(gx{i}, gy{i}) = torch.autograd.grad(L{i}, (x{i}, y{i}), retain_graph=True)",
                  f"print(gx{i} + gy{i})", f"L{i}.backward()", f"print(x{i}.grad)"]
    elif form == "single":
        lines += [f"g{i}, = torch.autograd.grad(L{i}, x{i}, create_graph=True)", f"print(g{i})",
                  f"h{i}, = torch.autograd.grad(g{i}.sum(), y{i})", f"print(h{i})"]
    else:
        lines += [f"grads{i} = torch.autograd.grad(L{i}, [x{i}, y{i}])",
                  f"for name, g in zip(['x', 'y'], grads{i}):", "    print(name, g)",
                  f"a{i}, b{i} = grads{i}", f"print(len(grads{i}), (a{i} - b{i}).sum().item() == 0)"]
    return lines


def frag_recursion(draw, i):
    n = draw(st.integers(0, 4), label="depth")
    return [
        f"def power{i}(t, n):",
        "    if n == 0:",
        "        return t * 0 + 1",
        f"    return t * power{i}(t, n - 1)",
        f"r{i} = torch.tensor({_num(draw, 'r', (0.5, 1.5, -1.0, 2.0))}, requires_grad=True)",
        f"pw{i} = power{i}(r{i}, {n})",
        "try:",
        f"    pw{i}.backward()",
        "except RuntimeError as e:",
        "    print('RuntimeError:', e)",
        f"print(pw{i}, r{i}.grad)",
    ]


def frag_logic(draw, i):
    th = _num(draw, "th", (0.0, 1.0, -1.0, 2.5))
    member = draw(st.sampled_from(["[1, 2, 3]", "(0, 4)", "[]"]), label="member")
    return [
        f"m{i} = torch.tensor({_lst(draw, 3, 'm')}, requires_grad={draw(st.booleans(), label='rg')})",
        f"val{i} = m{i}.sum().item()",
        f"if val{i} > {th} and m{i}.requires_grad:",
        "    print('big and tracked')",
        f"elif not m{i}.requires_grad or m{i}.grad is None:",
        f"    print('plain or no grad', m{i}.grad is None)",
        f"elif len(m{i}) in {member}:",
        "    print('length listed')",
        "else:",
        "    pass",
        f"print(val{i} == val{i}, m{i}.grad_fn is None, 3 in {member}, m{i}.shape[0] >= 3)",
    ]


FRAGMENTS = [frag_function, frag_training, frag_while, frag_second, frag_nograd, frag_fstrings,
             frag_containers, frag_unpack, frag_recursion, frag_logic]


@st.composite
def block_scripts(draw):
    lines = ["import torch"]
    n = draw(st.integers(1, 3), label="fragments")
    for i in range(n):
        frag = draw(st.sampled_from(FRAGMENTS), label="fragment")
        body = frag(draw, i)
        if draw(st.integers(0, 3), label="wrap in def") == 0:
            lines.append("")
            lines.append(f"def run{i}():")
            lines += ["    " + ln for ln in body]
            lines.append(f"    return {draw(st.sampled_from(['None', '1', repr('done')]), label='ret')}")
            lines.append(f"print(run{i}())")
        else:
            lines += body
    return "\n".join(lines) + "\n"


@seed(31337)
@settings(max_examples=160, deadline=None, database=None, print_blob=True,
          phases=(Phase.explicit, Phase.generate),
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much, HealthCheck.data_too_large])
@given(block_scripts())
def test_random_block_scripts(script):
    note("script:\n" + script)
    assert_same(script)
