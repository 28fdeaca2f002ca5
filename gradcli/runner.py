"""Source text in, Report out: parse, then interpret. Shared by run, explain, test and the REPL."""
from __future__ import annotations

import ast
import gc

from .errors import ParseError, ScriptError
from .report import Report, ErrorInfo


class UsageError(Exception):
    """A bad command line (exit status 2)."""


def parse_set(items):
    """`--set x=2 --set w=[1,2]` -> {"x": 2.0, "w": [1, 2]}."""
    values = {}
    for item in items or ():
        name, eq, text = item.partition("=")
        name = name.strip()
        if not eq or not name.isidentifier():
            raise UsageError(f"--set expects NAME=VALUE, like --set x=2 or --set w=[1,2]; got {item!r}")
        try:
            value = ast.literal_eval(text.strip())
        except (ValueError, SyntaxError, MemoryError, RecursionError):
            raise UsageError(f"--set {name}: {text!r} is not a number or a list of numbers") from None
        if not _numeric(value):
            raise UsageError(f"--set {name}: {text!r} is not a number or a list of numbers")
        values[name] = value
    return values


def _numeric(v):
    """A number, or a rectangular nested list of numbers."""
    level = [v]
    while any(isinstance(x, (list, tuple)) for x in level):
        if not all(isinstance(x, (list, tuple)) for x in level) or len({len(x) for x in level}) != 1:
            return False
        level = [y for x in level for y in x]
    return all(isinstance(x, (int, float)) and not isinstance(x, bool) for x in level)


def run_source(source, filename="<script>", *, values=None, strict=False, timeout=None,
               max_elements=None, max_memory=None, echo=False):
    """Parse and run a script; every script-caused problem ends up in report.error."""
    report = Report(source=source, filename=filename)
    # Parsing and the graph make many objects and few reference cycles, so the cyclic collector
    # only costs time here: it would rescan every AST and graph node again and again.
    gc_was_on = gc.isenabled()
    gc.disable()
    try:
        return _parse_and_run(report, source, filename, values, strict, timeout, max_elements, max_memory, echo)
    finally:
        if gc_was_on:
            gc.enable()


def _parse_and_run(report, source, filename, values, strict, timeout, max_elements, max_memory, echo):
    from . import parser, ops
    try:
        module = parser.parse(source, filename)
    except ParseError as e:
        line, col = e.span or (None, None)
        lines = source.replace("\r\n", "\n").split("\n")
        text = lines[line - 1] if line and 0 < line <= len(lines) else None
        report.error = ErrorInfo("SyntaxError", e.message, line, col, text)
        report.parse_failed = True
        return report
    except RecursionError:
        report.error = ErrorInfo("SyntaxError", "too many nested parentheses or blocks for gradcli's parser", 1, 1)
        report.parse_failed = True
        return report
    from .interp import Interpreter
    ops.LIMITS.max_elements = max_elements
    ops.LIMITS.max_bytes = max_memory
    from . import engine
    engine.MEMORY_HOOK = ops._MEMORY.track if max_memory is not None else None
    interp = Interpreter(report, values=values, strict=strict, timeout=timeout, filename=filename)
    interp.echo = echo
    try:
        interp.run(module)
    finally:
        # The limits belong to this run; the library (gradcli.torch) has none.
        ops.LIMITS.max_elements = ops.LIMITS.max_bytes = None
        engine.MEMORY_HOOK = None
        engine.STATE.observer = None            # the report is complete: stop recording into it
        engine.STATE.warn = engine._default_warn
    return report
