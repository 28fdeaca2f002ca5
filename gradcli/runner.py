"""Source text in, Report out: parse, then interpret. Shared by run, explain, test and the REPL."""
from __future__ import annotations

import ast
import contextlib
import gc

from .errors import ParseError
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
    with script_session(max_elements, max_memory):
        try:
            module = parse_for_report(source, filename, report)
        except _NotParsed:
            return report
        from .interp import Interpreter
        interp = Interpreter(report, values=values, strict=strict, timeout=timeout, filename=filename)
        interp.echo = echo
        interp.run(module)
    return report


class _NotParsed(Exception):
    pass


def parse_for_report(source, filename, report):
    """The module, or report.error set to the SyntaxError a user sees (then _NotParsed)."""
    from . import parser
    try:
        return parser.parse(source, filename)
    except ParseError as e:
        line, col = e.span or (None, None)
        lines = source.replace("\r\n", "\n").split("\n")
        text = lines[line - 1] if line and 0 < line <= len(lines) else None
        report.error = ErrorInfo("SyntaxError", e.message, line, col, text)
    except RecursionError:
        report.error = ErrorInfo("SyntaxError", "too many nested parentheses or blocks for gradcli's parser", 1, 1)
    report.parse_failed = True
    raise _NotParsed


@contextlib.contextmanager
def script_session(max_elements=None, max_memory=None):
    """The engine set up for one script: its limits on, the cyclic collector off, and afterwards
    everything back as the library (gradcli.torch) expects it: no limits, no observer."""
    from . import engine, ops
    # Parsing and the graph make many objects and few reference cycles, so the cyclic collector
    # only costs time here: it would rescan every AST and graph node again and again.
    gc_was_on = gc.isenabled()
    gc.disable()
    ops._MALLOC.keep_freed_memory()
    ops.LIMITS.max_elements = max_elements
    ops.LIMITS.max_bytes = max_memory
    engine.MEMORY_HOOK = ops._MEMORY.track if max_memory is not None else None
    try:
        yield
    finally:
        ops.LIMITS.max_elements = ops.LIMITS.max_bytes = None
        engine.MEMORY_HOOK = None
        engine.STATE.observer = None            # the report is complete: stop recording into it
        engine.STATE.warn = engine._default_warn
        if gc_was_on:
            gc.enable()
