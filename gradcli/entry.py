"""The `gradcli` console script. Light on purpose: `gradcli run` and `gradcli repl` never import Typer."""
from __future__ import annotations

import sys


def main():
    argv = sys.argv[1:]
    if not argv:                  # `gradcli` alone: the REPL on a terminal, else the script on stdin
        if sys.stdin.isatty():
            from .repl import cli_main
            sys.exit(cli_main([]))
        argv = ["run", "-"]
    if argv[:1] == ["run"] and not {"-h", "--help"} & set(argv[1:]):
        from .runcmd import fast_run
        sys.exit(fast_run(argv[1:]))
    if argv[:1] == ["repl"] and not {"-h", "--help"} & set(argv[1:]):
        from .repl import cli_main
        sys.exit(cli_main(argv[1:]))
    from .cli import main as typer_main
    typer_main()


if __name__ == "__main__":
    main()
