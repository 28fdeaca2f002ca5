"""The interactive REPL (gradcli/repl/, gradcli/lang/pygments_lexer.py, gradcli/cli/repl.py).

* In a real pseudo-terminal (pexpect): the prompt_toolkit front end as a user drives it,
  and the plain line mode a dumb terminal gets. HOME and the XDG directories point into a
  temporary directory, so history is the test's own.
* In process: `Session` (evaluation, commands, :save), the multi-line rules, completion,
  the lexer, and the PromptSession itself fed through prompt_toolkit's pipe input.
"""
from __future__ import annotations

import io
import json
import os
import re
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]

# `gradcli repl` through the Typer command.
LAUNCH = [sys.executable, "-c", "from gradcli.cli.app import main; main()", "repl"]
GRADCLI = [sys.executable, "-m", "gradcli"]

ANSI = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[()][0-9A-Za-z]|\x1b[=>78]|\r")


@pytest.fixture(scope="module")
def cache_dir(tmp_path_factory):
    """One cache for the module: the parser's tables are built once, not in every REPL started."""
    d = tmp_path_factory.mktemp("cache")
    old = os.environ.get("XDG_CACHE_HOME")
    os.environ["XDG_CACHE_HOME"] = str(d)
    yield d
    if old is None:
        os.environ.pop("XDG_CACHE_HOME", None)
    else:
        os.environ["XDG_CACHE_HOME"] = old


@pytest.fixture
def home(tmp_path, cache_dir):
    h = tmp_path / "home"
    h.mkdir()
    return h


def env_for(home, **extra):
    env = dict(os.environ)
    env.update(HOME=str(home), XDG_DATA_HOME=str(home / "data"), XDG_CACHE_HOME=os.environ["XDG_CACHE_HOME"],
               XDG_CONFIG_HOME=str(home / "config"), PYTHONPATH=str(REPO), TERM="xterm-256color",
               PROMPT_TOOLKIT_NO_CPR="1", COLUMNS="160", LINES="50")
    env.pop("NO_COLOR", None)
    env.update(extra)
    return env


# ----------------------------------------------------------------------------- pseudo-terminal

def _default_sigint():
    signal.signal(signal.SIGINT, signal.SIG_DFL)


class Term:
    """A REPL in a pseudo-terminal; matches on its output with escape sequences removed."""

    def __init__(self, home, args=(), **env):
        import pexpect           # the test extra installs it; a missing install must fail
        self.pexpect = pexpect
        # preexec_fn: Ctrl-C must reach the REPL even when the tests run with SIGINT ignored
        # (under nohup), which a child would inherit.
        self.child = pexpect.spawn(LAUNCH[0], LAUNCH[1:] + list(args), env=env_for(home, **env), cwd=str(home),
                                   dimensions=(50, 160), encoding="utf-8", codec_errors="replace", timeout=15,
                                   preexec_fn=_default_sigint)
        self.raw = ""
        self.pos = 0           # output before this index (of the cleaned text) has been matched

    @property
    def text(self):
        return ANSI.sub("", self.raw)

    def _read(self):
        try:
            self.raw += self.child.read_nonblocking(65536, timeout=0.05)
        except self.pexpect.TIMEOUT:
            pass

    def expect(self, pattern, timeout=15):
        """Wait until `pattern` (a regex) appears in the output after the last match."""
        rx = re.compile(pattern)
        end = time.monotonic() + timeout
        while True:
            m = rx.search(self.text, self.pos)
            if m:
                self.pos = m.end()
                return m
            if time.monotonic() > end:
                raise AssertionError(f"{pattern!r} not seen; output after the last match:\n"
                                     f"{self.text[self.pos:][-3000:]}")
            try:
                self._read()
            except self.pexpect.EOF:
                raise AssertionError(f"the REPL ended before {pattern!r}; output:\n{self.text[-3000:]}") from None

    def prompt(self):
        # A fresh prompt starts a line. prompt_toolkit redraws the current prompt and its text
        # while a line is typed (cursor moves, no newline); matching that redraw would let the
        # test type on before the REPL has taken the Enter.
        return self.expect(r"(?m)^[ \d]*>>>")

    def send(self, keys):
        self.child.send(keys)

    def line(self, text):
        """Type a line and press Enter."""
        self.child.send(text + "\r")

    def quiet(self, seconds=0.3):
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            try:
                self._read()
            except self.pexpect.EOF:
                return

    def close(self):
        if self.child.isalive():
            self.child.sendcontrol("d")
            try:
                self.child.expect(self.pexpect.EOF, timeout=30)   # saving history, on a loaded machine
            except self.pexpect.TIMEOUT:
                self.child.terminate(force=True)
            else:
                self.child.wait()     # the pty closes a moment before the process has exited
        self.child.close()
        return self.child.exitstatus


def test_typed_statements_show_their_output(home):
    t = Term(home)
    t.prompt()
    t.line("f = x+y; z = 2*f")
    t.expect(r"implicit leaves x = tensor\(1\., requires_grad=True\), y = tensor\(1\., requires_grad=True\)")
    t.prompt()
    t.line("z")                                   # a bare expression echoes its value
    t.expect(r"tensor\(4\., grad_fn=<MulBackward0>\)")
    t.prompt()
    t.line("backward z")
    t.expect(r"grads\s+x\.grad None → tensor\(2\.\)\s+y\.grad None → tensor\(2\.\)")
    t.expect(r"freed\s+MulBackward0 \(z, line 1\): other = tensor\(2\)")
    t.prompt()
    t.line(":vars")
    t.expect(r"z\s+\S+\s+\[\]\s+float32\s+True\s+MulBackward0\s+None\s+other=2 freed \(line 3\)")
    t.prompt()
    assert t.close() == 0


def test_an_error_does_not_end_the_session_and_state_survives(home):
    t = Term(home)
    t.prompt()
    t.line("f = x+y; z = 2*f; y1 = z**2; y2 = z**3")
    t.prompt()
    t.line("backward y1")
    t.expect(r"x\.grad None → tensor\(16\.\)")
    t.prompt()
    t.line("backward y2")
    t.expect(r"RuntimeError")
    t.expect(r"Trying to backward through the graph a second time")
    t.expect(r"Why: `backward y2` reached MulBackward0, made by `z = 2\*f` on line 1")
    t.prompt()      # (an entry is not the whole script: no copy to try a fix on, so none is offered)
    assert "untried" not in t.text
    t.line("x.grad")                              # the gradient from line 2 is still there
    t.expect(r"tensor\(16\.\)")
    t.prompt()
    t.line("undefined_function(1)")
    t.expect(r"NameError")
    t.prompt()
    t.line(":explain")                            # the last call's story, then the newer error
    t.expect(r"backward y2\s+\(line 3\)")
    t.expect(r"NameError: name 'undefined_function' is not defined")
    t.prompt()
    t.line("x.grad + 1")
    t.expect(r"tensor\(17\.\)")
    t.prompt()
    assert t.child.isalive()
    assert t.close() == 0


def test_history_persists_across_two_sessions(home):
    t = Term(home)
    t.prompt()
    t.line("hist_marker = 41 + 1")
    t.prompt()
    assert t.close() == 0
    history = home / "data" / "gradcli" / "history"
    assert "+hist_marker = 41 + 1" in history.read_text()

    t = Term(home)
    t.prompt()
    t.send("\x1b[A")                              # Up: the previous session's entry
    t.expect(r"hist_marker = 41 \+ 1")
    t.send("\r")
    t.prompt()
    t.send("hist_m")                              # auto-suggestion from history; Right takes it
    t.quiet()
    t.send("\x1b[C")
    t.send("\r")
    t.prompt()
    t.send("\x12hist_mark")                       # Ctrl-R search
    t.expect(r"i-search|I-search")
    t.send("\r")
    t.quiet()
    t.send("\r")
    t.prompt()
    t.line("print(hist_marker)")                  # defined in this session only through history
    t.expect(r"\n42\n")
    t.prompt()
    assert t.close() == 0
    assert "+print(hist_marker)" in history.read_text()


def test_tab_completes_a_variable_and_a_method(home):
    t = Term(home)
    t.prompt()
    t.line("my_long_variable = 3*x")
    t.prompt()
    t.send("my_long_v\t")                         # a name in scope
    t.quiet()
    t.send(" + 1\r")
    t.expect(r"tensor\(4\., grad_fn=<AddBackward0>\)")
    t.prompt()
    t.send("my_long_variable.grad_f\t")           # a tensor attribute after `name.`
    t.quiet()
    t.send("\r")
    t.expect(r"<MulBackward0 object at 0x[0-9a-f]+>")
    t.prompt()
    t.send("my_long_variable.ite\t")              # a method
    t.quiet()
    t.send("()\r")
    t.expect(r"\n3\.0\n")
    t.prompt()
    assert t.close() == 0


def test_a_multi_line_for_block(home):
    t = Term(home)
    t.prompt()
    t.line("total = 0")
    t.prompt()
    t.line("for i in range(4):")
    t.expect(r"\.\.\.")                          # continuation prompt; the body is indented for us
    t.line("total = total + i")
    t.expect(r"\.\.\.")
    t.line("print(i * 10)")
    t.expect(r"\.\.\.")
    t.line("")                                    # a blank line ends the block
    t.expect(r"\n0\n10\n20\n30\n")
    t.prompt()
    t.line("total")
    t.expect(r"\n6\n")
    t.prompt()
    assert t.close() == 0


def test_ctrl_c_cancels_input_and_interrupts_a_computation(home):
    t = Term(home)
    t.prompt()
    t.send("abc = 1 +")
    t.quiet()
    t.send("\x03")                                # Ctrl-C while typing: the entry is dropped
    t.expect(r"KeyboardInterrupt")
    t.prompt()
    t.line("n = 0")
    t.prompt()
    t.line("while True:")
    t.line("n = n + 1")
    t.line("")
    t.quiet(0.8)
    t.send("\x03")                                # Ctrl-C while it runs
    t.expect(r"KeyboardInterrupt")
    t.prompt()
    t.line("n > 0")
    t.expect(r"True")
    t.prompt()
    t.line("abc")                                 # never assigned: it becomes an implicit leaf now
    t.expect(r"implicit leaves abc = tensor\(1\., requires_grad=True\)")
    t.prompt()
    t.line("w = 2*x; backward w")                 # the engine is in a usable state
    t.expect(r"x\.grad None → tensor\(2\.\)")
    t.prompt()
    assert t.close() == 0


def test_save_writes_a_script_that_gradcli_run_reproduces(home):
    t = Term(home)
    t.prompt()
    t.line(":set x=2")
    t.prompt()
    t.line("f = x+y; z = 2*f; y1 = z**2; y2 = z**3")
    t.prompt()
    t.line("backward y1")
    t.prompt()
    t.line("backward y2")                         # fails after freeing y2's PowBackward0: kept under expect
    t.expect(r"RuntimeError")
    t.prompt()
    t.line("typo_here(1)")                        # fails without changing anything: a comment
    t.expect(r"NameError")
    t.prompt()
    t.line("x.grad")
    t.expect(r"tensor\(24\.\)")
    t.prompt()
    t.line(":save session.grad")
    t.expect(r"wrote session\.grad")
    t.prompt()
    assert t.close() == 0
    script = (home / "session.grad").read_text()
    assert "expect error 'Trying to backward through the graph a second time" in script
    assert "# typo_here(1)" in script
    assert "print(x.grad)" in script
    run = subprocess.run(GRADCLI + ["run", "session.grad", "--json"], cwd=home, env=env_for(home),
                         capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stderr
    out = json.loads(run.stdout)
    assert out["ok"] and out["stdout"] == "tensor(24.)\n"
    assert out["tensors"]["x"]["grad"] == 24.0 and out["tensors"]["y"]["grad"] == 24.0
    assert out["tensors"]["x"]["value"] == 2.0
    freed = [n["grad_fn"] for e in out["events"] for n in e["freed"]]
    assert freed == ["PowBackward0", "MulBackward0", "PowBackward0"]


def test_dumb_terminal_gets_plain_lines_with_the_same_semantics(home):
    t = Term(home, TERM="dumb")
    t.prompt()
    t.line("f = x+y; z = 2*f")
    t.expect(r"implicit leaves")
    t.prompt()
    t.line("for i in range(2):")
    t.expect(r"\.\.\. ")
    t.line("    print(i + 100)")
    t.expect(r"\.\.\. ")
    t.line("")
    t.expect(r"\n100\n101\n")
    t.prompt()
    t.send("\x03")
    t.expect(r"KeyboardInterrupt")
    t.prompt()
    t.line("backward y")
    t.expect(r"NameError|y\.grad")
    t.prompt()
    t.line(":quit")
    t.child.expect(t.pexpect.EOF, timeout=10)
    t.child.close()
    assert t.child.exitstatus == 0
    assert "+f = x+y; z = 2*f" in (home / "data" / "gradcli" / "history").read_text()


def test_piped_input_runs_entries_without_prompts(home):
    text = "f = x+y; z = 2*f\nz\nfor i in range(2):\n    print(i)\n\n:vars\nbackward q\n:quit\nnot run\n"
    run = subprocess.run(LAUNCH + ["--set", "x=3"], input=text, env=env_for(home), capture_output=True, text=True,
                         timeout=60, cwd=home)
    assert run.returncode == 0, run.stderr
    assert ">>>" not in run.stdout and ">>>" not in run.stderr
    assert "implicit leaves x = tensor(3., requires_grad=True)" in run.stdout
    assert "tensor(8., grad_fn=<MulBackward0>)\n0\n1\n" in run.stdout
    assert "MulBackward0" in run.stdout and "name 'q' is not defined" in run.stdout
    assert not (home / "data" / "gradcli" / "history").exists()      # not a person typing


# ----------------------------------------------------------------------------- in process

def make_session(**kw):
    from rich.console import Console
    from gradcli.repl.session import Session
    out = io.StringIO()
    s = Session(out=out, console=Console(file=out, width=200, highlight=False), **kw)
    s.start(background=False)
    s.output = out
    return s


@pytest.fixture
def session(cache_dir):
    return make_session()


def run(s, *entries):
    start = len(s.output.getvalue())
    for e in entries:
        s.execute(e)
    return s.output.getvalue()[start:]


@pytest.mark.parametrize("text, more", [
    ("x = 1", False), ("x = [1,", True), ("x = (1,\n 2", True), ("x = (1,\n 2)", False),
    ("for i in range(3):", True), ("for i in range(3):\n    print(i)", True),
    ("for i in range(3):\n    print(i)\n", False), ("for i in range(3):\n    print(i)\n    ", False),
    ("for i in range(3): print(i)", True), ("for i in range(3): print(i)\n", False),
    ("def f(a):\n    return [a,\n", True), ("if a:\n    b = 1\nelse:", True),
    ("x = 1 + \\", True), ("s = '''abc", True), ("s = '''abc'''", False), (":vars", False), ("", False),
    ("backward y1", False), ("x = 1 +", False),       # a syntax error runs (and is reported) at once
])
def test_needs_more_lines(cache_dir, text, more):
    from gradcli.repl.session import needs_more
    assert needs_more(text) is more


@pytest.mark.parametrize("line, indent", [
    ("for i in range(3):", 4), ("    x = 1", 4), ("    return x", 0), ("        pass", 4),
    ("if a:  # comment", 4), ("x = 1", 0),
])
def test_next_indent(line, indent):
    from gradcli.repl.session import next_indent
    assert next_indent(line) == indent


def test_session_keeps_state_across_entries_and_errors(session):
    out = run(session, "f = x+y; z = 2*f", "z", "undefined_fn(z)", "z + 1")
    assert "implicit leaves x = tensor(1., requires_grad=True), y = tensor(1., requires_grad=True)" in out
    assert "tensor(4., grad_fn=<MulBackward0>)" in out
    assert "NameError" in out and "tensor(5., grad_fn=<AddBackward0>)" in out
    assert session.line == 5


def test_expect_error_applies_to_the_statement_after_it(session, tmp_path):
    out = run(session, 'f = 2*x\nexpect error "is not defined"\nnope_fn(f)', "expect f == 2")
    assert "error as expected: NameError" in out and "expect f == 2" in out and "NameError" not in \
        out.split("error as expected")[0]
    text, _ = _reproduces(session, tmp_path)
    assert "expect error \"is not defined\"\nnope_fn(f)" in text


def test_lines_are_numbered_across_the_session(session):
    out = run(session, "a = 1", "b = 2\nc = 3", "f = x+y; z = 2*f", "y1 = z**2", "backward y1")
    assert "PowBackward0 (y1, line 5)" in out and "MulBackward0 (z, line 4)" in out
    assert "backward y1   line 6" in out


def test_syntax_error_points_at_its_session_line(session):
    out = run(session, "a = 1", "b = (1 +")
    assert "SyntaxError" in out and "line 2" in out
    assert session.line == 3


def test_interrupting_a_computation_keeps_the_session_consistent(session):
    import _thread
    from gradcli.engine import STATE
    run(session, "import torch", "w = torch.ones(3, requires_grad=True)", "n = 0")
    # interrupt_main does nothing while SIGINT is ignored (tests run under nohup): Python's own
    # handler must be in place for the simulated Ctrl-C to arrive.
    old_handler = signal.signal(signal.SIGINT, signal.default_int_handler)
    timer = threading.Timer(0.5, _thread.interrupt_main)
    timer.start()
    try:
        out = run(session, "with torch.no_grad():\n    while True:\n        n = n + 1\n        v = w * 2\n")
    finally:
        timer.cancel()
        signal.signal(signal.SIGINT, old_handler)
    assert "KeyboardInterrupt" in out
    assert STATE.grad_enabled and STATE.capture is None and STATE.observer is None
    out = run(session, "n > 0", "v.requires_grad", "u = (w * w).sum()", "u.backward()", "w.grad")
    assert "True\nFalse\n" in out and "tensor([2., 2., 2.])" in out
    assert any("interrupted" in (r.note or "") and r.kind == "comment" for r in session.log)


def test_commands(session, tmp_path):
    out = run(session, ":help")
    assert all(c in out for c in (":vars", ":graph", ":explain", ":reset", ":load", ":save", ":set", ":quit"))
    out = run(session, ":nonsense")
    assert "unknown command :nonsense" in out
    out = run(session, ":explain")
    assert "Nothing to explain yet" in out
    out = run(session, "f = x+y; z = 2*f; y1 = z**2", "backward y1", ":vars")
    assert re.search(r"z .*MulBackward0 .*other=2 freed \(line 2\)", out)
    assert re.search(r"f .*AddBackward0 .*saves nothing", out)
    out = run(session, "backward y1", ":explain")
    story = out[out.index("backward 2 of 2"):]
    assert "backward y1  (line 3)" in story and "PowBackward0" in story and "line 2" in story
    assert "backward 1 of 2" not in out                     # only the last call
    out = run(session, ":explain all")
    assert "backward y1  (line 2)" in out and "backward y1  (line 3)" in out
    out = run(session, ":graph y1")
    assert "PowBackward0" in out and "MulBackward0" in out
    out = run(session, ":graph nothing_here")
    assert "nothing_here is not defined" in out
    assert session.execute(":quit") is False


def test_set_and_reset(session):
    out = run(session, ":set x=2 w=[1, 2]", "a = x * w")
    assert "implicit leaves x = tensor(2., requires_grad=True), w = tensor([1., 2.], requires_grad=True)" in out
    out = run(session, ":set x=5")
    assert "x already exists" in out
    out = run(session, ":set x=oops")
    assert ":set x: 'oops' is not a number" in out
    out = run(session, ":reset", "x")
    assert "Session reset" in out and "tensor(5., requires_grad=True)" in out
    assert session.line == 2


def test_load_runs_a_file_in_the_session(session, tmp_path):
    script = tmp_path / "s.grad"
    script.write_text("# a script\na = w * 3\nbackward a\n")
    out = run(session, "b = 1", f":load {script}", "w.grad")
    assert "session lines 2-4" in out and "backward a   line 4" in out and "tensor(3.)" in out
    out = run(session, f":load {tmp_path / 'missing.grad'}")
    assert "cannot read" in out


def _reproduces(session, tmp_path, name="s.grad"):
    """:save, then check `gradcli run` ends with the same tensors and grads as the session."""
    from gradcli.session.executor import run_source
    from gradcli.views import json_view
    from gradcli.torch import Tensor
    path = tmp_path / name
    out = run(session, f":save {path}")
    assert "gradcli run" in out, out
    text = path.read_text()
    expected = {k: json_view.tensor_json(v) for k, v in session.interp.globals.items() if isinstance(v, Tensor) and not k.startswith("_")}
    report = run_source(text, name)
    assert report.error is None, (report.error, text)
    assert {k: (v["value"], v["grad"], v["grad_fn"]) for k, v in json_view.tensors_json(report).items()} == \
        {k: (v["value"], v["grad"], v["grad_fn"]) for k, v in expected.items()}, text
    return text, report


def test_save_concise_session(session, tmp_path):
    run(session, "f = x+y; z = 2*f", "y1 = z**2; y2 = z**3", "backward y1", "backward y2", "z", "x.grad")
    text, report = _reproduces(session, tmp_path)
    assert "import torch" not in text                  # implicit leaves stay implicit (all 1.0)
    assert "expect error 'Trying to backward" in text and "print(z)\nprint(x.grad)" in text
    assert report.stdout == "tensor(4., grad_fn=<MulBackward0>)\ntensor(16.)\n"


def test_save_with_set_values_torch_import_and_failures(session, tmp_path):
    run(session, ":set x=2", "a = x * 3", "import torch", "b = torch.tensor([1.0, 2.0], requires_grad=True)",
        "c = (a * b).sum(); c.backward(); nope", "for i in range(3):\n    b.grad = b.grad * 2\n    missing\n",
        "'text'")
    text, _ = _reproduces(session, tmp_path, "s.py")
    lines = text.splitlines()
    assert lines.index("import torch") < lines.index("x = torch.tensor(2.0, requires_grad=True)") \
        < lines.index("a = x * 3")
    assert "c = (a * b).sum()\nc.backward()\n# (NameError: name 'nope' is not defined)\n# nope" in text
    assert "expect error \"name 'missing' is not defined\"\nfor i in range(3):" in text
    assert "print(repr('text'))" in text


def test_save_is_atomic_and_keeps_mode(session, tmp_path):
    path = tmp_path / "kept.grad"
    path.write_text("old\n")
    os.chmod(path, 0o640)
    run(session, "a = 1")
    run(session, f":save {path}")
    assert path.read_text().endswith("a = 1\n") and (os.stat(path).st_mode & 0o777) == 0o640
    assert [p.name for p in tmp_path.iterdir()] == ["kept.grad"]          # no temporary file left
    out = run(session, f":save {tmp_path / 'no' / 'such' / 'dir.grad'}")
    assert "cannot write" in out


def test_strict_session(cache_dir, tmp_path):
    s = make_session(strict=True)
    out = run(s, "a = x + 1", "import torch", "x = torch.ones(1)")
    assert "NameError" in out
    _reproduces(s, tmp_path)


def test_completion(session):
    run(session, "my_tensor = 2*x", "my_list = [1]", "import torch", "import torch.nn.functional as F")
    names = lambda text: [c[0] for c in session.complete(text)]
    assert names("my_t") == ["my_tensor"]
    assert "my_list" in names("y = my_")
    assert {"grad", "grad_fn", "backward", "requires_grad", "retain_grad"} <= set(names("my_tensor."))
    assert names("my_tensor.gr") == ["grad", "grad_fn", "greater", "greater_", "greater_equal", "greater_equal_"]
    assert all(not n.startswith("_") for n in names("my_tensor."))
    assert "_version" in names("my_tensor._")
    assert names("my_tensor.grad_fn._saved_o") == ["_saved_other"]
    assert {"tensor", "ones", "sin", "no_grad", "autograd", "nn"} <= set(names("torch."))
    assert "annotations" not in names("torch.")
    assert names("torch.nn.functional.mse") == ["mse_loss"] == names("F.mse")
    assert {"backward", "detect_anomaly", "grad", "set_detect_anomaly", "Function", "functional"} <= \
        set(names("torch.autograd."))
    assert "append" in names("my_list.")
    assert "sum" in names("(my_tensor * 2).")
    assert {"for", "format"} <= set(names("fo")) and "backward" in names("back") and "print" in names("pri")
    assert names("'my_t") == [] and names("# my_t") == [] and names("1.5e") == []
    assert [c[0] for c in session.complete(":gr")] == [":graph"]
    assert names(":graph my_") == ["my_tensor"]


def test_completion_of_implicit_leaves_and_files(session, tmp_path):
    assert "backward" in [c[0] for c in session.complete("newname.")]     # it will be a leaf tensor
    (tmp_path / "script.grad").write_text("a = 1\n")
    assert [c[0] for c in session.complete(f":load {tmp_path}/scr")] == ["script.grad"]


def test_lexer_marks_dialect_statements_only_where_the_grammar_has_them():
    from pygments.token import Keyword, Name
    from gradcli.lang.pygments_lexer import GradcliLexer
    toks = [(t, v) for t, v in GradcliLexer().get_tokens(
        "backward y1, retain_graph=True\ny.backward()\nbackward = 1\nfor i in range(2):\n    print x.grad\n"
        "expect error \"Trying\"\nexpect x.grad == 2 within 1e-3\ngraph y1\nimport torch\n") if v.strip()]
    kinds = {}
    for t, v in toks:
        kinds.setdefault(v, set()).add(t)
    assert Keyword.Reserved in kinds["backward"] and Name.Attribute in kinds["backward"] and Name in kinds["backward"]
    assert kinds["print"] == {Keyword.Reserved} and kinds["for"] == {Keyword}
    assert kinds["expect"] == {Keyword.Reserved} and kinds["error"] == {Keyword.Reserved}
    assert kinds["within"] == {Keyword.Reserved} and kinds["graph"] == {Keyword.Reserved}
    assert Name.Namespace in kinds["torch"]
    from rich.syntax import Syntax                   # usable by Rich as well
    assert Syntax("backward y", lexer=GradcliLexer()).lexer is not None


# ----------------------------------------------------------------------------- PromptSession with pipe input

@pytest.fixture
def pipe(session):
    from prompt_toolkit.history import InMemoryHistory
    from prompt_toolkit.input import create_pipe_input
    from prompt_toolkit.output import DummyOutput
    from gradcli.repl.session import build_prompt
    with create_pipe_input() as inp:
        history = InMemoryHistory()
        ps = build_prompt(session, input=inp, output=DummyOutput(), history=history)
        yield inp, ps, history


def test_prompt_enter_asks_the_parser(pipe):
    inp, ps, history = pipe
    inp.send_text("for i in range(3):\rprint(i)\r\r")
    assert ps.prompt() == "for i in range(3):\n    print(i)"         # auto-indented; blank line ended it
    inp.send_text("x = [1,\r2]\r")
    assert ps.prompt() == "x = [1,\n2]"
    inp.send_text("if a:\rb = 1\r\x7felse:\rc = 2\r\r")                 # Backspace dedents
    assert ps.prompt() == "if a:\n    b = 1\nelse:\n    c = 2"
    inp.send_text("y = 1\x1b\rz = 2\r")                                # Esc Enter: a newline
    assert ps.prompt() == "y = 1\nz = 2"
    assert list(history.get_strings())[:2] == ["for i in range(3):\n    print(i)", "x = [1,\n2]"]


def test_prompt_ctrl_c_and_ctrl_d(pipe):
    inp, ps, _ = pipe
    inp.send_text("abc = 1 +\x03")
    with pytest.raises(KeyboardInterrupt):
        ps.prompt()
    inp.send_text("\x04")
    with pytest.raises(EOFError):
        ps.prompt()


def test_prompt_loop_runs_entries_until_ctrl_d(pipe, session):
    from gradcli.repl.session import prompt_loop
    inp, ps, history = pipe
    inp.send_text("f = x+y; z = 2*f\rzz = z\x03z + 1\rbackward z\r:vars\r\x04")
    assert prompt_loop(session, ps, out=session.output) == 0
    out = session.output.getvalue()
    assert "KeyboardInterrupt" in out and "tensor(5., grad_fn=<AddBackward0>)" in out
    assert "x.grad None → tensor(2.)" in out and "MulBackward0" in out
    assert "zz" not in session.interp.globals


def test_prompt_history_navigation(pipe):
    inp, ps, history = pipe
    history.append_string("previous_entry = 5")
    inp.send_text("\x1b[A\r")
    assert ps.prompt() == "previous_entry = 5"


# ----------------------------------------------------------------------------- the command line

def test_repl_options_are_the_same_without_typer():
    """cli/entry.py's fast path (repl.cli_main, argparse) and the Typer command accept the same options."""
    import typer.main
    from gradcli.cli.app import app
    cmd = typer.main.get_command(app).commands["repl"]
    typer_opts = sorted(o for p in cmd.params if p.param_type_name == "option" for o in p.opts
                        if o not in ("-h", "--help"))
    src = (REPO / "gradcli" / "repl" / "session.py").read_text()
    fast = sorted(set(re.findall(r'p\.add_argument\("(--[a-z-]+)"', src)))
    assert typer_opts == fast


def test_cli_main_rejects_bad_options(capsys):
    from gradcli.repl.session import cli_main
    assert cli_main(["--set", "x"]) == 2
    assert "--set expects NAME=VALUE" in capsys.readouterr().err
    assert cli_main(["--nope"]) == 2
    assert "see gradcli repl --help" in capsys.readouterr().err
