"""Graph pictures know nn.Modules: the nodes made in a module's forward, and its parameters, sit
in a cluster per module (DOT `subgraph cluster_<path>`, Mermaid `subgraph`), labelled like
`fc1 (Linear)` and nested as the modules are; parameters are named by named_parameters()."""
from __future__ import annotations

import re
import shutil
import subprocess
import textwrap

import pytest

from gradcli.record import graph as graph_snapshot
from gradcli.views import graph as graphview
from gradcli.session.executor import run_traced
from gradcli.torch import Tensor

pytestmark = pytest.mark.timeout(120)

SCRIPT = """\
import torch
import torch.nn as nn

class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(3, 4)
        self.act = nn.Tanh()

    def forward(self, x):
        return self.act(self.fc1(x)) * 2

class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.block = Block()
        self.head = nn.Sequential(nn.Linear(4, 2), nn.Sigmoid())

    def forward(self, x):
        return self.head(self.block(x))

torch.manual_seed(0)
net = Net()
x = torch.ones(2, 3)
loss = net(x).sum() + 1
"""


def _snapshot(source=SCRIPT):
    trace = run_traced(textwrap.dedent(source), "t.py")
    tensors = {k: v for k, v in trace.interp.globals.items() if isinstance(v, Tensor)}
    by_tensor, by_node = trace.names()
    return graph_snapshot.snapshot(graph_snapshot.default_roots(tensors), by_node, by_tensor,
                              modules=trace.interp.modules()), trace


def _dot_clusters(text):
    """{cluster id: (label, parent cluster id or None, [node ids directly inside])} from DOT text."""
    clusters, stack = {}, [None]
    for line in text.splitlines():
        s = line.strip()
        m = re.match(r"subgraph (cluster_\w+) \{$", s)
        if m:
            clusters[m.group(1)] = [None, stack[-1], []]
            stack.append(m.group(1))
        elif s == "}" and len(stack) > 1:
            stack.pop()
        elif s.startswith("label=") and stack[-1] is not None:
            clusters[stack[-1]][0] = re.match(r'label="([^"]*)"', s).group(1)
        else:
            m = re.match(r"(\w+) \[label=", s)
            if m and stack[-1] is not None:
                clusters[stack[-1]][2].append(m.group(1))
    return {k: tuple(v) for k, v in clusters.items()}


def _mermaid_clusters(text):
    clusters, stack = {}, [None]
    for line in text.splitlines():
        s = line.strip()
        m = re.match(r'subgraph (cluster_\w+) \["([^"]*)"\]$', s)
        if m:
            clusters[m.group(1)] = [m.group(2), stack[-1], []]
            stack.append(m.group(1))
        elif s == "end":
            stack.pop()
        else:
            m = re.match(r"(\w+)\[", s)
            if m and stack[-1] is not None:
                clusters[stack[-1]][2].append(m.group(1))
    assert stack == [None]
    return {k: tuple(v) for k, v in clusters.items()}


def _labels(snap, ids):
    return sorted(snap.nodes[i].label for i in ids if i in snap.nodes)


EXPECTED = {
    "cluster_net": ("net (Net)", None, []),
    "cluster_net_block": ("block (Block)", "cluster_net", ["MulBackward0"]),
    "cluster_net_block_fc1": ("fc1 (Linear)", "cluster_net_block",
                              ["AddmmBackward0", "TBackward0", "net.block.fc1.bias", "net.block.fc1.weight"]),
    "cluster_net_block_act": ("act (Tanh)", "cluster_net_block", ["TanhBackward0"]),
    "cluster_net_head": ("head (Sequential)", "cluster_net", []),
    "cluster_net_head_0": ("0 (Linear)", "cluster_net_head",
                           ["AddmmBackward0", "TBackward0", "net.head.0.bias", "net.head.0.weight"]),
    "cluster_net_head_1": ("1 (Sigmoid)", "cluster_net_head", ["SigmoidBackward0"]),
}


@pytest.mark.parametrize("fmt", ["dot", "mermaid"])
def test_a_cluster_per_module_nested_as_the_modules(fmt):
    snap, _ = _snapshot()
    text = graphview.to_dot(snap) if fmt == "dot" else graphview.to_mermaid(snap)
    clusters = (_dot_clusters if fmt == "dot" else _mermaid_clusters)(text)
    got = {k: (label, parent, _labels(snap, ids)) for k, (label, parent, ids) in clusters.items()}
    assert got == EXPECTED
    outside = [n.label for nid, n in snap.nodes.items() if n.module is None]
    assert sorted(outside) == ["AddBackward0", "SumBackward0", "loss"]     # made by the script's own lines


def test_clustered_dot_lays_out_with_graphviz():
    dot = shutil.which("dot")
    assert dot is not None, "Graphviz `dot` is not installed (apt-get install graphviz)"
    snap, _ = _snapshot()
    for text in (graphview.to_dot(snap), graphview.to_dot(graphview.condense(snap), legend=True)):
        done = subprocess.run([dot, "-Tplain"], input=text, capture_output=True, text=True, timeout=60)
        assert done.returncode == 0 and not done.stderr, done.stderr


def test_parameters_are_named_by_named_parameters():
    snap, trace = _snapshot()
    net = trace.interp.globals["net"]
    leaves = sorted(n.label for n in snap.nodes.values() if n.kind == "leaf")
    assert leaves == sorted("net." + name for name, _ in net.named_parameters())


def test_tree_names_the_module_of_each_node():
    snap, _ = _snapshot()
    wheres = {n.label + (n.module or ""): graphview.node_where(n, snap) for n in snap.nodes.values()
              if n.kind == "op"}
    assert wheres["TanhBackward0net.block.act"].startswith("in net.block.act (Tanh) · line 11")
    assert wheres["SumBackward0"].startswith("line 25")


def test_a_module_no_variable_holds_draws_no_cluster():
    snap, _ = _snapshot("""\
        import torch
        import torch.nn as nn
        x = torch.ones(2, 3, requires_grad=True)
        y = nn.Tanh()(x).sum()
    """)
    assert not snap.modules and "subgraph" not in graphview.to_dot(snap)


def test_repl_graph_names_modules(tmp_path, monkeypatch):
    import io
    from rich.console import Console
    from gradcli.repl.session import Session
    monkeypatch.setenv("HOME", str(tmp_path))
    out = io.StringIO()
    s = Session(out=out, console=Console(file=out, width=200, highlight=False))
    s.start(background=False)
    for entry in ("import torch", "import torch.nn as nn", "torch.manual_seed(0)",
                  "net = nn.Sequential(nn.Linear(3, 2), nn.Tanh())", "y = net(torch.ones(1, 3)).sum()", ":graph y"):
        s.execute(entry)
    text = out.getvalue()
    assert "TanhBackward0" in text and "in net.1 (Tanh)" in text and "in net.0 (Linear)" in text
    assert "net.0.weight (leaf)" in text
