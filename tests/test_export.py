"""`gradcli export`: the exported script runs under real PyTorch and does what gradcli did
(same stdout, same error, same values and gradients)."""
from __future__ import annotations

import json
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from gradcli.views import json_view
from gradcli.views import export as X
from gradcli.cli.app import app
from gradcli.session.executor import run_source

REPO = Path(__file__).resolve().parents[1]
try:
    import importlib.util
    HAVE_TORCH = importlib.util.find_spec("torch") is not None
except Exception:            # pragma: no cover
    HAVE_TORCH = False


@pytest.fixture
def torch_installed():
    # torch is a test dependency (the `test` extra): a missing install must fail, not skip.
    assert HAVE_TORCH, "install the test extra: pip install '.[test]'"


needs_torch = pytest.mark.usefixtures("torch_installed")
ADDRESS = re.compile(r" at 0x[0-9a-f]+")

EXPECTS = """\
# the concise dialect with gradcli's own statements
f = x+y; z = 2*f; y1 = z**2; y2 = z**3
backward y1, retain_graph=True
expect x.grad == 40. within 1e-4
expect retained z
graph y1
backward y1; expect freed z
expect error "second time"; backward y2
print x.grad, y.grad
for i in range(2): print i
if True:
    expect error "second time"
    backward y1
expect (x.grad > 0)
"""

# name -> (source, --set values)
CASES = {
    "concise_seed000": ("f = x+y; z = 2*f; y1 = z**2; y2 = z**3\nbackward y1\nbackward y2\n", {"x": 2, "y": 3}),
    "concise_vector": ("L = (w * w).sum() + b\nbackward L\nprint w.grad, b.grad\nprint(L)\n",
                       {"w": [1, 2.5], "b": 0.5}),
    "expects": (EXPECTS, {"x": 2, "y": 3}),
    "implicit_default": ("q = a * a + a\nbackward q\nprint a.grad\n", {}),
    "seed000_block1": ((REPO / "examples" / "seed000_block1.py").read_text(), {}),
    "seed000_block2": ((REPO / "examples" / "seed000_block2.py").read_text(), {}),
    "seed003_function": ((REPO / "examples" / "seed003_function.py").read_text(), {}),
    "seed004_pow": ((REPO / "examples" / "seed004_pow.grad").read_text(), {}),
    "partial_update": ("""\
import torch
x = torch.tensor([1., 2.], requires_grad=True)
y = torch.tensor([3., 4.], requires_grad=True)
L = (y * y).sum() + x.sum()
backward L
try:
    backward L
except RuntimeError as err:
    print("failed:", str(err)[:30])
print x.grad, y.grad
""", {}),
    "inplace": ("""\
import torch
x = torch.tensor([1., 2.], requires_grad=True)
a = x * 1
r = a.sin()
a.add_(1)
backward r.sum()
""", {}),
    "autograd_grad": ((REPO / "examples" / "autograd_grad_path.py").read_text(), {}),
}

HARNESS = r'''
import contextlib, io, json, sys, warnings
import torch
results = {}
for path in sys.argv[2:]:
    out = io.StringIO()
    g = {"__name__": "__main__", "__file__": path}
    error = None
    with contextlib.redirect_stdout(out), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            exec(compile(open(path).read(), path, "exec"), g)
        except Exception as e:
            error = [type(e).__name__, str(e)]
    tensors = {}
    for k, v in g.items():
        if isinstance(v, torch.Tensor):
            grad = v._grad if hasattr(v, "_grad") else v.grad
            tensors[k] = {"value": v.detach().tolist(), "grad": None if grad is None else grad.detach().tolist()}
    results[path] = {"stdout": out.getvalue(), "error": error, "tensors": tensors}
json.dump(results, open(sys.argv[1], "w"))
'''


@pytest.fixture(scope="module")
def torch_runs(tmp_path_factory):
    """Every case exported, then all run under real PyTorch in one process (one torch import)."""
    assert HAVE_TORCH, "install the test extra: pip install '.[test]'"
    d = tmp_path_factory.mktemp("exported")
    paths = {}
    for name, (source, values) in CASES.items():
        result = X.export_source(source, f"{name}.grad", values=values)
        assert not result.parse_failed
        p = d / f"{name}.py"
        p.write_text(result.text)
        paths[name] = p
    (d / "harness.py").write_text(HARNESS)
    out = d / "results.json"
    # All at once (importing torch is slow): the harness runs every case, and two exported
    # scripts also run on their own as `python exported.py`.
    harness = subprocess.Popen([sys.executable, str(d / "harness.py"), str(out)] + [str(p) for p in paths.values()],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    alone = {n: subprocess.Popen([sys.executable, str(paths[n])], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                 text=True) for n in ("concise_seed000", "expects")}
    _, err = harness.communicate(timeout=300)
    assert harness.returncode == 0, err
    standalone = {}
    for n, proc in alone.items():
        o, e = proc.communicate(timeout=300)
        standalone[n] = (proc.returncode, o, e)
    data = json.loads(out.read_text())
    return {name: data[str(p)] for name, p in paths.items()}, standalone


def _num(v):
    def fix(x):
        if isinstance(x, list):
            return [fix(i) for i in x]
        return float(x) if not isinstance(x, str) else float(x.replace("inf", "inf"))
    return np.asarray(fix(v), dtype=float)


@needs_torch
@pytest.mark.parametrize("name", list(CASES))
def test_exported_script_does_in_pytorch_what_gradcli_did(name, torch_runs):
    runs, _ = torch_runs
    torch_run = runs[name]
    source, values = CASES[name]
    ours = run_source(source, f"{name}.grad", values=values)
    assert ADDRESS.sub("", torch_run["stdout"]) == ADDRESS.sub("", ours.stdout)
    if ours.error is None:
        assert torch_run["error"] is None, torch_run["error"]
    else:
        assert torch_run["error"] == [ours.error.type, ours.error.message]
    for tname, desc in json_view.tensors_json(ours).items():
        theirs = torch_run["tensors"].get(tname)
        assert theirs is not None, f"{tname} missing under PyTorch"
        np.testing.assert_allclose(_num(theirs["value"]), _num(desc["value"]).reshape(np.shape(theirs["value"])),
                                   rtol=1e-5, atol=1e-6, err_msg=tname)
        if desc["grad"] is None:
            assert theirs["grad"] is None, tname
        else:
            np.testing.assert_allclose(_num(theirs["grad"]), _num(desc["grad"]).reshape(np.shape(theirs["grad"])),
                                       rtol=1e-5, atol=1e-6, err_msg=tname)


@needs_torch
def test_exported_script_runs_standalone_with_python(torch_runs):
    _, standalone = torch_runs
    code, out, err = standalone["concise_seed000"]
    assert code == 1
    assert err.strip().splitlines()[-1].startswith("RuntimeError: Trying to backward through the graph a second time")
    code, out, err = standalone["expects"]
    assert code == 0, err
    assert out == "tensor(80.) tensor(80.)\n0\n1\n"


# ----------------------------------------------------------------------------- the rewriting


def exported(source, values=None):
    return X.export_source(textwrap.dedent(source), "t.grad", values=values).text


def test_dialect_is_exported_as_the_python_gradcli_runs():
    text = exported("""\
        # the comment of a dialect script is not part of the tree that runs
        f = x+y; z = 2*f  # trailing
        backward z , retain_graph=True
        backward (f + z)
        print x.grad, y.grad,
        graph z
        print(f)
        """, {"x": 2, "y": [1, 2]})
    body = text.split("\n\n")[-1]
    assert body == textwrap.dedent("""\
        x = torch.tensor(2.0, requires_grad=True)
        y = torch.tensor([1.0, 2.0], requires_grad=True)
        f = x + y
        z = 2 * f
        z.backward(retain_graph=True)
        (f + z).backward()
        print(x.grad, y.grad)
        _gradcli_graph(z, 'z')
        print(f)
        """)
    assert "import torch\n" in text and "def _gradcli_graph(tensor, name):" in text
    compile(text, "t.py", "exec")


def test_python_scripts_are_exported_unchanged():
    source = "import torch\n# kept\nx = torch.ones(2, requires_grad=True)  # kept too\nprint(x)\n"
    assert exported(source).split("\n", 1)[1] == source


def test_a_file_name_cannot_end_the_header_comment():
    text = X.export_source("f = x*2\n", "evil\nimport os; os.system('true')\n.grad").text
    assert text.splitlines()[0].startswith("# Exported by gradcli from \"evil\\nimport os")
    assert "\nimport os; os.system" not in text


def test_torch_scripts_keep_their_imports_and_get_no_leaves():
    text = exported("import torch\nx = torch.ones(2, requires_grad=True)\nprint x\n")
    assert text.count("import torch") == 1 and "implicit leaves" not in text
    assert text.endswith("print(x)\n")


def test_expect_statements_become_checks():
    text = exported(EXPECTS, {"x": 2, "y": 3})
    assert "_gradcli_expect_close(x.grad, 40.0, 0.0001, 'expect x.grad == 40. within 1e-4 (line 4)')" in text
    assert "_gradcli_expect_freed(z, False, 'expect retained z (line 5)')" in text
    assert "y1.backward()\n_gradcli_expect_freed(z, True, 'expect freed z (line 7)')" in text
    assert "try:\n    y2.backward()\nexcept Exception as _gradcli_error:\n" in text
    assert "if True:\n    try:\n        y1.backward()\n    except Exception as _gradcli_error:\n" in text
    assert "_gradcli_expect(x.grad > 0, 'expect (x.grad > 0) (line 14)')" in text
    compile(text, "t.py", "exec")


def test_expect_error_needs_a_statement_after_it():
    report = run_source('x = 1\nexpect error "x"\n')
    assert report.parse_failed and report.error.type == "SyntaxError" and report.error.line == 2
    assert "followed" in report.error.message
    text = exported('if True: expect error "second"; backward y\n')
    assert "try:\n        y.backward()" in text


def test_command(tmp_path):
    runner = CliRunner()
    src = tmp_path / "s.grad"
    src.write_text("f = x+y; z = 2*f\nbackward z\nprint x.grad\n")
    r = runner.invoke(app, ["export", str(src), "--set", "x=2"])
    assert r.exit_code == 0 and "x = torch.tensor(2.0, requires_grad=True)" in r.stdout
    assert "z.backward()" in r.stdout and "print(x.grad)" in r.stdout
    out = tmp_path / "out.py"
    r = runner.invoke(app, ["export", str(src), "-o", str(out)])
    assert r.exit_code == 0 and out.read_text().startswith("# Exported by gradcli")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.py", "s.grad"]      # written atomically
    r = runner.invoke(app, ["export", "-c", "f = x+y; z = 2*f; backward z; backward z"])
    assert r.exit_code == 0 and "stops at line 1 with RuntimeError" in r.output
    r = runner.invoke(app, ["export", "-c", "f = = 1"])
    assert r.exit_code == 2
    r = runner.invoke(app, ["export", "-c", 'expect error "x"'])
    assert r.exit_code == 2 and "followed" in r.output
