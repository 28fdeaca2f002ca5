"""What the Typer commands share: the help format, the options several commands take, and
the way a command reports a bad command line or an internal error."""
from __future__ import annotations

import sys

import typer

from ..session.limits import DEFAULT_MAX_ELEMENTS, DEFAULT_MAX_MEMORY_GB


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




def usage(message):
    """A bad command line: one line on stderr, exit status 2."""
    sys.stderr.write(f"gradcli: {message}\n")
    raise typer.Exit(2)


def internal_error(debug):
    from .execute import internal_error as report
    raise typer.Exit(report(debug))


def script_and_values(file, code, set_, timeout, max_elements, max_memory):
    """What a command reads first: its limits checked, the script (text, name) and its --set
    values; a bad one is a usage error."""
    from ..session.set_values import UsageError, parse_set
    from .execute import check_limits, read_script
    check_limits(timeout, max_elements, max_memory)
    source, name = read_script(file, code)
    try:
        return source, name, parse_set(set_)
    except UsageError as e:
        usage(str(e))
