"""`gradcli test` (gradcli/testing/suite.py, gradcli/cli/test.py), the oracle mode and the pytest plugin."""
from __future__ import annotations

import io
import json
import os
import pathlib
import re
import subprocess
import sys
import textwrap
import xml.etree.ElementTree as ET

import pytest

from gradcli.cli import test as cmd_test
from gradcli.testing import suite as testing
from gradcli.session.atomic import write_atomic
# Imported now, before pytester's inline runs snapshot sys.modules: a module first imported inside
# one inline run is dropped after it, and NumPy cannot be imported twice in one process.
import gradcli.session.executor, gradcli.session.set_values, gradcli.views.plain, gradcli.views.json_view  # noqa: E401,F401,E402

pytest_plugins = ["pytester"]

ROOT = pathlib.Path(__file__).resolve().parent.parent
ENV = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT)] + [p for p in [os.environ.get("PYTHONPATH")] if p]))
GRADCLI = [sys.executable, "-c", "from gradcli.cli.app import main; main()"]

PASS = """\
# passes
f = x*y
backward f
expect x.grad == 1
"""
FAIL = """\
# an expectation that does not hold
f = x*y
backward f
expect x.grad == 5
print("not reached")
"""
ERROR_PY = """\
import torch
x = torch.tensor([1.0], requires_grad=True)
y = (x * x).sum()
y.backward()
y.backward()
"""
PRINTS_PY = """\
import torch
x = torch.tensor([1.0, 2.0], requires_grad=True)
print(x * 3)
"""


def write(folder, name, text):
    p = pathlib.Path(folder) / name
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(textwrap.dedent(text))
    return p


def run(paths, cwd, **kw):
    """cmd_test.main in `cwd`; (exit status, output)."""
    out = io.StringIO()
    old = os.getcwd()
    os.chdir(cwd)
    try:
        status = cmd_test.main([str(p) for p in paths], out=out, **kw)
    finally:
        os.chdir(old)
    return status, out.getvalue()


def one(tmp_path, name, text, **kw):
    p = write(tmp_path, name, text)
    return testing.run_script(testing.Script(str(p), name, explicit=True), testing.Options(**kw))


# ----------------------------------------------------------------------------- one script


def test_a_script_whose_expectations_hold_passes(tmp_path):
    r = one(tmp_path, "ok.grad", PASS)
    assert r.outcome == "passed" and r.problems == []


def test_a_failed_expectation_fails_at_its_line_with_the_script_lines(tmp_path):
    r = one(tmp_path, "bad.grad", FAIL)
    assert r.outcome == "failed" and r.line == 4
    assert r.problems[0].kind == "expectation"
    assert "expect x.grad == 5 failed: tensor(1.) != 5" in r.problems[0].message
    text = testing.failure_text(r)
    assert "bad.grad:4: ExpectationFailed: expect x.grad == 5 failed" in text
    assert "> 4 | expect x.grad == 5" in text and "  3 | backward f" in text


def test_a_failed_assert_is_a_failure_too(tmp_path):
    r = one(tmp_path, "a.py", "import torch\nx = torch.tensor(2.0)\nassert x.item() == 3, 'x is not 3'\n")
    assert r.outcome == "failed" and r.problems[0].kind == "assertion" and r.line == 3
    assert "AssertionError: x is not 3" in r.problems[0].message


def test_an_unexpected_error_fails_and_says_how_to_expect_it(tmp_path):
    r = one(tmp_path, "e.py", ERROR_PY)
    assert r.outcome == "failed" and r.problems[0].kind == "error" and r.line == 5
    assert r.problems[0].message.startswith("RuntimeError: Trying to backward through the graph a second time")
    assert "expect error" in r.problems[0].hint and "--update e.py" in r.problems[0].hint
    assert not (tmp_path / "e.out").exists(), "a normal run never creates a golden file"


def test_expect_error_makes_the_error_expected_and_the_script_continues(tmp_path):
    r = one(tmp_path, "x.grad", """\
        f = x*y
        backward f
        expect error "second time"
        backward f
        expect x.grad == 1
        """)
    assert r.outcome == "passed", testing.failure_text(r)


def test_a_parse_error_fails(tmp_path):
    r = one(tmp_path, "p.grad", "f = (x +\n")
    assert r.outcome == "failed" and r.problems[0].kind == "error"
    assert r.problems[0].message.startswith("SyntaxError")


def test_header_options_apply_to_the_script(tmp_path):
    r = one(tmp_path, "h.grad", """\
        # what it shows
        # gradcli: --set x=2 --set "y=[1, 2]"
        f = x*y
        backward f.sum()
        expect x.grad == 3
        expect y.grad == [2, 2]
        """)
    assert r.outcome == "passed", testing.failure_text(r)
    r = one(tmp_path, "s.grad", "# gradcli: --strict\nf = x*2\n")
    assert r.outcome == "failed" and "NameError" in r.problems[0].message


def test_a_bad_header_fails_at_its_line(tmp_path):
    r = one(tmp_path, "b.grad", "# about it\n# gradcli: --sett x=2\nf = 1\n")
    assert r.outcome == "failed" and r.problems[0].kind == "header" and r.line == 2
    assert "unknown option '--sett'" in r.problems[0].message
    r = one(tmp_path, "c.grad", "# gradcli: --timeout -1\nf = 1\n")
    assert r.problems[0].kind == "header" and "positive number" in r.problems[0].message
    r = one(tmp_path, "d.grad", "# gradcli: --set x=abc\nf = 1\n")
    assert r.problems[0].kind == "header" and r.line == 1


def test_headers_are_read_only_from_the_top_comment_block(tmp_path):
    r = one(tmp_path, "late.grad", "f = 1\n# xfail: not a header here\nexpect f == 2\n")
    assert r.outcome == "failed"


def test_xfail_and_xpass_and_skip(tmp_path):
    r = one(tmp_path, "known.grad", "# xfail: gradcli bug 12\n" + FAIL)
    assert r.outcome == "xfailed" and r.reason == "gradcli bug 12"
    r = one(tmp_path, "fixed.grad", "# xfail: was broken\n" + PASS)
    assert r.outcome == "xpassed" and r.reason == "was broken"
    r = one(tmp_path, "skip.grad", "# skip: needs a GPU\nthis is not even parsed (\n")
    assert r.outcome == "skipped" and r.reason == "needs a GPU"


def test_a_timeout_fails_and_cannot_be_recorded(tmp_path):
    p = write(tmp_path, "loop.grad", "# gradcli: --timeout 0.2\ni = 0\nwhile True:\n    i = i + 1\n")
    write(tmp_path, "loop.out", "")
    r = testing.run_script(testing.Script(str(p), "loop.grad", explicit=True), testing.Options(update=True))
    assert r.outcome == "failed" and r.problems[0].kind == "limit"
    assert (tmp_path / "loop.out").read_text() == "", "--update never records a failure it cannot excuse"


# ----------------------------------------------------------------------------- golden files


def test_a_golden_out_file_makes_an_ending_error_expected(tmp_path):
    write(tmp_path, "e.py", ERROR_PY)
    status, out = run(["e.py"], tmp_path, update=True)
    assert status == 0 and "wrote e.out" in out
    golden = (tmp_path / "e.out").read_text()
    assert golden.startswith("RuntimeError: Trying to backward through the graph a second time")
    status, out = run(["e.py"], tmp_path)
    assert status == 0 and out.endswith("1 passed, 0 failed\n")


def test_golden_out_mismatch_shows_a_diff(tmp_path):
    write(tmp_path, "p.py", PRINTS_PY)
    write(tmp_path, "p.out", "tensor([3., 6.])\n")
    status, out = run(["."], tmp_path)
    assert status == 1
    assert "p.py: the output differs from p.out" in out
    assert "-tensor([3., 6.])" in out and "+tensor([3., 6.], grad_fn=<MulBackward0>)" in out
    assert "gradcli test --update p.py" in out
    assert out.endswith("0 passed, 1 failed\n")


def test_golden_out_holds_stderr_in_order_and_masks_addresses(tmp_path):
    write(tmp_path, "w.py", """\
        import torch
        x = torch.tensor([1.0], requires_grad=True)
        y = x * 2
        print(y.grad_fn)
        print(y.grad)
        """)
    run(["w.py"], tmp_path, update=True)
    text = (tmp_path / "w.out").read_text()
    assert text.startswith("<MulBackward0 object at 0x...>\n")
    assert "w.py:5: UserWarning: The .grad attribute of a Tensor that is not a leaf Tensor" in text
    assert text.endswith("None\n")
    assert run(["w.py"], tmp_path)[0] == 0


def test_golden_json_numbers_have_a_tolerance_and_new_keys_are_ignored(tmp_path):
    write(tmp_path, "j.py", ERROR_PY)
    write(tmp_path, "j.json", "{}")
    status, out = run(["."], tmp_path, update=True)
    assert status == 0 and "wrote j.json" in out
    data = json.loads((tmp_path / "j.json").read_text())
    assert data["error"]["line"] == 5 and data["tensors"]["x"]["grad"] == [2.0]
    assert not (tmp_path / "j.out").exists(), "--update refreshes existing golden files only"

    data["tensors"]["x"]["grad"] = [2.0 + 1e-7]          # within rtol 1e-5
    del data["events"]                                    # keys missing from the golden file are not compared
    (tmp_path / "j.json").write_text(json.dumps(data))
    assert run(["."], tmp_path)[0] == 0

    data["tensors"]["x"]["grad"] = [2.1]
    data["error"]["line"] = 4
    (tmp_path / "j.json").write_text(json.dumps(data))
    status, out = run(["."], tmp_path)
    assert status == 1
    assert "j.py:5: the --json output differs from j.json" in out
    assert "$.error.line: expected 4, got 5" in out
    assert "$.tensors.x.grad[0]: expected 2.1, got 2.0" in out


def test_json_diff_rules():
    d = testing.json_diff
    assert d({"a": 1.0, "b": [1, "x", None, True]}, {"a": 1.000001, "b": [1, "x", None, True], "c": 3}) == []
    assert d({"a": 100000}, {"a": 100001}) == ["$.a: expected 100000, got 100001"]    # ints exactly
    assert d({"a": True}, {"a": 1}) == ["$.a: expected true, got 1"]
    assert d([1, 2], [1]) == ["$: expected 2 items, got 1: expected [1, 2], got [1]"]
    assert d({"odd key": 1}, {}) == ['$["odd key"]: missing (expected 1)']
    assert d({"v": ["nan", 1.5]}, {"v": ["nan", 1.5]}) == []


def test_an_invalid_golden_json_fails(tmp_path):
    write(tmp_path, "ok.grad", PASS)
    write(tmp_path, "ok.json", "{not json")
    status, out = run(["."], tmp_path)
    assert status == 1 and "ok.json is not valid JSON" in out


def test_update_creates_out_only_for_scripts_named_on_the_command_line(tmp_path):
    write(tmp_path, "a.py", ERROR_PY)
    write(tmp_path, "b.py", PRINTS_PY)
    status, out = run(["."], tmp_path, update=True)
    assert status == 1 and not list(tmp_path.glob("*.out")), "a folder's scripts get no new golden files"
    status, out = run(["a.py"], tmp_path, update=True)
    assert status == 0 and (tmp_path / "a.out").exists() and not (tmp_path / "b.out").exists()


def test_update_refreshes_and_never_records_a_failed_expectation(tmp_path):
    write(tmp_path, "p.py", PRINTS_PY)
    write(tmp_path, "p.out", "old\n")
    write(tmp_path, "f.grad", FAIL)
    write(tmp_path, "f.out", "kept\n")
    status, out = run(["."], tmp_path, update=True)
    assert (tmp_path / "p.out").read_text() == "tensor([3., 6.], grad_fn=<MulBackward0>)\n"
    assert (tmp_path / "f.out").read_text() == "kept\n"
    assert status == 1 and "FAILED   f.grad:4" in out and "PASSED   p.py  (wrote p.out)" in out
    status, out = run(["."], tmp_path, update=True)
    assert "wrote p.out" not in out, "an unchanged golden file is not rewritten"


def test_atomic_write_keeps_the_old_file_when_writing_fails(tmp_path, monkeypatch):
    target = tmp_path / "x.out"
    target.write_text("old contents\n")

    def broken_fsync(fd):
        raise OSError(28, "No space left on device")
    monkeypatch.setattr(os, "fsync", broken_fsync)
    with pytest.raises(OSError):
        write_atomic(str(target), "new contents that never land\n" * 1000)
    assert target.read_text() == "old contents\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["x.out"], "the temporary file is removed"


def test_a_crash_mid_update_leaves_the_old_golden_file(tmp_path):
    write(tmp_path, "p.py", PRINTS_PY)
    write(tmp_path, "p.out", "old\n")
    # the process running the script dies after the new text is written to the temporary file,
    # before the rename; gradcli test itself reports that script as failed
    code = ("import os, sys; sys.argv = ['gradcli', 'test', '--update', 'p.py'];"
            "os.replace = lambda *a: os._exit(9);"
            "from gradcli.cli.app import main; main()")
    proc = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, env=ENV, capture_output=True, text=True)
    assert proc.returncode == 1 and "ended without a result (exit status 9)" in proc.stdout
    assert (tmp_path / "p.out").read_text() == "old\n"
    leftovers = [p.name for p in tmp_path.iterdir() if p.name not in ("p.py", "p.out")]
    assert len(leftovers) == 1 and leftovers[0].startswith(".p.out.") and leftovers[0].endswith(".tmp")
    status, out = run(["."], tmp_path)          # the leftover is not a script and not a golden file
    assert status == 1 and out.endswith("0 passed, 1 failed\n")


def test_scripts_sharing_a_golden_name_are_reported(tmp_path):
    write(tmp_path, "s.py", PRINTS_PY)
    write(tmp_path, "s.grad", PASS)
    write(tmp_path, "s.out", "x\n")
    status, out = run(["."], tmp_path)
    assert status == 1 and "would share the golden files" in out


# ----------------------------------------------------------------------------- the command


def make_suite(folder):
    write(folder, "a_pass.grad", PASS)
    write(folder, "b_fail.grad", FAIL)
    write(folder, "c_xfail.grad", "# xfail: known\n" + FAIL)
    write(folder, "d_pass.py", PRINTS_PY)
    write(folder, "e_error.py", ERROR_PY)
    write(folder, "f_skip.grad", "# skip: later\nf = 1\n")
    write(folder, "sub/g_pass.grad", PASS)
    write(folder, "sub/h_xpass.grad", "# xfail: fixed since\n" + PASS)


def test_the_summary_and_progress_lines(tmp_path):
    make_suite(tmp_path)
    status, out = run(["."], tmp_path)
    lines = out.splitlines()
    assert status == 1
    assert lines[:8] == [
        "PASSED   a_pass.grad",
        "FAILED   b_fail.grad:4  ExpectationFailed: expect x.grad == 5 failed: tensor(1.) != 5",
        "XFAIL    c_xfail.grad:5  ExpectationFailed: expect x.grad == 5 failed: tensor(1.) != 5  [xfail: known]",
        "PASSED   d_pass.py",
        "FAILED   e_error.py:5  RuntimeError: Trying to backward through the graph a second time (or directly...",
        "SKIPPED  f_skip.grad  (later)",
        "PASSED   sub/g_pass.grad",
        "XPASS    sub/h_xpass.grad  (fixed since)",
    ]
    assert lines[-1] == "3 passed, 2 failed, 1 skipped, 1 xfailed, 1 xpassed"
    assert "b_fail.grad:4: ExpectationFailed" in out and "e_error.py:5: RuntimeError" in out


def test_summary_line_format():
    r = lambda outcome: testing.Result("s", "s", outcome=outcome)          # noqa: E731
    assert testing.summary_line([]) == "0 passed, 0 failed"
    assert testing.summary_line([r("passed"), r("passed")]) == "2 passed, 0 failed"
    assert testing.summary_line([r("failed"), r("xpassed")]) == "0 passed, 1 failed, 1 xpassed"


def test_k_selects_by_path_with_and_or_not(tmp_path):
    make_suite(tmp_path)
    status, out = run(["."], tmp_path, keyword="pass and not sub")
    assert status == 0 and "2 deselected" not in out
    assert [ln.split()[1] for ln in out.splitlines()[:2]] == ["a_pass.grad", "d_pass.py"]
    assert out.splitlines()[-2:] == ["6 deselected by -k", "2 passed, 0 failed"]
    status, out = run(["."], tmp_path, keyword="(FAIL or error) and not xfail")
    assert status == 1 and out.endswith("0 passed, 2 failed\n")
    with pytest.raises(testing.UsageError):
        run(["."], tmp_path, keyword="pass and")
    with pytest.raises(testing.UsageError):
        run(["."], tmp_path, keyword="(pass")


def test_x_stops_at_the_first_failure(tmp_path):
    make_suite(tmp_path)
    status, out = run(["."], tmp_path, exitfirst=True)
    lines = out.splitlines()
    assert status == 1 and lines[0] == "PASSED   a_pass.grad" and lines[1].startswith("FAILED   b_fail.grad:4")
    assert lines[-2:] == ["stopped at the first failure (-x): 6 scripts not run", "1 passed, 1 failed"]


def test_parallel_runs_report_in_the_same_order_as_serial_ones(tmp_path):
    make_suite(tmp_path)
    serial = run(["."], tmp_path)
    parallel = run(["."], tmp_path, jobs=2)
    assert parallel == serial
    serial_x = run(["."], tmp_path, exitfirst=True)
    parallel_x = run(["."], tmp_path, exitfirst=True, jobs=2)
    assert parallel_x == serial_x


def test_json_output_is_one_object(tmp_path):
    make_suite(tmp_path)
    status, out = run(["."], tmp_path, json_=True)
    data = json.loads(out)
    assert status == 1 and data["ok"] is False and data["version"] == 1
    assert data["summary"] == {"passed": 3, "failed": 2, "skipped": 1, "xfailed": 1, "xpassed": 1, "total": 8}
    first_fail = data["results"][1]
    assert first_fail["script"] == "b_fail.grad" and first_fail["outcome"] == "failed" and first_fail["line"] == 4
    assert first_fail["problems"][0]["kind"] == "expectation"
    assert [r["script"] for r in data["results"]][-2:] == ["sub/g_pass.grad", "sub/h_xpass.grad"]


def test_junit_xml_is_valid_and_counts_right(tmp_path):
    make_suite(tmp_path)
    write(tmp_path, "z_ctrl.py", 'print("bell \\a and <tags> & more")\n')
    report = tmp_path / "out" / "junit.xml"
    report.parent.mkdir()
    status, out = run(["."], tmp_path, junit_xml=str(report))
    root = ET.parse(report).getroot()
    suite = root.find("testsuite")
    assert (suite.get("tests"), suite.get("failures"), suite.get("errors"), suite.get("skipped")) == ("9", "1", "1", "2")
    cases = {c.get("file"): c for c in suite.iter("testcase")}
    fail = cases["b_fail.grad"].find("failure")
    assert fail.get("type") == "expectation" and "> 4 | expect x.grad == 5" in fail.text
    assert cases["b_fail.grad"].get("line") == "4"
    assert cases["e_error.py"].find("error") is not None
    assert cases["c_xfail.grad"].find("skipped").get("type") == "xfail"
    assert cases["sub/g_pass.grad"].get("classname") == "sub" and cases["sub/g_pass.grad"].get("name") == "g_pass.grad"
    assert list(report.parent.iterdir()) == [report], "written atomically, no temporary file left"


def test_the_rich_view_on_a_terminal(tmp_path):
    from rich.console import Console
    make_suite(tmp_path)
    buf = io.StringIO()
    console = Console(file=buf, force_terminal=True, width=120, color_system=None)
    status, _ = run(["."], tmp_path, console=console)
    text = buf.getvalue()
    assert status == 1
    assert "FAILED   b_fail.grad:4" in text and "> 4 | expect x.grad == 5" in text
    assert text.rstrip("\n").splitlines()[-1] == "3 passed, 2 failed, 1 skipped, 1 xfailed, 1 xpassed"


def test_discovery_order_and_what_is_not_a_script(tmp_path):
    for name in ["b.py", "a.grad", "notes.txt", "a.out", "conftest.py", ".hidden/x.grad", "sub/c.grad",
                 "__pycache__/d.py"]:
        write(tmp_path, name, "f = 1\n")
    found = testing.discover(["."], cwd=tmp_path)
    assert [s.id for s in found] == ["a.grad", "b.py", "sub/c.grad"]
    assert [s.explicit for s in found] == [False] * 3
    again = testing.discover(["sub/c.grad", "."], cwd=tmp_path)
    assert [s.id for s in again] == ["sub/c.grad", "a.grad", "b.py"] and again[0].explicit
    with pytest.raises(testing.UsageError, match="no such file or directory: nope"):
        testing.discover(["nope"], cwd=tmp_path)
    with pytest.raises(testing.UsageError, match="is not a script"):
        testing.discover(["notes.txt"], cwd=tmp_path)


def test_exit_statuses_of_the_command(tmp_path):
    write(tmp_path, "ok.grad", PASS)
    write(tmp_path, "bad.grad", FAIL)

    def gradcli_run(*args):
        return subprocess.run(GRADCLI + ["test", *args], cwd=tmp_path, env=ENV, capture_output=True, text=True)
    p = gradcli_run(".")
    assert p.returncode == 1 and p.stdout.splitlines()[-1] == "1 passed, 1 failed"
    p = gradcli_run("ok.grad", "-j", "-1")
    assert p.returncode == 2 and p.stderr == "gradcli: -j expects a number of processes (0: one per CPU)\n"
    assert p.stdout == ""
    p = gradcli_run("ok.grad", "--no-such-option")
    assert p.returncode == 2 and p.stderr.startswith("gradcli: No such option: --no-such-option")


@pytest.mark.parametrize("paths, keyword, message", [
    ([], None, "no such file or directory: examples"),               # the default folder
    (["ok.grad"], "ok and", "-k 'ok and': expected a word at the end"),
    (["empty"], None, "no scripts (.grad or .py) in empty"),
])
def test_usage_errors(tmp_path, paths, keyword, message):
    write(tmp_path, "ok.grad", PASS)
    (tmp_path / "empty").mkdir()
    old = os.getcwd()
    os.chdir(tmp_path)
    try:
        with pytest.raises(testing.UsageError, match=re.escape(message)):
            cmd_test.main(paths or ["examples"], keyword=keyword, out=io.StringIO())
    finally:
        os.chdir(old)


@pytest.mark.parametrize("kw, message", [
    ({"oracle": "jax"}, "--oracle jax: the only oracle is torch"),
    ({"jobs": -2}, "-j expects a number of processes"),
    ({"timeout": 0}, "--timeout must be a positive number of seconds"),
])
def test_bad_options_are_usage_errors(tmp_path, kw, message):
    write(tmp_path, "ok.grad", PASS)
    with pytest.raises(testing.UsageError, match=re.escape(message)):
        run(["ok.grad"], tmp_path, **kw)


def test_gradcli_registers_the_test_command():
    """Through the real entry point (python -m gradcli): the app must register `test`."""
    p = subprocess.run([sys.executable, "-m", "gradcli", "test", "--help"], cwd=ROOT, env=ENV,
                       capture_output=True, text=True)
    assert p.returncode == 0 and "--junit-xml" in p.stdout, p.stderr


def test_the_examples_pass(tmp_path):
    status, out = run(["examples"], ROOT)
    assert status == 0, out
    assert out.splitlines()[-1].endswith(" passed, 0 failed")
    for example in ("seed000_block1", "concise_seed000", "seed004_pow"):
        assert (ROOT / "examples" / f"{example}.out").exists(), "examples that end with an error record it"


# ----------------------------------------------------------------------------- the PyTorch oracle


def test_oracle_differences_name_what_differs():
    from gradcli.testing import oracle
    torch_side = {"stdout": "a <X object at 0x7f01>\nb\n", "error": None, "grads": {"x": [1.0, 2.0], "w": None},
                  "calls": [{"kind": "backward", "line": 3, "freed": [("MulBackward0", ("other",))]},
                            {"kind": "backward", "line": 4, "freed": []}]}
    same = {"stdout": "a <X object at 0x5555>\nb\n", "error": None, "grads": {"x": [1.0, 2.0000001], "w": None},
            "calls": [{"kind": "backward", "line": 3, "freed": [("MulBackward0", ("other",))]}]}
    assert oracle.differences(torch_side, same) == []
    other = {"stdout": "a\n", "error": {"type": "RuntimeError", "message": "boom", "line": 4},
             "grads": {"x": [1.0, 3.0]},
             "calls": [{"kind": "backward", "line": 3, "freed": [("MulBackward0", ("other", "self"))]}]}
    diffs = "\n".join(oracle.differences(torch_side, other))
    assert "printed output differs" in diffs and "-a <X object at 0x...>" in diffs
    assert "error: PyTorch no error; gradcli RuntimeError: boom (line 4)" in diffs
    assert "x.grad: PyTorch [1.0, 2.0], gradcli [1.0, 3.0]" in diffs
    assert "w: a leaf that requires grad under PyTorch, not under gradcli" in diffs
    assert ("freeing call #1 (backward on line 3): PyTorch freed [MulBackward0(other)], "
            "gradcli freed [MulBackward0(other, self)]") in diffs


def test_oracle_mode_compares_with_real_pytorch(tmp_path):
    import torch  # noqa: F401  (the test extra installs it; a missing install must fail)
    write(tmp_path, "same.py", """\
        import torch
        x = torch.tensor([1.0, 2.0], requires_grad=True)
        z = 2 * (x + 1)
        y = (z ** 2).sum()
        print(z.grad_fn)
        y.backward()
        try:
            y.backward()
        except RuntimeError as e:
            print(str(e)[:20])
        """)
    write(tmp_path, "draws.py", """\
        import torch
        w = torch.randn(3, requires_grad=True)
        (w * w).sum().backward()
        """)
    write(tmp_path, "concise.py", "# gradcli:\nf = x * 2\nbackward f\nexpect x.grad == 2\n")
    status, out = run(["."], tmp_path, oracle="torch", json_=True)
    results = {r["script"]: r for r in json.loads(out)["results"]}
    assert results["same.py"]["outcome"] == "passed", results["same.py"]
    assert results["concise.py"]["outcome"] == "passed"
    assert results["concise.py"]["notes"] == ["oracle: not valid Python (gradcli statements?), not compared"]
    bad = results["draws.py"]
    assert bad["outcome"] == "failed" and bad["problems"][0]["kind"] == "oracle"
    assert "w.grad: PyTorch" in bad["problems"][0]["diff"]


def test_oracle_freed_sets_of_the_examples_match_pytorch():
    import torch  # noqa: F401  (the test extra installs it; a missing install must fail)
    status, out = run(["examples"], ROOT, oracle="torch", keyword="py")
    assert status == 0, out


# ----------------------------------------------------------------------------- the pytest plugin


def plugin_args():
    """`-p gradcli.testing.pytest_plugin` unless the entry point already loads it (an installed gradcli);
    other plugins that only cost start-up time are off."""
    from importlib.metadata import entry_points
    installed = any(ep.value == "gradcli.testing.pytest_plugin" for ep in entry_points(group="pytest11"))
    return ([] if installed else ["-p", "gradcli.testing.pytest_plugin"]) + [
        "-p", "no:cacheprovider", "-p", "no:benchmark", "-p", "no:hypothesispytest"]


def plugin_project(pytester):
    pytester.makepyprojecttoml('[tool.pytest.ini_options]\ngradcli_paths = ["scripts"]\n')
    write(pytester.path, "scripts/ok.grad", PASS)
    write(pytester.path, "scripts/bad.grad", FAIL)
    write(pytester.path, "scripts/known.grad", "# xfail: known\n" + FAIL)
    write(pytester.path, "scripts/fixed.grad", "# xfail: fixed\n" + PASS)
    write(pytester.path, "scripts/later.grad", "# skip: later\nf = 1\n")
    write(pytester.path, "scripts/prints.py", PRINTS_PY)              # under gradcli_paths
    write(pytester.path, "scripts/prints.out", "tensor([0., 0.])\n")
    write(pytester.path, "other/marked.py", "# gradcli: --strict\nf = 1\n")     # has the header
    write(pytester.path, "other/helper.py", "raise RuntimeError('never run me')\n")
    write(pytester.path, "other/test_real.py", "# gradcli:\ndef test_it():\n    assert True\n")
    write(pytester.path, "scripts/conftest.py", "")


def test_plugin_collects_grad_files_and_declared_py_scripts_only(pytester):
    plugin_project(pytester)
    result = pytester.runpytest(*plugin_args(), "--collect-only", "-q")
    ids = sorted(ln for ln in result.outlines if "::" in ln)
    assert ids == ["other/marked.py::gradcli", "other/test_real.py::test_it",
                   "scripts/bad.grad::gradcli", "scripts/fixed.grad::gradcli", "scripts/known.grad::gradcli",
                   "scripts/later.grad::gradcli", "scripts/ok.grad::gradcli", "scripts/prints.py::gradcli"]


def test_plugin_runs_the_scripts_and_shows_line_and_diff(pytester):
    plugin_project(pytester)
    result = pytester.runpytest(*plugin_args(), "-rA")
    result.assert_outcomes(passed=3, failed=2, skipped=1, xfailed=1, xpassed=1)
    out = result.stdout.str()
    assert ("scripts/bad.grad:4: ExpectationFailed: expect x.grad == 5 failed: tensor(1.) != 5\n"
            "      2 | f = x*y\n      3 | backward f\n    > 4 | expect x.grad == 5\n") in out
    assert "scripts/prints.py: the output differs from scripts/prints.out" in out
    assert "    -tensor([0., 0.])\n    +tensor([3., 6.], grad_fn=<MulBackward0>)\n" in out
    assert "FAILED scripts/bad.grad::gradcli - scripts/bad.grad:4: ExpectationFailed" in out
    assert "never run me" not in out


def test_plugin_update_writes_golden_files(pytester):
    write(pytester.path, "e.py", "# gradcli:\n" + ERROR_PY)
    write(pytester.path, "f.py", "# gradcli:\n" + ERROR_PY)
    result = pytester.runpytest(*plugin_args(), "--gradcli-update")
    result.assert_outcomes(failed=2)            # a folder's scripts get no new golden files
    result = pytester.runpytest(*plugin_args(), "e.py", "--gradcli-update")
    result.assert_outcomes(passed=1)            # named on the command line: e.out is created
    assert (pytester.path / "e.out").read_text().startswith("RuntimeError: Trying to backward")
    assert not (pytester.path / "f.out").exists()
    result = pytester.runpytest(*plugin_args())
    result.assert_outcomes(passed=1, failed=1)


def test_plugin_never_imports_a_script_named_on_the_command_line(pytester):
    write(pytester.path, "s.py", "# gradcli:\nimport torch\nraise SystemExit('imported by pytest')\n")
    result = pytester.runpytest(*plugin_args(), "s.py")
    result.assert_outcomes(failed=1)
    assert "s.py:3: SystemExit: imported by pytest" in result.stdout.str()     # gradcli's run, not an import


def test_plugin_works_with_xdist(tmp_path):
    import xdist  # noqa: F401  (the test extra installs pytest-xdist)
    for name, text in [("a.grad", PASS), ("b.grad", FAIL), ("c.grad", PASS), ("d.grad", "# xfail: x\n" + FAIL)]:
        write(tmp_path, name, text)
    write(tmp_path, "pytest.ini", "[pytest]\n")
    proc = subprocess.run([sys.executable, "-m", "pytest", "-n", "2", *plugin_args(), "-q"], cwd=tmp_path, env=ENV, capture_output=True, text=True,
                          timeout=120)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "b.grad:4: ExpectationFailed" in proc.stdout
    assert proc.stdout.splitlines()[-1].startswith("1 failed, 2 passed, 1 xfailed")


def test_a_header_set_list_may_be_written_unquoted(tmp_path):
    r = one(tmp_path, "l.grad", """\
        # gradcli: --set w=[1.0, 2.0, 3.0] --set x=2
        f = (w * x).sum()
        backward f
        expect w.grad == [2, 2, 2]
        expect x.grad == 6
        """)
    assert r.outcome == "passed", testing.failure_text(r)
