"""The command line: `gradcli run`, with Rich, plain and JSON output."""
from __future__ import annotations

import os
import sys
from typing import List, Optional

import typer

from . import __version__

app = typer.Typer(add_completion=False, no_args_is_help=True, rich_markup_mode=None,
                  help="See PyTorch's autograd at work: run small autograd scripts on a NumPy engine "
                       "that behaves like PyTorch 2.13, and see gradients, freed buffers and why errors happen.")

DEFAULT_MAX_ELEMENTS = 200_000_000       # 800 MB of float32 per tensor: safe on a 24 GiB machine


def _version(value: bool):
    if value:
        print(f"gradcli {__version__}")
        raise typer.Exit(0)


@app.callback()
def main_options(version: bool = typer.Option(False, "--version", callback=_version, is_eager=True,
                                               help="Show the version and exit.")):
    pass


def read_script(file: Optional[str], code: Optional[str]):
    """The script text and the name to report it under; exits 2 with a one-line message."""
    if code is not None:
        if file is not None:
            _usage("give either FILE or -c TEXT, not both")
        return code, "<string>"
    if file is None:
        _usage("missing FILE (or -c TEXT); see gradcli run --help")
    if file == "-":
        data = sys.stdin.buffer.read()
        name = "<stdin>"
    else:
        if os.path.isdir(file):
            _usage(f"{file} is a directory, not a script")
        try:
            with open(file, "rb") as f:
                data = f.read()
        except FileNotFoundError:
            _usage(f"no such file: {file}")
        except OSError as e:
            _usage(f"cannot read {file}: {e.strerror}")
        name = file
    if b"\x00" in data:
        _usage(f"{name} is a binary file, not a script")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        _usage(f"{name} is not UTF-8 text (byte {e.start} cannot be decoded)")
    return text, name


def _usage(message):
    sys.stderr.write(f"gradcli: {message}\n")
    raise typer.Exit(2)


@app.command(context_settings={"help_option_names": ["-h", "--help"]})
def run(file: Optional[str] = typer.Argument(None, help="The script to run (.grad or .py); - reads standard input."),
        code: Optional[str] = typer.Option(None, "-c", help="Run TEXT instead of a file."),
        set_: List[str] = typer.Option([], "--set", help="Value of an implicit leaf, NAME=VALUE (repeatable)."),
        strict: bool = typer.Option(False, "--strict", help="No implicit leaves: an unknown name is a NameError."),
        plain: bool = typer.Option(False, "--plain", help="Print exactly what Python + PyTorch would print."),
        json_: bool = typer.Option(False, "--json", help="Print one JSON object (see DESIGN.md)."),
        timeout: Optional[float] = typer.Option(None, "--timeout", help="Stop the script after SECONDS."),
        max_elements: int = typer.Option(DEFAULT_MAX_ELEMENTS, "--max-elements",
                                         help="Refuse tensors with more elements than this."),
        debug: bool = typer.Option(False, "--debug", help="Show Python tracebacks of internal errors.")):
    """Run a script and show what autograd did.

    Examples:

      gradcli run -c "f = x+y; z = 2*f; y1 = z**2; backward y1" --set x=2 --set y=3

      gradcli run examples/seed000_block1.py --plain
    """
    from .runner import run_source, parse_set, UsageError
    if plain and json_:
        _usage("--plain and --json cannot be used together")
    source, name = read_script(file, code)
    try:
        values = parse_set(set_)
    except UsageError as e:
        _usage(str(e))
    try:
        report = run_source(source, name, values=values, strict=strict, timeout=timeout,
                            max_elements=max_elements)
        show(report, "json" if json_ else "plain" if plain else "rich", name)
    except Exception:
        internal_error(debug)
    raise typer.Exit(exit_status(report))


def exit_status(report):
    if report.error is None:
        return 0
    return 2 if report.parse_failed else 1


def show(report, mode, name):
    if mode == "json":
        from .views import json_view
        json_view.render(report, sys.stdout)
    elif mode == "plain":
        from .views import plain
        plain.render(report, sys.stdout, sys.stderr, name)
    else:
        from rich.console import Console
        from .views import rich_view
        rich_view.render(report, Console(highlight=False))


def internal_error(debug):
    exc = sys.exc_info()[1]
    if debug:
        import traceback
        traceback.print_exc()
    sys.stderr.write(f"gradcli: internal error: {type(exc).__name__}: {exc}\n"
                     "This is a bug in gradcli, not in your script: please report it with the script "
                     "(run with --debug to see the traceback).\n")
    raise typer.Exit(3)


def main():
    """Entry point: Click's multi-line usage errors become one line and exit status 2."""
    try:                                     # Typer >= 0.25 vendors Click
        from typer._click import exceptions as cx
    except ImportError:
        from click import exceptions as cx
    try:
        status = app(standalone_mode=False)
    except cx.NoArgsIsHelpError as e:
        sys.stdout.write(e.ctx.get_help() + "\n")
        status = 0
    except cx.UsageError as e:
        hint = f" (see gradcli {e.ctx.info_name} --help)" if e.ctx and e.ctx.parent else " (see gradcli --help)"
        sys.stderr.write(f"gradcli: {e.format_message()}{hint}\n")
        status = 2
    except cx.Abort:
        sys.stderr.write("gradcli: interrupted\n")
        status = 130
    sys.exit(status or 0)
