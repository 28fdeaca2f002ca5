"""PyTorch's CPU random numbers, bit for bit: every case runs the same code with `torch` bound
to real PyTorch 2.13 and to gradcli's torch, and compares the values drawn (dtype, shape and
bytes), the error raised (type and text) and the default generator's whole state afterwards
(so that the next call would draw the same numbers too)."""
from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import warnings

import numpy as np
import pytest
import torch
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import gradcli.torch as G

pytestmark = pytest.mark.timeout(300)


def _observe(value):
    if isinstance(value, torch.Tensor):
        a = value.detach().numpy()
        return ("tensor", str(value.dtype), tuple(a.shape), np.ascontiguousarray(a).tobytes(), value.requires_grad,
                type(value.grad_fn).__name__ if value.grad_fn is not None else None)
    if isinstance(value, G.Tensor):
        a = value._data
        return ("tensor", str(value.dtype), tuple(a.shape), np.ascontiguousarray(a).tobytes(), value.requires_grad,
                type(value.grad_fn).__name__ if value.grad_fn is not None else None)
    if isinstance(value, (list, tuple)):
        return [_observe(v) for v in value]
    if isinstance(value, (torch.Generator, G.Generator)):
        return "generator"
    return value


def run(lib, src):
    """Run src with `torch` = lib (its default generator first seeded with 0, so that each
    case stands alone); what it leaves in `out`, or the error, and the state."""
    lib.manual_seed(0)
    ns = {"torch": lib}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            exec(textwrap.dedent(src), ns)
            result = _observe(ns.get("out"))
        except Exception as e:        # the error is part of the behaviour compared
            result = ("error", type(e).__name__, str(e))
    return result, _observe(lib.get_rng_state())


def assert_same(src):
    expected, got = run(torch, src), run(G, src)
    if expected != got:
        lines = [f"differs for:\n{textwrap.dedent(src)}"]
        for what, e, g in (("result", expected[0], got[0]), ("state", expected[1], got[1])):
            if e != g:
                lines.append(f"{what}: torch {str(e)[:400]}\n{' ' * len(what)}  gradcli {str(g)[:400]}")
        raise AssertionError("\n".join(lines))


# ----------------------------------------------------------------------------- the generator


def test_seeding_matches_on_thousands_of_seeds():
    """mt19937 seeding and its first block of words: state bytes and a draw of every kind."""
    rng = np.random.default_rng(1234)
    seeds = list(range(1000)) + [int(s) for s in rng.integers(0, 2 ** 63, 1000, dtype=np.int64)] + [
        2 ** 32 - 1, 2 ** 32, 2 ** 64 - 1, 67280421310721, -1, -2 ** 63]
    src = """
    out = []
    for s in SEEDS:
        torch.manual_seed(s)
        out.append((torch.get_rng_state(), torch.randint(0, 2 ** 31, (3,)), torch.rand(2, dtype=torch.float64)))
    """
    assert_same(src.replace("SEEDS", repr(seeds)))


@pytest.mark.parametrize("seed", [torch.tensor(3), 1.5, 2.7, True, "12", torch.tensor([4]), torch.tensor(2.5), -1,
                                  2 ** 64 - 1, 2 ** 64, -2 ** 63, -2 ** 63 - 1, None, float("nan"), float("inf"),
                                  torch.tensor([1, 2]), 3 + 0j])
def test_manual_seed_accepts_and_refuses_like_torch(seed):
    """torch.manual_seed converts with int() first: tensors, floats and strings are accepted."""
    src = """
    g = torch.manual_seed(SEED)
    out = [g is torch.default_generator, torch.initial_seed(), torch.rand(2)]
    """
    text = repr(seed).replace("tensor", "torch.tensor")
    assert_same(src.replace("SEED", text))


@pytest.mark.parametrize("seed", ["1.5", "True", "None", "-1", "2 ** 64", "-2 ** 63 - 1", "torch.tensor(3)", "'3'",
                                  "seed=5"])
def test_generator_manual_seed_takes_only_ints(seed):
    assert_same(f"g = torch.Generator(); out = [g.manual_seed({seed}) is g, g.initial_seed(), torch.rand(2, generator=g)]")


def test_generator_objects_have_their_own_streams():
    assert_same("""
    torch.manual_seed(7)
    g = torch.Generator()
    h = torch.Generator().manual_seed(7)
    out = [g.initial_seed(), str(g.device), torch.rand(3, generator=g), torch.rand(3), torch.rand(3, generator=h),
           torch.randn(20, generator=g), torch.randint(0, 9, (4,), generator=h), torch.randperm(6, generator=g),
           torch.empty(5).normal_(generator=h), torch.empty(3).uniform_(generator=g), g.get_state(), h.get_state()]
    """)


def test_state_round_trips_and_keeps_the_cached_normal():
    """get_state after an odd serial normal holds the cached second sample; set_state restores
    it, in the same generator or another."""
    assert_same("""
    torch.manual_seed(3)
    torch.randn(3, dtype=torch.float64)
    s = torch.get_rng_state()
    a = torch.randn(5)
    torch.set_rng_state(s)
    b = torch.randn(5)
    g = torch.Generator()
    g.set_state(s)
    out = [s, a, b, torch.randn(5, generator=g), g.get_state(), g.initial_seed()]
    """)


@pytest.mark.parametrize("state", ["torch.zeros(5056)", "torch.zeros(10, dtype=torch.uint8)",
                                   "torch.zeros(5056, dtype=torch.uint8)", "[1, 2]", "5",
                                   "torch.zeros(2, 2528, dtype=torch.uint8)", "torch.get_rng_state()[::2]",
                                   "torch.get_rng_state().reshape(2, 2528)"])
def test_set_state_refuses_bad_states(state):
    assert_same(f"torch.manual_seed(1); torch.set_rng_state({state}); out = torch.rand(3)")


@pytest.mark.parametrize("call", ["clone_state()", "get_offset()", "set_offset(3)", "graphsafe_get_state()",
                                  "graphsafe_set_state(g)"])
def test_generator_clone_and_offsets(call):
    assert_same(f"""
    g = torch.Generator().manual_seed(3)
    torch.randn(5, dtype=torch.float64, generator=g)
    c = g.{call}
    out = [torch.randn(3, dtype=torch.float64, generator=c), torch.randn(3, dtype=torch.float64, generator=g),
           c.initial_seed(), c.get_state()]
    """)


def test_fork_rng_restores_the_stream():
    assert_same("""
    torch.manual_seed(5)
    with torch.random.fork_rng():
        a = torch.randn(4)
    out = [a, torch.randn(4), torch.random.initial_seed()]
    """)


def test_seed_reseeds_from_the_system():
    """torch.seed() and Generator.seed() pick a fresh 64-bit seed that initial_seed reports."""
    for lib in (torch, G):
        s = lib.seed()
        assert 0 <= s < 2 ** 64 and lib.initial_seed() == s
        g = lib.Generator()
        assert g.seed() == g.initial_seed() != s
        assert int.from_bytes(bytes(g.get_state().tolist()[:8]), "little") == g.initial_seed()


def test_default_stream_starts_from_a_random_seed():
    """Without manual_seed, each process's default generator starts from a fresh random seed
    (as PyTorch's does); a new torch.Generator starts from PyTorch's fixed default seed."""
    code = "from gradcli import torch; print(torch.initial_seed(), torch.rand(1).item())"
    env = dict(os.environ, PYTHONPATH=os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    runs = {subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env).stdout
            for _ in range(2)}
    assert len(runs) == 2
    assert G.Generator().initial_seed() == torch.Generator().initial_seed() == 67280421310721

# ----------------------------------------------------------------------------- factories

SIZES = [0, 1, 2, 15, 16, 17, 31, 33, 100, 1000, 5003, 70001]
FLOATS = ["torch.float32", "torch.float64", "torch.float16"]


@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("dtype", FLOATS)
def test_rand_and_randn(n, dtype):
    assert_same(f"""
    torch.manual_seed({n})
    out = [torch.rand({n}, dtype={dtype}), torch.randn({n}, dtype={dtype}), torch.randn({n}, dtype={dtype}),
           torch.rand({n}, dtype={dtype})]
    """)


def test_portable_kernels_without_avx2():
    """ATEN_CPU_CAPABILITY=default makes PyTorch use its portable normal_fill (the C library's
    logf, cosf, sinf), as on machines without AVX2; gradcli follows the same setting."""
    code = textwrap.dedent("""
        import sys
        if sys.argv[1] == "gradcli":
            from gradcli import torch
        else:
            import torch
        torch.manual_seed(24)
        for t in (torch.randn(16), torch.randn(17), torch.randn(1000), torch.empty(333).normal_(1.5, 0.7),
                  torch.randn(40, dtype=torch.float16), torch.randn(3, dtype=torch.float64)):
            print(t.numpy().tobytes().hex() if sys.argv[1] == "torch" else t._data.tobytes().hex())
    """)
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    env = dict(os.environ, ATEN_CPU_CAPABILITY="default", PYTHONPATH=root)
    out = [subprocess.run([sys.executable, "-c", code, lib], capture_output=True, text=True, env=env, check=True).stdout
           for lib in ("torch", "gradcli")]
    assert out[0] == out[1]


@pytest.mark.parametrize("shape", ["()", "(0, 3)", "(3, 5)", "(2, 3, 4)", "[4, 4]", "(16,)", "(1, 17)"])
def test_factory_shapes(shape):
    assert_same(f"""
    torch.manual_seed(9)
    out = [torch.rand({shape}), torch.randn({shape}), torch.randint(5, {shape}), torch.normal(0., 1., {shape}),
           torch.rand(*{shape}) if isinstance({shape}, tuple) else None]
    """)


@pytest.mark.parametrize("args", ["10, (5,)", "-3, 2 ** 40, (3, 4)", "0, 2 ** 28, (9,)", "0, 2 ** 28 - 1, (9,)",
                                  "3, 9, (6,), dtype=torch.int32", "2, (7,), dtype=torch.bool",
                                  "0, 2 ** 33, (3,), dtype=torch.float32", "5, (300,), dtype=torch.float64",
                                  "-7, 7, (40,), dtype=torch.int8", "0, 256, (40,), dtype=torch.uint8",
                                  "5, 3, (2,)", "0, 10, (2,), requires_grad=True",
                                  "0, 10, (2,), dtype=torch.float32, requires_grad=True",
                                  "low=2, high=5, size=(3,)", "-2 ** 63, 2 ** 63 - 1, (4,)"])
def test_randint(args):
    assert_same(f"torch.manual_seed(11); out = [torch.randint({args}), torch.randint({args})]")


@pytest.mark.parametrize("n", [0, 1, 2, 5, 100, 1000, 30000])
def test_randperm(n):
    assert_same(f"torch.manual_seed(12); out = [torch.randperm({n}), torch.randperm({n}, dtype=torch.float32)]")


@pytest.mark.parametrize("call", ["torch.randperm(-1)", "torch.randperm(300, dtype=torch.uint8)",
                                  "torch.randperm(5, dtype=torch.bool)", "torch.randperm(3, requires_grad=True)",
                                  "torch.randperm(256, dtype=torch.uint8)",
                                  "torch.randperm(4, dtype=torch.float64, requires_grad=True)",
                                  "torch.randperm(2049, dtype=torch.float16)", "torch.randperm(2050, dtype=torch.float16)",
                                  "torch.randperm(2 ** 24 + 2, dtype=torch.float32)",
                                  "torch.randperm(129, dtype=torch.int8)", "torch.randperm(128, dtype=torch.int8)"])
def test_randperm_edges(call):
    assert_same(f"torch.manual_seed(12); out = {call}")


@pytest.mark.parametrize("call", [
    "torch.normal(m, s)", "torch.normal(m, 0.5)", "torch.normal(2.0, s)", "torch.normal(m.double(), s)",
    "torch.normal(m, s.double())", "torch.normal(2.0, 3.0, (5, 4))", "torch.normal(m)", "torch.normal(big, 2.0)",
    "torch.normal(2.0, 3.0, size=(40,), dtype=torch.float64)", "torch.normal(m, -1.0)",
    "torch.normal(1.0, torch.tensor([-1.0]))", "torch.normal(torch.ones(2, 1), torch.ones(3))",
    "torch.normal(torch.ones(2), torch.ones(3))", "torch.normal(torch.ones(2, dtype=torch.int64), 1.0)",
    "torch.normal(m.t(), 1.0)", "torch.normal(2.0, 3.0)"])
def test_normal_overloads(call):
    assert_same(f"""
    torch.manual_seed(13)
    m = torch.rand(3, 4); s = torch.rand(4); big = torch.rand(40)
    out = [{call}, torch.rand(2)]
    """)


@pytest.mark.parametrize("call", [
    "torch.multinomial(p, 3)", "torch.multinomial(p, 1)", "torch.multinomial(p, 7, replacement=True)",
    "torch.multinomial(p[0], 5)", "torch.multinomial(p.t(), 2)", "torch.multinomial(p.double(), 4, True)",
    "torch.multinomial(p[0], 1, True)", "p.multinomial(2)", "torch.multinomial(p, 6)",
    "torch.multinomial(p, 0)", "torch.multinomial(torch.tensor([1, 2]), 1)", "torch.multinomial(p[0, :0], 1)",
    "torch.multinomial(torch.tensor([0.2, -0.1]), 1, True)", "torch.multinomial(torch.tensor([0.2, float('inf')]), 1, True)",
    "torch.multinomial(torch.tensor([0.2, float('nan')]), 1, True)", "torch.multinomial(torch.tensor([0., 0.]), 1, True)",
    "torch.multinomial(torch.tensor([[0.5, 0.5], [0.2, -1.]]), 3, True)", "torch.multinomial(torch.tensor([0.2, -0.1]), 1)",
    "torch.multinomial(torch.tensor([0., 0.]), 1)", "torch.multinomial(torch.rand(2, 3, 4), 1)",
    "torch.multinomial(torch.rand(2, 300), 200, True)", "torch.multinomial(torch.rand(50), 50)"])
def test_multinomial(call):
    assert_same(f"torch.manual_seed(14); p = torch.rand(3, 5); out = [{call}, torch.rand(2)]")


@pytest.mark.parametrize("n_cat", [6, 40, 2000])
def test_multinomial_without_replacement_past_the_nonzero_categories(n_cat):
    """Zero-probability categories tie (p / q = 0): their order is what PyTorch's topk (the
    C++ library's nth_element and sort, or partial_sort for k * 64 <= n) leaves."""
    assert_same(f"""
    torch.manual_seed(23)
    p = torch.zeros(3, {n_cat}); p[:, 1] = 1; p[0, -1] = 2; p[2, ::5] = 0.5
    out = [torch.multinomial(p, k) for k in sorted({{2, 3, 5, {n_cat} // 64, {n_cat} // 64 + 1, {n_cat} // 2, {n_cat}}})
           if k > 0]
    """)


@pytest.mark.parametrize("call", [
    "torch.bernoulli(torch.rand(n))", "torch.bernoulli(torch.rand(n, dtype=torch.float64))",
    "torch.bernoulli(torch.rand(n), 0.3)", "torch.rand(n).bernoulli()", "torch.rand(n).bernoulli(0.7)",
    "torch.bernoulli(torch.rand(n).reshape(-1, 1).t())", "torch.bernoulli(torch.tensor([0.5, 2.0]))",
    "torch.bernoulli(torch.tensor([1, 0]))", "torch.bernoulli(torch.rand(n), 1.5)"])
@pytest.mark.parametrize("n", [1, 17, 1000])
def test_bernoulli(call, n):
    assert_same(f"torch.manual_seed(15); n = {n}; out = [{call}, torch.rand(2)]")


@pytest.mark.parametrize("like", ["rand_like(x)", "randn_like(x)", "randint_like(x, 10)", "randint_like(x, -3, 3)",
                                  "rand_like(x, dtype=torch.float64)", "randn_like(x.double())",
                                  "randint_like(x, 5, dtype=torch.int64)", "rand_like(x, requires_grad=True)",
                                  "randn_like(torch.ones(3, 40).t())", "rand_like(torch.ones(2, dtype=torch.int64))",
                                  "rand_like(x, generator=torch.Generator().manual_seed(2))",
                                  "randn_like(x, generator=torch.Generator().manual_seed(2))",
                                  "randint_like(x, 4, generator=torch.Generator().manual_seed(2))"])
def test_like_factories(like):
    assert_same(f"torch.manual_seed(16); x = torch.ones(3, 7); out = [torch.{like}, torch.rand(2)]")

# ----------------------------------------------------------------------------- in place

LAYOUTS = {
    "contiguous": "torch.empty(SHAPE, dtype=DT)",
    "transposed": "torch.empty(SHAPE, dtype=DT).t()",
    "sliced": "torch.empty(SHAPE, dtype=DT)[:, ::2]",
    "permuted": "torch.empty(2, SHAPE, dtype=DT).permute(2, 0, 1)",
}
METHODS = ["uniform_()", "uniform_(-2.5, 3.25)", "normal_()", "normal_(1.5, 0.25)", "random_()", "random_(7)",
           "random_(-5, 9)", "random_(3, None)", "bernoulli_()", "bernoulli_(0.2)", "exponential_()",
           "exponential_(0.37)", "cauchy_()", "cauchy_(1.5, 0.3)", "log_normal_()", "log_normal_(0.5, 0.3)",
           "geometric_(0.4)", "bernoulli_(torch.rand(LAST))", "bernoulli_(torch.rand(LAST, dtype=torch.float64))"]


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dtype", ["torch.float32", "torch.float64", "torch.int64", "torch.float16"])
@pytest.mark.parametrize("shape", [(3, 5), (4, 16), (40, 25)])
def test_inplace_methods(method, layout, dtype, shape):
    make = LAYOUTS[layout].replace("SHAPE", ", ".join(map(str, shape))).replace("DT", dtype)
    last = {"contiguous": shape[1], "transposed": shape[0], "sliced": (shape[1] + 1) // 2, "permuted": shape[0]}
    call = method.replace("LAST", str(last[layout]))
    assert_same(f"torch.manual_seed(17); t = {make}; r = t.{call}; out = [t, r is t, t.is_contiguous(), torch.rand(2)]")


@pytest.mark.parametrize("method", METHODS + ["normal_(0, -1)", "uniform_(1, 0)", "exponential_(-1)", "random_(3, 1)"])
@pytest.mark.parametrize("dtype", ["torch.float32", "torch.int64", "torch.bool"])
def test_inplace_methods_on_empty_tensors(method, dtype):
    """An empty tensor skips the kernel: some checks still run, the dtype's sometimes not."""
    call = method.replace("LAST", "0")
    assert_same(f"torch.manual_seed(25); t = torch.empty(2, 0, dtype={dtype}); out = [t.{call}, torch.rand(2)]")


@pytest.mark.parametrize("method", ["uniform_()", "normal_()", "random_()", "random_(3)", "random_(0, 2)",
                                    "bernoulli_(0.5)", "bernoulli_(torch.full((4,), 0.5))", "exponential_()",
                                    "geometric_(0.5)"])
@pytest.mark.parametrize("dtype", ["torch.int32", "torch.int16", "torch.int8", "torch.uint8", "torch.bool"])
def test_inplace_methods_on_integer_dtypes(method, dtype):
    assert_same(f"torch.manual_seed(18); t = torch.empty(4, dtype={dtype}); out = [t.{method}, torch.rand(2)]")


@pytest.mark.parametrize("call", [
    "uniform_(2, 1)", "uniform_(0, float('inf'))", "uniform_(-3e38, 3e38)", "uniform_(1, 1)", "normal_(0, -1)",
    "normal_(0, 0)", "random_(5, 3)", "random_(0, 2 ** 40)", "random_(-70000, 70000)", "random_(2.5)",
    "bernoulli_(1.5)", "bernoulli_(-0.1)", "exponential_(0)", "exponential_(-1.5)", "exponential_(float('inf'))",
    "cauchy_(0, 0)", "log_normal_(0, 0)", "geometric_(1)", "geometric_(0)", "bernoulli_(torch.rand(3, 2))",
    "bernoulli_(torch.tensor([0.5, 0.5, 2.0, 0.5, 0.5]))", "random_(-2 ** 63, None)", "random_(0, None)",
    "random_(to=3)"])
@pytest.mark.parametrize("dtype", ["torch.float32", "torch.float16", "torch.int64", "torch.int16"])
def test_inplace_checks(call, dtype):
    assert_same(f"torch.manual_seed(19); t = torch.empty(5, dtype={dtype}); out = [t.{call}, torch.rand(2)]")


@pytest.mark.parametrize("call", ["normal_(0, float('nan'))", "normal_(0, -1e6)", "normal_(0, -123456789.0)",
                                  "exponential_(-0.000012345678)", "uniform_(5e6, 1e6)", "bernoulli_(float('nan'))",
                                  "geometric_(float('inf'))", "cauchy_(0, -2.5e-300)", "log_normal_(0, -0.0)"])
def test_messages_print_numbers_as_cpp_does(call):
    assert_same(f"t = torch.empty(3); out = t.{call}")


@pytest.mark.parametrize("method", ["uniform_()", "normal_()", "random_()", "random_(5)", "random_(1, 5)",
                                    "bernoulli_()", "bernoulli_(torch.full((3,), 0.5))", "exponential_()",
                                    "cauchy_()", "log_normal_()", "geometric_(0.5)"])
def test_inplace_autograd(method):
    """A leaf that requires grad refuses; a non-leaf gets the op's node with a zero gradient;
    a view's base gets CopySlices; under no_grad the leaf is filled."""
    assert_same(f"""
    torch.manual_seed(20)
    x = torch.ones(3, requires_grad=True)
    try:
        x.{method}
        refused = None
    except RuntimeError as e:
        refused = str(e)
    y = x * 2
    y.{method}
    node = type(y.grad_fn).__name__
    edges = [type(f).__name__ if f is not None else None for f, _ in y.grad_fn.next_functions]
    y.sum().backward()
    v = (x * 2)[1:]
    v.{method.replace("(3,)", "(2,)")}
    with torch.no_grad():
        x.{method}
    out = [refused, node, edges, x.grad, type(v.grad_fn).__name__, type(v._base.grad_fn).__name__, x]
    """)


def test_bernoulli_with_a_number_p_has_no_derivative():
    """bernoulli(x, p) records PyTorch's NotImplemented node, which fails in backward."""
    assert_same("""
    torch.manual_seed(22)
    x = torch.tensor([0.3, 0.6], requires_grad=True)
    y = torch.bernoulli(x, 0.5)
    try:
        y.sum().backward()
        err = None
    except RuntimeError as e:
        err = str(e)
    out = [y, type(y.grad_fn).__name__, err, x.bernoulli(0.3), x.grad]
    """)


def test_factory_results_are_leaves():
    assert_same("""
    torch.manual_seed(21)
    a = torch.rand(3, requires_grad=True)
    b = torch.randn(2, 2, dtype=torch.float64, requires_grad=True)
    m = torch.rand(3, requires_grad=True)
    c = torch.normal(m, 1.0)
    c.sum().backward()
    d = torch.normal(m, torch.rand(2, 3, requires_grad=True))
    d.sum().backward()
    e = torch.bernoulli(m)
    e.sum().backward()
    out = [a, a.is_leaf, b, c, m.grad, d, e, [type(f).__name__ for f, _ in d.grad_fn.next_functions]]
    """)

# ----------------------------------------------------------------------------- call sequences

_CALLS = [
    "torch.rand({n})", "torch.randn({n})", "torch.rand({n}, dtype=torch.float64)", "torch.randn({n}, dtype=torch.float64)",
    "torch.randint(-4, 2 ** {b}, ({n},))", "torch.randperm({n})", "torch.empty({n}).normal_(0.5, 2.0)",
    "torch.empty({n}, dtype=torch.float64).normal_()", "torch.empty(2, {n}).t().normal_()",
    "torch.empty({n}).uniform_(-1, 2)", "torch.empty({n}, dtype=torch.int64).random_()",
    "torch.empty({n}).exponential_()", "torch.empty({n}).bernoulli_(0.3)", "torch.bernoulli(torch.rand({n}))",
    "torch.multinomial(torch.rand({n}) + 0.01, 1)", "torch.multinomial(torch.rand({n}) + 0.01, 3, True)",
    "torch.empty({n}).log_normal_()", "torch.normal(torch.zeros({n}), 1.0)", "torch.randn({n}, dtype=torch.float16)",
    "torch.get_rng_state()", "torch.set_rng_state(torch.get_rng_state())", "torch.manual_seed({b})",
    "torch.empty({n}, dtype=torch.float16).uniform_(-1, {b})", "torch.empty(3, {n}).t().exponential_(2.0)",
    "torch.empty({n}, dtype=torch.int32).random_(-{b}, 2 ** {b})", "torch.empty({n}).cauchy_()",
    "torch.empty({n}, dtype=torch.int64).geometric_(0.3)", "torch.empty(2, {n}, dtype=torch.float64)[:, ::2].normal_()",
    "torch.multinomial(torch.rand(3, {n}) * (torch.rand(3, {n}) > 0.5), 1 + {n} // 3)",
    "torch.randint_like(torch.ones(2, {n}).t(), {b})", "torch.randn_like(torch.ones(2, {n}).t())"]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 2 ** 64 - 1),
       st.lists(st.tuples(st.sampled_from(_CALLS), st.sampled_from([1, 2, 3, 15, 16, 17, 40, 700]),
                          st.integers(1, 40)), min_size=1, max_size=12))
def test_random_call_sequences(seed, calls):
    """Any order of calls leaves both streams at the same place with the same values."""
    body = "\n".join(f"out.append({c.format(n=n, b=b)})" for c, n, b in calls)
    assert_same(f"torch.manual_seed({seed})\nout = []\n{body}\n")

# ----------------------------------------------------------------------------- scripts


def test_script_with_seeded_model_prints_what_torch_prints():
    """A whole script through `gradcli run`'s interpreter: seeded weights, generators,
    torch.random and in-place initialisation, printed and backpropagated."""
    from oracle import assert_same as assert_same_script
    assert_same_script(textwrap.dedent("""
        import torch
        torch.manual_seed(0)
        w = torch.empty(4, 3).uniform_(-0.5, 0.5).requires_grad_()
        b = torch.randn(4, requires_grad=True)
        g = torch.Generator().manual_seed(7)
        x = torch.randn(5, 3, generator=g)
        y = (x @ w.t() + b).relu().sum()
        y.backward()
        print(w, b, x, y, w.grad, b.grad)
        s = torch.get_rng_state()
        print(torch.randint(0, 10, (6,)), torch.randperm(6), torch.multinomial(torch.tensor([0.1, 0.9]), 4, True))
        torch.set_rng_state(s)
        print(torch.randint(0, 10, (6,)), g.initial_seed(), torch.initial_seed())
        torch.random.manual_seed(3)
        with torch.random.fork_rng():
            a = torch.rand(2)
        print(a, torch.rand(2), torch.bernoulli(torch.full((4,), 0.5)), torch.normal(torch.zeros(3), 1.0))
    """))


@pytest.mark.parametrize("calls", [
    "torch.multinomial(p, 3, True), torch.multinomial(p, 3), torch.multinomial(p[0], 1)",
    "torch.bernoulli(p), torch.empty(3, 7).bernoulli_(p), torch.empty(3, 7, dtype=torch.float16).bernoulli_(p.float())",
    "torch.normal(p, 1.0), torch.normal(0.5, p), torch.randperm(10, dtype=torch.float16), "
    "torch.randint(0, 100, (5,), dtype=torch.float16)",
    "torch.empty(5, dtype=torch.float16).random_(), torch.empty(5, dtype=torch.float16).random_(-100, 100), "
    "torch.empty(7, dtype=torch.float16).log_normal_(), torch.empty(7, dtype=torch.float16).cauchy_()"])
def test_half_precision_inputs(calls):
    assert_same(f"torch.manual_seed(26); p = torch.rand(3, 7).to(torch.float16); out = [{calls}]")
