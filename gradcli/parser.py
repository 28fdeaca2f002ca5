"""The grammar's statements get their source text (explanations quote it), and the REPL asks
whether an entry is complete. (dialect.py turns source text into what runs.)"""
from __future__ import annotations

import bisect
import re

from . import syntax as S
from .engine import ParseError


def is_incomplete(source: str) -> bool:
    """True when `source` is a valid beginning that needs more lines (an open bracket or
    block, a trailing colon): the REPL then shows a continuation prompt."""
    if source.rstrip().endswith(":") or source.rstrip().endswith("\\"):
        return True
    from . import dialect
    try:
        dialect.parse(source)
    except ParseError as e:
        return e.message.endswith("was never closed") or e.message.startswith("expected an indented block") \
            or "unexpected end of input" in e.message or "unterminated triple-quoted" in e.message
    return False


def grammar_path() -> str:
    from .lark_parser import grammar_path
    return grammar_path()

# ----------------------------------------------------------------------------- statement text


_COMPOUND = (S.If, S.For, S.While, S.Try, S.With, S.FuncDef)


def _segments(line):
    """(start, end) columns (0-based) of the `;`-separated statements of one line."""
    out, start, depth, quote, i = [], 0, 0, None, 0
    while i < len(line):
        c = line[i]
        if quote:
            if c == "\\":
                i += 1
            elif line.startswith(quote, i):
                i += len(quote) - 1
                quote = None
        elif c in "'\"":
            quote = line[i:i + 3] if line[i:i + 3] in ('\"\"\"', "\'\'\'") else c
            i += len(quote) - 1
        elif c == "#":
            break
        elif c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
        elif c == ";" and depth == 0:
            out.append((start, i))
            start = i + 1
        i += 1
    out.append((start, len(line)))
    return out


_HEADER = re.compile(r"\s*(if|elif|else|for|while|with|def|try|except|finally)\b")


def _after_header(src, a, col):
    """In `for i in x: print i`, the inner statement starts after the header's colon."""
    if not _HEADER.match(src, a):
        return a
    depth = 0
    for i in range(a, col):
        c = src[i]
        if c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
        elif c == ":" and depth == 0:
            a = i + 1
    return a


def _attach_text(body, lines):
    """Give every statement its source text and the column where it starts (a leading
    keyword such as `return` is not part of any child's position)."""
    stack = list(body)
    segments = {}           # line -> its `;` segments and their starts, found once per line
    while stack:
        st = stack.pop()
        if not isinstance(st, S.Stmt):
            continue
        src = lines[st.line - 1] if 0 < st.line <= len(lines) else ""
        if isinstance(st, _COMPOUND) or st.end_line != st.line:
            st.text = src.strip()
            st.col = len(src) - len(src.lstrip()) + 1
        else:
            segs = segments.get(st.line)
            if segs is None:
                segs = segments[st.line] = _segments(src)
                segs = segments[st.line] = (segs, [a for a, _ in segs])
            k = bisect.bisect_right(segs[1], st.col - 1) - 1     # the segment the statement starts in
            if k >= 0:
                a, b = segs[0][k]
                a = _after_header(src, a, st.col - 1)
                seg = src[a:b]
                st.text = seg.strip()
                st.col = a + len(seg) - len(seg.lstrip()) + 1
            else:
                st.text = src.strip()
        for f in st.fields:
            v = getattr(st, f)
            if isinstance(v, list):
                for item in v:
                    if isinstance(item, S.Stmt):
                        stack.append(item)
                    elif isinstance(item, tuple):
                        for x in item:
                            if isinstance(x, list):
                                stack.extend(x)
                    elif isinstance(item, list):
                        stack.extend(item)

