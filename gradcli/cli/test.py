"""`gradcli test`: run a folder of scripts as a regression suite (the rules are in testing/suite.py)."""
from __future__ import annotations

import sys
from typing import List, Optional

import typer

from .options import internal_error


def command(
        paths: Optional[List[str]] = typer.Argument(None, metavar="PATH", help="Scripts or folders of scripts (default: examples/)."),
        keyword: Optional[str] = typer.Option(None, "-k", metavar="PATTERN",
                                              help="Only scripts whose path contains PATTERN "
                                                   "(words with and/or/not, as pytest's -k)."),
        exitfirst: bool = typer.Option(False, "-x", "--exitfirst", help="Stop at the first failure."),
        jobs: int = typer.Option(1, "-j", "--jobs", metavar="N",
                                 help="Run N scripts at a time in separate processes (0: one per CPU)."),
        json_: bool = typer.Option(False, "--json", help="Print one JSON object with every result, nothing else."),
        junit_xml: Optional[str] = typer.Option(None, "--junit-xml", metavar="PATH",
                                                help="Also write a JUnit XML report to PATH."),
        update: bool = typer.Option(False, "--update",
                                    help="Write or refresh the golden files (NAME.out, NAME.json) from this run."),
        oracle: Optional[str] = typer.Option(None, "--oracle", metavar="torch",
                                             help="Also run each .py script under real PyTorch and compare."),
        timeout: float = typer.Option(60.0, "--timeout", metavar="SECONDS",
                                      help="Stop a script after SECONDS (a `# gradcli: --timeout` header may only lower it)."),
        debug: bool = typer.Option(False, "--debug", help="Show Python tracebacks of internal errors.")):
    """Run scripts and check what they assert: `expect` statements, asserts, golden files.

    A script passes when no expectation fails, every golden file beside it (NAME.out: the
    --plain output; NAME.json: the --json output) matches, and it runs to its end (an error
    that ends it must be recorded in a golden file). Header comments: `# gradcli: --set x=2
    --strict`, `# xfail: reason`, `# skip: reason`.

    Examples:

      gradcli test                       (every script in examples/)

      gradcli test examples/ -k seed -j 2 --junit-xml report.xml

      gradcli test --update examples/seed000_block1.py
    """
    from ..testing import suite as testing
    from ..session.atomic import OutputError
    try:
        status = main(paths or ["examples"], keyword, exitfirst, jobs, json_, junit_xml, update, oracle, timeout)
    except testing.UsageError as e:
        sys.stderr.write(f"gradcli: {e}\n")
        status = 2
    except OutputError as e:                # --junit-xml into a folder that does not exist, ...
        sys.stderr.write(f"gradcli: {e}\n")
        status = e.status
    except KeyboardInterrupt:
        sys.stderr.write("gradcli: interrupted\n")
        status = 130
    except Exception:
        internal_error(debug)
    raise typer.Exit(status)


def main(paths, keyword=None, exitfirst=False, jobs=1, json_=False, junit_xml=None, update=False,
         oracle=None, timeout=60.0, console=None, out=None):
    """`gradcli test` without Typer; returns the exit status. `console` forces the Rich view."""
    import json
    import os
    from ..testing import suite as testing
    out = out or sys.stdout
    if jobs < 0:
        raise testing.UsageError("-j expects a number of processes (0: one per CPU)")
    if jobs == 0:
        jobs = os.cpu_count() or 1
    if not timeout > 0:
        raise testing.UsageError("--timeout must be a positive number of seconds")
    if oracle not in (None, "torch"):
        raise testing.UsageError(f"--oracle {oracle}: the only oracle is torch")
    if junit_xml is not None and os.path.isdir(junit_xml):
        raise testing.UsageError(f"--junit-xml {junit_xml} is a directory")
    match = testing.keyword_matcher(keyword)
    found = testing.discover(paths)
    if not found:
        raise testing.UsageError("no scripts (.grad or .py) in " + ", ".join(paths))
    scripts = [s for s in found if match(s.id)]
    for i, s in enumerate(scripts):
        s.index = i
    deselected = len(found) - len(scripts)
    if oracle == "torch":
        from ..testing import oracle as oracle_mod
        if not oracle_mod.available():        # a comparison that cannot run is not a pass
            raise testing.UsageError("--oracle torch: PyTorch is not importable here "
                                     "(pip install torch==2.13.0, or gradcli's test extra)")
    options = testing.Options(update=update, oracle=oracle, timeout=timeout)

    if json_:
        results = testing.run_all(scripts, options, jobs, exitfirst)
    elif console is not None or _is_terminal(out):
        results = _run_with_bar(scripts, options, jobs, exitfirst, console)
    else:
        def show(r):
            out.write(testing.progress_line(r) + "\n")
            out.flush()
        results = testing.run_all(scripts, options, jobs, exitfirst, on_result=show)
    stopped = len(results) < len(scripts)

    if junit_xml is not None:
        from ..session.atomic import write_atomic
        write_atomic(junit_xml, testing.junit_xml(results))
    if json_:
        out.write(json.dumps(testing.results_json(results, stopped, deselected), indent=2) + "\n")
    else:
        _finish(results, stopped, len(scripts) - len(results), deselected, console, out)
    return 1 if any(r.outcome == "failed" for r in results) else 0


def _is_terminal(out):
    try:
        return out.isatty()
    except (AttributeError, ValueError):
        return False


def _run_with_bar(scripts, options, jobs, exitfirst, console):
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
    from rich.text import Text
    from ..testing import suite as testing
    console = console or Console(highlight=False)
    styles = {"failed": "bold red", "xfailed": "yellow", "xpassed": "yellow", "skipped": "dim", "passed": "green"}
    with Progress(TextColumn("[bold]gradcli test[/]"), BarColumn(), MofNCompleteColumn(),
                  TimeElapsedColumn(), TextColumn("{task.description}"),
                  console=console, transient=True) as progress:
        task = progress.add_task("", total=len(scripts))

        def started(s):
            progress.update(task, description=s.id)

        def finished(r):
            progress.update(task, advance=1, description=r.id)
            if r.outcome != "passed" or r.updated:
                progress.console.print(Text(testing.progress_line(r), style=styles[r.outcome]), soft_wrap=True)
        return testing.run_all(scripts, options, jobs, exitfirst, on_result=finished, on_start=started)


def _finish(results, stopped, not_run, deselected, console, out):
    from ..testing import suite as testing
    failed = [r for r in results if r.outcome == "failed"]
    if console is not None or _is_terminal(out):
        from rich.console import Console
        from rich.text import Text
        console = console or Console(highlight=False)
        styles = {"title": "bold red", "head": "bold", "source": "cyan", "add": "green", "del": "red",
                  "hunk": "magenta", "hint": "dim", "text": ""}
        for r in failed:
            console.print()
            for style, text in testing.failure_lines(r):
                console.print(Text(text, style=styles[style]), soft_wrap=True)

        def say(text):
            console.print(Text(text), soft_wrap=True)
    else:
        for r in failed:
            out.write("\n" + testing.failure_text(r) + "\n")

        def say(text):
            out.write(text + "\n")
    if failed:
        say("")
    if stopped:
        say(f"stopped at the first failure (-x): {not_run} script{'s' * (not_run != 1)} not run")
    if deselected:
        say(f"{deselected} deselected by -k")
    say(testing.summary_line(results))
    if hasattr(out, "flush"):
        out.flush()
