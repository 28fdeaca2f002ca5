"""`gradcli repl`: the interactive session (gradcli/repl.py). Heavy imports wait for the call."""
from __future__ import annotations

from typing import List

import typer

from .cli import app


@app.command("repl", context_settings={"help_option_names": ["-h", "--help"]})
def repl(set_: List[str] = typer.Option([], "--set", help="Value of an implicit leaf, NAME=VALUE (repeatable)."),
         strict: bool = typer.Option(False, "--strict", help="No implicit leaves: an unknown name is a NameError."),
         debug: bool = typer.Option(False, "--debug", help="Show Python tracebacks of internal errors.")):
    """Start an interactive session: statements run as in a script, with the same output.

    Commands: :help :vars :graph NAME :explain :set NAME=VALUE :load FILE :save FILE :reset :quit
    """
    from .runner import parse_set, UsageError
    try:
        values = parse_set(set_)
    except UsageError as e:
        import sys
        sys.stderr.write(f"gradcli: {e}\n")
        raise typer.Exit(2)
    from . import repl as _repl
    raise typer.Exit(_repl.main(values, strict=strict, debug=debug))
