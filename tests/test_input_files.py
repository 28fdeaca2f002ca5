"""What gradcli reads (scripts, golden files, standard input) and the limits a header may set.

A FIFO, a device or an endless stream is refused with one line instead of blocking or filling
memory; a `# gradcli:` header may lower the limits of `gradcli test` and the pytest plugin, never
raise them."""
from __future__ import annotations

import os
import pathlib
import subprocess
import sys
import time

import pytest

from fuzz_strategies import run_cli
from gradcli.session import sourcefile
from gradcli.testing import suite as testing

ROOT = pathlib.Path(__file__).resolve().parent.parent
SCRIPT = "import torch\nx = torch.ones(2, requires_grad=True)\nprint(x.sum())\n"


def usage_line(r):
    """Exit 2 with one `gradcli:` line on stderr, and no traceback: how every refusal looks."""
    assert not r.timed_out, "gradcli blocked on its input"
    assert r.rc == 2, f"exit {r.rc}\nstdout: {r.out[-600:]}\nstderr: {r.err[-600:]}"
    assert "Traceback" not in r.err
    lines = r.err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("gradcli: "), r.err
    return lines[0]


def kinds_of_file(tmp_path):
    """Paths of things that are not regular files, each named like a script."""
    fifo = tmp_path / "fifo.py"
    os.mkfifo(fifo)
    zero = tmp_path / "zero.py"
    zero.symlink_to("/dev/zero")
    folder = tmp_path / "folder.py"
    folder.mkdir()
    return {"fifo": fifo, "symlink-to-dev-zero": zero, "directory": folder}


# ----------------------------------------------------------------------------- the reading helper


def test_read_source_reads_a_regular_file_and_follows_symlinks(tmp_path):
    (tmp_path / "a.py").write_bytes(b"x = 1\n")
    (tmp_path / "link.py").symlink_to(tmp_path / "a.py")
    assert sourcefile.read_source(tmp_path / "link.py") == b"x = 1\n"


@pytest.mark.parametrize("kind", ["fifo", "symlink-to-dev-zero", "directory"])
def test_read_source_refuses_what_is_not_a_regular_file(tmp_path, kind):
    path = kinds_of_file(tmp_path)[kind]
    with pytest.raises(sourcefile.SourceError, match="not a regular file|is a directory"):
        sourcefile.read_source(path)


def test_read_source_refuses_a_file_over_the_limit(tmp_path):
    (tmp_path / "big.py").write_bytes(b"#" * 101)
    assert sourcefile.read_source(tmp_path / "big.py", limit=101) == b"#" * 101
    with pytest.raises(sourcefile.SourceError, match="larger than 100 bytes"):
        sourcefile.read_source(tmp_path / "big.py", limit=100)


# ----------------------------------------------------------------------------- gradcli run / explain / graph / export


@pytest.mark.parametrize("command", ["run", "explain", "graph", "export"])
@pytest.mark.parametrize("kind", ["fifo", "symlink-to-dev-zero", "directory"])
def test_commands_refuse_a_script_that_is_not_a_regular_file(tmp_path, command, kind):
    path = kinds_of_file(tmp_path)[kind]
    line = usage_line(run_cli([command, str(path)], timeout=30, cwd=str(tmp_path)))
    assert str(path) in line


def test_a_script_over_the_size_limit_is_refused(tmp_path):
    big = tmp_path / "big.py"
    with open(big, "wb") as f:            # sparse: costs no disk
        f.truncate(sourcefile.DEFAULT_LIMIT + 1)
    line = usage_line(run_cli(["run", str(big)], timeout=60, cwd=str(tmp_path)))
    assert "larger than 64 MiB" in line


def test_standard_input_from_dev_zero_is_refused(tmp_path):
    with open("/dev/zero", "rb") as zero:
        r = run_cli_with_stdin(["run", "-"], zero, tmp_path)
    assert "standard input is larger than 64 MiB" in usage_line(r)


@pytest.mark.parametrize("argv", [["run", "-"], [], ["graph", "-"]])
def test_closed_standard_input_is_a_usage_error(tmp_path, argv):
    r = run_cli_with_stdin(argv, None, tmp_path)
    assert "standard input is closed" in usage_line(r)


def test_standard_input_from_a_pipe_still_runs(tmp_path):
    r = run_cli(["run", "-", "--plain"], input_bytes=SCRIPT.encode(), timeout=60, cwd=str(tmp_path))
    assert r.rc == 0 and r.out == "tensor(2., grad_fn=<SumBackward0>)\n", r.err


class _Result:
    def __init__(self, rc, out, err, timed_out):
        self.rc, self.out, self.err, self.timed_out = rc, out, err, timed_out


def run_cli_with_stdin(args, stdin, cwd):
    """`python -m gradcli ARGS` with standard input from a file, or closed (stdin None)."""
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    # subprocess cannot start a child with fd 0 closed; a shell closes it before exec
    cmd = [sys.executable, "-m", "gradcli", *args]
    if stdin is None:
        cmd = ["sh", "-c", 'exec "$@" <&-', "sh", *cmd]
    try:
        p = subprocess.run(cmd, stdin=stdin, capture_output=True, text=True, timeout=60, cwd=cwd, env=env)
    except subprocess.TimeoutExpired:
        return _Result(None, "", "", True)
    return _Result(p.returncode, p.stdout, p.stderr, False)


# ----------------------------------------------------------------------------- gradcli test: scripts and golden files


def judge(folder, name, **options):
    script = testing.Script(str(folder / name), name, explicit=True)
    return testing.run_script(script, testing.Options(**options))


def test_gradcli_test_reports_a_fifo_script_and_goes_on(tmp_path):
    os.mkfifo(tmp_path / "a.py")
    (tmp_path / "b.py").write_text(SCRIPT)
    (tmp_path / "b.out").write_text("tensor(2., grad_fn=<SumBackward0>)\n")
    t0 = time.monotonic()
    results = testing.run_all(testing.discover([str(tmp_path)]), testing.Options())
    assert time.monotonic() - t0 < 30
    outcome = {os.path.basename(r.path): (r.outcome, [p.kind for p in r.problems]) for r in results}
    assert outcome == {"a.py": ("failed", ["read"]), "b.py": ("passed", [])}
    assert "not a regular file" in results[0].problems[0].message


@pytest.mark.parametrize("golden", ["b.out", "b.json"])
@pytest.mark.parametrize("kind", ["fifo", "symlink-to-dev-zero"])
def test_gradcli_test_refuses_a_golden_file_that_is_not_regular(tmp_path, golden, kind):
    (tmp_path / "b.py").write_text(SCRIPT)
    source = kinds_of_file(tmp_path)[kind]
    os.rename(source, tmp_path / golden)
    r = judge(tmp_path, "b.py")
    assert r.outcome == "failed"
    assert [p.kind for p in r.problems] == ["golden"]
    assert r.problems[0].message.startswith(f"cannot read {golden}: ")
    assert "not a regular file" in r.problems[0].message


def test_gradcli_command_on_a_folder_with_a_fifo_finishes(tmp_path):
    os.mkfifo(tmp_path / "a.py")
    r = run_cli(["test", str(tmp_path)], timeout=60, cwd=str(tmp_path))
    assert not r.timed_out and r.rc == 1, r.err
    assert "not a regular file" in r.out


def test_pytest_plugin_does_not_block_on_fifos(tmp_path):
    (tmp_path / "pytest.ini").write_text("[pytest]\ngradcli_paths = scripts\n")
    (tmp_path / "scripts").mkdir()
    os.mkfifo(tmp_path / "scripts" / "a.py")
    os.mkfifo(tmp_path / "b.grad")
    os.mkfifo(tmp_path / "helper.py")         # read to look for a `# gradcli:` header
    (tmp_path / "scripts" / "ok.py").write_text(SCRIPT)
    (tmp_path / "scripts" / "ok.out").write_text("tensor(2., grad_fn=<SumBackward0>)\n")
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    p = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q", "-rA", "."], cwd=tmp_path,
                       env=env, capture_output=True, text=True, timeout=120)
    assert p.stdout.strip().splitlines()[-1].startswith("1 passed in"), p.stdout[-3000:]


@pytest.mark.parametrize("kind", ["fifo", "symlink-to-dev-zero", "directory"])
def test_pytest_plugin_does_not_read_odd_files_as_scripts(tmp_path, kind):
    from gradcli.testing import pytest_plugin

    class Config:                      # what _is_script asks of pytest's config
        def getini(self, name):
            return {"python_files": ["test_*.py"], "gradcli_paths": []}[name]

    assert pytest_plugin._is_script(kinds_of_file(tmp_path)[kind], Config()) is False


# ----------------------------------------------------------------------------- header limits are capped


LOOP = "i = 0\nwhile True:\n    i = i + 1\n"


@pytest.mark.parametrize("header", ["--timeout 100000", "--timeout=1e300"])
def test_a_header_cannot_lift_the_timeout(tmp_path, header):
    (tmp_path / "loop.grad").write_text(f"# gradcli: {header}\n{LOOP}")
    t0 = time.monotonic()
    r = judge(tmp_path, "loop.grad", timeout=0.5)
    assert time.monotonic() - t0 < 20
    assert r.outcome == "failed" and r.problems[0].kind == "limit"


def test_a_header_may_lower_the_timeout(tmp_path):
    (tmp_path / "loop.grad").write_text(f"# gradcli: --timeout 0.3\n{LOOP}")
    t0 = time.monotonic()
    r = judge(tmp_path, "loop.grad", timeout=60)
    assert time.monotonic() - t0 < 20
    assert r.outcome == "failed" and r.problems[0].kind == "limit"


def test_a_header_cannot_lift_the_element_limit(tmp_path):
    (tmp_path / "big.py").write_text("# gradcli: --max-elements 1000000000\nimport torch\nx = torch.ones(5000)\n")
    r = judge(tmp_path, "big.py", max_elements=1000)
    assert r.outcome == "failed" and r.problems[0].kind == "limit", r.problems


def test_a_header_cannot_lift_the_memory_cap(tmp_path):
    (tmp_path / "big.py").write_text("# gradcli: --max-memory 1000\nimport torch\nx = torch.ones(1000, 1000)\n")
    r = judge(tmp_path, "big.py", max_memory_gb=0.001)
    assert r.outcome == "failed" and r.problems[0].kind == "limit", r.problems


def test_a_header_cannot_lift_the_default_element_limit(tmp_path):
    # without a command-line value the default is the ceiling
    (tmp_path / "big.py").write_text("# gradcli: --max-elements 1000000000000\nimport torch\n"
                                     "x = torch.ones(1).expand(300000000).clone()\n")
    r = judge(tmp_path, "big.py")
    assert r.outcome == "failed" and r.problems[0].kind == "limit", r.problems


def test_the_pytest_plugin_timeout_is_a_ceiling_too(tmp_path):
    (tmp_path / "loop.grad").write_text(f"# gradcli: --timeout 100000\n{LOOP}")
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    t0 = time.monotonic()
    p = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q", "--gradcli-timeout", "0.5",
                        "loop.grad"], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)
    assert time.monotonic() - t0 < 60
    assert "1 failed" in p.stdout, p.stdout[-2000:]
