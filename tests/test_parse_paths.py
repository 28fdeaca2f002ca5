"""The two parsers agree. A script CPython's fast path (gradcli/pyparse.py) accepts gets the
same AST from the Lark grammar, positions and statement texts included; a script the grammar
rejects is always declined by the fast path, so the grammar words every syntax error.

Deterministic: fixed @seed, database=None; GRADCLI_FUZZ_SCALE multiplies the examples.
"""
import os
import re
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, seed, settings

import fuzz_strategies as F
import scripts_corpus
from gradcli import lark_parser, parser, pyparse
from gradcli import syntax as S
from gradcli.errors import ParseError

SCALE = float(os.environ.get("GRADCLI_FUZZ_SCALE", "1"))
EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


def dump(x):
    """A node as nested tuples: type, position, statement text and fields."""
    if isinstance(x, S.Node):
        head = (type(x).__name__, (x.line, x.col, x.end_line, x.end_col), getattr(x, "text", None))
        return head + tuple(dump(getattr(x, f)) for f in x.fields)
    if isinstance(x, (list, tuple)):
        return (type(x).__name__,) + tuple(dump(i) for i in x)
    return (type(x).__name__, x)


def both_paths(source):
    """(fast AST dump or None when declined, Lark AST dump or the ParseError)."""
    text = source.replace("\r\n", "\n").replace("\r", "\n")
    if "\x00" in text:
        return None, None
    text += "" if text.endswith("\n") else "\n"
    lines = text.split("\n")
    fast = pyparse.parse(text)
    if fast is not None:
        parser._attach_text(fast.body, lines)
    try:
        slow = lark_parser.parse_text(text)
    except (ParseError, RecursionError) as e:
        return (None if fast is None else dump(fast)), e
    parser._attach_text(slow.body, lines)
    return (None if fast is None else dump(fast)), dump(slow)


def assert_agree(source):
    """Returns True when the fast path took the script."""
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, 20_000))      # dumps of a 1,000-term chain, and comparing them
    try:
        fast, slow = both_paths(source)
        if fast is None:
            return False
        assert not isinstance(slow, Exception), f"the fast path accepted what the grammar rejects: {slow}"
        assert fast == slow
        return True
    finally:
        sys.setrecursionlimit(limit)

# ----------------------------------------------------------------------------- corpora


CORPUS = [pytest.param(src, id=cid) for cid, src in scripts_corpus.CASES] + \
    [pytest.param(p.read_text(encoding="utf-8"), id=p.name) for p in sorted(EXAMPLES.glob("*.py"))]


@pytest.mark.parametrize("source", CORPUS)
def test_differential_corpus_parses_alike_on_both_paths(source):
    assert_agree(source)


def test_the_fast_path_takes_plain_python_snippets():
    # Everything in the corpus is plain Python (f-strings and Chinese docstrings included): none
    # of it may fall back, or the speed-up is silently lost.
    assert all(assert_agree(p.values[0]) for p in CORPUS)


# One line each: the position rules (brackets and keywords are not part of spans), the
# constructs the grammar reads differently, and the ones it lacks (declined).
SNIPPETS = """\
x = (a + b) * c
y = f(a)(b)[0].t
z = f()
w = (1, 2); v = (); u = [1, 2][0]; t = [] ; s = {1, 2}; d = {}; e = {1: 2, 'a': (3,)}
q = x[1:2, ::3, ...]; q = x[:]; q = x[()]; q = x[None, 0]; q = x[(1, 2)]; q = x[1:]
q = -x ** -2 + ~y - +z
q = not a == b and c or not d
q = a < b <= c != d is not e in f not in g is h
q = a | b ^ c & d @ e // f % g / h
q = a if b else c if d else e
q = lambda: 0; r = lambda a, b: a + b
f(*a, b, *c, k=1, **d)
f(a, k=(1, 2), **d)
f(x for x in y)
f(x for x in y if x)
q = [x * 2 for x in range(3) if x]
q = [(a, b) for a, b in pairs]
q = ((x, y) for (x, y) in z)
a = b = c = 1
a, b = b, a
a, = t
x[0] += 1; x.y -= 2; z **= 3; z //= 2; z @= w; z &= 1; z |= 2; z ^= 3; z %= 4; z /= 5; z *= 6
x += 1, 2
print(x, sep='')
print (x)
print(-x)
backward(y)
y.backward(retain_graph=True)
expect = 3
graph = 1
del x[0], y.z
del x
assert x, "message"
assert x
raise ValueError("no") from None
raise
import torch
import torch.nn as nn, numpy
import torch . nn
from torch import nn as n2, tensor
from torch.autograd import grad
return
return a, b
pass; pass
s = 'a' "b" '''c'''
s = f"{x}"; s = f'{x!r:>10}'; s = f"a{x=}b{{c}}"; s = f"{x:{w}}"; s = f"{x:}"; s = f""
s = f"{x}" "y"
s = "\\n"; s = "\\d"
s = b"x"
n = 1_000; n = 0x1f; n = 1.; n = .5; n = 1e-3; n = 1E+5; n = 0o17; n = 0b101
n = 1e1_0
n = 1j
n = 01
x = yield
x = (y := 1)
x = *a, b
x: int = 1
q = {**a}
q = {x: y for x, y in z}
q = [x for x in a for y in b]
q = [x for x in a if b if c]
q = a << 1
global g
class C: pass
@dec
def f(): pass
async def f(): pass
lambda x=1: x
print x
print [1]
backward y, retain_graph=True
expect x.grad == 1
expect error "x"
graph y
expect += 1
f(a=1, b)
f(**k, *a)
x = ((((((((((((((((((((1))))))))))))))))))))
x = 1 +
x = (1,
"""

BLOCKS = [
    "if x:\n    a = 1\nelif y:\n    a = 2\nelif z:\n    pass\nelse:\n    a = 3\n",
    "if x:\n    a = 1\nelse:\n    if y:\n        a = 2\n",
    "if x: a = 1\nelse: a = 2\n",
    "if x:\n    pass\n",
    "while i < 3:\n    i += 1\n    if i: break\n    continue\nelse:\n    done = 1\n",
    "for i in range(3):\n    x = x * 2\nelse:\n    pass\n",
    "for a, b in zip(x, y): print(a)\n",
    "for x[0] in y: pass\n",
    "try:\n    x = 1\nexcept ValueError as e:\n    pass\nexcept (TypeError, KeyError):\n    pass\n"
    "except:\n    raise\nelse:\n    y = 2\nfinally:\n    z = 3\n",
    "try:\n    x = 1\nfinally:\n    z = 3\n",
    "try:\n    x = 1\n",
    "with torch.no_grad():\n    y = x * 2\n",
    "with a as b, c:\n    pass\n",
    "with (a as b):\n    pass\n",
    "with (a, b):\n    pass\n",
    "with a as (b, c):\n    pass\n",
    "def f(a, b=2, *args, c, d=4, **kw) -> int:\n    return a\n",
    "def f():\n    global g\n    g = 1\n",
    "def  f(x: int = 1, y: 'str' = None):\n    '''doc'''\n    return x\n",
    "def f(*, a): pass\n",
    "def f(a, /, b): pass\n",
    "def f(*a: int): pass\n",
    "def f(a=1, b): pass\n",
    "x = [\n    1,\n    2,\n]\ny = f(\n    a,\n    b=2,\n)\n",
    "x = 1 + \\\n    2\n",
    "if x:\n  a = 1\n    b = 2\n",
    "if x:\n        a = 1\n    b = 2\n",
    "# print x\n# note: backward y\nx = 1  # expect nothing\n",
    "x = 1\n\n\n# end\n",
    "",
    "\n\n",
    "import torch\nx = torch.ones(2, requires_grad=True)\ny = (x * x).sum()\ny.backward()\nprint(x.grad)\n",
    "from . import x\n",
    "from x import *\n",
    "from x import (a, b)\n",
    "x = 1\n\tif y:\n",
    "s = 'é'\n",
    "x = 1; y = 'é'; z = 2\n",
    "x = f('分析', y)  # 分析 → ok\nz = x.grad\n",
    'def f():\n    """分析你的实际代码"""\n    return 1\n',
    "s = f'é{x}ü{y!r:>{w}}'; t = 2\n",
    "α = 1\n",
    "ﬁ = 1\n",
    "x = 1\u00a0+ 2\n",
    "x = '\u2028'; y = 1\n",
    "x = 'a\x85b'\n",
]


@pytest.mark.parametrize("source", [line + "\n" for line in SNIPPETS.splitlines()] + BLOCKS)
def test_snippet_parses_alike_on_both_paths(source):
    assert_agree(source)


def test_the_fast_path_declines_what_only_the_dialect_or_the_grammar_reads():
    for source in ["print [1]\n", "backward (y)\n", "graph (y)\n", "expect (x)\n", "x = yield\n",
                   "x = *a, b\n", "s = f'{x}' 'y'\n", "del (a, b)\n", "with (a, b):\n    pass\n",
                   "from x import (a, b)\n", "n = 1e1_0\n", "s = '\\d'\n"]:
        assert pyparse.parse(source) is None, source


def test_the_fast_path_mirrors_the_grammars_number_and_string_tokens():
    grammar = Path(lark_parser.grammar_path()).read_text(encoding="utf-8")
    assert re.search(r"^STRING: /(.*)/s$", grammar, re.M).group(1) == pyparse._STRING.pattern
    assert re.search(r"^NUMBER: /(.*)/$", grammar, re.M).group(1).removesuffix("[jJ]?") == pyparse._NUMBER.pattern

# ----------------------------------------------------------------------------- generated


def _settings(n):
    return settings(max_examples=max(1, int(n * SCALE)), deadline=None, database=None,
                    suppress_health_check=list(HealthCheck))


@seed(20261130)
@_settings(300)
@given(F.valid_scripts())
def test_generated_scripts_parse_alike_on_both_paths(source):
    assert_agree(source)


@seed(20261131)
@_settings(600)
@given(F.mutated_examples())
def test_mutated_examples_parse_alike_or_are_declined(source):
    assert_agree(source)


@seed(20261132)
@_settings(600)
@given(F.token_streams())
def test_token_soup_parses_alike_or_is_declined(source):
    assert_agree(source)
