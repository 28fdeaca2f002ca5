"""The concise dialect is translated into the Python that CPython runs (gradcli/lang/dialect.py).

The grammar reads a subset of Python as well as the dialect, so the translator can be checked
against CPython itself: for every script that both read, the translated tree is exactly
CPython's tree. Dialect statements become the Python that `gradcli export` writes, with the
script's own positions, so errors and node origins name the script's lines.

Deterministic: fixed @seed, database=None; GRADCLI_FUZZ_SCALE multiplies the examples.
"""
import ast
import os
import sys
import textwrap
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, seed, settings

import fuzz_strategies as F
import scripts_corpus
from gradcli.lang import dialect, grammar as lark_parser, statements as parser
from gradcli.lang.dialect import _Translator
from gradcli.engine import ParseError

SCALE = float(os.environ.get("GRADCLI_FUZZ_SCALE", "1"))
EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


def translated(text):
    """The grammar's reading of `text`, translated (None when the grammar rejects it)."""
    text = dialect.normalise(text)
    try:
        module = lark_parser.parse_text(text)
    except (ParseError, RecursionError):
        return None
    parser.attach_text(module.body, text.split("\n"))
    return ast.Module(body=_Translator(text).block(module.body) if module.body else [], type_ignores=[])


def assert_same_as_cpython(source):
    """When both CPython and the grammar read the script, they read the same program."""
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, 20_000))
    try:
        try:
            expected = ast.parse(dialect.normalise(source))
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            return False
        mine = translated(source)
        if mine is None:
            return False
        assert ast.dump(mine) == ast.dump(expected)
        return True
    finally:
        sys.setrecursionlimit(limit)


CORPUS = [pytest.param(src, id=cid) for cid, src in scripts_corpus.CASES] + \
    [pytest.param(p.read_text(encoding="utf-8"), id=p.name) for p in sorted(EXAMPLES.glob("*.py"))]


@pytest.mark.parametrize("source", CORPUS)
def test_corpus_scripts_translate_to_cpythons_own_tree(source):
    assert_same_as_cpython(source)


def test_most_of_the_corpus_is_read_by_both():
    both = sum(assert_same_as_cpython(p.values[0]) for p in CORPUS)
    assert both >= 0.8 * len(CORPUS), f"only {both} of {len(CORPUS)} corpus scripts are read by both parsers"


def _settings(n):
    return settings(max_examples=max(1, int(n * SCALE)), deadline=None, database=None,
                    suppress_health_check=list(HealthCheck))


@seed(20261130)
@_settings(300)
@given(F.valid_scripts())
def test_generated_scripts_translate_to_cpythons_tree(source):
    assert_same_as_cpython(source)


@seed(20261131)
@_settings(400)
@given(F.mutated_examples())
def test_mutated_examples_translate_to_cpythons_tree_or_are_rejected(source):
    assert_same_as_cpython(source)


@seed(20261132)
@_settings(400)
@given(F.token_streams())
def test_any_text_parses_or_is_a_syntax_error_with_a_line(source):
    try:
        program = dialect.parse(source)
    except ParseError as e:
        assert e.span is None or e.span[0] >= 1
        return
    compile(program.tree, "<s>", "exec") if _compiles(program.tree) else None


def _compiles(tree):
    try:
        compile(tree, "<s>", "exec")
    except SyntaxError:          # `return` outside a function: the executor reports it as a SyntaxError
        return False
    return True

# ----------------------------------------------------------------------------- the dialect


def unparsed(source, **kw):
    return ast.unparse(dialect.parse(textwrap.dedent(source), **kw).tree)


def test_dialect_statements_become_python():
    assert unparsed("""\
        f = x+y; z = 2*f
        backward z, retain_graph=True
        print x.grad, y.grad
        graph z
        """, values={"x": 2, "y": [1, 2]}) == textwrap.dedent("""\
        x = torch.tensor(2.0, requires_grad=True)
        y = torch.tensor([1.0, 2.0], requires_grad=True)
        f = x + y
        z = 2 * f
        z.backward(retain_graph=True)
        print(x.grad, y.grad)
        _gradcli_graph(z, 'z')""")


def test_positions_are_the_scripts_own():
    program = dialect.parse("f = x+y\n\nbackward f ; print f.grad\n")
    backward, show = program.tree.body[-2:]
    assert (backward.lineno, backward.col_offset, backward.end_col_offset) == (3, 0, 10)
    assert (show.lineno, show.col_offset, show.end_col_offset) == (3, 13, 25)
    assert (program.tree.body[0].lineno, program.tree.body[0].col_offset) == (1, 0)   # the leaf x


def test_implicit_leaves_are_names_read_as_values_and_bound_nowhere():
    program = dialect.parse("q = np.exp(w) + w\nr = helper(q) * v\ndef g(a):\n    return a * k\n")
    assert [n for n, _ in program.leaves] == ["w", "v", "k"]    # np and helper are only called or dotted
    assert dialect.parse("import torch\ny = x * 2\n").leaves == []
    assert dialect.parse("y = x * 2\n", strict=True).leaves == []
    assert dialect.parse("y = torch.ones(2) * 2\n").leaves == []    # torch is bound, never a leaf


def test_expect_error_wraps_the_statement_after_it():
    text = unparsed('expect error "second time"\nbackward y\n')
    assert text.endswith("try:\n    y.backward()\nexcept Exception as _gradcli_error:\n"
                         "    _gradcli_expect_error(_gradcli_error, 'second time', 'expect error \"second time\" "
                         "(line 1)')\nelse:\n    _gradcli_expect_no_error('expect error \"second time\" (line 1)')")
    with pytest.raises(ParseError, match="followed"):
        dialect.parse('x = 1\nexpect error "x"\n')
