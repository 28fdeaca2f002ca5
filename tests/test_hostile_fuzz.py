"""Fuzzing huge inputs under the limits: an op applied to a tensor expanded (broadcast) to a large
shape, with --max-elements, --max-memory and --timeout set. Whatever the op and the sizes, the run
ends in time with the op's result or with an error a user can read (a LimitError, before anything
large is computed where the engine can tell, or PyTorch's own error), never an internal error, and
no tensor it holds owns more elements than the limit. Each case runs in the watchdog's child
process, as `gradcli run --timeout` and `gradcli test` run scripts.

GRADCLI_FUZZ_SCALE multiplies the number of examples; GRADCLI_FUZZ_SEED picks another sequence.
"""
from __future__ import annotations

import os
import time

from hypothesis import HealthCheck, given, seed, settings
from hypothesis import strategies as st

from gradcli.session import watchdog
from gradcli.session.executor import Session
from gradcli.torch import Tensor
from gradcli.record.report import Report

SCALE = float(os.environ.get("GRADCLI_FUZZ_SCALE", "1"))
EXTRA_SEED = int(os.environ.get("GRADCLI_FUZZ_SEED", "0"))
MAX_ELEMENTS = 1_000_000
MAX_MEMORY = 1 << 30
TIMEOUT = 2.0

SIZES = [1, 2, 7, 300, 2000, 10 ** 5, 10 ** 6, 10 ** 9]
OPS = [
    "-x", "x + 1", "x * x", "x + y", "x > 0", "x == y", "x ** 2", "2 ** x", "x.exp()", "x.abs()", "x.sigmoid()",
    "torch.relu(x)", "x.clamp(0, 1)", "x.clamp(min=y)", "x.double()", "x.long()", "x.bool()", "x.half()",
    "x.float()", "x.to(torch.float64)", "x.clone()", "x.contiguous()", "x.sum()", "x.sum(0)", "x.sum(-1)",
    "x.mean()", "x.mean(-1)", "x.prod()", "x.max()", "x.min(0)", "x.norm()", "x.norm(dim=-1)", "x.cumsum(-1)",
    "x.cumprod(0)", "torch.softmax(x, -1)", "F.log_softmax(x, 0)", "F.mse_loss(x, y)", "x.masked_fill(x > 0, 1.)",
    "torch.where(x > 0, x, y)", "torch.logical_and(x, y)", "x[0]", "x[..., 0]", "x[torch.zeros(3, dtype=torch.long)]",
    "x[x > 0]", "x.reshape(-1)", "x.t() if x.dim() == 2 else x", "x.unsqueeze(0)", "x @ y.transpose(-1, -2)",
    "torch.matmul(x, y.transpose(-1, -2))", "torch.cat([x, y])", "torch.stack([x, y])", "x.tolist()",
    "x.numpy() if hasattr(x, 'numpy') else x", "torch.maximum(x, y)", "x.var()", "x.std(0)", "x.softmax(0)",
]
ALLOWED = {"LimitError", "RuntimeError", "IndexError", "TypeError", "ValueError", "AttributeError",
           "NotImplementedError", "MemoryError"}


def _settings(n):
    return settings(max_examples=max(1, int(n * SCALE)), deadline=None, database=None,
                    suppress_health_check=list(HealthCheck))


def _script(base_shape, big_shape, other_shape, op, grad):
    rg = ", requires_grad=True" if grad else ""
    return (f"a = torch.rand({tuple(base_shape)}{rg})\n"
            f"x = a.expand({tuple(big_shape)})\n"
            f"y = torch.rand({tuple(other_shape)}).expand({tuple(big_shape)})\n"
            f"z = {op}\n")


@st.composite
def huge_cases(draw):
    ndim = draw(st.integers(1, 3))
    big = [draw(st.sampled_from(SIZES)) for _ in range(ndim)]
    base = [draw(st.sampled_from([1, n])) if n <= 2000 else 1 for n in big]
    other = [1] * ndim
    return base, big, other, draw(st.sampled_from(OPS)), draw(st.booleans())


def _owned_elements(value):
    """Elements a tensor's own buffer holds (a view or an expanded tensor owns none)."""
    if isinstance(value, Tensor):
        data = value._data
        return data.size if data.base is None else 0
    return 0


def _run(src):
    """In the child: the run's error (type, message) or None, and what breaks the element limit."""
    session = Session("<fuzz>")
    report = Report(source=src, filename="<fuzz>")
    session.run(src, report, timeout=TIMEOUT, max_elements=MAX_ELEMENTS, max_memory=MAX_MEMORY)
    error = None if report.error is None else (report.error.type, report.error.message)
    over = [f"{name} owns {_owned_elements(v):,} elements" for name, v in session.globals.items()
            if _owned_elements(v) > MAX_ELEMENTS]
    return error, over


def check(case):
    """One case as `gradcli run --timeout` and `gradcli test` run it: in the watchdog's child."""
    src = _script(*case)
    t0 = time.monotonic()
    kind, value = watchdog.in_child(TIMEOUT, lambda: _run(src), MAX_MEMORY)
    elapsed = time.monotonic() - t0
    assert elapsed < 2 * TIMEOUT + 6, f"{elapsed:.1f} s for\n{src}"
    assert kind in ("done", "stopped"), f"{kind}: {value}\n{src}"
    if kind == "done":
        error, over = value
        assert error is None or error[0] in ALLOWED, f"{error}\n{src}"
        assert not over, f"{over}\n{src}"


@seed(21_0001 + EXTRA_SEED)
@_settings(300)
@given(case=huge_cases())
def test_huge_inputs_stay_within_the_limits(case):
    check(case)
