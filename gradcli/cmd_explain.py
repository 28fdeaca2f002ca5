"""`gradcli explain FILE`: the story of every backward/grad call and the true cause of
what happened (narrate.py). Exit status as `gradcli run`: 0 ok, 1 the script raised,
2 it could not be parsed or the command line was wrong."""
from __future__ import annotations

import sys
from typing import List, Optional

import typer

from .runcmd import check_limits
from .cli import app, read_script, internal_error, DEFAULT_MAX_ELEMENTS, DEFAULT_MAX_MEMORY_GB


def _usage(message):
    sys.stderr.write(f"gradcli: {message}\n")
    raise typer.Exit(2)


@app.command(context_settings={"help_option_names": ["-h", "--help"]})
def explain(file: Optional[str] = typer.Argument(None, help="The script (.grad or .py); - reads standard input."),
            code: Optional[str] = typer.Option(None, "-c", help="Explain TEXT instead of a file."),
            set_: List[str] = typer.Option([], "--set", help="Value of an implicit leaf, NAME=VALUE (repeatable)."),
            strict: bool = typer.Option(False, "--strict", help="No implicit leaves: an unknown name is a NameError."),
            plain: bool = typer.Option(False, "--plain", help="Plain text, no colours or wrapping."),
            json_: bool = typer.Option(False, "--json", help="The narrative's facts as JSON."),
            timeout: Optional[float] = typer.Option(None, "--timeout", help="Stop the script after SECONDS."),
            max_elements: int = typer.Option(DEFAULT_MAX_ELEMENTS, "--max-elements",
                                             help="Refuse a tensor with more elements than this."),
            max_memory: float = typer.Option(DEFAULT_MAX_MEMORY_GB, "--max-memory",
                                               help="Refuse to hold more than this many GiB of tensor data."),
            debug: bool = typer.Option(False, "--debug", help="Show Python tracebacks of internal errors.")):
    """Explain every backward/grad call: the nodes it ran, what they needed from their saved
    tensors, what it freed and which leaves it updated, and why a call failed or worked.

    Examples:

      gradcli explain examples/seed000_block1.py

      gradcli explain -c "f = x+y; z = 2*f; y1 = z**2; y2 = z**3; backward y1; backward y2"
    """
    from .runner import parse_set, UsageError
    if plain and json_:
        _usage("--plain and --json cannot be used together")
    check_limits(timeout, max_elements, max_memory)
    source, name = read_script(file, code)
    try:
        values = parse_set(set_)
    except UsageError as e:
        _usage(str(e))
    try:
        from .narrate import run_and_explain
        status = run_and_explain(source, name, values, strict=strict, timeout=timeout, max_elements=max_elements,
                              max_memory=int(max_memory * 2 ** 30),
                              mode="json" if json_ else "plain" if plain else "rich")
    except KeyboardInterrupt:
        sys.stderr.write("gradcli: interrupted\n")
        raise typer.Exit(130)
    except Exception:
        internal_error(debug)
    raise typer.Exit(status)
