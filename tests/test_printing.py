"""Tests for gradcli.engine.printing: hand-picked examples checked against torch, plus a random oracle vs torch."""
import importlib.util
import math
import pathlib

import numpy as np

# Load the module by path so these tests do not depend on the package's __init__.
_PATH = pathlib.Path(__file__).resolve().parents[1] / "gradcli" / "engine" / "printing.py"
_spec = importlib.util.spec_from_file_location("gradcli_printing_under_test", _PATH)
printing = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(printing)
format_tensor, format_item = printing.format_tensor, printing.format_item

inf, nan = math.inf, math.nan
RG = "requires_grad=True"
MUL = "grad_fn=<MulBackward0>"


def t(values, dtype=None, *suffixes):
    """Like torch.tensor(values, dtype=...) printed: float32 for floats, int64 for ints."""
    a = np.array(values)
    if dtype is None:
        dtype = {"f": "float32", "i": "int64", "b": "bool"}[a.dtype.kind]
    return format_tensor(a.astype(dtype), dtype, list(suffixes))


def arange(n, dtype="float32", shape=None, *suffixes):
    a = np.arange(n).astype(dtype)
    return format_tensor(a.reshape(shape or a.shape), dtype, list(suffixes))


# ----------------------------------------------------------------------------- (a) hand-picked examples
SCALAR_AND_VECTOR_CASES = [
    (t(2.), "tensor(2.)"), (t(2.5), "tensor(2.5000)"), (t(-0.5), "tensor(-0.5000)"),
    (t(0.), "tensor(0.)"), (t(-0.), "tensor(-0.)"),
    (t(1e-5), "tensor(1.0000e-05)"), (t(1e5), "tensor(100000.)"), (t(123456.7), "tensor(123456.7031)"),
    (t(0.1234567), "tensor(0.1235)"), (t(1e-4), "tensor(1.0000e-04)"), (t(1e8), "tensor(100000000.)"),
    (t(1e9), "tensor(1.0000e+09)"), (t(inf), "tensor(inf)"), (t(nan), "tensor(nan)"),
    (t(-inf), "tensor(-inf)"), (t(12345678.), "tensor(12345678.)"), (t(-0.00001), "tensor(-1.0000e-05)"),
    (t(2., None, RG), "tensor(2., requires_grad=True)"),
    (t(2., "float64"), "tensor(2., dtype=torch.float64)"),
    (t(2.5, "float64", RG), "tensor(2.5000, dtype=torch.float64, requires_grad=True)"),
    (t(2), "tensor(2)"), (t(-7), "tensor(-7)"), (t(True), "tensor(True)"),
    (t([2., 2.]), "tensor([2., 2.])"), (t([1., 2.5]), "tensor([1.0000, 2.5000])"),
    (t([-1., 2.]), "tensor([-1.,  2.])"), (t([-1.5, 2.]), "tensor([-1.5000,  2.0000])"),
    (t([-0., 0.]), "tensor([-0., 0.])"), (t([0., 0.]), "tensor([0., 0.])"),
    (t([1e-5, 1.]), "tensor([1.0000e-05, 1.0000e+00])"), (t([1e5, 1.]), "tensor([1.0000e+05, 1.0000e+00])"),
    (t([1e5, 2e5]), "tensor([100000., 200000.])"), (t([123456.7, 1.]), "tensor([1.2346e+05, 1.0000e+00])"),
    (t([0.1234567, 100.]), "tensor([  0.1235, 100.0000])"), (t([1e-3, 1.]), "tensor([0.0010, 1.0000])"),
    (t([1., 1000.]), "tensor([   1., 1000.])"), (t([1., 1001.]), "tensor([1.0000e+00, 1.0010e+03])"),
    (t([1.5, 1500.]), "tensor([   1.5000, 1500.0000])"), (t([0.00012]), "tensor([0.0001])"),
    (t([1e-4]), "tensor([1.0000e-04])"), (t([99999999.]), "tensor([100000000.])"),
    (t([1.1e8]), "tensor([1.1000e+08])"), (t([inf, -inf, nan]), "tensor([inf, -inf, nan])"),
    (t([nan, 1e-5]), "tensor([       nan, 1.0000e-05])"), (t([1e-5, 0.]), "tensor([1.0000e-05, 0.0000e+00])"),
    (t([1e-5, -1.]), "tensor([ 1.0000e-05, -1.0000e+00])"),
    (t([0.5, 10.25, -300.125]), "tensor([   0.5000,   10.2500, -300.1250])"),
    (t([-inf, 1.]), "tensor([-inf, 1.])"), (t([inf, 1.]), "tensor([inf, 1.])"),
    (t([inf, 2.5]), "tensor([   inf, 2.5000])"), (t([0., 1e5]), "tensor([     0., 100000.])"),
    (t([-inf, 1.5]), "tensor([  -inf, 1.5000])"), (t([nan, 100.]), "tensor([ nan, 100.])"),
    (t([0., -1.5]), "tensor([ 0.0000, -1.5000])"), (t([[0.]]), "tensor([[0.]])"),
    (t([1e-100], "float64"), "tensor([1.0000e-100], dtype=torch.float64)"),
    (t([1e100, 1.], "float64"), "tensor([1.0000e+100,  1.0000e+00], dtype=torch.float64)"),
    (t([1e-5, 1e300], "float64"), "tensor([ 1.0000e-05, 1.0000e+300], dtype=torch.float64)"),
    (t([1234.5678]), "tensor([1234.5677])"), (t([1e4 + 0.5, 1.5]), "tensor([1.0000e+04, 1.5000e+00])"),
    (t([1, 2, 3]), "tensor([1, 2, 3])"), (t([-1, 100]), "tensor([ -1, 100])"),
    (t([1, 2], "int32"), "tensor([1, 2], dtype=torch.int32)"),
    (t([True, False]), "tensor([ True, False])"),
    (t([1., 2.], "float16"), "tensor([1., 2.], dtype=torch.float16)"),
    (t([1, 2], "uint8"), "tensor([1, 2], dtype=torch.uint8)"),
    (t([123456789012, 1]), "tensor([123456789012,            1])"),
    (t([0.5, 0.5, 0.5], None, MUL), "tensor([0.5000, 0.5000, 0.5000], grad_fn=<MulBackward0>)"),
    (t([2., 4.], None, MUL), "tensor([2., 4.], grad_fn=<MulBackward0>)"),
    (t(5., None, "grad_fn=<SumBackward0>"), "tensor(5., grad_fn=<SumBackward0>)"),
    (t([1., 2.], None, RG), "tensor([1., 2.], requires_grad=True)"),
    (format_tensor(np.zeros(0, np.float32), "float32"), "tensor([])"),
    (format_tensor(np.zeros((2, 0), np.float32), "float32"), "tensor([], size=(2, 0))"),
    (format_tensor(np.zeros((0, 3), np.float32), "float32"), "tensor([], size=(0, 3))"),
    (format_tensor(np.zeros(0, np.int64), "int64"), "tensor([], dtype=torch.int64)"),
    (format_tensor(np.zeros(0, np.int32), "int32"), "tensor([], dtype=torch.int32)"),
    (format_tensor(np.zeros(0, bool), "bool"), "tensor([], dtype=torch.bool)"),
    (format_tensor(np.zeros(0, np.float64), "float64"), "tensor([], dtype=torch.float64)"),
    (format_tensor(np.zeros(0, np.float32), "float32", [RG]), "tensor([], requires_grad=True)"),
    (format_tensor(np.zeros((2, 0)), "float64", [RG]),
     "tensor([], size=(2, 0), dtype=torch.float64, requires_grad=True)"),
    (arange(2000, "int64"), "tensor([   0,    1,    2,  ..., 1997, 1998, 1999])"),
    (format_tensor(np.ones(1001, bool), "bool"), "tensor([True, True, True,  ..., True, True, True])"),
    (arange(1001), "tensor([   0.,    1.,    2.,  ...,  998.,  999., 1000.])"),
]

MULTILINE_CASES = [
    (t([[1.5, -2.], [300., 4.25]]),
     "tensor([[  1.5000,  -2.0000],\n"
     "        [300.0000,   4.2500]])"),
    (arange(24, "float32", (2, 3, 4)),
     "tensor([[[ 0.,  1.,  2.,  3.],\n"
     "         [ 4.,  5.,  6.,  7.],\n"
     "         [ 8.,  9., 10., 11.]],\n"
     "\n"
     "        [[12., 13., 14., 15.],\n"
     "         [16., 17., 18., 19.],\n"
     "         [20., 21., 22., 23.]]])"),
    (arange(30),
     "tensor([ 0.,  1.,  2.,  3.,  4.,  5.,  6.,  7.,  8.,  9., 10., 11., 12., 13.,\n"
     "        14., 15., 16., 17., 18., 19., 20., 21., 22., 23., 24., 25., 26., 27.,\n"
     "        28., 29.])"),
    (arange(2000, "float32", (2, 1000)),
     "tensor([[0.0000e+00, 1.0000e+00, 2.0000e+00,  ..., 9.9700e+02, 9.9800e+02,\n"
     "         9.9900e+02],\n"
     "        [1.0000e+03, 1.0010e+03, 1.0020e+03,  ..., 1.9970e+03, 1.9980e+03,\n"
     "         1.9990e+03]])"),
    (arange(11, "float32", None, RG),
     "tensor([ 0.,  1.,  2.,  3.,  4.,  5.,  6.,  7.,  8.,  9., 10.],\n"
     "       requires_grad=True)"),
    (arange(15, "float32", None, MUL),
     "tensor([ 0.,  1.,  2.,  3.,  4.,  5.,  6.,  7.,  8.,  9., 10., 11., 12., 13.,\n"
     "        14.], grad_fn=<MulBackward0>)"),
    (arange(12, "float64", None, MUL),
     "tensor([ 0.,  1.,  2.,  3.,  4.,  5.,  6.,  7.,  8.,  9., 10., 11.],\n"
     "       dtype=torch.float64, grad_fn=<MulBackward0>)"),
    (arange(10, "float32", None, MUL),
     "tensor([0., 1., 2., 3., 4., 5., 6., 7., 8., 9.], grad_fn=<MulBackward0>)"),
    (t([[True], [False]]), "tensor([[ True],\n        [False]])"),
    (format_tensor(np.zeros((2, 1, 3), np.float32), "float32"),
     "tensor([[[0., 0., 0.]],\n\n        [[0., 0., 0.]]])"),
    (format_tensor(np.arange(12, dtype=np.float32).reshape(1, 12) * 1000, "float32"),
     "tensor([[    0.,  1000.,  2000.,  3000.,  4000.,  5000.,  6000.,  7000.,  8000.,\n"
     "          9000., 10000., 11000.]])"),
    (arange(1200, "float32", (40, 30)),
     "tensor([[0.0000e+00, 1.0000e+00, 2.0000e+00,  ..., 2.7000e+01, 2.8000e+01,\n"
     "         2.9000e+01],\n"
     "        [3.0000e+01, 3.1000e+01, 3.2000e+01,  ..., 5.7000e+01, 5.8000e+01,\n"
     "         5.9000e+01],\n"
     "        [6.0000e+01, 6.1000e+01, 6.2000e+01,  ..., 8.7000e+01, 8.8000e+01,\n"
     "         8.9000e+01],\n"
     "        ...,\n"
     "        [1.1100e+03, 1.1110e+03, 1.1120e+03,  ..., 1.1370e+03, 1.1380e+03,\n"
     "         1.1390e+03],\n"
     "        [1.1400e+03, 1.1410e+03, 1.1420e+03,  ..., 1.1670e+03, 1.1680e+03,\n"
     "         1.1690e+03],\n"
     "        [1.1700e+03, 1.1710e+03, 1.1720e+03,  ..., 1.1970e+03, 1.1980e+03,\n"
     "         1.1990e+03]])"),
]


def test_facts_scalar_and_vector_examples():
    for got, want in SCALAR_AND_VECTOR_CASES:
        assert got == want, (got, want)


def test_facts_multiline_examples():
    for got, want in MULTILINE_CASES:
        assert got == want, "\n" + got + "\n!=\n" + want


def test_3d_summarized_block_elision():
    # (10, 10, 30) from p06_print.out: elided rows are '...,' and the elided 2-D block is
    # surrounded by blank lines.
    s = arange(3000, "float32", (10, 10, 30))
    assert s.startswith("tensor([[[0.0000e+00, 1.0000e+00, 2.0000e+00,  ..., 2.7000e+01,\n"
                        "          2.8000e+01, 2.9000e+01],\n")
    assert "\n         ...,\n" in s
    assert "8.9900e+02]],\n\n        ...,\n\n        [[2.1000e+03," in s
    assert s.endswith("2.9980e+03, 2.9990e+03]]])")


def test_format_item():
    assert format_item(np.float32(0.1), "float32") == "0.10000000149011612"
    assert format_item(0.1, "float32") == "0.10000000149011612"  # rounded to float32 first
    assert format_item(0.1, "float64") == "0.1"
    assert format_item(np.float32(5.0), "float32") == "5.0"
    assert format_item(np.float32(-0.0), "float32") == "-0.0"
    assert format_item(np.float32(nan), "float32") == "nan"
    assert format_item(np.float64(inf), "float64") == "inf"
    assert format_item(np.int64(3), "int64") == "3"
    assert format_item(np.int32(-7), "int32") == "-7"
    assert format_item(np.bool_(True), "bool") == "True"


def test_high_rank_and_non_contiguous_input():
    a = np.arange(64, dtype=np.float32).reshape(2, 2, 2, 2, 2, 2)
    s = format_tensor(a, "float32")
    assert s.startswith("tensor([[[[[[ 0.,  1.],\n            [ 2.,  3.]],\n\n           [[ 4.,  5.],")
    assert "\n\n\n\n\n" in s  # a 6-D tensor separates its top-level blocks by 5 newlines
    assert format_tensor(np.arange(6.).reshape(2, 3).T, "float64") == (
        "tensor([[0., 3.],\n        [1., 4.],\n        [2., 5.]], dtype=torch.float64)")
    # a float64 array passed as float32 is rounded to float32 first, as torch would store it
    assert format_tensor(np.array([123456.7]), "float32") == "tensor([123456.7031])"


# ----------------------------------------------------------------------------- (b) torch oracle
_BOUNDARY = [0., -0., 1., -1., 0.5, 2.5, 1e-4, 1.1e-4, 9.9e-5, 1e-5, 1e-3, 0.1234567, 999.5,
             1000., 1001., 1500., 1e5, 123456.7, 99999999., 1e8, 1.1e8, 1e9, 3e38, 1e-38,
             1e-45, 12345.678, -300.125, 1 / 3, inf, -inf, nan]
_SPECIAL = np.array([inf, -inf, nan, 0., -0.])
_BIG_SHAPES = [(1000,), (10, 100), (1001,), (2000,), (6, 200), (7, 150), (2, 1000), (40, 30),
               (1000, 2), (10, 10, 11), (3, 7, 7, 7), (6, 6, 6, 6), (1, 1, 1001), (8, 1, 130),
               (2, 3, 4, 50), (1, 7, 1, 200)]
_SMALL_DIMS = [0, 1, 1, 2, 2, 3, 3, 4, 5, 6, 7, 8, 12]


def _random_shape(rng):
    r = rng.random()
    if r < 0.12:
        return _BIG_SHAPES[rng.integers(len(_BIG_SHAPES))]
    if r < 0.14:  # a few 5-D / 6-D tensors
        return tuple(int(d) for d in rng.integers(1, 3, rng.integers(5, 7)))
    while True:
        shape = tuple(int(rng.choice(_SMALL_DIMS)) for _ in range(rng.integers(0, 5)))
        if math.prod(shape) <= 400:
            return shape


def _random_values(rng, n, dtype):
    if dtype == "bool":
        return rng.random(n) < rng.random()
    if dtype.startswith("int"):
        top = 10 ** int(rng.integers(0, 10 if dtype == "int32" else 13))
        return rng.integers(-top if rng.random() < 0.5 else 0, top + 1, n)
    kind = rng.integers(6)
    if kind == 0:  # gaussian at a random scale
        v = rng.standard_normal(n) * 10.0 ** rng.uniform(-7, 10)
    elif kind == 1:  # whole numbers (integer mode), sometimes huge
        v = rng.integers(-(10 ** int(rng.integers(1, 11))), 10 ** int(rng.integers(1, 11)), n).astype(float)
    elif kind == 2:  # boundary values of the mode rules
        v = rng.choice(_BOUNDARY, n) * rng.choice([1., -1.], n)
    elif kind == 3:  # very tiny or very huge
        hi = 300 if dtype == "float64" else 37
        v = rng.uniform(-1, 1, n) * 10.0 ** rng.choice([-hi - 10, -hi, -20, 20, hi])
    elif kind == 4:  # wildly mixed magnitudes
        v = rng.choice([1., -1.], n) * 10.0 ** rng.uniform(-12, 12, n)
    else:  # few distinct values, e.g. halves
        v = rng.integers(-8, 9, n) / rng.choice([1, 2, 4, 3, 1000])
    if rng.random() < 0.35:  # sprinkle inf / -inf / nan / 0 / -0
        mask = rng.random(n) < rng.random()
        v = np.where(mask, rng.choice(_SPECIAL, n), v)
    return v


def _torch_cases(rng, count):
    """Yield (description, numpy array, dtype name) for the random oracle."""
    dtypes = ["float32"] * 8 + ["float64"] * 4 + ["int64"] * 3 + ["bool"] * 2 + ["int32", "float16"]
    with np.errstate(over="ignore", invalid="ignore", under="ignore"):
        for i in range(count):
            dtype = dtypes[rng.integers(len(dtypes))]
            shape = _random_shape(rng)
            values = _random_values(rng, math.prod(shape), dtype)
            yield i, values.astype(dtype).reshape(shape), dtype
        # every pair of boundary values (mode thresholds, float32 rounding), in both float dtypes
        for dtype in ("float32", "float64"):
            for a in _BOUNDARY:
                yield f"boundary {a}", np.array(a, dtype), dtype
                for b in _BOUNDARY:
                    yield f"boundary {a}, {b}", np.array([a, b], dtype), dtype
        # suffix-wrap sweep: every body length near the 80-column limit
        for dtype in ("float32", "float64"):
            for n in range(1, 40):
                for scale in (1., 10., 0.5, 100.5):
                    yield f"sweep {n}x{scale}", (np.arange(n) * scale).astype(dtype), dtype


def test_oracle_against_torch():
    import torch

    rng = np.random.default_rng(20240613)
    n_cases, mismatches = 0, []
    for desc, arr, dtype in _torch_cases(rng, 3500):
        tt = torch.from_numpy(arr.copy())
        variants = [(tt, [])]
        if dtype in ("float32", "float64"):
            leaf = tt.clone().requires_grad_()
            variants += [(leaf, [RG]), (leaf * 1, [MUL])]
        for tensor, suffixes in variants:
            n_cases += 1
            want, got = repr(tensor), format_tensor(arr, dtype, suffixes)
            if want != got:
                mismatches.append(f"case {desc} shape={arr.shape} dtype={dtype} suffixes={suffixes}\n"
                                  f"values={arr.ravel()[:20].tolist()}\n--- torch:\n{want}\n--- ours:\n{got}")
    assert n_cases >= 3000
    assert not mismatches, (f"{len(mismatches)}/{n_cases} mismatches; first ones:\n\n"
                            + "\n\n".join(mismatches[:5]))


def test_format_item_against_torch():
    import torch

    rng = np.random.default_rng(7)
    for dtype in ("float32", "float64", "int64", "int32", "bool"):
        for arr in _random_values(rng, 200, dtype).astype(dtype):
            want = repr(torch.from_numpy(np.array(arr)).item())
            assert format_item(arr, dtype) == want, (dtype, arr)
