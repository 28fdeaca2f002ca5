"""The `gradcli` command line: the Typer app, its commands (one module each) and its entry point."""
from __future__ import annotations

import importlib
import sys

import typer

from ..version import __version__
from .options import Command

app = typer.Typer(add_completion=False, no_args_is_help=True, rich_markup_mode=None,
                  context_settings={"help_option_names": ["-h", "--help"]},
                  help="See PyTorch's autograd at work: run small autograd scripts on a NumPy engine "
                       "that behaves like PyTorch 2.13, and see gradients, freed buffers and why errors happen. "
                       "Scripts are run by Python with `torch` resolved to gradcli, with the same trust as "
                       "`python script.py`: run only scripts you would run yourself.")

# The commands, in the order `gradcli --help` lists them: each is the function `command` of
# the module of that name in this package, and this line is all that registers it.
COMMANDS = ("run", "explain", "graph", "export", "test", "repl")


def _version(value: bool):
    if value:
        print(f"gradcli {__version__}")
        raise typer.Exit(0)


@app.callback()
def main_options(version: bool = typer.Option(False, "--version", callback=_version, is_eager=True,
                                               help="Show the version and exit.")):
    pass


def main():
    """Entry point: Click's multi-line usage errors become one line and exit status 2.
    `gradcli` alone starts the REPL on a terminal and runs the script on standard input otherwise."""
    if len(sys.argv) == 1:
        if sys.stdin is not None and sys.stdin.isatty():
            from ..repl.session import cli_main
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


def _register():
    for name in COMMANDS:
        app.command(name, cls=Command)(importlib.import_module(f"{__package__}.{name}").command)


_register()
