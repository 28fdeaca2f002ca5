"""Jupyter: `%load_ext gradcli`.

* `%%gradcli [--set x=2] [--strict] [--explain] [--plain | --json] [--timeout S] ...`: the cell
  runs as a gradcli script (both dialects) in one namespace that lives across cells, like the
  REPL's; the output is `gradcli run`'s report as HTML (`--plain`, `--json`: as text).
* `%gradcli graph NAME ...`: the backward graph as inline SVG; `%gradcli explain [all]`: the
  story of the last %%gradcli cell's calls (all: every call since the start or the reset);
  `%gradcli reset`: a fresh namespace.
* Plain cells that use `from gradcli import torch`: a grad_fn shows its graph as SVG,
  `gradcli.show(y)` draws y's graph, and an error gradcli raised shows its explanation
  instead of a traceback through gradcli's internals.

IPython is imported here only: `gradcli run` never imports this module.
"""
from __future__ import annotations

import ast
import contextlib
import io
import linecache
import shlex
from html import escape

from . import engine as E
from .record import origin as O

HTML_FORMAT = ('<pre class="gradcli" style="font-family:ui-monospace,Menlo,Consolas,monospace;'
               'font-size:12.5px;line-height:1.4;white-space:pre-wrap">{code}</pre>')
USAGE = ("usage: %gradcli graph NAME [NAME ...] | %gradcli explain [all] | %gradcli reset\n"
         "       %%gradcli [--set NAME=VALUE] [--strict] [--explain] [--plain | --json] [--timeout SECONDS] "
         "[--max-elements N] [--max-memory GIB]")


def _console():
    from rich.console import Console
    # (force_jupyter=False: in a kernel Rich would display each print itself)
    return Console(record=True, file=io.StringIO(), width=100, force_terminal=True, force_jupyter=False,
                   color_system="truecolor", highlight=False)


def _html(console):
    return console.export_html(code_format=HTML_FORMAT, inline_styles=True)


class Html:
    """A piece of HTML output; its text is the plain rendering (for a terminal front end)."""

    def __init__(self, html, text=""):
        self.html, self.text = html, text

    def _repr_html_(self):
        return self.html

    def __repr__(self):
        return self.text


class Graph:
    """A backward graph that a notebook draws as SVG (Graphviz's `dot`, or gradcli's own layout)."""

    def __init__(self, snap):
        from .views import graph as graphview
        self.snap = graphview.condense(snap)

    def _repr_svg_(self):
        from .views.svg import graph_svg
        return graph_svg(self.snap, legend=True)

    def __repr__(self):
        return "<gradcli graph of " + ", ".join(self.snap.nodes[o].label for o in self.snap.outputs) + ">"


def _names(namespace):
    """(by_tensor, by_node) for the tensors a namespace binds."""
    by_tensor, by_node = {}, {}
    for name, v in list(namespace.items()):
        if isinstance(v, E.TensorBase) and not name.startswith("_"):
            by_tensor.setdefault(id(v), name)
            if v.grad_fn is not None:
                by_node.setdefault(v.grad_fn, name)
    return by_tensor, by_node


def graph(roots, namespace):
    """Graph of `roots` ({name: Tensor or grad_fn node}), named after the namespace's tensors."""
    from .record import graph as graph_snapshot
    by_tensor, by_node = _names(namespace)
    return Graph(graph_snapshot.snapshot(roots, by_node, by_tensor))


def show(*tensors, namespace=None):
    """`gradcli.show(y)`: y's backward graph, drawn inline in a notebook."""
    import sys
    if namespace is None:
        namespace = _user_namespace() or sys._getframe(2).f_globals
    by_tensor, _ = _names(namespace)
    roots = {}
    for k, t in enumerate(tensors):
        if not isinstance(t, E.TensorBase):
            raise TypeError(f"gradcli.show() takes tensors, not {type(t).__name__}")
        roots[by_tensor.get(id(t)) or f"tensor {k + 1}"] = t
    return graph(roots, namespace)


def _user_namespace():
    import sys
    ipython = sys.modules.get("IPython")
    shell = ipython.get_ipython() if ipython is not None else None
    return shell.user_ns if shell is not None else None

# ----------------------------------------------------------------------------- %%gradcli


class Cells:
    """The gradcli namespace that %%gradcli cells share, with the engine records explanations need."""

    MAX_TRACES = 100       # calls whose engine records are kept (they hold graph nodes), as in the REPL

    def __init__(self):
        from .session.executor import Recorder, Session
        from .record.report import Report
        self.recorder = Recorder(Report(), keep_calls=True)
        self.session = Session("<cell>", recorder=self.recorder)
        self.count = 0
        self.last = None                 # (report, calls) of the last cell

    def run(self, source, args, values):
        """Run one cell: its Report (an error the script caused is in report.error)."""
        from .record.report import Report
        from .session.limits import DEFAULT_MAX_ELEMENTS, DEFAULT_MAX_MEMORY_GB
        self.count += 1
        name = f"<cell {self.count}>"
        session = self.session
        session.filename = name
        session.strict = args.strict
        session.values.update(values)
        report = Report(source=source, filename=name)
        first = len(self.recorder.calls)
        capture = E.STATE.capture           # (a new script resets the engine's state: plain cells keep theirs)
        try:
            session.run(source, report, timeout=args.timeout, max_elements=args.max_elements or DEFAULT_MAX_ELEMENTS,
                        max_memory=int((args.max_memory or DEFAULT_MAX_MEMORY_GB) * 2 ** 30))
        finally:
            E.STATE.capture = capture
        self.last = (report, self.recorder.calls[first:])
        return report

    def story(self, every=False):
        """The narrative's lines for the last cell's calls and error (every: all calls so far)."""
        from .views import narrative as narrate
        from .record import trace as tracing
        from .record.report import Report
        if self.last is None:
            return None
        last, calls = self.last
        report = Report(filename=last.filename)
        report.error = last.error
        del self.recorder.calls[:-self.MAX_TRACES]
        # every call so far (the narrative numbers them all), cut to the cell's own below
        trace = tracing.Trace(report, self.session, calls=list(self.recorder.calls) if every or calls else [],
                              exception=last.exception)
        lines = narrate.lines(narrate.build(trace))
        if calls and not every:
            head = f"{calls[0].kind} {calls[0].index} of "
            lines = lines[next((k for k, line in enumerate(lines) if line[1].startswith(head)), 0):]
        return lines


def _cell_options(line):
    from .cli.execute import Usage, run_parser
    message = io.StringIO()
    try:
        with contextlib.redirect_stderr(message):       # (Usage writes its message there)
            args = run_parser().parse_args(shlex.split(line))
    except Usage:
        raise ValueError(message.getvalue().strip().removeprefix("gradcli: ")) from None
    if args.file or args.code:
        raise ValueError("%%gradcli runs the cell: it takes no FILE or -c")
    if args.plain and args.json_:
        raise ValueError("--plain and --json cannot be used together")
    from .session.set_values import UsageError, parse_set
    try:
        return args, parse_set(args.set_)
    except UsageError as e:
        raise ValueError(str(e)) from None


def report_output(report, args, cells):
    """What a %%gradcli cell shows: the report (HTML, or text with --plain/--json), then with
    --explain the story of its calls."""
    if args.json_ or args.plain:
        text = _text(report, args.json_)
        return Html(f"<pre>{escape(text)}</pre>", text)
    from .views import rich_view
    console = _console()
    rich_view.render(report, console)
    if args.explain_ and not report.parse_failed:
        from rich.rule import Rule
        from .views import narrative as narrate
        console.print(Rule("explain", style="dim"))
        console.print(narrate.layout(cells.story()))
    return Html(_html(console), _text(report))


def _text(report, json_=False):
    """`gradcli run --json`'s output, or `--plain`'s (stdout and stderr together)."""
    from .views import json_view, plain
    out = io.StringIO()
    if json_:
        json_view.render(report, out)
    else:
        plain.render(report, out, out, report.filename)
    return out.getvalue()


# ----------------------------------------------------------------------------- plain cells


class CellFiles:
    """The file names IPython compiled this session's cells under, as a set for origin.Capture:
    nodes made in a plain cell remember the cell line and statement that made them."""

    def __init__(self, shell):
        self.compiled = getattr(shell.compile, "_filename_map", {})

    def __contains__(self, filename):
        if filename not in self.compiled:
            return False
        if O.source_map(filename) is None:
            source = "".join(linecache.cache.get(filename, (0, 0, [], 0))[2])
            try:
                O.register(filename, source, ast.parse(source))
            except SyntaxError:
                return False
        return True


def explain_exception(exc, tb, namespace):
    """An error gradcli raised in a plain cell as ErrorInfo: the cell line, the Why and the Fix.
    The explanation reads the failing cell's statements and the notebook's names (`namespace`)."""
    from .explain import why as explain
    from .session.executor import Session
    from .record.report import ErrorInfo

    line = text = cell = None
    while tb is not None:                   # the innermost frame of a cell
        filename = tb.tb_frame.f_code.co_filename
        if filename in getattr(E.STATE.capture, "filenames", ()):
            line, cell = tb.tb_lineno, filename
            sm = O.source_map(filename)
            st = sm.statement(line) if sm is not None else None
            text = sm.text(st) if st is not None else None
        tb = tb.tb_next
    info = ErrorInfo(exc.pytype, exc.message, line, None, text, exc.hint)
    if cell is not None:
        context = Session(cell)             # not running: its names are the namespace's
        context.globals = namespace
        explain.explain_error(info, exc, context)
    return info


def _custom_exc(shell, etype, value, tb, tb_offset=None):
    """IPython's handler for gradcli's errors: the explanation panel instead of the traceback,
    shown as the cell's error (the notebook marks the cell failed, and "run all" stops)."""
    from rich.console import Console
    from .views.rich_view import error_panel
    out = io.StringIO()
    console = Console(file=out, width=100, force_terminal=True, force_jupyter=False, color_system="standard",
                      highlight=False)
    console.print(error_panel(explain_exception(value, tb, shell.user_ns)))
    stb = [out.getvalue().rstrip("\n")]
    shell._showtraceback(etype, value, stb)
    return stb

# ----------------------------------------------------------------------------- the extension


def load_ipython_extension(shell):
    from IPython.core.magic import Magics, cell_magic, line_magic, magics_class
    from .engine import ScriptError

    @magics_class
    class GradcliMagics(Magics):
        cells = Cells()

        @cell_magic("gradcli")
        def run_cell(self, line, cell):
            try:
                args, values = _cell_options(line)
            except ValueError as e:
                return Html(f'<pre style="color:#c00">gradcli: {escape(str(e))}</pre>', f"gradcli: {e}")
            report = self.cells.run(cell, args, values)
            return report_output(report, args, self.cells)

        @line_magic("gradcli")
        def command(self, line):
            words = shlex.split(line)
            what, rest = (words[0], words[1:]) if words else ("", [])
            if what == "reset":
                type(self).cells = Cells()
                return Html("<pre>gradcli: a fresh namespace: every name and graph is gone.</pre>",
                            "gradcli: a fresh namespace")
            if what == "graph" and rest:
                return self.graph(rest)
            if what == "explain" and rest in ([], ["all"]):
                lines = self.cells.story(every=bool(rest))
                if lines is None:
                    return Html("<pre>Nothing to explain yet: run a %%gradcli cell first.</pre>", "nothing yet")
                from .views import narrative as narrate
                console = _console()
                console.print(narrate.layout(lines))
                return Html(_html(console), console.export_text())
            return Html(f"<pre>{escape(USAGE)}</pre>", USAGE)

        def graph(self, names):
            ns = self.cells.session.globals
            user = self.shell.user_ns
            roots = {}
            for name in names:
                t = ns.get(name, user.get(name))
                if not isinstance(t, E.TensorBase):
                    return Html(f'<pre style="color:#c00">gradcli: {escape(name)} is not a tensor</pre>',
                                f"{name} is not a tensor")
                roots[name] = t
            return graph(roots, {**user, **ns})

    shell.register_magics(GradcliMagics)
    svg = shell.display_formatter.formatters["image/svg+xml"]
    svg.for_type(E.Node, lambda node: graph({node.name(): node}, shell.user_ns)._repr_svg_())
    E.STATE.capture = O.Capture(CellFiles(shell), None)
    shell.set_custom_exc((ScriptError,), _custom_exc)
