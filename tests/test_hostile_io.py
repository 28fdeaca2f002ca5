"""What gradcli writes and shows, under hostile conditions: output paths that cannot be written,
streams that are closed or full, huge messages and graphs, odd text, and the REPL surviving all
of it. Runs go through the real command line (`python -m gradcli`)."""
from __future__ import annotations

import os
import stat
import subprocess
import sys
import time

import pytest

from fuzz_strategies import REPO, run_cli
from test_hostile import assert_clean

SCRIPT = "x = torch.ones(2, requires_grad=True)\ny = (x * 2).sum()\ny.backward()\n"
GRADCLI = [sys.executable, "-m", "gradcli"]
ENV = dict(os.environ, PYTHONPATH=str(REPO))


def _flat(text):
    """Rich's output as one line of words (its panels wrap text and draw borders)."""
    return " ".join(text.replace("│", " ").split())


def _folder(tmp_path):
    (tmp_path / "s.py").write_text(SCRIPT)
    (tmp_path / "folder").mkdir()
    (tmp_path / "old.txt").write_text("old\n")
    os.mkfifo(tmp_path / "fifo")
    return tmp_path


WRITERS = {
    "export -o": ["export", "s.py", "-o"],
    "graph -o": ["graph", "s.py", "--format", "dot", "-o"],
    "test --junit-xml": ["test", "s.py", "--junit-xml"],
}
BAD_PATHS = {  # path -> exit status: 2 the command line named a wrong path, 1 the device failed
    "missing/out.txt": 2,
    "folder": 2,
    "fifo": 2,                   # nobody reads it: refused at once rather than waited on
    "/dev/full": 1,
}


@pytest.mark.parametrize("path", BAD_PATHS, ids=BAD_PATHS)
@pytest.mark.parametrize("writer", WRITERS.values(), ids=WRITERS.keys())
def test_an_output_path_that_cannot_be_written_is_one_line(tmp_path, writer, path):
    _folder(tmp_path)
    r = run_cli(writer + [path], cwd=str(tmp_path), timeout=120)
    assert_clean(r)
    assert r.rc == BAD_PATHS[path]
    lines = [ln for ln in r.err.splitlines() if ln.startswith("gradcli: ")]
    assert len(lines) == 1 and path in lines[0], r.err
    assert (tmp_path / "old.txt").read_text() == "old\n"
    assert stat.S_ISFIFO(os.stat(tmp_path / "fifo").st_mode) and (tmp_path / "folder").is_dir()


def test_writing_to_a_device_writes_into_it_and_keeps_it(tmp_path):
    _folder(tmp_path)
    r = run_cli(["export", "s.py", "-o", "/dev/null"], cwd=str(tmp_path))
    assert_clean(r)
    assert r.rc == 0 and stat.S_ISCHR(os.stat("/dev/null").st_mode)


def test_update_over_a_golden_path_that_is_a_folder_fails_that_script_only(tmp_path):
    _folder(tmp_path)
    (tmp_path / "s.out").mkdir()
    (tmp_path / "t.py").write_text("print(1)\n")
    r = run_cli(["test", "--update", "s.py", "t.py"], cwd=str(tmp_path))
    assert_clean(r)
    assert r.rc == 1
    assert "FAILED   s.py  cannot write" in r.out and "s.out: it is a directory" in r.out
    assert "PASSED   t.py  (wrote t.out)" in r.out
    assert (tmp_path / "s.out").is_dir()


@pytest.mark.parametrize("mode", [[], ["--plain"], ["--json"]], ids=["rich", "plain", "json"])
def test_output_that_cannot_be_written_is_a_nonzero_exit(tmp_path, mode):
    for redirect in ({"stdout": open("/dev/full", "w")}, {"stdout": None, "close": True}):
        close = redirect.pop("close", False)
        proc = subprocess.run(GRADCLI + ["run", "-c", "print(1)", *mode], env=ENV, capture_output=False,
                              stderr=subprocess.PIPE, text=True, timeout=60,
                              preexec_fn=(lambda: os.close(1)) if close else None, **redirect)
        assert proc.returncode == 1
        assert proc.stderr.startswith("gradcli: cannot write the output: ") and proc.stderr.count("\n") == 1


@pytest.mark.parametrize("mode", [[], ["--plain"], ["--json"]], ids=["rich", "plain", "json"])
def test_printing_a_lone_surrogate_is_the_scripts_unicode_error(mode):
    r = run_cli(["run", "-c", "x = 1\nprint('\\ud800')", *mode])
    assert_clean(r)
    words = " ".join(r.both.replace("│", " ").split())        # (a panel wraps at the terminal's width)
    assert r.rc == 1 and "UnicodeEncodeError" in words and "surrogates not allowed" in words


def test_a_lone_surrogate_in_an_error_message_is_shown_escaped():
    r = run_cli(["run", "-c", "raise ValueError('\\ud800')", "--plain"])
    assert_clean(r)
    assert r.rc == 1 and r.err == "ValueError: \\ud800\n"


def test_a_huge_exception_message_is_shortened_in_the_rich_view():
    r = run_cli(["run", "-c", "x = 1\nraise ValueError('a' * 10_000_000)"], timeout=60)
    assert_clean(r)
    assert r.rc == 1 and r.elapsed < 30
    assert "more characters: --plain or --json show them all" in _flat(r.out)
    assert len(r.out) < 20_000


def test_printing_many_lines_is_linear(tmp_path):
    def seconds(n, *mode):
        (tmp_path / "p.py").write_text(f"for i in range({n}):\n    print(i)\n")
        r = run_cli(["run", "p.py", *mode], cwd=str(tmp_path), timeout=120)
        assert_clean(r) and r.rc == 0
        assert r.out.endswith(f"{n - 1}\n")
        return r.elapsed
    for mode in ([], ["--plain"]):
        small, big = seconds(20_000, *mode), seconds(200_000, *mode)
        assert big < 3 * (10 * small), f"20,000 prints: {small:.2f} s, 200,000: {big:.2f} s"
        assert big < 20


def test_graph_of_a_long_chain_stops_at_the_timeout(tmp_path):
    (tmp_path / "chain.py").write_text("x = torch.ones(1, requires_grad=True)\ny = x\n"
                                       "for i in range(100_000):\n    y = y * 1.0\n")
    r = run_cli(["graph", "chain.py", "--full", "--timeout", "2"], cwd=str(tmp_path), timeout=120)
    assert_clean(r)
    assert r.rc in (0, 1) and r.elapsed < 2 * 2 + 0.5 + 8
    if r.rc == 1:
        assert r.err.startswith("LimitError: ") and "time limit of 2 s" in r.err


GRAD_FN_ATTRS = """
import torch
x = torch.ones(2, requires_grad=True)
y = (x * 2).sum()
acc = (x * 2).grad_fn.next_functions[0][0]
for node, names in ((y.grad_fn, ["_saved_foo", "_saved_", "_raw_saved_self", "_saved_self_sym_sizes"]),
                    (acc, ["variable", "_saved_variable", "_raw_saved_variable", "_saved_foo", "metadata"])):
    for name in names:
        try:
            v = getattr(node, name)
            print(name, type(v).__name__, v if not isinstance(v, torch.Tensor) else v.tolist())
        except Exception as e:
            print(name, type(e).__name__, e)
v = acc.variable
print(v.is_leaf, v.requires_grad, v.grad_fn, v is x)
"""


def test_unusual_grad_fn_attributes_read_as_in_pytorch(tmp_path):
    (tmp_path / "attrs.py").write_text(GRAD_FN_ATTRS)
    r = run_cli(["run", "attrs.py", "--plain"], cwd=str(tmp_path))
    assert_clean(r)
    torch_run = subprocess.run([sys.executable, "attrs.py"], cwd=tmp_path, capture_output=True, text=True,
                               timeout=120)
    assert r.out == torch_run.stdout and r.rc == torch_run.returncode == 0


# ============================================================================ the REPL


def test_repl_load_of_a_fifo_is_refused_and_the_session_goes_on(tmp_path):
    os.mkfifo(tmp_path / "f.py")
    proc = subprocess.run(GRADCLI + ["repl"], input=f":load {tmp_path / 'f.py'}\nprint(4)\n", env=ENV,
                          capture_output=True, text=True, timeout=60, cwd=tmp_path)
    assert proc.returncode == 0
    assert "is not a regular file" in _flat(proc.stdout) and proc.stdout.rstrip().endswith("4")


@pytest.mark.parametrize("redirect", ["full", "closed"])
def test_repl_output_that_cannot_be_written_is_a_nonzero_exit(redirect):
    kw = {"stdout": open("/dev/full", "w")} if redirect == "full" else {"preexec_fn": lambda: os.close(1)}
    proc = subprocess.run(GRADCLI + ["repl"], input="print(1)\n", env=ENV, stderr=subprocess.PIPE, text=True,
                          timeout=60, **kw)
    assert proc.returncode == 1 and proc.stderr.startswith("gradcli: cannot write the output")
    assert "Traceback" not in proc.stderr


def test_repl_survives_printing_a_lone_surrogate():
    proc = subprocess.run(GRADCLI + ["repl"], input="print('\\ud800')\nprint(3)\n", env=ENV, capture_output=True,
                          text=True, timeout=60)
    assert proc.returncode == 0 and "UnicodeEncodeError" in proc.stdout and proc.stdout.rstrip().endswith("3")


def _plain_terminal(tmp_path):
    import pexpect
    env = dict(ENV, TERM="dumb", HOME=str(tmp_path), XDG_DATA_HOME=str(tmp_path / "data"))
    child = pexpect.spawn(sys.executable, ["-m", "gradcli", "repl"], env=env, timeout=60, dimensions=(50, 160))
    child.expect(">>>")
    return child


def test_plain_input_repl_survives_bytes_that_are_not_utf8(tmp_path):
    child = _plain_terminal(tmp_path)
    child.send(b"x = '\xff\xfe'\r")
    child.expect("lone surrogate")
    child.send(b"print('after', 6 * 7)\r")
    child.expect("after 42")
    child.sendline(":quit")
    child.expect(pexpect_eof())
    history = (tmp_path / "data" / "gradcli" / "history").read_bytes()
    assert b"+x = '\xff\xfe'\n" in history, "history keeps the bytes as typed"


def test_plain_input_repl_reads_a_line_longer_than_the_terminals_line_buffer(tmp_path):
    # a terminal in line mode keeps 4095 bytes of a line; the plain REPL reads through readline
    child = _plain_terminal(tmp_path)
    child.send("y = [" + ",".join(["1"] * 30_000) + "]\r")
    child.send("print('LEN', len(y), sum(y))\r")
    child.expect("LEN 30000 30000")
    child.send("if True:\r\tprint('tab', 6 * 7)\r\r")        # Tab indents, as typed
    child.expect("tab 42")


def pexpect_eof():
    import pexpect
    return pexpect.EOF


@pytest.mark.parametrize("kb", [20, 200])
def test_a_paste_without_bracketed_paste_markers_is_read_at_once(tmp_path, kb):
    # a terminal that does not bracket pastes sends the text as typed keys: read as one paste
    import pexpect
    env = dict(ENV, TERM="xterm", HOME=str(tmp_path), XDG_DATA_HOME=str(tmp_path / "data"), PROMPT_TOOLKIT_NO_CPR="1")
    child = pexpect.spawn(sys.executable, ["-m", "gradcli", "repl"], env=env, encoding="utf-8", timeout=60,
                          dimensions=(50, 160))
    child.expect(">>>")
    n = kb * 500
    start = time.monotonic()
    child.send("y = [" + ",".join(["1"] * n) + "]\rx = 5  # " + "c" * 100 + "\rfor i in range(3):\r    x += i\r\r"
               "print('LEN', len(y), sum(y), x)\r")
    child.expect(f"LEN {n} {n} 8", timeout=60)
    assert time.monotonic() - start < 30, "a paste costs seconds, not minutes"
    child.sendline(":quit")


def test_a_200_kb_line_pasted_into_the_terminal_repl_runs_as_one_statement(tmp_path):
    import pexpect
    env = dict(ENV, TERM="xterm", HOME=str(tmp_path), XDG_DATA_HOME=str(tmp_path / "data"), PROMPT_TOOLKIT_NO_CPR="1")
    child = pexpect.spawn(sys.executable, ["-m", "gradcli", "repl"], env=env, encoding="utf-8", timeout=60,
                          dimensions=(50, 160))
    child.expect(">>>")
    # what a terminal sends for a paste: the text between bracketed-paste markers, then Enter
    child.send("\x1b[200~y = [" + ",".join(["1"] * 100_000) + "]\x1b[201~")
    child.send("\r")
    child.send("print('LEN', len(y), sum(y))\r")
    child.expect(r"LEN 100000 100000", timeout=120)
    child.sendline(":quit")
