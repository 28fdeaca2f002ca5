"""Errors a script can see, as values that carry their Python type name and a source span.

Each class also subclasses the matching Python built-in, so code that uses
`gradcli.torch` directly can write `except RuntimeError` exactly as with PyTorch.
Anything that is *not* a ScriptError escaping the interpreter is a gradcli bug.
"""
from __future__ import annotations


class ScriptError(Exception):
    """An error the script itself caused; `pytype` is the name Python would print."""

    pytype = "Exception"

    def __init__(self, message: str = "", *, span=None, cause=None):
        super().__init__(message)
        self.message = message
        self.span = span          # (line, column) in the script, filled in by the interpreter
        self.cause = cause        # structured explanation (engine facts), or None
        self.hint = None          # did-you-mean and similar advice

    def __str__(self) -> str:
        return self.message


def _make(name: str, base: type) -> type:
    # Named like the built-in it extends, so that code using gradcli.torch directly sees
    # "RuntimeError: ..." in a traceback and in type(e).__name__, exactly as with PyTorch.
    attrs = {"pytype": base.__name__, "__module__": "builtins"}
    if base is KeyError:                # KeyError.__str__ shows the key's repr
        attrs["__str__"] = lambda self: repr(self.message)
    return type(base.__name__, (ScriptError, base), attrs)


TorchRuntimeError = _make("TorchRuntimeError", RuntimeError)
TorchTypeError = _make("TorchTypeError", TypeError)
TorchValueError = _make("TorchValueError", ValueError)
TorchIndexError = _make("TorchIndexError", IndexError)
TorchKeyError = _make("TorchKeyError", KeyError)
TorchAttributeError = _make("TorchAttributeError", AttributeError)
TorchNameError = _make("TorchNameError", NameError)
TorchZeroDivisionError = _make("TorchZeroDivisionError", ZeroDivisionError)
TorchAssertionError = _make("TorchAssertionError", AssertionError)
TorchNotImplementedError = _make("TorchNotImplementedError", NotImplementedError)
TorchRecursionError = _make("TorchRecursionError", RecursionError)
TorchStopIteration = _make("TorchStopIteration", StopIteration)
TorchOverflowError = _make("TorchOverflowError", OverflowError)
# PyTorch's error for a singular (or otherwise failed) LAPACK factorisation: a RuntimeError that
# Python prints by its module and name, torch._C._LinAlgError (torch.linalg.LinAlgError)
TorchLinAlgError = type("_LinAlgError", (TorchRuntimeError,), {"pytype": "torch._C._LinAlgError",
                                                               "__module__": "torch._C"})

# The script-visible exception hierarchy, by the names a script uses in `except`.
BY_NAME = {cls.pytype: cls for cls in (
    TorchRuntimeError, TorchTypeError, TorchValueError, TorchIndexError, TorchKeyError,
    TorchAttributeError, TorchNameError, TorchZeroDivisionError, TorchAssertionError,
    TorchNotImplementedError, TorchRecursionError, TorchStopIteration, TorchOverflowError)}


class ParseError(ScriptError):
    """The script could not be parsed (exit status 2)."""

    pytype = "SyntaxError"


class LimitError(ScriptError):
    """A resource limit (time, memory, depth) stopped the script."""

    pytype = "LimitError"


class ExpectationFailed(ScriptError):
    """An `expect` statement did not hold (gradcli test counts it as a failure)."""

    pytype = "ExpectationFailed"
