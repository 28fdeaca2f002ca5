"""`gradcli run` has two parsers (a fast argparse path, and the Typer command that documents
it); they must accept exactly the same options with the same defaults."""
import contextlib
import io
import random
import subprocess
import sys

import pytest
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


@pytest.mark.parametrize("command", ["run", "explain", "graph", "export"])
@pytest.mark.parametrize("option", [["--timeout", "-1"], ["--max-memory", "nan"], ["--max-elements", "0"]])
def test_every_command_refuses_bad_limits_in_one_line(command, option):
    r = subprocess.run([sys.executable, "-m", "gradcli", command, "-c", "x = 1", *option],
                       capture_output=True, text=True)
    assert r.returncode == 2
    assert r.stderr.count("\n") == 1 and r.stderr.startswith("gradcli: "), r.stderr
    assert "Traceback" not in r.stderr


_WORDS = ["x.py", "y.py", "-", "-c", "x = 1", "--set", "a=1", "--strict", "--plain", "--json", "--explain",
          "--full-values", "3", "--max-source", "2.5", "--timeout", "-1", "nan", "--max-elements", "0",
          "--max-memory", "1e9", "--debug", "--pla", "--timeout=2", "--", "-x", "", "07", "1_000"]


def _outcome(parse, argv):
    err = io.StringIO()
    try:
        with contextlib.redirect_stderr(err):
            return sorted((k, repr(v)) for k, v in parse(argv).items())     # (repr: nan == nan)
    except SystemExit as e:
        return ("exit", e.code, err.getvalue())


@pytest.mark.parametrize("seed", range(4))
def test_fast_option_reader_agrees_with_argparse_on_random_command_lines(seed):
    # parse_run_options reads plain command lines itself and hands the rest to argparse:
    # either way a command line must mean what argparse says it means
    rng = random.Random(seed)
    for _ in range(500):
        argv = [rng.choice(_WORDS) for _ in range(rng.randrange(6))]
        expected = _outcome(lambda a: vars(runcmd.run_parser().parse_args(a)), argv)
        assert _outcome(runcmd.parse_run_options, argv) == expected, argv


def test_plain_command_line_is_read_without_importing_argparse():
    code = ("import sys\nfrom gradcli.cli.execute import parse_run_options\n"
            "a = parse_run_options(['x.py', '--plain', '--set', 'n=2', '--timeout', '3'])\n"
            "print(a['file'], a['plain'], a['set_'], a['timeout'], 'argparse' in sys.modules)")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd="/")
    assert r.stdout.split() == ["x.py", "True", "['n=2']", "3.0", "False"], r.stderr
