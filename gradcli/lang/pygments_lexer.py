"""A Pygments lexer for gradcli's language: the Python subset PyTorch snippets use, plus
the concise dialect's statements (`backward y`, `print x`, `expect ...`, `graph y`).

The REPL highlights input with it (prompt_toolkit's PygmentsLexer), and Rich can use it
to show scripts: `Syntax(code, lexer=GradcliLexer())`. Highlighting only: the grammar in
grammar/gradcli.lark decides what parses. The dialect keywords are recognised exactly
where the grammar accepts them (at the start of a statement, followed by an operand),
so `y.backward()` and `backward = 1` stay ordinary names.
"""
from __future__ import annotations

import keyword
import re

from pygments.lexer import RegexLexer, bygroups, combined, include, words
from pygments.token import (Comment, Keyword, Name, Number, Operator, Punctuation, String, Text,
                            Whitespace)

__all__ = ["GradcliLexer"]

# Start of a statement: the start of a line (after indentation) or after `;` or a block's `:`.
_STMT = r"(?:^|(?<=[;:]))([ \t]*)"

_BUILTINS = ("abs", "all", "any", "ascii", "bool", "callable", "chr", "dict", "divmod", "enumerate",
             "filter", "float", "format", "int", "isinstance", "len", "list", "map", "max", "min",
             "ord", "pow", "print", "range", "repr", "reversed", "round", "set", "sorted", "str", "sum",
             "tuple", "type", "zip")
_EXCEPTIONS = ("ArithmeticError", "AssertionError", "AttributeError", "BaseException", "Exception",
               "IndexError", "KeyError", "LookupError", "NameError", "NotImplementedError",
               "OverflowError", "RecursionError", "RuntimeError", "StopIteration", "TypeError",
               "ValueError", "ZeroDivisionError")
_CONSTANTS = ("True", "False", "None")
_KEYWORDS = tuple(k for k in keyword.kwlist if k not in _CONSTANTS)


class GradcliLexer(RegexLexer):
    """gradcli scripts (.grad, and the PyTorch-dialect .py snippets gradcli runs)."""

    name = "gradcli"
    aliases = ["gradcli", "grad"]
    filenames = ["*.grad"]
    mimetypes = ["text/x-gradcli"]

    flags = re.MULTILINE

    tokens = {
        "root": [
            # REPL commands (`:vars`, `:graph y1`) at the start of the input.
            (r"\A(:[a-z]+)\b(.*)$", bygroups(Keyword.Pseudo, Text)),
            # The concise dialect's statements: the grammar's lookaheads, at a statement start
            # (so these come before the whitespace rule, which would eat the indentation).
            (_STMT + r"(expect)([ \t]+)(error|freed|retained)(?=[ \t]+[\"'A-Za-z_])",
             bygroups(Whitespace, Keyword.Reserved, Whitespace, Keyword.Reserved)),
            (_STMT + r"(backward|graph)(?=[ \t]+[A-Za-z_(])", bygroups(Whitespace, Keyword.Reserved)),
            (_STMT + r"(expect)(?=[ \t]+[^\s=.,;:)\]}])", bygroups(Whitespace, Keyword.Reserved)),
            (_STMT + r"(print)(?=[ \t]+[A-Za-z_0-9\"'\[])", bygroups(Whitespace, Keyword.Reserved)),
            (r"(?<=[\w)\]}. \t])(within)(?=[ \t]+[-+0-9.])", Keyword.Reserved),
            (r"\n", Whitespace),
            (r"[ \t\f]+", Whitespace),
            (r"\\\n", Text),
            (r"#.*$", Comment.Single),
            (r"(def)([ \t]+)", bygroups(Keyword, Whitespace), "funcname"),
            (r"(import|from)\b", Keyword.Namespace),
            (words(_CONSTANTS, suffix=r"\b"), Keyword.Constant),
            (words(_KEYWORDS, prefix=r"(?<![\w.])", suffix=r"\b"), Keyword),
            (words(_BUILTINS, prefix=r"(?<![\w.])", suffix=r"\b"), Name.Builtin),
            (words(_EXCEPTIONS, prefix=r"(?<![\w.])", suffix=r"\b"), Name.Exception),
            (r"(?<![\w.])(torch|F)\b", Name.Namespace),
            include("strings"),
            include("numbers"),
            (r"\*\*=?|//=?|[-+*/%@&|^]=?|<<|>>|[<>!=]=|[<>~]|->", Operator),
            (r"=", Operator),
            (r"[()\[\]{},:;.]", Punctuation),
            (r"(?<=\.)[A-Za-z_]\w*", Name.Attribute),
            (r"[^\W\d]\w*", Name),
            (r".", Text),
        ],
        "funcname": [
            (r"[^\W\d]\w*", Name.Function, "#pop"),
            (r"", Text, "#pop"),
        ],
        "numbers": [
            (r"0[xX][0-9a-fA-F_]+|0[oO][0-7_]+|0[bB][01_]+", Number.Integer),
            (r"(\d[\d_]*\.[\d_]*|\.\d[\d_]*)([eE][+-]?\d+)?[jJ]?", Number.Float),
            (r"\d[\d_]*[eE][+-]?\d+[jJ]?", Number.Float),
            (r"\d[\d_]*[jJ]?", Number.Integer),
        ],
        "strings": [
            (r'(?i)(rb|br|fr|rf|[ubfr])?"""', String.Double, combined("tdqs")),
            (r"(?i)(rb|br|fr|rf|[ubfr])?'''", String.Single, combined("tsqs")),
            (r'(?i)(rb|br|fr|rf|[ubfr])?"', String.Double, combined("dqs")),
            (r"(?i)(rb|br|fr|rf|[ubfr])?'", String.Single, combined("sqs")),
        ],
        "escape": [
            (r"\\(\n|[\\'\"abfnrtv]|x[0-9a-fA-F]{2}|[0-7]{1,3}|u[0-9a-fA-F]{4}|U[0-9a-fA-F]{8}|N\{[^}]*\})",
             String.Escape),
            (r"\\.", String),
        ],
        "dqs": [
            (r'"', String.Double, "#pop"),
            include("escape"),
            (r'[^\\"\n]+', String.Double),
            (r"\n", String.Double, "#pop"),        # unterminated: the grammar reports it
        ],
        "sqs": [
            (r"'", String.Single, "#pop"),
            include("escape"),
            (r"[^\\'\n]+", String.Single),
            (r"\n", String.Single, "#pop"),
        ],
        "tdqs": [
            (r'"""', String.Double, "#pop"),
            include("escape"),
            (r'[^\\"]+', String.Double),
            (r'"', String.Double),
        ],
        "tsqs": [
            (r"'''", String.Single, "#pop"),
            include("escape"),
            (r"[^\\']+", String.Single),
            (r"'", String.Single),
        ],
    }

    def analyse_text(text):   # noqa: N805 (Pygments calls it unbound)
        """A `.grad` concise-dialect script has `backward NAME` statements."""
        return 0.3 if re.search(r"^[ \t]*backward[ \t]+[A-Za-z_(]", text, re.M) else 0.0
