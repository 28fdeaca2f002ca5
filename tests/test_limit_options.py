"""Bad values of the limit options are one-line usage errors (exit 2) in every command."""
from __future__ import annotations

import pytest

from fuzz_strategies import run_cli


@pytest.mark.parametrize("command", ["run", "graph", "explain", "export"])
@pytest.mark.parametrize("value", ["1e300", "inf", "nan", "0", "-1", "8589934593"])
def test_max_memory_out_of_range_is_a_usage_error(tmp_path, command, value):
    r = run_cli([command, "-c", "x = 1", "--max-memory", value], timeout=60, cwd=str(tmp_path))
    assert not r.timed_out and r.rc == 2, f"exit {r.rc}: {r.err[-800:]}"
    assert "Traceback" not in r.err
    assert r.err.strip() == "gradcli: --max-memory must be a positive number of GiB, at most 8589934592"


@pytest.mark.parametrize("value", ["8589934592", "1e-300"])
def test_max_memory_extremes_in_range_are_accepted(tmp_path, value):
    r = run_cli(["run", "-c", "print(1)", "--plain", "--max-memory", value], timeout=60, cwd=str(tmp_path))
    assert r.rc == 0 and r.out == "1\n", r.err
