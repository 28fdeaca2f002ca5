"""`gradcli graph FILE`: the backward graph at a point of the script, as a Rich tree,
Graphviz DOT, Mermaid, or an SVG/PNG picture drawn by Graphviz's `dot`."""
from __future__ import annotations

import sys
from typing import List, Optional

import typer

from ..record.report import exit_status
from ..views import console
from .options import DEBUG, MAX_ELEMENTS, MAX_MEMORY, SET, STRICT, TIMEOUT, internal_error, script_and_values, usage

FORMATS = ("tree", "dot", "mermaid", "svg", "png")
# What -o PATH's extension says the file holds.
EXTENSIONS = {".txt": "tree", ".dot": "dot", ".gv": "dot", ".mmd": "mermaid", ".mermaid": "mermaid",
              ".svg": "svg", ".png": "png"}



def command(file: Optional[str] = typer.Argument(None, metavar="FILE", help="The script (.grad or .py); - reads standard input."),
            code: Optional[str] = typer.Option(None, "-c", metavar="TEXT", help="Use TEXT instead of a file."),
            at: Optional[int] = typer.Option(None, "--at", metavar="LINE",
                                             help="Stop after the top-level statements that start on or before "
                                                  "LINE (a loop or function runs whole or not at all)."),
            fmt: Optional[str] = typer.Option(None, "--format", "-f", metavar="FORMAT",
                                              help="tree, dot, mermaid, svg or png (default: from -o PATH's "
                                                   "extension, else tree)."),
            output: Optional[str] = typer.Option(None, "-o", "--output", metavar="PATH",
                                                 help="Write to PATH (atomically): .txt, .dot/.gv, .mmd, .svg "
                                                      "or .png."),
            var: List[str] = typer.Option([], "--var", metavar="NAME", help="Draw this variable's graph (repeatable); default: "
                                                            "every named output."),
            depth: Optional[int] = typer.Option(None, "--depth", metavar="N", help="Summarise nodes deeper than this below an "
                                                                       "output (default 12 for tree, 40 otherwise)."),
            full: bool = typer.Option(False, "--full", help="Draw every node: no collapsed chains, no depth limit."),
            set_: List[str] = SET,
            strict: bool = STRICT,
            timeout: Optional[float] = TIMEOUT,
            max_elements: int = MAX_ELEMENTS,
            max_memory: float = MAX_MEMORY,
            debug: bool = DEBUG):
    """Draw the backward graph: grad_fn nodes with their variable names and source lines,
    saved tensors with their state (alive, freed, None; version), leaves with their .grad.
    Colours follow torchviz: blue leaf, orange saved tensor, green output; freed buffers
    are white and dashed. svg/png need Graphviz's `dot` program. Exit status: 0 the graph
    was drawn (also when the script raised: the graph shows where it stopped, and a note
    on stderr names the error); 2 usage, parse error, or no `dot` for svg/png.

    Examples:

      gradcli graph examples/seed000_block1.py

      gradcli graph examples/seed000_block1.py --at 11 -o graph.svg
    """
    fmt = _format(fmt, output)
    if fmt == "png" and output is None:
        usage("--format png writes binary data: give -o PATH")
    if at is not None and at < 1:
        usage("--at needs a line number >= 1")
    if depth is not None and depth < 1:
        usage("--depth needs a number >= 1")
    source, name, values = script_and_values(file, code, set_, timeout, max_elements, max_memory)

    def work():
        try:
            return _graph(source, name, values, at, fmt, output, var, depth, full, strict, timeout, max_elements,
                          int(max_memory * 2 ** 30))
        except typer.Exit as e:
            return e.exit_code
        except KeyboardInterrupt:
            sys.stderr.write("gradcli: interrupted\n")
            return 130
        except Exception:
            try:
                internal_error(debug)
            except typer.Exit as e:
                return e.exit_code
    if timeout is None:
        raise typer.Exit(work())
    from ..session import watchdog  # the time limit holds for drawing a huge graph too
    raise typer.Exit(watchdog.supervised(timeout, name, work, "rich", source, int(max_memory * 2 ** 30)))


def _format(fmt, output):
    """--format, or the one -o PATH's extension names; a mismatch is a usage error."""
    import os
    implied = EXTENSIONS.get(os.path.splitext(output)[1].lower()) if output else None
    if fmt is None:
        return implied or "tree"
    if fmt not in FORMATS:
        usage(f"--format must be one of {', '.join(FORMATS)}; got {fmt!r}")
    if implied is not None and implied != fmt:
        usage(f"--format {fmt} does not match -o {output}, which names a {implied} file")
    return fmt


def _graph(source, name, values, at, fmt, output, var, depth, full, strict, timeout, max_elements, max_memory):
    from ..session.executor import run_traced
    from ..record import graph as graph_snapshot
    from ..views import graph as graphview
    from ..views import show
    from ..session.atomic import write_atomic
    from ..engine import TensorBase
    trace = run_traced(source, name, values=values, strict=strict, timeout=timeout, max_elements=max_elements,
                        max_memory=max_memory,
                        upto=at)
    report = trace.report
    if report.parse_failed:
        show(report, "rich", name)
        return exit_status(report)
    tensors = {k: v for k, v in trace.interp.globals.items() if isinstance(v, TensorBase)}
    if var:
        missing = [v for v in var if v not in tensors]
        if missing:
            where = f" at line {at}" if at else ""
            usage(f"no tensor named {', '.join(missing)}{where}"
                   + (f"; tensors: {', '.join(tensors)}" if tensors else ""))
        roots = {v: tensors[v] for v in var}
    else:
        roots = graph_snapshot.default_roots(tensors)
    by_tensor, by_node = trace.names()
    snap = graph_snapshot.snapshot(roots, by_node, by_tensor, line=at, modules=trace.interp.modules())
    if not full:
        if depth is None:
            depth = graphview.TREE_DEPTH if fmt == "tree" else graphview.DEFAULT_DEPTH
        snap = graphview.condense(snap, max_depth=depth)
    if report.error is not None:
        e = report.error
        sys.stderr.write(f"gradcli: note: the script stopped at line {e.line} with {e.type}: "
                         f"{e.message.split('. ')[0]}; the graph shows the state at that point\n")
    if not roots:
        sys.stderr.write("gradcli: note: no tensor requires grad here: the graph is empty\n")
    if fmt == "tree":
        from rich.console import Console
        if output:
            import io
            buf = io.StringIO()
            Console(file=buf, width=100, color_system=None, highlight=False).print(graphview.tree(snap, condensed=False))
            write_atomic(output, buf.getvalue())
        else:
            console().print(graphview.tree(snap, condensed=False))
    elif fmt in ("dot", "mermaid"):
        text = graphview.to_dot(snap) if fmt == "dot" else graphview.to_mermaid(snap)
        if output:
            write_atomic(output, text)
        else:
            sys.stdout.write(text)
    else:
        try:
            data = graphview.render(snap, fmt)
        except graphview.GraphvizMissing as e:
            usage(str(e))
        if output:
            write_atomic(output, data)
        else:
            sys.stdout.write(data.decode())
    if output:
        sys.stderr.write(f"gradcli: wrote {output}\n")
    return 0
