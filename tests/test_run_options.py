"""`gradcli run` has two parsers (a fast argparse path, and the Typer command that documents
it); they must accept exactly the same options with the same defaults."""
import typer

from gradcli.cli import app as cli, execute as runcmd


def _typer_options():
    command = typer.main.get_command(cli.app).commands["run"]
    return {opt: p.default for p in command.params for opt in p.opts if opt.startswith("-")}


def _argparse_options():
    parser = runcmd.run_parser()
    return {opt: a.default for a in parser._actions for opt in a.option_strings}


def test_fast_path_and_typer_command_accept_the_same_options():
    assert set(_typer_options()) == set(_argparse_options())


def test_fast_path_and_typer_command_share_defaults():
    t, a = _typer_options(), _argparse_options()
    for opt in ("--max-elements", "--max-memory", "--timeout"):
        assert t[opt] == a[opt], opt


import subprocess
import sys

import pytest


@pytest.mark.parametrize("command", ["run", "explain", "graph", "export"])
@pytest.mark.parametrize("option", [["--timeout", "-1"], ["--max-memory", "nan"], ["--max-elements", "0"]])
def test_every_command_refuses_bad_limits_in_one_line(command, option):
    r = subprocess.run([sys.executable, "-m", "gradcli", command, "-c", "x = 1", *option],
                       capture_output=True, text=True)
    assert r.returncode == 2
    assert r.stderr.count("\n") == 1 and r.stderr.startswith("gradcli: "), r.stderr
    assert "Traceback" not in r.stderr
