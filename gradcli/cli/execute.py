"""`gradcli run` and `gradcli explain`, without Typer: reading scripts, running them, showing
reports and narratives, exit codes.

Typer (which imports pydantic) costs about as much start-up time as the whole run of a
small script, so `gradcli run` takes this fast path (parse_run_options reads its options);
the Typer command in run.py documents the same options and calls the same code. A test
checks that both accept exactly the same options.
"""
from __future__ import annotations

import errno
import math
import os
import sys

from ..session.limits import (DEFAULT_MAX_ELEMENTS, DEFAULT_MAX_MEMORY_GB, DEFAULT_MAX_SOURCE_KIB, FULL_VALUES,
                              MAX_MEMORY_GB)
from ..record.report import exit_status
from ..views import show


class Usage(SystemExit):
    """A bad command line: one line on stderr, exit status 2."""

    def __init__(self, message):
        sys.stderr.write(f"gradcli: {message}\n")
        super().__init__(2)


def read_script(file, code):
    """The script text and the name to report it under; exits 2 with a one-line message."""
    if code is not None:
        if file is not None:
            raise Usage("give either FILE or -c TEXT, not both")
        return code, "<string>"
    if file is None:
        raise Usage("missing FILE (or -c TEXT); see gradcli run --help")
    from ..session.sourcefile import SourceError, read_source, read_stdin
    try:
        data = read_stdin(sys.stdin) if file == "-" else read_source(file)
    except SourceError as e:
        raise Usage(str(e)) from None
    name = "<stdin>" if file == "-" else file
    if b"\x00" in data:
        raise Usage(f"{name} is a binary file, not a script")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        raise Usage(f"{name} is not UTF-8 text (byte {e.start} cannot be decoded)") from None
    return text, name


def internal_error(debug):
    """An exception that is not the script's fault: exit 3 with a one-line bug-report hint. (An
    output file or stream that cannot be written is not a bug: one line, exit 2 or 1.)"""
    from ..session.atomic import OutputError, cannot_write
    exc = sys.exc_info()[1]
    if isinstance(exc, OutputError):
        sys.stderr.write(f"gradcli: {exc}\n")
        return exc.status
    if isinstance(exc, OSError) and exc.errno in (errno.ENOSPC, errno.EIO, errno.EDQUOT, errno.EFBIG):
        return cannot_write(exc)
    if debug:
        import traceback
        traceback.print_exc()
    sys.stderr.write(f"gradcli: internal error: {type(exc).__name__}: {exc}\n"
                     "This is a bug in gradcli, not in your script: please report it with the script "
                     "(run with --debug to see the traceback).\n")
    return 3


def check_limits(timeout, max_elements, max_memory, full_values=0):
    """The resource options every command shares; a bad one is a usage error (exit 2)."""
    if timeout is not None and not (timeout > 0 and math.isfinite(timeout)):
        raise Usage("--timeout must be a positive number of seconds")
    if not max_elements > 0:
        raise Usage("--max-elements must be a positive number of elements")
    if not 0 < max_memory <= MAX_MEMORY_GB:
        raise Usage(f"--max-memory must be a positive number of GiB, at most {MAX_MEMORY_GB}")
    if not 0 <= full_values <= max_elements:
        raise Usage("--full-values must be a number of elements from 0 to --max-elements")


def execute(file=None, code=None, set_=(), strict=False, plain=False, json_=False, timeout=None,
            max_elements=DEFAULT_MAX_ELEMENTS, max_memory=DEFAULT_MAX_MEMORY_GB, debug=False, explain_=False,
            full_values=FULL_VALUES, max_source=DEFAULT_MAX_SOURCE_KIB):
    """Run a script as `gradcli run` does; returns the exit status."""
    from ..session.set_values import parse_set, UsageError
    if plain and json_:
        raise Usage("--plain and --json cannot be used together")
    if explain_ and json_:
        raise Usage("--explain and --json cannot be used together (gradcli explain --json gives the facts)")
    check_limits(timeout, max_elements, max_memory, full_values)
    if not max_source > 0:
        raise Usage("--max-source must be a positive number of KiB")
    if sys.stdout is None:                # started with standard output closed (`>&-`)
        from ..session.atomic import cannot_write
        return cannot_write(OSError(9, "standard output is closed"))
    source, name = read_script(file, code)
    try:
        values = parse_set(set_)
    except UsageError as e:
        raise Usage(str(e)) from None
    from ..session import watchdog
    if timeout is not None:
        mode = "json" if json_ else "plain" if plain else "rich"
        return watchdog.supervised(timeout, name, lambda: _run(source, name, values, strict, plain, json_, timeout,
                                                               max_elements, max_memory, debug, explain_,
                                                               full_values, max_source),
                                   mode, source, int(max_memory * 2 ** 30))
    watchdog.limit_address_space(int(max_memory * 2 ** 30))     # this process runs one script, then ends
    return _run(source, name, values, strict, plain, json_, timeout, max_elements, max_memory, debug, explain_,
                full_values, max_source)


def _run(source, name, values, strict, plain, json_, timeout, max_elements, max_memory, debug, explain_,
         full_values, max_source):
    from ..session.executor import run_source
    report = None
    try:
        if explain_:
            return run_and_explain(source, name, values, strict=strict, timeout=timeout, max_elements=max_elements,
                                   max_memory=int(max_memory * 2 ** 30), mode="plain" if plain else "rich",
                                   show_run=True)
        report = run_source(source, name, values=values, strict=strict, timeout=timeout,
                            max_elements=max_elements, max_memory=int(max_memory * 2 ** 30),
                            max_source=int(max_source * 1024))
        show(report, "json" if json_ else "plain" if plain else "rich", name, full_values)
    except KeyboardInterrupt:
        sys.stderr.write("gradcli: interrupted\n")
        return 130
    except BrokenPipeError:
        # The reader went away (`gradcli run ... | head`): not an error of gradcli or the script.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0 if report is None else exit_status(report)
    except OSError as e:
        if report is None or e.errno is None:
            return internal_error(debug)
        from ..session.atomic import cannot_write
        return cannot_write(e)           # /dev/full, an I/O error: the report could not be shown
    except Exception:
        return internal_error(debug)
    return exit_status(report)


# The options of `gradcli run` (the Typer command in run.py declares the same ones):
# (option, its argument name, its type: bool for a flag, list for one that repeats, its default)
RUN_OPTIONS = (
    ("-c", "code", str, None),
    ("--set", "set_", list, None),
    ("--strict", "strict", bool, False),
    ("--plain", "plain", bool, False),
    ("--json", "json_", bool, False),
    ("--explain", "explain_", bool, False),
    ("--full-values", "full_values", int, FULL_VALUES),
    ("--max-source", "max_source", float, DEFAULT_MAX_SOURCE_KIB),
    ("--timeout", "timeout", float, None),
    ("--max-elements", "max_elements", int, DEFAULT_MAX_ELEMENTS),
    ("--max-memory", "max_memory", float, DEFAULT_MAX_MEMORY_GB),
    ("--debug", "debug", bool, False),
)
_BY_OPTION = {o[0]: o[1:] for o in RUN_OPTIONS}


def run_parser():
    import argparse

    class Parser(argparse.ArgumentParser):
        def error(self, message):
            raise Usage(f"{message} (see gradcli run --help)")

    p = Parser(prog="gradcli run", add_help=False)
    p.add_argument("file", nargs="?")
    for option, dest, kind, default in RUN_OPTIONS:
        if kind is bool:
            p.add_argument(option, dest=dest, action="store_true")
        elif kind is list:
            p.add_argument(option, dest=dest, action="append", default=[])
        else:
            p.add_argument(option, dest=dest, type=kind, default=default)
    return p


def parse_run_options(argv):
    """`gradcli run`'s arguments as a dict. Exact option names with their values in the next
    word are read here; anything else (`--opt=v`, an abbreviation, a bad value, `--`) goes
    to argparse for its reading and its error text: importing it costs a run 2-3 ms."""
    args = {dest: ([] if kind is list else default) for _, dest, kind, default in RUN_OPTIONS}
    args["file"] = None
    words = iter(argv)
    for word in words:
        option = _BY_OPTION.get(word)
        if option is None:
            if word.startswith("-") and word != "-" or args["file"] is not None:
                return vars(run_parser().parse_args(argv))
            args["file"] = word
            continue
        dest, kind, _ = option
        if kind is bool:
            args[dest] = True
            continue
        value = next(words, None)
        if value is None or value.startswith("-"):
            return vars(run_parser().parse_args(argv))
        if kind is list:
            args[dest].append(value)
        else:
            try:
                args[dest] = kind(value)
            except ValueError:
                return vars(run_parser().parse_args(argv))
    return args


def fast_run(argv):
    try:
        return execute(**parse_run_options(argv))
    except SystemExit as e:
        return e.code


def run_and_explain(source, name, values=None, *, strict=False, timeout=None, max_elements=None, max_memory=None,
                    mode="rich", width=None, show_run=False, fix=None, output=None, oracle=None):
    """`gradcli explain` (and `run --explain`, show_run=True: first what `run` shows): run the
    script, print its narrative in mode "rich", "plain" or "json", return the exit status
    (0 ok, 1 the script raised, 2 it could not be parsed). Typer-free, for run's fast path."""
    from ..explain import explained
    from ..views import console
    from ..views.narrative import build, refresh, render_rich, render_text
    from ..session.executor import run_traced
    trace = run_traced(source, name, values=values, strict=strict, timeout=timeout, max_elements=max_elements,
                       max_memory=max_memory)
    narr = build(trace)
    report = trace.report
    if report.parse_failed and mode != "json":
        show(report, "plain" if mode == "plain" else "rich", name)
        return exit_status(report)
    why = explained(report.error)
    if oracle == "torch" and why is not None and report.trial is not None:
        from ..testing.oracle import confirm_fixes
        confirm_fixes(why, report.trial)
        refresh(narr)
    if fix is not None:
        return _write_fix(report, why, fix, output)
    if show_run:
        show(report, mode, name)
        sys.stdout.flush()
        if mode == "plain":
            sys.stdout.write("\n--- explain ---\n")
        else:
            from rich.rule import Rule
            console(width=width).print(Rule("explain", style="dim"))
    if mode == "json":
        import dataclasses
        import json
        from ..views.json_view import error_json
        data = dataclasses.asdict(narr)
        data["error"] = None if report.error is None else error_json(report.error)
        data["text"] = render_text(narr)
        json.dump(data, sys.stdout, indent=1, default=str)
        sys.stdout.write("\n")
    elif mode == "plain":
        sys.stdout.write(render_text(narr))
    else:
        console(width=width).print(render_rich(narr))
    return exit_status(report)


def _write_fix(report, why, n, output):
    """`--fix N [-o PATH]`: the script with the N-th working fix applied; exit 0 when written."""
    from ..session.atomic import write_atomic
    from ..explain.fixes import fixed_script
    trial = report.trial
    text = fixed_script(why, trial, n) if why is not None and trial is not None else None
    if text is None:
        count = sum(1 for f in why.fixes if f.shown and f.edit is not None) if why is not None and trial else 0
        sys.stderr.write(f"gradcli: --fix {n}: " + ("the script raised no error it can fix" if why is None else
                                                    f"there {'is' if count == 1 else 'are'} {count} tried fix"
                                                    f"{'es' * (count != 1)} that worked") + "\n")
        return 2
    if output is None:
        sys.stdout.write(text)
    else:
        write_atomic(output, text)
        sys.stderr.write(f"gradcli: wrote {output} (fix {n})\n")
    return 0
