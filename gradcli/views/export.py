"""`gradcli export`: a gradcli script as a runnable Python + PyTorch script.

So a user can check gradcli's story in real PyTorch. A script that is already Python 3 and
imports torch is written as it is. Anything else is written as `ast.unparse` of the very tree
gradcli runs (dialect.py): implicit leaves with their `--set` values (default 1.0) become
`x = torch.tensor(2.0, requires_grad=True)` before their first use, `import torch` is added,
`backward y` is `y.backward()`, `print x` is `print(x)`, and the dialect's `expect` and
`graph` statements call small helpers that are written at the top (checks that raise
AssertionError in PyTorch too; `graph` draws nothing there).
"""
from __future__ import annotations

import ast
from typing import Optional
from dataclasses import dataclass, field


class ExportError(Exception):
    """The script uses something the exporter cannot express (with the line)."""


@dataclass
class Exported:
    text: str
    leaves: list = field(default_factory=list)      # (name, value) of the implicit leaves
    report: object = None                            # gradcli's own run of the script
    parse_failed: bool = False
    error_line: Optional[int] = None                 # the line of the exported text where the error is


HELPERS = {
    "graph": '''\
def _gradcli_graph(tensor, name):
    """gradcli's `graph NAME` draws the backward graph here; plain PyTorch draws nothing."""
''',
    "expect_no_error": '''\
def _gradcli_expect_no_error(text):
    """gradcli's `expect error`: the statement after it ran without error."""
    raise AssertionError(f"{text} failed: no error")
''',
    "expect": '''\
def _gradcli_expect(value, text):
    """gradcli's `expect COND`: every element true."""
    ok = bool(value.all()) if isinstance(value, torch.Tensor) else bool(value)
    if not ok:
        raise AssertionError(f"{text} failed: got {value!r}")
''',
    "close": '''\
def _gradcli_expect_close(a, b, within, text):
    """gradcli's `expect A == B [within T]`: same shape and allclose (rtol 1e-5, atol 1e-8, or atol=T)."""
    try:
        ta = torch.as_tensor(a.detach() if isinstance(a, torch.Tensor) else a, dtype=torch.float64)
        tb = torch.as_tensor(b.detach() if isinstance(b, torch.Tensor) else b, dtype=torch.float64)
    except (TypeError, ValueError, RuntimeError):
        if a != b:
            raise AssertionError(f"{text} failed: {a!r} != {b!r}") from None
        return
    both = isinstance(a, torch.Tensor) and isinstance(b, torch.Tensor)
    if ta.shape != tb.shape and (both or (ta.ndim and tb.ndim)):
        raise AssertionError(f"{text} failed: shapes differ: {list(ta.shape)} vs {list(tb.shape)}")
    rtol, atol = (1e-5, 1e-8) if within is None else (0.0, float(within))
    if not bool(torch.isclose(ta, tb, rtol=rtol, atol=atol, equal_nan=True).all()):
        raise AssertionError(f"{text} failed: {a!r} != {b!r}")
''',
    "error": '''\
def _gradcli_expect_error(error, expected, text):
    """gradcli's `expect error "text"`: the next statement raised an error containing the text."""
    if expected not in str(error):
        raise AssertionError(f"{text} failed: got {type(error).__name__}: {error}") from error
''',
    "freed": '''\
def _gradcli_expect_freed(tensor, freed, text):
    """gradcli's `expect freed|retained NAME`: the saved tensors of NAME's grad_fn are (not) freed.
    A tensor slot is a `_saved_*` attribute with a `_raw_saved_*` twin; a freed one raises."""
    fn = tensor.grad_fn
    states = []
    for attr in dir(fn):
        if not attr.startswith("_saved_") or not hasattr(fn, "_raw" + attr):
            continue
        try:
            value = getattr(fn, attr)
        except RuntimeError as err:
            if "second time" not in str(err):
                raise
            states.append(True)
            continue
        if isinstance(value, torch.Tensor) or (isinstance(value, tuple) and value
                                               and all(isinstance(v, torch.Tensor) for v in value)):
            states.append(False)
    if not states:
        raise AssertionError(f"{text} failed: {type(fn).__name__} saves no tensors")
    if all(states) != freed:
        raise AssertionError(f"{text} failed: the saved tensors of {type(fn).__name__} "
                             f"{'are still held' if freed else 'were freed'}")
''',
}


def leaf_literal(value):
    """The Python literal of an implicit leaf's value, as floats (the leaf is float32)."""
    from ..lang.dialect import leaf_literal as floats
    return repr(floats(value))


# The helper each call name needs, in the order they are written.
_HELPER_OF = {"_gradcli_expect": "expect", "_gradcli_expect_close": "close", "_gradcli_expect_error": "error",
              "_gradcli_expect_freed": "freed", "_gradcli_expect_no_error": "expect_no_error",
              "_gradcli_graph": "graph"}
_ORDER = ("expect", "close", "error", "expect_no_error", "freed", "graph")


def export_source(source, filename="<script>", *, values=None, strict=False, timeout=None,
                  max_elements=None, max_memory=None) -> Exported:
    """Run the script under gradcli (its report says how it ends), then write it for PyTorch."""
    from ..lang import dialect
    from ..engine import ParseError
    from ..session.executor import run_source
    report = run_source(source, filename, values=values, strict=strict, timeout=timeout,
                        max_elements=max_elements, max_memory=max_memory)
    if report.parse_failed:
        return Exported("", report=report, parse_failed=True)
    try:
        program = dialect.parse(source, filename, values=values, strict=strict)
    except ParseError as e:                 # run_source parsed it already: cannot happen
        raise ExportError(e.message) from None
    head = [f"# Exported by gradcli from {_comment(filename)}: the same script for Python + PyTorch."]
    line = report.error.line if report.error is not None else None
    if not program.dialect and program.imports_torch:
        return Exported("\n".join(head) + "\n" + dialect.normalise(source), [], report,
                        error_line=line and line + len(head))
    used = {_HELPER_OF[n.id] for n in ast.walk(program.tree) if isinstance(n, ast.Name) and n.id in _HELPER_OF}
    if not program.imports_torch:
        loaded = {n.id for n in ast.walk(program.tree) if isinstance(n, ast.Name)}
        head.append("import torch")
        head += [line for name, line in (("nn", "import torch.nn as nn"), ("F", "import torch.nn.functional as F"))
                 if name in loaded]
    for key in _ORDER:
        if key in used:
            head.append("")
            head.append(HELPERS[key].rstrip("\n"))
    body = ast.unparse(program.tree)
    top = "\n".join(head) + "\n\n"
    return Exported(top + body + "\n", program.leaves, report,
                    error_line=_exported_line(program.tree, body, line, top.count("\n")))


def _exported_line(tree, body, line, offset):
    """Where the statement on `line` of the script is in the exported text: the unparsed body
    parses back to the same statements, in the same order."""
    if line is None:
        return None
    from ..explain.fixes import statement_at
    st = statement_at(tree, line)
    if st is None:
        return None
    again = [n for n in ast.walk(ast.parse(body)) if isinstance(n, ast.stmt)]
    mine = [n for n in ast.walk(tree) if isinstance(n, ast.stmt)]
    if len(again) != len(mine) or st not in mine:
        return None
    return offset + again[mine.index(st)].lineno


def _comment(name):
    """A file name as it may appear in a comment: no line break can end the comment early."""
    text = repr(name) if any(c in name for c in "\r\n\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029") else name
    return text
