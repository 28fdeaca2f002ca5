"""What a run produced, as plain data: the interpreter fills a Report, views format it.

Items are kept in the order they happened, so a view can interleave what the script
printed with what each backward call did.
"""
from __future__ import annotations

# Plain classes rather than dataclasses: `gradcli run` imports this module on every start,
# and the dataclasses machinery (with inspect) costs several milliseconds there.


class NodeInfo:
    """One graph node as a user knows it: its class, where it was made, what it saved. Where it
    was made is read from its origin when a view asks (a long backward reports thousands)."""

    def __init__(self, grad_fn, origin=None, saved=None, name=None, seq=None, constants=None):
        self.grad_fn = grad_fn
        self.origin = origin              # origin.Origin (code, line, ...) or None
        self.saved = saved if saved is not None else []    # tensor slots (names without `_saved_`)
        self.name = name                  # the script variable whose grad_fn this is, if any
        self.seq = seq                    # the node's sequence number: unique within a run
        self.constants = constants if constants is not None else {}  # slot -> the number saved as a tensor
        self.module = None                # "net.fc1 (Linear)": the module whose forward made it

    @property
    def line(self):
        return getattr(self.origin, "line", None)

    @property
    def text(self):
        """The statement that created the node."""
        return getattr(self.origin, "text", None)

    @property
    def function(self):
        """"Net.forward": the script function that made it (None at the top level)."""
        return getattr(self.origin, "function", None)

    def as_json(self):
        return {"grad_fn": self.grad_fn, "line": self.line, "saved": list(self.saved), "module": self.module,
                "function": self.function}


class LeafUpdate:
    """A leaf's .grad before and after a call: kept as arrays, printed like PyTorch when a view
    asks (a training loop makes thousands; `--plain` and `gradcli test` show none)."""

    def __init__(self, name, before, after):
        self.name = name
        self._before, self._after = before, after      # arrays (before: None when .grad was None)

    @staticmethod
    def _fmt(a):
        from .engine import format_tensor
        return format_tensor(a, "bool" if a.dtype.kind == "b" else a.dtype.name)

    @property
    def before(self):
        return None if self._before is None else self._fmt(self._before)

    @property
    def after(self):
        return self._fmt(self._after)

    @property
    def values_after(self):
        return self._after.tolist()


class CallEvent:
    """One backward() or autograd.grad() call."""

    def __init__(self, kind, line, text, retain_graph, executed=None, freed=None, updates=None, failed=False):
        self.kind = kind                  # "backward" or "grad"
        self.line = line
        self.text = text
        self.retain_graph = retain_graph
        self.executed = executed if executed is not None else []   # NodeInfo, in the order they ran
        self.freed = freed if freed is not None else []            # NodeInfo whose saved tensors it freed
        self.updates = updates if updates is not None else []      # LeafUpdate, in the order they happened
        self.failed = failed
        self.error = None                 # (type, message) of what the call raised
        self.caught_line = None           # the `except` that caught it, when the script went on
        self.exception = None             # (the exception itself, until the run ends)

    @property
    def raised(self):
        return self.failed

    def as_json(self):
        return {"kind": self.kind, "line": self.line, "retain_graph": self.retain_graph,
                "freed": [n.as_json() for n in self.freed],
                "ran": [n.grad_fn for n in self.executed],
                "updated": [u.name for u in self.updates], "failed": self.failed, "raised": self.raised,
                "error": None if self.error is None else {"type": self.error[0], "message": self.error[1],
                                                          "caught_line": self.caught_line}}


class ErrorInfo:
    def __init__(self, type, message, line=None, col=None, text=None, hint=None, cause=None, why=None, fix=None):
        self.type = type          # the Python exception name: RuntimeError, NameError, SyntaxError ...
        self.message = message
        self.line = line
        self.col = col
        self.text = text          # the source line
        self.hint = hint          # "Did you mean: 'y1'?"
        self.cause = cause        # engine facts behind the error (docs/json.md)
        self.why = why            # the cause in plain words
        self.fix = fix            # what to change
        self.frames = []          # [(line, function)] of the script's frames, outermost first
        self.explanation = None   # explain.Why: the facts behind `why`, and the ranked fixes
        self.trial = None         # the report's trial: how to run a fixed copy of the script
        self.tried = False        # the fixes were tried (once, when a view first asks)

    def explained(self):
        """The Why, with its mechanical fixes tried on copies of the script (the first time)."""
        if self.explanation is not None and self.trial is not None and not self.tried:
            from . import explain, fixes
            self.tried = True
            fixes.try_fixes(self.explanation, self.trial)
            self.fix = explain.fix_text(self.explanation.fixes)
        return self.explanation

    def as_json(self):
        why = self.explained()
        out = {"type": self.type, "message": self.message, "line": self.line, "column": self.col,
               "hint": self.hint, "cause": self.cause, "why": self.why, "fix": self.fix,
               "frames": [{"line": line, "function": name} for line, name in self.frames]}
        if why is not None:
            from dataclasses import asdict
            facts = asdict(why)
            out["fixes"] = [fix_json(f) for f in facts.pop("fixes") if f["tried"] is False or f["works"]]
            facts.pop("text")
            out["facts"] = facts
        return out


def fix_json(f):
    edit = f["edit"]
    return {"title": f["title"], "advice": f["advice"], "effect": f["effect"],
            "edit": None if edit is None else edit["changes"], "tried": f["tried"],
            "outcome": f["outcome"], "grads": f["grads"], "differs": f["differs"], "oracle": f["oracle"]}


class Report:
    def __init__(self, source="", filename="<script>"):
        self.source = source
        self.filename = filename
        # In order: ("out", text) | ("warn", line, text) | ("call", CallEvent) | ("leaves", [(name, repr)])
        #           | ("expect", line, passed, text) | ("graph", line, GraphSnapshot)
        self.items = []
        self.error = None             # ErrorInfo
        self.describe = None          # (full_values) -> {name: JSON-ready description} of the tensors at the end
        self.parse_failed = False
        self.exception = None         # the exception that ended the script, for explanations
        self.trial = None             # how to run a fixed copy of the script (fixes.trial_of)
        self.noted = None             # explain.surprises(self), once asked

    def may_surprise(self):
        """Cheap: could explain.surprises find something (a non-leaf .grad read, a leaf's .grad
        added to by a later call)? Views ask before importing the explainer."""
        return any(i[0] == "warn" and i[2].startswith("The .grad attribute of a Tensor that is not a leaf")
                   or i[0] == "call" and any(u._before is not None for u in i[1].updates) for i in self.items) \
            or ".data" in self.source

    def surprises(self):
        if not self.may_surprise():
            return []
        from .explain import surprises
        return surprises(self)

    def tensors_json(self, full_values=None):
        """Every script variable bound to a tensor when the script ended (the JSON contract);
        values of tensors over `full_values` elements summarised (None: all values)."""
        return self.describe(full_values) if self.describe is not None else {}

    @property
    def tensors(self):
        return self.tensors_json()

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
        # one item per write: joining into the last item would copy all the output so far each time
        self.items.append(("out", text))
