"""The backward graph as a picture: a snapshot of the engine's facts, and views of it.

`snapshot()` copies what the engine knows about a graph at one moment into plain data
(so a later backward that frees buffers does not change a snapshot taken before it):
every node's grad_fn, the script variable it belongs to, the statement and line that
made it, its sequence number, its saved tensor slots with their state (alive, freed,
None) and versions, its non-tensor attributes, and every leaf with its `.grad`.

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
from dataclasses import dataclass, field
from typing import Any, Optional

from . import engine as E
from .tracing import saved_what, none_reason, public_attrs, fmt_value

DEFAULT_DEPTH = 40          # levels below an output before the rest is summarised (dot, mermaid)
TREE_DEPTH = 12             # the same for the terminal tree, where every level indents
DEFAULT_MIN_CHAIN = 6       # identical nodes in a row before a run is collapsed
DEFAULT_MAX_INPUTS = 12     # inputs drawn per node before the rest are summarised

# torchviz's legend
COLOR_OP = "lightgrey"
COLOR_LEAF = "lightblue"
COLOR_SAVED = "orange"
COLOR_OUTPUT = "darkolivegreen1"


# ----------------------------------------------------------------------------- the snapshot


@dataclass
class GSaved:
    """One saved tensor slot of a node."""
    slot: str
    state: str                          # "alive" | "freed" | "none"
    kind: str                           # "input" | "output" | "constant" | "extra" | "none"
    name: Optional[str] = None          # the script variable it holds, when known
    constant: Any = None                # the Python number saved as a 0-d tensor
    saved_version: Optional[int] = None
    version: Optional[int] = None       # the tensor's version now (differs: modified in place)
    freed_by_line: Optional[int] = None
    changed_line: Optional[int] = None  # the line of the latest in-place change
    reason: Optional[str] = None        # why the slot is None
    shape: Optional[tuple] = None

    @property
    def modified(self):
        return self.version is not None and self.saved_version is not None and self.version != self.saved_version

    def what(self):
        if self.kind == "constant":
            return f"constant {self.constant!r}"
        if self.kind == "output":
            return f"output ({self.name})" if self.name else "output (unnamed)"
        return self.name or "(unnamed)"

    def state_text(self):
        if self.state == "none":
            return "None"
        if self.state == "freed":
            return "freed" + (f" by line {self.freed_by_line}" if self.freed_by_line else "")
        text = f"alive v{self.saved_version}"
        if self.modified:
            text = (f"modified: v{self.version}, saved at v{self.saved_version}"
                    + (f" (line {self.changed_line})" if self.changed_line else ""))
        return text


@dataclass
class GNode:
    id: str
    kind: str                           # "op" | "leaf" | "output" | "chain" | "more"
    label: str                          # grad_fn class name; leaf and output: the variable name
    name: Optional[str] = None          # the script variable whose grad_fn (or leaf) this is
    line: Optional[int] = None
    text: Optional[str] = None          # the statement that made the node
    seq: Optional[int] = None
    saved: list = field(default_factory=list)     # GSaved, tensor slots and None slots
    attrs: dict = field(default_factory=dict)     # non-tensor attributes, formatted
    grad: Optional[str] = None          # leaf: .grad printed like PyTorch (None: no grad yet)
    value: Optional[str] = None         # leaf/output: the tensor, briefly
    count: int = 1                      # chain/more: how many nodes it stands for
    hidden: int = 0                     # chain: nodes of side branches hidden with it
    summary: dict = field(default_factory=dict)   # chain: saved-slot state -> count
    module: Optional[str] = None        # op: the path of the nn.Module whose forward made it ("net.fc1");
                                        # leaf: of the module holding it as a parameter

    def tensor_slots(self):
        return [s for s in self.saved if s.state != "none"]


@dataclass
class GraphSnapshot:
    nodes: dict = field(default_factory=dict)     # id -> GNode, in walk order
    edges: list = field(default_factory=list)     # (output-side id, input-side id), next_functions order
    outputs: list = field(default_factory=list)   # ids of the output nodes
    line: Optional[int] = None                    # the script line the snapshot was taken at
    hidden: int = 0                               # nodes left out by condense()
    condensed: bool = False
    node_ids: dict = field(default_factory=dict)  # id(engine node) -> node id, for views that replay a run
    modules: dict = field(default_factory=dict)   # module path -> its class name, for the paths nodes name

    def children(self, nid):
        return [b for a, b in self.edges if a == nid]


def _brief(data, limit=6):
    """A tensor's values as PyTorch prints them, on one line when small; else its shape."""
    from .engine import format_tensor
    if data is None:
        return None
    if data.size <= limit:
        text = format_tensor(data, "bool" if data.dtype.kind == "b" else data.dtype.name)
        return " ".join(text.split())
    return f"shape [{', '.join(map(str, data.shape))}] {data.dtype.name}"


def _saved_facts(node, by_node, by_tensor):
    out = []
    for slot, s in node.saved.items():
        what = saved_what(node, slot, by_node, by_tensor)
        if s is None:
            out.append(GSaved(slot, "none", "none", reason=none_reason(node, slot)))
            continue
        freed_line = getattr(getattr(node.freed_by, "origin", None), "line", None) if s.freed else None
        g = GSaved(slot, "freed" if s.freed else "alive", what.kind, what.name, what.constant,
                   s.saved_version, s.version.v, freed_line,
                   shape=None if s._data is None else tuple(s._data.shape))
        if g.modified:
            g.changed_line = getattr(s.version.last, "line", None)
        out.append(g)
    return out


def snapshot(roots, by_node=None, by_tensor=None, line=None, modules=None) -> GraphSnapshot:
    """Copy the graphs behind `roots` ({name: Tensor or Node}) into plain data, as they are now.
    `modules` ({"net.fc1": nn.Module}) places nodes and parameters in their modules."""
    by_node = by_node or {}
    by_tensor = by_tensor or {}
    modules = modules or {}
    snap = GraphSnapshot(line=line)
    ids = {}
    leaf_count = 0
    path_of = {}
    for path, m in modules.items():
        path_of.setdefault(id(m), path)
    params = {f"{path}.{name}": path for path, m in modules.items() for name, _ in m.named_parameters(recurse=False)}

    def module_path(path):
        """path, recording its class name and its ancestors' for the cluster labels."""
        if path is not None:
            parts = path.split(".")
            for k in range(1, len(parts) + 1):
                prefix = ".".join(parts[:k])
                if prefix in modules:
                    snap.modules.setdefault(prefix, type(modules[prefix]).__name__)
        return path

    def node_id(fn):
        nonlocal leaf_count
        nid = ids.get(fn)
        if nid is None:
            if isinstance(fn, E.AccumulateGrad):
                leaf_count += 1
                nid = f"leaf{leaf_count}"
            else:
                nid = f"n{fn.seq}"
            ids[fn] = snap.node_ids[id(fn)] = nid
        return nid

    def add(fn):
        nid = node_id(fn)
        if nid in snap.nodes:
            return nid, False
        if isinstance(fn, E.AccumulateGrad):
            v = fn.variable
            name = by_tensor.get(id(v))
            snap.nodes[nid] = GNode(nid, "leaf", name or "leaf", name,
                                    grad=None if v._grad is None else _brief(v._grad._data),
                                    value=_brief(v._data), module=module_path(params.get(name)))
        else:
            origin = fn.origin
            snap.nodes[nid] = GNode(nid, "op", fn.op.name, by_node.get(fn), getattr(origin, "line", None),
                                    getattr(origin, "text", None), fn.seq,
                                    _saved_facts(fn, by_node, by_tensor),
                                    {k: fmt_value(v) for k, v in public_attrs(fn).items()},
                                    module=module_path(path_of.get(id(getattr(origin, "module", None)))))
        return nid, True

    for k, (name, t) in enumerate(roots.items()):
        oid = f"out{k + 1}"
        tensor = isinstance(t, E.Tensor)       # or a node: the graph of a call's unnamed output
        snap.nodes[oid] = GNode(oid, "output", name, name, value=_brief(t._data) if tensor else None)
        snap.outputs.append(oid)
        first = t._edge() if tensor else t
        if type(first) is E.OutputEdge:      # one output of a node with several: that node
            first = first.fn
        if first is None:
            continue
        nid, new = add(first)
        snap.edges.append((oid, nid))
        if not new:
            continue
        stack = [first]                      # iterative DFS: graphs can be thousands deep
        while stack:
            fn = stack.pop()
            fid = ids[fn]
            fresh = []
            for nxt, _ in fn.next_functions:
                if nxt is None:
                    continue
                cid, new = add(nxt)
                snap.edges.append((fid, cid))
                if new:
                    fresh.append(nxt)
            stack.extend(reversed(fresh))
    return snap


def default_roots(by_tensor_name):
    """The tensors to draw when none is named: every named tensor with a graph that no
    other named tensor's graph contains (the outputs), in the order they were named."""
    with_fn = {name: t for name, t in by_tensor_name.items() if isinstance(t, E.Tensor) and t.grad_fn is not None}
    inner = set()
    for t in with_fn.values():
        seen = set()
        stack = [fn for fn, _ in t.grad_fn.next_functions if fn is not None]
        while stack:
            fn = stack.pop()
            if fn in seen or fn in inner:
                continue
            seen.add(fn)
            stack.extend(n for n, _ in fn.next_functions if n is not None)
        inner |= seen
    roots, done = {}, set()
    for name, t in with_fn.items():
        if t.grad_fn not in inner and t.grad_fn not in done:
            roots[name] = t
            done.add(t.grad_fn)
    if not roots:           # no graph at all: show the leaves that require grad
        roots = {n: t for n, t in by_tensor_name.items() if isinstance(t, E.Tensor) and t.requires_grad}
    return roots

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
