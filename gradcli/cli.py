"""The command line: `gradcli run`, with Rich, plain and JSON output."""
from __future__ import annotations

import sys
from typing import List, Optional

import typer

from . import __version__

app = typer.Typer(add_completion=False, no_args_is_help=True, rich_markup_mode=None,
                  context_settings={"help_option_names": ["-h", "--help"]},
                  help="See PyTorch's autograd at work: run small autograd scripts on a NumPy engine "
                       "that behaves like PyTorch 2.13, and see gradients, freed buffers and why errors happen. "
                       "Scripts are run by Python with `torch` resolved to gradcli, with the same trust as "
                       "`python script.py`: run only scripts you would run yourself.")

from .runcmd import (DEFAULT_MAX_ELEMENTS, DEFAULT_MAX_MEMORY_GB, DEFAULT_MAX_SOURCE_KIB, FULL_VALUES,  # noqa: F401
                     read_script, show, exit_status, execute)


class Command(typer.core.TyperCommand):
    """Help lists an argument by its placeholder alone (FILE, PATH...), as it lists options:
    recent Typer would add the Python type (`FILE <str>`), which tells a user nothing."""

    def format_options(self, ctx, formatter):
        args, opts = [], []
        for param in self.get_params(ctx):
            record = param.get_help_record(ctx)
            if record is None:
                continue
            if param.param_type_name == "argument":
                args.append((param.metavar or param.human_readable_name, record[1]))
            else:
                opts.append(record)
        for title, records in (("Arguments", args), ("Options", opts)):
            if records:
                with formatter.section(title):
                    formatter.write_dl(records)


# Options several commands share, declared once (Typer only reads these declarations).
SET = typer.Option([], "--set", metavar="NAME=VALUE", help="Value of an implicit leaf (repeatable).")
STRICT = typer.Option(False, "--strict", help="No implicit leaves: an unknown name is a NameError.")
TIMEOUT = typer.Option(None, "--timeout", metavar="SECONDS", help="Stop the script after SECONDS.")
MAX_ELEMENTS = typer.Option(DEFAULT_MAX_ELEMENTS, "--max-elements", metavar="N",
                            help="Refuse a tensor with more than N elements.")
MAX_MEMORY = typer.Option(DEFAULT_MAX_MEMORY_GB, "--max-memory", metavar="GIB",
                          help="Refuse to hold more than GIB gibibytes of tensor data.")
DEBUG = typer.Option(False, "--debug", help="Show Python tracebacks of internal errors.")


def _version(value: bool):
    if value:
        print(f"gradcli {__version__}")
        raise typer.Exit(0)


@app.callback()
def main_options(version: bool = typer.Option(False, "--version", callback=_version, is_eager=True,
                                               help="Show the version and exit.")):
    pass


def internal_error(debug):
    from .runcmd import internal_error as report
    raise typer.Exit(report(debug))


@app.command(cls=Command)
def run(file: Optional[str] = typer.Argument(None, metavar="FILE",
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


def main():
    """Entry point: Click's multi-line usage errors become one line and exit status 2.
    `gradcli` alone starts the REPL on a terminal and runs the script on standard input otherwise."""
    if len(sys.argv) == 1:
        if sys.stdin is not None and sys.stdin.isatty():
            from .repl import cli_main
            sys.exit(cli_main([]))
        sys.argv[1:] = ["run", "-"]
    try:                                     # Typer >= 0.25 vendors Click
        from typer._click import exceptions as cx
    except ImportError:
        from click import exceptions as cx
    try:
        status = app(standalone_mode=False, prog_name="gradcli")
    except cx.NoArgsIsHelpError as e:
        sys.stdout.write(e.ctx.get_help() + "\n")
        status = 0
    except cx.UsageError as e:
        hint = f" (see gradcli {e.ctx.info_name} --help)" if e.ctx and e.ctx.parent else " (see gradcli --help)"
        sys.stderr.write(f"gradcli: {e.format_message()}{hint}\n")
        status = 2
    except (typer.Abort, KeyboardInterrupt):
        sys.stderr.write("gradcli: interrupted\n")
        status = 130
    sys.exit(status or 0)


# The other commands register themselves on `app` (imported last: they import this module).
from . import cmd_explain, cmd_graph, cmd_export, cmd_repl, cmd_test  # noqa: E402,F401
