"""What a run produced, as plain data: the executor's Recorder fills a Report, views format it.

Items are kept in the order they happened, each a small class of its own (Printed, Warned,
CallEvent, ...), so a view can interleave what the script printed with what each backward
call did, choosing how to show each item by its class.
"""
from __future__ import annotations

# Plain classes rather than dataclasses: `gradcli run` imports this module on every start,
# and the dataclasses machinery (with inspect) costs several milliseconds there.


class Item:
    """One thing a run did, kept in `Report.items` in the order it happened; a view dispatches on
    the class (isinstance, or `match` with the fields in order). Frozen, with slots: the recorder
    makes it whole and everything after only reads it."""

    __slots__ = ()

    def __init__(self, *values):
        if len(values) != len(self.__slots__):
            raise TypeError(f"{type(self).__name__}({', '.join(self.__slots__)}) got {len(values)} values")
        for name, value in zip(self.__slots__, values):
            object.__setattr__(self, name, value)

    def __setattr__(self, name, value):
        raise AttributeError(f"{type(self).__name__} is frozen")

    def __eq__(self, other):
        return type(other) is type(self) and all(getattr(self, n) == getattr(other, n) for n in self.__slots__)

    def __repr__(self):
        return f"{type(self).__name__}({', '.join(f'{n}={getattr(self, n)!r}' for n in self.__slots__)})"


class Printed(Item):
    """What the script printed: one write to its stdout."""
    __slots__ = __match_args__ = ("text",)


class Warned(Item):
    """A UserWarning the script got, once per line and message (Python's default filter)."""
    __slots__ = __match_args__ = ("line", "message")


class LeavesShown(Item):
    """The leaves the dialect made implicitly (`x` used before it is assigned), before anything ran:
    ((name, the tensor as PyTorch prints it), ...)."""
    __slots__ = __match_args__ = ("leaves",)


class ExpectPassed(Item):
    """An `expect` statement that held (one that fails ends the script with an error instead)."""
    __slots__ = __match_args__ = ("line", "text")


class GraphShown(Item):
    """A `graph NAME` statement: the graph as it stood at that line (a graphview.GraphSnapshot)."""
    __slots__ = __match_args__ = ("line", "snapshot")


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


class LeafUpdate:
    """A leaf's .grad before and after a call: kept as arrays, printed like PyTorch when a view
    asks (a training loop makes thousands; `--plain` and `gradcli test` show none)."""

    def __init__(self, name, before, after):
        self.name = name
        self._before, self._after = before, after      # arrays (before: None when .grad was None)

    @staticmethod
    def _fmt(a):
        from ..engine import format_tensor
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
    """One backward() or autograd.grad() call: an item of the report, like the Item classes, but
    not frozen (when the script goes on after a failed call, the run adds where it was caught)."""

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
        self.frames = []          # [(line, function, repeated)] of the script's frames, outermost first (a
                                  # frame repeated in a row is kept 3 times, the last counting the others)
        self.explanation = None   # explain.Why: the facts behind `why`, and the ranked fixes
        self.trial = None         # the report's trial: how to run a fixed copy of the script
        self.tried = False        # the fixes were tried (once, when a view first asks)
        self.exit_code = 1        # the exit status `python script.py` ends with (None: sys.exit(obj) with an
                                  # object that is not an int, which Python prints; status 1)


class Report:
    def __init__(self, source="", filename="<script>"):
        self.source = source
        self.filename = filename
        # In order: Printed | Warned | CallEvent | LeavesShown | ExpectPassed | GraphShown
        self.items = []
        self.error = None             # ErrorInfo
        self.tensors_at_end = None    # () -> {name: Tensor}: the script's tensors when it ended
        self.names_at_end = None      # () -> the script's global names when it ended (its optimizers...)
        self.parse_failed = False
        self.exception = None         # the exception that ended the script, for explanations
        self.trial = None             # how to run a fixed copy of the script (fixes.trial_of)
        self.noted = None             # explain.surprises(self), once asked

    def may_surprise(self):
        """Cheap: could explain.surprises find something (a non-leaf .grad read, a leaf's .grad
        added to by a later call)? Views ask before importing the explainer."""
        return any(isinstance(i, Warned) and i.message.startswith("The .grad attribute of a Tensor that is not a leaf")
                   or isinstance(i, CallEvent) and any(u._before is not None for u in i.updates)
                   for i in self.items) or ".data" in self.source

    @property
    def ok(self):
        return self.error is None

    @property
    def stdout(self):
        return "".join(i.text for i in self.items if isinstance(i, Printed))

    @property
    def events(self):
        return [i for i in self.items if isinstance(i, CallEvent)]

    def write(self, text):
        # one item per write: joining into the last item would copy all the output so far each time
        self.items.append(Printed(text))


def exit_status(report):
    """A front end's exit status for a run: 0 ok, 1 the script raised (or the status it passed to
    sys.exit, 130 for its own KeyboardInterrupt), 2 it could not be parsed."""
    if report.error is None:
        return 0
    if report.parse_failed:
        return 2
    return 1 if report.error.exit_code is None else report.error.exit_code
