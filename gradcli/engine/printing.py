"""Reproduce PyTorch's ``repr(tensor)`` / ``str(tensor)`` text exactly.

The rules mirror ``torch/_tensor_str.py``, with torch.set_printoptions's settings (OPTIONS:
by default precision=4, threshold=1000, edgeitems=3, linewidth=80, sci_mode=None);
tests/test_printing.py checks them against PyTorch.
Pure NumPy + stdlib.

Values are formatted from Python floats/ints obtained with ``ndarray.tolist()``: float32 and
float16 values widen exactly to float64, which is what ``Tensor.item()`` gives torch's formatter.
"""
from __future__ import annotations

import numpy as np

__all__ = ["format_tensor", "format_item"]

class PrintOptions:
    """How tensors print: torch.set_printoptions's settings (PRINT_OPTS of torch/_tensor_str.py)."""

    __slots__ = ("precision", "threshold", "edgeitems", "linewidth", "sci_mode")

    def __init__(self, precision=4, threshold=1000, edgeitems=3, linewidth=80, sci_mode=None):
        self.precision, self.threshold, self.edgeitems, self.linewidth = precision, threshold, edgeitems, linewidth
        self.sci_mode = sci_mode


OPTIONS = PrintOptions()


def reset_print_options():
    """PyTorch's defaults, as a new process has them."""
    global OPTIONS
    OPTIONS = PrintOptions()


_PREFIX = "tensor("
_INDENT = len(_PREFIX)  # 7

_FLOAT_DTYPES = frozenset({"float16", "float32", "float64"})
# dtypes that a non-empty tensor does not name in a dtype= suffix (default dtype, int64, bool)
_IMPLICIT_DTYPES = frozenset({"float32", "int64", "bool"})
_NP_SCALAR = {name: np.dtype(name).type for name in
              ("float16", "float32", "float64", "int8", "int16", "int32", "int64", "uint8", "bool")}


# ----------------------------------------------------------------------------- element formats
def _fmt_int_mode(v: float) -> str:
    # A float tensor whose values are all whole: "2." / "-0."; inf and nan get no dot.
    s = format(v, ".0f")
    return s + "." if v - v == 0 else s  # v - v == 0 exactly when v is finite


def _float_cells(values: list, opts) -> tuple[list, int]:
    """Format the shown float values; return (unpadded strings, column width)."""
    fixed, sci = f".{opts.precision}f", f".{opts.precision}e"
    # Mode and width are decided by the finite non-zero values only; zeros, inf and nan are
    # formatted in the chosen mode but never widen the column.
    finite = [v for v in values if v != 0 and v - v == 0]
    if not finite:
        return [_fmt_int_mode(v) for v in values], 1
    mags = [abs(v) for v in finite]
    hi, lo = max(mags), min(mags)
    wide_range = hi / lo > 1000.0 or hi > 1.0e8  # Python float division gives inf, never raises
    whole = all(v.is_integer() for v in finite)
    if opts.sci_mode is not None:
        use_sci = opts.sci_mode
    else:
        use_sci = wide_range if whole else wide_range or lo < 1.0e-4
    if use_sci:
        fmt = lambda v: format(v, sci)                 # noqa: E731
    else:
        fmt = _fmt_int_mode if whole else lambda v: format(v, fixed)        # noqa: E731
    width = max(len(fmt(v)) for v in finite)
    return [fmt(v) for v in values], width


def _cells(values: list, is_float: bool, opts) -> tuple[list, int]:
    """Right-aligned strings for the shown values and their common width."""
    if is_float:
        strs, width = _float_cells(values, opts)
    else:  # ints and bools: str(), width over every shown element
        strs = [str(v) for v in values]
        width = max(map(len, strs))
    return [s.rjust(width) for s in strs], width


# ----------------------------------------------------------------------------- layout
def _summarize(data: np.ndarray, edgeitems: int) -> tuple[np.ndarray, list]:
    """Keep the first and last `edgeitems` entries of every dim longer than 2*edgeitems.

    Returns the (small) array of shown entries and, per dim, whether a gap is shown.
    """
    elided = []
    for axis, n in enumerate(data.shape):
        cut = n > 2 * edgeitems
        if cut:
            keep = list(range(edgeitems)) + list(range(n - edgeitems, n))
            data = np.take(data, keep, axis=axis)
        elided.append(cut)
    return data, elided


def _layout(cells: list, shape: tuple, elided: list, width: int, opts) -> str:
    """Nest the flat, C-ordered cells into torch's bracketed multi-line layout (bottom-up)."""
    ndim = len(shape)
    # Every innermost vector sits at nesting depth ndim-1, so they all share one indent.
    vec_indent = _INDENT + ndim - 1
    per_line = max(1, (opts.linewidth - vec_indent) // (width + 2))
    line_sep = ",\n" + " " * (vec_indent + 1)
    n = shape[-1]
    blocks = []
    for start in range(0, len(cells), n):
        row = cells[start:start + n]
        if elided[-1]:
            row.insert(opts.edgeitems, " ...")  # the gap counts as an element for line breaking
        lines = [", ".join(row[i:i + per_line]) for i in range(0, len(row), per_line)]
        blocks.append("[" + line_sep.join(lines) + "]")
    for d in range(ndim - 2, -1, -1):
        # Sub-blocks of an N-D block are separated by N-1 newlines (blank lines from 3-D up).
        sep = "," + "\n" * (ndim - d - 1) + " " * (_INDENT + d + 1)
        n = shape[d]
        grouped = []
        for start in range(0, len(blocks), n):
            group = blocks[start:start + n]
            if elided[d]:
                group.insert(opts.edgeitems, "...")
            grouped.append("[" + sep.join(group) + "]")
        blocks = grouped
    return blocks[0]


def _add_suffixes(text: str, suffixes: list, linewidth: int) -> str:
    # torch's length bookkeeping: +2 while on the body's last line, but only indent+len after a
    # wrap (the asymmetry is torch's, see _add_suffixes in torch/_tensor_str.py).
    last_len = len(text) - text.rfind("\n") + 1
    parts = [text]
    for s in suffixes:
        if last_len + len(s) + 2 > linewidth:
            parts.append(",\n" + " " * _INDENT + s)
            last_len = _INDENT + len(s)
        else:
            parts.append(", " + s)
            last_len += len(s) + 2
    parts.append(")")
    return "".join(parts)


# ----------------------------------------------------------------------------- public API
def format_tensor(data: np.ndarray, dtype: str, suffixes=()) -> str:
    """Return exactly what torch's repr()/str() prints for a tensor.

    data: the values, shaped like the tensor (0-d allowed); it is cast to ``dtype`` if needed.
    dtype: torch dtype name without "torch." (float16/32/64, int8/16/32/64, uint8, bool).
    suffixes: already formatted autograd suffixes, e.g. ["grad_fn=<MulBackward0>"]; the size=
    and dtype= suffixes are added here, before them.
    """
    if not isinstance(data, np.ndarray):
        data = np.asarray(data)
    if data.dtype.name != dtype:
        data = data.astype(dtype)
    shape = data.shape
    opts = OPTIONS
    head = []
    if data.size == 0:
        # No elements to infer the dtype from, so every non-default dtype is named (int64 too).
        if len(shape) != 1:
            head.append("size=" + str(tuple(shape)))
        if dtype != "float32":
            head.append("dtype=torch." + dtype)
        return _add_suffixes(_PREFIX + "[]", head + list(suffixes), opts.linewidth)

    if dtype not in _IMPLICIT_DTYPES:
        head.append("dtype=torch." + dtype)
    if data.size > opts.threshold:
        data, elided = _summarize(data, opts.edgeitems)  # mode and width come from the shown entries only
    else:
        elided = [False] * len(shape)
    cells, width = _cells(data.ravel().tolist(), dtype in _FLOAT_DTYPES, opts)
    body = cells[0] if not shape else _layout(cells, data.shape, elided, width, opts)
    return _add_suffixes(_PREFIX + body, head + list(suffixes), opts.linewidth)


def format_item(value, dtype: str) -> str:
    """What ``print(t.item())`` shows: repr of the Python number torch's item() returns.

    Floats are first rounded to ``dtype`` and then widened exactly, so a float32 0.1 gives
    '0.10000000149011612'.
    """
    if dtype in _FLOAT_DTYPES:
        return repr(float(_NP_SCALAR[dtype](value)))
    if dtype == "bool":
        return repr(bool(value))
    return repr(int(value))
