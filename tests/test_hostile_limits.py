"""Limits that hold whatever a script does: inside one long C call, for every tensor an op makes,
for plain Python objects, and in what gradcli writes about a run.

Runs go through the real command line (`python -m gradcli`) in a subprocess with an address-space
cap and a wall-clock limit, so a limit that does not hold fails the test instead of the machine.
"""
from __future__ import annotations

import json
import subprocess
import sys

import pytest

from fuzz_strategies import GiB, REPO, run_cli, startup_seconds
from test_hostile import assert_clean, json_error, run_script

from gradcli.session.executor import run_source

# ============================================================================ time: one long C call

LONG_C_CALLS = {
    "sum of a huge range": "sum(map(abs, range(10**12)))",
    "max of a reversed range": "max(reversed(range(10**12)))",
    "big-integer growth": "n = 3 ** (10 ** 9)",
}


def _scripts_folder(tmp_path, body, header="# gradcli:\n"):
    (tmp_path / "slow.py").write_text(f"{header}x = 1\n{body}\n")
    (tmp_path / "fine.py").write_text(f"{header}print(2)\n")
    return tmp_path


@pytest.mark.parametrize("body", LONG_C_CALLS.values(), ids=LONG_C_CALLS.keys())
def test_gradcli_test_stops_a_long_c_call_at_the_timeout_naming_the_line(tmp_path, body):
    _scripts_folder(tmp_path, body)
    r = run_cli(["test", str(tmp_path), "--timeout", "1", "--json"], timeout=60, cwd=str(tmp_path))
    assert_clean(r)
    assert r.elapsed < 1 + 4 * startup_seconds() + 5
    results = {x["script"]: x for x in json.loads(r.out)["results"]}
    assert results["fine.py"]["outcome"] == "passed", "the next script still runs"
    slow = results["slow.py"]
    assert slow["outcome"] == "failed" and slow["line"] == 3
    assert slow["problems"][0]["kind"] == "limit"
    assert "time limit of 1 s (stopped at line 3" in slow["problems"][0]["message"]


def test_pytest_plugin_stops_a_long_c_call_at_the_timeout_naming_the_line(tmp_path):
    _scripts_folder(tmp_path, LONG_C_CALLS["sum of a huge range"])
    proc = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q", "--gradcli-timeout", "1",
                           str(tmp_path)], cwd=tmp_path, capture_output=True, text=True, timeout=120,
                          env={"PYTHONPATH": str(REPO), "PATH": "/usr/bin:/bin"})
    assert proc.returncode == 1, proc.stdout[-2000:]
    assert "slow.py:3: LimitError: the script ran longer than the time limit of 1 s (stopped at line 3" \
        in proc.stdout
    assert "1 failed, 1 passed" in proc.stdout


@pytest.mark.parametrize("src, what", [
    ("x = torch.ones(1).expand(10**6, 10**6)\ny = x.sum()\n", "reads 1,000,000,000,000 elements"),
    ("x = torch.ones(1, 1, 1).expand(10**4, 10**4, 10**4)\ny = x.mean(0)\n", "reads 1,000,000,000,000 elements"),
    ("a = torch.ones(1, 1).expand(20000, 20000)\nb = a @ a\n", "a matrix product of 20000x20000 and 20000x20000"),
    ("a = torch.ones(1, 1, 1).expand(100, 3000, 3000)\nb = torch.bmm(a, a.transpose(1, 2))\n",
     "a batched matrix product of 100x3000x3000 and 100x3000x3000"),
])
def test_work_that_cannot_finish_in_the_time_limit_is_refused_before_it_starts(src, what):
    report = run_source(src, "<s>", timeout=5, max_elements=10 ** 10)
    assert report.error.type == "LimitError" and report.error.line == 2
    assert what in report.error.message and "cannot finish within the time limit of 5 s" in report.error.message


def test_the_same_work_runs_without_a_time_limit_when_it_is_small():
    report = run_source("x = torch.ones(1).expand(1000, 1000)\ny = x.sum()\nprint(y)\n", "<s>", timeout=5)
    assert report.error is None and report.stdout == "tensor(1000000.)\n"


# ============================================================================ memory: every result counted

EXPANDED = "x = torch.ones(1).expand(2000, 2000)\n"
MATERIALISING = {
    "softmax": "torch.softmax(x, 1)",
    "log_softmax": "F.log_softmax(x, 1)",
    "cumsum": "x.cumsum(0)",
    "cumprod": "x.cumprod(1)",
    "norm": "x.norm(dim=1)",
    "double": "x.double()",
    "long": "x.long()",
    "comparison": "x > 0",
    "equality": "x == x",
    "masked_fill": "x.masked_fill(torch.ones(1, dtype=torch.bool), 1.0)",
    "mse_loss": "F.mse_loss(x, x)",
    "clamp with a tensor": "x.clamp(min=torch.zeros(1))",
    "clamp": "x.clamp(0, 1)",
    "advanced indexing": "x[torch.zeros(2000, dtype=torch.long)]",
    "negation": "-x",
    "power": "x ** 2",
    "square": "x.square()",
    "logical_and": "torch.logical_and(x, x)",
    "exp": "x.exp()",
    "clone": "x.clone()",
}


@pytest.mark.parametrize("expr", MATERIALISING.values(), ids=MATERIALISING.keys())
def test_an_op_on_an_expanded_view_counts_its_whole_result(expr):
    report = run_source(EXPANDED + f"y = {expr}\n", "<s>", max_elements=1_000_000)
    assert report.error is not None and report.error.type == "LimitError", report.error
    assert "a tensor of 4,000,000 elements exceeds the limit of 1,000,000 elements" in report.error.message
    assert report.error.line == 2


@pytest.mark.parametrize("expr", ["x.sum()", "x.sum(0)", "x[0]", "x.t()", "x.reshape(-1)", "x.max()"])
def test_views_and_reductions_of_an_expanded_view_are_not_refused(expr):
    report = run_source(EXPANDED + f"y = {expr}\n", "<s>", max_elements=1_000_000)
    assert report.error is None


def test_plain_python_allocation_is_the_scripts_memory_error(tmp_path):
    # 4 GB of list: more than gradcli's cap of 1 GiB allows, less than the harness's own cap
    r = run_script(tmp_path, "x = 1\ny = [0] * (5 * 10**8)\n", "--plain", "--max-memory", "1", timeout=60,
                   address_space=6 * GiB)
    assert_clean(r)
    assert r.rc == 1
    assert r.err.startswith("MemoryError: out of memory: the script's objects would take gradcli past its "
                            "memory limit of 1 GiB")


def test_plain_python_allocation_under_a_timeout_is_the_scripts_memory_error(tmp_path):
    r = run_script(tmp_path, "x = 1\ny = [bytearray(2**27) for i in range(30)]\n", "--json", "--max-memory", "1",
                   "--timeout", "30", timeout=90, address_space=6 * GiB)
    assert_clean(r)
    error = json_error(r)
    assert r.rc == 1 and error["type"] == "MemoryError" and error["line"] == 2


def test_gradcli_test_holds_a_large_tensor_without_converting_it(tmp_path):
    (tmp_path / "big.py").write_text("x = torch.ones(15000, 10000)\ny = x.sum()\n")
    (tmp_path / "big.json").write_text("{}\n")
    r = run_cli(["test", "--update", "big.py"], timeout=120, cwd=str(tmp_path), address_space=3 * GiB)
    assert_clean(r)
    assert r.rc == 0, r.out
    golden = json.loads((tmp_path / "big.json").read_text())
    value = golden["tensors"]["x"]["value"]
    assert value["summary"] is True and value["numel"] == 150_000_000
    assert (value["min"], value["max"], value["mean"], value["std"]) == (1.0, 1.0, 1.0, 0.0)
    r = run_cli(["test", "big.py"], timeout=120, cwd=str(tmp_path), address_space=3 * GiB)
    assert_clean(r)
    assert r.rc == 0, r.out


# ============================================================================ --json: bounded output


def _json_tensors(tmp_path, src, *opts):
    r = run_script(tmp_path, src, "--json", *opts, timeout=120)
    assert_clean(r)
    return json.loads(r.out)["tensors"]


def test_json_summarises_a_large_tensor_as_pytorch_summarises_printing(tmp_path):
    import torch
    src = "x = torch.arange(2_000_000.).reshape(1000, 2000) * 1.5\nx[0, 1] = float('nan')\nx[1, 0] = float('-inf')\n"
    value = _json_tensors(tmp_path, src)["x"]["value"]
    scope = {"torch": torch}
    exec(src, scope)
    x = scope["x"]
    finite = x[torch.isfinite(x)].double()
    assert value["numel"] == 2_000_000 and value["nan"] == 1 and value["inf"] == 1
    assert value["min"] == finite.min().item() and value["max"] == finite.max().item()
    assert value["mean"] == pytest.approx(finite.mean().item(), rel=1e-12)
    assert value["std"] == pytest.approx(finite.std(unbiased=False).item(), rel=1e-9)

    def edges(t):                  # PyTorch's print summary: 3 items at each end of every dimension
        if t.dim() == 0:
            v = t.item()
            return "nan" if v != v else "-inf" if v == -float("inf") else v
        rows = [edges(r) for r in t[:3]] + ["..."] + [edges(r) for r in t[-3:]]
        return rows
    assert value["edges"] == edges(x)
    torch.set_printoptions(profile="default")
    assert "..." in str(x), "PyTorch summarises the same tensor when it prints it"


def test_json_summary_of_an_expanded_view_reads_its_storage_once(tmp_path):
    tensors = _json_tensors(tmp_path, "b = torch.tensor([1., 3.]).expand(10**6, 10**6 // 2, 2)\n")
    value = tensors["b"]["value"]
    assert value["numel"] == 10 ** 12 and (value["min"], value["max"], value["mean"], value["std"]) == (1, 3, 2, 1)


def test_json_full_values_option_gives_every_value_up_to_its_size(tmp_path):
    src = "x = torch.arange(2000.)\ng = torch.ones(3, requires_grad=True)\ng.sum().backward()\n"
    summary = _json_tensors(tmp_path, src)
    assert summary["x"]["value"]["edges"] == [0.0, 1.0, 2.0, "...", 1997.0, 1998.0, 1999.0]
    assert summary["g"]["grad"] == [1.0, 1.0, 1.0], "small tensors keep every value"
    full = _json_tensors(tmp_path, src, "--full-values", "2000")
    assert full["x"]["value"] == [float(i) for i in range(2000)]


@pytest.mark.parametrize("value", ["-1", "abc"])
def test_a_bad_full_values_option_is_a_usage_error(value):
    r = run_cli(["run", "-c", "x = 1", "--json", "--full-values", value])
    assert_clean(r)
    assert r.rc == 2 and r.err.count("\n") == 1 and r.err.startswith("gradcli:")


@pytest.mark.parametrize("call", ["x.clamp(torch.zeros(3), torch.full((3,), 0.5))",
                                  "x.clamp(min=torch.zeros(1), max=torch.full((2, 3), 0.5))",
                                  "x.norm()", "x.long().norm()", "x.bool().norm(1)"])
def test_size_checks_leave_results_and_errors_as_in_pytorch(call):
    import torch
    import gradcli.torch as gtorch
    outcomes = []
    for lib in (torch, gtorch):
        x = lib.arange(3.) - 1
        try:
            outcomes.append(("ok", eval(call, {"torch": lib, "x": x}).tolist()))
        except Exception as e:  # noqa: BLE001
            outcomes.append((type(e).__name__, str(e)))
    assert outcomes[0] == outcomes[1]


# ============================================================================ parsing within the limits


def test_a_script_over_the_source_limit_is_refused_before_parsing(tmp_path):
    (tmp_path / "long.py").write_text("x = 1\n" * 400_000)         # 2.3 MiB of Python
    r = run_cli(["run", "long.py", "--plain"], cwd=str(tmp_path), timeout=60)
    assert_clean(r)
    assert r.rc == 2 and r.elapsed < 10 + startup_seconds()
    assert r.err == "LimitError: the script is 2,343 KiB, more than the 1,024 KiB gradcli parses " \
                    "(raise it with --max-source)\n"
    r = run_cli(["run", "long.py", "--plain", "--max-source", "4000"], cwd=str(tmp_path), timeout=120)
    assert_clean(r)
    assert r.rc == 0


def test_a_dialect_script_gets_a_share_of_the_source_limit():
    report = run_source("y = x * 2\nbackward y\n" * 2000, "<s>", max_source=160 * 1024)
    assert report.parse_failed and report.error.type == "SyntaxError"
    assert report.error.message.startswith("invalid syntax (not read as gradcli's dialect either: at 41 KiB the "
                                           "script is longer than the 20 KiB its parser reads in reasonable time")
    assert run_source("y = x * 2\nbackward y\n" * 200, "<s>", max_source=160 * 1024).error is None


def test_parsing_counts_in_the_time_limit(tmp_path):
    (tmp_path / "slow.grad").write_text("y = x * 2\nbackward y\n" * 20_000)   # seconds in the dialect parser
    r = run_cli(["run", "slow.grad", "--plain", "--max-source", "4000", "--timeout", "1"], cwd=str(tmp_path),
                timeout=60)
    assert_clean(r)
    assert r.rc == 1 and r.elapsed < 1 + 0.5 + 6 + startup_seconds()
    assert r.err == "LimitError: parsing the script took longer than the time limit of 1 s (raise it with --timeout)\n"
