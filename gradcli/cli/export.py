"""`gradcli export FILE`: the script as runnable Python + PyTorch (export.py)."""
from __future__ import annotations

import sys
from typing import List, Optional

import typer

from .options import DEBUG, MAX_ELEMENTS, MAX_MEMORY, SET, STRICT, TIMEOUT, internal_error, script_and_values, usage



def command(file: Optional[str] = typer.Argument(None, metavar="FILE", help="The script (.grad or .py); - reads standard input."),
            code: Optional[str] = typer.Option(None, "-c", metavar="TEXT", help="Export TEXT instead of a file."),
            output: Optional[str] = typer.Option(None, "-o", "--output", metavar="PATH",
                                                 help="Write to PATH (atomically) instead of standard output."),
            set_: List[str] = SET,
            strict: bool = STRICT,
            timeout: Optional[float] = TIMEOUT,
            max_elements: int = MAX_ELEMENTS,
            max_memory: float = MAX_MEMORY,
            debug: bool = DEBUG):
    """Write a runnable PyTorch script equivalent to a gradcli script: implicit leaves and
    --set values become torch.tensor(..., requires_grad=True), `backward y` becomes
    y.backward(), `print x` becomes print(x), `expect` lines become checks. The script is
    run under gradcli first to find its implicit leaves. Exit status: 0 exported (also when
    the script itself raises: the export raises the same way), 2 the script could not be
    parsed or exported, or the command line was wrong.

    Example:

      gradcli export examples/concise_seed000.grad --set x=2 --set y=3 -o seed000.py && python seed000.py
    """
    source, name, values = script_and_values(file, code, set_, timeout, max_elements, max_memory)
    try:
        from ..views import export as X
        from ..views import show
        from ..session.atomic import write_atomic
        try:
            result = X.export_source(source, name, values=values, strict=strict, timeout=timeout,
                                     max_elements=max_elements, max_memory=int(max_memory * 2 ** 30))
        except X.ExportError as e:
            usage(f"cannot export {name}: {e}")
        if result.parse_failed:
            show(result.report, "rich", name)
            raise typer.Exit(2)
        if output:
            write_atomic(output, result.text)
            sys.stderr.write(f"gradcli: wrote {output}\n")
        else:
            sys.stdout.write(result.text)
        err = result.report.error
        if err is not None:
            where = (f"at line {err.line} with {err.type}; the exported script should stop there too"
                     + (f" (its line {result.error_line})" if result.error_line not in (None, err.line) else "")
                     if result.error_line is not None else f"at line {err.line} with {err.type}")
            sys.stderr.write(f"gradcli: note: under gradcli the script stops {where}\n")
    except typer.Exit:
        raise
    except KeyboardInterrupt:
        sys.stderr.write("gradcli: interrupted\n")
        raise typer.Exit(130)
    except Exception:
        internal_error(debug)
    raise typer.Exit(0)
