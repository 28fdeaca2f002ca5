"""The interactive REPL: `gradcli repl`, and `gradcli` alone on a terminal.

Each entry runs like script statements against one persistent interpreter, with the same
Rich output as `gradcli run` (gradients, freed buffers, explained errors); a bare
expression echoes its value as in Python's REPL. Lines are numbered across the session
(the prompt shows the number), so "made by `z = 2*f` on line 3" points at an entry you
can see.

Two front ends share one `Session`:
* prompt_toolkit (a terminal): persistent history, Ctrl-R, suggestions from history, Tab
  completion, highlighting through gradcli.lang.pygments_lexer, multi-line input decided by the parser;
* plain `input()` lines (TERM=dumb, or standard input that is not a terminal): the same
  entries, commands and multi-line rules, without the editing.

Start-up: prompt_toolkit is imported only here, and the engine, the parser tables and Rich
load in a background thread once the first prompt is on the screen, while the user types.
"""
from __future__ import annotations

import os
import re
import sys
import threading

PS1, PS2 = ">>> ", "... "

COMMANDS = {
    ":help": "this help",
    ":vars": "the tensors in the session: shape, dtype, requires_grad, grad_fn, .grad, saved tensors",
    ":graph": ":graph NAME [NAME ...]: the backward graph behind the named tensors",
    ":explain": "the story of the last backward()/autograd.grad() call and why the last error happened "
                "(:explain all: every call)",
    ":set": ":set NAME=VALUE ...: the value of an implicit leaf created from now on (like --set)",
    ":load": ":load FILE: run a script file in this session",
    ":save": ":save FILE: write this session as a script that `gradcli run FILE` reproduces",
    ":reset": "forget every name and graph (history and :set values are kept)",
    ":quit": "leave (Ctrl-D does the same)",
}
_ALIASES = {":q": ":quit", ":exit": ":quit", ":h": ":help", ":?": ":help"}

_KEYWORDS_EXTRA = ("backward", "expect", "graph", "print")
_BLOCK_START = re.compile(r"[ \t]*(if|elif|else|for|while|def|try|except|finally|with|class|async)\b")


def history_path():
    """$XDG_DATA_HOME/gradcli/history (XDG: a relative XDG_DATA_HOME is ignored)."""
    base = os.environ.get("XDG_DATA_HOME", "")
    if not os.path.isabs(base):
        base = os.path.join(os.path.expanduser("~"), ".local", "share")
    return os.path.join(base, "gradcli", "history")


# ----------------------------------------------------------------------------- multi-line input

def _scan(text):
    """(open brackets, inside a triple-quoted string, where the last line's comment starts or None)."""
    depth, i, n, quote, comment = 0, 0, len(text), None, None
    while i < n:
        c = text[i]
        if quote:
            if c == "\\":
                i += 2
                continue
            if text.startswith(quote, i):
                i += len(quote)
                quote = None
                continue
            if len(quote) == 1 and c == "\n":
                quote = None
            i += 1
            continue
        if c == "#":
            j = text.find("\n", i)
            if j < 0:
                comment = i
            i = n if j < 0 else j
            continue
        if c in "'\"":
            quote = text[i:i + 3] if text[i:i + 3] in ('"""', "'''") else c
            i += len(quote)
            continue
        if c in "([{":
            depth += 1
        elif c in ")]}":
            depth = max(depth - 1, 0)
        i += 1
    return depth, quote is not None and len(quote) == 3, comment


def needs_more(text):
    """True when `text` should get another line rather than run: an open bracket, string or
    backslash, or a block (`for ...:`, `def ...:`) that has not yet ended with a blank line."""
    if not text.strip() or text.lstrip().startswith(":"):
        return False
    lines = text.split("\n")
    depth, open_string, _ = _scan(text)
    if lines[-1].rstrip().endswith("\\") or open_string:
        return True
    first = next(l for l in lines if l.strip())
    if _BLOCK_START.match(first):
        # A blank line ends the block, unless it sits inside an open bracket.
        return not (len(lines) > 1 and not lines[-1].strip()) or depth > 0

    from ..lang import dialect
    return dialect.is_incomplete(text)


def next_indent(line):
    """The indentation for the line after `line` in a block."""
    indent = len(line) - len(line.lstrip(" \t"))
    code = line.split("#", 1)[0].rstrip()
    if code.endswith(":"):
        return indent + 4
    if re.match(r"[ \t]*(return|pass|break|continue|raise)\b", line):
        return max(indent - 4, 0)
    return indent


# ----------------------------------------------------------------------------- the session

class Record:
    """One top-level statement the session ran, as :save writes it."""

    __slots__ = ("text", "kind", "leaves", "imports_torch", "note")

    def __init__(self, text, kind, leaves=(), imports_torch=False, note=None):
        self.text = text                  # source, as the script should say it
        self.kind = kind                  # "ok" | "expect" (failed, kept under `expect error`) | "comment"
        self.leaves = list(leaves)        # implicit leaves it created: [(name, value spec)]
        self.imports_torch = imports_torch
        self.note = note                  # the error text, for "expect" and "comment"


class Session:
    """The REPL's state and evaluation, independent of the terminal."""

    def __init__(self, values=None, strict=False, debug=False, out=None, console=None):
        self.values = dict(values or {})
        self.strict = strict
        self.debug = debug
        self.out = out or sys.stdout
        self.interp = None
        self.console = console            # a Rich Console; made by the warm-up when None
        self.highlighter = None           # prompt_toolkit's lexer for input, made by the warm-up
        self.want_highlighter = False
        self._error = None
        self._exception = None
        self.recorder = None
        self._ready = threading.Event()
        self._thread = None
        self._fresh()

    def _fresh(self):
        self.line = 1                     # the session line number of the next entry's first line
        self.log = []                     # Records, for :save
        self.torch_imported = False       # an entry imported torch: implicit leaves are off from then on
        self.last_error = None            # the last error (ErrorInfo) and its exception, while no call
        self.last_exception = None        # has run after it

    # -- start-up: heavy imports and the interpreter, off the critical path ----------------
    def start(self, background=True):
        if self._thread is None and not self._ready.is_set():
            if background:
                self._thread = threading.Thread(target=self._warm_up, name="gradcli-warm-up", daemon=True)
                self._thread.start()
            else:
                self._warm_up()

    def _warm_up(self):
        try:
            from rich.console import Console
            from ..lang import grammar as lark_parser
            from ..session import executor  # noqa: F401  (imported for their import time)
            from ..views import rich_view  # noqa: F401  (imported for its import time)
            lark_parser._make_parser()
            if self.console is None:
                self.console = Console(file=self.out, highlight=False)
            self._new_interpreter()
            if self.want_highlighter:
                from prompt_toolkit.lexers import PygmentsLexer
                from ..lang.pygments_lexer import GradcliLexer
                self.highlighter = PygmentsLexer(GradcliLexer)
        except BaseException as e:        # reported on first use; the thread must not die silently
            self._error = e
        finally:
            self._ready.set()

    def ready(self):
        return self._ready.is_set() and self._error is None

    def wait(self):
        """Block until the warm-up is done (it runs here if it never started)."""
        if not self._ready.is_set():
            if self._thread is None:
                self.start(background=False)
            else:
                self._ready.wait()
        if self._error is not None:
            raise self._error

    def _new_interpreter(self):
        from ..session.executor import Recorder, Session as Namespace
        from ..record.report import Report
        self.recorder = Recorder(Report(source="", filename="<stdin>"), keep_calls=True)
        interp = Namespace("<stdin>", values=self.values, strict=self.strict, recorder=self.recorder, echo=True)
        self.interp = interp

    MAX_TRACES = 100       # calls :explain keeps the engine records of (they hold graph nodes)

    @property
    def traces(self):
        calls = self.recorder.calls
        del calls[:-self.MAX_TRACES]
        return calls

    @property
    def implicit(self):
        return not self.strict and not self.torch_imported

    # -- one entry ----------------------------------------------------------------------
    def execute(self, text, filename="<stdin>"):
        """Run one entry (code or a :command). Returns False when the session should end."""
        if not text.strip():
            return True
        stripped = text.strip()
        if stripped.startswith(":"):
            return self.command(stripped)
        self.run_code(text, filename)
        return True

    def run_code(self, text, filename="<stdin>"):
        self.wait()
        import ast
        from ..lang import dialect
        from ..engine import STATE
        from ..record.report import Report
        text = text.replace("\r\n", "\n").replace("\r", "\n")
        lines = text.rstrip().split("\n")
        text = "\n".join(lines)
        first = self.line
        self.line += len(lines)
        source = "\n" * (first - 1) + text + "\n"      # session line numbers in every span
        entry = Report(source=source, filename=filename)
        interp = self.interp
        interp.filename = filename
        interp.strict = self.strict or self.torch_imported
        program = interp.parse(source, entry)
        if program is None:
            self.render(entry)
            self.last_error, self.last_exception = entry.error, None
            return entry
        body = program.tree.body
        if not body:
            return entry
        from ..session.limits import DEFAULT_MAX_ELEMENTS, DEFAULT_MAX_MEMORY_GB
        limits = dict(max_elements=DEFAULT_MAX_ELEMENTS, max_memory=int(DEFAULT_MAX_MEMORY_GB * 2 ** 30))
        calls_before = len(self.recorder.calls)
        for unit, seg in _units(body, source):
            st = unit[-1]
            report = Report(source=source, filename=filename)
            before = self._fingerprint()
            calls = STATE.calls
            status, crash = "ok", None
            try:
                interp.execute(program, unit, report, interactive=True, **limits)
                if report.error is not None:
                    status = "failed"
            except KeyboardInterrupt:
                status = "interrupted"
            except Exception:
                status, crash = "crashed", sys.exc_info()
            entry.items.extend(report.items)
            if report.error is not None:
                entry.error = report.error
                self._exception = report.exception
            leaves = [(n.leaf, self.values.get(n.leaf, 1.0)) for n in unit if getattr(n, "leaf", None)]
            stmts = [n for n in unit if not getattr(n, "leaf", None)]
            imports = dialect.imports_torch(ast.Module(body=stmts, type_ignores=[]))
            if status == "ok":
                self.log.append(Record(_script_form(stmts, seg, report), "ok", leaves, imports))
                if imports:
                    self.torch_imported = True
                self.render(report)
                continue
            if status == "failed":
                err = report.error
                note = f"{err.type}: {_expect_text(err.message, 100)}".rstrip(": ")
                changed = (not all(map(_is_simple, stmts)) or STATE.calls != calls
                           or report.events
                           or self._changed(before, {n for n, _ in leaves}))
                kind = "expect" if changed and err.message and len(stmts) == 1 else "comment"
                self.log.append(Record(seg, kind, leaves, imports,
                                       _expect_text(err.message) if kind == "expect" else note))
                self.render(report)
            elif status == "interrupted":
                self.log.append(Record(seg, "comment", leaves, imports, "interrupted (Ctrl-C) while running"))
                self.render(report)
                self._print_interrupt(st)
            else:
                self.log.append(Record(seg, "comment", leaves, imports, "stopped by an internal error"))
                self.render(report)
                self._internal_error(crash)
            break
        if len(self.recorder.calls) > calls_before:
            self.last_error = self.last_exception = None
        if entry.error is not None:
            self.last_error, self.last_exception = entry.error, self._exception
        return entry

    def render(self, report):
        from ..views import rich_view
        rich_view.render(report, self.console)

    def _print_interrupt(self, st):
        from rich.text import Text
        t = Text("\nKeyboardInterrupt", style="bold red")
        t.append(f"  (line {st.lineno} stopped part-way; names bound before that keep their values)", style="dim")
        self.console.print(t)

    def _internal_error(self, exc_info=None):
        """A gradcli bug surfaced: one line about it (a traceback with --debug); the session goes on."""
        from rich.text import Text
        etype, exc, tb = exc_info or sys.exc_info()
        if self.debug:
            import traceback
            traceback.print_exception(etype, exc, tb)
        t = Text("gradcli: internal error: ", style="bold red")
        t.append(f"{type(exc).__name__}: {exc}")
        self.console.print(t)
        self.console.print("This is a bug in gradcli, not in your input: please report it with what you typed "
                           "(--debug shows the traceback). The session goes on; :reset starts afresh.",
                           style="dim", markup=False, highlight=False)

    def _fingerprint(self):
        from ..engine import TensorBase
        fp = {}
        for name, v in self.interp.globals.items():
            if name.startswith("_gradcli_") or name == "__builtins__":
                continue
            if isinstance(v, TensorBase):
                fp[name] = (id(v), v._version, id(v.grad_fn), id(v._grad), v.requires_grad)
            else:
                fp[name] = id(v)
        return fp

    def _changed(self, before, new_leaves):
        after = self._fingerprint()
        for name in new_leaves:
            after.pop(name, None)
        return after != before

    # -- commands -------------------------------------------------------------------------
    def command(self, text):
        name, _, arg = text.partition(" ")
        name = _ALIASES.get(name, name)
        arg = arg.strip()
        if name == ":quit":
            return False
        handler = getattr(self, "cmd_" + name[1:], None) if name in COMMANDS else None
        if handler is None:
            close = [c for c in COMMANDS if c.startswith(name)]
            hint = f"; did you mean {' or '.join(close)}?" if close else "; :help lists them"
            self._note(f"unknown command {name}{hint}", error=True)
            return True
        self.wait()
        handler(arg)
        return True

    def _note(self, message, error=False):
        if self.console is None:
            self.out.write(message + "\n")
            self.out.flush()
        else:
            self.console.print(message, style="red" if error else "dim", markup=False, highlight=False)

    def cmd_help(self, arg):
        from rich.table import Table
        from rich.text import Text
        t = Table.grid(padding=(0, 2))
        t.add_column(style="bold cyan", no_wrap=True)
        t.add_column()
        for name, text in COMMANDS.items():
            t.add_row(name, text)
        self.console.print(Text("Type statements as in a script (both dialects): "
                                "`f = x+y; z = 2*f; backward z`, or PyTorch code after `import torch`.",
                                style="bold"))
        mode = ("unknown names are errors (--strict)" if self.strict else
                "implicit leaves are off: this session imported torch" if self.torch_imported else
                "a name used before it is assigned is a leaf tensor (1.0, or its :set value)")
        self.console.print(Text("Now: " + mode + ". Bound: torch, nn (torch.nn), F (torch.nn.functional); "
                                "a name used only as `name.attr` or `name(...)` is never a leaf.", style="dim"))
        self.console.print(t)
        self.console.print(Text(
            "Keys: Tab completes names, torch functions and tensor attributes (x.<Tab>); Up/Down and Ctrl-R "
            "search history; Right arrow takes the grey suggestion; a block (for/if/def) ends with a blank line; "
            "Esc Enter inserts a newline; Ctrl-C cancels the input or stops a running computation; Ctrl-D leaves.",
            style="dim"))

    def cmd_vars(self, arg):
        from rich.table import Table
        from rich.text import Text
        from ..engine import TensorBase
        rows, others = [], []
        for name, v in self.interp.globals.items():
            if isinstance(v, TensorBase):
                rows.append((name, v))
            elif not name.startswith("_"):
                others.append((name, v))
        if not rows and not others:
            self._note("No names yet. Try: f = x+y; z = 2*f; backward z")
            return
        if rows:
            wide = self.console.width >= 110       # on a narrow terminal, `name` alone shows the value
            table = Table(box=None, header_style="bold", pad_edge=False, padding=(0, 1))
            table.add_column("name", style="bold", no_wrap=True)
            if wide:
                table.add_column("value", max_width=30)
            table.add_column("shape", no_wrap=True)
            table.add_column("dtype", no_wrap=True)
            table.add_column("requires\ngrad", no_wrap=True)
            table.add_column("grad_fn", no_wrap=True)
            table.add_column("grad", max_width=24)
            table.add_column("saved tensors of grad_fn", min_width=16)
            for name, t in rows:
                leaf = "leaf" if t.requires_grad else "—"
                cells = [name] + ([_values(t._data)] if wide else []) + [
                    str(list(t._data.shape)), _dtype(t),
                    Text("True", style="green") if t.requires_grad else Text("False", style="dim"),
                    t.grad_fn.name() if t.grad_fn is not None else Text(leaf, style="dim"),
                    _values(t._grad._data) if t._grad is not None else Text("None", style="dim"),
                    _saved_state(t)]
                table.add_row(*cells)
            self.console.print(table)
            if not wide:
                self.console.print("(type a name to see its value; a terminal of 110+ columns shows them here)",
                                   style="dim", highlight=False)
        if others:
            t = Text("other names: ", style="dim")
            t.append(", ".join(f"{n} = {_short(_safe_repr(v), 30)}" for n, v in others))
            self.console.print(t)

    def cmd_graph(self, arg):
        from ..engine import TensorBase
        names = arg.replace(",", " ").split()
        if not names:
            self._note("usage: :graph NAME [NAME ...]   (the tensors whose backward graph to draw)", error=True)
            return
        roots = {}
        for name in names:
            v = self.interp.globals.get(name)
            if not isinstance(v, TensorBase):
                what = "is not defined" if v is None and name not in self.interp.globals else "is not a tensor"
                self._note(f":graph: {name} {what} (:vars lists the tensors)", error=True)
                return
            roots[name] = v
        from ..record import graph as graph_snapshot
        from ..views import graph as graphview
        by_tensor, by_node = self.interp._names()
        self.console.print(graphview.tree(graph_snapshot.snapshot(roots, by_node, by_tensor,
                                                             modules=self.interp.modules())))

    def cmd_explain(self, arg):
        if not self.traces and self.last_error is None:
            self._note("Nothing to explain yet: :explain tells the story of the last backward()/autograd.grad() "
                       "call (:explain all: every call since the start or :reset) and why the last error happened.")
            return
        from ..views import narrative as narrate
        from ..record import trace as tracing
        from ..record.report import Report
        report = Report(filename="<stdin>")
        report.error = self.last_error
        trace = tracing.Trace(report, self.interp, calls=list(self.traces), exception=self.last_exception)
        narr = narrate.build(trace)
        lines = narrate.lines(narr)
        if arg.strip() != "all" and narr.calls:
            lines = _last_call_lines(lines, narr.calls[-1])
        self.console.print(narrate.layout(lines))

    def cmd_reset(self, arg):
        self._fresh()
        self._new_interpreter()
        self._note("Session reset: every name and graph is gone; line numbers start again at 1 "
                   "(history and :set values are kept).")

    def cmd_set(self, arg):
        from ..session.set_values import parse_set, UsageError
        if not arg:
            if self.values:
                self._note("implicit leaf values: " + ", ".join(f"{k}={v!r}" for k, v in self.values.items()))
            else:
                self._note("No values set: implicit leaves are 1.0. Usage: :set x=2 w=[1,2]")
            return
        items = re.split(r"\s+(?=[A-Za-z_]\w*\s*=)", arg)
        try:
            values = parse_set([re.sub(r"^([A-Za-z_]\w*)\s*=\s*", r"\1=", i) for i in items])
        except UsageError as e:
            self._note(str(e).replace("--set", ":set"), error=True)
            return
        self.values.update(values)
        for name, value in values.items():
            msg = f"{name} = {value!r} for the implicit leaf {name}"
            if name in self.interp.globals:
                msg += (f"; {name} already exists ({_short(_safe_repr(self.interp.globals[name]), 40)}), so this "
                        f"applies when it is next created: `del {name}` first to re-create it now")
            self._note(msg)
        if not self.implicit:
            why = "--strict" if self.strict else "this session imported torch"
            self._note(f"(implicit leaves are off: {why}; the value is kept for :reset)")

    def cmd_load(self, arg):
        path = os.path.expanduser(_unquote(arg))
        if not path:
            self._note("usage: :load FILE", error=True)
            return
        from ..session.sourcefile import SourceError, read_source
        try:
            data = read_source(path)          # a regular file within the size limit: never a FIFO
            if b"\x00" in data:
                raise ValueError(f"{path} is a binary file, not a script")
            text = data.decode("utf-8-sig")
        except SourceError as e:
            self._note(f":load: cannot read: {e}", error=True)
            return
        except ValueError as e:
            self._note(f":load: cannot read {path}: {e}", error=True)
            return
        n = len(text.rstrip().split("\n"))
        self._note(f"loading {path}: its lines 1-{n} are session lines {self.line}-{self.line + n - 1}")
        self.run_code(text, filename=path)

    def cmd_save(self, arg):
        path = os.path.expanduser(_unquote(arg))
        if not path:
            self._note("usage: :save FILE", error=True)
            return
        if not self.log:
            self._note("Nothing to save yet: no statement has run in this session.", error=True)
            return
        text = self.script_text(os.path.basename(path))
        from ..lang import dialect
        from ..engine import ParseError
        try:
            dialect.parse(text)
        except ParseError as e:          # cannot happen for statements that parsed; checked anyway
            self._note(f":save: the script would not parse ({e.message}); nothing written", error=True)
            return
        existed = os.path.exists(path)
        try:
            from ..session.atomic import write_atomic
            write_atomic(path, text)
        except OSError as e:
            self._note(f":save: cannot write {path}: {e.strerror or e}", error=True)
            return
        n = sum(r.kind != "comment" for r in self.log)
        self._note(f"{'replaced' if existed else 'wrote'} {path}: {n} statement{'s' if n != 1 else ''}; "
                   f"`gradcli run {path}` reproduces this session")
        if any(r.note and r.note.startswith("interrupted") for r in self.log):
            self._note("note: a statement stopped by Ctrl-C is in the script as a comment; what it did before "
                       "it stopped is not reproduced")

    def script_text(self, name="session.grad"):
        """The session's statements as a script that `gradcli run` reproduces.

        Statements that failed without changing anything are kept as comments. One that failed
        after changing the state (a backward that freed buffers, a loop that ran part-way)
        runs under `expect error`, so the rest of the script sees the same state. Implicit
        leaves stay implicit when they are 1.0 and the script never imports torch; otherwise
        (:set values, `import torch`, --strict) they are written as torch.tensor(...) leaves.
        """
        import datetime
        leaves = [spec for r in self.log for _, spec in r.leaves]
        imports = any(r.imports_torch and r.kind != "comment" for r in self.log)
        explicit = self.strict or imports or any(_nondefault(s) for s in leaves)
        out = [f"# gradcli session saved by `gradcli repl` on {datetime.datetime.now():%Y-%m-%d %H:%M}.",
               f"# Run it with: gradcli run {name}"]
        if any(r.kind != "ok" for r in self.log):
            out.append("# Failed statements are comments; one that failed after changing the state runs under "
                       "`expect error`.")
        if explicit and _needs_import(self.log):
            out.append("import torch")
        for r in self.log:
            if explicit:
                out.extend(f"{name} = torch.tensor({_literal(spec)}, requires_grad=True)" for name, spec in r.leaves)
            if r.kind == "ok":
                out.append(r.text)
            elif r.kind == "expect":
                out.append(f"expect error {r.note!r}")
                out.append(r.text)
            else:
                out.append(f"# ({r.note})")
                out.extend("# " + line for line in r.text.split("\n"))
        return "\n".join(out) + "\n"

    # -- completion ---------------------------------------------------------------------------
    def complete(self, text):
        """Completions for the text before the cursor: [(completion, start (<= 0), meta)]."""
        line = text.rsplit("\n", 1)[-1]
        if "\n" not in text and line.lstrip().startswith(":"):
            return self._complete_command(line.lstrip())
        if _in_string(line):
            return []
        m = re.search(r"((?:[A-Za-z_]\w*\s*\.\s*)*)([A-Za-z_]\w*)?$", line)
        path, word = m.group(1), m.group(2) or ""
        prev = line[m.start() - 1:m.start()]
        if prev.isdigit() or prev in ("'", '"') or (prev.isalpha() or prev == "_"):
            return []
        before = line[:m.start()].rstrip()
        if before.endswith(".") and not path:
            # `y.sum().`, `x[0].`: no code runs to find what that is; in gradcli it is nearly always a tensor
            if not before[:-1].rstrip().endswith((")", "]")):
                return []
            return [(n, -len(word), meta) for n, meta in _attribute_names(_TENSOR)
                    if n.startswith(word) and (word.startswith("_") or not n.startswith("_"))] if self.ready() else []
        if path:
            parts = [p.strip() for p in path.split(".")[:-1]]
            return [(n, -len(word), meta) for n, meta in self._attributes(parts) if n.startswith(word)
                    and (word.startswith("_") or not n.startswith("_") or n.startswith("_saved_"))]
        if not word:
            return []
        return [(n, -len(word), meta) for n, meta in self._names_in_scope() if n.startswith(word) and n != word]

    def _complete_command(self, line):
        name, space, arg = line.partition(" ")
        if not space:
            return [(c, -len(name), COMMANDS[c].split(":")[-1].strip()[:40]) for c in COMMANDS if c.startswith(name)]
        name = _ALIASES.get(name, name)
        word = arg.split()[-1] if arg and not arg.endswith(" ") else ""
        if name == ":graph" and self.ready():
            from ..engine import TensorBase
            return [(n, -len(word), "tensor") for n, v in self.interp.globals.items()
                    if isinstance(v, TensorBase) and n.startswith(word)]
        if name in (":load", ":save"):
            return _complete_path(arg)
        return []

    def _names_in_scope(self):
        import builtins
        import keyword
        out = []
        if self.ready():
            for n, v in self.interp.globals.items():
                out.append((n, _meta(v)))
            for n in dir(builtins):
                if n not in self.interp.globals and not n.startswith("_"):
                    out.append((n, "builtin"))
            if "torch" not in self.interp.globals:
                out.append(("torch", "module (import torch)"))
        for k in list(keyword.kwlist) + list(_KEYWORDS_EXTRA):
            out.append((k, "keyword"))
        seen, result = set(), []
        for n, meta in out:
            if n not in seen and not n.startswith("__") and not n.startswith("_gradcli_"):
                seen.add(n)
                result.append((n, meta))
        return result

    def _attributes(self, parts):
        """Attribute names of the object a dotted path names, without running any code."""
        if not self.ready():
            return []
        import builtins
        import types
        from .. import engine as E
        g = self.interp.globals
        head = parts[0]
        if head in g:
            obj = g[head]
        elif head in ("torch", "nn", "F"):
            import gradcli.torch as gtorch
            obj = {"torch": gtorch, "nn": gtorch.nn, "F": gtorch.nn.functional}[head]
        elif self.implicit and not hasattr(builtins, head):
            obj = _TENSOR                        # an implicit leaf, once it is used
        else:
            return []
        for p in parts[1:]:
            if isinstance(obj, types.ModuleType):
                obj = getattr(obj, p, None) if not p.startswith("_") else None
            elif obj is _TENSOR or isinstance(obj, E.TensorBase):
                real = obj if isinstance(obj, E.TensorBase) else None
                if p in ("grad", "data", "T", "mT", "H", "_base"):
                    obj = _TENSOR
                elif p == "grad_fn":
                    obj = real.grad_fn if real is not None else None
                else:
                    return []
            else:
                return []
            if obj is None:
                return []
        return _attribute_names(obj)


class _TensorMarker:
    pass


_TENSOR = _TensorMarker()      # "some tensor" for completion, where no real one is at hand
_NODE_ATTRS = ("name", "next_functions", "_sequence_nr", "metadata", "register_hook", "register_prehook")


def _attribute_names(obj):
    import types
    from .. import engine as E
    from ..torch import Tensor
    if obj is _TENSOR or isinstance(obj, E.TensorBase):
        names = sorted({n for n in dir(Tensor) if not n.startswith("_")} | {"_version", "_base"})
        out = []
        for n in names:
            attr = getattr(Tensor, n, None)
            out.append((n, "attribute" if isinstance(attr, property) or not callable(attr) else "method"))
        return out
    if isinstance(obj, types.ModuleType):
        names = getattr(obj, "__all__", None) or dir(obj)
        return [(n, _meta(getattr(obj, n, None))) for n in sorted(set(names))
                if n.isidentifier() and not n.startswith("_") and n != "annotations"]
    if isinstance(obj, E.Node):
        out = [(n, "attribute") for n in sorted(n for n in _NODE_ATTRS if hasattr(obj, n))]
        out += [("_saved_" + s, "saved tensor" if obj.saved.get(s) is not None else "saved slot (None)")
                for s in obj.saved]
        out += [("_saved_" + s, "saved attribute") for s in obj.attrs if not s.startswith("_")]
        return out
    if isinstance(obj, (str, list, dict, tuple, set)):
        return [(n, "method") for n in sorted(dir(obj)) if not n.startswith("_")]
    return [(n, "attribute") for n in sorted(dir(obj)) if not n.startswith("_")]


def _meta(v):
    import types
    from .. import engine as E
    if isinstance(v, E.TensorBase):
        shape = list(v._data.shape)
        s = f"tensor {shape} {_dtype(v)}"
        if v.grad_fn is not None:
            s += f" {v.grad_fn.name()}"
        elif v.requires_grad:
            s += " leaf"
        return s
    if isinstance(v, types.ModuleType):
        return "module"
    if isinstance(v, (types.FunctionType, types.BuiltinFunctionType)):
        return "function"
    if isinstance(v, E.DType):
        return "dtype"
    if isinstance(v, type):
        return "class"
    if callable(v):
        return "function"
    return type(v).__name__


def _in_string(line):
    """Whether the end of `line` is inside a string literal (no completion there)."""
    quote = None
    i = 0
    while i < len(line):
        c = line[i]
        if quote:
            if c == "\\":
                i += 1
            elif c == quote:
                quote = None
        elif c in "'\"":
            quote = c
        elif c == "#":
            return True
        i += 1
    return quote is not None


def _complete_path(arg):
    path = os.path.expanduser(_unquote(arg))
    directory, prefix = os.path.split(path)
    try:
        entries = sorted(os.listdir(directory or "."))
    except OSError:
        return []
    out = []
    for e in entries:
        if e.startswith(prefix) and (prefix.startswith(".") or not e.startswith(".")):
            is_dir = os.path.isdir(os.path.join(directory or ".", e))
            out.append((e + ("/" if is_dir else ""), -len(prefix), "directory" if is_dir else "file"))
    return out


def _unquote(s):
    s = s.strip()
    if len(s) >= 2 and s[0] == s[-1] and s[0] in "'\"":
        return s[1:-1]
    return s


# ----------------------------------------------------------------------------- statements -> script

def _units(body, source):
    """The top-level statements one at a time (so the session knows which ones ran), each with
    the implicit leaves created just before it and its source text: from its start to the next
    statement's, without the `;` between them or a comment after it."""
    starts = [0]
    for line in source.split("\n"):
        starts.append(starts[-1] + len(line) + 1)
    own = [st for st in body if not getattr(st, "leaf", None)]
    ends = {id(st): starts[nxt.lineno - 1] + nxt.col_offset for st, nxt in zip(own, own[1:])}
    pending = []
    for st in body:
        pending.append(st)
        if getattr(st, "leaf", None):
            continue
        text = source[starts[st.lineno - 1] + st.col_offset:ends.get(id(st), len(source))].rstrip()
        head, _, last = text.rpartition("\n")
        cut = _scan(text)[2]
        if cut is not None and cut >= len(head):     # a comment after the statement
            text = text[:cut].rstrip()
        yield pending, text.rstrip(";").rstrip()
        pending = []
    if pending:
        yield pending, ""


def _is_simple(st):
    import ast
    return not isinstance(st, (ast.If, ast.For, ast.While, ast.Try, ast.With, ast.FunctionDef, ast.ClassDef,
                               ast.AsyncFunctionDef))


def _script_form(stmts, seg, report):
    """A bare expression echoed its value in the REPL; a script prints it instead. Only
    expressions without calls are rewritten: they cannot print, so any output was the echo."""
    import ast
    if len(stmts) != 1 or not isinstance(stmts[0], ast.Expr) or any(
            isinstance(n, (ast.Call, ast.Lambda)) for n in ast.walk(stmts[0].value)):
        return seg
    out = report.stdout
    if not out:
        return seg
    return f"print(repr({seg}))" if out[:1] in "'\"" else f"print({seg})"


def _expect_text(message, width=80):
    """The start of an error message, for `expect error` (which matches a part of the message) and
    for comments: its first line, cut at a space before `width` characters."""
    first = message.splitlines()[0] if message else ""
    if len(first) > width:
        cut = first.rfind(" ", 0, width)
        first = first[:cut if cut > 20 else width]
    return first


def _needs_import(log):
    """Whether the script must start with `import torch`: a leaf is written as torch.tensor(...)
    before any statement of the session imported torch, or nothing imports it (--strict)."""
    for r in log:
        if r.leaves:
            return True
        if r.imports_torch and r.kind != "comment":
            return False
    return True


def _nondefault(spec):
    return not (isinstance(spec, (int, float)) and not isinstance(spec, bool) and spec == 1.0)


def _literal(spec):
    import math
    if isinstance(spec, (list, tuple)):
        return "[" + ", ".join(_literal(v) for v in spec) + "]"
    f = float(spec)
    return repr(f) if math.isfinite(f) else f"float('{f}')"


# ----------------------------------------------------------------------------- views of state


def _fmt(data):
    from ..engine import format_tensor
    return format_tensor(data, "bool" if data.dtype.kind == "b" else data.dtype.name)


def _values(data, width=60):
    """A tensor's values as PyTorch prints them, without the `tensor(...)` wrapper, on one line."""
    text = _fmt(data)
    if text.startswith("tensor(") and text.endswith(")"):
        text = re.sub(r",\s*dtype=torch\.\w+$", "", text[len("tensor("):-1])
    return _short(text, width)


def _dtype(t):
    return "bool" if t._data.dtype.kind == "b" else t._data.dtype.name


def _short(s, width=60):
    s = " ".join(s.split())
    return s if len(s) <= width else s[:width - 1] + "…"


def _safe_repr(v):
    try:
        return repr(v)
    except Exception:          # a repr must never end the session
        return f"<{type(v).__name__}>"


def _saved_state(t):
    """The saved slots of t's grad_fn and what happened to them (engine facts, formatted)."""
    from rich.text import Text
    node = t.grad_fn
    if node is None:
        return Text("")
    slots = node.tensor_slots()
    if not slots:
        return Text("saves nothing", style="dim")
    out = Text()
    for i, slot in enumerate(slots):
        s = node.saved[slot]
        if i:
            out.append(", ")
        label = slot + (f"={s.constant!r}" if s.constant is not None else "")
        if s.freed:
            line = getattr(getattr(node.freed_by, "origin", None), "line", None)
            out.append(f"{label} freed" + (f" (line {line})" if line else ""), style="yellow")
        elif s.version.v != s.saved_version:
            out.append(f"{label} modified in place (version {s.saved_version} → {s.version.v})", style="red")
        else:
            out.append(f"{label} held", style="green")
    return out


def _last_call_lines(lines, story):
    """narrate.lines() tells every call; keep the last call's part, and what follows it (the
    error told outside any call). A call's part starts with its header line."""
    head = f"{story.kind} {story.index} of "
    starts = [i for i, (indent, text, style) in enumerate(lines) if indent == 0 and text.startswith(head)]
    if not starts:
        return lines
    return lines[starts[-1]:]


# ----------------------------------------------------------------------------- front ends

def _terminal_ok():
    term = os.environ.get("TERM", "")
    return sys.stdin.isatty() and sys.stdout.isatty() and term not in ("dumb", "unknown", "emacs")


def banner(session):
    from ..version import __version__
    mode = ("--strict: assign every name before use" if session.strict else
            "unassigned names are leaf tensors (:set x=2)")
    return (f"gradcli {__version__} (autograd on a PyTorch 2.13-like engine). :help, or Ctrl-D to leave.\n"
            f"torch, nn and F are bound (as after `import torch`, `import torch.nn as nn`, "
            f"`import torch.nn.functional as F`).\n"
            f"Try `f = x+y; z = 2*f; backward z`, or any PyTorch code; {mode}.\n")


def main(values=None, strict=False, debug=False):
    """Run the REPL until :quit or Ctrl-D. Returns the exit status."""
    session = Session(values, strict, debug)
    if _terminal_ok():
        try:
            return _prompt_toolkit_loop(session)
        except _NoTerminal as e:
            sys.stderr.write(f"gradcli: {e}; using plain line input\n")
    return _plain_loop(session)


class _NoTerminal(Exception):
    pass


def cli_main(argv):
    """`gradcli repl [--set NAME=VALUE] [--strict] [--debug]` without Typer, whose import and
    set-up cost about 0.3 s before the first prompt (cli/entry.py calls this; cli/repl.py declares
    the same options for `gradcli repl --help`). Returns the exit status."""
    import argparse
    from ..session.set_values import parse_set, UsageError

    class Parser(argparse.ArgumentParser):
        def error(self, message):
            sys.stderr.write(f"gradcli: {message} (see gradcli repl --help)\n")
            raise SystemExit(2)

    p = Parser(prog="gradcli repl", add_help=False)
    p.add_argument("--set", dest="set_", action="append", default=[])
    p.add_argument("--strict", action="store_true")
    p.add_argument("--debug", action="store_true")
    try:
        args = p.parse_args(argv)
        values = parse_set(args.set_)
    except UsageError as e:
        sys.stderr.write(f"gradcli: {e}\n")
        return 2
    except SystemExit as e:
        return e.code
    from ..session.atomic import cannot_write
    if sys.stdout is None:                    # started with standard output closed (`>&-`)
        return cannot_write(OSError(9, "standard output is closed"))
    try:
        return main(values, strict=args.strict, debug=args.debug)
    except OSError as e:                      # /dev/full, a reader gone: the session cannot show anything
        return cannot_write(e)


def _plain_loop(session, show_banner=True):
    interactive = sys.stdin.isatty()
    if hasattr(sys.stdin, "reconfigure"):
        # bytes that are not UTF-8 reach the parser (as lone surrogates, which it refuses with a
        # SyntaxError) rather than ending the session in input()
        sys.stdin.reconfigure(errors="surrogateescape")
    prompt_out = sys.stdout if sys.stdout.isatty() else sys.stderr
    if interactive and show_banner:
        session.out.write(banner(session))
        session.out.flush()
    session.start()

    edited = interactive and sys.stdout.isatty() and _line_editing()

    def read(prompt):
        if not interactive:
            return input()
        if edited:
            return input(prompt)
        prompt_out.write(prompt)
        prompt_out.flush()
        line = input()
        if len(line.encode("utf-8", "surrogateescape")) >= _TTY_LINE_MAX:
            raise _LineCut
        return line

    hist = history_path() if interactive else None
    while True:
        try:
            lines = [read(f"{session.line:>3} {PS1}")]
            while _parser_ready(session) and needs_more("\n".join(lines)):
                try:
                    lines.append(read(f"{session.line + len(lines):>3} {PS2}"))
                except EOFError:
                    break
        except EOFError:
            if interactive:
                session.out.write("\n")
            break
        except KeyboardInterrupt:
            session.out.write("\nKeyboardInterrupt\n")
            session.out.flush()
            continue
        except _LineCut:
            session._note(f"this line reached the terminal's limit of {_TTY_LINE_MAX} bytes, so its end may be "
                          "lost: it was not run (put long lines in a file and :load it)", error=True)
            continue
        text = "\n".join(lines)
        if hist and text.strip():
            _append_history(hist, text)
        try:
            if not session.execute(text):
                break
        except KeyboardInterrupt:
            session.out.write("\nKeyboardInterrupt\n")
        except Exception:
            _report_crash(session)
        session.out.flush()
    return 0


def _line_editing():
    """GNU readline (or libedit) under input(): it reads the terminal key by key, so a long line
    is read whole (see _TTY_LINE_MAX), with line editing and recall; Tab inserts a tab."""
    try:
        import readline
    except ImportError:
        return False
    if "libedit" in (readline.__doc__ or ""):
        readline.parse_and_bind("bind ^I ed-insert")
    else:
        readline.parse_and_bind("tab: tab-insert")
    return True


# A terminal in line mode (Linux's canonical mode) keeps at most 4095 bytes of one line and
# drops the rest without a sign: without line editing, a line that long may have been cut.
_TTY_LINE_MAX = 4095


class _LineCut(Exception):
    pass


def _parser_ready(session):
    """needs_more() asks the parser, which the warm-up loads: wait for it (False if it failed;
    the entry then runs and reports the failure)."""
    try:
        session.wait()
    except Exception:
        return False
    return True


def _report_crash(session):
    """An exception escaped an entry outside any statement (a command, the warm-up): a gradcli bug."""
    if session.console is not None:
        session._internal_error()
        return
    etype, exc, tb = sys.exc_info()
    if session.debug:
        import traceback
        traceback.print_exception(etype, exc, tb)
    sys.stderr.write(f"gradcli: internal error: {type(exc).__name__}: {exc}\n")


def _append_history(path, text):
    """The same format as prompt_toolkit's FileHistory, so both front ends share history."""
    import datetime
    from ..session.atomic import append
    entry = f"\n# {datetime.datetime.now()}\n" + "".join(f"+{line}\n" for line in text.split("\n"))
    try:
        append(path, entry.encode("utf-8", "surrogateescape"))     # the bytes as typed
    except OSError:
        pass


def build_prompt(session, input=None, output=None, history=None):
    """The prompt_toolkit PromptSession: highlighting, completion, history, and Enter that
    asks the parser whether the entry is complete. `input`/`output` are for tests."""
    try:
        from prompt_toolkit import PromptSession
        from prompt_toolkit.auto_suggest import AutoSuggestFromHistory
        from prompt_toolkit.completion import Completer, Completion
        from prompt_toolkit.enums import DEFAULT_BUFFER
        from prompt_toolkit.filters import Condition, has_focus
        from prompt_toolkit.history import FileHistory, InMemoryHistory, ThreadedHistory
        from prompt_toolkit.key_binding import KeyBindings
        from prompt_toolkit.lexers import Lexer
        from prompt_toolkit.styles import Style
    except ImportError as e:
        raise _NoTerminal(f"prompt_toolkit is not available ({e})") from None

    class LazyLexer(Lexer):
        """gradcli.lang.pygments_lexer through Pygments, once the warm-up has loaded it (Pygments costs ~0.1 s of
        start-up); plain text until then."""

        def lex_document(self, document):
            real = session.highlighter
            if real is not None:
                return real.lex_document(document)
            lines = document.lines
            return lambda i: [("", lines[i])] if i < len(lines) else []

    class GradcliCompleter(Completer):
        def get_completions(self, document, complete_event):
            try:
                found = session.complete(document.text_before_cursor)
            except Exception:              # a completion bug must not print a traceback mid-typing
                found = []
            for text, start, meta in found:
                yield Completion(text, start_position=start, display_meta=meta)

    if history is None:
        path = history_path()
        try:
            os.makedirs(os.path.dirname(path), exist_ok=True)
            history = ThreadedHistory(FileHistory(path))
        except OSError:
            history = InMemoryHistory()

    kb = KeyBindings()
    editing = has_focus(DEFAULT_BUFFER)          # not while Ctrl-R searches

    @kb.add("enter", filter=editing)
    def _enter(event):
        b = event.current_buffer
        state = b.complete_state
        if state is not None and state.current_completion is not None:
            b.apply_completion(state.current_completion)
            return
        if _parser_ready(session) and needs_more(b.text):
            b.insert_text("\n" + " " * next_indent(b.document.current_line_before_cursor))
        else:
            if b.text != b.text.rstrip():      # the blank line that ended a block: not for history
                b.text = b.text.rstrip()
            b.validate_and_handle()

    @kb.add("escape", "enter", filter=editing)
    def _newline(event):
        b = event.current_buffer
        b.insert_text("\n" + " " * next_indent(b.document.current_line_before_cursor))

    @kb.add("tab", filter=editing & Condition(lambda: _line_blank(ps.app.current_buffer)))
    def _indent(event):
        event.current_buffer.insert_text("    ")

    @kb.add("backspace", filter=editing & Condition(lambda: _can_dedent(ps.app.current_buffer)))
    def _dedent(event):
        event.current_buffer.delete_before_cursor(4)

    style = Style.from_dict({"lineno": "#7f7f7f", "prompt": "bold", "continuation": "#7f7f7f"})

    def message():
        return [("class:lineno", f"{session.line:>3} "), ("class:prompt", PS1)]

    def continuation(width, line_number, is_soft_wrap):
        if is_soft_wrap:
            return " " * width
        label = f"{session.line + line_number:>3} "
        return [("class:lineno", label), ("class:continuation", PS2.ljust(max(width - len(label), 0)))]

    if input is None and sys.platform != "win32":
        input = _paste_burst_input()
    try:
        ps = PromptSession(message=message, prompt_continuation=continuation, multiline=True, history=history,
                           auto_suggest=AutoSuggestFromHistory(), enable_history_search=False,
                           completer=GradcliCompleter(), complete_while_typing=False,
                           lexer=LazyLexer(), key_bindings=kb, style=style,
                           include_default_pygments_style=True, search_ignore_case=True,
                           mouse_support=False, enable_open_in_editor=False, input=input, output=output)
    except Exception as e:           # e.g. no usable terminal after all
        raise _NoTerminal(f"cannot use the terminal ({type(e).__name__}: {e})") from None
    session.want_highlighter = True
    # The warm-up starts once the first prompt is on the screen (later renders do nothing).
    ps.app.after_render += lambda _app: session.start()
    return ps


def _paste_burst_input():
    """The terminal's input, with a paste from a terminal that does not bracket pastes read as one
    paste. Such a paste arrives as key presses, 1 KB per read: prompt_toolkit looks up bindings
    for each and redraws the growing line after each read, so 200 KB took minutes. A read that
    brings many keys is a paste: the rest of it, already waiting, is read at once, and each run
    of plain characters becomes one paste event (Enter, Tab and other keys keep their meaning)."""
    import select
    from prompt_toolkit.input.vt100 import Vt100Input
    from prompt_toolkit.key_binding import KeyPress
    from prompt_toolkit.keys import Keys

    class PasteBurstInput(Vt100Input):
        def read_keys(self):
            keys = super().read_keys()
            if len(keys) < _PASTE_BURST:             # typing: one key or a few per read
                return keys
            while not self.closed and select.select([self.stdin], [], [], _PASTE_GAP)[0]:
                more = super().read_keys()
                if not more:
                    break
                keys += more
            out, run = [], []
            for k in keys:
                if isinstance(k.key, Keys):
                    if run:
                        out.append(KeyPress(Keys.BracketedPaste, "".join(run)))
                        run = []
                    out.append(k)
                else:
                    run.append(k.data)
            if run:
                out.append(KeyPress(Keys.BracketedPaste, "".join(run)))
            return out

    return PasteBurstInput(sys.stdin)


_PASTE_BURST = 64           # keys in one read: more than anyone types between two reads
_PASTE_GAP = 0.02           # seconds: the next part of a paste is there by then


def prompt_loop(session, ps, out=None):
    """Read entries with `ps` and run them until :quit or Ctrl-D."""
    out = out or sys.stdout
    failures = 0
    while True:
        try:
            text = ps.prompt()
            failures = 0
        except KeyboardInterrupt:          # Ctrl-C at the prompt: drop the input
            out.write("KeyboardInterrupt\n")
            out.flush()
            continue
        except EOFError:                   # Ctrl-D on an empty line
            break
        except Exception:                  # the terminal layer failed: report it; twice running, go plain
            _report_crash(session)
            failures += 1
            if failures >= 2:
                sys.stderr.write("gradcli: the line editor keeps failing; using plain line input\n")
                return _plain_loop(session, show_banner=False)
            continue
        try:
            if not session.execute(text):
                break
        except KeyboardInterrupt:          # outside a statement (rendering, a command)
            out.write("\nKeyboardInterrupt\n")
        except Exception:
            _report_crash(session)
        out.flush()
    return 0


def _prompt_toolkit_loop(session):
    ps = build_prompt(session)
    sys.stdout.write(banner(session))
    sys.stdout.flush()
    return prompt_loop(session, ps)


def _line_blank(buffer):
    """Tab at the start of a continuation line indents instead of completing."""
    return not buffer.document.current_line_before_cursor.strip() and buffer.text.strip() != ""


def _can_dedent(buffer):
    """Backspace in a continuation line's indentation removes one level (4 spaces)."""
    doc = buffer.document
    before = doc.current_line_before_cursor
    return doc.cursor_position_row > 0 and before != "" and not before.strip(" ") and len(before) % 4 == 0
