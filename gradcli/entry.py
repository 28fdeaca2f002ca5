"""The `gradcli` console script. Light on purpose: `gradcli run` never imports Typer."""
from __future__ import annotations

import sys


def main():
    argv = sys.argv[1:]
    if argv[:1] == ["run"] and not {"-h", "--help"} & set(argv[1:]):
        from .runcmd import fast_run
        sys.exit(fast_run(argv[1:]))
    from .cli import main as typer_main
    typer_main()


if __name__ == "__main__":
    main()
