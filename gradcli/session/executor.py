"""Run a script on CPython with `torch` resolved to gradcli, and collect what it did in a Report.

The one way every front end runs a script (`run`, `explain`, `graph`, `export`, `test`, the
pytest plugin and the REPL). A `Recorder`, passed in explicitly, receives what the engine
reports (each backward/grad call, PyTorch's warnings) and what the script prints; nothing
patches anyone else's hooks. Everything the run changes in the process (the import hook and
`sys.modules`, the engine's limits and observer, the collector, signal handlers, stdout) is
put back when it ends, whatever happened.
"""
from __future__ import annotations

import ast
import builtins
import contextlib
import functools
import gc
import os
import re
import signal
import sys
import threading
import time

from ..lang import dialect
from .. import engine as _E
from ..record import origin as O
from ..engine import ParseError, ScriptError, LimitError, ExpectationFailed
from ..record.report import (Report, CallEvent, LeafUpdate, NodeInfo, ErrorInfo, Warned, LeavesShown, ExpectPassed,
                             GraphShown)

_GRADCLI_DIR = os.path.dirname(os.path.abspath(__file__)) + os.sep
# The longest script gradcli parses (characters; --max-source sets it in KiB): CPython parses
# 1 MiB in about 2 s on a loaded machine. The dialect's own parser (Lark) reads about 5 times
# slower, so a script that is not valid Python gets DIALECT_SHARE of it.
MAX_SOURCE = 2 ** 20
DIALECT_SHARE = 8


class Recorder:
    """What a run reports: each backward/grad call as a CallEvent (and, with keep_calls, the
    engine records behind it for `explain`, `graph` and the REPL's :explain), warnings,
    `expect` results and `graph` snapshots."""

    def __init__(self, report, keep_calls=False):
        self.report = report
        self.keep_calls = keep_calls
        self.calls = []                 # tracing.CallTrace per call, when keep_calls
        self.session = None             # the Session being recorded (names, current line)
        self.warned = set()

    # -- engine callbacks ------------------------------------------------------------------
    def on_call(self, record):
        by_tensor, by_node = self.session.names()
        o = record.origin
        ev = CallEvent(record.kind, getattr(o, "line", None), getattr(o, "text", None), record.retain_graph)
        modules = self.session.module_paths() if "torch.nn" in sys.modules or "gradcli.torch.nn" in sys.modules else {}
        ev.executed = [node_info(n, by_node, by_tensor, modules) for n in record.executed]
        ev.freed = [node_info(n, by_node, by_tensor, modules) for n in record.freed]
        for leaf, before, after in record.updates:
            ev.updates.append(LeafUpdate(by_tensor.get(id(leaf)), before, after))
        ev.failed = record.error is not None
        if ev.failed:
            e = record.error
            ev.error = (getattr(e, "pytype", None) or type(e).__name__, str(e))
            ev.exception = e
        self.report.items.append(ev)
        if self.keep_calls:
            from ..record import trace as tracing
            call = tracing.CallTrace(record.index, record.kind, ev.line, ev.text, record.retain_graph, record,
                                     list(record.executed), list(record.freed), list(record.updates), record.error,
                                     by_node, by_tensor, event=ev)
            for node in call.executed:
                if node.saved:
                    call.slots[node] = tracing._slot_states(node, record)
            self.calls.append(call)

    def on_warn(self, message):
        line = self.session.current_line()
        if (line, message) in self.warned:        # Python's default filter: once per location
            return
        self.warned.add((line, message))
        self.report.items.append(Warned(line, message))

    # -- the dialect's statements (bound as _gradcli_* in the script's namespace) ----------
    def expect(self, value, text):
        from ..engine import TensorBase
        import numpy as np
        ok = bool(np.all(value._data)) if isinstance(value, TensorBase) else bool(value)
        if not ok:
            raise ExpectationFailed(f"{_label(text)} failed: got {value!r}")
        self._passed(text)

    def expect_close(self, a, b, within, text):
        ok, detail = _close(a, b, within)
        if not ok:
            raise ExpectationFailed(f"{_label(text)} failed: {detail}")
        self._passed(text)

    def expect_freed(self, t, freed, text):
        from ..engine import TensorBase
        kind = "freed" if freed else "retained"
        name = _label(text)[len("expect " + kind):].strip()
        if not isinstance(t, TensorBase) or t.grad_fn is None:
            raise ExpectationFailed(f"expect {kind} {name}: {name} has no grad_fn, so no saved tensors")
        node = t.grad_fn
        slots = node.tensor_slots()
        if not slots:
            raise ExpectationFailed(f"expect {kind} {name}: its {node.name()} saves no tensors "
                                    "(nothing to free or keep)")
        is_freed = all(node.saved[k].freed for k in slots)
        if is_freed != freed:
            by = getattr(node.freed_by, "origin", None) if node.freed_by else None
            state = ("were freed" + (f" by line {by.line}" if by is not None else "")) if is_freed else "are still held"
            raise ExpectationFailed(f"expect {kind} {name} failed: the saved tensors of {node.name()} "
                                    f"({', '.join(slots)}) {state}")
        self._passed(text)

    def expect_error(self, error, expected, text):
        if isinstance(error, (LimitError, ExpectationFailed)):
            raise error
        message = str(error)
        if expected not in message:
            raise ExpectationFailed(f"expected an error containing {expected!r} ({_label(text)}), but got "
                                    f"{_type_name(error)}: {message}") from None
        line = _line_of(text)
        self.report.items.append(ExpectPassed(line, f"error as expected: {_type_name(error)}"))

    def expect_no_error(self, text):
        raise ExpectationFailed(f"expected an error containing {_expected_of(text)!r} ({_label(text)}), but the "
                                "statement after it ran without error")

    def graph(self, target, name):
        from ..record import graph as graph_snapshot
        from ..engine import TensorBase
        if not isinstance(target, TensorBase):
            raise TypeError(f"graph needs a tensor, not {type(target).__name__}")
        by_tensor, by_node = self.session.names()
        self.report.items.append(GraphShown(self.session.current_line(), graph_snapshot.snapshot(
            {name: target}, by_node, by_tensor, modules=self.session.modules())))

    def _passed(self, text):
        self.report.items.append(ExpectPassed(_line_of(text), _label(text)))

    def helpers(self):
        return {dialect.HELPER_PREFIX + n: getattr(self, n) for n in
                ("expect", "expect_close", "expect_freed", "expect_error", "expect_no_error", "graph")}


_LABEL = re.compile(r"^(.*) \(line (\d+)\)$", re.S)


def _label(text):
    m = _LABEL.match(text)
    return m.group(1) if m else text


def _line_of(text):
    m = _LABEL.match(text)
    return int(m.group(2)) if m else None


def _expected_of(text):
    m = re.match(r'expect\s+error\s+(.*)$', _label(text), re.S)
    if not m:
        return text
    try:
        return ast.literal_eval(m.group(1).strip())
    except (ValueError, SyntaxError):
        return m.group(1)


def _type_name(e):
    return getattr(e, "pytype", None) or type(e).__name__


class _Output:
    """The script's sys.stdout: text goes into the report, in order with everything else."""

    encoding = "utf-8"
    errors = "strict"

    def __init__(self, report):
        self.report = report
        self.closed = False

    def _open(self):
        if self.closed:
            raise ValueError("I/O operation on closed file.")

    def write(self, text):
        self._open()
        if not isinstance(text, str):
            raise TypeError(f"write() argument must be str, not {type(text).__name__}")
        if not text.isascii():
            text.encode("utf-8")     # a lone surrogate: the UnicodeEncodeError Python's stdout raises
        self.report.write(text)
        return len(text)

    def flush(self):
        self._open()

    def close(self):
        """As Python's sys.stdout.close(): later writes raise; the script goes on."""
        self.closed = True

    def isatty(self):
        self._open()
        return False

    def writable(self):
        self._open()
        return True


class Session:
    """One script namespace and what runs in it: a script, or the REPL's entries one by one."""

    def __init__(self, filename="<script>", *, values=None, strict=False, recorder=None, echo=False):
        self.filename = filename
        self.values = values if values is not None else {}
        self.strict = strict
        self.echo = echo                     # the REPL: a bare expression shows its repr
        self.globals = {"__name__": "__main__", "__builtins__": builtins, "__doc__": None}
        self.recorder = recorder
        self.capture = None
        self.leaves_announced = []
        self.running = False
        self.imported_torch = False          # the script imported torch itself: no implicit leaves
        self.started = False
        self.time_limit = None

    # -- names ---------------------------------------------------------------------------------
    def names(self):
        """Script variable names for tensors and graph nodes: the locals of the running script
        frames (innermost first), then the module's globals; a module's parameters and buffers
        by their path (`net.fc1.weight`)."""
        from ..engine import TensorBase
        by_tensor, by_node = {}, {}
        modules = []
        for scope in self._scopes():
            for name, v in list(scope.items()):
                if name.startswith("_"):
                    continue
                if isinstance(v, TensorBase):
                    by_tensor.setdefault(id(v), name)
                    if v.grad_fn is not None:
                        by_node.setdefault(v.grad_fn, name)
                elif _is_module(v):
                    modules.append((name, v))
        for name, m in modules:
            for path, t in list(m.named_parameters(prefix=name)) + list(m.named_buffers(prefix=name)):
                by_tensor.setdefault(id(t), path)
        return by_tensor, by_node

    def modules(self):
        """{"net.fc1": module} for every nn.Module the script's variables hold."""
        out = {}
        for scope in self._scopes():
            for name, v in list(scope.items()):
                if not name.startswith("_") and _is_module(v):
                    for path, m in v.named_modules(prefix=name):
                        out.setdefault(path, m)
        return out

    def module_paths(self):
        """{id(module): "net.fc1"}: each module's first path in modules()."""
        out = {}
        for path, m in self.modules().items():
            out.setdefault(id(m), path)
        return out

    def _scopes(self):
        """The running script frames' locals, innermost first, then the module's globals."""
        if self.capture is None or not self.running:
            return [self.globals]
        return [f.f_locals for f in self.capture.script_frames() if f.f_locals is not self.globals] + [self.globals]

    def _names(self):                        # (the name explanations and views call)
        return self.names()

    def current_line(self):
        if self.capture is None:
            return None
        frames = self.capture.script_frames()
        return frames[0].f_lineno if frames else None

    def tensors(self):
        from ..engine import TensorBase
        return {k: v for k, v in self.globals.items() if isinstance(v, TensorBase) and not k.startswith("_")}

    # -- running -------------------------------------------------------------------------------
    def run(self, source, report=None, *, timeout=None, max_elements=None, max_memory=None, upto=None,
            max_source=MAX_SOURCE):
        """Parse and run `source` in this namespace; every problem the script causes ends up in
        report.error. An exception that is gradcli's own fault propagates (exit status 3).
        Parsing counts in the time limit."""
        report = report if report is not None else Report(source=source, filename=self.filename)
        self.time_limit = timeout             # (messages name the limit given, not what parsing left)
        start = time.monotonic()
        program = self.parse(source, report, max_source)
        if program is None:
            return report
        if timeout is not None:
            left = timeout - (time.monotonic() - start)
            if left <= 0:
                report.error = ErrorInfo("LimitError", f"parsing the script took longer than the time limit of "
                                                       f"{timeout:g} s (raise it with --timeout)")
                return report
            timeout = left
        if upto is not None:
            program.tree.body = [st for st in program.tree.body if st.lineno <= upto]
        whole = not self.started and not self.echo and upto is None   # the source is the whole script
        self.execute(program, program.tree.body, report, timeout=timeout, max_elements=max_elements,
                     max_memory=max_memory)
        if whole:       # how to try fixes on copies of the script (fixes.Trial's fields): not for a
            # notebook cell or a REPL entry, whose graph earlier entries made
            report.trial = (source, self.filename, functools.partial(
                run_copy, values=self.values, strict=self.strict, timeout=timeout, max_elements=max_elements,
                max_memory=max_memory))
            if report.error is not None:
                report.error.trial = report.trial
        return report

    def parse(self, source, report, max_source=None):
        """The program, or None with report.error set to the SyntaxError a user sees (or the
        LimitError of a script over `max_source` characters)."""
        if max_source is not None and len(source) > max_source:
            report.error = ErrorInfo("LimitError", f"the script is {len(source) // 1024:,} KiB, more than the "
                                                   f"{max_source // 1024:,} KiB gradcli parses (raise it with "
                                                   "--max-source)")
            report.parse_failed = True
            return None
        try:
            program = dialect.parse(source, self.filename, values=self.values,
                                    strict=self.strict or self.imported_torch, bound=self.globals,
                                    max_dialect=None if max_source is None else max_source // DIALECT_SHARE)
            # the compiler's own checks (`return` outside a function); the code runs unless cut (--at)
            program.code = (program.tree.body, compile(program.tree, self.filename, "exec", dont_inherit=True))
        except ParseError as e:
            _syntax_error(report, e.message, e.span, program_text=source, pytype=e.pytype)
            return None
        except SyntaxError as e:            # e.g. `return` outside a function, found by the compiler
            _syntax_error(report, e.msg, (e.lineno, e.offset), program_text=source, pytype=type(e).__name__)
            return None
        except ValueError as e:             # the dialect's `True = 1`: the compiler refuses the tree
            _syntax_error(report, f"invalid syntax: {e}", (1, 1), program_text=source)
            return None
        except (RecursionError, MemoryError):
            _syntax_error(report, "too many nested parentheses or blocks for gradcli's parser", (1, 1),
                          program_text=source)
            return None
        O.register(self.filename, program.source, program.tree, extend=self.echo and self.started)
        return program

    def execute(self, program, body, report, *, timeout=None, max_elements=None, max_memory=None,
                interactive=False):
        """Run top-level statements of a parsed program. `interactive` (the REPL): each compiled
        in 'single' mode, so a bare expression shows its value, and Ctrl-C propagates."""
        recorder = self.recorder if self.recorder is not None else Recorder(report)
        recorder.report = report
        recorder.session = self
        self.imported_torch = self.imported_torch or dialect.imports_torch(ast.Module(body=body, type_ignores=[]))
        if not program.imports_torch:
            import gradcli.torch as gtorch
            import gradcli.torch.nn.functional
            for name, value in (("torch", gtorch), ("nn", gtorch.nn), ("F", gtorch.nn.functional)):
                self.globals.setdefault(name, value)
        self.globals.update(recorder.helpers())
        if interactive:
            codes = _interactive(body, self.filename)
        elif program.code is not None and program.code[0] is body:
            codes = [program.code[1]]
        else:
            codes = [compile(ast.Module(body=body, type_ignores=[]), self.filename, "exec", dont_inherit=True)]
        if not self.started:                 # a new script: sequence numbers from 0, grad mode on, ...
            from ..engine import STATE
            STATE.reset()                    # (the hooks are _script_context's to set and put back)
            rng = sys.modules.get("gradcli.torch.random")
            if rng is not None:              # a new script draws from a fresh seed, as a new process does
                rng.default_generator.seed()
            self.started = True
        leaves = [(n, v) for n, v in program.leaves if any(getattr(st, "leaf", None) == n for st in body)]
        with _script_context(self, recorder, report, timeout, max_elements, max_memory):
            try:
                self.running = True
                for code in codes:
                    exec(code, self.globals)
                self.running = False
            except SystemExit as e:
                self.running = False
                if e.code not in (None, 0):     # as Python ends: an int is the status, another object is
                    report.error = ErrorInfo("SystemExit", str(e.code), self.current_line_of(e))  # printed
                    report.error.exit_code = e.code if isinstance(e.code, int) else None
            except BaseException as e:
                self.running = False               # (the timer stops raising: the script is over)
                own = isinstance(e, KeyboardInterrupt) and self._raised_by_script(e)
                if (isinstance(e, KeyboardInterrupt) and not own) or _is_internal(e):
                    raise
                report.error = self.error_info(e)
                report.exception = e
                if own:
                    report.error.exit_code = 130   # (what a shell sees of Python's death by SIGINT)
            finally:
                self.running = False
                if leaves:
                    import gradcli.torch as gtorch
                    shown = tuple((n, repr(gtorch.tensor(dialect.leaf_literal(v), requires_grad=True)))
                                  for n, v in leaves)
                    report.items.insert(0, LeavesShown(shown))
                    self.leaves_announced.extend(n for n, _ in leaves)
        _caught(report, self.filename)
        report.tensors_at_end = self.tensors
        report.names_at_end = lambda: dict(self.globals)
        return report

    def _raised_by_script(self, e):
        """A `raise` statement of the script raised it (not Ctrl-C, which interrupts gradcli)."""
        tb = e.__traceback__
        while tb is not None and tb.tb_next is not None:
            tb = tb.tb_next
        if tb is None or tb.tb_frame.f_code.co_filename != self.filename:
            return False
        from ..explain.fixes import statement_at
        sm = O.source_map(self.filename)
        st = statement_at(sm.tree, tb.tb_lineno) if sm is not None and sm.tree is not None else None
        return isinstance(st, ast.Raise)

    def current_line_of(self, e):
        frames = _script_tb(e, self.filename)
        return frames[-1][1] if frames else None

    def error_info(self, e) -> ErrorInfo:
        frames = _script_tb(e, self.filename)
        line = col = None
        text = None
        if isinstance(e, SyntaxError) and not frames:
            line, col = e.lineno, e.offset
        if frames:
            code, line, lasti = frames[-1]
            pos = O._positions(code, lasti)
            if pos is not None and pos[2] is not None and pos[0] == line:
                col = pos[2] + 1
            sm = O.source_map(self.filename)
            if sm is not None:
                st = sm.statement(line, None if col is None else col - 1)
                text = sm.text(st) if st is not None else sm.line_text(line).strip()
        if isinstance(e, ScriptError):
            typ, message = ("LimitError" if isinstance(e, LimitError) else e.pytype), str(e)
        else:
            typ, message = type(e).__name__, str(e)
        if isinstance(e, MemoryError) and not message:
            message = _out_of_memory()
        info = ErrorInfo(typ, message, line, col, text, getattr(e, "hint", None))
        if isinstance(e, NameError) and not isinstance(e, ScriptError) and info.hint is None:
            name = getattr(e, "name", None) or _name_in(message)
            if name:
                close = suggest(name, list(self.globals) + dir(builtins))
                if close:
                    info.hint = f"Did you mean: '{close}'?"
        info.frames = _collapsed([(line_, _code_name(code)) for code, line_, _ in frames])
        from ..explain import why as explain
        explain.explain_error(info, e, self)
        return info

    @property
    def report(self):                       # (explanations read the calls so far from here)
        return self.recorder.report if self.recorder is not None else None


def run_source(source, filename="<script>", *, values=None, strict=False, timeout=None, max_elements=None,
               max_memory=None, echo=False, recorder=None, upto=None, max_source=MAX_SOURCE):
    """Run a whole script in a fresh namespace."""
    report = Report(source=source, filename=filename)
    recorder = recorder or Recorder(report)
    session = Session(filename, values=values, strict=strict, recorder=recorder, echo=echo)
    return session.run(source, report, timeout=timeout, max_elements=max_elements, max_memory=max_memory, upto=upto,
                       max_source=max_source)



def run_traced(source, filename="<script>", *, values=None, strict=False, timeout=None, max_elements=None,
        max_memory=None, upto=None):
    """Run a whole script like run_source, keeping every call's engine records: a record.trace.Trace."""
    from ..record import trace as tracing
    from ..session.executor import Recorder, Session
    report = Report(source=source, filename=filename)
    recorder = Recorder(report, keep_calls=True)
    session = Session(filename, values=values, strict=strict, recorder=recorder)
    session.run(source, report, timeout=timeout, max_elements=max_elements, max_memory=max_memory, upto=upto)
    return tracing.Trace(report, session, calls=recorder.calls, exception=getattr(report, "exception", None))


TRIAL_TIMEOUT = 20.0             # seconds per fixed copy when the run itself had no limit


def run_copy(text, name, *, values, strict, timeout, max_elements, max_memory):
    """Run a changed copy of a script the way the script ran (a fix tried on it):
    (Report, {leaf: its .grad as text})."""
    report = Report(source=text, filename=name)
    session = Session(name, values=values, strict=strict, recorder=Recorder(report))
    try:
        session.run(text, report, timeout=timeout or TRIAL_TIMEOUT, max_elements=max_elements,
                    max_memory=max_memory)
        return report, leaf_grads(session)
    finally:
        O._SOURCES.pop(name, None)


def leaf_grads(session):
    """The .grad of every leaf that requires grad: global tensors, then the modules' parameters."""
    from ..engine import TensorBase
    from ..engine import format_tensor
    out = {}
    for name, v in list(session.globals.items()):
        if name.startswith("_"):
            continue
        if isinstance(v, TensorBase) and v.is_leaf and v.requires_grad:
            out[name] = v.grad
        elif hasattr(v, "named_parameters") and callable(v.named_parameters) and hasattr(v, "_modules"):
            for path, p in v.named_parameters(prefix=name):
                out.setdefault(path, p.grad)
    return {k: None if g is None else
            format_tensor(g._data, g._data.dtype.name if g._data.dtype.kind != "b" else "bool")
            for k, g in out.items()}

def _caught(report, filename):
    """For each call that raised but did not end the script: the line of the `except` that caught
    it (the innermost `try` around the line the exception passed through in the catching frame)."""
    for ev in report.events:
        if ev.exception is None:
            continue
        exc, ev.exception = ev.exception, None
        if exc is report.exception or exc.__traceback__ is None:
            continue
        # the outermost script frame the exception went through (gradcli may have raised another
        # exception object for the same failure: then the call's own line)
        tb, line = exc.__traceback__, ev.line
        while tb is not None:
            if tb.tb_frame.f_code.co_filename == filename:
                line = tb.tb_lineno
                break
            tb = tb.tb_next
        sm = O.source_map(filename)
        best = None
        for node in ast.walk(sm.tree) if sm is not None else ():
            if isinstance(node, ast.Try) and node.handlers and node.body[0].lineno <= line <= node.body[-1].end_lineno:
                if best is None or node.lineno >= best.lineno:
                    best = node
        ev.caught_line = best.handlers[0].lineno if best is not None else line


def _interactive(body, filename):
    """The REPL's entry: each top-level statement compiled in 'single' mode, so that a bare
    expression shows its value as Python's REPL does."""
    out = []
    for st in body:
        out.append(compile(ast.Interactive(body=[st]), filename, "single", dont_inherit=True))
    return out


def _syntax_error(report, message, span, program_text, pytype="SyntaxError"):
    line, col = span if span else (None, None)
    lines = dialect.normalise(program_text).split("\n")
    text = lines[line - 1] if line and 0 < line <= len(lines) else None
    report.error = ErrorInfo(pytype, message, line, col, text)
    report.parse_failed = True


def _script_tb(e, filename):
    """[(code, line, lasti)] of the traceback's frames that belong to the script, outermost first."""
    out = []
    tb = e.__traceback__
    while tb is not None:
        code = tb.tb_frame.f_code
        if code.co_filename == filename:
            out.append((code, tb.tb_lineno, tb.tb_lasti))
        tb = tb.tb_next
    return out


# as Python's traceback: a frame repeated more than this many times in a row is shown this many
# times, then counted ("[Previous line repeated N more times]")
_RECURSIVE_CUTOFF = 3


def _collapsed(frames):
    """[(line, function, repeated)]: each run of identical frames cut to _RECURSIVE_CUTOFF, the
    last kept one counting the frames left out."""
    out = []
    for line, name in frames:
        run = 0
        for prev in reversed(out[-_RECURSIVE_CUTOFF:]):
            run += prev[:2] == (line, name)
        if run == _RECURSIVE_CUTOFF and out[-1][:2] == (line, name):
            out[-1] = (line, name, out[-1][2] + 1)
        else:
            out.append((line, name, 0))
    return out


def _code_name(code):
    return getattr(code, "co_qualname", code.co_name)


_BINDING = re.compile(r"(takes \d+ positional argument|positional argument|got an unexpected keyword argument|"
                      r"missing \d+ required|got multiple values for argument|takes no keyword arguments|"
                      r"takes from \d+ to \d+ positional)")


def _is_internal(e):
    """An exception that no script could have caused the way it was raised: the innermost frame
    is gradcli's own code and it is not one of the errors gradcli raises on purpose."""
    if isinstance(e, (ScriptError, KeyboardInterrupt, SystemExit, MemoryError, RecursionError)):
        return False
    if isinstance(e, ImportError):            # the import system's words about the script's import
        return False
    tb = e.__traceback__
    last = None
    while tb is not None:
        last = tb
        tb = tb.tb_next
    if last is None:
        return False
    filename = last.tb_frame.f_code.co_filename
    if not filename.startswith(_GRADCLI_DIR) or _code_name(last.tb_frame.f_code).startswith("_Output."):
        return False                          # (the script printed what stdout cannot encode, or to a closed one)
    return not (isinstance(e, TypeError) and _BINDING.search(str(e)))


def _name_in(message):
    m = re.match(r"name '(\w+)' is not defined", message)
    return m.group(1) if m else None


def _out_of_memory():
    """The text of a bare MemoryError (the address-space cap of watchdog.py, or the machine)."""
    from .. import ops
    cap = ops.LIMITS.max_bytes
    return "out of memory" + (f": the script's objects would take gradcli past its memory limit of "
                              f"{cap / 2 ** 30:g} GiB (raise it with --max-memory)" if cap else "")


@contextlib.contextmanager
def limits(max_elements=None, max_memory=None, timeout=None, shown_timeout=None):
    """The engine's --max-elements, --max-memory and --timeout (the seconds left; messages name
    `shown_timeout`, the limit given) while the block runs (off again after): with a timeout,
    work the engine can tell will not finish in time is refused."""
    from .. import engine, ops
    ops.LIMITS.max_elements = max_elements
    ops.LIMITS.max_bytes = max_memory
    ops.LIMITS.timeout = shown_timeout or timeout
    ops.LIMITS.deadline = None if timeout is None else time.monotonic() + timeout
    engine.STATE.memory_hook = ops._MEMORY.track if max_memory is not None else None
    try:
        yield
    finally:
        ops.LIMITS.max_elements = ops.LIMITS.max_bytes = ops.LIMITS.timeout = ops.LIMITS.deadline = None
        engine.STATE.memory_hook = None


@contextlib.contextmanager
def _script_context(session, recorder, report, timeout, max_elements, max_memory):
    """The engine and the process set up for one run, and everything put back afterwards."""
    from .. import engine, ops
    from . import importer
    state = engine.STATE
    saved = (state.observer, state.warn, state.capture, state.origin)
    gc_was_on = gc.isenabled()
    gc.disable()                 # a graph makes many objects and few cycles: the collector only costs time
    ops._MALLOC.keep_freed_memory()
    capture = O.Capture({session.filename}, Session.execute.__code__)     # the frame that calls exec()
    session.capture = capture
    state.capture = capture
    state.origin = None
    state.observer = recorder.on_call
    state.warn = recorder.on_warn
    old_stdout, old_hook = sys.stdout, sys.displayhook
    sys.stdout = _Output(report)
    sys.displayhook = _display(report) if session.echo else sys.displayhook
    old_limit = sys.getrecursionlimit()
    timer = _Timer(timeout, session) if timeout is not None else None
    # `python script.py` puts the script's directory first on sys.path: its own modules import
    script_dir = os.path.dirname(os.path.abspath(session.filename)) if os.path.isfile(session.filename) else None
    if script_dir is not None:
        sys.path.insert(0, script_dir)
    try:
        with importer.torch_is_gradcli(), limits(max_elements, max_memory, timeout, session.time_limit):
            if timer is not None:
                timer.start()
            try:
                yield
            finally:
                if timer is not None:
                    timer.stop()
    finally:
        if script_dir is not None and script_dir in sys.path:
            sys.path.remove(script_dir)
        sys.stdout, sys.displayhook = old_stdout, old_hook
        sys.setrecursionlimit(old_limit)
        if state.stale:
            ops.fresh_views(session.globals.values())
            state.stale = False
        state.observer, state.warn, state.capture, state.origin = saved
        if state.observer is None:
            state.warn = engine._default_warn
        if gc_was_on:
            gc.enable()


def _display(report):
    def hook(value):
        if value is None:
            return
        builtins._ = value
        report.write(repr(value) + "\n")
    return hook


class _Timer:
    """--timeout: SIGALRM interrupts the script between bytecodes in the main thread, and the
    LimitError names the script line it was on. Elsewhere (a worker thread) a trace function
    checks the clock on each new line."""

    def __init__(self, seconds, session):
        self.seconds, self.session = seconds, session
        self.main = threading.current_thread() is threading.main_thread() and hasattr(signal, "setitimer")
        self.old = None

    def _error(self, frame):
        line = None
        f = frame
        while f is not None:
            if f.f_code.co_filename == self.session.filename:
                line = f.f_lineno
                caller = f.f_back
                # a function stopped as it starts is on its `def` line: name the call instead
                if line == f.f_code.co_firstlineno and caller is not None and \
                        caller.f_code.co_filename == self.session.filename:
                    line = caller.f_lineno
                break
            f = f.f_back
        where = f"stopped at line {line}; " if line is not None else ""
        limit = self.session.time_limit or self.seconds
        return LimitError(f"the script ran longer than the time limit of {limit:g} s ({where}raise it "
                          "with --timeout)")

    def start(self):
        from . import watchdog
        watchdog.arm(self.seconds)
        if self.main:
            def on_alarm(signum, frame):
                if self.session.running:
                    raise self._error(frame)
            self.old = signal.signal(signal.SIGALRM, on_alarm)
            # then every 50 ms: a script that swallows one LimitError (a bare `except`, or the
            # RecursionError of calling the handler at the recursion limit) is stopped by the next
            signal.setitimer(signal.ITIMER_REAL, self.seconds, 0.05)
        else:
            deadline = time.monotonic() + self.seconds

            def trace(frame, event, arg):
                if time.monotonic() > deadline:
                    sys.settrace(None)
                    raise self._error(frame)
                return trace
            self.old = sys.gettrace()
            sys.settrace(trace)

    def stop(self):
        from . import watchdog
        watchdog.disarm()
        if self.main:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, self.old if self.old is not None else signal.SIG_DFL)
        else:
            sys.settrace(self.old)

# ----------------------------------------------------------------------------- helpers


def _close(a, b, tol):
    """`expect A == B`: same shape and allclose (rtol 1e-5, atol 1e-8, or atol=`within`)."""
    import numpy as np
    from ..engine import TensorBase
    try:
        xa = np.asarray(a._data if isinstance(a, TensorBase) else a, dtype=float)
        xb = np.asarray(b._data if isinstance(b, TensorBase) else b, dtype=float)
    except (TypeError, ValueError):
        return a == b, f"{a!r} != {b!r}"
    if xa.shape != xb.shape and (isinstance(a, TensorBase) and isinstance(b, TensorBase) or xa.ndim and xb.ndim):
        return False, f"shapes differ: {list(xa.shape)} vs {list(xb.shape)} ({a!r} vs {b!r})"
    try:
        rtol, atol = (1e-5, 1e-8) if tol is None else (0.0, float(tol))
    except (TypeError, ValueError):
        raise TypeError(f"`within` needs a number, not {type(tol).__name__}") from None
    ok = bool(np.allclose(xa, xb, rtol=rtol, atol=atol, equal_nan=True))
    return ok, f"{a!r} != {b!r}"


def _distance(a, b):
    """Python's suggestion distance: a move or substitution costs 2, a case change 1."""
    prev = list(range(0, 2 * len(b) + 1, 2))
    for i, ca in enumerate(a, 1):
        cur = [2 * i]
        for j, cb in enumerate(b, 1):
            sub = 0 if ca == cb else 1 if ca.lower() == cb.lower() else 2
            cur.append(min(prev[j] + 2, cur[j - 1] + 2, prev[j - 1] + sub))
        prev = cur
    return prev[-1]


def suggest(name, candidates):
    """The closest known name, as Python's NameError suggestion picks it; on a tie, the
    candidate of the same length wins (`y2` suggests `y1` before `y`)."""
    best, best_key = None, None
    for c in dict.fromkeys(candidates):
        if c.startswith("_") or c == name:
            continue
        d = _distance(name, c)
        if d > (len(name) + len(c) + 3) * 2 // 6:
            continue
        key = (d, abs(len(c) - len(name)))
        if best_key is None or key < best_key:
            best, best_key = c, key
    return best


def _is_module(v):
    nn = sys.modules.get("gradcli.torch.nn")
    return nn is not None and isinstance(v, nn.Module)


def node_info(node, by_node=None, by_tensor=None, modules=None):
    o = node.origin
    # PyTorch's node.name(): C++ nodes read "torch::autograd::CopySlices"; the engine's own
    # bookkeeping nodes (AccumulateGrad, GraphRoot) keep their short names in reports.
    op = node.op
    name = op.name if op is _E.ACCUMULATE or op is _E.GRAPH_ROOT else node.name()
    saved = node._saved
    info = NodeInfo(name, o, node.tensor_slots() if saved else [], seq=node.seq)
    if type(node) is _E.AccumulateGrad:
        info.name = (by_tensor or {}).get(id(node.variable))
    else:
        info.name = (by_node or {}).get(node)
    if saved:
        for slot, s in node.saved.items():
            if type(s) is _E.Saved and s.constant is not None:
                info.constants[slot] = s.constant
    module = getattr(o, "module", None)
    if module is not None:
        path = (modules or {}).get(id(module))
        info.module = f"{path} ({type(module).__name__})" if path else type(module).__name__
    return info



