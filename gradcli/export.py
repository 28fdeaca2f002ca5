"""`gradcli export`: a gradcli script as a runnable Python + PyTorch script.

So a user can check gradcli's story in real PyTorch. The script's own text is kept
(comments, layout, line order); only what plain Python cannot run is rewritten:

* implicit leaves of the concise dialect, with their `--set` values (default 1.0), become
  `x = torch.tensor(2.0, requires_grad=True)` at the top, and `import torch` is added;
* `backward y, retain_graph=True`  ->  `y.backward(retain_graph=True)`;
* the Python 2 statement `print x, y`  ->  `print(x, y)`;
* `expect A == B [within T]`, `expect COND`, `expect freed|retained NAME` become checks
  that raise AssertionError in PyTorch too (small helpers are added when used), and
  `expect error "text"` wraps the next statement in try/except;
* `graph y` (a gradcli view) becomes `pass`.

Which names are implicit leaves is taken from a gradcli run of the script (the same
rule the interpreter applies), so the export is exactly the script gradcli ran.
"""
from __future__ import annotations

import ast as pyast
import re
from dataclasses import dataclass, field

from . import syntax as S


class ExportError(Exception):
    """The script uses something the exporter cannot express (with the line)."""


@dataclass
class Exported:
    text: str
    leaves: list = field(default_factory=list)      # (name, value) of the implicit leaves
    report: object = None                            # gradcli's own run of the script
    parse_failed: bool = False


HELPERS = {
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


def _floatify(v):
    if isinstance(v, (list, tuple)):
        return [_floatify(x) for x in v]
    return float(v)


def leaf_literal(value):
    """The Python literal of an implicit leaf's value, as floats (the leaf is float32)."""
    return repr(_floatify(value))


class _Source:
    """Statement extents in normalised source text, found with Python's tokenizer (gradcli's
    tokens are Python's), so only each statement's start position is taken from the AST."""

    def __init__(self, text):
        import io
        import tokenize
        self.text = text
        self.starts = [0]
        for i, ch in enumerate(text):
            if ch == "\n":
                self.starts.append(i + 1)
        try:
            self.tokens = list(tokenize.generate_tokens(io.StringIO(text).readline))
        except (tokenize.TokenError, SyntaxError) as e:
            raise ExportError(f"cannot tokenize the script: {e}") from None
        self.used = set()               # keyword tokens already matched to a statement
        self.spans = {}
        self.first = {}                 # (line, 0-based col) -> index of the token starting there
        for i, tok in enumerate(self.tokens):
            self.first.setdefault(tok.start, i)

    def offset(self, line, col):
        return self.starts[line - 1] + col - 1

    def _pos(self, rowcol):
        return self.starts[rowcol[0] - 1] + rowcol[1] if rowcol[0] <= len(self.starts) else len(self.text)

    def _start(self, st):
        """The index of the statement's first token. A gradcli-only statement must start with
        its keyword; if the AST position does not point at one, take the next unused keyword
        token that starts a statement on the statement's lines."""
        i = self.first.get((st.line, st.col - 1))
        keyword = _KEYWORDS.get(type(st))
        if keyword is None or (i is not None and self.tokens[i].string == keyword and i not in self.used):
            return i
        import tokenize
        for j, tok in enumerate(self.tokens):
            if (tok.type == tokenize.NAME and tok.string == keyword and st.line <= tok.start[0] <= max(st.end_line, st.line)
                    and j not in self.used and self._starts_statement(j)):
                return j
        return i

    def _starts_statement(self, j):
        import tokenize
        k = j - 1
        while k >= 0 and self.tokens[k].type in (tokenize.NL, tokenize.COMMENT):
            k -= 1
        if k < 0:
            return True
        prev = self.tokens[k]
        return prev.type in (tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT) or prev.string in (";", ":")

    def span(self, st):
        """(start, end) offsets: a simple statement ends at `;` or the end of its logical line
        (comments excluded); a compound one at the end of its block."""
        import tokenize
        if id(st) in self.spans:
            return self.spans[id(st)]
        i = self._start(st)
        if i is None:
            raise ExportError(f"line {st.line}: cannot find the statement in the source")
        if type(st) in _KEYWORDS:
            self.used.add(i)
        start = self.tokens[i].start
        toks = self.tokens
        depth = 0
        end = toks[i].end
        compound = isinstance(st, _COMPOUND)
        while i < len(toks):
            tok = toks[i]
            if tok.type == tokenize.OP and tok.string in "([{":
                depth += 1
            elif tok.type == tokenize.OP and tok.string in ")]}":
                depth -= 1
            elif depth == 0 and (tok.type in (tokenize.NEWLINE, tokenize.ENDMARKER)
                                 or (tok.type == tokenize.OP and tok.string == ";" and not compound)):
                break
            if tok.type not in (tokenize.COMMENT, tokenize.NL):
                end = tok.end
            i += 1
        if compound and i + 1 < len(toks) and toks[i].type == tokenize.NEWLINE:
            j = i + 1
            while j < len(toks) and toks[j].type in (tokenize.NL, tokenize.COMMENT):
                j += 1
            if j < len(toks) and toks[j].type == tokenize.INDENT:      # an indented block: to its DEDENT
                level = 0
                while j < len(toks):
                    if toks[j].type == tokenize.INDENT:
                        level += 1
                    elif toks[j].type == tokenize.DEDENT:
                        level -= 1
                        if level == 0:
                            break
                    elif toks[j].type not in (tokenize.NL, tokenize.COMMENT, tokenize.NEWLINE):
                        end = toks[j].end
                    j += 1
        self.spans[id(st)] = result = (self._pos(start), self._pos(end))
        return result

    def segment(self, st):
        a, b = self.span(st)
        return self.text[a:b]

    def indent_of(self, line):
        start = self.starts[line - 1]
        m = re.match(r"[ \t]*", self.text[start:])
        return m.group(0)


_COMPOUND = (S.If, S.While, S.For, S.Try, S.With, S.FuncDef)
_KEYWORDS = {S.Backward: "backward", S.Print: "print", S.Expect: "expect", S.GraphStmt: "graph"}


def _blocks(body, header_line=None):
    """(statement list, the line of the header that owns it or None) for every block."""
    yield body, header_line
    for st in body:
        if isinstance(st, S.If):
            for _, b in st.branches:
                yield from _blocks(b, st.line)
            if st.orelse:
                yield from _blocks(st.orelse, st.line)
        elif isinstance(st, (S.While, S.For)):
            yield from _blocks(st.body, st.line)
            if st.orelse:
                yield from _blocks(st.orelse, st.line)
        elif isinstance(st, S.Try):
            yield from _blocks(st.body, st.line)
            for _, _, b in st.handlers:
                yield from _blocks(b, st.line)
            for b in (st.orelse, st.finalbody):
                if b:
                    yield from _blocks(b, st.line)
        elif isinstance(st, (S.With, S.FuncDef)):
            yield from _blocks(st.body, st.line)


def _pyexpr(text, line):
    try:
        return pyast.parse(text.strip(), mode="eval").body
    except SyntaxError:
        raise ExportError(f"line {line}: cannot export `{text.strip()}`") from None


def _call_parts(rest, line):
    """`y, retain_graph=True` -> ("y" with parentheses if needed, ["retain_graph=True"])."""
    wrapped = "_f(" + rest.strip() + ")"
    try:
        call = pyast.parse(wrapped, mode="eval").body
    except SyntaxError:
        raise ExportError(f"line {line}: cannot export `{rest.strip()}`") from None
    target = pyast.get_source_segment(wrapped, call.args[0])
    if not isinstance(call.args[0], (pyast.Name, pyast.Attribute, pyast.Call, pyast.Subscript)):
        target = f"({target})"
    kwargs = [pyast.get_source_segment(wrapped, k) for k in call.keywords]
    return target, kwargs


def _keyword_rest(segment, keyword):
    return segment[len(keyword):]


def _rewrite(st, src, helpers, followed):
    """The replacement text of a gradcli-only simple statement (None: keep it)."""
    seg = src.segment(st)
    if isinstance(st, S.Backward):
        target, kwargs = _call_parts(_keyword_rest(seg, "backward"), st.line)
        return f"{target}.backward({', '.join(kwargs)})"
    if isinstance(st, S.Print):
        rest = _keyword_rest(seg, "print").strip()
        return f"print({rest})"
    if isinstance(st, S.GraphStmt):
        return "pass" if followed else f"pass  # gradcli: {seg}"
    if isinstance(st, S.Expect):
        text = repr(f"{seg} (line {st.line})")
        if st.kind in ("freed", "retained"):
            helpers.add("freed")
            return f"_gradcli_expect_freed({st.value}, {st.kind == 'freed'}, {text})"
        body = _keyword_rest(seg, "expect")
        within = None
        if st.tolerance is not None:
            m = list(re.finditer(r"\swithin\s", body))
            if not m:
                raise ExportError(f"line {st.line}: cannot export `{seg}`")
            body, within = body[:m[-1].start()], body[m[-1].end():].strip()
        expr = _pyexpr(body, st.line)
        stripped = body.strip()
        if isinstance(expr, pyast.Compare) and len(expr.ops) == 1 and isinstance(expr.ops[0], pyast.Eq):
            helpers.add("close")
            a = pyast.get_source_segment(stripped, expr.left)
            b = pyast.get_source_segment(stripped, expr.comparators[0])
            return f"_gradcli_expect_close({a}, {b}, {within or 'None'}, {text})"
        helpers.add("expect")
        return f"_gradcli_expect({stripped}, {text})"
    return None


def transform(source, module):
    """The script body with gradcli-only statements rewritten. Returns (text, helpers)."""
    text = source.replace("\r\n", "\n")
    if not text.endswith("\n"):
        text += "\n"
    src = _Source(text)
    helpers = set()
    edits = []                          # (start, end, replacement), non-overlapping
    for body, header in _blocks(module.body):
        skip = set()
        for i, st in enumerate(body):
            if id(st) in skip:
                continue
            if isinstance(st, S.Expect) and st.kind == "error":
                if i + 1 >= len(body):
                    raise ExportError(f"line {st.line}: `expect error` must be followed by the statement "
                                      "that raises")
                nxt = body[i + 1]
                skip.add(id(nxt))
                if header is not None and st.line == header:
                    raise ExportError(f"line {st.line}: put `expect error` and the statement after it on their "
                                      "own lines to export them")
                edits.append(_expect_error_edit(st, nxt, src, helpers, body, i))
                continue
            a, b = src.span(st)
            rest = text[b:text.find("\n", b)]
            rep = _rewrite(st, src, helpers, followed=bool(rest.strip(" \t;")))
            if rep is not None:
                edits.append((a, a + len(src.segment(st)), rep))
    for a, b, rep in sorted(edits, reverse=True):
        text = text[:a] + rep + text[b:]
    return text, helpers


def _expect_error_edit(st, nxt, src, helpers, body, i):
    helpers.add("error")
    text = src.text
    indent = src.indent_of(st.line)
    a, _ = src.span(st)
    prefix = ""
    j = a - 1
    while j >= 0 and text[j] in " \t":
        j -= 1
    if j >= 0 and text[j] == ";":               # `f = x+y; expect error "..."; ...`
        a = j
        prefix = "\n" + indent
    n_a, n_b = src.span(nxt)
    inner = text[n_a:n_b].rstrip()
    # nxt may also be rewritten (`backward y`, `print x`)
    rep = _rewrite(nxt, src, helpers, followed=False) if not isinstance(nxt, S.Expect) or nxt.kind != "error" else None
    if rep is not None:
        inner = rep + inner[len(src.segment(nxt)):]
    end = n_a + len(text[n_a:n_b].rstrip())
    k = end
    while k < len(text) and text[k] in " \t":
        k += 1
    suffix = ""
    if k < len(text) and text[k] == ";":
        end = k + 1
        while end < len(text) and text[end] in " \t":
            end += 1
        suffix = "\n" + indent
    body_lines = inner.split("\n")
    inner = "\n".join("    " + l if l.strip() or not n else l for n, l in enumerate(body_lines))
    label = repr(f"{src.segment(st)} (line {st.line})")
    block = (f"{prefix}try:\n{indent}{inner}\n{indent}except Exception as _gradcli_error:\n"
             f"{indent}    _gradcli_expect_error(_gradcli_error, {st.value!r}, {label})\n"
             f"{indent}else:\n{indent}    raise AssertionError({label} + ' failed: no error')"
             f"{suffix}")
    return a, end, block


def export_source(source, filename="<script>", *, values=None, strict=False, timeout=None,
                  max_elements=None, max_memory=None) -> Exported:
    """Run the script under gradcli (to learn its implicit leaves), then rewrite it."""
    from . import parser
    from .errors import ParseError
    from .runner import run_source
    report = run_source(source, filename, values=values, strict=strict, timeout=timeout,
                        max_elements=max_elements, max_memory=max_memory)
    if report.parse_failed:
        return Exported("", report=report, parse_failed=True)
    try:
        module = parser.parse(source, filename)
    except ParseError:                      # run_source parsed it already: cannot happen
        return Exported("", report=report, parse_failed=True)
    leaves = []
    for item in report.items:
        if item[0] == "leaves":
            leaves = [name for name, _ in item[1]]
    values = values or {}
    body, helpers = transform(source, module)
    from .interp import _imports_torch
    head = [f"# Exported by gradcli from {filename}: the same script for Python + PyTorch.",
            "# (gradcli export rewrote only what plain Python cannot run.)"]
    if not _imports_torch(module.body):
        head.append("import torch")
    if leaves:
        head.append("# implicit leaves of the concise dialect" + (" (values from --set; default 1.0)"))
        for name in leaves:
            head.append(f"{name} = torch.tensor({leaf_literal(values.get(name, 1.0))}, requires_grad=True)")
    for key in ("expect", "close", "error", "freed"):
        if key in helpers:
            head.append("")
            head.append(HELPERS[key].rstrip("\n"))
    if helpers:
        head.append("")
    if body.startswith("#!"):
        first, _, rest = body.partition("\n")
        head.insert(0, first)
        body = rest
    text = "\n".join(head) + "\n" + body
    return Exported(text, [(n, values.get(n, 1.0)) for n in leaves], report)
