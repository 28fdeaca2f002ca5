"""`gradcli explain`: the narrative states the true cause, checked fact by fact (node, slot,
lines), on the seed examples, the partial-update scenarios and in-place errors."""
from __future__ import annotations

import io
import json
import textwrap

import pytest
from rich.console import Console
from typer.testing import CliRunner

from gradcli.session.executor import run_traced
from gradcli.views import narrative as narrate
from gradcli.cli.app import app

# The first and second code block of "PyTorch中retain_graph作用及两次backward无报错原因问询", exactly as asked (line 1: import torch).
SEED000_BLOCK1 = """\
import torch
x = torch.tensor([2.0], requires_grad=True)
y = torch.tensor([3.0], requires_grad=True)
f = x+y
z = 2*f
y1 = z**2
y2 = z**3
y1.backward()
y2.backward()
"""
SEED000_BLOCK2 = """\
import torch

x = torch.tensor([2.0], requires_grad=True)
y = torch.tensor([3.0], requires_grad=True)
z = x+y
y1 = z**2
y2 = z**3
y1.backward()
y2.backward()
"""
# "Pytorch compute graph don't release as expected" (torch.randn replaced by fixed values) and
# "pyTorch может вернуться назад дважды без установки retain_graph = True" (its answer's second snippet).
SEED003 = """\
import torch
a = torch.tensor([-0.3121, -0.2331, 0.9317, -0.5075], requires_grad=True)
loss = a.sum()
loss.backward()
loss.backward()
print(a.grad)
"""
SEED004 = """\
import torch
x = torch.ones(2, 2, requires_grad=True)
v = x.pow(3)
y = v + 2
y.backward(torch.ones(2, 2))
y.backward(torch.ones(2, 2))
"""


def narrative_of(source, name, **kw):
    """Run a script as `gradcli explain` does: (its narrative, its trace)."""
    trace = run_traced(source, name, **kw)
    return narrate.build(trace), trace


def explain(source, **kw):
    narr, trace = narrative_of(textwrap.dedent(source), "t.py", **kw)
    return narr


def only(narr, kind):
    found = narr.findings(kind)
    assert len(found) == 1, (kind, [f.kind for f in narr.findings()], narrate.render_text(narr))
    return found[0]


def step(call, grad_fn, line=None):
    hits = [s for s in call.steps if s.grad_fn == grad_fn and (line is None or s.line == line)]
    assert len(hits) == 1, (grad_fn, line, [(s.grad_fn, s.line) for s in call.steps])
    return hits[0]

# ----------------------------------------------------------------------------- the two blocks of examples/seed000_*


def test_seed000_block1_second_backward_fails_on_the_constant_saved_by_2f():
    narr = explain(SEED000_BLOCK1)
    assert [c.line for c in narr.calls] == [8, 9]
    first, second = narr.calls
    # the first call: what it ran, in order, what it needed and freed, what it updated
    assert [(s.grad_fn, s.line, s.name) for s in first.steps if not s.leaf] == [
        ("PowBackward0", 6, "y1"), ("MulBackward0", 5, "z"), ("AddBackward0", 4, "f")]
    mul = step(first, "MulBackward0")
    other = next(n for n in mul.needs if n.slot == "other")
    assert other.held and other.kind == "constant" and other.freed_now and other.state == "alive"
    assert "constant 2" in other.what
    assert [n.held for n in mul.needs if n.slot == "self"] == [False]       # self: None
    add = step(first, "AddBackward0")
    assert not add.holds_tensors and add.attrs == {"alpha": 1}
    assert first.freed == [("PowBackward0", 6, ["self"]), ("MulBackward0", 5, ["other"])]
    assert [(u.name, u.before, u.after) for u in first.updates] == [
        ("x", None, "tensor([40.])"), ("y", None, "tensor([40.])")]
    # the second call fails at MulBackward0 (line 5) on `other`, freed by line 8
    assert second.failed and second.error_type == "RuntimeError"
    assert [s.grad_fn for s in second.steps if s.failed] == ["MulBackward0"]
    f = only(narr, "freed")
    assert (f.facts["node"], f.facts["line"], f.facts["saved"], f.facts["by_line"]) == \
        ("MulBackward0", 5, ["other"], 8)
    assert f.facts["variable"] == "z"
    assert "`z = 2*f` on line 5" in f.text and "`y1.backward()` on line 8" in f.text
    assert "constant 2" in f.text
    # two losses on one forward: keeping the graph first, then recomputing; both tried and working
    assert [x.title for x in f.why.fixes if x.shown] == ["keep the graph", "recompute the forward"]
    fixes = " ".join(f.fixes)
    assert "`y1.backward(retain_graph=True)` on line 8" in fixes
    assert "recompute" in fixes and "`z = 2*f`, `y2 = z**3` again" in fixes
    # detaching z leaves y2 (or y1) without a graph: tried, and not offered
    assert "Tried and not shown (the error stayed, or another came): `y1 = z.detach() ** 2` (line 6), " \
           "`z = (2 * f).detach()` (line 5)" in fixes
    assert all("element 0 of tensors" in x.outcome for x in f.why.fixes if x.tried and not x.works)


def test_seed000_block2_second_backward_works_for_the_real_reason():
    narr = explain(SEED000_BLOCK2)
    first, second = narr.calls
    assert not second.failed and narr.error is None
    w = only(narr, "worked")
    # z = x+y is an AddBackward0 that saves nothing, and it was run by y1's backward
    assert w.facts["saves_nothing"] == [("AddBackward0", 5)]
    assert "`z = x+y`" in w.text and "saves no tensors (only alpha=1)" in w.text
    assert "`y1.backward()` (line 8)" in w.text
    # y2's PowBackward0 holds its own saved z, which y1's backward never ran
    assert w.facts["fresh"] == [("PowBackward0", 7, ["self"])]
    assert "PowBackward0 #2 (`y2 = z**3`, line 7) holds its own saved `self` (z)" in w.text
    assert "no earlier backward ran this node" in w.text
    assert "y1's PowBackward0 #1 (`y1 = z**2`, line 6)" in w.text
    # and never the accepted answer's wrong reason
    full = narrate.render_text(narr).lower()
    assert "dependency" not in full and "depend" not in full
    pow2 = step(second, "PowBackward0", 7)
    assert pow2.earlier == [] and pow2.needs[0].state == "alive" and pow2.needs[0].freed_now
    add = step(second, "AddBackward0", 5)
    assert [e[1] for e in add.earlier] == [8]
    assert [(u.name, u.after, u.delta) for u in second.updates] == [
        ("x", "tensor([85.])", "tensor([75.])"), ("y", "tensor([85.])", "tensor([75.])")]


def test_concise_dialect_seed000_same_facts_on_one_line():
    narr = explain("f = x+y; z = 2*f; y1 = z**2; y2 = z**3; backward y1; backward y2",
                   values={"x": 2, "y": 3})
    assert [n for n, _ in narr.leaves] == ["x", "y"]
    f = only(narr, "freed")
    assert (f.facts["node"], f.facts["saved"], f.facts["expression"]) == ("MulBackward0", ["other"], "z = 2*f")
    assert f.why.fixes[0].edit.after == "y1.backward(retain_graph=True)" and f.why.fixes[0].works


def test_seed003_sum_backward_twice_saves_only_sizes():
    narr = explain(SEED003)
    w = only(narr, "worked")
    assert w.facts["saves_nothing"] == [("SumBackward0", 3)]
    assert "self_sym_sizes=(4,)" in w.text
    assert narr.calls[1].updates[0].after == "tensor([2., 2., 2., 2.])"


def test_seed004_pow_saves_x_so_the_second_backward_fails():
    narr = explain(SEED004)
    f = only(narr, "freed")
    assert (f.facts["node"], f.facts["line"], f.facts["saved"], f.facts["by_line"]) == \
        ("PowBackward0", 3, ["self"], 5)
    assert "saved `self` (x)" in f.text
    assert "1 other node on the path saves nothing" in f.text
    assert f.why.fixes[0].edit.after == "y.backward(torch.ones(2, 2), retain_graph=True)"
    assert not any("detach" in x.title for x in f.why.fixes if x.shown)   # one graph twice: nothing to detach

# ----------------------------------------------------------------------------- retain_graph


def test_retain_then_plain_then_third_call():
    narr = explain("""\
        import torch
        x = torch.tensor([1., 2.], requires_grad=True)
        y = (x * x).sum()
        y.backward(retain_graph=True)
        y.backward()
        y.backward()
        """)
    first, second, third = narr.calls
    assert first.retain_graph and first.freed == []
    mul = step(first, "MulBackward0")
    assert all(n.kept for n in mul.needs)
    w = only(narr, "worked")
    assert w.facts["kept"] == [("MulBackward0", 3)] and "with retain_graph=True" in w.text
    f = only(narr, "freed")
    assert (f.facts["node"], f.facts["by_line"]) == ("MulBackward0", 5)
    assert third.updates == []

# ----------------------------------------------------------------------------- partial updates


def test_s2_failing_call_already_updated_x_because_of_sequence_numbers():
    narr = explain("""\
        import torch
        x = torch.tensor([1., 2.], requires_grad=True)
        y = torch.tensor([3., 4.], requires_grad=True)
        L = (y * y).sum() + x.sum()
        L.backward()
        L.backward()
        """)
    second = narr.calls[1]
    assert second.failed and [u.name for u in second.updates] == ["x"]
    p = only(narr, "partial")
    assert p.facts["updated"] == ["x"]
    assert (p.facts["failed"], p.facts["failed_seq"]) == ("MulBackward0", 0)
    assert p.facts["order"] == ["AddBackward0 #3", "SumBackward0 #2", "x (AccumulateGrad)", "SumBackward0 #1",
                                "MulBackward0 #0 ✗"]
    assert p.facts["via"] == {"x": [2]} and p.facts["not_updated"] == {"y": [0]}
    assert "highest sequence number" in p.text and "as soon as" in p.text
    assert "SumBackward0 #2, created after MulBackward0 #0" in p.text
    assert "y.grad did not change" in p.text
    assert set(only(narr, "freed").facts["saved"]) <= {"self", "other"}


def test_s1_created_in_the_other_order_updates_nothing():
    narr = explain("""\
        import torch
        x = torch.tensor([1., 2.], requires_grad=True)
        y = torch.tensor([3., 4.], requires_grad=True)
        L = x.sum() + (y * y).sum()
        L.backward()
        L.backward()
        """)
    assert narr.calls[1].failed and narr.calls[1].updates == []
    assert narr.findings("partial") == []


def test_s8_wrapped_scalar_fails_after_y_was_updated():
    narr = explain("""\
        import torch
        x = torch.tensor([1., 2.], requires_grad=True)
        y = torch.tensor([3., 4.], requires_grad=True)
        L = (x * 2).sum() + (y + 1).sum()
        L.backward()
        L.backward()
        """)
    p = only(narr, "partial")
    assert p.facts["updated"] == ["y"] and p.facts["not_updated"] == {"x": [0]}
    f = only(narr, "freed")
    assert (f.facts["node"], f.facts["saved"]) == ("MulBackward0", ["other"])
    assert "constant 2" in f.text

# ----------------------------------------------------------------------------- in-place


def test_inplace_on_a_saved_input_names_the_op_line_slot_and_versions():
    narr = explain("""\
        import torch
        x = torch.tensor([1., 2.], requires_grad=True)
        a = x * 1
        r = a.sin()
        a.add_(1)
        r.sum().backward()
        """)
    i = only(narr, "inplace")
    assert (i.facts["node"], i.facts["line"], i.facts["saved"], i.facts["variable"]) == ("SinBackward0", 4, ["self"], "a")
    assert (i.facts["expected_version"], i.facts["version"]) == (0, 1)
    assert (i.facts["by_line"], i.facts["by_text"]) == (5, "a.add_(1)")
    assert "`a.add_(1)` on line 5" in i.text and "version 0" in i.text and "now 1" in i.text
    assert "output 0 of Add" in i.text          # PyTorch's message names the in-place op
    assert any("`a = a.add(1)`" in f for f in i.fixes)
    assert any("`r = a.clone().sin()`" in f for f in i.fixes)
    sin = step(narr.calls[0], "SinBackward0")
    assert sin.failed and sin.needs[0].state == "modified"


def test_inplace_twice_on_a_saved_output():
    narr = explain("""\
        import torch
        x = torch.tensor([1., 2.], requires_grad=True)
        b = x.exp()
        b += 1
        b *= 2
        b.sum().backward()
        """)
    i = only(narr, "inplace")
    assert (i.facts["node"], i.facts["saved"], i.facts["line"]) == ("ExpBackward0", ["result"], 3)
    assert (i.facts["expected_version"], i.facts["version"], i.facts["by_line"]) == (0, 2, 5)
    assert "2 in-place changes" in i.text and "output 0 of Exp" in i.text
    assert any("`b = b * 2`" in f for f in i.fixes)


def test_inplace_that_does_not_touch_a_saved_tensor_is_fine():
    # Exp saves its output, Mul only the scalar
    narr = explain("""\
        import torch
        x = torch.tensor([1., 2.], requires_grad=True)
        a = x * 2
        b = a.exp()
        a += 1
        b.sum().backward()
        """)
    assert narr.error is None and narr.findings() == []

# ----------------------------------------------------------------------------- other errors


def test_reading_a_freed_saved_tensor_outside_backward():
    narr = explain("""\
        import torch
        x = torch.tensor([1., 2.], requires_grad=True)
        m = x * 2
        m.sum().backward()
        print(m.grad_fn._saved_other)
        """)
    f = narr.error_finding
    assert f is not None and f.kind == "freed"
    assert (f.facts["node"], f.facts["saved"], f.facts["by_line"]) == ("MulBackward0", ["other"], 4)


def test_no_calls_and_unrelated_errors():
    narr = explain("a = x * 2")
    assert narr.calls == [] and "nothing to explain" in narrate.render_text(narr)
    narr = explain("import torch\nprint(undefined_name)")
    assert narr.error.type == "NameError"
    assert "NameError" in narrate.render_text(narr)

# ----------------------------------------------------------------------------- views and the command


EXPECTED_RICH_SECOND_CALL = """\
backward 2 of 2: y2.backward()  (line 9) — FAILED (RuntimeError); frees the saved tensors of the
nodes it runs
  1. PowBackward0 #3  y2 · line 7: y2 = z**3
      needed self = z: alive (v0) → freed by this call
      exponent=3
  2. MulBackward0 #1  z · line 5: z = 2*f
      needed other = the constant 2, saved as a 0-d tensor: FREED by `y1.backward()` on line 8 ✗
      self: None (saved only when `other` requires grad)
      also run by `y1.backward()` (line 8)
      ✗ the call stopped here
  freed: PowBackward0 (line 7): self
  updated: no leaf
  Why it failed:
    `y2.backward()` reached MulBackward0, made by `z = 2*f` on line 5. It needs its saved `other`
    (the constant 2, saved as a 0-d tensor), which `y1.backward()` on line 8 freed (a backward
    without retain_graph=True frees the saved tensors of every node it runs). A Python number in `*`
    or `/` is saved as a tensor: that is why `z = 2*f` holds one. Through `z`, gradient flows into
    `x`, `y`.
  Fixes:
    - 1. `y1.backward(retain_graph=True)` on line 8: keeps every saved tensor of that graph alive
      until the last backward, and keeps sending gradient into `x`, `y` through `z`. (tried: runs to
      its end)
    - 2. recompute `z` and what is made from it (`y2`): run `z = 2*f`, `y2 = z**3` again before
      `y2.backward()`: a fresh graph with fresh saved tensors; the earlier backward's gradients
      stay. (tried: runs to its end)
    - Tried and not shown (the error stayed, or another came): `y1 = z.detach() ** 2` (line 6), `z =
      (2 * f).detach()` (line 5).
"""


def test_rich_view_snapshot_at_width_100_without_colour():
    narr = explain(SEED000_BLOCK1)
    console = Console(width=100, color_system=None, record=True, highlight=False, file=io.StringIO())
    console.print(narrate.render_rich(narr))
    text = "\n".join(l.rstrip() for l in console.export_text().splitlines()) + "\n"
    assert text.startswith("backward 1 of 2: y1.backward()  (line 8) — ok; frees the saved tensors")
    assert text[text.index("backward 2 of 2"):] == EXPECTED_RICH_SECOND_CALL


def test_plain_text_has_every_step():
    text = narrate.render_text(explain(SEED000_BLOCK1))
    assert "  1. PowBackward0 #2  y1 · line 6: y1 = z**2" in text
    assert "  4. x.grad: None → tensor([40.])  (added tensor([40.]))" in text
    assert "    - 1. `y1.backward(retain_graph=True)` on line 8: keeps every saved tensor" in text


def test_command_exit_statuses_and_json(tmp_path):
    runner = CliRunner()
    p1 = tmp_path / "b1.py"
    p1.write_text(SEED000_BLOCK1)
    p2 = tmp_path / "b2.py"
    p2.write_text(SEED000_BLOCK2)
    r = runner.invoke(app, ["explain", str(p1), "--plain"])
    assert r.exit_code == 1 and "Why it failed:" in r.output and "MulBackward0 #1" in r.output
    r = runner.invoke(app, ["explain", str(p2), "--plain"])
    assert r.exit_code == 0 and "Why it worked:" in r.output
    r = runner.invoke(app, ["explain", "-c", "f = x+y; z = 2*f; backward z", "--set", "x=2", "--json"])
    assert r.exit_code == 0
    data = json.loads(r.output)
    assert [s["grad_fn"] for s in data["calls"][0]["steps"]] == ["MulBackward0", "AddBackward0",
                                                                 "AccumulateGrad", "AccumulateGrad"]
    r = runner.invoke(app, ["explain", "-c", "f = = 1"])
    assert r.exit_code == 2
    r = runner.invoke(app, ["explain", "-c", "backward x", "--set", "x"])
    assert r.exit_code == 2
    r = runner.invoke(app, ["explain", str(p1)])            # Rich, default
    assert r.exit_code == 1 and "Fixes:" in r.output


def test_readme_shows_a_real_explanation():
    from pathlib import Path
    root = Path(__file__).resolve().parents[1]
    readme = (root / "README.md").read_text()
    marker = "`gradcli explain examples/seed000_block2.py --plain` ends with:\n\n```\n"
    assert marker in readme
    shown = readme.split(marker, 1)[1].split("```", 1)[0]
    source = (root / "examples" / "seed000_block2.py").read_text()
    narr, _ = narrative_of(source, "examples/seed000_block2.py")
    assert narrate.render_text(narr).endswith(shown)


# The leaves a failing second backward had already updated
LEAVES = """\
import torch
x = torch.tensor([1., 2.], requires_grad=True)
y = torch.tensor([3., 4.], requires_grad=True)
z = torch.tensor([5., 6.], requires_grad=True)
w = torch.tensor([7., 8.], requires_grad=True)
"""


@pytest.mark.parametrize("graph,updated,waiting", [
    ("L = (x*x).sum() + x.sum() + y.sum()", ["y"], ["x"]),                         # S4
    ("b1 = y.exp(); a1 = x.neg(); L = b1.sum() + a1.sum()", ["x"], ["y"]),         # S6
    ("L = (y+1).sum() + (x*2).sum()", [], None),                                   # S9
    ("L = (x*y).sum() + (z+w).sum()", ["z", "w"], ["x", "y"]),                     # S10
    ("h = (x*y).exp(); L = h.sum() + (h+z).sum()", ["z"], ["x", "y"]),             # S12
], ids=["S4", "S6", "S9", "S10", "S12"])
def test_scheduling_scenarios(graph, updated, waiting):
    narr = explain(LEAVES + graph + "\nL.backward()\nL.backward()\n")
    second = narr.calls[1]
    assert second.failed and [u.name for u in second.updates] == updated
    if not updated:
        assert narr.findings("partial") == []
        return
    p = only(narr, "partial")
    assert p.facts["updated"] == updated and sorted(p.facts["not_updated"]) == sorted(waiting)
    for leaf in updated:
        assert f"{leaf}'s gradient comes only through" in p.text


def test_autograd_grad_frees_only_its_path():
    narr = explain("""\
        import torch
        x = torch.tensor([0.5, 1.0], requires_grad=True)
        z = torch.tensor([2.0, 3.0], requires_grad=True)
        a = x.sin()
        b = z.cos()
        L = (a * 3).sum() + b.sum()
        gx, = torch.autograd.grad(L, x)
        gz, = torch.autograd.grad(L, z)
        """)
    first, second = narr.calls
    assert first.kind == "grad" and [g for g, _, _ in first.freed] == ["MulBackward0", "SinBackward0"]
    assert first.updates == []
    w = only(narr, "worked")
    assert w.facts["fresh"] == [("CosBackward0", 5, ["self"])]
    assert w.facts["saves_nothing"] == [("AddBackward0", 6)]


@pytest.mark.parametrize("source, kind, line", [
    ("f = x +* y\n", "SyntaxError", 1),
    ("import torch\nx = torch.ones(2)\n    y = x * 2\n", "IndentationError", 3),
])
def test_explain_json_is_json_when_the_script_cannot_be_parsed(tmp_path, source, kind, line):
    script = tmp_path / "bad.py"
    script.write_text(source)
    r = CliRunner().invoke(app, ["explain", str(script), "--json"])
    data = json.loads(r.stdout)
    assert r.exit_code == 2 and data["parse_failed"] is True
    assert (data["error"]["type"], data["error"]["line"]) == (kind, line)


def test_explain_json_error_is_the_same_object_as_run_json(tmp_path):
    script = tmp_path / "b1.py"
    script.write_text(SEED000_BLOCK1)
    explained = json.loads(CliRunner().invoke(app, ["explain", str(script), "--json"]).stdout)["error"]
    ran = json.loads(CliRunner().invoke(app, ["run", str(script), "--json"]).stdout)["error"]
    assert explained["type"] == ran["type"] == "RuntimeError" and explained["facts"] == ran["facts"]
    assert explained["fixes"] == ran["fixes"]
