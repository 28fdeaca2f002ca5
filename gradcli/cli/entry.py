"""The `gradcli` console script. Light on purpose: `gradcli run` and `gradcli repl` never import Typer."""
from __future__ import annotations

import sys


def main():
    argv = sys.argv[1:]
    for stream in (sys.stdout, sys.stderr):
        # gradcli's own output may quote what a script made (a lone surrogate in an error
        # message): shown escaped, as Python's stderr shows it, rather than failing to write
        if stream is not None and hasattr(stream, "reconfigure"):
            stream.reconfigure(errors="backslashreplace")
    if not argv:                  # `gradcli` alone: the REPL on a terminal, else the script on stdin
        if sys.stdin is not None and sys.stdin.isatty():
            from ..repl.session import cli_main
            sys.exit(cli_main([]))
        argv = ["run", "-"]
    if argv[:1] == ["run"] and not {"-h", "--help"} & set(argv[1:]):
        from .execute import fast_run
        _exit_now(fast_run(argv[1:]))
    if argv[:1] == ["repl"] and not {"-h", "--help"} & set(argv[1:]):
        from ..repl.session import cli_main
        sys.exit(cli_main(argv[1:]))
    from .app import main as typer_main
    typer_main()


def _exit_now(code):
    """sys.exit without the interpreter's teardown, which costs a run about 10 ms once NumPy
    is loaded: by now the run has flushed its output and written its files atomically."""
    import os
    if isinstance(code, str):
        print(code, file=sys.stderr)
        code = 1
    try:
        for stream in (sys.stdout, sys.stderr):
            if stream is not None:
                stream.flush()
    except BrokenPipeError:              # the reader went away (`gradcli run x.py | head`): nothing to add
        pass
    except (OSError, ValueError) as e:    # /dev/full, a stream closed under us
        code = code or 1
        _say(f"gradcli: cannot write the output: {getattr(e, 'strerror', None) or e}")
    os._exit(code or 0)


def _say(line):
    try:
        sys.stderr.write(line + "\n")
        sys.stderr.flush()
    except (OSError, ValueError, AttributeError):
        pass


if __name__ == "__main__":
    main()
