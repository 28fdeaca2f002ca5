"""The backward graph as a picture: views of a snapshot (record/graph.py) of the engine's facts.

The views only format a snapshot:

* `tree()`       a Rich tree for the terminal (also used by the `graph NAME` statement);
* `to_dot()`     Graphviz DOT text, with torchviz's colours: blue = leaf requiring grad,
                 orange = saved tensor, green = output; freed buffers are white, dashed and grey;
                 the nodes made in an nn.Module's forward, and its parameters, inside a cluster
                 per module (nested as the modules are), labelled `fc1 (Linear)`;
* `to_mermaid()` Mermaid flowchart text for Markdown, with the same clusters as subgraphs;
* `render()`     SVG or PNG through Graphviz's `dot` program, written atomically.

`condense()` keeps big graphs readable: a long run of repeating nodes made by the same
line (a loop) becomes one "… N more nodes" node, wide fan-ins keep their first inputs,
and nodes deeper than a depth limit are summarised.
"""
from __future__ import annotations

import shutil
import subprocess
from collections import deque

from ..record.graph import GNode, GraphSnapshot

DEFAULT_DEPTH = 40          # levels below an output before the rest is summarised (dot, mermaid)
TREE_DEPTH = 12             # the same for the terminal tree, where every level indents
DEFAULT_MIN_CHAIN = 6       # identical nodes in a row before a run is collapsed
DEFAULT_MAX_INPUTS = 12     # inputs drawn per node before the rest are summarised

# torchviz's legend
COLOR_OP = "lightgrey"
COLOR_LEAF = "lightblue"
COLOR_SAVED = "orange"
COLOR_OUTPUT = "darkolivegreen1"


# ----------------------------------------------------------------------------- condensing


def _reachable(snap, nodes, edges):
    kids = {}
    for a, b in edges:
        kids.setdefault(a, []).append(b)
    seen = set()
    stack = [o for o in snap.outputs if o in nodes]
    while stack:
        n = stack.pop()
        if n in seen:
            continue
        seen.add(n)
        stack.extend(kids.get(n, ()))
    return seen


def condense(snap, max_depth=DEFAULT_DEPTH, min_chain=DEFAULT_MIN_CHAIN, max_inputs=DEFAULT_MAX_INPUTS):
    """A smaller snapshot of the same graph. A run of at least min_chain nodes made by one
    line (a loop), whose grad_fn names repeat with a period of 1 to 4, keeps its first and
    last period around one "… N more nodes" node (side branches only reachable through the
    hidden nodes are hidden too); a node's inputs beyond max_inputs become one "… N more
    inputs" node; nodes deeper than max_depth become "… N more nodes below"."""
    if snap.condensed:
        return snap
    nodes = dict(snap.nodes)
    edges = list(snap.edges)
    total = len(nodes)

    indeg = {}
    kids = {}
    for a, b in edges:
        indeg[b] = indeg.get(b, 0) + 1
        kids.setdefault(a, []).append(b)

    # 1. runs made by one line (a loop): a path of nodes from the same line, each the only
    #    parent of the next, whose grad_fn names repeat with a period of 1 to 4
    def spine_next(cur):
        n = nodes[cur]
        cands = list(dict.fromkeys(c for c in kids.get(cur, ()) if nodes[c].kind == "op"
                                   and nodes[c].line == n.line and n.line is not None and indeg.get(c) == 1))
        if len(cands) > 1:
            cands = [c for c in cands if nodes[c].label == n.label]
        return cands[0] if len(cands) == 1 else None

    in_run = set()
    chains = []
    for nid in list(nodes):
        if nid in in_run or nodes[nid].kind != "op":
            continue
        run = [nid]
        members = {nid}
        cur = spine_next(nid)
        while cur is not None and cur not in members and cur not in in_run:
            run.append(cur)
            members.add(cur)
            cur = spine_next(cur)
        labels = [nodes[r].label for r in run]
        for period in range(1, 5):
            n = period                   # the longest prefix that repeats with this period
            while n < len(run) and labels[n] == labels[n - period]:
                n += 1
            usable = n - n % period       # whole periods only
            if usable >= max(3 * period, min_chain):
                run = run[:usable]
                in_run.update(run)
                chains.append((run, period))
                break
    if chains:
        middle_of = {}
        first_next = set()
        new_edges = []
        for run, period in chains:
            middle = run[period:-period]
            head = nodes[run[0]]
            cid = f"chain_{middle[0]}"
            summary = {}
            kinds = {}
            for m in middle:
                middle_of[m] = cid
                kinds[nodes[m].label] = kinds.get(nodes[m].label, 0) + 1
                for sv in nodes[m].saved:
                    summary[sv.state] = summary.get(sv.state, 0) + 1
            label = " + ".join(f"{c} × {k}" for k, c in kinds.items())
            nodes[cid] = GNode(cid, "chain", label, line=head.line, text=head.text, count=len(middle),
                               summary=summary, module=head.module)
            first_next.add((run[period - 1], run[period]))
            new_edges += [(run[period - 1], cid), (cid, run[-period])]
        side = {}
        for a, b in edges:
            if a in middle_of and b not in middle_of:
                side.setdefault(middle_of[a], []).append(b)
        edges = [(a, b) for a, b in edges if a not in middle_of and (a, b) not in first_next] + new_edges
        for m in middle_of:
            del nodes[m]
        reach = _reachable(snap, nodes, edges)
        for cid, starts in side.items():       # side branches only reachable through hidden nodes
            seen = set()
            stack = [b for b in starts if b not in reach]
            while stack:
                n = stack.pop()
                if n in seen or n in reach or n not in nodes:
                    continue
                seen.add(n)
                stack.extend(kids.get(n, ()))
            nodes[cid].hidden = len(seen)
        for n in [n for n in nodes if n not in reach]:
            del nodes[n]
        edges = [(a, b) for a, b in edges if a in nodes and b in nodes]
        order = []                             # walk order: a chain node where its first hidden node was
        for nid in snap.nodes:
            if nid in nodes:
                order.append(nid)
            elif f"chain_{nid}" in nodes:
                order.append(f"chain_{nid}")
        nodes = {nid: nodes[nid] for nid in order}

    # 2. wide fan-in: keep the first max_inputs - 1 inputs of a node
    kids = {}
    for a, b in edges:
        kids.setdefault(a, []).append(b)
    extra = []
    cut_edges = set()
    for nid, cs in kids.items():
        distinct = list(dict.fromkeys(cs))
        if len(distinct) > max_inputs:
            keep = set(distinct[:max_inputs - 1])
            rest = len(distinct) - len(keep)
            mid = f"more_{nid}"
            nodes[mid] = GNode(mid, "more", f"… {rest} more inputs", count=rest)
            for c in distinct:
                if c not in keep:
                    cut_edges.add((nid, c))
            extra.append((nid, mid))
    if cut_edges:
        edges = [e for e in edges if e not in cut_edges] + extra
        reach = _reachable(snap, nodes, edges)
        for n in [n for n in nodes if n not in reach]:
            del nodes[n]
        edges = [(a, b) for a, b in edges if a in nodes and b in nodes]

    # 3. depth limit, counted from the outputs (an output's grad_fn is at depth 1)
    depth = {o: 0 for o in snap.outputs if o in nodes}
    kids = {}
    for a, b in edges:
        kids.setdefault(a, []).append(b)
    queue = deque(depth)
    while queue:
        n = queue.popleft()
        for c in kids.get(n, ()):
            if c not in depth:
                depth[c] = depth[n] + 1
                queue.append(c)
    deep = {n for n, d in depth.items() if d > max_depth}
    if deep:
        frontier = {}
        for a, b in edges:
            if a not in deep and b in deep:
                frontier.setdefault(a, set()).add(b)
        edges = [(a, b) for a, b in edges if a not in deep and b not in deep]
        for a, below in frontier.items():
            # everything only reachable through this node's cut edges
            seen = set()
            stack = list(below)
            while stack:
                n = stack.pop()
                if n in seen or n not in deep:
                    continue
                seen.add(n)
                stack.extend(kids.get(n, ()))
            mid = f"deeper_{a}"
            nodes[mid] = GNode(mid, "more", f"… {len(seen)} more nodes below (depth limit {max_depth})",
                               count=len(seen))
            edges.append((a, mid))
        for n in deep:
            nodes.pop(n, None)
    out = GraphSnapshot(nodes, edges, list(snap.outputs), snap.line, condensed=True, modules=snap.modules)
    shown = sum(1 for n in nodes.values() if n.kind not in ("chain", "more"))
    out.hidden = total - shown
    return out

# ----------------------------------------------------------------------------- text pieces


def _short(text, limit=60):
    if text is None:
        return None
    text = " ".join(text.split())
    return text if len(text) <= limit else text[:limit - 1] + "…"


def node_title(n):
    """The first line of a node's label."""
    if n.kind == "op":
        return f"{n.label} #{n.seq}" if n.seq is not None else n.label
    if n.kind == "chain":
        return f"… {n.count} more nodes: {n.label}"
    return n.label


def module_label(snap, path):
    """How a cluster names its module: the last part of its path and its class, `fc1 (Linear)`."""
    return f"{path.rpartition('.')[2]} ({snap.modules[path]})"


def node_where(n, snap=None):
    if n.kind not in ("op", "chain"):
        return None
    parts = []
    if n.name and n.kind == "op":
        parts.append(n.name)
    if n.module and snap is not None:
        parts.append(f"in {n.module} ({snap.modules[n.module]})")
    if n.line:
        parts.append(f"line {n.line}" + (f": {_short(n.text, 48)}" if n.text else ""))
    return " · ".join(parts) or None


def saved_line(s):
    if s.state == "none":
        return f"{s.slot}: None ({s.reason})" if s.reason else f"{s.slot}: None"
    return f"{s.slot} = {s.what()}: {s.state_text()}"


def node_details(n):
    """The detail lines under a node's title: saved slots, attributes, leaf grad."""
    lines = []
    if n.kind == "op":
        tensors = n.tensor_slots()
        if not tensors:
            attrs = ", ".join(f"{k}={v}" for k, v in n.attrs.items())
            lines.append("saves no tensors" + (f" (only {attrs})" if attrs else ""))
            for s in n.saved:
                lines.append("saved " + saved_line(s))
        else:
            for s in n.saved:
                lines.append("saved " + saved_line(s))
            if n.attrs:
                lines.append(", ".join(f"{k}={v}" for k, v in n.attrs.items()))
    elif n.kind == "chain":
        states = ", ".join(f"{c} {s}" for s, c in sorted(n.summary.items()))
        lines.append("repeated by a loop" + (f"; their saved slots: {states}" if states else ""))
        if n.hidden:
            lines.append(f"{n.hidden} side nodes hidden")
    elif n.kind == "leaf":
        lines.append(f"leaf {n.value}" if n.value else "leaf")
        lines.append("grad " + (n.grad if n.grad is not None else "None"))
    elif n.kind == "output":
        lines.append(f"output {n.value}" if n.value else "output")
    return lines

# ----------------------------------------------------------------------------- Rich tree


def tree(snap, condensed=True, max_depth=TREE_DEPTH):
    """A Rich Tree: each output, its grad_fn and, below, the nodes its backward reaches."""
    from rich.console import Group
    from rich.text import Text
    from rich.tree import Tree
    if condensed:
        snap = condense(snap, max_depth=max_depth)
    kids = {}
    for a, b in snap.edges:
        kids.setdefault(a, []).append(b)

    def label(n, repeat=False):
        t = Text()
        style = {"op": "bold", "leaf": "bold blue", "output": "bold green", "chain": "magenta",
                 "more": "dim"}[n.kind]
        t.append(node_title(n), style=style)
        where = node_where(n, snap)
        if repeat:
            t.append("  (shown above)", style="dim")
            return t
        if n.kind == "leaf":
            t.append(" (leaf)", style="dim")
            if n.value:
                t.append(f"  {n.value}", style="dim")
            t.append("  grad ", style="dim")
            t.append(n.grad if n.grad is not None else "None", style="blue")
            return t
        if where:
            t.append("  " + where, style="dim")
        for d in node_details(n):
            t.append("\n")
            if d.startswith("saved") and "freed" in d:
                style = "red"
            elif d.startswith("saved") and ": None" not in d:
                style = "yellow"
            else:
                style = "dim"
            t.append(d, style=style)
        return t

    heads = []
    for oid in snap.outputs:
        out = snap.nodes[oid]
        head = Text(f"graph of {out.label}", style="bold green")
        if out.value:
            head.append(f"  {out.value}", style="dim")
        if snap.line:
            head.append(f"  (at line {snap.line})", style="dim")
        root = Tree(head, guide_style="dim")
        seen = set()
        stack = [(root, c) for c in reversed(kids.get(oid, ()))]
        if not kids.get(oid):
            root.add(Text("no grad_fn: not part of a graph", style="dim"))
        while stack:
            parent, nid = stack.pop()
            n = snap.nodes[nid]
            if nid in seen and n.kind not in ("more",):
                parent.add(label(n, repeat=True))
                continue
            seen.add(nid)
            branch = parent.add(label(n))
            stack.extend((branch, c) for c in reversed(kids.get(nid, ())))
        heads.append(root)
    if snap.hidden:
        heads.append(Text(f"({snap.hidden} nodes summarised: `--depth N` shows deeper levels, `--full` every node)",
                          style="dim"))
    return Group(*heads)

# ----------------------------------------------------------------------------- clusters


def _cluster_id(path):
    return "cluster_" + "".join(c if c.isalnum() else "_" for c in path)


def _clustered(snap, node_lines, cluster):
    """Every node's lines (node_lines(nid, node)), those of a module's nodes inside cluster(path,
    body lines, depth) for that module, nested inside its parents' clusters, at the place of
    the module's first node."""
    body = {}
    for nid, n in snap.nodes.items():
        body.setdefault(n.module, []).append((nid, n))
    children = {}
    for path in sorted(snap.modules, key=lambda p: p.count(".")):
        parent = path.rpartition(".")[0] or None
        children.setdefault(parent if parent in snap.modules else None, []).append(path)

    def emit(path, indent):
        pad = "  " * indent
        lines = [pad + line for nid, n in body.get(path, ()) for line in node_lines(nid, n)]
        for child in children.get(path, ()):
            lines += cluster(child, emit(child, indent + 1), indent)
        return lines
    return emit(None, 1)

# ----------------------------------------------------------------------------- DOT


def _dot_str(s):
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def _label(n):
    lines = [node_title(n)]
    where = node_where(n)
    if where:
        lines.append(where)
    if n.kind == "op":
        tensors = n.tensor_slots()
        if not tensors:
            attrs = ", ".join(f"{k}={v}" for k, v in n.attrs.items())
            lines.append("saves no tensors" + (f" ({attrs})" if attrs else ""))
        elif n.attrs:
            lines.append(", ".join(f"{k}={v}" for k, v in n.attrs.items()))
        for s in n.saved:
            if s.state == "none":
                lines.append(f"{s.slot}: None")
    elif n.kind == "chain":
        lines.extend(node_details(n))
    elif n.kind == "leaf":
        if n.value:
            lines.append(n.value)
        lines.append("grad " + (n.grad if n.grad is not None else "None"))
    elif n.kind == "output":
        if n.value:
            lines.append(n.value)
    return "\n".join(_short(l, 70) for l in lines)


def _saved_label(s):
    return f"{s.slot} = {s.what()}\n{s.state_text()}"


def _saved_attrs(s):
    if s.state == "freed":
        return 'fillcolor="white", style="filled,dashed", color="gray50", fontcolor="gray50"'
    if s.modified:
        return f'fillcolor="{COLOR_SAVED}", color="red", penwidth=2'
    return f'fillcolor="{COLOR_SAVED}"'


def to_dot(snap, legend=False):
    """Graphviz DOT text. Edges point the way the forward pass went (input -> output), as
    in torchviz; saved tensors hang off their node by a dashed, undirected edge."""
    out = ["digraph gradcli {",
           '  graph [fontname="monospace", ranksep=0.3, nodesep=0.3];',
           f'  node [shape=box, style=filled, fillcolor="{COLOR_OP}", fontname="monospace", fontsize=10];',
           '  edge [fontname="monospace", fontsize=9];']
    links = []

    def node_lines(nid, n):
        attrs = ""
        if n.kind == "leaf":
            attrs = f', fillcolor="{COLOR_LEAF}"'
        elif n.kind == "output":
            attrs = f', fillcolor="{COLOR_OUTPUT}"'
        elif n.kind == "chain":
            attrs = ', fillcolor="white", style="filled,rounded", peripheries=2'
        elif n.kind == "more":
            attrs = ', fillcolor="white", style="filled,dotted", shape=note'
        lines = [f"{nid} [label={_dot_str(_label(n))}{attrs}];"]
        if n.kind == "op":
            for s in n.tensor_slots():
                sid = f"{nid}_{s.slot}"
                lines.append(f"{sid} [label={_dot_str(_saved_label(s))}, {_saved_attrs(s)}];")
                links.append(f"  {sid} -> {nid} [dir=none, style=dashed];")
        return lines

    def cluster(path, body, indent):
        pad = "  " * indent
        return ([f"{pad}subgraph {_cluster_id(path)} {{",
                 f'{pad}  label={_dot_str(module_label(snap, path))}; style="rounded,dashed"; color=gray50; '
                 'fontname="monospace"; fontsize=10;']
                + body + [f"{pad}}}"])

    out += _clustered(snap, node_lines, cluster)
    out += links
    for a, b in snap.edges:
        out.append(f"  {b} -> {a};")
    if legend:
        out += ["  subgraph cluster_legend {",
                '    label="legend"; fontname="monospace"; fontsize=10; style=dashed; color=gray60;',
                f'    legend_leaf [label="leaf requiring grad", fillcolor="{COLOR_LEAF}"];',
                f'    legend_saved [label="saved tensor", fillcolor="{COLOR_SAVED}"];',
                '    legend_freed [label="freed saved tensor", fillcolor="white", style="filled,dashed", '
                'color="gray50", fontcolor="gray50"];',
                f'    legend_out [label="output", fillcolor="{COLOR_OUTPUT}"];',
                '    legend_leaf -> legend_saved -> legend_freed -> legend_out [style=invis];',
                "  }"]
    out.append("}")
    return "\n".join(out) + "\n"

# ----------------------------------------------------------------------------- Mermaid


def _mm(text):
    text = text.replace("&", "#amp;").replace('"', "#quot;").replace("<", "#lt;").replace(">", "#gt;")
    return text.replace("\n", "<br/>")


def to_mermaid(snap):
    """A Mermaid flowchart (inputs at the top, outputs at the bottom, as in to_dot)."""
    out = ["flowchart TD",
           "  classDef op fill:#d3d3d3,stroke:#333,color:#000",
           "  classDef leaf fill:#add8e6,stroke:#333,color:#000",
           "  classDef saved fill:#ffa500,stroke:#333,color:#000",
           "  classDef modified fill:#ffa500,stroke:#d00,stroke-width:3px,color:#000",
           "  classDef freed fill:#fff,stroke:#999,stroke-dasharray:4 3,color:#999",
           "  classDef output fill:#caff70,stroke:#333,color:#000",
           "  classDef more fill:#fff,stroke:#999,stroke-dasharray:2 2,color:#555"]
    links = []

    def node_lines(nid, n):
        cls = {"op": "op", "leaf": "leaf", "output": "output", "chain": "more", "more": "more"}[n.kind]
        lines = [f'{nid}["{_mm(_label(n))}"]:::{cls}']
        if n.kind == "op":
            for s in n.tensor_slots():
                sid = f"{nid}_{s.slot}"
                scls = "freed" if s.state == "freed" else "modified" if s.modified else "saved"
                lines.append(f'{sid}["{_mm(_saved_label(s))}"]:::{scls}')
                links.append(f"  {sid} -.- {nid}")
        return lines

    def cluster(path, body, indent):
        pad = "  " * indent
        return [f'{pad}subgraph {_cluster_id(path)} ["{_mm(module_label(snap, path))}"]'] + body + [f"{pad}end"]

    out += _clustered(snap, node_lines, cluster)
    for a, b in snap.edges:
        links.append(f"  {b} --> {a}")
    return "\n".join(out + links) + "\n"

# ----------------------------------------------------------------------------- rendering


class GraphvizMissing(Exception):
    """The `dot` program is not installed."""


GRAPHVIZ_HINT = ("the Graphviz `dot` program is needed for svg/png output and was not found on PATH; "
                 "install the graphviz package (apt-get install graphviz, brew install graphviz, "
                 "dnf install graphviz or conda install graphviz), or use --format dot|mermaid|tree")


def render(snap, fmt, timeout=60, legend=True):
    """SVG (text) or PNG (bytes) made by Graphviz's `dot` from to_dot(snap, legend)."""
    dot = shutil.which("dot")
    if dot is None:
        raise GraphvizMissing(GRAPHVIZ_HINT)
    done = subprocess.run([dot, f"-T{fmt}"], input=to_dot(snap, legend).encode(), capture_output=True,
                          timeout=timeout)
    if done.returncode != 0:
        raise RuntimeError(f"dot failed: {done.stderr.decode(errors='replace').strip()}")
    return done.stdout
