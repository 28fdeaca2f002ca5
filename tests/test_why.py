"""The Why of every autograd error family, checked fact by fact; the fixes' order; and every
fix gradcli tried and showed, re-run under real PyTorch: the error is gone there too, and the
fixed script gives the same prints, gradients and freed buffers under both."""
from __future__ import annotations

import pathlib
import textwrap

import pytest

from gradcli.explain import explained, fixes, surprises
from gradcli.testing import oracle
from gradcli.record import origin as O
from gradcli.session.executor import run_source, run_traced
from gradcli.views import narrative as narrate
from gradcli.views import json_view

ROOT = pathlib.Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"

# Each family: a script that triggers it (an example, or a snippet), the facts its Why must state,
# and the titles of the fixes shown, in order (tried ones that worked, then untried advice).
CASES = {
    "labels computed from parameters before the loop": dict(
        example="labels_from_parameters.py",
        facts=dict(family="freed", node="MmBackward0", line=10, expression="Y = X @ true_w + true_b", variable="Y",
                   saved=["self"], by_line=18, by_text="l.backward()", loop_line=14, previous_iteration=True,
                   leaves=["true_b", "true_w"]),
        fixes=["detach where it is made", "compute it under no_grad", "recompute the forward", "keep the graph"]),
    "targets from the model itself": dict(
        example="targets_from_parameters.py",
        facts=dict(family="freed", node="MulBackward0", line=14, variable="targets", saved=["other"], by_line=20,
                   loop_line=16, previous_iteration=True, leaves=["q.bias", "q.weight"]),
        fixes=["detach where it is made", "compute it under no_grad", "recompute the forward", "keep the graph"]),
    "GAN: the discriminator's backward frees the generator": dict(
        example="gan_discriminator_frees_generator.py",
        facts=dict(family="freed", node="AddmmBackward0", line=15, variable="fake", module="G.2 (Linear)",
                   saved=["mat1", "mat2"], by_line=18, by_text="d_loss.backward()", previous_iteration=False,
                   leaves=["G.0.bias", "G.0.weight", "G.2.bias", "G.2.weight"]),
        fixes=["detach where the first backward uses it", "keep the graph", "recompute the forward",
               "detach where it is made"]),
    "RNN hidden state carried across chunks": dict(
        example="rnn_hidden_state_carried.py",
        facts=dict(family="freed", node="TanhBackward0", line=16, variable="h", module="cell (RNNCell)",
                   saved=["result"], by_line=20, loop_line=14, previous_iteration=True),
        fixes=["detach the carried state", "detach where it is made", "compute it under no_grad"]),
    "two losses on one forward": dict(
        example="seed000_block1.py",
        facts=dict(family="freed", node="MulBackward0", line=8, expression="z = 2*f", variable="z", saved=["other"],
                   by_line=11, by_text="y1.backward()", previous_iteration=False, leaves=["x", "y"]),
        fixes=["keep the graph", "recompute the forward"]),
    "custom Function's saved tensors read after backward": dict(
        example="custom_function_saved_after_backward.py",
        facts=dict(family="freed", node="SoftClipBackward", line=22, variable="y", by_line=25,
                   cause="saved_tensors_read"),
        fixes=["keep the graph", "read them before the backward"]),
    "detach() shares the version counter": dict(
        example="detach_shares_version.py",
        facts=dict(family="version", node="SigmoidBackward0", line=6, variable="out", saved=["result"], version=1,
                   expected_version=0, by_line=8, by_text="c.zero_()", cause="detach", cause_line=7),
        fixes=["copy instead of sharing", "change it out of place", "change it after backward"]),
    "in-place change of a saved input": dict(
        source="""\
            import torch
            x = torch.tensor([1., 2.], requires_grad=True)
            a = x * 1
            r = a.sin()
            a.add_(1)
            r.sum().backward()
            """,
        facts=dict(family="version", node="SinBackward0", line=4, variable="a", saved=["self"], version=1,
                   expected_version=0, by_line=5, by_text="a.add_(1)"),
        fixes=["change it out of place", "save a copy", "change it after backward"]),
    "optimizer step between forward and backward": dict(
        example="step_between_forward_and_backward.py",
        facts=dict(family="optimizer_step", node="AddmmBackward0", line=13, variable="a view of model.2.weight",
                   module="model.2 (Linear)", saved=["mat2"], version=2, expected_version=1, by_line=18,
                   by_text="opt.step()"),
        fixes=["step after the last backward", "recompute the forward after the step"]),
    "a module's in-place activation": dict(
        example="inplace_activation.py",
        facts=dict(family="inplace_activation", node="TanhBackward0", module="net.1 (Tanh)", saved=["result"],
                   version=1, expected_version=0, cause="ReLU"),
        fixes=["build the activation out of place", "clone before the activation"]),
    "in-place update of a leaf": dict(
        example="leaf_add_inplace.py",
        facts=dict(family="leaf_inplace", line=9, expression="w -= 0.1 * w.grad", variable="w", leaves=["w"]),
        fixes=["do it under no_grad"]),
    "in-place change of a leaf that is not an update": dict(
        source="""\
            import torch
            x = torch.tensor([1., 2.], requires_grad=True)
            x += 1
            (x * x).sum().backward()
            """,
        facts=dict(family="leaf_inplace", line=3, expression="x += 1", variable="x"),
        fixes=["change a copy", "do it under no_grad"]),
    "in-place on a slice of a leaf": dict(
        example="slice_of_leaf_inplace.py",
        facts=dict(family="view_of_leaf_inplace", line=7, expression="bar *= 10", variable="bar", cause="view",
                   cause_line=6, cause_text="bar = foo[2:, 2:]", leaves=["foo"]),
        fixes=["work on a copy", "do it under no_grad"]),
    "item assignment into a leaf": dict(
        source="""\
            import torch
            x = torch.tensor([1., 2.], requires_grad=True)
            x[0] = 5.
            (x * x).sum().backward()
            """,
        facts=dict(family="view_of_leaf_inplace", line=3, variable="x", cause="setitem"),
        fixes=["change a copy", "do it under no_grad"]),
    "non-scalar backward": dict(
        example="nonscalar_backward.py",
        facts=dict(family="nonscalar", node="AddBackward0", line=6, variable="y", cause="shape [3]"),
        fixes=["reduce with sum()", "reduce with mean()"]),
    "non-scalar output of autograd.grad": dict(
        source="""\
            import torch
            x = torch.tensor([1., 2.], requires_grad=True)
            y = x * 3
            print(torch.autograd.grad(y, x))
            """,
        facts=dict(family="nonscalar", line=4, variable="y", cause="shape [2]"),
        fixes=["give grad_outputs"]),
    "torch.tensor([...]) built from tensors": dict(
        example="tensor_from_tensors.py",
        facts=dict(family="no_grad_fn", line=9, variable="v", cause="tensor", cause_line=7,
                   cause_text="v = torch.tensor([p * 2, q ** 2])"),
        fixes=["keep the graph at line 7"]),
    ".item() then backward": dict(
        example="item_then_backward.py",
        facts=dict(family="no_grad_fn", line=8, variable="pred", cause="item", cause_line=6),
        fixes=["keep the graph at line 6"]),
    "backward of a graph made under no_grad": dict(
        example="no_grad_graph.py",
        facts=dict(family="no_grad_fn", line=9, variable="loss", cause="no_grad", cause_line=8),
        fixes=["keep the graph at line 8"]),
    "detach() then backward": dict(
        source="""\
            import torch
            w = torch.tensor([1., 2.], requires_grad=True)
            h = (w * 2).detach()
            loss = (h * h).sum()
            loss.backward()
            """,
        facts=dict(family="no_grad_fn", line=5, variable="h", cause="detach", cause_line=3),
        fixes=["keep the graph at line 3"]),
    "float() cast then backward": dict(
        source="""\
            import torch
            w = torch.tensor(2., requires_grad=True)
            v = float(w * 3)
            loss = torch.tensor(v) ** 2
            loss.backward()
            """,
        facts=dict(family="no_grad_fn", line=5, variable="v", cause="cast", cause_line=3),
        fixes=["keep the graph at line 3", "stay in torch"]),
    "integer cast then backward": dict(
        source="""\
            import torch
            w = torch.tensor([1.5, 2.5], requires_grad=True)
            k = (w * 2).long()
            loss = (k * 1.0).sum()
            loss.backward()
            """,
        facts=dict(family="no_grad_fn", line=5, variable="k", cause="long", cause_line=3),
        fixes=["stay in torch"]),
    "nothing requires grad": dict(
        source="""\
            import torch
            x = torch.tensor([1., 2.])
            loss = (x * x).sum()
            loss.backward()
            """,
        facts=dict(family="no_grad_fn", line=4, variable="x", cause="requires_grad", cause_line=2),
        fixes=["keep the graph at line 2"]),
    "a gradient without create_graph, differentiated again": dict(
        source="""\
            import torch
            x = torch.tensor(2., requires_grad=True)
            (g,) = torch.autograd.grad(x ** 3, x)
            g.backward()
            """,
        facts=dict(family="no_grad_fn", line=4, variable="g", cause="grad_result", cause_line=3),
        fixes=["keep the graph at line 3"]),
    "autograd.grad with an unused input": dict(
        example="grad_unused_input.py",
        facts=dict(family="grad_unused", line=7, variable="b"),
        fixes=["allow unused inputs"]),
    "autograd.grad with an input that does not require grad": dict(
        example="grad_input_no_grad.py",
        facts=dict(family="grad_input_no_grad", line=7, variable="t"),
        fixes=["create it requiring grad", "require grad after creating it"]),
    "numpy() of a tensor that requires grad": dict(
        source="""\
            import torch
            x = torch.tensor([1., 2.], requires_grad=True)
            a = (x * 2).numpy()
            print(a)
            """,
        facts=dict(family="numpy_requires_grad", line=3, variable="x * 2"),
        fixes=["detach first"]),
    "requires_grad on an integer tensor": dict(
        source="""\
            import torch
            n = torch.tensor([1, 2], requires_grad=True)
            print(n)
            """,
        facts=dict(family="integer_requires_grad", line=2, variable="n"),
        fixes=["make it floating point"]),
    "a gradient of the wrong shape": dict(
        source="""\
            import torch
            x = torch.tensor([1., 2.], requires_grad=True)
            y = x * 2
            y.backward(torch.ones(3))
            """,
        facts=dict(family="grad_shape", line=4, variable="y", cause="[3]"),
        fixes=["a gradient of the output's shape"]),
    ".grad.zero_() before any backward": dict(
        source="""\
            import torch
            w = torch.tensor([1., 2.], requires_grad=True)
            for i in range(2):
                w.grad.zero_()
                (w * w).sum().backward()
            print(w.grad)
            """,
        facts=dict(family="grad_is_none", line=4, variable="w"),
        fixes=["skip it while .grad is None"]),
}


def narrative_of(source, name, **kw):
    """Run a script as `gradcli explain` does: (its narrative, its trace)."""
    trace = run_traced(source, name, **kw)
    return narrate.build(trace), trace


def _source(case):
    if "example" in case:
        return (EXAMPLES / case["example"]).read_text(), case["example"]
    return textwrap.dedent(case["source"]), "case.py"


def _explained(case):
    source, name = _source(case)
    report = run_source(source, name)
    assert report.error is not None, "the script must fail"
    why = explained(report.error)
    assert why is not None, f"no Why for {report.error.type}: {report.error.message}"
    return source, name, report, why


@pytest.mark.parametrize("name", CASES)
def test_why_states_the_facts(name):
    case = CASES[name]
    _, _, report, why = _explained(case)
    got = {k: getattr(why, k) for k in case["facts"]}
    assert got == case["facts"]
    # the sentence is made of those facts: each named line and statement appears in it
    for key in ("expression", "by_text", "cause_text"):
        if case["facts"].get(key):
            assert case["facts"][key] in why.text + " ".join(why.notes), key
    if why.previous_iteration:
        assert f"in the previous iteration of the loop on line {why.loop_line}" in why.text
    # the report's plain words are the Why's
    assert report.error.why == why.text


@pytest.mark.parametrize("name", CASES)
def test_fixes_are_ranked_for_the_situation(name):
    case = CASES[name]
    _, _, _, why = _explained(case)
    assert [f.title for f in why.fixes if f.shown] == case["fixes"]
    for f in why.fixes:
        assert f.tried == (f.edit is not None), "every mechanical fix is tried; advice is not"
        assert f.effect, "every fix says what it changes besides removing the error"


@pytest.mark.parametrize("name", CASES)
def test_each_tried_fix_removes_the_error_under_pytorch_too(name):
    case = CASES[name]
    source, filename, report, why = _explained(case)
    tree = O.source_map(filename).tree
    tried = [f for f in why.fixes if f.tried and f.works]
    assert tried or case["fixes"] in ([], ["stay in torch"])
    for f in tried:
        text = fixes.apply(source, tree, f.edit)
        fixed = run_source(text, "fixed.py")
        assert fixed.error is None, (f.title, fixed.error.message)
        torch_facts = oracle.run_torch(text, "fixed.py")
        assert torch_facts["error"] is None, (f.title, torch_facts["error"])
        assert oracle.differences(torch_facts, oracle.gradcli_facts(fixed)) == [], f.title


def test_retain_graph_in_a_loop_comes_last_and_says_what_it_also_changes():
    _, _, _, why = _explained(CASES["labels computed from parameters before the loop"])
    retain = why.fixes[-1]
    assert retain.edit.after == "l.backward(retain_graph=True)" and retain.works
    assert "keeps sending gradient into `true_b`, `true_w` through `Y` on every iteration" in retain.effect
    # and the run shows it: the labels' weights get gradient only with retain_graph
    assert retain.grads["true_w"] is not None and why.fixes[0].grads["true_w"] is None
    assert "true_w" in retain.differs


def test_a_fix_that_leads_to_another_error_is_not_offered():
    _, _, _, why = _explained(CASES["two losses on one forward"])
    rejected = [f for f in why.fixes if f.tried and not f.works]
    assert [f.title for f in rejected] == ["detach where the first backward uses it", "detach where it is made"]
    assert all("element 0 of tensors does not require grad" in f.outcome for f in rejected)
    assert "(untried)" not in (why and __import__("gradcli.explain.why").explain.why.fix_text(why.fixes))


def test_nodes_that_save_nothing_are_summarised_once():
    _, _, _, why = _explained(CASES["RNN hidden state carried across chunks"])
    assert sum("save nothing" in n or "saves nothing" in n for n in why.notes) == 1
    assert "17 other nodes on the path save nothing" in " ".join(why.notes)


def test_edit_keeps_comments_and_layout_of_a_python_script():
    source, filename, _, why = _explained(CASES["labels computed from parameters before the loop"])
    text = fixes.apply(source, O.source_map(filename).tree, why.fixes[0].edit)
    before, after = source.splitlines(), text.splitlines()
    changed = [i for i, (a, b) in enumerate(zip(before, after)) if a != b]
    assert len(before) == len(after) and changed == [9]
    assert after[9] == "Y = (X @ true_w + true_b).detach()"


def test_a_concise_script_is_fixed_through_its_python_tree():
    report = run_source("f = x+y; z = 2*f; y1 = z**2; y2 = z**3; backward y1; backward y2", "c.grad")
    why = explained(report.error)
    first = why.fixes[0]
    assert (first.title, first.edit.after, first.works) == ("keep the graph", "y1.backward(retain_graph=True)", True)
    text = fixes.apply(report.source, O.source_map("c.grad").tree, first.edit)
    assert run_source(text, "fixed.py").error is None


def test_a_caught_error_is_explained_by_the_narrative_too():
    narr, _ = narrative_of(textwrap.dedent("""\
        import torch
        x = torch.tensor([1., 2.], requires_grad=True)
        y = x * 2
        try:
            y.backward()
        except RuntimeError:
            pass
        """), "caught.py")
    (finding,) = narr.findings("error")
    assert finding.why.family == "nonscalar" and finding.why.variable == "y"
    assert all(f.tried for f in finding.why.fixes if f.edit is not None), "a caught error's fixes are tried too"


def test_json_md_describes_the_facts_and_fixes_keys():
    import re
    doc = (ROOT / "docs" / "json.md").read_text(encoding="utf-8")
    documented = set(re.findall(r"`([a-z_]+)`", doc))
    _, _, report, _ = _explained(CASES["labels computed from parameters before the loop"])
    err = json_view.error_json(report.error)
    keys = set(err["facts"]) | {k for f in err["fixes"] for k in f} | {k for f in err["fixes"] for c in f["edit"] or []
                                                                       for k in c}
    assert keys - documented == set()
    assert set(err["facts"]["family"] for _ in [0]) <= documented

# ----------------------------------------------------------------------------- silent surprises

SURPRISES = {
    "non-leaf .grad read": dict(
        source="""\
            import torch
            x = torch.tensor([1., 2.], requires_grad=True)
            z = x * 3
            loss = (z * z).sum()
            loss.backward()
            print(z.grad)
            """,
        facts=dict(family="nonleaf_grad", node="MulBackward0", line=3, expression="z = x * 3", variable="z",
                   by_line=6, by_text="print(z.grad)"),
        fixes=["keep the gradient of the non-leaf"]),
    "gradients accumulating across steps": dict(
        example="forgot_zero_grad.py",
        facts=dict(family="accumulated", line=14, expression="loss.backward()", variable="model.bias",
                   leaves=["model.bias", "model.weight"], loop_line=12, by_line=17, by_text="opt.step()"),
        fixes=["zero the gradients each iteration"]),
    "a manual update without zeroing": dict(
        source="""\
            import torch
            w = torch.tensor([1., -1.], requires_grad=True)
            x = torch.tensor([0.5, 2.0])
            for step in range(3):
                loss = ((w * x).sum() - 1.0) ** 2
                loss.backward()
                with torch.no_grad():
                    w -= 0.1 * w.grad
            print(w)
            """,
        facts=dict(family="accumulated", line=6, variable="w", leaves=["w"], loop_line=4, by_line=8),
        fixes=["zero the gradients each iteration"]),
    "two leaves' .grad sharing memory after stack": dict(
        source="""\
            import torch
            a = torch.tensor([1., 2.], requires_grad=True)
            b = torch.tensor([3., 4.], requires_grad=True)
            torch.stack([a, b]).sum(0).exp().sum().backward()
            print(a.grad, b.grad)
            (b * 1).sum().backward()
            print(a.grad, b.grad)
            """,
        facts=dict(family="shared_grad", line=4, variable="a", leaves=["a", "b"], by_line=6,
                   by_text="(b * 1).sum().backward()"),
        fixes=["give it its own memory"]),
    "an in-place change through .data": dict(
        source="""\
            import torch
            x = torch.tensor([1., 2.], requires_grad=True)
            y = (x * x).sum()
            x.data.mul_(2)
            y.backward()
            print(x.grad)
            """,
        facts=dict(family="data_inplace", node="MulBackward0", line=3, variable="x", by_line=4,
                   by_text="x.data.mul_(2)"),
        fixes=["change it where autograd sees it"]),
}


def _surprise(case):
    source, name = _source(case)
    report = run_source(source, name)
    assert report.error is None
    (why,) = surprises(report)
    return source, name, report, why


@pytest.mark.parametrize("name", SURPRISES)
def test_surprise_states_the_facts_and_ranks_its_fixes(name):
    case = SURPRISES[name]
    _, _, _, why = _surprise(case)
    assert {k: getattr(why, k) for k in case["facts"]} == case["facts"]
    assert [f.title for f in why.fixes if f.shown] == case["fixes"]


@pytest.mark.parametrize("name", [n for n in SURPRISES if n != "an in-place change through .data"])
def test_a_tried_surprise_fix_removes_it_and_pytorch_agrees(name):
    source, filename, _, why = _surprise(SURPRISES[name])
    (fix,) = [f for f in why.fixes if f.tried]
    assert fix.works
    text = fixes.apply(source, O.source_map(filename).tree, fix.edit)
    fixed = run_source(text, "fixed.py")
    assert fixed.error is None and surprises(fixed) == []
    torch_facts = oracle.run_torch(text, "fixed.py")
    assert torch_facts["error"] is None
    assert oracle.differences(torch_facts, oracle.gradcli_facts(fixed)) == []


def test_accumulating_micro_batches_on_purpose_is_not_a_surprise():
    report = run_source((EXAMPLES / "accumulation_micro_batches.py").read_text(), "accumulation_micro_batches.py")
    assert report.error is None and surprises(report) == []

# ----------------------------------------------------------------------------- the same facts everywhere


def _cli(*args, cwd):
    import subprocess
    import sys
    return subprocess.run([sys.executable, "-m", "gradcli", *args], capture_output=True, text=True, cwd=cwd,
                          timeout=240, env={**__import__("os").environ, "COLUMNS": "200", "NO_COLOR": "1"})


def test_explain_fix_writes_the_fixed_script_and_oracle_confirms_it(tmp_path):
    script = tmp_path / "labels.py"
    script.write_text((EXAMPLES / "labels_from_parameters.py").read_text())
    r = _cli("explain", "labels.py", "--fix", "1", "-o", "fixed.py", "--oracle", "torch", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert "wrote fixed.py (fix 1)" in r.stderr
    fixed = (tmp_path / "fixed.py").read_text()
    assert "Y = (X @ true_w + true_b).detach()" in fixed and fixed.count("\n") == script.read_text().count("\n")
    assert oracle.run_torch(fixed, "fixed.py")["error"] is None
    r = _cli("explain", "labels.py", "--plain", "--oracle", "torch", cwd=tmp_path)
    assert r.returncode == 1 and " ".join(r.stdout.split()).count("PyTorch agrees: runs to its end") == 4


def test_explain_fix_refuses_what_it_cannot_do(tmp_path):
    (tmp_path / "n.py").write_text((EXAMPLES / "nonscalar_backward.py").read_text())
    r = _cli("explain", "n.py", "--fix", "3", cwd=tmp_path)
    assert r.returncode == 2 and "there are 2 tried fixes that worked" in r.stderr
    r = _cli("explain", "n.py", "-o", "x.py", cwd=tmp_path)
    assert r.returncode == 2 and "-o PATH needs --fix N" in r.stderr
    r = _cli("explain", "n.py", "--fix", "2", cwd=tmp_path)
    assert r.returncode == 0 and "y.mean().backward()" in r.stdout and not (tmp_path / "x.py").exists()


def test_panel_json_and_test_output_carry_the_same_why_and_fixes(tmp_path):
    import json
    (tmp_path / "t.py").write_text((EXAMPLES / "tensor_from_tensors.py").read_text())
    source, name, report, why = _explained(dict(example="tensor_from_tensors.py"))
    panel = _cli("run", "t.py", cwd=tmp_path).stdout
    squashed = " ".join(panel.replace("│", " ").split())
    assert "Why: " + " ".join(why.text.split()) in squashed
    assert "Fix: (most likely meant first" in squashed and "1. `v = torch.stack([p * 2, q ** 2])` on line 7" in squashed
    err = json.loads(_cli("run", "t.py", "--json", cwd=tmp_path).stdout)["error"]
    assert err["why"] == why.text and err["facts"]["cause"] == "tensor" and err["facts"]["cause_line"] == 7
    (fix,) = err["fixes"]
    assert (fix["tried"], fix["outcome"]) == (True, "runs to its end")
    assert fix["edit"] == [{"line": 7, "end_line": 7, "col": 0, "before": "v = torch.tensor([p * 2, q ** 2])",
                            "after": "v = torch.stack([p * 2, q ** 2])"}]
    out = _cli("test", "t.py", cwd=tmp_path).stdout
    assert "Why: " + why.text in out and "Fix 1. `v = torch.stack([p * 2, q ** 2])` on line 7" in out


def test_a_loops_repeated_nodes_are_folded():
    narr, _ = narrative_of((EXAMPLES / "rnn_hidden_state_carried.py").read_text(), "rnn.py")
    text = narrate.render_text(narr, width=None)
    assert "5 × AddBackward0 #28, #22, #16, #10, #4  line 16: h = cell(x.unsqueeze(0), h)" in text
    panel = _cli("run", str(EXAMPLES / "rnn_hidden_state_carried.py"), cwd=ROOT).stdout
    assert ("4 × (AddBackward0 (cell (RNNCell), line 16) → AddmmBackward0 (cell (RNNCell), line 16)"
            in " ".join(panel.replace("│", " ").split()))


def test_every_family_has_a_case_here():
    from gradcli.explain.why import FAMILIES
    covered = {c["facts"]["family"] for c in CASES.values()} | {c["facts"]["family"] for c in SURPRISES.values()}
    assert covered == set(FAMILIES)


def test_a_node_made_in_a_method_is_named_by_its_function_and_the_line_that_called_it():
    source = textwrap.dedent("""\
        import torch
        class Net(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.fc = torch.nn.Linear(2, 2)
            def forward(self, x):
                h = torch.tanh(self.fc(x))
                return h.sum()
        net = Net()
        loss = net(torch.ones(1, 2))
        loss.backward()
        loss.backward()
        """)
    why = explained(run_source(source, "net.py").error)
    assert (why.node, why.line, why.function, why.called_from) == ("TanhBackward0", 7, "Net.forward", 10)
    assert "on line 7 of `Net.forward`, called from line 10" in why.text
    top = explained(run_source("import torch\nx = torch.ones(2, requires_grad=True)\ny = (x * 2).sum()\n"
                               "y.backward()\ny.backward()\n", "top.py").error)
    assert (top.function, top.called_from) == (None, None) and "called from" not in top.text


# A freed buffer in the node below the one the second backward starts from: the script catches the
# error and prints it, as a forum answer does.
CAUGHT_TWICE = """\
import torch
x = torch.ones(2, 2, requires_grad=True)
v = x.pow(3)
y = v + 2
y.backward(torch.ones(2, 2))
try:
    y.backward(torch.ones(2, 2))
except RuntimeError as err:
    print(err)
print(x.grad)
"""


def _caught_why(source, name):
    narr, _ = narrative_of(source, name)
    (finding,) = [f for f in narr.findings() if f.why is not None]
    return finding.why


def test_a_caught_errors_fixes_are_tried_and_only_those_pytorch_accepts_are_shown():
    why = _caught_why(CAUGHT_TWICE, "caught_twice.py")
    shown = [f for f in why.fixes if f.shown]
    assert [f.title for f in shown] == ["keep the graph", "recompute the forward"]
    assert all(f.tried and f.works for f in shown)
    # detaching `y` makes the second backward fail another way: tried, and not shown
    (rejected,) = [f for f in why.fixes if not f.shown]
    assert rejected.title == "detach where it is made" and "does not require grad" in rejected.outcome
    tree = O.source_map("caught_twice.py").tree
    for f in shown:
        text = fixes.apply(CAUGHT_TWICE, tree, f.edit)
        torch_facts = oracle.run_torch(text, "fixed.py")
        assert torch_facts["error"] is None and "Trying to backward" not in torch_facts["stdout"], f.title
        assert oracle.differences(torch_facts, oracle.gradcli_facts(run_source(text, "fixed.py"))) == [], f.title


def test_recompute_names_the_tensor_whose_buffer_was_freed_and_all_made_from_it():
    why = explained(run_source(CAUGHT_TWICE.replace("try:\n    ", "").split("except")[0], "twice.py").error)
    (recompute,) = [f for f in why.fixes if f.title == "recompute the forward"]
    assert recompute.advice.startswith("recompute `v` and what is made from it (`y`): run `v = x.pow(3)`, "
                                       "`y = v + 2` again before")
    assert recompute.works and "random" not in recompute.effect


def test_recompute_says_random_draws_differ_only_when_the_statements_draw_random_numbers():
    source = ("import torch\nx = torch.ones(3, requires_grad=True)\n"
              "y = (x * torch.rand(3)).pow(2).sum()\ny.backward()\ny.backward()\n")
    why = explained(run_source(source, "draws.py").error)
    (recompute,) = [f for f in why.fixes if f.title == "recompute the forward"]
    assert recompute.works and "random numbers drawn again differ" in recompute.effect


def test_a_state_carried_from_an_earlier_iteration_is_not_offered_as_recomputable():
    _, _, _, why = _explained(CASES["RNN hidden state carried across chunks"])
    assert not any(f.title == "recompute the forward" for f in why.fixes)
    assert all(f.tried for f in why.fixes if f.shown)


def test_a_mechanical_fix_that_cannot_be_tried_is_not_offered():
    # a REPL entry has no script to copy: its fixes cannot be tried, so none is shown as untried
    from rich.console import Console
    from gradcli.repl.session import Session
    import io
    out = io.StringIO()
    s = Session(out=out, console=Console(file=out, width=200, highlight=False))
    s.start(background=False)
    for entry in ("import torch", "x = torch.ones(2, requires_grad=True)", "y = (x * x).sum()",
                  "y.backward()", "y.backward()"):
        s.execute(entry)
    assert "Trying to backward through the graph a second time" in out.getvalue()
    assert "untried: `y.backward(retain_graph=True)`" not in out.getvalue()
    assert "detach()" not in out.getvalue()


def test_gradients_no_step_reads_are_not_said_to_be_stepped_with():
    # `true_b` is in no optimizer: its .grad adding up changes nothing a step does
    report = run_source((EXAMPLES / "labels_from_parameters.py").read_text(), "labels_from_parameters.py")
    assert not any(w.family == "accumulated" for w in surprises(report))
    # one leaf the optimizer holds and one it does not: the note names only the held one
    source = textwrap.dedent("""\
        import torch
        w = torch.tensor([1., -1.], requires_grad=True)
        scale = torch.tensor(2., requires_grad=True)
        opt = torch.optim.SGD([w], lr=0.1)
        for step in range(3):
            loss = (w * scale).pow(2).sum()
            loss.backward()
            opt.step()
        """)
    (why,) = surprises(run_source(source, "held.py"))
    assert why.leaves == ["w"] and "`w.grad` summed" in why.text and "scale" not in why.text
