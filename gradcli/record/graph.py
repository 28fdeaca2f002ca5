"""A snapshot of a backward graph: what the engine knows about it at one moment, copied into
plain data (so a later backward that frees buffers does not change a snapshot taken before it):
every node's grad_fn, the script variable it belongs to, the statement and line that made it,
its sequence number, its saved tensor slots with their state (alive, freed, None) and
versions, its non-tensor attributes, and every leaf with its `.grad`. views/graph.py draws it.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Optional

from .. import engine as E
from .trace import saved_what, none_reason, public_attrs, fmt_value


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


def brief(data, limit=6):
    """A tensor's values as PyTorch prints them, on one line when small; else its shape."""
    from ..engine import format_tensor
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
                                    grad=None if v._grad is None else brief(v._grad._data),
                                    value=brief(v._data), module=module_path(params.get(name)))
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
        tensor = isinstance(t, E.TensorBase)       # or a node: the graph of a call's unnamed output
        snap.nodes[oid] = GNode(oid, "output", name, name, value=brief(t._data) if tensor else None)
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
    with_fn = {name: t for name, t in by_tensor_name.items() if isinstance(t, E.TensorBase) and t.grad_fn is not None}
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
        roots = {n: t for n, t in by_tensor_name.items() if isinstance(t, E.TensorBase) and t.requires_grad}
    return roots

# ----------------------------------------------------------------------------- condensing
