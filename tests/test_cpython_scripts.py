"""Scripts run on CPython with `torch` resolved to gradcli: every Python construct works.

Each differential case is a whole script run under real PyTorch 2.13 and under gradcli, compared
by oracle.assert_same (stdout, the escaping error, end-state tensors and grads, each backward's
nodes run / freed / leaves updated). The rest checks what only gradcli has: the import hook
(and that it leaves the process as it found it), where nodes come from, errors shown with the
script's own frames, and the limits.
"""
from __future__ import annotations

import gc
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from oracle import assert_same
from gradcli.record.report import LeavesShown
from gradcli.session import executor
from gradcli.session.executor import run_traced
from gradcli.views import json_view

CASES = {}


def case(cid, src):
    CASES[cid] = textwrap.dedent(src).strip("\n") + "\n"


case("module-like-class-with-call-and-forward", """
    import torch
    class Layer:
        def __init__(self, w):
            self.w = torch.tensor(w, requires_grad=True)
        def forward(self, x):
            return torch.tanh(x * self.w)
        def __call__(self, x):
            return self.forward(x)
    class Scaled(Layer):
        def __init__(self, w, k):
            super().__init__(w)
            self.k = k
        def forward(self, x):
            return super().forward(x) * self.k
    net = Scaled([0.5, -1.0], 3.0)
    y = net(torch.tensor([1.0, 2.0])).sum()
    y.backward()
    print(net.w.grad, type(net).__mro__[1].__name__)
    y.backward()
    """)

case("closures-and-decorators", """
    import functools
    import torch
    calls = []
    def logged(fn):
        @functools.wraps(fn)
        def inner(*args, **kwargs):
            calls.append(fn.__name__)
            return fn(*args, **kwargs)
        return inner
    def make_power(p):
        @logged
        def power(t):
            return t ** p
        return power
    cube = make_power(3)
    x = torch.tensor([1.5, -2.0], requires_grad=True)
    with torch.no_grad():
        z = cube(x)
    y = cube(x).sum()
    y.backward()
    print(x.grad, z.requires_grad, calls, cube.__name__)
    """)

case("no-grad-as-decorator", """
    import torch
    @torch.no_grad()
    def update(p, lr):
        p -= lr * p.grad
        return p.requires_grad
    w = torch.tensor([1.0, 2.0], requires_grad=True)
    (w * w).sum().backward()
    print(update(w, 0.1), w, w._version)
    """)

case("generators-args-kwargs-global-nonlocal", """
    import torch
    total = None
    def batches(t, size):
        for i in range(0, len(t), size):
            yield t[i:i + size]
    def combine(*parts, scale=1.0, **extra):
        global total
        count = 0
        def add(p):
            nonlocal count
            count += 1
            return p.sum() * scale
        total = sum(add(p) for p in parts) + extra.get("bias", 0)
        return count
    x = torch.arange(6.0, requires_grad=True)
    n = combine(*batches(x * 2, 4), scale=0.5, bias=torch.tensor(1.0))
    total.backward()
    print(n, total, x.grad)
    """)

case("numpy-interop-shares-memory-without-a-version-bump", """
    import numpy as np
    import torch
    a = np.array([1.0, 2.0, 3.0], dtype=np.float32)
    t = torch.from_numpy(a)
    x = torch.tensor([1.0, 1.0, 1.0], requires_grad=True)
    y = (x * t).sum()
    a[0] = 10.0                 # a write through the array: PyTorch cannot see it
    print(t, t._version)
    y.backward()
    print(x.grad)
    n = x.detach().numpy()
    n[1] = -5.0
    print(x, np.asarray(t).sum(), type(n).__name__)
    """)

case("exceptions-raised-and-caught-across-functions", """
    import torch
    class Mismatch(Exception):
        pass
    def second(y):
        try:
            y.backward()
        except RuntimeError as e:
            raise Mismatch(str(e)[:40]) from e
    x = torch.tensor([2.0], requires_grad=True)
    z = x * 2
    y = z ** 2
    y.backward()
    try:
        second(y)
    except Mismatch as m:
        print("caught:", m, type(m.__cause__).__name__)
    finally:
        print("finally", x.grad)
    """)

case("dataclass-and-comprehensions-of-tensors", """
    from dataclasses import dataclass, field
    import math
    import torch
    @dataclass
    class Params:
        w: torch.Tensor
        history: list = field(default_factory=list)
    p = Params(torch.tensor([0.5, 1.5], requires_grad=True))
    losses = [((p.w * k) ** 2).sum() for k in range(1, 4)]
    sum(losses).backward()
    p.history.append(round(math.fsum(l.item() for l in losses), 3))
    print(p.w.grad, p.history, {i: l.grad_fn.name() for i, l in enumerate(losses)})
    """)

case("second-backward-inside-a-method-of-a-loop", """
    import torch
    class RNN:
        def __init__(self):
            self.w = torch.tensor([0.5], requires_grad=True)
        def step(self, h, x):
            return torch.tanh(self.w * h + x)
    rnn = RNN()
    h = torch.zeros(1)
    for t in range(3):
        h = rnn.step(h, torch.tensor([float(t)]))
        loss = (h ** 2).sum()
        loss.backward()
    """)


@pytest.mark.parametrize("cid", sorted(CASES))
def test_python_constructs_behave_as_under_pytorch(cid):
    try:
        assert_same(CASES[cid])
    except AssertionError as e:
        pytest.fail(str(e), pytrace=False)

# ----------------------------------------------------------------------------- the import hook


def run(source, **kw):
    return executor.run_source(textwrap.dedent(source), "<script>", **kw)


def test_torch_and_its_submodules_are_gradclis():
    r = run("""\
        import torch
        import torch.nn.functional as F
        from torch.autograd import grad
        from torch import autograd
        import torch.optim as optim
        print(torch.__name__, F.relu.__module__.split('.')[0], grad is autograd.grad, optim.SGD.__name__)
        print(type(torch.ones(1)).__mro__[1].__module__.split('.')[0])     # (torch.Tensor prints as PyTorch's)
        """)
    assert r.error is None, json_view.error_json(r.error)
    first, second = r.stdout.splitlines()
    assert first.startswith("gradcli.torch gradcli True SGD") and second == "gradcli"


@pytest.mark.parametrize("module, missing", [("torchvision", "torchvision"), ("torchvision.datasets", "torchvision"),
                                             ("torch.distributed", "torch.distributed"), ("torchaudio", "torchaudio")])
def test_a_module_gradcli_lacks_says_so(module, missing):
    r = run(f"import {module}\n")
    assert r.error.type == "ModuleNotFoundError" and r.error.line == 1
    assert f"No module named '{missing}'" in r.error.message
    assert "gradcli does not implement" in r.error.message and "small literal tensors" in r.error.message


def test_the_process_is_left_as_it_was():
    import torch as real_torch                  # the test extra's real PyTorch, already imported by the oracle
    before_meta = list(sys.meta_path)
    before_modules = {k: v for k, v in sys.modules.items() if k == "torch" or k.startswith("torch.")}
    gc_on, limit, handler = gc.isenabled(), sys.getrecursionlimit(), signal.getsignal(signal.SIGALRM)
    out = sys.stdout
    r = run("import torch\nimport torch.nn.functional\nx = torch.ones(2)\nimport sys\ndel sys\nprint(x)\n", timeout=5)
    assert r.error is None and r.stdout == "tensor([1., 1.])\n"
    assert sys.meta_path == before_meta and sys.stdout is out
    assert {k: v for k, v in sys.modules.items() if k == "torch" or k.startswith("torch.")} == before_modules
    assert sys.modules["torch"] is real_torch
    assert (gc.isenabled(), sys.getrecursionlimit(), signal.getsignal(signal.SIGALRM)) == (gc_on, limit, handler)
    from gradcli.engine import STATE
    assert STATE.capture is None and STATE.observer is None


def test_real_pytorch_is_never_imported_by_a_script(tmp_path):
    script = tmp_path / "s.py"
    script.write_text("import sys\nimport torch\nprint(torch.__file__.split('site-packages')[-1])\n"
                      "print(sorted(m for m in sys.modules if m.startswith('torch._C')))\n")
    proc = subprocess.run([sys.executable, "-m", "gradcli", "run", "--plain", str(script)], capture_output=True,
                          text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert "gradcli" in proc.stdout.splitlines()[0] and proc.stdout.splitlines()[1] == "[]"

# ----------------------------------------------------------------------------- where nodes come from


def test_a_node_made_in_a_method_knows_its_line_column_function_variable_and_caller():
    src = textwrap.dedent("""\
        import torch
        class Net:
            def __init__(self):
                self.w = torch.tensor([0.5, 2.0], requires_grad=True)
            def forward(self, x):
                h = torch.tanh(x * self.w)
                return h.sum()
        net = Net()
        loss = net.forward(torch.ones(2))
        loss.backward()
        """)
    trace = run_traced(src, "net.py")
    assert trace.report.error is None
    nodes = {type(n).__name__: n for n in trace.calls[0].executed}
    tanh = nodes["TanhBackward0"].origin
    assert (tanh.line, tanh.function, tanh.variable, tanh.text) == (6, "Net.forward", "h", "h = torch.tanh(x * self.w)")
    assert tanh.span[:2] == (6, 13)                           # `torch.tanh(...)` starts at column 13
    assert [line for _, line, _, _ in tanh.frames()] == [9, 6]   # called from line 9
    mul = nodes["MulBackward0"].origin
    assert mul.span[1] == 24 and mul.line == 6                  # `x * self.w` inside the call
    assert nodes["SumBackward0"].origin.line == 7
    assert trace.calls[0].event.line == 10


def test_origins_in_a_loop_name_the_loop_body_line():
    trace = run_traced("import torch\nx = torch.ones(1, requires_grad=True)\ny = x\nfor i in range(3):\n"
                        "    y = y * 2\ny.sum().backward()\n", "loop.py")
    muls = [n for n in trace.calls[0].executed if type(n).__name__ == "MulBackward0"]
    assert [n.origin.line for n in muls] == [5, 5, 5] and {n.origin.text for n in muls} == {"y = y * 2"}

def test_origin_lines_are_the_lines_python_reports_for_the_same_instructions():
    """Origins read a node's line from the instruction's position, not from the frame; on
    multi-line expressions, decorators and comprehensions both must give Python's line."""
    src = textwrap.dedent("""\
        import torch
        x = torch.ones(2, requires_grad=True)
        y = (x
             * 2
             + torch.tanh(
                 x))
        zs = [torch.sin(x)
              for _ in range(2)]
        def f(t):
            return (t
                    .exp())
        w = f(y)
        s = (w.sum() + zs[0].sum()
             + zs[1].sum())
        s.backward()
        """)
    import inspect
    from gradcli.record import origin as O
    seen = []
    real = O.Capture.__call__

    def capture(self):
        o = real(self)
        if o is not None:
            f = inspect.currentframe()
            while f.f_code is not o.code:
                f = f.f_back
            seen.append((f.f_lineno, o.lineno))
        return o
    O.Capture.__call__ = capture
    try:
        r = run(src)
    finally:
        O.Capture.__call__ = real
    assert r.error is None and len(seen) >= 8
    assert [a for a, _ in seen] == [b for _, b in seen]


def test_a_long_chain_and_a_loop_are_folded_in_the_rich_view(tmp_path):
    lines = tmp_path / "lines.py"
    lines.write_text("import torch\nx = torch.ones(1, requires_grad=True)\nz = x\n"
                     + "z = z * 1.0\nz = torch.tanh(z)\n" * 500 + "z.backward()\n")
    proc = _cli("run", str(lines))
    assert proc.returncode == 0 and "… 991 more …" in proc.stdout
    assert len(proc.stdout.splitlines()) < 30                # not one entry per node
    loop = tmp_path / "loop.py"
    loop.write_text("import torch\nx = torch.ones(1, requires_grad=True)\nz = x * 1.0\nfor i in range(50):\n"
                    "    z = torch.tanh(z)\n    z = z * 2.0\nz.backward()\n")
    out = _cli("run", str(loop)).stdout
    assert "49 × (TanhBackward0 (line 5) → MulBackward0 (line 6))" in " ".join(out.split())
    import json
    ev = json.loads(_cli("run", "--json", str(loop)).stdout)["events"][0]     # JSON keeps every node
    assert ev["ran"].count("TanhBackward0") == 50


# ----------------------------------------------------------------------------- errors and limits


def test_an_error_in_a_function_names_the_scripts_frames_only():
    r = run("""\
        import torch
        def inner(t):
            return t.view(5)
        def outer():
            return inner(torch.ones(2, 3))
        outer()
        """)
    e = r.error
    assert e.type == "RuntimeError" and "shape '[5]' is invalid for input of size 6" in e.message
    assert e.line == 3 and e.frames == [(6, "<module>", 0), (5, "outer", 0), (3, "inner", 0)]


def test_keyboard_interrupt_ends_a_run_and_restores_the_process():
    import _thread
    import threading
    timer = threading.Timer(0.3, _thread.interrupt_main)
    timer.start()
    try:
        with pytest.raises(KeyboardInterrupt):
            run("while True:\n    pass\n")
    finally:
        timer.cancel()
    from gradcli.engine import STATE
    assert STATE.capture is None and not any(type(f).__name__ == "TorchFinder" for f in sys.meta_path)


def test_timeout_stops_a_python_loop_and_names_its_line():
    t0 = time.monotonic()
    r = run("import torch\nx = torch.ones(1)\nwhile True:\n    x = x + 1\n", timeout=0.5)
    assert time.monotonic() - t0 < 10
    # (the loop's jump back may be attributed to its `while` line)
    assert r.error.type == "LimitError" and "time limit of 0.5 s" in r.error.message and r.error.line in (3, 4)


def _cli(*args, timeout=60):
    return subprocess.run([sys.executable, "-m", "gradcli", *args], capture_output=True, text=True, timeout=timeout,
                          env={**os.environ, "NO_COLOR": "1"})


@pytest.mark.parametrize("mode", [[], ["--plain"], ["--json"]])
def test_timeout_holds_inside_one_long_c_call(tmp_path, mode):
    script = tmp_path / "c.py"
    script.write_text("import torch\nx = torch.ones(3)\ntotal = sum(range(10 ** 13))\n")
    t0 = time.monotonic()
    proc = _cli("run", str(script), "--timeout", "1", *mode)
    assert time.monotonic() - t0 < 20
    assert proc.returncode == 1
    text = proc.stdout + proc.stderr
    assert "time limit of 1 s" in text and "line 3" in text and "Traceback" not in text


def test_deep_recursion_is_the_scripts_own_recursion_error():
    r = run("def f(n):\n    return f(n + 1)\nf(0)\n")
    assert r.error.type == "RecursionError" and r.error.line == 2


def test_exit_in_a_script_ends_it_quietly_or_with_its_status():
    assert run("import sys\nprint(1)\nsys.exit(0)\nprint(2)\n").stdout == "1\n"
    r = run("raise SystemExit('bye')\n")
    assert r.error.type == "SystemExit" and r.error.message == "bye"


def test_a_bad_argument_to_a_library_function_is_the_scripts_error_not_gradclis(tmp_path):
    script = tmp_path / "s.py"
    script.write_text("import torch\ntorch.ones(2).sum(dim='x', nope=1)\n")
    proc = _cli("run", "--plain", str(script))
    assert proc.returncode == 1 and "internal error" not in proc.stderr and "TypeError" in proc.stderr


EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


def test_classes_in_a_dialect_script_are_not_a_syntax_error(tmp_path):
    script = tmp_path / "s.py"
    script.write_text("class Box:\n    def __init__(self, v):\n        self.v = v\nb = Box(3)\nprint(b.v)\n")
    proc = _cli("run", "--plain", str(script))
    assert proc.returncode == 0 and proc.stdout == "3\n", proc.stderr

# ----------------------------------------------------------------------------- calls that raise at once


@pytest.mark.parametrize("call, message", [
    ("y.backward()", "grad can be implicitly created only for scalar outputs"),
    ("torch.ones(2).sum().backward()", "element 0 of tensors does not require grad"),
    ("y.sum().backward(torch.ones(3))", "Mismatch in shape"),
    ("torch.autograd.grad(y.sum(), [torch.ones(2)])", "One of the differentiated Tensors does not require grad"),
])
def test_a_call_that_raises_before_running_is_still_an_event(call, message):
    r = run(f"import torch\nx = torch.ones(2, requires_grad=True)\ny = x * 2\ntry:\n    {call}\n"
            "except RuntimeError as e:\n    print('caught')\n")
    assert r.error is None and r.stdout == "caught\n"
    (ev,) = r.events
    doc = json_view.call_json(ev)
    assert doc["raised"] is True and doc["freed"] == [] and doc["line"] == 5
    assert doc["error"]["type"] == "RuntimeError" and message in doc["error"]["message"]
    assert doc["error"]["caught_line"] == 6


def test_a_call_that_ends_the_script_is_not_caught():
    r = run("import torch\nx = torch.ones(2, requires_grad=True)\n(x * 2).backward()\n")
    (ev,) = r.events
    assert ev.raised and ev.caught_line is None and r.error.line == 3


def test_the_rich_view_says_a_caught_error_was_caught(tmp_path):
    script = tmp_path / "s.py"
    script.write_text("import torch\nx = torch.ones(2, requires_grad=True)\ntry:\n    (x * 2).backward()\n"
                      "except RuntimeError:\n    pass\n")
    proc = _cli("run", str(script))
    assert proc.returncode == 0
    assert "raised RuntimeError, caught by the script (line 5)" in proc.stdout
    assert "stopped by the error below" not in proc.stdout


def test_torch_nn_and_f_are_bound_in_the_dialect_and_never_leaves():
    r = run("x = torch.tensor([2.], requires_grad=True)\ny = F.relu(x * w)\nbackward y.sum()\nprint x.grad\n")
    assert r.error is None, json_view.error_json(r.error)
    leaves = [name for item in r.items if isinstance(item, LeavesShown) for name, _ in item.leaves]
    assert leaves == ["w"] and r.stdout == "tensor([1.])\n"
    r = run("y = np.exp(q)\n")                   # np only dotted: a NameError, not a leaf
    assert r.error.type == "NameError" and "'np'" in r.error.message


def test_an_error_shows_the_scripts_frames_in_json_and_rich(tmp_path):
    script = tmp_path / "f.py"
    script.write_text("import torch\ndef inner(t):\n    return t.view(5)\ndef outer():\n    return inner(torch.ones(2, 3))\n"
                      "outer()\n")
    import json
    proc = _cli("run", "--json", str(script))
    frames = json.loads(proc.stdout)["error"]["frames"]
    assert frames == [{"line": 6, "function": "<module>"}, {"line": 5, "function": "outer"},
                      {"line": 3, "function": "inner"}]
    proc = _cli("run", str(script))
    assert "in the script (line 6) → outer (line 5) → inner (line 3)" in proc.stdout
    assert "gradcli/" not in proc.stdout and "Traceback" not in proc.stdout


def test_each_script_draws_from_a_fresh_seed_as_a_new_process_would():
    """Not from the host's generator: `gradcli test` runs many scripts in one process, and a
    script without manual_seed must not repeat what an earlier one (or the oracle) drew."""
    from gradcli import torch as G
    G.manual_seed(0)
    first = run("import torch\nprint(torch.randn(3))\n").stdout
    G.manual_seed(0)
    second = run("import torch\nprint(torch.randn(3))\n").stdout
    G.manual_seed(0)
    assert len({first, second, str(G.randn(3)) + "\n"}) == 3
    seeded = run("import torch\ntorch.manual_seed(0)\nprint(torch.randn(3))\n").stdout
    assert seeded == run("import torch\ntorch.manual_seed(0)\nprint(torch.randn(3))\n").stdout
