"""Source text -> AST (syntax.py), through the Lark grammar in grammar/gradcli.lark: the
parser of every script that is not plain Python 3 (the concise dialect, `print x`), and of
their errors. dialect.py translates its tree into Python's.

The LALR parser is generated from the grammar at build time by Lark's standalone
generator (tools/generate_parser.py) into gradcli/lark_standalone.py: a run imports
neither Lark nor anything from a writable place.
"""
from __future__ import annotations

import ast as _pyast
import os
import re
import sys

# The Lark runtime imports the third-party `regex` module when it is installed; gradcli's
# grammar needs only `re`, and importing `regex` would add about 13 ms to every start.
_HIDE_REGEX = "regex" not in sys.modules
if _HIDE_REGEX:
    sys.modules["regex"] = None
try:
    from .lark_standalone import (Lark_StandAlone, PythonIndenter, Token, Transformer, UnexpectedCharacters,
                                  UnexpectedEOF, UnexpectedInput, UnexpectedToken, VisitError)
finally:
    if _HIDE_REGEX:
        del sys.modules["regex"]

from . import syntax as S
from ..engine import ParseError
from .spans import first_pos as _first_pos, shift, span as _span

_PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))      # gradcli/


def grammar_path() -> str:
    """The grammar file: installed as the package gradcli.grammar, or the repository's grammar/."""
    for candidate in (os.path.join(_PACKAGE, "grammar", "gradcli.lark"),
                      os.path.join(os.path.dirname(_PACKAGE), "grammar", "gradcli.lark")):
        if os.path.exists(candidate):
            return candidate
    raise FileNotFoundError("gradcli's grammar file gradcli.lark is missing from the installation")


def _tpos(tok):
    return (tok.line, tok.column, tok.end_line, tok.end_column)


# Python's precedence for the flat operator chains of the grammar (`not` is a prefix at 3).
_PREC = {"or": 1, "and": 2, "|": 5, "^": 6, "&": 7, "+": 9, "-": 9,
         "*": 10, "/": 10, "//": 10, "%": 10, "@": 10}
for _op in ("==", "!=", "<", ">", "<=", ">=", "in", "not in", "is", "is not"):
    _PREC[_op] = 4
_NOT_PREC = 3


class ASTBuilder(Transformer):
    """Parse-tree callbacks -> syntax.py nodes. Lark calls them during LALR parsing (no
    parse tree is built); positions come from the tokens and nodes of each rule."""

    def __init__(self, parse_expr):
        super().__init__()
        self._parse_expr = parse_expr

    # -- module and statements ---------------------------------------------------------
    def file_input(self, items):
        body = self.suite(items)
        return S.Module(body, pos=_span(body))

    def eval_input(self, items):
        return [i for i in items if not isinstance(i, Token)][0]

    def simple_stmt(self, items):
        return [i for i in items if i is not None and not isinstance(i, Token)]

    def suite(self, items):
        body = []
        for it in items:
            if isinstance(it, list):
                body.extend(it)
            elif it is not None and not isinstance(it, Token):
                body.append(it)
        return body

    def expr_stmt(self, items):
        return S.ExprStmt(items[0], pos=_span(items))

    def assign(self, items):
        return S.Assign(items[:-1], items[-1], pos=_span(items))

    def augassign(self, items):
        target, op, value = items
        return S.AugAssign(target, str(op)[:-1], value, pos=_span(items))

    def print_stmt(self, items):
        return S.Print([i for i in items[1:] if i is not None], pos=_span(items))

    def backward_stmt(self, items):
        target, *args = items[1:]
        kwargs = []
        for a in args:
            if not isinstance(a, tuple):
                raise _ParseProblem("`backward` takes keyword options after the tensor, like "
                                    "`backward y, retain_graph=True`", a)
            kwargs.append(a)
        return S.Backward(target, kwargs, pos=_span(items))

    def expect_true(self, items):
        return S.Expect("true", items[1], items[3] if len(items) > 3 else None, pos=_span(items))

    def expect_error(self, items):
        text = "".join(_pyast.literal_eval(str(t)) for t in items[2:])
        return S.Expect("error", text, None, pos=_span(items))

    def expect_freed(self, items):
        return S.Expect("freed", str(items[2]), None, pos=_span(items))

    def expect_retained(self, items):
        return S.Expect("retained", str(items[2]), None, pos=_span(items))

    def graph_stmt(self, items):
        return S.GraphStmt(items[1], pos=_span(items))

    def pass_stmt(self, items):
        return S.Pass(pos=_span(items))

    def break_stmt(self, items):
        return S.Break(pos=_span(items))

    def continue_stmt(self, items):
        return S.Continue(pos=_span(items))

    def return_stmt(self, items):
        return S.Return(items[1], pos=_span(items))

    def raise_stmt(self, items):
        return S.Raise(items[1], pos=_span(items))

    def dotted_name(self, items):
        return Token.new_borrow_pos("DOTTED", ".".join(map(str, items)), items[0])

    def import_stmt(self, items):
        names = []
        for i in range(0, len(items), 2):
            alias = items[i + 1] if i + 1 < len(items) else None
            names.append((str(items[i]), str(alias) if alias is not None else None))
        return S.Import(names, pos=_span([t for t in items if isinstance(t, Token)]))

    def from_import(self, items):
        module, rest = items[0], items[1:]
        names = [(str(rest[i]), str(rest[i + 1]) if rest[i + 1] is not None else None)
                 for i in range(0, len(rest), 2)]
        return S.FromImport(str(module), names, pos=_span(rest))

    def assert_stmt(self, items):
        return S.Assert(items[0], items[1], pos=_span(items))

    def del_stmt(self, items):
        t = items[0]
        return S.Delete(t.elts if isinstance(t, S.TupleExpr) else [t], pos=_span(items))

    def global_stmt(self, items):
        return S.Global([str(t) for t in items], pos=_span(items))

    def if_stmt(self, items):
        test, body, *rest = items
        branches = [(test, body)]
        orelse = rest.pop() if rest and not isinstance(rest[-1], tuple) else None
        branches.extend(r for r in rest if isinstance(r, tuple))
        return S.If(branches, orelse or [], pos=_span(items))

    def elif_clause(self, items):
        return (items[0], items[1])

    def while_stmt(self, items):
        return S.While(items[0], items[1], items[2] or [], pos=_span(items))

    def for_stmt(self, items):
        return S.For(items[0], items[1], items[2], items[3] or [], pos=_span(items))

    def try_stmt(self, items):
        keyword, items = items[0], items[1:]
        body = items[0]
        handlers = [i for i in items[1:-2] if isinstance(i, tuple)]
        orelse, final = items[-2], items[-1]
        if not handlers and final is None:
            raise _ParseProblem("expected 'except' or 'finally' block", _first_pos_token(items))
        return S.Try(body, handlers, orelse or [], final or [], pos=_span([keyword] + items))

    def except_clause(self, items):
        typ, name, body = items
        return (typ, str(name) if name is not None else None, body)

    def with_stmt(self, items):
        return S.With(items[:-1], items[-1], pos=_span(items))

    def with_item(self, items):
        return (items[0], str(items[1]) if items[1] is not None else None)

    def funcdef(self, items):
        name, params, _ret, body = items
        return S.FuncDef(str(name), params or [], body, pos=_span(items))

    def parameters(self, items):
        return [i for i in items if i is not None]

    def param(self, items):
        return ("pos", str(items[0]), items[2])

    def star_param(self, items):
        return ("star", str(items[0]), None)

    def kw_param(self, items):
        return ("kwstar", str(items[0]), None)

    # -- expressions --------------------------------------------------------------------
    def name(self, items):
        return S.Name(str(items[0]), pos=_tpos(items[0]))

    def number(self, items):
        tok = items[0]
        text = str(tok).replace("_", "")
        try:
            if text[-1] in "jJ":
                raise _ParseProblem("complex numbers are not supported", tok)
            if text[:2].lower() in ("0x", "0o", "0b"):
                value = int(text, 0)
            elif re.fullmatch(r"\d+", text):
                if len(text) > 1 and text[0] == "0" and text.strip("0"):
                    raise _ParseProblem("leading zeros in decimal integer literals are not permitted; "
                                        "use an 0o prefix for octal integers", tok)
                if len(text) > 4300:
                    raise _ParseProblem("integer literal too long (more than 4300 digits)", tok)
                value = int(text)
            else:
                value = float(text)
        except ValueError:
            raise _ParseProblem(f"invalid number literal {text!r}", tok)
        return S.Const(value, pos=_tpos(tok))

    def string(self, items):
        parts = []
        fstring = False
        for tok in items:
            prefix = re.match(r"[A-Za-z]*", str(tok)).group(0)
            if "b" in prefix.lower():
                raise _ParseProblem("bytes literals are not supported", tok)
            if "f" in prefix.lower():
                fstring = True
                parts.extend(self._fstring(tok, prefix))
            else:
                try:
                    parts.append(_pyast.literal_eval(str(tok)))
                except (ValueError, SyntaxError) as e:
                    raise _ParseProblem(f"invalid string literal: {e}", tok)
        pos = (items[0].line, items[0].column, items[-1].end_line, items[-1].end_column)
        if not fstring:
            return S.Const("".join(parts), pos=pos)
        merged = []
        for p in parts:
            if isinstance(p, str) and merged and isinstance(merged[-1], str):
                merged[-1] += p
            else:
                merged.append(p)
        return S.FString(merged, pos=pos)

    def _fstring(self, tok, prefix):
        text = str(tok)[len(prefix):]
        q = text[:3] if text[:3] in ('"""', "'''") else text[0]
        body = text[len(q):-len(q)]
        plain = prefix.lower().replace("f", "")
        return _split_fstring(body, lambda lit: _pyast.literal_eval(plain + q + lit + q) if lit else "",
                              self._parse_expr, tok)

    def empty_tuple(self, items):
        return S.TupleExpr([], pos=_span(items))

    def paren(self, items):
        return items[0]

    def tuple(self, items):
        elts = [i for i in items if i is not None]
        return S.TupleExpr(elts, pos=_span(elts))

    def list(self, items):
        elts = [i for i in items if i is not None]
        return S.ListExpr(elts, pos=_span(elts))

    def set(self, items):
        elts = [i for i in items if i is not None]
        return S.SetExpr(elts, pos=_span(elts))

    def listcomp(self, items):
        elt, target, it, cond = items
        return S.ListComp(elt, target, it, cond, pos=_span(items))

    def dict(self, items):
        items = [i for i in items if i is not None]
        return S.DictExpr([k for k, _ in items], [v for _, v in items], pos=_span(items))

    def dict_item(self, items):
        return (items[0], items[1])

    def ellipsis(self, items):
        return S.EllipsisExpr(pos=_tpos(items[0]))

    def const_none(self, items):
        return S.Const(None, pos=_tpos(items[0]))

    def const_true(self, items):
        return S.Const(True, pos=_tpos(items[0]))

    def const_false(self, items):
        return S.Const(False, pos=_tpos(items[0]))

    def slice(self, items):
        items = list(items) + [None] * (3 - len(items))
        return S.SliceExpr(items[0], items[1], items[2], pos=_span(items))

    def call(self, items):
        func, args = items
        pos_args, kwargs = [], []
        for a in (args or []):
            if isinstance(a, tuple):
                kwargs.append(a)
            else:
                if kwargs and not isinstance(a, S.Starred):
                    raise _ParseProblem("positional argument follows keyword argument", a)
                pos_args.append(a)
        return S.Call(func, pos_args, kwargs, pos=_span(items))

    def arguments(self, items):
        return [i for i in items if i is not None]

    def genexp_arg(self, items):
        elt, target, it, cond = items
        return [S.ListComp(elt, target, it, cond, pos=_span(items))]

    def kwarg(self, items):
        return (str(items[0]), items[1])

    def star_arg(self, items):
        return S.Starred(items[0], pos=_span(items))

    def kwstar_arg(self, items):
        return (None, items[0])

    def getitem(self, items):
        return S.Subscript(items[0], items[1], pos=_span(items))

    def getattr(self, items):
        return S.Attr(items[0], str(items[1]), pos=_span(items))

    def pow(self, items):
        return S.BinOp("**", items[0], items[2], pos=_span(items))

    def unary(self, items):
        op, operand = items
        return S.UnaryOp(str(op), operand, pos=_span(items))

    def binop(self, items):
        return " ".join(map(str, items))

    def chain(self, items):
        """Operands, `not` prefixes and operators, in order -> one tree by precedence climbing."""
        n = len(items)
        pos = 0

        def parse(min_prec):
            nonlocal pos
            item = items[pos]
            if isinstance(item, Token):                      # prefix `not`
                if min_prec > _NOT_PREC:
                    raise _ParseProblem("invalid syntax: `not` cannot follow this operator without "
                                        "parentheses", item)
                pos += 1
                operand = parse(_NOT_PREC)
                left = S.Not(operand, pos=(item.line, item.column, operand.end_line, operand.end_col))
            else:
                left = item
                pos += 1
            while pos < n:
                op = items[pos]
                prec = _PREC[op]
                if prec < min_prec:
                    break
                if prec == 4:                                # comparisons chain: a < b < c
                    ops, rights = [], []
                    while pos < n and _PREC.get(items[pos]) == 4:
                        ops.append(items[pos])
                        pos += 1
                        rights.append(parse(5))
                    left = S.Compare(left, ops, rights, pos=(left.line, left.col, rights[-1].end_line,
                                                              rights[-1].end_col))
                elif op in ("and", "or"):
                    values = [left]
                    while pos < n and items[pos] == op:
                        pos += 1
                        values.append(parse(prec + 1))
                    left = S.BoolOp(op, values, pos=(left.line, left.col, values[-1].end_line,
                                                     values[-1].end_col))
                else:
                    pos += 1
                    right = parse(prec + 1)
                    left = S.BinOp(op, left, right, pos=(left.line, left.col, right.end_line, right.end_col))
            return left

        return parse(0)

    def ifexp(self, items):
        body, test, orelse = items
        return S.IfExp(test, body, orelse, pos=_span(items))

    def lambdef(self, items):
        params, body = items
        return S.Lambda(params or [], body, pos=_span(items))

    def lambda_params(self, items):
        return [("pos", str(t), None) for t in items]


def _first_pos_token(items):
    p = _first_pos(items) or (1, 1)
    return Token("X", "", line=p[0], column=p[1])


class _ParseProblem(Exception):
    """Raised inside the transformer; turned into a ParseError with a position."""

    def __init__(self, message, where):
        super().__init__(message)
        if isinstance(where, Token):
            self.pos = (where.line, where.column)
        elif isinstance(where, S.Node):
            self.pos = (where.line, where.col)
        else:
            self.pos = (getattr(where, "line", 1), getattr(where, "column", 1))


def _split_fstring(body, literal, parse_expr, tok):
    """An f-string body -> [str | (expr, conversion, spec_parts)]."""
    parts, lit, i, n = [], [], 0, len(body)
    while i < n:
        c = body[i]
        if c == "{" and body[i + 1:i + 2] == "{":
            lit.append("{{")
            i += 2
            continue
        if c == "}" and body[i + 1:i + 2] == "}":
            lit.append("}}")
            i += 2
            continue
        if c == "}":
            raise _ParseProblem("f-string: single '}' is not allowed", tok)
        if c != "{":
            lit.append(c)
            i += 1
            continue
        if lit:
            parts.append(literal("".join(lit).replace("{{", "{").replace("}}", "}")))
            lit = []
        j, depth, quote = i + 1, 0, None
        expr_end = conv = spec_start = None
        while j < n:
            ch = body[j]
            if quote:
                if ch == quote:
                    quote = None
            elif ch in "'\"":
                quote = ch
            elif ch in "([{":
                depth += 1
            elif ch in ")]}" and depth:
                depth -= 1
            elif depth == 0 and ch == "!" and body[j + 1:j + 2] != "=" and expr_end is None:
                expr_end = j
                conv = body[j + 1:j + 2]
                j += 1
            elif depth == 0 and ch == ":" and spec_start is None:
                if expr_end is None:
                    expr_end = j
                spec_start = j + 1
                break
            elif depth == 0 and ch == "}":
                break
            j += 1
        # the spec runs to the matching close brace, and may hold nested {fields}
        if spec_start is not None:
            k, d = spec_start, 0
            while k < n and not (body[k] == "}" and d == 0):
                d += {"{": 1, "}": -1}.get(body[k], 0)
                k += 1
            end = k
        else:
            end = j
        if end >= n:
            raise _ParseProblem("f-string: expecting '}'", tok)
        if expr_end is None:
            expr_end = end
        src = body[i + 1:expr_end]
        self_doc = src.rstrip().endswith("=") and not src.rstrip().endswith(("==", "!=", "<=", ">="))
        if self_doc:
            parts.append(src)
            src = src.rstrip()[:-1]
            if conv is None and spec_start is None:
                conv = "r"
        if not src.strip():
            raise _ParseProblem("f-string: empty expression not allowed", tok)
        if conv is not None and conv not in "rsa":
            raise _ParseProblem("f-string: invalid conversion character: expected 's', 'r', or 'a'", tok)
        spec = None
        if spec_start is not None:
            spec = _split_fstring(body[spec_start:end], lambda s: s, parse_expr, tok)
        field = [None, conv, spec]           # the expression is parsed once the outer parse is done
        parse_expr(src.strip(), tok, field)
        parts.append(field)
        i = end + 1
    if lit:
        parts.append(literal("".join(lit).replace("{{", "{").replace("}}", "}")))
    return parts

# ----------------------------------------------------------------------------- the parser


_PARSER = None


def _make_parser():
    global _PARSER
    if _PARSER is None:
        _PARSER = Lark_StandAlone(postlex=PythonIndenter(), transformer=ASTBuilder(_defer_fragment))
    return _PARSER

# ----------------------------------------------------------------------------- entry points


def parse_text(text: str) -> S.Module:
    """Parse normalised source (\n line ends, a final newline) with the Lark grammar.
    Raises ParseError with line, column and advice."""
    parser = _make_parser()
    try:
        _PENDING.clear()
        module = parser.parse(text, start="file_input")
        _resolve_fragments()
    except VisitError as e:
        raise _from_problem(e.orig_exc, text) from None
    except _ParseProblem as e:
        raise _from_problem(e, text) from None
    except UnexpectedInput as e:
        raise _from_lark(e, text) from None
    except Exception as e:
        if type(e).__name__ == "DedentError":
            line = _dedent_line(text, e)
            raise ParseError("unindent does not match any outer indentation level", span=(line, 1)) from None
        raise
    return module


_PENDING = []          # f-string fields of the parse in progress: (source, token, field)


def _defer_fragment(src, tok, field):
    # The transformer runs inside the LALR parse, which must not be re-entered: remember it.
    _PENDING.append((src, tok, field))


def _resolve_fragments():
    while _PENDING:
        src, tok, field = _PENDING.pop()
        field[0] = _parse_fragment(src, tok)


def _parse_fragment(src, tok):
    """An expression inside an f-string; positions point at the string."""
    parser = _make_parser()
    try:
        outer = _PENDING[:]
        _PENDING.clear()
        expr = parser.parse(src + "\n", start="eval_input")
        _resolve_fragments()
        _PENDING.extend(outer)
    except (UnexpectedInput, _ParseProblem, VisitError):
        raise _ParseProblem(f"f-string: invalid expression {src!r}", tok)
    shift(expr, tok.line, tok.column)
    return expr


# ----------------------------------------------------------------------------- error messages


_READABLE = {
    "NAME": "a name", "NUMBER": "a number", "STRING": "a string", "_NEWLINE": "end of line",
    "$END": "end of input", "_INDENT": "an indented block", "_DEDENT": "end of block",
    "LPAR": "'('", "RPAR": "')'", "LSQB": "'['", "RSQB": "']'", "LBRACE": "'{'", "RBRACE": "'}'",
    "COLON": "':'", "COMMA": "','", "EQUAL": "'='", "DOT": "'.'", "SEMICOLON": "';'",
    "ADD_OP": "'+' or '-'", "MUL_OP": "an operator", "UNARY_OP": "'-'", "COMP_OP": "a comparison",
    "AUGOP": "'+='", "STAR": "'*'", "DOUBLESTAR": "'**'", "PRINT_KW": "print", "BACKWARD_KW": "backward",
}


def _readable(term):
    if term in _READABLE:
        return _READABLE[term]
    if term.isupper() and not term.startswith("_"):
        word = term.lower()
        return f"'{word}'"
    return term.lower()


def _expected(expected):
    names = sorted({_readable(t) for t in expected if not t.startswith("__")})
    if not names:
        return ""
    if len(names) > 8:
        return "an expression or statement"
    return ", ".join(names[:-1]) + (" or " if len(names) > 1 else "") + names[-1]


def _from_problem(e, text):
    line, col = e.pos if isinstance(e, _ParseProblem) else (1, 1)
    return ParseError(str(e), span=(line, col))


def _from_lark(e, text):
    line, col = max(getattr(e, "line", 1) or 1, 1), max(getattr(e, "column", 1) or 1, 1)
    unclosed = _unclosed_bracket(text)
    if isinstance(e, UnexpectedCharacters):
        ch = text[e.pos_in_stream] if e.pos_in_stream < len(text) else ""
        if ch in "'\"":
            return ParseError("unterminated string literal", span=(line, col))
        if unclosed and ch in ")]}":
            pass
        if ch in ")]}":
            return ParseError(f"unmatched '{ch}'", span=(line, col))
        return ParseError(f"invalid character {ch!r} (U+{ord(ch):04X})" if ch else "invalid syntax",
                          span=(line, col))
    if isinstance(e, UnexpectedToken):
        tok = e.token
        if tok.type == "$END" and unclosed:
            ch, uline, ucol = unclosed
            return ParseError(f"'{ch}' was never closed", span=(uline, ucol))
        open_before = _unclosed_bracket(text[:tok.start_pos]) if tok.start_pos is not None else None
        if open_before and tok.line and open_before[1] < tok.line:
            ch, uline, ucol = open_before          # Python blames the bracket, not the next line
            return ParseError(f"'{ch}' was never closed", span=(uline, ucol))
        if tok.type == "_INDENT":
            return ParseError("unexpected indent", span=(tok.line, tok.column))
        if "_INDENT" in e.expected and tok.type != "_INDENT":
            block_line = _block_opener(text, tok.line)
            return ParseError(f"expected an indented block{block_line}", span=(tok.line or line, max(tok.column or 1, 1)))
        if tok.type == "$END":
            line = text.count("\n")
            col = 1
        shown = "end of line" if tok.type == "_NEWLINE" else "end of input" if tok.type == "$END" else repr(str(tok))
        exp = _expected(e.expected)
        msg = f"invalid syntax: unexpected {shown}" + (f"; expected {exp}" if exp else "")
        if "COLON" in e.expected and len(e.expected) <= 3:
            msg = "expected ':'"
        if tok.type == "EQUAL":
            msg = "invalid syntax: unexpected '='" + (f"; expected {exp}" if exp else "")
        return ParseError(msg, span=(tok.line or line, tok.column or col))
    if isinstance(e, UnexpectedEOF):
        if unclosed:
            ch, uline, ucol = unclosed
            return ParseError(f"'{ch}' was never closed", span=(uline, ucol))
        return ParseError("unexpected end of input", span=(line, col))
    return ParseError("invalid syntax", span=(line, col))


def _block_opener(text, line):
    lines = text.split("\n")
    for i in range(min(line, len(lines)) - 2, -1, -1):
        s = lines[i].strip()
        if s and not s.startswith("#"):
            m = re.match(r"(if|elif|else|for|while|def|try|except|finally|with)\b", s)
            return f" after '{m.group(1)}' statement on line {i + 1}" if m else ""
    return ""


def _unclosed_bracket(text):
    """The innermost bracket left open at the end of the text: (char, line, column)."""
    stack = []
    line, col = 1, 0
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        col += 1
        if c == "\n":
            line, col = line + 1, 0
        elif c == "#":
            while i < n and text[i] != "\n":
                i += 1
            continue
        elif c in "'\"":
            q = text[i:i + 3] if text[i:i + 3] in ('"""', "'''") else c
            j = i + len(q)
            while j < n and text[j:j + len(q)] != q:
                if text[j] == "\\":
                    j += 1
                if text[j:j + 1] == "\n":
                    if len(q) == 1:
                        break
                    line, col = line + 1, 0
                j += 1
            col += j + len(q) - i - 1
            i = j + len(q)
            continue
        elif c in "([{":
            stack.append((c, line, col))
        elif c in ")]}" and stack:
            stack.pop()
        i += 1
    return stack[-1] if stack else None


def _dedent_line(text, e):
    m = re.search(r"column (\d+)", str(e))
    lines = text.split("\n")
    if m:
        want = int(m.group(1))
        for i, l in enumerate(lines):
            if l.strip() and len(l) - len(l.lstrip()) == want:
                return i + 1
    return 1
