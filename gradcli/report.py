"""What a run produced, as plain data: the interpreter fills a Report, views format it.

Items are kept in the order they happened, so a view can interleave what the script
printed with what each backward call did.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Optional


@dataclass
class NodeInfo:
    """One graph node as a user knows it: its class, where it was made, what it saved."""
    grad_fn: str
    line: Optional[int] = None
    text: Optional[str] = None          # the statement that created the node
    saved: list = field(default_factory=list)      # tensor slots (names without `_saved_`)
    name: Optional[str] = None          # the script variable whose grad_fn this is, if any
    seq: Optional[int] = None           # the node's sequence number: unique within a run
    constants: dict = field(default_factory=dict)  # slot -> the Python number saved as a tensor

    def as_json(self):
        return {"grad_fn": self.grad_fn, "line": self.line, "saved": list(self.saved)}


@dataclass
class LeafUpdate:
    name: Optional[str]
    before: Optional[str]       # printed like PyTorch, or None when .grad was None
    after: str
    values_after: Any = None


@dataclass
class CallEvent:
    """One backward() or autograd.grad() call."""
    kind: str                    # "backward" or "grad"
    line: Optional[int]
    text: Optional[str]
    retain_graph: bool
    executed: list = field(default_factory=list)   # NodeInfo, in the order they ran
    freed: list = field(default_factory=list)      # NodeInfo whose saved tensors this call freed
    updates: list = field(default_factory=list)    # LeafUpdate, in the order they happened
    failed: bool = False

    def as_json(self):
        return {"kind": self.kind, "line": self.line, "retain_graph": self.retain_graph,
                "freed": [n.as_json() for n in self.freed],
                "ran": [n.grad_fn for n in self.executed],
                "updated": [u.name for u in self.updates], "failed": self.failed}


@dataclass
class ErrorInfo:
    type: str                    # the Python exception name: RuntimeError, NameError, SyntaxError ...
    message: str
    line: Optional[int] = None
    col: Optional[int] = None
    text: Optional[str] = None   # the source line
    hint: Optional[str] = None   # "Did you mean: 'y1'?"
    cause: Optional[dict] = None  # engine facts behind the error (see DESIGN.md)
    why: Optional[str] = None    # the cause in plain words
    fix: Optional[str] = None    # what to change

    def as_json(self):
        return {"type": self.type, "message": self.message, "line": self.line, "column": self.col,
                "hint": self.hint, "cause": self.cause, "why": self.why, "fix": self.fix}


@dataclass
class Report:
    source: str = ""
    filename: str = "<script>"
    # In order: ("out", text) | ("warn", line, text) | ("call", CallEvent) | ("leaves", [(name, repr)])
    #           | ("expect", line, passed, text) | ("graph", line, GraphSnapshot)
    items: list = field(default_factory=list)
    error: Optional[ErrorInfo] = None
    describe: Any = None          # () -> {name: JSON-ready description} of the tensors at the end
    parse_failed: bool = False

    @property
    def tensors(self):
        """Every script variable bound to a tensor when the script ended (the JSON contract)."""
        return self.describe() if self.describe is not None else {}

    @property
    def ok(self):
        return self.error is None

    @property
    def stdout(self):
        return "".join(i[1] for i in self.items if i[0] == "out")

    @property
    def events(self):
        return [i[1] for i in self.items if i[0] == "call"]

    def write(self, text):
        if self.items and self.items[-1][0] == "out":
            self.items[-1] = ("out", self.items[-1][1] + text)
        else:
            self.items.append(("out", text))
