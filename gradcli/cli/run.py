"""`gradcli run FILE`: run a script and show what autograd did (the Typer command; the
console script runs it through execute.py without Typer, with the same options)."""
from __future__ import annotations

from typing import List, Optional

import typer

from ..session.limits import DEFAULT_MAX_SOURCE_KIB, FULL_VALUES
from .execute import execute
from .options import DEBUG, MAX_ELEMENTS, MAX_MEMORY, SET, STRICT, TIMEOUT


def command(file: Optional[str] = typer.Argument(None, metavar="FILE",
                                                 help="The script to run (.grad or .py); - reads standard input."),
            code: Optional[str] = typer.Option(None, "-c", metavar="TEXT", help="Run TEXT instead of a file."),
            set_: List[str] = SET,
            strict: bool = STRICT,
            plain: bool = typer.Option(False, "--plain", help="Print exactly what Python + PyTorch would print."),
            json_: bool = typer.Option(False, "--json", help="Print one JSON object (its keys: docs/json.md)."),
            explain_: bool = typer.Option(False, "--explain",
                                          help="Then explain every backward/grad call (as `gradcli explain`)."),
            full_values: int = typer.Option(FULL_VALUES, "--full-values", metavar="N",
                                            help="With --json: every value of a tensor of up to N elements; "
                                                 "a larger one is summarised (statistics and edge values)."),
            timeout: Optional[float] = TIMEOUT,
            max_elements: int = MAX_ELEMENTS,
            max_memory: float = MAX_MEMORY,
            max_source: float = typer.Option(DEFAULT_MAX_SOURCE_KIB, "--max-source", metavar="KIB",
                                             help="Refuse a script longer than KIB kibibytes (one that is not valid "
                                                  "Python: an eighth of it), which would take long to parse."),
            debug: bool = DEBUG):
    """Run a script and show what autograd did.

    Examples:

      gradcli run -c "f = x+y; z = 2*f; y1 = z**2; backward y1" --set x=2 --set y=3

      gradcli run examples/seed000_block1.py --plain
    """
    raise typer.Exit(execute(file, code, set_, strict, plain, json_, timeout, max_elements, max_memory, debug,
                             explain_=explain_, full_values=full_values, max_source=max_source))
