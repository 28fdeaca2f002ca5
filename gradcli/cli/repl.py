"""`gradcli repl`: the interactive session (gradcli/repl/session.py). Heavy imports wait for the call."""
from __future__ import annotations

from typing import List

import typer

from .options import DEBUG, SET, STRICT


def command(set_: List[str] = SET,
            strict: bool = STRICT,
            debug: bool = DEBUG):
    """Start an interactive session: statements run as in a script, with the same output.

    Commands: :help :vars :graph NAME :explain :set NAME=VALUE :load FILE :save FILE :reset :quit
    """
    from ..session.set_values import parse_set, UsageError
    try:
        values = parse_set(set_)
    except UsageError as e:
        import sys
        sys.stderr.write(f"gradcli: {e}\n")
        raise typer.Exit(2)
    from ..repl import session as _repl
    raise typer.Exit(_repl.main(values, strict=strict, debug=debug))
