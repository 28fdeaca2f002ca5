"""`gradcli explain`: the story of every backward/grad call, told from the engine's records.

For each call: the nodes it ran, in order (grad_fn, sequence number, source line and
statement, script variable), what each needed from its saved tensors and in what state
they were, what the call freed, and which leaves it updated and by how much. Then the
true cause of what happened:

* a failing call (or an error outside any call): the error's one explanation, explain/why.py's
  Why, with the fixes gradcli tried on copies of the script;
* a repeated backward that works: every node it shares with earlier calls saves no
  tensors (or was only run with retain_graph=True), and every node that does hold
  tensors had never been run by a non-retaining call;
* a failing call that had already updated leaves: which, and why (execution order by
  sequence number; AccumulateGrad runs as soon as it is ready);
* what ran without an error but is not what it seems (explain.surprises).

A loop's repeated nodes are shown once, with a count.
Every sentence is built from facts recorded by the engine (record/trace.py) and the op
table (node.op): nothing here knows what a particular op saves.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Optional

import numpy as np

from ..explain import explained, surprises
from .. import engine as E
from ..record.report import LeavesShown
from ..record.trace import saved_what, none_reason, public_attrs, fmt_value


# ----------------------------------------------------------------------------- data


@dataclass
class Need:
    """What a node needed from one saved slot when the call ran it."""
    slot: str
    held: bool                          # False: the slot holds None
    what: str                           # "z", "the constant 2", "its own output (y)", ...
    kind: str                           # saved_what kind
    state: str                          # "none" | "alive" | "freed" | "modified"
    freed_now: bool = False             # this call released it
    kept: bool = False                  # alive, and kept (retain_graph)
    freed_by_line: Optional[int] = None
    freed_by_text: Optional[str] = None
    saved_version: Optional[int] = None
    version: Optional[int] = None
    reason: Optional[str] = None        # why the slot is None


@dataclass
class LeafChange:
    name: Optional[str]
    before: Optional[str]
    after: str
    delta: str


@dataclass
class Step:
    """One node a call ran."""
    order: int
    grad_fn: str
    seq: Optional[int]
    leaf: bool
    name: Optional[str]
    line: Optional[int]
    text: Optional[str]
    needs: list = field(default_factory=list)
    attrs: dict = field(default_factory=dict)
    earlier: list = field(default_factory=list)    # (call index, line, text, retain_graph) that ran it before
    failed: bool = False
    update: Optional[LeafChange] = None

    @property
    def holds_tensors(self):
        return any(n.held for n in self.needs)


@dataclass
class Finding:
    kind: str                           # "freed" | "worked" | "partial" | "inplace" | "error"
    text: str
    facts: dict = field(default_factory=dict)
    fixes: list = field(default_factory=list)
    why: Any = None                     # explain.Why, for an error


@dataclass
class CallStory:
    index: int
    kind: str
    line: Optional[int]
    text: Optional[str]
    retain_graph: bool
    failed: bool = False
    error_type: Optional[str] = None
    steps: list = field(default_factory=list)
    freed: list = field(default_factory=list)      # (grad_fn, line, [slots])
    updates: list = field(default_factory=list)    # LeafChange
    findings: list = field(default_factory=list)

    @property
    def title(self):
        return self.text or self.kind


@dataclass
class Narrative:
    filename: str
    leaves: list = field(default_factory=list)     # (name, repr)
    calls: list = field(default_factory=list)
    error: Any = None                              # the report's ErrorInfo
    error_finding: Optional[Finding] = None        # an error outside any call
    parse_failed: bool = False
    surprises: list = field(default_factory=list)  # Finding "surprise": no error, but not what it seems

    def findings(self, kind=None):
        out = [f for c in self.calls for f in c.findings] + self.surprises
        if self.error_finding is not None:
            out.append(self.error_finding)
        return [f for f in out if kind is None or f.kind == kind]

# ----------------------------------------------------------------------------- helpers


def flat(text):
    """A value printed over several lines (a 2-d tensor) on one line, for a line of text."""
    return " ".join(text.split()) if "\n" in text else text


def _tensor_text(a):
    from ..engine import format_tensor
    return format_tensor(a, "bool" if a.dtype.kind == "b" else a.dtype.name)




def _node_ref(node, by_node):
    """`PowBackward0 #2 (y1 = z**2, line 9)`"""
    line = getattr(node.origin, "line", None)
    text = getattr(node.origin, "text", None)
    where = f"`{text}`, line {line}" if text else (f"line {line}" if line else "")
    return f"{node.op.name} #{node.seq}" + (f" ({where})" if where else "")


def _what_phrase(node, slot, by_node, by_tensor):
    if slot == "fn":                        # CopySlices keeps the in-place op's node, not a tensor
        return "the node of the in-place operation it applies", "node"
    w = saved_what(node, slot, by_node, by_tensor)
    if w.kind == "constant":
        return f"the constant {w.constant!r}, saved as a 0-d tensor", w.kind
    if w.kind == "output":
        return (f"its own output ({w.name})" if w.name else "its own output"), w.kind
    if w.name:
        return w.name, w.kind
    return ("its input" if w.kind == "input" else f"the `{slot}` tensor"), w.kind


def _attrs_text(attrs):
    return ", ".join(f"{k}={fmt_value(v)}" for k, v in attrs.items())


def _graph_nodes(start):
    """Every node reachable from start (start included), parents before children."""
    seen, order, stack = set(), [], [start]
    while stack:
        fn = stack.pop()
        if fn is None or fn in seen:
            continue
        seen.add(fn)
        order.append(fn)
        stack.extend(n for n, _ in reversed(fn.next_functions) if n is not None)
    return order


def _leaf_name(acc, by_tensor):
    return by_tensor.get(id(acc.variable)) or "a leaf"


# ----------------------------------------------------------------------------- building the story


def build(trace) -> Narrative:
    report = trace.report
    narr = Narrative(report.filename, parse_failed=report.parse_failed, error=report.error)
    for item in report.items:
        if isinstance(item, LeavesShown):
            narr.leaves = list(item.leaves)
    by_record = {c.record: c for c in trace.calls}
    ran_by = []                     # per earlier call: the set of nodes it ran
    for i, call in enumerate(trace.calls):
        story = _story(call, trace.calls[:i], ran_by, by_record, trace)
        narr.calls.append(story)
        ran_by.append(set(call.executed))
    narr.surprises = [_finding_of(w) for w in surprises(report)]
    exc = trace.exception
    failing_calls = [c for c in trace.calls if c.failed and c.error is exc]
    if exc is not None and not failing_calls:
        narr.error_finding = _error_finding(exc, trace, None, None)
    return narr


def _story(call, earlier, ran_by, by_record, trace):
    by_node, by_tensor = call.by_node, call.by_tensor
    story = CallStory(call.index, call.kind, call.line, call.text, call.retain_graph, call.failed,
                      getattr(call.error, "pytype", type(call.error).__name__) if call.error else None)
    updates = {}
    for leaf, before, after in call.updates:
        delta = after if before is None else after - before
        change = LeafChange(by_tensor.get(id(leaf)), None if before is None else _tensor_text(before),
                            _tensor_text(after), _tensor_text(np.asarray(delta, after.dtype)))
        updates[id(leaf)] = change
        story.updates.append(change)
    failed_node = getattr(call.error, "node", None)
    if call.error is not None and failed_node is None and call.executed:
        failed_node = call.executed[-1]
    order = 0
    for node in call.executed:
        if node.op is E.GRAPH_ROOT:
            continue
        order += 1
        if isinstance(node, E.AccumulateGrad):
            step = Step(order, node.op.name, None, True, _leaf_name(node, by_tensor), None, None,
                        update=updates.get(id(node.variable)))
            story.steps.append(step)
            continue
        origin = node.origin
        step = Step(order, node.op.name, node.seq, False, by_node.get(node), getattr(origin, "line", None),
                    getattr(origin, "text", None), attrs=public_attrs(node))
        step.earlier = [(earlier[k].index, earlier[k].line, earlier[k].text, earlier[k].retain_graph)
                        for k in range(len(earlier)) if node in ran_by[k]]
        step.failed = node is failed_node and call.failed
        states = {s.slot: s for s in call.slots.get(node, ())}
        for slot, s in node.saved.items():
            st = states.get(slot)
            what, kind = _what_phrase(node, slot, by_node, by_tensor)
            if s is None:
                step.needs.append(Need(slot, False, what, "none", "none", reason=none_reason(node, slot)))
                continue
            need = Need(slot, True, what, kind, "alive", saved_version=s.saved_version,
                        version=st.version if st else s.version.v)
            if st is not None and st.freed_before:
                need.state = "freed"
                fb = by_record.get(node.freed_by)
                need.freed_by_line = fb.line if fb else getattr(getattr(node.freed_by, "origin", None), "line", None)
                need.freed_by_text = fb.text if fb else getattr(getattr(node.freed_by, "origin", None), "text", None)
            elif need.version != need.saved_version:
                need.state = "modified"
            if st is not None:
                need.freed_now = st.freed_now
                need.kept = call.retain_graph and not st.freed_now and not st.freed_before
            step.needs.append(need)
        story.steps.append(step)
    for node in call.freed:
        story.freed.append((node.op.name, getattr(node.origin, "line", None), node.tensor_slots()))

    if call.error is not None:
        story.findings.append(_error_finding(call.error, trace, call.line, call.text))
    if call.failed and call.updates:
        story.findings.append(_partial_finding(call, story, failed_node, by_tensor))
    if not call.failed and any(s.earlier for s in story.steps if not s.leaf):
        story.findings.append(_worked_finding(call, story, earlier, ran_by, by_node))
    return story




def _root_of(call):
    for node in call.executed:
        return node
    return None

# ----------------------------------------------------------------------------- the findings


def _partial_finding(call, story, failed_node, by_tensor):
    updated = [u.name or "a leaf" for u in story.updates]
    order = []
    for s in story.steps:
        if s.leaf:
            order.append(f"{s.name} (AccumulateGrad)")
        else:
            order.append(f"{s.grad_fn} #{s.seq}" + (" ✗" if s.failed else ""))
    executed = set(call.executed)
    fail_ref = (f"{failed_node.op.name} #{failed_node.seq}" + (f" (line {getattr(failed_node.origin, 'line', None)})"
                                                               if getattr(failed_node.origin, "line", None) else "")
                if failed_node is not None else "the failing node")
    parts = [f"Before it failed, this call had already updated {', '.join(f'{n}.grad' for n in updated)}: "
             "the change stays, although the call raised."]
    parts.append("Why: backward always runs the ready node with the highest sequence number (the most "
                 "recently created) and runs a leaf's AccumulateGrad as soon as all of that leaf's incoming "
                 f"gradients have arrived. Order here: {' → '.join(order)}.")
    facts = {"updated": updated, "failed": failed_node.op.name if failed_node is not None else None,
             "failed_seq": getattr(failed_node, "seq", None), "order": order, "via": {}, "not_updated": {}}
    # which nodes fed each updated leaf
    parents = {}
    root = _root_of(call)
    graph = _graph_nodes(root) if root is not None else []
    for fn in graph:
        for nxt, _ in fn.next_functions:
            if isinstance(nxt, E.AccumulateGrad):
                parents.setdefault(nxt, []).append(fn)
    done, waiting_parts = [], []
    for acc, fns in parents.items():
        name = _leaf_name(acc, by_tensor)
        fns = list(dict.fromkeys(fns))
        refs = ", ".join(f"{f.op.name} #{f.seq}" for f in fns)
        if acc in executed:
            facts["via"][name] = [f.seq for f in fns]
            newer = failed_node is not None and all(f.seq > failed_node.seq for f in fns)
            done.append(f"{name}'s gradient comes only through {refs}"
                        + (f", created after {fail_ref} (a higher sequence number)" if newer else "")
                        + f", so {name}'s AccumulateGrad was ready, and ran, before the engine reached {fail_ref}.")
        else:
            waiting = [f for f in fns if f not in executed or f is failed_node]
            wrefs = ", ".join(f"{f.op.name} #{f.seq}" for f in waiting) or refs
            facts["not_updated"][name] = [f.seq for f in waiting]
            waiting_parts.append(f"{name}.grad did not change: its AccumulateGrad still waited for {wrefs}, "
                                 "which never delivered a gradient (a leaf is updated only once all its "
                                 "gradients are in).")
    parts += done + waiting_parts
    return Finding("partial", " ".join(parts), facts)


def _worked_finding(call, story, earlier, ran_by, by_node):
    shared_nothing, kept, fresh = [], [], []
    this = set(call.executed)
    steps = {s.seq: s for s in story.steps if not s.leaf}
    for node in call.executed:
        if isinstance(node, E.AccumulateGrad) or node.op is E.GRAPH_ROOT:
            continue
        step = steps[node.seq]
        ref = _node_ref(node, by_node)
        if step.earlier:
            who = ", ".join(f"`{t}` (line {l})" if t else f"call {i}" for i, l, t, r in step.earlier)
            if not step.holds_tensors:
                attrs = _attrs_text(step.attrs)
                shared_nothing.append((node, f"{ref} was already run by {who}, but it saves no tensors"
                                             + (f" (only {attrs})" if attrs else "") + ": there was nothing to free"))
            else:
                kept.append((node, f"{ref} was run by {who} with retain_graph=True, which kept its saved "
                                   f"{', '.join(n.slot for n in step.needs if n.held)}"))
        elif step.holds_tensors:
            held = ", ".join(f"`{n.slot}` ({n.what})" for n in step.needs if n.held)
            fresh.append((node, f"{ref} holds its own saved {held}, and no earlier backward ran this node, so "
                                "its buffers were still alive" + ("" if call.retain_graph else
                                                                   " (this call has now freed them)")))
    parts = ["It worked because no node this call ran had lost a saved tensor."]
    parts += [t + "." for _, t in shared_nothing]
    parts += [t + "." for _, t in kept]
    parts += [t + "." for _, t in fresh]
    # what the earlier calls that shared nodes with this one freed instead
    others = []
    for k, prev in enumerate(earlier):
        if not (ran_by[k] & this) or prev.retain_graph:
            continue
        elsewhere = [n for n in prev.freed if n not in this]
        if elsewhere:
            refs = ", ".join((f"{by_node[n]}'s " if n in by_node else "") + _node_ref(n, by_node)
                             for n in elsewhere)
            others.append(f"`{prev.text}` (line {prev.line}) freed the saved tensors of {refs}: "
                          f"{'a node' if len(elsewhere) == 1 else 'nodes'} this call does not run")
    parts += [t + "." for t in others]
    parts.append("A second backward fails only when it runs a node whose saved tensors an earlier "
                 "non-retaining backward freed; here there was none.")
    facts = {"saves_nothing": [(n.op.name, getattr(n.origin, "line", None)) for n, _ in shared_nothing],
             "kept": [(n.op.name, getattr(n.origin, "line", None)) for n, _ in kept],
             "fresh": [(n.op.name, getattr(n.origin, "line", None),
                        [x.slot for x in steps[n.seq].needs if x.held]) for n, _ in fresh]}
    return Finding("worked", " ".join(parts), facts)


def _error_finding(exc, trace, line, text):
    """The error's one explanation (explain/why.py): the script's error carries it; an error a
    script caught is explained the same way here."""
    info = trace.report.error
    why = explained(info) if trace.exception is exc else None
    if why is None and trace.interp is not None:
        from ..explain import explained_caught
        why = explained_caught(exc, trace.report, trace.interp, line, text)
    if why is None:
        message = getattr(exc, "message", None) or str(exc)
        return Finding("error", f"{getattr(exc, 'pytype', type(exc).__name__)}: {message}")
    return _finding_of(why)


def _finding_of(why):
    import dataclasses
    from ..explain.why import lines as why_lines
    facts = dataclasses.asdict(why)
    facts.pop("fixes")
    kind = {"freed": "freed", "version": "inplace", "optimizer_step": "inplace", "inplace_activation": "inplace",
            "nonleaf_grad": "surprise", "accumulated": "surprise", "data_inplace": "surprise"}.get(why.family, "error")
    body, fixes = [], []
    for k, t in why_lines(why):
        if k in ("why", "note"):
            body.append(t)
        elif k == "result":
            fixes[-1] += f" ({t})"
        else:
            fixes.append(t)
    return Finding(kind, " ".join(body), facts, fixes, why)


# ----------------------------------------------------------------------------- rendering


def _need_text(n, step, retain):
    if not n.held:
        return f"{n.slot}: None ({n.reason})"
    head = f"{n.slot} = {n.what}"
    if n.state == "freed":
        by = f"`{n.freed_by_text}` on line {n.freed_by_line}" if n.freed_by_text else "an earlier call"
        return f"{head}: FREED by {by} ✗"
    if n.state == "modified":
        return f"{head}: modified in place (version {n.version}, saved at {n.saved_version}) ✗"
    state = f"alive (v{n.saved_version})"
    if n.freed_now:
        state += " → freed by this call"
    elif n.kept:
        state += " → kept (retain_graph)"
    return f"{head}: {state}"


def lines(narr: Narrative):
    """The narrative as (indent, text, style) lines; the views only lay these out."""
    out = []
    add = lambda indent, text, style="": out.append((indent, text, style))
    if narr.leaves:
        add(0, "implicit leaves: " + ", ".join(f"{n} = {v}" for n, v in narr.leaves), "dim")
    if not narr.calls and narr.error is None:
        add(0, "No backward() or autograd.grad() call ran: there is nothing to explain. "
               "(Use `gradcli graph` to see the graph the script built.)")
    total = len(narr.calls)
    for c in narr.calls:
        mode = "keeps saved tensors (retain_graph=True)" if c.retain_graph else "frees the saved tensors of the nodes it runs"
        outcome = f"FAILED ({c.error_type})" if c.failed else "ok"
        add(0, "")
        add(0, f"{c.kind} {c.index} of {total}: {c.title}  (line {c.line}) — {outcome}; {mode}", "bold")
        for s, repeats in _folded(c.steps):
            if s.leaf:
                u = s.update
                if u is None:
                    add(2, f"{s.order}. {s.name}: AccumulateGrad ran, no gradient to add")
                else:
                    add(2, f"{s.order}. {s.name}.grad: {flat(u.before or 'None')} → {flat(u.after)}  "
                           f"(added {flat(u.delta)})", "green")
                continue
            where = " · ".join(x for x in (s.name, f"line {s.line}: {s.text}" if s.line else None) if x)
            head = (f"{s.order}. {s.grad_fn} #{s.seq}" if not repeats else
                    f"{s.order}. {len(repeats) + 1} × {s.grad_fn} #{s.seq}, "
                    + ", ".join(f"#{r.seq}" for r in repeats))
            add(2, head + (f"  {where}" if where else ""), "bold red" if s.failed else "bold")
            if not s.holds_tensors:
                attrs = _attrs_text(s.attrs)
                add(6, "saves no tensors" + (f" (only {attrs})" if attrs else "") + ": nothing to need or free", "dim")
                for n in s.needs:
                    add(6, _need_text(n, s, c.retain_graph), "dim")
            else:
                for n in s.needs:
                    add(6, ("needed " if n.held else "") + _need_text(n, s, c.retain_graph),
                        "red" if n.state in ("freed", "modified") else "yellow" if n.held else "dim")
                if s.attrs:
                    add(6, _attrs_text(s.attrs), "dim")
            if s.earlier:
                add(6, "also run by " + ", ".join(f"`{t}` (line {l})" + (" with retain_graph" if r else "")
                                                 for i, l, t, r in s.earlier), "dim")
            if s.failed:
                add(6, "✗ the call stopped here", "red")
        if c.freed:
            add(2, "freed: " + "; ".join(f"{g} (line {l}): {', '.join(sl)}" for g, l, sl in c.freed), "yellow")
        elif c.failed and not c.retain_graph:
            add(2, "freed: nothing before the failure", "dim")
        elif not c.retain_graph:
            add(2, "freed: nothing (no node it ran holds a saved tensor)", "dim")
        else:
            add(2, "freed: nothing (retain_graph=True keeps every saved tensor)", "dim")
        if c.updates:
            add(2, "updated: " + ", ".join(f"{u.name}.grad by {flat(u.delta)}" for u in c.updates), "green")
        elif c.kind == "backward":
            add(2, "updated: no leaf", "dim")
        for f in c.findings:
            _finding_lines(f, add)
    for f in narr.surprises:
        add(0, "")
        from ..explain.why import shown_line
        add(0, f"note (line {shown_line(f.why)})", "bold yellow")
        _finding_lines(f, add)
    if narr.error_finding is not None:
        add(0, "")
        add(0, f"error (line {narr.error.line if narr.error else '?'})", "bold red")
        _finding_lines(narr.error_finding, add)
    elif narr.error is not None and not any(c.failed for c in narr.calls):
        add(0, "")
        add(0, f"{narr.error.type} (line {narr.error.line}): {narr.error.message}", "bold red")
    return out


def _fold_key(s):
    """Steps a loop repeats: the same node class, statement and saved-tensor states."""
    return (s.grad_fn, s.line, s.text, s.name, tuple((n.slot, n.state, n.freed_now, n.kept) for n in s.needs),
            tuple(s.attrs.items()) if all(isinstance(v, (int, float, str, bool, tuple)) for v in s.attrs.values())
            else id(s),
            tuple(s.earlier))


def _folded(steps):
    """(step, [the later steps folded into it]) in order: a loop's repeated nodes once, with a count."""
    out, first = [], {}
    for s in steps:
        key = None if s.leaf or s.failed else _fold_key(s)
        if key is not None and key in first:
            first[key][1].append(s)
            continue
        entry = (s, [])
        if key is not None:
            first[key] = entry
        out.append(entry)
    return out


def _finding_lines(f, add):
    title = {"freed": "Why it failed", "inplace": "Why it failed", "worked": "Why it worked",
             "partial": "Leaves updated before the failure", "error": "Why it failed",
             "surprise": "Not what it seems"}[f.kind]
    add(2, f"{title}:", "bold")
    add(4, f.text)
    if f.fixes:
        add(2, "Fix:" if len(f.fixes) == 1 else "Fixes:", "bold green")
        for fix in f.fixes:
            add(4, fix, "bullet")


def render_text(narr: Narrative, width=100) -> str:
    """Plain text; paragraphs wrap at `width` columns (None: one line each)."""
    import textwrap
    out = []
    for indent, text, style in lines(narr):
        pad = " " * indent
        if style == "bullet":
            first, rest = pad + "- ", pad + "  "
        else:
            first, rest = pad, pad + ("    " if text[:1].isdigit() else "")
        if width is None or not text:
            out.append(first + text)
        else:
            out.append(textwrap.fill(text, width, initial_indent=first, subsequent_indent=rest,
                                     break_long_words=False, break_on_hyphens=False))
    return "\n".join(out).lstrip("\n") + "\n"


def render_rich(narr: Narrative):
    entries = lines(narr)
    while entries and entries[0][1] == "":
        entries.pop(0)
    return layout(entries)


def layout(entries):
    """(indent, text, style) lines as Rich renderables (also the REPL's :explain)."""
    from rich.console import Group
    from rich.padding import Padding
    from rich.table import Table
    from rich.text import Text
    parts = []
    for indent, text, style in entries:
        if not text:
            parts.append(Text(""))
        elif style == "bullet":                   # a hanging indent for wrapped list items
            grid = Table.grid(padding=(0, 1))
            grid.add_column(no_wrap=True)
            grid.add_column()
            grid.add_row("-", Text(text))
            parts.append(Padding(grid, (0, 0, 0, indent), expand=False))
        else:
            parts.append(Padding(Text(text, style=style or ""), (0, 0, 0, indent), expand=False))
    return Group(*parts)


def refresh(narr):
    """Rebuild the error's finding after the fixes learnt more (the oracle's word)."""
    for c in narr.calls:
        c.findings = [_error_finding_again(f) for f in c.findings]
    narr.surprises = [_error_finding_again(f) for f in narr.surprises]
    if narr.error_finding is not None:
        narr.error_finding = _error_finding_again(narr.error_finding)


def _error_finding_again(f):
    if f.why is None:
        return f
    g = _finding_of(f.why)
    g.facts = f.facts
    return g
