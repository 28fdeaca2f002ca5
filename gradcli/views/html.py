"""`gradcli explain FILE --html PATH`: one self-contained page that steps through every backward.

The page holds the script's source, the backward graph as SVG (Graphviz's when `dot` is
installed, else views/svg.py's layout) and, as JSON, the run's report (docs/json.md) with one
step per node each backward/grad call ran: the gradient it received and sent along each
edge, the saved buffers it freed, the leaf .grad it changed, and, where a call failed, the
explanation. stepper.js replays those steps in the browser; nothing is fetched from anywhere.
"""
from __future__ import annotations

import json
from collections import deque
from contextlib import contextmanager
from html import escape
from pathlib import Path

from ..explain import explained
from .. import engine as E
from ..record import graph as G
from .graph import node_title
from . import json_view, svg

HERE = Path(__file__).parent


@contextmanager
def edge_gradients(log):
    """While active, every node the engine runs through its formulas (every node but
    AccumulateGrad and GraphRoot) appends [node, gradient in, gradients out] to log."""
    E.STATE.edge_log = log
    try:
        yield log
    finally:
        E.STATE.edge_log = None


def explanation(error=None, findings=()):
    """The Why and the fixes of a failure, and the source lines they involve: the one place the
    page reads gradcli's explanations (explain.Why: the error that ended the script, with its
    fixes tried; a caught failure's Why from narrate's findings)."""
    from ..explain import why as explain
    found = [f.why for f in findings if f.why is not None]
    why = explained(error)
    why = why if why is not None else (found[0] if found else None)
    out = {"why": None, "fixes": [], "created_line": None, "freed_line": None}
    if why is not None:
        text = explain.lines(why)
        out.update(why=" ".join(t for k, t in text if k in ("why", "note")),
                   fixes=[t for k, t in text if k in ("fix", "advice")],
                   created_line=why.line, freed_line=why.by_line)
    if error is not None:
        out.update(type=error.type, message=error.message, line=error.line)
        if why is None:
            out.update(why=error.why, fixes=[error.fix] if error.fix else [])
    return out


def _brief(value):
    if value is None:
        return None
    return G.brief(value._data if isinstance(value, E.TensorBase) else value)


def _roots(trace, by_node):
    """{output name: the node each call started from}, in call order (GraphRoot: its inputs)."""
    roots = {}
    for call in trace.calls:
        for node in call.executed[:1]:
            for start in ([n for n, _ in node.next_functions if n is not None]
                          if node.op is E.GRAPH_ROOT else [node]):
                if start not in roots.values():
                    name = by_node.get(start) or f"output of call {call.index}"
                    roots[name if name not in roots else f"{name} (call {call.index})"] = start
    return roots


def _names(trace):
    """(by_tensor, by_node): the names each call saw, then the names at the end."""
    by_tensor, by_node = {}, {}
    for call in trace.calls:
        for k, v in call.by_tensor.items():
            by_tensor.setdefault(k, v)
        for k, v in call.by_node.items():
            by_node.setdefault(k, v)
    end_tensor, end_node = trace.names()
    return {**end_tensor, **by_tensor}, {**end_node, **by_node}


def _node_step(node, s, snap, updates, applied):
    """The step of one node a call ran: narrate's Step s, with the gradients the node received
    and sent (applied: its log entry) or, for a leaf, the change of its .grad."""
    nid = snap.node_ids[id(node)]
    step = {"kind": "node", "node": nid, "title": node_title(snap.nodes[nid]), "line": s.line, "text": s.text,
            "name": s.name, "failed": s.failed, "out": [],
            "needs": [{"slot": n.slot, "what": n.what, "state": n.state, "freed_now": n.freed_now, "kept": n.kept,
                       "freed_by_line": n.freed_by_line, "reason": n.reason, "version": n.version,
                       "saved_version": n.saved_version} for n in s.needs]}
    if isinstance(node, E.AccumulateGrad):
        before, after = updates.get(id(node.variable), (None, None))
        if s.update is not None:               # (what arrived: the change of .grad)
            step["grad_in"] = _brief(after if before is None else (after - before).astype(after.dtype))
            step["update"] = {"leaf": s.name, "before": s.update.before, "after": s.update.after,
                              "brief": _brief(after)}
    elif applied is not None:
        _, grad_in, outs = applied
        step["grad_in"] = _brief(grad_in)
        for (nxt, _), g in zip(node.next_functions, outs or ()):
            if nxt is not None and g is not None:
                to = snap.node_ids[id(nxt)]
                step["out"].append({"to": to, "title": node_title(snap.nodes[to]), "grad": _brief(g)})
    return step


def _steps(trace, narr, snap, log):
    """One step per node each call ran; the calls on the timeline with their first and last step;
    each leaf's .grad before the first call that changed it."""
    applied_by = {}                              # node -> its log entries, in the order it ran
    for entry in log:
        applied_by.setdefault(entry[0], deque()).append(entry)
    steps, calls, initial = [{"kind": "start"}], [], {}
    for call, story in zip(trace.calls, narr.calls):
        first = len(steps)
        stories = iter(story.steps)
        updates = {id(leaf): (before, after) for leaf, before, after in call.updates}
        for node in call.executed:
            if node.op is E.GRAPH_ROOT:
                continue
            applied = applied_by[node].popleft() if applied_by.get(node) else None
            steps.append({**_node_step(node, next(stories), snap, updates, applied), "call": len(calls)})
            if isinstance(node, E.AccumulateGrad) and id(node.variable) in updates:
                initial.setdefault(steps[-1]["node"], _brief(updates[id(node.variable)][0]))
        calls.append({"index": call.index, "kind": call.kind, "line": call.line, "text": call.text,
                      "retain_graph": call.retain_graph, "failed": call.failed,
                      "fatal": call.failed and call.error is trace.exception,     # it ended the script
                      "error": None if call.event.error is None else list(call.event.error),
                      "explanation": explanation(findings=story.findings) if call.failed else None,
                      "first": first, "last": len(steps) - 1})
    if not (calls and calls[-1]["fatal"]):
        steps.append({"kind": "end"})
    return steps, calls, initial


def page_data(narr, trace, log):
    """Everything the page shows, as JSON-ready data, and the graph's SVG."""
    report = trace.report
    by_tensor, by_node = _names(trace)
    # The SVG shows the graph as the run left it (its boxes fit the longest labels); the page
    # starts before any backward, every buffer alive and each .grad as it was: the script sets both.
    snap = G.snapshot(_roots(trace, by_node), by_node, by_tensor)
    steps, calls, initial = _steps(trace, narr, snap, log)
    nodes = {nid: {"title": node_title(n), "kind": n.kind, "line": n.line, "grad": initial.get(nid, n.grad),
                   "saved": {s.slot: f"alive v{s.saved_version}" if s.state == "freed" else s.state_text()
                             for s in n.tensor_slots()}}
             for nid, n in snap.nodes.items()}
    for step in steps:                       # each leaf's box wide enough for every .grad it shows
        if step.get("update"):
            leaf = snap.nodes[step["node"]]
            leaf.grad = max(leaf.grad or "None", step["update"]["brief"], key=len)
    data = {"file": report.filename, "source": report.source.split("\n"), "report": json_view.as_dict(report),
            "nodes": nodes, "calls": calls, "steps": steps,
            "error": None if report.error is None else explanation(report.error, narr.findings())}
    return data, svg.graph_svg(snap)


def render(data, graph_svg):
    """The page's HTML: the template with its styles, script, graph and data inlined."""
    graph_svg = graph_svg[graph_svg.find("<svg"):]          # without dot's XML prologue
    blob = json.dumps(data, separators=(",", ":"), default=str).replace("</", "<\\/")
    page = (HERE / "stepper.html").read_text()
    for key, value in (("TITLE", escape(f"gradcli explain {data['file']}")),
                       ("STYLE", (HERE / "stepper.css").read_text()),
                       ("SCRIPT", (HERE / "stepper.js").read_text()),
                       ("GRAPH", graph_svg), ("DATA", blob)):
        page = page.replace(f"/*{key}*/", value, 1)
    return page
