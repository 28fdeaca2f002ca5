"""The Jupyter extension, as a notebook runs it: a notebook executed headless by nbclient in an
IPython kernel (ipykernel, this interpreter), its outputs checked against `gradcli run --json`
of the same code; and `gradcli run` never importing IPython."""
from __future__ import annotations

import html
import json
import re
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

REPO = Path(__file__).resolve().parents[1]

FORWARD = "f = x+y\nz = 2*f\ny1 = z**2\ny2 = z**3\nbackward y1"
CELLS = {
    "load": "%load_ext gradcli",
    "forward": "%%gradcli --set x=2 --set y=3\n" + FORWARD,
    "again": "%%gradcli\nbackward y2",
    "graph": "%gradcli graph y1",
    "explain": "%gradcli explain",
    "strict": "%%gradcli --strict\nw1 = unknown * 2",
    "reset": "%gradcli reset",
    "after_reset": "%%gradcli --strict\nprint(y2)",
    "plain": "from gradcli import torch\nimport gradcli\na = torch.tensor([2.0], requires_grad=True)\n"
             "b = 2*a\nc = b**2\nc.grad_fn",
    "show": "gradcli.show(c)",
    "plain_error": "c.backward()\nc.backward()",
    "explain_option": "%%gradcli --explain\nq = torch.tensor([1.0, 2.0], requires_grad=True)\n"
                      "r = (q * q).sum()\nr.backward()",
    "json_option": "%%gradcli --json\nq.grad",
    "bad_option": "%%gradcli --nope\nprint(1)",
    "bad_value": "%%gradcli --set x=abc\nprint(1)",
}


@pytest.fixture(scope="module")
def kernel(tmp_path_factory):
    """A kernel spec for this interpreter (a user's own `python3` spec may name another Python)."""
    root = tmp_path_factory.mktemp("jupyter")
    (root / "kernels" / "gradcli-tests").mkdir(parents=True)
    (root / "kernels" / "gradcli-tests" / "kernel.json").write_text(json.dumps(
        {"argv": [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"],
         "display_name": "gradcli tests", "language": "python"}))
    with pytest.MonkeyPatch.context() as env:
        env.setenv("JUPYTER_PATH", str(root))
        yield "gradcli-tests"


def run_notebook(cells, kernel):
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(c) for c in cells])
    NotebookClient(nb, timeout=120, kernel_name=kernel, allow_errors=True).execute()
    return nb


@pytest.fixture(scope="module")
def outputs(kernel):
    nb = run_notebook(CELLS.values(), kernel)
    return dict(zip(CELLS, (cell.outputs for cell in nb.cells)))


def data(outs, mime):
    found = [o["data"][mime] for o in outs if mime in o.get("data", {})]
    assert len(found) == 1, outs
    return found[0]


def text_of(markup):
    return html.unescape(re.sub(r"<[^>]+>", "", markup))


def words(text):
    """Text as one line of words, without the panels' borders (Rich wraps inside a box)."""
    return " ".join(re.sub(r"\x1b\[[0-9;]*m|[│╭╮╰╯]", " ", text).split())


def json_report(code, *options):
    return json.loads(subprocess.run([sys.executable, "-m", "gradcli", "run", "-c", code, "--json", *options],
                                     capture_output=True, text=True, cwd=REPO, timeout=120).stdout)


def test_gradcli_cell_shows_the_run_report_as_html(outputs):
    report = json_report(FORWARD, "--set", "x=2", "--set", "y=3")
    markup = data(outputs["forward"], "text/html")
    assert "\x1b[" not in markup and "<span style=" in markup
    text = text_of(markup)
    event = report["events"][0]
    for name in event["ran"]:
        if name != "AccumulateGrad":
            assert name in text
    for node in event["freed"]:
        assert f"{node['grad_fn']} (" in text and f"line {node['line']}" in text
    for leaf in event["updated"]:
        grad = report["tensors"][leaf]["grad"]
        assert f"{leaf}.grad None → tensor({grad[0] if isinstance(grad, list) else grad:g}.)" in text
    assert "x = tensor(2., requires_grad=True), y = tensor(3., requires_grad=True)" in text


def test_namespace_lives_across_cells_and_errors_show_the_explanation(outputs):
    report = json_report(FORWARD + "\nbackward y2", "--set", "x=2", "--set", "y=3")
    text = words(text_of(data(outputs["again"], "text/html")))
    err = report["error"]
    assert f"{err['type']} ─ line 1: backward y2" in text and err["message"] in text
    # the same Why as the command line's; no fix: a cell is not the whole script, so gradcli
    # cannot run a fixed copy of it, and a fix it has not tried is not offered
    assert f"Why: {err['why']}" in text
    assert "Fix:" not in text and "untried" not in text
    assert not any(o.output_type == "error" for o in outputs["again"])


def test_line_magics_draw_the_graph_and_tell_the_last_cells_story(outputs):
    svg = data(outputs["graph"], "image/svg+xml")
    for title in ("PowBackward0 #2", "MulBackward0 #1", "AddBackward0 #0", "y1"):
        assert f">{title}<" in svg
    story = text_of(data(outputs["explain"], "text/html"))
    assert story.startswith("backward 2 of 2: backward y2") and "FREED by `backward y1`" in story
    assert "Why it failed" in story


def test_options_as_on_the_command_line_and_reset(outputs):
    assert "NameError" in text_of(data(outputs["strict"], "text/html"))
    assert "fresh namespace" in text_of(data(outputs["reset"], "text/html"))
    after = text_of(data(outputs["after_reset"], "text/html"))
    assert "NameError" in after and "'y2' is not defined" in after
    bad = text_of(data(outputs["bad_option"], "text/html"))
    assert bad.startswith("gradcli: unrecognized arguments: --nope")
    assert text_of(data(outputs["bad_value"], "text/html")) == "gradcli: --set x: 'abc' is not a number or a list of numbers"
    report = json.loads(text_of(data(outputs["json_option"], "text/html")))
    assert report["ok"] and report["stdout"] == ""
    assert report["tensors"]["q"]["grad"] == [2.0, 4.0]
    explained = text_of(data(outputs["explain_option"], "text/html"))
    assert "q.grad None → tensor([2., 4.])" in explained and "explain" in explained
    assert "1. SumBackward0" in explained and "q.grad: None → tensor([2., 4.])" in explained


def test_plain_cells_draw_grad_fn_and_show_as_svg(outputs):
    for key in ("plain", "show"):
        svg = data(outputs[key], "image/svg+xml")
        for title in ("PowBackward0 #1", "MulBackward0 #0"):
            assert f">{title}<" in svg
        assert ">a<" in svg or ">c<" in svg


def test_error_in_a_plain_cell_is_the_explanation_not_a_traceback_through_gradcli(outputs):
    errors = [o for o in outputs["plain_error"] if o.output_type == "error"]
    assert len(errors) == 1
    shown = "\n".join(errors[0]["traceback"])
    flat = words(shown)
    assert errors[0]["ename"] == "RuntimeError"
    assert "RuntimeError ─ line 2: c.backward()" in flat
    assert "made by `c = b**2` on line 5" in flat and "which `c.backward()` on line 1 freed" in flat
    # a cell is not the whole script: its fixes cannot be tried on a copy, so none is offered
    assert "Fix:" not in flat and "untried" not in flat
    assert "gradcli/" not in shown and "Traceback" not in shown


def test_gradcli_run_never_imports_ipython():
    code = ("import sys\nfrom gradcli.cli.execute import fast_run\n"
            "status = fast_run(['examples/seed000_block1.py', '--plain'])\n"
            "print(sorted(m for m in sys.modules if m.split('.')[0] in ('IPython', 'ipykernel', 'selenium') "
            "or m == 'gradcli.notebook'), status, file=sys.stderr)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO, timeout=120)
    assert done.stderr.splitlines()[-1] == "[] 1"


def test_example_notebook_runs_to_its_end_and_explains_each_failure(kernel):
    nb = nbformat.read(REPO / "examples" / "seed_questions.ipynb", as_version=4)
    # only the cell tagged raises-exception may raise (nbclient stops on any other error)
    NotebookClient(nb, timeout=120, kernel_name=kernel, resources={"metadata": {"path": str(REPO)}}).execute()
    magic = [c for c in nb.cells if c.cell_type == "code" and c.source.startswith("%%gradcli")]
    shown = [words(text_of(data(c.outputs, "text/html"))) for c in magic]
    assert not any("internal error" in s for s in shown)
    failing = [s for s in shown if "RuntimeError" in s]
    assert len(failing) == 3 and all("Why:" in s and "untried" not in s for s in failing)
    raised = [o for c in nb.cells for o in c.get("outputs", ()) if o.output_type == "error"]
    assert len(raised) == 1 and "Why:" in words("\n".join(raised[0]["traceback"]))
