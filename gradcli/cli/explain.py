"""`gradcli explain FILE`: the story of every backward/grad call and the true cause of
what happened (views/narrative.py). Exit status as `gradcli run`: 0 ok, 1 the script raised,
2 it could not be parsed or the command line was wrong."""
from __future__ import annotations

import os
import sys
from typing import List, Optional

import typer

from .options import DEBUG, MAX_ELEMENTS, MAX_MEMORY, SET, STRICT, TIMEOUT, internal_error, script_and_values, usage



def command(file: Optional[str] = typer.Argument(None, metavar="FILE", help="The script (.grad or .py); - reads standard input."),
            code: Optional[str] = typer.Option(None, "-c", metavar="TEXT", help="Explain TEXT instead of a file."),
            set_: List[str] = SET,
            strict: bool = STRICT,
            plain: bool = typer.Option(False, "--plain", help="Plain text without colours; paragraphs wrap at 100 columns."),
            json_: bool = typer.Option(False, "--json", help="The narrative's facts as JSON."),
            html: Optional[str] = typer.Option(None, "--html", metavar="PATH",
                                               help="Write a page that steps through each backward to PATH."),
            fix: Optional[int] = typer.Option(None, "--fix", metavar="N",
                                              help="Write the script with the error's N-th fix applied (one that was tried and worked)."),
            output: Optional[str] = typer.Option(None, "-o", "--output", metavar="PATH",
                                                 help="Where --fix writes the fixed script (default: standard output)."),
            oracle: Optional[str] = typer.Option(None, "--oracle", metavar="torch",
                                                 help="Also run each working fix under real PyTorch and say what it gave."),
            timeout: Optional[float] = TIMEOUT,
            max_elements: int = MAX_ELEMENTS,
            max_memory: float = MAX_MEMORY,
            debug: bool = DEBUG):
    """Explain every backward/grad call: the nodes it ran, what they needed from their saved
    tensors, what it freed and which leaves it updated, and why a call failed or worked.

    Examples:

      gradcli explain examples/seed000_block1.py

      gradcli explain -c "f = x+y; z = 2*f; y1 = z**2; y2 = z**3; backward y1; backward y2"

      gradcli explain examples/seed000_block1.py --html seed000.html
      gradcli explain examples/labels_from_parameters.py --fix 1 -o fixed.py --oracle torch
    """
    if plain and json_:
        usage("--plain and --json cannot be used together")
    if oracle not in (None, "torch"):
        usage(f"--oracle {oracle}: the only oracle is torch")
    if output is not None and fix is None:
        usage("-o PATH needs --fix N")
    if oracle == "torch":
        from ..testing import oracle as oracle_mod
        if not oracle_mod.available():
            usage("--oracle torch: PyTorch is not importable here")
    source, name, values = script_and_values(file, code, set_, timeout, max_elements, max_memory)
    if html is not None:
        raise typer.Exit(_html(source, name, html, values, plain or json_, debug, strict=strict, timeout=timeout,
                                 max_elements=max_elements, max_memory=int(max_memory * 2 ** 30)))
    try:
        from .execute import run_and_explain
        status = run_and_explain(source, name, values, strict=strict, timeout=timeout, max_elements=max_elements,
                                 max_memory=int(max_memory * 2 ** 30),
                                 mode="json" if json_ else "plain" if plain else "rich",
                                 fix=fix, output=output, oracle=oracle)
    except KeyboardInterrupt:
        sys.stderr.write("gradcli: interrupted\n")
        raise typer.Exit(130)
    except BrokenPipeError:
        # The reader went away (`gradcli explain ... | head`): not an error of gradcli or the script.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        raise typer.Exit(0)
    except Exception:
        internal_error(debug)
    raise typer.Exit(status)


def _html(source, name, path, values, other_view, debug, **limits):
    """`gradcli explain --html PATH`: the exit status (3: an internal error, 2: a bad command line)."""
    if other_view:
        sys.stderr.write("gradcli: --html cannot be used with --plain or --json\n")
        return 2
    try:
        status = explain_to_html(source, name, path, values=values, **limits)
        sys.stderr.write(f"gradcli: wrote {path}\n")
        return status
    except KeyboardInterrupt:
        sys.stderr.write("gradcli: interrupted\n")
        return 130
    except Exception:                       # (a page that cannot be written: one line, exit 2 or 1)
        from .execute import internal_error
        return internal_error(debug)


def explain_to_html(source, name, path, **kwargs):
    """Run the script, write its step-through page to path atomically; returns the exit status."""
    from ..record.report import exit_status
    from ..session.atomic import write_atomic
    from ..session.executor import run_traced
    from ..views import html
    from ..views.narrative import build
    with html.edge_gradients([]) as log:
        trace = run_traced(source, name, **kwargs)
    write_atomic(path, html.render(*html.page_data(build(trace), trace, log)))
    return exit_status(trace.report)
