"""Run a script and keep the engine's full records, for `explain` and `graph`.

The executor's Recorder turns each backward/grad call into a `CallEvent` (plain data) and
lets the engine drop its node references. The narrative and the graph views need more than
that: the live graph nodes a call ran, their saved slots and attributes, and the exception a
failing call raised. With `keep_calls` the Recorder also keeps those records, as the
`CallTrace`s below. It changes nothing in what the script does or prints.

`upto=N` runs only the top-level statements that start on a line <= N (`graph --at`):
a loop or function on line 5 runs completely or not at all.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Optional

from .. import engine as E
from .report import Report


@dataclass
class SlotState:
    """One saved tensor slot of a node, as it was right after a call ran the node."""
    slot: str
    held: bool                   # a tensor was saved (False: the slot holds None)
    freed_before: bool = False   # an earlier call had already released it
    freed_now: bool = False      # this call released it
    saved_version: Optional[int] = None
    version: Optional[int] = None


@dataclass
class CallTrace:
    """One backward()/autograd.grad() call with the engine objects behind it."""
    index: int
    kind: str
    line: Optional[int]
    text: Optional[str]
    retain_graph: bool
    record: Any                                    # the engine's CallRecord (nodes' freed_by points to it)
    executed: list = field(default_factory=list)   # Nodes, in the order they ran
    freed: list = field(default_factory=list)      # Nodes whose saved tensors this call released
    updates: list = field(default_factory=list)    # (leaf Tensor, grad before or None, grad after)
    error: Optional[BaseException] = None
    by_node: dict = field(default_factory=dict)    # Node -> script variable name, at the time of the call
    by_tensor: dict = field(default_factory=dict)  # id(Tensor) -> script variable name
    slots: dict = field(default_factory=dict)      # Node -> [SlotState]
    event: Any = None                              # the report's CallEvent for this call

    @property
    def failed(self):
        return self.error is not None


@dataclass
class Trace:
    report: Report
    interp: Any = None
    calls: list = field(default_factory=list)
    exception: Optional[BaseException] = None      # the script error that stopped the run, if any
    module: Any = None

    def names(self):
        """(by_tensor, by_node) for the script's variables at the end of the run."""
        if self.interp is None:
            return {}, {}
        return self.interp._names()


def _slot_states(node, record):
    out = []
    for slot, s in node.saved.items():
        if s is None:
            out.append(SlotState(slot, False))
            continue
        before = s.freed and node.freed_by is not record
        out.append(SlotState(slot, True, freed_before=before, freed_now=s.freed and not before,
                             saved_version=s.saved_version, version=s.version.v))
    return out




# ----------------------------------------------------------------------------- facts about nodes
# Shared by the narrative and the graph views; everything is read from the node and its
# row of the op table (node.op), never from per-op knowledge here.


@dataclass
class SavedWhat:
    kind: str                       # "none" | "constant" | "output" | "input" | "extra"
    name: Optional[str] = None      # the script variable it is, when known
    constant: Any = None            # the Python number wrapped as a 0-d tensor


def input_name(node, index, by_node, by_tensor):
    """The script name of the tensor on a node's index-th input edge, when it has one."""
    if index >= len(node.next_functions):
        return None
    nxt = node.next_functions[index][0]
    if nxt is None:
        return None
    if isinstance(nxt, E.AccumulateGrad):
        return by_tensor.get(id(nxt.variable))
    return by_node.get(nxt)


def saved_what(node, slot, by_node, by_tensor) -> SavedWhat:
    s = node.saved.get(slot)
    if s is None:
        return SavedWhat("none")
    if s.constant is not None:
        return SavedWhat("constant", constant=s.constant)
    if s.is_output:
        return SavedWhat("output", by_node.get(node))
    name = by_tensor.get(id(s.tensor)) if s.tensor is not None else None
    inputs = node.op.inputs
    if name is None and slot in inputs:
        name = input_name(node, inputs.index(slot), by_node, by_tensor)
    return SavedWhat("input" if slot in inputs else "extra", name)


def none_reason(node, slot):
    """Why a tensor slot holds None, from the op table's condition for it."""
    for name, cond in node.op.saved:
        if name == slot:
            if cond == "never":
                return "PyTorch leaves it empty here"
            if cond in node.op.inputs:
                return f"saved only when `{cond}` requires grad"
    return "nothing to save"


def public_attrs(node):
    """The node's non-tensor attributes (what PyTorch shows as plain `_saved_*` values)."""
    return {k: v for k, v in node.attrs.items() if not k.startswith("_")}


def fmt_value(v):
    if isinstance(v, float):
        return repr(v)
    if isinstance(v, tuple):
        return "(" + ", ".join(fmt_value(x) for x in v) + ("," if len(v) == 1 else "") + ")"
    return repr(v)
