"""Graph views: the snapshot's facts, DOT checked by the real Graphviz `dot`, Mermaid parsed
for node and edge counts, the Rich tree snapshot-tested at a fixed width without colour,
condensing of big graphs, and the `gradcli graph` command."""
from __future__ import annotations

import io
import re
import shlex
import shutil
import subprocess
import textwrap
from pathlib import Path

import pytest
from rich.console import Console
from typer.testing import CliRunner

from gradcli.record import graph as graph_snapshot
from gradcli.views import graph as graphview
from gradcli.session.atomic import write_atomic
from gradcli.cli.app import app
from gradcli.torch import Tensor
from gradcli.record.report import GraphShown
from gradcli.session.executor import run_source, run_traced

REPO = Path(__file__).resolve().parents[1]
DOT = shutil.which("dot")


@pytest.fixture
def dot_program():
    # .ci/run installs Graphviz; without it these tests must fail, not skip.
    assert DOT is not None, "Graphviz `dot` is not installed (apt-get install graphviz)"
    return DOT


needs_dot = pytest.mark.usefixtures("dot_program")

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

BIG = """\
import torch
x = torch.tensor([1.0, 2.0], requires_grad=True)
w = torch.tensor([0.5, 0.5], requires_grad=True)
h = x
for i in range(300):
    h = (h * w).tanh()
L = h.sum()
acc = x.sum()
for i in range(200):
    acc = acc + x[0] * i
M = acc + L
"""


def snap_of(source, at=None, var=None, **kw):
    trace = run_traced(textwrap.dedent(source), "t.py", upto=at, **kw)
    tensors = {k: v for k, v in trace.interp.globals.items() if type(v) is Tensor}
    roots = {v: tensors[v] for v in var} if var else graph_snapshot.default_roots(tensors)
    by_tensor, by_node = trace.names()
    return graph_snapshot.snapshot(roots, by_node, by_tensor, line=at)


def by_label(snap, label, line=None):
    hits = [n for n in snap.nodes.values() if n.label == label and (line is None or n.line == line)]
    assert len(hits) == 1, (label, line, [(n.label, n.line) for n in snap.nodes.values()])
    return hits[0]


def slot(node, name):
    return next(s for s in node.saved if s.slot == name)


def dot_plain(dot_text):
    """Lay out with the real `dot`; return its nodes {name: (label, style, fillcolor)} and edges."""
    done = subprocess.run([DOT, "-Tplain"], input=dot_text, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert "Warning" not in done.stderr and "Error" not in done.stderr, done.stderr
    nodes, edges = {}, []
    for line in done.stdout.replace("\\\n", "").splitlines():        # dot wraps long lines with "\"
        parts = shlex.split(line)
        if parts[0] == "node":
            nodes[parts[1]] = (parts[6], parts[7], parts[-1])
        elif parts[0] == "edge":
            edges.append((parts[1], parts[2], parts[-2]))
    return nodes, edges

# ----------------------------------------------------------------------------- the snapshot's facts


def test_snapshot_at_line_8_shows_what_the_first_backward_freed():
    snap = snap_of(SEED000_BLOCK1, at=8)
    assert [snap.nodes[o].label for o in snap.outputs] == ["y1", "y2"]
    mul = by_label(snap, "MulBackward0")
    assert (mul.name, mul.line, mul.text, mul.seq) == ("z", 5, "z = 2*f", 1)
    other = slot(mul, "other")
    assert (other.state, other.kind, other.constant, other.freed_by_line) == ("freed", "constant", 2, 8)
    assert slot(mul, "self").state == "none" and "requires grad" in slot(mul, "self").reason
    pow1 = by_label(snap, "PowBackward0", 6)
    assert (slot(pow1, "self").state, slot(pow1, "self").name) == ("freed", "z")
    pow2 = by_label(snap, "PowBackward0", 7)
    assert (slot(pow2, "self").state, slot(pow2, "self").saved_version) == ("alive", 0)
    assert pow2.attrs == {"exponent": "3"}
    add = by_label(snap, "AddBackward0")
    assert add.tensor_slots() == [] and add.attrs == {"alpha": "1"}
    x = by_label(snap, "x")
    assert (x.kind, x.grad, x.value) == ("leaf", "tensor([40.])", "tensor([2.])")


def test_snapshot_at_the_end_and_before_any_backward():
    end = snap_of(SEED000_BLOCK1)
    assert slot(by_label(end, "PowBackward0", 7), "self").freed_by_line == 9
    before = snap_of(SEED000_BLOCK1, at=7)
    assert all(s.state != "freed" for n in before.nodes.values() for s in n.saved)
    assert by_label(before, "x").grad is None


def test_graph_statement_takes_a_frozen_snapshot():
    report = run_source("a = x*2\ngraph a\nbackward a\ngraph a\n", "t.grad")
    snaps = [i.snapshot for i in report.items if isinstance(i, GraphShown)]
    assert len(snaps) == 2
    assert slot(by_label(snaps[0], "MulBackward0"), "other").state == "alive"
    assert slot(by_label(snaps[1], "MulBackward0"), "other").state == "freed"
    assert by_label(snaps[0], "x").grad is None and by_label(snaps[1], "x").grad == "tensor(2.)"


def test_modified_saved_tensor_is_marked_with_versions():
    snap = snap_of("""\
        import torch
        x = torch.tensor([1., 2.], requires_grad=True)
        a = x * 1
        r = a.sin()
        a.add_(1)
        """, var=["r"])
    s = slot(by_label(snap, "SinBackward0"), "self")
    assert s.modified and (s.saved_version, s.version, s.changed_line) == (0, 1, 5)
    assert "modified: v1, saved at v0 (line 5)" in graphview.saved_line(s)
    assert 'color="red"' in graphview.to_dot(snap)

# ----------------------------------------------------------------------------- DOT and Mermaid


@needs_dot
def test_dot_is_valid_and_uses_torchviz_colours():
    snap = snap_of(SEED000_BLOCK1, at=8)
    nodes, edges = dot_plain(graphview.to_dot(snap))
    # 2 outputs + 4 ops + 2 leaves + 3 saved tensors (Pow.self twice, Mul.other)
    assert len(nodes) == 11
    assert nodes["leaf1"][2] == "lightblue" and nodes["leaf1"][0].startswith("x\\n")
    assert nodes["out1"][2] == "darkolivegreen1" and nodes["out2"][2] == "darkolivegreen1"
    assert nodes["n3_self"][2] == "orange"                        # y2's saved z: alive
    assert nodes["n2_self"][2] == "white" and "dashed" in nodes["n2_self"][1]    # freed by line 8
    assert "freed by line 8" in nodes["n1_other"][0]
    assert nodes["n1"][2] == "lightgrey" and "line 5: z = 2*f" in nodes["n1"][0]
    # graph edges point input -> output (torchviz); saved tensors hang off by a dashed edge
    assert ("n0", "n1", "solid") in edges and ("n1", "n3", "solid") in edges and ("n2", "out1", "solid") in edges
    assert ("n1_other", "n1", "dashed") in edges
    assert len(edges) == len(snap.edges) + 3


@needs_dot
def test_dot_with_legend_and_quotes_in_labels():
    snap = snap_of('import torch\nx = torch.tensor([1.], requires_grad=True)\ny = x * len("a\\\\\\"b")\n')
    assert by_label(snap, "MulBackward0").text == 'y = x * len("a\\\\\\"b")'
    nodes, _ = dot_plain(graphview.to_dot(snap, legend=True))
    assert {"legend_leaf", "legend_saved", "legend_freed", "legend_out"} <= set(nodes)
    assert 'y = x * len("a\\\\\\"b")' in nodes["n0"][0]


MERMAID_NODE = re.compile(r'^\s+(\w+)\["(.*)"\]:::(\w+)$')
MERMAID_EDGE = re.compile(r"^\s+(\w+) (-->|-\.-) (\w+)$")


def parse_mermaid(text):
    lines = text.splitlines()
    assert lines[0] == "flowchart TD"
    nodes, edges = {}, []
    for line in lines[1:]:
        if line.strip().startswith("classDef"):
            continue
        m = MERMAID_NODE.match(line)
        if m:
            nodes[m.group(1)] = (m.group(2), m.group(3))
            continue
        m = MERMAID_EDGE.match(line)
        assert m, f"unparsed Mermaid line: {line!r}"
        assert m.group(1) in nodes and m.group(3) in nodes, line
        edges.append((m.group(1), m.group(2), m.group(3)))
    return nodes, edges


def test_mermaid_node_and_edge_counts():
    snap = snap_of(SEED000_BLOCK1, at=8)
    nodes, edges = parse_mermaid(graphview.to_mermaid(snap))
    assert len(nodes) == 11 and len(edges) == len(snap.edges) + 3 == 10
    assert nodes["leaf1"][1] == "leaf" and nodes["out1"][1] == "output"
    assert nodes["n1_other"][1] == "freed" and nodes["n3_self"][1] == "saved"
    assert ("n1_other", "-.-", "n1") in edges and ("n0", "-->", "n1") in edges
    assert "line 5: z = 2*f" in nodes["n1"][0] and '"' not in nodes["n1"][0]


def test_mermaid_escapes_markup():
    snap = snap_of('import torch\nx = torch.tensor([1.], requires_grad=True)\ny = x * 2 if 1 < 2 else x\n')
    text = graphview.to_mermaid(snap)
    nodes, _ = parse_mermaid(text)
    assert "#lt;" in nodes["n0"][0] and "<" not in nodes["n0"][0].replace("<br/>", "")

# ----------------------------------------------------------------------------- the Rich tree


EXPECTED_TREE = """\
graph of y2  tensor([1000.])  (at line 8)
└── PowBackward0 #3  y2 · line 7: y2 = z**3
    saved self = z: alive v0
    exponent=3
    └── MulBackward0 #1  z · line 5: z = 2*f
        saved other = constant 2: freed by line 8
        saved self: None (saved only when `other` requires grad)
        └── AddBackward0 #0  f · line 4: f = x+y
            saves no tensors (only alpha=1)
            ├── x (leaf)  tensor([2.])  grad tensor([40.])
            └── y (leaf)  tensor([3.])  grad tensor([40.])
"""


def render(renderable, width=100):
    console = Console(width=width, color_system=None, record=True, highlight=False, file=io.StringIO())
    console.print(renderable)
    return "\n".join(l.rstrip() for l in console.export_text().splitlines()) + "\n"


def test_tree_snapshot_at_width_100_without_colour():
    snap = snap_of(SEED000_BLOCK1, at=8, var=["y2"])
    assert render(graphview.tree(snap)) == EXPECTED_TREE


def test_tree_marks_shared_nodes_once():
    snap = snap_of("import torch\nx = torch.tensor([1.], requires_grad=True)\ny = x * x\n")
    text = render(graphview.tree(snap))
    assert text.count("x (leaf)") == 1 and "x  (shown above)" in text
    assert "saved other = x: alive v0" in text and "saved self = x: alive v0" in text

# ----------------------------------------------------------------------------- big graphs


def test_condense_collapses_loops_into_chains():
    snap = snap_of(BIG)
    assert len(snap.nodes) > 1200
    small = graphview.condense(snap)
    chains = sorted((n.count, n.label, n.line) for n in small.nodes.values() if n.kind == "chain")
    assert chains == [(198, "198 × AddBackward0", 10), (596, "298 × TanhBackward0 + 298 × MulBackward0", 6)]
    assert len(small.nodes) < 30 and small.hidden > 1150
    side = next(n for n in small.nodes.values() if n.kind == "chain" and n.line == 10)
    assert side.hidden == 396                # the x[0]*i branches of the hidden additions
    assert next(n for n in small.nodes.values() if n.kind == "chain" and n.line == 6).summary == {"alive": 894}
    # the first and last nodes of each run stay, with their real facts
    assert by_label(small, "AddBackward0", 11).name == "M"
    assert {n.seq for n in small.nodes.values() if n.label == "TanhBackward0"} == {599, 1}
    text = render(graphview.tree(snap))
    assert "… 596 more nodes: 298 × TanhBackward0 + 298 × MulBackward0" in text
    assert len(text.splitlines()) < 60


@needs_dot
def test_condensed_big_graph_is_valid_dot():
    small = graphview.condense(snap_of(BIG))
    nodes, edges = dot_plain(graphview.to_dot(small))
    assert len(nodes) < 50
    assert any("596 more nodes" in label for label, _, _ in nodes.values())


def test_depth_limit_and_wide_fan_in():
    lines = ["import torch", "h = torch.tensor([0.5], requires_grad=True)"]
    ops = ["sin", "cos", "exp", "tanh", "sigmoid"]
    for i in range(30):                                   # 30 different lines: nothing to collapse
        lines.append(f"h = h.{ops[i % 5]}()")
    snap = snap_of("\n".join(lines) + "\n")
    deep = graphview.condense(snap, max_depth=10)
    more = [n for n in deep.nodes.values() if n.kind == "more"]
    assert len(more) == 1 and more[0].count == 21 and "depth limit 10" in more[0].label
    assert sum(1 for n in deep.nodes.values() if n.kind == "op") == 10
    wide = snap_of("import torch\n" + "".join(f"a{i} = torch.tensor([{i}.], requires_grad=True)\n" for i in range(20))
                   + "c = torch.cat([" + ", ".join(f"a{i}" for i in range(20)) + "])\n", var=["c"])
    w = graphview.condense(wide)
    more = [n for n in w.nodes.values() if n.kind == "more"]
    assert len(more) == 1 and more[0].count == 9
    assert sum(1 for n in w.nodes.values() if n.kind == "leaf") == 11
    assert parse_mermaid(graphview.to_mermaid(w))[0]["more_n0"][0] == "… 9 more inputs"

# ----------------------------------------------------------------------------- rendering and the command


@needs_dot
def test_render_svg_and_png_atomically(tmp_path):
    snap = snap_of(SEED000_BLOCK1)
    svg = graphview.render(snap, "svg")
    assert b"<svg" in svg and b"MulBackward0 #1" in svg
    target = tmp_path / "g.png"
    write_atomic(str(target), graphview.render(snap, "png"))
    assert target.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["g.png"]        # no temporary file left


def test_missing_graphviz_says_which_package(monkeypatch, tmp_path):
    monkeypatch.setattr(graphview.shutil, "which", lambda name: None)
    with pytest.raises(graphview.GraphvizMissing, match="graphviz"):
        graphview.render(snap_of(SEED000_BLOCK1), "svg")
    p = tmp_path / "s.py"
    p.write_text(SEED000_BLOCK1)
    r = CliRunner().invoke(app, ["graph", str(p), "--format", "svg", "-o", str(tmp_path / "g.svg")])
    assert r.exit_code == 2 and "apt-get install graphviz" in r.output
    assert not (tmp_path / "g.svg").exists()


def test_command_formats_and_statuses(tmp_path):
    runner = CliRunner()
    p = tmp_path / "s.py"
    p.write_text(SEED000_BLOCK1)
    r = runner.invoke(app, ["graph", str(p), "--at", "8", "--var", "y2"])
    assert r.exit_code == 0 and "saved self = z: alive v0" in r.output
    r = runner.invoke(app, ["graph", str(p)])                     # the script raises at line 9: still drawn
    assert r.exit_code == 0 and "freed by line 9" in r.output and "stopped at line 9" in r.output
    r = runner.invoke(app, ["graph", str(p), "--format", "mermaid", "--at", "8"])
    assert r.exit_code == 0 and len(parse_mermaid(r.stdout)[0]) == 11
    out = tmp_path / "g.dot"
    r = runner.invoke(app, ["graph", str(p), "-f", "dot", "-o", str(out), "--at", "8"])
    assert r.exit_code == 0 and out.read_text().startswith("digraph gradcli {")
    r = runner.invoke(app, ["graph", str(p), "--var", "nope", "--at", "8"])
    assert r.exit_code == 2 and "no tensor named nope" in r.output
    r = runner.invoke(app, ["graph", str(p), "-f", "gif"])
    assert r.exit_code == 2
    r = runner.invoke(app, ["graph", str(p), "-f", "png"])
    assert r.exit_code == 2 and "-o" in r.output
    r = runner.invoke(app, ["graph", "-c", "f = x+y; z = 2*f", "--set", "x=2"])
    assert r.exit_code == 0 and "graph of z" in r.output
    r = runner.invoke(app, ["graph", "-c", "f = = 1"])
    assert r.exit_code == 2


@needs_dot
def test_docs_picture_is_made_by_gradcli():
    svg = (REPO / "docs" / "seed000_block1.svg").read_text()
    assert "<svg" in svg and "gradcli" in svg
    for fact in ("MulBackward0 #1", "z · line 8: z = 2*f", "other = constant 2", "freed by line 11", "leaf requiring grad"):
        assert fact.replace("&", "&amp;") in svg.replace("&#160;", " "), fact
