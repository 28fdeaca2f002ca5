"""Why an error happened and how to fix it, stated from the engine's records.

Nothing here guesses: each sentence is built from facts the engine recorded (which
node needed which saved tensor, which call freed it, which in-place op bumped a version).
"""
from __future__ import annotations

import re

from . import engine as E


def _where(node, interp=None):
    origin = node.origin
    if origin is None:
        return "", None
    module = getattr(origin, "module", None)
    inside = ""
    if module is not None:
        path = interp.module_paths().get(id(module)) if hasattr(interp, "module_paths") else None
        inside = f" in {path + ' (' + type(module).__name__ + ')' if path else type(module).__name__}"
        function = getattr(origin, "function", None)
        inside += f".{function.rpartition('.')[2]}" if function and path is None else ""
    return f"`{origin.text}`{inside} on line {origin.line}", origin.line


def _slot_phrase(node, slot):
    s = node.saved.get(slot)
    if slot == "result":
        return "its own output (`result`)"
    if slot == "fn":                        # CopySlices keeps the in-place op's node, not a tensor
        return "the node of the in-place operation it applies (`fn`)"
    constant = getattr(s, "constant", None) if isinstance(s, E.Saved) else None
    if constant is not None:
        return f"the constant {constant!r} as a tensor (`{slot}`)"
    return f"its input (`{slot}`)"


def retain_fix(text):
    """The freeing call's source, rewritten to keep the graph."""
    if text is None:
        return None
    if re.match(r"backward\s", text):
        return text + ", retain_graph=True"
    m = re.search(r"(\.backward|autograd\.grad)\((.*)\)\s*$", text)
    if m:
        inner = m.group(2).strip()
        return text[:m.start(2)] + (inner + ", " if inner else "") + "retain_graph=True" + text[m.end(2):]
    return None


def explain_error(info, exc, interp):
    """Fill info.cause, info.why and info.fix for the errors the engine can explain."""
    if isinstance(exc, E.BackwardTwiceError):
        _backward_twice(info, exc, interp)
    elif isinstance(exc, E.VersionError):
        _version(info, exc, interp)


def _backward_twice(info, exc, interp):
    node = exc.node
    where, line = _where(node, interp)
    freed_by = node.freed_by
    freed_line = getattr(freed_by.origin, "line", None) if freed_by else None
    freed_text = getattr(freed_by.origin, "text", None) if freed_by else None
    slots = node.tensor_slots() or ([exc.slot] if exc.slot == "fn" else [])
    info.cause = {"grad_fn": node.name(), "line": line, "saved": slots, "freed_by": freed_line}
    calls = [i[1] for i in interp.report.items if i[0] == "call"]
    failing = calls[-1] if calls and calls[-1].failed else None
    who = f"`{failing.text}`" if failing and failing.text else "This backward"
    what = " and ".join(_slot_phrase(node, s) for s in slots) or "tensors"
    freed = f"`{freed_text}` on line {freed_line}" if freed_text else "an earlier backward"
    info.why = (f"{who} reached {node.name()}, made by {where}. It saved {what}, and {freed} freed it "
                f"(a backward without retain_graph=True frees the saved tensors of every node it runs).")
    fixed = retain_fix(freed_text)
    target = getattr(node.origin, "targets", None)
    var = target[0].id if target and hasattr(target[0], "id") else None
    fixes = []
    if fixed:
        fixes.append(f"`{fixed}` on line {freed_line}")
    fixes.append(f"recompute {('`' + var + '`') if var else 'the forward'} before the second backward")
    info.fix = ", or ".join(fixes) + "."
    innocent = []
    if failing:
        for n in failing.executed:
            if n.grad_fn != "AccumulateGrad" and not n.saved and n.text and n.grad_fn != node.name():
                innocent.append(f"`{n.text}` (line {n.line}, {n.grad_fn})")
    if innocent:
        info.fix += (" " + ", ".join(innocent) + (" saves" if len(innocent) == 1 else " save")
                     + " no tensors: not the problem.")


def _version(info, exc, interp):
    node, s = exc.node, exc.saved
    where, line = _where(node, interp)
    slot = next((k for k, v in node.saved.items() if v is s), None)
    info.cause = {"grad_fn": node.name(), "line": line, "saved": [slot] if slot else [],
                  "version": s.version.v, "expected_version": s.saved_version}
    changed = getattr(s.version, "last", None)
    by = f"`{changed.text}` on line {changed.line}" if changed is not None and hasattr(changed, "text") else \
        "an in-place operation"
    info.why = (f"{node.name()}, made by {where}, saved `{slot}` at version {s.saved_version}; {by} modified "
                f"it in place (now version {s.version.v}) before backward needed it.")
    info.fix = ("Use an out-of-place operation (`a = a + 1` instead of `a += 1`), or `.clone()` the tensor "
                "before modifying it.")
