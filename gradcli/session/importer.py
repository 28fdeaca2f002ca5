"""`import torch` resolves to gradcli's torch package while a script runs.

A `sys.meta_path` finder placed first answers for `torch` and every `torch.*` name with the
module of the same name under `gradcli.torch`; all other imports are ordinary Python. The
hook and the `sys.modules` entries it makes exist only inside `torch_is_gradcli()`: the
host process (the REPL's, a test's, one that also imports the real PyTorch) finds everything
as it was afterwards. Real PyTorch is never imported by a script.
"""
from __future__ import annotations

import contextlib
import importlib
import importlib.machinery
import importlib.util
import sys

# Packages of the PyTorch ecosystem that gradcli does not provide.
_ECOSYSTEM = ("torchvision", "torchaudio", "torchtext", "torchdata", "functorch", "torch_geometric",
              "pytorch_lightning", "lightning")

NOT_PROVIDED_HINT = "replace data loading by small literal tensors (torch.tensor([...]))"


def not_provided(name):
    """A torch module gradcli does not (yet) implement: says so, rather than blaming the script."""
    return ModuleNotFoundError(f"No module named '{name}': gradcli does not implement {name} (yet); "
                               f"{NOT_PROVIDED_HINT}", name=name)


class _Alias:
    """A loader (duck-typed: importlib.abc costs a start-up import) that hands over a loaded module."""

    def __init__(self, module):
        self.module = module

    def create_module(self, spec):
        return self.module

    def exec_module(self, module):
        pass


class TorchFinder:
    """A sys.meta_path finder (duck-typed, like _Alias)."""

    resolving = False           # importing gradcli.torch.X for torch.X: a missing one is a missing module

    def find_spec(self, fullname, path=None, target=None):
        top = fullname.partition(".")[0]
        if top in _ECOSYSTEM:
            raise not_provided(fullname)
        if fullname.startswith("gradcli.torch."):
            # `from torch import X` looks for a submodule under torch's real name, gradcli.torch
            if not self.resolving and importlib.machinery.PathFinder.find_spec(fullname, path) is None:
                _refuse_attribute(fullname[len("gradcli."):])
            return None
        if top != "torch":
            return None
        real = "gradcli." + fullname
        self.resolving = True
        try:
            module = importlib.import_module(real)
        except ModuleNotFoundError as e:
            if e.name is not None and (real == e.name or real.startswith(e.name + ".")):
                raise not_provided(fullname) from None
            raise
        finally:
            self.resolving = False
        return importlib.util.spec_from_loader(fullname, _Alias(module), origin=getattr(module, "__file__", None))


def _refuse_attribute(fullname):
    """`from torch import stft`: a name PyTorch has that gradcli lacks says so."""
    parent, _, name = fullname.rpartition(".")
    from ..torch._pytorch_names import NAMES
    if name in NAMES.get(parent, ()):
        raise ImportError(f"cannot import name '{name}' from '{parent}': gradcli does not implement {fullname} "
                          "(yet)", name=parent)


@contextlib.contextmanager
def torch_is_gradcli():
    saved = {k: v for k, v in sys.modules.items() if k == "torch" or k.startswith("torch.")}
    for k in saved:
        del sys.modules[k]
    finder = TorchFinder()
    sys.meta_path.insert(0, finder)
    import gradcli.torch
    sys.modules["torch"] = gradcli.torch
    try:
        yield
    finally:
        try:
            sys.meta_path.remove(finder)
        except ValueError:
            pass
        for k in [k for k in sys.modules if k == "torch" or k.startswith("torch.")]:
            del sys.modules[k]
        sys.modules.update(saved)
