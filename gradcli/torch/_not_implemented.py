"""What PyTorch 2.13 has and gradcli lacks reads as "not implemented (yet)", not as the user's mistake."""
from ._pytorch_names import NAMES


def missing(module, name, what=None):
    """The AttributeError for `module.name`: PyTorch's own words, and when PyTorch has the name,
    that gradcli does not implement it (yet)."""
    from ..engine import TorchAttributeError
    owner = what or f"module '{module}'"
    if name in NAMES.get(module, ()):
        return TorchAttributeError(f"{owner} has no attribute '{name}': gradcli does not implement {module}.{name} "
                                   "(yet)")
    return TorchAttributeError(f"{owner} has no attribute '{name}'")
