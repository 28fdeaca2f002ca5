"""Every example runs; each PyTorch-dialect example prints exactly what Python + PyTorch prints."""
import pathlib
import re
import subprocess
import sys

import pytest

from gradcli.session.executor import run_source

ROOT = pathlib.Path(__file__).resolve().parent.parent
EXAMPLES = sorted((ROOT / "examples").glob("*.py")) + sorted((ROOT / "examples").glob("*.grad"))
ADDRESS = re.compile(r" at 0x[0-9a-f]+")


def test_there_are_enough_examples():
    assert len(EXAMPLES) >= 8


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.name)
def test_example_runs_without_internal_error_and_has_a_header(path):
    source = path.read_text()
    assert source.startswith("#"), "every example starts with a comment saying what it shows"
    report = run_source(source, path.name)
    assert report.error is None or report.error.type in ("RuntimeError",), report.error


@pytest.mark.parametrize("path", [p for p in EXAMPLES if p.suffix == ".py"], ids=lambda p: p.name)
def test_python_example_prints_what_pytorch_prints(path):
    torch_run = subprocess.run([sys.executable, str(path)], capture_output=True, text=True, cwd=ROOT)
    report = run_source(path.read_text(), path.name)
    assert ADDRESS.sub("", report.stdout) == ADDRESS.sub("", torch_run.stdout)
    torch_error = torch_run.stderr.strip().splitlines()[-1] if torch_run.returncode else None
    ours = None if report.error is None else f"{report.error.type}: {report.error.message}"
    assert ours == torch_error
