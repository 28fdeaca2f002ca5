"""The command line. entry.py is the console script: `gradcli run` takes execute.py's fast path
without Typer; the other commands go through app.py, which registers one module per command.
(Nothing is imported here: the fast path must stay light.)"""
