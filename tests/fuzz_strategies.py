"""Hypothesis strategies and helpers for the hostile-input tests.

* `token_streams`: random sequences of the grammar's vocabulary (grammar/gradcli.lark).
* `mutated_examples`: every script in examples/ damaged by line/token edits, random bytes,
  unicode, very long lines, deep nesting, huge/tiny numbers and NaN/inf.
* `valid_scripts`: random scripts that are valid (PyTorch dialect: valid Python; concise dialect:
  the gradcli language) built from the operations gradcli supports.
* `api_calls`: torch functions and Tensor methods called with odd arguments (wrong types, None,
  strings, huge numbers, functions, NaN) on a small graph.
* `run_cli`: `python -m gradcli ...` in a subprocess with an address-space cap, a wall-clock
  timeout and the repository on PYTHONPATH.

Nothing here imports gradcli, so the strategies stay usable while gradcli is broken.
"""
from __future__ import annotations

import os
import re
import resource
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from hypothesis import strategies as st

REPO = Path(__file__).resolve().parents[1]
EXAMPLES_DIR = REPO / "examples"
GRAMMAR = REPO / "grammar" / "gradcli.lark"

# ============================================================================ the vocabulary

KEYWORDS = ["if", "elif", "else", "while", "for", "in", "try", "except", "finally", "with", "as", "def",
            "return", "lambda", "import", "from", "pass", "break", "continue", "raise", "del", "global",
            "nonlocal", "assert", "not", "and", "or", "is", "None", "True", "False",
            # the concise dialect's own statements
            "print", "backward", "expect", "error", "freed", "retained", "within", "graph"]

OPERATORS = ["+", "-", "*", "/", "//", "%", "@", "**", "+=", "-=", "*=", "/=", "//=", "%=", "@=", "**=",
             "==", "!=", "<", ">", "<=", ">=", "|", "^", "&", "~", "=", "(", ")", "[", "]", "{", "}", ",",
             ":", ";", ".", "...", "->", "*", "**"]

NAMES = ["x", "y", "z", "f", "w", "a", "b", "y1", "y2", "loss", "err", "torch", "F", "nn", "functional",
         "autograd", "grad", "requires_grad", "retain_graph", "create_graph", "sum", "mean", "tensor", "ones",
         "zeros", "randn", "no_grad", "item", "detach", "register_hook", "numpy", "data", "shape", "view",
         "reshape", "T", "t", "range", "len", "type", "str", "int", "float", "list", "dict", "isinstance",
         "RuntimeError", "Exception", "_saved_self", "_saved_other", "grad_fn", "next_functions",
         "__class__", "__dict__", "__globals__", "__import__", "eval", "exec", "open", "getattr", "globals",
         "os", "sys", "self", "_", "é", "𝐱", "x\u200b"]

NUMBERS = ["0", "1", "2", "3.5", "0.5", "-1", "1e308", "1e309", "1e-320", "1e-400", "0x1f", "0b101", "0o17",
           "1_000", "1j", "99999999999999999999", "10**400", "2**64", "-0.0", "1.", ".5", "00", "0777",
           "1__0", "1e", "0x", "100000", "1e10", "float('nan')", "float('inf')", "-float('inf')"]

STRINGS = ["'a'", '"x"', 'f"{x}"', "f'{x!r:>10}'", 'f"{x.__class__}"', "r'\\d'", '"""doc"""', "'unterminated",
           '"\\n"', "b'bytes'", "'{0.__class__}'", "u'é'", "'\\x00'", "f'{'", "f'}'", "rb'\\x'"]

LAYOUT = ["\n", "\n    ", "\n        ", "\n\t", " ", "  ", "\\\n", "# comment\n", "\r\n", "\r", "\f"]

VOCAB = KEYWORDS + OPERATORS + NAMES + NUMBERS + STRINGS + LAYOUT


def grammar_literals():
    """Every quoted literal of the grammar file (keywords, operators, punctuation)."""
    text = GRAMMAR.read_text(encoding="utf-8")
    return sorted(set(re.findall(r'"((?:[^"\\]|\\.)+)"', text)))


try:
    VOCAB = sorted(set(VOCAB) | {lit for lit in grammar_literals() if "\\" not in lit})
except OSError:                      # the grammar file moved: the built-in list still covers it
    VOCAB = sorted(set(VOCAB))

# ============================================================================ example scripts


def load_examples():
    out = {}
    for p in sorted(EXAMPLES_DIR.iterdir()):
        if p.is_file() and p.suffix in (".py", ".grad"):
            out[p.name] = p.read_text(encoding="utf-8")
    return out


EXAMPLES = load_examples()
EXAMPLE_NAMES = sorted(EXAMPLES)

# ============================================================================ strategies


@st.composite
def token_streams(draw):
    """Random token sequences of the grammar's vocabulary, sometimes after `import torch`."""
    tokens = draw(st.lists(st.sampled_from(VOCAB), min_size=1, max_size=60))
    seps = draw(st.lists(st.sampled_from([" ", "", " ", "\n", "  "]), min_size=len(tokens), max_size=len(tokens)))
    body = "".join(t + s for t, s in zip(tokens, seps))
    prefix = draw(st.sampled_from(["", "", "import torch\n", "import torch\nx = torch.ones(2, requires_grad=True)\n"]))
    return prefix + body


HUGE_TINY = ["1e309", "1e308", "-1e308", "1e-400", "5e-324", "9" * 400, "10**400", "2**64", "2**63", "-2**63",
             "2**31", "0", "-0.0", "float('nan')", "float('inf')", "-float('inf')", "0x" + "f" * 40, "1_0",
             "100000", "1e10", "10**10", "-1", "-100000", "1j", "0.1e-30", "3.4028235e38", "65504.0", "1e-45"]

TRICKY_UNICODE = ["\u200b", "\u00a0", "\u2028", "\u2029", "\ufeff", "𝐱", "é", "e\u0301", "\u202e", "ｘ",
                  "＿＿class＿＿", "\ud800", "\udfff", "🔥", "\x1b[31m", "\x00", "\x0c", "\x7f", "\u0085", "Ⅸ",
                  "ß", "ǅ", "\u3000", "٣", "\U0010ffff"]

NESTING = [("(", ")"), ("[", "]"), ("abs(", ")"), ("-", ""), ("not ", ""), ("(1, ", ")"), ("[0, ", "][1]"),
           ("torch.tensor(", ")"), ("(lambda: ", ")()"), ("f(", ")")]

_TOKEN_RE = re.compile(r"\w+|\S")
_NUMBER_RE = re.compile(r"(?<![\w.])\d[\d_]*\.?\d*(?:[eE][-+]?\d+)?")


def _lines(src):
    return src.split("\n")


def _pick(draw, n):
    return draw(st.integers(0, max(n - 1, 0)))


def m_drop_line(draw, src):
    ls = _lines(src)
    if len(ls) > 1:
        del ls[_pick(draw, len(ls))]
    return "\n".join(ls)


def m_dup_line(draw, src):
    ls = _lines(src)
    i = _pick(draw, len(ls))
    ls.insert(i, ls[i])
    return "\n".join(ls)


def m_swap_lines(draw, src):
    ls = _lines(src)
    i, j = _pick(draw, len(ls)), _pick(draw, len(ls))
    ls[i], ls[j] = ls[j], ls[i]
    return "\n".join(ls)


def m_reindent(draw, src):
    ls = _lines(src)
    i = _pick(draw, len(ls))
    ls[i] = draw(st.sampled_from(["", " ", "    ", "\t", "        ", " \t"])) + ls[i].lstrip()
    return "\n".join(ls)


def _tokens(src):
    return [(m.start(), m.end()) for m in _TOKEN_RE.finditer(src)]


def m_drop_token(draw, src):
    toks = _tokens(src)
    if not toks:
        return src
    a, b = toks[_pick(draw, len(toks))]
    return src[:a] + src[b:]


def m_dup_token(draw, src):
    toks = _tokens(src)
    if not toks:
        return src
    a, b = toks[_pick(draw, len(toks))]
    return src[:b] + " " + src[a:b] + src[b:]


def m_swap_tokens(draw, src):
    toks = _tokens(src)
    if len(toks) < 2:
        return src
    i, j = sorted((_pick(draw, len(toks)), _pick(draw, len(toks))))
    if i == j:
        return src
    (a, b), (c, d) = toks[i], toks[j]
    return src[:a] + src[c:d] + src[b:c] + src[a:b] + src[d:]


def m_replace_token(draw, src):
    toks = _tokens(src)
    if not toks:
        return src
    a, b = toks[_pick(draw, len(toks))]
    return src[:a] + draw(st.sampled_from(VOCAB)) + src[b:]


def m_random_bytes(draw, src):
    raw = draw(st.binary(min_size=1, max_size=12))
    i = _pick(draw, len(src) + 1)
    return src[:i] + raw.decode("latin-1") + src[i:]


def m_random_text(draw, src):
    text = draw(st.text(min_size=1, max_size=8))
    i = _pick(draw, len(src) + 1)
    return src[:i] + text + src[i:]


def m_unicode(draw, src):
    i = _pick(draw, len(src) + 1)
    return src[:i] + draw(st.sampled_from(TRICKY_UNICODE)) + src[i:]


def m_long_line(draw, src):
    n = draw(st.sampled_from([100, 1000, 5000]))
    kind = draw(st.sampled_from(["sum", "string", "names", "comment", "list", "spaces", "semicolons"]))
    line = {"sum": "q = " + " + ".join(["1"] * n),
            "string": "q = '" + "a" * (n * 20) + "'",
            "names": "q " * n,
            "comment": "#" + "x" * (n * 20),
            "list": "q = [" + ", ".join(["1.5"] * n) + "]",
            "spaces": " " * (n * 10) + "q = 1",
            "semicolons": "; ".join(["q = 1"] * n)}[kind]
    ls = _lines(src)
    ls.insert(_pick(draw, len(ls) + 1), line)
    return "\n".join(ls)


def m_deep_nesting(draw, src):
    depth = draw(st.sampled_from([10, 50, 100, 300, 1000, 2000]))
    opener, closer = draw(st.sampled_from(NESTING))
    line = "q = " + opener * depth + "1" + closer * depth
    if draw(st.booleans()):
        # wrap the right-hand side of an existing assignment instead
        ls = _lines(src)
        idx = [k for k, l in enumerate(ls) if re.match(r"\s*\w+ = ", l)]
        if idx:
            k = idx[_pick(draw, len(idx))]
            lhs, _, rhs = ls[k].partition(" = ")
            ls[k] = lhs + " = " + opener * depth + rhs + closer * depth
            return "\n".join(ls)
    ls = _lines(src)
    ls.insert(_pick(draw, len(ls) + 1), line)
    return "\n".join(ls)


def m_number(draw, src):
    nums = list(_NUMBER_RE.finditer(src))
    new = draw(st.sampled_from(HUGE_TINY))
    if not nums:
        return src + "\nq = " + new
    m = nums[_pick(draw, len(nums))]
    return src[:m.start()] + new + src[m.end():]


def m_truncate(draw, src):
    return src[:_pick(draw, len(src) + 1)]


def m_splice(draw, src):
    other = EXAMPLES[draw(st.sampled_from(EXAMPLE_NAMES))]
    ol = _lines(other)
    piece = ol[_pick(draw, len(ol))]
    ls = _lines(src)
    ls.insert(_pick(draw, len(ls) + 1), piece)
    return "\n".join(ls)


def m_line_endings(draw, src):
    return src.replace("\n", draw(st.sampled_from(["\r\n", "\r", "\n\n", "\u2028", "\x0b", "\n\x0c"])))


def m_hostile_name(draw, src):
    toks = [(m.start(), m.end()) for m in re.finditer(r"\b[A-Za-z_]\w*\b", src)]
    if not toks:
        return src
    a, b = toks[_pick(draw, len(toks))]
    name = draw(st.sampled_from(["__class__", "__dict__", "eval", "open", "__import__", "getattr", "exec",
                                 "globals", "__builtins__", "breakpoint", "torch", "print", "backward", "graph",
                                 "expect", "type", "vars", "None", "True", "lambda", "yield", "class",
                                 "async", "await", "match", "case", "__name__", "nonlocal"]))
    return src[:a] + name + src[b:]


MUTATIONS = [m_drop_line, m_dup_line, m_swap_lines, m_reindent, m_drop_token, m_dup_token, m_swap_tokens,
             m_replace_token, m_random_bytes, m_random_text, m_unicode, m_long_line, m_deep_nesting, m_number,
             m_truncate, m_splice, m_line_endings, m_hostile_name]


@st.composite
def mutated_examples(draw):
    """An example script with 1-4 random mutations."""
    src = EXAMPLES[draw(st.sampled_from(EXAMPLE_NAMES))]
    for _ in range(draw(st.integers(1, 4))):
        src = draw(st.sampled_from(MUTATIONS))(draw, src)
    return src


# ---------------------------------------------------------------------------- valid scripts

_UNARY = ["exp", "sin", "cos", "tanh", "sigmoid", "relu", "abs", "square", "neg", "clone", "sqrt", "log",
          "detach", "t", "flatten", "reciprocal", "rsqrt"]
_BINARY = ["+", "-", "*", "/"]
_CONSTS = ["2", "0.5", "3.0", "-1", "1e-3", "1e30", "0.0", "float('nan')", "float('inf')"]


@st.composite
def valid_scripts(draw):
    """A random, syntactically valid script: PyTorch dialect (valid Python) or concise dialect."""
    concise = draw(st.booleans()) and draw(st.booleans())
    lines = []
    tensors = []          # names of tensors
    scalars = []          # names of 0-d tensors that can be backwarded
    if concise:
        tensors += ["x", "y"]
    else:
        lines.append("import torch")
        if draw(st.booleans()):
            lines.append("import torch.nn.functional as F")
        n_leaves = draw(st.integers(1, 3))
        for k in range(n_leaves):
            vals = draw(st.lists(st.sampled_from(["1.0", "2.0", "-0.5", "3.0", "0.0"]), min_size=2, max_size=2))
            rg = draw(st.sampled_from([", requires_grad=True", ", requires_grad=True", ""]))
            lines.append(f"l{k} = torch.tensor([{', '.join(vals)}]{rg})")
            tensors.append(f"l{k}")

    def indent(block):
        return ["    " + l for l in block]

    def stmt(k):
        u = draw(st.sampled_from(tensors))
        w = draw(st.sampled_from(tensors))
        new = f"v{k}"
        kind = draw(st.integers(0, 21))
        if kind <= 4:
            out = [f"{new} = {u} {draw(st.sampled_from(_BINARY))} {w}"]
            tensors.append(new)
        elif kind == 5:
            out = [f"{new} = {draw(st.sampled_from(_CONSTS))} * {u}"]
            tensors.append(new)
        elif kind == 6:
            out = [f"{new} = {u} ** {draw(st.sampled_from(['2', '3', '0.5', '-1', '0']))}"]
            tensors.append(new)
        elif kind == 7 and not concise:
            out = [f"{new} = {u}.{draw(st.sampled_from(_UNARY))}()"]
            tensors.append(new)
        elif kind == 8:
            out = [f"{new} = ({u} * {w}).sum()" if not concise else f"{new} = {u} * {w}"]
            (scalars if not concise else tensors).append(new)
        elif kind == 9 and scalars:
            s = draw(st.sampled_from(scalars))
            rg = draw(st.sampled_from(["", "retain_graph=True"]))
            out = [f"{s}.backward({rg})"] if not concise else [f"backward {s}" + (", " + rg if rg else "")]
        elif kind == 10 and concise:
            s = draw(st.sampled_from(tensors))
            out = [f"backward {s}" + draw(st.sampled_from(["", ", retain_graph=True"]))]
        elif kind == 11:
            what = draw(st.sampled_from(["{u}", "{u}.grad", "{u}.grad_fn", "{u}.requires_grad", "{u}.shape"]))
            out = [f"print({what.format(u=u)})" if not concise else f"print {what.format(u=u)}"]
        elif kind == 12 and scalars and not concise:
            s = draw(st.sampled_from(scalars))
            out = ["try:", f"    {s}.backward()", "except RuntimeError as err:", "    print(str(err)[:40])"]
        elif kind == 13 and not concise:
            out = ["with torch.no_grad():", f"    {new} = {u} * 2"]
            tensors.append(new)
        elif kind == 14 and not concise:
            out = [f"def fn{k}(t):", f"    return t * {draw(st.sampled_from(_CONSTS))} + 1", f"{new} = fn{k}({u})"]
            tensors.append(new)
        elif kind == 15 and not concise:
            out = [f"{new} = {u}", "for i in range(3):", f"    {new} = {new} * 1.5"]
            tensors.append(new)
        elif kind == 16 and not concise:
            out = [f"{u}.register_hook(lambda g: g * 2)"]
        elif kind == 17 and not concise and scalars:
            s = draw(st.sampled_from(scalars))
            out = [f"gs{k} = torch.autograd.grad({s}, [{u}], retain_graph=True, allow_unused=True)",
                   f"print(gs{k})"]
        elif kind == 18 and not concise:
            op = draw(st.sampled_from(["F.relu({u})", "torch.cat([{u}, {w}])", "{u}[0]", "{u}.view(2, 1)",
                                       "torch.stack([{u}, {w}]).mean(0)", "{u}.max()", "torch.where({u} > 0, {u}, {w})",
                                       "{u}.unsqueeze(0) @ {w}.unsqueeze(1)", "{u}.clamp(0, 1)",
                                       "torch.softmax({u}, 0)", "{u}.pow(2).mean()"]))
            if "F." in op and "import torch.nn.functional as F" not in lines:
                op = op.replace("F.relu", "torch.relu")
            out = [f"{new} = {op.format(u=u, w=w)}"]
            tensors.append(new)
        elif kind == 19 and not concise:
            out = [draw(st.sampled_from([f"{u}.grad = None", f"{u}.add_(1)", f"{u}.requires_grad_()",
                                         f"{u}.retain_grad()", f"{u}[0] = 5.0", f"{u}.detach_()",
                                         f"{u}.data = {w}.data"]))]
        elif kind == 20:
            out = [f"graph {u}" if draw(st.booleans()) else f"expect {u}.shape == {u}.shape"]
        else:
            out = [f"{new} = {u} + {w}"]
            tensors.append(new)
        if draw(st.integers(0, 9)) == 0 and not concise:
            out = ["if True:"] + indent(out)
        return out

    for k in range(draw(st.integers(1, 14))):
        lines.extend(stmt(k))
    return "\n".join(lines) + "\n"


# ---------------------------------------------------------------------------- API calls with odd arguments

TENSOR_METHODS = ["T", "abs", "add", "add_", "backward", "bmm", "bool", "clamp", "clamp_", "clamp_min", "clip", "clone",
                  "contiguous", "copy_", "cos", "cpu", "data", "detach", "detach_", "device", "dim", "div", "div_",
                  "divide", "dot", "double", "dtype", "exp", "exp_", "expand", "expand_as", "fill_", "flatten",
                  "float", "grad", "grad_fn", "int", "is_floating_point", "is_leaf", "item", "log", "log_softmax",
                  "long", "mT", "matmul", "max", "maximum", "mean", "min", "minimum", "mm", "mul", "mul_",
                  "multiply", "mv", "ndim", "neg", "neg_", "negative", "norm", "numel", "numpy", "permute", "pow",
                  "pow_", "prod", "reciprocal", "register_hook", "relu", "relu_", "requires_grad", "requires_grad_",
                  "reshape", "reshape_as", "retain_grad", "rsqrt", "shape", "sigmoid", "sigmoid_", "sin", "size",
                  "softmax", "sqrt", "sqrt_", "square", "squeeze", "sub", "sub_", "subtract", "sum", "swapaxes",
                  "swapdims", "t", "tanh", "tanh_", "to", "tolist", "transpose", "type", "unbind", "unsqueeze",
                  "view", "view_as", "where", "zero_", "_version", "_base", "repeat", "index_select", "gather",
                  "split", "chunk", "split_with_sizes", "tensor_split", "hsplit", "vsplit", "output_nr"]
TORCH_FUNCTIONS = ["Size", "Tensor", "abs", "add", "arange", "as_tensor", "bmm", "cat", "clamp", "clamp_min", "clip",
                   "clone", "concat", "cos", "div", "dot", "empty", "empty_like", "enable_grad", "exp", "eye",
                   "flatten", "floor_divide", "from_numpy", "full", "full_like", "get_default_dtype",
                   "inference_mode", "is_grad_enabled", "is_tensor", "linspace", "log", "log_softmax",
                   "manual_seed", "matmul", "max", "maximum", "mean", "min", "minimum", "mm", "mul", "mv", "neg",
                   "no_grad", "norm", "numel", "ones", "ones_like", "permute", "pow", "prod", "rand", "randint",
                   "randn", "reciprocal", "relu", "remainder", "reshape", "rsqrt", "set_grad_enabled", "sigmoid",
                   "sin", "softmax", "sqrt", "square", "squeeze", "stack", "sub", "sum", "swapaxes", "t", "tanh",
                   "tensor", "transpose", "unsqueeze", "where", "zeros", "zeros_like", "split", "chunk", "unbind",
                   "tensor_split", "autograd.grad",
                   "autograd.backward", "nn.functional.relu", "nn.functional.mse_loss",
                   "nn.functional.cross_entropy", "nn.functional.nll_loss", "nn.functional.softmax",
                   "nn.functional.binary_cross_entropy_with_logits", "nn.functional.log_softmax"]
ODD_VALUES = ["0", "1", "-1", "2", "3", "2.5", "-0.0", "True", "None", "'a'", "''", "[]", "()", "[1, 'a']",
              "[[1.0], [1.0, 2.0]]", "(2,)", "(2, 2)", "[0, 0]", "x", "y", "w", "s", "x.grad", "y.grad_fn",
              "torch.float64", "torch.int64", "torch.bool", "torch.float16", "float('nan')", "float('inf')",
              "10**30", "-10**30", "2**63", "1e308", "[x, y]", "(x, w)", "{}", "{'a': 1}", "print", "len",
              "lambda g: g", "lambda g: None", "lambda: 1", "x > 0", "torch.tensor([True, False, True])",
              "torch.tensor([0, 2])", "torch.tensor([5])", "torch.tensor(1)", "torch.tensor([[0]])", "..."]
KWARGS = ["dim", "keepdim", "dtype", "requires_grad", "retain_graph", "create_graph", "inputs", "gradient",
          "allow_unused", "p", "alpha", "out", "device", "min", "max", "reduction", "weight", "size", "grad_outputs",
          "start_dim", "end_dim", "bogus"]


@st.composite
def api_calls(draw):
    """torch functions and Tensor methods called with odd arguments, on a small graph."""
    lines = ["import torch", "import torch.nn.functional as F",
             "x = torch.tensor([1.0, -2.0, 3.0], requires_grad=True)",
             "w = torch.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])",
             "y = (x * 2).exp()", "s = (y * x).sum()"]
    for k in range(draw(st.integers(1, 6))):
        args = draw(st.lists(st.sampled_from(ODD_VALUES), max_size=3))
        kwargs = draw(st.lists(st.tuples(st.sampled_from(KWARGS), st.sampled_from(ODD_VALUES)), max_size=2,
                               unique_by=lambda kv: kv[0]))
        arglist = ", ".join(args + [f"{k_}={v}" for k_, v in kwargs])
        if draw(st.booleans()):
            obj = draw(st.sampled_from(["x", "y", "w", "s", "x.grad", "y.grad_fn", "x.detach()", "w.t()",
                                        "x[0]", "w[:, 1:]", "torch.tensor(2.0)", "torch.ones(0)"]))
            method = draw(st.sampled_from(TENSOR_METHODS))
            call = f"{obj}.{method}" + (f"({arglist})" if draw(st.integers(0, 4)) else "")
        else:
            call = f"torch.{draw(st.sampled_from(TORCH_FUNCTIONS))}({arglist})"
        form = draw(st.sampled_from(["r{k} = {c}", "print({c})", "r{k} = {c}\nprint(r{k})",
                                     "r{k} = {c}\nr{k}.sum().backward()", "try:\n    print({c})\nexcept Exception as e:\n    print(type(e).__name__, e)",
                                     "print(repr({c}), str({c}), f'{{{c}}}')"]))
        lines.append(form.format(k=k, c=call))
    if draw(st.booleans()):
        lines.append(draw(st.sampled_from(["s.backward()", "s.backward(retain_graph=True)\ns.backward()",
                                           "print(x.grad)", "graph s", "print(y.grad_fn.next_functions)"])))
    return "\n".join(lines) + "\n"


def any_script():
    return st.one_of(token_streams(), mutated_examples(), valid_scripts(), api_calls())

# ============================================================================ running the CLI


@dataclass
class CliResult:
    rc: int
    out: str
    err: str
    elapsed: float
    timed_out: bool = False

    @property
    def both(self):
        return self.out + self.err


GiB = 1 << 30


def _limits(address_space):
    def apply():
        if address_space:
            resource.setrlimit(resource.RLIMIT_AS, (address_space, address_space))
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    return apply


def run_cli(args, *, input_bytes=None, timeout=60.0, address_space=4 * GiB, env=None, cwd=None):
    """`python -m gradcli ARGS`; a run that outlives `timeout` is killed and reported as timed out.

    The address-space cap keeps a run that ignores the limits from exhausting the machine:
    it then fails with MemoryError (inside gradcli: exit 3) instead of being killed by the kernel.
    """
    full_env = dict(os.environ)
    full_env["PYTHONPATH"] = str(REPO) + (os.pathsep + full_env["PYTHONPATH"] if full_env.get("PYTHONPATH") else "")
    full_env.setdefault("COLUMNS", "100")
    full_env["PYTHONFAULTHANDLER"] = "1"        # a hard crash (segfault) shows up as such
    if env:
        full_env.update(env)
    t0 = time.monotonic()
    proc = subprocess.Popen([sys.executable, "-m", "gradcli", *args], cwd=cwd or str(REPO), env=full_env,
                            stdin=subprocess.PIPE if input_bytes is not None else subprocess.DEVNULL,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, preexec_fn=_limits(address_space),
                            start_new_session=True)
    try:
        out, err = proc.communicate(input_bytes, timeout=timeout)
        timed_out = False
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, 9)
        out, err = proc.communicate()
        timed_out = True
    elapsed = time.monotonic() - t0
    return CliResult(proc.returncode, out.decode("utf-8", "replace"), err.decode("utf-8", "replace"), elapsed,
                     timed_out)


_BASELINE = []


def startup_seconds():
    """Wall time of a trivial `gradcli run` on this machine now (the slowest of two runs): the time
    a limit test may add on top of its --timeout. Measured rather than assumed because test
    machines are often loaded."""
    if not _BASELINE:
        _BASELINE.append(max(run_cli(["run", "-c", "pass"]).elapsed for _ in range(2)))
    return _BASELINE[0]

# ============================================================================ arguments, against PyTorch


# Values small enough that no call can allocate much (sizes, steps and counts stay tiny), plus
# the hostile ones: wrong types, values past int64, NaN and infinities, empty and odd tensors.
def argument_values():
    from argument_cases import BAD, TENSORS, Sym
    return st.one_of(
        st.sampled_from(BAD),
        st.sampled_from([Sym(n) for n in TENSORS]),
        st.integers(-4, 4),
        st.sampled_from([2 ** 63, -2 ** 63 - 1, 2 ** 64, 10 ** 30, -(10 ** 30)]),
        st.sampled_from([-1.5, 0.0, 0.5, 2.5, float("nan"), float("inf"), float("-inf"), -0.0]),
        st.lists(st.integers(-3, 3), max_size=3).map(tuple),
        st.lists(st.integers(-3, 3), max_size=3),
        st.text(max_size=3),
    )


ARGUMENT_KWARGS = ["dim", "keepdim", "dtype", "alpha", "p", "min", "max", "out", "requires_grad", "reduction",
                   "rounding_mode", "start_dim", "end_dim", "bogus"]


@st.composite
def argument_calls(draw, targets):
    """(target, args, kwargs): one of `targets` (names as in tests/argument_cases.py) called with
    0 to 4 drawn arguments and up to 2 keyword arguments."""
    from argument_cases import TENSORS, Sym
    target = draw(st.sampled_from(targets))
    args = tuple(draw(st.lists(argument_values(), max_size=4)))
    if target.startswith(("Tensor.", "operator.")) and not (args and isinstance(args[0], Sym)):
        # a method needs its tensor; an operator on two Python ints (10**30 ** 10**30) is Python's own work
        args = (draw(st.sampled_from([Sym(n) for n in TENSORS])),) + args
    kwargs = tuple(draw(st.lists(st.tuples(st.sampled_from(ARGUMENT_KWARGS), argument_values()), max_size=2,
                                 unique_by=lambda kv: kv[0])))
    return target, args, kwargs

# ============================================================================ files gradcli reads


FILE_KINDS = ["regular", "empty", "fifo", "dev-zero", "dev-null", "directory", "dangling", "loop", "binary",
              "latin-1", "symlink-to-regular"]


@st.composite
def file_kinds(draw):
    """(kind, content bytes, size limit): a file to make at a path before gradcli reads it."""
    kind = draw(st.sampled_from(FILE_KINDS))
    content = draw(st.binary(max_size=300)) if kind in ("regular", "symlink-to-regular") else \
        b"x = 1\x00\n" if kind == "binary" else "é = 1\n".encode("latin-1") if kind == "latin-1" else b""
    limit = draw(st.sampled_from([0, 1, 10, 64, 100000]))
    return kind, content, limit


def make_file(path, kind, content):
    """Create `path` as the file kind drawn by `file_kinds` (path must not exist)."""
    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "dev-zero":
        os.symlink("/dev/zero", path)
    elif kind == "dev-null":
        os.symlink("/dev/null", path)
    elif kind == "directory":
        os.mkdir(path)
    elif kind == "dangling":
        os.symlink(str(path) + ".missing", path)
    elif kind == "loop":
        os.symlink(path, path)
    elif kind == "symlink-to-regular":
        target = str(path) + ".target"
        with open(target, "wb") as f:
            f.write(content)
        os.symlink(target, path)
    else:
        with open(path, "wb") as f:
            f.write(content)
